"""Everything a figure draws, read from the drawn matplotlib figure itself, as one tidy table.

:func:`plotting.save` writes it beside every figure as ``NAME_drawn.csv``
(``book/figure-data/`` in the book build), and the book links it under the figure with
:data:`WORDS`: what a table of results or curves holds may differ from what a figure
shows (one initialisation of fifty, a weighted loss), the figure's own artists cannot.

One row per point of each line and marker set, per abscissa of a band, per segment of an
error bar, per box, bar or shaded range, per heat-map cell and per note, with its panel
(numbered left to right, top to bottom), the panel's title and axis labels (their units),
the series (the legend entry of the artist, or of the labelled artist of the same colour
and style that it continues: the second observation time of a series drawn once per time),
the part of the series (what :func:`tag` named: "mean", "t = 0.5", "whisker"), its kind,
style and colour, and its coordinates in the axes' units.  Colour-bar panels and the
figure's legends are not data and are left out.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Annotation, Text
from matplotlib.ticker import FixedLocator, ScalarFormatter

#: The table's columns (no underscores: the book names them in its sentences).
COLUMNS = ("panel", "title", "xlabel", "ylabel", "series", "part", "kind", "style", "colour",
           "x", "y", "xtick", "ytick", "xmin", "xmax", "ymin", "ymax", "value")
#: The sentence under every figure of the book, after the link to its table.
WORDS = ("one row per point drawn (a band: one per abscissa; a box, bar, shaded range, heat-map cell or "
         "note: one), in the columns panel (left to right, top to bottom), title, xlabel and ylabel (with "
         "the axes' units, where they have any), series (the legend's entry), part, kind, style, colour, "
         "x and y, xtick and ytick (a categorical axis' label), xmin, xmax, ymin and ymax (a band's, box's "
         "or bar's extent) and value (a heat-map cell's)")
#: Between a series and its part in an artist's gid (:func:`tag`).
SEP = " | "
#: Line styles in words.
LINE_STYLES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
#: TeX of the figures' labels in plain text.
TEX = {r"\theta": "θ", r"\phi": "φ", r"\zeta": "ζ", r"\sigma": "σ", r"\pm": "±", r"\lesssim": "≲",
       r"\gtrsim": "≳", r"\times": "×", r"\mu": "µ", r"\,": " ", r"\ ": " "}


def link_md(name: str) -> str:
    """The Markdown under a figure written by a notebook's output (a page's Markdown cell writes
    the same with ``{glue:text}`drawn_words```): the link to ``NAME_drawn.csv`` in the book's
    figure data, then :data:`WORDS`."""
    return f"{{download}}`Everything this figure draws </book/figure-data/{name}_drawn.csv>` (CSV): {WORDS}."


def tag(artist, part: str, series: str | None = None):
    """Name what ``artist`` is in its figure's table: ``part`` (e.g. "mean", "t = 0.5"), and
    its ``series`` where it has no legend entry and none can be told by its colour and
    style.  Returns the artist."""
    artist.set_gid(part if series is None else f"{series}{SEP}{part}")
    return artist


def plain(text) -> str:
    """A label without TeX: ``$u_\\mathrm{p}$`` -> ``u_p``, ``$\\sigma^2$`` -> ``σ^2``; line
    breaks as spaces."""
    text = str(text or "")
    text = re.sub(r"\\(?:mathrm|text|mathit|mathbf)\{([^{}]*)\}", r"\1", text)
    for tex, word in TEX.items():
        text = text.replace(tex, word)
    text = text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(text.split())


def drawn_table(fig) -> pd.DataFrame:
    """Every artist ``fig`` draws in its panels, one row per point (module docstring)."""
    rows = []
    for number, ax in enumerate(data_axes(fig), start=1):
        head = {"panel": number, "title": plain(ax.get_title() or ax.get_title("left")),
                "xlabel": plain(_shared_label(ax, "x")), "ylabel": plain(_shared_label(ax, "y"))}
        panel_rows, before = [], {}
        for artist in drawn_artists(ax):
            who = _who(ax, artist, before)
            before[artist] = who["series"]
            panel_rows += [{**who, **row} for row in _rows(ax, artist)]
        _categories(ax, panel_rows)
        rows += [{**head, **row} for row in panel_rows]
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    return table


def data_axes(fig) -> list:
    """The panels of ``fig`` that draw data (not colour bars, not panels switched off),
    left to right, top to bottom."""
    bars = {m.colorbar.ax for ax in fig.axes for m in (*ax.images, *ax.collections)
            if getattr(m, "colorbar", None) is not None}
    axes = [ax for ax in fig.axes if ax not in bars and ax.axison and ax.get_visible()]
    return sorted(axes, key=lambda ax: (-round(ax.get_position().y1, 2), round(ax.get_position().x0, 2)))


def _shared_label(ax, axis: str) -> str:
    """The panel's label of ``axis``, or, where it has none, that of a panel sharing the axis
    (panels one above the other label their common x axis once)."""
    own = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
    if own:
        return own
    shared = ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()
    labels = [a.get_xlabel() if axis == "x" else a.get_ylabel() for a in shared.get_siblings(ax)]
    return next((label for label in labels if label), "")


def drawn_artists(ax) -> list:
    """The visible artists of a panel that draw data (its lines, collections, patches, images
    and notes; not its spines, titles, axes or legend), in drawing order."""
    drawn = {*ax.lines, *ax.collections, *ax.patches, *ax.images, *ax.texts}
    return [a for a in ax.get_children() if a in drawn and a.get_visible()]


def _rows(ax, artist) -> list[dict]:
    """The rows of one artist (none for one that is not data)."""
    if isinstance(artist, Line2D):
        return _line_rows(ax, artist)
    if isinstance(artist, PathCollection):
        xy = _to_data(ax, artist.get_offset_transform(), artist.get_offsets())
        return [{"x": x, "y": y} for x, y in xy if np.isfinite(x) and np.isfinite(y)]
    if isinstance(artist, LineCollection):
        return [_extent(_to_data(ax, artist.get_transform(), seg)) for seg in artist.get_segments() if len(seg)]
    if isinstance(artist, PolyCollection):
        return _band_rows(ax, artist)
    if isinstance(artist, Patch):
        box = _extent(_to_data(ax, artist.get_transform(), artist.get_path().vertices))
        if _in_bar(ax, artist):
            box["y"] = box["ymax"]
        return [box]
    if isinstance(artist, AxesImage):
        return _image_rows(artist)
    if isinstance(artist, Text) and artist.get_text().strip():
        return [{"x": x, "y": y, "part": plain(artist.get_text())} for x, y in [_text_at(ax, artist)]]
    return []


def _to_data(ax, transform, xy) -> np.ndarray:
    """Points in ``transform``'s coordinates as data coordinates of ``ax``."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    if transform == ax.transData or not len(xy):
        return xy
    with np.errstate(all="ignore"):
        return ax.transData.inverted().transform(transform.transform(xy))


