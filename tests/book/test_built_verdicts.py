"""Every verdict a built page prints is the scorecard's verdict for the same test, after Holm.

Run by `make book` after the build (BINN_CHECK_BUILT_HTML=1; skipped otherwise, as
test_built_html.py).  How a printed verdict is matched to its test:

* the scorecard page carries every test's verdict (``claims.scorecard.scorecard_verdicts``: the
  name ``verdicts.subclaim_id`` gives it -> the verdict's word) in an invisible record
  (``presentation.verdict_marks.record_html``);
* a verdict printed in generated Markdown (the Supporting Material pages' lists) sits in a span
  that names its test (``verdict_marks.verdict_md``; an empty name: a comparison the scorecard
  does not count, which the page says);
* a verdict glued as text into a chapter's prose (``{glue:text}``) cannot carry a name, so the
  chapter carries a record of its glued verdicts (glue name -> test) and the glued spans are
  matched to their names in the order the page's source names them;
* the chapters' boxes (and any page) quote the sub-claim's words, "“words” (verdict)": matched by
  those words;
* a claim's outcome, its mark and word, stands beside its number ("Claim 9, title: ≈ not
  resolved" in a chapter's box, "Claim 9 ≈ not resolved" on the scorecard; on the landing page
  the claims listed after an outcome's mark, "≈ 5 are not resolved: claim 3, ...; claim 9, ..."):
  matched by that number.
"""
from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("BINN_BUILT_HTML_DIR", ROOT / "_build" / "html"))
if os.environ.get("BINN_CHECK_BUILT_HTML") != "1":
    pytest.skip("checks the built book; `make book` runs them after the build (BINN_CHECK_BUILT_HTML=1)",
                allow_module_level=True)

import bs4  # noqa: E402

from binn_utils.analysis.verdicts import WITH_PAPER, Outcome, Verdict  # noqa: E402
from binn_utils.presentation.verdict_marks import MARKS, RECORD_CLASS, VERDICT_CLASS  # noqa: E402

#: the words a page prints for a verdict: its value ("agrees") or the rest of a sentence about the paper
PHRASES = sorted([(v.value, v) for v in Verdict] + [(w, v) for v, w in WITH_PAPER.items()],
                 key=lambda p: -len(p[0]))
ANY_WORD = re.compile(r"\b(" + "|".join(re.escape(v.value) for v in Verdict) + r")\b")


def verdict_of(text: str) -> Verdict | None:
    """The verdict printed words begin with (None: they begin with no verdict)."""
    text = " ".join(text.split()).replace("’", "'")
    return next((v for words, v in PHRASES if text.startswith(words)), None)


def soup(path: Path):
    return bs4.BeautifulSoup(path.read_text(encoding="utf8"), "html.parser")


def pages() -> list[Path]:
    return sorted(p for p in HTML.rglob("*.html")
                  if not {"_static", "_sources", "_images", "_downloads"} & set(p.relative_to(HTML).parts))


def record(s) -> dict:
    """A page's record(s) of its verdicts, merged: {"printed": {...}, "tests": {...}}."""
    out = {"printed": {}, "tests": {}, "outcomes": {}}
    for node in s.select(f"script.{RECORD_CLASS}"):
        data = json.loads(node.string)
        for k in out:
            out[k].update(data.get(k, {}))
    return out


@pytest.fixture(scope="module")
def tests() -> dict:
    """{test name: Verdict} as the scorecard page records them."""
    got = record(soup(HTML / "notebooks" / "scorecard.html"))["tests"]
    assert len(got) > 50, "the scorecard page carries no record of its verdicts"
    return {k: Verdict(v) for k, v in got.items()}


