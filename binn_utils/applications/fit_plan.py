"""``binn fit``'s request: validated and described before anything is trained.

:func:`plan_fit` checks a request (the data file with every check of
:mod:`binn_utils.analysis.user_observations`, the options, the output folder) and returns a
:class:`FitPlan`, which describes it (:meth:`FitPlan.describe`: points, grid, replicates,
rescaling, estimated time); :func:`train_or_load` trains what is not stored
(``user_data.fit_user_data_cached``, the same code path as the Python API).  The scratch
assay's request (``binn fit --example scratch-assay``, its chapter) is :func:`scratch_plan`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import studies
from ..analysis import scratch
from ..analysis.user_csv import check_data_path
from ..analysis.user_data import UserFit, file_sha1, fit_user_data_cached, prepare_fit, stored_fit
from ..analysis.user_observations import MECHANISMS, validate_mechanisms
from ..engine.runs import TrainConfig
from ..presentation import panels
from ..store import stores
from .requests import check_out_folder, duration, fine_grid_note, solve_seconds, too_slow

__all__ = ["SCALES", "SECONDS_PER_STEP", "SECONDS_PER_REPLICATE_STEP", "FitPlan", "plan_fit", "train_or_load",
           "scratch_plan", "fit_scratch"]


#: Training length and initialisations of a fit of user data at each ``--scale`` (``--epochs`` /
#: ``--seeds`` override): quick is a smoke run whose numbers mean nothing; lite and paper are the
#: sweeps' (``studies.SCALES``); book trains as paper (one fit, like the sweeps' default runs:
#: the paper's 4000 epochs and ten initialisations).
SCALES = {"quick": dict(epochs=20, seeds=2),
          **{name: {k: studies.SCALES[like][k] for k in ("epochs", "seeds")}
             for name, like in (("lite", "lite"), ("book", "paper"), ("paper", "paper"))}}

SECONDS_PER_STEP = 0.025
SECONDS_PER_REPLICATE_STEP = 6e-4
"""Cost model of the estimate printed before training: an optimiser step of R networks
trained as one batched model takes about SECONDS_PER_STEP + R x SECONDS_PER_REPLICATE_STEP
(uncompiled float32 on one CPU core: a fixed overhead per step, then the arithmetic; the
scratch-assay fit, 10 networks x 4000 epochs x 4 steps, took about 500 s on one shared
core).  Other machines and loads differ; it is an order of magnitude, not a promise."""

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
    method_note: str | None = None   # why u_p is solved by another integrator than the paper's RK45

    @property
    def n_networks(self) -> int:
        return len(self.prep["run_seeds"])

    @property
    def steps_per_epoch(self) -> int:
        o = self.prep["observations"][0]
        n_train = len(o.train_idx)
        return -(-n_train // min(self.prep["config"].batch_size, n_train))

    def stored_networks(self):
        """The stored (npz, json) pair of this request's networks, or None where none is stored
        whole (``user_data.stored_fit``): what a failed write may truthfully say was kept."""
        return stored_fit(self.prep, self.cache_dir, self.prefix, self.extra)[3]

    def shown_times(self) -> str | None:
        """Where the solutions' figure draws only some of the times (``panels.shown_times``), which."""
        t = self.prep["data"].t
        k = panels.shown_times(t.size)
        return None if k.size == t.size else (
            f"figure: solutions.png draws {k.size} of the {t.size} times (t = {', '.join(f'{v:g}' for v in t[k])}); "
            "solutions.npz holds them all")

    def estimated_seconds(self) -> float:
        """Training (cost model) plus the forward solves; see ``SECONDS_PER_STEP``."""
        steps = self.prep["config"].epochs * self.steps_per_epoch
        solves = self.n_networks * solve_seconds(self.prep["data"].x.size, self.prep["forward_method"])
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
            f"estimated time if nothing is stored: ~{duration(self.estimated_seconds())} on one CPU core "
            f"(cost model: {SECONDS_PER_STEP * 1e3:g} ms per step + {SECONDS_PER_REPLICATE_STEP * 1e3:g} ms per "
            "network and step)",
            f"output: {self.out}"] + [n for n in (self.method_note,
                                                  fine_grid_note(data.x.size, p["forward_method"], self.n_networks),
                                                  self.shown_times()) if n])


#: What ``binn fit`` writes into its output folder (``fit_report``), and its networks' folder.
OUTPUT_FILES = ("operators.csv", "solutions.npz", "solutions.png", "operators.png", "losses.png",
                "diagnostics.md", "report.html", "fit.json")
