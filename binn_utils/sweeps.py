"""Sweeps over settings, with a resumable results store.

A *setting* is one group of replicates trained with identical hyperparameters (one point
of a study's grid: a learning rate, a loss weight, an architecture...).  Its results live
in ``<results_dir>/runs/<benchmark>-<hash>.npz`` (arrays) and ``.json`` (specification,
per-replicate metrics and provenance); the hash covers the full specification, so a
notebook that asks for a setting finds it only if every parameter (including epochs,
seeds and datasets) matches, trains only what is missing, and studies that share a
setting (the defaults appear in several figures) share its run.  The pair is written by
``store.write_pair``: the JSON last, atomically, with a SHA-256 checksum of the arrays, so
a killed sweep restarts where it stopped, and a damaged pair (unparsable JSON, missing or
truncated arrays, a checksum that does not match) is never trusted: it counts as missing
(a warning names the file) and is rerun, and loading it raises an error naming the file.
Records stored before checksums existed are read after a zip integrity check;
:func:`migrate_store` (``binn migrate``) adds their checksums without retraining.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import platform
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from . import store
from .benchmarks import INITIALS
from .training import HISTORY_KEYS, TrainConfig, TrainingError, check_distinct, check_number, check_seeds

CURVE_POINTS = 400
RESULTS_FORMAT = 1
#: Both sets of networks of every replicate are evaluated and stored: "best", the
#: parameters at the lowest validation loss (what the authors' code saves as
#: ``*_best_Iter*.pth`` and evaluates for every published error), and "final", those after
#: the last epoch.  ``REPORTED`` is the one every figure, table and verdict of the book uses.
CHECKPOINTS = ("best", "final")
REPORTED = "best"
_reported = contextvars.ContextVar("reported_checkpoint", default=REPORTED)


def reported() -> str:
    """The checkpoint that results are read at: ``REPORTED`` unless inside :func:`reporting_checkpoint`."""
    return _reported.get()


@contextlib.contextmanager
def reporting_checkpoint(which: str):
    """Read every result at the ``which`` networks inside the block (e.g. to see whether a
    verdict depends on reporting the best-validation or the final networks)."""
    if which not in CHECKPOINTS:
        raise ValueError(f"unknown checkpoint {which!r}; choose one of {CHECKPOINTS}")
    token = _reported.set(which)
    try:
        yield which
    finally:
        _reported.reset(token)


#: Benchmarks whose initial condition has a text and a code reading (see benchmarks.INITIALS).
CHOOSES_INITIAL = ("nonlinear_adr",)
#: Specification fields added after the first stored results, with the value those had.
LEGACY_DEFAULTS = {"initial": "text"}


def default_results_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "results"


@dataclass(frozen=True)
class Setting:
    study: str
    label: str
    benchmark: str
    noise_var: float
    dense: bool
    datasets: tuple
    seeds: tuple
    config: TrainConfig
    reaction: str = "supporting"
    meta: tuple = ()  # extra (name, value) pairs describing the swept value, e.g. (("lr", 5e-4),)
    initial: str = "text"  # nonlinear ADR only: Eq. ic-nl ("text") or the authors' Fig. 1 data ("code")

    def __post_init__(self):
        if len(self.datasets) != len(self.seeds):
            raise ValueError("datasets and seeds must have one entry per replicate")
        if len(self.seeds) < 1:
            raise ValueError("a setting needs at least one replicate")
        check_seeds(self.seeds)
        for d in self.datasets:
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0:
                raise TrainingError(f"datasets must be non-negative integers, got {d!r}")
        check_distinct(list(zip(self.datasets, self.seeds)), self.seeds, "dataset")
        if check_number("noise variance", self.noise_var) < 0:
            raise TrainingError(f"noise variance must be >= 0, got {self.noise_var!r}")
        if self.initial not in INITIALS:
            raise ValueError(f"unknown initial condition {self.initial!r}; choose one of {INITIALS}")
        self.config.validate()

    @classmethod
    def from_record(cls, record: dict, study: str = "", label: str = "") -> "Setting":
        """The setting a stored record describes (its key is the name it is stored under)."""
        return cls(study, label, record["benchmark"], record["noise_var"], record["dense"],
                   tuple(record["datasets"]), tuple(record["seeds"]), TrainConfig.from_dict(record["config"]),
                   reaction=record["reaction"], initial=record.get("initial", LEGACY_DEFAULTS["initial"]))

    def spec(self) -> dict:
        """Everything that determines the numbers (not the study or label it is shown under)."""
        spec = {"format": RESULTS_FORMAT, "benchmark": self.benchmark, "reaction": self.reaction,
                "noise_var": float(self.noise_var), "dense": bool(self.dense),
                "datasets": [int(d) for d in self.datasets], "seeds": [int(s) for s in self.seeds],
                "config": self.config.to_dict()}
        if self.benchmark in CHOOSES_INITIAL:
            spec["initial"] = self.initial
        return spec

    @property
    def key(self) -> str:
        """Stored under this name: identical specifications share one run across studies.

        Fields added to the specification after results were first stored are hashed only
        where they differ from the value those results had (``LEGACY_DEFAULTS``), so the
        committed keys stay valid while every record states the field."""
        spec = {k: v for k, v in self.spec().items() if LEGACY_DEFAULTS.get(k, object()) != v}
        digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        return f"{self.benchmark}-{digest}"

    def paths(self, results_dir) -> tuple[Path, Path]:
        folder = Path(results_dir) / "runs"
        return folder / f"{self.key}.npz", folder / f"{self.key}.json"

    def stored_record(self, results_dir, warn: bool = True) -> dict | None:
        """The stored record if the setting is stored and sound; None if it is missing or
        damaged (a damaged pair gives a ``store.StoreWarning`` naming the file)."""
        return store.check_pair(*self.paths(results_dir), warn=warn)

    def is_done(self, results_dir) -> bool:
        """Stored, and the stored pair is sound (see :func:`store.read_pair`)."""
        return self.stored_record(results_dir) is not None


def replicates(n_seeds: int, n_datasets: int = 1, seed0: int = 0, dataset0: int = 0):
    """(datasets, seeds) tuples for every combination of datasets and initialisations."""
    ds = [dataset0 + d for d in range(n_datasets) for _ in range(n_seeds)]
    ss = [seed0 + s for _ in range(n_datasets) for s in range(n_seeds)]
    return tuple(ds), tuple(ss)


# ----------------------------------------------------------------------------- provenance
def provenance() -> dict:
    import scipy
    import torch
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip() != ""
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "unknown", None
    return {"commit": commit, "dirty_worktree": dirty, "python": platform.python_version(),
            "torch": torch.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "machine": platform.machine(), "processor": platform.processor() or platform.machine(),
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


# ----------------------------------------------------------------------------- running
def _curve_epochs(n: int) -> np.ndarray:
    stride = max(1, n // CURVE_POINTS)
    idx = np.arange(stride - 1, n, stride)
    if idx.size == 0 or idx[-1] != n - 1:
        idx = np.append(idx, n - 1)
    return idx


# hyperparameters that enter the training step only elementwise per replicate: settings
# that differ only in these (and in their noise level or datasets) can share one batch
MERGEABLE = ("lr", "w_data", "w_pde", "w_bc")


def merge_key(setting: Setting) -> str:
    """Settings with equal merge keys can be trained as one batched model."""
    cfg = {k: v for k, v in setting.config.to_dict().items() if k not in MERGEABLE}
    return json.dumps({"benchmark": setting.benchmark, "reaction": setting.reaction, "initial": setting.initial,
                       "dense": bool(setting.dense), "config": cfg}, sort_keys=True)


def group_settings(settings: Sequence[Setting], merge: bool = True,
                   max_replicates: int | None = None) -> list[list[Setting]]:
    """Partition settings into batches trained together (order kept within a group).

    Without ``merge`` every setting is its own group.  ``max_replicates`` caps a group's
    total replicates (a setting larger than the cap still forms one group).
    """
    if not merge:
        return [[s] for s in settings]
    by_key: dict = {}
    for s in settings:
        by_key.setdefault(merge_key(s), []).append(s)
    groups = []
    for members in by_key.values():
        cur, n = [], 0
        for s in members:
            if cur and max_replicates and n + len(s.seeds) > max_replicates:
                groups.append(cur)
                cur, n = [], 0
            cur.append(s)
            n += len(s.seeds)
        groups.append(cur)
    return groups


def run_setting(setting: Setting, results_dir, progress=False, device=None, forward_method="RK45") -> dict:
    """Train, evaluate and store one setting; returns its JSON record."""
    return run_group([setting], results_dir, progress=progress, device=device, forward_method=forward_method)[0]


def run_group(settings: Sequence[Setting], results_dir, progress=False, device=None,
              forward_method="RK45") -> list[dict]:
    """Train settings of one merge group as one batched model, then evaluate and store each.

    ``forward_method`` is the integrator of the forward solves that give u_p (see
    ``forward_solve.forward_solve``); the record says which was used.

    Each replicate draws everything from its own seed, but batched kernels may round
    differently for another group: in float64 a setting's numbers agree with a separate
    run to rounding, in float32 only statistically (``training`` module docstring).  The
    record says how it was trained (``trained_with``: None when alone).
    """
    from .benchmarks import get_benchmark
    from .observations import make_observations
    from .training import train

    settings = list(settings)
    keys = {merge_key(s) for s in settings}
    if len(keys) != 1:
        raise ValueError("settings trained as one batch must differ only in " + ", ".join(MERGEABLE))
    s0 = settings[0]
    bench = get_benchmark(s0.benchmark, reaction=s0.reaction, initial=s0.initial)
    obs = {}
    for s in settings:
        for d in s.datasets:
            if (s.noise_var, d) not in obs:
                obs[(s.noise_var, d)] = make_observations(bench, s.noise_var, dataset=d, dense=s.dense)
    datas = [obs[(s.noise_var, d)] for s in settings for d in s.datasets]
    per_rep = {k: np.concatenate([np.full(len(s.seeds), getattr(s.config, k), dtype=float) for s in settings])
               for k in MERGEABLE}
    seeds = [int(x) for s in settings for x in s.seeds]
    result = train(datas, s0.config, seeds=seeds, progress=progress, device=device, **per_rep)
    records, offset = [], 0
    for s in settings:
        sl = slice(offset, offset + len(s.seeds))
        offset += len(s.seeds)
        part = split_result(result, sl, s.config)
        group = {"settings": len(settings), "replicates": len(seeds)} if len(settings) > 1 else None
        records.append(store_result(s, part, datas[sl], bench, results_dir, group=group,
                                    forward_method=forward_method))
    return records


def split_result(result, sl: slice, config):
    """The replicates ``sl`` of a batched TrainResult, as a TrainResult of their own."""
    import dataclasses
    return dataclasses.replace(
        result, config=config, seeds=result.seeds[sl], final=result.final[sl], best=result.best[sl],
        best_epoch=result.best_epoch[sl], history={k: v[sl] for k, v in result.history.items()},
        weights=result.weights[sl], lr=result.lr[sl], status=list(result.status[sl]),
        diverged_epoch=result.diverged_epoch[sl], extra=dict(result.extra))


def store_result(setting: Setting, result, datas, bench, results_dir, group=None, forward_method="RK45") -> dict:
    """Evaluate a trained setting and write its .npz/.json to the store."""
    from .evaluation import evaluate

    arrays, record = {}, setting.spec()
    record["first_requested_as"] = {"study": setting.study, "label": setting.label, "meta": dict(setting.meta)}
    ep = _curve_epochs(result.epochs_run)
    arrays["curve_epochs"] = ep + 1
    for k in HISTORY_KEYS:
        arrays[f"hist_{k}"] = result.history[k][:, ep].astype(np.float32)
    arrays["best_epoch"] = result.best_epoch
    arrays["x"], arrays["t"] = datas[0].x, datas[0].t
    arrays["u_clean"] = datas[0].u_clean
    arrays["u_obs"] = np.stack([d.u_obs for d in datas]).astype(np.float32)
    metrics = {}
    for which in CHECKPOINTS:
        ev = evaluate(result, datas, which, benchmark=bench, solve_kw={"method": forward_method})
        arrays[f"{which}_u_theta"] = ev.u_theta.astype(np.float32)
        arrays[f"{which}_u_p"] = ev.u_p.astype(np.float32)
        arrays["u_grid"] = ev.u_grid
        for name, vals in ev.operators.items():
            arrays[f"{which}_op_{name}"] = vals.astype(np.float32)
            arrays[f"true_op_{name}"] = ev.true_operators[name]
        metrics[which] = {
            "err_u_theta": ev.err_u_theta.tolist(), "err_u_p": ev.err_u_p.tolist(),
            "err_u_theta_obs": ev.err_u_theta_obs.tolist(), "err_u_p_obs": ev.err_u_p_obs.tolist(),
            "up_status": ev.up_status,
            "operator_errors": {k: v.tolist() for k, v in ev.operator_errors.items()},
        }
        record["u_range"] = list(ev.u_range)
    # with a merged group the times are the whole group's (its replicates shared each step)
    record.update(metrics=metrics, status=result.status, epochs_run=result.epochs_run,
                  steps_per_epoch=result.steps_per_epoch, batch_size_used=result.extra["batch_size_used"],
                  wall_time_s=result.wall_time_s, steady_time_s=result.extra["steady_time_s"],
                  first_epoch_s=result.extra["first_epoch_s"], replicates=result.n_replicates,
                  mechanisms=list(result.mechanisms), n_params=result.layout.n_params,
                  device=result.extra.get("device"), trained_with=group, forward_method=forward_method,
                  provenance=provenance())
    return store.write_pair(*setting.paths(results_dir), arrays, _clean_json(record))


def _clean_json(obj):
    if isinstance(obj, dict):
        return {k: _clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean_json(v) for v in obj]
    if isinstance(obj, float) and not np.isfinite(obj):
        return None  # JSON has no NaN; None marks a failed/undefined value
    if isinstance(obj, (np.floating, np.integer)):
        return _clean_json(obj.item())
    return obj


def _worker_init():
    import torch
    torch.set_num_threads(1)


def _pool_worker_init():
    """A pool worker: single-threaded, and deaf to Ctrl-C (SIGINT reaches the whole process
    group; the parent decides, stores nothing half-written and terminates the workers)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_init()


