"""The panels the paper's figures share (:mod:`binn_utils.presentation.figures`): solutions
and operators (mean +- 1 std over replicates, dashed black the truth, grey shading where u
is unobserved), validation-loss curves (median and interquartile range over replicates),
box plots of per-network errors and heat maps drawn from numbers a chapter computed from
the results table (failed forward solves counted at the top of a box plot or in a heat
map's cell, diverged trainings at the bottom), legends placed where they cover no data,
and a grid of panels.
"""
from __future__ import annotations

import weakref

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection, PathCollection

from . import plotting
from ..analysis.reporting import arch_label
from .plotting import COLORS

#: A legend above its panel, in one row, where it cannot cover data.
ABOVE = dict(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, borderaxespad=0.2)
#: The two errors of a box-plot panel: (rows, label, colour).
ERR_SERIES = (({"quantity": "err_u_theta"}, "$u_\\theta$", COLORS["u_theta"]),
              ({"quantity": "err_u_p"}, "$u_\\mathrm{p}$", COLORS["u_p"]))


# ----------------------------------------------------------------------------- panels
def solutions_at_end(ax, entries, key, title=None):
    """Mean +- std of ``key`` (u_theta / u_p of the reported networks) at t_end for several settings.

    entries: list of (result, label, colour).  The truth (dashed) is drawn once.
    """
    entries = [e for e in entries if e[0] is not None]
    if not entries:
        return
    r0 = entries[0][0]
    x = r0["x"]
    curves = []
    for res, label, color in entries:
        vals = np.asarray(res.net(key), float)[:, -1]
        plotting.band(ax, x, vals, color, label)
        ok = np.all(np.isfinite(vals), axis=1)
        if ok.any():
            m, sd = vals[ok].mean(axis=0), vals[ok].std(axis=0)
            curves += [m - sd, m + sd]
    truth = r0["u_clean"][-1]
    ax.plot(x, truth, "k--", lw=0.9, label="truth")
    # up to twice the truth's span beyond it: a far-off band stays on the panel unless it is wild
    plotting.ylim_around(ax, curves, truth, max_span=2.0)
    ax.set_xlabel("$x$")
    ax.set_ylabel(f"$u(x, t_\\mathrm{{end}})$")
    if title:
        ax.set_title(title)


def operators(ax, entries, op):
    """Learned operator ``op`` (mean +- std) for several settings, truth dashed once, grey
    outside the observed range of u; the vertical range covers every band over the
    observed range (outside it, where nothing constrains the operator, curves may be cut)."""
    entries = [e for e in entries if e[0] is not None]
    if not entries:
        return
    r0 = entries[0][0]
    u = r0["u_grid"]
    lo, hi = r0.record.u_range
    inside = (u >= lo) & (u <= hi)
    curves = []
    for res, label, color in entries:
        vals = np.asarray(res.net(f"op_{op}"), float)
        plotting.band(ax, u, vals, color, label)
        ok = np.all(np.isfinite(vals), axis=1)
        if ok.any():
            m, sd = vals[ok].mean(axis=0), vals[ok].std(axis=0)
            curves += [(m - sd)[inside], (m + sd)[inside]]
    truth = r0[f"true_op_{op}"]
    ax.plot(u, truth, "k--", lw=0.9, label="truth")
    plotting.shade_unobserved(ax, (lo, hi), u)
    plotting.ylim_around(ax, curves, truth, max_span=np.inf)
    ax.set_xlim(u[0], u[-1])
    ax.set_xlabel("$u$")
    ax.set_ylabel(plotting.OP_LABELS.get(op, op))


def loss_curves(ax, entries, key="hist_val_total", ylabel="total validation loss"):
    """Median and IQR over replicates of a validation-loss history per setting.

    entries: (result, label, colour[, linestyle[, weight]]).
    """
    for e in entries:
        res, label, color = e[:3]
        if res is None:
            continue
        ls = e[3] if len(e) > 3 else "-"
        w = e[4] if len(e) > 4 else 1.0
        plotting.loss_curve_panel(ax, res["curve_epochs"], np.asarray(res[key], float) * w, color=color,
                                  label=label, ls=ls)
    if ax.get_yscale() == "log":
        plotting.plain_log_ticks(ax)
    ax.set_ylabel(ylabel)


