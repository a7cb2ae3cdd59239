"""A chapter's pandas statistics shown as a table of the book (presentation.frame_tables)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from binn_utils.presentation import frame_tables
from binn_utils.presentation.tables import CODE_WORDS
from binn_utils.studies.base import PARAMETER_WORDS


def boxes_like_a_chapter():
    """What the learning-rate chapter computes: describe() of the errors per rate and quantity."""
    errors = pd.DataFrame({"lr": np.repeat([5e-7, 5e-4], 6), "quantity": ["err_u_theta", "err_u_p"] * 6,
                           "value": np.linspace(0.01, 1.3, 12)})
    errors.loc[0, "value"] = np.nan
    groups = errors.groupby(["lr", "quantity"])
    boxes = groups["value"].describe().astype({"count": int})
    boxes["failed"] = groups.size() - boxes["count"]
    return boxes[["count", "25%", "50%", "75%", "failed"]]


def cells(md: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines()]


def test_a_describe_table_reads_in_words():
    md = frame_tables.table(boxes_like_a_chapter())._repr_markdown_()
    head, rule, *rows = cells(md)
    assert head == ["$r$", "error of", "finite errors", "lower quartile", "median", "upper quartile", "failed solves"]
    assert len(rows) == 4 and all(len(r) == len(head) for r in rows)
    assert {r[0] for r in rows} == {r"$5\times10^{-7}$", r"$5\times10^{-4}$"}   # the rates as the text writes them
    assert {r[1] for r in rows} == {r"$u_\theta$", r"$u_\mathrm{p}$"}
    assert [r[2] for r in rows] == ["3", "2", "3", "3"]                 # counts as whole numbers
    assert [r[6] for r in rows] == ["0", "1", "0", "0"]
    text = md.replace(r"$u_\theta$", "").replace(r"$u_\mathrm{p}$", "")
    assert not re.search(r"\d\.\d{6}|e-0\d|%|\bnan\b", text)
    assert not any(name in text for name in list(CODE_WORDS) + list(PARAMETER_WORDS) if "_" in name)


def test_a_count_of_failures_zero_in_every_row_is_said_not_shown():
    """Failures are never hidden: a non-zero count keeps its column; one zero in every row shown is
    dropped and said once under the table."""
    boxes = boxes_like_a_chapter()
    boxes["diverged"] = 0
    md = frame_tables.table(boxes).text
    assert cells(md)[0][-1] == "failed solves" and "diverged trainings" not in md
    assert md.endswith("\n\nNo training diverged in the rows shown.")
    clean = frame_tables.table(boxes.iloc[2:]).text
    assert "failed solves" not in clean and "diverged trainings" not in clean
    assert clean.endswith("\n\nNo training diverged and every forward solve succeeded in the rows shown.")
    assert not frame_tables.table(boxes_like_a_chapter()).text.endswith("shown.")


def test_a_preview_says_how_many_rows_it_shows_of_how_many():
    boxes = boxes_like_a_chapter()
    boxes["diverged"] = 0
    md = frame_tables.table(boxes.iloc[::-1], rows=2).text   # the failure is in the third of these rows
    assert md.endswith("\n\nThe first 2 of 4 rows; no training diverged and every forward solve succeeded in them.")
    assert frame_tables.table(boxes, rows=2).text.endswith("\n\nThe first 2 of 4 rows; no training "
                                                                       "diverged in them.")
    assert frame_tables.table(boxes_like_a_chapter(), rows=3).text.endswith("\n\nThe first 3 of 4 rows.")
    # the whole table: nothing to say of its rows
    assert frame_tables.table(boxes, rows=len(boxes)).text.endswith("in the rows shown.")


def test_numbers_take_three_significant_figures_and_the_text_form_is_the_table():
    t = frame_tables.table(pd.DataFrame({"median_ours": [0.0229581], "beyond": [True], "grid": [351]}))
    assert repr(t) == t._repr_markdown_()
    head, rule, row = cells(repr(t))
    assert row == ["0.023", "yes", "351"]
    assert rule == ["---:", "---", "---:"]


def test_a_series_is_one_row_per_entry():
    network = pd.Series({"seed": 0, "replicate": 2, "err_u_theta": 0.070846, "err_D": 1.017415}, dtype=object)
    head, rule, *rows = cells(frame_tables.table(network).text)
    assert rows == [["seed", "0"], ["initialisation", "2"], [r"error of $u_\theta$", "0.0708"],
                    ["error of $D$", "1.02"]]


def test_a_longer_column_name_keeps_the_quantities_its_math_and_its_code():
    """A chapter names a column "median err_u_p": the package's name of the quantity in words, other
    underscores spaces, and math or code in the name left as it is (an underscore there is not a space)."""
    assert frame_tables.column_words("median err_u_p") == r"median error of $u_\mathrm{p}$"
    assert frame_tables.column_words("fall_over_the_last_quarter") == "fall over the last quarter"
    assert frame_tables.column_words(r"roughness at $\sigma_0$") == r"roughness at $\sigma_0$"
    assert frame_tables.column_words("the `hist_val` curve") == "the `hist_val` curve"
