"""Markdown tables and short phrases the chapters show, from the analysis layer's results.

These are the scratch-assay, Supporting Material, architecture and batch-size chapters' and
the noise chapter's figure (the framework chapter's are in
:mod:`binn_utils.presentation.framework_tables`, the noise chapter's comparisons of its two
networks in :mod:`binn_utils.presentation.noise_tables`, the diagnostics chapter's in
:mod:`binn_utils.presentation.diagnostic_tables`).  Nothing here computes a number
the chapters judge by: that is the analysis layer's and the studies' job.
"""
from __future__ import annotations

import html
import re

import numpy as np

from ..analysis.reporting import (and_list, arch_label, fmt, meta_value, respectively,
                                  run_description, value_label, word)
from ..analysis.verdicts import Verdict
from .noise_tables import budget_words
from .plotting import unobserved_spans
from ..studies import SCALES
from ..studies.architecture import architecture_matrix
from ..studies.batch_size import more_steps_worse

def scale_words(scale: str) -> str:
    """A training scale in words, from its numbers (``studies.SCALES``)."""
    if scale == "quick":
        return "quick smoke runs"
    if scale == "paper":
        return "the paper's grid"
    p = SCALES[scale]
    fewer = " (noise: fewer)" if p.get("noise_seeds", p["seeds"]) < p["seeds"] else ""
    return f"{p['epochs']} epochs, {p['seeds']} initialisations{fewer}"


def scales_sentence(scale_of: dict) -> str:
    """'<study>: <scale> scale (<its words>); ...' for {study name: scale}."""
    return "; ".join(f"{name.replace('_', ' ')}: {s} scale ({scale_words(s)})" for name, s in scale_of.items())


#: Numbers in the own-data tables from this size on: plain and rounded (1,234 not 1.23e+03).
PLAIN_FROM = 1000


def median_curve(curves, u_grid, unit: str, scale=1e3) -> str:
    """The median over initialisations of an operator's curves on ``u_grid`` in words, after "Its
    median curve is": its values at the ends, then any extremum inside, a sentence each
    (densities times ``scale``, in 10^-3 cells/µm^2)."""
    med = np.nanmedian(curves, axis=0)
    out = (f"{fmt(med[0], plain_from=PLAIN_FROM)} {unit} at the lowest and "
           f"{fmt(med[-1], plain_from=PLAIN_FROM)} {unit} at the highest observed density")
    for i, what in ((int(np.nanargmax(med)), "maximum"), (int(np.nanargmin(med)), "minimum")):
        if 0 < i < med.size - 1:  # an extremum inside the range
            out += (f". Its {what} inside the range is {fmt(med[i], plain_from=PLAIN_FROM)} {unit}, "
                    f"at u ≈ {scale * u_grid[i]:.2g} × 10⁻³ cells/µm²")
    return out


def shape_counts_words(counts: dict, n: int) -> str:
    """How many of ``n`` initialisations learned each shape (``user_data.operator_shape``'s
    counts), the shapes none learned left out: "4 increasing and 6 non-monotone, of 10";
    "all 10 decreasing"; "both decreasing"; "1 decreasing, of 1"."""
    said = [(k, c) for k, c in counts.items() if c]
    if not said:
        return "no initialisation with a finite curve"
    if len(said) == 1 and said[0][1] == n and n > 1:
        return f"{'both' if n == 2 else f'all {n}'} {said[0][0]}"
    return and_list([f"{c} {k}" for k, c in said]) + f", of {n}"


