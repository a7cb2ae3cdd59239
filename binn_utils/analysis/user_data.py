"""Fitting an ADR-BINN to your own data: training, caching, diagnostics.

The observations are read and checked, and rescaled to the paper's training domain, by
:mod:`binn_utils.analysis.user_observations` (its names are importable from here too).

Decisions
---------
*Replicates.*  By default (``replicates="mean"``) each network is trained on the
replicate mean at every grid point.  With the same grid for every replicate this is the
same least-squares problem as training on all replicate points: sum_r (u_theta - u_r)^2
= n_rep (u_theta - mean_r u_r)^2 + const, so the minimiser is unchanged; what changes is
the number of optimiser steps per epoch (n_rep times fewer) and the validation loss floor
(the noise variance divided by n_rep).  u_theta and u_p are compared with the mean.  With
``replicates="separate"`` each initialisation is trained on each replicate separately
(``len(seeds) * n_rep`` networks, as in the paper's noise study), and the spread
diagnostic then compares initialisations on the same replicate.  With several
replicates, :attr:`UserObservations.noise_sd` estimates the measurement noise.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..engine.evaluation import evaluate
from ..engine.first_use import import_first_use_modules
from ..engine.forward_solve import check_method
from ..engine.runs import HISTORY_KEYS, TrainConfig, TrainResult, check_distinct, check_seeds
from ..engine.solvers import uniform_spacing
from ..store import fits, records, stores
from ..store.clusters import close_dask, connect, local_cluster
from ..store.sweep_record import CHECKPOINTS, REPORTED
from .diagnostics import diagnose
from .user_units import UNREPRESENTABLE
from .user_observations import (MECHANISMS, TIME_UNITS, TRAIN_T_END, TRAIN_X_RANGE, DataWarning, Scaling,
                                UserObservations, check_replicates_mode, load_observations_csv,
                                observations_from_arrays, validate_mechanisms)

__all__ = ["TRAIN_X_RANGE", "TRAIN_T_END", "MECHANISMS", "TIME_UNITS", "DataWarning", "Scaling", "UserObservations",
           "UserFit", "load_observations_csv", "observations_from_arrays", "validate_mechanisms", "fit_user_data",
           "fit_user_data_cached", "fit_spec", "fit_spec_of", "stored_fit", "data_digest", "file_sha1", "concat_results",
           "prepare_fit", "AGREE", "SHAPES", "curve_shapes", "operator_shape"]


# ----------------------------------------------------------------------------- fitting
@dataclass
class UserFit:
    """A BINN fitted to user data, reported in the user's units."""

    data: UserObservations
    scaling: Scaling
    mechanisms: tuple
    replicates_mode: str
    observations: list            # training-domain Observations (one, or one per replicate)
    result: object                # TrainResult (training units)
    evaluation: object            # Evaluation (training units)
    report: object                # DiagnosticReport (u range in user units)
    which: str = REPORTED
    forward_method: str = "RK45"  # integrator of the u_p forward solves (forward_solve.FORWARD_METHODS)
    n_u: int = 101
    cache_key: str | None = None  # fit_user_data_cached: name of the stored files
    cache_files: tuple = ()       # (npz, json) paths of the stored networks
    trained: int = 0              # networks trained by the call that made this fit (0: loaded)

    @property
    def x(self) -> np.ndarray:
        return self.data.x

    @property
    def t(self) -> np.ndarray:
        return self.data.t

    @property
    def u_theta(self) -> np.ndarray:
        """(R, n_t, n_x) learned solution, user units."""
        return self.scaling.u_to_user(self.evaluation.u_theta)

    @property
    def u_p(self) -> np.ndarray:
        """(R, n_t, n_x) forward-predicted solution, user units (NaN where the solve failed)."""
        return self.scaling.u_to_user(self.evaluation.u_p)

    @property
    def u_range(self) -> tuple:
        """Observed range of u (robust quantiles, user units): where the operators mean something."""
        return self.report.u_range

    @property
    def u_grid(self) -> np.ndarray:
        """u grid (user units) over the observed range, where :attr:`operator_curves` are given."""
        return np.linspace(*self.u_range, self.n_u)

    def operator(self, name: str, replicate: int = 0):
        """Learned operator ``name`` of one network, as a callable of u in user units."""
        f = self.result.operator(name, replicate, self.which)
        if f is None:
            raise ValueError(f"operator {name!r} was not learned (mechanisms: {', '.join(self.mechanisms)})")
        return self.scaling.operator_to_user(name, f)

    def operator_curves(self, u_grid=None) -> dict:
        """name -> (R, n_u) learned operators in user units on ``u_grid`` (default :attr:`u_grid`)."""
        g = self.u_grid if u_grid is None else np.asarray(u_grid, dtype=float)
        curves = self.result.operator_curves(self.scaling.u_to_train(g), self.which)
        return {k: self.scaling.operator_factor(k) * v for k, v in curves.items()}

    def summary(self) -> str:
        sc = self.scaling
        lines = [self.data.describe(),
                 f"mechanisms learned: {', '.join(MECHANISMS[m] for m in self.mechanisms)}; "
                 f"{self.result.n_replicates} networks ("
                 + ("each replicate fitted separately" if self.replicates_mode == "separate"
                    else "fitted to the mean of the replicates") + ")",
                 f"training variables: x' = {sc.x0_train:g} + {sc.x_factor:.4g} (x - {sc.x_min:g}), "
                 f"t' = {sc.t_factor:.4g} (t - {sc.t_min:g}), u' = u / {sc.u_factor:.4g}; "
                 f"operators converted by D x {sc.operator_factor('D'):.4g}, V x "
                 f"{sc.operator_factor('V'):.4g}, G x {sc.operator_factor('G'):.4g}",
                 self.report.summary()]
        return "\n".join(lines)


