"""The five benchmark PDEs of the paper and their noise-free reference data.

Every benchmark is a special case of the advection--diffusion--reaction model
(paper Eq. PDE)

.. math::

    u_t = \\partial_x\\big(D(u)u_x - uV(u)\\big) + uG(u),
    \\qquad x\\in[-7, 7],\\; t\\in[0, t_\\mathrm{end}],

with homogeneous Neumann conditions :math:`u_x(\\pm 7, t) = 0` (Eq. BC); see
Methods > "Mathematical models" and the Supporting Material (SM) > "Synthetic
data generation".  Data live on the 351-node dense grid (:math:`\\Delta x =
0.04`) or on the 71-node sparse grid (every 5th dense node), at the times of
SM Table ``tab:time_resolution``.

``reference_solution`` produces the noise-free data: exact solutions where
they exist (diffusion, porous medium), otherwise the solver the SM names for
that benchmark, run on the dense grid refined ``refine`` times and sampled at
the data nodes.  A computed reference solution is kept on disk between processes
(``reference_cache_dir``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import solvers

__all__ = [
    "X_MIN", "X_MAX", "N_DENSE", "SPARSE_STRIDE", "BENCHMARK_NAMES",
    "REACTIONS", "INITIALS", "METHODS", "DEFAULT_REFINE", "spatial_grid", "Benchmark",
    "get_benchmark", "reference_solution", "solver_options", "trapezoid_mass",
]

X_MIN, X_MAX = -7.0, 7.0
N_DENSE = 351          # dx = 0.04
SPARSE_STRIDE = 5      # 71-node sparse grid = every 5th dense node
BENCHMARK_NAMES = ("diffusion", "porous_medium", "burgers",
                   "diffusion_advection", "nonlinear_adr")
#: The three readings of the nonlinear-ADR reaction term found in the paper.
REACTIONS = ("supporting", "text", "equation")
#: The two initial conditions of the nonlinear-ADR benchmark: "text", Eq. (14) of the
#: paper (amplitudes 1/10 and 7/100); "code", what the authors' data generator used for the
#: published Fig. 1 (amplitudes 1 and 7/10).  Only ``nonlinear_adr`` has a choice.
INITIALS = ("text", "code")
#: Forward methods understood by :func:`reference_solution`.
METHODS = ("exact", "mol", "spectral", "fem")

#: Default grid refinement factor per (benchmark, method): the dense grid is
#: refined by this factor (spacing 0.04/refine) so that the sampled solution
#: is converged to about 1e-4 of max|u| in the max norm.  Measured against
#: exact solutions or much finer/more accurate solutions (errata page and
#: tests/test_problems.py).  Max-norm relative errors at these defaults:
#: diffusion mol/fem 5e-6, spectral 1e-8; burgers spectral 3e-6, mol 3e-5,
#: fem 7e-5; diffusion_advection fem 1e-4, spectral 8e-5, mol 3e-5;
#: nonlinear_adr (reaction "supporting" / "text") mol 1e-6 / 3e-5,
#: fem 2e-6 / 7e-5, spectral 1e-8 / 2e-5.  The porous-medium front is a
#: square-root singularity and no affordable refinement reaches 1e-4 in the
#: max norm (mol at refine 8: 8e-3 max, 2e-4 rms); its data come from the
#: exact solution anyway.
DEFAULT_REFINE = {
    ("diffusion", "mol"): 1,
    ("diffusion", "fem"): 1,
    ("diffusion", "spectral"): 1,
    ("porous_medium", "mol"): 8,
    ("porous_medium", "fem"): 2,
    ("porous_medium", "spectral"): 1,
    ("burgers", "spectral"): 2,
    ("burgers", "mol"): 32,
    ("burgers", "fem"): 8,
    ("diffusion_advection", "fem"): 8,
    ("diffusion_advection", "spectral"): 2,
    ("diffusion_advection", "mol"): 16,
    ("nonlinear_adr", "mol"): 16,
    ("nonlinear_adr", "fem"): 4,
    ("nonlinear_adr", "spectral"): 1,
}
#: Used for benchmarks not in the table (e.g. user-modified copies).
_FALLBACK_REFINE = 4


def spatial_grid(dense: bool = False) -> np.ndarray:
    """Observation grid on [-7, 7]: 351 dense nodes or the 71-node sparse grid.

    The sparse grid is literally every ``SPARSE_STRIDE``-th dense node, so
    ``spatial_grid(False) == spatial_grid(True)[::5]`` bit for bit.
    """
    x = np.linspace(X_MIN, X_MAX, N_DENSE)
    return x if dense else x[::SPARSE_STRIDE].copy()


def trapezoid_mass(u: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Trapezoidal approximation of :math:`\\int u\\,dx` along the last axis."""
    return np.trapezoid(u, x, axis=-1)