def report_table(report) -> str:
    """One setting's diagnostics: value (bold if flagged), threshold, flag, message."""
    def threshold(v):
        if isinstance(v, dict):
            return ", ".join(f"{k.replace('_', ' ')} {fmt(x, '.3g', plain_from=PLAIN_FROM)}" for k, x in v.items())
        return fmt(v, ".3g", plain_from=PLAIN_FROM)

    rows = ["| diagnostic | value | threshold | flag | what it says |", "|---|---|---|---|---|"]
    for d in report.diagnostics.values():
        val = fmt(d.value, ".3g", plain_from=PLAIN_FROM)
        rows.append(f"| {d.name.replace('_', ' ')} | {'**' + val + '**' if d.flag else val} | "
                    f"{threshold(d.threshold)} | {'**yes**' if d.flag else 'no'} | {d.message.replace('|', '/')} |")
    return in_words("\n".join(rows))


def runs_description(study, results, scale: str) -> str:
    """The runs behind a study's figure (``results``: a tuple of parts for a study in parts,
    described by its first): one description per value of ``study.described_by`` (whose
    settings ran with different budgets), else one."""
    first = results[0] if isinstance(results, tuple) else results
    if not study.described_by:
        return run_description(first[0], scale=scale)
    firsts = {}
    for r in first:
        firsts.setdefault(meta_value(r, study.described_by), r)
    return "; ".join(f"{value_label(v)}: {run_description(r, noise=False, scale=scale)}" for v, r in firsts.items())


def _matrix_cell(matrix, aD, aV) -> str:
    """One cell of ``architecture_matrix``'s output with its failure count ('not run' if absent)."""
    archs, M, notes = matrix
    if tuple(aD) not in archs or tuple(aV) not in archs:
        return "not run"
    i, j = archs.index(tuple(aD)), archs.index(tuple(aV))
    return fmt(M[i, j]) + (f" ({notes[i][j]})" if notes[i][j] else "")


def architecture_table(results, stat: str) -> str:
    """The ``stat`` (mean or median) over replicates of the u_p error of every combination of
    D network (rows) and V network (columns), failures counted in the cell."""
    matrix = architecture_matrix(results, stat)
    a = matrix[0]
    rows = [f"| {stat}: $D$ \\ $V$ | " + " | ".join(arch_label(x) for x in a) + " |", "|---" * (len(a) + 1) + "|"]
    for aD in a:
        rows.append(f"| {arch_label(aD)} | " + " | ".join(_matrix_cell(matrix, aD, aV) for aV in a) + " |")
    return "\n".join(rows)


def published_row_table(results, axis, row_order, row_D=(4, 4)) -> str:
    """The heat-map row ``D = row_D`` of our runs in both metrics, against what a published
    map whose row holds the V networks ``row_order`` under the labels ``axis`` shows there."""
    maps = {(stat, metric): architecture_matrix(results, stat, metric)
            for stat, metric in (("mean", "err_u_p"), ("median", "err_u_p"), ("median", "err_u_p_spectral"))}
    lines = [f"| $V$ network (label), $D$ = {arch_label(row_D)} | Frobenius, mean (left map) | Frobenius, median "
             "| spectral, median (right map) | published cell shows $V$ | spectral, median of that $V$ |",
             "|---" * 6 + "|"]
    for lab, shown in zip(axis, row_order):
        lines.append(f"| {arch_label(lab)} | {_matrix_cell(maps['mean', 'err_u_p'], row_D, lab)} "
                     f"| {_matrix_cell(maps['median', 'err_u_p'], row_D, lab)} "
                     f"| {_matrix_cell(maps['median', 'err_u_p_spectral'], row_D, lab)} | {arch_label(shown)}"
                     + (" (mislabelled)" if shown != lab else "")
                     + f" | {_matrix_cell(maps['median', 'err_u_p_spectral'], row_D, shown)} |")
    return "\n".join(lines)


#: A batch size's verdict on "the run with more steps has the larger error", in a table cell.
_LARGER_WORDS = {Verdict.AGREES: "larger", Verdict.DISAGREES: "smaller", Verdict.INDISTINCT: "indistinguishable",
                 Verdict.UNDECIDED: "cannot be decided", None: "same steps"}


