"""The landing page's answer: the scorecard's answer once and briefly (how many of the paper's
claims hold, which, and which of its recommendations), in other words than the scorecard's own
(no paragraph of one page is repeated on the other), with a link to the scorecard, which holds
the full tables. HTML (the landing page is Markdown that pastes it), links relative to
book/intro.html."""
from __future__ import annotations

import html

from ..analysis.reporting import and_list
from ..analysis.verdicts import Outcome
from ..claims.scorecard import Judged
from .recommendations_text import ANSWER_MARKS
from .scorecard_text import PLURAL_OUTCOMES, SINGULAR_OUTCOMES, counts, title_tex
from .verdict_marks import mark_html, tex_to_html

SCORECARD = "../notebooks/scorecard.html"
#: the order the landing page names the outcomes in: what holds first, what is not tested last
ORDER = (Outcome.HOLDS, Outcome.HOLDS_EXCEPT, Outcome.FAILS, Outcome.UNRESOLVED, Outcome.NOT_TESTED)


def _claim_html(j: Judged) -> str:
    """'claim 3, the smaller u-network is better on noisy data (Fig. 2)', the figure a link to its chapter."""
    return (f"claim {j.claim.number}, {tex_to_html(title_tex(j.claim))} "
            f'(<a href="../notebooks/{j.claim.chapter}.html">{html.escape(j.claim.figure)}</a>)')


def outcome_items(judged: list[Judged]) -> list[str]:
    """One list item per outcome that some claim has: its mark, how many and which claims."""
    n = counts(judged)
    out = []
    for o in ORDER:
        js = [j for j in judged if j.outcome is o]
        if js:
            words = SINGULAR_OUTCOMES[o] if len(js) == 1 else PLURAL_OUTCOMES[o]
            out.append(f"{mark_html(o)} <strong>{n[o]}</strong> {words}: " + "; ".join(_claim_html(j) for j in js))
    return out


def recommendations_brief(rows) -> str:
    """'Of the paper's 7 recommendations for training a BINN, 4 hold on our runs (a, b, c and d),
    and these runs cannot yet tell 3 (e, f and g).' ('' without rows); each answer with its mark."""
    if not rows:
        return ""
    verbs = {"holds": ("holds on our runs", "hold on our runs"), "does not hold": ("does not hold", "do not hold"),
             "not resolved": ("is not resolved by these runs", "are not resolved by these runs"),
             "not tested": ("is not tested", "are not tested")}
    parts = []
    for word, (one, many) in verbs.items():
        whats = [r.recommendation.what for r in rows if r.ours.word == word]
        if whats:
            sym, colour = ANSWER_MARKS[word]
            parts.append(f'<span style="color:{colour};font-weight:bold">{sym}</span> {len(whats)} '
                         f"{one if len(whats) == 1 else many} ({tex_to_html(and_list(whats))})")
    return f"Of the paper's {len(rows)} recommendations for training a BINN, " + and_list(parts) + "."


def landing_html(judged: list[Judged], recommendations=None) -> str:
    """The landing page's box: the claims counted by outcome and named, the recommendations in
    one sentence, and where the full tables are (the scorecard)."""
    items = "".join(f"<li>{x}</li>" for x in outcome_items(judged))
    advice = recommendations_brief(recommendations or [])
    return ('<div class="admonition tip headline-box" id="headline-box"><p class="admonition-title">'
            "Does the paper hold up?</p>"
            f"<p>We tested the paper's {len(judged)} claims against the runs of this edition:</p><ul>{items}</ul>"
            + (f"<p>{advice}</p>" if advice else "")
            + f'<p><a href="{SCORECARD}">The reproduction scorecard</a> has the full tables: each claim with its '
            "verdict, evidence and sub-claims; each recommendation on the authors' data and in their archived runs "
            "too; and our runs set beside the authors'.</p></div>")
