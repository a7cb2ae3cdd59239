"""A page prints the scorecard's verdict for each test and carries the test's name
(claims.scorecard.held_summary, presentation.verdict_marks): on synthetic summaries and claims."""
from __future__ import annotations

import json
import re

from binn_utils.analysis import reporting
from binn_utils.analysis.verdicts import Claim, ClaimCheck, Interval, SubClaim, Summary, Verdict, subclaim_id
from binn_utils.claims.scorecard import Judged, held_summary, scorecard_verdicts
from binn_utils.presentation import verdict_marks

A, D, F, N = Verdict.AGREES, Verdict.DISAGREES, Verdict.INDISTINCT, Verdict.NOT_TESTED


def iv(x):
    return Interval(x, x * 0.9, x * 1.1, 10, 0.95)


def judged(*subs, number=5):
    claim = Claim(number, "text", "evidence", check=lambda ctx: None)
    return [Judged(claim, ClaimCheck("runs", "evidence", tuple(subs), ("chapter",)))]


def summary():
    s = Summary({"n": "3"})
    s.compare("held", D, {"a": iv(1.0), "b": iv(2.0)})          # Holm took it away on the scorecard
    s.compare("same", A, {"a": iv(3.0), "b": iv(4.0)})
    s.compare("mine", A, {"a": iv(5.0), "b": iv(6.0)})          # no sub-claim decides on these numbers
    s.judge("part_1", A)
    s.judge("part_2", D)
    return s


def test_held_summary_prints_the_scorecards_verdict_and_names_its_test():
    held_sub = SubClaim("held one", F, numbers={"a": iv(1.0), "b": iv(2.0)}, alone=D)
    same_sub = SubClaim("same one", A, numbers={"a": iv(3.0), "b": iv(4.0)})
    both = SubClaim("both parts", D, keys=("part_1", "part_2"))
    j = judged(held_sub, same_sub, both)
    s = summary()
    h = held_summary(s, j)
    assert h.verdicts["held"] is F and h["held"].startswith("cannot be distinguished (alone it disagrees")
    assert s.verdicts["held"] is D and s["held"] == "disagrees"            # the chapter's own is not changed
    assert h.tests == {"held": subclaim_id(5, held_sub), "same": subclaim_id(5, same_sub),
                       "part_1": subclaim_id(5, both), "part_2": subclaim_id(5, both)}
    assert h.parts == {"part_1", "part_2"} and h.verdicts["part_1"] is A     # a part keeps its own word
    assert "mine" not in h.tests and h.verdicts["mine"] is A
    # every printed test is one the scorecard judges, with the verdict the page now prints
    card = scorecard_verdicts(j)
    assert all(card[h.tests[k]] == h.verdicts[k].value for k in h.tests if k not in h.parts)
    assert held_summary(s, None) is s                                       # other parameters: its own


def test_a_disagreement_of_the_chapter_that_the_scorecard_does_not_count_becomes_not_tested():
    s = Summary()
    s.compare("centre", D, {"deviation": iv(-0.14)})
    h = held_summary(s, judged(SubClaim("centred close", N, numbers={"deviation": iv(-0.14)})))
    assert h.verdicts["centre"] is N and h["centre"] == "not tested"


def test_the_record_and_the_marks_carry_the_test_names():
    s = held_summary(summary(), judged(SubClaim("same one", A, numbers={"a": iv(3.0), "b": iv(4.0)})))
    reporting.PRINTED.clear()
    reporting.glue_summary("zz", s)
    assert reporting.PRINTED["zz_same"] == {"test": subclaim_id(5, SubClaim("same one", A)), "part": False}
    assert reporting.PRINTED["zz_mine_with_paper"] == {"test": None, "part": False}
    assert "zz_n" not in reporting.PRINTED                                  # not a verdict
    html = verdict_marks.record_html(reporting.PRINTED, {"a </script> test": "agrees"})
    body = re.fullmatch(r'<script type="application/json" class="[\w-]+">(.*)</script>', html, re.S).group(1)
    assert "</script>" not in body and json.loads(body)["tests"] == {"a </script> test": "agrees"}
    assert json.loads(body)["printed"] == reporting.PRINTED
    m = verdict_marks.marked_summary(s)
    assert m["same"] == (f'<span class="binn-verdict" data-test="claim 5 |  | same one" data-verdict="agrees">'
                         "agrees</span>")
    assert 'data-test=""' in m["mine_with_paper"] and m["n"] == "3" and s["same"] == "agrees"
    reporting.PRINTED.clear()
