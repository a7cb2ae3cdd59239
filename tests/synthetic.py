"""Small synthetic results for the tests of the studies' rules and the paper's claims: what
the summaries and the claims' checks read of a stored setting, and nothing else."""
from types import SimpleNamespace

import numpy as np

from binn_utils import studies
from binn_utils.engine.training import TrainConfig
from binn_utils.store.sweep_record import SweepRecord

RATES, WEIGHTS = studies.LEARNING_RATES, studies.PDE_WEIGHTS
#: the fewest replicates a synthetic setting has (a 95 % order-statistic interval needs six)
REPLICATES = 8


def sweep_record(n=1, metrics=None, config=None, without=(), **fields) -> SweepRecord:
    """A stored setting's record of ``n`` replicates as the store reads it
    (``SweepRecord.from_json``): the ``fields`` given, ``metrics`` (checkpoint -> the metric
    values given), ``config`` (TrainConfig fields), none of the fields ``without`` (a record
    stored before they existed); everything else neutral (all "ok", errors 0.1)."""
    def checkpoint(given):
        return {**{k: [0.1] * n for k in ("err_u_theta", "err_u_p", "err_u_theta_obs", "err_u_p_obs")},
                "up_status": ["ok"] * n, "operator_errors": {}, **(given or {})}
    d = dict(format=1, benchmark="diffusion", reaction="supporting", noise_var=1e-3, dense=False,
             datasets=[0] * n, seeds=list(range(n)), config=TrainConfig(**(config or {})).to_dict(),
             status=["ok"] * n, epochs_run=100, steps_per_epoch=1, batch_size_used=40, wall_time_s=1.0,
             mechanisms=["D"], n_params=0, device="cpu", u_range=[0.0, 1.0], provenance={},
             metrics={w: checkpoint((metrics or {}).get(w)) for w in ("best", "final")})
    d.update(fields)
    for k in without:
        del d[k]
    return SweepRecord.from_json(d)