def error_boxes(ax, boxes, errors, at, labels, series=ERR_SERIES, xlabel="", spread=0.4, log=True):
    """Box plots of per-network errors against the categorical column ``at``, drawn from
    numbers a chapter computed from the results table.

    boxes: one row per box (a column or index level ``at``, "quantity" and whatever the
    series pick on) with the quartiles of its finite errors ("25%", "50%", "75%", as
    ``describe()`` names them), "count" (finite errors), "failed" (failed forward solves,
    left out of the box and counted at the top) and "diverged" (trainings stopped at a
    non-finite loss, in the box, counted at the bottom); errors: the long table the boxes
    were computed from (``results_table.long``: "value" per network), whose errors within
    1.5 interquartile ranges of the box the whiskers reach (Tukey's rule, matplotlib's) and
    whose errors beyond are drawn as dots; labels: {value of ``at``: tick label}, in the
    order of the positions; series: (selection, label, colour) per box group, selection a
    dict {column: value} of the rows it draws (e.g. {"quantity": "err_u_p"}).
    """
    boxes = boxes.reset_index() if any(boxes.index.names) else boxes
    values = list(labels)
    k = len(series)
    offsets = np.linspace(-spread / 2, spread / 2, k) if k > 1 else np.zeros(1)
    width = 0.8 * spread / max(k - 1, 1) if k > 1 else 0.4
    for (pick, label, color), off in zip(series, offsets):
        rows = _rows(boxes, pick)
        stats, pos = [], []
        for i, v in enumerate(values):
            row = _rows(rows, {at: v})
            if row.empty or not row["count"].iloc[0]:
                continue
            row = row.iloc[0]
            runs = _rows(errors, {**pick, at: v})["value"].to_numpy(float)
            stats.append(plotting.box_stats(runs[np.isfinite(runs)], row["25%"], row["50%"], row["75%"]))
            pos.append(i + off)
        plotting.error_boxes(ax, stats, pos, color, width=width, label=label)
        for i, v in enumerate(values):
            row = _rows(rows, {at: v})
            if not row.empty and row["failed"].iloc[0]:
                failed, n = int(row["failed"].iloc[0]), int(row["count"].iloc[0] + row["failed"].iloc[0])
                ax.annotate(f"{failed}/{n}\nfailed", (i + off, 1.0), xycoords=("data", "axes fraction"),
                            ha="center", va="top", fontsize=plotting.NOTE_SIZE, color=color)
    _diverged(ax, boxes, at, values, series)
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels([labels[v] for v in values])
    ax.set_xlim(-0.6, len(values) - 0.4)
    if log:
        ax.set_yscale("log")
        plotting.plain_log_ticks(ax)
    ax.set_ylabel("rel. $L^2$ error")
    ax.set_xlabel(xlabel)
    clear_legend(ax)


def _rows(df, pick: dict):
    """The rows of ``df`` whose columns equal ``pick``'s values (tuples compared whole)."""
    keep = np.ones(len(df), bool)
    for col, v in pick.items():
        keep &= np.array([x == v for x in df[col]], bool)
    return df[keep]


def _diverged(ax, boxes, at, values, series):
    """Diverged trainings, a property of the networks, counted once per position: over the
    series of the first series' quantity (the other quantities are the same networks)."""
    quantity = series[0][0].get("quantity")
    picks = [pick for pick, _, _ in series if pick.get("quantity") == quantity]
    for i, v in enumerate(values):
        rows = [_rows(boxes, {**pick, at: v}) for pick in picks]
        rows = [r.iloc[0] for r in rows if not r.empty]
        diverged = int(sum(r["diverged"] for r in rows))
        if diverged:
            n = int(sum(r["count"] + r["failed"] for r in rows))
            ax.annotate(f"{diverged}/{n} div.", (i, 0.0), xycoords=("data", "axes fraction"),
                        ha="center", va="bottom", fontsize=plotting.NOTE_SIZE, color="k")


def legend(ax, **kw):
    h, l = ax.get_legend_handles_labels()
    if h:
        ax.legend(**kw)


LEGEND_PLACES = ("upper left", "upper right", "lower left", "lower right", "upper center", "lower center",
                 "center left", "center right", "center")
