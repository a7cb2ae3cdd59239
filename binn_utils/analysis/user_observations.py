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
times 1 s apart, or positions 1e9 + 0..20, are distinct values).  Equally spaced means what the
forward solve takes (``solvers.UNIFORM_RTOL``: one definition for the check and the solver).
Positions written to a few decimals (a uniform grid rounded when printed) are snapped to the
uniform grid when no node moves by more than half a unit of the last digit (and by more than
``SNAP_SHARE`` of the spacing), and so are positions within ``ROUNDING_RTOL`` of the spacing or
two units of single precision of one (values written in float32); the notes say so;
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
solving the same problem in both unit systems (:mod:`~binn_utils.analysis.user_units`).

Modules: ``user_csv`` reads a CSV file, ``user_arrays`` arrays, ``user_units`` holds the
rescaling; this module checks what they read and holds the result, :class:`UserObservations`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..engine.observations import Observations, split_indices
from ..engine.solvers import UNIFORM_RTOL, grid_nonuniformity
from .user_arrays import TIME_UNITS, read_arrays
# what reading a CSV file and the units share with the own-data report, importable from here too
from .user_csv import csv_cells, decode_csv_bytes, delimiter_hint, detect_delimiter, read_long_csv, to_float
from .user_units import MECHANISMS, TRAIN_T_END, TRAIN_X_RANGE, Scaling, validate_mechanisms

__all__ = ["TRAIN_X_RANGE", "TRAIN_T_END", "MECHANISMS", "DataWarning", "Scaling", "UserObservations",
           "load_observations_csv", "observations_from_arrays", "validate_mechanisms", "TIME_UNITS",
           "csv_cells", "decode_csv_bytes", "delimiter_hint", "detect_delimiter", "to_float", "uniform_grid"]

_GRID_RTOL = 1e-9    # values closer than this (relative to the span) are the same grid node


# ----------------------------------------------------------------------------- the grid
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


def _decimals(values: np.ndarray, most: int = 12) -> np.ndarray | None:
    """The fewest decimals (0..``most``) to which each value is written (None: one has more):
    a grid printed to six significant digits (33.3333, 533.333) has 4 and 3."""
    d = np.full(np.shape(values), -1)
    for k in range(most + 1):
        scaled = values * 10.0 ** k
        d[(d < 0) & (np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, np.abs(scaled)))] = k
    return None if np.any(d < 0) else d


def _in_rounding(nodes, exact, d) -> bool:
    """Whether every node is within half a unit of its last written digit (``d``) of ``exact``."""
    return d is not None and bool(np.all(np.abs(nodes - exact) <= 0.5 * 10.0 ** -d * (1 + 1e-6)))


SNAP_SHARE = 0.01
"""A grid written to few decimals is snapped to the uniform grid only when no node moves by
more than half a unit of the last written digit and by more than this share of the spacing."""


ROUNDING_RTOL = 1e-6
"""Positions that differ from a uniform grid by at most this share of its spacing, or by at most
two units of single precision at their largest magnitude (positions written in float32), differ
from it by rounding alone: they are snapped to it, and the note says so."""


def uniform_grid(nodes: np.ndarray, source: str, column: str):
    """(the equally spaced nodes, a note or None): ``nodes`` themselves if the forward solve takes
    them as they are (``solvers.grid_nonuniformity`` at most ``solvers.UNIFORM_RTOL``, the one
    definition of a uniform grid), or the uniform grid they are rounded from (snapped, and the
    note says so); a ValueError naming the decimals or the worst spacing otherwise."""
    if grid_nonuniformity(nodes) <= UNIFORM_RTOL:
        return nodes, None
    h = (nodes[-1] - nodes[0]) / (nodes.size - 1)
    exact = nodes[0] + h * np.arange(nodes.size)
    exact[-1] = nodes[-1]
    shift = float(np.max(np.abs(nodes - exact)))
    need = f"the forward solve needs spacings equal to {UNIFORM_RTOL:g} of the spacing"
    d = _decimals(nodes)
    if d is not None and not (_in_rounding(nodes, exact, d) and shift <= SNAP_SHARE * h):
        # the last position is rounded too: the spacing of the grid they were rounded from, fitted
        # to them all (least squares, from the first position)
        k = np.arange(nodes.size)
        h_fit = float(np.sum(k * (nodes - nodes[0])) / np.sum(k * k))
        fitted = nodes[0] + h_fit * k
        if float(np.max(np.abs(nodes - fitted))) < shift:
            exact, h, shift = fitted, float(h_fit), float(np.max(np.abs(nodes - fitted)))
    if _in_rounding(nodes, exact, d) and shift <= SNAP_SHARE * h:
        note = (f"{column} is written to {_decimals_said(d)}; its {nodes.size} values were snapped to the uniform "
                f"grid of spacing {h:.6g} (largest shift {shift:.2g}; {need})")
    elif shift <= max(ROUNDING_RTOL * h, 2 * float(np.spacing(np.float32(np.max(np.abs(nodes)))))):
        note = (f"{column}'s {nodes.size} values differ from the uniform grid of spacing {h:.6g} by up to "
                f"{shift:.2g} ({shift / h:.2g} of the spacing: rounding, e.g. values written in single precision); "
                f"snapped to it ({need})")
    else:
        _refuse_grid(nodes, h, exact, shift, d, source, column)
    if grid_nonuniformity(exact) > UNIFORM_RTOL:
        raise ValueError(f"{source}: positions {column!r} lie near {nodes[0]:g} with spacing {h:g}: double "
                         f"precision cannot hold them equally spaced ({need}); subtract an offset, e.g. "
                         f"{column} - {nodes[0]:g}")
    return exact, note


