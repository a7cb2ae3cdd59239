"""The identifiability results in words: the tables and sentences of the book's chapters and of a
fit's report (:func:`table_markdown`, :func:`errors_markdown`, :func:`removal_sentence`: the
benchmarks' cases; :func:`fit_markdown`, :func:`unmeasured_markdown`, :func:`need_sentence`,
:func:`warnings_of`: a fit's learned operators).  The rule they report, what it measures and how
a level is decided, is :mod:`binn_utils.analysis.identifiability`'s; this module computes nothing
but the words."""
from __future__ import annotations

import numpy as np

from .fit_identifiability import NULL_SEED, NULL_SIMULATIONS
from .reporting import fmt, table_cell
from .identifiability import (DECIDING, Identifiability, OperatorConstraint, constraint_level, detect_threshold,
                              fit_threshold, need_threshold)

__all__ = ["MEANING", "LEVEL_PHRASE", "IN_SHORT", "FIT_HEADING", "COLUMNS", "level_words", "error_words",
           "table_markdown", "errors_markdown", "removal_sentence", "warnings_of", "unmeasured_markdown",
           "need_sentence", "fit_markdown", "null_words"]

#: What an operator's level means for its recovered error (the words of the tables).
MEANING = {"not": "not constrained: the data cannot tell it from half or twice itself or from a change of its "
                  "shape (at least one of these is invisible), so its error measures more than the data hold",
           "weakly": "weakly constrained: only a test aimed at this operator could see each change of its scale "
                     "and shape",
           "well": "well constrained: each change of its scale and shape shows as a misfit of the data",
           "indistinguishable": "indistinguishable from zero: removing it changes nothing measurable, so its "
                                "error measures little; a small added constant would show as a misfit of the data",
           "absent": "absent: a model without it fits the data as well, and the data rule out the size learned"}



LEVEL_PHRASE = {"not": "not constrained", "weakly": "weakly constrained", "well": "well constrained",
                "indistinguishable": "indistinguishable from zero", "absent": "not needed"}


#: An operator's level in a few words, after its name ("the learned D, which the data ...").
IN_SHORT = {"not": "which the data do not constrain", "weakly": "which the data constrain only weakly",
            "well": "which the data constrain well", "indistinguishable": "which the data cannot tell from zero",
            "absent": "which the data do not need"}


def level_words(oc: OperatorConstraint, factor_unit: tuple | None = None) -> str:
    """An operator's level as a table cell: 'well', 'indistinguishable from zero (|D| <~ 0.0056)'
    or 'absent (not needed)' (``factor_unit``: (factor, unit) from training units to the data's;
    default as it is)."""
    if oc.level == "absent":
        return "absent (not needed; the learned size ruled out)"
    if oc.level != "indistinguishable":
        return oc.level
    if oc.near_zero is None:
        return "indistinguishable from zero (no constant tried would be seen)"
    return (f"indistinguishable from zero (|{oc.name}| <~ "
            f"{_in_units(oc.near_zero, factor_unit) if factor_unit else f'{oc.near_zero:.2g}'})")


def _g(v: float) -> str:
    """A chi-square or share as the tables and sentences write it: three significant figures,
    from 1,000 up as a plain number (1,850, not 1.85e+03); 'failed' where not finite."""
    if not np.isfinite(v):
        return "failed"
    return fmt(v, plain_from=1000, figures=3)


def error_words(error: float, level: str) -> str:
    """A learned operator's error as the table shows it: beside its level, and flagged as
    measuring nothing where the data do not constrain the operator."""
    if not np.isfinite(error):
        return "no default run stored"
    return f"{_g(error)}" + (" (not constrained: not a measure of the method)" if level == "not" else
                             " (indistinguishable from zero: a relative error of it measures little)"
                             if level == "indistinguishable"
                             else "")


