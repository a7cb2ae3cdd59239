"""Typed verdicts: the aggregation rule, and the rules of the studies' comparisons with the
paper on small synthetic result sets (agrees, disagrees, cannot be decided)."""
import numpy as np
import pytest

from binn_utils import studies
from binn_utils.analysis import reporting
from binn_utils.analysis.verdicts import OUTCOME_RULE, Outcome, Summary, Verdict, aggregate
from synthetic import RATES, WEIGHTS, Fake, batch_results, sweep, timing_of

A, D, U, N, F = (Verdict.AGREES, Verdict.DISAGREES, Verdict.UNDECIDED, Verdict.NOT_TESTED, Verdict.INDISTINCT)


def test_aggregate_follows_the_tested_parts_of_the_primary_statement():
    assert aggregate([A, A]) is Outcome.HOLDS
    assert aggregate([A, A, N]) is Outcome.HOLDS                     # an untested part never decides
    assert aggregate([A, A, U]) is Outcome.UNRESOLVED                # one that cannot be decided is not resolved
    assert aggregate([A, U, F]) is Outcome.UNRESOLVED
    assert aggregate([D, F]) is Outcome.FAILS
    assert aggregate([A, D, N]) is Outcome.FAILS
    assert aggregate([N, U]) is Outcome.UNRESOLVED
    assert aggregate([N, N]) is aggregate([]) is Outcome.NOT_TESTED
    assert aggregate([N, F]) is Outcome.UNRESOLVED
    # the parts that are not primary never make the claim hold or fail; a disagreement among them qualifies it
    assert aggregate([A, D], [True, False]) is Outcome.HOLDS_EXCEPT
    assert aggregate([A, F, N], [True, False, False]) is Outcome.HOLDS
    assert aggregate([F, A, A], [True, False, False]) is Outcome.UNRESOLVED
    assert aggregate([N, A], [True, False]) is Outcome.NOT_TESTED
    assert [o.value for o in Outcome] == list(reporting.VERDICTS)


def test_an_untested_subclaim_never_decides_an_outcome():
    """Adding an untested sub-claim to any combination, primary or not, leaves the outcome as it was."""
    import itertools
    for vs in itertools.product([A, D, F, U, N], repeat=3):
        for flags in itertools.product([True, False], repeat=3):
            for extra in (True, False):
                assert aggregate(list(vs) + [N], list(flags) + [extra]) is aggregate(vs, flags), (vs, flags)


def test_each_line_of_the_outcome_rule_stands_alone():
    """The scorecard prints the rule's lines as a list, each as the whole condition for its
    outcome: on every count exactly one line holds, one line per outcome."""
    assert sorted(o.value for o, _, _ in OUTCOME_RULE) == sorted(o.value for o in Outcome)
    for a in range(4):
        for d in range(4):
            for i in range(4):
                for x in range(3):
                    holding = [o for o, holds, _ in OUTCOME_RULE if holds(a, d, i, x)]
                    assert len(holding) == 1, (a, d, i, x, holding)


def test_verdict_of_a_flag_and_the_wording_is_not_the_verdict():
    assert (Verdict.of(True), Verdict.of(False), Verdict.of(None)) == (A, D, U)
    assert A.decided and D.decided and not (U.decided or N.decided or F.decided)
    s = Summary()
    s.judge("falling", True, "is still falling", "has levelled off")
    s.judge("rises", False, "rises", "does not rise")
    assert s["falling"] == "is still falling" and s.verdicts["falling"] is A
    assert s["rises"] == "does not rise" and s.verdicts["rises"] is D


@pytest.mark.parametrize("best, expected", [(5e-4, A), (5e-5, A), (5e-6, D), (5e-1, D)])
def test_learning_rate_best_rate_rule(best, expected):
    s = studies.learning_rate.summary(sweep("lr", RATES, lambda r: 0.01 + abs(np.log10(r / best))))
    assert s.verdicts["best_theta_verdict"] is expected and s.verdicts["best_up_verdict"] is expected


def test_learning_rate_rules_undecided_when_every_replicate_failed():
    s = studies.learning_rate.summary(sweep("lr", RATES, lambda r: np.nan))
    assert s.verdicts["best_theta_verdict"] is U and s.verdicts["best_up_verdict"] is U


