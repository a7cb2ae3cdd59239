"""Fitting an ADR-BINN to your own data: validation, rescaling, training, diagnostics.

Input
-----
Observations in *long* format, one row per measurement: position ``x``, time ``t``,
density ``u`` and, optionally, an experimental ``replicate`` label; from a CSV file
(:func:`load_observations_csv`) or arrays (:func:`observations_from_arrays`, which also
takes grid-shaped ``u``).  Row order does not matter (rows are sorted by replicate,
time and position).  Every problem is reported as a ``ValueError`` that names the column
and the row (CSV: ``row i (line L)``, data rows numbered from 1, the header is line 1;
arrays: ``entry i``, numbered from 0): missing columns, empty or non-numeric cells,
NaN/inf, the same (x, t) twice in one replicate, an incomplete grid, unequally spaced
positions, too few points for one mini-batch, unknown mechanisms; a CSV file that is
separated by another character or not in the expected encoding (the message says what was
found and which argument reads it).  Data that cannot be a density are errors (constant,
negative at most points); data whose fit would be hard to interpret give a
:class:`DataWarning` (values far below zero, one outlier setting the scale, no change in
time, identical replicates).  Units so extreme that the rescaling below or its operator
conversion leaves the floating-point range are refused before training.

Decisions
---------
*Grid.*  The trainer itself only needs scattered points, but the forward-predicted
solution u_p (the paper's check of the learned mechanism) is a finite-volume solve on a
uniform grid in x at the observation times, and ``Observations`` stores a (t, x) grid.
We therefore **require a full grid per replicate**: every replicate observes every
position at every time, and positions are equally spaced (times need not be).  An
incomplete or irregular grid is rejected with the missing (x, t) points named; drop the
incomplete times/positions or interpolate onto a grid first (we do not interpolate
silently: that would invent data the diagnostics then trust).

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

*Rescaling.*  The default hyperparameters (learning rate, Xavier-initialised tanh
networks, w_PDE = 0.1) were tuned on x in [-7, 7], t of order 4-18 and u in [0, 1].
We map the data there by positive affine changes of variable

    x' = -7 + a (x - x_min),  a = 14 / (x_max - x_min)
    t' = b (t - t_min),       b = 10 / (t_max - t_min)
    u' = u / c,               c = max |u_obs|

(``x_range``, ``t_end`` and ``u_scale`` of :func:`fit_user_data` change the targets).
Substituting u = c u', d/dx = a d/dx', d/dt = b d/dt' into the user's model
u_t = (D(u) u_x - u V(u))_x + u G(u) and dividing by c b gives the same model in training
variables, u'_t' = (D'(u') u'_x' - u' V'(u'))_x' + u' G'(u'), with

    D'(u') = (a^2 / b) D(c u'),   V'(u') = (a / b) V(c u'),   G'(u') = G(c u') / b,

so the learned operators are reported in user units as

    D(u) = (b / a^2) D'(u / c),   V(u) = (b / a) V'(u / c),   G(u) = b G'(u / c)

(units length^2/time, length/time and 1/time when x and t are a length and a time; D, V,
G are functions of u in the user's units of u).  The shifts drop out, the Neumann
condition u_x = 0 is preserved, and a, b, c > 0 preserve the signs (the D and V networks
are non-negative, as in the paper).  :class:`Scaling` implements this and is tested by
solving the same problem in both unit systems.
"""
from __future__ import annotations

import csv
import hashlib
import io
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..engine.evaluation import evaluate
from ..engine.forward_solve import check_method
from ..engine.observations import Observations, split_indices
from ..engine.training import HISTORY_KEYS, TrainConfig, TrainResult, check_distinct, check_seeds, train
from ..store import records
from ..store.sweeps import CHECKPOINTS, REPORTED, connect, local_cluster
from .diagnostics import diagnose

__all__ = ["TRAIN_X_RANGE", "TRAIN_T_END", "MECHANISMS", "DataWarning", "Scaling", "UserObservations", "UserFit",
           "load_observations_csv", "observations_from_arrays", "validate_mechanisms", "fit_user_data",
           "fit_user_data_cached", "fit_spec", "fit_spec_of", "data_digest", "file_sha1", "concat_results",
           "prepare_fit", "AGREE", "SHAPES", "curve_shapes", "operator_shape"]

TRAIN_X_RANGE = (-7.0, 7.0)
"""Training-domain positions: the paper's x in [-7, 7]."""

TRAIN_T_END = 10.0
"""Training-domain times [0, 10]: the middle of the paper's benchmark windows (t_end = 4, 10, 18)."""

MECHANISMS = {"D": "diffusion D(u)", "V": "advection V(u)", "G": "reaction G(u)"}

_GRID_RTOL = 1e-9    # values closer than this (relative to the span) are the same grid node
UNIFORM_RTOL = 1e-6  # allowed relative variation of the spacing in x


