"""``binn predict``: the PDE learned by ``binn fit``, solved from a new initial condition.

:func:`predict` reads a ``binn fit`` output folder (:func:`load_fit_dir`), solves the
learned PDE (each network's D, V, G, converted to the user's units) from a new initial
condition at chosen times, with the forward solve of u_p and its failure statuses
(:func:`predict_solutions`), and :func:`operator_table` exports the operators on any grid of
u (``binn fit`` writes its ``operators.csv`` with it too).
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from tqdm import tqdm

from ..analysis.user_csv import check_data_path, csv_rows
from ..analysis.user_units import UNREPRESENTABLE
from ..analysis.user_observations import (Scaling, csv_cells, decode_csv_bytes, delimiter_hint, detect_delimiter, to_float,
                                          uniform_grid)
from ..engine.forward_solve import check_method, forward_solve
from ..engine.solvers import uniform_spacing
from ..presentation import figures, panels, plotting
from ..store import fits, records, stores
from .requests import check_out_folder, duration, fine_grid_note, solve_seconds, too_slow

__all__ = ["operator_table", "write_operator_table", "check_predict_out", "load_fit_dir", "parse_times",
           "parse_u_grid", "load_initial_condition", "predict_solutions", "choose_method", "predict",
           "MAX_IC_POSITIONS"]


def operator_table(result, scaling: Scaling, which: str, u_grid, u_range) -> list[dict]:
    """Rows (one per u of ``u_grid``, user units) of the learned operators' median,
    25th / 75th percentiles and standard deviation over the networks whose values are
    finite, with ``observed`` = 1 inside the observed range ``u_range``."""
    g = np.asarray(u_grid, dtype=float)
    if g.ndim != 1 or g.size < 1 or not np.all(np.isfinite(g)):
        raise ValueError("the u grid must be a non-empty list of finite numbers")
    curves = {k: scaling.operator_factor(k) * v
              for k, v in result.operator_curves(scaling.u_to_train(g), which).items()}
    lo, hi = u_range
    rows = []
    stats = {}
    for name, c in curves.items():
        ok = np.all(np.isfinite(c), axis=1)
        c = c[ok]
        stats[name] = (np.median(c, axis=0), *np.percentile(c, [25, 75], axis=0), np.std(c, axis=0), int(ok.sum())) \
            if ok.any() else None
    for i, uv in enumerate(g):
        row = {"u": float(uv), "observed": int(lo <= uv <= hi)}
        for name in curves:
            st = stats[name]
            for j, what in enumerate(("median", "q25", "q75", "sd")):
                row[f"{name}_{what}"] = float(st[j][i]) if st is not None else float("nan")
            row[f"{name}_networks"] = st[4] if st is not None else 0
        rows.append(row)
    return rows


def write_operator_table(rows: list[dict], path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in r.items()})
    return path


#: the files ``binn predict`` writes; a folder holding anything else is not its to write into
PREDICT_FILES = ("operators.csv", "predictions.csv", "predictions.npz", "predictions.png")


def check_predict_out(out, fitdir):
    """A one-line ValueError, before any work, if ``binn predict`` would write into a fit's
    folder (its ``operators.csv`` would replace the fit's), the current folder or one above it,
    or a folder holding anything but a previous prediction's files (:data:`PREDICT_FILES`)."""
    folder = Path(out)
    if str(out).strip() and ((folder / "fit.json").exists()
                             or (folder.exists() and folder.resolve() == Path(fitdir).resolve())):
        raise ValueError(f"--out {out} is the folder of a `binn fit` (it holds fit.json): its files would be "
                         f"replaced; choose another folder, e.g. --out {folder.name}-predictions")
    fit = Path(fitdir).resolve()
    if str(out).strip() and fit in folder.resolve().parents:
        raise ValueError(f"--out {out} lies inside the folder of the `binn fit` it reads ({fitdir}): a fit's "
                         f"folder holds only what the fit wrote (a later `binn fit` there would refuse it); "
                         f"choose a folder beside it, e.g. --out {fit.name}-predictions")
    check_out_folder(out, PREDICT_FILES, "a previous prediction", "predictions")   # an empty name as given

#: What ``binn predict`` reads from a fit.json.
FIT_RECORD_FIELDS = ("networks", "scaling", "u_range", "which")


def load_fit_dir(fitdir):
    """(record of fit.json, TrainResult, Scaling) of a ``binn fit`` output folder; a one-line
    ValueError if it is not one or its networks are missing or damaged."""
    fitdir = Path(fitdir)
    js = fitdir / "fit.json"
    if not js.is_file():
        raise ValueError(f"{fitdir}: no fit.json (not the output folder of `binn fit`)")
    try:
        rec = json.loads(js.read_text(encoding="utf-8"))
    except (ValueError, OSError) as err:
        raise ValueError(f"{js}: not a readable fit record ({err}); rerun `binn fit` into this folder") from None
    if not isinstance(rec, dict) or records.RECORD_CHECKSUM_FIELD not in rec:
        raise ValueError(f"{js}: no checksum ({records.RECORD_CHECKSUM_FIELD}): written by an older binn or edited; "
                         "rerun `binn fit` into this folder")
    if rec[records.RECORD_CHECKSUM_FIELD] != records.record_sha256(rec):
        raise ValueError(f"{js}: its content does not match its checksum (edited?); rerun `binn fit` into this folder")
    lacks = [k for k in FIT_RECORD_FIELDS if k not in rec]
    if lacks:
        raise ValueError(f"{js}: not a whole fit record (it lacks {', '.join(lacks)}); rerun `binn fit` into "
                         "this folder")
    try:
        npz, pj = (fitdir / n for n in rec["networks"])
        scaling = Scaling(**rec["scaling"])
        lo, hi = (float(v) for v in rec["u_range"])
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{js}: not a readable fit record ({type(err).__name__}: {err}); rerun `binn fit` "
                         "into this folder") from None
    try:
        result = fits.load_train_result(npz, pj)
    except (OSError, records.DamagedRecordError) as err:
        raise ValueError(f"{fitdir}: the trained networks cannot be read ({err}); rerun `binn fit` into this "
                         "folder") from None
    return rec, result, scaling


