"""The interval of a difference on nested data (``binn_utils.analysis.contrasts``), validated by
simulation: datasets x initialisations with a within-dataset correlation from 0 to 0.9,
the replicates of two settings measured on the same datasets.  With no difference the rule
decides (agrees or disagrees) at most 5 % of the time; its interval covers the true
difference at least 93 % of the time; the paired case likewise.  The power is printed by
``benchmarks/contrast_power.py``."""
import math

import numpy as np
import pytest
from scipy import stats

from binn_utils.analysis.contrasts import (Sample, _mann_whitney_null, _rank_index, _signed_rank_null, contrast,
                                           holm, median_rank, rank_contrast, spread_contrast)
from binn_utils.analysis.verdicts import Verdict, all_hold, every, expect, lowest_at, median_interval, some

SIMS = 600


def nested(rng, D, n, icc, shift=0.0, interaction=0.3, paired=False):
    """Log-errors of two settings on the same D datasets, n initialisations each: a dataset
    effect shared by both (share ``icc`` of the within-setting variance), a dataset x setting
    interaction of s.d. ``interaction`` (so that the effect varies between datasets), and
    ``shift`` the mean effect of the second setting against the first.  ``paired``: the same
    networks measured twice (a per-network effect shared by the two values)."""
    mu = rng.normal(0, math.sqrt(icc), D)
    gam = rng.normal(0, interaction, D)
    eps = math.sqrt(1 - icc)
    a = mu[:, None] + rng.normal(0, eps, (D, n))
    if paired:
        b = a + shift + gam[:, None] + rng.normal(0, 0.5, (D, n))
    else:
        b = mu[:, None] + shift + gam[:, None] + rng.normal(0, eps, (D, n))
    ds = np.repeat(np.arange(D), n)
    ss = np.tile(np.arange(n), D)
    src = ("net", "net") if paired else ("x", "y")
    return (Sample.of(np.exp(b.ravel()), ds, ss, src[1]), Sample.of(np.exp(a.ravel()), ds, ss, src[0]),
            shift + gam)


@pytest.mark.parametrize("icc", [0.0, 0.3, 0.6, 0.9])
@pytest.mark.parametrize("D", [1, 5, 10])
def test_no_difference_is_decided_at_most_5_percent_of_the_time_and_covered(icc, D):
    """With one dataset the interval speaks of that dataset's own effect: the level is checked
    where that effect is 0 (no dataset x setting interaction), the coverage of its own effect
    where it is not; with several, of the mean effect over datasets."""
    rng = np.random.default_rng(1000 + int(icc * 10) + D)
    decided = covered = 0
    for _ in range(SIMS):
        b, a, _ = nested(rng, D, 10, icc, shift=0.0, interaction=0.0 if D == 1 else 0.3)
        decided += contrast(b, a).sign != 0
        b, a, per = nested(rng, D, 10, icc, shift=0.0)
        c = contrast(b, a)
        covered += c.lo <= (per[0] if D == 1 else 0.0) <= c.hi
    assert decided / SIMS <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / SIMS)
    assert covered / SIMS >= 0.93


@pytest.mark.parametrize("icc", [0.0, 0.6, 0.9])
def test_coverage_with_a_real_difference(icc):
    rng = np.random.default_rng(7 + int(10 * icc))
    cov = 0
    for _ in range(SIMS):
        b, a, _ = nested(rng, 8, 10, icc, shift=0.7)
        c = contrast(b, a)
        cov += c.lo <= 0.7 <= c.hi
    assert cov / SIMS >= 0.93


@pytest.mark.parametrize("D", [1, 6])
def test_paired_case_same_networks(D):
    rng = np.random.default_rng(31 + D)
    decided = cov = 0
    for _ in range(SIMS):
        b, a, per = nested(rng, D, 10, 0.6, shift=0.0, paired=True, interaction=0.0 if D == 1 else 0.3)
        c = contrast(b, a)
        assert c.paired
        decided += c.sign != 0
        cov += c.lo <= (per[0] if D == 1 else 0.0) <= c.hi
    assert decided / SIMS <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / SIMS)
    assert cov / SIMS >= 0.93


