"""Our runs beside the authors' archived ones (``binn_utils.analysis.authors_archive``): the
chapters' figure of both sources' errors per setting, every run a dot and the median with
the interquartile range a marker and bar, from the long table and its group-by that the
chapter computes (``binn_utils.analysis.results_table``); and the tables and sentences that
compare them (the ratio of medians; whether theirs is one more dataset of ours)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import plotting
from ..analysis import results_table
from ..analysis.reporting import and_list, fmt, value_label
from .drawn_data import tag
from .panels import ABOVE
from .plotting import COLORS
from .tables import NORM_WORDS, QUANTITY_WORDS


#: (source, data) -> how its runs are drawn: ours on our data, ours on the authors' data, the authors' own
SOURCE_STYLE = {("ours", "ours"): dict(marker="o", offset=-0.22, filled=True),
                ("ours", "authors"): dict(marker="D", offset=0.0, filled=True),
                ("authors", "authors"): dict(marker="s", offset=0.22, filled=False)}


def authors_comparison_figure(runs, stats, by, panels, label_fn=value_label, xlabel="",
                              authors_label="authors' archive", ours_label="ours",
                              ours_on_theirs_label="ours on the authors' data", width=10.0, height=3.9):
    """Our runs beside the authors' archived ones, one panel per (quantity, norm) of
    ``panels``: for each value of the column(s) ``by``, every run as a dot (``runs``: the
    long table of ``results_table.long``), and the median with the interquartile range as a
    marker and bar (``stats``: ``runs`` grouped by ``by``, source, data, quantity and norm,
    with ``describe()``'s columns "count", "25%", "50%", "75%").  Ours on our data left
    (filled circles), ours on the authors' data (``data == "authors"``, where ``runs`` has
    them) in the middle (filled diamonds), the authors' right (open squares).  ``label_fn``: a value of ``by`` (a tuple for several columns)
    -> its tick label."""
    by = [by] if isinstance(by, str) else list(by)

    def keys(df):
        return list(zip(*(df[c] for c in by))) if len(by) > 1 else list(df[by[0]])

    values = sorted(set(keys(runs)))
    pos = {v: i for i, v in enumerate(values)}
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, height * len(panels)), squeeze=False)
    for ax, (quantity, norm) in zip(axes[:, 0], panels):
        color = COLORS["u_theta" if quantity == "err_u_theta" else "u_p"]
        labels = {("ours", "ours"): ours_label, ("ours", "authors"): ours_on_theirs_label,
                  ("authors", "authors"): authors_label}
        for (source, data), style in SOURCE_STYLE.items():
            sel = runs[(runs["source"] == source) & (runs["data"] == data) & (runs["quantity"] == quantity)
                       & (runs["norm"] == norm)]
            st = stats[(stats["source"] == source) & (stats["data"] == data) & (stats["quantity"] == quantity)
                       & (stats["norm"] == norm)]
            st = st[st["count"] > 0]
            if sel.empty and st.empty:
                continue
            x = np.array([pos[k] for k in keys(sel)], float) + style["offset"]
            xs = np.array([pos[k] for k in keys(st)], float) + style["offset"]
            label = labels[source, data]
            tag(ax.plot(x, sel["value"], ".", color=color, alpha=0.35, ms=4, zorder=2)[0], "each run", label)
            ax.errorbar(xs, st["50%"], yerr=[st["50%"] - st["25%"], st["75%"] - st["50%"]], fmt=style["marker"],
                        color=color, mfc=color if style["filled"] else "white", mec=color, ms=7, capsize=3,
                        lw=1.3, zorder=3, label=label)
        ax.set_yscale("log")
        plotting.plain_log_ticks(ax)
        ax.set_xticks(range(len(values)))
        ticks = [label_fn(v) for v in values]
        slot_pt = 72 * 0.85 * width / len(values)  # the axes take about 85 % of the width
        ax.set_xticklabels(ticks, fontsize=plotting.fitted_size(fig, ticks, plt.rcParams["font.size"] - 1,
                                                                plotting.CELL_FILL * slot_pt))
        ax.set_xlim(-0.6, len(values) - 0.4)
        ax.set_ylabel(f"rel. error of {QUANTITY_WORDS[quantity]}\n({NORM_WORDS[norm]} norm)")
        ax.set_xlabel(xlabel)
        ax.legend(**ABOVE)
    fig.tight_layout()
    return fig


#: whose data our runs of an ``against_datasets`` table were trained on, in words
DATA_WORDS = {"ours": "our data", "authors": "the authors' data"}
#: what varies between the "datasets" of our runs on each data
UNIT_WORDS = {"ours": ("dataset", "datasets"), "authors": ("split", "splits")}


#: the columns of ``results_table.against_datasets`` that are not the setting's
AGAINST_COLUMNS = ("datasets", "inits", "failed", "median_ours", "median_authors", "n_authors", "ratio",
                   "range_lo", "range_hi", "p", "beyond")


def _failed(r) -> str:
    return f" ({r['failed']} failed)" if r["failed"] else ""


def resolvable_factor(r) -> float:
    """The smallest factor either way by which one ``against_datasets`` row could have told the
    authors' runs from ours: the wider side of the range that datasets and initialisations alone give."""
    return float(max(r["range_hi"], 1 / r["range_lo"]))


