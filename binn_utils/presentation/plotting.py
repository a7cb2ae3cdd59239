"""Figure panels shared by the notebooks (the paper's colour code and layout).

Colours follow Fig. 1: u_theta blue, u_p orange, D green, G purple, V brown; dashed black
is the truth.  Bands are +-1 standard deviation over replicates (as the paper's captions)
for solutions and operators, and the interquartile range for loss curves.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from ..analysis.user_data import MECHANISMS

COLORS = {"u_theta": "tab:blue", "u_p": "tab:orange", "D": "tab:green", "G": "tab:purple", "V": "tab:brown"}
OP_LABELS = {"D": "$D(u)$", "V": "$V(u)$", "G": "$G(u)$"}


#: Type sizes (points). The book's text column is about 650-750 px wide, so a figure 10
#: inches (1000 px at 100 dpi) wide is shown at about 65-75 % of its size: 13 pt labels
#: (18 px in the image) read as about 12 px on the page, 11.5 pt legends as about 10 px.
FONT_SIZES = {"font.size": 13, "axes.titlesize": 13, "axes.labelsize": 13, "xtick.labelsize": 12,
              "ytick.labelsize": 12, "legend.fontsize": 11.5, "legend.title_fontsize": 11.5}
#: Small annotations on panels (failure counts, notes): the smallest type in a figure.
NOTE_SIZE = 10.5
#: Ordered, clearly distinct colours for the curves of a swept value (no two similar greens).
DISTINCT = ("#1b3a8c", "#1f9ed1", "#2ca02c", "#b8a200", "#ff7f0e", "#d62728", "#9b3fb5", "#7f4f24",
            "#e377c2", "#555555")


def style():
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "axes.spines.top": False,
                         "axes.spines.right": False, "legend.frameon": False, **FONT_SIZES})


def band(ax, x, vals, color, label, lw=1.4, alpha=0.25, ls="-"):
    """Mean +- 1 std over replicates (axis 0) of vals; replicates with any NaN are left out."""
    vals = np.asarray(vals, dtype=float)
    ok = np.all(np.isfinite(vals), axis=tuple(range(1, vals.ndim)))
    if not ok.any():
        return
    v = vals[ok]
    mean, std = v.mean(axis=0), v.std(axis=0)
    ax.plot(x, mean, color=color, lw=lw, label=label, ls=ls)
    ax.fill_between(x, mean - std, mean + std, color=color, alpha=alpha, lw=0)


_band = band


def solution_panel(ax, x, t, pred, true=None, which_times="all", color="tab:blue", label="",
                   obs=None):
    """Mean +- std over replicates of pred (R, n_t, n_x) at the chosen times, truth dashed."""
    idx = range(len(t)) if which_times == "all" else ([len(t) - 1] if which_times == "end" else which_times)
    for k, i in enumerate(idx):
        band(ax, x, np.asarray(pred)[:, i], color, label if k == 0 else None)
        if true is not None:
            ax.plot(x, true[i], "k--", lw=0.9, label="truth" if k == 0 else None)
        if obs is not None:
            ax.plot(x, obs[i], ".", color="0.6", ms=2, label="observations" if k == 0 else None)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$u$")


def shade_unobserved(ax, u_range, u_grid=None, *, color="0.9", alpha=1.0, label=None, **kw):
    """Grey out the parts of an operator plot's horizontal (u) axis outside ``u_range``.

    Operators are only identifiable over the observed range of u (paper, noise study).
    The shading spans the axis limits (call this after plotting), or ``u_grid``'s extent
    if given; the limits are kept.  ``label``: its legend entry (None: none).  Returns the
    list of patches added.
    """
    lo, hi = (float(v) for v in u_range)
    x0, x1 = ax.get_xlim()
    if u_grid is not None:
        x0, x1 = float(np.min(u_grid)), float(np.max(u_grid))
    lim = ax.get_xlim()
    patches = []
    if x0 < lo:
        patches.append(ax.axvspan(x0, lo, color=color, alpha=alpha, lw=0, zorder=0, label=label, **kw))
        label = None
    if x1 > hi:
        patches.append(ax.axvspan(hi, x1, color=color, alpha=alpha, lw=0, zorder=0, label=label, **kw))
    ax.set_xlim(*lim)
    return patches


def user_operators(fit, axes=None, extend: float = 0.2):
    """Median and +-1 sd band of each operator a ``user_data.UserFit`` learned, in the
    user's units, with the unobserved values of u shaded; returns the axes."""
    lo, hi = fit.u_range
    pad = extend * (hi - lo)
    grid = np.linspace(max(lo - pad, 0.0) if lo >= 0 else lo - pad, hi + pad, 201)
    curves = fit.operator_curves(grid)
    if axes is None:
        _, axes = plt.subplots(1, len(curves), figsize=(4 * len(curves), 3), squeeze=False)
        axes = axes[0]
    for ax, (name, c) in zip(np.atleast_1d(axes), curves.items()):
        ok = np.all(np.isfinite(c), axis=1)
        m, s = np.median(c[ok], axis=0), np.std(c[ok], axis=0)
        ax.fill_between(grid, m - s, m + s, alpha=0.3)
        ax.plot(grid, m)
        ax.set_xlim(grid[0], grid[-1])
        shade_unobserved(ax, (lo, hi), color="0.85", alpha=0.7, label="u not observed")
        ax.set_xlabel("u")
        ax.set_title(MECHANISMS[name])
    return axes