def _line_rows(ax, line) -> list[dict]:
    xy = _to_data(ax, line.get_transform(), line.get_xydata())
    return [{"x": x, "y": y} for x, y in xy if np.isfinite(x) and np.isfinite(y)]


def _band_rows(ax, coll) -> list[dict]:
    """A filled region (``fill_between``): per abscissa of its outline, the lowest and highest
    ordinate."""
    rows = []
    for path in coll.get_paths():
        xy = _to_data(ax, coll.get_transform(), path.vertices)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        for x in np.unique(xy[:, 0]):
            y = xy[xy[:, 0] == x, 1]
            rows.append({"x": x, "ymin": y.min(), "ymax": y.max()})
    return rows


def _extent(xy) -> dict:
    """The bounding box of points (a box, bar, span or error bar), centred in x."""
    xy = np.asarray(xy, float)
    x0, x1, y0, y1 = np.nanmin(xy[:, 0]), np.nanmax(xy[:, 0]), np.nanmin(xy[:, 1]), np.nanmax(xy[:, 1])
    return {"x": 0.5 * (x0 + x1), "xmin": x0, "xmax": x1, "ymin": y0, "ymax": y1}


def _in_bar(ax, patch) -> bool:
    return any(isinstance(c, BarContainer) and patch in c.patches for c in ax.containers)