def ran(r) -> bool:
    """Whether our runs hold the setting of one ``results_table.against_datasets`` row (a setting
    only the authors ran has no dataset of ours)."""
    return bool(r.get("datasets", 1))


def against_cell(r) -> str:
    """One row of ``results_table.against_datasets`` (or of the printed figure's table) as a table
    cell: ours / authors with the range that datasets and initialisations alone give, marked where
    the ratio lies beyond it; where the authors ran the setting once and it does not, "not
    comparable beyond N x" (issue 47: a single run inside a wide range is no agreement)."""
    if not np.isfinite(r["ratio"]):
        return "n/a" if ran(r) else "not run"
    cell = f"{fmt(r['ratio'])} ({fmt(r['range_lo'])} to {fmt(r['range_hi'])})"
    if r["beyond"]:
        return f"**{fmt(r['ratio'])}: beyond its range ({fmt(r['range_lo'])} to {fmt(r['range_hi'])})**"
    if r.get("n_authors", 0) == 1 and np.isfinite(r.get("p", np.nan)):   # (the range said as its factor)
        return f"{fmt(r['ratio'])}: not comparable beyond {fmt(resolvable_factor(r))}x"
    return cell


def on_authors_data_words(on_theirs) -> str:
    """The caption's sentence on the filled diamonds: our runs on the authors' rebuilt data
    (``on_theirs``: their results table), or nothing where none are stored."""
    if on_theirs.empty:
        return "None of these settings is stored trained on the authors' own data."
    splits = on_theirs["dataset"].nunique()
    inits = int(on_theirs.groupby(["setting", "dataset", "checkpoint", "norm"]).size().median())
    return (f"Filled diamonds: the same settings trained on the authors' own data (their clean solution and "
            f"noise draw; {splits} random splits of them x {inits} initialisations, as their split is lost).")


