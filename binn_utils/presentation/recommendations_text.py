"""The paper's recommendations in words: the table that opens the scorecard
(``binn_utils.claims.recommendations``'s rows), its one sentence and its key (the landing page
counts them in a sentence of its own: ``landing_text``)."""
from __future__ import annotations

import re

import numpy as np

from ..analysis.reporting import and_list, fmt
from ..analysis.verdicts import LEVEL, Outcome
from .verdict_marks import MARKS


#: The mark of each answer of ``claims.recommendations``, as the outcomes' marks.
ANSWER_MARKS = {"holds": MARKS[Outcome.HOLDS], "does not hold": MARKS[Outcome.FAILS],
                "not resolved": MARKS[Outcome.UNRESOLVED], "not tested": MARKS[Outcome.NOT_TESTED]}


def _answer_cell(a) -> str:
    """An answer's word with its mark (HTML, which both MyST and the landing page show)."""
    sym, colour = ANSWER_MARKS[a.word]
    return f'<span style="color:{colour};font-weight:bold">{sym} {a.word}</span>'


def _effect_words(a) -> str:
    """'0.8 [0.74, 0.86]: u_theta / u_p', and for a recommendation not resolved the smallest
    ratio these runs would find 80 % of the time, either way (the words of every page's
    'this design would find')."""
    out = ""
    if a.effect is not None and all(np.isfinite(x) for x in a.effect):
        est, lo, hi = a.effect
        out = f"{fmt(est)} [{fmt(lo)}, {fmt(hi)}]" + (f": {a.effect_of}" if a.effect_of else "")
    if a.word == "not resolved" and a.detectable is not None and np.isfinite(a.detectable):
        d = fmt(a.detectable)
        out += ("; " if out else "") + f"these runs would find a ratio of {d} (or 1/{d}) 80 % of the time"
    out = out or a.note
    for plain, tex in (("u_theta", "$u_\\theta$"), ("u_p", "$u_\\mathrm{p}$")):
        out = re.sub(rf"(?<![\\$\w]){plain}(?![\w$])", tex.replace("\\", "\\\\"), out)
    return out or "–"


def recommendation_rows(rows) -> list[list[str]]:
    """The table of the paper's recommendations as rows of cells (text with math): the
    recommendation, the answer on our data, on the authors' data, in their archived runs, the
    effect on our data and what would settle what is not tested."""
    out = []
    for r in rows:
        rec = r.recommendation
        claims = sorted({p.claim for p in rec.parts})
        out.append([f"{rec.what} (claim{'s' if len(claims) > 1 else ''} {', '.join(map(str, claims))})", r.ours.word,
                    r.authors_data.word, r.archive.word, _effect_words(r.ours), rec.untested or "–"])
    return out


RECOMMENDATION_HEAD = ["the paper recommends", "our data", "the authors' data", "the authors' archived runs",
                       f"effect on our data (ratio [{100 * LEVEL:g} % interval])", "not tested yet"]


def recommendations_md(rows) -> str:
    """The recommendations table (MyST), each answer with its mark."""
    lines = ["| " + " | ".join(RECOMMENDATION_HEAD) + " |", "|" + "---|" * len(RECOMMENDATION_HEAD)]
    for r, cells in zip(rows, recommendation_rows(rows)):
        marked = [_answer_cell(a) for a in (r.ours, r.authors_data, r.archive)]
        lines.append("| " + " | ".join([cells[0], *marked, cells[4], cells[5]]) + " |")
    return "\n".join(lines)


def recommendations_sentence(rows) -> str:
    """One plain sentence a scientist can quote: which of the paper's recommendations hold on our
    runs, which do not, and which these runs cannot settle; one whose evidence is a rate rather
    than a ratio (the warning signs) sends the reader to its numbers."""
    by = {w: [r.recommendation.what + (" (how strongly: the table)" if r.ours.note else "")
              for r in rows if r.ours.word == w] for w in ANSWER_MARKS}
    parts = []
    if by["holds"]:
        parts.append(f"the paper's advice holds on {and_list(by['holds'])}")
    if by["does not hold"]:
        parts.append(f"it does not hold on {and_list(by['does not hold'])}")
    if by["not resolved"]:
        parts.append(f"these runs cannot yet tell on {and_list(by['not resolved'])}")
    if by["not tested"]:
        parts.append(f"{and_list(by['not tested'])} {'is' if len(by['not tested']) == 1 else 'are'} not tested")
    return ("On our runs, " + "; ".join(parts) + ".") if parts else ""


def recommendations_box_md(rows) -> str:
    """The box that opens the scorecard: the paper's recommendations, each with its answer (MyST)."""
    return "\n".join(["```{admonition} The paper's recommendations, tested", ":class: important", "",
                      recommendations_sentence(rows), "", recommendations_md(rows), "", RECOMMENDATIONS_KEY, "```"])


#: How to read the recommendations table, once.
RECOMMENDATIONS_KEY = ("Each recommendation is quoted from the paper's Discussion and rests on the sub-claims of the "
                       "scorecard below that test its words, in the claim named beside it (that claim's other "
                       "sub-claims do not decide it); it holds when every one agrees, does not hold when one "
                       "disagrees once they are held to 95 % together, and is not resolved otherwise. The same rules "
                       "are applied to our runs on the authors' own data and to the authors' archived runs.")

