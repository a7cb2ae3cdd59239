"""Ground-truth-free diagnostics for a trained setting (paper, Discussion and Results).

"In experimental applications, the true governing operators are unknown": what a
practitioner can still monitor is whether the optimisation behaved (validation-loss
trajectories), whether the learned operators reproduce the data through a forward solve
(u_p against u_theta), and whether independent initialisations agree.  This module turns
each of those into **a number, a documented threshold and a boolean flag**, for one
setting (all its replicates) at a time:

=======================  ==============================================================
diagnostic               number (flag when ...)
=======================  ==============================================================
``underfitting``         share of the total log10 decrease of the median validation loss
                         achieved in the last 10% of training (> ``UNDERFIT_TAIL_FRACTION``),
                         or that decrease in decades (> ``UNDERFIT_TAIL_DECADES``), or any
                         *collapsed* replicate: u_theta fits the observations no better
                         than their mean (``MEAN_FIT_RATIO``), e.g. a constant network
``instability``          roughness of log10 validation loss over the second half
                         (> ``INSTABILITY_ROUGHNESS``), or any diverged / non-finite
                         replicate, or any that *blew up*: its validation data loss ended
                         above the data's variance and far above its minimum
                         (``BLOWUP_FACTOR``)
``overfitting``          final / minimum of the smoothed median validation loss
                         (> ``OVERFIT_FACTOR`` with the minimum before ``OVERFIT_MIN_BEFORE``)
``mechanistic_mismatch`` median over replicates of err(u_p, obs) / err(u_theta, obs)
                         (> ``MISMATCH_RATIO`` and err(u_p, obs) > ``MISMATCH_MIN_ERROR``),
                         or any failed forward solve
``operator_spread``      largest, over the learned operators, median over the observed u
                         range of the coefficient of variation across initialisations
                         (> ``SPREAD_CV``)
``loss_balance``         median over replicates of w_PDE L_PDE / (w_data L_data) on the
                         validation data at the end (outside [``BALANCE_MIN``,
                         ``BALANCE_MAX``]), or w_PDE / w_data > ``WEIGHT_RATIO_MAX``
=======================  ==============================================================

plus the observed range of u (robust quantiles of the observations,
``RANGE_QUANTILES``), over which operators are identifiable; ``plotting.shade_unobserved``
greys the rest of an operator plot.

Entry points: :func:`diagnose` (a stored :class:`~binn_utils.store.loading.SettingResult`, or a
live ``(TrainResult, Evaluation, Observations)``), :func:`diagnose_many` (a table over a
sweep, with ``rows()`` and ``to_markdown()``), and :func:`diagnose_arrays` (plain arrays,
which the other two call; handy for synthetic curves).  Thresholds were chosen from the
paper's statements and checked on short diffusion-benchmark runs (learning rates 5e-7,
5e-4, 5e-2; w_PDE 1e-4, 1e-1, 1e3); see each constant's docstring.

Calibration: :class:`thresholds` changes them for one calculation; :func:`flag_matrix`
gives each diagnostic's flags under candidate thresholds (:data:`CANDIDATES`),
:func:`choose_thresholds` picks a combination on one part of a set of settings whose
ground truth is known (:func:`split_parts`: a seeded, stratified split) and
:func:`count_flags` counts caught failures and false alarms on the other part.

Against a known ground truth (the diagnostics chapter, on the paper's sweeps):
:func:`ground_truth_failures` applies the failure rule, :func:`score` sets each setting's
flags against it (:class:`Scored`: hits, misses, false alarms, which diagnostic does the
work) and :meth:`Scored.calibrate` chooses and counts thresholds on a seeded split.
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..engine.metrics import median_iqr
from ..store.sweep_record import reported
from .reporting import find, rank_trend

__all__ = [
    "UNDERFIT_TAIL_FRACTION", "UNDERFIT_TAIL_DECADES", "TAIL_FRACTION", "INSTABILITY_ROUGHNESS",
    "MEAN_FIT_RATIO", "BLOWUP_FACTOR", "OVERFIT_FACTOR", "OVERFIT_MIN_BEFORE", "MISMATCH_RATIO", "MISMATCH_MIN_ERROR", "SPREAD_CV",
    "SPREAD_FLOOR", "BALANCE_MIN", "BALANCE_MAX", "WEIGHT_RATIO_MAX", "RANGE_QUANTILES",
    "Diagnostic", "DiagnosticReport", "DiagnosticTable", "diagnose", "diagnose_arrays",
    "diagnose_many", "observed_u_range", "THRESHOLD_NAMES", "CANDIDATES", "thresholds",
    "current_thresholds", "flag_matrix", "Counts", "count_flags", "combined_flags", "choose_thresholds", "split_parts",
    "ground_truth", "ground_truth_failures", "SHORT_NAMES", "OUTCOMES", "outcome", "Calibration",
    "Scored", "score",
]

# ----------------------------------------------------------------------------- thresholds
TAIL_FRACTION = 0.1
"""The "end of training" examined by the under-fitting diagnostic: the last 10% of epochs."""

UNDERFIT_TAIL_FRACTION = 0.05
"""Flag under-fitting when the last 10% of epochs delivered more than 5% of the total
log10 decrease of the (median) validation loss.

A curve still falling at a steady rate (straight in log loss against epoch, the paper's
r = 5e-7 regime: "decreases only slowly throughout training") puts 10% of its decrease in
the last 10% of epochs; a curve that has levelled off puts ~0% there; an Adam curve that
decays like a power law of the epoch, L ~ e^-a, puts log10(1/0.9) / log10(E), i.e. 1.3%
(E = 4000) to 1.7% (E = 600) there.  5% sits between "converging" and "steady descent".
Measured on 600-epoch diffusion runs: 2-3% at r = 5e-4, 9-100% at r = 5e-7."""

UNDERFIT_TAIL_DECADES = 0.1
"""Also flag under-fitting when the median validation loss fell by more than 0.1 decades
(a factor 1.26) over the last 10% of epochs, however large the earlier decrease: training
longer would still lower the loss by more than 20%."""

INSTABILITY_ROUGHNESS = 0.1
"""Flag instability when the standard deviation of successive differences of log10 of
the validation loss over the second half of training exceeds 0.1 decades (typical
jumps of ~25% between recorded epochs), median over replicates.

