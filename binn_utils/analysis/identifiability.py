"""Could this operator be recovered from these data?  Identifiability from the forward model.

No training: each operator of a model (a benchmark's true D, V, G, or a fit's learned ones)
is perturbed in turn and the forward solution (a converged solve of the PDE: the method of
lines on the data grid refined to a spacing of at most :data:`FINE_DX`, sampled at the data nodes and times) is
compared with the unperturbed one, against the data's noise.  Perturbations (:data:`PERTURBATIONS`):

``zero``     the operator removed (is the mechanism visible at all?)
``half``     the operator times 1/2
``double``   the operator times 2
``tilt``     a change of shape at the same mid-range value: the operator times
             ``1 + (u - u_mid) / (u_hi - u_lo)`` over the observed range of u (x 1/2 at its
             low end, x 3/2 at its high end)

For each, the **chi-square change** ``dchi2 = sum over the data points of (du)^2 / sigma^2``.

The rule (:func:`constraint_level`), at the test level :data:`LEVEL` = 5 %:

* **not constrained** when ``dchi2 < z_{1-LEVEL}^2`` (2.71): the perturbation is invisible to
  *every* method.  With Gaussian noise of known sigma, the most powerful test of the true
  operator against this exact perturbed one (Neyman-Pearson: the likelihood ratio, whose
  statistic is normal with its mean shifted by ``sqrt(dchi2)`` noise units) detects it with
  probability ``Phi(sqrt(dchi2) - z_{1-LEVEL})``: below one half.  Any fitting method, a BINN
  included, is at most as sensitive.
* **well constrained** when ``dchi2 >= q_{1-LEVEL}(chi2_N) - N`` (N data points): the
  perturbation raises the data's expected chi-square (N + dchi2 against the perturbed model)
  past the 95 % quantile of what noise alone produces, so even a check that does not know
  which operator is wrong (a goodness-of-fit test of the residuals) sees it.
* **weakly constrained** in between: detectable only by a test aimed at this perturbation.

An operator's level is that of the weakest of its factor-of-two changes and its change of
shape (``half``, ``double`` and ``tilt``: :data:`DECIDING`): the data constrain the operator
when they tell it from half and twice itself and from a tilted version of itself.  The
``zero`` perturbation says whether the mechanism leaves any measurable signal at all.
N counts the data points a perturbation can move: every node at every time after the first
(the first row is the initial condition, the same for every perturbed model).

Noise-free data (sigma^2 = 0) have no noise to compare with; the BINN's own forward check
then sets the scale: sigma is the root-mean-square difference between u_p's scheme
(``forward_solve``, finite volumes on the data grid) with the true operators and the data
(the converged reference solution).  A perturbation smaller than that cannot be told from
the discretisation error of a u_p computed on that grid.  (Only benchmarks have a reference solution: for a fit, sigma^2 =
0 is refused.)

The share of each term in the dynamics: at each observation time, the L2 norm over x of the
diffusion term d/dx(D u_x), the advection term -d/dx(u V) and the reaction term u G (each
``forward_solve.fv_rhs`` with that operator alone), divided by their sum.

This module computes the rule and its cases; their tables and sentences, for the book and for a
fit's report, are :mod:`binn_utils.analysis.identifiability_words`'.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ..engine.forward_solve import forward_solve, fv_rhs
from ..engine.solvers import solve_mol
from ..engine.problems import BENCHMARK_NAMES, INITIALS, get_benchmark, reference_solution, spatial_grid

__all__ = ["PERTURBATIONS", "LEVEL", "LEVELS", "TERMS", "detect_threshold", "fit_threshold",
           "constraint_level", "OperatorConstraint", "Identifiability", "identifiability",
           "benchmark_identifiability", "solver_sigma", "term_shares", "operator_from_curve",
           "FINE_DX", "case_label", "refinement", "benchmark_cases",
           "NEAR_ZERO_LADDER", "TERM_SCALE", "NEED_LEVELS", "need_threshold", "solve_on_grid", "zero_bound",
           "mean_share"]

PERTURBATIONS = ("zero", "half", "double", "tilt")
#: the changes an operator's level is decided on: its scale (factor two either way) and its shape
DECIDING = ("half", "double", "tilt")
LEVEL = 0.05
"""Test level of the rule (the false-alarm rate a detection is allowed)."""
LEVELS = ("not", "weakly", "well")
#: whether a fit's data need an operator (``fit_identifiability``): only a needed one gets a level of LEVELS
NEED_LEVELS = ("needed", "absent", "indistinguishable")
TERMS = {"D": "diffusion", "V": "advection", "G": "reaction"}
#: An operator whose removal the data cannot see may be indistinguishable from zero (pinned near it)
#: or unmeasurable: a constant of each of these sizes, in units of the term's natural scale (D:
#: X^2/T, V: X/T, G: 1/T; X, T the spans of the data), is added in turn; the smallest one the data
#: see well (its chi-square change above the "well" bar) bounds the operator near zero.
NEAR_ZERO_LADDER = (1e-4, 1e-3, 1e-2, 1e-1)
#: the natural scale of each term from the spans X (space) and T (time) of the data
TERM_SCALE = {"D": lambda X, T: X * X / T, "V": lambda X, T: X / T, "G": lambda X, T: 1.0 / T}


def detect_threshold(level: float = LEVEL) -> float:
    """``z_{1-level}^2``: below it no test detects the perturbation with probability >= 1/2."""
    return float(stats.norm.ppf(1.0 - level) ** 2)


def fit_threshold(n_points: int, level: float = LEVEL) -> float:
    """``q_{1-level}(chi2_N) - N``: above it the perturbation lifts the data's expected
    chi-square past what noise alone reaches at this level."""
    return float(stats.chi2.ppf(1.0 - level, n_points) - n_points)


def need_threshold(level: float = LEVEL) -> float:
    """The (1 - level) quantile of chi-square with one degree of freedom (3.84 at 5 %): a rise of
    the data's chi-square beyond it, when one scale factor of a fitted model is fixed (an
    operator removed), rejects that model at this level (the likelihood-ratio test)."""
    return float(stats.chi2.ppf(1.0 - level, 1))


def constraint_level(dchi2: float, n_points: int, level: float = LEVEL) -> str:
    """``"not"``, ``"weakly"`` or ``"well"`` (module docstring).  A NaN (failed solve) is
    counted as a large change: the perturbed model cannot even be solved."""
    if not np.isfinite(dchi2):
        return "well"
    if dchi2 < detect_threshold(level):
        return "not"
    return "well" if dchi2 >= fit_threshold(n_points, level) else "weakly"


def _perturbed(f, how: str, u_lo: float, u_hi: float):
    if how == "zero":
        return lambda u: 0.0 * np.asarray(f(u), dtype=float)
    if how == "half":
        return lambda u: 0.5 * np.asarray(f(u), dtype=float)
    if how == "double":
        return lambda u: 2.0 * np.asarray(f(u), dtype=float)
    if how == "tilt":
        mid, width = 0.5 * (u_lo + u_hi), max(u_hi - u_lo, np.finfo(float).tiny)
        return lambda u: np.asarray(f(u), dtype=float) * (1.0 + (np.asarray(u, dtype=float) - mid) / width)
    raise ValueError(f"unknown perturbation {how!r}; choose from {PERTURBATIONS}")


def term_shares(ops: dict, u: np.ndarray, dx: float) -> dict:
    """{operator: (n_t,) share of its term in |du/dt|} at each row of ``u`` (n_t, n_x)."""
    norms = {k: np.array([np.linalg.norm(fv_rhs(row, dx, **{k: f})) for row in u]) for k, f in ops.items()}
    total = sum(norms.values())
    with np.errstate(all="ignore"):
        return {k: np.where(total > 0, v / total, np.nan) for k, v in norms.items()}


def mean_share(share) -> float:
    """The mean over the observation times of a term's share, over the times where the
    dynamics are not at rest (NaN where they are at rest at every time: no share to give)."""
    s = np.asarray(share, dtype=float)
    s = s[np.isfinite(s)]
    return float(s.mean()) if s.size else float("nan")


def operator_from_curve(u_grid, values):
    """A callable operator from its values on a grid (linear interpolation, constant beyond)."""
    g, v = np.asarray(u_grid, dtype=float), np.asarray(values, dtype=float)
    return lambda u: np.interp(np.asarray(u, dtype=float), g, v)


@dataclass
class OperatorConstraint:
    """How the data constrain one operator."""

    name: str
    dchi2: dict                   # {perturbation: chi-square change}
    rms_du: dict                  # {perturbation: root-mean-square change of u after the initial time, in sigma}
    share: float                  # mean over the observation times of its term's share
    n_points: int
    #: where its removal leaves no measurable signal: the smallest constant added to it that the
    #: data see well (:data:`NEAR_ZERO_LADDER`), i.e. the data pin it within that of zero; None
    #: where no constant of the ladder is seen (or its removal is seen)
    near_zero: float | None = None

    #: whether the data need it (a fit's operators only, ``fit_identifiability``): "needed", "absent"
    #: or "indistinguishable" (:data:`NEED_LEVELS`); None where it was not asked (a benchmark's truth)
    need: str | None = None
    #: the chi-square change of fitting the data without it, the other operators rescaled (its
    #: removal as the data see it), and of holding it at its learned size (the others rescaled)
    dchi2_without: float = float("nan")
    dchi2_learned: float = float("nan")
    #: the simulated null that decided "needed" where the change without it passed the bar of chi-square
    #: with one degree of freedom (``monte_carlo.MonteCarloTest``), else None
    null: object = None

    @property
    def shape_level(self) -> str:
        """The weakest level of its changes of scale and shape (:data:`DECIDING`)."""
        return min((constraint_level(self.dchi2[p], self.n_points) for p in DECIDING), key=LEVELS.index)

    @property
    def level(self) -> str:
        """``"absent"`` or ``"indistinguishable"`` (from zero) for an operator the data do not need
        (``need``); else its shape level (:attr:`shape_level`).  Without a need decided (a
        benchmark's true operators): ``"indistinguishable"`` where its removal changes nothing
        measurable but a small added constant would be seen (``near_zero``: the data cannot tell
        it from zero, and pin it within that of zero)."""
        if self.need in ("absent", "indistinguishable"):
            return self.need
        if self.need is None and self.near_zero is not None and self.signal == "not":
            return "indistinguishable"
        return self.shape_level

    @property
    def signal(self) -> str:
        """The level of removing it: ``"not"`` means the mechanism leaves no measurable signal."""
        return constraint_level(self.dchi2["zero"], self.n_points)


@dataclass
class Identifiability:
    """The constraint on each operator of one model by one set of data (:func:`identifiability`)."""

    label: str
    operators: dict               # {name: OperatorConstraint}
    sigma: float                  # noise standard deviation used
    sigma_source: str             # "noise" or "solver error" (sigma^2 = 0)
    n_points: int
    shares: dict = field(default_factory=dict)   # {name: (n_t,) share over time}
    failed: list = field(default_factory=list)   # (operator, perturbation, message) of failed solves
    #: a fit's: the check that the learned model fits the data (``fit_identifiability.FitCheck``)
    #: and the fit's own noise (the root-mean-square residual of the data about it) in words
    fit: object = None
    sigma_fitted_words: str = ""

    def __getitem__(self, name) -> OperatorConstraint:
        return self.operators[name]

    @property
    def thresholds(self) -> tuple[float, float]:
        """(not / weakly boundary, weakly / well boundary) in chi-square."""
        return detect_threshold(), fit_threshold(self.n_points)

    def unseen(self) -> list[str]:
        """Operators whose removal leaves no measurable signal."""
        return [k for k, c in self.operators.items() if c.signal == "not"]

    def rows(self) -> list[dict]:
        return [{"model": self.label, "operator": k, "share": c.share,
                 **{f"dchi2_{p}": c.dchi2[p] for p in PERTURBATIONS}, "level": c.level,
                 "signal": c.signal} for k, c in self.operators.items()]


FINE_DX = 0.02
"""The forward model of the check is solved on the data grid refined to a spacing of at most
0.02 (the benchmarks' 71-point grid 10 times, the 351-point grid twice) and sampled at the data
nodes.  Measured on the benchmarks (method of lines): the chi-square changes of the halved and
doubled operators agree within 2 % between spacings 0.02 and 0.01 on the 351-point data, and
those of the 71-point data differ by up to 40 % at spacing 0.1 (Burgers' D), hence the fine grid.
Removing D from an advection-dominated model leaves a hyperbolic problem with shocks, which
centred differences resolve only roughly (the Fig. 1 data on 351 points: 111 at spacing 0.02,
125 at 0.01, 94 at 0.0025); the levels are decided on the halved and doubled operators."""


def refinement(x) -> int:
    """How many times the data grid ``x`` is refined for the check (:data:`FINE_DX`)."""
    dx = float(np.mean(np.diff(np.asarray(x, float))))
    return max(1, int(np.ceil(dx / FINE_DX - 1e-9)))


def _zero(u):
    return 0.0 * np.asarray(u, dtype=float)


def _solve(ops: dict, u0_fine, x_fine, t) -> np.ndarray:
    """The method of lines (second-order centred differences, ``solvers.solve_mol``, implicit
    LSODA) with ``ops`` on the fine grid; raises on failure or non-finite values."""
    u = solve_mol(ops.get("D", _zero), ops.get("V", _zero), ops.get("G", _zero), u0_fine, x_fine, t,
                  rtol=1e-7, atol=1e-10, integrator="LSODA")
    if u.shape != (len(t), len(x_fine)) or not np.all(np.isfinite(u)):
        raise RuntimeError("the solve did not reach every output time with finite values")
    return u


def _fine(u0, x):
    """(refinement, fine grid, the initial condition on it) for the data nodes ``x``."""
    x = np.asarray(x, float)
    refine = refinement(x)
    x_fine = np.linspace(x[0], x[-1], (x.size - 1) * refine + 1)
    u0_fine = u0(x_fine) if callable(u0) else np.interp(x_fine, x, np.asarray(u0, float))
    return refine, x_fine, u0_fine


def solve_on_grid(ops: dict, u0, x, t) -> np.ndarray:
    """The forward solution (n_t, n_x) of ``ops`` from ``u0`` (a callable of x, or values on
    ``x``) at the data nodes ``x`` and times ``t``: the converged solve of the check (the method
    of lines on the refined grid, :func:`refinement`); raises where it cannot be solved."""
    refine, x_fine, u0_fine = _fine(u0, x)
    return _solve(ops, u0_fine, x_fine, np.asarray(t, float))[:, ::refine]


def _ladder(ops: dict, k: str, fine, t, base, sigma: float, copies: int, n: int, spans) -> float | None:
    """The smallest constant of :data:`NEAR_ZERO_LADDER` (times the term's natural scale) that,
    added to operator ``k`` of ``ops`` (zero where ``ops`` lacks it), moves the solution ``base``
    (data grid) by a chi-square change above the "well" bar; None where none does."""
    refine, x_fine, u0_fine = fine
    f = ops.get(k, _zero)
    scale = TERM_SCALE[k](*spans)
    for c in NEAR_ZERO_LADDER:
        s = c * scale
        try:
            du = (_solve({**ops, k: (lambda f, s: lambda u: np.asarray(f(u), dtype=float) + s)(f, s)},
                         u0_fine, x_fine, t)[:, ::refine] - base) / sigma
            seen = copies * float(np.sum(du ** 2))
        except Exception:  # noqa: BLE001 - a model that cannot be solved with it: it would be seen
            seen = float("inf")
        if seen >= fit_threshold(n):
            return float(s)
    return None


def _spans(x, t) -> tuple[float, float]:
    x, t = np.asarray(x, float), np.asarray(t, float)
    return float(x[-1] - x[0]), float(t[-1] - t[0]) or 1.0


def zero_bound(ops: dict, name: str, u0, x, t, sigma: float, copies: int = 1) -> float | None:
    """How close to zero the data pin operator ``name``: the smallest constant of
    :data:`NEAR_ZERO_LADDER` (in the term's natural scale) that, added to ``name`` in the model
    ``ops`` (without ``name``: added to zero), the data would see well; None where none is."""
    fine = _fine(u0, x)
    t = np.asarray(t, float)
    base = _solve(ops, fine[2], fine[1], t)[:, ::fine[0]]
    n = int(base[1:].size) * int(copies)
    return _ladder(ops, name, fine, t, base, sigma, copies, n, _spans(x, t))


def identifiability(ops: dict, u0, x, t, sigma: float, *, label: str = "", u_range=None,
                    sigma_source: str = "noise", copies: int = 1) -> Identifiability:
    """Perturb each operator of ``ops`` ({"D"|"V"|"G": callable}; the mechanisms of the model)
    in turn and measure the forward solution's move on the data nodes ``x`` at the times
    ``t`` against the noise ``sigma`` (> 0).

    The forward model is the method of lines on ``x`` refined (:func:`refinement`), a
    converged solution of the PDE: the first-order upwind scheme of u_p on a 71-point grid
    adds a numerical diffusion (about |V| dx / 2) that can hide a small D, and the question
    here is what the data hold, not what a coarse scheme resolves.  ``u0``: the initial
    condition, a callable of x (evaluated on the fine grid) or values on ``x`` (interpolated
    linearly).  ``u_range``: the observed range of u for the ``tilt`` (default: the range of
    the unperturbed solution).  ``copies``: independent measurements of the same solution at
    every node and time (replicates fitted separately): each adds its own chi-square."""
    if int(copies) != copies or copies < 1:
        raise ValueError(f"copies must be a positive integer, got {copies!r}")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    unknown = set(ops) - set(TERMS)
    if unknown or not ops:
        raise ValueError(f"operators must be a non-empty subset of {tuple(TERMS)}, got {sorted(ops)}")
    x, t = np.asarray(x, float), np.asarray(t, float)
    fine = refine, x_fine, u0_fine = _fine(u0, x)
    try:
        base_fine = _solve(ops, u0_fine, x_fine, t)
    except Exception as exc:  # noqa: BLE001 - any failure of the unperturbed model is the caller's error
        raise ValueError(f"the unperturbed model cannot be solved: {type(exc).__name__}: {exc}") from exc
    base = base_fine[:, ::refine]
    lo, hi = (float(np.min(base)), float(np.max(base))) if u_range is None else map(float, u_range)
    n = int(base[1:].size) * int(copies)          # the first row, the initial condition, never moves
    shares = term_shares(ops, base_fine, float(x_fine[1] - x_fine[0]))
    out, failed = {}, []
    for k, f in ops.items():
        d, r = {}, {}
        for p in PERTURBATIONS:
            try:
                du = (_solve({**ops, k: _perturbed(f, p, lo, hi)}, u0_fine, x_fine, t)[:, ::refine] - base) / sigma
                d[p], r[p] = float(copies * np.sum(du ** 2)), float(np.sqrt(np.mean(du[1:] ** 2))) if len(du) > 1 else 0.0
            except Exception as exc:  # noqa: BLE001 - a perturbed model that cannot be solved is counted
                d[p] = r[p] = float("nan")
                failed.append((k, p, f"{type(exc).__name__}: {exc}"))
        near = (_ladder(ops, k, fine, t, base, sigma, copies, n, _spans(x, t))
                if constraint_level(d["zero"], n) == "not" else None)
        out[k] = OperatorConstraint(k, d, r, mean_share(shares[k]), n, near)
    return Identifiability(label, out, float(sigma), sigma_source, n, shares, failed)


def solver_sigma(bench, dense: bool) -> float:
    """The forward model's own error on the data grid: RMS of (forward solve with the true
    operators) minus (the converged reference solution), the noise scale for sigma^2 = 0."""
    x = spatial_grid(dense)
    sol = forward_solve(bench.D, bench.V, bench.G, bench.initial_condition(x), x, bench.times(),
                        method="RK45" if x.size <= 100 else "BDF")
    return float(np.sqrt(np.mean((sol.u - reference_solution(bench, dense=dense)) ** 2)))


#: A benchmark in words (the tables' labels): the paper's names of the models.
BENCHMARK_WORDS = {"diffusion": "diffusion", "porous_medium": "porous medium", "burgers": "Burgers'",
                   "diffusion_advection": "diffusion-advection", "nonlinear_adr": "nonlinear ADR"}
#: The nonlinear ADR's initial conditions in words: the paper's Eq. (14), or the authors' Fig. 1 data.
INITIAL_WORDS = {"text": "initial condition of Eq. (14)", "code": "initial condition of the authors' Fig. 1 data"}


def case_label(name: str, dense: bool, initial: str = "text") -> str:
    """The label of a benchmark's case in the tables, in words, e.g. "nonlinear ADR (71 points,
    initial condition of the authors' Fig. 1 data)"."""
    init = f", {INITIAL_WORDS.get(initial, initial)}" if name == "nonlinear_adr" else ""
    return f"{BENCHMARK_WORDS.get(name, name.replace('_', ' '))} ({spatial_grid(dense).size} points{init})"


@functools.lru_cache(maxsize=64)
def benchmark_identifiability(name: str, dense: bool = False, noise_var: float = 1e-3, *,
                              initial: str = "text", reaction: str = "supporting") -> Identifiability:
    """:func:`identifiability` of a benchmark's true operators (its mechanisms) on its data
    grid and times, with the noise variance ``noise_var`` (0: the solver's own error).  Cached:
    the same question always has the same answer (callers must not change what it returns)."""
    bench = get_benchmark(name, reaction=reaction, initial=initial)
    noise_var = float(noise_var)
    if not np.isfinite(noise_var) or noise_var < 0:
        raise ValueError(f"noise variance must be a finite number >= 0, got {noise_var}")
    sigma, source = ((np.sqrt(noise_var), "noise") if noise_var > 0 else (solver_sigma(bench, dense), "solver error"))
    x = spatial_grid(dense)
    ops = {k: getattr(bench, k) for k in bench.mechanisms}
    return identifiability(ops, bench.initial_condition, x, bench.times(), sigma, label=case_label(name, dense, initial),
                           sigma_source=source)


def benchmark_cases(noise_var: float = 1e-3) -> list[Identifiability]:
    """Every benchmark on both grids (71, 351 points); the nonlinear ADR with both initial
    conditions (the paper's Eq. (14), "text", and the authors' Fig. 1 data, "code")."""
    out = []
    for name in BENCHMARK_NAMES:
        for initial in (INITIALS if name == "nonlinear_adr" else ("text",)):
            for dense in (False, True):
                out.append(benchmark_identifiability(name, dense, noise_var, initial=initial))
    return out

