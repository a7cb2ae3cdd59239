"""Typed verdicts: the aggregation rule, and the rules of the studies' comparisons with the
paper on small synthetic result sets (agrees, disagrees, cannot be decided)."""
import numpy as np
import pytest

from binn_utils import reporting
from binn_utils.verdicts import Outcome, Summary, Verdict, aggregate

A, D, U, N, F = (Verdict.AGREES, Verdict.DISAGREES, Verdict.UNDECIDED, Verdict.NOT_TESTED, Verdict.TOO_FEW)


def test_aggregate_counts_only_decided_subclaims():
    assert aggregate([A, A, N]) is Outcome.REPRODUCED          # not tested does not downgrade
    assert aggregate([A, U, F]) is Outcome.REPRODUCED
    assert aggregate([A, D, N]) is Outcome.PARTLY
    assert aggregate([D, D, U]) is Outcome.NOT_REPRODUCED
    assert aggregate([N, U, F]) is aggregate([]) is Outcome.NOT_TESTED
    assert [o.value for o in Outcome] == list(reporting.VERDICTS)


def test_verdict_of_a_flag_and_the_wording_is_not_the_verdict():
    assert (Verdict.of(True), Verdict.of(False), Verdict.of(None)) == (A, D, U)
    assert A.decided and D.decided and not (U.decided or N.decided or F.decided)
    s = Summary()
    s.judge("falling", True, "is still falling", "has levelled off")
    s.judge("rises", False, "rises", "does not rise")
    assert s["falling"] == "is still falling" and s.verdicts["falling"] is A
    assert s["rises"] == "does not rise" and s.verdicts["rises"] is D


class Fake:
    """A stored setting as the summaries see it: meta values, per-replicate errors, curves."""

    def __init__(self, meta, errs, curve=None, record=None):
        self.meta = meta
        self._errs = {k: np.asarray(v, float) for k, v in errs.items()}
        n = len(next(iter(self._errs.values())))
        ep = np.arange(1, 101)
        c = np.exp(-ep / 30.0) + 0.01 if curve is None else curve
        self.arrays = {"curve_epochs": ep, "hist_val_total": np.stack([c] * n),
                       "hist_val_data": np.stack([c] * n), "hist_val_pde": np.stack([c * 1e-5] * n)}
        self.record = {"status": ["ok"] * n, "metrics": {"best": {"up_status": ["ok"] * n}},
                       "config": {"w_data": 1.0, "w_pde": meta.get("w_pde", 0.1)}, **(record or {})}

    def __getitem__(self, k):
        return self.arrays[k]

    def metric(self, name, which=None):
        return self._errs[name]

    def up_status(self, which=None):
        return self.record["metrics"]["best"]["up_status"]

    def operator_error(self, op, which=None):
        return self._errs.get(f"op_{op}", np.full(3, 0.1))


def sweep(key, values, err_of, curve_of=lambda v: None):
    return [Fake({key: v}, {"err_u_theta": [err_of(v)] * 3, "err_u_p": [err_of(v)] * 3}, curve_of(v))
            for v in values]


RATES = (5e-7, 5e-6, 5e-5, 5e-4, 5e-3, 5e-2, 5e-1)


@pytest.mark.parametrize("best, expected", [(5e-4, A), (5e-5, A), (5e-6, D), (5e-1, D)])
def test_learning_rate_best_rate_rule(best, expected):
    s = reporting.learning_rate_summary(sweep("lr", RATES, lambda r: 0.01 + abs(np.log10(r / best))))
    assert s.verdicts["best_theta_verdict"] is expected and s.verdicts["best_up_verdict"] is expected


def test_learning_rate_rules_undecided_when_every_replicate_failed():
    s = reporting.learning_rate_summary(sweep("lr", RATES, lambda r: np.nan))
    assert s.verdicts["best_theta_verdict"] is U and s.verdicts["best_up_verdict"] is U