#: A filled shape (a band, a box) or a note under a legend counts as this many covered points.
SHAPE = 100
#: Shapes drawn below this z-order are background (the grey of unobserved u): a legend may lie on them.
BACKGROUND_ZORDER = 1
#: How many times :func:`clear_legend` may raise the top of an axis to clear a legend's place.
RAISES = 3
#: The axes :func:`clear_legend` placed a legend on: its columns and the y limits before it
#: raised any (so that :func:`finish` can place it again at the panels' final size).
_PLACED = weakref.WeakKeyDictionary()


def data_under(ax, renderer):
    """A function of a legend's box (display pixels) -> how much of the panel's data it
    covers: the points of its lines, markers and bars inside the box, and ``SHAPE`` for each
    filled shape (a band, a box; not the background) and note it overlaps."""
    points, shapes = [], []
    for line in ax.get_lines():
        if line.get_visible():
            points.append(line.get_transform().transform(line.get_xydata()))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):          # markers (scatter): their positions
            offsets = np.asarray(coll.get_offsets(), float)
            if offsets.size:
                points.append(coll.get_offset_transform().transform(offsets))
        elif isinstance(coll, LineCollection):        # bars: their ends
            points += [coll.get_transform().transform(p.vertices) for p in coll.get_paths() if len(p.vertices)]
        elif coll.get_zorder() >= BACKGROUND_ZORDER:  # bands
            shapes += [coll.get_transform().transform_path(p) for p in coll.get_paths()]
    shapes += [patch.get_transform().transform_path(patch.get_path()) for patch in ax.patches
               if patch.get_visible() and patch.get_zorder() >= BACKGROUND_ZORDER]
    points = np.concatenate(points) if points else np.empty((0, 2))
    points = points[np.all(np.isfinite(points), axis=1)]
    notes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text().strip()]

    def covered(box) -> int:
        inside = (points[:, 0] > box.x0) & (points[:, 0] < box.x1) & (points[:, 1] > box.y0) & (points[:, 1] < box.y1)
        return (int(inside.sum()) + SHAPE * sum(bool(path.intersects_bbox(box, filled=True)) for path in shapes)
                + SHAPE * sum(box.overlaps(note) for note in notes))
    return covered


def _best_place(ax, ncols, renderer):
    """(legend, what it covers) at the place and number of columns that cover least; a
    legend wider or taller than the panel, reaching onto its tick labels or a neighbour,
    counts as covering a shape."""
    covered, frame = data_under(ax, renderer), ax.bbox

    def cost(box):
        beyond = box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1
        return covered(box) + SHAPE * beyond
    found = {(loc, ncol): cost(ax.legend(loc=loc, ncol=ncol).get_window_extent(renderer))
             for ncol in ncols for loc in LEGEND_PLACES}
    loc, ncol = min(found, key=found.get)
    return ax.legend(loc=loc, ncol=ncol), found[loc, ncol]


def clear_legend(ax, ncols=(1, 2)):
    """The legend where it covers none of the panel's data (the points of its lines and
    markers, its bands and boxes, its notes), of the standard places in one or two columns
    (matplotlib's "best" keeps one column and lets a legend lie on a band); where every place
    covers some, the top of the axis (linear or logarithmic) is raised until the data sit
    below the legend.  :func:`finish` places it again once the figure is laid out."""
    if not ax.get_legend_handles_labels()[0]:
        return None
    if ax in _PLACED:
        ax.set_ylim(*_PLACED[ax][1])
    _PLACED[ax] = (ncols, ax.get_ylim())
    return _place(ax, ncols)


def _place(ax, ncols):
    """:func:`clear_legend`'s search from the axis' present limits, raising its top as needed."""
    renderer = ax.figure.canvas.get_renderer()
    for _ in range(RAISES):
        legend, covered = _best_place(ax, ncols, renderer)
        if covered == 0:
            return legend
        # nowhere clear: raise the top of the axis until the data sit below a legend along the
        # top (again if that brings data above the old top into view)
        legend = ax.legend(loc="upper right", ncol=max(ncols))
        height = legend.get_window_extent(renderer).transformed(ax.transAxes.inverted()).height
        share = max(1.0 - height - 0.03, 0.3)           # of the axis' height left to the data
        lo, hi = ax.get_ylim()
        if ax.get_yscale() == "log" and lo > 0 and hi > 0:
            ax.set_ylim(lo, lo * (hi / lo) ** (1.0 / share))
        elif ax.get_yscale() == "linear":
            ax.set_ylim(lo, lo + (hi - lo) / share)
        else:
            break
    return _best_place(ax, ncols, renderer)[0]