def test_one_dataset_speaks_of_that_dataset_only():
    """The paper's design (one dataset): where the effect varies between datasets and is 0 on
    average, one dataset's interval excludes 0 far more often than 5 % -- which is why a verdict
    on one dataset says so."""
    rng = np.random.default_rng(9)
    decided = sum(contrast(*nested(rng, 1, 10, 0.6, interaction=0.5)[:2]).sign != 0 for _ in range(300))
    assert decided / 300 > 0.15


def test_pooling_correlated_replicates_would_not_hold_its_level():
    """The design the rule replaces, as in the noise study: one network on 10 datasets, the
    other on 3 of them, 10 initialisations each, within-dataset correlation 0.6, no difference.
    Pooled as 100 and 30 independent replicates (one rank interval) it decides far more often
    than 5 %; the rule here (the 3 common datasets as the unit) does not."""
    rng = np.random.default_rng(5)
    pooled = nested_rule = 0
    for _ in range(300):
        b, a, _ = nested(rng, 10, 10, 0.6, shift=0.0, interaction=0.0)
        b3 = Sample.of(b.array[:30], b.datasets[:30], b.seeds[:30], "y")
        _, lo, hi, _ = rank_contrast(np.log(b3.array), np.log(a.array), False)
        pooled += not lo <= 0 <= hi
        nested_rule += contrast(b3, a).sign != 0
    assert pooled / 300 > 0.15
    assert nested_rule / 300 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 300)


def test_finds_a_large_difference_and_names_its_direction():
    rng = np.random.default_rng(3)
    b, a, _ = nested(rng, 10, 10, 0.6, shift=1.5, interaction=0.2)
    c = contrast(b, a)
    assert c.sign == 1 and c.ratio[0] > 1 and c.datasets == 10 and c.inits == 10
    c2 = contrast(a, b)
    assert c2.sign == -1 and np.isclose(c2.estimate, -c.estimate)
    assert c.single_differ is not None and 0 <= c.single_differ <= 10


def test_detectable_effect_grows_as_runs_shrink():
    rng = np.random.default_rng(11)
    b, a, _ = nested(rng, 10, 10, 0.3)
    small = contrast(Sample.of(b.array[:30], b.datasets[:30], b.seeds[:30], "y"),
                     Sample.of(a.array[:30], a.datasets[:30], a.seeds[:30], "x"))
    large = contrast(b, a)
    assert small.datasets == 3 and large.datasets == 10
    assert large.detectable < small.detectable


def test_the_detectable_effect_is_found_about_80_percent_of_the_time():
    """The smallest detectable effect is what it says: a true shift of that size (the median
    over null data of the same design) is decided about 80 % of the time."""
    rng = np.random.default_rng(12)
    det = np.median([contrast(*nested(rng, 10, 10, 0.5)[:2]).detectable for _ in range(200)])
    found = np.mean([contrast(*nested(rng, 10, 10, 0.5, shift=det)[:2]).sign == 1 for _ in range(400)])
    assert 0.7 <= found <= 0.9, found


def test_a_missing_value_drops_its_pair_not_the_pairing():
    """u_p of one network failed (NaN): the other pairs of the same networks stay paired."""
    rng = np.random.default_rng(6)
    theta = np.exp(rng.normal(0, 1, 10))
    up = theta * np.exp(0.3 + rng.normal(0, 0.05, 10))
    up[0] = np.nan
    c = contrast(Sample.of(up, source="net"), Sample.of(theta, source="net"))
    assert c.paired and c.inits == 9 and c.sign == 1


