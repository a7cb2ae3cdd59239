"""The evaluation of a trained setting (binn_utils.engine.evaluation): the u_p forward solves."""
import dataclasses

import numpy as np
import pytest

from binn_utils.engine import evaluation
from binn_utils.engine.evaluation import evaluate
from binn_utils.engine.observations import make_observations
from binn_utils.engine.training import TrainConfig, train


@pytest.fixture()
def counted():
    """A ``solve_map`` that counts the forward solves it is given, with no solves kept from before."""
    evaluation._RECENT_SOLVES.clear()
    calls = []

    def solve_map(fn, jobs):
        jobs = list(jobs)
        calls.append(len(jobs))
        return map(fn, jobs)
    yield solve_map, calls
    evaluation._RECENT_SOLVES.clear()


def test_a_forward_solve_with_the_same_inputs_is_done_once(counted):
    """A replicate whose best-validation parameters are its final ones is solved once for both
    checkpoints, and gets the numbers a solve of its own gives; other parameters or other
    solver options are solved afresh."""
    solve_map, calls = counted
    obs = make_observations("diffusion", 1e-3)
    res = train(obs, TrainConfig(arch_u=(2, 8), arch_D=(2, 4), epochs=3, compile=False), seeds=[0, 1])
    best = res.final.copy()
    best[1] *= 1.001                        # replicate 1's best differs from its final parameters
    res = dataclasses.replace(res, best=best)
    final = evaluate(res, obs, "final", solve_map=solve_map)
    kept = evaluate(res, obs, "best", solve_map=solve_map)
    assert calls == [2, 1]
    np.testing.assert_array_equal(kept.u_p[0], final.u_p[0])
    assert not np.array_equal(kept.u_p[1], final.u_p[1])
    evaluation._RECENT_SOLVES.clear()
    fresh = evaluate(res, obs, "best", solve_map=solve_map)
    assert calls[-1] == 2
    np.testing.assert_array_equal(fresh.u_p, kept.u_p)
    assert fresh.up_status == kept.up_status
    evaluate(res, obs, "best", solve_kw={"method": "BDF"}, solve_map=solve_map)
    assert calls[-1] == 2
    assert len(evaluation._RECENT_SOLVES) <= evaluation.RECENT_SOLVES_KEPT
