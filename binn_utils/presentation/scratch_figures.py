"""The scratch-assay chapter's figures: the data of every experiment against u_theta and
u_p (mean +- 1 sd over initialisations) per observation time, and the learned operators in
the data's units (thin lines: initialisations; band: mean +- 1 sd; grey: u outside the
observed range) beside the loss curves (median and interquartile range).
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import panels, plotting
from .drawn_data import tag
from ..analysis import scratch
from .plotting import COLORS


def scratch_solutions(x, t, u_obs, experiments, u_theta, u_p, scale=1e3):
    """The scratch-assay chapter's data (every experiment, open grey symbols) against u_theta
    and u_p (mean +- 1 sd over initialisations), one panel per observation time; densities
    times ``scale`` (10^-3 cells/µm^2), the legend in the empty panel if there is one."""
    fig, grid, axes = panels.grid_axes(len(t), w=3.8, h=3.3)
    markers = ("o", "s", "^", "v", "D")
    for k, ax in enumerate(axes):
        for r in range(len(experiments)):
            ax.plot(x, scale * u_obs[r, k], markers[r % len(markers)], ms=2.5, mfc="none", color="0.45", mew=0.6,
                    label=f"experiment {experiments[r]}")
        plotting.band(ax, x, scale * u_theta[:, k], COLORS["u_theta"], "$u_\\theta$")
        plotting.band(ax, x, scale * u_p[:, k], COLORS["u_p"], "$u_\\mathrm{p}$", ls="--")
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
            tag(ax.plot(scale * u_grid, c[r], color=COLORS[name], lw=0.5, alpha=0.35)[0], f"network {r + 1}",
                "each network")
        plotting.band(ax, scale * u_grid, c, COLORS[name], "mean $\\pm$ 1 sd")
        if name == "G":
            ax.axhline(0.0, color="k", lw=0.6)
        ax.set_xlim(scale * u_grid[0], scale * u_grid[-1])
        plotting.shade_unobserved(ax, (scale * lo, scale * hi), color="0.85", alpha=0.7, label="u not observed")
        ax.set_xlabel("density $u$ ($10^{-3}$ cells/µm²)")
        ax.set_ylabel(f"{SCRATCH_NAMES[name]} ({scratch.UNITS[name]})")
        panels.clear_legend(ax)
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
    panels.clear_legend(ax)
    return panels.finish(fig)