# ----------------------------------------------------------------------------
# constitutive functions (module-level so that Benchmarks compare/hash equal)
#
# They use only arithmetic, so they also work on torch tensors; absent
# mechanisms return zeros of the shape of u.
# ----------------------------------------------------------------------------
def _zero(u):
    return 0.0 * u


def _D_half(u):                 # Eq. diff: D = 1/2
    return 0.0 * u + 0.5


def _D_porous(u):               # Eq. PM: D = 3u^2
    return 3.0 * u**2


def _D_hundredth(u):            # Eqs. burger, DA: D = 1/100
    return 0.0 * u + 0.01


def _V_burgers(u):              # Eq. burger: V = 3u/10
    return 0.3 * u


def _V_da(u):                   # Eq. DA: V = 3u(1-u)/5
    return 0.6 * u * (1.0 - u)


def _D_nl(u):                   # Eq. NL_ADR: D = u^5/10
    return 0.1 * u**5


def _V_nl(u):                   # Eq. NL_ADR: V = u(1-u)
    return u * (1.0 - u)


def _G_supporting(u):           # SM: G = -1/2 (used for the published figures)
    return 0.0 * u - 0.5


def _G_text(u):                 # Methods text: G(u) = u/2
    return 0.5 * u


def _G_equation(u):             # displayed Eq. NL_ADR: "+ u/2", i.e. G = +1/2
    return 0.0 * u + 0.5


_G_NL = {"supporting": _G_supporting, "text": _G_text, "equation": _G_equation}


# ----------------------------------------------------------------------------
# initial conditions and exact solutions
# ----------------------------------------------------------------------------
_PM_MASS = 3.0                  # M in Eq. PM-sol
_PM_SHIFT = 0.5                 # time shift t -> t + 1/2 of Eq. PM-sol


def _ic_diffusion(x):           # Eq. IC_diff
    return 0.5 * np.cos(np.pi * x / 7.0) + 0.5


def _exact_diffusion(x, t):     # Eq. diff_ana
    decay = np.exp(-0.5 * (np.pi / 7.0) ** 2 * t)
    return 0.5 * np.cos(np.pi * x / 7.0)[None, :] * decay[:, None] + 0.5


def _exact_porous(x, t):        # Eq. PM-sol (Barenblatt, shifted by 1/2)
    s = (t + _PM_SHIFT)[:, None]
    core = _PM_MASS / (np.pi * np.sqrt(3.0)) - x[None, :] ** 2 / (12.0 * np.sqrt(s))
    return s ** -0.25 * np.sqrt(np.maximum(core, 0.0))


def _ic_porous(x):              # Eq. PM_IC (= Eq. PM-sol at t = 0)
    return _exact_porous(x, np.zeros(1))[0]


def _ic_gaussian(x):            # Eq. expIC
    return np.exp(-x**2 / 2.0)


def _bumps(x, a1, a2):
    s2 = 2.0 * 0.7**2
    return np.minimum(a1 * np.exp(-(x + 2.0) ** 2 / s2) + a2 * np.exp(-(x - 1.0) ** 2 / s2), 1.0)


def _ic_nl(x):                  # Eq. (14)
    return _bumps(x, 0.1, 0.07)


def _ic_nl_code(x):             # the authors' data generator (published Fig. 1)
    return _bumps(x, 1.0, 0.7)


