"""Your own observations, read and checked: the input of :mod:`binn_utils.analysis.user_data`.

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

*Reading.*  Uniqueness and spacing are judged on the offsets from the smallest value (Unix-second
times 1 s apart, or positions 1e9 + 0..20, are distinct values).  Positions written to a few
decimals (a uniform grid rounded when printed) are snapped to the uniform grid when no node moves
by more than half a unit of the last digit (and by more than ``SNAP_SHARE`` of the spacing);
masked values of a numpy masked array are missing data (dropped in long format, refused in a
grid); datetime64 / timedelta64 times are expressed in a unit the caller names.  What reading
did is kept in :attr:`UserObservations.notes` and printed with the data's description.

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
import io
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.observations import Observations, split_indices

__all__ = ["TRAIN_X_RANGE", "TRAIN_T_END", "MECHANISMS", "DataWarning", "Scaling", "UserObservations",
           "load_observations_csv", "observations_from_arrays", "validate_mechanisms", "TIME_UNITS"]

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
        check_replicates_mode(replicates)
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
        check_replicates_mode(replicates)
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


def check_replicates_mode(replicates):
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
