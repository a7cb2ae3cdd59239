"""Every figure caption starts with the paper's figure it repeats (or says it has none),
so that the book's own figure numbers, which run through the whole book, are never read
as the paper's."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from binn_utils import studies
from binn_utils.presentation import tables

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "book").rglob("*.md"))
FIGURE = re.compile(r"```\{(?:glue:)?figure\}[^\n]*\n((?::[^\n]*\n)*)\n?(?P<caption>[^\n]*)")


def captions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        text = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in text.splitlines())
    return [m.group("caption") for m in FIGURE.finditer(text)]


def test_the_book_has_figures():
    assert sum(len(captions(p)) for p in SOURCES) >= 15


def glued_paper_figures(source: str) -> list[re.Pattern]:
    """The names glued from ``tables.paper_figure_words`` (an f-string's {...} as any word)."""
    return [re.compile(re.sub(r"\\\{\w+\\\}", r"\\w+", re.escape(name)))
            for name in re.findall(r'glue\(f?"([^"]+)", tables\.paper_figure_words\(', source)]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_each_caption_starts_with_the_papers_figure(path):
    glued = glued_paper_figures(path.read_text(encoding="utf-8"))
    for caption in captions(path):
        m = re.match(r"\{glue:text\}`(\w+)` ", caption)
        assert m, f"{path.name}: caption does not start with the paper's figure: {caption[:80]!r}"
        assert any(g.fullmatch(m.group(1)) for g in glued), \
            f"{path.name}: {m.group(1)} is not glued from tables.paper_figure_words"


def test_paper_figure_words():
    assert tables.paper_figure_words(18) == "Paper's Fig. 18."
    assert tables.paper_figure_words(None) == "Not in the paper."
    assert tables.paper_figure_words(None, extends=6) == "Not in the paper (it extends the paper's Fig. 6)."
    assert tables.paper_figure_words(None, absent="a configuration it does not show") == \
        "Not in the paper (a configuration it does not show)."
    # the main chapters' studies know their figure, the Supporting Material's repeats theirs
    assert [studies.REGISTRY[n].paper_figure for n in ("learning_rate", "loss_weight", "architecture",
                                                        "batch_size")] == [3, 4, 5, 6]
    assert studies.REGISTRY["learning_rate"].paper_figures[(0.01, True)] == 18
