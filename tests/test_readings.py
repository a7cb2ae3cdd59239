"""Our readings of the paper's words (binn_utils.claims.readings): each numeric reading is tried
at its two neighbours and the verdicts it decides are judged again; the table says which moved."""
from types import SimpleNamespace

import pytest

from binn_utils.analysis.verdicts import Outcome, Verdict
from binn_utils.claims import readings
from binn_utils.studies import framework


def _judged(number, verdict):
    sub = SimpleNamespace(group=None, label="near zero", verdict=verdict)
    return SimpleNamespace(claim=SimpleNamespace(number=number), subclaims=(sub,), outcome=Outcome.HOLDS)


def test_a_reading_is_tried_at_its_neighbours_and_restored(monkeypatch):
    near = next(r for r in readings.READINGS if r.attribute == "NEAR_ZERO")
    assert readings.neighbours(0.2, "fraction") == (0.1, 0.4)
    lo, hi = readings.neighbours(1.21, "factor")
    assert lo == pytest.approx(1.1) and hi == pytest.approx(1.4641)
    seen = []

    def judge_again(numbers):            # the verdict agrees only while "near zero" is at most 0.2
        seen.append(framework.NEAR_ZERO)
        return [_judged(n, Verdict.AGREES if framework.NEAR_ZERO <= 0.2 else Verdict.INDISTINCT) for n in numbers]

    monkeypatch.setattr(readings, "READINGS", (near,))
    got, = readings.sensitivity([_judged(1, Verdict.AGREES)], judge_again)
    assert seen == [0.1, 0.4] and framework.NEAR_ZERO == 0.2          # tried at both, then restored
    assert got.value == 0.2 and got.moved[0] == () and not got.stands
    assert got.moved[1] == (((1, "near zero"), "agrees", "cannot be distinguished"),)


def test_every_reading_says_where_it_comes_from_and_a_fixed_one_what_would_vary_it():
    for r in readings.READINGS:
        assert r.words and r.source
        if r.module is None:
            assert r.otherwise
        else:
            import importlib
            assert isinstance(getattr(importlib.import_module(r.module), r.attribute), float)
