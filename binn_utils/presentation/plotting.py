"""Figure panels shared by the notebooks (the paper's colour code and layout).

Colours follow Fig. 1: u_theta blue, u_p orange, D green, G purple, V brown; dashed black
is the truth.  Bands are +-1 standard deviation over replicates (as the paper's captions)
for solutions and operators, and the interquartile range for loss curves.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import Formatter

from ..analysis.user_data import MECHANISMS
from .drawn_data import drawn_table, tag
from .text_layout import drawn_texts, text_collisions

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


def band(ax, x, vals, color, label, lw=1.4, alpha=0.25, ls="-", part=""):
    """Mean +- 1 std over replicates (axis 0) of vals; replicates with any NaN are left out.
    ``part``: what the curve is of its series (e.g. its time), in its figure's table."""
    vals = np.asarray(vals, dtype=float)
    ok = np.all(np.isfinite(vals), axis=tuple(range(1, vals.ndim)))
    if not ok.any():
        return
    v = vals[ok]
    mean, std = v.mean(axis=0), v.std(axis=0)
    after = f", {part}" if part else ""
    tag(ax.plot(x, mean, color=color, lw=lw, label=label, ls=ls)[0], f"mean{after}")
    tag(ax.fill_between(x, mean - std, mean + std, color=color, alpha=alpha, lw=0), f"mean ± 1 sd{after}")


_band = band


def solution_panel(ax, x, t, pred, true=None, which_times="all", color="tab:blue", label="",
                   obs=None):
    """Mean +- std over replicates of pred (R, n_t, n_x) at the chosen times, truth dashed."""
    idx = range(len(t)) if which_times == "all" else ([len(t) - 1] if which_times == "end" else which_times)
    for k, i in enumerate(idx):
        at = f"t = {t[i]:.4g}"
        band(ax, x, np.asarray(pred)[:, i], color, label if k == 0 else None, part=at)
        if true is not None:
            tag(ax.plot(x, true[i], "k--", lw=0.9, label="truth" if k == 0 else None)[0], at)
        if obs is not None:
            tag(ax.plot(x, obs[i], ".", color="0.6", ms=2, label="observations" if k == 0 else None)[0], at)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$u$")


def shade_unobserved(ax, u_range, u_grid=None, *, color="0.9", alpha=1.0, label=None, **kw):
    """Grey out the parts of an operator plot's horizontal (u) axis outside ``u_range``.

    Operators are only identifiable over the observed range of u (paper, noise study).
    The shading spans the axis limits (call this after plotting), or ``u_grid``'s extent
    if given; the limits are kept.  ``label``: its legend entry (None: none).  Returns the
    list of patches added.
    """
    lim = ax.get_xlim()
    patches = []
    for x0, x1 in unobserved_spans(u_range, lim if u_grid is None else u_grid):
        patches.append(tag(ax.axvspan(x0, x1, color=color, alpha=alpha, lw=0, zorder=0, label=label, **kw),
                           "u not observed"))
        label = None
    ax.set_xlim(*lim)
    return patches


def unobserved_spans(u_range, u_grid) -> list[tuple[float, float]]:
    """The parts of ``u_grid``'s extent outside the observed ``u_range``: what
    :func:`shade_unobserved` greys out (empty where the data cover every drawn u).  A part
    narrower than ``UNOBSERVED_MIN`` of the extent (e.g. data whose minimum is 1e-17 on a
    grid from 0) would be invisible, and is left out."""
    lo, hi = (float(v) for v in u_range)
    x0, x1 = float(np.min(u_grid)), float(np.max(u_grid))
    tol = UNOBSERVED_MIN * (x1 - x0)
    return [span for span, outside in (((x0, lo), lo - x0 > tol), ((hi, x1), x1 - hi > tol)) if outside]


#: The narrowest unobserved part of an operator axis that is shaded (fraction of its extent).
UNOBSERVED_MIN = 0.005


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
    with warnings.catch_warnings():      # epochs after every replicate diverged: NaN, drawn as a gap
        warnings.simplefilter("ignore", RuntimeWarning)
        med = np.nanmedian(c, axis=0)
        q1, q3 = np.nanpercentile(c, [25, 75], axis=0)
    line = tag(ax.plot(epochs, med, color=color, ls=ls, label=label, lw=1.2)[0], "median")
    tag(ax.fill_between(epochs, q1, q3, color=line.get_color(), alpha=0.2, lw=0), "interquartile range")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")


