"""The paper's LaTeX source as words: its figure numbers by label, and a passage cleaned to
plain words, so that a claim's quote can be checked to stand verbatim in the paper."""
from __future__ import annotations

import re


def figure_numbers(tex: str) -> dict:
    """The paper's figure numbers by their LaTeX labels ({"fig:noise": 2, ...}): its figure
    environments counted in order (the Supporting Material's continue the main text's, Figs. 7-27)."""
    labels = []
    for body in re.findall(r"\\begin\{figure\*?\}(.*?)\\end\{figure\*?\}", tex, flags=re.S):
        found = re.search(r"\\label\{([^}]*)\}", re.sub(r"(?<!\\)%.*", "", body))
        if found:
            labels.append(found.group(1))
    return {label: i + 1 for i, label in enumerate(labels)}


def quote_clean(tex: str, figures: dict | None = None) -> str:
    """The paper's LaTeX as plain words: comments, citations, labels and references dropped,
    except a reference to a figure, which becomes the figure's number ("Fig.~\\ref{fig:noise}":
    "Fig. 2"; ``figures``: {label: number}, default :func:`figure_numbers` of ``tex``), math and
    text markup reduced to their content, whitespace collapsed.  A claim's ``quote`` is the
    source's sentence with its math kept and its figure numbers written out; cleaned, it is a
    passage of the cleaned source (``tests/test_intervals.py`` checks it)."""
    figures = figure_numbers(tex) if figures is None else figures
    t = re.sub(r"(?<!\\)%.*", "", tex)
    t = re.sub(r"\\(ref|eqref|cref|Cref)\*?\{([^}]*)\}",
               lambda m: str(figures[m.group(2)]) if m.group(2) in figures else m.group(0), t)
    t = re.sub(r"~?\\(cite[tp]?|citep|citet|label|ref|eqref|cref|Cref)\*?(\[[^\]]*\])?\{[^}]*\}", "", t)
    t = re.sub(r"\\(emph|textit|textbf|text|mathrm|mathit|mathbf|operatorname)\{([^{}]*)\}", r"\2", t)
    t = t.replace("\\(", "").replace("\\)", "")
    t = t.replace("~", " ").replace("$", "").replace("{", "").replace("}", "")
    t = re.sub(r"\\[,;:! ]", " ", t)
    return re.sub(r"\s+", " ", t).strip()