def _decimals_said(d) -> str:
    """"3 decimal(s)" (most values have the most: 1.0 among 0.3, 0.7 is one written to 1), or
    "3 to 4 decimals" (a grid printed to significant digits: 33.3333, 533.333)."""
    low = d[d > 0].min() if np.any(d > 0) else 0        # 500 among 533.333 is not written to 0 decimals
    return f"{d.max()} decimal(s)" if np.mean(d == d.max()) >= 0.5 else f"{low} to {d.max()} decimals"


def _refuse_grid(nodes, h, exact, shift, d, source, column):
    """The ValueError of positions that are not a uniform grid, rounded or not (:func:`uniform_grid`)."""
    # rounded from a uniform grid, but too coarsely to snap (a few nodes fit any grid: at least six)
    if (nodes.size >= 6 and _in_rounding(nodes, exact, d)
            and np.allclose(np.round(exact * 10.0 ** d) / 10.0 ** d, nodes, rtol=0, atol=0.01 * 10.0 ** -d.max())):
        raise ValueError(f"{source}: positions {column!r} are written to {_decimals_said(d)}, too few for their spacing "
                         f"{h:.6g}: snapping them to a uniform grid would move a node by {shift:.2g}, more than "
                         f"{100 * SNAP_SHARE:g} % of the spacing; write them with more decimals")
    dx = np.diff(nodes)
    j = int(np.argmax(np.abs(dx - h)))
    raise ValueError(f"{source}: positions {column!r} must be equally spaced (the forward solve uses a uniform "
                     f"grid), but spacings range from {dx.min():.10g} to {dx.max():.10g} ({dx[0]:.10g} from "
                     f"{nodes[0]:.10g} to {nodes[1]:.10g}, {dx[j]:.10g} from {nodes[j]:.10g} to {nodes[j + 1]:.10g}); "
                     f"interpolate onto a uniform grid (a grid rounded when printed is snapped when each node lies "
                     f"within half a unit of its last digit and {100 * SNAP_SHARE:g} % of the spacing of it, or within "
                     f"{ROUNDING_RTOL:g} of the spacing: these differ by more)")


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
    origin: dict = field(default_factory=dict)  # where a shipped file's data came from (file, its SHA-1 as read)

    @property
    def n_replicates(self) -> int:
        return self.u.shape[0]

    @property
    def n_points(self) -> int:
        return int(self.u.size)

    @property
    def u_mean(self) -> np.ndarray:
        """(n_t, n_x) replicate mean (what ``replicates="mean"`` trains on); where the sum of
        densities of order 1e308 overflows, computed on u over its largest magnitude."""
        with np.errstate(over="ignore"):
            mean = self.u.mean(axis=0)
        return mean if np.all(np.isfinite(mean)) else self._u_top * (self.u / self._u_top).mean(axis=0)

    @property
    def _u_top(self) -> float:
        """The largest magnitude of u (1 where u is all zero): the scale sums and squares are taken on."""
        top = float(np.max(np.abs(self.u)))
        return top if top > 0 else 1.0

    @property
    def noise_sd(self) -> float | None:
        """Pooled within-replicate standard deviation (None with a single replicate), computed on
        u over its largest magnitude: finite and nonzero for densities of order 1e300 or 1e-300
        (squares of those overflow or vanish)."""
        if self.n_replicates < 2:
            return None
        with np.errstate(over="ignore", under="ignore"):
            sd = float(np.sqrt(np.mean(self.u.var(axis=0, ddof=1))))
        if np.isfinite(sd) and sd > 0:
            return sd
        c = self._u_top
        return c * float(np.sqrt(np.mean((self.u / c).var(axis=0, ddof=1))))

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


# ----------------------------------------------------------------------------- readers
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
    wanted = {"x": x, "t": t, "u": u}
    if replicate is not None:
        wanted["replicate"] = replicate
    xs, ts, us, reps, where, source, notes = read_long_csv(path_or_buffer, wanted, delimiter, encoding)
    return _build(xs, ts, us, reps, where.__getitem__, source, wanted, notes)


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
    cols, reps, where, notes = read_arrays(x, t, u, replicate, time_unit)
    return _build(*cols, reps, where, "arrays", {"x": "x", "t": "t", "u": "u"}, notes)