def against_datasets_table(by_data: dict, label_fn) -> str:
    """Markdown table of ``results_table.against_datasets``'s rows for each data our runs were
    trained on (``by_data``: {"ours" | "authors": table}; the same settings in the same order):
    per setting and quantity the authors' median, and per data our typical dataset's median
    (with our failed runs, if any) and the ratio of the two with the range that datasets (or
    splits) and initialisations alone give, simultaneous over the rows; a ratio outside its
    range is marked.  ``label_fn(row)``: the setting's words."""
    first = next(iter(by_data.values()))
    keys = [c for c in first.columns if c not in AGAINST_COLUMNS]
    for d, t in by_data.items():
        if not t[keys].reset_index(drop=True).equals(first[keys].reset_index(drop=True)):
            raise ValueError(f"the table of {d!r} has other settings than the first")
    heads = [f"ours: {typical_words(t)}, {DATA_WORDS[d]} ({t['datasets'].max()} "
             f"{UNIT_WORDS[d][int(t['datasets'].max() != 1)]} x {t['inits'].max()}) | ours / authors (range)"
             for d, t in by_data.items()]
    theirs = "authors: their one run" if (first["n_authors"] <= 1).all() else "authors: median"
    out = [f"| setting | error | {theirs} | " + " | ".join(heads) + " |",
           "|---|---|---|" + "---|---|" * len(heads)]
    for i, r in first.iterrows():
        cells = [f"{fmt(t.iloc[i]['median_ours'])}{_failed(t.iloc[i])} | {against_cell(t.iloc[i])}"
                 if ran(t.iloc[i]) else "not run | -" for t in by_data.values()]
        out.append(f"| {label_fn(r)} | {QUANTITY_WORDS[r['quantity']]} | {fmt(r['median_authors'])} | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


def typical_words(t) -> str:
    """What our column of an ``against_datasets`` table ``t`` holds: 'typical run' where the authors
    ran each setting once (``median_ours``: the exponential of our mean log error), 'typical dataset
    median' where they ran several (that of our datasets' log medians)."""
    single = t["n_authors"] <= 1
    return "typical run" if single.all() else "typical dataset median" if not single.any() else \
        "typical run or dataset median"


#: what our typical run and dataset median are, said once under the comparison table
TYPICAL_MEANS = {"typical run": "our typical run is the exponential of the mean log error of our runs, each "
                                "dataset weighing alike (the mean over datasets of each dataset's mean log error)",
                 "typical dataset median": "our typical dataset median is the exponential of the mean of our "
                                           "datasets' log medians"}


def typical_sentence(by_data: dict) -> str:
    """The sentence that says what 'typical' means in the comparison table of ``by_data`` and the
    direction of its ratio (ours / authors, as every ratio of the book)."""
    shown = {typical_words(t) for t in by_data.values()}
    said = " and ".join(TYPICAL_MEANS[k] for k in TYPICAL_MEANS
                        if k in shown or "typical run or dataset median" in shown)
    return (f"In this table {said}, not the median over all networks given elsewhere, and each ratio is our "
            "error over the authors' (ours / authors).")


def against_datasets_words(by_data: dict) -> str:
    """The table's finding in sentences: what our 'typical' column holds and the ratio's direction
    (:func:`typical_sentence`), then one per data: in how many of its comparisons the
    authors' median lies beyond what datasets (splits) and initialisations explain, and how
    large a difference had to be to be seen there."""
    out = [typical_sentence(by_data)]
    for d, t in by_data.items():
        unit, units = UNIT_WORDS[d]
        if not np.isfinite(t["p"]).any():      # too few datasets of ours to say what one more would give
            single = (t["n_authors"] <= 1).all()
            out.append(f"Trained on {DATA_WORDS[d]}, our runs are on {t['datasets'].max()} {unit if t['datasets'].max() == 1 else units}: "
                       f"too few to say where one {'run' if single else 'median'} of one more {unit} would fall "
                       f"(it takes {3 if single else 2}), so none of these comparisons is tested.")
            continue
        t = t[np.isfinite(t["p"])]
        k, n = int(t["beyond"].sum()), len(t)
        widths = t["range_hi"]
        seen = (f"a difference was visible only where it exceeded its range (95 % for all of them together), a "
                f"factor of {fmt(widths.min())} to {fmt(widths.max())} either way")
        one = (t["n_authors"] == 1).all()          # the authors ran each setting once: against one run of ours
        what = "single run" if one else "median"
        # at most three numbers a sentence: the spread of the ratio, then its median and the count, then the reach
        out.append(f"Trained on {DATA_WORDS[d]} ({t['datasets'].max()} {units}), our typical {'run' if one else 'median'} "
                   f"is {fmt(t['ratio'].min())} to {fmt(t['ratio'].max())} times the authors' {what}.")
        out.append(f"The median ratio is {fmt(t['ratio'].median())}, and their {what} lies beyond what {units} and "
                   f"initialisations explain in " + (f"none of the {n} comparisons." if k == 0 else f"{k} of the {n} comparisons."))
        out.append(("A" if k == 0 else "Elsewhere a") + seen[1:] + ".")
    return " ".join(out)


#: the columns of the chapter's table of the printed figure's medians against ours, per grid and level
PRINTED_COLUMNS = ("grid", "noise_var", "datasets", "inits", "median_ours", "printed", "ratio", "range_lo",
                   "range_hi", "beyond")
#: how each grid's runs are drawn beside the printed figure's medians
GRID_STYLE = {71: dict(marker="o", offset=-0.15), 351: dict(marker="D", offset=0.15)}


def printed_grid_figure(dataset_medians, printed_vs, width=7.0, height=3.6):
    """Our median error of each dataset on each grid (a dot; ``dataset_medians``: a Series indexed
    by grid, noise variance and dataset), our typical dataset's median with the range in which the
    printed figure's median would lie (a marker and bar: ``printed_vs``'s ``median_ours`` times
    ``range_lo`` and ``range_hi``) and the printed figure's median (a black cross), per noise level."""
    levels = sorted(printed_vs["noise_var"].unique())
    pos = {v: i for i, v in enumerate(levels)}
    fig, ax = plt.subplots(figsize=(width, height))
    if printed_vs.empty:
        ax.text(0.5, 0.5, "no run of the printed figure's network stored", ha="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    for grid, style in GRID_STYLE.items():
        rows = printed_vs[printed_vs["grid"] == grid]
        if rows.empty:
            continue
        dots = dataset_medians.xs(grid, level="grid")
        tag(ax.plot([pos[nv] + style["offset"] - 0.09 for nv in dots.index.get_level_values("noise_var")],
                    dots.to_numpy(), ".", color=COLORS["u_theta"], alpha=0.5, ms=4, zorder=2)[0],   # beside the marker
            "each dataset's median", f"ours, {grid} points")
        x = rows["noise_var"].map(pos) + style["offset"]
        m = rows["median_ours"]
        ax.errorbar(x, m, yerr=[m - m * rows["range_lo"], m * rows["range_hi"] - m], fmt=style["marker"],
                    color=COLORS["u_theta"], mfc="white" if grid == 351 else COLORS["u_theta"], ms=7, capsize=3,
                    lw=1.3, zorder=3, label=f"ours, {grid} points")
    first = printed_vs.drop_duplicates("noise_var")
    ax.plot(first["noise_var"].map(pos), first["printed"], "x", color="black", ms=9, mew=2, zorder=4,
            label="printed Fig. 2")
    ax.set_yscale("log")
    plotting.plain_log_ticks(ax)
    ax.set_xticks(range(len(levels)))
    ax.set_xticklabels([value_label(v) for v in levels])
    ax.set_xlim(-0.6, len(levels) - 0.4)
    ax.set_xlabel(r"noise variance $\sigma^2$")
    ax.set_ylabel(f"median rel. error of {QUANTITY_WORDS['err_u_theta']}")
    ax.legend(**ABOVE)
    fig.tight_layout()
    return fig


def printed_grid_table(printed_vs) -> str:
    """Markdown table: per noise level the printed median and, per grid, our typical dataset's
    median (datasets x initialisations) and ours / printed with the range of the printed median
    (a median over ten more datasets: ``results_table.one_more_dataset``; simultaneous over the
    table's cells); a ratio beyond its range is marked."""
    grids = sorted(printed_vs["grid"].unique())
    out = ["| $\\sigma^2$ | printed median | " + " | ".join(
        f"ours, {g} points: median | ours / printed (range)" for g in grids) + " |",
        "|---|---|" + "---|---|" * len(grids)]
    for nv, rows in printed_vs.groupby("noise_var"):
        cells = []
        for g in grids:
            r = rows[rows["grid"] == g]
            cells.append("not run | n/a" if r.empty else
                         f"{fmt(r.iloc[0]['median_ours'])} ({r.iloc[0]['datasets']} x {r.iloc[0]['inits']}) | "
                         f"{against_cell(r.iloc[0])}")
        out.append(f"| {value_label(nv)} | {fmt(rows.iloc[0]['printed'])} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def printed_grid_runs(printed_vs) -> str:
    """The caption's runs of the printed-grid figure, per grid: 'Runs: 71 points, 10 datasets x
    10 initialisations; 351 points, 5 datasets x 10 initialisations.' (a range of datasets where
    the noise levels of a grid differ)."""
    parts = []
    for g, t in printed_vs.groupby("grid"):
        lo, hi = int(t["datasets"].min()), int(t["datasets"].max())
        parts.append(f"{g} points, {lo if lo == hi else f'{lo} to {hi}'} datasets x {int(t['inits'].max())} "
                     "initialisations")
    return f"Runs: {'; '.join(parts)}." if parts else "Runs: none stored."


def _levels_beyond(t) -> str:
    """'none of its 5 noise levels' or '1 of its 5 noise levels (noise variance 0)': where a grid's
    printed medians lie beyond the range of one more dataset of ours."""
    k, n = int(t["beyond"].sum()), len(t)
    if k == 0:
        return f"none of its {n} noise levels"
    where = ", ".join(value_label(v) for v in t.loc[t["beyond"], "noise_var"])
    return f"{k} of its {n} noise levels (noise variance{'s' if k > 1 else ''} {where})"


def printed_grid_words(printed_vs, levels) -> str:
    """The table's finding, from the table: per grid, how the printed medians compare with ours
    and at how many of the noise levels ``levels`` they lie beyond what datasets and
    initialisations explain; then, over the levels run on both grids, which grid's runs the
    printed figure is consistent with (all its medians at once, as the table's range holds them)
    and, for the other grid, where it departs from them. (Which runs the authors' plotting
    notebook draws is a fact of their code, stated once in the errata; this is what the numbers say.)"""
    out = []
    for grid, t in printed_vs.groupby("grid"):
        out.append(f"On the {grid}-point grid our typical dataset's median is {fmt(t['ratio'].min())} to "
                   f"{fmt(t['ratio'].max())} times the printed one.")
        out.append(f"The printed medians lie beyond what datasets and initialisations explain at {_levels_beyond(t)}"
                   + ("" if len(t) == len(levels) else f"; {len(levels) - len(t)} of the {len(levels)} levels "
                      f"{'is' if len(levels) - len(t) == 1 else 'are'} not run on it") + ".")
    missing = [g for g in GRID_STYLE if g not in set(printed_vs["grid"])]
    if len(missing) == len(GRID_STYLE):
        return "No run of the printed figure's network is stored on either grid."
    out += [f"No {g}-point run of this network at these noise levels is stored." for g in missing]
    if missing:                                     # a grid not run: nothing to conclude between grids
        return " ".join(out)
    common = set.intersection(*(set(t["noise_var"]) for _, t in printed_vs.groupby("grid")))
    if not common:
        return " ".join(out + ["No noise level is run on both grids, so they cannot be compared."])
    both = printed_vs[printed_vs["noise_var"].isin(common)]
    fits = [g for g, t in both.groupby("grid") if not t["beyond"].any()]
    where = ("at every noise level" if len(common) == len(levels) else
             f"at the {len(common)} noise levels run on both grids ({', '.join(value_label(v) for v in sorted(common))})")
    if len(fits) == 1:
        other = next(g for g, _ in both.groupby("grid") if g != fits[0])
        t = both[both["grid"] == other]
        out.append(f"So the printed figure is consistent with our {fits[0]}-point runs {where}.")
        out.append(f"It is not consistent with our {other}-point runs taken together.")
        out.append(f"It departs from them at {_levels_beyond(t).replace('its ', 'the ')}"
                   + (" and agrees with them at the others" if t["beyond"].sum() < len(t) else "") + ".")
    elif fits:
        out.append(f"The printed figure is consistent {where} with our runs on both grids, so these medians cannot "
                   "tell which grid it shows.")
    else:
        out.append(f"On neither grid are all the printed medians consistent with our runs {where}.")
    return " ".join(out)


def ratio_verdict_words(r, margin: float | None = None, *, said: bool = False) -> str:
    """A figure's decision (``results_table.figure_ratio``'s row ``r``) in words: equivalent
    within the margin, differs, or cannot be told, with the ratio beyond which this design
    rules a difference out; not tested below three datasets (``margin`` None: the package's;
    ``said``: the margin was stated before, so it is called "the margin" and the ratio it
    rules out is left to the next sentence, :func:`rule_out_words`)."""
    margin = results_table.EQUIVALENCE_MARGIN if margin is None else margin
    within = "the margin" if said else f"{fmt(margin)}x"
    if not np.isfinite(r["ratio"]):
        return "not tested (fewer than 3 datasets)"
    if r["verdict"] == results_table.EQUIVALENT:
        return f"equivalent within {within}"
    if r["verdict"] == results_table.DIFFERS:
        return "differs"
    return f"cannot be told within {within}" + ("" if said else "; " + rule_out_words(r, interval=False).lower())


def rule_out_words(r, interval: bool = True) -> str:
    """What a figure's undecided ratio (``figure_ratio`` row ``r``) could still rule out, and (with
    ``interval``) by which interval; without it where the text beside says so (:data:`RATIO_RULE`)."""
    return f"Only a difference beyond {fmt(r['rule_out'])}x is ruled out" + (" (by its 90 % interval)" if interval else "")


def ratio_cell(r) -> str:
    """'ratio [lo, hi]' of a ``figure_ratio`` row (ours / theirs, its 95 % interval)."""
    return "n/a" if not np.isfinite(r["ratio"]) else f"{fmt(r['ratio'])} [{fmt(r['lo'])}, {fmt(r['hi'])}]"


def _error_words(r) -> str:
    return QUANTITY_WORDS[r["quantity"]] + ("" if r["norm"] == "frobenius" else f" ({NORM_WORDS[r['norm']]} norm)")


def figure_ratio_words(by_data: dict) -> str:
    """The chapter's sentences on its figure beside the authors' runs, pooled over its settings:
    per data our runs were trained on (``by_data``: {"ours" | "authors": ``figure_ratio`` table})
    and error, ours / theirs with its 95 % interval and the decision at the margin (the chapter
    states both before the table), and what an undecided ratio rules out; at most three
    numbers a sentence."""
    out = []
    for d, t in by_data.items():
        led = False                  # the data and the pooling said once, in its first sentence
        for _, r in t.iterrows():
            units = UNIT_WORDS[d][1]
            if not np.isfinite(r["ratio"]):
                out.append(f"On {DATA_WORDS[d]}, our {_error_words(r)} error is not pooled against the authors': "
                           f"it takes 3 {units}, and {r['datasets']} are stored.")
                continue
            lead = ("Our" if led else f"On {DATA_WORDS[d]} ({r['datasets']} {units}), pooled over the figure's "
                                      f"{r['settings']} settings, our")
            led = True
            out.append(f"{lead} {_error_words(r)} error is {ratio_cell(r)} times the authors': "
                       f"{ratio_verdict_words(r, said=True)}.")
            if r["verdict"] == results_table.UNRESOLVED:
                out.append(rule_out_words(r) + ".")
    return " ".join(out)


def figure_ratio_table(by_data: dict) -> str:
    """Markdown table of a figure's ``figure_ratio`` rows, one row per error, one column pair per data."""
    keys = [(r["quantity"], r["norm"]) for t in by_data.values() for _, r in t.iterrows()]
    keys = list(dict.fromkeys(keys))
    if not keys:
        return "The authors archived none of these errors."
    heads = " | ".join(f"ours / authors [95 % interval], {DATA_WORDS[d]} | decision" for d in by_data)
    out = [f"| error | {heads} |", "|---|" + "---|---|" * len(by_data)]
    for q, norm in keys:
        cells = []
        for t in by_data.values():
            r = t[(t["quantity"] == q) & (t["norm"] == norm)] if not t.empty else t
            cells.append("n/a | not stored" if r.empty else f"{ratio_cell(r.iloc[0])} | {ratio_verdict_words(r.iloc[0])}")
        out.append(f"| {_error_words({'quantity': q, 'norm': norm})} | " + " | ".join(cells) + " |")
    return "\n".join(out)


#: Under a table of pooled ratios: which interval each decision reads (``results_table.figure_ratio``).
RATIO_RULE = ("Each ratio is shown with its 95 % interval, which decides a difference (it excludes 1). "
              "Equivalence is decided on the 90 % interval (two one-sided tests at 5 %): it must lie within "
              "the margin either way. What an undecided ratio rules out is read from that narrower interval too. "
              "So a ratio can be equivalent while its 95 % interval reaches past the margin, and a difference "
              "can be ruled out that the 95 % interval still holds.")


# ----------------------------------------------------------------------------- the answer's agreement
def _figure_errors(t) -> list[str]:
    return [f"Fig. {r['figure']} {QUANTITY_WORDS[r['quantity']]}" for _, r in t.iterrows()]


def fidelity_sentence(f) -> str:
    """Whether our runs are the authors': for each data our runs were trained on, which figures'
    errors (pooled over the figure's settings, ours / theirs) are equivalent to the authors'
    within the margin, which differ and which cannot be told (``scorecard.fidelity``'s rows;
    the numbers are in :func:`fidelity_table_md`)."""
    parts = []
    for d in ("ours", "authors"):
        t = f.of(d)
        t = t[np.isfinite(t["ratio"].to_numpy(float))]
        if t.empty:
            continue
        groups = [(results_table.EQUIVALENT, f"equivalent within {fmt(f.margin)}x"),
                  (results_table.DIFFERS, "different"), (results_table.UNRESOLVED, f"cannot be told within {fmt(f.margin)}x")]
        said = [f"{words}, {and_list(_figure_errors(t[t['verdict'] == v]))}" for v, words in groups
                if (t["verdict"] == v).any()]
        parts.append(f"on {DATA_WORDS[d]}: " + "; ".join(said))
    if not parts:
        return ""
    return ("Set beside the authors' own archived runs, with each figure's errors pooled over its settings (ours "
            "divided by theirs; the table below gives each ratio), " + "; and ".join(parts) + ".")


def fidelity_table_md(f) -> str:
    """Each archived figure's error, ours / theirs with its 95 % interval and the decision, on
    our data and on the authors' (MyST table)."""
    keys = f.ratios[["figure", "quantity"]].drop_duplicates()
    datas = [d for d in ("ours", "authors") if not f.of(d).empty]
    out = ["| figure | error | " + " | ".join(f"ours / authors [95 % interval], {DATA_WORDS[d]} | decision"
                                              for d in datas) + " |",
           "|---|---|" + "---|---|" * len(datas)]
    for _, k in keys.iterrows():
        cells = []
        for d in datas:
            r = f.of(d)
            r = r[(r["figure"] == k["figure"]) & (r["quantity"] == k["quantity"])]
            cells.append("n/a | not stored" if r.empty else
                         f"{ratio_cell(r.iloc[0])} | {ratio_verdict_words(r.iloc[0])}")
        out.append(f"| Fig. {k['figure']} | {QUANTITY_WORDS[k['quantity']]} | " + " | ".join(cells) + " |")
    return "\n".join(out + ["", RATIO_RULE])