def test_p_agrees_with_the_interval_with_ties():
    """With ties (failures ranked equal, repeated values) the p-value and the interval decide
    alike: p <= 5 % exactly when the interval excludes 0."""
    rng = np.random.default_rng(8)
    for _ in range(400):
        a = rng.integers(0, 4, rng.integers(4, 12)).astype(float)
        b = rng.integers(0, 4, rng.integers(4, 12)).astype(float) + rng.integers(0, 2)
        for paired in (False, True):
            bb = b[:a.size] if paired and b.size >= a.size else (np.resize(b, a.size) if paired else b)
            _, lo, hi, p = rank_contrast(a, bb, paired)
            assert (p <= 0.05) == (not lo <= 0 <= hi), (a, bb, paired, lo, hi, p)


def test_holm_takes_a_decision_away_and_says_so_but_leaves_non_inferiority_alone():
    from binn_utils.analysis.verdicts import SubClaim, adjust_family
    rng = np.random.default_rng(9)
    iv = lambda loc, src: median_interval(np.exp(rng.normal(loc, 0.3, 10)), source=src)  # noqa: E731
    strong = SubClaim("strong", Verdict.AGREES, numbers={"a": iv(0, "a"), "b": iv(1.5, "b")})
    weak_ivs = {"a": median_interval(np.exp(np.linspace(0, 0.6, 10)), source="c"),
                "b": median_interval(np.exp(np.linspace(0.24, 0.84, 10)), source="d")}
    weak = SubClaim("weak", expect(*weak_ivs.values(), -1), numbers=weak_ivs)
    assert weak.verdict is Verdict.AGREES and 0.025 < weak.difference.p <= 0.05
    same = SubClaim("as good", Verdict.AGREES, numbers={"a": iv(0, "e"), "b": iv(0, "f")}, tests_difference=False)
    out = adjust_family([strong, weak, weak, same])
    assert out[0].verdict is Verdict.AGREES and out[0].alone is None
    assert out[1].verdict is Verdict.INDISTINCT and out[1].alone is Verdict.AGREES
    assert out[3].verdict is Verdict.AGREES and out[3].difference is None      # not in the family


def _result(D, n):
    """A stored setting's stand-in: D datasets x n initialisations."""
    return type("R", (), {"setting": type("S", (), {"datasets": tuple(np.repeat(np.arange(D), n)),
                                                    "seeds": tuple(range(n)) * D, "key": "k"})()})()


@pytest.mark.parametrize("D", [2, 3, 5])
def test_a_median_over_two_to_five_datasets_is_bounded_and_covers(D):
    """Below six datasets no order-statistic interval reaches 95 %: the t interval of the
    per-dataset medians (their logs) covers the median of the per-dataset medians' population
    at least 93 % of the time, whatever the within-dataset correlation."""
    rng = np.random.default_rng(50 + D)
    covered = 0
    for _ in range(SIMS):
        x = np.exp(np.repeat(rng.normal(0, 0.8, D), 10) + rng.normal(0, 0.6, 10 * D))
        iv = median_interval(x, of=_result(D, 10))
        assert iv.datasets == D and iv.bounded and iv.lo <= iv.estimate <= iv.hi
        covered += iv.lo <= 1.0 <= iv.hi          # the population's median per-dataset median: exp(0)
    assert covered / SIMS >= 0.93


