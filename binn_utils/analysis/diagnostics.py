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

The thresholds are documented constants of :mod:`~binn_utils.analysis.diagnostic_thresholds`
(importable from here too); every entry point takes ``thresholds=``, a
:class:`Thresholds` (default: the constants), e.g. ``diagnose(res,
thresholds=thresholds(SPREAD_CV=0.5))`` for one calculation with another threshold.  The
checks themselves are in :mod:`~binn_utils.analysis.diagnostic_checks`.

Calibration and scoring against a known ground truth (the diagnostics chapter, on the
paper's sweeps) are in :mod:`~binn_utils.analysis.diagnostic_calibration`: flags under
candidate thresholds (:data:`CANDIDATES`), a combination chosen on one part of a seeded,
stratified split and counted on the other, the failure rule, hits, misses and false alarms.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..store.sweep_record import reported
from .diagnostic_checks import (Diagnostic, blown_up_replicates, collapsed_replicates, instability, loss_balance,
                                mean_fit, mechanistic_mismatch, mismatch_ratios, observed_u_range,
                                operator_deviations, operator_spread, overfitting, underfitting, validation_rises)
# the thresholds' public names, importable from here too (the chapters and figures read them here)
from .diagnostic_thresholds import (BALANCE_MAX, BALANCE_MIN, BLOWUP_FACTOR, CANDIDATES, DEFAULT_THRESHOLDS,
                                    DIAGNOSTIC_NAMES, INSTABILITY_ROUGHNESS, MEAN_FIT_RATIO, MISMATCH_MIN_ERROR,
                                    MISMATCH_RATIO, OVERFIT_FACTOR, OVERFIT_MIN_BEFORE, RANGE_QUANTILES, SPREAD_CV,
                                    SPREAD_FLOOR, SPREAD_POINTS, TAIL_FRACTION, THRESHOLD_NAMES, UNDERFIT_TAIL_DECADES,
                                    UNDERFIT_TAIL_FRACTION, WEIGHT_RATIO_MAX, Thresholds, thresholds)
from .reporting import fmt, table_cell
from .verdicts import held_together, median_interval, some

__all__ = [
    "UNDERFIT_TAIL_FRACTION", "UNDERFIT_TAIL_DECADES", "TAIL_FRACTION", "INSTABILITY_ROUGHNESS",
    "MEAN_FIT_RATIO", "BLOWUP_FACTOR", "OVERFIT_FACTOR", "OVERFIT_MIN_BEFORE", "MISMATCH_RATIO", "MISMATCH_MIN_ERROR",
    "SPREAD_CV", "SPREAD_FLOOR", "BALANCE_MIN", "BALANCE_MAX", "WEIGHT_RATIO_MAX", "RANGE_QUANTILES", "SPREAD_POINTS",
    "DIAGNOSTIC_NAMES", "THRESHOLD_NAMES", "CANDIDATES", "Thresholds", "DEFAULT_THRESHOLDS", "thresholds",
    "Diagnostic", "DiagnosticReport", "DiagnosticTable", "diagnose", "diagnose_arrays", "diagnose_many",
    "observed_u_range", "WARNING_SIGNS", "PAPER_SIGNS", "warning_signs", "SignsAgainstDefault",
    "signs_against_default", "collapsed",
]


# ----------------------------------------------------------------------------- reports
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
                 f"observed u in [{fmt(self.u_range[0], literal=True)}, {fmt(self.u_range[1], literal=True)}]"]
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
                s = fmt(v, f".{digits}g", literal=True) if not isinstance(v, str) else v
                flagname = _FLAG_OF_COLUMN.get(c) or ("operator_spread" if c.startswith("spread_") else None)
                if flagname and rep.diagnostics[flagname].flag and s not in ("", "nan"):
                    s = f"**{s}**"
                cells.append(table_cell(s))
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out)

    def _repr_markdown_(self):
        return self.to_markdown()


