"""Where the texts of a drawn figure run into each other: every text a reader sees (tick
labels, axis and colour-bar labels, offsets, titles, the suptitle, legend entries and
titles, notes and annotations) as the rectangle its glyphs take, measured with the figure's
renderer in display pixels, and the pairs of them closer than ``GAP``.

A rotated text is its own rotated rectangle (not the upright box around it, which for a
label at 45 degrees is twice as large and touches its neighbours' while the glyphs do not).
The entries of one legend are laid out by the legend and never collide with each other;
the tick labels of an axes' two axes meet at its corner by design (matplotlib pads them
apart, and a text's box holds the room below its baseline, which digits leave empty): they
collide only where they overlap by more than ``GAP``.  :func:`plotting.save` records what this finds
for every figure it saves (:func:`plotting.record_layout`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.text import Annotation

#: Two texts closer than this (display pixels at 100 dpi, i.e. 2.88 points) run together.
GAP = 4.0


@dataclass(frozen=True, eq=False)
class PlacedText:
    """A text as drawn: its artist, what it is (``role``), the panel it belongs to (1-based
    index in the figure's axes; 0: the figure's own), the group inside which texts never
    collide (one legend), and its rectangle (4 corners, display pixels, in order around it)."""
    artist: object
    role: str
    panel: int
    group: object
    corners: np.ndarray

    def words(self) -> str:
        where = f"panel {self.panel}" if self.panel else "figure"
        return f"{self.role} {self.artist.get_text()!r} ({where})"


@dataclass(frozen=True, eq=False)
class Collision:
    first: PlacedText
    second: PlacedText

    def words(self) -> tuple[str, str]:
        return self.first.words(), self.second.words()


def text_collisions(fig, gap: float = GAP, texts=None) -> list[Collision]:
    """The pairs of visible texts of ``fig`` (``texts``: its :func:`drawn_texts`, drawn
    here when not given) whose rectangles, each grown by half of ``gap`` (display pixels at
    100 dpi) on every side, overlap."""
    texts = drawn_texts(fig) if texts is None else texts
    if not texts:
        return []
    px = gap * fig.dpi / 100.0
    grown = [_grown(t.corners, px / 2) for t in texts]
    lo = np.array([c.min(axis=0) for c in grown]).reshape(-1, 2)
    hi = np.array([c.max(axis=0) for c in grown]).reshape(-1, 2)
    near = np.all((lo[:, None, :] < hi[None, :, :]) & (lo[None, :, :] < hi[:, None, :]), axis=2)
    out = []
    for i, j in zip(*np.nonzero(np.triu(near, k=1))):
        a, b = texts[i], texts[j]
        if a.group is not None and a.group is b.group:
            continue
        if _corner_pair(a, b):        # the tick labels of one axes' x and y axes: only where they overlap
            if _overlap(_grown(a.corners, -px / 2), _grown(b.corners, -px / 2)):
                out.append(Collision(a, b))
        elif _overlap(grown[i], grown[j]):
            out.append(Collision(a, b))
    return out


def drawn_texts(fig) -> list[PlacedText]:
    """Every text of ``fig`` a reader sees (drawn here): visible, not empty, with a finite
    rectangle, and not hidden (a tick outside the view, an annotation whose point is
    clipped, a clipped text outside its clip box)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found: list[tuple[object, str, int, object]] = []
    _figure_texts(fig, renderer, found, [])
    seen, out = set(), []
    for artist, role, panel, group in found:
        if id(artist) in seen or not _shown(artist, renderer):
            continue
        seen.add(id(artist))
        corners = _rectangle(artist, renderer)
        if corners is not None:
            out.append(PlacedText(artist, role, panel, group, corners))
    return out


def _figure_texts(fig, renderer, found, panels):
    """(artist, role, panel, group) of the texts of a figure or subfigure and its axes."""
    for text in fig.texts:
        found.append((text, "suptitle" if text is getattr(fig, "_suptitle", None) else "figure text", 0, None))
    for legend in fig.legends:
        _legend_texts(legend, 0, found)
    for ax in fig.axes:
        _axes_texts(ax, renderer, found, panels)
    for sub in getattr(fig, "subfigs", ()):
        _figure_texts(sub, renderer, found, panels)


