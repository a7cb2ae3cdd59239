"""Our readings of the paper's words: every threshold, reference or estimand of ours that
decides a verdict, where it comes from, and whether the verdicts it decides stand at half and at
twice it (generated: the claim judged again with the reading changed).

A numeric reading is a module constant the check reads when it runs (``Reading.module`` and
``attribute``); :func:`sensitivity` sets it to each of its two neighbours (half and twice a
fraction; the square root and the square of a factor, which is half and twice its log) and
judges its claims again.  A reading that is a choice of reference or estimand, not a number,
says where its alternative is shown; one whose neighbours need other runs says which.
"""
from __future__ import annotations

import contextlib
import importlib
from dataclasses import dataclass

from .context import Context
from .scorecard import claims, fidelity, judge


@dataclass(frozen=True)
class Reading:
    words: str                 # the paper's words, and our reading of them
    source: str                # where the number or choice comes from
    claims: tuple = ()         # the claims whose verdicts it decides
    module: str | None = None  # the module constant that holds it (None: not a number we can vary here)
    attribute: str | None = None
    kind: str = "fraction"     # "fraction": half and twice; "factor": its square root and square
    otherwise: str = ""        # for a reading not varied here: where its alternative is shown, or what it needs


READINGS = (
    Reading("\"where the true solution is near zero\": the lowest 20 % of the range of $u$",
            "ours (the paper names no bound)", (1,), "binn_utils.studies.framework", "NEAR_ZERO"),
    Reading("\"centred close to the true constant value\" (claim 4): the median signed relative deviation of the "
            "learned $D$ from the truth within one s.d. of the learned $D$ over a dataset's initialisations",
            "the paper's Fig. 2 (left): the band it draws, the mean ± 1 s.d. over the initialisations", (4,),
            "binn_utils.studies.noise", "CENTRED_SDS"),
    Reading("\"performs at least as well\": the $u_\\mathrm{p}$ error ratio below 1.17",
            "the paper's Fig. 2: the smallest ratio of the two networks' printed medians at a nonzero noise level",
            (3,), "binn_utils.studies.noise", "AS_WELL_MARGIN", kind="factor"),
    Reading("\"not converged after 4000 epochs\": the validation loss still falling over the last quarter of "
            "training, more than at the default rate", "ours (the paper names no window)", (6,),
            "binn_utils.studies.learning_rate", "LATE_WINDOW"),
    Reading("\"accurately\" (claim 9): better than the smallest networks, (1, 1), the paper's own contrast",
            "the paper's sentence on (1, 1)'s biased operators", (9,),
            otherwise="a reference, not a number: the sub-claim's rule names it"),
    Reading("\"the smallest architectures, such as (1, 1)\": (1, 1) against the equal-size networks more than one "
            "node wide, (4, 1) left out as one node wide", "ours", (9,), otherwise="a choice of comparison, not a number"),
    Reading("\"a fixed training budget of five minutes\": 75,000 optimiser steps", "ours: five minutes at about "
            "4 ms per step of the published trainer here (errata 26)", (10,),
            otherwise="another budget needs other runs (the authors' ten-minute budget is shown beside it)"),
    Reading("\"three orders of magnitude throughout training\" (claim 7): in both readings, the smallest gap "
            "between the median curves, as the paper's figure draws them (of each dataset's networks, over datasets), "
            "and each run's smallest gap, both against 3", "the paper's text (three orders) and its figure's median curves (Fig. 4)", (7,),
            otherwise="an estimand, not a number: both readings are sub-claims, side by side"),
    Reading("\"almost indistinguishable convergence behaviour\" (claim 9): sameness, not tested",
            "no margin can be named: the paper's text gives no number, its Fig. 5 prints none for the curves", (9,),
            otherwise="a margin would be ours; the sub-claim says why and gives the final validation losses"),
    Reading("\"$T \\propto 1/B$\" (claim 10): as an equivalence of the log-log slope with $-1$, not tested; "
            "tested: $T = a/B + c$ with $a > 0$", "no margin can be named: the paper says \"approximately\", and its "
            "figure's times are not archived", (10,),
            otherwise="a margin would be ours; the sub-claim gives the slope with its interval"),
    Reading("\"signal\" (claim 12): ranks failed networks above fine ones better than chance (AUC above 0.5)",
            "chance, the least a signal must beat", (12,),
            otherwise="the held-out rates of catching failures and of false alarms are printed beside the verdict"),
    Reading("agreement with the authors' archived runs: equivalent within 1.25x", "ours, fixed before any ratio was "
            "computed", (), "binn_utils.analysis.results_table", "EQUIVALENCE_MARGIN", kind="factor"),
)


