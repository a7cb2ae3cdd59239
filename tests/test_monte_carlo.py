"""The sequential Monte Carlo test (Besag & Clifford): its p-values, its stopping, its seed, and
its false-alarm rate where the null is true."""
import numpy as np
import pytest

from binn_utils.analysis import monte_carlo as mc


def test_fewest_simulations_for_a_level():
    assert mc.smallest_sims(0.05) == 19 and mc.smallest_sims(0.01) == 99 and mc.smallest_sims(0.5) == 1
    with pytest.raises(ValueError, match="between 0 and 1"):
        mc.smallest_sims(0.0)


def test_stops_at_the_first_simulation_that_reaches_the_observed_value():
    values = iter([1.0, 2.0, 5.0, 0.5, 9.0])
    r = mc.sequential_test(4.0, lambda rng: next(values), sims=19, stop_after=1)
    assert r.simulated == (1.0, 2.0, 5.0) and r.stopped_early and r.p_value == pytest.approx(1 / 3)
    assert not r.rejects(0.05)


def test_rejects_only_when_no_simulation_reaches_it():
    r = mc.sequential_test(10.0, lambda rng: float(rng.uniform(0, 9)), sims=19)
    assert len(r.simulated) == 19 and r.reached == 0 and r.p_value == pytest.approx(1 / 20) and r.rejects(0.05)
    r = mc.sequential_test(10.0, lambda rng: float(rng.uniform(0, 9)), sims=18)
    assert r.p_value == pytest.approx(1 / 19) and not r.rejects(0.05)      # 18 simulations cannot reject at 5 %
    # h = 2: one reaching it is not enough to stop; p = (1 + 1) / (19 + 1)
    vals = iter([11.0] + [1.0] * 18)
    r = mc.sequential_test(10.0, lambda rng: next(vals), sims=19, stop_after=2)
    assert len(r.simulated) == 19 and r.reached == 1 and r.p_value == pytest.approx(0.1)


def test_a_failed_simulation_never_rejects():
    r = mc.sequential_test(10.0, lambda rng: float("nan"), sims=19)
    assert r.failed == 1 and r.simulated == (float("inf"),) and not r.rejects(0.05)


def test_same_seed_same_draws():
    a = mc.sequential_test(1e9, lambda rng: float(rng.normal()), sims=5, seed=(49, 0))
    b = mc.sequential_test(1e9, lambda rng: float(rng.normal()), sims=5, seed=(49, 0))
    c = mc.sequential_test(1e9, lambda rng: float(rng.normal()), sims=5, seed=(49, 1))
    assert a.simulated == b.simulated != c.simulated and a.seed == (49, 0)


def test_false_alarm_rate_holds_where_the_null_is_true():
    """Observed and simulated statistics from the same (heavy-tailed) distribution: of 400
    seeded tests at 5 %, at most 8 % reject (the expected 5 %, 20, plus three binomial
    standard deviations), and at least 2 % (the test is not simply conservative)."""
    rng = np.random.default_rng(1)
    rejected = sum(mc.sequential_test(float(rng.standard_cauchy()), lambda r: float(r.standard_cauchy()),
                                      sims=19, seed=i).rejects(0.05) for i in range(400))
    assert 8 <= rejected <= 32, rejected


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(ValueError, match="stop_after"):
        mc.sequential_test(1.0, lambda rng: 0.0, sims=3, stop_after=4)
