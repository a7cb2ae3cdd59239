"""The Supporting Material notebook asks each study what to draw and say (``Study.drawing``),
never choosing by a study's name."""
from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd

from binn_utils import studies
from binn_utils.presentation import noise_tables, tables
from binn_utils.presentation.figures import STUDY_FIGURES
from binn_utils.studies.base import Drawing, Phrase, box_drawing

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "supplementary.py"


def compared_strings(tree) -> set[str]:
    """Every string constant a comparison in ``tree`` tests against (``name == "noise"``,
    ``st.name in ("a", "b")``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                for c in ast.walk(side):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        out.add(c.value)
    return out


def test_the_supporting_notebook_never_chooses_by_a_studys_name():
    names = set(studies.REGISTRY)
    chosen = compared_strings(ast.parse(NOTEBOOK.read_text(encoding="utf8"))) & names
    assert not chosen, f"notebooks/supplementary.py branches on the studies {sorted(chosen)}"
    assert "figure_numbers" not in NOTEBOOK.read_text(encoding="utf8")


def test_the_rule_finds_a_branch_on_a_name():
    assert compared_strings(ast.parse('if name == "noise":\n    pass\nif st.name in ("batch_size",): pass')) == \
        {"noise", "batch_size"}


def test_every_repeated_study_draws_through_one_interface():
    repeated = {st.name: st for st in studies.repeated(False) + studies.repeated(True)}
    assert repeated
    for name, st in repeated.items():
        assert callable(st.drawing), f"{name} does not say what its Supporting Material figure draws"
        assert name in STUDY_FIGURES, f"{name} has no figure function"


def test_box_drawings_count_failures_and_every_phrase_has_words(monkeypatch):
    """A box drawing's numbers are (errors, boxes) with failed solves and diverged trainings
    counted, and its caption's phrase is worded by the presentation layer."""
    errors = pd.DataFrame({"lr": [1e-3, 1e-3, 1e-3, 1e-3], "network": [0, 0, 1, 1], "status": ["ok", "ok", "ok", "nan"],
                           "quantity": ["err_u_theta", "err_u_p"] * 2, "value": [0.1, 0.2, 0.3, float("nan")]})
    from binn_utils.studies import base
    monkeypatch.setattr(base.results_table, "table", lambda res: res)
    monkeypatch.setattr(base.results_table, "long", lambda df: df.copy())
    d = box_drawing(errors, ("lr",))
    assert isinstance(d, Drawing) and len(d.numbers) == 2
    boxes = d.numbers[1]
    assert boxes.loc[(1e-3, "err_u_p"), "failed"] == 1 and boxes.loc[(1e-3, "err_u_p"), "diverged"] == 1
    assert boxes.loc[(1e-3, "err_u_theta"), "failed"] == 0
    words = tables.phrase(d.says["marks"])
    assert "failed forward solves (1)" in words and "diverged trainings (1)" in words
    assert tables.phrase("A sentence.") == "A sentence."
    assert set(tables.PHRASES) >= {"unobserved", "budget", "failure_marks"}
    assert tables.phrase(Phrase("budget", ((),))) == noise_tables.budget_words(())
