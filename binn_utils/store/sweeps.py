"""Sweeps over settings, with a resumable results store.

A *setting* is one group of replicates trained with identical hyperparameters (one point
of a study's grid: a learning rate, a loss weight, an architecture...).  Its results live
in ``<results_dir>/runs/<benchmark>-<hash>.npz`` (arrays) and ``.json`` (specification,
per-replicate metrics and provenance); the hash covers the full specification, so a
notebook that asks for a setting finds it only if every parameter (including epochs,
seeds and datasets) matches, trains only what is missing, and studies that share a
setting (the defaults appear in several figures) share its run.  The pair is written by
``records.write_pair``: the JSON last, atomically, with a SHA-256 checksum of the arrays, so
a killed sweep restarts where it stopped, and a damaged pair (unparsable JSON, missing or
truncated arrays, a checksum that does not match, a record lacking a field of
:data:`SETTING_KIND` or stored under another name than its specification's hash) is never
trusted: it counts as missing (a warning names the file) and is rerun, and loading it
raises an error naming the file.  Records stored before the current checksums existed are
read after the checks they allow; :func:`migrate_store` (``binn migrate``) adds the
checksums to those that verify, without retraining.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import json
import logging
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from . import records
from ..engine.forward_solve import solve_pool
from ..engine.problems import INITIALS
from ..engine.runs import (HISTORY_KEYS, TrainConfig, TrainingError, TrainState, build_layout, check_distinct,
                           check_number, check_seeds)
from .sweep_record import CHOOSES_INITIAL, LEGACY, SweepRecord

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


#: Specification fields added after the first stored results, with the value those had.
LEGACY_DEFAULTS = {"initial": LEGACY["initial"]}


#: The parameters of a setting that are not training parameters (``TrainConfig``).
SETTING_PARAMETERS = ("benchmark", "noise_var", "dense", "reaction", "initial")


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
    initial: str = "text"  # nonlinear ADR only: Eq. ic-nl ("text") or the authors' Fig. 1 data ("code")
    #: the parameters that place it on its study's grid (names of a ``TrainConfig`` field or
    #: of one of ``SETTING_PARAMETERS``), e.g. ("lr",): their values are the setting's own
    swept: tuple = ()
    #: (name, value) pairs that describe it and are not its parameters, e.g. (("budget_steps", 1000),)
    described: tuple = ()

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
        parameters = set(SETTING_PARAMETERS) | {f.name for f in dataclasses.fields(TrainConfig)}
        if set(self.swept) - parameters:
            raise ValueError(f"swept names no parameter of a setting: {sorted(set(self.swept) - parameters)}")
        if {name for name, _ in self.described} & parameters:
            raise ValueError("described repeats a parameter of the setting (each fact once: name it in swept): "
                             f"{sorted({name for name, _ in self.described} & parameters)}")
        self.config.validate()

    @property
    def meta(self) -> dict:
        """The values that place it on its study's grid: its swept parameters (each stated
        once, in the setting itself) and what ``described`` adds."""
        return {**{name: self.parameter(name) for name in self.swept}, **dict(self.described)}

    def parameter(self, name: str):
        """The value of one of its parameters: a field of the setting or of its ``config``."""
        return getattr(self, name) if name in SETTING_PARAMETERS else getattr(self.config, name)

    @classmethod
    def from_record(cls, record: SweepRecord, study: str = "", label: str = "") -> "Setting":
        """The setting a stored record describes (its key is the name it is stored under)."""
        return cls(study, label, record.benchmark, record.noise_var, record.dense, record.datasets, record.seeds,
                   record.config, reaction=record.reaction, initial=record.initial or LEGACY["initial"])

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
        return records.key_of(self.benchmark, spec)

    def paths(self, results_dir) -> tuple[Path, Path]:
        return records.pair_paths(Path(results_dir) / "runs", self.key)

    def stored_record(self, results_dir, warn: bool = True) -> SweepRecord | None:
        """The stored record if the setting is stored and sound; None if it is missing or
        damaged (a damaged pair gives a ``records.StoreWarning`` naming the file)."""
        npz, js = self.paths(results_dir)
        record = records.check_pair(npz, js, warn=warn, kind=SETTING_KIND)
        if record is None:
            return None
        try:
            return SweepRecord.from_json(record, js)
        except records.DamagedRecordError as err:
            if warn:
                warnings.warn(f"{err}; treated as missing (it will be recomputed)", records.StoreWarning,
                              stacklevel=2)
            return None

    def is_done(self, results_dir) -> bool:
        """Stored, and the stored pair is sound (see :func:`records.read_pair`)."""
        return self.stored_record(results_dir) is not None


def _setting_name(record: dict, stem: str) -> str:
    return Setting.from_record(SweepRecord.from_json(record, stem)).key


#: A setting's stored record: its specification (``Setting.spec``, whose hash is its name)
#: and what every evaluated setting has stored since the first.
SETTING_KIND = records.RecordKind(
    "setting", tuple(f.name for f in dataclasses.fields(SweepRecord) if f.name not in LEGACY), _setting_name)
records.KINDS.append(SETTING_KIND)


def replicates(n_seeds: int, n_datasets: int = 1, seed0: int = 0, dataset0: int = 0):
    """(datasets, seeds) tuples for every combination of datasets and initialisations."""
    ds = [dataset0 + d for d in range(n_datasets) for _ in range(n_seeds)]
    ss = [seed0 + s for _ in range(n_datasets) for s in range(n_seeds)]
    return tuple(ds), tuple(ss)


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
    """Train settings of one merge group as one batched model, then evaluate and store each
    (:func:`compute_group`, then :func:`store_computed`: what a sweep does with each group).

    ``forward_method`` is the integrator of the forward solves that give u_p (see
    ``forward_solve.forward_solve``); the record says which was used.

    Each replicate draws everything from its own seed, but batched kernels may round
    differently for another group: in float64 a setting's numbers agree with a separate
    run to rounding, in float32 only statistically (``training`` module docstring).  The
    record says how it was trained (``trained_with``: None when alone).
    """
    settings = list(settings)
    computed = compute_group(settings, progress=progress, device=device, forward_method=forward_method)
    return [store_computed(s, arrays, record, results_dir) for s, (arrays, record) in zip(settings, computed)]


def compute_group(settings: Sequence[Setting], progress=False, device=None,
                  forward_method="RK45", solve_map=None, state=None, stop_at_epoch=None):
    """Train settings of one merge group as one batched model and evaluate each: returns
    one (arrays, record) pair per setting, ready for :func:`store_computed`.  Writes
    nothing: this is the task a sweep runs (in a Dask worker anywhere, or in-process).
    ``solve_map`` runs the u_p forward solves (``evaluation.evaluate``).

    With ``stop_at_epoch`` the training stops at that checkpoint (a chunk boundary) and the
    group's ``training.TrainState`` is returned instead (nothing evaluated); ``state`` resumes
    from one."""
    from ..engine.problems import get_benchmark
    from ..engine.observations import make_observations
    from ..engine.training import train

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
    result = train(datas, s0.config, seeds=seeds, progress=progress, device=device, resume=state,
                   stop_at_epoch=stop_at_epoch, **per_rep)
    if "state" in result.extra:
        return result.extra["state"]
    out, offset = [], 0
    for s in settings:
        sl = slice(offset, offset + len(s.seeds))
        offset += len(s.seeds)
        part = split_result(result, sl, s.config)
        group = {"settings": len(settings), "replicates": len(seeds)} if len(settings) > 1 else None
        out.append(evaluate_result(s, part, datas[sl], bench, group=group, forward_method=forward_method,
                                   solve_map=solve_map))
    return out


def split_result(result, sl: slice, config):
    """The replicates ``sl`` of a batched TrainResult, as a TrainResult of their own."""
    import dataclasses
    return dataclasses.replace(
        result, config=config, seeds=result.seeds[sl], final=result.final[sl], best=result.best[sl],
        best_epoch=result.best_epoch[sl], history={k: v[sl] for k, v in result.history.items()},
        weights=result.weights[sl], lr=result.lr[sl], status=list(result.status[sl]),
        diverged_epoch=result.diverged_epoch[sl], extra=dict(result.extra))


def evaluate_result(setting: Setting, result, datas, bench, group=None, forward_method="RK45",
                    solve_map=None) -> tuple[dict, SweepRecord]:
    """Evaluate a trained setting: the (arrays, record) that the store keeps."""
    from ..engine.evaluation import evaluate

    arrays, record = {}, setting.spec()
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
        ev = evaluate(result, datas, which, benchmark=bench, solve_kw={"method": forward_method},
                      solve_map=solve_map)
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
                  first_epoch_s=result.extra["first_epoch_s"],
                  mechanisms=list(result.mechanisms), n_params=result.layout.n_params,
                  device=result.extra.get("device"), engine=result.extra.get("engine", 1), trained_with=group,
                  forward_method=forward_method,
                  provenance=records.provenance())
    return arrays, SweepRecord.from_json(records.clean_json(record), f"of {setting.study}/{setting.label}")


def store_computed(setting: Setting, arrays: dict, record: SweepRecord, results_dir) -> SweepRecord:
    """Write a computed setting into the store (``records.write_pair``: atomic, checksummed,
    under the folder's lock); returns the record as written.  Only the process that owns
    the sweep (the Dask client) calls this: workers return their results, never write."""
    npz, js = setting.paths(results_dir)
    return SweepRecord.from_json(records.write_pair(npz, js, arrays, record.to_json()), js)


def _group_task(group, device=None, forward_method="RK45", solve_map=None, state=None, segment_epochs=None):
    """The task of a sweep: one group trained single-threaded for at most ``segment_epochs``
    epochs from ``state`` (None: from the start).  Returns (its (arrays, record) pairs, or the
    ``TrainState`` to go on from when training is not finished; :func:`compute_group`) and
    the seconds it took.  It writes nothing, so it runs the same in-process or in a Dask
    worker on another machine; a worker that dies costs at most one segment."""
    import torch
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    stop = None if segment_epochs is None else (0 if state is None else state.epoch) + segment_epochs
    return (compute_group(group, device=device, forward_method=forward_method, solve_map=solve_map,
                          state=state, stop_at_epoch=stop), time.perf_counter() - t0)


#: Training checkpoints of a sweep: every this many epochs (rounded up to whole chunks) a
#: running group returns its state, which the sweep keeps in ``<results>/checkpoints/``.
CHECKPOINT_EVERY = 500


def segment_epochs(group, every: int | None = CHECKPOINT_EVERY) -> int | None:
    """Epochs per task for ``group``: ``every`` rounded up to whole chunks of epochs (the
    draws are made per chunk, so a state can only be taken between chunks); None if the
    group's training is not longer than that (one task)."""
    cfg = group[0].config
    if every is None or cfg.epochs <= every:
        return None
    return -(-every // cfg.chunk_epochs) * cfg.chunk_epochs


def group_key(group) -> str:
    """The name of a group's checkpoint: the keys of its settings, in order."""
    return _group_name([s.key for s in group])


def _group_name(keys) -> str:
    return "group-" + hashlib.sha1(json.dumps(list(keys)).encode()).hexdigest()[:12]


#: A group's training checkpoint (``_Sweep.checkpoint``): named by its settings' keys.
CHECKPOINT_KIND = records.RecordKind("checkpoint", ("settings", "epoch"),
                                   lambda record, stem: _group_name(record["settings"]), marker="settings")
records.KINDS.insert(0, CHECKPOINT_KIND)


#: Batch systems whose workers dask-jobqueue starts (``--cluster``), by class name.
JOBQUEUE_CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}
#: Environment variable naming an existing Dask scheduler (as ``--scheduler``).
SCHEDULER_ENV = "BINN_SCHEDULER"
#: Keys of a cluster config section that are not dask-jobqueue arguments.
CLUSTER_ONLY_KEYS = ("jobs",)
#: The command each batch system submits jobs with (checked on PATH before a sweep starts).
SUBMIT_COMMANDS = {"slurm": "sbatch", "pbs": "qsub", "sge": "qsub"}
#: At most this many batch jobs per sweep (a typo such as jobs = 1e9 is refused, not submitted).
JOBS_MAX = 10_000
#: The type each known key of a cluster config section must have (others go to dask-jobqueue as they are).
CLUSTER_KEY_TYPES = {"jobs": int, "cores": int, "processes": int, "memory": str, "walltime": str, "queue": str,
                     "account": str, "job_extra_directives": list, "job_script_prologue": list, "interface": str,
                     "local_directory": str, "log_directory": str, "project": str, "name": str}
#: Seconds to wait for an existing Dask scheduler to answer.
CONNECT_TIMEOUT_S = 10


def load_cluster_config(path, kind: str) -> dict:
    """The ``[kind]`` section (e.g. ``[slurm]``) of a TOML cluster config file: keyword
    arguments of dask-jobqueue's cluster class (``queue``, ``walltime``, ``cores``,
    ``memory``, ``processes``, ``job_extra_directives``, ``account``, ...) plus ``jobs``,
    the number of batch jobs to start (default 1).  ValueError with one line if missing."""
    import tomllib
    if kind not in JOBQUEUE_CLUSTERS:
        raise ValueError(f"unknown cluster {kind!r}; choose one of {tuple(JOBQUEUE_CLUSTERS)}")
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as err:
        raise ValueError(f"cannot read the cluster config {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"the cluster config {path} is not valid TOML: {err}") from None
    section = doc.get(kind)
    if not isinstance(section, dict):
        raise ValueError(f"the cluster config {path} has no [{kind}] section")
    check_cluster_config(section, f"{path} [{kind}]")
    return dict(section)


def check_cluster_config(section: dict, where: str = "the cluster config"):
    """A one-line ValueError for a value of a known key of the wrong type or out of range
    (``CLUSTER_KEY_TYPES``; ``jobs``, ``cores`` and ``processes`` positive, ``jobs`` at most
    ``JOBS_MAX``)."""
    names = {int: "an integer", str: "a string", list: "a list"}
    for key, want in CLUSTER_KEY_TYPES.items():
        if key not in section:
            continue
        v = section[key]
        if not isinstance(v, want) or isinstance(v, bool):
            raise ValueError(f"{where}: {key} must be {names[want]}, got {v!r}: e.g. "
                             + {int: f"{key} = 2", str: f'{key} = "..."', list: f'{key} = ["..."]'}[want])
        if want is int and not 1 <= v <= (JOBS_MAX if key == "jobs" else 4096):
            raise ValueError(f"{where}: {key} must be between 1 and {JOBS_MAX if key == 'jobs' else 4096}, got {v}")
        if want is list and not all(isinstance(e, str) for e in v):
            raise ValueError(f"{where}: {key} must be a list of strings, got {v!r}")


def make_jobqueue_cluster(kind: str, config: dict):
    """A dask-jobqueue cluster of ``kind`` from a config section (:func:`load_cluster_config`);
    each worker is single-threaded (``processes`` defaults to ``cores``).  Starts a scheduler
    here, submits no job (``cluster.scale(jobs=...)`` does).  Returns (cluster, jobs)."""
    import dask_jobqueue
    kw = {k: v for k, v in config.items() if k not in CLUSTER_ONLY_KEYS}
    kw.setdefault("cores", 1)
    kw.setdefault("memory", "4GB")
    kw.setdefault("processes", kw["cores"])
    check_cluster_config(config, f"the [{kind}] cluster config")
    cls = getattr(dask_jobqueue, JOBQUEUE_CLUSTERS[kind])
    try:
        cluster = cls(**kw)
    except (TypeError, ValueError, KeyError, AttributeError) as err:
        raise ValueError(f"bad [{kind}] cluster config: {type(err).__name__}: {err}") from None
    return cluster, int(config.get("jobs", 1))


def check_submit_command(kind: str):
    """A one-line ValueError if the batch system's submit command (``SUBMIT_COMMANDS``) is not on PATH."""
    import shutil
    cmd = SUBMIT_COMMANDS[kind]
    if shutil.which(cmd) is None:
        raise ValueError(f"--cluster {kind} submits its workers with `{cmd}`, which is not on PATH: run binn on "
                         f"the cluster's login node, or use --cluster local or --scheduler tcp://HOST:PORT")


def check_scheduler_address(address: str):
    """A one-line ValueError unless ``address`` looks like a Dask scheduler's (``tcp://HOST:PORT``)."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(str(address))
        port = parts.port
    except ValueError:
        port = None
        parts = None
    if parts is None or parts.scheme not in ("tcp", "tls", "ucx", "inproc", "ws", "wss") or not parts.hostname \
            or port is None:
        raise ValueError(f"scheduler address {address!r} is not of the form tcp://HOST:PORT "
                         f"(as printed by `dask scheduler`), e.g. tcp://127.0.0.1:8786")


def connect(address: str):
    """A Dask client of the scheduler at ``address``; a one-line RuntimeError naming it if it
    does not answer within ``CONNECT_TIMEOUT_S`` seconds."""
    from distributed import Client
    check_scheduler_address(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as err:
        raise RuntimeError(f"no Dask scheduler answers at {address} within {CONNECT_TIMEOUT_S} s "
                           f"({type(err).__name__}): start one (`dask scheduler`) or check the address") from None


#: At most this many local worker processes (each needs memory: more is a typo, not a request).
WORKERS_MAX = 1024


def check_run_request(results_dir, workers=None, device=None, forward_method="RK45", remote=False):
    """Everything about a sweep request that can be checked before any work: the integrator,
    the device, the number of workers and (unless ``results_dir`` is None) a writable
    results folder.  Raises ValueError (``TrainingError`` is one) with a one-line message.
    With ``remote`` workers (a scheduler or a batch cluster) the device must be a valid
    name, but this machine need not have it (a login node has no GPU)."""
    import torch

    from ..engine.forward_solve import check_method
    from ..engine.training import resolve_device
    check_method(forward_method)
    if not remote:
        resolve_device(device)
    elif device is not None:
        try:
            kind = torch.device(device).type
        except (RuntimeError, TypeError) as err:
            raise TrainingError(f"unknown device {device!r}: {err}") from None
        if kind not in ("cpu", "cuda"):
            raise TrainingError(f"device must be 'cpu' or 'cuda[:k]', got {device!r}")
    if workers is not None and (not isinstance(workers, (int, np.integer)) or isinstance(workers, bool)
                                or not 1 <= workers <= WORKERS_MAX):
        raise ValueError(f"workers must be a positive integer, at most {WORKERS_MAX} (or None: one per CPU "
                         f"core), got {workers!r}")
    if results_dir is not None:
        records.check_writable(results_dir)
        records.check_writable(Path(results_dir) / "runs")


def replicate_steps(setting: Setting) -> int:
    """Optimiser steps of all the setting's replicates together (epochs x steps per epoch x
    replicates): the unit the README's cost table uses to size a cluster."""
    n_train = _n_train(setting.benchmark, bool(setting.dense))
    return setting.config.epochs * -(-n_train // min(setting.config.batch_size, n_train)) * len(setting.seeds)


def group_cost(group) -> float:
    """Rough relative cost of a group: optimiser steps plus validations, times the networks'
    parameters and the replicates (for ``priority="longest"``: long groups start first)."""
    s = group[0]
    n_train = _n_train(s.benchmark, bool(s.dense))
    steps = s.config.epochs * (-(-n_train // min(s.config.batch_size, n_train)) + 0.5)
    size = build_layout(s.config, ("D", "V", "G")).n_params
    return steps * size * (1 + sum(len(x.seeds) for x in group) / 400)


def _n_train(benchmark: str, dense: bool) -> int:
    from ..engine.observations import make_observations
    key = (benchmark, dense)
    if key not in _N_TRAIN:
        _N_TRAIN[key] = len(make_observations(benchmark, 0.0, dense=dense).train_idx)
    return _N_TRAIN[key]


_N_TRAIN: dict = {}
PRIORITIES = ("given", "longest")


def order_groups(groups, priority: str = "given"):
    """Groups in the order they start: as given (the request's order), or ``"longest"``
    first (by :func:`group_cost`, stable)."""
    if priority not in PRIORITIES:
        raise ValueError(f"unknown priority {priority!r}; choose one of {PRIORITIES}")
    return sorted(groups, key=group_cost, reverse=True) if priority == "longest" else list(groups)


@dataclass
class _Sweep:
    """The client's side of a sweep: stores what tasks return, counts, reports."""
    results_dir: Path
    total: int
    bar: object
    done: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    resumable: int = 0   # training states kept (checkpoints written)

    def _checkpoint_paths(self, group):
        folder = self.results_dir / "checkpoints"
        return folder / f"{group_key(group)}.npz", folder / f"{group_key(group)}.json"

    def checkpoint(self, group):
        """The group's stored training state, or None (none, or damaged: never trusted)."""
        npz, js = self._checkpoint_paths(group)
        if records.check_pair(npz, js, kind=CHECKPOINT_KIND) is None:
            return None
        record, arrays = records.read_pair(npz, js, kind=CHECKPOINT_KIND)
        if record.get("settings") != [s.key for s in group]:
            return None
        return TrainState.from_arrays(arrays)

    def finished(self, group, get):
        """Store what a task returned.  Returns the ``TrainState`` to submit the group again
        with when its training is not finished (kept as the group's checkpoint), else None."""
        try:
            outputs, _ = get()
            if isinstance(outputs, TrainState):
                records.write_pair(*self._checkpoint_paths(group), outputs.to_arrays(),
                                 {"settings": [s.key for s in group], "epoch": outputs.epoch})
                self.resumable += 1
                return outputs
            for s, (arrays, record) in zip(group, outputs):
                store_computed(s, arrays, record, self.results_dir)
                self.done.append(s.key)
            for path in self._checkpoint_paths(group):
                path.unlink(missing_ok=True)
        except Exception as exc:  # noqa: BLE001 - one bad setting must not stop the sweep
            self.failed.extend((s, exc) for s in group if s.key not in self.done)
        self.bar.update(len(group))
        return None


def local_cluster(n_workers: int):
    """``n_workers`` single-threaded worker processes, the machine's memory shared among them."""
    import psutil
    from distributed import LocalCluster
    return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                        memory_limit=psutil.virtual_memory().total // n_workers,
                        dashboard_address=":0", silence_logs=logging.ERROR)


def close_dask(client, owned, interrupted: bool = False):
    """Close a Dask client and the cluster this process started (None: none).  After Ctrl-C
    (``interrupted``) the cluster's worker processes are ended at once and distributed's
    own complaints about it are not logged: the command says in one line what was kept."""
    if interrupted:
        import psutil
        for name in ("distributed", "asyncio", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                child.terminate()
    for thing in (client, owned):
        if thing is None:
            continue
        if interrupted:
            with contextlib.suppress(Exception):
                thing.close(timeout=5)
        else:
            thing.close()


def _dashboard(client) -> str:
    try:
        import bokeh  # noqa: F401 - the dashboard needs it
    except ImportError:
        return "dashboard: install bokeh to get one"
    return f"dashboard {client.dashboard_link}"


def _run_here(sweep: _Sweep, groups, device, forward_method, solve_workers, checkpoint_every, clock,
              stop_starting_after, hard_stop_after, say) -> int:
    """Run ``groups`` one after the other in this process (segment by segment, keeping each
    group's checkpoint), the forward solves in a pool of ``solve_workers`` processes.
    Returns the number of settings not started or left at a checkpoint (time window)."""
    if solve_workers is None:
        solve_workers = max(1, (os.cpu_count() or 1) - 1) if device and "cuda" in str(device) else 1
    pool = solve_pool(solve_workers)
    solve_map = None if pool is None else pool.map
    try:
        for i, g in enumerate(groups):
            if any(lim is not None and clock() > lim for lim in (stop_starting_after, hard_stop_after)):
                say(f"stopped starting groups after {clock():.0f} s")
                return sum(len(x) for x in groups[i:])
            state, seg = sweep.checkpoint(g), segment_epochs(g, checkpoint_every)
            if state is not None:
                say(f"resuming {len(g)} setting(s) at epoch {state.epoch} from their checkpoint")
            while True:
                state = sweep.finished(g, lambda: _group_task(g, device, forward_method, solve_map, state, seg))
                if state is None:
                    break
                if hard_stop_after is not None and clock() > hard_stop_after:
                    say(f"hard stop after {hard_stop_after:g} s: {len(g)} setting(s) kept at their checkpoint "
                        f"(epoch {state.epoch})")
                    return sum(len(x) for x in groups[i:])
        return 0
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _run_dask(sweep: _Sweep, groups, workers, scheduler, cluster, cluster_config, device, forward_method,
              clock, stop_starting_after, hard_stop_after, say, announce, checkpoint_every=CHECKPOINT_EVERY):
    """Run ``groups`` as Dask tasks: at most one per worker thread at a time (so the order
    and the time window decide what starts), each result stored by this process as it
    comes back.  Returns the number of settings not started or abandoned (time window)."""
    import queue as queue_mod
    from distributed import Client
    owned = None
    if scheduler:
        client = connect(scheduler)
        announce(f"dask: scheduler {scheduler} ({len(client.nthreads())} workers), {_dashboard(client)}")
    elif cluster in JOBQUEUE_CLUSTERS:
        check_submit_command(cluster)
        owned, jobs = make_jobqueue_cluster(cluster, cluster_config or {})
        owned.scale(jobs=jobs)
        client = Client(owned)
        announce(f"dask: {cluster} cluster, {jobs} job(s) submitted, scheduler {owned.scheduler_address}, "
                 f"{_dashboard(client)}")
    else:
        owned = local_cluster(min(workers, len(groups)))
        client = Client(owned)
        limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
        announce(f"dask: LocalCluster of {len(owned.workers)} single-threaded worker processes "
                 f"({min(limits) / 2 ** 30:.1f} GiB memory limit each), {_dashboard(client)}")
    came_back = queue_mod.Queue()
    todo, running, left, states = list(groups), {}, 0, {}
    interrupted = False
    try:
        while todo or running:
            if hard_stop_after is not None and clock() > hard_stop_after and (todo or running):
                left += sum(len(g) for g in running.values())
                client.cancel(list(running))
                say(f"hard stop after {hard_stop_after:g} s: {len(running)} running group(s) abandoned")
                running.clear()
            if stop_starting_after is not None and clock() > stop_starting_after and todo:
                say(f"stopped starting groups after {stop_starting_after:g} s")
            if (stop_starting_after is not None and clock() > stop_starting_after) or \
                    (hard_stop_after is not None and clock() > hard_stop_after):
                left += sum(len(g) for g in todo)
                todo.clear()
            slots = max(sum(client.nthreads().values()), 1) - len(running)
            while todo and slots > 0:
                g = todo.pop(0)
                state = states.pop(id(g), None) or sweep.checkpoint(g)
                fut = client.submit(_group_task, g, device, forward_method, None, state,
                                    segment_epochs(g, checkpoint_every), pure=False)
                running[fut] = g
                fut.add_done_callback(came_back.put)
                slots -= 1
            if not running:
                continue
            try:
                fut = came_back.get(timeout=2.0)
            except queue_mod.Empty:
                continue
            g = running.pop(fut, None)
            if g is not None:
                state = sweep.finished(g, fut.result)
                fut.release()
                if state is not None:  # the next segment first, on the next free worker
                    states[id(g)] = state
                    todo.insert(0, g)
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        if not interrupted:
            client.cancel(list(running))
        raise
    finally:
        close_dask(client, owned, interrupted)
    return left


def run_settings(settings: Sequence[Setting], results_dir=None, workers: int | None = None,
                 progress: bool = True, desc: str = "settings", device=None, merge: bool = False,
                 max_group_replicates: int | None = None, forward_method: str = "RK45",
                 scheduler: str | None = None, cluster: str | None = None, cluster_config: dict | None = None,
                 priority: str = "given", stop_starting_after: float | None = None,
                 hard_stop_after: float | None = None, solve_workers: int | None = None,
                 checkpoint_every: int | None = CHECKPOINT_EVERY) -> list[str]:
    """Run every setting not yet in the store; returns the keys stored.

    Each group of settings (one setting, or with ``merge`` those that differ only in
    learning rate, loss weights, noise level or datasets: ``group_settings``) is one task
    (:func:`_group_task`) that trains and evaluates it and *returns* its arrays and record;
    this process alone writes them into the store (:func:`store_computed`), so workers need
    no shared filesystem.  The tasks run

    * in this process, one after the other, when ``workers`` is 1 (or there is one group)
      and no scheduler or cluster is named;
    * otherwise as Dask tasks: on an existing scheduler (``scheduler`` "tcp://HOST:PORT", or
      the ``BINN_SCHEDULER`` environment variable), on batch-system workers started through
      dask-jobqueue (``cluster`` "slurm", "pbs" or "sge", with ``cluster_config`` from
      :func:`load_cluster_config`), or by default on a ``LocalCluster`` of ``workers``
      single-threaded worker processes (default: one per CPU core; memory limit: the
      machine's memory shared among them) that this call starts and closes.  A worker that
      dies mid-task has its task rescheduled by Dask.

    Settings already stored with the same specification are never submitted, so an
    interrupted sweep resumes where it stopped.  Groups start in ``priority`` order
    (:func:`order_groups`); after ``stop_starting_after`` seconds no group starts, after
    ``hard_stop_after`` seconds running groups are abandoned (the in-process path checks
    both between groups); what is left is reported on stderr and runs on the next call.
    ``device`` ("cuda") trains on a GPU; ``forward_method`` is the integrator of the u_p
    forward solves (recorded).  In-process, ``solve_workers`` processes run a group's
    forward solves in parallel (default: all cores but one when training on a GPU, else
    none); in a Dask sweep the workers are the parallelism.  A group longer than
    ``checkpoint_every`` epochs is trained in tasks of that many epochs, each returning the
    training state, which this process keeps as the group's checkpoint (in
    ``<results_dir>/checkpoints/``, removed once the group is stored): a worker that dies
    loses one task's epochs, and a sweep stopped and started again resumes the group at its
    checkpoint (the same numbers: resuming is exact).  The request is checked (:func:`check_run_request`; the
    folder only if there is something to store) before any training.  A task that raises
    is counted as failed and the others go on; the failures are raised together at the end
    as a RuntimeError.  Ctrl-C (KeyboardInterrupt) stops the sweep at once: running tasks
    are cancelled, the cluster closed, and every setting finished before is stored.
    """
    t0 = time.perf_counter()
    results_dir = Path(results_dir or records.default_results_dir())
    todo, seen = [], set()
    for s in settings:
        if s.key not in seen and not s.is_done(results_dir):
            todo.append(s)
        seen.add(s.key)
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    check_run_request(results_dir if todo else None, workers, device, forward_method,
                      remote=bool(scheduler) or cluster in JOBQUEUE_CLUSTERS)
    if scheduler:
        check_scheduler_address(scheduler)
    if not todo:
        return []
    workers = workers or os.cpu_count() or 1
    groups = order_groups(group_settings(todo, merge, max_group_replicates), priority)
    from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
    bar = tqdm(total=len(todo), desc=desc, unit="setting", disable=not progress)
    sweep = _Sweep(results_dir, len(todo), bar)

    def clock():
        return time.perf_counter() - t0

    def say(line):
        (bar.write if progress else print)(line, file=sys.stderr)

    def announce(line):  # where the workers are: with the progress bar only (notebooks run without)
        if progress:
            say(line)

    left = 0
    try:
        if scheduler is None and cluster in (None, "local") and (workers == 1 or len(groups) == 1):
            left = _run_here(sweep, groups, device, forward_method, solve_workers, checkpoint_every, clock,
                             stop_starting_after, hard_stop_after, say)
        else:
            left = _run_dask(sweep, groups, workers, scheduler, cluster, cluster_config, device, forward_method,
                             clock, stop_starting_after, hard_stop_after, say, announce, checkpoint_every)
    except KeyboardInterrupt:
        bar.close()
        raise KeyboardInterrupt(f"sweep interrupted: {len(sweep.done)} of {len(todo)} settings finished and "
                                "stored; rerun the same command to continue") from None
    bar.close()
    if left:
        say(f"time window: {left} of {len(todo)} settings not run (rerun the same command to continue)")
    if sweep.failed:
        lines = "\n".join(f"  {s.study}: {s.label} ({s.key}): {type(e).__name__}: {e}" for s, e in sweep.failed)
        raise RuntimeError(f"{len(sweep.failed)} of {len(todo)} settings failed and were not stored "
                           f"(rerun to retry them; the others are stored):\n{lines}")
    return sweep.done


# ----------------------------------------------------------------------------- loading
@dataclass
class SettingResult:
    setting: Setting
    record: SweepRecord
    arrays: dict = field(repr=False)

    def metric(self, name: str, which: str | None = None) -> np.ndarray:
        """Per-replicate values of a stored metric, or of one derived from the stored
        arrays (``DERIVED_METRICS``); NaN where undefined (a failed forward solve).
        ``which`` networks (default: :func:`reported`)."""
        which = which or reported()
        if name in DERIVED_METRICS:
            return DERIVED_METRICS[name](self, which)
        vals = getattr(self.record.metrics[which], name)
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def operator_error(self, op: str, which: str | None = None) -> np.ndarray:
        which = which or reported()
        vals = self.record.metrics[which].operator_errors[op]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def net(self, name: str, which: str | None = None) -> np.ndarray:
        """A stored array of the ``which`` networks (default: :func:`reported`): ``u_theta``,
        ``u_p`` or ``op_D`` / ``op_V`` / ``op_G``."""
        return self.arrays[f"{which or reported()}_{name}"]

    def up_status(self, which: str | None = None) -> list:
        return list(self.record.metrics[which or reported()].up_status)

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def meta(self) -> dict:
        return self.setting.meta


def _spectral_error(key):
    def err(res: SettingResult, which: str) -> np.ndarray:
        from ..engine.metrics import relative_l2_many
        return relative_l2_many(res.net(key, which), res["u_clean"], norm="spectral")
    return err


#: Metrics computed from the stored arrays on demand: the relative error in the spectral
#: (matrix 2-) norm of the (t, x) matrix, as the authors' Fig. 5 heat map computes it.
DERIVED_METRICS = {"err_u_p_spectral": _spectral_error("u_p"), "err_u_theta_spectral": _spectral_error("u_theta")}


def load_setting(setting: Setting, results_dir=None) -> SettingResult:
    """The stored setting; FileNotFoundError if it is not stored, ``records.DamagedRecordError``
    (naming the file) if its stored pair is damaged (rerun it: a sweep recomputes it)."""
    npz, js = setting.paths(results_dir or records.default_results_dir())
    try:
        record, arrays = records.read_pair(npz, js, kind=SETTING_KIND)
    except FileNotFoundError:
        raise FileNotFoundError(f"no stored results for {setting.study}/{setting.key}; run it first") from None
    return SettingResult(setting, SweepRecord.from_json(record, js), arrays)


#: What a record stored before a field existed had (results/README.md;
#: ``sweep_record.LEGACY``): added by :func:`migrate_store` so that every migrated record
#: states it.  ``initial`` only concerns the benchmarks of ``CHOOSES_INITIAL``.
LEGACY_RECORD_FIELDS = {k: LEGACY[k] for k in ("forward_method", "device", "trained_with")}


def migrate_store(results_dir=None) -> dict:
    """Bring every stored pair under ``results_dir`` (the runs, the cached fits, e.g.
    ``scratch/``, and the checkpoints) to ``records.STORE_FORMAT`` if it verifies
    (``records.migrate_pair``: its name is the hash of its specification, it has the fields
    of its kind, its arrays match their checksum): add the checksums and the fields it
    predates (``LEGACY_RECORD_FIELDS``, ``LEGACY_DEFAULTS``), leaving the arrays, every other
    field and every key as they are; no retraining.  Pairs that do not verify are left
    alone, unstamped (they count as missing and are rerun).  Returns {path of the .json:
    outcome}, the outcome "current", "migrated", "damaged: <why>" or "failed: <why>"."""
    root = Path(results_dir or records.default_results_dir())
    out = {}
    for js in sorted(root.rglob("*.json")):
        npz = js.with_suffix(".npz")
        if js.name.startswith(".") or (js.parent.name not in ("runs", "checkpoints") and not npz.exists()):
            continue  # a temporary file, or a JSON file that is not half of a stored pair
        kind = SETTING_KIND if js.parent.name == "runs" else None  # elsewhere: by its content
        out[str(js)] = records.migrate_pair(npz, js, _legacy_fields, kind=kind)
    return out


def _legacy_fields(record: dict) -> dict:
    """The fields a stored setting's record predates, with the values they had (none for
    the records of cached fits, which are not settings)."""
    if "benchmark" not in record or "metrics" not in record:
        return {}
    return {**LEGACY_RECORD_FIELDS, **(LEGACY_DEFAULTS if record["benchmark"] in CHOOSES_INITIAL else {})}


# ----------------------------------------------------------------------------- which store
def where_stored(setting: Setting, stores) -> Path | None:
    """The first of ``stores`` holding a sound copy of ``setting`` (None if none does)."""
    return next((d for d in stores if setting.is_done(d)), None)


def missing(settings, scale: str, source=None) -> list:
    """The settings stored in none of the stores ``records.stores_for(scale, source)``."""
    stores = records.stores_for(scale, source)
    return [s for s in settings if where_stored(s, stores) is None]


#: The integrator of u_p when a chapter trains what the store lacks (``load_or_run``), by
#: grid: on the 351-point grid RK45 is stability-limited (minutes per solve), and the
#: committed dense paper-scale records use BDF (the same solution to the tolerance).
CHAPTER_FORWARD_METHOD = {False: "RK45", True: "BDF"}


def load_or_run(settings, scale: str, source=None, progress=None, desc="settings", workers=1):
    """Stored results for ``settings``, training (with a progress bar) what is missing into
    the last of ``records.stores_for(scale, source)`` (where ``records.check_may_train``
    allows it), its u_p solved by ``CHAPTER_FORWARD_METHOD`` of its grid."""
    stores = records.stores_for(scale, source)
    todo = [s for s in settings if where_stored(s, stores) is None]
    records.check_may_train([f"{s.study}:{s.label}" for s in todo], stores[0], "settings are",
                          "run `binn sweep <study> --scale <scale>` first")
    if progress is None:
        progress = scale != "quick"
    for dense, method in CHAPTER_FORWARD_METHOD.items():
        part = [s for s in todo if bool(s.dense) == dense]
        if part:
            run_settings(part, stores[-1], workers=workers, progress=progress, desc=desc, forward_method=method)
    return [load_setting(s, where_stored(s, stores)) for s in settings]


def largest_stored(make_settings, scales, source=None) -> str:
    """The first of ``scales`` whose settings (``make_settings(scale)``, a list or a tuple
    of lists) are all stored; the first scale if none is (it is then trained or, with
    ``BINN_REQUIRE_STORED=1``, reported missing)."""
    scales = [p for p in dict.fromkeys(scales) if p]
    for pre in scales:
        ss = make_settings(pre)
        flat = [s for part in ss for s in part] if isinstance(ss, tuple) else list(ss)
        if not missing(flat, pre, source):
            return pre
    return scales[0]