def _axes_texts(ax, renderer, found, panels):
    if ax in panels or not ax.get_visible():
        return
    panels.append(ax)
    k = len(panels)
    if ax.axison:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            for tick in _drawn_ticks(ax, axis, name):
                for label in (tick.label1, tick.label2):
                    found.append((label, f"{name} tick label", k, None))
            found.append((axis.label, f"{name} axis label", k, None))
            found.append((axis.offsetText, f"{name} offset", k, None))
    for title in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
        if title is not None:
            found.append((title, "title", k, None))
    for text in ax.texts:
        found.append((text, "annotation" if isinstance(text, Annotation) else "note", k, None))
    if ax.get_legend() is not None:
        _legend_texts(ax.get_legend(), k, found)
    for child in getattr(ax, "child_axes", ()):
        _axes_texts(child, renderer, found, panels)


def _legend_texts(legend, panel, found):
    if legend.get_visible():
        for text in (legend.get_title(), *legend.get_texts()):
            found.append((text, "legend", panel, legend))


def _drawn_ticks(ax, axis, name):
    """The ticks of ``axis`` drawn: those within the axes' extent along it."""
    lo, hi = (ax.bbox.x0, ax.bbox.x1) if name == "x" else (ax.bbox.y0, ax.bbox.y1)
    to_px = ax.get_xaxis_transform() if name == "x" else ax.get_yaxis_transform()
    ticks = []
    for locs, get in ((axis.get_majorticklocs(), axis.get_major_ticks),
                      (axis.get_minorticklocs(), axis.get_minor_ticks)):
        if not len(locs):
            continue
        for loc, tick in zip(locs, get(len(locs))):
            xy = to_px.transform((loc, 0.0) if name == "x" else (0.0, loc))
            px = xy[0] if name == "x" else xy[1]
            if np.isfinite(px) and lo - 1.0 <= px <= hi + 1.0:
                ticks.append(tick)
    return ticks


def _shown(text, renderer) -> bool:
    if not text.get_visible() or not text.get_text().strip():
        return False
    if isinstance(text, Annotation) and not text._check_xy(renderer):   # its point clipped: not drawn
        return False
    box = text.get_window_extent(renderer)
    if not (np.all(np.isfinite(box.get_points())) and box.width > 0 and box.height > 0):
        return False
    clip = text.get_clip_box() if text.get_clip_on() else None
    return clip is None or box.overlaps(clip)


def _rectangle(text, renderer):
    """The rectangle ``text`` takes (4 corners in order, display pixels): its window
    extent, or for a text rotated other than by a multiple of 90 degrees, its upright size
    turned by its rotation about the extent's centre (which is the rectangle's)."""
    box = text.get_window_extent(renderer)
    angle = float(text.get_rotation())
    if abs((angle + 45.0) % 90.0 - 45.0) < 1e-6:
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    text.set_rotation(0.0)
    try:
        upright = text.get_window_extent(renderer)
    finally:
        text.set_rotation(angle)
    w, h = upright.width / 2, upright.height / 2
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    return centre + corners @ np.array([[c, s], [-s, c]])


def _grown(corners, px):
    """The rectangle ``corners`` grown by ``px`` on every side (along its own edges)."""
    centre = corners.mean(axis=0)
    u = corners[1] - corners[0]
    v = corners[3] - corners[0]
    u_hat = u / max(np.hypot(*u), 1e-12)
    v_hat = v / max(np.hypot(*v), 1e-12)
    return np.array([centre + (su * (np.hypot(*u) / 2 + px)) * u_hat + (sv * (np.hypot(*v) / 2 + px)) * v_hat
                     for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _overlap(a, b) -> bool:
    """Whether two rectangles (corners in order) overlap: no edge direction separates them."""
    for poly in (a, b):
        for edge in (poly[1] - poly[0], poly[3] - poly[0]):
            normal = np.array([-edge[1], edge[0]])
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def _corner_pair(a: PlacedText, b: PlacedText) -> bool:
    return (a.panel == b.panel and a.panel != 0 and {a.role, b.role} == {"x tick label", "y tick label"})
