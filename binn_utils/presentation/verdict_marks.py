"""How a verdict is marked and how prose math becomes HTML: the coloured mark of each outcome
(the scorecard's, the chapters' boxes', the recommendations table's), inline math for the
landing page's HTML, and the test a printed verdict repeats, carried in the page (read back by
``tests/book/test_built_verdicts.py``)."""
from __future__ import annotations

import copy
import html
import json
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


#: the class of a printed verdict's span, and of the record of a page's glued verdicts
VERDICT_CLASS, RECORD_CLASS = "binn-verdict", "binn-verdict-record"


def verdict_md(text: str, test: str | None, verdict=None) -> str:
    """A verdict's words in Markdown, in a span that names the scorecard's test they repeat
    (``verdicts.subclaim_id``; None or "": a comparison the scorecard does not count) and, where its
    words are a study's own ("cannot be told from that at 1e-3"), the verdict they say."""
    said = f' data-verdict="{verdict.value}"' if verdict is not None else ""
    return f'<span class="{VERDICT_CLASS}" data-test="{html.escape(test or "", quote=True)}"{said}>{text}</span>'


def record_html(printed: dict, tests: dict | None = None, outcomes: dict | None = None) -> str:
    """The page's record, invisible: its glued verdicts ({glue name: {"test", "part"}}, the glued
    words being plain text that cannot carry it) and, on the scorecard, every test's verdict and
    every claim's outcome ({number: word})."""
    data = json.dumps({"printed": printed, "tests": tests or {}, "outcomes": outcomes or {}},
                      ensure_ascii=True).replace("</", "<\\/")
    return f'<script type="application/json" class="{RECORD_CLASS}">{data}</script>'


def marked_summary(summary):
    """A copy of a (held) study summary whose verdicts' words (each key's and its ``_with_paper``)
    are in :func:`verdict_md`'s spans, naming the tests they repeat (``Summary.tests``; "": not
    counted), for a page that prints them in Markdown."""
    out = copy.deepcopy(summary)
    for key in summary.verdicts:
        for k in (key, f"{key}_with_paper"):
            if k in out:
                out[k] = verdict_md(out[k], summary.tests.get(key), summary.verdicts[key])
    return out
