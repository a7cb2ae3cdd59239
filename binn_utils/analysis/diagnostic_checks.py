"""The six ground-truth-free checks of ``diagnostics``, each from plain arrays to a
:class:`Diagnostic` (a number, its threshold, a flag and what it says), with the thresholds
of a :class:`~binn_utils.analysis.diagnostic_thresholds.Thresholds` (the module's by default)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .diagnostic_thresholds import (BLOWUP_FACTOR, DEFAULT_THRESHOLDS, END_WINDOW, MEAN_FIT_RATIO, MISMATCH_MIN_ERROR,
                                    OVERFIT_MIN_BEFORE, RANGE_QUANTILES, SPREAD_FLOOR, SPREAD_POINTS, TAIL_FRACTION,
                                    Thresholds)
from .reporting import fmt


@dataclass
class Diagnostic:
    """One diagnostic: a number, the threshold it was compared with, and the verdict.

    ``value`` may be NaN when it cannot be computed (``message`` says why; the flag is
    then False unless another criterion raised it).  ``extra`` holds secondary numbers.
    """

    name: str
    value: float
    threshold: object
    flag: bool
    message: str
    extra: dict = field(default_factory=dict)

    def __str__(self):
        mark = "FLAG" if self.flag else "ok"
        return f"{self.name}: {fmt(self.value, literal=True)} [{mark}] {self.message}"


def observed_u_range(u_obs, quantiles=RANGE_QUANTILES) -> tuple[float, float]:
    """Robust observed range of u: the ``RANGE_QUANTILES`` of all finite observations."""
    u = np.asarray(u_obs, dtype=float).ravel()
    u = u[np.isfinite(u)]
    if u.size == 0:
        raise ValueError("no finite observations to take the range of u from")
    lo, hi = np.quantile(u, quantiles)
    if not hi > lo:  # constant data: fall back to the raw extremes
        lo, hi = float(u.min()), float(u.max())
    return float(lo), float(hi)


def _finite_pos(a):
    a = np.asarray(a, dtype=float)
    return np.where(np.isfinite(a) & (a > 0), a, np.nan)


def _nanmedian(a, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(a, axis=axis)


def _median_log_curve(epochs, curves):
    """Epochs and log10 of the median over replicates (non-finite values ignored)."""
    med = _nanmedian(_finite_pos(np.atleast_2d(curves)), axis=0)
    ok = np.isfinite(med)
    return np.asarray(epochs, dtype=float)[ok], np.log10(med[ok])


def _smooth(y, frac=END_WINDOW):
    """Centred moving average over ``frac`` of the points (windows shrink at the ends)."""
    n = y.size
    w = max(1, int(round(frac * n)))
    if w <= 1:
        return y.copy()
    h = w // 2
    c = np.concatenate([[0.0], np.cumsum(y)])
    lo = np.clip(np.arange(n) - h, 0, n)
    hi = np.clip(np.arange(n) - h + w, 0, n)
    return (c[hi] - c[lo]) / (hi - lo)


def _tail(n, frac=END_WINDOW):
    return slice(n - max(1, int(round(frac * n))), n)


def _rise(log_curve) -> tuple[float, int]:
    """(smoothed loss at the end / its minimum, the minimum's index) of a log10 loss curve."""
    s = _smooth(log_curve)
    i = int(np.argmin(s))
    return float(10 ** (s[-1] - s[i])), i


def _ratios(err_theta, err_p) -> np.ndarray:
    """err(u_p, obs) / err(u_theta, obs) per replicate: +inf where u_p's error is not finite
    (a failed solve), NaN where u_theta's is not finite or zero and u_p's is finite."""
    et, ep_ = np.asarray(err_theta, dtype=float), np.asarray(err_p, dtype=float)
    with np.errstate(all="ignore"):
        ratio = np.where(np.isfinite(ep_), ep_ / et, np.inf)
    return np.where(np.isfinite(et) & (et > 0), ratio, np.where(np.isfinite(ep_), np.nan, np.inf))


def _on_observed(u_grid, vals, grid, rows):
    """The curves ``vals[rows]`` interpolated onto ``grid``, their mean, and the floor
    (``SPREAD_FLOOR`` of the mean's RMS) under which the mean's size is not divided by."""
    c = np.stack([np.interp(grid, u_grid, vals[i]) for i in rows])
    mean = c.mean(axis=0)
    floor = SPREAD_FLOOR * np.sqrt(np.mean(mean ** 2))
    return c, mean, floor if floor > 0 else np.finfo(float).tiny


def _observed_grid(u_grid, u_range):
    lo, hi = max(u_range[0], np.min(u_grid)), min(u_range[1], np.max(u_grid))
    return np.linspace(lo, hi, SPREAD_POINTS) if hi > lo else None


# ----------------------------------------------------------------------------- per replicate
# The paper's three warning signs (Discussion: "discrepancies between u_theta and u_p,
# increasing validation losses during training, or substantial variability between repeated
# optimisations with different initialisations"), one number per replicate and no threshold,
# so that two settings can be compared by their medians' intervals (scorecard, claim 12).

def mismatch_ratios(err_theta, err_p, up_status=None) -> np.ndarray:
    """(R,) err(u_p, obs) / err(u_theta, obs) of each replicate; a failed forward solve: +inf."""
    ratio = _ratios(err_theta, err_p)
    if up_status is not None:
        ratio = np.where(np.array([s != "ok" for s in up_status]), np.inf, ratio)
    return ratio


def validation_rises(epochs, val_total, status=None) -> np.ndarray:
    """(R,) each replicate's smoothed validation loss at the end over its minimum (1: it
    ended at its lowest; the ``overfitting`` number, per replicate); +inf for a replicate
    that diverged or has fewer than 3 finite recorded losses."""
    curves = np.atleast_2d(np.asarray(val_total, dtype=float))
    out = np.full(curves.shape[0], np.inf)
    for r, curve in enumerate(curves):
        if status is not None and status[r] != "ok":
            continue
        ep, y = _median_log_curve(epochs, curve[None])
        if ep.size >= 3:
            out[r] = _rise(y)[0]
    return out


def operator_deviations(u_grid, operators, u_range, groups=None) -> np.ndarray:
    """(R,) how far each replicate's operators lie from the mean over the initialisations on
    the same data: the largest, over the operators, of the median over the observed u range
    of |its curve - the mean| / |the mean| (floored as in ``operator_spread``, whose
    coefficient of variation summarises the same scatter); +inf for a replicate with a
    non-finite curve, NaN where fewer than 2 finite replicates share its data.  The
    replicates share the mean they are measured from, so their deviations are not quite
    independent (an order-statistic interval over them assumes they are; with ten
    replicates the effect is small).  Where the mean is near zero (operators that collapsed
    to zero, one replicate apart), each deviation is close to 1: the scatter is then large
    against the operators' own size, which is what this sign measures."""
    R = next(iter(operators.values())).shape[0] if operators else 0
    grid = _observed_grid(u_grid, u_range) if R else None
    out = np.full(R, np.nan)
    if grid is None:
        return out
    gr = np.zeros(R, int) if groups is None else np.asarray(groups)[:R]
    per = np.full((len(operators), R), np.nan)
    for j, vals in enumerate(operators.values()):
        vals = np.atleast_2d(np.asarray(vals, dtype=float))
        for g in dict.fromkeys(gr.tolist()):
            members = [i for i in range(R) if gr[i] == g]
            rows = [i for i in members if np.all(np.isfinite(vals[i]))]
            per[j, [i for i in members if i not in rows]] = np.inf
            if len(rows) < 2:
                continue
            c, mean, floor = _on_observed(u_grid, vals, grid, rows)
            per[j, rows] = np.median(np.abs(c - mean) / np.maximum(np.abs(mean), floor), axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(per, axis=0) if len(per) else out


# ----------------------------------------------------------------------------- diagnostics
def mean_fit(u_obs, R):
    """(R,) relative L2 error of the observations' mean (a constant) against the
    observations of each replicate, and their variance; (None, None) without data.

    ``u_obs`` is (R, ...) per replicate, or one array shared by all replicates."""
    if u_obs is None:
        return None, None
    u = np.asarray(u_obs, dtype=float)
    per = u.reshape(R, -1) if u.ndim == 3 and u.shape[0] == R else np.broadcast_to(u.reshape(1, -1), (R, u.size))
    dev = per - per.mean(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        err = np.linalg.norm(dev, axis=1) / np.linalg.norm(per, axis=1)
    return err, np.mean(dev ** 2, axis=1)


def collapsed_replicates(err_theta, err_mean) -> list:
    """Replicates whose u_theta fits the observations no better than their mean."""
    if err_theta is None or err_mean is None:
        return []
    et = np.asarray(err_theta, dtype=float)
    return [i for i in range(et.size) if np.isfinite(et[i]) and et[i] >= MEAN_FIT_RATIO * err_mean[i]]


def blown_up_replicates(val_data, var) -> list:
    """Replicates whose validation data loss ended at or above the data's variance (what
    their mean achieves) and ``BLOWUP_FACTOR`` times above its minimum."""
    if val_data is None or var is None:
        return []
    vd = np.atleast_2d(np.asarray(val_data, dtype=float))
    level = MEAN_FIT_RATIO ** 2 * np.asarray(var)
    out = []
    for i in range(vd.shape[0]):
        finite = vd[i][np.isfinite(vd[i])]
        if finite.size and finite[-1] >= level[i] and finite[-1] >= BLOWUP_FACTOR * finite.min():
            out.append(i)
    return out


def underfitting(epochs, val_total, collapsed=(), thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    ep, y = _median_log_curve(epochs, val_total)
    limits = {"tail_fraction": thr.underfit_tail_fraction, "tail_decades": thr.underfit_tail_decades,
              "mean_fit_ratio": MEAN_FIT_RATIO}
    R = np.atleast_2d(val_total).shape[0]
    collapsed = list(collapsed)
    note = (f"; {len(collapsed)}/{R} replicates fit the observations no better than their mean "
            "(collapsed: u_theta is no better than a constant)") if collapsed else ""
    if ep.size < 2:
        return Diagnostic("underfitting", np.nan, limits, bool(collapsed),
                          "not assessable: fewer than 2 recorded epochs with a finite loss" + note,
                          {"collapsed_replicates": collapsed})
    E = ep[-1]
    sel = ep >= E - TAIL_FRACTION * E
    if sel.sum() < 3:
        sel = np.zeros(ep.size, bool)
        sel[-min(3, ep.size):] = True
    slope = np.polyfit(ep[sel], y[sel], 1)[0]
    span = max(TAIL_FRACTION * E, ep[sel][-1] - ep[sel][0])
    tail_dec = float(-slope * span)
    total = float(y[0] - _smooth(y)[-1])
    frac = tail_dec / total if total > 0 else (np.inf if tail_dec > 0 else 0.0)
    falling = bool(frac > thr.underfit_tail_fraction or tail_dec > thr.underfit_tail_decades)
    if tail_dec >= 0:
        msg = (f"the last {span:.0f} of {E:.0f} epochs lowered the median validation loss by "
               f"{tail_dec:.3g} decades, {100 * frac:.3g}% of its total decrease")
    else:
        msg = (f"the median validation loss rose by {-tail_dec:.3g} decades over the last {span:.0f} of "
               f"{E:.0f} epochs (a fall of {total:.3g} decades over all {E:.0f})")
    if total <= 0:
        msg = (f"the median validation loss did not decrease overall "
               f"(last {span:.0f} epochs: {'a fall' if tail_dec >= 0 else 'a rise'} of {abs(tail_dec):.3g} decades)")
    msg += note
    if falling:
        msg += " - still falling: train longer or raise the learning rate"
    elif collapsed:
        msg += " - training failed: lower the learning rate (or check the data)"
    return Diagnostic("underfitting", float(frac), limits, falling or bool(collapsed), msg,
                      {"tail_decades": tail_dec, "total_decades": total, "collapsed_replicates": collapsed})


def instability(epochs, val_total, status, blown_up=(), thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    curves = np.atleast_2d(np.asarray(val_total, dtype=float))
    ep = np.asarray(epochs, dtype=float)
    R = curves.shape[0]
    status = list(status) if status is not None else ["ok"] * R
    bad_status = [i for i, s in enumerate(status) if s != "ok"]
    nonfinite = [i for i in range(R) if not np.all(np.isfinite(curves[i]))]
    second = ep > ep[-1] / 2 if ep.size else np.zeros(0, bool)
    rough = np.full(R, np.nan)
    for i in range(R):
        y = _finite_pos(curves[i][second])
        y = np.log10(y[np.isfinite(y)])
        if y.size >= 3:
            rough[i] = np.std(np.diff(y))
    value = float(_nanmedian(rough)) if np.any(np.isfinite(rough)) else np.nan
    failed = sorted(set(bad_status) | set(nonfinite))
    blown_up = list(blown_up)
    flag = bool((np.isfinite(value) and value > thr.instability_roughness) or failed or blown_up)
    if np.isfinite(value):
        msg = f"log10 validation loss jumps by {value:.3g} decades (std) between recorded epochs"
    else:
        msg = "roughness not assessable (fewer than 3 recorded epochs in the second half)"
    if failed:
        msg += f"; {len(failed)}/{R} replicates diverged or have non-finite losses"
    if blown_up:
        msg += (f"; {len(blown_up)}/{R} replicates blew up (their validation data loss ended above "
                f"the variance of the data and over {BLOWUP_FACTOR:g} times its minimum)")
    if flag:
        msg += " - lower the learning rate (or raise the batch size)"
    return Diagnostic("instability", value, thr.instability_roughness, flag, msg,
                      {"n_failed": len(failed), "failed_replicates": failed, "blown_up_replicates": blown_up})


def overfitting(epochs, val_total, thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    ep, y = _median_log_curve(epochs, val_total)
    limits = {"factor": thr.overfit_factor, "min_before": OVERFIT_MIN_BEFORE}
    if ep.size < 3:
        return Diagnostic("overfitting", np.nan, limits, False,
                          "not assessable: fewer than 3 recorded epochs with a finite loss")
    factor, i = _rise(y)
    at = ep[i] / ep[-1]
    flag = bool(factor > thr.overfit_factor and at < OVERFIT_MIN_BEFORE)
    msg = (f"final smoothed validation loss is {factor:.3g}x its minimum, reached at epoch "
           f"{ep[i]:.0f} ({100 * at:.0f}% of training)")
    if flag:
        msg += (" - the loss came back up: use the best-validation parameters, a smaller "
                "solution network or fewer epochs")
    return Diagnostic("overfitting", factor, limits, flag, msg, {"min_epoch": float(ep[i]),
                                                              "min_at_fraction": float(at)})


def mechanistic_mismatch(err_theta, err_p, up_status, thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    limits = {"ratio": thr.mismatch_ratio, "min_error": MISMATCH_MIN_ERROR}
    if err_theta is None or err_p is None:
        return Diagnostic("mechanistic_mismatch", np.nan, limits, False,
                          "not assessable: no u_theta / u_p errors against the observations")
    et = np.asarray(err_theta, dtype=float)
    ep_ = np.asarray(err_p, dtype=float)
    R = et.size
    up_status = list(up_status) if up_status is not None else ["ok"] * R
    failed = [i for i in range(R) if up_status[i] != "ok" or not np.isfinite(ep_[i])]
    ratio = _ratios(et, ep_)
    value = float(_nanmedian(ratio)) if np.any(~np.isnan(ratio)) else np.nan
    med_p = float(_nanmedian(np.where(np.isfinite(ep_), ep_, np.nan))) if np.any(np.isfinite(ep_)) else np.nan
    # NaN med_p (every solve failed) counts as above the floor
    big = bool(value > thr.mismatch_ratio and not med_p <= MISMATCH_MIN_ERROR)
    flag = bool(big or failed)
    msg = (f"u_p misses the observations by {value:.3g}x as much as u_theta "
           f"(median err(u_p, obs) = {med_p:.3g})")
    if failed:
        msg += f"; {len(failed)}/{R} forward solves failed"
    if flag:
        msg += (" - the learned operators do not reproduce the data: u_theta interpolates "
                "without the right mechanism; try another w_PDE, longer training, or another "
                "model (other mechanisms)")
    return Diagnostic("mechanistic_mismatch", value, limits, flag, msg,
                      {"n_failed_u_p": len(failed), "median_err_u_p_obs": med_p,
                       "median_err_u_theta_obs": float(_nanmedian(et)) if et.size else np.nan})


def operator_spread(u_grid, operators, u_range, groups, thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    if not operators:
        return Diagnostic("operator_spread", np.nan, thr.spread_cv, False, "no operator curves given",
                          {"per_operator": {}})
    u_grid = np.asarray(u_grid, dtype=float)
    grid = _observed_grid(u_grid, u_range)
    if grid is None:
        return Diagnostic("operator_spread", np.nan, thr.spread_cv, False,
                          "observed u range does not overlap the operator grid", {"per_operator": {}})
    per = {}
    for name, vals in operators.items():
        vals = np.atleast_2d(np.asarray(vals, dtype=float))
        R = vals.shape[0]
        gr = np.zeros(R, int) if groups is None else np.asarray(groups)
        cvs = []
        for g in dict.fromkeys(gr.tolist()):
            rows = [i for i in range(R) if gr[i] == g and np.all(np.isfinite(vals[i]))]
            if len(rows) < 2:
                continue
            c, mean, floor = _on_observed(u_grid, vals, grid, rows)
            cv = c.std(axis=0, ddof=1) / np.maximum(np.abs(mean), floor)
            cvs.append(float(np.median(cv)))
        per[name] = float(np.median(cvs)) if cvs else np.nan
    finite = {k: v for k, v in per.items() if np.isfinite(v)}
    if not finite:
        return Diagnostic("operator_spread", np.nan, thr.spread_cv, False,
                          "not assessable: needs at least 2 finite replicates on the same data",
                          {"per_operator": per})
    worst = max(finite, key=finite.get)
    value = finite[worst]
    flag = bool(value > thr.spread_cv)
    msg = ("coefficient of variation across initialisations over the observed u range: "
           + ", ".join(f"{k} {fmt(v, literal=True)}" for k, v in per.items()))
    if flag:
        msg += (f" - {worst} is not consistent between initialisations: interpret with caution; "
                "more initialisations show how far it varies, data over more of the u range constrain it")
    return Diagnostic("operator_spread", value, thr.spread_cv, flag, msg,
                      {"per_operator": per, "worst": worst})


def loss_balance(val_data, val_pde, weights, thr: Thresholds = DEFAULT_THRESHOLDS) -> Diagnostic:
    limits = {"min": thr.balance_min, "max": thr.balance_max, "weight_ratio_max": thr.weight_ratio_max}
    if val_data is None or val_pde is None or weights is None:
        return Diagnostic("loss_balance", np.nan, limits, False,
                          "not assessable: validation loss components or weights missing")
    vd = np.atleast_2d(np.asarray(val_data, dtype=float))
    vp = np.atleast_2d(np.asarray(val_pde, dtype=float))
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    if w.shape[0] == 1 and vd.shape[0] > 1:
        w = np.repeat(w, vd.shape[0], axis=0)
    tail = _tail(vd.shape[1])
    end_d = _nanmedian(np.where(np.isfinite(vd[:, tail]), vd[:, tail], np.nan), axis=1)
    end_p = _nanmedian(np.where(np.isfinite(vp[:, tail]), vp[:, tail], np.nan), axis=1)
    with np.errstate(all="ignore"):
        ratio = (w[:, 1] * end_p) / (w[:, 0] * end_d)
        wr = w[:, 1] / w[:, 0]
    value = float(_nanmedian(ratio)) if np.any(~np.isnan(ratio)) else np.nan
    wratio = float(_nanmedian(wr)) if np.any(~np.isnan(wr)) else np.nan
    low = bool(np.isfinite(value) and value < thr.balance_min) or value == 0
    high = bool(value > thr.balance_max) if not np.isnan(value) else False
    wbad = bool(wratio > thr.weight_ratio_max) if not np.isnan(wratio) else False
    flag = low or high or wbad
    msg = (f"w_PDE L_PDE / (w_data L_data) = {fmt(value, literal=True)} on the validation data at the end; "
           f"w_PDE / w_data = {fmt(wratio, literal=True)}")
    if low:
        msg += " - the PDE residual has almost no influence: raise w_PDE"
    if high:
        msg += " - the PDE residual dominates the objective: lower w_PDE"
    if wbad and not high:
        msg += " - w_PDE exceeds w_data (the paper recommends w_data >~ w_PDE)"
    return Diagnostic("loss_balance", value, limits, flag, msg,
                      {"weight_ratio": wratio, "low": low, "high": high, "weights_break_rule": wbad})