def box_stats(values, q1, median, q3, whis=1.5) -> dict:
    """One box of :func:`error_boxes` (``Axes.bxp``'s statistics): the given quartiles and
    median of the finite ``values``, whiskers to the furthest value within ``whis``
    interquartile ranges of the box (Tukey's rule, as ``Axes.boxplot`` draws it), the values
    beyond as dots."""
    values = np.asarray(values, float)
    reach = whis * (q3 - q1)
    below, above = values[values >= q1 - reach], values[values <= q3 + reach]
    low = q1 if not below.size or below.min() > q1 else below.min()
    high = q3 if not above.size or above.max() < q3 else above.max()
    return {"q1": q1, "med": median, "q3": q3, "whislo": low, "whishi": high,
            "fliers": np.concatenate([values[values < low], values[values > high]])}


#: The parts of a box plot in its figure's table.
BOX_PARTS = {"whiskers": "whisker", "caps": "whisker end", "medians": "median",
             "fliers": "beyond the whiskers"}


def error_boxes(ax, stats, positions, color, width=None, label=None):
    """Box plots of per-replicate errors from their statistics (:func:`box_stats`, one per
    position), in ``color``; ``label``: a legend entry."""
    pos = np.asarray(positions, float)
    w = width or (0.25 * np.min(np.diff(pos)) if len(pos) > 1 else 0.4)
    if stats:
        bp = ax.bxp(stats, positions=pos, widths=w, patch_artist=True, manage_ticks=False, showfliers=True,
                    flierprops=dict(ms=2, mec=color), boxprops={"linestyle": "solid"}, whiskerprops={},
                    capprops={}, medianprops={}, meanprops={})
        for b in bp["boxes"]:
            tag(b, "box: quartiles").set(facecolor=color, alpha=0.5, edgecolor=color)
        for part in ("whiskers", "caps", "medians"):
            for line in bp[part]:
                tag(line, BOX_PARTS[part]).set(color=color)
        for line in bp["fliers"]:
            tag(line, BOX_PARTS["fliers"])
    if label:
        ax.plot([], [], "s", color=color, alpha=0.5, label=label)
    return pos


#: A heat map's text takes at most this share of its cell's width.
CELL_FILL = 0.85


def fitted_size(fig, texts, size: float, width_pt: float) -> float:
    """The largest font size up to ``size`` at which every one of ``texts`` is at most
    ``width_pt`` points wide (measured with the figure's renderer)."""
    probe = fig.text(0, 0, "", fontsize=size)
    renderer = fig.canvas.get_renderer()
    widest = 0.0
    for t in texts:
        probe.set_text(str(t))
        widest = max(widest, probe.get_window_extent(renderer).width * 72.0 / fig.dpi)
    probe.remove()
    return size if widest <= width_pt else size * width_pt / widest


def heatmap(ax, matrix, row_labels, col_labels, fmt="{:.3f}", cmap="viridis", cbar_label="", notes=None,
            log=False, fontsize=12):
    """Annotated heat map (row 0 at the bottom); ``notes``: optional extra text per cell
    (e.g. failure counts); ``log``: logarithmic colour scale."""
    from matplotlib.colors import LogNorm
    finite = np.asarray(matrix, float)[np.isfinite(matrix)]
    norm = LogNorm(finite.min(), finite.max()) if log and finite.size and finite.min() > 0 else None
    cm = plt.get_cmap(cmap).copy()
    cm.set_bad("0.55")  # cells where every replicate failed
    # cells as wide as the panel allows (not square): room for the numbers and the labels
    im = ax.imshow(np.ma.masked_invalid(matrix), cmap=cm, origin="lower", norm=norm, aspect="auto")
    texts = {}
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            v = matrix[i, j]
            text = "failed" if not np.isfinite(v) else fmt.format(v)
            if notes is not None and notes[i][j]:
                text += "\n" + notes[i][j]
            texts[i, j] = (text, np.isfinite(v) and im.norm(v) > 0.6)  # light cell (viridis): dark text
    cbar = plt.colorbar(im, ax=ax, label=cbar_label, shrink=0.8)
    # the cells' width once the colour bar has taken its room: the widest text must fit
    cell_pt = 72 * ax.get_position().width * ax.figure.get_size_inches()[0] / matrix.shape[1]
    size = fitted_size(ax.figure, [t for t, _ in texts.values()], fontsize, CELL_FILL * cell_pt)
    for (i, j), (text, light) in texts.items():
        ax.text(j, i, text, ha="center", va="center", fontsize=size, color="k" if light else "w")
    # column labels side by side under the cells: as wide as a cell at most
    tick = plt.rcParams["xtick.labelsize"]
    tick = tick if isinstance(tick, (int, float)) else plt.rcParams["font.size"]
    ax.set_xticks(range(len(col_labels)))
    ax.set_xticklabels(col_labels, fontsize=fitted_size(ax.figure, col_labels, tick, CELL_FILL * cell_pt))
    ax.set_yticks(range(len(row_labels)))
    ax.set_yticklabels(row_labels)
    if norm is not None and finite.max() < 10 * finite.min():   # under a decade: evenly spaced plain labels
        from matplotlib.ticker import MaxNLocator, NullLocator
        cbar.ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        # on the logarithmic bar the even steps crowd at the top: only those with room are labelled
        cbar.ax.yaxis.set_major_formatter(SpacedLabels(cbar.ax))
        cbar.ax.yaxis.set_minor_locator(NullLocator())
    elif norm is not None:
        plain_log_ticks(cbar.ax, "y")
    return cbar


