"""``binn fit`` and ``binn predict``: a practitioner's own data, from a CSV file to a report.

:func:`plan_fit` validates a request (the data file with every check of
:mod:`binn_utils.analysis.user_data`, the options, the output folder) before anything is trained
and describes it (:meth:`FitPlan.describe`: points, grid, replicates, rescaling, estimated
time); :func:`run_fit` trains what is not stored (``user_data.fit_user_data_cached``, the
same code path as the Python API), and :func:`write_fit_outputs` writes into the output
folder

==================  ===========================================================================
``operators.csv``   u in the user's units; per learned operator the median, 25th and 75th
                    percentiles and standard deviation over the networks; ``observed`` = 0
                    where u lies outside the observed range (extrapolation)
``solutions.npz``   x, t, the data (n_rep, n_t, n_x), u_theta and u_p (R, n_t, n_x; u_p NaN
                    where the forward solve failed) and the solves' statuses
``solutions.png``   data against u_theta and u_p at every observation time
``operators.png``   the learned operators, the unobserved range of u shaded
``losses.png``      validation and training losses
``diagnostics.md``  the ground-truth-free checks, each with its threshold and deciding value
``report.html``     one self-contained page with all of the above (figures embedded)
``fit.json``        the full specification, versions, commit, data digest, scaling, files
``networks/``       the trained networks (``<key>.npz`` / ``.json``) that ``binn predict`` uses
==================  ===========================================================================

:func:`predict` solves the learned PDE (each network's D, V, G, converted to the user's
units) from a new initial condition at chosen times, with the forward solve of u_p and its
failure statuses, and :func:`operator_table` exports the operators on any grid of u.
"""
from __future__ import annotations

import base64
import csv
import html
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from tqdm import tqdm

from .. import studies
from ..analysis import diagnostic_roc, identifiability, scratch
from ..analysis.diagnostics import fmt_value
from ..analysis.user_data import UserFit, curve_shapes, file_sha1, fit_user_data_cached, prepare_fit
from ..analysis.user_observations import (MECHANISMS, Scaling, decode_csv_bytes, delimiter_hint, detect_delimiter,
                                          to_float, uniform_grid, validate_mechanisms)
from ..engine.forward_solve import check_method, forward_solve
from ..engine.metrics import relative_l2_many
from ..engine.runs import TrainConfig
from ..presentation import figures, plotting
from ..store import fits, provenance, records

__all__ = ["SCALES", "OUTPUT_FILES", "SECONDS_PER_STEP", "SECONDS_PER_REPLICATE_STEP", "FitPlan", "plan_fit",
           "train_or_load", "run_fit", "scratch_plan", "fit_scratch", "write_fit_outputs", "operator_table",
           "write_operator_table", "load_fit_dir", "parse_times", "parse_u_grid", "load_initial_condition",
           "predict_solutions", "predict", "fit_identifiability", "write_example_csv", "example_D", "example_G", "EXAMPLE_K"]

#: Training length and initialisations of a fit of user data at each ``--scale`` (``--epochs`` /
#: ``--seeds`` override): quick is a smoke run whose numbers mean nothing; lite and paper are the
#: sweeps' (``studies.SCALES``); book trains as paper (one fit, like the sweeps' default runs:
#: the paper's 4000 epochs and ten initialisations).
SCALES = {"quick": dict(epochs=20, seeds=2),
          **{name: {k: studies.SCALES[like][k] for k in ("epochs", "seeds")}
             for name, like in (("lite", "lite"), ("book", "paper"), ("paper", "paper"))}}

OUTPUT_FILES = ("operators.csv", "solutions.npz", "solutions.png", "operators.png", "losses.png",
                "diagnostics.md", "report.html", "fit.json")

SECONDS_PER_STEP = 0.025
SECONDS_PER_REPLICATE_STEP = 6e-4
"""Cost model of the estimate printed before training: an optimiser step of R networks
trained as one batched model takes about SECONDS_PER_STEP + R x SECONDS_PER_REPLICATE_STEP
(uncompiled float32 on one CPU core: a fixed overhead per step, then the arithmetic; the
scratch-assay fit, 10 networks x 4000 epochs x 4 steps, took about 500 s on one shared
core).  Other machines and loads differ; it is an order of magnitude, not a promise."""

SECONDS_PER_SOLVE = {"RK45": 2.0, "BDF": 0.5, "Radau": 1.0}
"""Rough seconds per forward solve of u_p on a grid of up to ~100 points."""

