"""Fig. 6's budget bracketed (``studies.authors_budget``): how many epochs the authors' ten
minutes reached is not archived, so the batch-size chapter sets our runs after the upper and
the lower bracket of that budget beside the authors' single runs, per batch size where the
brackets differ and pooled over the figure (``results_table.against_datasets``,
``results_table.figure_ratio``), on each data our runs were trained on; and what the paper's
five minutes are in optimiser steps on the timing benchmark's machine (:func:`five_minutes_words`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import results_table
from ..analysis.reporting import and_list, fmt
from .authors_figures import DATA_WORDS, UNIT_WORDS, against_cell, ratio_cell, ratio_verdict_words, resolvable_factor
from .tables import QUANTITY_WORDS

#: the brackets in the order the chapter shows them
BRACKETS = ("upper", "lower")


def lower_figure(upper: pd.DataFrame, lower: pd.DataFrame) -> pd.DataFrame:
    """The figure's runs under the lower bracket (results tables): ``lower``'s at its batch sizes,
    ``upper``'s at the others (where the two budgets are the same or within 10 %); an empty
    table where ``lower`` is (not stored)."""
    if lower.empty:
        return lower
    return pd.concat([upper[~upper["batch_size"].isin(set(lower["batch_size"]))], lower], ignore_index=True)


def compare(upper: dict, lower: dict, theirs: pd.DataFrame) -> dict:
    """{data: {bracket: (figure_ratio table, against_datasets table, the figure's runs)}} for each
    data ("ours", "authors") with runs under the upper bracket (``upper``, ``lower``: {data:
    results table}); a bracket whose runs are not stored is left out."""
    out = {}
    for d, up in upper.items():
        if up.empty:
            continue
        figs = {"upper": up, "lower": lower_figure(up, lower.get(d, up.iloc[:0]))}
        out[d] = {b: (results_table.figure_ratio(f, theirs, "batch_size"),
                      results_table.against_datasets(f, theirs, "batch_size"), f)
                  for b, f in figs.items() if not f.empty}
    return out


def bracketed_sizes(by_data: dict) -> list[int]:
    """The batch sizes where the lower bracket's runs differ from the upper's (those it trains)."""
    sizes = set()
    for brackets in by_data.values():
        if "lower" in brackets:
            f = brackets["lower"][2]
            sizes |= set(f.loc[f["study"] != brackets["upper"][2]["study"].iloc[0], "batch_size"].astype(int))
    return sorted(sizes)


def _row(t: pd.DataFrame, b: int, q: str):
    hit = t[(t["batch_size"] == b) & (t["quantity"] == q)]
    return hit.iloc[0] if len(hit) else None


def _epochs(f: pd.DataFrame, b: int) -> str:
    e = f.loc[f["batch_size"] == b, "epochs"]
    return f"{int(e.iloc[0]):,}" if len(e) else "n/a"


def table_md(by_data: dict) -> str:
    """Markdown table: per data, bracketed batch size, error and bracket, the authors' one run,
    our epochs, our typical run and ours / authors against one run of one more dataset, the
    chapter's other comparison tables' cell (``against_datasets``'s estimand and direction;
    a row per bracket, so that the table fits the page).  A bracket not stored on a data has no
    row: :func:`words` says so."""
    sizes = bracketed_sizes(by_data)
    if not sizes:
        return ""
    out = ["| data | $B$ | error | authors' run | bracket | epochs | our typical run | ours / authors (range) |",
           "|---|---|---|---|---|---|---|---|"]
    for d, brackets in by_data.items():
        for b in sizes:
            for q in ("err_u_theta", "err_u_p"):
                first = _row(brackets["upper"][1], b, q)
                if first is None:
                    continue
                lead = f"| {DATA_WORDS[d]} | {b} | {QUANTITY_WORDS[q]} | {fmt(first['median_authors'])} |"
                for k in (k for k in BRACKETS if k in brackets):   # a bracket not stored: said under the table
                    _, against, f = brackets[k]
                    r = _row(against, b, q)
                    out.append(f"{lead} {k} | {_epochs(f, b)} | {fmt(r['median_ours'])} | {against_cell(r)} |")
                    lead = "| | | | |"
    return "\n".join(out)


def _per_run_words(by_data: dict, sizes) -> str:
    rows = [r for brackets in by_data.values() for k in brackets
            for _, r in brackets[k][1][brackets[k][1]["batch_size"].isin(sizes)].iterrows() if np.isfinite(r["p"])]
    if not rows:
        return ""
    n = [resolvable_factor(r) for r in rows if not r["beyond"]]
    k = sum(bool(r["beyond"]) for r in rows)
    found = (f"none of these {len(rows)} comparisons (each error, bracket and data) finds a difference" if k == 0 else
             f"{k} of these {len(rows)} comparisons (each error, bracket and data) find a difference")
    rest = "Each" if k == 0 else "Each of the others"
    return ("Each of the authors' runs at these batch sizes is one run, set against one run of one "
            f"more dataset (or split) of ours: {found}." + (f" {rest} is not comparable beyond {fmt(min(n))} to "
                                                           f"{fmt(max(n))}x, the range that datasets and initialisations "
                                                           "alone give one run." if n else ""))


def words(by_data: dict) -> str:
    """The chapter's sentences on the bracket (its numbers in :func:`table_md`): the figure's
    ratio ours / theirs pooled over its batch sizes with its decision under each bracket, per
    data and error, and how far the authors' single runs at the bracketed batch sizes can be told
    apart from ours; at most three numbers a sentence."""
    sizes = bracketed_sizes(by_data)
    if not sizes:
        return "Our runs after the lower bracket are not stored, so only the upper bracket is compared here."
    out = []
    for d, brackets in by_data.items():
        if "lower" not in brackets:
            out.append(f"On {DATA_WORDS[d]} our runs after the lower bracket are not stored.")
            continue
        up = brackets["upper"][0]
        out.append(f"Trained on {DATA_WORDS[d]} ({up['datasets'].max()} {UNIT_WORDS[d][1]}), our errors are pooled "
                   f"over the figure's {int(up['settings'].max())} batch sizes, as in the figure's ratio above.")
        for q in ("err_u_p", "err_u_theta"):
            for k in BRACKETS:
                r = brackets[k][0][brackets[k][0]["quantity"] == q]
                if len(r):
                    out.append(f"Under the {k} bracket our {QUANTITY_WORDS[q]} error is {ratio_cell(r.iloc[0])} "
                               f"times the authors' ({ratio_verdict_words(r.iloc[0])}).")
    return " ".join(out + [_per_run_words(by_data, sizes)]).strip()


#: minutes in words, as the paper and the chapter say them
MINUTES_WORDS = {5: "five", 10: "ten"}


def five_minutes_words(timing: dict, budget_steps: int, minutes: float = 5) -> str:
    """What ``minutes`` of the timing benchmark's trainer (``studies.batch_size.timing()``) are in
    optimiser steps at its smallest and largest batch size, what the time per step leaves out (the
    epoch's validation, which the benchmark's time per epoch holds) and how our fixed budget of ``budget_steps``
    steps compares: the fixed-step budget approximates a fixed time.  At most three numbers a
    sentence; the batch sizes in math."""
    rows = sorted(timing["batch_sizes"], key=lambda r: r["B"])
    if len(rows) < 2 or any(r["s_per_epoch"] <= 0 for r in rows):
        return "The timing benchmark times too few batch sizes to say what the paper's minutes are in steps."
    small, big = rows[0], rows[-1]
    steps = {r["B"]: 60 * minutes * r["epoch_steps"] / r["s_per_epoch"] for r in (small, big)}
    rest = {r["B"]: 100 * (1 - r["epoch_steps"] * r["ms_per_step"] / 1000 / r["s_per_epoch"]) for r in (small, big)}
    b, B = small["B"], big["B"]
    three = dict(plain_from=1000, figures=3)
    more = [f"the {w} batch {'more' if budget_steps > steps[k] else 'fewer'}" for w, k in (("largest", B), ("smallest", b))
            if abs(budget_steps / steps[k] - 1) >= 0.005]
    gives = (f", and gives {' and '.join(more)} steps than the minutes would" if more else "")
    return (f"On that machine the paper's {MINUTES_WORDS.get(minutes, f'{minutes:g}')} minutes are thus not one number of optimiser steps: the "
            f"table's epochs times the steps of an epoch give {fmt(steps[b], **three)} steps at $B = {b}$ and "
            f"{fmt(steps[B], **three)} at $B = {B}$. The time per step counts the training alone, and the "
            f"epoch's validation takes {fmt(rest[B], '.2g')} % of the epoch's time "
            f"at $B = {B}$ and {fmt(rest[b], '.2g')} % at $B = {b}$. Our fixed budget of {budget_steps:,} steps is "
            f"{fmt(budget_steps / steps[b], '.2g')} times the steps of those minutes at $B = {b}$ and "
            f"{fmt(budget_steps / steps[B], '.2g')} times at $B = {B}$: a fixed number of steps approximates the "
            f"paper's fixed time{gives}.")