def steps_table(rows) -> str:
    """Optimiser steps and median u_p errors, with their intervals, of each batch size after
    the fixed epochs and the fixed budget, and whether the run with more steps has the larger
    error (rows of ``studies.batch_size.steps_against_errors``); the medians' estimate named in the
    header (:func:`steps_estimate_words`)."""
    out = [f"| $B$ | optimiser steps, fixed epochs | fixed budget | {steps_estimate_words(rows)} of "
           "$u_\\mathrm{p}$ error [interval], fixed epochs | fixed budget | the run with more steps: error "
           "(intervals) | ratio budget / epochs | same ratio, final networks |", "|---" * 8 + "|"]
    for r in rows:
        out.append(f"| {r['batch_size']:g} | {r['steps'][0]:,} | {r['steps'][1]:,} | {r['intervals'][0]} | "
                   f"{r['intervals'][1]} | {_LARGER_WORDS[r['larger']]} | {fmt(r['ratio'], '.2g')} | "
                   f"{fmt(r['ratio_final'], '.2g')} |")
    return "\n".join(out)


def steps_estimate_words(rows) -> str:
    """The estimate of the steps table's medians (``rows`` of ``studies.batch_size.steps_against_errors``):
    'median of the 5 datasets' medians' over several datasets (the dataset is the unit), else 'median'."""
    n = max((iv.datasets for r in rows for iv in r.get("intervals", ())), default=1)
    return f"median of the {n} datasets' medians" if n > 1 else "median"


def steps_words(rows, more_worse: int, decided: int, networks: str) -> str:
    """What the batch-size study's steps against errors show, as sentences: of the
    ``decided`` batch sizes (whose two runs took different numbers of steps), in
    ``more_worse`` the run with more steps has the larger median uₚ error of the
    ``networks`` networks, a count of medians; each ``rows``' interval comparison, and
    over-training only where every one of them shows it
    (``studies.batch_size.steps_against_errors``, ``more_steps_worse``)."""
    if not decided:
        return ("No batch size took different numbers of optimiser steps in its two runs, so these runs cannot "
                "tell whether more steps go with larger errors.")
    vs = [r["larger"] for r in rows if r["larger"] is not None]
    undecided = vs.count(Verdict.UNDECIDED)
    est = steps_estimate_words(rows)
    named = ("" if est == "median" else
             f"Each median of this table is the {est}, the estimate the verdicts compare (the dataset is the "
             "unit), not the median over all networks of the tables above, so the two differ. ")
    counted = named + (f"Of the {decided} batch size{'s' if decided != 1 else ''} whose two runs took different numbers "
               f"of optimiser steps, the run with more steps has the larger median error of uₚ ({networks} "
               f"networks) in {more_worse} (a description of the medians, not a verdict). Decided on the "
               f"interval of the difference of the two medians, its error is larger in "
               f"{vs.count(Verdict.AGREES)}, smaller in {vs.count(Verdict.DISAGREES)} and indistinguishable in "
               f"{vs.count(Verdict.INDISTINCT)}" + (f"; {undecided} cannot be decided (a run without a finite "
                                                    "error)" if undecided else "") + ".")
    if more_steps_worse(rows) is Verdict.AGREES:
        return (counted + " More optimiser steps thus went with a larger error at every such batch size, so on "
                "this benchmark training past the best point makes the forward solve worse (over-training), and a "
                "comparison after a fixed budget ranks the batch sizes partly by how far each trains past its best.")
    larger, smaller = vs.count(Verdict.AGREES), vs.count(Verdict.DISAGREES)
    if larger and not smaller:
        return (counted + f" Over-training shows at {larger} of the {decided} batch sizes, not at every one: the "
                          "larger error is resolved there and not elsewhere.")
    if larger and smaller:
        return counted + " The runs with more steps go both ways, so these runs show no single direction."
    return counted + " These runs therefore do not show more optimiser steps going with a larger error."