Smooth convergence at r = 5e-4 gave 0.027-0.03 (0.03-0.06 at w_PDE = 1e3), the unstable
r = 5e-2 regime ("the validation losses cease to decrease smoothly") 0.14-0.17.  For a
curve stored every k-th epoch, fluctuations that are independent from epoch to epoch give
the same value, so stored (downsampled) and live curves are comparable."""

MEAN_FIT_RATIO = 0.98
"""A replicate has *collapsed* (flagged as under-fitting) when its u_theta misses the
observations by at least 0.98 times as much (relative L2) as their mean does, i.e. it
explains less than 4% of their variance: a constant network, or one no better than a
constant.  It has *blown up* (flagged as instability) when its validation data loss at
the end is at least 0.98^2 times the variance of its observations (the mean's squared
error) and ``BLOWUP_FACTOR`` times its own minimum: the final networks lost a fit they
had.

Measured on the committed runs (best-validation networks): every run that trained stayed
at or below 0.94 (Burgers at r = 5e-6 after 1000 epochs 0.91-0.94; the nonlinear ADR at
its defaults, whose bumps of height 0.1 barely exceed the noise, 0.90-0.91; diffusion at
sigma^2 = 5e-2, 0.89), while the Burgers runs at r = 5e-1, whose networks collapse to a
constant, gave 0.9999-1.19 and those at r = 5e-7 1.14-1.93.  (The ratio of the final
to the minimum validation loss alone does not separate failures: noise-free diffusion at
r = 5e-4 ends 700 times above its minimum, at a data loss far below the data's variance.)"""

BLOWUP_FACTOR = 5.0
"""... a blow-up also needs the validation data loss at the end to be at least 5 times its
minimum.  With noise-dominated data the validation data loss cannot fall far below the
data's variance, and over-fitting alone lifts it back by less: diffusion at sigma^2 =
5e-2 (noise 57% of the variance) ended 1.4-1.9 times its minimum, at the variance; the
nonlinear ADR at its defaults 1.1 times.  The Burgers runs at r = 5e-2 that lost their
fit ended 2.4-780 times (median about 30) above their minimum."""

OVERFIT_FACTOR = 1.5
"""Flag over-fitting when the final validation loss exceeds its minimum by more than a
factor 1.5 (both on the median curve smoothed over 5% of its points, so single noisy
epochs do not count) ..."""

OVERFIT_MIN_BEFORE = 0.8
"""... and the minimum was reached before 80% of training: the loss went down and then
came back up (the paper's late-epoch increase for sigma^2 = 0.05), rather than merely
fluctuating at the end."""

MISMATCH_RATIO = 2.0
"""Flag a mechanistic mismatch when err(u_p, obs) / err(u_theta, obs) > 2 (median over
replicates).  Both errors are measured against the same noisy observations and so share
the noise floor: if u_theta follows the latent solution, the ratio is ~ sqrt(1 + d^2/e^2)
where d is the distance between u_p and u_theta and e the scatter of the data about
u_theta; a ratio of 2 means the forward solve departs from the learned solution by ~1.7x
the data's own scatter, a visible systematic misfit (the paper: good u_theta with poor
u_p "indicates that the BINN has learned to interpolate the observations without
recovering the correct governing operator").  Smooth runs gave 0.94-1.02, the unstable
r = 5e-2 runs 2.2-5.8."""

MISMATCH_MIN_ERROR = 0.01
"""... provided err(u_p, obs) (median) exceeds 1%: with (nearly) noise-free data both
errors are tiny and their ratio is not informative; a u_p within 1% of the data in
relative L2 is indistinguishable from it on a plot."""

SPREAD_CV = 0.25
"""Flag operator spread when, for some learned operator, the median over the observed u
range of std / |mean| across initialisations exceeds 0.25: the +-1 standard deviation
band is wider than half the operator's value over a typical part of the range.
Converged diffusion runs gave 0.07 (0.14 at w_PDE = 1e3), the unstable r = 5e-2 runs 0.97."""

SPREAD_FLOOR = 0.1
"""The |mean| in the coefficient of variation is floored at 10% of the RMS of the mean
curve over the observed range, so that an operator crossing zero (e.g. V(u) = u(1 - u)
near u = 0 and 1) does not produce an infinite coefficient of variation there."""

BALANCE_MIN = 1e-3
"""Flag a loss imbalance when w_PDE L_PDE / (w_data L_data) < 1e-3: the PDE residual has
(almost) no influence on the optimisation (the paper: at w_PDE = 1e-4 "the weighted PDE
residual remains more than three orders of magnitude smaller than the weighted data
loss", and D is not recovered).  Defaults (w_PDE = 0.1) gave 5e-3 - 2e-2, w_PDE = 1e-4
gave 1e-5 - 1e-4."""

BALANCE_MAX = 1e1
"""... or when it is > 10: the PDE term dominates the objective and the data loss is not
"at least as influential" as the PDE residual (the paper's w_data >~ w_PDE rule)."""

WEIGHT_RATIO_MAX = 1.0
"""... or when the weights themselves break the paper's rule w_data >~ w_PDE, i.e.
w_PDE / w_data > 1.  (A strongly over-weighted PDE term is driven to a small residual, so
the *weighted* ratio alone does not reveal it: w_PDE = 1e3 gave a weighted ratio of only
0.2-0.3 in our runs, while the data were fitted three times worse.)  The weights are
meaningful relative to the paper's scales; ``binn_utils.analysis.user_data`` rescales user data
to those scales."""

RANGE_QUANTILES = (0.005, 0.995)
"""The observed range of u is taken between the 0.5% and 99.5% quantiles of all
observations (not the raw min and max), so that a few noise outliers do not widen the
range over which operators are considered identifiable."""

END_WINDOW = 0.05
"""End-of-training values (for loss balance and the over-fitting smoother) are medians /
means over the last 5% of recorded points (at least one)."""

SPREAD_POINTS = 101

DIAGNOSTIC_NAMES = ("underfitting", "instability", "overfitting", "mechanistic_mismatch",
                    "operator_spread", "loss_balance")


# ----------------------------------------------------------------------------- containers
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
        return f"{self.name}: {fmt_value(self.value)} [{mark}] {self.message}"


@dataclass
class DiagnosticReport:
    """All diagnostics of one setting (its ``n_replicates`` replicates)."""

    label: str
    n_replicates: int
    n_epochs: int
    u_range: tuple
    diagnostics: dict
    errors: dict = field(default_factory=dict)   # median err_u_theta_obs, err_u_p_obs

    def __getitem__(self, name) -> Diagnostic:
        return self.diagnostics[name]

    @property
    def flags(self) -> list[str]:
        """Names of the diagnostics that raised a flag."""
        return [n for n, d in self.diagnostics.items() if d.flag]

    @property
    def ok(self) -> bool:
        return not self.flags

    def row(self, flag_columns: bool = False) -> dict:
        """One flat, table-friendly dict (numbers and strings only)."""
        d = self.diagnostics
        row = {"setting": self.label, "replicates": self.n_replicates, "epochs": self.n_epochs,
               "u_min": self.u_range[0], "u_max": self.u_range[1],
               "err_u_theta_obs": self.errors.get("err_u_theta_obs", np.nan),
               "err_u_p_obs": self.errors.get("err_u_p_obs", np.nan),
               "underfitting": d["underfitting"].value,
               "tail_decades": d["underfitting"].extra.get("tail_decades", np.nan),
               "instability": d["instability"].value,
               "overfitting": d["overfitting"].value,
               "mismatch": d["mechanistic_mismatch"].value,
               "spread": d["operator_spread"].value}
        for name, v in d["operator_spread"].extra.get("per_operator", {}).items():
            row[f"spread_{name}"] = v
        row["loss_balance"] = d["loss_balance"].value
        row["w_pde/w_data"] = d["loss_balance"].extra.get("weight_ratio", np.nan)
        if flag_columns:
            for n in DIAGNOSTIC_NAMES:
                row[f"{n}_flag"] = bool(d[n].flag)
        row["flags"] = ", ".join(self.flags) if self.flags else "none"
        return row

    def summary(self) -> str:
        lines = [f"{self.label or 'setting'}: {self.n_replicates} replicates, {self.n_epochs} epochs, "
                 f"observed u in [{fmt_value(self.u_range[0])}, {fmt_value(self.u_range[1])}]"]
        lines += [f"  {d}" for d in self.diagnostics.values()]
        lines.append("  diagnostics: " + ("none fired" if self.ok else "check " + ", ".join(self.flags)))
        return "\n".join(lines)

    __str__ = summary

    def to_markdown(self) -> str:
        return DiagnosticTable([self]).to_markdown()

    def _repr_markdown_(self):
        return self.to_markdown()


# the number columns shown by to_markdown, with the diagnostic whose flag marks them
_FLAG_OF_COLUMN = {"underfitting": "underfitting", "tail_decades": "underfitting",
                   "instability": "instability", "overfitting": "overfitting",
                   "mismatch": "mechanistic_mismatch", "spread": "operator_spread",
                   "loss_balance": "loss_balance", "w_pde/w_data": "loss_balance"}


@dataclass
class DiagnosticTable:
    """Diagnostics of several settings (e.g. one sweep), one row each."""

    reports: list

    def __len__(self):
        return len(self.reports)

    def __iter__(self):
        return iter(self.reports)

    def __getitem__(self, i) -> DiagnosticReport:
        return self.reports[i]

    def rows(self, flag_columns: bool = False) -> list[dict]:
        """A list of flat dicts (``pandas.DataFrame(table.rows())`` works if you have pandas)."""
        return [r.row(flag_columns) for r in self.reports]

    def to_markdown(self, columns: Sequence[str] | None = None, digits: int = 3) -> str:
        """A Markdown table; values whose diagnostic raised a flag are shown in bold."""
        rows = self.rows()
        if columns is None:
            columns = []
            for r in rows:
                columns += [k for k in r if k not in columns]
        out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        for rep, r in zip(self.reports, rows):
            cells = []
            for c in columns:
                v = r.get(c, "")
                s = fmt_value(v, digits) if not isinstance(v, str) else v
                flagname = _FLAG_OF_COLUMN.get(c) or ("operator_spread" if c.startswith("spread_") else None)
                if flagname and rep.diagnostics[flagname].flag and s not in ("", "nan"):
                    s = f"**{s}**"
                cells.append(s.replace("|", "\\|"))
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out)

    def _repr_markdown_(self):
        return self.to_markdown()