def parse_times(text: str) -> np.ndarray:
    """"0,12,24" -> increasing times (at least two; the first is the initial condition's)."""
    items = str(text).replace(" ", "").split(",")
    if items[-1] == "":                        # one trailing comma ("0,12,") is a list's end
        items = items[:-1]
    if "" in items:
        raise ValueError(f"--t has an empty entry ({text!r}): a time left out? e.g. 0,12,24")
    try:
        t = np.array([float(v) for v in items])
    except ValueError:
        raise ValueError(f"--t must be comma-separated numbers, e.g. 0,12,24; got {text!r}") from None
    if t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError(f"--t needs at least two finite, increasing times (the first is the initial "
                         f"condition's), got {text!r}")
    return t


#: the most values of u an operator table may hold
MAX_U_GRID = 100_000
#: the most positions of an initial condition (each forward solve's cost grows with them:
#: ``requests.solve_seconds``), and the largest file read for one (1,000 bytes a position)
MAX_IC_POSITIONS = 10_000
MAX_IC_BYTES = 1000 * MAX_IC_POSITIONS


def parse_u_grid(text: str) -> np.ndarray:
    """"LO:HI:N" (N equally spaced values) or "u1,u2,...": a grid of u in the data's units."""
    s = str(text).strip()
    try:
        if ":" in s:
            lo, hi, n = s.split(":")
            lo, hi, n = float(lo), float(hi), int(n)
            if n < 1 or not (np.isfinite(lo) and np.isfinite(hi)) or (n > 1 and not hi > lo):
                raise ValueError
        else:
            values = [float(v) for v in s.split(",") if v.strip() != ""]
            n = len(values)
    except ValueError:
        raise ValueError(f"--u-grid must be LO:HI:N (LO < HI, N >= 1) or comma-separated numbers, "
                         f"got {text!r}") from None
    _check_u_grid_size(n)    # before the grid is built: 1e10 values would not fit in memory
    if ":" in s and not np.isfinite(hi - lo):
        raise ValueError(f"--u-grid {text}: the span HI - LO is beyond what double precision holds "
                         f"(about {np.finfo(float).max:.3g}); give a narrower range")
    g = np.linspace(lo, hi, n) if ":" in s else np.array(values)
    if g.size < 1 or not np.all(np.isfinite(g)):
        raise ValueError(f"--u-grid must hold at least one finite number, got {text!r}")
    return g