def spreads(rng, D, n, ratio=1.0, icc=0.6, paired=False):
    """Two settings' replicates on the same D datasets, n initialisations each; the second's
    spread between initialisations ``ratio`` times the first's (on the log scale); a dataset
    effect (share ``icc``) shared by both.  ``paired``: the same networks measured twice."""
    mu = np.repeat(rng.normal(0, math.sqrt(icc), D), n)
    z = rng.normal(0, 1, D * n)
    a = mu + math.sqrt(1 - icc) * z
    b = mu + math.sqrt(1 - icc) * ratio * (0.6 * z + 0.8 * rng.normal(0, 1, D * n) if paired else rng.normal(0, 1, D * n))
    ds, ss = np.repeat(np.arange(D), n), np.tile(np.arange(n), D)
    src = ("net", "net") if paired else ("x", "y")
    return Sample.of(b, ds, ss, src[1]), Sample.of(a, ds, ss, src[0])


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("D", [1, 5])
def test_two_equal_spreads_are_told_apart_at_most_5_percent_of_the_time(D, paired):
    """The ratio of the spreads between initialisations (``spread_contrast``): with the same
    spread its interval excludes 1 at most 5 % of the time (on one dataset the bootstrap is
    conservative; over datasets the t interval of the per-dataset log ratios)."""
    rng = np.random.default_rng(70 + D + 2 * paired)
    sims = SIMS // 3
    decided = 0
    for _ in range(sims):
        b, a = spreads(rng, D, 10, paired=paired)
        c = spread_contrast(b, a)
        assert c.paired is paired and c.datasets == D and c.scale == "log"
        decided += c.sign != 0
    assert decided / sims <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / sims)


def test_a_threefold_spread_is_found_and_a_spread_verdict_decides_on_the_ratio():
    from binn_utils.analysis.verdicts import spread_interval
    rng = np.random.default_rng(90)
    found = 0
    for _ in range(100):
        b, a = spreads(rng, 5, 10, ratio=3.0)
        c = spread_contrast(b, a)
        found += c.sign == 1
        assert c.ratio[0] > 1
    assert found >= 80
    # the verdict on "less variable" is the ratio's, through the two spreads' intervals
    b, a = spreads(np.random.default_rng(91), 5, 10, ratio=3.0)
    res = _result(5, 10)
    wide, narrow = spread_interval(b.array, of=res), spread_interval(a.array, of=res)
    assert wide.datasets == 5 and wide.bounded
    assert expect(narrow, wide, -1) is Verdict.AGREES and expect(wide, narrow, -1) is Verdict.DISAGREES


def test_exact_rank_intervals_match_the_tables():
    # two-sided 5 %: Mann-Whitney critical U for m = n = 10 is 23, Wilcoxon's for n = 10 is 8
    assert _rank_index(_mann_whitney_null(10, 10), 0.95) == 24
    assert _rank_index(_signed_rank_null(10), 0.95) == 9
    assert _rank_index(_signed_rank_null(5), 0.95) == 0          # too few for 95 %: unbounded
    # the sign interval of a median: [x_(k), x_(n+1-k)], k = 2 for n = 10 (coverage 97.9 %), none for n = 5
    assert median_rank(10)[0] == 2 and np.isclose(median_rank(10)[1], 1 - 2 * 11 / 1024)
    assert median_rank(5) == (0, 1 - 2 / 32) and median_rank(6)[0] == 1
    np.testing.assert_allclose(_mann_whitney_null(4, 6).sum(), 1.0)
    # the exact p-value agrees with scipy's exact Mann-Whitney test
    rng = np.random.default_rng(0)
    x, y = rng.normal(0, 1, 8), rng.normal(0.8, 1, 9)
    _, _, _, p = rank_contrast(x, y, paired=False)
    assert np.isclose(p, stats.mannwhitneyu(x, y, method="exact").pvalue)
    _, _, _, pw = rank_contrast(x, y[:8], paired=True)
    assert np.isclose(pw, stats.wilcoxon(x - y[:8], method="exact").pvalue)


def test_failures_as_infinite_values_are_ranked_not_dropped():
    a = Sample.of([1, 2, 3, 4, 5, 6, 7, np.inf], source="a")
    b = Sample.of([10, 20, 30, 40, 50, 60, 70, 80], source="b")
    c = contrast(a, b)
    assert np.isfinite(c.estimate) and c.estimate < 0


def test_holm_controls_the_family():
    assert holm([0.01, 0.04, 0.03, np.nan]) == [True, False, False, False]
    assert holm([0.01, 0.02, 0.03]) == [True, True, True]
    assert holm([0.2, 0.001]) == [False, True]
    assert holm([]) == []


