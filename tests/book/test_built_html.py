"""Checks on the built book (_build/html), as a reader's browser gets it.

Run by `make book` (and so by `make test`) right after `jupyter-book build`, with
BINN_CHECK_BUILT_HTML=1: then a missing build is a failure, not a skip. In a plain
`pytest tests` run (before any build, or with a stale one) these tests skip.

* no figure is only a "not run" note (a placeholder image with a "not run" caption, or an
  image so flat that it can only be a line of text);
* no glued text shows literal `$...$` math (glue:text pastes plain text: math belongs in
  the Markdown around it);
* every page that loads MathJax loads a local copy that exists in the build (the
  equations render without network), and the pages with equations do load it;
* the landing page has the headline box ("does the paper hold up?") with its counts, and says no
  paragraph twice nor one of the scorecard's word for word;
* the text reads as written (tests/prose.py: no number twice in a row, no "lowered by -x",
  no sentence starting in lower case, ...), paragraph by paragraph and cell by cell;
* every figure caption starts with the paper's figure it repeats, or says it has none;
* no figure has texts that collide (the layout record ``plotting.save`` writes for each);
* every figure links a table of everything it draws, served with the book, holding the series drawn.
"""
from __future__ import annotations

import os
import re
import struct
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("BINN_BUILT_HTML_DIR", ROOT / "_build" / "html"))
REQUIRED = os.environ.get("BINN_CHECK_BUILT_HTML") == "1"

if not REQUIRED:
    pytest.skip("checks the built book; `make book` runs them after the build (BINN_CHECK_BUILT_HTML=1)",
                allow_module_level=True)

import bs4  # noqa: E402  (installed with the book's theme)


def pages() -> list[Path]:
    assert (HTML / "index.html").is_file(), f"no built book at {HTML}: run `make book` first"
    return sorted(p for p in HTML.rglob("*.html")
                  if not {"_static", "_sources", "_images"} & set(p.relative_to(HTML).parts))


def soup(path: Path):
    return bs4.BeautifulSoup(path.read_text(encoding="utf8"), "html.parser")


def local_target(page: Path, src: str) -> Path | None:
    """The file a relative URL points to, None for an absolute (network) URL."""
    url = urlparse(src)
    if url.scheme or url.netloc or src.startswith("//"):
        return None
    return (page.parent / unquote(url.path)).resolve()