def loss_curve_panel(ax, epochs, curves, color=None, label=None, ls="-"):
    """Median and interquartile band over replicates of loss curves (R, n) on a log scale."""
    c = np.asarray(curves, dtype=float)
    c = np.where(np.isfinite(c), c, np.nan)
    if np.all(np.isnan(c)):
        return
    med = np.nanmedian(c, axis=0)
    q1, q3 = np.nanpercentile(c, [25, 75], axis=0)
    line, = ax.plot(epochs, med, color=color, ls=ls, label=label, lw=1.2)
    ax.fill_between(epochs, q1, q3, color=line.get_color(), alpha=0.2, lw=0)
    ax.set_yscale("log")
    ax.set_xlabel("epoch")


def error_boxes(ax, groups, positions, color, width=None, label=None, log_positions=False, annotate=True):
    """Box plots of per-replicate errors (NaNs = failed runs are left out and counted).

    With ``annotate`` the number of failures of each group is written at the top of the axes.
    """
    data = [np.asarray(g, float)[np.isfinite(g)] for g in groups]
    pos = np.log10(positions) if log_positions else np.asarray(positions, float)
    w = width or (0.25 * np.min(np.diff(pos)) if len(pos) > 1 else 0.4)
    keep = [i for i, d in enumerate(data) if d.size]
    if keep:
        bp = ax.boxplot([data[i] for i in keep], positions=pos[keep], widths=w, patch_artist=True,
                        manage_ticks=False, showfliers=True, flierprops=dict(ms=2, mec=color))
        for b in bp["boxes"]:
            b.set(facecolor=color, alpha=0.5, edgecolor=color)
        for part in ("whiskers", "caps", "medians"):
            for line in bp[part]:
                line.set(color=color)
    if label:
        ax.plot([], [], "s", color=color, alpha=0.5, label=label)
    for i, g in enumerate(groups if annotate else ()):
        n_fail = int(np.sum(~np.isfinite(np.asarray(g, float))))
        if n_fail:
            ax.annotate(f"{n_fail} failed", (pos[i], 1.0), xycoords=("data", "axes fraction"),
                        ha="center", va="top", fontsize=NOTE_SIZE, color=color)
    return pos


def heatmap(ax, matrix, row_labels, col_labels, fmt="{:.3f}", cmap="viridis", cbar_label="", notes=None,
            log=False, fontsize=12):
    """Annotated heat map (row 0 at the bottom); ``notes``: optional extra text per cell
    (e.g. failure counts); ``log``: logarithmic colour scale."""
    from matplotlib.colors import LogNorm
    finite = np.asarray(matrix, float)[np.isfinite(matrix)]
    norm = LogNorm(finite.min(), finite.max()) if log and finite.size and finite.min() > 0 else None
    cm = plt.get_cmap(cmap).copy()
    cm.set_bad("0.55")  # cells where every replicate failed
    im = ax.imshow(np.ma.masked_invalid(matrix), cmap=cm, origin="lower", norm=norm)
    ax.set_xticks(range(len(col_labels)))
    ax.set_xticklabels(col_labels)
    ax.set_yticks(range(len(row_labels)))
    ax.set_yticklabels(row_labels)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            v = matrix[i, j]
            text = "failed" if not np.isfinite(v) else fmt.format(v)
            if notes is not None and notes[i][j]:
                text += "\n" + notes[i][j]
            light = np.isfinite(v) and im.norm(v) > 0.6  # light cell (viridis): dark text
            ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color="k" if light else "w")
    cbar = plt.colorbar(im, ax=ax, label=cbar_label, shrink=0.8)
    if norm is not None:
        plain_log_ticks(cbar.ax, "y")
    return cbar