# ----------------------------------------------------------------------------- scaling
@dataclass(frozen=True)
class Scaling:
    """Positive affine map between user units and the training domain (module docstring).

    x' = x0_train + x_factor (x - x_min);  t' = t_factor (t - t_min);  u' = u / u_factor.
    """

    x_min: float
    x_factor: float
    t_min: float
    t_factor: float
    u_factor: float
    x0_train: float = TRAIN_X_RANGE[0]

    def __post_init__(self):
        tiny = np.finfo(float).tiny
        for name in ("x_factor", "t_factor", "u_factor"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= tiny and np.isfinite(1.0 / v)):
                raise ValueError(f"scale factor {name} must be a finite number > 0 whose inverse is finite, "
                                 f"got {v!r}: express {name[0]} in other units")
        # the operators' conversion factors (operator_factor) must be representable too
        la, lb = np.log10(self.x_factor), np.log10(self.t_factor)
        for name, lg in (("D", lb - 2 * la), ("V", lb - la), ("G", lb)):
            if not -300 < lg < 300:
                raise ValueError(
                    f"these units cannot be rescaled: converting {MECHANISMS[name]} back to them needs "
                    f"the factor 10^{lg:.0f}, beyond the range of floating-point numbers (x spans about "
                    f"{(TRAIN_X_RANGE[1] - TRAIN_X_RANGE[0]) / self.x_factor:.3g} and t about "
                    f"{TRAIN_T_END / self.t_factor:.3g} of your units); express x and t in other units")

    @classmethod
    def fit(cls, x, t, u, x_range=TRAIN_X_RANGE, t_end=TRAIN_T_END, u_scale=None) -> "Scaling":
        """The map taking [min x, max x] to ``x_range``, [min t, max t] to [0, t_end], u to u / max|u|."""
        x, t, u = (np.asarray(v, dtype=float) for v in (x, t, u))
        (x0, x1), (t0, t1) = (x.min(), x.max()), (t.min(), t.max())
        if not x1 > x0:
            raise ValueError("x takes a single value; need at least 3 positions")
        if not t1 > t0:
            raise ValueError("t takes a single value; need at least 2 times")

        lo, hi = (float(v) for v in x_range)
        if not hi > lo:
            raise ValueError(f"x_range must be increasing, got {x_range}")
        if not t_end > 0:
            raise ValueError(f"t_end must be > 0, got {t_end}")
        c = float(np.max(np.abs(u))) if u_scale is None else float(u_scale)
        return cls(x_min=float(x0), x_factor=(hi - lo) / float(x1 - x0), t_min=float(t0),
                   t_factor=float(t_end) / float(t1 - t0), u_factor=c, x0_train=lo)

    # variables
    def x_to_train(self, x):
        return self.x0_train + self.x_factor * (np.asarray(x, dtype=float) - self.x_min)

    def x_to_user(self, xp):
        return self.x_min + (np.asarray(xp, dtype=float) - self.x0_train) / self.x_factor

    def t_to_train(self, t):
        return self.t_factor * (np.asarray(t, dtype=float) - self.t_min)

    def t_to_user(self, tp):
        return self.t_min + np.asarray(tp, dtype=float) / self.t_factor

    def u_to_train(self, u):
        return np.asarray(u, dtype=float) / self.u_factor

    def u_to_user(self, up):
        return np.asarray(up, dtype=float) * self.u_factor

    # operators
    def operator_factor(self, name: str) -> float:
        """f_user(u) = factor * f_train(u / u_factor): b/a^2 for D, b/a for V, b for G."""
        a, b = self.x_factor, self.t_factor
        factors = {"D": b / a / a, "V": b / a, "G": b}
        if name not in factors:
            raise ValueError(f"unknown operator {name!r}; choose one of D, V, G")
        return factors[name]

    def operator_to_user(self, name: str, f_train):
        """The user-unit operator u -> factor * f_train(u / u_factor), as a callable."""
        k, c = self.operator_factor(name), self.u_factor

        def f_user(u):
            u = np.asarray(u, dtype=float)
            return k * np.asarray(f_train(u / c), dtype=float)
        f_user.__name__ = f"{name}_user"
        return f_user

    def operator_to_train(self, name: str, f_user):
        """The inverse map: u' -> f_user(u_factor u') / factor."""
        k, c = self.operator_factor(name), self.u_factor

        def f_train(up):
            up = np.asarray(up, dtype=float)
            return np.asarray(f_user(c * up), dtype=float) / k
        f_train.__name__ = f"{name}_train"
        return f_train

    def to_dict(self) -> dict:
        return {k: float(getattr(self, k)) for k in ("x_min", "x_factor", "t_min", "t_factor",
                                                     "u_factor", "x0_train")}


# ----------------------------------------------------------------------------- validation helpers
def validate_mechanisms(mechanisms) -> tuple:
    """A non-empty subset of D, V, G (a string like "DV" or a sequence), in D, V, G order."""
    if isinstance(mechanisms, str):
        items = mechanisms.replace(",", " ").split()
        if len(items) == 1 and items[0] not in MECHANISMS:
            if not set(items[0]) <= set(MECHANISMS):
                raise ValueError(f"unknown mechanism(s) {mechanisms!r}: choose a non-empty subset of "
                                 "D (diffusion), V (advection), G (reaction), e.g. 'DV'")
            items = list(items[0])
    else:
        try:
            items = list(mechanisms)
        except TypeError:
            raise ValueError(f"mechanisms must be a non-empty subset of D, V, G, got {mechanisms!r}") from None
    if not items:
        raise ValueError("mechanisms is empty: choose a non-empty subset of D (diffusion), "
                         "V (advection), G (reaction)")
    for m in items:
        if m not in MECHANISMS:
            raise ValueError(f"unknown mechanism {m!r}: choose a non-empty subset of D (diffusion), "
                             "V (advection), G (reaction)")
    return tuple(m for m in ("D", "V", "G") if m in items)