def test_expect_decides_on_the_interval_of_the_difference():
    """Two overlapping intervals of the median can still differ: the comparison is made on the
    difference, not on the overlap of the two intervals."""
    rng = np.random.default_rng(2)
    a = np.exp(rng.normal(0, 0.3, 10))
    b = np.exp(rng.normal(0.45, 0.3, 10))
    ia, ib = median_interval(a, source="a"), median_interval(b, source="b")
    assert not (ia.hi < ib.lo)                     # the two intervals overlap
    assert expect(ia, ib, -1) is Verdict.AGREES    # the difference is resolved
    # without replicates (a bare interval) the old rule stands
    assert expect(ia.__class__(*[getattr(ia, f) for f in ("estimate", "lo", "hi", "n", "coverage")]),
                  ib, -1) is Verdict.INDISTINCT


def test_several_datasets_make_the_dataset_the_unit_of_a_median():
    rng = np.random.default_rng(4)
    d = np.repeat(np.arange(6), 10)
    x = rng.normal(0, 1, 60) + np.repeat(rng.normal(0, 3, 6), 10)
    iv = median_interval(x, datasets=d)
    per = np.sort([np.median(x[d == k]) for k in range(6)])
    assert iv.datasets == 6 and iv.n == 60
    assert (iv.lo, iv.hi) == (per[0], per[-1])     # 6 datasets: the exact interval is [min, max]


def test_every_holds_a_disagreement_to_the_level_of_its_comparisons():
    """"Lowest at X" against four other settings with no difference anywhere: it disagrees
    (one comparison reversed) at most 5 % of the time, where deciding each comparison alone
    would disagree far more often; with a real reversal it still disagrees."""
    rng = np.random.default_rng(123)
    sims = SIMS // 2
    disagree = alone = 0
    for _ in range(sims):
        ivs = {k: median_interval(np.exp(rng.normal(0, 1, 10)), source=k) for k in range(5)}
        disagree += lowest_at(ivs, 0) is Verdict.DISAGREES
        alone += any(expect(ivs[0], ivs[k], -1) is Verdict.DISAGREES for k in range(1, 5))
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / sims)
    assert disagree / sims <= bound and alone > disagree
    lo = {k: median_interval(np.exp(rng.normal(0, 0.2, 10)), source=k) for k in range(3)}
    hi = median_interval(np.exp(rng.normal(3, 0.2, 10)), source="hi")
    assert every([(hi, lo[0]), (lo[1], lo[2])], -1) is Verdict.DISAGREES
    assert every([(lo[0], hi), (lo[1], hi)], -1) is Verdict.AGREES



def test_all_hold_holds_a_disagreement_to_the_level_of_its_comparisons_whatever_their_directions():
    """A sentence of two parts with opposite directions ("small u_theta but large u_p error",
    claims 6 and 7) with no difference anywhere disagrees at most 5 % of the time, where
    taking either part's disagreement alone does more often."""
    rng = np.random.default_rng(77)
    sims = SIMS // 2
    disagree = alone = 0
    for _ in range(sims):
        a, b, c = (median_interval(np.exp(rng.normal(0, 1, 10)), source=k) for k in "abc")
        disagree += all_hold([(a, b, -1), (b, c, 1)]) is Verdict.DISAGREES
        alone += expect(a, b, -1) is Verdict.DISAGREES or expect(b, c, 1) is Verdict.DISAGREES
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / sims)
    assert disagree / sims <= bound and alone >= disagree
    lo, mid, hi = (median_interval(np.exp(rng.normal(m, 0.2, 10)), source=str(m)) for m in (0, 3, 6))
    assert all_hold([(lo, mid, -1), (hi, mid, 1)]) is Verdict.AGREES
    assert all_hold([(lo, mid, -1), (mid, hi, 1)]) is Verdict.DISAGREES