def test_learning_rate_convergence_and_large_rate_rules():
    ep = np.arange(1, 101)
    falling = 1.0 - 0.009 * ep                    # still falling by ~80 % over the last quarter
    flat = np.exp(-ep / 5.0) + 0.1                 # levelled off long before the end
    s = reporting.learning_rate_summary(sweep("lr", RATES, lambda r: 0.1 if r < 1e-2 else 1.0,
                                              lambda r: falling if r == 5e-7 else flat))
    assert s.verdicts["small_still_falling"] is A and s["small_still_falling"] == "is still falling"
    assert s.verdicts["large_worse_verdict"] is A
    s = reporting.learning_rate_summary(sweep("lr", RATES, lambda r: 0.1 if r >= 1e-2 else 1.0, lambda r: flat))
    assert s.verdicts["small_still_falling"] is D and s["small_still_falling"] == "has levelled off"
    assert s.verdicts["large_worse_verdict"] is D


WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3)


def test_loss_weight_rules():
    dist = lambda w: abs(np.log10(w / 0.3))  # noqa: E731  (lowest errors between 1e-1 and 1)
    rs = [Fake({"w_pde": w}, {"err_u_theta": [(0.015 + 0.001 * dist(w)) * (10 if w == 1e3 else 1)] * 3,
                              "err_u_p": [(0.01 + 0.01 * dist(w)) * (10 if w in (1e-4, 1e3) else 1)] * 3})
          for w in WEIGHTS]
    s = reporting.loss_weight_summary(rs)
    assert s.verdicts["best_theta_verdict"] is A and s.verdicts["best_up_verdict"] is A
    assert s.verdicts["low_verdict"] is A and s.verdicts["high_verdict"] is A
    assert s.verdicts["low_gap_verdict"] is A      # the weighted PDE loss 1e-9 of the data loss: > 3 decades
    flat = [Fake({"w_pde": w}, {"err_u_theta": [0.1] * 3, "err_u_p": [0.1 + w * 1e-6] * 3}) for w in WEIGHTS]
    s = reporting.loss_weight_summary(flat)
    assert s.verdicts["low_verdict"] is D and s.verdicts["high_verdict"] is D
    assert s.verdicts["best_up_verdict"] is D      # lowest u_p error at the smallest weight