def _prepare_fit(obs_or_path, mechanisms, config, seeds, which, replicates, x_range, t_end, u_scale,
                 x, t, u, replicate, forward_method="RK45", read_kw=None) -> dict:
    """Validate the request and build the training-domain data (everything before training)."""

    mech = validate_mechanisms(mechanisms)
    check_method(forward_method)
    check_replicates_mode(replicates)
    if which not in CHECKPOINTS:
        raise ValueError(f"which must be one of {CHECKPOINTS}, got {which!r}")
    config = (config or TrainConfig()).validate()
    seeds = list(check_seeds(seeds))
    check_distinct(seeds, seeds, "data")
    data = obs_or_path if isinstance(obs_or_path, UserObservations) else \
        load_observations_csv(obs_or_path, x=x, t=t, u=u, replicate=replicate, **(read_kw or {}))
    data.check_batch_size(config.batch_size, replicates, clip=config.clip_batch_to_data)
    sc = data.scaling(x_range=x_range, t_end=t_end, u_scale=u_scale)
    obs = data.to_observations(sc, replicates)
    try:   # the grid the forward solve will get (training units): the data check's promise, kept
        uniform_spacing(obs[0].x)
    except ValueError as err:
        raise ValueError(f"{data.source}: positions rescaled to training units: {err}; subtract an offset from "
                         "the positions (or write them with more digits)") from None
    if replicates == "mean":
        datas, run_seeds = obs[0], seeds
    else:
        datas = [o for o in obs for _ in seeds]
        run_seeds = [s for _ in obs for s in seeds]
    import_first_use_modules()   # before the training: a Ctrl-C during it is then never lost
    return dict(data=data, mechanisms=mech, config=config, seeds=seeds, scaling=sc, observations=obs,
                datas=datas, run_seeds=run_seeds, which=which, replicates=replicates,
                forward_method=forward_method)


def _finish_fit(prep: dict, result) -> UserFit:
    """Evaluate (u_theta, forward solve u_p) and diagnose a trained result: the UserFit."""

    data, sc, datas, which = prep["data"], prep["scaling"], prep["datas"], prep["which"]
    try:
        ev = evaluate(result, datas, which, solve_kw={"method": prep["forward_method"]})
    except ValueError as err:   # the grid (forward_solve never raises for bad operators)
        raise ValueError(f"{data.source}: the fit cannot be solved on its positions ({err}); refit: rerun the "
                         "fit into a new folder, with the positions written to more decimals or "
                         "interpolated onto a uniform grid") from None
    mark_unrepresentable_u_p(ev, sc)
    report = diagnose(result, ev, datas, which=which, label=data.source, u_scale=sc.u_factor)
    return UserFit(data=data, scaling=sc, mechanisms=prep["mechanisms"], replicates_mode=prep["replicates"],
                   observations=prep["observations"], result=result, evaluation=ev, report=report,
                   which=which, forward_method=prep["forward_method"])


