"""Our runs beside the authors' archived ones (``binn_utils.analysis.authors_archive``): the
chapters' figure of both sources' errors per setting, every run a dot and the median with
the interquartile range a marker and bar, from the long table and its group-by that the
chapter computes (``binn_utils.analysis.results_table``)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import plotting
from ..analysis.reporting import value_label
from .panels import ABOVE
from .plotting import COLORS
from .tables import NORM_WORDS, QUANTITY_WORDS


#: (source, data) -> how its runs are drawn: ours on our data, ours on the authors' data, the authors' own
SOURCE_STYLE = {("ours", "ours"): dict(marker="o", offset=-0.22, filled=True),
                ("ours", "authors"): dict(marker="D", offset=0.0, filled=True),
                ("authors", "authors"): dict(marker="s", offset=0.22, filled=False)}


def authors_comparison_figure(runs, stats, by, panels, label_fn=value_label, xlabel="",
                              authors_label="authors' archive", ours_label="ours",
                              ours_on_theirs_label="ours on the authors' data", width=10.0, height=3.9):
    """Our runs beside the authors' archived ones, one panel per (quantity, norm) of
    ``panels``: for each value of the column(s) ``by``, every run as a dot (``runs``: the
    long table of ``results_table.long``), and the median with the interquartile range as a
    marker and bar (``stats``: ``runs`` grouped by ``by``, source, data, quantity and norm,
    with ``describe()``'s columns "count", "25%", "50%", "75%").  Ours on our data left
    (filled circles), ours on the authors' data (``data == "authors"``, where ``runs`` has
    them) in the middle (filled diamonds), the authors' right (open squares).  ``label_fn``: a value of ``by`` (a tuple for several columns)
    -> its tick label."""
    by = [by] if isinstance(by, str) else list(by)

    def keys(df):
        return list(zip(*(df[c] for c in by))) if len(by) > 1 else list(df[by[0]])

    values = sorted(set(keys(runs)))
    pos = {v: i for i, v in enumerate(values)}
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, height * len(panels)), squeeze=False)
    for ax, (quantity, norm) in zip(axes[:, 0], panels):
        color = COLORS["u_theta" if quantity == "err_u_theta" else "u_p"]
        labels = {("ours", "ours"): ours_label, ("ours", "authors"): ours_on_theirs_label,
                  ("authors", "authors"): authors_label}
        for (source, data), style in SOURCE_STYLE.items():
            sel = runs[(runs["source"] == source) & (runs["data"] == data) & (runs["quantity"] == quantity)
                       & (runs["norm"] == norm)]
            st = stats[(stats["source"] == source) & (stats["data"] == data) & (stats["quantity"] == quantity)
                       & (stats["norm"] == norm)]
            st = st[st["count"] > 0]
            if sel.empty and st.empty:
                continue
            x = np.array([pos[k] for k in keys(sel)], float) + style["offset"]
            ax.plot(x, sel["value"], ".", color=color, alpha=0.35, ms=4, zorder=2)
            xs = np.array([pos[k] for k in keys(st)], float) + style["offset"]
            label = labels[source, data]
            ax.errorbar(xs, st["50%"], yerr=[st["50%"] - st["25%"], st["75%"] - st["50%"]], fmt=style["marker"],
                        color=color, mfc=color if style["filled"] else "white", mec=color, ms=7, capsize=3,
                        lw=1.3, zorder=3, label=label)
        ax.set_yscale("log")
        plotting.plain_log_ticks(ax)
        ax.set_xticks(range(len(values)))
        ticks = [label_fn(v) for v in values]
        slot_pt = 72 * 0.85 * width / len(values)  # the axes take about 85 % of the width
        ax.set_xticklabels(ticks, fontsize=plotting.fitted_size(fig, ticks, plt.rcParams["font.size"] - 1,
                                                                plotting.CELL_FILL * slot_pt))
        ax.set_xlim(-0.6, len(values) - 0.4)
        ax.set_ylabel(f"rel. error of {QUANTITY_WORDS[quantity]}\n({NORM_WORDS[norm]} norm)")
        ax.set_xlabel(xlabel)
        ax.legend(**ABOVE)
    fig.tight_layout()
    return fig