def table_markdown(cases, errors: dict | None = None) -> str:
    """One row per (model, operator): share of the dynamics, the chi-square changes, the level;
    with ``errors`` ({case label: {operator: median error of the learned operator}}), that error
    beside its level (:func:`error_words`)."""
    head = ("| data | operator | share of du/dt (fraction) | chi-square change: removed | chi-square change: x 1/2 "
            "| chi-square change: x 2 | chi-square change: tilt | constrained |")
    if errors is not None:
        head += " median error of the learned operator (default runs) |"
    lines = [head, "|---" * head.count(" |") + "|"]
    for c in cases:
        for k, oc in c.operators.items():
            d = oc.dchi2
            row = (f"| {c.label} | {k} | {oc.share:.2g} | {_g(d['zero'])} | {_g(d['half'])} | "
                   f"{_g(d['double'])} | {_g(d['tilt'])} | {table_cell(level_words(oc))} |")
            if errors is not None:
                row += f" {error_words(errors.get(c.label, {}).get(k, np.nan), oc.level)} |"
            lines.append(row)
    return "\n".join(lines)


def errors_markdown(entries) -> str:
    """Recovered operator errors beside how well the data constrain each operator.
    ``entries``: (label, Identifiability, {operator: median error}) tuples."""
    lines = ["| data | operator | median relative error of the learned operator | chi-square change at x 1/2 / x 2 "
             "| what the error means |", "|---|---|---|---|---|"]
    for label, c, errs in entries:
        for k, oc in c.operators.items():
            e = errs.get(k, np.nan)
            lines.append(f"| {label} | {k} | {_g(e)} | {_g(oc.dchi2['half'])} / {_g(oc.dchi2['double'])} "
                         f"| {MEANING[oc.level]} |")
    return "\n".join(lines)


def removal_sentence(sparse: Identifiability, dense: Identifiability, op: str) -> str:
    """How far removing ``op`` moves the forward solution on the two grids, in words decided by
    the numbers and the rule."""
    a, b = sparse[op], dense[op]
    # a negative level holds on neither grid ("not constrained on either grid"), never "not ... on both"
    both = "on either grid" if a.level in ("not", "absent") else "on both grids"
    where = (f"{LEVEL_PHRASE[a.level]} {both}" if a.level == b.level else
             f"{LEVEL_PHRASE[a.level]} on the sparse grid and {LEVEL_PHRASE[b.level]} on the dense one")
    return (f"removing {op} changes the summed chi-square by {_g(a.dchi2['zero'])} on the {sparse.n_points} data "
            f"points of the sparse grid ({a.rms_du['zero']:.2g} sigma per point: removing it is {a.signal} "
            f"detectable). On the {dense.n_points} data points of the dense grid, removing it changes the summed "
            f"chi-square by {_g(b.dchi2['zero'])} ({b.signal} detectable). Halving, doubling and tilting {op} change "
            f"the summed chi-square by {_g(a.dchi2['half'])}, {_g(a.dchi2['double'])} and {_g(a.dchi2['tilt'])} on "
            f"the sparse grid. On the dense one they change it by {_g(b.dchi2['half'])}, {_g(b.dchi2['double'])} "
            f"and {_g(b.dchi2['tilt'])}. So {op}, as weak as "
            f"the least visible of these, is {where}. A change above {detect_threshold():.2g} is detectable by a "
            f"test aimed at it. Above {fit_threshold(sparse.n_points):.3g} on the sparse and "
            f"{fit_threshold(dense.n_points):.3g} on the dense grid, it shows as a misfit of the data")


def _in_units(value: float, factor_unit: tuple | None) -> str:
    """An operator's value in the data's units ("0.0056 µm²/h"), or in training units."""
    if factor_unit is None:
        return f"{value:.2g} (training units)"
    factor, unit = factor_unit
    return f"{value * factor:.2g}" + (f" {unit}" if unit else " (the data's units)")


