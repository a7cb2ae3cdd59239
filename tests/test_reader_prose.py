"""The book's words as a reader gets them (issue #50): the paper's quotes keep their figure
numbers, generated sentences read as written, code names become words, command-line
options are set in code, and every chapter's rerun box says what a rerun runs and costs."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from binn_utils.analysis import identifiability
from binn_utils.analysis.verdicts import figure_numbers, quote_clean
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
    text = identifiability.removal_sentence(cases[0], cases[1], "D")
    assert " constrained constrained" not in text and "absent constrained" not in text
    assert "indistinguishable constrained" not in text
    assert f"D, as weak as the least visible of these, is {identifiability.LEVEL_PHRASE[a]}" in text
    assert not defects(text)


def test_every_level_has_its_phrase():
    assert set(identifiability.LEVELS) | {"absent", "indistinguishable"} <= set(identifiability.LEVEL_PHRASE)


def test_benchmark_cases_are_labelled_in_words():
    for name in identifiability.BENCHMARK_WORDS:
        for initial in ("text", "code"):
            label = identifiability.case_label(name, False, initial)
            assert "_" not in label and "initial text" not in label and "initial code" not in label, label
    assert identifiability.case_label("porous_medium", True) == "porous medium (351 points)"


@pytest.mark.parametrize("label, words", [
    ("w_pde=0.0001", "PDE weight 0.0001"), ("r=5e-05", "learning rate 5e-05"),
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
