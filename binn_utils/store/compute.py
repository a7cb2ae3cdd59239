"""Training and evaluating one group of settings: the task a sweep runs.

:func:`compute_group` trains the settings of one merge group as one batched model and
evaluates each (:func:`evaluate_result`), returning the arrays and the record that the store
keeps; it writes nothing, so the same task (:func:`group_task`) runs in this process or in a
Dask worker on another machine (``runner`` stores what it returns).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import numpy as np

from . import records
from .provenance import provenance
from ..engine.runs import HISTORY_KEYS
from .setting import MERGEABLE, Setting, merge_key
from .sweep_record import CHECKPOINTS, SweepRecord

CURVE_POINTS = 400


def _curve_epochs(n: int) -> np.ndarray:
    stride = max(1, n // CURVE_POINTS)
    idx = np.arange(stride - 1, n, stride)
    if idx.size == 0 or idx[-1] != n - 1:
        idx = np.append(idx, n - 1)
    return idx


@dataclasses.dataclass
class TrainedGroup:
    """A group trained but not yet evaluated (what :func:`evaluate_group` takes): its
    settings, the batched ``TrainResult``, each replicate's observations and the benchmark."""
    settings: list
    result: object
    datas: list
    bench: object


def one_thread():
    """torch on one thread in this process, wherever a group trains: in a Dask worker (one
    worker process per core is the parallelism), in-process in ``binn sweep --workers 1``, or in
    a notebook's ``load_or_run`` beside other work (a book build, another sweep): torch's default,
    a thread per core, made two processes side by side five times slower each (issue 51)."""
    import torch
    torch.set_num_threads(1)


def compute_group(settings: Sequence[Setting], progress=False, device=None,
                  forward_method="RK45", solve_map=None, state=None, stop_at_epoch=None, evaluate=True):
    """Train settings of one merge group as one batched model and evaluate each: returns
    one (arrays, record) pair per setting, ready for ``runner.store_computed``.  Writes
    nothing: this is the task a sweep runs (in a Dask worker anywhere, or in-process).
    ``solve_map`` runs the u_p forward solves (``evaluation.evaluate``).

    With ``stop_at_epoch`` the training stops at that checkpoint (a chunk boundary) and the
    group's ``training.TrainState`` is returned instead (nothing evaluated); ``state`` resumes
    from one.  With ``evaluate=False`` a finished group is returned as a
    :class:`TrainedGroup`, for :func:`evaluate_group` to evaluate (elsewhere, later).

    torch runs on one thread in this process from then on (:func:`one_thread`)."""
    from ..engine.problems import get_benchmark
    from ..engine.observations import make_observations
    from ..engine.training import train

    one_thread()
    settings = list(settings)
    keys = {merge_key(s) for s in settings}
    if len(keys) != 1:
        raise ValueError("settings trained as one batch must differ only in " + ", ".join(MERGEABLE))
    s0 = settings[0]
    bench = get_benchmark(s0.benchmark, reaction=s0.reaction, initial=s0.initial)
    obs = {}
    for s in settings:
        for d in s.datasets:
            if (s.noise_var, d, s.data) not in obs:
                obs[(s.noise_var, d, s.data)] = make_observations(bench, s.noise_var, dataset=d, dense=s.dense, data=s.data)
    datas = [obs[(s.noise_var, d, s.data)] for s in settings for d in s.datasets]
    per_rep = {k: np.concatenate([np.full(len(s.seeds), getattr(s.config, k), dtype=float) for s in settings])
               for k in MERGEABLE}
    seeds = [int(x) for s in settings for x in s.seeds]
    result = train(datas, s0.config, seeds=seeds, progress=progress, device=device, resume=state,
                   stop_at_epoch=stop_at_epoch, **per_rep)
    if "state" in result.extra:
        return result.extra["state"]
    trained = TrainedGroup(settings, result, datas, bench)
    return evaluate_group(trained, forward_method, solve_map) if evaluate else trained


def evaluate_group(trained: TrainedGroup, forward_method="RK45", solve_map=None) -> list:
    """Evaluate each setting of a trained group (:func:`evaluate_result`): one (arrays,
    record) pair per setting."""
    settings, result = trained.settings, trained.result
    out, offset = [], 0
    for s in settings:
        sl = slice(offset, offset + len(s.seeds))
        offset += len(s.seeds)
        part = split_result(result, sl, s.config)
        group = {"settings": len(settings), "replicates": len(result.seeds)} if len(settings) > 1 else None
        out.append(evaluate_result(s, part, trained.datas[sl], trained.bench, group=group,
                                   forward_method=forward_method, solve_map=solve_map))
    return out


def split_result(result, sl: slice, config):
    """The replicates ``sl`` of a batched TrainResult, as a TrainResult of their own."""
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
                  provenance=provenance())
    return arrays, SweepRecord.from_json(records.clean_json(record), f"of {setting.study}/{setting.label}")


def group_task(group, device=None, forward_method="RK45", solve_map=None, state=None, segment_epochs=None,
               evaluate=True):
    """The task of a sweep: one group trained single-threaded for at most ``segment_epochs``
    epochs from ``state`` (None: from the start).  Returns (its (arrays, record) pairs, or the
    ``TrainState`` to go on from when training is not finished, or with ``evaluate=False`` the
    :class:`TrainedGroup`; :func:`compute_group`) and the seconds it took.  It writes nothing,
    so it runs the same in-process or in a Dask worker on another machine; a worker that dies
    costs at most one segment."""
    t0 = time.perf_counter()
    stop = None if segment_epochs is None else (0 if state is None else state.epoch) + segment_epochs
    return (compute_group(group, device=device, forward_method=forward_method, solve_map=solve_map,
                          state=state, stop_at_epoch=stop, evaluate=evaluate), time.perf_counter() - t0)