def markdown_cells(source: Path) -> list[str]:
    """The Markdown cells of a page's source (a py:percent notebook, or an executed .ipynb)."""
    text = source.read_text(encoding="utf8")
    if source.suffix == ".ipynb":
        return ["".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"]
    cells = re.split(r"^# %%", text, flags=re.M)
    return [c for c in cells if c.split("\n", 1)[0].strip().startswith("[markdown]")]


def glued_names(page: Path) -> list[str] | None:
    """The glue names of the page's ``{glue:text}`` roles in document order, from its source
    (None: no source)."""
    rel = page.relative_to(HTML)
    sources = sorted((HTML / "_sources" / rel.parent).glob(rel.stem + ".*"))
    if not sources:
        return None
    return [m.group(1) for c in markdown_cells(sources[0])
            for m in re.finditer(r"\{glue:text\}`([^`:]+)(?::[^`]*)?`", c)]


def test_every_marked_verdict_is_the_scorecards(tests):
    bad, seen = [], 0
    for page in pages():
        s = soup(page)
        for span in s.select(f"span.{VERDICT_CLASS}"):
            name, printed = span.get("data-test", ""), verdict_of(span.get_text(" "))
            said = Verdict(span["data-verdict"]) if span.get("data-verdict") else None
            where = f"{page.relative_to(HTML)}: {span.get_text(' ')[:60]!r}"
            if printed is not None and said is not None and printed is not said:
                bad.append(f"{where}: its words say {printed.value}, its mark {said.value}")
            printed = printed or said       # a study's own words for the verdict ("cannot be told from ...")
            if printed is None:
                bad.append(f"{where}: a marked span that begins with no verdict")
            elif not name:
                if "not counted" not in s.get_text(" "):
                    bad.append(f"{where}: a verdict the scorecard does not count, on a page that does not say so")
            elif name not in tests:
                bad.append(f"{where}: names {name!r}, which the scorecard does not judge")
            else:
                seen += 1
                if printed is not tests[name]:
                    bad.append(f"{where}: the scorecard's {name!r} {tests[name].value}")
    assert not bad, "printed verdicts that are not the scorecard's:\n" + "\n".join(bad)
    assert seen >= 20, f"only {seen} marked verdicts name a test of the scorecard"


def test_every_glued_verdict_is_the_scorecards(tests):
    bad, seen, parts = [], 0, defaultdict(list)
    for page in pages():
        s = soup(page)
        printed = record(s)["printed"]
        spans = s.select("span.pasted-text")
        names = glued_names(page)
        verdict_spans = [(i, sp) for i, sp in enumerate(spans) if verdict_of(sp.get_text(" ")) is not None]
        if not verdict_spans:
            continue
        rel = page.relative_to(HTML)
        if names is None or len(names) != len(spans):
            bad.append(f"{rel}: {len(verdict_spans)} glued verdicts that cannot be matched to their glue names")
            continue
        for i, sp in verdict_spans:
            name, word = names[i], verdict_of(sp.get_text(" "))
            entry = printed.get(name)
            if entry is None:
                bad.append(f"{rel}: {name} prints {word.value!r} and names no test (not in the page's record)")
            elif entry["test"] is None:
                continue                # a comparison of this run alone (e.g. the chapter run with other parameters)
            elif entry["test"] not in tests:
                bad.append(f"{rel}: {name} names {entry['test']!r}, which the scorecard does not judge")
            elif entry["part"]:
                parts[(str(rel), entry["test"])].append(word)
            else:
                seen += 1
                if word is not tests[entry["test"]]:
                    bad.append(f"{rel}: {name} prints {word.value!r}; the scorecard's {entry['test']!r} "
                               f"{tests[entry['test']].value}")
    for (rel, name), words in parts.items():
        want = tests[name]      # a sentence of several comparisons: it agrees only if each part does
        if (want is Verdict.AGREES and any(w is not Verdict.AGREES for w in words)
                or want is Verdict.DISAGREES and Verdict.DISAGREES not in words):
            bad.append(f"{rel}: the parts of {name!r} print {[w.value for w in words]}; the scorecard's {want.value}")
    assert not bad, "glued verdicts that are not the scorecard's:\n" + "\n".join(bad)
    assert seen >= 20, f"only {seen} glued verdicts name a test of the scorecard"


def _page_words(label: str) -> str:
    """A sub-claim's words as the built page's text shows them ($x$ -> \\(x\\)), without spaces (a
    page's text puts them around its math) and with the typographer's apostrophes."""
    return re.sub(r"\s+", "", re.sub(r"\$([^$]+)\$", r"\\(\1\\)", label)).replace("’", "'")


def _disagreeing(text: str):
    """The sub-claims a page names after "disagreeing: " (a chapter's box, the scorecard's table:
    ``scorecard_text.what_failed``): “words”, each perhaps after its group, joined by "; "."""
    item = re.compile(r"(?:[^“”;|]{0,80}: )?“([^”]+)”(?:; )?")
    for m in re.finditer(r"disagreeing: ", text):
        at = m.end()
        while (q := item.match(text, at)) is not None:
            yield q.group(1)
            at = q.end()


def test_quoted_sub_claims_print_the_scorecards_verdict(tests):
    """“words” (verdict) on any page (the chapters' boxes, the scorecard): the verdict of the
    sub-claim with those words (one of them, where several groups share the words); “words”
    after "disagreeing: ": a sub-claim that disagrees."""
    by_words = defaultdict(set)
    for name, v in tests.items():
        by_words[_page_words(name.split(" | ", 2)[2])].add(v)
    bad, seen = [], 0
    quoted = re.compile(r"“([^”]+)” \((" + "|".join(re.escape(v.value) for v in Verdict) + r")\)")
    for page in pages():
        text = " ".join(soup(page).get_text(" ").split())
        said = [(m.group(1), Verdict(m.group(2))) for m in quoted.finditer(text)]
        for label, verdict in said + [(label, Verdict.DISAGREES) for label in _disagreeing(text)]:
            words = _page_words(label)
            if words not in by_words:
                continue
            seen += 1
            if verdict not in by_words[words]:
                bad.append(f"{page.relative_to(HTML)}: “{words}” ({verdict.value}); the scorecard: "
                           f"{sorted(v.value for v in by_words[words])}")
    assert not bad, "quoted sub-claims with another verdict than the scorecard's:\n" + "\n".join(bad)
    assert seen >= 5, f"only {seen} quoted sub-claims found in the book"


def test_supporting_lists_mark_every_verdict():
    """On the Supporting Material pages every verdict word in the generated lists under the
    figures sits in a marked span (so that the tests above read it)."""
    bad = []
    for page in sorted((HTML / "book" / "supporting").glob("*.html")) + [HTML / "notebooks" / "supplementary.html"]:
        for ul in soup(page).select("div.cell_output ul"):
            for span in ul.select(f"span.{VERDICT_CLASS}"):
                span.decompose()
            for li in ul.find_all("li"):
                text = " ".join(li.get_text(" ").split())
                if ANY_WORD.search(text):
                    bad.append(f"{page.relative_to(HTML)}: {text[:120]!r}")
    assert not bad, "verdicts printed without the test they repeat:\n" + "\n".join(bad)


OUTCOME_WORDS = "|".join(re.escape(o.value) for o in sorted(Outcome, key=lambda o: -len(o.value)))
MARK = "[" + "".join(sym for sym, _ in MARKS.values()) + "]"
OUTCOME_PATTERNS = (re.compile(rf"\bClaim (\d+), [^:]{{1,200}}?: ({MARK}) ({OUTCOME_WORDS})"),
                    re.compile(rf"\bClaim (\d+) ({MARK}) ({OUTCOME_WORDS})"),
                    re.compile(rf"({MARK}) claim (\d+),"))
#: the landing page's list: "✔ 4 hold: claim 2, title (Fig. 2); claim 4, ..." (its mark, then the claims it names)
LANDING_ITEM = re.compile(rf"({MARK}) \d+ [a-z, ]{{2,40}}: ([^{MARK[1:-1]}]*)")


def test_every_claims_outcome_printed_is_the_scorecards():
    outcomes = {int(k): Outcome(v) for k, v in record(soup(HTML / "notebooks" / "scorecard.html"))["outcomes"].items()}
    assert len(outcomes) == 12, "the scorecard page carries no record of its claims' outcomes"
    by_mark = {sym: o for o, (sym, _) in MARKS.items()}
    bad, seen = [], 0
    for page in pages():
        text = " ".join(soup(page).get_text(" ").split())
        for i, pattern in enumerate(OUTCOME_PATTERNS):
            for m in pattern.finditer(text):
                number, mark = (int(m.group(2)), m.group(1)) if i == 2 else (int(m.group(1)), m.group(2))
                said = {by_mark[mark]} | ({Outcome(m.group(3))} if i < 2 else set())
                seen += 1
                if said != {outcomes.get(number)}:
                    bad.append(f"{page.relative_to(HTML)}: claim {number} printed {[o.value for o in said]}; "
                               f"the scorecard: {outcomes.get(number)}")
    box = soup(HTML / "book" / "intro.html").find(id="headline-box")
    for item in (box.find_all("li") if box is not None else []):
        m = LANDING_ITEM.match(" ".join(item.get_text(" ").split()))
        for number in (map(int, re.findall(r"\bclaim (\d+),", m.group(2))) if m else ()):
            seen += 1
            if by_mark[m.group(1)] is not outcomes.get(number):
                bad.append(f"book/intro.html: claim {number} listed under {m.group(1)}; the scorecard: {outcomes.get(number)}")
    assert not bad, "claims' outcomes that are not the scorecard's:\n" + "\n".join(bad)
    assert seen >= 24, f"only {seen} claims' outcomes found printed"