def test_learning_rate_convergence_and_large_rate_rules():
    ep = np.arange(1, 101)
    falling = 1.0 - 0.009 * ep                    # still falling by ~80 % over the last quarter
    flat = np.exp(-ep / 5.0) + 0.1                 # levelled off long before the end
    s = studies.learning_rate.summary(sweep("lr", RATES, lambda r: 0.1 if r < 1e-2 else 1.0,
                                            lambda r: falling if r == 5e-7 else flat))
    assert s.verdicts["small_still_falling"] is A and s["small_still_falling"] == "is still falling"
    assert s.verdicts["large_worse_verdict"] is A
    s = studies.learning_rate.summary(sweep("lr", RATES, lambda r: 0.1 if r >= 1e-2 else 1.0, lambda r: flat))
    # the same curve at every rate: the falls cannot be told apart, whichever way
    assert s.verdicts["small_still_falling"] is F
    assert s.verdicts["large_worse_verdict"] is D


def test_loss_weight_rules():
    dist = lambda w: abs(np.log10(w / 0.3))  # noqa: E731  (lowest errors between 1e-1 and 1)
    rs = [Fake({"w_pde": w}, {"err_u_theta": [(0.015 + 0.001 * dist(w)) * (10 if w == 1e3 else 1)] * 3,
                              "err_u_p": [(0.01 + 0.01 * dist(w)) * (10 if w in (1e-4, 1e3) else 1)] * 3})
          for w in WEIGHTS]
    s = studies.loss_weight.summary(rs)
    assert s.verdicts["best_theta_verdict"] is A and s.verdicts["best_up_verdict"] is A
    assert s.verdicts["low_verdict"] is A and s.verdicts["high_verdict"] is A
    assert s.verdicts["low_gap_verdict"] is A      # the weighted PDE loss 1e-9 of the data loss: > 3 decades
    flat = [Fake({"w_pde": w}, {"err_u_theta": [0.1] * 3, "err_u_p": [0.1 + w * 1e-6] * 3}) for w in WEIGHTS]
    s = studies.loss_weight.summary(flat)
    # 1e-4 has the lowest u_p error: not "large" (disagrees); 1e3's u_theta equals every other's:
    # the "large errors in both" cannot be distinguished
    assert s.verdicts["low_verdict"] is D and s.verdicts["high_verdict"] is F
    assert s.verdicts["best_up_verdict"] is D      # lowest u_p error at the smallest weight


def _summary(T_of_B, err_of_B):
    """The batch-size summary of synthetic runs whose fixed-epoch times ``T_of_B`` are also
    the timing benchmark's (``synthetic.timing_of``)."""
    res = batch_results(T_of_B, err_of_B)
    return studies.batch_size.summary(res, timing_of(res[0]))


def test_batch_size_rules():
    s = _summary(lambda B: 100 / B + 1, lambda B: {
        10: np.linspace(0.1, 0.5, 10), 40: [0.05] * 10, 160: [0.06] * 10, 640: [0.2] * 10}[B])
    assert s.verdicts["inverse_verdict"] is A
    assert s.verdicts["best_theta_verdict"] is A and s.verdicts["best_up_verdict"] is A
    assert s.verdicts["small_variable_verdict"] is A and s.verdicts["large_worse_verdict"] is A
    s = _summary(lambda B: 0.01 * B + 1, lambda B: [0.01 * np.log(B)] * 3)
    assert s.verdicts["inverse_verdict"] is F      # time grows with B, but a's interval over four sizes spans zero
    falls = _summary(lambda B: 0.01 * B + 101 - 100 / B, lambda B: [0.1] * 3)
    assert falls.verdicts["inverse_verdict"] is D  # T rises as 1/B falls: a's interval below zero
    assert s.verdicts["best_up_verdict"] is D      # lowest errors at B = 10
    assert s.verdicts["small_variable_verdict"] is F   # no spread anywhere: nothing to tell apart
    assert s.verdicts["large_worse_verdict"] is A
    s = studies.batch_size.summary(batch_results(lambda B: 100 / B + 1, lambda B: [np.nan] * 3))
    assert s.verdicts["best_up_verdict"] is U and s.verdicts["large_worse_verdict"] is U