def _batch(T_of_B, err_of_B):
    fixed, budget = [], []
    for B in (10, 40, 160, 640):
        used = min(B, 398)
        rec = {"batch_size_used": used, "config": {"batch_size": B}, "replicates": 3,
               "wall_time_s": 3 * T_of_B(used), "epochs_run": 100, "steps_per_epoch": -(-398 // used)}
        fixed.append(Fake({"batch_size": B}, {"err_u_theta": [0.1] * 3, "err_u_p": [0.1] * 3}, record=rec))
        budget.append(Fake({"batch_size": B, "budget_steps": 1000}, {"err_u_theta": err_of_B(B),
                                                                     "err_u_p": err_of_B(B)},
                           record={"epochs_run": 10}))
    return fixed, budget


def test_batch_size_rules():
    s = reporting.batch_size_summary(*_batch(lambda B: 100 / B + 1, lambda B: {10: [0.1, 0.3, 0.5], 40: [0.05] * 3,
                                                                               160: [0.06] * 3, 640: [0.2] * 3}[B]))
    assert s.verdicts["inverse_verdict"] is A
    assert s.verdicts["best_theta_verdict"] is A and s.verdicts["best_up_verdict"] is A
    assert s.verdicts["small_variable_verdict"] is A and s.verdicts["large_worse_verdict"] is A
    s = reporting.batch_size_summary(*_batch(lambda B: 0.01 * B + 1, lambda B: [0.01 * np.log(B)] * 3))
    assert s.verdicts["inverse_verdict"] is D      # time grows with B
    assert s.verdicts["best_up_verdict"] is D and s.verdicts["small_variable_verdict"] is D
    assert s.verdicts["large_worse_verdict"] is A
    s = reporting.batch_size_summary(*_batch(lambda B: 100 / B + 1, lambda B: [np.nan] * 3))
    assert s.verdicts["best_up_verdict"] is U and s.verdicts["large_worse_verdict"] is U


# ----------------------------------------------------------------------------- the claims' checks
class Ctx:
    """What a claim's check reads, over synthetic results."""

    def __init__(self, **results):
        self.results = results

    def scale(self, name):
        return "synthetic"

    def study(self, name):
        if name not in self.results:
            raise RuntimeError(f"{name} not stored")
        return self.results[name]

    def variant(self, name, desc, scale=None, **overrides):
        return self.study(name)

    def run(self, res, name, **kw):
        return f"{name} runs"


def claim(number):
    from binn_utils import studies
    return next(c for st in studies.REGISTRY.values() for c in st.claims if c.number == number)


def outcome(number, ctx, **variant):
    check = claim(number).check(ctx, **variant)
    assert check.evidence and check.chapters and not check.missing
    return check.outcome


def test_every_main_text_claim_belongs_to_one_study():
    from binn_utils import studies
    numbers = sorted(c.number for st in studies.REGISTRY.values() for c in st.claims)
    assert numbers == list(range(1, 11))


@pytest.mark.filterwarnings("ignore:All-NaN slice")
def test_learning_rate_claim_on_synthetic_results():
    ep = np.arange(1, 101)
    falling, flat = 1.0 - 0.009 * ep, np.exp(-ep / 5.0) + 0.1
    agree = sweep("lr", RATES, lambda r: 0.01 + abs(np.log10(r / 5e-4)) * (1 if r < 1e-2 else 10),
                  lambda r: falling if r == 5e-7 else flat)
    assert outcome(6, Ctx(learning_rate=agree)) is Outcome.REPRODUCED
    wrong = sweep("lr", RATES, lambda r: 1.0 / r, lambda r: flat)      # the largest rate is best, nothing falling
    assert outcome(6, Ctx(learning_rate=wrong)) is Outcome.NOT_REPRODUCED
    failed = sweep("lr", RATES, lambda r: np.nan, lambda r: np.full(100, np.nan))
    subs = claim(6).check(Ctx(learning_rate=failed)).subclaims
    # every run failed: where the errors are lowest and whether r = 5e-7 converged cannot be
    # decided; a failed run at a large rate counts as a larger error than at the shown rate
    assert [s.verdict for s in subs] == [U, U, U, A, N]
    with pytest.raises(RuntimeError):
        claim(6).check(Ctx())                                            # not stored: the scorecard says so


def test_loss_weight_best_claim_on_synthetic_results():
    good = sweep("w_pde", WEIGHTS, lambda w: 0.01 + abs(np.log10(w / 0.3)) * 0.01)
    assert outcome(8, Ctx(loss_weight=good)) is Outcome.REPRODUCED
    mixed = [Fake({"w_pde": w}, {"err_u_theta": [0.01 + abs(np.log10(w / 0.3))] * 3,
                                 "err_u_p": [0.01 + abs(np.log10(w / 100))] * 3}) for w in WEIGHTS]
    assert outcome(8, Ctx(loss_weight=mixed)) is Outcome.PARTLY


def test_batch_size_claim_on_synthetic_results():
    agree = _batch(lambda B: 100 / B + 1, lambda B: {10: [0.1, 0.3, 0.5], 40: [0.05] * 3, 160: [0.06] * 3,
                                                      640: [0.2] * 3}[B])
    assert outcome(10, Ctx(batch_size=agree)) is Outcome.REPRODUCED
    disagree = _batch(lambda B: 0.01 * B + 1, lambda B: [0.5 - 0.001 * B] * 3)
    assert outcome(10, Ctx(batch_size=disagree)) is Outcome.NOT_REPRODUCED
    # the authors' budget reads its own results through the same context
    assert outcome(10, Ctx(batch_size=agree, batch_size_authors=disagree[1]), authors_budget=True) \
        is Outcome.PARTLY