def to_float(value, where: str, column: str) -> float:
    if isinstance(value, str):
        s = value.strip()
        if s == "":
            raise ValueError(f"{where}: column {column!r} is empty (missing value)")
        try:
            v = float(s)
        except ValueError:
            raise ValueError(f"{where}: column {column!r} has a non-numeric value {value!r}") from None
    else:
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: column {column!r} has a non-numeric value {value!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{where}: column {column!r} is {value!r} (NaN/inf); remove or fill this row")
    return v


def _cluster(values: np.ndarray):
    """Grid nodes of ``values`` and each value's node.  Judged on the offsets from the smallest
    value (Unix-second times 1 s apart, or positions 1e9 + 0..20, are distinct): values closer
    than ``_GRID_RTOL`` of the offsets' span, or than a few rounding units of the values'
    magnitude, are the same node."""
    lo = float(np.min(values))
    offsets = values - lo
    order = np.unique(offsets)
    span = float(order[-1])
    tol = max(_GRID_RTOL * span, 8 * np.finfo(float).eps * float(np.max(np.abs(values))), 1e-300)
    keep = np.concatenate([[True], np.diff(order) > tol])
    nodes = order[keep]
    idx = np.searchsorted(nodes, offsets + tol, side="right") - 1
    return lo + nodes, np.clip(idx, 0, nodes.size - 1)


def _decimals(values: np.ndarray, most: int = 12) -> int | None:
    """The fewest decimals (0..``most``) to which every value is written (None: more)."""
    for d in range(most + 1):
        scaled = values * 10.0 ** d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled)) + 1e-9):
            return d
    return None


SNAP_SHARE = 0.01
"""A grid written to few decimals is snapped to the uniform grid only when no node moves by
more than half a unit of the last written digit and by more than this share of the spacing."""


def uniform_grid(nodes: np.ndarray, source: str, column: str):
    """(the equally spaced nodes, a note or None): ``nodes`` themselves if equally spaced (to
    ``UNIFORM_RTOL`` of the spacing), or the uniform grid they are rounded from (snapped, and
    the note says so); a ValueError naming the worst spacing otherwise."""
    h = (nodes[-1] - nodes[0]) / (nodes.size - 1)
    exact = nodes[0] + h * np.arange(nodes.size)
    exact[-1] = nodes[-1]
    shift = float(np.max(np.abs(nodes - exact)))
    if shift <= UNIFORM_RTOL * h:
        return nodes, None
    d = _decimals(nodes - nodes[0])
    if d is not None and shift <= 0.5 * 10.0 ** -d * (1 + 1e-6) and shift <= SNAP_SHARE * h:
        return exact, (f"{column} is written to {d} decimal(s); its {nodes.size} values were snapped to the "
                       f"uniform grid of spacing {h:.6g} (largest shift {shift:.2g})")
    dx = np.diff(nodes)
    j = int(np.argmax(np.abs(dx - h)))
    raise ValueError(f"{source}: positions {column!r} must be equally spaced (the forward solve uses a uniform "
                     f"grid), but spacings range from {dx.min():g} to {dx.max():g} ({dx[0]:g} from {nodes[0]:g} to "
                     f"{nodes[1]:g}, {dx[j]:g} from {nodes[j]:g} to {nodes[j + 1]:g}); interpolate onto a uniform "
                     f"grid (rounding to the printed digits is accepted: these differ by more)")


@dataclass
class UserObservations:
    """Validated observations on a full (t, x) grid per replicate, in user units."""

    x: np.ndarray                 # (n_x,) equally spaced positions
    t: np.ndarray                 # (n_t,) increasing times
    u: np.ndarray                 # (n_rep, n_t, n_x)
    replicates: list              # replicate labels
    columns: dict = field(default_factory=dict)
    source: str = "arrays"
    notes: list = field(default_factory=list)   # what reading did to the data (snapping, units, dropped values)

    @property
    def n_replicates(self) -> int:
        return self.u.shape[0]

    @property
    def n_points(self) -> int:
        return int(self.u.size)

    @property
    def u_mean(self) -> np.ndarray:
        """(n_t, n_x) replicate mean (what ``replicates="mean"`` trains on)."""
        return self.u.mean(axis=0)

    @property
    def noise_sd(self) -> float | None:
        """Pooled within-replicate standard deviation (None with a single replicate)."""
        if self.n_replicates < 2:
            return None
        return float(np.sqrt(np.mean(self.u.var(axis=0, ddof=1))))

    @property
    def u_range(self) -> tuple[float, float]:
        return float(self.u.min()), float(self.u.max())

    def scaling(self, x_range=TRAIN_X_RANGE, t_end=TRAIN_T_END, u_scale=None) -> Scaling:
        return Scaling.fit(self.x, self.t, self.u, x_range=x_range, t_end=t_end, u_scale=u_scale)

    def describe(self) -> str:
        s = (f"{self.source}: {self.x.size} positions x {self.t.size} times x {self.n_replicates} "
             f"replicate(s) = {self.n_points} observations; x in [{self.x[0]:g}, {self.x[-1]:g}], "
             f"t in [{self.t[0]:g}, {self.t[-1]:g}], u in [{self.u_range[0]:g}, {self.u_range[1]:g}]")
        if self.noise_sd is not None:
            s += f"; between-replicate noise sd ~ {self.noise_sd:.3g}"
        return "".join([s, *(f"\n  note: {n}" for n in self.notes)])

    def n_train_points(self, replicates: str = "mean") -> int:
        _check_replicates_mode(replicates)
        return len(split_indices(self.x.size * self.t.size, 0)[0])

    def check_batch_size(self, batch_size: int, replicates: str = "mean", clip: bool = False):
        """Raise a ValueError if one mini-batch needs more points than the training split holds."""
        n_grid = self.x.size * self.t.size
        n_train = self.n_train_points(replicates)
        if batch_size > n_train and not clip:
            how = (f" (the mean of {self.n_replicates} replicates)" if
                   (replicates == "mean" and self.n_replicates > 1) else "")
            raise ValueError(
                f"too few observations for one mini-batch: training uses 80% of the "
                f"{self.t.size} x {self.x.size} = {n_grid} grid points{how}, i.e. {n_train} points, "
                f"but the batch size is {batch_size}; provide more data or use a batch size <= "
                f"{n_train}: --batch-size {n_train} (Python: TrainConfig(batch_size={n_train}) or "
                "clip_batch_to_data=True)")

    def to_observations(self, scaling: Scaling | None = None, replicates: str = "mean",
                        name: str = "user data", split_seed: int = 0) -> list[Observations]:
        """Training-domain ``Observations``: one (the mean) or one per replicate."""
        _check_replicates_mode(replicates)
        sc = scaling or self.scaling()
        x, t = sc.x_to_train(self.x), sc.t_to_train(self.t)
        # the exact domain the collocation points are drawn from
        xr = (float(sc.x_to_train(self.x[0])), float(sc.x_to_train(self.x[-1])))
        tr = (float(t[0]), float(t[-1]))
        if replicates == "mean":
            return [Observations(name=name, x=x, t=t, u_obs=sc.u_to_train(self.u_mean), x_range=xr,
                                 t_range=tr, split_seed=split_seed)]
        return [Observations(name=f"{name} [{lab}]", x=x, t=t, u_obs=sc.u_to_train(self.u[k]), x_range=xr,
                             t_range=tr, dataset=k, split_seed=split_seed + k)
                for k, lab in enumerate(self.replicates)]