def failure_marks_words(boxes) -> str:
    """The caption's sentence on the counters ``panels.error_boxes`` draws (from ``boxes``), or that none is."""
    b = boxes.reset_index() if "quantity" in (boxes.index.names or []) else boxes
    b = b[b["quantity"] == "err_u_p"] if "quantity" in b else b        # a network counted once, not per error
    failed, diverged = int(b["failed"].sum()), int(b["diverged"].sum())
    drawn = ([f"failed forward solves ({failed}) at the top of the axes"] if failed else []) + (
        [f"diverged trainings ({diverged}) at the bottom"] if diverged else [])
    return f"Counted beside the boxes: {' and '.join(drawn)}." if drawn else "No forward solve failed and no training diverged."


def mislabelled_cells(pairs) -> str:
    """The published heat map's mislabelled cells (``studies.architecture.mislabelled_published_cells``)."""
    return "; ".join(f"the cell labelled V = {arch_label(lab)} shows V = {arch_label(shown)}"
                     for lab, shown in pairs) or "none"


def order_words(sign: int | None) -> str:
    """The sign of a comparison in words: "lower than", "the same as", "higher than" (None: "n/a")."""
    return "n/a" if sign is None else {-1: "lower than", 0: "the same as", 1: "higher than"}[sign]


def combination(combo) -> str:
    """A (D, V) pair of networks in words ("n/a" for None)."""
    return f"D {arch_label(combo[0])}, V {arch_label(combo[1])}" if combo else "n/a"


def same_combination(same: bool | None) -> str:
    """Whether two statistics pick the same (D, V) combination, in words ("n/a" for None)."""
    return word(same, "the same combination", "a different combination", "n/a")


def replicates_words(position: int | None) -> str:
    """Where a misfit lies against the experiments' variability (``scratch.misfit_against_replicates``)."""
    return {None: "n/a (every forward solve failed)", -1: "smaller than", 0: "within the range of",
            1: "larger than"}[position]


def literature_words(agrees: bool | None, shape: str = "") -> str:
    """An operator's ``shape`` against the literature's (``scratch.agrees_with_literature``), before that
    shape: 'is consistent with', 'is not consistent with', or (no common shape) 'does not consistently show'."""
    no_common = agrees is False and shape == "of no consistent shape"
    return "does not consistently show" if no_common else word(
        agrees, "is consistent with", "is not consistent with", "has no finite curve, so cannot be compared with")


def first_bias_words(bias, t, scale=1e3) -> str:
    """The forward solve inside the scratch at the first observation after the start, ahead
    of or behind the data (``bias``: ``scratch.scratch_bias``'s, per time ``t``)."""
    b = bias[1] if len(t) > 1 else np.nan
    if not np.isfinite(b):
        return "n/a"
    sign = "+" if b > 0 else ""       # written as the table of the chapter writes it, with its sign
    return (("ahead of" if b > 0 else "behind")
            + f" the data ({sign}{fmt(scale * b, plain_from=PLAIN_FROM)} × 10⁻³ cells/µm² at {t[1]:g} h)")


def growth_zero_words(zero: dict | None, scale=1e3) -> str:
    """Where the learned growth rate crosses zero (``scratch.growth_zero``), densities in
    1/``scale`` cells/µm²."""
    if zero is None:
        return "n/a (G not learned)"
    if zero["u"] is None:
        return f"nowhere in the plotted range (up to {scale * zero['top']:.3g} × 10⁻³ cells/µm²)"
    return (f"at u ≈ {scale * zero['u']:.3g} × 10⁻³ cells/µm², "
            f"{'inside' if zero['inside'] else 'above'} the observed range")


def _sentences(parts: list[str]) -> str:
    """``parts`` joined as sentences: each after the first starts with a capital (the first is left
    as it is, for a sentence the chapter begins); no final full stop."""
    return ". ".join(p if i == 0 else p[0].upper() + p[1:] for i, p in enumerate(parts))