def test_some_holds_an_agreement_to_the_level_of_its_comparisons():
    """"One of three warning signs is raised" (claim 12) with no sign raised: it agrees at most 5 %
    of the time, where taking any one sign that is higher alone agrees more often; a real sign
    still agrees, and it disagrees only when every sign is lower."""
    rng = np.random.default_rng(321)
    agree = alone = 0
    for _ in range(SIMS):
        pairs = [(median_interval(np.exp(rng.normal(0, 1, 10)), source="failure"),
                  median_interval(np.exp(rng.normal(0, 1, 10)), source="default")) for _ in range(3)]
        agree += some(pairs, 1) is Verdict.AGREES
        alone += any(expect(a, b, 1) is Verdict.AGREES for a, b in pairs)
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / SIMS)
    assert agree / SIMS <= bound and alone > agree
    flat = [(median_interval(np.exp(rng.normal(0, 0.2, 10)), source="failure"),
             median_interval(np.exp(rng.normal(0, 0.2, 10)), source="default")) for _ in range(2)]
    raised = (median_interval(np.exp(rng.normal(3, 0.2, 10)), source="failure"),
              median_interval(np.exp(rng.normal(0, 0.2, 10)), source="default"))
    assert some(flat + [raised], 1) is Verdict.AGREES
    assert some([(b, a) for a, b in flat] + [raised[::-1]], 1) is not Verdict.AGREES
    assert some([raised[::-1]] * 3, 1) is Verdict.DISAGREES


def test_a_spread_over_datasets_of_one_initialisation_each_is_taken_between_them():
    # forty datasets of one initialisation each: independent replicates, so the spread is the
    # one between them, and a threefold one is found; nested initialisations keep their datasets
    rng = np.random.default_rng(5)
    lab = dict(datasets=tuple(range(40)), seeds=(0,) * 40)
    sa = Sample.of(rng.normal(0, 1, 40), source="a", **lab)
    sb = Sample.of(rng.normal(0, 3, 40), source="b", **lab)
    assert sa.spread_unit().n_datasets == 1 and sa.spread_unit().seeds == tuple(range(40))
    c = spread_contrast(sa, sb)
    assert c is not None and c.hi < 0 and c.lo < -np.log(3) / 2
    nested = Sample.of(np.arange(6.0), datasets=(0, 0, 0, 1, 1, 1), seeds=(0, 1, 2, 0, 1, 2))
    assert nested.spread_unit() is nested


@pytest.mark.parametrize("datasets", [3, 5])
def test_the_design_detectable_effect_is_found_80_percent_of_the_time(datasets):
    """The smallest detectable effect from the design (the per-dataset spread pooled over a
    family of twelve comparisons, ``verdicts.design_detectable``): a true effect of that size is
    resolved by the t test over the datasets 75-85 % of the time, where the estimate from one
    comparison's own spread, with three datasets, is found far from 80 % for a given comparison."""
    from binn_utils.analysis.contrasts import _across_datasets, detectable_at, pooled_effect_sd
    from binn_utils.analysis.verdicts import LEVEL
    rng = np.random.default_rng([11, datasets])
    sigma, families, found, own = 0.3, 600, 0, []
    for _ in range(families):
        fam = [_across_datasets(list(e), [(x - 1, x + 1) for x in e], "log", 10, False, LEVEL)
               for e in rng.normal(0.0, sigma, (12, datasets))]
        det = detectable_at(pooled_effect_sd(fam), datasets)
        e = rng.normal(det, sigma, datasets)       # one more comparison with a true effect of that size
        found += _across_datasets(list(e), [(x - 1, x + 1) for x in e], "log", 10, False, LEVEL).lo > 0
        own.append(fam[0].detectable / det)
    assert 0.75 <= found / families <= 0.85
    if datasets == 3:                              # one comparison's own spread scatters widely
        lo, hi = np.quantile(own, [0.1, 0.9])
        assert lo < 0.6 and hi > 1.3
