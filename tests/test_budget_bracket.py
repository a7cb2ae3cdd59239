"""Fig. 6's budget bracketed (issue 47): the lower bracket's settings, and the chapter's
sentence and table on both brackets generated from the runs."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from binn_utils import studies
from binn_utils.analysis import results_table as rt
from binn_utils.presentation import authors_figures as af
from binn_utils.presentation import budget_bracket as bb
from binn_utils.studies import authors_budget

CHAPTER = dict(scale=None, noise_var=None, dense=False, epochs=None, seeds=None, batch_sizes=None, budget_steps=None)


def test_the_lower_bracket_runs_the_large_batches_at_the_fixed_time_trainers_epochs():
    low = studies.get("batch_size_authors_low").settings("paper")
    assert [s.config.batch_size for s in low] == [160, 640]
    assert [s.config.epochs for s in low] == [17_000, 25_000]
    assert {s.study for s in low} == {"batch_size_authors_low"} and all(len(s.seeds) == 10 for s in low)
    upper = {s.config.batch_size: s for s in studies.get("batch_size_authors").settings("paper")}
    assert [upper[b].config.epochs for b in (10, 40, 160, 640)] == [2200, 8100, 23_000, 45_000]
    for s in low:   # only where the brackets differ by more than 10 %; all else the upper's setting
        assert s.config.epochs < 0.9 * upper[s.config.batch_size].config.epochs
        assert s.config.replace(epochs=upper[s.config.batch_size].config.epochs) == upper[s.config.batch_size].config
    # scaled as the upper bracket: by the scale's epochs / 4000
    quick = studies.get("batch_size_authors_low").settings("quick")
    factor = studies.scale_values("quick")["epochs"] / 4000
    assert [s.config.epochs for s in quick] == [round(17_000 * factor), round(25_000 * factor)]
    assert studies.get("batch_size_authors_low").settings("paper", datasets=5)[0].key != low[0].key


def test_the_chapter_reads_the_lower_bracket_only_where_stored_at_the_committed_scale(monkeypatch):
    from binn_utils.studies import batch_size
    runs = batch_size.chapter_settings(CHAPTER)
    listed = batch_size.committed_datasets("batch_size_authors_low")
    assert bool(runs["authors_low"][1]) == bool(listed)
    if listed:
        assert {len(set(s.datasets)) for s in runs["authors_low"][1]} == {listed}
    monkeypatch.setattr(batch_size, "committed_datasets", lambda name, data="ours": None)
    assert batch_size.chapter_settings(CHAPTER)["authors_low"][1] == []
    quick = batch_size.chapter_settings({**CHAPTER, "scale": "quick"})
    assert [s.config.batch_size for s in quick["authors_low"][1]] == [160, 640]
    assert batch_size.chapter_settings({**CHAPTER, "scale": "quick", "batch_sizes": (10, 40)})["authors_low"][1] == []


def _runs(rng, study, epochs: dict, source="ours", datasets=5, inits=10, shift=None):
    """A results table of nested log-normal errors per batch size (``shift``: {B: log shift})."""
    rows = []
    for b, ep in epochs.items():
        for d in range(datasets):
            effect = rng.normal(0, 0.3)
            for i in range(inits):
                v = float(np.exp((shift or {}).get(b, 0.0) + effect + rng.normal(0, 0.3)))
                rows.append({"source": source, "study": study, "setting": f"B={b}", "batch_size": b, "noise_var": 1e-3,
                             "grid": 71, "data": "ours", "dataset": d, "seed": i, "replicate": i, "epochs": ep,
                             "checkpoint": "best", "norm": "frobenius", "err_u_theta": v * 0.5, "err_u_p": v})
    return pd.DataFrame(rows)


@pytest.fixture
def bracket():
    rng = np.random.default_rng(47)
    up = _runs(rng, "batch_size_authors", authors_budget.AUTHORS_BUDGET_EPOCHS, shift={160: 1.0, 640: 1.2})
    low = _runs(rng, "batch_size_authors_low", authors_budget.AUTHORS_BUDGET_EPOCHS_LOW)
    theirs = _runs(rng, "batch_size", authors_budget.AUTHORS_BUDGET_EPOCHS, source="authors", datasets=1, inits=1)
    return up, low, theirs


def test_the_bracket_sentence_is_generated_from_the_runs(bracket):
    up, low, theirs = bracket
    by = bb.compare({"ours": up}, {"ours": low}, theirs)
    assert set(by["ours"]) == {"upper", "lower"} and bb.bracketed_sizes(by) == [160, 640]
    lower_fig = by["ours"]["lower"][2]
    assert set(lower_fig.loc[lower_fig["batch_size"] == 10, "study"]) == {"batch_size_authors"}
    assert set(lower_fig.loc[lower_fig["batch_size"] == 640, "study"]) == {"batch_size_authors_low"}
    words = bb.words(by)
    for k, fig in (("upper", up), ("lower", lower_fig)):
        r = rt.figure_ratio(fig, theirs, "batch_size")
        r = r[r["quantity"] == "err_u_p"].iloc[0]
        assert (f"Under the {k} bracket our $u_\\mathrm{{p}}$ error is {bb.ratio_cell(r)} times the authors' "
                f"({bb.ratio_verdict_words(r)}).") in words
    # the table: per bracket our epochs and typical run, and the chapter's comparison cell (ours / authors)
    md = bb.table_md(by)
    for k, fig, epochs in (("upper", up, authors_budget.AUTHORS_BUDGET_EPOCHS),
                           ("lower", lower_fig, authors_budget.AUTHORS_BUDGET_EPOCHS_LOW)):
        t = rt.against_datasets(fig, theirs, "batch_size")
        for b in (160, 640):
            r = t[(t["batch_size"] == b) & (t["quantity"] == "err_u_p")].iloc[0]
            assert np.isclose(r["ratio"], r["median_ours"] / r["median_authors"])   # one estimand: the cells agree
            assert f"| {k} | {epochs[b]:,} | {bb.fmt(r['median_ours'])} | {af.against_cell(r)} |" in md
            # each single run of theirs: 'not comparable beyond N x' with the wider side of its range
            assert (": beyond its range (" if r["beyond"] else
                    f": not comparable beyond {bb.fmt(max(r['range_hi'], 1 / r['range_lo']))}x") in af.against_cell(r)
    assert md.count("| our data | 160 |") == 2 and "| 17,000 |" in md and "| 23,000 |" in md
    k = sum(int(rt.against_datasets(f, theirs, "batch_size").query("batch_size in (160, 640)")["beyond"].sum())
            for f in (up, lower_fig))
    assert (f"{k} of these 8 comparisons (each error, bracket and data) find a difference" if k else
            "none of these 8 comparisons (each error, bracket and data) finds a difference. Each is not") in words
    # none found: 'each' (no 'others' without an exception)
    assert ("Each of the others" in words) == bool(k)
    import prose
    assert not prose.crowded(words, 3), prose.crowded(words, 3)       # at most three numbers a sentence
    # other runs, other words
    other = bb.words(bb.compare({"ours": up}, {"ours": low.assign(err_u_p=low["err_u_p"] * 3)}, theirs))
    assert other != words


def test_a_bracket_not_stored_is_said_and_not_compared(bracket):
    up, low, theirs = bracket
    none = bb.compare({"ours": up, "authors": up.assign(data="authors")}, {}, theirs)
    assert bb.table_md(none) == ""
    assert bb.words(none) == "Our runs after the lower bracket are not stored, so only the upper bracket is compared here."
    half = bb.compare({"ours": up, "authors": up.assign(data="authors")}, {"ours": low}, theirs)
    assert "On the authors' data our runs after the lower bracket are not stored." in bb.words(half)
    md = bb.table_md(half)
    # a bracket not stored has no row (its epochs column would read 'not stored'): the sentence above says it
    assert "| the authors' data | 640 | $u_\\mathrm{p}$ | " in md and "not stored" not in md
    assert not any(re.search(r"\| lower \|", line) for line in md.splitlines() if "the authors' data" in line)
    assert md.count("| lower |") == 4 and md.count("| upper |") == 8     # our data: both; the authors': upper only


def test_the_figures_pooled_ratio_is_said_once_per_error_with_its_data_said_once(bracket):
    from binn_utils.presentation import authors_figures
    up, _, theirs = bracket
    pooled = {"ours": rt.figure_ratio(up, theirs, "batch_size"),
              "authors": rt.figure_ratio(up.assign(data="authors"), theirs, "batch_size")}
    words = authors_figures.figure_ratio_words(pooled)
    assert words.count("pooled over the figure's 4 settings") == 2      # once per data, not once per error
    for d, t in pooled.items():
        for _, r in t.iterrows():    # every error's ratio, interval and decision, the margin said by the chapter
            assert f"error is {bb.ratio_cell(r)} times the authors': {af.ratio_verdict_words(r, said=True)}." in words
            # an undecided ratio says, in a sentence of its own, what it could rule out
            assert (f"{bb.ratio_cell(r)} times the authors': cannot be told within the margin. Only a difference "
                    f"beyond {bb.fmt(r['rule_out'])}x is ruled out (by its 90 % interval)." in words) == (r["verdict"] == rt.UNRESOLVED)
    assert words.count(" Our ") == 2 and "On the authors' data (5 splits), pooled over the figure's 4 settings, our" in words
    import prose
    assert not prose.crowded(words, 3), prose.crowded(words, 3)       # at most three numbers a sentence


def test_the_figures_pooled_ratio_reads_each_decision_literally():
    """The chapter's sentences on a figure's pooled ratio, for each decision (the margin and the
    interval's level said by the chapter before them): literal text, at most three numbers a sentence."""
    def row(quantity, ratio, lo, hi, verdict, rule_out=np.nan):
        return {"quantity": quantity, "norm": "frobenius", "settings": 4, "datasets": 5, "ratio": ratio, "lo": lo,
                "hi": hi, "verdict": verdict, "rule_out": rule_out}
    pooled = {"ours": pd.DataFrame([row("err_u_theta", 1.12, 0.766, 1.65, rt.UNRESOLVED, 1.52),
                                    row("err_u_p", 0.98, 0.9, 1.07, rt.EQUIVALENT)]),
              "authors": pd.DataFrame([row("err_u_p", 1.6, 1.3, 1.9, rt.DIFFERS)])}
    words = af.figure_ratio_words(pooled)
    assert words == (
        "On our data (5 datasets), pooled over the figure's 4 settings, our $u_\\theta$ error is 1.12 [0.766, 1.65] "
        "times the authors': cannot be told within the margin. Only a difference beyond 1.52x is ruled out (by its 90 % interval). "
        "Our $u_\\mathrm{p}$ error is 0.98 [0.9, 1.07] times the authors': equivalent within the margin. "
        "On the authors' data (5 splits), pooled over the figure's 4 settings, our $u_\\mathrm{p}$ error is "
        "1.6 [1.3, 1.9] times the authors': differs."), words
    import prose
    assert not prose.crowded(words, 3)
    # the scorecard's table, which states no margin before it, names it and the ratio it rules out
    assert af.ratio_verdict_words(pooled["ours"].iloc[0]) == \
        "cannot be told within 1.25x; only a difference beyond 1.52x is ruled out"