def check_u_grid_units(grid, scaling: Scaling):
    """A one-line ValueError where a u of ``grid`` is beyond double precision in the fit's training
    units (u / u_factor overflows where the data are small): its operators would be read at inf."""
    with np.errstate(over="ignore"):
        beyond = np.asarray(grid, float)[~np.isfinite(scaling.u_to_train(grid))]
    if beyond.size:
        raise ValueError(f"--u-grid: u = {beyond[0]:g} is beyond double precision in the fit's training units "
                         f"(u / {scaling.u_factor:.4g}); give values of the order of the data")


def _check_u_grid_size(n: int):
    if n > MAX_U_GRID:
        raise ValueError(f"--u-grid asks for {n} values of u; at most {MAX_U_GRID} (each network's operators "
                         "are evaluated at every one, and the table holds a row per value)")


def load_initial_condition(path, x="x", u="u", *, delimiter=",", encoding="utf-8-sig", scaling=None):
    """(x, u0, a note or None) of an initial condition: a CSV file with a header naming columns
    ``x`` and ``u``, one row per position (other columns ignored; empty and ``#`` lines skipped);
    3 to :data:`MAX_IC_POSITIONS` distinct, equally spaced positions (the forward solve's grid:
    positions that differ from one by rounding are snapped, and the note says so), finite values.
    Problems are one-line ValueErrors naming the row, as for the data file.  ``scaling`` (a fit's):
    the positions are checked in its training units too, where the forward solve gets them."""
    source = str(getattr(path, "name", path))
    if not hasattr(path, "read"):
        check_data_path(path, "initial condition file")
        if Path(path).stat().st_size > MAX_IC_BYTES:
            raise ValueError(f"{source}: {Path(path).stat().st_size:,} bytes; an initial condition has at most "
                             f"{MAX_IC_POSITIONS:,} positions (each forward solve's cost grows with them)")
    text = path.read() if hasattr(path, "read") else Path(path).read_bytes()
    if isinstance(text, bytes):
        text, encoding = decode_csv_bytes(text, encoding, source)
    if delimiter is None:
        delimiter = detect_delimiter(text, (x, u))
    with csv_cells(source):
        rows = [(line, r) for line, r in csv_rows(text, source, delimiter) if r and any(c.strip() for c in r)
                and not r[0].lstrip().startswith("#")]
    if not rows:
        raise ValueError(f"{source}: empty file (no header line)")
    if len(rows) - 1 > MAX_IC_POSITIONS:
        raise ValueError(f"{source}: {len(rows) - 1:,} positions; an initial condition has at most "
                         f"{MAX_IC_POSITIONS:,} (each forward solve's cost grows with them): use a coarser grid")
    header = [c.strip() for c in rows[0][1]]
    missing = [c for c in (x, u) if c not in header]
    if missing:
        hint = delimiter_hint(delimiter.join(header), delimiter, (x, u))
        raise ValueError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; the header has "
                         f"{', '.join(map(repr, header))}" + (hint or " (pass --x, --u to name yours)"))
    if x == u:
        raise ValueError(f"--x and --u both name the column {x!r}: name the positions and the densities apart")
    twice = sorted({c for c in (x, u) if header.count(c) > 1})
    if twice:
        raise ValueError(f"{source}: the header names {', '.join(map(repr, twice))} more than once: which column "
                         "to read is ambiguous; rename one")
    jx, ju = header.index(x), header.index(u)
    xs, us = [], []
    for k, (line, r) in enumerate(rows[1:], start=1):
        where = f"{source}: row {k} (line {line})"
        if max(jx, ju) >= len(r):
            raise ValueError(f"{where}: the row has {len(r)} field(s), the header {len(header)}")
        xs.append(to_float(r[jx], where, x))
        us.append(to_float(r[ju], where, u))
    xs, us = np.array(xs), np.array(us)
    order = np.argsort(xs, kind="stable")
    xs, us = xs[order], us[order]
    if xs.size < 3:
        raise ValueError(f"{source}: {xs.size} position(s); the forward solve needs at least 3 equally spaced ones")
    dx = np.diff(xs)
    if np.any(dx <= 0):
        i = int(np.nonzero(dx <= 0)[0][0])
        raise ValueError(f"{source}: position x={xs[i]:g} appears twice; one value of u per position")
    xs, note = uniform_grid(xs, source, x)
    if scaling is not None:
        try:
            uniform_spacing(scaling.x_to_train(xs))
        except ValueError as err:
            raise ValueError(f"{source}: positions {x!r} in the fit's training units: {err}; subtract an offset from "
                             "them, or refit on positions of the same order") from None
    return xs, us, note