def large_rate_words(curves: dict, shown: str) -> str:
    """How the validation loss behaves at the large learning rates against the rate
    ``shown`` (``curves``: ``studies.learning_rate.large_rate_curves``), in sentences of at most
    three numbers; each rate's roughness, final loss and largest rise are the chapter's table's."""
    stats, at_shown = curves["stats"], curves["shown"]
    erratic, stalled = curves["erratic"], curves["stalled"]
    calm = [k for k in curves["flat"] if k not in stalled]
    parts = []   # each "{}" is the subject: "the loss" in the first sentence, "it" after
    if erratic:
        parts.append(f"at r = {and_list(erratic)} {{}} is more erratic (rougher) than at r = {shown}")
    if calm:
        parts.append(f"at r = {and_list(calm)} {{}} is no more erratic than at r = {shown}")
    if stalled:
        times = list(dict.fromkeys(fmt(stats[k]["final"] / at_shown["final"], ".2g", plain_from=10) for k in stalled))
        high = (("at each rate " if len(stalled) > 1 else "") + f"its final value is {times[0]} times"
                if len(times) == 1 else f"its final value is {and_list(times)} times, respectively,")
        parts.append(f"at r = {and_list(stalled)} {{}} moves from one recorded epoch to the next no more than at "
                     f"r = {shown}")
        parts.append(f"but {high} that at r = {shown}; the roughness counts the typical step, "
                     "not a jump (the largest rise), so the optimisation stalled at a high loss rather than "
                     "fluctuating from step to step")
    out = [p.format("the loss" if i == 0 else "it") for i, p in enumerate(parts)]
    return (_sentences(out) or "no rate of 1e-2 or more was run") + "."


def learnt_from_curves(summary, curves: dict) -> str:
    """What the learning-rate study's validation losses teach (``summary``: the study's;
    ``curves``: ``studies.learning_rate.large_rate_curves``), as a sentence."""
    if summary.verdicts["small_still_falling"] is Verdict.AGREES:
        learnt = [f"a curve still falling at the end marks too small a rate (at r = {summary['smallest']} it "
                  f"{summary['late_change_small']} over the last quarter)"]
    elif summary.verdicts["small_still_falling"] is Verdict.DISAGREES:
        learnt = [f"at the smallest rate (r = {summary['smallest']}) the curve had levelled off, so too small a "
                  "rate did not show in it"]
    else:
        learnt = [f"at the smallest rate (r = {summary['smallest']}) the curve's change over the last quarter "
                  f"(it {summary['late_change_small']}) cannot be told apart from that at r = {summary['shown']} with "
                  "this many replicates"]
    if curves["erratic"]:
        learnt.append(f"an erratic curve marks too large a rate (r = {and_list(curves['erratic'])})")
    if curves["stalled"]:
        learnt.append(f"too large a rate can also leave the curve at a high level, without fluctuating from step "
                      f"to step (r = {and_list(curves['stalled'])}): a loss that ends far above the best run's is "
                      "the sign")
    return _sentences(learnt) + "."


def networks_words(which: str) -> str:
    """The networks a table reports (``sweep_record.reported()``), in words."""
    return "best-validation" if which == "best" else "final"


QUANTITY_WORDS = {"err_u_theta": "$u_\\theta$", "err_u_p": "$u_\\mathrm{p}$"}
NORM_WORDS = {"frobenius": "Frobenius", "spectral": "spectral"}


def runs_per_setting(df, by) -> str:
    """How many runs each value of ``by`` has in the table ``df``: '10', '9 to 10', or '0'."""
    if df.empty:
        return "0"
    n = df.groupby(by).size()
    return f"{n.min()}" if n.min() == n.max() else f"{n.min()} to {n.max()}"


def unobserved_words(u_range, u_grid) -> str:
    """The caption's sentence on the grey shading of the operator panels: what is shaded,
    or that nothing is (the data cover every value of u drawn)."""
    if unobserved_spans(u_range, u_grid):
        return "Grey: values of u outside the range the data cover, where the operators are not constrained."
    return "The data cover every value of u drawn, so no part of the operator panels is shaded."