def mark_unrepresentable_u_p(ev, sc) -> None:
    """Count as failed (status, NaN values and errors) each solve of ``ev`` whose u_p, times the
    data's scale ``sc.u_factor``, overflows double precision: densities near 1e308 with a u_p a
    little above their largest gave an infinite u_p whose solve said "ok"."""
    for r, status in enumerate(ev.up_status):
        if status == "ok" and not sc.holds_in_user_units(ev.u_p[r]):
            ev.up_status[r] = UNREPRESENTABLE
            ev.u_p[r], ev.err_u_p[r], ev.err_u_p_obs[r] = np.nan, np.nan, np.nan


def fit_user_data(obs_or_path, mechanisms, config=None, seeds: Sequence[int] = range(5), *,
                  which: str = REPORTED, replicates: str = "mean", x_range=TRAIN_X_RANGE,
                  t_end: float = TRAIN_T_END, u_scale: float | None = None, progress=False,
                  x: str = "x", t: str = "t", u: str = "u", replicate: str | None = None,
                  forward_method: str = "RK45") -> UserFit:
    """Validate, rescale, train ``len(seeds)`` BINNs (per replicate with ``replicates="separate"``),
    evaluate u_theta and u_p, and diagnose; operators come back in the user's units.

    obs_or_path: a :class:`UserObservations` or a CSV path/buffer (``x``, ``t``, ``u``,
    ``replicate`` name its columns).  mechanisms: non-empty subset of D, V, G (e.g. "DV").
    config: a ``TrainConfig`` (default: the paper's defaults, 4000 epochs).
    forward_method: integrator of the forward solve u_p, "RK45" (the paper's) or "BDF"
    (implicit; the same solution to the tolerance, much faster on fine grids).
    See :func:`fit_user_data_cached` for the same fit stored on disk.
    """
    from ..engine.training import train  # the trainer (torch) loads only when a fit trains

    prep = _prepare_fit(obs_or_path, mechanisms, config, seeds, which, replicates, x_range, t_end, u_scale,
                        x, t, u, replicate, forward_method)
    result = train(prep["datas"], prep["config"], prep["run_seeds"], mechanisms=prep["mechanisms"],
                   progress=progress)
    return _finish_fit(prep, result)


# ----------------------------------------------------------------------------- cached fits
FIT_CACHE_FORMAT = 1


def data_digest(data: UserObservations) -> str:
    """SHA-1 of the observations themselves (grid, values, replicate labels), in float64."""
    h = hashlib.sha1()
    for a in (data.x, data.t, data.u):
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    h.update("\x1f".join(map(str, data.replicates)).encode())
    return h.hexdigest()


def file_sha1(path) -> str:
    """SHA-1 of a file's bytes (a data file's identity in a fit's record)."""
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def fit_spec(data: UserObservations, mechanisms, config, seeds, *, replicates="mean", x_range=TRAIN_X_RANGE,
             t_end=TRAIN_T_END, u_scale=None, extra: dict | None = None) -> dict:
    """Everything that determines a fit's trained networks (its key, ``records.key_of``, hashes this).

    ``extra``: JSON-serialisable facts about where the data came from (e.g. the source
    file's SHA-1 and the subset selected); they enter the key and are stored with the fit.
    """
    config = (config or TrainConfig()).validate()
    return {"format": FIT_CACHE_FORMAT, "data_sha1": data_digest(data),
            "mechanisms": list(validate_mechanisms(mechanisms)), "config": config.to_dict(),
            "seeds": [int(s) for s in seeds], "replicates": replicates,
            "x_range": [float(v) for v in x_range], "t_end": float(t_end),
            "u_scale": None if u_scale is None else float(u_scale), "extra": dict(extra or {})}