def predict_solutions(operator_sets, x, u0, t, scaling: Scaling, method="RK45") -> tuple[np.ndarray, list]:
    """Solve u_t = (D(u) u_x - u V(u))_x + u G(u) (operators in the user's units, one
    (D, V, G) set per network, None = absent) from ``u0`` on ``x`` at times ``t``, in the
    training variables of ``scaling`` (where the solver's tolerances were chosen), with
    ``forward_solve``: returns u (R, n_t, n_x) in user units (NaN where a solve failed) and
    each solve's status ("ok" or "failed: ..."/"blowup: ...")."""
    check_method(method)
    x, u0, t = (np.asarray(v, dtype=float) for v in (x, u0, t))
    xp = scaling.x_to_train(x)
    tp = scaling.t_factor * (t - t[0])
    up0 = scaling.u_to_train(u0)
    sols, status = [], []
    for ops in operator_sets:
        train_ops = [None if f is None else scaling.operator_to_train(n, f) for n, f in zip("DVG", ops)]
        sol = forward_solve(*train_ops, up0, xp, tp, method=method)
        held = not sol.ok or scaling.holds_in_user_units(sol.u)     # (a failed solve is NaN already)
        sols.append(scaling.u_to_user(sol.u) if held else np.full_like(sol.u, np.nan, dtype=float))
        status.append(("ok" if sol.ok else f"{sol.status}: {sol.message}") if held else UNREPRESENTABLE)
    return np.stack(sols), status


def choose_method(asked, fitted: str, n_x: int, solves: int, echo=print) -> str:
    """The integrator of a prediction on ``n_x`` positions: the one ``asked`` for (with the cost
    model's estimate where it is slow: ``requests.fine_grid_note``), else the fit's, or BDF where
    the fit's would be slow by the same cost model as ``binn fit``'s (``requests.too_slow``), said."""
    if asked is not None:
        note = fine_grid_note(n_x, asked, solves)
        if note:
            echo(note)
        return asked
    if too_slow(n_x, fitted):
        echo(f"note: {n_x} positions: the fit's {fitted} would take ~{duration(solves * solve_seconds(n_x, fitted))} "
             f"for the {solves} forward solve(s) (cost model), BDF ~{duration(solves * solve_seconds(n_x, 'BDF'))}: "
             f"solving with BDF (--forward-method {fitted} insists)")
        return "BDF"
    return fitted


def predict(fitdir, out, *, ic=None, t=None, x="x", u="u", u_grid=None, method=None, echo=print,
            delimiter=",", encoding="utf-8-sig") -> dict:
    """``binn predict``: from a ``binn fit`` folder, solve the learned PDE from the initial
    condition in ``ic`` (CSV) at times ``t`` (text "0,12,24" or an array; the first is the
    initial condition's) and/or export the operators on ``u_grid`` ("LO:HI:N" or values).
    Writes ``predictions.npz`` / ``.csv`` / ``.png`` and ``operators.csv`` into ``out``;
    returns {name: path} and, under "status", each network's solve status."""
    if ic is None and u_grid is None:
        raise ValueError("nothing to do: give --ic and --t (a prediction) and/or --u-grid (an operator table)")
    if (ic is None) != (t is None):
        raise ValueError("a prediction needs both --ic (initial condition) and --t (times)")
    rec, result, scaling = load_fit_dir(fitdir)
    which = rec.get("which", "best")
    times = parse_times(t) if isinstance(t, str) else (None if t is None else np.asarray(t, float))
    grid = parse_u_grid(u_grid) if isinstance(u_grid, str) else (None if u_grid is None else np.asarray(u_grid, float))
    if grid is not None:
        check_u_grid_units(grid, scaling)
    if ic is not None:
        x0, u0, note = load_initial_condition(ic, x=x, u=u, delimiter=delimiter, encoding=encoding, scaling=scaling)
        if note:
            echo(f"note: {note}")
        method = choose_method(method, rec.get("forward_method", "RK45"), x0.size, result.n_replicates, echo)
    final = Path(out)
    check_predict_out(final, fitdir)
    stores.check_writable(final)
    # every file is written into a temporary folder beside --out, then moved into it: an
    # interrupted or failed prediction (Ctrl-C, a full disk) leaves the previous files whole
    final.parent.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.tmp-"))
    try:
        files = _predict_into(out, rec, result, scaling, which, method, times, grid, ic, x0 if ic is not None else None,
                              u0 if ic is not None else None, echo)
        final.mkdir(exist_ok=True)
        for name in [n for n in files if n != "status"]:
            os.replace(out / name, final / name)
            files[name] = final / name
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return files


