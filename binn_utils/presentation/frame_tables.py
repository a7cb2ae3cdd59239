"""A chapter's statistics as a reader reads them.

A chapter computes what it plots from the results table in visible code (pandas:
``groupby(...).describe()`` and the like) and shows the first rows of what it computed.  Shown
as pandas prints it, that is code ("count 25% 50% 75%", "err_u_theta", "5.000000e-07");
:func:`table` shows the same rows as a table of the book: every column and index level named in
words, every number written by the package's one formatter, a swept value as the figures label
it, a quantity as the book writes it.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..analysis.reporting import fmt, value_label
from ..studies import REGISTRY
from ..studies.base import PARAMETER_WORDS
from .tables import CODE_WORDS, NORM_WORDS, QUANTITY_WORDS, in_words

#: The names of the columns (and index levels) the chapters compute, in words.
COLUMN_WORDS = {
    **PARAMETER_WORDS,
    "count": "finite errors", "mean": "mean", "std": "s.d.", "min": "minimum", "25%": "lower quartile",
    "50%": "median", "75%": "upper quartile", "max": "maximum", "failed": "failed solves",
    "diverged": "diverged trainings", "quantity": "error of", "norm": "norm", "source": "whose runs", "data": "whose data",
    "study": "study", "epochs": "epochs", "seed": "seed", "replicate": "initialisation", "dataset": "dataset",
    "grid": "grid points", "datasets": "datasets", "inits": "initialisations",
    "median_ours": "our typical median", "printed": "printed median", "ratio": "ours / printed",
    "range_lo": "range, from", "range_hi": "range, to", "beyond": "beyond our range",
    "err_D": "error of $D$", "err_G": "error of $G$", "err_V": "error of $V$", "value": "value",
}

#: Whose runs or data a row holds.
SOURCE_WORDS = {"ours": "ours", "authors": "the authors'"}


def column_words(name) -> str:
    """A column's (or index level's) name in words."""
    name = str(name)
    if name in COLUMN_WORDS or name in CODE_WORDS:
        return COLUMN_WORDS.get(name) or CODE_WORDS[name]
    # the package's names inside a longer one ("median err_u_p") in words first, then any other "_"
    # a space, outside math and code
    parts = re.split(r"(`[^`]*`|\$[^$]*\$)", in_words(name))
    return "".join(part if i % 2 else part.replace("_", " ") for i, part in enumerate(parts))


def cell(column: str, v) -> str:
    """One value of ``column`` as the book writes it."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if column == "quantity":
        return QUANTITY_WORDS.get(v, in_words(str(v)))
    if column == "norm":
        return NORM_WORDS.get(v, str(v))
    if column in ("source", "data"):
        return SOURCE_WORDS.get(v, str(v))
    if column == "study" and v in REGISTRY:
        return REGISTRY[v].title
    if column in PARAMETER_WORDS or isinstance(v, (tuple, list)):
        return power_of_ten(value_label(v))
    if isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and np.isfinite(v)
                                            and float(v).is_integer() and column not in ("mean", "std")):
        return f"{int(v):,}" if abs(v) >= 1e4 else str(int(v))
    return fmt(v)


def power_of_ten(label: str) -> str:
    """A swept value's label ('5e-7', '1e3') as the book's math writes it ($5\\times10^{-7}$,
    $10^{3}$), which a table cell never breaks; any other label as it is."""
    m = re.fullmatch(r"(\d+)e(-?\d+)", label)
    if not m:
        return label
    return f"${'' if m.group(1) == '1' else m.group(1) + chr(92) + 'times'}10^{{{m.group(2)}}}$"


def as_frame(data) -> pd.DataFrame:
    """``data`` (a DataFrame, or a Series: one row per entry) with its index levels as columns."""
    if isinstance(data, pd.Series):
        return pd.DataFrame({"what": [column_words(k) for k in data.index],
                             "value": [cell(str(k), v) for k, v in data.items()]})
    named = [n for n in data.index.names if n is not None]
    return data.reset_index() if named else data.reset_index(drop=True)


#: the counts of failures a chapter computes, and what a table without them says once under it
#: (a count that is zero in every row shown is not a column; any non-zero one keeps it)
ZERO_COUNTS = {"diverged": "no training diverged", "failed": "every forward solve succeeded"}


def zero_counts(df: pd.DataFrame) -> list[str]:
    """The columns of ``ZERO_COUNTS`` that ``df`` holds and that are zero in each of its rows."""
    return [c for c in ZERO_COUNTS if c in df.columns and len(df) and pd.api.types.is_numeric_dtype(df[c])
            and bool((df[c] == 0).all())]


def markdown(data, rows: int | None = None) -> str:
    """``data`` (a DataFrame or Series a chapter computed) as a Markdown table in words; a count of
    failures zero in every row is said once under it, not a column (:data:`ZERO_COUNTS`).  ``rows``:
    show only its first rows, and say under it how many it has ("The first 4 of 14 rows")."""
    df = as_frame(data)
    of = len(df)
    if rows is not None:
        df = df.head(rows)
    zeros = zero_counts(df)
    df = df.drop(columns=zeros)
    head = [column_words(c) if c != "what" else "" for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
               and c not in PARAMETER_WORDS for c in df.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(v if isinstance(v, str) and c in ("what", "value") else cell(c, v)
                                      for c, v in row.items()) + " |")
    said = " and ".join(ZERO_COUNTS[c] for c in zeros)
    if of > len(df):
        return "\n".join(lines) + f"\n\nThe first {len(df)} of {of} rows" + (f"; {said} in them." if said else ".")
    return "\n".join(lines) + (f"\n\n{said[0].upper()}{said[1:]} in the rows shown." if said else "")


class Table:
    """What a chapter's code cell shows: the table in words (Markdown, which the book renders);
    its text form is the same Markdown."""

    def __init__(self, data, rows: int | None = None):
        self.text = markdown(data, rows)

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


def table(data, rows: int | None = None) -> Table:
    """``data`` (a DataFrame or Series a chapter computed) shown as a table of the book: columns and
    index levels in words, numbers formatted; ``rows``: show only its first rows, with how many the
    whole table has said under it ("The first 4 of 14 rows")."""
    return Table(data, rows)
