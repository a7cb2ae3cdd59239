"""The authors' own archived runs: per-replicate errors from their public repository.

``data/authors_archive/errors.csv`` (vendored unchanged; its README says where each number
comes from and what is odd about it) holds one row per (grid, paper figure, noise level,
setting, replicate, quantity, norm).  This module reads it and hands the numbers out in the
terms of our studies: a setting is named by the same ``Setting.meta`` keys our studies use
(``lr``, ``w_pde``, ``arch_D``/``arch_V``, ``batch_size``), so ``errors("learning_rate",
"err_u_p", noise_var=1e-3, lr=5e-4)`` is the authors' ten u_p errors at the point our
``find(results, lr=5e-4)`` reads.

What the archive is, in brief (the README has the details):

* Figs. 3-5 (learning rate, loss weight, architecture): 10 replicates per setting on the
  71-point grid at the three noise levels.  Fig. 5's u_p errors are archived in the
  *spectral* norm (``norm="spectral"``); the Frobenius ones were recomputed from the
  archived fields (``source="recomputed"``).
* Fig. 6 (batch size): **one** run per batch size (B = 2, 10, 40, 160, 640), with a
  ten-minute budget (``budget="10min"``; 71 and 351 points) and a set of unknown budget
  (``budget="unknown"``; 71 points).
* Fig. 1 (framework): one run per noise level on the 351-point grid, with u_theta, u_p and
  the D, G, V curve errors (``norm="l2"`` for the curves).
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ARCHIVE = Path(__file__).resolve().parents[2] / "data" / "authors_archive"
ERRORS_FILE = ARCHIVE / "errors.csv"
COLUMNS = ("grid", "paper_figure", "repo_path", "study", "noise_var", "setting", "replicate", "quantity", "norm",
           "value", "source", "array_index")
#: Quantities and norms the archive holds.
QUANTITIES = ("err_u_theta", "err_u_p", "err_D", "err_G", "err_V")
NORMS = ("frobenius", "spectral", "l2")


class ArchiveError(ValueError):
    """The archive file is missing or not what this module reads (names the file)."""


@dataclass(frozen=True)
class Row:
    """One archived number."""

    grid: int              # points of the spatial grid (71 or 351)
    paper_figure: str      # e.g. "Fig 3"
    study: str             # our study's name
    noise_var: float
    setting: tuple         # ((meta key, value), ...) in our studies' terms
    replicate: int
    quantity: str
    norm: str
    value: float
    source: str            # "archived" or "recomputed"

    @property
    def meta(self) -> dict:
        return dict(self.setting)


def _pair(text: str) -> tuple:
    h, n = text.split(",")
    return (int(h), int(n))


def parse_setting(text: str) -> tuple:
    """The archive's setting label in our ``Setting.meta`` terms, e.g. 'D=4,4;V=4,32' ->
    (('arch_D', (4, 4)), ('arch_V', (4, 32))), 'lr=5e-1' -> (('lr', 0.5),)."""
    out = []
    for part in text.split(";"):
        key, _, value = part.partition("=")
        if key == "lr":
            out.append(("lr", float(value)))
        elif key == "w_pde":
            out.append(("w_pde", float(value)))
        elif key in ("D", "V"):
            out.append((f"arch_{key}", _pair(value)))
        elif key == "B":
            out.append(("batch_size", int(value)))
        elif key in ("budget", "initial"):
            out.append((key, value))
        else:
            raise ArchiveError(f"{ERRORS_FILE}: unknown setting {text!r}")
    return tuple(out)


@functools.lru_cache(maxsize=1)
def rows() -> tuple[Row, ...]:
    """Every archived number (read once)."""
    if not ERRORS_FILE.is_file():
        raise ArchiveError(f"{ERRORS_FILE}: the authors' archive is missing")
    with ERRORS_FILE.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ArchiveError(f"{ERRORS_FILE}: columns {reader.fieldnames}, expected {COLUMNS}")
        return tuple(Row(int(r["grid"]), r["paper_figure"], r["study"], float(r["noise_var"]),
                         parse_setting(r["setting"]), int(r["replicate"]), r["quantity"], r["norm"],
                         float(r["value"]), r["source"]) for r in reader)


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return bool(np.isclose(float(a), float(b), rtol=1e-9, atol=0.0))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return tuple(a) == tuple(b)
    return a == b


def select(study: str, quantity: str, *, noise_var: float, grid: int = 71, norm: str = "frobenius",
           **meta) -> list[Row]:
    """The rows of one study, quantity, noise level, grid and norm whose setting matches every
    ``meta`` value given (e.g. ``lr=5e-4``), in (setting, replicate) order."""
    if quantity not in QUANTITIES:
        raise ValueError(f"unknown quantity {quantity!r}; choose one of {QUANTITIES}")
    if norm not in NORMS:
        raise ValueError(f"unknown norm {norm!r}; choose one of {NORMS}")
    out = [r for r in rows() if r.study == study and r.quantity == quantity and r.norm == norm and r.grid == grid
           and _same(r.noise_var, noise_var)
           and all(k in r.meta and _same(r.meta[k], v) for k, v in meta.items())]
    return sorted(out, key=lambda r: (r.setting, r.replicate))


def errors(study: str, quantity: str, *, noise_var: float, grid: int = 71, norm: str = "frobenius",
           **meta) -> np.ndarray:
    """The authors' per-replicate errors at one setting (empty where the archive has none);
    ValueError if ``meta`` matches rows of more than one setting."""
    sel = select(study, quantity, noise_var=noise_var, grid=grid, norm=norm, **meta)
    if len({r.setting for r in sel}) > 1:
        raise ValueError(f"{study} {meta} matches several archived settings: {sorted({r.setting for r in sel})}")
    return np.array([r.value for r in sel], dtype=float)


def settings(study: str, *, noise_var: float, grid: int = 71) -> list[dict]:
    """The archived settings of a study at one noise level and grid, as ``meta`` dicts."""
    seen = dict.fromkeys(r.setting for r in rows()
                         if r.study == study and r.grid == grid and _same(r.noise_var, noise_var))
    return [dict(s) for s in seen]