def png_size(path: Path) -> tuple[int, int]:
    with path.open("rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_the_book_was_built():
    assert len(pages()) > 10


def test_no_placeholder_figures():
    bad = []
    for page in pages():
        for fig in soup(page).find_all("figure"):
            caption = fig.find("figcaption")
            text = caption.get_text(" ", strip=True) if caption else ""
            if re.search(r"\bnot run\b", text, re.I):
                bad.append(f"{page.relative_to(HTML)}: figure captioned {text[:80]!r}")
            for img in fig.find_all("img"):
                target = local_target(page, img.get("src", ""))
                if target and target.suffix == ".png" and target.is_file():
                    w, h = png_size(target)
                    if w > 4 * h and h < 250:  # a line of text, not a plot
                        bad.append(f"{page.relative_to(HTML)}: {img['src']} is {w} x {h} px")
    assert not bad, "figures that are only a note:\n" + "\n".join(bad)


def test_no_literal_math_in_glued_text():
    bad = []
    for page in pages():
        for node in soup(page).select(".pasted-text, .pasted-inline"):
            text = node.get_text()
            if re.search(r"\$[^$]+\$", text) or "\\mathrm" in text or "\\theta" in text:
                bad.append(f"{page.relative_to(HTML)}: {text[:100]!r}")
    assert not bad, "glued text with TeX left in it:\n" + "\n".join(bad)


def test_mathjax_is_served_with_the_book():
    loading, with_math = [], []
    for page in pages():
        s = soup(page)
        scripts = [sc.get("src", "") for sc in s.find_all("script") if "mathjax" in sc.get("src", "").lower()]
        for src in scripts:
            target = local_target(page, src)
            assert target is not None, f"{page.relative_to(HTML)} loads MathJax from the network: {src}"
            assert target.is_file(), f"{page.relative_to(HTML)}: MathJax script {src} is not in the build"
            assert HTML.resolve() in target.parents, f"{page.relative_to(HTML)}: {src} points outside the build"
        if scripts:
            loading.append(page)
        if s.select(".math"):
            with_math.append(page)
    assert with_math, "no page with equations"
    missing = [str(p.relative_to(HTML)) for p in with_math if p not in loading]
    assert not missing, "pages with equations that load no MathJax: " + ", ".join(missing)


def landing_page() -> Path:
    index = HTML / "index.html"
    refresh = soup(index).find("meta", attrs={"http-equiv": re.compile("refresh", re.I)})
    if refresh is None:
        return index
    url = refresh.get("content", "").split("url=", 1)[-1].strip()
    return local_target(index, url) or index


def test_landing_page_has_the_headline_box():
    """The landing page gives the answer once, briefly: the claims counted by outcome (the counts
    adding up to the scorecard's claims), the recommendations counted, and a link to the scorecard."""
    page = landing_page()
    box = soup(page).find(id="headline-box")
    assert box is not None, f"no headline box on {page.relative_to(HTML)}"
    text = box.get_text(" ", strip=True)
    assert "Does the paper hold up?" in text
    total = int(re.search(r"the paper['’]s (\d+) claims", text).group(1))
    items = " ".join(li.get_text(" ", strip=True) for li in box.find_all("li"))      # one per outcome
    said = [int(n) for n in re.findall(r"(\d+) (?:holds?|does not hold|do not hold|is not|are not)\b", items)]
    assert said and sum(said) == total, f"the counts {said} do not add up to {total} claims: {text[:300]}"
    assert re.search(r"Of the paper['’]s \d+ recommendations", text)
    assert box.find("a", href=re.compile(r"scorecard\.html")), "headline box does not link the scorecard"


def paragraphs(page: Path) -> list[str]:
    """The paragraphs and list items of a page's article, as read (whitespace folded), the
    longer ones only (a short phrase may recur: a heading), not a table's cells (the same
    sub-claim stands in a row of each configuration it is tested on)."""
    article = soup(page).select_one("article") or soup(page)
    out = []
    for el in article.find_all(["p", "li"]):
        if (el.name == "p" and el.find_parent("li")) or el.find_parent("table"):
            continue
        text = " ".join(el.get_text(" ", strip=True).split())
        if len(text) > 80:
            out.append(text)
    return out


def test_no_paragraph_is_said_twice_on_the_landing_page_or_the_scorecard():
    """The landing page gives the answer once and the scorecard the full tables: no paragraph
    stands twice on one page, nor word for word on both."""
    landing, card = paragraphs(landing_page()), paragraphs(HTML / "notebooks" / "scorecard.html")
    for name, paras in (("landing page", landing), ("scorecard", card)):
        twice = sorted({p for p in paras if paras.count(p) > 1})
        assert not twice, f"said twice on the {name}:\n" + "\n".join(p[:160] for p in twice)
    both = sorted(set(landing) & set(card))
    assert not both, "word for word on the landing page and the scorecard:\n" + "\n".join(p[:160] for p in both)


def test_the_answer_opens_with_the_papers_recommendations_and_the_agreement_with_the_authors():
    """Issues 46 and 47: the scorecard opens with the table of the paper's recommendations (each
    answered on our data, the authors' data and their archive) and one sentence; the answer gives
    each archived figure's ratio ours / theirs with its interval and decision, and names no count
    of comparisons that could not differ. (The landing page counts them briefly and links here.)"""
    for page in (HTML / "notebooks" / "scorecard.html",):
        doc = soup(page)
        text = doc.get_text(" ", strip=True)
        assert re.search("The paper['’]s recommendations, tested", text) and re.search("On our runs, the paper['’]s advice", text)
        table = next(t for t in doc.find_all("table") if "the paper recommends" in t.get_text())
        assert len(table.find_all("tr")) >= 8                      # the head and seven recommendations
        fid = next(t for t in doc.find_all("table") if "ours / authors" in t.get_text())
        assert re.search(r"Fig\. 3 .*\d\.\d+ \[\d\.\d+, \d\.?\d*\]", fid.get_text(" ", strip=True))
        assert re.search(r"equivalent within 1\.25x|cannot be told within 1\.25x|differs", fid.get_text(" "))
        assert not re.search(r"in (none|\d+) of \d+ comparisons", text)


@pytest.mark.parametrize("chapter", ["learning_rate", "loss_weighting", "architecture", "batch_size"])
def test_each_chapter_pools_its_figure_against_the_authors(chapter):
    text = soup(HTML / "notebooks" / f"{chapter}.html").get_text(" ", strip=True)
    assert re.search(r"On our data \(\d+ datasets\), pooled over the figure['’]s \d+ settings", text)
    assert re.search(r"\d \[[\d.]+, [\d.]+\] times the authors['’]: (equivalent within|differs|cannot be told within)", text)


#: The chapters whose figures carry "data behind this figure" links, and the figures' files.
FIGURE_DATA = {"framework": ("fig1_framework",), "noise": ("fig2_noise",),
               "learning_rate": ("fig3_learning_rate", "fig3_authors"),
               "loss_weighting": ("fig4_loss_weighting", "fig4_authors"),
               "architecture": ("fig5_architecture", "fig5_authors"),
               "batch_size": ("fig6_batch_size", "fig6_budgets", "fig6_authors")}


@pytest.mark.parametrize("chapter", sorted(FIGURE_DATA))
def test_figure_data_is_linked_and_served(chapter):
    """Each figure's table is a download link under it, and the CSV it points to is in the
    build, with a header and rows."""
    page = HTML / "notebooks" / f"{chapter}.html"
    links = {Path(a["href"]).name: local_target(page, a["href"]) for a in soup(page).find_all("a", href=True)
             if a["href"].endswith(".csv")}
    for name in FIGURE_DATA[chapter]:
        target = links.get(f"{name}.csv")
        assert target is not None, f"{chapter}: no link to {name}.csv"
        lines = target.read_text(encoding="utf8").splitlines()
        assert len(lines) > 1 and "source" in lines[0].split(","), target


def _images_and_data_links(page: Path) -> list[tuple[str, list[str]]]:
    """The page's figures in reading order, each (its image's source, the links to a table of
    everything drawn, ``NAME_drawn.csv``, between it and the next image)."""
    main = soup(page).select_one("main") or soup(page)
    found = []
    for el in main.find_all(["img", "a"]):
        if el.name == "img" and not el.get("src", "").startswith("data:") and "logo" not in " ".join(el.get("class", [])):
            found.append((el["src"], []))
        elif el.name == "a" and found and el.get("href", "").endswith("_drawn.csv"):
            found[-1][1].append(el["href"])
    return found


def test_every_figure_links_a_table_of_everything_it_draws():
    """Under every image of every page (the chapters, the Supporting Material, the own-data and
    scratch-assay pages) a link to ``NAME_drawn.csv``: the file is served with the build, opens
    as a CSV with the columns ``drawn_data.COLUMNS``, has as many rows as the figure's layout
    record says were drawn, and rows with coordinates for every series the record names."""
    import csv
    import json
    import math
    from binn_utils.presentation import drawn_data, plotting
    bad, figures_seen = [], 0
    for page in pages():
        where = str(page.relative_to(HTML))
        for src, links in _images_and_data_links(page):
            figures_seen += 1
            if not links:
                bad.append(f"{where}: no link to what {src} draws")
                continue
            target = local_target(page, links[0])
            if target is None or not target.is_file() or HTML.resolve() not in target.parents:
                bad.append(f"{where}: {links[0]} is not served with the book")
                continue
            with target.open(encoding="utf8", newline="") as f:
                rows = list(csv.DictReader(f))
            name = target.name[:-len("_drawn.csv")]
            record = json.loads((plotting.FIGURE_DATA / plotting.LAYOUT / f"{name}.json").read_text())["drawn"]
            if not rows or list(rows[0]) != list(drawn_data.COLUMNS) or len(rows) != record["rows"]:
                bad.append(f"{where}: {target.name} has {len(rows)} rows of {record['rows']} drawn")
                continue

            def placed(row):
                return any(row[k] and math.isfinite(float(row[k])) for k in ("y", "ymin", "ymax", "value"))
            held = {row["series"] for row in rows if row["x"] and math.isfinite(float(row["x"])) and placed(row)}
            bad += [f"{where}: {target.name} has no drawn point of {s!r}" for s in record["series"] if s not in held]
    assert figures_seen >= 40, figures_seen
    assert not bad, "figures without the data they draw:\n" + "\n".join(bad[:60])


def shown_figures() -> set[str]:
    """The figures of the built book, by the tables linked under them (``NAME.csv`` and
    ``NAME_drawn.csv``; a figure's ``NAME_curves.csv`` is its third table)."""
    names = set()
    for page in pages():
        for a in soup(page).find_all("a", href=True):
            name = Path(unquote(urlparse(a["href"]).path)).name
            if name.endswith("_drawn.csv"):
                names.add(name[:-len("_drawn.csv")])
            elif name.endswith(".csv") and not name.endswith("_curves.csv"):
                names.add(name[:-len(".csv")])
    return names


def test_no_figure_has_colliding_texts(tmp_path):
    """Every figure the build saved has its layout record (``plotting.record_layout``, written by
    ``plotting.save`` into book/figure-data/layout) and no record lists two texts that collide
    (tick labels, labels, titles, legends, notes); a planted record that lists one is found,
    and so is a figure without a record."""
    import json
    import shutil
    from binn_utils.presentation import plotting
    names = shown_figures()
    assert len(names) > 10, names
    names |= {p.stem for p in (plotting.FIGURE_DATA / plotting.LAYOUT).glob("own_data_*.json")}  # the own-data page's
    defects = plotting.layout_defects(names)
    assert not defects, "figures whose texts collide:\n" + "\n".join(defects)
    planted = tmp_path / "layout"
    shutil.copytree(plotting.FIGURE_DATA / plotting.LAYOUT, planted)
    first = sorted(names)[0]
    record = json.loads((planted / f"{first}.json").read_text())
    record["collisions"] = [["x tick label '0.1' (panel 1)", "x tick label '0.2' (panel 1)"]]
    (planted / f"{first}.json").write_text(json.dumps(record))
    (planted / f"{sorted(names)[-1]}.json").unlink()
    assert len(plotting.layout_defects(names, planted)) == 2


@pytest.mark.parametrize("chapter", ["learning_rate", "loss_weighting", "architecture", "batch_size"])
def test_the_authors_runs_are_shown_beside_ours(chapter):
    """Figs. 3-6: the comparison figure with the authors' archived runs and its table: whether
    theirs is one more dataset of ours (Figs. 3-5: their median; Fig. 6: their single run),
    with its words."""
    text = soup(HTML / "notebooks" / f"{chapter}.html").get_text(" ")
    assert "Our runs beside the authors" in text and "from their archive" in text
    assert ("ours / authors (range)" in text and "authors / ours" not in text and "Could the difference be the dataset?" in text
            and "beyond what" in text)

def test_the_text_reads_as_written():
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    import prose
    bad = []
    for page in pages():
        s = soup(page)
        for node in s.select("div.highlight, pre, script, style"):
            node.decompose()
        for node in s.select(".MathJax, .math, span.math, code"):   # math and code read as a word
            node.replace_with("X")
        for el in s.select("p, li, figcaption, td, th"):
            if el.find(["p", "li", "td"]):       # an enclosing element: its children are checked
                continue
            bad += [f"{page.relative_to(HTML)}: {d}" for d in prose.defects(el.get_text(" ", strip=True))]
    assert not bad, "garbled text:\n" + "\n".join(bad)


def test_each_caption_starts_with_the_papers_figure():
    bad = []
    for page in pages():
        for cap in soup(page).select("figure figcaption"):
            number = cap.select_one(".caption-number")
            text = cap.get_text(" ", strip=True)
            if number is not None:
                text = text[len(number.get_text(" ", strip=True)):].strip()
            if not re.match(r"(Paper['’]s Fig\. \d+\.|Not in the paper\b)", text):
                bad.append(f"{page.relative_to(HTML)}: {text[:80]!r}")
    assert not bad, "captions that do not start with the paper's figure:\n" + "\n".join(bad)


def test_every_fig_2_caption_names_datasets_x_initialisations():
    """Issue 48: every caption of Fig. 2, or of a figure that extends it, says on how many datasets
    x initialisations each network it draws was run; the chapter's Fig. 2, both u-networks."""
    runs = re.compile(r"\d+(?: to \d+)? datasets? x \d+ initialisations")
    bad, seen = [], 0
    for page in pages():
        for cap in soup(page).select("figure figcaption"):
            text = cap.get_text(" ", strip=True)
            if not re.search(r"Paper['’]s Fig\. 2\.|extends the paper['’]s Fig\. 2\b", text):
                continue
            seen += 1
            need = 2 if "(4, 32)" in text and "(6, 128)" in text else 1     # a caption of both networks
            if len(runs.findall(text)) < need:
                bad.append(f"{page.relative_to(HTML)}: {text[:80]!r}")
    assert seen >= 2 and not bad, "Fig. 2 captions without datasets x initialisations:\n" + "\n".join(bad)


def test_the_scorecard_opens_with_the_plain_answer_and_the_landing_page_points_to_it():
    """The answer in brief, generated from the typed verdicts, opens the scorecard, which says its
    summary once (the claims table after it gives each claim's verdict); the landing page gives
    the answer briefly before its introduction, without the scorecard's tables."""
    doc = soup(HTML / "notebooks" / "scorecard.html")
    assert doc.find(string=re.compile("The answer in brief")) is not None, "no plain answer on the scorecard"
    text = doc.get_text(" ", strip=True)
    assert not re.search("Does the paper hold up|Our tests of the paper['’]s claims", text)
    assert len(re.findall(r"Of the paper['’]s \d+ claims", text)) == 1
    assert re.search(r"of \d+ sub-claims: \d+ agree", text)
    landing = soup(landing_page()).select_one("article")
    text = landing.get_text(" ", strip=True)
    assert text.index("Does the paper hold up?") < text.index("How to read this book")
    assert not [t for t in landing.find_all("table") if re.search("the paper recommends|ours / authors", t.get_text())]
    assert "The answer in brief" not in text


#: the numbers a verdict sentence is made of: with a decimal point or an exponent (figure and
#: claim numbers, which have neither, are left out: a link's title carries them on one side only)
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[+-]?\d+)?(?![\w.])|(?<![\w.])-?\d+e[+-]?\d+(?![\w.])")