def neighbours(value: float, kind: str) -> tuple[float, float]:
    """The two values a reading is tried at: half and twice a fraction; the square root and the
    square of a factor above 1 (half and twice its logarithm)."""
    return (value ** 0.5, value ** 2) if kind == "factor" else (value / 2, value * 2)


@contextlib.contextmanager
def changed(reading: Reading, value: float):
    """The reading's module constant set to ``value`` for the duration (restored after)."""
    mod = importlib.import_module(reading.module)
    old = getattr(mod, reading.attribute)
    setattr(mod, reading.attribute, value)
    try:
        yield
    finally:
        setattr(mod, reading.attribute, old)


@dataclass(frozen=True)
class Sensitivity:
    reading: Reading
    value: float | None                 # as used (None: not a number varied here)
    tried: tuple = ()                   # the neighbours
    #: per neighbour, the verdicts that changed: (what, before, after), ``what`` a sub-claim's (claim,
    #: label) or an agreement's (figure, data, error column)
    moved: tuple = ()
    stands: bool | None = None          # whether every verdict it decides stands at both neighbours


def _verdicts(judged) -> dict:
    """{(claim, group, label): verdict} of judged claims."""
    return {(j.claim.number, s.group, s.label): s.verdict for j in judged for s in j.subclaims}


def sensitivity(judged, judge_again, fidelity_again=None) -> list[Sensitivity]:
    """Each reading with the verdicts it decides judged again at its two neighbours (``judged``:
    the scorecard's ``judge_all``; ``judge_again(numbers)``: the claims ``numbers`` judged anew;
    ``fidelity_again()``: the agreement with the authors' runs anew, {(figure, data, error): word})."""
    out = []
    now = _verdicts(judged)
    for r in READINGS:
        if r.module is None:
            out.append(Sensitivity(r, None))
            continue
        value = getattr(importlib.import_module(r.module), r.attribute)
        base = fidelity_again() if not r.claims and fidelity_again else {}
        tried, moved = neighbours(value, r.kind), []
        for v in tried:
            with changed(r, v):
                if r.claims:
                    again = _verdicts(judge_again(r.claims))
                    moved.append(tuple(((k[0], k[2]), now[k].value, w.value)
                                       for k, w in again.items() if k in now and w is not now[k]))
                else:
                    again = fidelity_again() if fidelity_again else {}
                    moved.append(tuple((k, base[k], w) for k, w in again.items() if k in base and w != base[k]))
        out.append(Sensitivity(r, value, tried, tuple(moved), not any(moved)))
    return out


def table(ctx: Context, judged) -> list[Sensitivity]:
    """:func:`sensitivity` on the scorecard's claims and its agreement with the authors, judged
    again through ``ctx``'s loaded results."""
    by = {c.number: c for c in claims()}

    def fid():
        f = fidelity(ctx)
        return {} if f is None else {(r["figure"], r["data"], r["quantity"]): r["verdict"]
                                     for _, r in f.ratios.iterrows()}
    return sensitivity(judged, lambda numbers: [judge(by[n], ctx) for n in numbers], fid)
