"""Reading your own observations from arrays, long format or grid-shaped: masked values,
datetime64 / timedelta64 times, and every entry checked, each problem a one-line
``ValueError`` naming the entry.  ``user_observations.observations_from_arrays`` checks what
is read."""
from __future__ import annotations

import numpy as np

from .user_csv import to_float


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


def _unmask(x, t, u, grid_shaped: bool):
    """(x, t, u as plain values, the long-format entries that were masked or None)."""
    dropped = None
    values = {}
    for name, v in (("x", x), ("t", t), ("u", u)):
        values[name], m = _masked(v, name, grid_shaped)
        if m is not None:
            dropped = m if dropped is None else dropped | m
    return values["x"], values["t"], values["u"], dropped


def _grid_rows(x_arr, t_arr, u_arr, replicate):
    """Long-format (x, t, u, replicate labels) of grid-shaped u, and the name of entry i."""
    u3 = u_arr if u_arr.ndim == 3 else u_arr[None]
    if u3.shape[1:] != (t_arr.size, x_arr.size):
        raise ValueError(f"grid-shaped u must be (n_t, n_x) = {(t_arr.size, x_arr.size)} or "
                         f"(n_rep, n_t, n_x); got {u_arr.shape}")
    labels = list(range(1, u3.shape[0] + 1)) if replicate is None else list(replicate)
    if len(labels) != u3.shape[0]:
        raise ValueError(f"{len(labels)} replicate labels for {u3.shape[0]} replicates")
    R_, T_, X_ = np.meshgrid(np.arange(u3.shape[0]), np.arange(t_arr.size), np.arange(x_arr.size), indexing="ij")
    n_t, n_x = t_arr.size, x_arr.size

    def where(i):
        r, rem = divmod(int(i), n_t * n_x)
        k, j = divmod(rem, n_x)
        return (f"u[{r}, {k}, {j}]" if u_arr.ndim == 3 else f"u[{k}, {j}]") + f" (t={t_arr[k]}, x={x_arr[j]})"
    return (x_arr[X_.ravel()], t_arr[T_.ravel()], u3.ravel(), [labels[k] for k in R_.ravel()]), where


def _long_rows(x_arr, t_arr, u_arr, replicate):
    """(x, t, u, replicate labels) of long-format arrays of equal length, and the name of entry i."""
    if not (x_arr.size == t_arr.size == u_arr.size):
        raise ValueError(f"long-format x, t, u must have the same length; got {x_arr.size}, "
                         f"{t_arr.size}, {u_arr.size}")
    if replicate is None:
        reps = ["1"] * u_arr.size
    else:
        reps = list(np.asarray(replicate, dtype=object).ravel())
        if len(reps) != u_arr.size:
            raise ValueError(f"replicate has {len(reps)} entries for {u_arr.size} observations")

    def where(i):
        return f"entry {int(i)}"
    return (x_arr, t_arr, u_arr, reps), where


def read_arrays(x, t, u, replicate=None, time_unit: str | None = None):
    """(x, t, u as checked float columns, replicate labels, the name of entry i, notes) of
    observations given as arrays (``user_observations.observations_from_arrays``)."""
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
    x, t, u, dropped = _unmask(x, t, u, grid_shaped)
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
        (xs, ts, us, reps), where = _grid_rows(x_arr, t_arr, u_arr, replicate)
    elif u_arr.ndim == 1:
        (xs, ts, us, reps), where = _long_rows(x_arr, t_arr, u_arr, replicate)
    else:
        raise ValueError(f"u must be 1-D (long format) or (n_t, n_x) / (n_rep, n_t, n_x); got shape {u_arr.shape}")
    cols = [_column(v, n, where) for v, n in ((xs, "x"), (ts, "t"), (us, "u"))]
    for i, r in enumerate(reps):
        if r is None or (isinstance(r, float) and not np.isfinite(r)) or str(r).strip() == "":
            raise ValueError(f"{where(i)}: replicate label is missing")
    return cols, [str(r) for r in reps], where, notes


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
