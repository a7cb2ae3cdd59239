"""The diagnostics chapter's figures, sized for the book's page (about 800 px: a figure 8.4
inches wide at 100 dpi is shown at its size, so its 12-13 pt type reads as such): the
mismatch ratio against the ground truth, one panel above the other, and the ROC curves of
the diagnostics over every stored network and over the settings, each panel with its own
legend that names each curve and gives its area under the curve at that level.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from . import plotting
from ..analysis import diagnostics
from ..analysis.diagnostic_roc import CAUGHT_MIN, COMPOSITES, DIAGNOSTICS, FALSE_MAX, name_of, roc, setting_table

#: The figures' width (inches): the page's, at 100 dpi.
WIDTH = 8.4


def _log_axes(ax):
    """Plain numbers on both logarithmic axes, minor ticks labelled at 2 and 5."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.1e}"[0] in "25" else ""))


def mismatch_figure(scored, titles: dict, failure_factor):
    """Per setting (``scored``: a :class:`~binn_utils.analysis.diagnostic_calibration.Scored`),
    the ground-truth-free mismatch ratio against the median u_p error (top) and against that
    error over the best comparable setting's (bottom); filled: a diagnostic flag raised, x: a
    ground-truth failure, dashed: the mismatch flag's ratio and ``failure_factor``.
    ``titles``: study -> legend label; a failed forward solve (ratio inf/NaN) is drawn at a
    dotted line beyond the largest ratio."""
    ratio = scored.mismatch_ratio()
    up, rel = (np.array([v[k] for v in scored.truth], float) for k in ("up", "rel"))
    study_of, flagged, threshold = scored.groups, scored.flagged, diagnostics.MISMATCH_RATIO
    finite = np.isfinite(ratio)
    r_edge = max(np.nanmax(ratio[finite]) if finite.any() else threshold, threshold) * 2.0
    ratio_plot = np.where(finite, ratio, r_edge)
    colors = dict(zip(titles, plt.get_cmap("tab10").colors))
    fail_a = np.asarray(scored.failed, bool)
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, 8.6), sharex=True)
    for ax, y, ylab in ((axes[0], up, "median rel. $L^2$ error of $u_\\mathrm{p}$\n(against the truth)"),
                        (axes[1], rel, "$u_\\mathrm{p}$ error / best comparable\nsetting's")):
        for st, title in titles.items():
            for want_flag in (True, False):
                sel = np.array([study_of[i] == st and flagged[i] == want_flag for i in range(len(ratio))])
                sel &= np.isfinite(y) & (ratio_plot > 0)
                ax.scatter(ratio_plot[sel], y[sel], s=30, marker="o", lw=1.1,
                           facecolors=colors[st] if want_flag else "none", edgecolors=colors[st],
                           label=title if want_flag else None)
        sel = fail_a & np.isfinite(y)
        ax.scatter(ratio_plot[sel], y[sel], s=60, marker="x", color="k", lw=1.0, label="ground-truth failure")
        ax.axvline(threshold, color="k", ls="--", lw=0.9, label="the mismatch flag's threshold")
        if not finite.all():
            ax.axvline(r_edge, color="0.6", ls=":", lw=0.9)
            ax.annotate("failed $u_\\mathrm{p}$", (r_edge, 1.0), xycoords=("data", "axes fraction"),
                        fontsize=plotting.NOTE_SIZE, ha="right", va="top", color="0.4", rotation=90)
        _log_axes(ax)
        ax.set_ylabel(ylab)
    axes[1].set_xlabel("mismatch ratio (no ground truth)")
    axes[1].axhline(failure_factor, color="tab:red", ls="--", lw=0.9, label="failure by our rule")
    axes[1].scatter([], [], s=30, facecolors="none", edgecolors="0.3", label="no flag raised (open)")
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


def turns(x, y) -> tuple[np.ndarray, np.ndarray]:
    """The points where a polyline turns, and its ends: the same line drawn with fewer points
    (an ROC curve over thousands of networks runs straight between most of its thresholds)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3:
        return x, y
    dx, dy = np.diff(x), np.diff(y)
    turn = (dx[:-1] * dy[1:] - dy[:-1] * dx[1:]) != 0
    keep = np.concatenate([[True], turn, [True]])
    return x[keep], y[keep]


#: What the marks every ROC panel shares stand for, as its legend's last entries.
ROC_MARKS = ("dot: our default threshold", "shaded: the target", "dotted: chance (AUC 0.5)")


def roc_figure(table, summary):
    """ROC curves of every diagnostic and of the composite flags (the paper's three signs, black;
    all six, grey) over every stored network (top) and over the settings (bottom), from
    :mod:`binn_utils.analysis.diagnostic_roc`: sensitivity against false-alarm rate as the
    threshold on each score moves; a dot marks our default thresholds (score 1), the shaded
    corner the target (at least 85 % caught at most 15 % false alarms).  Each panel's legend
    names each curve with its area under the curve at that panel's level."""
    failed = summary["failed"]
    _, sfail, ssc = setting_table(table, failed)
    names = (*DIAGNOSTICS, *COMPOSITES)
    colors = dict(zip(names, (*plt.get_cmap("tab10").colors[:len(DIAGNOSTICS)], "k", "0.5")))
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH - 0.6, 9.6))   # the legends reach beyond
    for ax, level, title in ((axes[0], "per", f"over {summary['n']} stored networks"),
                             (axes[1], "settings", f"over {summary['n_settings']} settings")):
        for n in names:
            sc, fl = (table.score(n), failed) if level == "per" else (ssc[n], sfail)
            _, sens, fa = roc(sc, fl)
            fa, sens = turns(fa, sens)
            ax.plot(fa, sens, color=colors[n], lw=2.2 if n in COMPOSITES else 1.3,
                    label=f"{name_of(n)}, AUC {summary[level][n]['auc'][0]:.2f}")
            m = summary[level][n]["module"]
            ax.plot([m.false_alarm_rate], [m.caught_rate], "o", color=colors[n], ms=6)
        ax.add_patch(plt.Rectangle((0, CAUGHT_MIN), FALSE_MAX, 1 - CAUGHT_MIN, color="g", alpha=0.15, lw=0))
        ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=0.9)
        ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false-alarm rate (fine cases flagged)",
               ylabel="sensitivity\n(failures flagged)", title=title, aspect="equal")
        marks = [Line2D([], [], ls="", marker="o", color="0.3", ms=6), Patch(color="g", alpha=0.15),
                 Line2D([], [], color="0.6", ls=":", lw=0.9)]
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles + marks, labels + list(ROC_MARKS), loc="upper left", bbox_to_anchor=(1.03, 1.02),
                  title="threshold moved on the score of")
    fig.tight_layout()
    return fig