def _check_replicates_mode(replicates):
    if replicates not in ("mean", "separate"):
        raise ValueError(f"replicates must be 'mean' or 'separate', got {replicates!r}")


def _build(xs, ts, us, reps, where, source, columns, notes=None) -> UserObservations:
    """Shared validation of long-format rows (already finite floats).

    ``where(i)`` names input row ``i`` in messages.
    """
    xs, ts, us = (np.asarray(v, dtype=float) for v in (xs, ts, us))
    n = xs.size
    if n == 0:
        raise ValueError(f"{source}: no observations (no data rows)")
    with np.errstate(over="ignore"):
        for name, v in (("x", xs), ("t", ts)):
            if not np.isfinite(v.max() - v.min()):
                raise ValueError(f"{source}: {columns.get(name, name)!r} spans more than the largest "
                                 "floating-point number: express it in other units")
    labels = list(dict.fromkeys(reps))
    rep_idx = np.array([labels.index(r) for r in reps]) if len(labels) > 1 else np.zeros(n, int)
    # sort by replicate, time, position (unsorted input is fine)
    order = np.lexsort((xs, ts, rep_idx))
    xs, ts, us, rep_idx = xs[order], ts[order], us[order], rep_idx[order]
    xn, ix = _cluster(xs)
    tn, it = _cluster(ts)
    # duplicates within a replicate
    key = (rep_idx * tn.size + it) * xn.size + ix
    dup = np.nonzero(np.diff(key) == 0)[0]
    if dup.size:
        i = int(dup[0])
        rep = f" in replicate {labels[rep_idx[i]]!r}" if len(labels) > 1 else ""
        first, second = sorted((int(order[i]), int(order[i + 1])))
        raise ValueError(f"{source}: {where(first)} and {where(second)} are both at x={xs[i]:g}, t={ts[i]:g}{rep} "
                         f"({dup.size} duplicated (x, t) point(s) in all); average or remove duplicates "
                         "(use a replicate column for repeated experiments)")
    if xn.size < 3:
        raise ValueError(f"{source}: only {xn.size} distinct position(s) x; the forward solve needs "
                         "at least 3 equally spaced positions")
    if tn.size < 2:
        raise ValueError(f"{source}: only {tn.size} distinct time(s) t; need at least 2 (an initial "
                         "condition and a later time)")
    full = len(labels) * tn.size * xn.size
    if n != full:
        have = np.zeros((len(labels), tn.size, xn.size), bool)
        have[rep_idx, it, ix] = True
        miss = np.argwhere(~have)
        what = "(replicate, t, x)" if len(labels) > 1 else "(t, x)"
        examples = ", ".join(
            (f"replicate {labels[r]!r} " if len(labels) > 1 else "") + f"(x={xn[j]:g}, t={tn[k]:g})"
            for r, k, j in miss[:3])
        raise ValueError(
            f"{source}: the observations do not form a full (t, x) grid: {len(miss)} of {full} "
            f"{what} combinations are missing, e.g. {examples}. The forward-predicted "
            "solution u_p is computed on a grid, so every replicate must observe every position "
            "at every time: drop incomplete times/positions or interpolate onto a grid first")
    xn, note = uniform_grid(xn, source, columns.get("x", "x"))
    notes = list(notes or []) + ([note] if note else [])
    u = np.empty((len(labels), tn.size, xn.size))
    u[rep_idx, it, ix] = us
    _check_meaning(u, xn, tn, source, columns.get("u", "u"))
    return UserObservations(x=xn, t=tn, u=u, replicates=[str(lab) for lab in labels], columns=columns,
                            source=source, notes=notes)


class DataWarning(UserWarning):
    """Observations that can be fitted but whose fit may not mean what it seems to."""


NEGATIVE_SHARE_MAX = 0.5
"""More than half of the observations negative: not a density (an error)."""

NEGATIVE_TOLERANCE = 0.05
"""Negative values below -5% of the maximum are more than noise around zero (a warning)."""

OUTLIER_QUANTILE, OUTLIER_SHARE = 0.99, 0.01
"""u is rescaled by its largest magnitude: when 99% of the values lie below 1% of it, one
outlier sets the scale and the data are ~0 in training units (a warning)."""