def concat_results(parts):
    """One ``TrainResult`` of the networks of ``parts`` (TrainResults of the same layout and
    configuration, trained separately), in order.  Loss histories of different lengths (a
    time budget) are padded with NaN to the longest."""
    parts = list(parts)
    if len(parts) == 1:
        return parts[0]
    p0 = parts[0]
    for p in parts[1:]:
        if p.layout != p0.layout or p.mechanisms != p0.mechanisms:
            raise ValueError("cannot combine networks of different layouts or mechanisms")
    n = max(p.epochs_run for p in parts)

    def pad(h):
        out = np.full((h.shape[0], n), np.nan)
        out[:, :h.shape[1]] = h
        return out
    return TrainResult(layout=p0.layout, config=p0.config, mechanisms=p0.mechanisms,
                       seeds=np.concatenate([p.seeds for p in parts]),
                       final=np.concatenate([p.final for p in parts]), best=np.concatenate([p.best for p in parts]),
                       best_epoch=np.concatenate([p.best_epoch for p in parts]),
                       history={k: np.concatenate([pad(p.history[k]) for p in parts]) for k in HISTORY_KEYS},
                       weights=np.concatenate([p.weights for p in parts]), lr=np.concatenate([p.lr for p in parts]),
                       status=[s for p in parts for s in p.status],
                       diverged_epoch=np.concatenate([p.diverged_epoch for p in parts]), epochs_run=n,
                       steps_per_epoch=p0.steps_per_epoch, wall_time_s=float(sum(p.wall_time_s for p in parts)),
                       extra={**p0.extra, "trained_in_parts": len(parts)})