def warnings_of(c: Identifiability, units: dict | None = None) -> list[str]:
    """One sentence per operator whose removal leaves no measurable signal, that the data
    cannot tell from half or twice itself, or whose shape (tilt) they cannot tell; one that is
    indistinguishable from zero with the constant the data would see (``units``: {name:
    (factor, unit)} from training to the data's units; default training units).  An operator a
    fit's data do not need (absent) has its plain sentence (:func:`need_sentence`) instead."""
    out, bar = [], detect_threshold()
    for k, oc in c.operators.items():
        d = oc.dchi2
        if oc.level == "absent":
            continue
        if oc.level == "indistinguishable":
            out.append(f"{k}: indistinguishable from zero in these data: removing it changes nothing measurable"
                       + (f", but a constant of {_in_units(oc.near_zero, (units or {}).get(k))} added to it would "
                          "be seen well, so the data pin it within about that of zero" if oc.near_zero is not None
                          else ", and no constant tried would be seen either"))
        elif oc.signal == "not":
            out.append(f"{k}: the mechanism leaves no measurable signal in these data (removing it changes the "
                       f"chi-square by {_g(d['zero'])}, below {bar:.2g}): its learned curve "
                       "is not determined by the data, whatever its shape")
        elif oc.level == "not":
            size = [p for p in ("half", "double") if not d[p] >= bar]
            if size:
                out.append(f"{k}: present, but the data cannot tell it from half or twice itself (chi-square changes "
                           f"{_g(d['half'])} and {_g(d['double'])}): its size is not determined")
            if not d["tilt"] >= bar:
                out.append(f"{k}: present, but the data cannot tell its shape over the observed range (tilting it, x 1/2 "
                           f"at the low end of u and x 3/2 at the high end, changes the chi-square by "
                           f"{_g(d['tilt'])}, below {bar:.2g}): how it varies with u is not determined")
    return out


#: The heading of the identifiability section of a fit's report (the report's HTML finds it there).
FIT_HEADING = "## How strongly do these data constrain each learned operator?"


def unmeasured_markdown(reason: str, advice: str = "", failed: bool = False) -> str:
    """The identifiability section of a fit's report where the fit check refused the fit (or
    the section could not be computed): ``reason``, a statement about the fit, not about the
    data, and ``advice`` (what to try for this failure; default: by the diagnostics).
    ``failed``: the training diverged or blew up (the heading says so too)."""
    advice = advice or ("what to try depends on the diagnostics above: a validation loss still falling at the end "
                        "asks for more epochs (--epochs) or a larger learning rate (--lr); a loss that rose or blew "
                        "up, a smaller learning rate; a forward solve that failed on a stiff model, --forward-method "
                        "BDF")
    return "\n".join([
        FIT_HEADING + (" (not measured: the fit failed)" if failed else ""), "",
        f"Not measured: {reason.rstrip('.')}. This is a property of the fit, not of the data: the labels of a model "
        "that does not fit the data would describe the fit, so no operator gets a label here.",
        f"What to try: {advice.rstrip('.')}."]) + "\n"


#: The columns of a fit's identifiability table: (heading, what it measures and its unit).  A
#: change of chi-square is the sum over the data points (after the first time) of the squared
#: change of the model's solution in units of the noise sigma: a pure number.
COLUMNS = (
    ("operator", "D diffusion, V advection, G reaction (the learned operator, median over the networks)"),
    ("share of du/dt", "the size of the operator's term in du/dt (the rate of change of the density) over the sum "
                       "of the terms' sizes, mean over the observation times; a fraction from 0 to 1"),
    ("chi-square change without it", "the rise of the data's chi-square when the model without this operator, "
                                     "each other operator rescaled by a factor fitted to the data, replaces the "
                                     "whole model with its factors fitted, each model also fitting the level and "
                                     "tilt of the profile it starts from (a change of chi-square: no unit)"),
    ("chi-square change at its learned size", "the same with this operator held at its learned size instead of "
                                              "rescaled (asked only where it is not needed; no unit)"),
    ("needed?", "needed where the change without it is beyond the 95 % quantile of chi-square with one degree of "
                f"freedom ({need_threshold():.3g}, a rise that noise alone exceeds in 1 of 20 data sets) and no data set "
                "simulated without it changes as much (next column); else absent or indistinguishable from zero (a "
                "word, no unit)"),
    ("simulated without it", "where the change passed that bar: of the data sets simulated from the model without "
                             "the operator (plus noise of size sigma, each fitted like the data), how many change "
                             "chi-square as much, of how many drawn (at most 19: the drawing stops at the first that "
                             "does), and the p-value this gives; '-' where nothing was simulated"),
    ("chi-square change, removed", "the change of the model's solution when the operator is set to zero, the "
                                   "others as learned, summed as (change / sigma)^2 over the data points (no unit)"),
    ("chi-square change, x 1/2", "the same change for the operator halved (no unit)"),
    ("chi-square change, x 2", "the same change for the operator doubled (no unit)"),
    ("chi-square change, tilted", "the same change for a change of its shape: x 1/2 at the low end of the observed "
                                "u, x 3/2 at the high end (no unit)"),
    ("level", "well, weakly or not constrained (its size and shape; only for a needed operator), absent or "
              "indistinguishable from zero (a word, no unit)"),
)