def finish(fig, rect=None):
    """Lay the figure out (``tight_layout``), then place every legend :func:`clear_legend`
    placed on it again, at the panels' final size (a legend clear of the data before the
    layout may not be after it), and lay it out again.  Each is placed twice, from the
    limits it had before any raise: a raised axis shared with another moves the other's data
    too.  Returns the figure."""
    kw = {} if rect is None else {"rect": rect}
    fig.tight_layout(**kw)
    placed = [ax for ax in fig.axes if ax in _PLACED]
    if placed:
        for ax in placed:
            ax.set_ylim(*_PLACED[ax][1])
        for ax in placed + placed:
            _place(ax, _PLACED[ax][0])
        fig.tight_layout(**kw)
    return fig


#: the most panels a figure of one panel per time draws (``binn fit``'s solutions, ``binn predict``'s
#: predictions); beyond it, :func:`shown_times` chooses them (the tables hold every time)
MAX_PANELS = 12


def shown_times(n: int) -> np.ndarray:
    """The indices of the times of ``n`` that a figure of one panel per time draws: all of them
    up to :data:`MAX_PANELS`, else that many evenly chosen, the first and the last among them."""
    return np.unique(np.linspace(0, n - 1, min(n, MAX_PANELS)).round().astype(int))


def grid_axes(n: int, ncol: int = 3, w: float = 3.8, h: float = 3.2, sharey=True):
    """A figure of ``n`` panels in rows of ``ncol`` (the spare ones hidden): (figure, grid, the n axes)."""
    ncol = max(1, min(ncol, n))
    nrow = -(-n // ncol)
    fig, grid = plt.subplots(nrow, ncol, figsize=(w * ncol, h * nrow), sharey=sharey, squeeze=False)
    for spare in grid.ravel()[n:]:
        spare.axis("off")
    return fig, grid, grid.ravel()[:n]


# ----------------------------------------------------------------------------- heat maps
HEATMAP_FONTSIZE = 12  # numbers in the cells, at most (smaller where a cell is too narrow)


def heat_archs(heat) -> list:
    """The networks of a heat map's rows and columns, smallest first (``heat`` as for
    :func:`architecture_heatmap`)."""
    flat = heat.reset_index()
    return sorted(set(flat["arch_D"]) | set(flat["arch_V"]), key=lambda a: (a[0] * a[1], a))


def _heat_matrix(heat, column: str, norm: str):
    """(archs, matrix[i_D, j_V], notes[i_D][j_V]) of ``heat[column]`` in ``norm``: "k failed"
    where forward solves failed, "not run" where no setting is."""
    flat = heat.reset_index()
    flat = flat[flat["norm"] == norm]
    archs = heat_archs(heat)
    M = np.full((len(archs), len(archs)), np.nan)
    notes = [["" for _ in archs] for _ in archs]
    cells = {(r["arch_D"], r["arch_V"]): r for r in flat.to_dict("records")}
    for i, aD in enumerate(archs):
        for j, aV in enumerate(archs):
            cell = cells.get((aD, aV))
            if cell is None:
                notes[i][j] = "not run"
                continue
            if cell["count"]:
                M[i, j] = cell[column]
            if cell["failed"]:
                notes[i][j] = f"{int(cell['failed'])} failed"
    return archs, M, notes


def architecture_heatmap(ax, heat, column="mean", norm="frobenius", cbar_label="", title=None):
    """Heat map of ``heat[column]`` (a statistic over replicates of the error of u_p, as a
    chapter computed it: one row per norm, D network and V network, with "count" and
    "failed") in ``norm`` for every (D, V) combination (rows: D network, columns: V network;
    logarithmic colour scale); failed forward solves are left out of the statistic and
    counted in the cell ("k failed"), a cell where all failed says so.  Returns (archs,
    matrix, notes)."""
    archs, M, notes = _heat_matrix(heat, column, norm)
    labels = [arch_label(a) for a in archs]
    plotting.heatmap(ax, M, labels, labels, fmt="{:.3g}", notes=notes, log=True, cbar_label=cbar_label,
                     fontsize=HEATMAP_FONTSIZE)
    ax.set_xlabel("$V_\\zeta$ network $(h_V, n_V)$")
    ax.set_ylabel("$D_\\phi$ network $(h_D, n_D)$")
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title)
    ax.set_gid(f"heatmap:{column}:{norm}")
    return archs, M, notes