def value_colors(n: int, cmap="viridis"):
    """n colours spread over a colormap (for curves of a swept value); ``cmap="distinct"``:
    the first n of ``DISTINCT`` (up to ten clearly different colours, in order)."""
    if cmap == "distinct" and n <= len(DISTINCT):
        return list(DISTINCT[:n])
    cm = plt.get_cmap("viridis" if cmap == "distinct" else cmap)
    return [cm(v) for v in (np.linspace(0.0, 0.9, n) if n > 1 else [0.0])]


def ylim_around(ax, curves, reference=None, margin=0.15, max_span=3.0):
    """Vertical limits covering ``curves`` (list of 1-D arrays; NaNs ignored) and ``reference``,
    but at most ``max_span`` times the reference's span beyond it, so one wild curve (a
    badly learned operator outside the data, say) cannot flatten the rest of the panel.
    A constant reference counts as having a span of half its magnitude.  Returns True
    when some curve values lie outside the limits (the caller can say so on the panel)."""
    vals = [np.asarray(c, float).ravel() for c in curves if c is not None]
    vals = np.concatenate(vals) if vals else np.array([])
    vals = vals[np.isfinite(vals)]
    lo, hi = (vals.min(), vals.max()) if vals.size else (np.nan, np.nan)
    if reference is not None:
        ref = np.asarray(reference, float).ravel()
        ref = ref[np.isfinite(ref)]
        rlo, rhi = ref.min(), ref.max()
        span = max(rhi - rlo, 0.5 * max(abs(rhi), abs(rlo)), 1e-3)
        lo = rlo if not np.isfinite(lo) else max(min(lo, rlo), rlo - max_span * span)
        hi = rhi if not np.isfinite(hi) else min(max(hi, rhi), rhi + max_span * span)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return False
    pad = margin * max(hi - lo, 1e-3 * max(abs(hi), 1.0))
    ax.set_ylim(lo - pad, hi + pad)
    clipped = bool(vals.size and (vals.min() < lo - pad or vals.max() > hi + pad))
    if clipped:
        ax.text(0.01, 0.99, "some curves run off this scale", transform=ax.transAxes, ha="left", va="top",
                fontsize=NOTE_SIZE, color="0.4")
    return clipped


def plain_log_ticks(ax, axis="y"):
    """Tick labels like 0.03 instead of 3x10^-2 on a log axis; minor ticks are labelled
    too (all of them when the axis spans less than a decade, 2 and 5 up to three decades),
    and so is the lowest tick in view, so that the bottom of the axis, where the smallest
    errors sit, always has a number."""
    from matplotlib.ticker import FuncFormatter
    a = ax.yaxis if axis == "y" else ax.xaxis
    lim = ax.get_ylim if axis == "y" else ax.get_xlim

    def minor(v, _):
        lo, hi = sorted(lim())
        decades = np.log10(hi / lo) if lo > 0 and hi > lo else np.inf
        if decades < 1:
            return f"{v:g}"
        lead = int(f"{v:.1e}"[0])
        first_in_view = lo > 0 and v >= lo * (1 - 1e-9) and (lead - 1) * v / lead < lo and lead <= 7
        if decades < 3 and (lead in (2, 5) or first_in_view):
            return f"{v:g}"
        return ""

    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(FuncFormatter(minor))


def save(fig, output_dir, name: str):
    """Save a figure as PNG into output_dir (created), return the path."""
    if output_dir is None:
        return None
    path = Path(output_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight")
    return path