class Fake:
    """A stored setting as the summaries see it: meta values, per-replicate errors (``errs``:
    metric -> values; ``op_D`` etc.: operator errors), the validation-loss curve of every
    replicate (``curve``), record fields and further arrays (``arrays``: e.g. ``u_clean``;
    the networks' arrays as ``best_u_p``, ``best_op_D``), the datasets of the replicates."""

    def __init__(self, meta, errs, curve=None, record=None, arrays=None, datasets=None):
        self.meta = meta
        # the replicates given, repeated to at least REPLICATES (their median and quartiles
        # unchanged), so that the verdicts' intervals are bounded
        n0 = len(next(iter(errs.values())))
        k = -(-REPLICATES // n0)
        self._errs = {key: np.tile(np.asarray(v, float), k) for key, v in errs.items()}
        arrays = {key: (np.concatenate([v] * k) if np.ndim(v) and len(v) == n0 and key.startswith("best_") else v)
                  for key, v in (arrays or {}).items()}
        if curve is not None and np.ndim(curve) == 2:
            curve = np.concatenate([curve] * k)
        datasets = None if datasets is None else tuple(datasets) * k
        n = n0 * k
        ep = np.arange(1, 101)
        c = np.exp(-ep / 30.0) + 0.01 if curve is None else curve
        # u_theta fits the observations well (none collapsed) unless the errors given say otherwise
        self._errs.setdefault("err_u_theta_obs", np.full(n, 0.01))
        self.arrays = {"curve_epochs": ep, "u_obs": np.linspace(0.0, 1.0, 35), "hist_val_total": np.stack([c] * n),
                       "hist_val_data": np.stack([c] * n), "hist_val_pde": np.stack([c * 1e-5] * n),
                       **(arrays or {})}
        record = dict(record or {})
        config = {"w_data": 1.0, "w_pde": meta.get("w_pde", 0.1), **record.pop("config", {})}
        self.record = sweep_record(record.pop("replicates", n), config=config, **record)
        self.setting = SimpleNamespace(datasets=(0,) * n if datasets is None else tuple(datasets), seeds=tuple(range(n)),
                                       initial="text")

    def __getitem__(self, k):
        return self.arrays[k]

    def metric(self, name, which=None):
        return self._errs[name]

    def net(self, name, which=None):
        return self.arrays[f"best_{name}"]

    def up_status(self, which=None):
        return list(self.record.metrics["best"].up_status)

    def operator_error(self, op, which=None):
        return self._errs.get(f"op_{op}", np.full(len(self._errs["err_u_p"]), 0.1))


def sweep(key, values, err_of, curve_of=lambda v: None):
    """One setting per swept value, three replicates with the error ``err_of(value)`` in both
    u_theta and u_p."""
    return [Fake({key: v}, {"err_u_theta": [err_of(v)] * 8, "err_u_p": [err_of(v)] * 8}, curve_of(v))
            for v in values]


def batch_curve(B, contrary=False):
    """A validation loss per epoch that starts lower the smaller B is and wiggles less the
    larger B is (as the paper reads its Fig. 6), or the other way round (``contrary``)."""
    ep = np.arange(1, 101)
    b = 6400 / B if contrary else B          # contrary: the order of the batch sizes reversed
    return (np.exp(-ep / 30.0) * (b / 640) ** 0.2 + 0.01) * 10 ** (0.01 * np.log2(640 / b) * np.sin(ep))


def batch_results(T_of_B, err_of_B, curves=None):
    """(fixed-epoch, fixed-budget) results of the batch-size study: the time per replicate
    ``T_of_B(B used)`` of the fixed epochs (B clipped to the 398 training points), the
    per-replicate errors ``err_of_B(B)`` after the budget; the fixed-epoch validation losses
    ``batch_curve(B, contrary=curves == "contrary")`` (``curves`` "paper" or "contrary"),
    or one curve for every B (None)."""
    fixed, budget = [], []
    for B in studies.BATCH_SIZES:
        used = min(B, 398)
        rec = {"batch_size_used": used, "config": {"batch_size": B}, "replicates": 3,
               "wall_time_s": 3 * T_of_B(used), "epochs_run": 100, "steps_per_epoch": -(-398 // used)}
        curve = batch_curve(B, curves == "contrary") if curves else None
        fixed.append(Fake({"batch_size": B}, {"err_u_theta": [0.1] * 3, "err_u_p": [0.1] * 3}, curve, record=rec))
        budget.append(Fake({"batch_size": B, "budget_steps": 1000}, {"err_u_theta": err_of_B(B),
                                                                     "err_u_p": err_of_B(B)},
                           record={"epochs_run": 10}))
    return fixed, budget


def timing_of(fixed) -> dict:
    """The timing benchmark (``benchmarks/batch_size_timing.py --json``) that the synthetic
    fixed-epoch batch-size results' times (``batch_results``' ``T_of_B``) describe."""
    rows = []
    for r in fixed:
        T = r.record.wall_time_s / r.record.replicates * 4000 / r.record.epochs_run
        rows.append({"B": r.record.config.batch_size, "B_used": r.record.batch_size_used,
                     "epoch_steps": r.record.steps_per_epoch, "s_4000_epochs": T, "s_per_epoch": T / 4000,
                     "ms_per_step": 1e3 * T / 4000 / r.record.steps_per_epoch})
    return {"machine": "synthetic", "torch": "-", "trainer": "synthetic", "batch_sizes": rows, "fit": {},
            "budgets_min": {}, "printout": [], "load_average": None}


def figure_boxes(results, by):
    """What a chapter computes from the results table for a figure's box plots (the same
    group-by as the chapters'): (errors, boxes), boxes per value of ``by`` and quantity."""
    from binn_utils.analysis import results_table
    errors = results_table.long(results_table.table(results))
    errors["diverged"] = errors["status"] != "ok"
    groups = errors.groupby([*by, "quantity"])
    boxes = groups["value"].describe()
    boxes["failed"] = groups.size() - boxes["count"]
    boxes["diverged"] = groups["diverged"].sum()
    return errors, boxes


def figure_heat(results):
    """What the architecture chapter computes from the results table for Fig. 5's heat maps."""
    from binn_utils.analysis import results_table
    groups = results_table.table(results, norms=("frobenius", "spectral")).groupby(
        ["norm", "arch_D", "arch_V"])["err_u_p"]
    heat = groups.describe()
    heat["failed"] = groups.size() - heat["count"]
    return heat
