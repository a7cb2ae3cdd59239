"""Identifiability of a fit's learned operators (``binn fit``'s report), in three steps, each
against the data and a noise estimated from the data alone:

1. **The noise** (:func:`data_noise`): the spread of the replicates at each point where there
   are several, else the scatter of the data between neighbouring points of the grid (second
   differences in x and in t, :func:`neighbour_noise`); never the fit's residual, which would
   make every check below circular.  The fit's own residual is reported beside it.
2. **The fit check** (:func:`fit_check`): the learned model (median operators over the networks)
   is solved forward from the data's first observed profile (its scatter smoothed away,
   :func:`first_profile`) and its chi-square against the
   data compared with what noise of that size gives (sigma's own uncertainty counted, :func:`fit_bar`).  A fit the diagnostics call diverged,
   blown up or collapsed, one whose forward solution cannot be computed, one no better than a
   constant (the data's mean) or one whose misfit noise would exceed only once in a thousand
   data sets is refused (:class:`FitRefused`): no operator gets a label, and the advice fits the
   failure.
3. **Is each operator needed?** (:func:`operator_need`): the data are fitted by the model
   without it, every other operator allowed a scale factor, and by the whole model with a scale
   factor per operator, each also fitting the level and tilt of the profile it starts from
   (:func:`rescaled_fit`).  The change of chi-square between the two is the likelihood-ratio
   statistic of that operator's scale.  Below the (1 - LEVEL) quantile of chi-square with one
   degree of freedom (3.84) the operator is not needed, and nothing more is computed.  Beyond
   it, that quantile is not trusted: every refitted model starts from the first observed
   profile smoothed, whose remaining scatter growth amplifies and only diffusion smooths away,
   so on data without spatial structure (the known-truth suite's uniform logistic growth) the
   change without D passed 3.84 in 5 of 20 noise draws, not 1.  The change is then set against
   its simulated null (:func:`need_null`, a parametric bootstrap): data sets drawn from the
   model without the operator (as fitted to the data) plus normal noise of the estimated sigma,
   each passed through the same pipeline (its first profile smoothed, both models refitted, at
   coarser tolerances: :data:`REFIT_TOLERANCES`), at most :data:`NULL_SIMULATIONS` (19) of
   them, drawn one at a time from a generator seeded by :data:`NULL_SEED` and the operator,
   and stopped at the first whose change reaches the observed one (``monte_carlo``: Besag and
   Clifford's sequential Monte Carlo p-value).  The operator is **needed** when none of the 19
   does (p = 1/20 = LEVEL); otherwise, as below the bar, it is **absent** where the data rule
   out the learned size (holding it at its learned size, the others rescaled, fits worse
   beyond 3.84: the network invented it), and **indistinguishable from zero** where they can
   tell neither (with the smallest constant the data would see, ``identifiability.zero_bound``).
   An operator not needed costs at most a few simulations; a needed one all 19, each a refit
   without it and, only where that refit's chi-square reaches the observed change (a change
   is never larger than it), one of the whole model.  Only a needed operator is then measured for its scale and shape
   (``identifiability.identifiability``: well, weakly or not constrained).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import interpolate, optimize, stats

from .diagnostic_thresholds import BLOWUP_FACTOR
from .monte_carlo import MonteCarloTest, sequential_test, smallest_sims
from .identifiability import (LEVEL, Identifiability, identifiability, need_threshold, operator_from_curve,
                              solve_on_grid, zero_bound)

__all__ = ["FIT_QUANTILE", "need_threshold", "neighbour_noise", "data_noise", "first_profile", "chi_square",
           "FitCheck", "FitRefused", "fit_bar", "fit_check", "NEIGHBOUR_DOF_PER_DIFFERENCE", "rescaled_fit", "operator_need", "learned_identifiability",
           "SCALE_BOUNDS", "network_failures", "REFIT_TOLERANCES", "need_null",
           "NULL_SIMULATIONS", "NULL_STOP_AFTER", "NULL_SEED"]

#: A learned model "fits" when the data's chi-square about its forward solution is below this
#: quantile of its distribution under the estimated noise (a misfit this large arises by chance
#: once in a thousand data sets).
FIT_QUANTILE = 0.999
#: the range each operator's scale factor may take when the data are refitted (0: removed)
SCALE_BOUNDS = (0.0, 20.0)
#: The simulated null of "needed" (:func:`need_null`): at most this many data sets simulated
#: without the operator (the fewest for a test at LEVEL = 5 %: 19), the simulation stopped as
#: soon as NULL_STOP_AFTER of their changes of chi-square reach the observed one, the draws
#: seeded by NULL_SEED (and the operator's letter).
NULL_SIMULATIONS = smallest_sims(LEVEL)
NULL_STOP_AFTER = 1
NULL_SEED = 49


def _as_replicates(u_obs) -> np.ndarray:
    obs = np.asarray(u_obs, float)
    if obs.ndim == 2:
        obs = obs[None]
    if obs.ndim != 3 or obs.shape[1] < 2 or obs.shape[2] < 3:
        raise ValueError(f"the data must be (n_t >= 2, n_x >= 3) or (n_rep, n_t, n_x), got shape {np.shape(u_obs)}")
    return obs


def _robust_sd(d) -> float:
    """The standard deviation of ``d`` from its median absolute deviation (1.4826 MAD), its
    root-mean-square where more than half of it is one value."""
    d = np.asarray(d, float)
    d = d[np.isfinite(d)]
    if not d.size:
        return float("nan")
    mad = 1.4826 * float(np.median(np.abs(d - np.median(d))))
    return mad if mad > 0 else float(np.sqrt(np.mean(d ** 2)))


#: The effective number of independent squares in a robust spread of second differences, per
#: difference: the efficiency of the median absolute deviation against the standard deviation
#: under normal noise (0.3675), times 18/35 (neighbouring second differences of white noise are
#: correlated: -2/3 at one step, 1/6 at two; 1 + 2 (4/9 + 1/36) = 35/18).
NEIGHBOUR_DOF_PER_DIFFERENCE = 0.3675 * 18.0 / 35.0


def neighbour_noise(u) -> tuple[float, str, float]:
    """(sigma, how, degrees of freedom) from one data set (n_t, n_x) alone: the second
    differences of neighbouring points, u[i-1] - 2 u[i] + u[i+1], have variance 6 sigma^2
    under independent noise; their robust spread (median absolute deviation) along x and, where
    there are 3 or more times, along t, pooled, over sqrt(6).  A solution that curves between
    neighbouring points adds to it (the median ignores the few steep places): the estimate errs
    towards a larger sigma on a coarse grid with little noise."""
    u = np.asarray(u, float)
    d = [np.diff(u, 2, axis=1).ravel()] + ([np.diff(u, 2, axis=0).ravel()] if u.shape[0] >= 3 else [])
    d = np.concatenate(d)
    d = d[np.isfinite(d)]
    s = _robust_sd(d) / np.sqrt(6.0)
    if not (np.isfinite(s) and s > 0):
        raise ValueError("cannot estimate the noise from the data: neighbouring points do not scatter at all")
    along = "x and t" if u.shape[0] >= 3 else "x"
    return float(s), (f"estimated from the data: the scatter of neighbouring points along {along} (robust spread "
                      "of the second differences / sqrt(6))"), NEIGHBOUR_DOF_PER_DIFFERENCE * d.size


def data_noise(u_obs, replicate_sd: float | None = None,
               replicate_how: str = "the measurements' between-replicate standard deviation",
               replicate_dof: float = float("inf")) -> tuple[float, str, float]:
    """(sigma, how it was estimated, its degrees of freedom) from the data alone: with several
    replicates (``u_obs`` (n_rep, n_t, n_x), fitted separately), their pooled standard deviation
    about their mean at each point; else ``replicate_sd`` where the caller has one (the noise of
    a mean of replicates, ``replicate_how`` says so, with ``replicate_dof`` degrees of freedom);
    else :func:`neighbour_noise` of the data."""
    obs = _as_replicates(u_obs)
    if obs.shape[0] >= 2:
        dev = obs - obs.mean(axis=0, keepdims=True)
        m = int(np.isfinite(dev[0]).sum()) * (obs.shape[0] - 1)
        s = float(np.sqrt(np.nansum(dev ** 2) / m))
        if np.isfinite(s) and s > 0:
            return s, (f"estimated from the data: the spread of the {obs.shape[0]} replicates at each point "
                       "(pooled standard deviation)"), float(m)
    if replicate_sd is not None and np.isfinite(replicate_sd) and replicate_sd > 0:
        return float(replicate_sd), f"estimated from the data: {replicate_how}", float(replicate_dof)
    return neighbour_noise(obs[0])


def first_profile(u_obs, x=None) -> np.ndarray:
    """The data's first observed profile (n_x,), the mean of the replicates' where there are
    several; with the nodes ``x`` (5 or more), smoothed: the cubic smoothing spline whose
    smoothness generalised cross-validation chooses (no noise level needed), so that a model
    started from it does not carry that row's scatter forward (a model without diffusion would
    otherwise be blamed for keeping it)."""
    obs = _as_replicates(u_obs)
    u0 = np.nanmean(obs[:, 0], axis=0)
    if x is None or u0.size < 5 or not np.all(np.isfinite(u0)):
        return u0
    x = np.asarray(x, float)
    return np.asarray(interpolate.make_smoothing_spline(x, u0)(x), float)


def chi_square(u_obs, u_model, sigma: float) -> tuple[float, int]:
    """(chi-square, number of points) of the data (every replicate) about ``u_model`` (n_t,
    n_x) at noise ``sigma``, the first time (the profile the model starts from) left out."""
    obs = _as_replicates(u_obs)
    r = (obs - np.asarray(u_model, float)[None])[:, 1:] / sigma
    return float(np.nansum(r ** 2)), int(np.isfinite(r).sum())


@dataclass
class FitCheck:
    """Does the learned model fit the data (:func:`fit_check`)?"""

    ok: bool
    kind: str                      # "fits", "diverged", "blown up", "collapsed", "no forward solution", "constant", "misfit"
    reason: str                    # one sentence ("" where it fits)
    advice: str                    # what to try ("" where it fits)
    chi2: float = float("nan")     # of the data about the model's forward solution
    n_points: int = 0
    bar: float = float("nan")      # the FIT_QUANTILE quantile of chi-square on n_points
    chi2_constant: float = float("nan")   # of the data about their mean
    sigma: float = float("nan")
    sigma_fitted: float = float("nan")    # root-mean-square residual of the data about the forward solution

    @property
    def failed_training(self) -> bool:
        """A fit whose training diverged or blew up (``binn fit`` exits non-zero)."""
        return self.kind in ("diverged", "blown up")


class FitRefused(ValueError):
    """The learned model does not fit the data (its :class:`FitCheck` says why)."""

    def __init__(self, check: FitCheck):
        super().__init__(check.reason)
        self.check = check


ADVICE = {
    "diverged": "lower the learning rate (--lr), or raise the batch size (--batch-size)",
    "blown up": "lower the learning rate (--lr), or raise the batch size (--batch-size)",
    "collapsed": "lower the learning rate (--lr), and check that the data vary in space and time",
    "no forward solution": "a stiff learned model may solve with --forward-method BDF; else lower the learning rate",
    "constant": "train longer (--epochs) if the validation loss was still falling, else another learning rate "
                "(--lr) or other mechanisms (--mechanisms)",
    "misfit_falling": "train longer (--epochs) or raise the learning rate (--lr): the validation loss was still "
                      "falling",
    "misfit": "the mechanisms chosen may not describe these data (another --mechanisms), or the networks stopped in "
              "a poor fit (other --seeds or --lr); more epochs will not help while the validation loss is flat",
}


def fit_bar(n_points: int, sigma_dof: float = float("inf"), quantile: float = FIT_QUANTILE) -> float:
    """The chi-square the data about a model that fits them stay below in ``quantile`` of data
    sets, at a sigma estimated with ``sigma_dof`` degrees of freedom: N times the quantile of
    F(N, sigma_dof) (the ratio of the mean square residual to the estimated variance), chi-square's
    quantile on N points where sigma is known (infinite degrees of freedom)."""
    if not np.isfinite(sigma_dof):
        return float(stats.chi2.ppf(quantile, n_points))
    return float(n_points * stats.f.ppf(quantile, n_points, sigma_dof))


def fit_check(u_obs, u_model, sigma: float, *, sigma_dof: float = float("inf"), n_networks: int = 1, diverged=(), blown_up=(), collapsed=(),
              still_falling: bool = False, sigma_words: str | None = None) -> FitCheck:
    """Does the learned model fit the data?  ``u_model``: its forward solution (n_t, n_x) from
    the data's first observed profile (None where it could not be computed); ``u_obs``: the
    data, (n_t, n_x) or (n_rep, n_t, n_x) (every replicate counts); ``sigma``: the noise from
    the data (:func:`data_noise`), with ``sigma_dof`` degrees of freedom (:func:`fit_bar`).  ``diverged``, ``blown_up``, ``collapsed``: the networks the
    diagnostics call so (any one refuses the fit: the model is their median);
    ``still_falling``: the under-fitting diagnostic's flag (for the advice).  ``sigma_words``:
    sigma as the sentence gives it (default its value)."""
    sw = sigma_words or format(sigma, ".3g")
    for kind, which, what in (("diverged", diverged, "diverged (non-finite losses)"),
                              ("blown up", blown_up, "blew up (the validation loss ended far above its minimum "
                                                     "and above the data's variance)"),
                              ("collapsed", collapsed, "collapsed (the learned solution fits the data no better "
                                                       "than their mean)")):
        if len(which):
            return FitCheck(False, kind, f"the fit {kind.upper()}: {len(which)} of {n_networks} networks {what}",
                            ADVICE[kind], sigma=sigma)
    if u_model is None or not np.all(np.isfinite(u_model)):
        return FitCheck(False, "no forward solution", "the learned model's forward solution from the data's first "
                        "observed profile could not be computed", ADVICE["no forward solution"], sigma=sigma)
    obs = _as_replicates(u_obs)
    chi2, n = chi_square(obs, u_model, sigma)
    later = obs[:, 1:]
    const = np.full(obs.shape[1:], float(np.nanmean(later)))
    chi2_c, _ = chi_square(obs, const, sigma)
    bar = fit_bar(n, sigma_dof)
    fitted = float(sigma * np.sqrt(chi2 / n))
    common = dict(chi2=chi2, n_points=n, bar=bar, chi2_constant=chi2_c, sigma=sigma, sigma_fitted=fitted)
    if chi2 >= chi2_c:
        return FitCheck(False, "constant", f"the learned model fits the data no better than a constant (their "
                        f"mean): chi-square {chi2:.4g} against {chi2_c:.4g} on {n} points", ADVICE["constant"], **common)
    if chi2 > bar:
        return FitCheck(False, "misfit", f"the learned model does not fit the data: their chi-square about its "
                        f"forward solution (from the data's first observed profile) is {chi2:.4g} on {n} points, "
                        f"where noise of the size estimated from the data (sigma = {sw}) stays below {bar:.4g} in "
                        f"{100 * FIT_QUANTILE:g} % of data sets (sigma's own uncertainty counted)",
                        ADVICE["misfit_falling" if still_falling else "misfit"], **common)
    return FitCheck(True, "fits", "", "", **common)


def network_failures(diagnostics: dict, u_theta=None, u_obs=None) -> dict:
    """{"diverged", "blown up", "collapsed": [networks]} from the diagnostics of a fit
    ({name: Diagnostic}: the instability check's failed and blown-up networks, the under-fitting
    check's collapsed ones); with the learned solutions ``u_theta`` (R, n_t, n_x) and the data,
    a network whose learned solution is not finite diverged, and one whose learned solution
    reaches :data:`diagnostic_thresholds.BLOWUP_FACTOR` times the data's largest magnitude blew
    up (the same factor as the blow-up of the validation loss)."""
    extra = {k: getattr(d, "extra", {}) or {} for k, d in (diagnostics or {}).items()}
    out = {"diverged": set(extra.get("instability", {}).get("failed_replicates", [])),
           "blown up": set(extra.get("instability", {}).get("blown_up_replicates", [])),
           "collapsed": set(extra.get("underfitting", {}).get("collapsed_replicates", []))}
    if u_theta is not None and u_obs is not None:
        top = BLOWUP_FACTOR * float(np.nanmax(np.abs(np.asarray(u_obs, float))))
        for r, u in enumerate(np.asarray(u_theta, float)):
            if not np.all(np.isfinite(u)):
                out["diverged"].add(r)
            elif np.max(np.abs(u)) > top:
                out["blown up"].add(r)
    out["blown up"] -= out["diverged"]
    out["collapsed"] -= out["diverged"] | out["blown up"]
    return {k: sorted(v) for k, v in out.items()}


def _scaled(ops: dict, scales: dict) -> dict:
    return {k: (lambda f, a: lambda u: a * np.asarray(f(u), dtype=float))(f, scales.get(k, 1.0))
            for k, f in ops.items() if scales.get(k, 1.0) != 0.0}


#: the least-squares settings of a refit: the report's (``"report"``) and the cheaper ones of a
#: refit of simulated data (``"simulated"``: coarser tolerances, fewer evaluations, started from
#: the model that drew the data)
REFIT_TOLERANCES = {"report": dict(xtol=1e-4, ftol=1e-6, max_nfev=60),
                    "simulated": dict(xtol=1e-3, ftol=1e-4, max_nfev=20)}


def _refit(ops: dict, obs, x, t, sigma: float, fixed: dict, start: dict | None, tolerance: str):
    """(chi-square, {operator: scale}, fitted solution (n_t, n_x)) of :func:`rescaled_fit`."""
    x = np.asarray(x, float)
    u0 = first_profile(obs, x)
    tilt = (x - x.mean()) / (x[-1] - x[0])
    free = [k for k in ops if k not in fixed]

    def model_of(p):
        a, (level, slope) = p[:len(free)], p[len(free):]
        return solve_on_grid(_scaled(ops, {**fixed, **dict(zip(free, a))}), u0 + level + slope * tilt, x, t)

    def resid(p):
        try:
            model = model_of(p)
        except Exception:  # noqa: BLE001 - a scale at which the model cannot be solved: far from the data
            return np.full(obs.size, 1e3)
        return np.nan_to_num(((obs - model[None]) / sigma).ravel(), nan=0.0)
    a0 = np.clip([float((start or {}).get(k, 1.0)) for k in free], *SCALE_BOUNDS)
    lo = [SCALE_BOUNDS[0]] * len(free) + [-np.inf, -np.inf]
    hi = [SCALE_BOUNDS[1]] * len(free) + [np.inf, np.inf]
    sol = optimize.least_squares(resid, np.concatenate([a0, [0.0, 0.0]]), bounds=(lo, hi), diff_step=1e-3,
                                 x_scale=np.concatenate([np.ones(len(free)), [sigma, sigma]]),
                                 **REFIT_TOLERANCES[tolerance])
    scales = {**fixed, **dict(zip(free, map(float, sol.x[:len(free)])))}
    return float(np.sum(sol.fun ** 2)), scales, (lambda: model_of(sol.x))


def rescaled_fit(ops: dict, u_obs, x, t, sigma: float, fixed: dict | None = None,
                 start: dict | None = None, tolerance: str = "report") -> tuple[float, dict]:
    """(chi-square, {operator: scale}) of the data about the best model a * op for every operator
    of ``ops``, each scale a in :data:`SCALE_BOUNDS` fitted by least squares (from ``start``,
    default 1), except those ``fixed`` ({operator: scale}; 0: the operator removed), started from
    the data's first observed profile (smoothed, :func:`first_profile`) with its level and its
    tilt fitted too (the two changes of that profile a smoothing of one row estimates worst, and
    a growing model carries forward): the first row then counts in the chi-square.  A model that
    cannot be solved counts as a large misfit.  ``tolerance``: :data:`REFIT_TOLERANCES`."""
    chi2, scales, _ = _refit(ops, _as_replicates(u_obs), x, t, sigma, dict(fixed or {}), start, tolerance)
    return chi2, scales


def _change(chi_without: float, chi_full: float) -> float:
    """The change of chi-square without an operator: the whole model's chi-square taken as the
    lesser of the two (the models are nested, so a fit that stopped short cannot make it negative)."""
    return chi_without - min(chi_full, chi_without)


def need_null(ops: dict, name: str, u_obs, x, t, sigma: float, observed: float, full_scales: dict, *,
              sims: int = NULL_SIMULATIONS, stop_after: int = NULL_STOP_AFTER,
              seed: int = NULL_SEED) -> MonteCarloTest:
    """The simulated null of "is operator ``name`` needed?" (module docstring, step 3): data drawn
    from the model without it (the other operators at the scales, level and tilt fitted to the
    data) plus normal noise of size ``sigma`` (every replicate, the data's missing points kept
    missing), each set passed through the same pipeline as the data (its first profile
    smoothed, the model without ``name`` and the whole model refitted, at the coarser tolerances
    of :data:`REFIT_TOLERANCES`; the whole model is not refitted where the chi-square without
    the operator is already below ``observed``: the change, at most that chi-square, cannot reach
    it, and that bound is recorded; where the change reaches ``observed``, the model without it
    is refitted once more from the whole model's fit, as the data's was, so that a refit stuck
    at its start never counts as a rise), and the change ``observed`` set among theirs
    (``monte_carlo.sequential_test``: at most ``sims`` sets, stopped once ``stop_after`` of them
    reach it; seeded by ``seed`` and the operator)."""
    obs = _as_replicates(u_obs)
    _, reduced, solution = _refit(ops, obs, x, t, sigma, {name: 0.0}, full_scales, "report")
    clean = solution()
    missing = ~np.isfinite(obs)

    def simulate(rng):
        sim = clean[None] + sigma * rng.standard_normal(obs.shape)
        sim[missing] = np.nan
        try:
            chi_without, scales, _ = _refit(ops, sim, x, t, sigma, {name: 0.0}, reduced, "simulated")
            if chi_without < observed:      # the change cannot reach the observed one: its upper bound
                return chi_without
            chi_full, fitted, _ = _refit(ops, sim, x, t, sigma, {}, {**scales, name: full_scales.get(name, 1.0)},
                                         "simulated")
            if chi_without - chi_full >= observed:   # the fit without it again, from the whole model's fit
                chi_without = min(chi_without, _refit(ops, sim, x, t, sigma, {name: 0.0}, fitted, "simulated")[0])
        except Exception:  # noqa: BLE001 - counted as reaching the observed change (never a rejection)
            return float("nan")
        return _change(chi_without, chi_full)
    return sequential_test(observed, simulate, sims=sims, stop_after=stop_after,
                           seed=(int(seed), "DVG".index(name)))


def operator_need(ops: dict, name: str, u_obs, x, t, sigma: float, full: tuple[float, dict] | None = None,
                  level: float = LEVEL, seed: int = NULL_SEED) -> tuple[str, float, float, float | None, object]:
    """(label, chi-square change without it, at its learned size, zero bound, simulated null) of
    operator ``name`` of the learned model ``ops`` (module docstring, step 3): "needed", "absent"
    or "indistinguishable".  ``full``: :func:`rescaled_fit` of the whole model, where the caller
    has it.  The change without it is first compared with the bar of chi-square with one degree
    of freedom (``identifiability.need_threshold``): below it, the operator is not needed and
    nothing is simulated; beyond it, the simulated null (:func:`need_null`, seeded by ``seed``)
    decides (None where none was simulated).  The zero bound (the smallest constant the data
    would see, around the model without it) is given for an operator that is not needed.  The
    models compared are nested (the one without it, or at its learned size, is the whole model
    with one scale fixed), so the whole model's chi-square is taken as the least of the three."""
    obs = _as_replicates(u_obs)
    chi_full, scales = full or rescaled_fit(ops, obs, x, t, sigma)
    chi_without, _ = rescaled_fit(ops, obs, x, t, sigma, fixed={name: 0.0}, start=scales)
    bar, null, chi_learned = need_threshold(level), None, float("nan")
    if _change(chi_without, chi_full) < bar:
        chi_learned, _ = rescaled_fit(ops, obs, x, t, sigma, fixed={name: 1.0}, start=scales)
        chi_full = min(chi_full, chi_learned)
    d_without = _change(chi_without, chi_full)
    if d_without >= bar:
        null = need_null(ops, name, obs, x, t, sigma, d_without, scales, seed=seed,
                         sims=max(NULL_SIMULATIONS, smallest_sims(level)))
        if null.rejects(level):
            return "needed", d_without, float("nan"), None, null
        if not np.isfinite(chi_learned):
            chi_learned, _ = rescaled_fit(ops, obs, x, t, sigma, fixed={name: 1.0}, start=scales)
    d_learned = chi_learned - min(chi_full, chi_without, chi_learned)
    rest = {k: f for k, f in ops.items() if k != name}
    try:
        bound = zero_bound(rest, name, first_profile(obs, x), x, t, sigma, copies=obs.shape[0])
    except Exception:  # noqa: BLE001 - no bound where the model without it cannot be solved
        bound = None
    return ("absent" if d_learned >= bar else "indistinguishable"), d_without, d_learned, bound, null


def learned_identifiability(curves: dict, u_grid, x, t, u_obs, *, replicate_sd=None,
                            replicate_how: str = "the measurements' between-replicate standard deviation",
                            replicate_dof: float = float("inf"), label: str = "learned operators",
                            u_factor: float = 1.0, u_unit: str = "",
                            n_networks: int = 1, diverged=(), blown_up=(), collapsed=(),
                            still_falling: bool = False, seed: int = NULL_SEED) -> Identifiability:
    """The identifiability of learned operators (module docstring): ``curves`` {name: (R, n_u)
    on ``u_grid``}, whose median over the networks is the model; the data ``u_obs`` (n_t, n_x),
    or each replicate's (n_rep, n_t, n_x) where replicates were fitted separately (each counts
    as an independent measurement of the same solution), all in training units; ``u_factor``
    and ``u_unit`` give sigma in the data's units in the words.  ``diverged``, ``blown_up``,
    ``collapsed``, ``still_falling``, ``n_networks``: what the diagnostics say of the networks
    (:func:`fit_check`); ``seed``: of the simulated nulls (:func:`need_null`).  A fit the check refuses raises :class:`FitRefused`: the labels would
    describe a poor fit, not what the data hold."""
    obs = _as_replicates(u_obs)
    x, t = np.asarray(x, float), np.asarray(t, float)
    sigma, how, dof = data_noise(obs, replicate_sd, replicate_how, replicate_dof)
    words = f"{sigma * u_factor:.3g}{' ' + u_unit if u_unit else ''}"
    ops = {k: operator_from_curve(u_grid, np.nanmedian(np.atleast_2d(v), axis=0)) for k, v in curves.items()}
    u0 = first_profile(obs, x)
    try:
        model = solve_on_grid(ops, u0, x, t)
    except Exception:  # noqa: BLE001 - the check says so
        model = None
    check = fit_check(obs, model, sigma, sigma_dof=dof, n_networks=n_networks, diverged=diverged, blown_up=blown_up,
                      collapsed=collapsed, still_falling=still_falling, sigma_words=words)
    if not check.ok:
        raise FitRefused(check)
    lo, hi = np.nanquantile(obs, [0.005, 0.995])
    c = identifiability(ops, u0, x, t, sigma, label=label, u_range=(lo, hi), sigma_source=f"{words}, {how}",
                        copies=len(obs))
    full = rescaled_fit(ops, obs, x, t, sigma)
    for k, oc in c.operators.items():
        oc.need, oc.dchi2_without, oc.dchi2_learned, oc.near_zero, oc.null = operator_need(ops, k, obs, x, t, sigma,
                                                                                           full, seed=seed)
    c.fit = check
    c.sigma_fitted_words = f"{check.sigma_fitted * u_factor:.3g}{' ' + u_unit if u_unit else ''}"
    return c
