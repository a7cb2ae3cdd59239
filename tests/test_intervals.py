"""The statistics every verdict rests on (``binn_utils.analysis.verdicts``): exact order-statistic
intervals of medians, seeded bootstrap intervals of spreads, and the comparisons that turn
two intervals into agrees / disagrees / cannot be distinguished; the paper's words quoted
verbatim; the pages decide nothing themselves."""
import ast
import math
from pathlib import Path

import numpy as np
import pytest

from binn_utils.claims import scorecard
from binn_utils.analysis.verdicts import (Outcome, Verdict, aggregate, above_best_other, all_of, best_in, expect, highest_at,
                                 lowest_at, median_interval, median_rank, spread_interval)
from binn_utils.analysis.paper_text import quote_clean

A, D, I, U = Verdict.AGREES, Verdict.DISAGREES, Verdict.INDISTINCT, Verdict.UNDECIDED
ROOT = Path(__file__).resolve().parents[1]


def test_median_rank_is_the_exact_binomial_coverage():
    for n in range(1, 40):
        k, cov = median_rank(n)
        if k:
            exact = 1 - 2 * sum(math.comb(n, j) for j in range(k)) / 2 ** n
            assert cov == pytest.approx(exact) and cov >= 0.95
            wider = 1 - 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n if k + 1 <= n // 2 else 0
            assert wider < 0.95                      # the narrowest interval that reaches the level
        else:
            assert n < 6                             # 1 - 2 / 2^n < 0.95 up to n = 5
    assert median_rank(10)[0] == 2


def test_median_interval_covers_the_true_median_at_its_level():
    rng = np.random.default_rng(7)
    n, trials, true_median = 10, 4000, np.log(2)    # exponential(1): median ln 2, skewed
    hits = 0
    for _ in range(trials):
        iv = median_interval(rng.exponential(1.0, n))
        hits += iv.lo <= true_median <= iv.hi
    assert hits / trials == pytest.approx(median_rank(n)[1], abs=0.015)
    assert hits / trials >= 0.95


def test_too_few_replicates_give_an_unbounded_interval_and_no_decision():
    few, many = median_interval([0.1, 0.1, 0.1]), median_interval([0.5] * 10)
    assert not few.bounded and few.n == 3
    # the difference of 3 and 3 replicates: no exact rank interval reaches 95 %
    assert expect(few, median_interval([0.5, 0.6, 0.7]), -1) is I
    # 3 against 10 can be resolved on the difference (exact Mann-Whitney, p = 2/286)
    assert expect(few, many, -1) is A
    assert expect(median_interval([np.nan] * 10), many, -1) is U
    assert not spread_interval([0.1, 0.2, 0.3]).bounded


def test_an_unresolved_difference_cannot_be_distinguished_a_resolved_one_decides_both_ways():
    rng = np.random.default_rng(0)
    low, high = median_interval(rng.normal(1.0, 0.1, 20)), median_interval(rng.normal(2.0, 0.1, 20))
    close = median_interval(rng.normal(1.0, 0.1, 20))
    assert expect(low, high, -1) is A and expect(high, low, -1) is D
    assert expect(high, low, 1) is A and expect(low, high, 1) is D
    assert expect(low, close, -1) is I and expect(close, low, 1) is I
    ivs = {1: low, 2: high, 3: close}
    assert lowest_at(ivs, 2) is D and lowest_at(ivs, 1) is I and highest_at(ivs, 2) is A
    assert best_in(ivs, lambda k: k == 1)[0] is I           # best inside overlaps the best outside
    assert best_in({1: low, 2: high}, lambda k: k == 1)[0] is A
    assert best_in({1: low, 2: high}, lambda k: k == 2)[0] is D
    assert above_best_other({1: low, 2: high}, 2)[0] is A and above_best_other({1: low, 2: high}, 1)[0] is D


def test_spread_interval_is_seeded_and_separates_different_spreads():
    rng = np.random.default_rng(3)
    narrow, wide = rng.normal(0, 0.1, 30), rng.normal(0, 1.0, 30)
    assert spread_interval(narrow) == spread_interval(narrow)
    assert expect(spread_interval(narrow), spread_interval(wide), -1) is A


def test_failed_replicates_count_above_every_finite_one_when_asked():
    x = np.r_[np.full(6, np.inf), np.full(4, 3.0)]
    assert median_interval(x).n == 4 and not median_interval(x).bounded      # dropped: too few left
    iv = median_interval(x, failures_high=True)
    assert (iv.estimate, iv.lo, iv.hi, iv.n) == (np.inf, 3.0, np.inf, 10) and str(iv) == "inf [3, inf]"
    assert expect(iv, median_interval(np.linspace(1, 2, 10)), 1) is A       # compared on the difference
    assert expect(iv, median_interval(np.linspace(1, 4, 10)), 1) is A       # 6 failures rank above all
    assert expect(iv, median_interval(np.r_[np.full(5, np.inf), np.linspace(3, 4, 5)], failures_high=True),
                  1) is I
    assert str(median_interval([1.0, 2.0])) == "1.5 [unbounded with 2 replicates]"
    assert str(median_interval([1.5])) == "1.5 [no interval from one value]"


def test_all_of_and_the_outcome_of_undistinguished_claims():
    assert all_of([A, A]) is A and all_of([A, D, I]) is D and all_of([A, I]) is I and all_of([A, U]) is U
    assert aggregate([I, I, Verdict.NOT_TESTED]) is Outcome.UNRESOLVED
    assert aggregate([Verdict.NOT_TESTED]) is Outcome.NOT_TESTED


PAPER = ROOT.parent / "shared" / "paper" / "binn-principles.tex"


@pytest.mark.skipif(not PAPER.is_file(), reason="the paper's LaTeX source is not beside the repository")
def test_every_claim_quotes_the_paper_verbatim():
    text = quote_clean(PAPER.read_text())
    for c in scorecard.claims():
        assert c.quote and c.where, f"claim {c.number} has no quote"
        for part in c.quote.split(" […] "):
            assert quote_clean(part) in text, f"claim {c.number}: {part[:60]!r} is not in the paper"


def test_pages_decide_no_verdict_themselves():
    """The chapters, the Supporting Material page and the scorecard print verdicts the
    package computed: no page builds a Verdict or compares intervals itself."""
    forbidden = {"Verdict", "expect", "every", "order", "lowest_at", "highest_at", "best_in", "above_best_other", "all_of",
                 "some", "every", "no_worse", "median_interval", "spread_interval", "difference", "contrast", "spread_contrast",
                 "rank_contrast", "judge"}
    for nb in sorted((ROOT / "notebooks").glob("*.py")):
        tree = ast.parse(nb.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith(("verdicts", "intervals", "contrasts")):
                assert not {a.name for a in node.names} & forbidden, nb.name
            if isinstance(node, ast.Attribute) and node.attr in forbidden - {"order"}:
                assert False, f"{nb.name} calls {node.attr}"
