"""How a verdict is marked and how prose math becomes HTML: the coloured mark of each outcome
(the scorecard's, the chapters' boxes', the recommendations table's) and inline math for the
landing page's HTML, one home for both."""
from __future__ import annotations

import html
import re

from ..analysis.verdicts import Outcome

MARKS = {Outcome.HOLDS: ("✔", "#1a7f37"), Outcome.HOLDS_EXCEPT: ("◐", "#9a6700"),
         Outcome.FAILS: ("✘", "#cf222e"), Outcome.UNRESOLVED: ("≈", "#57606a"),
         Outcome.NOT_TESTED: ("○", "#57606a")}


def mark_md(outcome: Outcome, text: str = "") -> str:
    """The coloured mark of an outcome, followed by ``text``."""
    return f'<span style="color:{MARKS[outcome][1]};font-weight:bold">{MARKS[outcome][0]}{" " + text if text else ""}</span>'


def mark_html(outcome: Outcome) -> str:
    """The coloured mark of an outcome as HTML."""
    sym, colour = MARKS[outcome]
    return f'<span style="color:{colour};font-weight:bold">{sym}</span>'


def tex_to_html(text: str) -> str:
    """HTML for the landing page: inline $...$ as MathJax spans (as Sphinx writes them) and
    `command` as inline code (as MyST writes it, so that a command copies as typed)."""
    def piece(p: str) -> str:
        if len(p) > 1 and p[0] == p[-1] == "$":
            return f'<span class="math notranslate nohighlight">\\({html.escape(p[1:-1])}\\)</span>'
        if len(p) > 1 and p[0] == p[-1] == "`":
            return f'<code class="docutils literal notranslate"><span class="pre">{html.escape(p[1:-1])}</span></code>'
        return html.escape(p)
    return "".join(piece(p) for p in re.split(r"(\$[^$]+\$|`[^`]+`)", text))