def _part_chunks(n_networks: int, n_parts: int) -> list:
    """``n_parts`` (at most one per network) contiguous, near-equal slices of the networks."""
    n_parts = max(1, min(int(n_parts), n_networks))
    edges = np.linspace(0, n_networks, n_parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def _train_parts(prep: dict, npz: Path, spec: dict, key: str, progress, workers, scheduler, n_parts=None):
    """Train the fit's networks in parts (one per worker), each stored as soon as it is
    trained (``<key>-part<i>of<n>``), so an interrupted fit resumes with the parts missing;
    parts run as Dask tasks on ``scheduler`` or on a LocalCluster of ``workers`` processes.
    Returns the combined ``TrainResult``, the parts' files (the caller removes them once
    the combined result is stored) and the number of networks this call trained (the
    parts stored before, e.g. by an interrupted run, are loaded, not counted).  ``n_parts`` (default: one per worker) fixes the
    split; with one worker and no scheduler the parts train here, one after the other."""
    from ..engine.training import train
    from tqdm import tqdm

    datas = prep["datas"] if isinstance(prep["datas"], list) else [prep["datas"]] * len(prep["run_seeds"])
    seeds = prep["run_seeds"]
    client = owned = None
    if scheduler:
        client = connect(scheduler)
    if n_parts is None:  # one part per worker
        n_parts = sum(client.nthreads().values()) if client is not None else (workers or 1)
    chunks = _part_chunks(len(seeds), n_parts)
    files = [records.pair_paths(npz.parent, f"{key}-part{i + 1}of{len(chunks)}") for i in range(len(chunks))]
    todo = [i for i, (a, b) in enumerate(files) if records.check_pair(a, b, kind=fits.FIT_KIND) is None]

    def part_spec(i):
        return {**spec, "part": [i + 1, len(chunks)], "networks": [chunks[i].start, chunks[i].stop]}

    def job(i):
        sl = chunks[i]
        return (datas[sl], prep["config"], seeds[sl]), {"mechanisms": prep["mechanisms"]}

    bar = tqdm(total=len(chunks), initial=len(chunks) - len(todo), desc="training (parts)", unit="part",
               disable=not progress)
    failed, interrupted = [], False
    try:
        if todo and (scheduler or ((workers or 1) > 1 and len(todo) > 1)):
            from distributed import Client, as_completed

            if client is None:
                owned = local_cluster(min(workers, len(todo)))
                client = Client(owned)
            futs = {}
            for i in todo:
                args, kw = job(i)
                futs[client.submit(train, *args, pure=False, **kw)] = i
            for fut in as_completed(futs):
                i = futs[fut]
                try:
                    fits.save_train_result(fut.result(), *files[i], part_spec(i))
                except Exception as exc:  # noqa: BLE001 - one failed part must not lose the others
                    failed.append((i, exc))
                bar.update(1)
        else:
            for i in todo:
                args, kw = job(i)
                try:
                    fits.save_train_result(train(*args, progress=progress and f"part {i + 1}/{len(chunks)}", **kw),
                                            *files[i], part_spec(i))
                except Exception as exc:  # noqa: BLE001
                    failed.append((i, exc))
                bar.update(1)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        bar.close()
        close_dask(client, owned, interrupted)
    if failed:
        what = "; ".join(f"part {i + 1}: {type(e).__name__}: {e}" for i, e in failed)
        raise RuntimeError(f"{len(failed)} of {len(chunks)} training parts failed ({what}); the "
                           f"{len(chunks) - len(failed)} others are stored: rerun to retry the failed ones")
    trained = sum(chunks[i].stop - chunks[i].start for i in todo)
    return concat_results([fits.load_train_result(*f) for f in files]), files, trained


def fit_user_data_cached(obs_or_path, mechanisms, config=None, seeds: Sequence[int] = range(5), *,
                         cache_dir, prefix: str = "fit", extra: dict | None = None,
                         require_stored: bool | None = None, which: str = REPORTED, replicates: str = "mean",
                         x_range=TRAIN_X_RANGE, t_end: float = TRAIN_T_END, u_scale: float | None = None,
                         progress=False, x: str = "x", t: str = "t", u: str = "u",
                         replicate: str | None = None, forward_method: str = "RK45",
                         workers: int | None = None, scheduler: str | None = None, prepared: dict | None = None) -> UserFit:
    """:func:`fit_user_data`, with the trained networks stored in ``cache_dir``: a folder, or
    folders read in order whose last is where a missing fit is trained (e.g. the committed
    store, then the working store: ``stores.folders_for``).

    The files are the store's pair ``<folder>/<key>.npz`` and ``.json``, named
    ``records.key_of(prefix, spec)`` (:attr:`UserFit.cache_key`), where the spec is
    :func:`fit_spec`: the observations (their SHA-1), mechanisms, training configuration,
    seeds, replicate handling, rescaling targets and ``extra``.  If they
    exist and are sound the networks are loaded instead of trained (a damaged pair, see
    ``records.read_pair``, is retrained, with a ``records.StoreWarning`` naming the file);
    u_theta, the forward solve u_p (integrator ``forward_method``, which therefore is not
    part of the key) and the diagnostics are always recomputed from the stored networks
    (seconds), so a fresh fit and a loaded one give identical numbers.
    ``require_stored`` (default: ``stores.require_stored()``, the environment variable
    ``BINN_REQUIRE_STORED`` is "1") turns a missing or damaged cache into a RuntimeError
    instead of a training run (``stores.check_may_train``).

    ``workers`` > 1 or a Dask ``scheduler`` ("tcp://HOST:PORT") trains the networks in
    parts, one per worker, as Dask tasks (a LocalCluster of ``workers`` processes, or the
    scheduler's workers); each part is stored as it finishes, so an interrupted fit
    resumes, and the combined networks are stored under the same key as a one-part fit
    (float32 networks trained in other groupings agree statistically, not bit for bit;
    the stored record says how many parts).  ``prepared``: the output of the validation
    step, when the caller has already run it (``binn fit`` does, to report before training).
    """
    from ..engine.training import train

    prep = prepared or _prepare_fit(obs_or_path, mechanisms, config, seeds, which, replicates, x_range, t_end,
                                    u_scale, x, t, u, replicate, forward_method)
    key, spec, folders, found = stored_fit(prep, cache_dir, prefix, extra, x_range, t_end, u_scale)
    npz, js = found or records.pair_paths(folders[-1], key)
    trained = 0
    if found is None:
        stores.check_may_train([key], Path(folders[0]), "fit is",
                               f"run it first (e.g. with the same parameters outside the book build) and "
                               f"commit {npz.name} and {js.name}", require=require_stored)
        stores.check_writable(npz.parent)
        if (workers or 1) > 1 or scheduler:
            result, parts, trained = _train_parts(prep, npz, spec, key, progress, workers, scheduler)
            fits.save_train_result(result, npz, js, spec)
            for files in parts:
                for f in files:
                    f.unlink(missing_ok=True)
        else:
            result = train(prep["datas"], prep["config"], prep["run_seeds"], mechanisms=prep["mechanisms"],
                           progress=progress)
            fits.save_train_result(result, npz, js, spec)
            trained = len(prep["run_seeds"])
    # always continue from the stored copy: a fresh and a reloaded fit are the same fit
    fit = _finish_fit(prep, fits.load_train_result(npz, js))
    fit.cache_key = key
    fit.cache_files = (npz, js)
    fit.trained = trained
    return fit


def stored_fit(prep: dict, cache_dir, prefix: str = "fit", extra=None, x_range=TRAIN_X_RANGE, t_end=TRAIN_T_END,
               u_scale=None):
    """(key, spec, folders, the stored (npz, json) pair or None) of a validated request's networks
    in ``cache_dir`` (as for :func:`fit_user_data_cached`): the first folder holding a sound pair
    (a damaged one: a StoreWarning names the file)."""
    spec = fit_spec_of(prep, x_range, t_end, u_scale, extra)
    key = records.key_of(prefix, spec)
    folders = [cache_dir] if isinstance(cache_dir, (str, Path)) else list(cache_dir)
    found = next((p for p in (records.pair_paths(f, key) for f in folders)
                  if records.check_pair(*p, kind=fits.FIT_KIND) is not None), None)
    return key, spec, folders, found


def fit_spec_of(prep: dict, x_range=TRAIN_X_RANGE, t_end=TRAIN_T_END, u_scale=None, extra=None) -> dict:
    """:func:`fit_spec` of a validated request (the output of the validation step)."""
    return fit_spec(prep["data"], prep["mechanisms"], prep["config"], prep["seeds"], replicates=prep["replicates"],
                    x_range=x_range, t_end=t_end, u_scale=u_scale, extra=extra)


def prepare_fit(obs_or_path, mechanisms, config=None, seeds: Sequence[int] = range(5), *, which: str = REPORTED,
                replicates: str = "mean", x_range=TRAIN_X_RANGE, t_end: float = TRAIN_T_END,
                u_scale: float | None = None, x: str = "x", t: str = "t", u: str = "u",
                replicate: str | None = None, forward_method: str = "RK45", delimiter: str | None = ",",
                encoding: str | None = "utf-8-sig") -> dict:
    """The validation step of :func:`fit_user_data` alone (every error before any training):
    a dict with the data, scaling, training-domain observations and the checked options,
    to pass on as ``fit_user_data_cached(..., prepared=...)``.  ``delimiter`` and
    ``encoding`` read a CSV file (:func:`load_observations_csv`; None: detected)."""
    return _prepare_fit(obs_or_path, mechanisms, config, seeds, which, replicates, x_range, t_end, u_scale,
                        x, t, u, replicate, forward_method, dict(delimiter=delimiter, encoding=encoding))


# ----------------------------------------------------------------------------- reading a fit
AGREE = 0.8
"""A curve is "increasing" ("decreasing") if it rises (falls) over at least this share of
its grid's steps, "non-monotone" otherwise; an operator has a shape when at least this
share of its initialisations share it (:func:`operator_shape`)."""
SHAPES = ("increasing", "decreasing", "non-monotone")


def curve_shapes(curves, agree: float = AGREE) -> np.ndarray:
    """The shape (one of :data:`SHAPES`, rule: :data:`AGREE`) of each row of ``curves``."""
    rising = np.mean(np.diff(np.asarray(curves, dtype=float), axis=1) > 0, axis=1)
    return np.where(rising >= agree, SHAPES[0], np.where(rising <= 1 - agree, SHAPES[1], SHAPES[2]))


def operator_shape(curves, agree: float = AGREE) -> tuple[str, dict, int]:
    """(the shape of an operator's finite curves, one per initialisation, on a grid of the
    observed range: see :data:`AGREE`; the initialisations of each shape; their number)."""
    c = curves[np.all(np.isfinite(curves), axis=1)]
    kinds = curve_shapes(c, agree)
    counts = {k: int(np.sum(kinds == k)) for k in SHAPES}
    n = int(c.shape[0])
    common = [k for k in SHAPES if n and counts[k] >= agree * n]
    return (common[0] if common else "of no consistent shape"), counts, n