_IC_NL = {"text": _ic_nl, "code": _ic_nl_code}


# ----------------------------------------------------------------------------
# the benchmark record
# ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Benchmark:
    """One benchmark problem of the paper.

    Attributes
    ----------
    name, title : str
        Identifier (one of ``BENCHMARK_NAMES``) and human-readable title.
    mechanisms : tuple of str
        The mechanisms present and learned, a subset of ``("D", "V", "G")``.
    D, V, G : callables
        Constitutive functions of ``u`` (vectorised; absent ones return 0).
    t_end, n_times : float, int
        Time window ``[0, t_end]`` sampled at ``n_times`` equispaced times
        (SM Table ``tab:time_resolution``).
    solver : str
        Method that produces the reference data: ``"exact"``, ``"mol"``,
        ``"spectral"`` or ``"fem"``.
    reaction, initial : str
        Readings of the nonlinear-ADR reaction term and initial condition (see
        :func:`get_benchmark`); carried along but without effect for the other
        benchmarks.
    ic_fn, exact_fn : callables
        Initial condition ``u0(x)`` and exact solution ``u(x, t)`` (``None``
        where no exact solution exists); use :meth:`initial_condition` and
        :meth:`exact`.
    """

    name: str
    title: str
    mechanisms: tuple[str, ...]
    D: Callable
    V: Callable
    G: Callable
    t_end: float
    n_times: int
    solver: str
    reaction: str
    ic_fn: Callable
    exact_fn: Callable | None = None
    initial: str = "text"

    def initial_condition(self, x) -> np.ndarray:
        """Initial condition u(x, 0) on the nodes ``x``."""
        return self.ic_fn(np.asarray(x, dtype=float))

    def times(self) -> np.ndarray:
        """Observation times ``np.linspace(0, t_end, n_times)``."""
        return np.linspace(0.0, self.t_end, self.n_times)

    def exact(self, x, t) -> np.ndarray | None:
        """Exact solution of shape ``(len(t), len(x))``, or ``None``."""
        if self.exact_fn is None:
            return None
        x = np.atleast_1d(np.asarray(x, dtype=float))
        t = np.atleast_1d(np.asarray(t, dtype=float))
        return self.exact_fn(x, t)


def get_benchmark(name: str, reaction: str = "supporting", initial: str = "text") -> Benchmark:
    """Return the benchmark ``name`` (one of ``BENCHMARK_NAMES``).

    ``reaction`` selects the growth function of the nonlinear ADR benchmark,
    which the paper states in three incompatible ways:

    * ``"supporting"`` (default): :math:`G(u) = -1/2`, i.e. reaction
      :math:`uG = -u/2`, as in the SM and used for the published figures;
    * ``"text"``: :math:`G(u) = u/2` (Methods text), i.e. reaction :math:`u^2/2`;
    * ``"equation"``: reaction ``+u/2`` as displayed in Eq. NL_ADR, i.e.
      :math:`G(u) = +1/2`.

    ``initial`` selects its initial condition (``INITIALS``): ``"text"``, the paper's
    Eq. (14) (bumps of height 1/10 and 7/100), or ``"code"``, the authors' generator
    of the published Fig. 1 data (heights 1 and 7/10, capped at 1 as in Eq. (14)).

    Both are validated for every benchmark but only affect ``nonlinear_adr``.
    """
    if reaction not in REACTIONS:
        raise ValueError(f"unknown reaction {reaction!r}; valid choices are "
                         f"{', '.join(map(repr, REACTIONS))}")
    if initial not in INITIALS:
        raise ValueError(f"unknown initial condition {initial!r}; valid choices are "
                         f"{', '.join(map(repr, INITIALS))}")
    common = dict(name=name, reaction=reaction, initial=initial)
    if name == "diffusion":
        return Benchmark(title="Diffusion equation", mechanisms=("D",),
                         D=_D_half, V=_zero, G=_zero, t_end=18.0, n_times=7,
                         solver="exact", ic_fn=_ic_diffusion,
                         exact_fn=_exact_diffusion, **common)
    if name == "porous_medium":
        return Benchmark(title="Porous-medium equation", mechanisms=("D",),
                         D=_D_porous, V=_zero, G=_zero, t_end=4.0, n_times=7,
                         solver="exact", ic_fn=_ic_porous,
                         exact_fn=_exact_porous, **common)
    if name == "burgers":
        return Benchmark(title="Burgers' equation", mechanisms=("D", "V"),
                         D=_D_hundredth, V=_V_burgers, G=_zero, t_end=10.0,
                         n_times=7, solver="spectral", ic_fn=_ic_gaussian, **common)
    if name == "diffusion_advection":
        return Benchmark(title="Linear diffusion-nonlinear advection equation",
                         mechanisms=("D", "V"), D=_D_hundredth, V=_V_da, G=_zero,
                         t_end=18.0, n_times=7, solver="fem",
                         ic_fn=_ic_gaussian, **common)
    if name == "nonlinear_adr":
        return Benchmark(title="Nonlinear reaction-diffusion-advection equation",
                         mechanisms=("D", "V", "G"), D=_D_nl, V=_V_nl,
                         G=_G_NL[reaction], t_end=4.0, n_times=9, solver="mol",
                         ic_fn=_IC_NL[initial], **common)
    raise ValueError(f"unknown benchmark {name!r}; valid choices are "
                     f"{', '.join(map(repr, BENCHMARK_NAMES))}")


