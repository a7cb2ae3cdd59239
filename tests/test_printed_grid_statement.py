"""Which runs the printed Fig. 2 draws is stated once, in the errata (item 37), and the
chapters refer to it: the errata's list agrees with itself (item 12 names Figs. 1 and 2 as the
exceptions to 'the main text uses the 71-point grid'), and the noise chapter points to that item
and generates its own finding from its table (``authors_figures.printed_grid_words``)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ERRATA = (ROOT / "book" / "errata.md").read_text(encoding="utf8")


def errata_items() -> dict[int, str]:
    """{number: text} of the errata's numbered items (a Markdown list: 'N. **Title.** ...')."""
    starts = list(re.finditer(r"^(\d+)\. \*\*", ERRATA, re.M))
    return {int(m.group(1)): ERRATA[m.start(): (starts[i + 1].start() if i + 1 < len(starts) else len(ERRATA))]
            for i, m in enumerate(starts)}


def test_the_errata_state_the_printed_grid_once_and_agree_with_themselves():
    items = errata_items()
    assert sorted(items) == list(range(1, len(items) + 1))          # numbered 1, 2, ... as the chapters cite them
    printed = [n for n, t in items.items() if "printed Fig. 2 is the 351-point run" in t]
    assert printed == [37]
    assert "one statement of which runs the printed Fig. 2 draws" in items[37]
    twelve = items[12]
    assert "with one exception" not in twelve and "two exceptions, Figs. 1 and 2" in twelve and "item 37" in twelve


def test_the_chapters_refer_to_the_errata_and_do_not_restate_it():
    restated = re.compile(r"plotting notebook for it reads their 351-point runs|the printed figure is the dense")
    for path in sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "book").glob("*.md")):
        if path.name != "errata.md":
            assert not restated.search(path.read_text(encoding="utf8")), path.name
    noise = (ROOT / "notebooks" / "noise.py").read_text(encoding="utf8")
    assert "item 37 of the {doc}`../book/errata`" in noise
    assert "authors_figures.printed_grid_words(printed_vs" in noise          # the finding from its own table