def fired_against_truth(flags, errors: dict) -> str:
    """What the diagnostics of a fit with a known answer said, beside the operators' median
    relative errors against the truth (``errors``: {operator: error}), as a sentence that
    claims no more than the diagnostics can tell."""
    errs = and_list(f"{fmt(e)} ({k})" for k, e in errors.items())
    if flags:
        return (f"On this fit {and_list(f.replace('_', ' ') for f in flags)} fired; the operators' median relative "
                f"errors against the truth "
                f"are {errs}.")
    return (f"No diagnostic fired on this fit, yet the operators' median relative errors against the truth are "
            f"{errs}: the checks look at training and at consistency between the data, the learned solution and "
            "the forward solve, and a quiet report does not say how close the operators are to the truth.")


#: A command-line option in running text, with its value where one follows in capitals or digits
#: ("--epochs", "--forward-method BDF", "--lr 1e-3").
_FLAG = re.compile(r"(?<![\w`-])--[a-z][a-z-]*[a-z](?: (?:[A-Z][A-Z0-9]*|\d[\w.+-]*)\b)?")


def flags_as_code(md: str) -> str:
    """``md`` (Markdown) with each command-line option outside code set in code formatting, so
    that it reads and copies as typed ("--epochs", not the en dash a typesetter makes of "--")."""
    parts = md.split("`")
    return "`".join(_FLAG.sub(lambda m: f"`{m.group(0)}`", part) if i % 2 == 0 else part
                    for i, part in enumerate(parts))


#: The package's names of quantities as a reader reads them (Markdown; math where the book writes math).
CODE_WORDS = {"err_u_theta_obs": r"err($u_\theta$, obs)", "err_u_p_obs": r"err($u_\mathrm{p}$, obs)",
              "err_u_theta": r"error of $u_\theta$", "err_u_p": r"error of $u_\mathrm{p}$",
              "u_theta": r"$u_\theta$", "u_p": r"$u_\mathrm{p}$", "w_pde/w_data": r"$w_\mathrm{PDE}/w_\mathrm{data}$",
              "w_data": r"$w_\mathrm{data}$", "w_PDE": r"$w_\mathrm{PDE}$", "w_pde": r"$w_\mathrm{PDE}$",
              "L_PDE": r"$L_\mathrm{PDE}$", "L_data": r"$L_\mathrm{data}$", "tail_decades": "decades fallen late",
              "loss_balance": "loss balance"}
_CODE_NAME = re.compile(r"(?<![\w/.$\\-])(" + "|".join(re.escape(k) for k in sorted(CODE_WORDS, key=len, reverse=True))
                        + r")(?![\w/-])")


def in_words(md: str) -> str:
    """``md`` (Markdown) with the package's names of quantities ("u_theta", "err_u_p", "w_data")
    written as the book writes them ($u_\\theta$, "error of $u_\\mathrm{p}$"), outside code and math."""
    parts = re.split(r"(`[^`]*`|\$[^$]*\$)", md)
    return "".join(_CODE_NAME.sub(lambda m: CODE_WORDS[m.group(1)], part) if i % 2 == 0 else part
                   for i, part in enumerate(parts))


def paper_figure_words(number: int | None, extends: int | None = None, absent: str = "") -> str:
    """The start of a figure's caption: the paper's figure it repeats ("Paper's Fig. 18."),
    so that the book's own figure numbers are never taken for the paper's; for a figure
    with no counterpart, "Not in the paper." (``extends``: the paper's figure it adds to;
    ``absent``: why the paper has none)."""
    if number is not None:
        return f"Paper's Fig. {number}."
    why = [w for w in (absent, f"it extends the paper's Fig. {extends}" if extends else "") if w]
    return "Not in the paper" + (f" ({'; '.join(why)})" if why else "") + "."


