"""A problem with a known answer for ``binn fit``: the page "Fit your own data".

:func:`write_example_csv` writes a scratch-assay-like data set from known operators
(:func:`example_D`, :func:`example_G`); :func:`example_plan` is the page's ``binn fit``
request, and :func:`example_recovery` compares a fit with the truth.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..analysis import scratch
from ..analysis.user_data import UserFit, curve_shapes
from ..engine.forward_solve import forward_solve
from ..engine.metrics import relative_l2_many
from .fit_plan import FitPlan, plan_fit

__all__ = ["EXAMPLE_K", "EXAMPLE_FILE", "EXAMPLE_TRUTH", "example_D", "example_G", "write_example_csv",
           "example_truth", "example_recovery", "example_plan"]

#: Carrying capacity (cells/µm²) of :func:`write_example_csv`'s known problem.
EXAMPLE_K = 2e-3


def example_D(u):
    """Known diffusivity of the example (µm²/h): 200 + 1800 u/K, increasing."""
    return 200.0 + 1800.0 * np.asarray(u, dtype=float) / EXAMPLE_K


def example_G(u):
    """Known growth rate of the example (1/h): 0.04 (1 - u/K), decreasing, zero at u = K."""
    return 0.04 * (1.0 - np.asarray(u, dtype=float) / EXAMPLE_K)


def write_example_csv(path, n_x: int = 21, times=(0.0, 12.0, 24.0, 36.0, 48.0), n_rep: int = 2,
                      noise: float = 0.02, seed: int = 1, columns=("x_um", "t_h", "density", "well")):
    """A scratch-assay-like data set with a known answer: u_t = (D(u) u_x)_x + u G(u) with
    :func:`example_D` and :func:`example_G` on x in [0, 1000] µm, solved (BDF) from a
    scratch-shaped initial condition and observed at ``times`` (h) in ``n_rep`` replicates
    with multiplicative Gaussian noise of relative size ``noise`` (seeded).  Writes a CSV
    in long format; returns (x, t, noise-free u (n_t, n_x))."""
    x = np.linspace(0.0, 1000.0, n_x)
    t = np.asarray(times, dtype=float)
    u0 = EXAMPLE_K * (0.1 + 0.7 / (1 + np.exp(-(np.abs(x - 500) - 250) / 40)))
    sol = forward_solve(example_D, None, example_G, u0, x, t, method="BDF")
    if not sol.ok:  # pragma: no cover - the known problem is smooth
        raise RuntimeError(f"the example's forward solve failed: {sol.message}")
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in range(n_rep):
            for k, tv in enumerate(t):
                for j, xv in enumerate(x):
                    w.writerow([f"{xv:g}", f"{tv:g}", f"{sol.u[k, j] * (1 + noise * rng.standard_normal()):.8g}",
                                f"w{r + 1}"])
    return x, t, sol.u


EXAMPLE_FILE = Path(__file__).resolve().parents[2] / "data" / "own_data_example.csv"
"""The committed copy of :func:`write_example_csv`'s output (``data/README.md``)."""

#: the example's true operators and the shape of each
EXAMPLE_TRUTH = {"D": (example_D, "increasing"), "G": (example_G, "decreasing")}


def example_truth(u_true) -> dict:
    """The example's known answer as :func:`fit_figures` draws it: the noise-free solution
    ``u_true`` (:func:`write_example_csv`'s) and the true operators."""
    return {"u": u_true, **{k: f for k, (f, _) in EXAMPLE_TRUTH.items()}}


def example_recovery(fit: UserFit, n: int = 101) -> dict:
    """{operator: (shape of its median curve (``user_data.curve_shapes``), median over networks
    of its relative L2 error against the truth)} of a fit to the example, over the observed range of u."""
    g = np.linspace(*fit.u_range, n)
    return {k: (str(curve_shapes(np.median(c, axis=0)[None])[0]),
                float(np.median(relative_l2_many(c, EXAMPLE_TRUTH[k][0](g)))))
            for k, c in fit.operator_curves(g).items()}


def example_plan(out, scale: str = "lite", cache_dir=None) -> FitPlan:
    """The ``binn fit`` request of the page "Fit your own data": D and G from
    ``EXAMPLE_FILE`` (the replicate mean), u_p by BDF, networks stored under ``cache_dir``
    with the prefix "example"; the example is in the scratch assay's units."""
    return plan_fit(EXAMPLE_FILE, "DG", out, x="x_um", t="t_h", u="density", replicate="well", scale=scale,
                    forward_method="BDF", cache_dir=cache_dir, prefix="example", units=scratch.UNITS)