def _check_meaning(u, x, t, source, ucol):
    """Errors for observations that cannot be a density to fit; warnings (``DataWarning``)
    for ones whose fit would be hard to interpret.  ``u`` is (n_rep, n_t, n_x)."""
    top = float(np.max(np.abs(u)))
    if not np.max(u) > 0:
        raise ValueError(f"{source}: column {ucol!r} has no positive value; u is a "
                         "density (the solution network is non-negative)")
    if np.ptp(u) <= 1e-12 * top:
        raise ValueError(f"{source}: column {ucol!r} is constant (every value is {u.flat[0]:g}): there is "
                         "nothing to learn from it (no gradients in x, no change in t)")
    neg = float(np.mean(u < 0))
    if neg > NEGATIVE_SHARE_MAX:
        raise ValueError(f"{source}: column {ucol!r} is negative at {100 * neg:.0f}% of the observations; u "
                         "must be a density (>= 0, the solution network is non-negative): undo any offset "
                         "or log transform first")

    def warn(msg):
        warnings.warn(f"{source}: {msg}", DataWarning, stacklevel=5)

    lo = float(np.min(u))
    if lo < -NEGATIVE_TOLERANCE * top:
        r, k, j = np.unravel_index(int(np.argmin(u)), u.shape)
        warn(f"column {ucol!r} goes down to {lo:g} ({100 * lo / top:.0f}% of its largest value; at x={x[j]:g}, "
             f"t={t[k]:g}) and is negative at {100 * neg:.0f}% of the observations: the solution network is "
             "non-negative and cannot follow them; is u a density without offset?")
    if np.quantile(np.abs(u), OUTLIER_QUANTILE, method="lower") < OUTLIER_SHARE * top:
        r, k, j = np.unravel_index(int(np.argmax(np.abs(u))), u.shape)
        warn(f"column {ucol!r} is rescaled by its largest value {top:g} (at x={x[j]:g}, t={t[k]:g}), but 99% of "
             f"the values are below 1% of it: an outlier? The data are ~0 in training units")
    if np.max(np.abs(u[:, 1:] - u[:, :1])) <= 1e-12 * top:
        warn(f"column {ucol!r} does not change in time: the operators cannot be identified from it")
    if u.shape[0] > 1 and np.max(np.abs(u - u[:1])) <= 1e-12 * top:
        warn(f"the {u.shape[0]} replicates are identical (copies?): they carry the information of one, "
             "and the between-replicate noise estimate is 0")


# ----------------------------------------------------------------------------- loaders
ENCODINGS = ("utf-8-sig", "utf-16")
"""Encodings tried, in order, when none is given: UTF-8 (with or without byte-order mark), then
UTF-16 for a file that starts with its byte-order mark."""


def decode_csv_bytes(data: bytes, encoding: str | None, source: str) -> tuple[str, str]:
    """(text, the encoding used) of a CSV file's bytes; ``encoding`` None: UTF-8, or UTF-16
    when the file starts with its byte-order mark.  A ValueError naming the file, line and
    byte, and the option that reads it, otherwise."""
    if encoding is None:
        encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        if data[:2000].count(b"\x00") > len(data[:2000]) // 4:
            fix = "utf-16"  # every other byte zero: UTF-16 without byte-order mark
        else:
            fix = "latin-1' or 'cp1252"
        raise ValueError(f"{source}: not readable as {encoding} text (byte 0x{data[err.start]:02x} on line {line}); "
                         f"give the file's encoding: --encoding '{fix}' (Python: encoding='{fix}')") from None
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}: e.g. --encoding utf-8, latin-1, cp1252 or utf-16") from None


#: Field separators recognised in a header that does not split at the requested one.
OTHER_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def _delimiter_arg(d: str) -> str:
    return "$'\\t'" if d == "\t" else repr(d)


def delimiter_hint(line: str, delimiter: str, wanted) -> str:
    """' (the file is ...-separated: --delimiter ...)' when the header splits into the wanted
    columns at another separator, else ''."""
    for d, name in OTHER_DELIMITERS.items():
        if d != delimiter and set(wanted) <= {c.strip() for c in line.split(d)}:
            return (f"; the header splits into them at {name}s ({line.strip()!r}): the file is "
                    f"{name}-separated, read it with --delimiter {_delimiter_arg(d)} (Python: delimiter={d!r})")
    return ""