def _predict_into(out: Path, rec, result, scaling, which, method, times, grid, ic, x0, u0, echo) -> dict:
    """The files of a prediction (:func:`predict`) written into the folder ``out``."""
    files = {}
    if grid is not None:
        rows = operator_table(result, scaling, which, grid, rec["u_range"])
        files["operators.csv"] = write_operator_table(rows, out / "operators.csv")
    if ic is not None:
        sets = [[None if result.operator(n, r, which) is None else scaling.operator_to_user(n, result.operator(n, r, which))
                 for n in "DVG"] for r in range(result.n_replicates)]
        u_all, status = [], []
        for ops in tqdm(sets, desc="forward solves", unit="network", disable=len(sets) < 2):
            up, st = predict_solutions([ops], x0, u0, times, scaling, method)
            u_all.append(up[0])
            status += st
        u_all = np.stack(u_all)
        n_ok = sum(s == "ok" for s in status)
        np.savez_compressed(out / "predictions.npz", x=x0, t=times, u0=u0, u_p=u_all, status=np.array(status, str))
        files["predictions.npz"] = out / "predictions.npz"
        ok = np.array([s == "ok" for s in status])
        with open(out / "predictions.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["x", "t", "u_median", "u_q25", "u_q75", "networks_ok"])
            for k, tv in enumerate(times):
                for j, xv in enumerate(x0):
                    v = u_all[ok, k, j]
                    med, q1, q3 = (np.median(v), *np.percentile(v, [25, 75])) if v.size else (np.nan,) * 3
                    w.writerow([f"{xv:.10g}", f"{tv:.10g}", f"{med:.10g}", f"{q1:.10g}", f"{q3:.10g}", int(ok.sum())])
        files["predictions.csv"] = out / "predictions.csv"
        plotting.style()
        units = rec.get("data", {}).get("units") or {}
        shown = panels.shown_times(times.size)
        if shown.size < times.size:
            echo(f"note: the figure shows {shown.size} of the {times.size} times, evenly chosen; predictions.csv and "
                 ".npz hold them all")
        fig = figures.own_data_predictions(x0, times, u_all[ok] if ok.any() else u_all,
                                           x_label="x" + (f" ({units['x']})" if units.get("x") else ""),
                                           u_label="u" + (f" ({units['u']})" if units.get("u") else ""))
        fig.savefig(out / "predictions.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        files["predictions.png"] = out / "predictions.png"
        echo(f"forward solves ({method}): {n_ok} of {len(status)} ok" +
             ("" if n_ok == len(status) else "; " + "; ".join(
                 f"network {r}: {s}" for r, s in enumerate(status) if s != "ok")))
        files["status"] = status
    lo, hi = rec["u_range"]
    if grid is not None and (grid.min() < lo or grid.max() > hi):
        echo(f"note: the observed range of u is [{lo:g}, {hi:g}]; outside it (observed = 0 in operators.csv) "
             "the operators are extrapolations of the networks")
    if ic is not None and (u0.min() < lo or u0.max() > hi):
        echo(f"note: the initial condition leaves the observed range of u [{lo:g}, {hi:g}]: there the "
             "prediction rests on extrapolated operators")
    elif ic is not None and np.isfinite(u_all).any() and (np.nanmin(u_all) < lo or np.nanmax(u_all) > hi):
        echo(f"note: the predicted u leaves the observed range [{lo:g}, {hi:g}] (it reaches "
             f"[{np.nanmin(u_all):g}, {np.nanmax(u_all):g}]): there it rests on extrapolated operators")
    fitted = rec.get("data", {}).get("times") or []
    if ic is not None and len(fitted) > 1 and times[-1] - times[0] > max(fitted) - min(fitted):
        echo(f"note: the prediction spans {times[-1] - times[0]:g} time units from its initial condition, longer "
             f"than the {max(fitted) - min(fitted):g} the fit saw in its data: beyond that the learned PDE was never "
             "compared with data")
    return files
