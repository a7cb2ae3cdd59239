"""Fig. 6's training time: the timing benchmark (``benchmarks/batch_size_timing.py``, one network
of the plain-autograd trainer, every batch size in one process on one device), the fit
T = a / B + c of its 4000-epoch times, and which runs it times."""
from __future__ import annotations

import json

import numpy as np

from .reporting import fmt, value_label
from .verdicts import LEVEL
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.records import DamagedRecordError
from ..store.stores import default_results_dir

#: The timing benchmark the training-time comparison reads (``benchmarks/batch_size_timing.py
#: --json``): one network of the plain-autograd trainer, as the paper trains "on the CPU",
#: every batch size timed in one process on one device, interleaved.
TIMING_FILE = "benchmarks/batch_size_timing.json"
#: The configuration the timing benchmark trains (``benchmarks/batch_size_timing.py`` reads
#: it): Fig. 6's, the 71-point grid at the main text's noise level.
TIMING_NOISE_VAR, TIMING_DENSE = DEFAULT_NOISE_VAR, False
_TIMING_KEYS = ("machine", "torch", "trainer", "batch_sizes", "fit", "budgets_min", "printout", "load_average")
#: How the chapter writes the timing fit's seconds: three figures, plainly from 1,000 on (5,870 s, not 5.87e+03 s).
SECONDS = dict(plain_from=1000, figures=3)
_ROW_KEYS = ("B", "B_used", "epoch_steps", "ms_per_step", "s_per_epoch", "s_4000_epochs")


def timing(results_dir=None) -> dict:
    """The committed timing benchmark (``TIMING_FILE`` under the results folder);
    ``DamagedRecordError`` naming the file if it is missing a field, FileNotFoundError if absent."""
    path = (default_results_dir() if results_dir is None else results_dir) / TIMING_FILE
    try:
        out = json.loads(path.read_text())
        ok = (isinstance(out, dict) and all(k in out for k in _TIMING_KEYS) and len(out["batch_sizes"]) >= 2
              and all(isinstance(r, dict) and all(k in r for k in _ROW_KEYS) for r in out["batch_sizes"]))
    except (ValueError, TypeError) as err:
        raise DamagedRecordError(f"damaged: {path}: {err}") from None
    if not ok:
        raise DamagedRecordError(f"damaged: {path} is not a timing benchmark (fields {_TIMING_KEYS})")
    return out


def budget_epochs(timing_: dict, minutes: float) -> dict:
    """{B: epochs that ``minutes`` of the benchmarked trainer give} (validation included)."""
    return {r["B"]: 60 * minutes / r["s_per_epoch"] for r in timing_["batch_sizes"]}


def time_fit(timing: dict) -> dict:
    """Fig. 6's training time against the batch size, from the timing benchmark
    (``studies.batch_size.timing()``: ``benchmarks/batch_size_timing.py``, one network of the
    plain-autograd trainer, the batch sizes interleaved in one process on one device): the
    time T of 4000 epochs per B and the fit T = a / B + c with the t interval of a.

    B is the batch size actually used (a batch larger than the training set is clipped).
    ``timing`` None (no benchmark of this grid): empty arrays and NaN."""
    from scipy.optimize import curve_fit
    rows = sorted(timing["batch_sizes"], key=lambda r: r["B_used"]) if timing else []
    B = np.array([r["B_used"] for r in rows], float)
    B_req = np.array([r["B"] for r in rows], float)
    T = np.array([r["s_4000_epochs"] for r in rows], float)
    steps = np.array([4000 * r["epoch_steps"] for r in rows], float)
    out = dict(B=B, B_requested=B_req, T=T, steps=steps, per_step_ms=np.array([r["ms_per_step"] for r in rows]),
               a=np.nan, c=np.nan, r2=np.nan, a_lo=np.nan, a_hi=np.nan, fitted=np.full(len(B), np.nan))
    if len(B) >= 2 and np.all(np.isfinite(T)):
        f = lambda b, a, c: a / b + c  # noqa: E731
        try:
            (a, c), cov = curve_fit(f, B, T, p0=(T[0] * B[0], 0.0))
            pred = f(B, a, c)
            ss = np.sum((T - T.mean()) ** 2)
            # the t interval of a at the verdicts' level (len(B) - 2 degrees of freedom)
            from scipy.stats import t as student
            half = (student.ppf((1 + LEVEL) / 2, len(B) - 2) * np.sqrt(cov[0, 0])
                    if len(B) > 2 and np.isfinite(cov[0, 0]) else np.inf)
            out.update(a=float(a), c=float(c), r2=float(1 - np.sum((T - pred) ** 2) / ss) if ss > 0 else np.nan,
                       a_lo=float(a - half), a_hi=float(a + half), fitted=pred)
        except RuntimeError:
            pass
    return out


def timing_grid_words(math: bool = True) -> str:
    """The timing benchmark's configuration in words, e.g. '71-point grid, $\\sigma^2$ = 1e-3'
    (``math`` False: '71-point grid, noise variance 1e-3')."""
    level = (f"$\\sigma^2$ = " if math else "noise variance ") + value_label(TIMING_NOISE_VAR)
    return f"{351 if TIMING_DENSE else 71}-point grid, {level}"


#: Whose training time the timing benchmark is, for each answer of ``timing_of``.
TIMING_WHOSE = {"benchmarked": "this configuration",
                "grid only": "this grid at another noise level; the runs on this page were not timed",
                "other grid": "another grid; this grid was not benchmarked"}


def timing_of(fixed) -> str:
    """Whose training time the timing benchmark gives for the runs ``fixed`` (one
    configuration): 'benchmarked' (its grid and noise level), 'grid only' (its grid, another
    noise level) or 'other grid' (not benchmarked); ``TIMING_WHOSE`` in words."""
    rec = fixed[0].record if fixed else None
    if rec is None or bool(rec.dense) != TIMING_DENSE:
        return "other grid"
    return "benchmarked" if float(rec.noise_var) == float(TIMING_NOISE_VAR) else "grid only"


def fit_residual_words(fit: dict) -> str:
    """The fit's residual at the largest batch size of ``time_fit``'s ``fit``, in words: the
    time measured there against the fitted curve's (R^2 weighs the long times of the small
    batches most, so it says little about the fit at the largest)."""
    b, b_req, t, f = fit["B"][-1], fit["B_requested"][-1], fit["T"][-1], fit["fitted"][-1]
    used = f", full-batch on the {int(b)} training points" if b != b_req else ""
    return (f"at the largest batch, B = {int(b_req)}{used}, the benchmark's {fmt(t)} s lies "
            f"{fmt(100 * abs(t - f) / f, '.2g')} % {'below' if t < f else 'above'} the fit's {fmt(f)} s")


def fit_of(fixed, timing_=None) -> dict:
    """``time_fit`` of the timing benchmark (``timing_``, None: the committed one) where it times
    the grid of the runs ``fixed``; empty where it does not (``timing_of``: 'other grid')."""
    return time_fit(None if timing_of(fixed) == "other grid" else timing() if timing_ is None else timing_)


def step_time_spread(timing_: dict) -> float:
    """The largest time per optimiser step over the smallest in the timing benchmark (NaN
    without a positive time)."""
    per_step = [r["ms_per_step"] for r in timing_["batch_sizes"]]
    return float(max(per_step) / min(per_step)) if len(per_step) and min(per_step) > 0 else float("nan")
