"""Running settings into the store: :func:`run_settings` (``binn sweep``), in this process
or as Dask tasks.

Each group of settings (``setting.group_settings``) is one task (``compute.group_task``)
that trains and evaluates it and *returns* its arrays and record; this process alone writes
them into the store (:func:`store_computed`: ``records.write_pair``, the JSON last,
atomically, with a SHA-256 checksum of the arrays), so workers need no shared filesystem and
a killed sweep restarts where it stopped.  A group longer than ``checkpoint_every`` epochs is
trained in segments, each returning the training state, kept as the group's checkpoint.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from . import records, stores
from ..engine.first_use import import_first_use_modules
from ..engine.solve_workers import close_pool, solve_pool
from ..engine.runs import TrainingError, TrainState
from .clusters import (JOBQUEUE_CLUSTERS, SCHEDULER_ENV, check_scheduler_address, check_submit_command, close_dask,
                       connect, dashboard_line, local_cluster, make_jobqueue_cluster, wait_submitted)
from .compute import TrainedGroup, compute_group, evaluate_group, group_task
from .setting import CHECKPOINT_KIND, Setting, group_cost, group_key, group_settings, order_groups
from .sweep_record import SweepRecord


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


def store_computed(setting: Setting, arrays: dict, record: SweepRecord, results_dir) -> SweepRecord:
    """Write a computed setting into the store (``records.write_pair``: atomic, checksummed,
    under the folder's lock); returns the record as written.  Only the process that owns
    the sweep (the Dask client) calls this: workers return their results, never write."""
    npz, js = setting.paths(results_dir)
    return SweepRecord.from_json(records.write_pair(npz, js, arrays, record.to_json()), js)


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


#: At most this many local worker processes (each needs memory: more is a typo, not a request).
WORKERS_MAX = 1024


def check_run_request(results_dir, workers=None, device=None, forward_method="RK45", remote=False, create=True):
    """Everything about a sweep request that can be checked before any work: the integrator,
    the device, the number of workers and (unless ``results_dir`` is None) a writable
    results folder (created, unless not ``create``: a dry run writes nothing).  Raises
    ValueError (``TrainingError`` is one) with a one-line message.
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
        stores.check_writable(results_dir, create)
        stores.check_writable(Path(results_dir) / "runs", create)


@dataclass(frozen=True)
class SweepOptions:
    """How :func:`run_settings` runs a sweep (its keyword arguments).

    ``workers``: Dask worker processes of a local cluster (default: one per CPU core; 1, or a
    single group, runs in this process); ``scheduler`` ("tcp://HOST:PORT", default the
    ``BINN_SCHEDULER`` environment variable): an existing Dask scheduler; ``cluster``
    ("slurm", "pbs", "sge") with ``cluster_config`` (``clusters.load_cluster_config``):
    batch-system workers.  ``merge``: train settings that differ only in learning rate, loss
    weights, noise level or datasets as one batch, at most ``max_group_replicates`` replicates
    a group.  ``priority``: the order groups start in (``setting.order_groups``); after
    ``stop_starting_after`` seconds no group starts, after ``hard_stop_after`` running groups
    are abandoned.  ``device`` ("cuda") trains on a GPU; ``forward_method``: the integrator
    of the u_p forward solves (recorded).  ``solve_workers``: in-process, the processes
    running the forward solves beside the training (0: in line; default
    :func:`solve_processes`).  ``checkpoint_every``: epochs per task of a long group (None: one task)."""
    workers: int | None = None
    device: str | None = None
    merge: bool = False
    max_group_replicates: int | None = None
    forward_method: str = "RK45"
    scheduler: str | None = None
    cluster: str | None = None
    cluster_config: dict | None = None
    priority: str = "given"
    stop_starting_after: float | None = None
    hard_stop_after: float | None = None
    solve_workers: int | None = None
    checkpoint_every: int | None = CHECKPOINT_EVERY

    @property
    def remote(self) -> bool:
        """Workers on other machines (a scheduler or a batch cluster)."""
        return bool(self.scheduler) or self.cluster in JOBQUEUE_CLUSTERS

    def past(self, limit: str, seconds: float) -> bool:
        """Whether ``seconds`` are past the time window's ``limit`` ("stop_starting_after", "hard_stop_after")."""
        lim = getattr(self, limit)
        return lim is not None and seconds > lim


def bar_weight(group) -> float:
    """A group's share of the sweep's bar: its relative cost (``setting.group_cost``), or 1 where
    its settings cannot be built (such a group fails in its task, and is counted there)."""
    try:
        return group_cost(group)
    except ValueError:
        return 1.0


@dataclass
class _Sweep:
    """The client's side of a sweep: stores what tasks return, counts, reports."""
    results_dir: Path
    total: int
    bar: object
    done: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    resumable: int = 0   # training states kept (checkpoints written)
    pending: list = field(default_factory=list)   # (group, Future of its evaluation)
    progress: bool = False
    t0: float = field(default_factory=time.perf_counter)
    credited: dict = field(default_factory=dict)   # group key -> share of its training on the bar
    desc: str = "settings"                         # the bar's name

    def advance(self, group, share: float):
        """Move the bar (in the groups' relative cost, ``setting.group_cost``) to ``share`` of
        ``group``'s training: at each checkpoint, so that a sweep of long groups shows its pace
        and time left long before its first setting is stored."""
        key = group_key(group)
        self.bar.update(bar_weight(group) * (share - self.credited.get(key, 0.0)))
        self.credited[key] = share
        self.bar.set_description_str(f"{self.desc}, {len(self.done)}/{self.total} settings stored", refresh=False)

    def clock(self) -> float:
        """Seconds since the sweep started."""
        return time.perf_counter() - self.t0

    def say(self, line: str):
        """A line on stderr (above the progress bar, if any)."""
        (self.bar.write if self.progress else print)(line, file=sys.stderr)

    def announce(self, line: str):
        """Where the workers are: with the progress bar only (notebooks run without)."""
        if self.progress:
            self.say(line)

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
        state = TrainState.from_arrays(arrays)
        if group_key(group) not in self.credited:     # trained before this run: not part of its pace
            share = state.epoch / group[0].config.epochs
            self.bar.total -= bar_weight(group) * share
            self.credited[group_key(group)] = share
        return state

    def finished(self, group, get):
        """Store what a task returned.  Returns the ``TrainState`` to submit the group again
        with when its training is not finished (kept as the group's checkpoint), else None.
        A ``Future`` (the group's evaluation, running beside the next training) is kept in
        ``pending`` until :meth:`collect` stores it."""
        try:
            outputs, _ = get()
            if isinstance(outputs, Future):
                self.pending.append((group, outputs))
                return None
            if isinstance(outputs, TrainState):
                records.write_pair(*self._checkpoint_paths(group), outputs.to_arrays(),
                                   {"settings": [s.key for s in group], "epoch": outputs.epoch})
                self.resumable += 1
                self.advance(group, outputs.epoch / group[0].config.epochs)
                return outputs
            for s, (arrays, record) in zip(group, outputs):
                store_computed(s, arrays, record, self.results_dir)
                self.done.append(s.key)
            for path in self._checkpoint_paths(group):
                path.unlink(missing_ok=True)
        except Exception as exc:  # noqa: BLE001 - one bad setting must not stop the sweep
            self.failed.extend((s, exc) for s in group if s.key not in self.done)
        self.advance(group, 1.0)
        return None

    def collect(self, wait=False):
        """Store the pending evaluations that have finished (with ``wait``: all of them)."""
        while self.pending and (wait or self.pending[0][1].done()):
            group, fut = self.pending[0]
            futures_wait([fut])          # a Ctrl-C here leaves the group pending
            self.pending.pop(0)
            self.finished(group, lambda: (fut.result(), None))

    def finish_pending_after_interrupt(self):
        """After Ctrl-C: finish and store the evaluation under way, whose group's training is
        done; a second Ctrl-C abandons it (its group is trained again on the next run)."""
        if not self.pending:
            return
        n = sum(len(g) for g, _ in self.pending)
        self.say(f"storing the {n} setting(s) trained before the interrupt once their forward solves "
                 "are done (Ctrl-C again to abandon them)")
        try:
            self.collect(wait=True)
        except KeyboardInterrupt:
            self.pending.clear()


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a batch job's allocation;
    else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def solve_processes(opts: SweepOptions, groups) -> int:
    """Processes that run the u_p forward solves of an in-process sweep: ``opts.solve_workers``,
    or by default the cores the training leaves idle (all usable ones but one, at most one
    per replicate of the largest group: an evaluation solves its replicates at once) when
    there is work to run beside the solves (on a GPU the group's own training; on the CPU
    the next group's), else none (0: the solves run in line, in the training process)."""
    if opts.solve_workers is not None:
        return opts.solve_workers
    on_gpu = bool(opts.device) and "cuda" in str(opts.device)
    if not (on_gpu or len(groups) > 1):
        return 0
    return max(0, min(usable_cores() - 1, max(sum(len(s.seeds) for s in g) for g in groups)))


def _run_here(sweep: _Sweep, groups, opts: SweepOptions) -> int:
    """Run ``groups`` one after the other in this process (segment by segment, keeping each
    group's checkpoint).  With solve processes (:func:`solve_processes`) a trained group is
    evaluated in a thread, its forward solves in those processes, while the next group
    trains; this process stores each group as soon as its evaluation is done, and at most
    one evaluation waits (the next one starts after it is stored).  On Ctrl-C an evaluation
    under way is finished and stored first (a second Ctrl-C abandons it).  Returns the number
    of settings not started or left at a checkpoint (time window)."""
    pool = evaluator = solve_map = None

    def task(g, state, seg):
        out, secs = group_task(g, opts.device, opts.forward_method, solve_map, state, seg, evaluate=evaluator is None)
        if isinstance(out, TrainedGroup):
            sweep.collect(wait=True)
            return evaluator.submit(evaluate_group, out, opts.forward_method, solve_map), secs
        return out, secs

    try:
        pool = solve_pool(solve_processes(opts, groups))
        if pool is not None:
            evaluator, solve_map = ThreadPoolExecutor(1, thread_name_prefix="binn-evaluate"), pool.map
        for i, g in enumerate(groups):
            if opts.past("stop_starting_after", sweep.clock()) or opts.past("hard_stop_after", sweep.clock()):
                sweep.say(f"stopped starting groups after {sweep.clock():.0f} s")
                sweep.collect(wait=True)
                return sum(len(x) for x in groups[i:])
            state, seg = sweep.checkpoint(g), segment_epochs(g, opts.checkpoint_every)
            if state is not None:
                sweep.say(f"resuming {len(g)} setting(s) at epoch {state.epoch} from their checkpoint")
            while True:
                state = sweep.finished(g, lambda: task(g, state, seg))
                sweep.collect()
                if state is None:
                    break
                if opts.past("hard_stop_after", sweep.clock()):
                    sweep.say(f"hard stop after {opts.hard_stop_after:g} s: {len(g)} setting(s) kept at their "
                              f"checkpoint (epoch {state.epoch})")
                    sweep.collect(wait=True)
                    return sum(len(x) for x in groups[i:])
        sweep.collect(wait=True)
        return 0
    except KeyboardInterrupt:
        sweep.finish_pending_after_interrupt()
        raise
    finally:
        interrupted = sys.exc_info()[0] is KeyboardInterrupt
        if evaluator is not None:
            evaluator.shutdown(wait=not interrupted, cancel_futures=True)
        close_pool(pool, interrupted=interrupted)


def _dask_client(opts: SweepOptions, n_groups: int, announce):
    """A Dask client of the scheduler, batch cluster or local cluster ``opts`` names, and the
    cluster this process started (None for an existing scheduler)."""
    from distributed import Client
    if opts.scheduler:
        client = connect(opts.scheduler)
        announce(f"dask: scheduler {opts.scheduler} ({len(client.nthreads())} workers), {dashboard_line(client)}")
        return client, None
    if opts.cluster in JOBQUEUE_CLUSTERS:
        check_submit_command(opts.cluster)
        owned, jobs = make_jobqueue_cluster(opts.cluster, opts.cluster_config or {})
        owned.scale(jobs=jobs)
        try:
            wait_submitted(owned, jobs, opts.cluster)
        except BaseException:
            with contextlib.suppress(Exception):     # (its failed jobs' own close may fail too)
                owned.close()
            raise
        client = Client(owned)
        announce(f"dask: {opts.cluster} cluster, {jobs} job(s) submitted, scheduler {owned.scheduler_address}, "
                 f"{dashboard_line(client)}")
        return client, owned
    owned = local_cluster(min(opts.workers, n_groups))
    client = Client(owned)
    limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
    announce(f"dask: LocalCluster of {len(owned.workers)} single-threaded worker processes "
             f"({min(limits) / 2 ** 30:.1f} GiB memory limit each), {dashboard_line(client)}")
    return client, owned


def _close_window(sweep: _Sweep, opts: SweepOptions, client, todo: list, running: dict) -> int:
    """Apply the time window between tasks: past ``hard_stop_after`` cancel the running
    groups, past either limit start no more.  Returns the number of settings dropped."""
    left = 0
    hard = opts.past("hard_stop_after", sweep.clock())
    if hard and (todo or running):
        left += sum(len(g) for g in running.values())
        client.cancel(list(running))
        sweep.say(f"hard stop after {opts.hard_stop_after:g} s: {len(running)} running group(s) abandoned")
        running.clear()
    stop = opts.past("stop_starting_after", sweep.clock())
    if stop and todo:
        sweep.say(f"stopped starting groups after {opts.stop_starting_after:g} s")
    if stop or hard:
        left += sum(len(g) for g in todo)
        todo.clear()
    return left


def _run_dask(sweep: _Sweep, groups, opts: SweepOptions) -> int:
    """Run ``groups`` as Dask tasks: at most one per worker thread at a time (so the order
    and the time window decide what starts), each result stored by this process as it
    comes back.  Returns the number of settings not started or abandoned (time window)."""
    import queue as queue_mod
    client, owned = _dask_client(opts, len(groups), sweep.announce)
    came_back = queue_mod.Queue()
    todo, running, left, states = list(groups), {}, 0, {}
    interrupted = False
    try:
        while todo or running:
            left += _close_window(sweep, opts, client, todo, running)
            slots = max(sum(client.nthreads().values()), 1) - len(running)
            while todo and slots > 0:
                g = todo.pop(0)
                state = states.pop(id(g), None) or sweep.checkpoint(g)
                fut = client.submit(group_task, g, opts.device, opts.forward_method, None, state,
                                    segment_epochs(g, opts.checkpoint_every), pure=False)
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


def _not_stored(settings, results_dir: Path) -> list:
    """The settings (each once) not yet soundly stored in ``results_dir``."""
    todo, seen = [], set()
    for s in settings:
        if s.key not in seen and not s.is_done(results_dir):
            todo.append(s)
        seen.add(s.key)
    return todo


def run_settings(settings: Sequence[Setting], results_dir=None, *, progress: bool = True, desc: str = "settings",
                 **options) -> list[str]:
    """Run every setting not yet in the store; returns the keys stored.  ``options``: the
    fields of :class:`SweepOptions` (how and where the tasks run).

    Each group of settings (one setting, or with ``merge`` those that differ only in
    learning rate, loss weights, noise level or datasets: ``setting.group_settings``) is one
    task (``compute.group_task``) that returns its arrays and record; this process alone
    writes them (:func:`store_computed`).  The tasks run in this process, one after the
    other, when ``workers`` is 1 (or there is one group) and no scheduler or cluster is
    named; otherwise as Dask tasks (``clusters``; a worker that dies has its task
    rescheduled).  Settings already stored with the same specification are never submitted,
    so an interrupted sweep resumes where it stopped; a long group resumes at its checkpoint
    (in ``<results_dir>/checkpoints/``, removed once the group is stored; resuming is exact).
    What the time window leaves is reported on stderr and runs on the next call.  The request
    is checked (:func:`check_run_request`; the folder only if there is something to store)
    before any training.  A task that raises is counted as failed and the others go on; the
    failures are raised together at the end as a RuntimeError.  Ctrl-C (KeyboardInterrupt)
    stops the sweep at once: running tasks are cancelled, the cluster closed, and every
    setting finished before is stored.
    """
    t0 = time.perf_counter()
    opts = SweepOptions(**options)
    opts = dataclasses.replace(opts, scheduler=opts.scheduler or os.environ.get(SCHEDULER_ENV) or None)
    results_dir = Path(results_dir or stores.default_results_dir())
    todo = _not_stored(settings, results_dir)
    check_run_request(results_dir if todo else None, opts.workers, opts.device, opts.forward_method, opts.remote)
    if opts.scheduler:
        check_scheduler_address(opts.scheduler)
    if not todo:
        return []
    opts = dataclasses.replace(opts, workers=opts.workers or usable_cores())
    groups = order_groups(group_settings(todo, opts.merge, opts.max_group_replicates), opts.priority)
    from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
    bar = tqdm(total=sum(bar_weight(g) for g in groups), desc=f"{desc}, 0/{len(todo)} settings stored",
               disable=not progress, bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")
    sweep = _Sweep(results_dir, len(todo), bar, progress=progress, t0=t0, desc=desc)
    try:
        import_first_use_modules()   # none of them imported while the work runs: a Ctrl-C then is never lost
        here = opts.scheduler is None and opts.cluster in (None, "local") and (opts.workers == 1 or len(groups) == 1)
        left = (_run_here if here else _run_dask)(sweep, groups, opts)
    except KeyboardInterrupt:
        sweep.bar.close()
        raise KeyboardInterrupt(f"sweep interrupted: {len(sweep.done)} of {len(todo)} settings finished and "
                                "stored; rerun the same command to continue") from None
    sweep.bar.close()
    if left:
        sweep.say(f"time window: {left} of {len(todo)} settings not run (rerun the same command to continue)")
    if sweep.failed:
        lines = "\n".join(f"  {s.study}: {s.label} ({s.key}): {type(e).__name__}: {e}" for s, e in sweep.failed)
        raise RuntimeError(f"{len(sweep.failed)} of {len(todo)} settings failed and were not stored "
                           f"(rerun to retry them; the others are stored):\n{lines}")
    return sweep.done