NETWORKS = "networks"


def check_output_folder(out: Path, data_file: str | None = None):
    """A one-line ValueError, before any work, where writing ``binn fit``'s outputs into ``out``
    (which replaces the folder) could delete what it did not write (``requests.check_out_folder``)
    or the data file's folder."""
    if data_file is not None and str(out).strip() and Path(data_file).resolve().parent == Path(out).resolve():
        raise ValueError(f"--out {out} holds the data file {Path(data_file).name}: it would be deleted; "
                         "choose an empty or new folder")
    check_out_folder(out, OUTPUT_FILES + (NETWORKS,), "a previous fit", "fit", mark="fit.json",
                     inside={NETWORKS: (".json", ".npz")})


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
    data_file = sha1 = None
    if not hasattr(data, "u"):   # a regular file, or a line that says what it names
        data_file = check_data_path(data)
    if out is not None:
        check_output_folder(out, data_file)
        out = Path(out)
    if data_file is not None:
        sha1 = file_sha1(data_file)
    prep = prepare_fit(data, mechanisms, config, range(n_seeds), which=which, replicates=replicates, x=x, t=t,
                       u=u, replicate=replicate, forward_method=forward_method or "RK45", delimiter=delimiter,
                       encoding=encoding)
    forward_method, method_note = _integrator(forward_method, prep["data"].x.size, n_seeds)
    prep["forward_method"] = forward_method
    if out is not None:
        stores.check_writable(out)
    cache_dir = (out / "networks",) if cache_dir is None else (
        (Path(cache_dir),) if isinstance(cache_dir, (str, Path)) else tuple(map(Path, cache_dir)))
    stores.check_writable(cache_dir[-1])
    options = dict(scale=scale, seeds=n_seeds, epochs=config.epochs, batch_size=config.batch_size, lr=config.lr,
                   w_pde=config.w_pde, replicates=replicates, which=which, forward_method=forward_method,
                   columns={"x": x, "t": t, "u": u, "replicate": replicate},
                   mechanisms="".join(prep["mechanisms"]))
    extra = dict(extra or {})
    if sha1 is not None:
        extra.setdefault("data_file_sha1", sha1)
    return FitPlan(prep=prep, out=out, cache_dir=cache_dir, prefix=prefix, extra=extra, options=options,
                   data_file=data_file, data_file_sha1=sha1, units=dict(units or {}), method_note=method_note)


def _integrator(asked: str | None, n_x: int, solves: int) -> tuple[str, str | None]:
    """The integrator of the fit's forward solves and why, where it is not the paper's: the one
    ``asked`` for; else RK45, or BDF where RK45 would be slow on ``n_x`` positions by the cost model
    (``requests.too_slow``: 20,000 positions took an estimated year), as ``binn predict`` chooses."""
    if asked is not None or not too_slow(n_x, "RK45"):
        return asked or "RK45", None
    return "BDF", (f"note: {n_x} positions: RK45, the paper's integrator, would take ~"
                   f"{duration(solves * solve_seconds(n_x, 'RK45'))} for the {solves} forward solve(s) (cost model), "
                   f"BDF ~{duration(solves * solve_seconds(n_x, 'BDF'))}: solving with BDF (--forward-method RK45 "
                   "insists)")


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
    networks read from and trained into ``<store>/scratch`` (``stores.folders_for(scale,
    source)``) under ``scratch.fit_prefix``; ``kw``: as for :func:`plan_fit`."""
    cells = scratch.check_initial_cells(initial_cells)
    mech = "".join(validate_mechanisms(mechanisms))
    obs = scratch.load_scratch(cells, drop_first_column)
    plan = plan_fit(obs, mech, out, scale=scale,
                    cache_dir=stores.folders_for(scale, source, "scratch"), prefix=scratch.fit_prefix(cells, mech),
                    extra=scratch.fit_extra(obs), units=scratch.UNITS, **kw)
    plan.data_file, plan.data_file_sha1 = scratch.DATA_FILE.name, plan.extra["data_file_sha1"]
    return plan


def fit_scratch(initial_cells=16000, mechanisms="DG", scale="book", epochs=None, seeds=None,
                drop_first_column=True, source=None, require_stored=None) -> UserFit:
    """The scratch-assay chapter's fit (:func:`scratch_plan`, no output files): loaded if
    stored, else trained and stored."""
    plan = scratch_plan(None, initial_cells, mechanisms, scale, epochs=epochs, seeds=seeds,
                        drop_first_column=drop_first_column, source=source)
    return train_or_load(plan, progress=False, require_stored=require_stored)
