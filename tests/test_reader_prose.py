"""The book's words as a reader gets them (issue #50): the paper's quotes keep their figure
numbers, generated sentences read as written, code names become words, command-line
options are set in code, and every chapter's rerun box says what a rerun runs and costs."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from binn_utils.analysis import identifiability
from binn_utils.analysis import identifiability_words
from binn_utils.analysis.paper_text import figure_numbers, quote_clean
from binn_utils.claims import scorecard
from binn_utils.presentation import diagnostic_tables, tables

from prose import defects

TEX = r"""
Text before. For the model in Fig.~\ref{fig:first} we find that it works (Fig.~\ref{fig:second}, middle right).
\begin{figure}[htbp]
  \includegraphics{a.png}
  % \label{fig:commented-out}
  \caption{First.}
  \label{fig:first}
\end{figure}
Figure~\ref{fig:second} shows that, by Eq.~\eqref{eq:one}, all is well; Figs.~\ref{fig:first}--\ref{fig:second}.
\begin{figure}[htbp]
  \caption{Second.}\label{fig:second}
\end{figure}
"""


def test_figures_are_numbered_in_the_order_of_the_source():
    assert figure_numbers(TEX) == {"fig:first": 1, "fig:second": 2}


def test_a_quote_keeps_the_papers_figure_numbers():
    text = quote_clean(TEX)
    assert "For the model in Fig. 1 we find that it works (Fig. 2, middle right)." in text
    assert "Figure 2 shows that, by Eq., all is well; Figs. 1--2." in text   # an equation's label still goes


def test_no_claim_quote_lost_a_figure_number():
    for c in scorecard.claims():
        lost = re.findall(r"\b(?:Figs?\.|Figures?)(?!\s*\d)[\s,)]", c.quote)
        assert not lost, f"claim {c.number}: {c.quote[:80]!r}"


def _operator(level: str):
    return SimpleNamespace(level=level, signal="weakly", dchi2={"zero": 12.0, "half": 3.0, "double": 5.0, "tilt": 1.0},
                           rms_du={"zero": 0.4})


@pytest.mark.parametrize("a, b", [("absent", "absent"), ("indistinguishable", "well"), ("weakly", "weakly"),
                                  ("not", "well")])
def test_the_removal_sentence_reads_for_every_level(a, b):
    class Case(SimpleNamespace):
        def __getitem__(self, name):
            return self.operators[name]
    cases = [Case(n_points=n, operators={"D": _operator(level)}) for n, level in ((355, a), (1755, b))]
    text = identifiability_words.removal_sentence(cases[0], cases[1], "D")
    assert " constrained constrained" not in text and "absent constrained" not in text
    assert "indistinguishable constrained" not in text
    assert f"D, as weak as the least visible of these, is {identifiability_words.LEVEL_PHRASE[a]}" in text
    assert not defects(text)
    assert "not constrained on both" not in text and "not needed on both" not in text
    if a == b == "absent":                 # a negative on both grids reads as neither
        assert "is not needed on either grid" in text


def test_every_level_has_its_phrase():
    assert set(identifiability.LEVELS) | {"absent", "indistinguishable"} <= set(identifiability_words.LEVEL_PHRASE)


def test_benchmark_cases_are_labelled_in_words():
    for name in identifiability.BENCHMARK_WORDS:
        for initial in ("text", "code"):
            label = identifiability.case_label(name, False, initial)
            assert "_" not in label and "initial text" not in label and "initial code" not in label, label
    assert identifiability.case_label("porous_medium", True) == "porous medium (351 points)"


@pytest.mark.parametrize("label, words", [
    ("w_pde=0.0001", "PDE weight 0.0001"), ("r=5e-05", "learning rate 5e-5"), ("w_pde=1e+03", "PDE weight 1e3"),
    ("sigma2=0.001 u(4, 32)", "noise variance 0.001, solution network (4, 32)"),
    ("B=10 budget=75000", "B = 10, budget of 75000 steps"), ("B=640", "B = 640"),
    ("D(4, 1) V(1, 1)", "D network (4, 1), V network (1, 1)"), ("porous_medium", "porous medium")])
def test_setting_labels_in_words(label, words):
    assert diagnostic_tables.setting_words(label) == words


def test_command_line_options_are_set_in_code():
    md = ("What to try: train longer (--epochs) or raise the learning rate (--lr); a stiff model may solve "
          "with --forward-method BDF. Already `--w-pde` in code.\n\n|---|---|\n| a | b |")
    out = tables.flags_as_code(md)
    assert "(`--epochs`)" in out and "(`--lr`)" in out and "`--forward-method BDF`" in out
    assert "`--w-pde`" in out and "``" not in out and "|---|---|" in out
    # no option is left outside code
    assert not re.search(r"(?<![`\w-])--[a-z]", re.sub(r"`[^`]*`", "", out))


# ----------------------------------------------------------------------------- the rerun box
from pathlib import Path  # noqa: E402
import shlex  # noqa: E402

from binn_utils import studies  # noqa: E402
from binn_utils.applications import cli  # noqa: E402
from binn_utils.presentation import rerun_box  # noqa: E402
from binn_utils.store.setting import replicate_steps  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = ("learning_rate", "loss_weighting", "architecture", "batch_size", "noise", "framework", "diagnostics",
            "supplementary")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_shows_its_rerun_box(chapter):
    src = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    assert "# ```{glue:md} rerun\n# :format: myst\n# ```" in src, f"{chapter}: no rerun box in its text"
    assert re.search(r'reporting\.glue\("rerun", Markdown\((chapter_rerun_md|rerun_box\.rerun_box_md|rerun_box_md)\(',
                     src), f"{chapter}: the rerun box is not glued from binn_utils.presentation.rerun_box"


def test_the_rerun_box_commands_run_and_its_cost_is_the_cost_models():
    md = rerun_box.chapter_rerun_md("batch_size", ("batch_size", "batch_size_authors"))
    commands = re.findall(r"^(binn sweep .*|make rerun .*)$", md, flags=re.M)
    assert "make rerun NB=batch_size OUT=out/rerun" in commands
    sweeps = [c for c in commands if c.startswith("binn sweep")]
    assert sweeps and all("--scale paper" in c or "--scale" in c for c in sweeps)
    for c in sweeps:   # each parses as the command line parses it
        args = cli.parser().parse_args(shlex.split(c)[1:])
        assert args.study in ("batch_size", "batch_size_authors")
    runs = rerun_box.committed_runs("batch_size") + rerun_box.committed_runs("batch_size_authors")
    steps = sum({(s.key, r.data): replicate_steps(s) for r in runs for s in r.settings()}.values())
    assert steps > 0 and f"{steps / 1e6:,.1f} million replicate-steps" in md
    c = rerun_box.cost(runs)   # the (4, 32) networks only: the CPU rate times the steps, on two cores
    assert c["steps"] == steps
    assert c["core_hours"] == pytest.approx(steps * rerun_box.CPU_SECONDS * 2 / 3600)
    assert f"about {c['core_hours']:,.1f} core-hours on two CPU cores" in md
    assert "item 16 </book/errata>" in md            # "Fig. 6: ten minutes, one initialisation per batch size"
    assert not defects(re.sub(r"```.*?```", "", md, flags=re.S))


def test_errata_items_bear_on_the_figure_they_name():
    items = dict(rerun_box.errata_items(figures=(6,)))
    assert 16 in items and items[16].startswith("Fig. 6")
    assert dict(rerun_box.errata_items(chapters=("no_such_chapter",))) == {}
    # the authors' folder names ("Fig6", their numbering of the paper's Fig. 5) name no figure of the paper
    assert 15 not in items and 15 in dict(rerun_box.errata_items(figures=(5,)))
    # Fig. 3's benchmark (Burgers) and its validation curves: the items that bear on it
    assert {9, 17, 25, 34, 38} <= set(dict(rerun_box.errata_items(figures=(3,))))
    assert 17 in dict(rerun_box.errata_items(figures=(4,)))          # "Figs. 3 and 4": both
    assert 11 not in dict(rerun_box.errata_items(figures=(6,)))      # a section's text after an item is not the item's


def test_a_wide_solution_network_costs_more_per_step():
    wide = [r for r in rerun_box.committed_runs("noise") if not r.dense]
    c = rerun_box.cost(wide)
    assert c["core_hours"] > c["steps"] * rerun_box.CPU_SECONDS * 2 / 3600   # the (6, 128) networks


@pytest.mark.parametrize("hours, words", [(0.01, "under a minute"), (1 / 60, "about 1 minute"),
                                          (0.5, "about 30 minutes"), (1.34, "about 1.3 hours"), (18.2, "about 18 hours")])
def test_durations_in_words(hours, words):
    assert rerun_box.duration_words(hours) == words


# ----------------------------------------------------------------------------- the build's extension
def test_images_get_alt_text_in_words():
    import importlib.util
    from docutils import nodes
    spec = importlib.util.spec_from_file_location("reader_pages", Path(__file__).resolve().parents[1] / "_ext" /
                                                  "reader_pages.py")
    rp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rp)
    section = nodes.section()
    section += nodes.title(text="Solutions")
    fig = nodes.figure()
    in_figure = nodes.image(uri="../_build/jupyter_execute/abc.png")
    fig += in_figure
    fig += nodes.caption(text="Paper's Fig. 3. Burgers' equation, learning rates 5e-7 to 0.5. " + "Top: panels. " * 40)
    section += fig
    alone = nodes.image(uri="../_build/jupyter_execute/def.png")
    section += nodes.paragraph("", "", alone)
    given = nodes.image(uri="x.png", alt="the data")
    section += nodes.paragraph("", "", given)
    rp.set_alt_texts(None, section, "page")
    assert in_figure["alt"].startswith("Burgers' equation, learning rates") and len(in_figure["alt"]) <= 252
    assert in_figure["alt"].endswith(" …")
    assert alone["alt"] == "Figure of the section “Solutions”"
    assert given["alt"] == "the data"


def test_the_packages_names_of_quantities_in_words():
    md = ("Forward solves u_p: 3 of 3 ok; u_p misses 1.2x as much as u_theta (median err(u_p, obs) = 0.03); "
          "w_PDE L_PDE / (w_data L_data) = 0.02; `u_p` in code, $u_p$ in math; file out/u_p.csv")
    out = tables.in_words(md)
    assert "Forward solves $u_\\mathrm{p}$: 3 of 3 ok" in out and "as much as $u_\\theta$" in out
    assert "err($u_\\mathrm{p}$, obs)" in out and "($w_\\mathrm{data}$ $L_\\mathrm{data}$)" in out
    assert "`u_p` in code, $u_p$ in math" in out and "out/u_p.csv" in out


def test_the_numbers_table_in_words():
    table = SimpleNamespace(to_markdown=lambda columns: "\n".join([
        "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
        "| w_pde=0.0001 | 0.1 | **2.5** | 0.3 |", "| r=5e-05 | 0.1 | 0.2 | inf |"]))
    md = diagnostic_tables.numbers_table(SimpleNamespace(table=table),
                                         ["setting", "err_u_theta_obs", "w_pde/w_data", "tail_decades"])
    head, _, *rows = md.split("\n")
    assert head == "| setting | err($u_\\theta$, obs) | $w_\\mathrm{PDE}/w_\\mathrm{data}$ | decades fallen late |"
    assert rows == ["| PDE weight 0.0001 | 0.1 | **2.5** | 0.3 |", "| learning rate 5e-5 | 0.1 | 0.2 | inf |"]


def test_the_landing_pages_title_names_the_book_once(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("reader_pages", Path(__file__).resolve().parents[1] / "_ext" /
                                                  "reader_pages.py")
    rp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rp)
    book = "A book: its title"
    (tmp_path / "book").mkdir()
    page, other = tmp_path / "book" / "intro.html", tmp_path / "book" / "methods.html"
    page.write_text(f"<head><title>{book} &#8212; {book}</title></head>", encoding="utf-8")
    other.write_text(f"<head><title>Methods &#8212; {book}</title></head>", encoding="utf-8")
    app = SimpleNamespace(builder=SimpleNamespace(format="html"), outdir=str(tmp_path),
                          config=SimpleNamespace(html_title=book, root_doc="index", master_doc="book/intro"))
    rp.landing_page_title(app, None)
    assert page.read_text(encoding="utf-8") == f"<head><title>{book}</title></head>"
    assert other.read_text(encoding="utf-8") == f"<head><title>Methods &#8212; {book}</title></head>"


def test_the_sources_write_the_forward_solution_in_the_books_notation():
    """Math in the package, the chapters and the prose pages writes $u_\\mathrm{p}$, never $u_p$
    (the built pages are checked too: tests/book/test_built_html.py)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    math_u_p = re.compile(r"\$[^$\n\"']*?\bu_\{?p\b[^$\n\"']*?\$")     # not across a string's quotes
    bad = []
    for path in [*root.glob("binn_utils/**/*.py"), *root.glob("notebooks/*.py"), *root.glob("book/**/*.md")]:
        rel = path.relative_to(root).as_posix()
        bad += [f"{rel}: {m.group(0)[:60]}" for m in math_u_p.finditer(path.read_text(encoding="utf8"))
                if "->" not in m.group(0)]
    assert not bad, "math writing u_p:\n" + "\n".join(bad)


def test_the_grid_comparison_is_a_sentence_per_grid_and_one_for_the_authors():
    from binn_utils.presentation import framework_tables
    rows = [{"quantity": "$D$", "ours": {351: [0.5, 0.6, 0.7], 71: [1.0, 0.98, 1.0]}, "authors": [0.319]}]
    text = framework_tables.grid_words(rows, "$D$")
    assert text.startswith("On 71 points the median relative error of D is 1 (interquartile range")
    assert ". On 351 points it is 0.6 (interquartile range" in text
    assert text.endswith(" The authors' one dense run at this noise level gives a relative error of D of 0.319.")
    assert not framework_tables.grid_words([{**rows[0], "authors": []}], "$D$").count("authors")
    failed = framework_tables.grid_words([{**rows[0], "ours": {71: [np.nan] * 3, 351: [0.5, np.nan, 0.7]}}], "$D$")
    assert failed.startswith("On 71 points the median relative error of D is not known: every run failed. "
                             "On 351 points it is 0.6 (interquartile range [0.55, 0.65]; 1 of 3 runs failed).")
