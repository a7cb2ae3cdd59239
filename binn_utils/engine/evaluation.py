"""From a trained setting to the paper's error measures, per replicate.

For each replicate (using the final or the best-validation networks):
* ``u_theta`` on the data grid and its relative L2 error against the noise-free solution;
* ``u_p``: the finite-volume forward solve driven by the learned D, V, G and the learned
  initial condition u_theta(x, 0), on the data grid and times (Supporting Material); a
  failed solve is kept with its status and counted, its error is NaN;
* learned operator curves on a u grid, and operator errors over the range of u actually
  observed (the noise-free solution's range on the data grid).
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from .forward_solve import ForwardSolution, forward_solve_many
from .metrics import observed_range, operator_error, operator_grid, relative_l2
from .observations import Observations
from .runs import TrainResult

PLOT_U_POINTS = 101

#: The forward solves this process did last, by the digest of everything that determines
#: one (``_solve_key``): a replicate whose best-validation parameters are its final ones
#: (often, at few epochs) is solved once for both checkpoints.
_RECENT_SOLVES: OrderedDict = OrderedDict()
_RECENT_LOCK = threading.Lock()
RECENT_SOLVES_KEPT = 64


@dataclass
class Evaluation:
    which: str
    u_theta: np.ndarray            # (R, n_t, n_x)
    u_p: np.ndarray                # (R, n_t, n_x), NaN where the solve failed
    up_status: list                # per replicate
    err_u_theta: np.ndarray        # (R,)
    err_u_p: np.ndarray            # (R,) NaN where u_p failed
    err_u_theta_obs: np.ndarray    # (R,) against the observations (no ground truth needed)
    err_u_p_obs: np.ndarray        # (R,)
    u_grid: np.ndarray             # operator plotting grid
    operators: dict                # name -> (R, n_u) on u_grid
    true_operators: dict           # name -> (n_u,) (empty for real data)
    u_range: tuple                 # observed range of u
    operator_errors: dict = field(default_factory=dict)  # name -> (R,) over u_range

    @property
    def n_failed_u_p(self) -> int:
        return int(sum(s != "ok" for s in self.up_status))


def _solve_key(params_r: np.ndarray, layout, u0: np.ndarray, data: Observations, solve_kw: dict) -> str:
    """A digest of what determines one forward solve: the replicate's parameters (its
    operators), the layout, the initial condition, the grid, the times and the options."""
    h = hashlib.sha256(repr((layout, sorted(solve_kw.items()))).encode())
    for a in (params_r, u0, data.x, data.t):
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(repr(a.shape).encode() + a.tobytes())
    return h.hexdigest()


def _forward_solves(result: TrainResult, which: str, replicates, u0s, data: Observations, solve_kw: dict,
                    solve_map) -> list[ForwardSolution]:
    """The u_p forward solves of ``replicates`` (driven by their learned operators from their
    learned initial conditions ``u0s[r]``), those solved already in this process reused
    (``_RECENT_SOLVES``: the same inputs give the same solution), the others solved with
    ``solve_map``."""
    params = result.params(which)
    keys = [_solve_key(params[r], result.layout, u0s[r], data, solve_kw) for r in replicates]
    with _RECENT_LOCK:          # a worker may evaluate in several threads; the solves run outside
        found = {k: _RECENT_SOLVES[k] for k in keys if k in _RECENT_SOLVES}
    todo = [(r, k) for r, k in zip(replicates, keys) if k not in found]
    sols = forward_solve_many([[result.operator(n, r, which) for n in ("D", "V", "G")] for r, _ in todo],
                              [u0s[r] for r, _ in todo], data.x, data.t, solve_map=solve_map, **solve_kw)
    found.update((k, sol) for (_, k), sol in zip(todo, sols))
    with _RECENT_LOCK:
        for k in keys:
            _RECENT_SOLVES[k] = found[k]
            _RECENT_SOLVES.move_to_end(k)
        while len(_RECENT_SOLVES) > RECENT_SOLVES_KEPT:
            _RECENT_SOLVES.popitem(last=False)
    return [found[k] for k in keys]


def evaluate(result: TrainResult, data: Observations | list, which: str = "final", *,
             benchmark=None, u_grid=None, solve_kw=None, solve_map=None) -> Evaluation:
    """Evaluate every replicate of ``result`` on its dataset(s).

    ``solve_map``: a ``map``-like callable that runs the replicates' forward solves, e.g. a
    process pool's ``map`` (``solve_workers.solve_pool``); default: one after the other here.
    """
    R = result.n_replicates
    datas = [data] * R if isinstance(data, Observations) else list(data)
    if len(datas) != R:
        raise ValueError(f"{len(datas)} datasets for {R} replicates")
    d0 = datas[0]
    if benchmark is None and d0.u_clean is not None:
        from .problems import BENCHMARK_NAMES, get_benchmark
        benchmark = get_benchmark(d0.name) if d0.name in BENCHMARK_NAMES else None
    truth = d0.u_clean
    u_lo, u_hi = observed_range(truth if truth is not None else d0.u_obs)
    if u_grid is None:
        top = max(1.0, u_hi) if truth is not None else u_hi + 0.1 * (u_hi - u_lo)
        bottom = min(0.0, u_lo)
        u_grid = np.linspace(bottom, top, PLOT_U_POINTS)
    u_grid = np.asarray(u_grid, dtype=float)

    u_theta = result.u_theta(d0.x, d0.t, which)
    params = result.params(which)
    u_p = np.full_like(u_theta, np.nan)
    status = ["failed: non-finite network parameters"] * R
    solvable = [r for r in range(R) if np.all(np.isfinite(params[r]))]
    for r, sol in zip(solvable, _forward_solves(result, which, solvable, u_theta[:, 0], d0, solve_kw or {}, solve_map)):
        u_p[r] = sol.u
        status[r] = "ok" if sol.ok else f"{sol.status}: {sol.message}"

    def errs(pred, ref_of):
        out = np.full(R, np.nan)
        for r in range(R):
            ref = ref_of(r)
            if ref is not None and np.all(np.isfinite(pred[r])):
                out[r] = relative_l2(pred[r], ref)
        return out

    clean = (lambda r: datas[r].u_clean)
    obs = (lambda r: datas[r].u_obs)
    ops = result.operator_curves(u_grid, which)
    true_ops, op_errs = {}, {}
    if benchmark is not None:
        for name in ops:
            true_ops[name] = np.asarray(getattr(benchmark, name)(u_grid), dtype=float) * np.ones_like(u_grid)
        grid_in = operator_grid((u_lo, u_hi))
        learned_in = result.operator_curves(grid_in, which)
        for name, vals in learned_in.items():
            true_in = np.asarray(getattr(benchmark, name)(grid_in), dtype=float) * np.ones_like(grid_in)
            op_errs[name] = np.asarray(operator_error(vals, true_in), dtype=float)
    return Evaluation(which=which, u_theta=u_theta, u_p=u_p, up_status=status,
                      err_u_theta=errs(u_theta, clean), err_u_p=errs(u_p, clean),
                      err_u_theta_obs=errs(u_theta, obs), err_u_p_obs=errs(u_p, obs),
                      u_grid=u_grid, operators=ops, true_operators=true_ops,
                      u_range=(u_lo, u_hi), operator_errors=op_errs)