DIAGNOSTIC_HELP = {
    "underfitting": "Is training finished? Share of the validation loss's decrease made in the last "
                    "part of training, or a network that fits the data no better than their mean.",
    "instability": "Did training behave? Roughness of the validation loss, diverged or blown-up networks.",
    "overfitting": "Did the validation loss come back up after its minimum?",
    "mechanistic_mismatch": "Do the learned operators reproduce the data? The forward solve u_p (learned "
                            "D, V, G and initial condition only) against u_theta, both against the data.",
    "operator_spread": "Do independent initialisations agree on the operators over the observed range of u?",
    "loss_balance": "Do the data and PDE terms both shape the fit? Ratio of the weighted losses at the end.",
}


@dataclass
class FitPlan:
    """A validated ``binn fit`` request (nothing trained yet)."""

    prep: dict                       # user_data.prepare_fit output
    out: Path | None                 # the output folder (None: the fit alone, no files)
    cache_dir: tuple       # folders the networks are read from, in order; the last: where they are trained
    prefix: str
    extra: dict
    options: dict                    # what the user asked for (recorded in fit.json)
    data_file: str | None = None
    data_file_sha1: str | None = None
    units: dict = field(default_factory=dict)

    @property
    def n_networks(self) -> int:
        return len(self.prep["run_seeds"])

    @property
    def steps_per_epoch(self) -> int:
        o = self.prep["observations"][0]
        n_train = len(o.train_idx)
        return -(-n_train // min(self.prep["config"].batch_size, n_train))

    def estimated_seconds(self) -> float:
        """Training (cost model) plus the forward solves; see ``SECONDS_PER_STEP``."""
        steps = self.prep["config"].epochs * self.steps_per_epoch
        solves = self.n_networks * SECONDS_PER_SOLVE.get(self.prep["forward_method"], 1.0)
        return steps * (SECONDS_PER_STEP + self.n_networks * SECONDS_PER_REPLICATE_STEP) + solves

    def describe(self) -> str:
        p, sc, cfg = self.prep, self.prep["scaling"], self.prep["config"]
        data = p["data"]
        reps = (f"{data.n_replicates} replicate(s): " +
                ("each network trained on their mean" if p["replicates"] == "mean"
                 else "each initialisation trained on each replicate separately"))
        return "\n".join([
            f"data: {data.describe()}",
            f"grid: {data.x.size} equally spaced positions x {data.t.size} times "
            f"({', '.join(f'{v:g}' for v in data.t)}); {reps}",
            f"training units: x' = {sc.x0_train:g} + {sc.x_factor:.4g} (x - {sc.x_min:g}), "
            f"t' = {sc.t_factor:.4g} (t - {sc.t_min:g}), u' = u / {sc.u_factor:.4g}",
            f"fit: mechanisms {', '.join(MECHANISMS[m] for m in p['mechanisms'])}; {self.n_networks} network(s) "
            f"x {cfg.epochs} epochs x {self.steps_per_epoch} step(s) (batch {cfg.batch_size}, lr {cfg.lr:g}, "
            f"w_PDE {cfg.w_pde:g}); u_p by {p['forward_method']}; reported: {p['which']} networks",
            f"estimated time if nothing is stored: ~{_duration(self.estimated_seconds())} on one CPU core "
            f"(cost model: {SECONDS_PER_STEP * 1e3:g} ms per step + {SECONDS_PER_REPLICATE_STEP * 1e3:g} ms per "
            "network and step)",
            f"output: {self.out}"])


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")


def plan_fit(data, mechanisms, out, *, x="x", t="t", u="u", replicate=None, replicates="mean",
             scale="book", seeds=None, epochs=None, batch_size=None, lr=None, w_pde=None, forward_method="RK45",
             which="best", cache_dir=None, prefix="fit", extra=None, units=None, delimiter=",",
             encoding="utf-8-sig") -> FitPlan:
    """Validate a ``binn fit`` request; every problem is a one-line ``ValueError`` raised
    before any training.  ``data``: a CSV path or ``UserObservations``; ``seeds``: the
    number of initialisations (seeds 0..n-1); None values take the ``scale``'s defaults
    (``SCALES``) or the paper's (``TrainConfig``).  ``out``: the output folder (None: no
    files, ``cache_dir`` needed).  ``cache_dir``: where the networks are stored (default
    ``out/networks``): a folder, or folders read in order whose last is where missing
    networks are trained.  ``delimiter`` and ``encoding`` read the CSV file (None: detected, and
    the plan says what was found)."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
    s = SCALES[scale]
    kw = {k: v for k, v in (("batch_size", batch_size), ("lr", lr), ("w_pde", w_pde)) if v is not None}
    config = TrainConfig(epochs=int(epochs or s["epochs"]), compile=False, **kw).validate()
    n_seeds = int(seeds or s["seeds"])
    out = None if out is None else Path(out)
    if out is not None and out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    data_file = sha1 = None
    if not hasattr(data, "u"):
        data_file = os.fspath(data)
        if Path(data_file).is_dir():
            raise ValueError(f"{data_file} is a folder, not a data file: name the CSV file inside it")
        if not Path(data_file).is_file():
            raise ValueError(f"{data_file}: no such file")
        sha1 = file_sha1(data_file)
    prep = prepare_fit(data, mechanisms, config, range(n_seeds), which=which, replicates=replicates, x=x, t=t,
                       u=u, replicate=replicate, forward_method=forward_method, delimiter=delimiter,
                       encoding=encoding)
    if out is not None:
        records.check_writable(out)
    cache_dir = (out / "networks",) if cache_dir is None else (
        (Path(cache_dir),) if isinstance(cache_dir, (str, Path)) else tuple(map(Path, cache_dir)))
    records.check_writable(cache_dir[-1])
    options = dict(scale=scale, seeds=n_seeds, epochs=config.epochs, batch_size=config.batch_size, lr=config.lr,
                   w_pde=config.w_pde, replicates=replicates, which=which, forward_method=forward_method,
                   columns={"x": x, "t": t, "u": u, "replicate": replicate},
                   mechanisms="".join(prep["mechanisms"]))
    extra = dict(extra or {})
    if sha1 is not None:
        extra.setdefault("data_file_sha1", sha1)
    return FitPlan(prep=prep, out=out, cache_dir=cache_dir, prefix=prefix, extra=extra, options=options,
                   data_file=data_file, data_file_sha1=sha1, units=dict(units or {}))


def train_or_load(plan: FitPlan, *, workers=None, scheduler=None, progress=True, require_stored=None) -> UserFit:
    """The fit of ``plan``: its networks loaded from the store, or trained and stored.
    ``require_stored``: as for ``fit_user_data_cached`` (default: the ``BINN_REQUIRE_STORED``
    environment variable)."""
    return fit_user_data_cached(None, None, cache_dir=plan.cache_dir, prefix=plan.prefix, extra=plan.extra,
                                require_stored=require_stored, progress=progress, workers=workers,
                                scheduler=scheduler, prepared=plan.prep)


def scratch_plan(out=None, initial_cells=16000, mechanisms="DG", scale="book", *, drop_first_column=True,
                 source=None, **kw) -> FitPlan:
    """The ``binn fit`` request of the scratch assay (``binn fit --example scratch-assay``, the
    chapter's fit): the replicate mean of one initial density (``scratch.load_scratch``),
    networks read from and trained into ``<store>/scratch`` (``records.folders_for(scale,
    source)``) under ``scratch.fit_prefix``; ``kw``: as for :func:`plan_fit`."""
    cells = scratch.check_initial_cells(initial_cells)
    mech = "".join(validate_mechanisms(mechanisms))
    plan = plan_fit(scratch.load_scratch(cells, drop_first_column), mech, out, scale=scale,
                    cache_dir=records.folders_for(scale, source, "scratch"), prefix=scratch.fit_prefix(cells, mech),
                    extra=scratch.fit_extra(cells, drop_first_column), units=scratch.UNITS, **kw)
    plan.data_file, plan.data_file_sha1 = scratch.DATA_FILE.name, plan.extra["data_file_sha1"]
    return plan


def fit_scratch(initial_cells=16000, mechanisms="DG", scale="book", epochs=None, seeds=None,
                drop_first_column=True, source=None, require_stored=None) -> UserFit:
    """The scratch-assay chapter's fit (:func:`scratch_plan`, no output files): loaded if
    stored, else trained and stored."""
    plan = scratch_plan(None, initial_cells, mechanisms, scale, epochs=epochs, seeds=seeds,
                        drop_first_column=drop_first_column, source=source)
    return train_or_load(plan, progress=False, require_stored=require_stored)


def run_fit(plan: FitPlan, *, workers=None, scheduler=None, progress=True, require_stored=None,
            echo=print) -> tuple[UserFit, dict]:
    """:func:`train_or_load`, then write every output file; returns the fit and {name: path}
    of the files written."""
    t0 = time.perf_counter()
    fit = train_or_load(plan, workers=workers, scheduler=scheduler, progress=progress,
                        require_stored=require_stored)
    echo(f"networks: {'trained ' + str(fit.trained) if fit.trained else 'loaded from the store, nothing trained'}"
         f" ({fit.cache_files[0]})")
    files = write_fit_outputs(fit, plan, seconds=time.perf_counter() - t0)
    return fit, files


# ----------------------------------------------------------------------------- outputs
def _operator_grid(fit: UserFit, n: int = 101, extend: float = 0.2) -> np.ndarray:
    lo, hi = fit.u_range
    pad = extend * (hi - lo)
    return np.linspace(min(0.0, lo) if lo >= 0 else lo - pad, hi + pad, n)


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


def _thr(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k.replace('_', ' ')} {fmt_value(x)}" for k, x in v.items())
    return fmt_value(v)


def fit_identifiability(fit: UserFit):
    """How strongly the user's data constrain each learned operator
    (:func:`identifiability.learned_identifiability`, training units; the noise from the
    between-replicate spread -- of their mean when the mean was fitted -- or the residual)."""
    obs = fit.observations[0]
    sd = fit.data.noise_sd
    if sd is not None:
        sd = sd / (np.sqrt(fit.data.n_replicates) if fit.replicates_mode == "mean" else 1.0) / fit.scaling.u_factor
    ev = fit.evaluation
    return identifiability.learned_identifiability(ev.operators, ev.u_grid, obs.x, obs.t, obs.u_obs, ev.u_theta,
                                                   replicate_sd=sd)


def diagnostics_markdown(fit: UserFit) -> str:
    rep = fit.report
    held = diagnostic_roc.stored_summary(n_boot=0)
    lines = [f"# Diagnostics of the fit ({rep.n_replicates} networks, {rep.n_epochs} epochs)", "",
             "Ground-truth-free checks (`binn_utils.analysis.diagnostics`): each has a number, the threshold it is "
             "compared with, and a flag. Observed range of u (where the operators are identifiable): "
             f"[{fmt_value(rep.u_range[0])}, {fmt_value(rep.u_range[1])}]. How far to trust a flag: on the "
             f"{held['n']} networks trained for the book, whose truth is known, the share of failures each "
             "diagnostic catches and of fine networks it flags (false alarms), at the threshold used here and "
             "held out (a threshold chosen on four benchmarks, counted on the fifth; the book's chapter on "
             "diagnosing failure without ground truth).", "",
             "| diagnostic | value | threshold | flag | caught / false alarms at this threshold "
             "| held out: caught / false alarms | what it checks | what it says |", "|---|---|---|---|---|---|---|---|"]

    def rates(c):
        return f"{diagnostic_roc.pct(c.caught_rate)} / {diagnostic_roc.pct(c.false_alarm_rate)}"
    for d in rep.diagnostics.values():
        v = held["per"][d.name]
        lines.append(f"| {d.name.replace('_', ' ')} | {fmt_value(d.value)} | {_thr(d.threshold)} | "
                     f"{'**FLAG**' if d.flag else 'ok'} | {rates(v['module'])} | {rates(v['held'].pooled)} | "
                     f"{DIAGNOSTIC_HELP.get(d.name, '')} | {d.message.replace('|', '/')} |")
    h = held["per"][diagnostic_roc.COMBINED]["held"].pooled
    lines += ["", f"Any flag (combined), held out: {diagnostic_roc.rate_pair(h)}."]
    ev = fit.evaluation
    n_fail = ev.n_failed_u_p
    lines += ["", f"Diagnostics: {'none fired' if rep.ok else 'check ' + ', '.join(rep.flags)}.",
              f"Forward solves u_p: {len(ev.up_status) - n_fail} of {len(ev.up_status)} ok"
              + ("" if not n_fail else "; failed: " + "; ".join(
                  f"network {r}: {s}" for r, s in enumerate(ev.up_status) if s != "ok")) + ".",
              f"Training: {sum(s == 'ok' for s in fit.result.status)} of {fit.result.n_replicates} networks "
              "trained without diverging.", "",
              "A flag is a reason to look, not a verdict, and no flag is not proof of correct operators: on the "
              "paper's own sweeps, where the truth is known, these checks miss some failures and fire on some "
              "settings that are fine (counts in the book's chapter on diagnosing failure without ground truth).",
              "", identifiability.fit_markdown(fit_identifiability(fit))]
    return "\n".join(lines) + "\n"


def fit_figures(fit: UserFit, units: dict, truth: dict | None = None) -> dict:
    """The figures of ``binn fit``'s report, {file name: figure}, axes labelled in
    ``units``; ``truth`` (a problem with a known answer: "u", the noise-free solution on
    the data grid, and a function of u per operator) is drawn as dashed black lines."""
    truth = truth or {}
    grid = _operator_grid(fit)
    xl, tl, ul = (f"{k}" + (f" ({units[k]})" if units.get(k) else "") for k in ("x", "t", "u"))
    plotting.style()
    return {"solutions.png": figures.own_data_solutions(fit.x, fit.t, fit.data.u, fit.u_theta, fit.u_p,
                                                        x_label=xl, u_label=ul, t_label="t",
                                                        u_true=truth.get("u")),
            "operators.png": figures.own_data_operators(
                grid, {k: fit.scaling.operator_factor(k) * v for k, v in
                       fit.result.operator_curves(fit.scaling.u_to_train(grid), fit.which).items()},
                fit.u_range, u_label=ul,
                labels={k: f"{plotting.OP_LABELS[k]}" + (f" ({units[k]})" if units.get(k) else "") for k in "DVG"},
                truth={k: f(grid) for k, f in truth.items() if k != "u"}),
            "losses.png": figures.own_data_losses(fit.result.history, fit.result.best_epoch
                                                  if fit.which == "best" else None)}


def write_fit_outputs(fit: UserFit, plan: FitPlan, seconds: float | None = None) -> dict:
    """Every output file of ``binn fit`` (module docstring) into ``plan.out``, all or nothing:
    they are written into a temporary folder beside it, which then replaces ``plan.out`` (an
    interrupted write leaves the previous fit whole, or no fit, never a mixture).  The networks
    stored in ``plan.out/networks`` (this fit's and any others) are kept."""
    final = plan.out
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.tmp-"))
    try:
        os.chmod(tmp, 0o777 & ~records.umask())
        if (final / "networks").is_dir():
            _link_tree(final / "networks", tmp / "networks")
        files = _write_fit_files(fit, plan, tmp, seconds)
        _replace_folder(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {name: final / Path(path).name for name, path in files.items()}


def _link_tree(src: Path, dst: Path):
    """``dst`` with the files of ``src`` (hard links where possible, else copies)."""
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and not f.name.startswith("."):
            try:
                os.link(f, dst / f.name)
            except OSError:
                shutil.copy2(f, dst / f.name)


def _replace_folder(new: Path, final: Path):
    """Put the folder ``new`` in the place of ``final`` (renames; the old one is removed after)."""
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.old-"))
        os.rmdir(old)
        os.replace(final, old)
    os.replace(new, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def check_predict_out(out, fitdir):
    """A one-line ValueError if ``binn predict`` would write into a fit's folder (its
    ``operators.csv`` would replace the fit's)."""
    out = Path(out)
    if (out / "fit.json").exists() or (out.exists() and out.resolve() == Path(fitdir).resolve()):
        raise ValueError(f"--out {out} is the folder of a `binn fit` (it holds fit.json): its files would be "
                         f"replaced; choose another folder, e.g. --out {out.name}-predictions")


def _write_fit_files(fit: UserFit, plan: FitPlan, out: Path, seconds) -> dict:
    files = {}
    # the networks, inside the output folder (binn predict reads them from there)
    net_dir = out / "networks"
    nets = []
    for f in fit.cache_files:
        dst = net_dir / Path(f).name
        if not dst.exists():
            net_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
        nets.append(dst.relative_to(out).as_posix())
    grid = _operator_grid(fit)
    rows = operator_table(fit.result, fit.scaling, fit.which, grid, fit.u_range)
    files["operators.csv"] = write_operator_table(rows, out / "operators.csv")
    ev = fit.evaluation
    np.savez_compressed(out / "solutions.npz", x=fit.x, t=fit.t, u_data=fit.data.u, u_data_mean=fit.data.u_mean,
                        u_theta=fit.u_theta, u_p=fit.u_p, up_status=np.array(ev.up_status, dtype=str),
                        err_u_theta_obs=ev.err_u_theta_obs, err_u_p_obs=ev.err_u_p_obs)
    files["solutions.npz"] = out / "solutions.npz"
    un = plan.units
    for name, fig in fit_figures(fit, un).items():
        fig.savefig(out / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        files[name] = out / name
    md = diagnostics_markdown(fit)
    (out / "diagnostics.md").write_text(md, encoding="utf-8")
    files["diagnostics.md"] = out / "diagnostics.md"
    record = {"format": 1, "command": "binn fit", "spec": _load_spec(fit), "options": plan.options,
              "cache_key": fit.cache_key, "networks": nets, "which": fit.which, "mechanisms": list(fit.mechanisms),
              "forward_method": fit.forward_method, "scaling": fit.scaling.to_dict(),
              "data": {"file": plan.data_file, "file_sha1": plan.data_file_sha1, "source": fit.data.source,
                       "digest_sha1": _load_spec(fit).get("data_sha1"), "positions": int(fit.x.size),
                       "times": [float(v) for v in fit.t], "replicates": list(fit.data.replicates),
                       "columns": plan.options.get("columns"), "units": un},
              "u_range": [float(v) for v in fit.u_range],
              "results": {"flags": fit.report.flags, "up_status": list(ev.up_status),
                          "n_failed_u_p": ev.n_failed_u_p, "training_status": list(fit.result.status),
                          "err_u_theta_obs": [float(v) for v in ev.err_u_theta_obs],
                          "err_u_p_obs": [float(v) for v in ev.err_u_p_obs],
                          "networks_trained_by_this_run": int(fit.trained),
                          "train_wall_time_s": float(fit.result.wall_time_s)},
              "provenance": provenance.provenance(), "seconds": seconds,
              "files": sorted(OUTPUT_FILES)}
    (out / "fit.json").write_text(json.dumps(records.clean_json(record), indent=1, sort_keys=True), encoding="utf-8")
    files["fit.json"] = out / "fit.json"
    (out / "report.html").write_text(report_html(fit, plan, rows, md, record, out), encoding="utf-8")
    files["report.html"] = out / "report.html"
    return files


def _load_spec(fit: UserFit) -> dict:
    rec, _ = records.read_pair(*fit.cache_files, load_arrays=False, kind=fits.FIT_KIND)
    return rec.get("spec", {})


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"><figcaption>' \
           f'{html.escape(alt)}</figcaption></figure>'


def _md_table_to_html(lines: list[str]) -> str:
    rows = [ln.strip().strip("|").split(" | ") for ln in lines if ln.startswith("|") and not ln.startswith("|---")]
    if not rows:
        return ""
    head, body = rows[0], rows[1:]

    def cell(c, tag):
        c = html.escape(c.strip())
        if c.startswith("**") and c.endswith("**"):
            c = f"<strong>{c[2:-2]}</strong>"
        return f"<{tag}>{c}</{tag}>"
    return ("<table><thead><tr>" + "".join(cell(c, "th") for c in head) + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(cell(c, "td") for c in r) + "</tr>" for r in body) + "</tbody></table>")


def report_html(fit: UserFit, plan: FitPlan, rows: list[dict], md: str, record: dict, out=None) -> str:
    """One self-contained HTML page (figures embedded as data URIs, no external files) of the
    outputs in ``out`` (default ``plan.out``)."""
    out = Path(out or plan.out)
    esc = html.escape
    ev = fit.evaluation
    med = (lambda v: fmt_value(float(np.nanmedian(v))) if np.isfinite(v).any() else "n/a (every solve failed)")
    summary = fit.summary().splitlines()[:3]
    obs_rows = [r for r in rows if r["observed"]]
    pick = obs_rows[:: max(1, len(obs_rows) // 10)] if obs_rows else []
    op_cols = [k for k in rows[0] if k.endswith(("_median", "_q25", "_q75"))]
    op_table = ("<table><thead><tr><th>u</th>" + "".join(f"<th>{esc(c)}</th>" for c in op_cols)
                + "</tr></thead><tbody>" + "".join(
                    "<tr><td>" + fmt_value(r["u"]) + "</td>"
                    + "".join(f"<td>{fmt_value(r[c])}</td>" for c in op_cols)
                    + "</tr>" for r in pick) + "</tbody></table>")
    md_lines = md.splitlines()
    verdict = [ln for ln in md_lines if ln.startswith(("Diagnostics:", "Forward", "Training", "A flag"))]
    prov = record["provenance"]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>BINN fit: {esc(fit.data.source)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }}
img {{ max-width: 100%; }} figure {{ margin: 1em 0; }} figcaption {{ color: #555; font-size: 0.9em; }}
code {{ background: #f4f4f4; padding: 0 0.2em; }}
</style></head><body>
<h1>BINN fit of {esc(fit.data.source)}</h1>
<p>{'<br>'.join(esc(s) for s in summary)}</p>
<p>Median relative L2 error against the data: u<sub>&theta;</sub> {med(ev.err_u_theta_obs)},
u<sub>p</sub> {med(ev.err_u_p_obs)}; forward solves ({esc(fit.forward_method)}): {len(ev.up_status) - ev.n_failed_u_p}
of {len(ev.up_status)} ok.</p>
<h2>Diagnostics</h2>
{_md_table_to_html(md_lines)}
<p>{'<br>'.join(esc(v) for v in verdict)}</p>
<h2>Solutions</h2>
{_img(out / 'solutions.png', 'Data (grey), learned solution u_theta (blue) and forward-predicted solution u_p '
      '(orange, dashed; learned operators and initial condition only): mean and 1 sd over networks.')}
<h2>Learned operators</h2>
{_img(out / 'operators.png', 'Learned operators in the data units: thin lines, each network; band, mean and '
      '1 sd. Grey: u outside the observed range, where nothing constrains the operators.')}
{op_table}
<p>Full table (including the unobserved range, flagged <code>observed = 0</code>): <code>operators.csv</code>.</p>
<h2>Training</h2>
{_img(out / 'losses.png', 'Validation and training losses (median and interquartile range over networks).')}
<h2>Provenance</h2>
<p>Networks: <code>{esc(', '.join(record['networks']))}</code> (key {esc(str(fit.cache_key))});
data SHA-1 {esc(str(record['data']['digest_sha1']))}; commit {esc(str(prov.get('commit')))};
torch {esc(str(prov.get('torch')))}, numpy {esc(str(prov.get('numpy')))}, scipy {esc(str(prov.get('scipy')))}.
Full specification: <code>fit.json</code>.</p>
</body></html>
"""


# ----------------------------------------------------------------------------- predict
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
    lacks = [k for k in FIT_RECORD_FIELDS if not isinstance(rec, dict) or k not in rec]
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
    try:
        t = np.array([float(v) for v in str(text).replace(" ", "").split(",") if v != ""])
    except ValueError:
        raise ValueError(f"--t must be comma-separated numbers, e.g. 0,12,24; got {text!r}") from None
    if t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError(f"--t needs at least two finite, increasing times (the first is the initial "
                         f"condition's), got {text!r}")
    return t


def parse_u_grid(text: str) -> np.ndarray:
    """"LO:HI:N" (N equally spaced values) or "u1,u2,...": a grid of u in the data's units."""
    s = str(text).strip()
    try:
        if ":" in s:
            lo, hi, n = s.split(":")
            lo, hi, n = float(lo), float(hi), int(n)
            if n < 1 or not (np.isfinite(lo) and np.isfinite(hi)) or (n > 1 and not hi > lo):
                raise ValueError
            g = np.linspace(lo, hi, n)
        else:
            g = np.array([float(v) for v in s.split(",") if v.strip() != ""])
    except ValueError:
        raise ValueError(f"--u-grid must be LO:HI:N (LO < HI, N >= 1) or comma-separated numbers, "
                         f"got {text!r}") from None
    if g.size < 1 or not np.all(np.isfinite(g)):
        raise ValueError(f"--u-grid must hold at least one finite number, got {text!r}")
    return g


def load_initial_condition(path, x="x", u="u", *, delimiter=",", encoding="utf-8-sig"):
    """(x, u0) of an initial condition: a CSV file with a header naming columns ``x`` and
    ``u``, one row per position (other columns ignored; empty and ``#`` lines skipped);
    at least 3 distinct, equally spaced positions (the forward solve's grid), finite
    values.  Problems are one-line ValueErrors naming the row, as for the data file."""
    source = str(getattr(path, "name", path))
    if not hasattr(path, "read") and not Path(path).is_file():
        raise ValueError(f"{source}: no such file")
    if not hasattr(path, "read") and Path(path).is_dir():
        raise ValueError(f"{source} is a folder, not an initial condition file: name the CSV file inside it")
    text = path.read() if hasattr(path, "read") else Path(path).read_bytes()
    if isinstance(text, bytes):
        text, encoding = decode_csv_bytes(text, encoding, source)
    if delimiter is None:
        delimiter = detect_delimiter(text, (x, u))
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    rows = [(i + 1, r) for i, r in enumerate(reader) if r and any(c.strip() for c in r)
            and not r[0].lstrip().startswith("#")]
    if not rows:
        raise ValueError(f"{source}: empty file (no header line)")
    header = [c.strip() for c in rows[0][1]]
    missing = [c for c in (x, u) if c not in header]
    if missing:
        hint = delimiter_hint(delimiter.join(header), delimiter, (x, u))
        raise ValueError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; the header has "
                         f"{', '.join(map(repr, header))}" + (hint or " (pass --x, --u to name yours)"))
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
    xs, _ = uniform_grid(xs, source, x)
    return xs, us


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
        sols.append(scaling.u_to_user(sol.u))
        status.append("ok" if sol.ok else f"{sol.status}: {sol.message}")
    return np.stack(sols), status


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
    method = method or rec.get("forward_method", "RK45")
    times = parse_times(t) if isinstance(t, str) else (None if t is None else np.asarray(t, float))
    grid = parse_u_grid(u_grid) if isinstance(u_grid, str) else (None if u_grid is None else np.asarray(u_grid, float))
    if ic is not None:
        if not hasattr(ic, "read") and not Path(ic).is_file():
            raise ValueError(f"{ic}: no such file")
        x0, u0 = load_initial_condition(ic, x=x, u=u, delimiter=delimiter, encoding=encoding)
    out = Path(out)
    check_predict_out(out, fitdir)
    records.check_writable(out)
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
    return files


# ----------------------------------------------------------------------------- a problem with a known answer
#: Carrying capacity (cells/µm²) of :func:`write_example_csv`'s known problem.
EXAMPLE_K = 2e-3


def example_D(u):
    """Known diffusivity of the example (µm²/h): 200 + 1800 u/K, increasing."""
    return 200.0 + 1800.0 * np.asarray(u, dtype=float) / EXAMPLE_K


def example_G(u):
    """Known growth rate of the example (1/h): 0.04 (1 - u/K), decreasing, zero at u = K."""
    return 0.04 * (1.0 - np.asarray(u, dtype=float) / EXAMPLE_K)


def write_example_csv(path, n_x: int = 21, times=(0.0, 12.0, 24.0, 36.0, 48.0), n_rep: int = 2,
                      noise: float = 0.02, seed: int = 1, columns=("x_um", "t_h", "density", "well")):
    """A scratch-assay-like data set with a known answer: u_t = (D(u) u_x)_x + u G(u) with
    :func:`example_D` and :func:`example_G` on x in [0, 1000] µm, solved (BDF) from a
    scratch-shaped initial condition and observed at ``times`` (h) in ``n_rep`` replicates
    with multiplicative Gaussian noise of relative size ``noise`` (seeded).  Writes a CSV
    in long format; returns (x, t, noise-free u (n_t, n_x))."""
    x = np.linspace(0.0, 1000.0, n_x)
    t = np.asarray(times, dtype=float)
    u0 = EXAMPLE_K * (0.1 + 0.7 / (1 + np.exp(-(np.abs(x - 500) - 250) / 40)))
    sol = forward_solve(example_D, None, example_G, u0, x, t, method="BDF")
    if not sol.ok:  # pragma: no cover - the known problem is smooth
        raise RuntimeError(f"the example's forward solve failed: {sol.message}")
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in range(n_rep):
            for k, tv in enumerate(t):
                for j, xv in enumerate(x):
                    w.writerow([f"{xv:g}", f"{tv:g}", f"{sol.u[k, j] * (1 + noise * rng.standard_normal()):.8g}",
                                f"w{r + 1}"])
    return x, t, sol.u


EXAMPLE_FILE = Path(__file__).resolve().parents[2] / "data" / "own_data_example.csv"
"""The committed copy of :func:`write_example_csv`'s output (``data/README.md``)."""

#: the example's true operators and the shape of each
EXAMPLE_TRUTH = {"D": (example_D, "increasing"), "G": (example_G, "decreasing")}


def example_truth(u_true) -> dict:
    """The example's known answer as :func:`fit_figures` draws it: the noise-free solution
    ``u_true`` (:func:`write_example_csv`'s) and the true operators."""
    return {"u": u_true, **{k: f for k, (f, _) in EXAMPLE_TRUTH.items()}}


def example_recovery(fit: UserFit, n: int = 101) -> dict:
    """{operator: (shape of its median curve (``user_data.curve_shapes``), median over networks
    of its relative L2 error against the truth)} of a fit to the example, over the observed range of u."""
    g = np.linspace(*fit.u_range, n)
    return {k: (str(curve_shapes(np.median(c, axis=0)[None])[0]),
                float(np.median(relative_l2_many(c, EXAMPLE_TRUTH[k][0](g)))))
            for k, c in fit.operator_curves(g).items()}


def example_plan(out, scale: str = "lite", cache_dir=None) -> FitPlan:
    """The ``binn fit`` request of the page "Fit your own data": D and G from
    ``EXAMPLE_FILE`` (the replicate mean), u_p by BDF, networks stored under ``cache_dir``
    with the prefix "example"; the example is in the scratch assay's units."""
    return plan_fit(EXAMPLE_FILE, "DG", out, x="x_um", t="t_h", u="density", replicate="well", scale=scale,
                    forward_method="BDF", cache_dir=cache_dir, prefix="example", units=scratch.UNITS)