def _image_rows(image) -> list[dict]:
    """One row per cell of a heat map: its centre and value (NaN where nothing is drawn)."""
    a = np.ma.masked_invalid(np.ma.asarray(image.get_array(), float))
    if a.ndim != 2:
        return []
    left, right, bottom, top = image.get_extent()
    if image.origin == "upper":
        bottom, top = top, bottom
    n, m = a.shape
    return [{"x": left + (j + 0.5) * (right - left) / m, "y": bottom + (i + 0.5) * (top - bottom) / n,
             "value": np.nan if a.mask[i, j] else float(a[i, j])} for i in range(n) for j in range(m)]


def _text_at(ax, text) -> tuple[float, float]:
    """Where a note sits, in data coordinates (an annotation: the point it annotates, where in data)."""
    if text.get_transform() == ax.transData and not isinstance(text, Annotation):
        return tuple(float(v) for v in text.get_position())
    box = text.get_window_extent(ax.figure.canvas.get_renderer())
    with np.errstate(all="ignore"):
        at = ax.transData.inverted().transform([[0.5 * (box.x0 + box.x1), 0.5 * (box.y0 + box.y1)]])[0]
    if isinstance(text, Annotation):      # a coordinate given in data is kept as given
        coords = text.xycoords if isinstance(text.xycoords, tuple) else (text.xycoords,) * 2
        return tuple(float(text.xy[k]) if coords[k] == "data" else float(at[k]) for k in range(2))
    return float(at[0]), float(at[1])


# ----------------------------------------------------------------------------- whose rows
def _colour(artist) -> str:
    """An artist's colour as #rrggbb ("" for none)."""
    try:
        if isinstance(artist, Line2D):
            if artist.get_linestyle() in ("None", "", " ") and str(artist.get_markerfacecolor()).lower() == "none":
                return to_hex(artist.get_markeredgecolor())       # open markers: their edge's colour
            return to_hex(artist.get_color())
        if isinstance(artist, AxesImage):
            return ""
        if hasattr(artist, "get_facecolor"):
            face = np.atleast_2d(artist.get_facecolor())
            if face.size and face[0][-1] > 0:
                return to_hex(face[0])
        if hasattr(artist, "get_edgecolor"):
            edge = np.atleast_2d(artist.get_edgecolor())
            return to_hex(edge[0]) if edge.size else ""
        return to_hex(artist.get_color())
    except (ValueError, TypeError, AttributeError):
        return ""


def _kind_style(ax, artist) -> tuple[str, str]:
    if isinstance(artist, Line2D):
        ls, marker = LINE_STYLES.get(artist.get_linestyle(), ""), artist.get_marker()
        marked = marker not in (None, "None", "", " ")
        open_ = marked and str(artist.get_markerfacecolor()).lower() in ("none", "white", "#ffffff", "w")
        style = " ".join(s for s in (ls and f"{ls} line", marked and f"marker {marker}" + (" open" if open_ else "")) if s)
        if artist.get_transform() == ax.get_yaxis_transform():
            return "horizontal line", style
        if artist.get_transform() == ax.get_xaxis_transform():
            return "vertical line", style
        return ("line" if ls else "points"), style
    if isinstance(artist, PathCollection):
        face = np.atleast_2d(artist.get_facecolor())
        return "points", "filled markers" if face.size and face[0][-1] > 0 else "open markers"
    if isinstance(artist, LineCollection):
        return "error bar", ""
    if isinstance(artist, PolyCollection):
        return "band", ""
    if isinstance(artist, Patch):
        spans = artist.get_data_transform() == ax.get_xaxis_transform()
        return ("shaded x range" if spans else "bar" if _in_bar(ax, artist) else "shape"), ""
    if isinstance(artist, AxesImage):
        return "heat-map cell", ""
    return "note", ""