# ----------------------------------------------------------------------------
# reference (noise-free) data
# ----------------------------------------------------------------------------
_SOLVERS = {"mol": solvers.solve_mol, "spectral": solvers.solve_spectral,
            "fem": solvers.solve_fem}


def _resolve(bench: Benchmark, method: str | None, refine: int | None):
    method = bench.solver if method is None else method
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid choices are "
                         f"{', '.join(map(repr, METHODS))}")
    if method == "exact":
        if bench.exact_fn is None:
            numerical = ", ".join(repr(m) for m in METHODS if m != "exact")
            raise ValueError(f"benchmark {bench.name!r} has no exact solution; "
                             f"use one of the numerical methods {numerical} "
                             f"(its reference solver is {bench.solver!r})")
        return method, 1
    if refine is None:
        refine = DEFAULT_REFINE.get((bench.name, method), _FALLBACK_REFINE)
    if int(refine) != refine or refine < 1:
        raise ValueError(f"refine must be a positive integer, got {refine!r}")
    return method, int(refine)


def solver_options(bench: Benchmark, method: str) -> dict:
    """Keyword arguments passed to the solver by :func:`reference_solution`.

    The method of lines uses the paper's explicit ``RK45`` for its own
    benchmark (nonlinear ADR with the text's initial condition, non-stiff because
    :math:`D=u^5/10` is tiny for :math:`u \\le 0.1`) and the implicit ``LSODA``
    (banded Jacobian) elsewhere: on refined grids the diffusive benchmarks are stiff
    and ``RK45`` becomes impractically slow (porous medium at refine 4: 90 s instead of
    2 s; nonlinear ADR with the code's initial condition, u up to 1: 3.8 s with
    overflowing trial steps instead of 0.4 s, the same solution to 7e-8).
    """
    if method == "mol":
        explicit = bench.name == "nonlinear_adr" and bench.initial == "text"
        return {"integrator": "RK45" if explicit else "LSODA"}
    return {}


