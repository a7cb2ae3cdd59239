"""What ``binn fit`` and ``binn predict`` check of a request before any work, in one place:
where they may write (:func:`check_out_folder`) and what will be slow for a reason the user
can change (:func:`fine_grid_note`)."""
from __future__ import annotations

from pathlib import Path

from ..engine.forward_solve import EXPLICIT_FINE_GRID
from ..store import records


def check_out_folder(out, allowed, earlier: str, example: str):
    """A one-line ValueError where writing a command's outputs into ``out`` could replace or
    delete what the command did not write: an empty name, the current folder or one above it,
    a file, a results store, or a folder holding anything but the names ``allowed`` (its own
    earlier outputs, ``earlier`` in words, e.g. "a previous fit").  ``example``: a folder to
    suggest."""
    if not str(out).strip():
        raise ValueError("--out must name a folder, got an empty string (an unset shell variable?)")
    out = Path(out)
    here, target = Path.cwd().resolve(), out.resolve()
    if target == here or target in here.parents:
        raise ValueError(f"--out {out} is the current folder or one above it: its files could be replaced; "
                         f"choose an empty or new folder, e.g. --out {example}")
    if target.exists() and not target.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    if not target.is_dir():
        return
    if (target / records.MANIFEST).exists() or (target / "runs").is_dir():
        raise ValueError(f"--out {out} is a results store: its records could be replaced; choose an empty or "
                         "new folder")
    others = sorted(p.name for p in target.iterdir() if p.name not in allowed)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise ValueError(f"--out {out} holds other files ({shown}); choose an empty or new folder (only one that is "
                         f"empty or holds {earlier} is written into)")


def fine_grid_note(n_x: int, method: str) -> str | None:
    """A note where a solve will be slow for a reason the user can change (RK45 on a fine grid:
    ``forward_solve.EXPLICIT_FINE_GRID``)."""
    return None if method != "RK45" or n_x <= EXPLICIT_FINE_GRID else (
        f"note: {n_x} positions with RK45: its steps shrink with the square of the spacing, so each forward "
        "solve may take many minutes; --forward-method BDF solves fine grids in seconds")