def _label(artist) -> str:
    label = artist.get_label()
    return "" if not label or str(label).startswith("_") else plain(label)


def _who(ax, artist, before: dict) -> dict:
    """The series, part, kind, style and colour of an artist's rows; ``before``: the artists
    of the panel drawn before it, each with its series."""
    kind, style = _kind_style(ax, artist)
    gid = artist.get_gid() or ""
    series, part = gid.split(SEP, 1) if SEP in gid else (None, gid)
    if series is None:
        series = _label(artist) or _container_label(ax, artist) or _series_like(ax, artist, kind, style, before)
    if isinstance(artist, AxesImage) and not series and artist.colorbar is not None:
        series = plain(artist.colorbar.ax.get_ylabel() or artist.colorbar.ax.get_xlabel())
    return {"series": plain(series), "part": plain(part), "kind": kind, "style": style, "colour": _colour(artist)}


def _container_label(ax, artist) -> str:
    """The legend entry of the bars or error bar ``artist`` is part of (``bar``, ``errorbar``
    label their container)."""
    for container in ax.containers:
        parts = [container.patches] if isinstance(container, BarContainer) else list(container)
        flat = [a for p in parts for a in (p if isinstance(p, (list, tuple)) else [p])]
        if any(a is artist for a in flat) and _label(container):
            return _label(container)
    return ""


#: Kinds that belong to no series by their colour alone (a reference line, the unobserved range).
NO_SERIES = ("shaded x range", "horizontal line", "vertical line")


def _series_like(ax, artist, kind, style, before: dict) -> str:
    """The series an unlabelled artist continues: the legend entry of a labelled artist of the
    panel with its colour and style (the same curve at another time); for a band, the series of
    the curve of its colour drawn just before it (its mean or median); else the legend entry of
    a labelled artist of its colour.  Where several are, the nearest in drawing order."""
    colour = _colour(artist)
    if not colour or kind in NO_SERIES:
        return ""
    children = drawn_artists(ax)
    here = children.index(artist)
    labelled = [(abs(k - here), a) for k, a in enumerate(children) if _label(a) and _colour(a) == colour]
    same = [(d, a) for d, a in labelled if _kind_style(ax, a) == (kind, style)]
    if same:
        return _label(min(same, key=lambda p: p[0])[1])
    if kind == "band":
        curves = [a for a in before if isinstance(a, Line2D) and _colour(a) == colour and before[a]]
        if curves:
            return before[curves[-1]]
    return _label(min(labelled, key=lambda p: p[0])[1]) if labelled else ""


def _categories(ax, rows: list[dict]):
    """The tick label of a categorical axis (ticks placed and labelled, ``set_xticklabels``) next
    to each row's position on it: the nearest tick within half the ticks' spacing."""
    for axis, key in ((ax.xaxis, "x"), (ax.yaxis, "y")):
        formatter = axis.get_major_formatter()
        if not isinstance(axis.get_major_locator(), FixedLocator) or isinstance(formatter, ScalarFormatter):
            continue                  # ticks placed by value, or numbers at chosen places
        locs = np.asarray(axis.get_majorticklocs(), float)
        labels = [plain(s) for s in formatter.format_ticks(locs)]
        n = min(len(locs), len(labels))
        if not n:
            continue
        locs, labels = locs[:n], labels[:n]
        half = 0.5 * (np.min(np.diff(np.sort(locs))) if n > 1 else 1.0)
        for row in rows:
            v = row.get(key)
            if v is None or not np.isfinite(v):
                continue
            k = int(np.argmin(np.abs(locs - v)))
            if abs(locs[k] - v) <= half + 1e-9:
                row[f"{key}tick"] = labels[k]