def null_words(oc: OperatorConstraint) -> str:
    """The simulated null of an operator's need as a table cell: '0 of 19 (p = 0.05)', '-'
    where nothing was simulated."""
    n = oc.null
    return "-" if n is None else f"{n.reached} of {len(n.simulated)} (p = {n.p_value:.2g})"


def _beyond(oc: OperatorConstraint) -> str:
    """How the change without the operator compares with the bar and its simulated null."""
    bar, n, k = need_threshold(), oc.null, oc.name
    if n is None:
        return f"only {_g(oc.dchi2_without)}, below {bar:.3g}"
    sims = f"{len(n.simulated)} data set{'s' if len(n.simulated) > 1 else ''} simulated without {k}"
    if n.reached == 0:    # the bar and p = 1 / (1 + K) are in the table beside: at most three numbers here
        return f"{_g(oc.dchi2_without)}, more than in any of {sims}"
    return f"{_g(oc.dchi2_without)}, beyond {bar:.3g}, but {n.reached} of {sims} change it as much: noise explains it"


def need_sentence(oc: OperatorConstraint, units: dict | None = None) -> str:
    """One plain sentence on whether the data need the operator (a fit's, with ``need``)."""
    k = oc.name
    d1 = _g(oc.dchi2_learned)
    if oc.need == "needed":
        how = {"well": "they constrain its size and shape well",
               "weakly": "only a test aimed at it could see a change of its size or shape (weakly constrained)",
               "not": "they cannot tell its size or its shape (not constrained)"}[oc.shape_level]
        return (f"{k}: a model without {k} fits these data worse than the noise explains (chi-square up by "
                f"{_beyond(oc)}): the data need {k}, and {how}.")
    if oc.need == "absent":
        return (f"{k}: a model without {k} fits these data as well (chi-square up by {_beyond(oc)}), and the {k} "
                f"learned, at its size, fits them worse (by {d1}): the data do not need {k}; the network invented it.")
    bound = ("" if oc.near_zero is None else
             f"; a constant {k} of {_in_units(oc.near_zero, (units or {}).get(k))} would be seen, so |{k}| <~ that")
    return (f"{k}: a model without {k} fits these data as well (chi-square up by {_beyond(oc)}), and so does the {k} "
            f"learned (by {d1}): the data cannot tell {k} from zero{bound}.")


