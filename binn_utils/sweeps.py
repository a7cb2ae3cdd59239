"""Sweeps over settings, with a resumable results store.

A *setting* is one group of replicates trained with identical hyperparameters (one point
of a study's grid: a learning rate, a loss weight, an architecture...).  Its results live
in ``<results_dir>/runs/<benchmark>-<hash>.npz`` (arrays) and ``.json`` (specification,
per-replicate metrics and provenance); the hash covers the full specification, so a
notebook that asks for a setting finds it only if every parameter (including epochs,
seeds and datasets) matches, trains only what is missing, and studies that share a
setting (the defaults appear in several figures) share its run.  The JSON
file is written last and atomically: a killed sweep restarts where it stopped.
"""
from __future__ import annotations

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

from .training import HISTORY_KEYS, TrainConfig

CURVE_POINTS = 400
RESULTS_FORMAT = 1


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

    def __post_init__(self):
        if len(self.datasets) != len(self.seeds):
            raise ValueError("datasets and seeds must have one entry per replicate")
        if len(self.seeds) < 1:
            raise ValueError("a setting needs at least one replicate")
        self.config.validate()

    def spec(self) -> dict:
        """Everything that determines the numbers (not the study or label it is shown under)."""
        return {"format": RESULTS_FORMAT, "benchmark": self.benchmark, "reaction": self.reaction,
                "noise_var": float(self.noise_var), "dense": bool(self.dense),
                "datasets": [int(d) for d in self.datasets], "seeds": [int(s) for s in self.seeds],
                "config": self.config.to_dict()}

    @property
    def key(self) -> str:
        """Stored under this name: identical specifications share one run across studies."""
        digest = hashlib.sha1(json.dumps(self.spec(), sort_keys=True).encode()).hexdigest()[:12]
        return f"{self.benchmark}-{digest}"

    def paths(self, results_dir) -> tuple[Path, Path]:
        folder = Path(results_dir) / "runs"
        return folder / f"{self.key}.npz", folder / f"{self.key}.json"

    def is_done(self, results_dir) -> bool:
        npz, js = self.paths(results_dir)
        return npz.exists() and js.exists()


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


def run_setting(setting: Setting, results_dir, progress=False) -> dict:
    """Train, evaluate and store one setting; returns its JSON record."""
    from .benchmarks import get_benchmark
    from .evaluation import evaluate
    from .observations import make_observations
    from .training import train

    bench = get_benchmark(setting.benchmark, reaction=setting.reaction)
    obs_by_ds = {d: make_observations(bench, setting.noise_var, dataset=d, dense=setting.dense)
                 for d in sorted(set(setting.datasets))}
    datas = [obs_by_ds[d] for d in setting.datasets]
    result = train(datas, setting.config, seeds=setting.seeds, progress=progress)
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
    for which in ("final", "best"):
        ev = evaluate(result, datas, which, benchmark=bench)
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
    record.update(metrics=metrics, status=result.status, epochs_run=result.epochs_run,
                  steps_per_epoch=result.steps_per_epoch, batch_size_used=result.extra["batch_size_used"],
                  wall_time_s=result.wall_time_s, steady_time_s=result.extra["steady_time_s"],
                  first_epoch_s=result.extra["first_epoch_s"], replicates=result.n_replicates,
                  mechanisms=list(result.mechanisms), n_params=result.layout.n_params,
                  provenance=provenance())
    npz, js = setting.paths(results_dir)
    npz.parent.mkdir(parents=True, exist_ok=True)
    tmp = npz.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, npz)
    tmpj = js.with_suffix(".tmp")
    tmpj.write_text(json.dumps(_clean_json(record), indent=1, sort_keys=True))
    os.replace(tmpj, js)
    return record


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


def _run_in_worker(setting, results_dir):
    t0 = time.perf_counter()
    rec = run_setting(setting, results_dir)
    return setting.key, time.perf_counter() - t0, rec["status"]


def run_settings(settings: Sequence[Setting], results_dir=None, workers: int | None = None,
                 progress: bool = True, desc: str = "settings") -> list[str]:
    """Run every setting not yet in the store (in parallel processes); returns keys run.

    ``workers`` defaults to the number of CPU cores (each worker is single-threaded).
    Settings already stored with the same specification are skipped, so an interrupted
    sweep resumes where it stopped.
    """
    results_dir = Path(results_dir or default_results_dir())
    todo = [s for s in settings if not s.is_done(results_dir)]
    if not todo:
        return []
    workers = workers or os.cpu_count() or 1
    from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
    bar = tqdm(total=len(todo), desc=desc, unit="setting", disable=not progress)
    done, failed = [], []
    if workers == 1:
        _worker_init()
        for s in todo:
            try:
                key, _, _ = _run_in_worker(s, results_dir)
                done.append(key)
            except Exception as exc:  # noqa: BLE001 - one bad setting must not stop the sweep
                failed.append((s, exc))
            bar.update(1)
    else:
        import multiprocessing as mp
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                 initializer=_worker_init) as pool:
            futures = {pool.submit(_run_in_worker, s, results_dir): s for s in todo}
            for fut in as_completed(futures):
                try:
                    key, _, _ = fut.result()
                    done.append(key)
                except Exception as exc:  # noqa: BLE001
                    failed.append((futures[fut], exc))
                bar.update(1)
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

    def metric(self, name: str, which: str = "final") -> np.ndarray:
        vals = self.record["metrics"][which][name]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def operator_error(self, op: str, which: str = "final") -> np.ndarray:
        vals = self.record["metrics"][which]["operator_errors"][op]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def meta(self) -> dict:
        return dict(self.setting.meta)


def load_setting(setting: Setting, results_dir=None) -> SettingResult:
    npz, js = setting.paths(results_dir or default_results_dir())
    if not (npz.exists() and js.exists()):
        raise FileNotFoundError(f"no stored results for {setting.study}/{setting.key}; run it first")
    with np.load(npz) as f:
        arrays = {k: f[k] for k in f.files}
    return SettingResult(setting, json.loads(js.read_text()), arrays)


def ensure(settings: Sequence[Setting], results_dir=None, workers=None, progress=True,
           desc="settings") -> list[SettingResult]:
    """Load the settings, training (with a progress bar) only those not yet stored."""
    run_settings(settings, results_dir, workers=workers, progress=progress, desc=desc)
    return [load_setting(s, results_dir) for s in settings]