# ----------------------------------------------------------------------------- from arrays
def diagnose_arrays(*, epochs, val_total, val_data=None, val_pde=None, weights=None,
                    err_u_theta_obs=None, err_u_p_obs=None, up_status=None, u_grid=None,
                    operators=None, u_obs=None, u_range=None, status=None, groups=None,
                    label: str = "", u_scale: float = 1.0,
                    thresholds: Thresholds = DEFAULT_THRESHOLDS) -> DiagnosticReport:
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
    u_scale: multiplies the reported u range only (to report it in a user's units);
    thresholds: the flags' thresholds (default: the module's constants).
    """
    val_total = np.atleast_2d(np.asarray(val_total, dtype=float))
    epochs = np.asarray(epochs, dtype=float).ravel()
    if val_total.shape[1] != epochs.size:
        raise ValueError(f"val_total has {val_total.shape[1]} points per replicate but epochs has {epochs.size}")
    R = val_total.shape[0]
    if u_range is None:
        u_range = observed_u_range(u_obs) if u_obs is not None else (np.nan, np.nan)
    u_range = (float(u_range[0]), float(u_range[1]))
    err_mean, var = mean_fit(u_obs, R)
    thr = thresholds
    diags = {
        "underfitting": underfitting(epochs, val_total, collapsed_replicates(err_u_theta_obs, err_mean), thr),
        "instability": instability(epochs, val_total, status, blown_up_replicates(val_data, var), thr),
        "overfitting": overfitting(epochs, val_total, thr),
        "mechanistic_mismatch": mechanistic_mismatch(err_u_theta_obs, err_u_p_obs, up_status, thr),
        "operator_spread": (operator_spread(u_grid, operators, u_range, groups, thr)
                            if operators and np.all(np.isfinite(u_range))
                            else Diagnostic("operator_spread", np.nan, thr.spread_cv, False,
                                            "not assessable: operator curves or u range missing",
                                            {"per_operator": {}})),
        "loss_balance": loss_balance(val_data, val_pde, weights, thr),
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


def _setting_arrays(sr, which: str) -> dict:
    """The keyword arguments of :func:`diagnose_arrays` held by a stored setting."""
    a, rec = sr.arrays, sr.record
    cfg = sr.setting.config
    R = len(rec.status) or a["hist_val_total"].shape[0]
    if which not in rec.metrics:
        raise ValueError(f"the stored setting has no {which!r} metrics (have {sorted(rec.metrics)})")
    m = rec.metrics[which]
    nan = (lambda vs: np.array([np.nan if v is None else v for v in vs], dtype=float))
    ops = {n: a[f"{which}_op_{n}"] for n in ("D", "V", "G") if f"{which}_op_{n}" in a}
    return dict(epochs=a["curve_epochs"], val_total=a["hist_val_total"], val_data=a.get("hist_val_data"),
                val_pde=a.get("hist_val_pde"), weights=np.array([cfg.w_data, cfg.w_pde, cfg.w_bc], float),
                err_u_theta_obs=nan(m.err_u_theta_obs), err_u_p_obs=nan(m.err_u_p_obs),
                up_status=list(m.up_status), u_grid=a.get("u_grid"), operators=ops, u_obs=a["u_obs"],
                status=list(rec.status), groups=np.asarray(sr.setting.datasets)[:R])


def _from_setting(sr, which: str, label, thresholds: Thresholds) -> DiagnosticReport:
    if label is None:
        label = f"{sr.setting.study}: {sr.setting.label}" if sr.setting.study else sr.setting.label
    return diagnose_arrays(**_setting_arrays(sr, which), label=label, thresholds=thresholds)


#: The paper's three warning signs, each a number per replicate (``warning_signs``): u_theta
#: against u_p, the validation loss's rise, the variability between initialisations.
WARNING_SIGNS = ("mismatch", "validation rise", "operator deviation")
#: The diagnostics that flag the paper's three warning signs (Discussion), with the sign each
#: flags: the one set of flags claim 12 and the diagnostics chapter judge the paper's advice by.
#: The other three (under-fitting, instability, loss balance) are this book's further checks.
PAPER_SIGNS = {"mechanistic_mismatch": "mismatch", "overfitting": "validation rise",
               "operator_spread": "operator deviation"}


@dataclass(frozen=True)
class SignsAgainstDefault:
    """The paper's three warning signs at one setting set against its study's default
    (:func:`signs_against_default`)."""

    intervals: dict    # {sign: (Interval at the setting, Interval at the default)}
    verdict: object    # verdicts.Verdict of "one of the signs is higher" (``verdicts.some``)
    raised: tuple      # signs resolved higher than at the default, held to the level together
    lower: tuple       # signs resolved lower than at the default

    def words(self) -> str:
        """e.g. "mismatch raised (operator deviation lower than at the default)"; "none raised"."""
        return ((", ".join(self.raised) if self.raised else "none") + " raised"
                + (f" ({', '.join(self.lower)} lower than at the default)" if self.lower else ""))


def signs_against_default(res, ref, which: str | None = None) -> SignsAgainstDefault:
    """Whether one of the paper's warning signs is raised at the stored setting ``res`` against
    its study's default ``ref``: per sign, the median over replicates with its interval
    (a failed replicate counts as high), the setting's against the default's (paired where they
    share datasets and initialisations); raised when the difference is resolved upward once the
    three are held to the level together (Holm), as ``verdicts.some``."""
    here, there = warning_signs(res, which), warning_signs(ref, which)
    pairs = {s: (median_interval(here[s], failures_high=True, of=res),
                 median_interval(there[s], failures_high=True, of=ref)) for s in WARNING_SIGNS}
    order_, kept = held_together(pairs.values())
    resolved = [(s, o) for s, o, ok in zip(WARNING_SIGNS, order_, kept) if ok]
    return SignsAgainstDefault(pairs, some(pairs.values(), 1), tuple(s for s, o in resolved if o == 1),
                               tuple(s for s, o in resolved if o == -1))


def warning_signs(sr, which: str | None = None) -> dict:
    """{sign: (R,) per replicate} of a stored setting: the paper's three warning signs
    (Discussion), with no threshold -- ``mismatch`` (err(u_p, obs) / err(u_theta, obs)),
    ``validation rise`` (smoothed final validation loss over its minimum) and ``operator
    deviation`` (distance of the replicate's operators from the mean over initialisations on
    the same data, over the observed u range); a failed replicate scores +inf."""
    return _signs(**_setting_arrays(sr, which or reported()))


def collapsed(sr, which: str | None = None) -> np.ndarray:
    """(R,) whether each replicate of a stored setting collapsed: its u_theta fits the
    observations no better than their mean does (``collapsed_replicates``, the under-fitting
    diagnostic's criterion: a constant network, or one no better than a constant)."""
    et = sr.metric("err_u_theta_obs", which)
    err_mean, _ = mean_fit(sr["u_obs"], et.size)
    out = np.zeros(et.size, bool)
    out[collapsed_replicates(et, err_mean)] = True
    return out


def _signs(*, epochs, val_total, err_u_theta_obs, err_u_p_obs, up_status, u_grid, operators, u_obs, status,
           groups, **_) -> dict:
    return {"mismatch": mismatch_ratios(err_u_theta_obs, err_u_p_obs, up_status),
            "validation rise": validation_rises(epochs, val_total, status),
            "operator deviation": (operator_deviations(u_grid, operators, observed_u_range(u_obs), groups)
                                   if operators and u_grid is not None else np.full(len(status), np.nan))}


def _from_live(result, evaluation, data, which, label, u_scale, thresholds: Thresholds) -> DiagnosticReport:
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
        label=label or "", u_scale=u_scale, thresholds=thresholds)