def budget_row(run, same=None) -> str:
    """A batch-size table's row label: B and the epochs run, and where ``same`` (another run
    with the same best-validation networks, ``studies.batch_size.same_best_networks``) is
    given, which one."""
    label = f"$B$ = {meta_value(run, 'batch_size'):g} ({run.record.epochs_run:,} epochs"
    if same is not None:
        part = "fixed budget" if "budget_steps" in same.meta else "fixed epochs"
        label += f"; the networks of the {same.record.epochs_run:,}-epoch run, {part}"
    return label + ")"


def same_networks_words(same) -> str:
    """Why rows repeat other runs' numbers (``same``: per row, the run with the same
    best-validation networks, or None), as sentences ("" when none does)."""
    n = sum(s is not None for s in same)
    if not n:
        return ""
    return (f"{n} of these {len(same)} rows {'repeats' if n == 1 else 'repeat'} the errors of a run shown above "
            "exactly. Each such pair of runs trained the same initialisations for different numbers of epochs, and "
            "every replicate's lowest validation loss came before the shorter run ended, so both keep the same "
            "best-validation networks; their final networks differ (the column of the final networks).")


def timing_machine_words(timing: dict) -> str:
    """Where and how the timing benchmark ran, e.g. 'x86_64, 2 cores, torch 2.13.0+cpu, load average 1.2'."""
    load = timing.get("load_average")
    return (f"{timing['machine']}, {timing.get('cores', '?')} cores, torch {timing['torch']}"
            + (f", load average {load:.1f} while it ran" if load is not None else ""))


def budget_table(budget_epochs_run: dict, timing: dict, epochs_by_minutes: dict, theirs: dict | None = None) -> str:
    """What the paper's wall-clock budget is in our runs, one row per batch size: the epochs of our
    fixed-step budget (``budget_epochs_run``: {B: epochs}), the time per step on the timing
    benchmark's machine (``timing``: ``studies.batch_size.timing()``), the epochs that
    ``epochs_by_minutes`` ({minutes: {B: epochs}}) of it would give and, where given, the epochs
    the authors' own timings make their ten minutes (``theirs``: {B: epochs}) (Markdown)."""
    names = {5: "the paper's five minutes", 10: "the authors' ten minutes"}
    per_step = {r["B"]: r["ms_per_step"] for r in timing["batch_sizes"]}
    Bs = sorted(set(per_step) | set(budget_epochs_run))
    head = ["$B$", "epochs of our fixed-step budget", "time per step on the timing machine (ms)"] + [
        f"epochs in {names.get(m, f'{m:g} minutes')} there" for m in epochs_by_minutes]
    head += ["epochs in the authors' ten minutes by their own timings"] if theirs else []
    rows = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for b in Bs:
        cells = [str(b), f"{budget_epochs_run[b]:,}" if b in budget_epochs_run else "not run",
                 fmt(per_step[b], ".2g") if b in per_step else "not timed"]
        cells += [f"{e[b]:,.0f}" if b in e else "not timed" for e in epochs_by_minutes.values()]
        cells += [f"{theirs[b]:,.0f}" if b in theirs else "not run by them"] if theirs else []
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def folded_html(summary: str, body: str) -> str:
    """HTML folded under a line of ``summary`` (a details element: the reader opens it)."""
    return f'<details class="folded"><summary>{html.escape(summary)}</summary>{body}</details>'


#: The words of each kind of ``studies.base.Phrase`` a study's drawing asks its caption for.
PHRASES = {"unobserved": unobserved_words, "budget": budget_words, "failure_marks": failure_marks_words}


def phrase(says) -> str:
    """What a caption's slot says (``studies.base.Drawing.says``): a sentence as it is, a ``Phrase``
    in the words of its kind."""
    return says if isinstance(says, str) else PHRASES[says.kind](*says.args)
