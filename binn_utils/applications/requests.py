"""What ``binn fit`` and ``binn predict`` check of a request before any work, in one place:
where they may write (:func:`check_out_folder`) and what will be slow for a reason the user
can change (:func:`fine_grid_note`, by the cost model of a forward solve, :func:`solve_seconds`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..engine.forward_solve import EXPLICIT_FINE_GRID
from ..store import stores


def check_out_folder(out, allowed, earlier: str, example: str, mark: str | None = None, inside: dict | None = None):
    """A one-line ValueError where writing a command's outputs into ``out`` could replace or
    delete what the command did not write: an empty name, the current folder or one above it,
    a file, a results store, or a folder holding anything but the names ``allowed`` (its own
    earlier outputs, ``earlier`` in words, e.g. "a previous fit").  Where the command replaces
    the whole folder, ``mark`` names the JSON record its earlier output always holds beside its
    other files (a folder of the right names without it is not that output), and ``inside`` {subfolder: the endings of
    the files it writes there} what a subfolder may hold (no other file, folder or hidden name).
    ``example``: a folder to suggest."""
    if not str(out).strip():
        raise ValueError("--out must name a folder, got an empty string (an unset shell variable?)")
    out = Path(out)
    if out.is_symlink():
        raise ValueError(f"--out {out} is a symbolic link: give the folder it points to ({out.resolve()}) or a new one")
    here, target = Path.cwd().resolve(), out.resolve()
    if target == here or target in here.parents:
        raise ValueError(f"--out {out} is the current folder or one above it: its files could be replaced; "
                         f"choose an empty or new folder, e.g. --out {example}")
    if target.exists() and not target.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    if not target.is_dir():
        return
    if (target / stores.MANIFEST).exists() or (target / "runs").is_dir():
        raise ValueError(f"--out {out} is a results store: its records could be replaced; choose an empty or "
                         "new folder")
    others = sorted(p.name for p in target.iterdir() if p.name not in allowed)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise ValueError(f"--out {out} holds other files ({shown}); choose an empty or new folder (only one that is "
                         f"empty or holds {earlier} is written into)")
    outputs = [p for p in target.iterdir() if p.name not in (inside or {})]   # (an interrupted run: its subfolders only)
    if mark is not None and outputs and not _json_record(target / mark):
        raise ValueError(f"--out {out} holds files but no readable {mark}, so they are not {earlier}: they would be "
                         "replaced; choose an empty or new folder")
    for sub, endings in (inside or {}).items():
        ours = re.compile(r"[^.].*(" + "|".join(map(re.escape, endings)) + r")$")       # its files: no hidden name
        temporary = re.compile(r"\.[^.].*(" + "|".join(map(re.escape, endings)) + r")\..+\.tmp$")   # a write cut short
        strays = sorted(p.name for p in (target / sub).iterdir() if not p.is_file() or not (
            ours.match(p.name) or temporary.match(p.name))) if (target / sub).is_dir() else []
        if strays:
            raise ValueError(f"--out {out}: its {sub} folder holds what {earlier} does not write ({', '.join(strays[:3])}"
                             f"{' and more' if len(strays) > 3 else ''}); it would be deleted: choose an empty or new folder")


def _json_record(path) -> bool:
    """Whether ``path`` is a file holding a JSON object (an earlier output's record)."""
    try:
        return isinstance(json.loads(Path(path).read_text(encoding="utf-8")), dict)
    except (OSError, ValueError, UnicodeDecodeError):
        return False


SECONDS_PER_SOLVE = {"RK45": 2.0, "BDF": 0.5, "Radau": 1.0}
"""Rough seconds per forward solve of u_p on a grid of up to :data:`SOLVE_GRID` positions (one
CPU core)."""
SOLVE_GRID = 100


def solve_seconds(n_x: int, method: str) -> float:
    """The cost model of one forward solve on ``n_x`` positions, shared by ``binn fit``'s estimate
    and ``binn predict``'s choice of integrator: RK45's steps shrink with the square of the
    spacing, so its cost grows with the cube of the positions beyond :data:`SOLVE_GRID` (351
    positions: about 90 s); the implicit methods' about in proportion."""
    r = max(1.0, n_x / SOLVE_GRID)
    return SECONDS_PER_SOLVE.get(method, 1.0) * (r ** 3 if method == "RK45" else r)


def too_slow(n_x: int, method: str) -> bool:
    """Whether ``method`` is slow on ``n_x`` positions for a reason the user can change (RK45
    beyond ``forward_solve.EXPLICIT_FINE_GRID`` positions, by :func:`solve_seconds`)."""
    return method == "RK45" and solve_seconds(n_x, method) > solve_seconds(EXPLICIT_FINE_GRID, method)


def duration(s: float) -> str:
    """Seconds in words: "40 s", "12 min", "3.5 h"."""
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")


def fine_grid_note(n_x: int, method: str, solves: int = 1) -> str | None:
    """A note where a solve will be slow for a reason the user can change (:func:`too_slow`),
    with the cost model's estimate for ``solves`` solves."""
    if not too_slow(n_x, method):
        return None
    many = f", ~{duration(solves * solve_seconds(n_x, method))} for the {solves} networks" if solves > 1 else ""
    return (f"note: {n_x} positions with RK45: its steps shrink with the square of the spacing, so each forward "
            f"solve takes ~{duration(solve_seconds(n_x, method))} (cost model{many}); --forward-method BDF solves "
            f"them in ~{duration(solve_seconds(n_x, 'BDF'))} each")