def diagnose(obj, evaluation=None, data=None, *, which: str | None = None, label: str | None = None,
             u_scale: float = 1.0, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> DiagnosticReport:
    """Diagnostics of one setting.

    ``obj`` is a stored ``SettingResult`` (``which`` = ``sweep_record.reported()`` by default), a
    ``TrainResult`` (then pass its ``Evaluation`` and the ``Observations`` it was trained
    on; ``which`` defaults to the evaluation's), a tuple ``(result, evaluation[, data])``,
    or anything with a ``.report`` (e.g. a ``user_data.UserFit``, returned as it is);
    ``thresholds``: the flags' thresholds (default: the module's constants).
    """
    if isinstance(obj, DiagnosticReport):
        return obj
    if hasattr(obj, "report") and isinstance(getattr(obj, "report"), DiagnosticReport):
        return obj.report
    if isinstance(obj, tuple):
        return diagnose(*obj, which=which, label=label, u_scale=u_scale, thresholds=thresholds)
    if _is_setting_result(obj):
        return _from_setting(obj, which or reported(), label, thresholds)
    if hasattr(obj, "history") and hasattr(obj, "operator_curves"):
        return _from_live(obj, evaluation, data, which, label, u_scale, thresholds)
    raise TypeError(f"cannot diagnose a {type(obj).__name__}: expected a SettingResult, a TrainResult "
                    "with its Evaluation, or a (result, evaluation, data) tuple")


def diagnose_many(objs: Sequence, labels: Sequence[str] | None = None, *,
                  which: str | None = None, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> DiagnosticTable:
    """:func:`diagnose` each of ``objs`` (e.g. the settings of a sweep); one row each."""
    objs = list(objs)
    if labels is not None and len(labels) != len(objs):
        raise ValueError(f"{len(labels)} labels for {len(objs)} settings")
    reports = []
    for i, o in enumerate(objs):
        rep = diagnose(o, which=which, label=None if labels is None else str(labels[i]), thresholds=thresholds)
        if labels is not None and rep.label != str(labels[i]):
            rep = dataclasses.replace(rep, label=str(labels[i]))  # don't relabel the caller's report
        reports.append(rep)
    return DiagnosticTable(reports)
