"""The scratch-assay data of Jin et al. (2016): selection, training scales and a cached BINN fit.

``data/scratch_assay_jin2016.csv`` (provenance in ``data/README.md``) holds PC-3 scratch
assays at six initial densities (10,000 to 20,000 cells per well), three replicates each,
37-38 positions across the scratch and five times (0 to 48 h).  This module

* selects one initial density (and, like Lagergren et al. 2020, drops the first spatial
  column x = 25 um, an edge artefact) and returns validated
  :class:`~binn_utils.user_data.UserObservations` in the file's units (um, h,
  cells/um^2), read with :func:`~binn_utils.user_data.load_observations_csv`;
* fits a BINN with :func:`~binn_utils.user_data.fit_user_data_cached`, stored under
  ``<results>/scratch/scratch-<cells>-<mechanisms>-<hash>.npz/.json`` where the hash covers
  the data file's SHA-1, the density, the column selection, the mechanisms, the training
  configuration and the seeds.  The book is built from the stored fit
  (``BINN_REQUIRE_STORED=1`` makes a missing one an error).

Command line (trains and stores what is missing)::

    python -m binn_utils.scratch --scale book --initial-cells 16000 [--mechanisms DG]
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
from pathlib import Path

import numpy as np

from .metrics import relative_l2
from .reporting import median
from .store import folders_for
from .training import TrainConfig
from .user_data import UserFit, UserObservations, fit_user_data_cached, load_observations_csv, validate_mechanisms

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "scratch_assay_jin2016.csv"
INITIAL_CELLS = (10000, 12000, 14000, 16000, 18000, 20000)
COLUMNS = {"x": "x_um", "t": "t_h", "u": "density_cells_per_um2", "replicate": "replicate"}
UNITS = {"x": "µm", "t": "h", "u": "cells/µm²", "D": "µm²/h", "G": "1/h"}
#: the learned operators in the data's units
OPERATOR_UNITS = {"D": "µm²/h", "G": "1/h", "V": "µm/h"}
EDGE_X_UM = 25.0
"""The first spatial column, dropped by Lagergren et al. (2020) as an edge artefact."""

SCALES = {
    # a smoke run for CI: its numbers mean nothing
    "quick": dict(epochs=20, seeds=2, compile=False),
    # the paper's default training (4000 epochs) and ten initialisations: with 37 x 5 grid
    # points (148 for training, 4 steps per epoch) the 16,000-cell fit trained in 500 s on
    # one CPU core shared with other jobs (torch.compile would cost more than it saves here)
    "book": dict(epochs=4000, seeds=10, compile=False),
    "paper": dict(epochs=4000, seeds=10, compile=False),
}


def file_sha1(path=DATA_FILE) -> str:
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def check_initial_cells(initial_cells) -> int:
    """The initial density as an int; a clear ValueError naming the valid ones otherwise."""
    valid = ", ".join(str(c) for c in INITIAL_CELLS)
    try:
        c = int(initial_cells)
        ok = float(initial_cells) == c
    except (TypeError, ValueError):
        ok = False
    if not ok or c not in INITIAL_CELLS:
        raise ValueError(f"initial_cells must be one of {valid} (cells seeded per well in Jin et al. 2016); "
                         f"got {initial_cells!r}")
    return c


def load_scratch(initial_cells=16000, drop_first_column: bool = True, path=DATA_FILE) -> UserObservations:
    """Observations (3 replicates x 5 times x positions) of one initial density, file units."""
    cells = check_initial_cells(initial_cells)
    path = Path(path)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames
        rows = [r for r in reader if int(r["initial_cells"]) == cells
                and not (drop_first_column and float(r[COLUMNS["x"]]) == EDGE_X_UM)]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    buf.seek(0)
    obs = load_observations_csv(buf, x=COLUMNS["x"], t=COLUMNS["t"], u=COLUMNS["u"],
                                replicate=COLUMNS["replicate"])
    obs.source = f"{path.name}, {cells} cells" + (", x = 25 µm dropped" if drop_first_column else "")
    return obs


def scale_values(scale: str, epochs=None, seeds=None) -> dict:
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; choose one of {sorted(SCALES)}")
    p = dict(SCALES[scale])
    if epochs is not None:
        p["epochs"] = int(epochs)
    if seeds is not None:
        p["seeds"] = int(seeds)
    return p


def train_config(scale: str = "book", epochs=None):
    """The paper's default hyperparameters, with the scale's number of epochs."""
    p = scale_values(scale, epochs)
    return TrainConfig(epochs=p["epochs"], compile=p["compile"])


def cache_dir(scale: str, results_dir=None) -> list[Path]:
    """Where scratch-assay fits are read, in order (the last: where a missing one is trained)."""
    return folders_for(scale, results_dir, "scratch")


def fit_extra(initial_cells=16000, drop_first_column: bool = True, path=DATA_FILE) -> dict:
    """What the cache key records about the data's origin (file, its SHA-1, the selection)."""
    return {"data_file": Path(path).name, "data_file_sha1": file_sha1(path),
            "initial_cells": check_initial_cells(initial_cells), "drop_first_column": bool(drop_first_column)}


def fit_prefix(initial_cells, mechanisms) -> str:
    return f"scratch-{check_initial_cells(initial_cells)}-{mechanisms}"