def fit_markdown(c: Identifiability, units: dict | None = None) -> str:
    """The identifiability section of a fit's report (``units``: {name: (factor, unit)} from
    training units to the data's, for the bounds near zero): the noise and how it was
    estimated, the fit check, one row per operator (:data:`COLUMNS`), one plain sentence each."""
    lo, hi = c.thresholds
    fc = c.fit
    lines = [FIT_HEADING, "",
             f"Noise: sigma = {c.sigma_source}"
             + (f". The fit's own residual (root-mean-square of the data about the learned model's forward "
                f"solution) is {c.sigma_fitted_words}." if c.sigma_fitted_words else "."), ""]
    if fc is not None:
        lines += [f"Fit check: passed. The learned model, solved forward from the data's first observed profile "
                  "(smoothed), "
                  f"has a chi-square of {fc.chi2:.4g} against the data on {fc.n_points} points (a constant, the "
                  f"data's mean, has {fc.chi2_constant:.4g}); noise of size sigma stays below {fc.bar:.4g} in "
                  "99.9 % of data sets. Chi-square: the sum over the data points of (data - model)^2 / sigma^2.", ""]
    lines += ["Is each operator needed? The data are fitted again by the model without it, each other operator "
              "allowed a scale factor, and by the whole model with a factor per operator, and the rise of chi-square "
              f"is compared with {need_threshold():.3g} (the 95 % quantile of chi-square with one degree of freedom: a "
              "rise that noise alone exceeds in 1 of 20 data sets). A rise below it means the operator is not needed. "
              "A rise beyond it is checked against data simulated without the operator, because the first profile, "
              "from which every refitted model starts, keeps some of its noise after smoothing, and growth amplifies "
              "that noise where only diffusion smooths it away: the model without the operator (as fitted to these "
              "data) is solved, noise of size sigma is added, and the simulated data are fitted exactly as these "
              f"were, up to {NULL_SIMULATIONS} times (random draws seeded with {NULL_SEED}, the same every run). "
              "The operator is needed only when the rise in these data is larger than in every simulated data set "
              f"(a chance of 1 in {NULL_SIMULATIONS + 1} if the operator did nothing); the simulation stops at the "
              "first simulated data set that rises as much, and the operator is then not needed. Only "
              "a needed operator gets a level of its size and shape: each learned operator is changed in the "
              f"forward model and the change of the solution summed as (change / sigma)^2 over the {c.n_points} "
              f"data points after the first time: not constrained below {lo:.2g} (no test detects the change with "
              f"even odds at 5 % false alarms), well constrained above {hi:.3g} (the 95 % quantile of what noise "
              "adds to the chi-square of these points), weakly in between; its level is that of the weakest of its "
              "changes of size (x 1/2, x 2) and of shape (tilt).", ""]
    lines += ["| " + " | ".join(h for h, _ in COLUMNS) + " |", "|---" * len(COLUMNS) + "|"]
    for k, oc in c.operators.items():
        d = oc.dchi2
        need = oc.need or "not asked"
        lines.append(f"| {k} | {_g(oc.share) if np.isfinite(oc.share) else 'n/a (no dynamics)'} | "
                     f"{_g(oc.dchi2_without)} | {'-' if oc.need == 'needed' else _g(oc.dchi2_learned)} | {need} | "
                     f"{null_words(oc)} | "
                     f"{_g(d['zero'])} | {_g(d['half'])} | {_g(d['double'])} | {_g(d['tilt'])} | "
                     f"**{table_cell(level_words(oc, (units or {}).get(k)))}** |")
    lines += ["", "Columns: " + "; ".join(f"{h}: {w}" for h, w in COLUMNS) + ".", ""]
    lines += [need_sentence(oc, units) for oc in c.operators.values() if oc.need]
    w = [s for k, oc in c.operators.items() if oc.need in (None, "needed")
         for s in warnings_of(Identifiability(c.label, {k: oc}, c.sigma, c.sigma_source, c.n_points), units)]
    lines += [""] + [f"WARNING - {s}." for s in w]
    what = {"half": "halving it", "double": "doubling it", "tilt": "tilting it (its shape)"}
    for k, oc in c.operators.items():     # which change leaves an operator only weakly constrained
        weak = [p for p in DECIDING if oc.level == "weakly" and constraint_level(oc.dchi2[p], oc.n_points) == "weakly"]
        if weak:
            lines.append(f"{k} is weakly constrained: " + " and ".join(
                f"{what[p]} changes the chi-square by {_g(oc.dchi2[p])}" for p in weak) + f", between {lo:.2g} and {hi:.3g}.")
    if c.failed:
        lines.append("Perturbed solves that failed (counted as large changes): "
                     + "; ".join(f"{k} {p}: {m}" for k, p, m in c.failed) + ".")
    return "\n".join(lines) + "\n"