class SpacedLabels(Formatter):
    """Plain labels (``{:.3g}``) on the ticks of an axes' vertical axis, from the bottom up,
    leaving out each whose centre would come closer than ``LABEL_ROOM`` font sizes to the
    label below it at the axis' drawn length (evenly spaced values on a logarithmic axis
    crowd at its top)."""

    def __init__(self, ax):
        self.ax = ax

    def __call__(self, x, pos=None):
        return f"{x:.3g}"

    def format_ticks(self, values):
        size = self.ax.yaxis.get_major_ticks(1)[0].label1.get_fontsize()
        need = LABEL_ROOM * size * self.ax.figure.dpi / 72.0
        lo, hi = sorted(self.ax.get_ylim())
        with np.errstate(all="ignore"):
            px = self.ax.transData.transform(np.column_stack([np.zeros(len(values)), values]))[:, 1]
        labels, below = [""] * len(values), -np.inf
        for i in np.argsort(px):
            if lo <= values[i] <= hi and np.isfinite(px[i]) and px[i] - below >= need:
                labels[i], below = self(values[i]), px[i]
        return labels


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


#: The minor ticks of a log axis that may carry a label, by the lead digit of each decade,
#: densest first; :func:`plain_log_ticks` takes the densest whose labels have room.
MINOR_LABEL_SETS = ((2, 3, 4, 5, 6, 7, 8, 9), (2, 3, 4, 5, 7), (2, 3, 5), (2, 5), ())
#: A tick label needs this many times its font size (in the axis' direction) between its
#: centre and the next label's: its own height or width plus a gap.
LABEL_ROOM = 1.3


def _gaps(digits) -> np.ndarray:
    """The gaps (in decades) between consecutive labelled ticks of one decade."""
    return np.diff(np.log10((1,) + tuple(digits) + (10,)))


def plain_log_ticks(ax, axis="y"):
    """Tick labels like 0.03 instead of 3x10^-2 on a log axis.  Minor ticks are labelled
    where there is room for them: of ``MINOR_LABEL_SETS`` the densest whose neighbouring
    labels keep ``LABEL_ROOM`` font sizes apart at the axis' drawn length (so on a short
    or long axis, a colour bar say, labels never overlap).  The lowest tick in view is
    labelled too where it has that room, so that the bottom of the axis, where the
    smallest errors sit, has a number."""
    from matplotlib.ticker import FuncFormatter
    a = ax.yaxis if axis == "y" else ax.xaxis
    lim = ax.get_ylim if axis == "y" else ax.get_xlim

    def room(text: str) -> float:
        """Pixels a label needs along the axis, per decade of the axis' pixels."""
        size = a.get_major_ticks(1)[0].label1.get_fontsize()  # (not the labels: they call this)
        px = size * ax.figure.dpi / 72.0
        need = LABEL_ROOM * px if axis == "y" else (0.62 * len(text) + 0.8) * px
        box = ax.get_window_extent()
        lo, hi = sorted(lim())
        per_decade = (box.height if axis == "y" else box.width) / np.log10(hi / lo)
        return need / per_decade

    def minor(v, _):
        lo, hi = sorted(lim())
        if not (lo > 0 and hi > lo):
            return ""
        need = room(f"{v:g}")
        digits = next(d for d in MINOR_LABEL_SETS if not d or _gaps(d).min() >= need)
        lead = int(f"{v:.1e}"[0])
        if lead in digits:
            return f"{v:g}"
        first_in_view = v >= lo * (1 - 1e-9) and (lead - 1) * v / lead < lo
        above = min([d for d in digits if d > lead] + [10])
        return f"{v:g}" if first_in_view and np.log10(above / lead) >= need else ""

    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(FuncFormatter(minor))