def fit_scratch(initial_cells=16000, mechanisms="DG", scale: str = "book", epochs=None, seeds=None,
                drop_first_column: bool = True, results_dir=None, path=DATA_FILE,
                require_stored: bool | None = None) -> UserFit:
    """The BINN fit of one initial density (replicate mean), loaded if stored, else trained and stored."""
    cells = check_initial_cells(initial_cells)
    data = load_scratch(cells, drop_first_column, path)
    p = scale_values(scale, epochs, seeds)
    mech = "".join(validate_mechanisms(mechanisms))
    extra = fit_extra(cells, drop_first_column, path)
    return fit_user_data_cached(data, mech, train_config(scale, p["epochs"]), seeds=range(p["seeds"]),
                                cache_dir=cache_dir(scale, results_dir), prefix=fit_prefix(cells, mech),
                                extra=extra, require_stored=require_stored)


# ----------------------------------------------------------------------------- reading a fit
#: An initialisation's operator is "increasing" ("decreasing") if it rises (falls) over at
#: least this share of the observed range, "non-monotone" otherwise; the operator has a
#: shape when at least this share of the initialisations share it.
AGREE = 0.8
SHAPES = ("increasing", "decreasing", "non-monotone")
#: "inside the scratch": positions where the initial mean density is below this share of its maximum
SCRATCH_LEVEL = 0.1


def replicate_errors(data: UserObservations) -> np.ndarray:
    """Relative L2 error of each experiment against the mean of the experiments."""
    return np.array([relative_l2(data.u[r], data.u_mean) for r in range(data.n_replicates)])


def errors_per_time(fit: UserFit, u_mean) -> np.ndarray:
    """Per observation time: the median over initialisations of u_p's relative L2 error against ``u_mean``."""
    R, n_t = fit.result.n_replicates, len(fit.t)
    with np.errstate(all="ignore"):
        per_t = np.array([[relative_l2(fit.u_p[r, k], u_mean[k]) for k in range(n_t)] for r in range(R)])
        return np.array([median(per_t[:, k]) for k in range(n_t)])


def scratch_bias(fit: UserFit, u_mean) -> tuple[np.ndarray, np.ndarray]:
    """(the positions inside the scratch, and per time the median over initialisations of
    the mean of u_p minus ``u_mean`` there)."""
    inside = u_mean[0] < SCRATCH_LEVEL * u_mean[0].max()
    with np.errstate(all="ignore"):
        bias = np.array([median([np.mean(fit.u_p[r, k, inside] - u_mean[k, inside])
                                 for r in range(fit.result.n_replicates)]) for k in range(len(fit.t))])
    return inside, bias


def operator_shape(curves, agree: float = AGREE) -> tuple[str, dict, int]:
    """(the shape of an operator's finite curves, one per initialisation, on a grid of the
    observed range: see :data:`AGREE`; the initialisations of each shape; their number)."""
    c = curves[np.all(np.isfinite(curves), axis=1)]
    rising = np.mean(np.diff(c, axis=1) > 0, axis=1)
    kinds = np.where(rising >= agree, "increasing", np.where(rising <= 1 - agree, "decreasing", "non-monotone"))
    counts = {k: int(np.sum(kinds == k)) for k in SHAPES}
    n = int(c.shape[0])
    common = [k for k in SHAPES if n and counts[k] >= agree * n]
    return (common[0] if common else "of no consistent shape"), counts, n


def zero_crossing(u_grid, curve) -> float | None:
    """Where ``curve`` first falls from positive to non-positive (linear interpolation), None if nowhere."""
    cross = np.nonzero((curve[:-1] > 0) & (curve[1:] <= 0))[0]
    if not cross.size:
        return None
    i = cross[0]
    return u_grid[i] - curve[i] * (u_grid[i + 1] - u_grid[i]) / (curve[i + 1] - curve[i])


#: The shapes Lagergren et al. (2020) report for the operators learned from these data.
LITERATURE_SHAPES = {"D": "increasing", "G": "decreasing"}


def misfit_against_replicates(err_u_p, rep_err) -> int | None:
    """Where the median error of u_p lies against the experiments' errors against their mean
    (``replicate_errors``): -1 below the smallest, 0 within their range, 1 above the largest;
    None if every forward solve failed."""
    med = median(err_u_p)
    if not np.isfinite(med):
        return None
    return -1 if med < float(np.min(rep_err)) else 0 if med <= float(np.max(rep_err)) else 1


def agrees_with_literature(name: str, shape: str, n: int) -> bool | None:
    """Whether operator ``name`` has the shape the literature reports (``LITERATURE_SHAPES``);
    None without a finite curve (``n`` = 0, see ``operator_shape``)."""
    return None if n == 0 else shape == LITERATURE_SHAPES[name]


def growth_zero(u_grid, curves: dict, u_max) -> dict | None:
    """Where the median learned growth rate on ``u_grid`` crosses zero (the implied carrying
    capacity): ``u`` (None: nowhere), ``top`` (the end of the grid) and ``inside`` (``u``
    at most ``u_max``, the top of the observed range); None if G was not learned."""
    if "G" not in curves:
        return None
    uz = zero_crossing(u_grid, np.nanmedian(curves["G"], axis=0))
    return {"u": uz, "top": u_grid[-1], "inside": None if uz is None else bool(uz <= u_max)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m binn_utils.scratch", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", default="book", choices=sorted(SCALES))
    ap.add_argument("--initial-cells", type=int, nargs="+", default=[16000])
    ap.add_argument("--mechanisms", default="DG")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--keep-first-column", action="store_true")
    ap.add_argument("--results-dir", default=None)
    args = ap.parse_args(argv)
    for cells in args.initial_cells:
        fit = fit_scratch(cells, args.mechanisms, args.scale, args.epochs, args.seeds,
                          not args.keep_first_column, args.results_dir, require_stored=False)
        print(f"{cells} cells: stored as {fit.cache_files[0]} (+ .json)", flush=True)
        print(fit.summary(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