def user_cache_dir() -> str:
    """``binn`` under ``$XDG_CACHE_HOME`` (default ``~/.cache``): where the engine keeps what
    it can compute again (compiled kernels, reference solutions)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "binn")


REFERENCE_CACHE_ENV = "BINN_REFERENCE_CACHE"
"""The environment variable naming the folder where computed reference solutions are kept."""


def reference_cache_dir() -> str:
    """The folder of the computed reference solutions: ``$BINN_REFERENCE_CACHE`` if set, else
    ``reference`` under :func:`user_cache_dir`.  One ``.npz`` file (the solution and its SHA-256) per benchmark reading,
    method and refinement, named with a digest of those, the solver's options, numpy's and
    scipy's versions and this module's and the solvers' source, so that changed code never
    reads a stale file.  Delete the folder to compute them again."""
    return os.environ.get(REFERENCE_CACHE_ENV) or os.path.join(user_cache_dir(), "reference")


def _reference_file(bench: Benchmark, method: str, refine: int) -> Path | None:
    """Where the dense reference solution is kept, or None for a benchmark that is not one
    of :func:`get_benchmark`'s (its operators are not named by the file's digest)."""
    try:
        if bench != get_benchmark(bench.name, bench.reaction, bench.initial):
            return None
    except ValueError:          # a benchmark of the caller's own (name, reaction or initial)
        return None
    import scipy
    h = hashlib.sha256(repr((bench.name, bench.reaction, bench.initial, method, refine, solver_options(bench, method),
                             np.__version__, scipy.__version__)).encode())
    for source in ("problems.py", "solvers.py"):
        h.update(Path(__file__).with_name(source).read_bytes())
    return Path(reference_cache_dir()) / f"{bench.name}-{method}-{h.hexdigest()[:20]}.npz"


def _digest(u: np.ndarray) -> np.ndarray:
    return np.frombuffer(hashlib.sha256(np.ascontiguousarray(u).tobytes()).digest(), dtype=np.uint8)


def _read_reference(path: Path | None, shape: tuple) -> np.ndarray | None:
    """The kept solution, or None (then it is computed again) when there is none, or it is
    unreadable, of another shape or type, or does not match the checksum stored with it."""
    if path is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as f:
            u, sha = f["u"], f["sha256"]
    except (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    whole = u.shape == shape and u.dtype == np.float64 and np.array_equal(sha, _digest(u))
    return u if whole else None


def _keep_reference(path: Path | None, u: np.ndarray):
    """Write ``u`` with its SHA-256 to ``path`` atomically; a folder that cannot be written
    is passed over."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.savez(f, u=u, sha256=_digest(u))
        os.replace(tmp, path)
    except OSError:
        pass


@functools.lru_cache(maxsize=64)
def _dense_reference(bench: Benchmark, method: str, refine: int) -> np.ndarray:
    """Cached, read-only dense-grid reference solution (a numerical one also on disk:
    :func:`reference_cache_dir`)."""
    t = bench.times()
    if method == "exact":
        u = bench.exact(spatial_grid(dense=True), t)
    else:
        path = _reference_file(bench, method, refine)
        u = _read_reference(path, (t.size, N_DENSE))
        if u is None:
            x = np.linspace(X_MIN, X_MAX, (N_DENSE - 1) * refine + 1)
            u = _SOLVERS[method](bench.D, bench.V, bench.G, bench.initial_condition(x),
                                 x, t, **solver_options(bench, method))[:, ::refine]
            u = np.ascontiguousarray(u, dtype=float)
            _keep_reference(path, u)
    u = np.ascontiguousarray(u, dtype=float)
    u.flags.writeable = False
    return u


def reference_solution(bench: Benchmark, dense: bool = False, *,
                       method: str | None = None,
                       refine: int | None = None) -> np.ndarray:
    """Noise-free solution on ``(bench.times(), spatial_grid(dense))``.

    Parameters
    ----------
    bench : Benchmark
    dense : bool
        351-node grid if true, else the 71-node sparse grid (always exactly
        the dense solution sampled at every 5th node).
    method : {"exact", "mol", "spectral", "fem"} or None
        ``None`` uses ``bench.solver`` (the SM's choice).  Every numerical
        method works for every benchmark; ``"exact"`` only for diffusion and
        porous medium (otherwise ``ValueError``).
    refine : int or None
        The numerical solution is computed on the dense grid refined by this
        factor (spacing ``0.04 / refine``) and sampled at the data nodes.
        ``None`` uses ``DEFAULT_REFINE``.  Ignored for ``"exact"``.

    Returns
    -------
    ndarray of shape ``(bench.n_times, 351 or 71)`` (a fresh copy; results
    are cached in memory).
    """
    method, refine = _resolve(bench, method, refine)
    u = _dense_reference(bench, method, refine)
    return (u if dense else u[:, ::SPARSE_STRIDE]).copy()