def save(fig, output_dir, name: str, data=None, curves=None):
    """Save a figure as PNG into output_dir (created), return the path.  ``data``: the
    table the figure draws (a ``pandas.DataFrame``), written beside it by :func:`save_data`;
    ``curves``: the table of its curves (``results_table.curves``), written as ``NAME_curves``.
    Every figure's texts are checked for collisions, and what is found recorded
    (:func:`record_layout`), and everything it draws written as ``NAME_drawn``
    (``drawn_data.drawn_table``), also in the book build (no ``output_dir``, no PNG)."""
    drawn = drawn_table(fig)
    save_data(drawn, output_dir, f"{name}_drawn")
    record_layout(fig, output_dir, name, drawn=drawn)
    if data is not None:
        save_data(data, output_dir, name)
    if curves is not None:
        save_data(curves, output_dir, f"{name}_curves")
    if output_dir is None:
        return None
    path = Path(output_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight")
    return path


#: Where a chapter built into the book writes the table behind each figure (``NAME.csv``):
#: the link under the figure, ``{download}`...<../book/figure-data/NAME.csv>```, points
#: here, and the book build copies the file into the HTML.
FIGURE_DATA = Path(__file__).resolve().parents[2] / "book" / "figure-data"


def save_data(table, output_dir, name: str) -> Path:
    """Write the table a figure draws as ``NAME.csv``: next to the figure in ``output_dir``,
    or, without one (the book build), into ``FIGURE_DATA``.  Returns the path."""
    path = Path(output_dir if output_dir is not None else FIGURE_DATA) / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False, float_format="%.6g")
    return path


#: The folder (under a figure's, ``output_dir`` or ``FIGURE_DATA``) of its layout record.
LAYOUT = "layout"


def layout_path(output_dir, name: str) -> Path:
    """Where :func:`record_layout` writes the record of figure ``name``: ``layout/NAME.json``
    in ``output_dir``, or without one (the book build) in ``FIGURE_DATA``."""
    return Path(output_dir if output_dir is not None else FIGURE_DATA) / LAYOUT / f"{name}.json"


def record_layout(fig, output_dir, name: str, drawn=None) -> Path:
    """Check the texts of ``fig`` for collisions (``text_layout.text_collisions``) and write
    what was found as JSON to :func:`layout_path`: the figure's name, the number of texts
    checked and the colliding pairs, each two descriptions (empty when none collide); with
    ``drawn`` (its ``drawn_data.drawn_table``), how many rows that table has and the series it
    draws.  Returns the path."""
    texts = drawn_texts(fig)
    found = text_collisions(fig, texts=texts)
    path = layout_path(output_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"figure": name, "texts": len(texts),
              "collisions": [list(c.words()) for c in found]}
    if drawn is not None:
        record["drawn"] = {"rows": len(drawn), "panels": int(drawn["panel"].nunique()),
                           "series": sorted(set(drawn["series"].dropna()) - {""})}
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf8")
    return path


def layout_defects(names, folder=None) -> list[str]:
    """What the layout records in ``folder`` (default: the book build's, ``FIGURE_DATA/layout``)
    of the figures ``names`` say is wrong, one line each (empty when nothing is): a figure
    without a record, a record that cannot be read, and one that lists colliding texts (the
    records of figures no longer drawn are not read)."""
    folder = Path(folder) if folder is not None else FIGURE_DATA / LAYOUT
    names = sorted(set(names))
    out = [f"{name}: no layout record in {folder}" for name in names if not (folder / f"{name}.json").is_file()]
    for path in [folder / f"{name}.json" for name in names if (folder / f"{name}.json").is_file()]:
        try:
            collisions = json.loads(path.read_text(encoding="utf8"))["collisions"]
        except (ValueError, KeyError, TypeError) as e:
            out.append(f"{path.stem}: unreadable layout record ({e})")
            continue
        out += [f"{path.stem}: {' / '.join(pair)}" for pair in collisions]
    return out
