"""The paper's recommendations, each answered from the scorecard's own sub-claims
(binn_utils.claims.recommendations), and the words of the table (presentation.recommendations_text)."""
import dataclasses

import numpy as np

from binn_utils.analysis.intervals import median_interval
from binn_utils.analysis.verdicts import Verdict, expect
from binn_utils.claims import recommendations as R
from binn_utils.claims.scorecard import claims
from binn_utils.presentation import recommendations_text as words

A, D, I, N = Verdict.AGREES, Verdict.DISAGREES, Verdict.INDISTINCT, Verdict.NOT_TESTED


def _pair(shift, rng, n=10):
    a = median_interval(np.exp(rng.normal(shift, 0.3, n)), source="a")
    b = median_interval(np.exp(rng.normal(0.0, 0.3, n)), source="b")
    from binn_utils.analysis.intervals import difference
    return expect(a, b, -1), difference(a, b)


def test_the_answer_follows_the_parts_and_holds_a_disagreement_to_the_level():
    rng = np.random.default_rng(5)
    agree, ca = _pair(-1.0, rng)
    assert agree is A
    assert R.answer([A, A], [ca, ca]).word == R.HOLDS
    assert R.answer([A, N], [ca, None]).word == R.HOLDS              # an untested part never decides
    assert R.answer([N, None], [None, None]).word == R.NOT_TESTED
    unres = R.answer([A, I], [ca, ca])
    assert unres.word == R.UNRESOLVED and unres.detectable is not None and unres.detectable > 1
    assert unres.effect == ca.ratio
    assert R.answer([D, A], [ca, ca]).word == R.FAILS
    # a disagreement whose p does not survive Holm over the parts is not resolved
    weak = dataclasses.replace(ca, p=0.04)
    assert R.answer([D, A], [weak, dataclasses.replace(ca, p=0.5)]).word == R.UNRESOLVED


def test_every_recommendation_quotes_the_paper_and_names_sub_claims_of_its_claims():
    from binn_utils.analysis.paper_text import quote_clean
    from pathlib import Path
    paper = quote_clean((Path(__file__).resolve().parents[2] / "shared" / "paper" / "binn-principles.tex").read_text()) \
        if (Path(__file__).resolve().parents[2] / "shared" / "paper").exists() else None
    numbers = {c.number for c in claims()}
    for rec in R.RECOMMENDATIONS:
        assert rec.parts and all(p.claim in numbers for p in rec.parts)
        if paper is not None:
            assert quote_clean(rec.quote) in paper, rec.what


def test_the_table_marks_each_answer_and_says_what_is_not_resolved():
    row = R.Row(R.RECOMMENDATIONS[4], R.Answer(R.HOLDS, (0.8, 0.7, 0.9), effect_of="u_theta / u_p"),
                R.Answer(R.UNRESOLVED, (1.0, 0.8, 1.3), 1.6), R.Answer(R.NOT_TESTED))
    md = words.recommendations_md([row])
    assert "✔ holds" in md and "≈ not resolved" in md and "○ not tested" in md
    assert "0.8 [0.7, 0.9]: $u_\\theta$ / $u_\\mathrm{p}$" in md
    # not resolved: the ratio these runs would find, either way (never a bare factor beside a ratio below 1)
    assert words.recommendation_rows([R.Row(R.RECOMMENDATIONS[4], R.Answer(R.UNRESOLVED, (0.5, 0.26, 1.01), 1.75),
                                            R.Answer(R.NOT_TESTED), R.Answer(R.NOT_TESTED))])[0][4] == \
        "0.5 [0.26, 1.01]; these runs would find a ratio of 1.75 (or 1/1.75) 80 % of the time"
    assert words.recommendations_sentence([row]) == "On our runs, the paper's advice holds on intermediate learning rates."


def test_the_landing_pages_html_shows_math_and_commands_as_the_chapters_do():
    """Inline math becomes MathJax and a command in backticks inline code (it copies as typed),
    never a raw backtick or dollar sign on the landing page."""
    from binn_utils.presentation.verdict_marks import tex_to_html
    out = tex_to_html("run `binn sweep noise --scale paper` for $u_\\theta$ < 1")
    assert "`" not in out and "$" not in out
    assert '<code class="docutils literal notranslate"><span class="pre">binn sweep noise --scale paper</span></code>' in out
    assert "\\(u_\\theta\\)" in out and "&lt; 1" in out