def differing_numbers(expected: list[str], shown: list[str]) -> list[str]:
    """Where the numbers ``shown`` (in order) differ from those ``expected``: '' when none do."""
    if expected == shown:
        return []
    i = next((k for k, (a, b) in enumerate(zip(expected, shown)) if a != b), min(len(expected), len(shown)))
    return [f"number {i + 1}: expected {expected[i:i + 3]}, shown {shown[i:i + 3]} "
            f"({len(expected)} expected, {len(shown)} shown)"]


def test_the_scorecards_numbers_are_those_the_stored_results_give_now():
    """Every number of the scorecard's claims, evidence and sub-claims, recomputed from the stored
    results by the code that judges them (``judge_all``), is the number the built page shows, in
    the same order; and a number changed in the page (a planted mismatch) is found."""
    from binn_utils.claims import scorecard
    from binn_utils.claims.context import Context
    from binn_utils.presentation import scorecard_text
    expected = DECIMAL.findall(scorecard_text.details_md(scorecard.judge_all(Context(train=False))))
    section = soup(HTML / "notebooks" / "scorecard.html").find(id="claims-evidence-and-sub-claims")
    shown = DECIMAL.findall(section.get_text(" "))
    assert expected, "no number in the scorecard's details"
    assert not differing_numbers(expected, shown), differing_numbers(expected, shown)
    planted = list(shown)
    planted[len(planted) // 2] = planted[len(planted) // 2] + "1"
    assert differing_numbers(expected, planted)


# ----------------------------------------------------------------------------- issue #50: a reader's pages
#: CSS values that let a line break inside a word or a number
BREAKS_INSIDE_WORDS = re.compile(r"(overflow-wrap|word-wrap)\s*:\s*(anywhere|break-word)|word-break\s*:\s*"
                                 r"(break-all|break-word)", re.I)


def _css_rules(css: str):
    """(selector, declarations) of a style sheet's plain rules (media queries opened up)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for m in re.finditer(r"([^{}@]+)\{([^{}]*)\}", css):
        yield " ".join(m.group(1).split()), m.group(2)


def test_no_table_cell_breaks_inside_a_word():
    """No style sheet a page loads lets a table cell (or what is in it) break inside a word or a
    number, and the book's own sheet holds every element of a cell to whole words (a theme's
    `a {overflow-wrap: break-word}` would otherwise reach the links inside cells)."""
    sheets = set()
    for page in pages():
        for link in soup(page).find_all("link", rel="stylesheet"):
            target = local_target(page, link.get("href", "").split("?")[0])
            if target is not None and target.is_file():
                sheets.add(target)
    assert any(s.name == "figures.css" for s in sheets), "the book's figures.css is not loaded"
    bad, ours = [], {}
    for sheet in sorted(sheets):
        for selector, decls in _css_rules(sheet.read_text(encoding="utf8", errors="replace")):
            in_cells = re.search(r"(^|[\s,>+~(])(table|td|th|tr|tbody|thead)\b", selector)
            if in_cells and BREAKS_INSIDE_WORDS.search(decls):
                bad.append(f"{sheet.name}: {selector} {{{decls.strip()}}}")
            if sheet.name == "figures.css":
                ours[selector] = decls
    assert not bad, "rules that break table cells inside words:\n" + "\n".join(bad)
    whole = [s for s, d in ours.items() if "td *" in s and "th *" in s
             and re.search(r"overflow-wrap\s*:\s*normal", d) and re.search(r"word-break\s*:\s*normal", d)]
    assert whole, "figures.css does not hold what is inside a table cell to whole words"


#: pandas as it prints itself: a describe() column, a number in its default float format, a Series' footer
PANDAS_PRINTED = re.compile(r"\b\d\.\d{6}e[-+]\d\d\b|\bdtype: \w+|^\s*(?:count|25%|50%|75%)\s*$", re.M)


def test_no_raw_pandas_output():
    """What a chapter's code computes with pandas is shown as a table of the book
    (``frame_tables.table``): no DataFrame as pandas renders it, no Series or describe() printout,
    no number in pandas' float format ("5.000000e-07")."""
    bad = []
    for page in pages():
        s = soup(page)
        where = page.relative_to(HTML)
        bad += [f"{where}: a DataFrame as pandas renders it" for _ in s.select("table.dataframe")]
        for out in s.select("div.cell_output"):
            for m in PANDAS_PRINTED.finditer(out.get_text("\n")):
                bad.append(f"{where}: {m.group(0).strip()!r} in a cell's output")
    assert not bad, "raw pandas output:\n" + "\n".join(bad)