def detect_delimiter(text: str, wanted) -> str:
    """The separator (of ``OTHER_DELIMITERS``) at which the first header-like line splits into
    the ``wanted`` columns; "," if none does (the error then says what the header holds)."""
    line = next((ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    for d in OTHER_DELIMITERS:
        if set(wanted) <= {c.strip() for c in line.split(d)}:
            return d
    return ","


def load_observations_csv(path_or_buffer, x: str = "x", t: str = "t", u: str = "u",
                          replicate: str | None = None, *, delimiter: str | None = ",",
                          encoding: str | None = "utf-8-sig") -> UserObservations:
    """Read long-format observations (one row per measurement) from a CSV file or text buffer.

    ``x``, ``t``, ``u`` and ``replicate`` name the columns (header on the first line;
    other columns are ignored; a wanted name twice in the header is an error).  Lines that
    are empty or start with ``#`` are skipped.  ``delimiter`` separates the fields (e.g. ";"
    or "\\t"; None: detected from the header, and the result's notes say which);
    ``encoding`` decodes a file or a bytes buffer (default UTF-8, with or without
    byte-order mark; None: UTF-8, or UTF-16 for a file with its byte-order mark).
    """
    if hasattr(path_or_buffer, "read"):
        text = path_or_buffer.read()
        source = str(getattr(path_or_buffer, "name", "CSV buffer"))
        if isinstance(text, bytes):
            text, encoding = decode_csv_bytes(text, encoding, source)
    else:
        source = os.fspath(path_or_buffer)
        if Path(source).is_dir():
            raise ValueError(f"{source} is a folder, not a data file: name the CSV file inside it")
        with open(source, "rb") as f:
            text, encoding = decode_csv_bytes(f.read(), encoding, str(source))
    source = str(source)
    wanted = {"x": x, "t": t, "u": u}
    if replicate is not None:
        wanted["replicate"] = replicate
    notes = []
    if delimiter is None:
        delimiter = detect_delimiter(text, wanted.values())
        if delimiter != ",":
            notes.append(f"detected: {OTHER_DELIMITERS[delimiter]}-separated (--delimiter "
                         f"{_delimiter_arg(delimiter)} says so)")
    if encoding not in (None, "utf-8-sig"):
        notes.append(f"read as {encoding} text")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = None
    for row in reader:
        if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#"):
            header = [c.strip() for c in row]
            break
    if header is None:
        raise ValueError(f"{source}: empty file (no header line)")
    missing = [c for c in wanted.values() if c not in header]
    if missing:
        hint = delimiter_hint(delimiter.join(header), delimiter, wanted.values())
        if hint:
            raise ValueError(f"{source}: no column(s) {', '.join(map(repr, missing))} when split at "
                             f"{delimiter!r}{hint}")
        raise ValueError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; the header has "
                         f"{', '.join(map(repr, header))} (name yours with --x, --t, --u, --replicate; "
                         "Python: x=, t=, u=, replicate=)")
    for c in dict.fromkeys(wanted.values()):
        where = [i + 1 for i, h in enumerate(header) if h == c]
        if len(where) > 1:
            raise ValueError(f"{source}: the header names column {c!r} {len(where)} times (fields "
                             f"{', '.join(map(str, where))}): which one holds the data is ambiguous; rename the "
                             "others in the file")
    cols = {k: header.index(c) for k, c in wanted.items()}
    xs, ts, us, reps, where = [], [], [], [], []
    nrow = 0
    for row in reader:
        if not row or not any(c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        nrow += 1
        short = f"row {nrow} (line {reader.line_num})"
        w = f"{source}: {short}"
        vals = {}
        for k, j in cols.items():
            if j >= len(row):
                raise ValueError(f"{w}: column {wanted[k]!r} is missing (the row has {len(row)} "
                                 f"field(s), the header {len(header)})")
            vals[k] = row[j]
        xs.append(to_float(vals["x"], w, x))
        ts.append(to_float(vals["t"], w, t))
        us.append(to_float(vals["u"], w, u))
        if replicate is not None:
            r = vals["replicate"].strip()
            if r == "":
                raise ValueError(f"{w}: column {replicate!r} is empty (missing replicate label)")
            reps.append(r)
        else:
            reps.append("1")
        where.append(short)
    return _build(xs, ts, us, reps, where.__getitem__, source, wanted, notes)


TIME_UNITS = ("D", "h", "m", "s", "ms", "us", "ns")
"""Units a datetime64 / timedelta64 time can be expressed in (numpy's codes: days, hours,
minutes, seconds, milli-, micro-, nanoseconds)."""


def _times(t, time_unit):
    """(numbers, a note or None) of times given as numbers, or as datetime64 / timedelta64
    values (then expressed in ``time_unit`` from the earliest; a ValueError without one)."""
    arr = np.asarray(t)
    if arr.dtype.kind not in "Mm":
        return t, None
    what = "datetime64" if arr.dtype.kind == "M" else "timedelta64"
    if time_unit not in TIME_UNITS:
        raise ValueError(f"t holds {what} values: say the unit to express them in, one of {', '.join(TIME_UNITS)}, "
                         f"e.g. observations_from_arrays(..., time_unit='h'){'' if time_unit is None else f' (got {time_unit!r})'}")
    if np.any(np.isnat(arr)):
        raise ValueError(f"t has {int(np.sum(np.isnat(arr)))} missing (NaT) value(s): remove those points")
    start = arr.min()
    values = (arr - start) / np.timedelta64(1, time_unit)
    origin = f" after {start}" if what == "datetime64" else (f" from {start}" if start != np.timedelta64(0) else "")
    return values, f"t given as {what}: in {time_unit}{origin}"


def _masked(v, name: str, grid: bool):
    """(plain values, positions that were masked or None) of a numpy masked array; a grid with
    masked values is refused with their count (a grid has no holes)."""
    if not np.ma.isMaskedArray(v):
        return v, None
    mask = np.ma.getmaskarray(v)
    n = int(mask.sum())
    if n and grid:
        raise ValueError(f"{name} has {n} masked value(s) of {mask.size} (numpy masked array): masked values are "
                         "missing data and a grid has no holes; fill them (e.g. interpolate) or drop their "
                         "times/positions, or pass long format")
    return np.ma.getdata(v), (mask.ravel() if n else None)


def observations_from_arrays(x, t, u, replicate=None, *, time_unit: str | None = None) -> UserObservations:
    """Observations from arrays.

    Long format: ``x``, ``t``, ``u`` (and ``replicate``) 1-D of equal length, one entry per
    measurement.  Grid format: ``x`` (n_x,), ``t`` (n_t,) and ``u`` (n_t, n_x), or
    (n_rep, n_t, n_x) for replicates (then ``replicate`` may give their n_rep labels).
    Masked values of a numpy masked array are missing: in long format those entries are
    dropped (the notes say how many; the grid must still be full), in grid format they
    are refused with their count.  Times given as datetime64 / timedelta64 are expressed in
    ``time_unit`` (one of :data:`TIME_UNITS`) from the earliest, and the notes say so.
    """
    grid_shaped = np.ndim(u) in (2, 3)
    notes = []
    t, note = _times(t, time_unit)
    if note:
        notes.append(note)
    if grid_shaped:
        for name, v in (("x", x), ("t", t)):
            if np.ndim(v) != 1:
                raise ValueError(f"with grid-shaped u, {name} must be 1-D (the grid's axis), got shape "
                                 f"{np.shape(v)}: pass the axis (e.g. {name}[0, :] or "
                                 f"{name}[:, 0] of a meshgrid), not the meshgrid")
    dropped = None
    for name in ("x", "t", "u"):
        v, m = _masked({"x": x, "t": t, "u": u}[name], name, grid_shaped)
        if name == "x":
            x = v
        elif name == "t":
            t = v
        else:
            u = v
        if m is not None:
            dropped = m if dropped is None else dropped | m
    u_arr = np.asarray(u, dtype=object)
    x_arr = np.asarray(x, dtype=object).ravel()
    t_arr = np.asarray(t, dtype=object).ravel()
    if dropped is not None and u_arr.ndim == 1 and dropped.size == u_arr.size:
        keep = ~dropped
        if replicate is not None:
            replicate = list(np.asarray(replicate, dtype=object).ravel()[keep])
        x_arr, t_arr, u_arr = x_arr[keep], t_arr[keep], u_arr[keep]
        notes.append(f"{int(dropped.sum())} masked entr{'y' if dropped.sum() == 1 else 'ies'} dropped "
                     "(numpy masked array: missing values)")
    if u_arr.ndim in (2, 3):
        u3 = u_arr if u_arr.ndim == 3 else u_arr[None]
        if u3.shape[1:] != (t_arr.size, x_arr.size):
            raise ValueError(f"grid-shaped u must be (n_t, n_x) = {(t_arr.size, x_arr.size)} or "
                             f"(n_rep, n_t, n_x); got {u_arr.shape}")
        labels = list(range(1, u3.shape[0] + 1)) if replicate is None else list(replicate)
        if len(labels) != u3.shape[0]:
            raise ValueError(f"{len(labels)} replicate labels for {u3.shape[0]} replicates")
        R_, T_, X_ = np.meshgrid(np.arange(u3.shape[0]), np.arange(t_arr.size), np.arange(x_arr.size),
                                 indexing="ij")
        xs_o, ts_o, us_o = x_arr[X_.ravel()], t_arr[T_.ravel()], u3.ravel()
        reps = [labels[k] for k in R_.ravel()]
        grid = True
    elif u_arr.ndim == 1:
        if not (x_arr.size == t_arr.size == u_arr.size):
            raise ValueError(f"long-format x, t, u must have the same length; got {x_arr.size}, "
                             f"{t_arr.size}, {u_arr.size}")
        xs_o, ts_o, us_o = x_arr, t_arr, u_arr
        if replicate is None:
            reps = ["1"] * u_arr.size
        else:
            reps = list(np.asarray(replicate, dtype=object).ravel())
            if len(reps) != u_arr.size:
                raise ValueError(f"replicate has {len(reps)} entries for {u_arr.size} observations")
        grid = False
    else:
        raise ValueError(f"u must be 1-D (long format) or (n_t, n_x) / (n_rep, n_t, n_x); got shape {u_arr.shape}")
    if grid:
        n_t, n_x = t_arr.size, x_arr.size

        def where(i):
            r, rem = divmod(int(i), n_t * n_x)
            k, j = divmod(rem, n_x)
            return (f"u[{r}, {k}, {j}]" if u_arr.ndim == 3 else f"u[{k}, {j}]") + \
                f" (t={t_arr[k]}, x={x_arr[j]})"
    else:
        def where(i):
            return f"entry {int(i)}"
    cols = [_column(v, n, where) for v, n in ((xs_o, "x"), (ts_o, "t"), (us_o, "u"))]
    for i, r in enumerate(reps):
        if r is None or (isinstance(r, float) and not np.isfinite(r)) or str(r).strip() == "":
            raise ValueError(f"{where(i)}: replicate label is missing")
    return _build(*cols, [str(r) for r in reps], where, "arrays", {"x": "x", "t": "t", "u": "u"}, notes)


def _column(values, name, where) -> np.ndarray:
    """Float column; the first non-numeric or non-finite entry is named in a ValueError."""
    values = np.asarray(values, dtype=object).ravel()
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        for i, val in enumerate(values):
            to_float(val, where(i), name)
        raise  # pragma: no cover - to_float raised above
    bad = np.nonzero(~np.isfinite(v))[0]
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{where(i)}: column {name!r} is {values[i]!r} (NaN/inf); remove or fill it "
                         f"({bad.size} such entr{'y' if bad.size == 1 else 'ies'} in {name!r})")
    return v


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
                 f"{self.result.n_replicates} networks ({self.replicates_mode} of replicates)",
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
    _check_replicates_mode(replicates)
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
    if replicates == "mean":
        datas, run_seeds = obs[0], seeds
    else:
        datas = [o for o in obs for _ in seeds]
        run_seeds = [s for _ in obs for s in seeds]
    return dict(data=data, mechanisms=mech, config=config, seeds=seeds, scaling=sc, observations=obs,
                datas=datas, run_seeds=run_seeds, which=which, replicates=replicates,
                forward_method=forward_method)


def _finish_fit(prep: dict, result) -> UserFit:
    """Evaluate (u_theta, forward solve u_p) and diagnose a trained result: the UserFit."""

    data, sc, datas, which = prep["data"], prep["scaling"], prep["datas"], prep["which"]
    ev = evaluate(result, datas, which, solve_kw={"method": prep["forward_method"]})
    report = diagnose(result, ev, datas, which=which, label=data.source, u_scale=sc.u_factor)
    return UserFit(data=data, scaling=sc, mechanisms=prep["mechanisms"], replicates_mode=prep["replicates"],
                   observations=prep["observations"], result=result, evaluation=ev, report=report,
                   which=which, forward_method=prep["forward_method"])


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
    todo = [i for i, (a, b) in enumerate(files) if records.check_pair(a, b, kind=records.FIT_KIND) is None]

    def part_spec(i):
        return {**spec, "part": [i + 1, len(chunks)], "networks": [chunks[i].start, chunks[i].stop]}

    def job(i):
        sl = chunks[i]
        return (datas[sl], prep["config"], seeds[sl]), {"mechanisms": prep["mechanisms"]}

    bar = tqdm(total=len(chunks), initial=len(chunks) - len(todo), desc="training (parts)", unit="part",
               disable=not progress)
    failed = []
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
                    records.save_train_result(fut.result(), *files[i], part_spec(i))
                except Exception as exc:  # noqa: BLE001 - one failed part must not lose the others
                    failed.append((i, exc))
                bar.update(1)
        else:
            for i in todo:
                args, kw = job(i)
                try:
                    records.save_train_result(train(*args, progress=progress and f"part {i + 1}/{len(chunks)}", **kw),
                                            *files[i], part_spec(i))
                except Exception as exc:  # noqa: BLE001
                    failed.append((i, exc))
                bar.update(1)
    finally:
        bar.close()
        if client is not None:
            client.close()
        if owned is not None:
            owned.close()
    if failed:
        what = "; ".join(f"part {i + 1}: {type(e).__name__}: {e}" for i, e in failed)
        raise RuntimeError(f"{len(failed)} of {len(chunks)} training parts failed ({what}); the "
                           f"{len(chunks) - len(failed)} others are stored: rerun to retry the failed ones")
    trained = sum(chunks[i].stop - chunks[i].start for i in todo)
    return concat_results([records.load_train_result(*f) for f in files]), files, trained


def fit_user_data_cached(obs_or_path, mechanisms, config=None, seeds: Sequence[int] = range(5), *,
                         cache_dir, prefix: str = "fit", extra: dict | None = None,
                         require_stored: bool | None = None, which: str = REPORTED, replicates: str = "mean",
                         x_range=TRAIN_X_RANGE, t_end: float = TRAIN_T_END, u_scale: float | None = None,
                         progress=False, x: str = "x", t: str = "t", u: str = "u",
                         replicate: str | None = None, forward_method: str = "RK45",
                         workers: int | None = None, scheduler: str | None = None, prepared: dict | None = None) -> UserFit:
    """:func:`fit_user_data`, with the trained networks stored in ``cache_dir``: a folder, or
    folders read in order whose last is where a missing fit is trained (e.g. the committed
    store, then the working store: ``records.folders_for``).

    The files are the store's pair ``<folder>/<key>.npz`` and ``.json``, named
    ``records.key_of(prefix, spec)`` (:attr:`UserFit.cache_key`), where the spec is
    :func:`fit_spec`: the observations (their SHA-1), mechanisms, training configuration,
    seeds, replicate handling, rescaling targets and ``extra``.  If they
    exist and are sound the networks are loaded instead of trained (a damaged pair, see
    ``records.read_pair``, is retrained, with a ``records.StoreWarning`` naming the file);
    u_theta, the forward solve u_p (integrator ``forward_method``, which therefore is not
    part of the key) and the diagnostics are always recomputed from the stored networks
    (seconds), so a fresh fit and a loaded one give identical numbers.
    ``require_stored`` (default: ``records.require_stored()``, the environment variable
    ``BINN_REQUIRE_STORED`` is "1") turns a missing or damaged cache into a RuntimeError
    instead of a training run (``records.check_may_train``).

    ``workers`` > 1 or a Dask ``scheduler`` ("tcp://HOST:PORT") trains the networks in
    parts, one per worker, as Dask tasks (a LocalCluster of ``workers`` processes, or the
    scheduler's workers); each part is stored as it finishes, so an interrupted fit
    resumes, and the combined networks are stored under the same key as a one-part fit
    (float32 networks trained in other groupings agree statistically, not bit for bit;
    the stored record says how many parts).  ``prepared``: the output of the validation
    step, when the caller has already run it (``binn fit`` does, to report before training).
    """

    prep = prepared or _prepare_fit(obs_or_path, mechanisms, config, seeds, which, replicates, x_range, t_end,
                                    u_scale, x, t, u, replicate, forward_method)
    spec = fit_spec_of(prep, x_range, t_end, u_scale, extra)
    key = records.key_of(prefix, spec)
    folders = [cache_dir] if isinstance(cache_dir, (str, Path)) else list(cache_dir)
    # the first folder holding a sound pair (a damaged one: a StoreWarning names the file), else the last
    found = next((p for p in (records.pair_paths(f, key) for f in folders)
                  if records.check_pair(*p, kind=records.FIT_KIND) is not None), None)
    npz, js = found or records.pair_paths(folders[-1], key)
    trained = 0
    if found is None:
        records.check_may_train([key], Path(folders[0]), "fit is",
                              f"run it first (e.g. with the same parameters outside the book build) and "
                              f"commit {npz.name} and {js.name}", require=require_stored)
        records.check_writable(npz.parent)
        if (workers or 1) > 1 or scheduler:
            result, parts, trained = _train_parts(prep, npz, spec, key, progress, workers, scheduler)
            records.save_train_result(result, npz, js, spec)
            for files in parts:
                for f in files:
                    f.unlink(missing_ok=True)
        else:
            result = train(prep["datas"], prep["config"], prep["run_seeds"], mechanisms=prep["mechanisms"],
                           progress=progress)
            records.save_train_result(result, npz, js, spec)
            trained = len(prep["run_seeds"])
    # always continue from the stored copy: a fresh and a reloaded fit are the same fit
    fit = _finish_fit(prep, records.load_train_result(npz, js))
    fit.cache_key = key
    fit.cache_files = (npz, js)
    fit.trained = trained
    return fit


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
