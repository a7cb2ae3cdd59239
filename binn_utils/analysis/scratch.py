"""The scratch-assay data of Jin et al. (2016): selection, the key of a stored fit, reading a fit.

``data/scratch_assay_jin2016.csv`` (provenance in ``data/README.md``) holds PC-3 scratch
assays at six initial densities (10,000 to 20,000 cells per well), three replicates each,
37-38 positions across the scratch and five times (0 to 48 h).  This module

* selects one initial density (and, like Lagergren et al. 2020, drops the first spatial
  column x = 25 um, an edge artefact) and returns validated
  :class:`~binn_utils.analysis.user_data.UserObservations` in the file's units (um, h,
  cells/um^2), read with :func:`~binn_utils.analysis.user_data.load_observations_csv`;
* names a fit's stored networks: ``<results>/scratch/scratch-<cells>-<mechanisms>-<hash>.npz/.json``
  where the hash covers the data file's SHA-1, the density, the column selection, the
  mechanisms, the training configuration and the seeds (:func:`fit_prefix`, :func:`fit_extra`);
  the fit itself is ``binn fit --example scratch-assay`` (``fit_plan.scratch_plan``), and
  the chapter's is ``fit_plan.fit_scratch``;
* reads a fit: errors against the data per time, the bias inside the scratch, where the
  growth rate crosses zero.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ..engine.metrics import relative_l2
from .reporting import median
from .user_data import UserFit, UserObservations, file_sha1, load_observations_csv

DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "scratch_assay_jin2016.csv"
#: the shipped file's SHA-1 (data/README.md gives its provenance): a damaged or edited copy is refused
DATA_FILE_SHA1 = "2494805621edf788b0665d98433b001dbf857dce"
INITIAL_CELLS = (10000, 12000, 14000, 16000, 18000, 20000)
COLUMNS = {"x": "x_um", "t": "t_h", "u": "density_cells_per_um2", "replicate": "replicate"}
#: the data's units, and those of the learned operators
UNITS = {"x": "µm", "t": "h", "u": "cells/µm²", "D": "µm²/h", "V": "µm/h", "G": "h⁻¹"}
EDGE_X_UM = 25.0
"""The first spatial column, dropped by Lagergren et al. (2020) as an edge artefact."""


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
    digest = file_sha1(path)
    if path == DATA_FILE and digest != DATA_FILE_SHA1:
        raise ValueError(f"{path}: damaged or edited (its SHA-1 is not the shipped file's); restore it with "
                         f"git checkout -- data/{path.name}")
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
    obs.origin = {"data_file": path.name, "data_file_sha1": digest, "initial_cells": cells,
                  "drop_first_column": bool(drop_first_column)}
    return obs


def fit_extra(obs: UserObservations) -> dict:
    """What the cache key records about the origin of observations :func:`load_scratch` read (the
    file, its SHA-1 as read, the selection)."""
    return dict(obs.origin)


def fit_prefix(initial_cells, mechanisms) -> str:
    return f"scratch-{check_initial_cells(initial_cells)}-{mechanisms}"


# ----------------------------------------------------------------------------- reading a fit
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

