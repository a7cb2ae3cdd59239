"""No generated sentence of the built book reports more than three numbers.

Run by `make book` after the build (BINN_CHECK_BUILT_HTML=1; skipped otherwise).  What counts:

* a *generated* sentence is one of a paragraph or list item that a notebook wrote (its
  Markdown output, ``div.cell_output``) or filled (it holds glued text, ``span.pasted-text``);
  not one in a table, a figure caption, code, or a folded box (the rerun commands);
* a sentence ends at a full stop, question or exclamation mark before a capital, not after an
  abbreviation (``prose.sentences``);
* its numbers are ``prose.numbers_of``'s: math (symbols, settings written in math), a network
  size "(4, 32)", an estimate's interval "[0.23, 0.64]" (one number with its estimate), a
  reference ("Fig. 5", "claim 9") and a file name do not count.

The book does not meet this yet everywhere (the scorecard's rows of evidence list every median
with its interval): ``crowded_sentences.json`` holds, per page, how many of its sentences
report more than three numbers, and a page may not get more.  Lower a page's count there when
its generators are mended.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("BINN_BUILT_HTML_DIR", ROOT / "_build" / "html"))
if os.environ.get("BINN_CHECK_BUILT_HTML") != "1":
    pytest.skip("checks the built book; `make book` runs them after the build (BINN_CHECK_BUILT_HTML=1)",
                allow_module_level=True)

import bs4  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from prose import crowded  # noqa: E402

BUDGET = Path(__file__).with_name("crowded_sentences.json")
MOST = 3


def generated_sentences_over(page: Path) -> list[str]:
    """The generated sentences of ``page`` that report more than :data:`MOST` numbers."""
    s = bs4.BeautifulSoup(page.read_text(encoding="utf8"), "html.parser")
    out = []
    for el in (s.select_one("article") or s).find_all(["p", "li"]):
        if el.find_parent(["table", "figcaption", "pre", "code"]) or el.find_parent(class_="dropdown"):
            continue
        if el.name == "p" and el.find_parent("li"):
            continue                      # read once, as its list item
        if el.find_parent(class_="cell_output") is None and el.find(class_="pasted-text") is None:
            continue                      # written by hand
        out += crowded(el.get_text(" "), MOST)
    return out


def pages() -> list[Path]:
    assert (HTML / "index.html").is_file(), f"no built book at {HTML}: run `make book` first"
    return sorted(p for p in HTML.rglob("*.html")
                  if not {"_static", "_sources", "_images", "_downloads"} & set(p.relative_to(HTML).parts))


def test_no_page_has_more_crowded_sentences_than_it_had():
    budget = json.loads(BUDGET.read_text())
    over = []
    for page in pages():
        rel = str(page.relative_to(HTML))
        found = generated_sentences_over(page)
        if len(found) > budget.get(rel, 0):
            over.append(f"{rel}: {len(found)} sentences with more than {MOST} numbers (at most "
                        f"{budget.get(rel, 0)}):\n  " + "\n  ".join(f[:200] for f in found))
    assert not over, "\n".join(over)
