"""The batch-size chapter's generated text as a reader checks it against its tables: one estimate
per quantity, or the other one named; the paper's five minutes in steps as the timing table
gives them; verdicts that say which comparison they decide; plain numbers; a comparison table
whose 'typical' column and ratio direction are said."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from binn_utils import studies
from binn_utils.analysis import results_table as rt
from binn_utils.analysis.reporting import fmt
from binn_utils.analysis.intervals import median_interval
from binn_utils.analysis.verdicts import WITH_PAPER, Summary, Verdict
from binn_utils.presentation import authors_figures as af
from binn_utils.presentation import budget_bracket as bb
from binn_utils.presentation import tables
from binn_utils.studies.base import best_in_range
from synthetic import batch_results, sweep_record, timing_of
import prose


class _Run:
    """A stored batch-size run on several datasets, as steps_against_errors reads it."""

    def __init__(self, B, epochs, steps_per_epoch, err, final, datasets):
        self.meta = {"batch_size": B}
        self.record = sweep_record(epochs_run=epochs, steps_per_epoch=steps_per_epoch)
        self.setting = SimpleNamespace(datasets=tuple(datasets), seeds=tuple(range(len(datasets))), key=f"B={B}/{epochs}")
        self._err = {None: np.array(err, float), "final": np.array(final, float)}

    def metric(self, name, which=None):
        return self._err[which]


def test_the_steps_table_names_its_estimate_and_both_ratios_use_it():
    # five datasets whose medians differ from the median over all networks
    ds = np.repeat(np.arange(5), 3)
    err = [0.1, 0.1, 0.9, 0.2, 0.2, 0.9, 0.3, 0.3, 0.9, 0.4, 0.5, 0.6, 0.45, 0.5, 0.7]
    fixed = [_Run(10, 100, 40, err, final=np.array(err) * 2, datasets=ds)]
    budget = [_Run(10, 50, 40, np.array(err) * 3, final=np.array(err) * 5, datasets=ds)]
    rows, _, decided = studies.batch_size.steps_against_errors(fixed, budget)
    per_dataset = np.median([np.median(np.array(err)[ds == d]) for d in range(5)])
    assert per_dataset != pytest.approx(np.median(err))                 # the two estimates differ here
    assert rows[0]["err"][0] == pytest.approx(per_dataset)
    # the final networks' ratio uses the same estimate as the reported networks' ratio
    assert rows[0]["final"][0] == pytest.approx(2 * per_dataset) and rows[0]["ratio_final"] == pytest.approx(2.5)
    head = tables.steps_table(rows).splitlines()[0]
    assert "| median of the 5 datasets' medians of $u_\\mathrm{p}$ error [interval], fixed epochs |" in head
    words = tables.steps_words(rows, 1, decided, "best-validation")
    assert words.startswith("Each median of this table is the median of the 5 datasets' medians, the estimate the "
                            "verdicts compare") and "not the median over all networks of the tables above" in words
    assert not prose.defects(words) and not prose.crowded(words, 3)


def test_the_five_minutes_are_said_in_steps_as_the_timing_table_gives_them():
    timing = {"batch_sizes": [
        {"B": 10, "B_used": 10, "epoch_steps": 40, "ms_per_step": 3.694, "s_per_epoch": 0.1495},
        {"B": 640, "B_used": 398, "epoch_steps": 1, "ms_per_step": 3.903, "s_per_epoch": 0.005575}]}
    words = bb.five_minutes_words(timing, 75_000)
    assert "are thus not one number of optimiser steps" in words
    assert "give 80,300 steps at $B = 10$ and 53,800 at $B = 640$" in words     # 300 s / s per epoch x steps
    assert "the epoch's validation takes 30 % of the epoch's time at $B = 640$ and 1.2 % at $B = 10$" in words
    assert "is 0.93 times the steps of those minutes at $B = 10$ and 1.4 times at $B = 640$" in words
    assert "a fixed number of steps approximates the paper's fixed time, and gives the largest batch more and the " \
           "smallest batch fewer steps than the minutes would." in words
    assert "whatever" not in words and not prose.defects(words) and not prose.crowded(words, 3), words
    same = bb.five_minutes_words(timing, 80_267)                         # our budget the minutes' steps at B = 10
    assert "gives the largest batch more steps than the minutes would." in same


def test_the_indistinct_verdict_is_said_without_nested_parentheses_and_an_interval_containing_zero():
    words = WITH_PAPER[Verdict.INDISTINCT]
    assert "(" not in words and words.endswith("the interval of the difference contains zero")
    assert "no difference" not in words


def test_a_best_in_range_verdict_names_the_two_settings_it_compares_and_their_estimate():
    s = Summary({})
    ds = np.repeat(np.arange(5), 4)
    ivs = {b: median_interval(np.full(20, v) * (1 + 0.01 * ds), of=SimpleNamespace(
        setting=SimpleNamespace(datasets=tuple(ds), seeds=tuple(range(20)), key=str(b))))
        for b, v in ((10, 0.07), (40, 0.06), (160, 0.05), (640, 0.04))}
    best_in_range(s, "best_up_verdict", ivs, (40, 160), symbol="B")
    words = s["best_up_compared"]
    assert words == ("the best in the paper's range, B = 160, against the best outside it, B = 640. Their errors by "
                     "the median of their 5 datasets' medians (the estimate the verdict compares) are "
                     f"{fmt(ivs[160].estimate)} and {fmt(ivs[640].estimate)}")
    assert not prose.crowded(f"The verdict compares {words}: cannot be distinguished.", 3)
    plain = Summary({})
    best_in_range(plain, "best_up_verdict", ivs, (40, 160))
    assert "best_up_compared" not in plain                                 # only where a chapter asks for it


def test_the_timing_fit_is_written_in_plain_numbers():
    assert fmt(5867.947, plain_from=1000, figures=3) == "5,870" and fmt(10.8178, plain_from=1000, figures=3) == "10.8"
    assert fmt(12345.6, plain_from=1000) == "12,346"                      # without figures: as before
    fixed, budget = batch_results(lambda B: 5868 / B + 10.8, lambda B: [0.1, 0.2, 0.3])
    s = studies.batch_size.summary((fixed, budget), timing_of(fixed))
    assert s["fit_a"] == fmt(float(f"{5868 * 4000 / 100:.3g}"), plain_from=1000)   # 234,720 s -> 235,000
    assert "e+" not in s["fit_a"] + s["a_interval"] + s["fit_c"], (s["fit_a"], s["a_interval"])
    assert s["a_interval"].startswith(s["fit_a"] + " [") and "," in s["a_interval"]


def _nested(rng, datasets, inits, shift=0.0, source="ours"):
    rows = [{"source": source, "setting": "a", "dataset": d, "replicate": i, "seed": i, "norm": "frobenius",
             "data": "ours", "err_u_theta": float(np.exp(shift + rng.normal(0, 0.3)))}
            for d in range(datasets) for i in range(inits)]
    return pd.DataFrame(rows)


def test_the_comparison_table_heads_our_column_with_its_estimate_and_says_what_typical_means():
    rng = np.random.default_rng(3)
    ours = _nested(rng, 5, 10)
    single = {"ours": rt.against_datasets(ours, _nested(rng, 1, 1, source="authors"), "setting",
                                          quantities=("err_u_theta",))}
    md = af.against_datasets_table(single, lambda r: r["setting"])
    assert "| ours: typical run, our data (5 datasets x 10) | ours / authors (range) |" in md
    words = af.against_datasets_words(single)
    assert words.startswith("In this table our typical run is the exponential of the mean log error of our runs")
    assert "not the median over all networks given elsewhere" in words and "(ours / authors)" in words
    assert "authors / ours" not in words and not prose.defects(words)   # one direction, the book's
    medians = {"ours": rt.against_datasets(ours, _nested(rng, 1, 10, source="authors"), "setting",
                                           quantities=("err_u_theta",))}
    md = af.against_datasets_table(medians, lambda r: r["setting"])
    assert "| ours: typical dataset median, our data (5 datasets x 10) |" in md
    assert "our typical dataset median is the exponential of the mean of our datasets' log medians" in \
        af.against_datasets_words(medians)


def test_a_setting_only_the_authors_ran_says_not_run_in_our_columns():
    rng = np.random.default_rng(4)
    ours = _nested(rng, 5, 10)
    theirs = pd.concat([_nested(rng, 1, 1, source="authors"),
                        _nested(rng, 1, 1, source="authors").assign(setting="b")])  # B = 2: theirs only
    t = {"ours": rt.against_datasets(ours, theirs, "setting", quantities=("err_u_theta",))}
    rows = [line for line in af.against_datasets_table(t, lambda r: r["setting"]).splitlines() if line.startswith("| b |")]
    assert len(rows) == 1 and rows[0].endswith("| not run | - |") and "n/a" not in rows[0], rows
