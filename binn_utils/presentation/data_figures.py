"""The figures of a fit to one's own data (``binn fit`` / ``binn predict``, the own-data
chapter) and of the scratch-assay chapter: data against u_theta and u_p (mean +- 1 sd over
networks) per observation time, the learned operators (thin lines: networks; band: mean
+- 1 sd; grey: u outside the observed range) and the loss curves (median and
interquartile range over networks).
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import plotting
from ..analysis import scratch
from .plotting import COLORS


def _grid_axes(n: int, ncol: int = 3, w: float = 3.8, h: float = 3.2, sharey=True):
    ncol = max(1, min(ncol, n))
    nrow = -(-n // ncol)
    fig, grid = plt.subplots(nrow, ncol, figsize=(w * ncol, h * nrow), sharey=sharey, squeeze=False)
    for spare in grid.ravel()[n:]:
        spare.axis("off")
    return fig, grid, grid.ravel()[:n]


def own_data_solutions(x, t, u_obs, u_theta=None, u_p=None, *, x_label="x", u_label="u", t_label="t",
                       obs_label="replicate", u_true=None):
    """Data (every replicate, open grey symbols) against u_theta and u_p (mean +- 1 sd over
    networks) at every observation time, one panel each.  ``u_obs`` is (n_rep, n_t, n_x);
    ``u_theta`` / ``u_p`` are (R, n_t, n_x) or None (``binn predict``: u_p only); ``u_true``
    (n_t, n_x), a known noise-free solution, dashed black."""
    u_obs = np.asarray(u_obs, float)
    fig, grid, axes = _grid_axes(len(t))
    markers = ("o", "s", "^", "v", "D")
    for k, ax in enumerate(axes):
        for r in range(u_obs.shape[0]):
            ax.plot(x, u_obs[r, k], markers[r % len(markers)], ms=2.5, mfc="none", color="0.45", mew=0.6,
                    label=f"{obs_label} {r + 1}" if u_obs.shape[0] > 1 else "data")
        if u_theta is not None:
            plotting.band(ax, x, np.asarray(u_theta)[:, k], COLORS["u_theta"], "$u_\\theta$")
        if u_p is not None:
            plotting.band(ax, x, np.asarray(u_p)[:, k], COLORS["u_p"], "$u_p$", ls="--")
        if u_true is not None:
            ax.plot(x, np.asarray(u_true)[k], "k--", lw=1.0, label="truth")
        ax.set_title(f"{t_label} = {t[k]:g}")
        ax.set_xlabel(x_label)
    for row in grid:
        row[0].set_ylabel(u_label)
    axes[-1].legend(loc="best", fontsize=plotting.NOTE_SIZE)
    fig.tight_layout()
    return fig


def own_data_predictions(x, t, u_p, *, x_label="x", u_label="u", t_label="t"):
    """``binn predict``: the learned PDE solved from a new initial condition (mean +- 1 sd
    over networks whose solve succeeded), one panel per requested time."""
    fig, grid, axes = _grid_axes(len(t))
    for k, ax in enumerate(axes):
        plotting.band(ax, x, np.asarray(u_p)[:, k], COLORS["u_p"], "$u_p$")
        ax.set_title(f"{t_label} = {t[k]:g}")
        ax.set_xlabel(x_label)
    for row in grid:
        row[0].set_ylabel(u_label)
    fig.tight_layout()
    return fig


def own_data_operators(u_grid, curves: dict, u_range, *, u_label="u", labels=None, truth=None):
    """Each learned operator on ``u_grid`` (thin lines: networks; band: mean +- 1 sd), the
    u values outside the observed range ``u_range`` shaded grey; ``truth`` ({operator:
    values on ``u_grid``}, a known answer) dashed black."""
    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.6), squeeze=False)
    for ax, (name, c) in zip(axes[0], curves.items()):
        c = np.asarray(c, float)
        for r in range(c.shape[0]):
            ax.plot(u_grid, c[r], color=COLORS[name], lw=0.5, alpha=0.35)
        plotting.band(ax, u_grid, c, COLORS[name], "mean $\\pm$ 1 sd")
        if name in (truth or {}):
            ax.plot(u_grid, truth[name], "k--", lw=1.0, label="truth")
        if name in ("G", "V"):
            ax.axhline(0.0, color="k", lw=0.6)
        ax.set_xlim(u_grid[0], u_grid[-1])
        plotting.shade_unobserved(ax, u_range, u_grid)
        ax.set_xlabel(u_label)
        ax.set_ylabel((labels or {}).get(name, plotting.OP_LABELS[name]))
        ax.legend(fontsize=plotting.NOTE_SIZE)
    fig.tight_layout()
    return fig


def own_data_losses(history: dict, best_epoch=None):
    """Validation losses (total, data, PDE; median and interquartile range over networks)
    and the training loss, against the epoch, in training units."""
    fig, ax = plt.subplots(figsize=(6, 3.8))
    n = np.asarray(history["val_total"]).shape[1]
    ep = np.arange(1, n + 1)
    for key, lab, ls in (("val_total", "validation, total", "-"), ("val_data", "validation, data", "-"),
                         ("val_pde", "validation, PDE residual", "-"), ("train_total", "training, total", ":")):
        if key in history:
            plotting.loss_curve_panel(ax, ep, history[key], label=lab, ls=ls)
    if best_epoch is not None and len(best_epoch):
        ax.axvline(float(np.median(best_epoch)), color="0.5", lw=0.8, ls="--", label="median best epoch")
    ax.set_ylabel("loss (training units)")
    ax.legend(fontsize=plotting.NOTE_SIZE)
    fig.tight_layout()
    return fig


def scratch_solutions(x, t, u_obs, experiments, u_theta, u_p, scale=1e3):
    """The scratch-assay chapter's data (every experiment, open grey symbols) against u_theta
    and u_p (mean +- 1 sd over initialisations), one panel per observation time; densities
    times ``scale`` (10^-3 cells/µm^2), the legend in the empty panel if there is one."""
    fig, grid, axes = _grid_axes(len(t), w=3.8, h=3.3)
    markers = ("o", "s", "^", "v", "D")
    for k, ax in enumerate(axes):
        for r in range(len(experiments)):
            ax.plot(x, scale * u_obs[r, k], markers[r % len(markers)], ms=2.5, mfc="none", color="0.45", mew=0.6,
                    label=f"experiment {experiments[r]}")
        plotting.band(ax, x, scale * u_theta[:, k], COLORS["u_theta"], "$u_\\theta$")
        plotting.band(ax, x, scale * u_p[:, k], COLORS["u_p"], "$u_p$", ls="--")
        ax.set_title(f"t = {t[k]:g} h")
        ax.set_xlabel("x (µm)")
    for row in grid:
        row[0].set_ylabel("density ($10^{-3}$ cells/µm²)")
    handles, labels = axes[0].get_legend_handles_labels()
    if len(grid.ravel()) > len(t):  # the legend in the empty slot
        grid.ravel()[-1].legend(handles, labels, loc="center")
    else:
        axes[-1].legend(loc="lower right")
    fig.tight_layout()
    return fig


SCRATCH_NAMES = {"D": "diffusivity $D(u)$", "G": "growth rate $G(u)$", "V": "advection $V(u)$"}


def scratch_operators(u_grid, curves: dict, u_range, history: dict, scale=1e3):
    """The scratch-assay chapter's learned operators in the data's units on ``u_grid`` (thin
    lines: initialisations; band: mean +- 1 sd; grey: outside the observed ``u_range``) and,
    right, the training and validation losses (median and IQR over initialisations)."""
    lo, hi = u_range
    fig, axes = plt.subplots(1, len(curves) + 1, figsize=(3.8 * (len(curves) + 1), 3.8))
    for ax, (name, c) in zip(axes, curves.items()):
        for r in range(c.shape[0]):
            ax.plot(scale * u_grid, c[r], color=COLORS[name], lw=0.5, alpha=0.35)
        plotting.band(ax, scale * u_grid, c, COLORS[name], "mean $\\pm$ 1 sd")
        if name == "G":
            ax.axhline(0.0, color="k", lw=0.6)
        ax.set_xlim(scale * u_grid[0], scale * u_grid[-1])
        plotting.shade_unobserved(ax, (scale * lo, scale * hi), color="0.85", alpha=0.7, label="u not observed")
        ax.set_xlabel("density $u$ ($10^{-3}$ cells/µm²)")
        ax.set_ylabel(f"{SCRATCH_NAMES[name]} ({scratch.UNITS[name]})")
        ax.legend()
    ax = axes[-1]
    ep = np.arange(1, np.asarray(history["val_total"]).shape[1] + 1)
    for key, lab, ls in (("val_total", "validation, total", "-"), ("train_total", "training, total", ":")):
        c = np.asarray(history[key], float)
        med = np.nanmedian(c, axis=0)
        q1, q3 = np.nanpercentile(c, [25, 75], axis=0)
        line, = ax.plot(ep, med, ls=ls, lw=1.1, label=lab)
        ax.fill_between(ep, q1, q3, color=line.get_color(), alpha=0.2, lw=0)
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss (training units)")
    ax.legend()
    fig.tight_layout()
    return fig
