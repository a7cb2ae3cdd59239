"""Error metrics and summaries used throughout the book.

* :func:`relative_l2` -- the paper's "relative L^2 error" of a learned
  (``u_theta``) or forward-predicted (``u_p``) solution against the true
  solution, taken over the full ``(t, x)`` evaluation grid (Frobenius norm).
* :func:`operator_error` -- discrepancy between a learned constitutive
  function and the true one on a ``u`` grid, typically spanning the observed
  range of ``u`` (:func:`observed_range`, :func:`operator_grid`), because the
  paper stresses that operators are only identifiable over that range.
* :func:`median_iqr` -- median and interquartile range over replicates that
  reports failed replicates (NaN) explicitly instead of dropping them.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "relative_l2",
    "relative_l2_many",
    "observed_range",
    "operator_grid",
    "operator_error",
    "median_iqr",
]


def relative_l2(pred, true, norm: str = "fro") -> float:
    """``||pred - true|| / ||true||`` over the ``(t, x)`` grid.

    ``norm="fro"`` (default): the Frobenius norm, i.e. the L2 norm over all grid values;
    ``norm="spectral"``: the matrix 2-norm (largest singular value) of the ``(t, x)``
    matrix, which is what ``np.linalg.norm(A, 2)`` computes for a 2-D array and what the
    authors' heat-map code (Fig. 5) used.

    Returns NaN if ``pred`` contains any non-finite value (e.g. a failed
    forward solve).  Raises ``ValueError`` if the shapes differ, if ``true``
    contains non-finite values or if ``||true|| == 0``.
    """
    pred = np.asarray(pred, dtype=float)
    true = np.asarray(true, dtype=float)
    if pred.shape != true.shape:
        raise ValueError(f"shape mismatch: pred {pred.shape} vs true {true.shape}")
    if not np.all(np.isfinite(true)):
        raise ValueError("true solution contains non-finite values")
    if norm not in ("fro", "spectral"):
        raise ValueError(f"norm must be 'fro' or 'spectral', got {norm!r}")
    if norm == "spectral" and true.ndim != 2:
        raise ValueError(f"the spectral norm needs a (t, x) matrix, got shape {true.shape}")
    size = (lambda a: np.linalg.norm(a, 2)) if norm == "spectral" else (lambda a: np.linalg.norm(a.ravel()))
    norm_true = float(size(true))
    if norm_true == 0.0:
        raise ValueError("relative error undefined: true solution has zero norm")
    if not np.all(np.isfinite(pred)):
        return float("nan")
    return float(size(pred - true) / norm_true)


def relative_l2_many(preds, true, norm: str = "fro") -> np.ndarray:
    """:func:`relative_l2` for each replicate of ``preds`` (shape ``(R, *true.shape)``)."""
    true = np.asarray(true, dtype=float)
    preds = np.asarray(preds, dtype=float)
    if preds.ndim != true.ndim + 1 or preds.shape[1:] != true.shape:
        raise ValueError(
            f"preds must have shape (R, {', '.join(map(str, true.shape))}); got {preds.shape}")
    return np.array([relative_l2(p, true, norm) for p in preds], dtype=float)


def observed_range(u) -> tuple[float, float]:
    """``(min, max)`` of the finite values of a solution or observation array."""
    u = np.asarray(u, dtype=float)
    finite = u[np.isfinite(u)]
    if finite.size == 0:
        raise ValueError("no finite values")
    return float(finite.min()), float(finite.max())


def operator_grid(u_range, n: int = 200) -> np.ndarray:
    """Uniform grid of ``n`` points over ``u_range = (u_min, u_max)``."""
    lo, hi = (float(v) for v in u_range)
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise ValueError(f"invalid u range ({lo}, {hi})")
    if n < 2:
        raise ValueError("n must be at least 2")
    return np.linspace(lo, hi, int(n))


def operator_error(learned, true):
    """Error of learned operator values against the true ones on a ``u`` grid.

    Parameters
    ----------
    learned:
        ``(n_u,)`` or ``(R, n_u)`` values of the learned operator(s) on the grid.
    true:
        ``(n_u,)`` values of the true operator on the same grid.

    Returns
    -------
    float or ndarray
        Per replicate (``(R,)`` array for 2-D input, a float for 1-D input):
        the relative discrete L2 error ``||learned - true||_2 / ||true||_2``;
        if the true operator is identically zero on the grid (an absent
        mechanism, e.g. ``V = 0`` or ``G = 0``) the relative error is
        undefined and the **absolute RMS** ``sqrt(mean(learned^2))`` is
        returned instead.  Replicates with non-finite values give NaN.
    """
    true = np.asarray(true, dtype=float)
    learned = np.asarray(learned, dtype=float)
    if true.ndim != 1:
        raise ValueError("true must be 1-D (n_u,)")
    if not np.all(np.isfinite(true)):
        raise ValueError("true operator contains non-finite values")
    single = learned.ndim == 1
    L = learned[None, :] if single else learned
    if L.ndim != 2 or L.shape[1] != true.size:
        raise ValueError(f"learned must be (n_u,) or (R, n_u) with n_u={true.size}; "
                         f"got {learned.shape}")
    diff = L - true[None, :]
    norm_true = float(np.linalg.norm(true))
    with np.errstate(all="ignore"):
        if norm_true == 0.0:
            err = np.sqrt(np.mean(diff**2, axis=1))
        else:
            err = np.linalg.norm(diff, axis=1) / norm_true
    err = np.where(np.all(np.isfinite(L), axis=1), err, np.nan)
    return float(err[0]) if single else err


def median_iqr(values) -> dict:
    """Median and quartiles over replicates, counting failures.

    Non-finite entries (NaN, e.g. failed forward solves) are counted in
    ``n_failed`` and excluded from the quantiles -- never silently dropped.
    Returns ``dict(median, q25, q75, n, n_failed)`` where ``n`` is the total
    number of replicates (including failures).  If every value failed (or
    there are none) the quantiles are NaN.
    """
    v = np.asarray(values, dtype=float).ravel()
    finite = v[np.isfinite(v)]
    n_failed = int(v.size - finite.size)
    if finite.size == 0:
        med = q25 = q75 = float("nan")
    else:
        med = float(np.median(finite))
        q25, q75 = (float(q) for q in np.percentile(finite, [25, 75]))
    return dict(median=med, q25=q25, q75=q75, n=int(v.size), n_failed=n_failed)