def _run_in_worker(group, results_dir, device=None, forward_method="RK45"):
    t0 = time.perf_counter()
    recs = run_group(group, results_dir, device=device, forward_method=forward_method)
    return [s.key for s in group], time.perf_counter() - t0, [r["status"] for r in recs]


def _stop_pool(pool):
    """Cancel the groups not started and terminate the workers running the others."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=10)


def check_run_request(results_dir, workers=None, device=None, forward_method="RK45"):
    """Everything about a sweep request that can be checked before any work: the integrator,
    the device, the number of workers and (unless ``results_dir`` is None) a writable
    results folder.  Raises ValueError (``TrainingError`` is one) with a one-line message."""
    from .forward_solve import check_method
    from .training import resolve_device
    check_method(forward_method)
    resolve_device(device)
    if workers is not None and (not isinstance(workers, (int, np.integer)) or isinstance(workers, bool)
                                or workers < 1):
        raise ValueError(f"workers must be a positive integer (or None: one per CPU core), got {workers!r}")
    if results_dir is not None:
        store.check_writable(results_dir)
        store.check_writable(Path(results_dir) / "runs")


def run_settings(settings: Sequence[Setting], results_dir=None, workers: int | None = None,
                 progress: bool = True, desc: str = "settings", device=None, merge: bool = False,
                 max_group_replicates: int | None = None, forward_method: str = "RK45") -> list[str]:
    """Run every setting not yet in the store (in parallel processes); returns keys run.

    ``workers`` defaults to the number of CPU cores (each worker is single-threaded).
    Settings already stored with the same specification are skipped, so an interrupted
    sweep resumes where it stopped.  With ``merge``, settings that differ only in learning
    rate, loss weights, noise level or datasets are trained as one batch (see
    ``group_settings``); ``device`` ("cuda") runs the training on a GPU;
    ``forward_method`` is the integrator of the u_p forward solves (recorded).
    The request is checked (:func:`check_run_request`; the folder only if there is
    something to store) before any training.  Ctrl-C
    (KeyboardInterrupt) stops the sweep at once: groups not started are cancelled, running
    workers terminated, and every setting finished before is stored.
    """
    results_dir = Path(results_dir or default_results_dir())
    todo = [s for s in settings if not s.is_done(results_dir)]
    check_run_request(results_dir if todo else None, workers, device, forward_method)
    if not todo:
        return []
    workers = workers or os.cpu_count() or 1
    groups = group_settings(todo, merge, max_group_replicates)
    from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
    bar = tqdm(total=len(todo), desc=desc, unit="setting", disable=not progress)
    done, failed = [], []

    def finished(g, get):
        try:
            keys, _, _ = get()
            done.extend(keys)
        except Exception as exc:  # noqa: BLE001 - one bad setting must not stop the sweep
            failed.extend((s, exc) for s in g)
        bar.update(len(g))

    pool = None
    try:
        if workers == 1 or len(groups) == 1:
            _worker_init()
            for g in groups:
                finished(g, lambda: _run_in_worker(g, results_dir, device, forward_method))
        else:
            import multiprocessing as mp
            pool = ProcessPoolExecutor(max_workers=min(workers, len(groups)), mp_context=mp.get_context("spawn"),
                                       initializer=_pool_worker_init)
            futures = {pool.submit(_run_in_worker, g, results_dir, device, forward_method): g for g in groups}
            for fut in as_completed(futures):
                finished(futures[fut], fut.result)
            pool.shutdown(wait=True)
    except KeyboardInterrupt:
        if pool is not None:
            _stop_pool(pool)
        bar.close()
        raise KeyboardInterrupt(f"sweep interrupted: {len(done)} of {len(todo)} settings finished and stored; "
                                "rerun the same command to continue") from None
    bar.close()
    if failed:
        lines = "\n".join(f"  {s.study}: {s.label} ({s.key}): {type(e).__name__}: {e}" for s, e in failed)
        raise RuntimeError(f"{len(failed)} of {len(todo)} settings failed and were not stored "
                           f"(rerun to retry them; the others are stored):\n{lines}")
    return done


# ----------------------------------------------------------------------------- loading
@dataclass
class SettingResult:
    setting: Setting
    record: dict
    arrays: dict = field(repr=False)

    def metric(self, name: str, which: str | None = None) -> np.ndarray:
        """Per-replicate values of a stored metric, or of one derived from the stored
        arrays (``DERIVED_METRICS``); NaN where undefined (a failed forward solve).
        ``which`` networks (default: :func:`reported`)."""
        which = which or reported()
        if name in DERIVED_METRICS:
            return DERIVED_METRICS[name](self, which)
        vals = self.record["metrics"][which][name]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def operator_error(self, op: str, which: str | None = None) -> np.ndarray:
        which = which or reported()
        vals = self.record["metrics"][which]["operator_errors"][op]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def net(self, name: str, which: str | None = None) -> np.ndarray:
        """A stored array of the ``which`` networks (default: :func:`reported`): ``u_theta``,
        ``u_p`` or ``op_D`` / ``op_V`` / ``op_G``."""
        return self.arrays[f"{which or reported()}_{name}"]

    def up_status(self, which: str | None = None) -> list:
        return self.record["metrics"][which or reported()]["up_status"]

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def meta(self) -> dict:
        return dict(self.setting.meta)


def _spectral_error(key):
    def err(res: SettingResult, which: str) -> np.ndarray:
        from .metrics import relative_l2_many
        return relative_l2_many(res.net(key, which), res["u_clean"], norm="spectral")
    return err


#: Metrics computed from the stored arrays on demand: the relative error in the spectral
#: (matrix 2-) norm of the (t, x) matrix, as the authors' Fig. 5 heat map computes it.
DERIVED_METRICS = {"err_u_p_spectral": _spectral_error("u_p"), "err_u_theta_spectral": _spectral_error("u_theta")}


def load_setting(setting: Setting, results_dir=None) -> SettingResult:
    """The stored setting; FileNotFoundError if it is not stored, ``store.DamagedRecordError``
    (naming the file) if its stored pair is damaged (rerun it: a sweep recomputes it)."""
    try:
        record, arrays = store.read_pair(*setting.paths(results_dir or default_results_dir()))
    except FileNotFoundError:
        raise FileNotFoundError(f"no stored results for {setting.study}/{setting.key}; run it first") from None
    return SettingResult(setting, record, arrays)


#: What a record stored before a field existed had (results/README.md): added by
#: :func:`migrate_store` so that every migrated record states it.  ``initial`` only
#: concerns the benchmarks of ``CHOOSES_INITIAL``.
LEGACY_RECORD_FIELDS = {"forward_method": "RK45", "device": "cpu (not recorded)", "trained_with": None}


def migrate_store(results_dir=None) -> dict:
    """Bring every stored pair under ``results_dir`` (the runs and the cached fits, e.g.
    ``scratch/``) to ``store.STORE_FORMAT``: add the SHA-256 of its arrays and the fields
    it predates (``LEGACY_RECORD_FIELDS``, ``LEGACY_DEFAULTS``), leaving the arrays, every
    other field and every key as they are; no retraining.  Damaged pairs are left alone
    (they count as missing and are rerun).  Returns {path of the .json: outcome}, the
    outcome "current", "migrated" or "damaged: <why>"."""
    root = Path(results_dir or default_results_dir())
    out = {}
    for js in sorted(root.rglob("*.json")):
        npz = js.with_suffix(".npz")
        if js.name.startswith(".") or (js.parent.name != "runs" and not npz.exists()):
            continue  # a temporary file, or a JSON file that is not half of a stored pair
        out[str(js)] = _key_mismatch(js) or store.migrate_pair(npz, js, _legacy_fields)
    return out


def _key_mismatch(js: Path) -> str | None:
    """"damaged: ..." if a stored setting's record does not hash to the name it is stored
    under (the key must determine the numbers), else None (also for records that are not
    settings' or cannot be read: ``store.migrate_pair`` reports those)."""
    try:
        record = json.loads(js.read_text())
        if not isinstance(record, dict) or "metrics" not in record:
            return None
        key = Setting.from_record(record).key
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if key != js.stem:
        return f"damaged: {js} holds the specification of {key}, not of {js.stem}"
    return None


def _legacy_fields(record: dict) -> dict:
    """The fields a stored setting's record predates, with the values they had (none for
    the records of cached fits, which are not settings)."""
    if "benchmark" not in record or "metrics" not in record:
        return {}
    return {**LEGACY_RECORD_FIELDS, **(LEGACY_DEFAULTS if record["benchmark"] in CHOOSES_INITIAL else {})}


def ensure(settings: Sequence[Setting], results_dir=None, workers=None, progress=True,
           desc="settings") -> list[SettingResult]:
    """Load the settings, training (with a progress bar) only those not yet stored."""
    run_settings(settings, results_dir, workers=workers, progress=progress, desc=desc)
    return [load_setting(s, results_dir) for s in settings]