def fmt_value(v, digits: int = 3) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        return f"{v:.{digits}g}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt_value(x, digits) for x in v) + ")"
    return str(v)


# ----------------------------------------------------------------------------- helpers
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


# ----------------------------------------------------------------------------- diagnostics
def _mean_fit(u_obs, R):
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


def _collapsed(err_theta, err_mean) -> list:
    """Replicates whose u_theta fits the observations no better than their mean."""
    if err_theta is None or err_mean is None:
        return []
    et = np.asarray(err_theta, dtype=float)
    return [i for i in range(et.size) if np.isfinite(et[i]) and et[i] >= MEAN_FIT_RATIO * err_mean[i]]


def _blown_up(val_data, var) -> list:
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


def _underfitting(epochs, val_total, collapsed=()) -> Diagnostic:
    ep, y = _median_log_curve(epochs, val_total)
    thr = {"tail_fraction": UNDERFIT_TAIL_FRACTION, "tail_decades": UNDERFIT_TAIL_DECADES,
           "mean_fit_ratio": MEAN_FIT_RATIO}
    R = np.atleast_2d(val_total).shape[0]
    collapsed = list(collapsed)
    note = (f"; {len(collapsed)}/{R} replicates fit the observations no better than their mean "
            "(collapsed: u_theta is no better than a constant)") if collapsed else ""
    if ep.size < 2:
        return Diagnostic("underfitting", np.nan, thr, bool(collapsed),
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
    falling = bool(frac > UNDERFIT_TAIL_FRACTION or tail_dec > UNDERFIT_TAIL_DECADES)
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
    return Diagnostic("underfitting", float(frac), thr, falling or bool(collapsed), msg,
                      {"tail_decades": tail_dec, "total_decades": total, "collapsed_replicates": collapsed})


def _instability(epochs, val_total, status, blown_up=()) -> Diagnostic:
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
    flag = bool((np.isfinite(value) and value > INSTABILITY_ROUGHNESS) or failed or blown_up)
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
    return Diagnostic("instability", value, INSTABILITY_ROUGHNESS, flag, msg,
                      {"n_failed": len(failed), "failed_replicates": failed, "blown_up_replicates": blown_up})


def _overfitting(epochs, val_total) -> Diagnostic:
    ep, y = _median_log_curve(epochs, val_total)
    thr = {"factor": OVERFIT_FACTOR, "min_before": OVERFIT_MIN_BEFORE}
    if ep.size < 3:
        return Diagnostic("overfitting", np.nan, thr, False,
                          "not assessable: fewer than 3 recorded epochs with a finite loss")
    s = _smooth(y)
    i = int(np.argmin(s))
    factor = float(10 ** (s[-1] - s[i]))
    at = ep[i] / ep[-1]
    flag = bool(factor > OVERFIT_FACTOR and at < OVERFIT_MIN_BEFORE)
    msg = (f"final smoothed validation loss is {factor:.3g}x its minimum, reached at epoch "
           f"{ep[i]:.0f} ({100 * at:.0f}% of training)")
    if flag:
        msg += (" - the loss came back up: use the best-validation parameters, a smaller "
                "solution network or fewer epochs")
    return Diagnostic("overfitting", factor, thr, flag, msg, {"min_epoch": float(ep[i]),
                                                              "min_at_fraction": float(at)})


def _mismatch(err_theta, err_p, up_status) -> Diagnostic:
    thr = {"ratio": MISMATCH_RATIO, "min_error": MISMATCH_MIN_ERROR}
    if err_theta is None or err_p is None:
        return Diagnostic("mechanistic_mismatch", np.nan, thr, False,
                          "not assessable: no u_theta / u_p errors against the observations")
    et = np.asarray(err_theta, dtype=float)
    ep_ = np.asarray(err_p, dtype=float)
    R = et.size
    up_status = list(up_status) if up_status is not None else ["ok"] * R
    failed = [i for i in range(R) if up_status[i] != "ok" or not np.isfinite(ep_[i])]
    with np.errstate(all="ignore"):
        ratio = np.where(np.isfinite(ep_), ep_ / et, np.inf)
    ratio = np.where(np.isfinite(et) & (et > 0), ratio, np.where(np.isfinite(ep_), np.nan, np.inf))
    value = float(_nanmedian(ratio)) if np.any(~np.isnan(ratio)) else np.nan
    med_p = float(_nanmedian(np.where(np.isfinite(ep_), ep_, np.nan))) if np.any(np.isfinite(ep_)) else np.nan
    # NaN med_p (every solve failed) counts as above the floor
    big = bool(value > MISMATCH_RATIO and not med_p <= MISMATCH_MIN_ERROR)
    flag = bool(big or failed)
    msg = (f"u_p misses the observations by {value:.3g}x as much as u_theta "
           f"(median err(u_p, obs) = {med_p:.3g})")
    if failed:
        msg += f"; {len(failed)}/{R} forward solves failed"
    if flag:
        msg += (" - the learned operators do not reproduce the data: u_theta interpolates "
                "without the right mechanism; try another w_PDE, longer training, or another "
                "model (other mechanisms)")
    return Diagnostic("mechanistic_mismatch", value, thr, flag, msg,
                      {"n_failed_u_p": len(failed), "median_err_u_p_obs": med_p,
                       "median_err_u_theta_obs": float(_nanmedian(et)) if et.size else np.nan})


def _spread(u_grid, operators, u_range, groups) -> Diagnostic:
    if not operators:
        return Diagnostic("operator_spread", np.nan, SPREAD_CV, False, "no operator curves given",
                          {"per_operator": {}})
    u_grid = np.asarray(u_grid, dtype=float)
    lo = max(u_range[0], u_grid.min())
    hi = min(u_range[1], u_grid.max())
    if not hi > lo:
        return Diagnostic("operator_spread", np.nan, SPREAD_CV, False,
                          "observed u range does not overlap the operator grid", {"per_operator": {}})
    grid = np.linspace(lo, hi, SPREAD_POINTS)
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
            c = np.stack([np.interp(grid, u_grid, vals[i]) for i in rows])
            mean = c.mean(axis=0)
            floor = SPREAD_FLOOR * np.sqrt(np.mean(mean ** 2))
            if floor == 0:
                floor = np.finfo(float).tiny
            cv = c.std(axis=0, ddof=1) / np.maximum(np.abs(mean), floor)
            cvs.append(float(np.median(cv)))
        per[name] = float(np.median(cvs)) if cvs else np.nan
    finite = {k: v for k, v in per.items() if np.isfinite(v)}
    if not finite:
        return Diagnostic("operator_spread", np.nan, SPREAD_CV, False,
                          "not assessable: needs at least 2 finite replicates on the same data",
                          {"per_operator": per})
    worst = max(finite, key=finite.get)
    value = finite[worst]
    flag = bool(value > SPREAD_CV)
    msg = ("coefficient of variation across initialisations over the observed u range: "
           + ", ".join(f"{k} {fmt_value(v)}" for k, v in per.items()))
    if flag:
        msg += (f" - {worst} is not consistent between initialisations: interpret with caution; "
                "more initialisations show how far it varies, data over more of the u range constrain it")
    return Diagnostic("operator_spread", value, SPREAD_CV, flag, msg,
                      {"per_operator": per, "worst": worst})


def _balance(val_data, val_pde, weights) -> Diagnostic:
    thr = {"min": BALANCE_MIN, "max": BALANCE_MAX, "weight_ratio_max": WEIGHT_RATIO_MAX}
    if val_data is None or val_pde is None or weights is None:
        return Diagnostic("loss_balance", np.nan, thr, False,
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
    low = bool(np.isfinite(value) and value < BALANCE_MIN) or value == 0
    high = bool(value > BALANCE_MAX) if not np.isnan(value) else False
    wbad = bool(wratio > WEIGHT_RATIO_MAX) if not np.isnan(wratio) else False
    flag = low or high or wbad
    msg = (f"w_PDE L_PDE / (w_data L_data) = {fmt_value(value)} on the validation data at the end; "
           f"w_PDE / w_data = {fmt_value(wratio)}")
    if low:
        msg += " - the PDE residual has almost no influence: raise w_PDE"
    if high:
        msg += " - the PDE residual dominates the objective: lower w_PDE"
    if wbad and not high:
        msg += " - w_PDE exceeds w_data (the paper recommends w_data >~ w_PDE)"
    return Diagnostic("loss_balance", value, thr, flag, msg,
                      {"weight_ratio": wratio, "low": low, "high": high, "weights_break_rule": wbad})


def diagnose_arrays(*, epochs, val_total, val_data=None, val_pde=None, weights=None,
                    err_u_theta_obs=None, err_u_p_obs=None, up_status=None, u_grid=None,
                    operators=None, u_obs=None, u_range=None, status=None, groups=None,
                    label: str = "", u_scale: float = 1.0) -> DiagnosticReport:
    """All diagnostics from plain arrays (what :func:`diagnose` extracts).

    epochs: (n,) epoch numbers of the recorded validation losses; val_total, val_data,
    val_pde: (R, n) validation curves (data and PDE components unweighted); weights:
    (R, 3) or (3,) = (w_data, w_PDE, w_BC); err_u_theta_obs, err_u_p_obs: (R,) relative L2
    errors against the observations; up_status: (R,) forward-solve statuses ("ok" ...);
    u_grid (n_u,) and operators {name: (R, n_u)}; u_obs: observations, (R, n_t, n_x) per
    replicate or one array for all (the observed u range, and the fit of their mean that
    collapse and blow-up are measured against), and u_range=(lo, hi) to override the range; status: (R,) training statuses;
    groups: (R,) labels of the dataset each replicate saw (spread is measured between
    initialisations on the same data, then the median over datasets is taken);
    u_scale: multiplies the reported u range only (to report it in a user's units).
    """
    val_total = np.atleast_2d(np.asarray(val_total, dtype=float))
    epochs = np.asarray(epochs, dtype=float).ravel()
    if val_total.shape[1] != epochs.size:
        raise ValueError(f"val_total has {val_total.shape[1]} points per replicate but epochs has {epochs.size}")
    R = val_total.shape[0]
    if u_range is None:
        u_range = observed_u_range(u_obs) if u_obs is not None else (np.nan, np.nan)
    u_range = (float(u_range[0]), float(u_range[1]))
    err_mean, var = _mean_fit(u_obs, R)
    diags = {
        "underfitting": _underfitting(epochs, val_total, _collapsed(err_u_theta_obs, err_mean)),
        "instability": _instability(epochs, val_total, status, _blown_up(val_data, var)),
        "overfitting": _overfitting(epochs, val_total),
        "mechanistic_mismatch": _mismatch(err_u_theta_obs, err_u_p_obs, up_status),
        "operator_spread": (_spread(u_grid, operators, u_range, groups)
                            if operators and np.all(np.isfinite(u_range))
                            else Diagnostic("operator_spread", np.nan, SPREAD_CV, False,
                                            "not assessable: operator curves or u range missing",
                                            {"per_operator": {}})),
        "loss_balance": _balance(val_data, val_pde, weights),
    }
    errors = {}
    mm = diags["mechanistic_mismatch"].extra
    if mm:
        errors = {"err_u_theta_obs": mm["median_err_u_theta_obs"], "err_u_p_obs": mm["median_err_u_p_obs"]}
    return DiagnosticReport(label=label, n_replicates=R, n_epochs=int(epochs[-1]) if epochs.size else 0,
                            u_range=(u_range[0] * u_scale, u_range[1] * u_scale),
                            diagnostics=diags, errors=errors)


# ----------------------------------------------------------------------------- front ends
def _is_setting_result(obj) -> bool:
    return hasattr(obj, "record") and hasattr(obj, "arrays") and hasattr(obj, "setting")


def _from_setting(sr, which: str, label) -> DiagnosticReport:
    a, rec = sr.arrays, sr.record
    cfg = sr.setting.config
    R = len(rec.status) or a["hist_val_total"].shape[0]
    if which not in rec.metrics:
        raise ValueError(f"the stored setting has no {which!r} metrics (have {sorted(rec.metrics)})")
    m = rec.metrics[which]
    nan = (lambda vs: np.array([np.nan if v is None else v for v in vs], dtype=float))
    ops = {n: a[f"{which}_op_{n}"] for n in ("D", "V", "G") if f"{which}_op_{n}" in a}
    if label is None:
        label = f"{sr.setting.study}: {sr.setting.label}" if sr.setting.study else sr.setting.label
    return diagnose_arrays(
        epochs=a["curve_epochs"], val_total=a["hist_val_total"], val_data=a.get("hist_val_data"),
        val_pde=a.get("hist_val_pde"), weights=np.array([cfg.w_data, cfg.w_pde, cfg.w_bc], float),
        err_u_theta_obs=nan(m.err_u_theta_obs), err_u_p_obs=nan(m.err_u_p_obs),
        up_status=list(m.up_status), u_grid=a.get("u_grid"), operators=ops, u_obs=a["u_obs"],
        status=list(rec.status), groups=np.asarray(sr.setting.datasets)[:R], label=label)


def _from_live(result, evaluation, data, which, label, u_scale) -> DiagnosticReport:
    if evaluation is None:
        raise ValueError("diagnosing a TrainResult needs its Evaluation too: "
                         "diagnose(result, evaluate(result, data), data)")
    which = which or evaluation.which
    R = result.n_replicates
    if data is None:
        u_obs, groups = None, None
        u_range = observed_u_range(evaluation.u_theta)  # ground-truth free fallback
    else:
        datas = [data] * R if not isinstance(data, (list, tuple)) else list(data)
        u_obs = np.stack([d.u_obs for d in datas])
        ids = {}
        groups = np.array([ids.setdefault(id(d), len(ids)) for d in datas])
        u_range = observed_u_range(u_obs)
    n = result.epochs_run
    lo, hi = u_range
    grid = np.linspace(lo, hi, SPREAD_POINTS) if hi > lo else evaluation.u_grid
    ops = result.operator_curves(grid, which)
    h = result.history
    return diagnose_arrays(
        epochs=np.arange(1, n + 1), val_total=h["val_total"], val_data=h["val_data"],
        val_pde=h["val_pde"], weights=result.weights, err_u_theta_obs=evaluation.err_u_theta_obs,
        err_u_p_obs=evaluation.err_u_p_obs, up_status=evaluation.up_status, u_grid=grid,
        operators=ops, u_obs=u_obs, u_range=u_range, status=result.status, groups=groups,
        label=label or "", u_scale=u_scale)


def diagnose(obj, evaluation=None, data=None, *, which: str | None = None, label: str | None = None,
             u_scale: float = 1.0) -> DiagnosticReport:
    """Diagnostics of one setting.

    ``obj`` is a stored ``SettingResult`` (``which`` = ``sweep_record.reported()`` by default), a
    ``TrainResult`` (then pass its ``Evaluation`` and the ``Observations`` it was trained
    on; ``which`` defaults to the evaluation's), a tuple ``(result, evaluation[, data])``,
    or anything with a ``.report`` (e.g. a ``user_data.UserFit``).
    """
    if isinstance(obj, DiagnosticReport):
        return obj
    if hasattr(obj, "report") and isinstance(getattr(obj, "report"), DiagnosticReport):
        return obj.report
    if isinstance(obj, tuple):
        return diagnose(*obj, which=which, label=label, u_scale=u_scale)
    if _is_setting_result(obj):
        return _from_setting(obj, which or reported(), label)
    if hasattr(obj, "history") and hasattr(obj, "operator_curves"):
        return _from_live(obj, evaluation, data, which, label, u_scale)
    raise TypeError(f"cannot diagnose a {type(obj).__name__}: expected a SettingResult, a TrainResult "
                    "with its Evaluation, or a (result, evaluation, data) tuple")


def diagnose_many(objs: Sequence, labels: Sequence[str] | None = None, *,
                  which: str | None = None) -> DiagnosticTable:
    """:func:`diagnose` each of ``objs`` (e.g. the settings of a sweep); one row each."""
    objs = list(objs)
    if labels is not None and len(labels) != len(objs):
        raise ValueError(f"{len(labels)} labels for {len(objs)} settings")
    reports = []
    for i, o in enumerate(objs):
        rep = diagnose(o, which=which, label=None if labels is None else str(labels[i]))
        if labels is not None and rep.label != str(labels[i]):
            rep = dataclasses.replace(rep, label=str(labels[i]))  # don't relabel the caller's report
        reports.append(rep)
    return DiagnosticTable(reports)


# ----------------------------------------------------------------------------- calibration
#: The module constants a calibration may change (each diagnostic's flag thresholds).
THRESHOLD_NAMES = ("UNDERFIT_TAIL_FRACTION", "UNDERFIT_TAIL_DECADES", "INSTABILITY_ROUGHNESS", "OVERFIT_FACTOR",
                   "MISMATCH_RATIO", "SPREAD_CV", "BALANCE_MIN", "BALANCE_MAX", "WEIGHT_RATIO_MAX")


def current_thresholds() -> dict:
    """{name: value} of the thresholds in ``THRESHOLD_NAMES`` now in force."""
    return {k: globals()[k] for k in THRESHOLD_NAMES}


class thresholds:
    """Context manager: diagnose with other thresholds, e.g.
    ``with diagnostics.thresholds(SPREAD_CV=0.5): diagnose(...)``; the module's values are
    restored on exit (not thread-safe: the thresholds are module constants)."""

    def __init__(self, **values):
        unknown = set(values) - set(THRESHOLD_NAMES)
        if unknown:
            raise ValueError(f"unknown threshold(s) {sorted(unknown)}; choose from {THRESHOLD_NAMES}")
        for k, v in values.items():
            if not isinstance(v, (int, float, np.integer, np.floating)) or not v > 0:
                raise ValueError(f"threshold {k} must be a number > 0, got {v!r}")
        self.values = {k: float(v) for k, v in values.items()}

    def __enter__(self):
        g = globals()
        self._old = {k: g[k] for k in self.values}
        g.update(self.values)
        return self

    def __exit__(self, *exc):
        globals().update(self._old)
        return False


#: Candidate thresholds of each diagnostic searched by :func:`choose_thresholds` (the
#: module's defaults first).  Each candidate sets the named constants together.
CANDIDATES = {
    "underfitting": [dict(UNDERFIT_TAIL_FRACTION=0.05 * f, UNDERFIT_TAIL_DECADES=0.1 * f) for f in (1, 2, 4, 8)],
    "instability": [dict(INSTABILITY_ROUGHNESS=v) for v in (0.1, 0.15, 0.2, 0.3, 0.5)],
    "overfitting": [dict(OVERFIT_FACTOR=v) for v in (1.5, 2.0, 3.0, 5.0)],
    "mechanistic_mismatch": [dict(MISMATCH_RATIO=v) for v in (2.0, 1.5, 2.5, 3.0, 5.0)],
    "operator_spread": [dict(SPREAD_CV=v) for v in (0.25, 0.35, 0.5, 0.75, 1.0)],
    "loss_balance": [dict(BALANCE_MIN=lo, BALANCE_MAX=hi, WEIGHT_RATIO_MAX=w)
                     for lo, hi, w in ((1e-3, 1e1, 1.0), (1e-4, 1e1, 1.0), (1e-3, 1e2, 1e2), (1e-4, 1e2, 1e2),
                                       (1e-3, 1e3, 1e3), (1e-4, 1e3, 1e3))],
}


def flag_matrix(objs, candidates=None, which: str | None = None, diagnose_fn=None) -> dict:
    """{diagnostic: (n_candidates, n_settings) bool}: the flag each diagnostic raises on
    each of ``objs`` (as for :func:`diagnose_many`; or ``diagnose_fn(obj)``, e.g. keyword
    arguments of :func:`diagnose_arrays`) under each of its ``candidates`` (default
    :data:`CANDIDATES`).  Diagnostics depend only on their own thresholds, so any
    combination of candidates is the OR of these rows."""
    candidates = CANDIDATES if candidates is None else candidates
    if diagnose_fn is None:
        def diagnose_fn(o):
            return diagnose(o, which=which, label="")
    objs = list(objs)
    out = {}
    for name, cands in candidates.items():
        rows = []
        for c in cands:
            with thresholds(**c):
                rows.append([bool(diagnose_fn(o)[name].flag) for o in objs])
        out[name] = np.array(rows, dtype=bool).reshape(len(cands), len(objs))
    return out


@dataclass
class Counts:
    """Flags against a ground truth: caught / failures and false alarms / fine settings."""

    caught: int
    failures: int
    false_alarms: int
    fine: int

    @property
    def caught_rate(self) -> float:
        return self.caught / self.failures if self.failures else float("nan")

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.fine if self.fine else float("nan")

    def meets(self, caught_min: float, false_max: float) -> bool:
        return bool(self.failures and self.fine and self.caught_rate >= caught_min
                    and self.false_alarm_rate <= false_max)

    def __str__(self):
        return (f"{self.caught} of {self.failures} failures caught, {self.false_alarms} false alarms "
                f"among {self.fine} fine settings")


def count_flags(flagged, failed) -> Counts:
    flagged, failed = np.asarray(flagged, bool), np.asarray(failed, bool)
    return Counts(int(np.sum(flagged & failed)), int(np.sum(failed)), int(np.sum(flagged & ~failed)),
                  int(np.sum(~failed)))


def combined_flags(matrix: dict, choice: dict) -> np.ndarray:
    """Flagged settings (any diagnostic) when diagnostic ``name`` uses candidate ``choice[name]``."""
    rows = [matrix[n][choice[n]] for n in matrix]
    return np.any(np.stack(rows), axis=0)


def choose_thresholds(matrix: dict, failed, part, caught_min: float = 0.85, false_max: float = 0.15) -> tuple:
    """The combination of candidates (one per diagnostic; indices into the rows of
    ``matrix``, from :func:`flag_matrix`) chosen on the settings selected by ``part``
    (bool mask) alone: among combinations that catch at least ``caught_min`` of the
    failures there with at most ``false_max`` false alarms, the one with the fewest misses
    plus false alarms; if none does, the one with the lowest sum of the two rates.  Ties
    go to the combination closest to the defaults (candidate 0: fewest steps away).
    Returns (choice {name: index}, Counts on ``part``)."""
    import itertools
    failed, part = np.asarray(failed, bool), np.asarray(part, bool)
    names = list(matrix)
    f = failed[part]
    best, best_key = None, None
    for combo in itertools.product(*(range(matrix[n].shape[0]) for n in names)):
        flagged = np.any(np.stack([matrix[n][i][part] for n, i in zip(names, combo)]), axis=0)
        c = count_flags(flagged, f)
        ok = c.meets(caught_min, false_max)
        errors = (c.failures - c.caught) + c.false_alarms
        rates = (1 - c.caught_rate if c.failures else 0.0) + (c.false_alarm_rate if c.fine else 0.0)
        key = (not ok, errors if ok else rates, sum(combo))
        if best_key is None or key < best_key:
            best, best_key = dict(zip(names, combo)), key
    flagged = combined_flags({n: matrix[n][:, part] for n in names}, best)
    return best, count_flags(flagged, f)


def split_parts(keys, strata, seed: int = 0) -> np.ndarray:
    """A seeded split of settings into two parts (True: the part thresholds are chosen on),
    half of each stratum (e.g. study and ground-truth outcome) in each, and settings with
    the same ``key`` (one run shown under two studies) always in the same part."""
    keys, strata = list(keys), list(strata)
    rng = np.random.default_rng(seed)
    first = {}
    by_stratum = {}
    for k, s in zip(keys, strata):
        if k not in first:
            first[k] = s
            by_stratum.setdefault(s, []).append(k)
    chosen = set()
    parity = 0
    for s in sorted(by_stratum, key=str):
        ks = by_stratum[s]
        order = rng.permutation(len(ks))
        for j, i in enumerate(order):
            if (j + parity) % 2 == 0:
                chosen.add(ks[i])
        parity = (parity + len(ks)) % 2  # odd strata alternate which part gets the extra one
    return np.array([k in chosen for k in keys])


# ----------------------------------------------------------------------------- the ground truth
def ground_truth(res) -> dict:
    """Ground-truth numbers of one stored setting (medians over replicates): errors of u_p and
    u_theta against the noise-free solution and of each operator, the replicates that
    diverged or whose forward solve failed (``bad`` of ``R``), and the noise level."""
    up, th = res.metric("err_u_p"), res.metric("err_u_theta")
    st = res.record.status
    ups = res.up_status()
    bad = sum((a != "ok") or (b != "ok") for a, b in zip(st, ups))
    ops = {k: median_iqr(res.operator_error(k))["median"]
           for k in res.record.metrics[reported()].operator_errors}
    return dict(up=median_iqr(up)["median"], theta=median_iqr(th)["median"], bad=bad, R=len(st), ops=ops,
                noise=float(res.record.noise_var))


def ground_truth_failures(results, groups, factor: float) -> list[dict]:
    """``ground_truth`` of each result, with ``rel`` (its median u_p error over the best of
    its group: the same study, ``groups[i]``, at the same noise level) and ``fail``: a
    ground-truth failure when ``rel`` exceeds ``factor``, u_p has no finite error, or more
    than half of the replicates diverged or had a failed forward solve."""
    G = [ground_truth(r) for r in results]
    group = [(groups[i], G[i]["noise"]) for i in range(len(results))]
    best = {}
    for g, v in zip(group, G):
        if np.isfinite(v["up"]):
            best[g] = min(best.get(g, np.inf), v["up"])
    for i, v in enumerate(G):
        b = best.get(group[i], np.nan)
        v["rel"] = v["up"] / b if np.isfinite(v["up"]) and np.isfinite(b) and b > 0 else np.nan
        v["fail"] = bool((np.isfinite(v["rel"]) and v["rel"] > factor) or not np.isfinite(v["up"])
                         or v["bad"] > v["R"] / 2)
    return G


# ----------------------------------------------------------------------------- flags against the ground truth
#: one letter per diagnostic, for tables
SHORT_NAMES = {"underfitting": "U", "instability": "I", "overfitting": "O", "mechanistic_mismatch": "M",
               "operator_spread": "S", "loss_balance": "B"}
#: what a setting is, given its flags and its ground truth
OUTCOMES = ("hit", "miss", "false alarm", "quiet and fine")


def outcome(failed: bool, flagged: bool) -> str:
    """hit (a failure, flagged), miss (a failure, not flagged), false alarm (flagged, no
    failure) or quiet and fine."""
    return "hit" if failed and flagged else "miss" if failed else "false alarm" if flagged else "quiet and fine"


@dataclass
class Calibration:
    """Thresholds chosen on one part of a set of settings and counted on the other
    (:meth:`Scored.calibrate`)."""

    choice: dict     # {diagnostic: index into CANDIDATES[diagnostic]} chosen on the first part
    counts: dict     # {(thresholds, part): Counts}: thresholds "module" or "chosen", part "first" or "second"
    pooled: Counts   # the held-out counts of the further splits, summed
    splits: int      # further splits
    met: int         # further splits whose held-out part meets the target
    target: tuple    # (least share of failures caught, largest share of false alarms)

    @property
    def held(self) -> Counts:
        """The chosen thresholds on the held-out (second) part."""
        return self.counts[("chosen", "second")]

    def held_meets(self) -> bool | None:
        """Whether :attr:`held` meets the target (None without failures or fine settings there)."""
        return self.held.meets(*self.target) if self.held.failures and self.held.fine else None

    def changed(self) -> list[tuple]:
        """(threshold name, the module's value, the chosen value) of every threshold the choice changes."""
        return [(k, CANDIDATES[n][0][k], v) for n, i in self.choice.items()
                for k, v in CANDIDATES[n][i].items() if v != CANDIDATES[n][0][k]]


@dataclass
class Scored:
    """The diagnostics of several settings set against their ground truth (:func:`score`)."""

    results: list
    groups: list           # groups[i]: the study of setting i (settings compared with each other)
    table: DiagnosticTable
    truth: list            # :func:`ground_truth_failures` of each setting

    @property
    def flagged(self) -> list[bool]:
        """Settings where at least one diagnostic raised its flag."""
        return [bool(rep.flags) for rep in self.table]

    @property
    def failed(self) -> list[bool]:
        """Ground-truth failures."""
        return [v["fail"] for v in self.truth]

    @property
    def outcomes(self) -> list[str]:
        return [outcome(f, fl) for f, fl in zip(self.failed, self.flagged)]

    def counts(self, group=None) -> dict:
        """{outcome: settings} and "n" (settings) over the settings of ``group`` (None: all)."""
        out = [o for o, g in zip(self.outcomes, self.groups) if group is None or g == group]
        return {**{k: out.count(k) for k in OUTCOMES}, "n": len(out)}

    def by_diagnostic(self) -> dict:
        """{diagnostic: (settings it flags, failures among them, failures it alone flags)}."""
        out = {}
        for n in SHORT_NAMES:
            fl = [n in rep.flags for rep in self.table]
            out[n] = (sum(fl), sum(f and fa for f, fa in zip(fl, self.failed)),
                      sum(f and fa and rep.flags == [n] for f, fa, rep in zip(fl, self.failed, self.table)))
        return out

    def top_diagnostic(self) -> str | None:
        """The diagnostic whose flags coincide with the most failures (of two, the one that
        flags fewer settings); None if no flag coincides with a failure."""
        per = self.by_diagnostic()
        top = max(per, key=lambda n: (per[n][1], -per[n][0]))
        return top if per[top][1] else None

    def index(self, group, **meta) -> int | None:
        """The setting of ``group`` whose swept values match ``meta`` (None if not among them)."""
        idx = [i for i, g in enumerate(self.groups) if g == group]
        hit = find([self.results[i] for i in idx], **meta)
        return None if hit is None else next(i for i in idx if self.results[i] is hit)

    def agrees_with_paper(self, i: int | None, paper_says_failure: bool) -> bool | None:
        """Whether the flags at setting ``i`` match the paper: a flag where it reports failure,
        none where it does not (None: the setting was not run)."""
        return None if i is None else bool(self.flagged[i] == paper_says_failure)

    def mismatch_ratio(self) -> np.ndarray:
        """The mechanistic-mismatch number of each setting."""
        return np.array([rep["mechanistic_mismatch"].value for rep in self.table], float)

    def mismatch_correlation(self) -> float:
        """Spearman's rank correlation between the mismatch number and the median u_p error,
        over the settings where both are finite and positive (NaN with fewer than three)."""
        ratio, up = self.mismatch_ratio(), np.array([v["up"] for v in self.truth], float)
        ok = np.isfinite(ratio) & np.isfinite(up) & (ratio > 0) & (up > 0)
        return rank_trend(ratio[ok], up[ok])[0]

    def mismatch_counts(self) -> Counts:
        """The mechanistic-mismatch flag alone against the ground truth."""
        return count_flags([rep["mechanistic_mismatch"].flag for rep in self.table], self.failed)

    def calibrate(self, keys, seed: int = 0, splits: int = 0, caught_min: float = 0.85,
                  false_max: float = 0.15, diagnose_fn=None) -> Calibration:
        """Thresholds (:data:`CANDIDATES`) chosen on one part of the settings by
        :func:`choose_thresholds` and counted on the other (:func:`split_parts`, stratified by
        group and ground truth; ``keys[i]``: the run of setting i), then the same on
        ``splits`` further splits (seeds ``seed + 1 ...``), their held-out counts pooled.
        ``diagnose_fn``: as for :func:`flag_matrix`."""
        matrix = flag_matrix(self.results, diagnose_fn=diagnose_fn)
        failed = np.array(self.failed, bool)
        module = {n: 0 for n in matrix}
        if not np.array_equal(combined_flags(matrix, module), np.array(self.flagged)):
            raise RuntimeError("the flag matrix does not reproduce the diagnostics' own flags")
        strata = list(zip(self.groups, self.failed))

        def on(choice, sel):
            return count_flags(combined_flags(matrix, choice)[sel], failed[sel])

        part = split_parts(keys, strata, seed=seed)
        choice, _ = choose_thresholds(matrix, failed, part, caught_min, false_max)
        counts = {(lab, plab): on(ch, sel) for lab, ch in (("module", module), ("chosen", choice))
                  for plab, sel in (("first", part), ("second", ~part))}
        pool, met = [0, 0, 0, 0], 0
        for s in range(seed + 1, seed + 1 + splits):
            p = split_parts(keys, strata, seed=s)
            c = on(choose_thresholds(matrix, failed, p, caught_min, false_max)[0], ~p)
            pool = [a + b for a, b in zip(pool, (c.caught, c.failures, c.false_alarms, c.fine))]
            met += c.meets(caught_min, false_max)
        return Calibration(choice, counts, Counts(*pool), splits, met, (caught_min, false_max))


def score(results, groups, factor: float, labels: Sequence[str] | None = None) -> Scored:
    """The diagnostics of ``results`` (:func:`diagnose_many`) and their ground truth
    (:func:`ground_truth_failures` with ``groups`` and ``factor``)."""
    results = list(results)
    return Scored(results, list(groups), diagnose_many(results, labels=labels),
                  ground_truth_failures(results, groups, factor))