def _package_names() -> tuple[set, set]:
    """(the package's module names, its snake_case names: functions, classes' attributes,
    module constants and identifier-like string constants) from binn_utils' source."""
    import ast
    modules, names = set(), set()
    for path in (ROOT / "binn_utils").rglob("*.py"):
        modules.add(path.stem)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            found = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                found.append(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.append(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.append(node.target.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
            names.update(n for n in found if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", n))
    return modules - {"__init__"}, names


#: file suffixes: "diagnostics.md" or "own_data_example.csv" name a file, not code
FILE_SUFFIX = r"(?:py|csv|json|md|png|html|npz|ipynb|toml|txt|yml|yaml|tex|sh|log|cfg|db)"


def test_no_package_code_names_in_prose():
    """Sentences name things in words: no dotted name of the package's code (`diagnostics.CANDIDATES`,
    a function by its module) in a paragraph, list item or table cell, and no snake_case name of the
    package (`repeat_checks`, `u_theta`) in a paragraph or list item. A command a reader types
    (code with a space in it, `binn sweep learning_rate ...`), a file name, math and a module's
    full path (`binn_utils.analysis.diagnostics`, where a definition lives) are not prose."""
    modules, names = _package_names()
    dotted = re.compile(rf"(?<![\w./-])((?:binn_utils\.)?(?:\w+\.)*({'|'.join(sorted(modules))})\.([A-Za-z_]\w*))"
                        rf"(?![\w/-])(?!\.{FILE_SUFFIX}\b)")
    snake = re.compile(r"(?<![\w./\\-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w/-])(?!\.\w)")
    bad = []
    for page in pages():
        s = soup(page)
        for node in s.select("div.highlight, pre, script, style, .math, span.math, .MathJax, mjx-container"):
            node.decompose()
        for code in s.find_all("code"):
            text = code.get_text(" ", strip=True)
            if " " in text or "=" in text or re.search(rf"\.{FILE_SUFFIX}$|/", text):
                code.replace_with("X")         # a command, an assignment or a file: what a reader types
        for el in s.select("p, li, td, th"):
            if el.find(["p", "li", "td"]):       # an enclosing element: its children are checked
                continue
            text = el.get_text(" ", strip=True)
            text = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$", " ", text)      # math left as TeX
            where = f"{page.relative_to(HTML)}: "
            for m in dotted.finditer(text):
                full = m.group(1)
                if full.startswith("binn_utils.") and (ROOT / (full.replace(".", "/") + ".py")).is_file():
                    continue                    # a module's full path: where a definition lives
                if full.startswith("binn_utils.") and (ROOT / full.replace(".", "/")).is_dir():
                    continue
                bad.append(where + f"code name {full!r} in {text[max(0, m.start() - 40): m.end() + 20]!r}")
            if el.name in ("p", "li"):
                for m in snake.finditer(text):
                    if m.group(1) in names and m.group(1) != "binn_utils":   # (the package's own name)
                        bad.append(where + f"code name {m.group(1)!r} in "
                                           f"{text[max(0, m.start() - 40): m.end() + 20]!r}")
    assert not bad, f"code names in prose ({len(bad)}):\n" + "\n".join(sorted(set(bad))[:80])


def test_images_have_alt_text_in_words():
    bad = []
    for page in pages():
        for img in soup(page).find_all("img"):
            alt = (img.get("alt") or "").strip()
            src = img.get("src", "")
            if src.startswith("data:") or "logo" in " ".join(img.get("class", [])):
                continue
            if not alt or alt == src or re.search(r"\.(png|jpe?g|svg|gif)$", alt) or "/" in alt.split(" ")[0]:
                bad.append(f"{page.relative_to(HTML)}: {src} alt={alt!r}")
    assert not bad, "images whose alt text is empty or a file path:\n" + "\n".join(bad[:40])


def test_the_landing_pages_title_names_the_book_once():
    page = landing_page()
    title = " ".join(soup(page).title.get_text().split())
    book = re.search(r'^title:\s*"?(.*?)"?\s*$', (ROOT / "_config.yml").read_text(encoding="utf8"), re.M).group(1)
    assert title.count(book) == 1, title


@pytest.mark.parametrize("chapter", ["learning_rate", "loss_weighting", "architecture", "batch_size", "noise",
                                     "framework", "diagnostics", "supplementary"])
def test_every_chapter_has_its_rerun_box(chapter):
    page = HTML / "notebooks" / f"{chapter}.html"
    box = [a for a in soup(page).select("div.admonition")
           if a.select_one(".admonition-title") and "Rerun this chapter" in a.select_one(".admonition-title").get_text()]
    assert len(box) == 1, f"{chapter}: {len(box)} rerun boxes"
    text = box[0].get_text(" ", strip=True)
    code = " ".join(pre.get_text("") for pre in box[0].select("pre"))   # (highlighting splits it in spans)
    assert f"make rerun NB={chapter}" in code and "binn sweep" in code
    assert re.search(r"[\d.,]+ million replicate-steps", text) and "core-hours on two CPU cores" in text


def test_glued_text_takes_the_weight_of_its_text():
    """myst-nb sets glued phrases in bold (span.pasted-text): the book's sheet sets them back, with a
    selector that outranks myst-nb's, and captions in one weight."""
    css = (HTML / "_static" / "figures.css").read_text(encoding="utf8")
    rules = dict(_css_rules(css))
    pasted = [s for s, d in rules.items() if "span.pasted-text" in s and re.search(r"font-weight\s*:\s*inherit", d)]
    assert pasted and all(s.split()[0] == "html" for s in pasted), "glued text is left bold"
    assert any("figcaption *" in s and re.search(r"font-weight\s*:\s*400", d) for s, d in rules.items())


def test_one_notation_for_the_forward_solution():
    """The book writes the forward-predicted solution $u_\\mathrm{p}$ (and $u_\\theta$) in its math
    everywhere, tables' heads included: never $u_p$ or $u_{p}$ beside it."""
    bad = []
    for page in pages():
        rel = str(page.relative_to(HTML))
        for node in soup(page).select(".math"):
            tex = node.get_text()
            if re.search(r"u_\{?p\b", tex):
                bad.append(f"{rel}: {tex[:80]!r}")
    assert not bad, "math writing u_p, not u_\\mathrm{p}:\n" + "\n".join(bad)
