"""The paper's result figures (Figs. 1-6), one function each, shared by the section
notebooks and the Supporting Material notebook (which repeats them for other noise levels
and the dense grid); the figures of a fit to one's own data (``binn fit`` / ``binn predict``).
The diagnostics chapter's are in :mod:`binn_utils.presentation.diagnostic_figures`.

Each figure only draws: the numbers a panel plots from the results table (the quartiles of
a box, a heat map's cells) are computed by the chapter, in view, from
``binn_utils.analysis.results_table`` and passed in.  What the table does not hold is read
from the loaded results: solutions and operators (mean +- 1 std over replicates, dashed
black the truth, grey shading where u is unobserved) and validation-loss histories (median
and interquartile range over replicates), drawn by :mod:`binn_utils.presentation.panels`.
Box plots never drop failures silently: failed forward solves (u_p NaN) are counted at the
top of the axes, and trainings that diverged (stopped at their best-validation parameters
and kept in the boxes) are counted at the bottom.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from . import panels, plotting
from .. import studies
from ..analysis.reporting import arch_label, find, fmt, meta_value, value_label
from .drawn_data import tag
from .panels import ABOVE
from .plotting import COLORS
from ..studies.batch_size import SECONDS, time_fit

ARCH_COLORS = ("#1b9e77", "#7570b3", "#e7298a", "#66a61e")


# ----------------------------------------------------------------------------- Fig. 1
def _sorted(results, key):
    vals = sorted({meta_value(r, key) for r in results})
    return vals, [find(results, **{key: v}) for v in vals]


def framework_figure(res, network):
    """Fig. 1: u_theta and u_p of one network at every observation time (dashed: the truth),
    and its learned D, G and V (unobserved u shaded); ``network``: its row of the results
    table (its fields are read from ``res``, by its replicate index)."""
    x, t = res["x"], res["t"]
    r = int(network["replicate"])
    fig = plt.figure(figsize=(10, 7))
    gs = fig.add_gridspec(2, 6)
    axes = [fig.add_subplot(gs[0, :3]), fig.add_subplot(gs[0, 3:])] + [fig.add_subplot(gs[1, 2 * k:2 * k + 2])
                                                                        for k in range(3)]
    for ax, key in ((axes[0], "u_theta"), (axes[1], "u_p")):
        for i in range(len(t)):
            at = f"t = {t[i]:.4g}"                 # each time's curves, in the figure's table
            tag(ax.plot(x, res.net(key)[r, i], color=plotting.COLORS[key], lw=1.2,
                        label=("$u_\\theta$" if key == "u_theta" else "$u_\\mathrm{p}$") if i == 0 else None)[0], at)
            tag(ax.plot(x, res["u_clean"][i], "k--", lw=0.8, label="truth" if i == 0 else None)[0], at)
        ax.set_xlabel("$x$")
        ax.set_ylabel("$u$")
        ax.legend(loc="upper right")
    for ax, op in zip(axes[2:], ("D", "G", "V")):
        ax.plot(res["u_grid"], res.net(f"op_{op}")[r], color=plotting.COLORS[op], label=f"learned {op}")
        ax.plot(res["u_grid"], res[f"true_op_{op}"], "k--", lw=0.9, label="truth")
        plotting.shade_unobserved(ax, res.record.u_range, res["u_grid"])
        ax.set_xlabel("$u$")
        ax.set_ylabel(plotting.OP_LABELS[op])
        ax.legend()
    fig.tight_layout()
    return fig


def noise_figure(results, errors, boxes, shown_noise=None, shown_arch=None, curve_noises=None):
    """Fig. 2 (diffusion): left, u_theta, D and u_p at t_end for one noise level and
    architecture (None: the study's default point); right, errors of u_theta and u_p against
    the noise variance for each u-network architecture (``boxes`` per noise variance,
    u-network and quantity, from ``errors``: :func:`panels.error_boxes`), and validation
    losses for representative combinations."""
    default = studies.get("noise").default
    shown_noise = default["noise_var"] if shown_noise is None else shown_noise
    shown_arch = default["arch_u"] if shown_arch is None else shown_arch
    archs = sorted({meta_value(r, "arch_u") for r in results}, key=lambda a: (a[0] * a[1], a))
    nvs = sorted({meta_value(r, "noise_var") for r in results})
    curve_noises = curve_noises or (shown_noise, nvs[-1])
    colors = dict(zip(archs, ARCH_COLORS))
    shown = find(results, noise_var=shown_noise, arch_u=shown_arch) or results[0]
    fig = plt.figure(figsize=(11, 8.4))
    gs = fig.add_gridspec(3, 2, width_ratios=(1, 1.35))
    ax = fig.add_subplot(gs[0, 0])
    name = f"$\\sigma^2$ = {value_label(meta_value(shown, 'noise_var'))}, $(h_u, n_u)$ = " \
           f"{arch_label(meta_value(shown, 'arch_u'))}"
    panels.solutions_at_end(ax, [(shown, "$u_\\theta$", COLORS["u_theta"])], "u_theta", title=name)
    ax.plot(shown["x"], np.asarray(shown["u_obs"])[0, -1], ".", color="0.55", ms=2.5, label="data (one dataset)")
    panels.clear_legend(ax)                        # where it covers no data point
    ax = fig.add_subplot(gs[1, 0])
    panels.operators(ax, [(shown, "$D_\\phi$", COLORS["D"])], "D")
    panels.clear_legend(ax)
    ax = fig.add_subplot(gs[2, 0])
    panels.solutions_at_end(ax, [(shown, "$u_\\mathrm{p}$", COLORS["u_p"])], "u_p")
    panels.clear_legend(ax)
    labels = {v: value_label(v) for v in nvs}
    for row, (pick, lab, _) in enumerate(panels.ERR_SERIES):
        ax = fig.add_subplot(gs[row, 1])
        series = [({**pick, "arch_u": a}, f"$(h_u, n_u)$ = {arch_label(a)}", colors[a]) for a in archs]
        panels.error_boxes(ax, boxes, errors, "noise_var", labels, series=series,
                           xlabel="noise variance $\\sigma^2$")
        ax.set_ylabel(f"rel. $L^2$ error of {lab}")
    ax = fig.add_subplot(gs[2, 1])
    entries = []
    for a in archs:
        for v, ls in zip(curve_noises, ("-", "--", ":", "-.")):
            r = find(results, noise_var=v, arch_u=a)
            entries.append((r, f"{arch_label(a)}, $\\sigma^2$ = {value_label(v)}", colors[a], ls))
    panels.loss_curves(ax, entries)
    panels.clear_legend(ax)
    return panels.finish(fig)


# ----------------------------------------------------------------------------- Fig. 3
def learning_rate_figure(results, errors, boxes, shown=None):
    """Fig. 3 (Burgers): top, u_theta and u_p at all observation times and middle, D and V
    for the learning rate ``shown`` (None: the study's default); bottom, validation loss for
    every r and errors against r (``boxes`` per r and quantity, from ``errors``:
    :func:`panels.error_boxes`)."""
    rates, rs = _sorted(results, "lr")
    res = find(results, lr=studies.get("learning_rate").default["lr"] if shown is None else shown) \
        or rs[len(rs) // 2]
    fig = plt.figure(figsize=(10, 9.5))
    gs = fig.add_gridspec(3, 2)
    lab = f"$r$ = {value_label(meta_value(res, 'lr'))}"
    for col, (key, name, sym) in enumerate((("u_theta", "u_theta", "$u_\\theta$"),
                                           ("u_p", "u_p", "$u_\\mathrm{p}$"))):
        ax = fig.add_subplot(gs[0, col])
        plotting.solution_panel(ax, res["x"], res["t"], res.net(key), res["u_clean"], "all", COLORS[name],
                                f"{sym}, {lab}")
        vals = np.asarray(res.net(key), float)
        ok = np.all(np.isfinite(vals), axis=(1, 2))
        plotting.ylim_around(ax, [vals[ok].mean(axis=0)] if ok.any() else [], res["u_clean"], max_span=1.0)
        panels.clear_legend(ax)
    for col, op in enumerate(("D", "V")):
        ax = fig.add_subplot(gs[1, col])
        panels.operators(ax, [(res, f"learned {op}, {lab}", COLORS[op])], op)
        panels.clear_legend(ax)
    ax = fig.add_subplot(gs[2, 0])
    cols = plotting.value_colors(len(rates), "distinct")
    panels.loss_curves(ax, [(r, f"$r$ = {value_label(v)}", c) for r, v, c in zip(rs, rates, cols)])
    # below the panel, where it cannot cover a curve
    panels.legend(ax, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2), columnspacing=1.0, handlelength=1.5)
    ax = fig.add_subplot(gs[2, 1])
    panels.error_boxes(ax, boxes, errors, "lr", {v: value_label(v) for v in rates}, xlabel="learning rate $r$")
    return panels.finish(fig)


def _solutions_at_end_row(entries):
    """A 3 x 2 figure whose first row shows u_theta and u_p at t_end for ``entries``, on one
    scale of u (their spreads compare at a glance), with the legend in two columns along the
    top of the u_theta panel and that scale's top raised just enough for it."""
    fig = plt.figure(figsize=(10, 9.5))
    gs = fig.add_gridspec(3, 2)
    ax = fig.add_subplot(gs[0, 0])
    panels.solutions_at_end(ax, entries, "u_theta", title="learned solution $u_\\theta$")
    panels.solutions_at_end(fig.add_subplot(gs[0, 1], sharey=ax), entries, "u_p",
                            title="forward-predicted solution $u_\\mathrm{p}$")
    legend = ax.legend(loc="upper center", ncol=2)
    height = legend.get_window_extent(fig.canvas.get_renderer()).transformed(ax.transAxes.inverted()).height
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, lo + (hi - lo) / max(1.0 - height - 0.06, 0.3))
    return fig, gs


# ----------------------------------------------------------------------------- Fig. 4
def loss_weight_figure(results, errors, boxes, shown=None):
    """Fig. 4 (porous medium, w_BC = 0): u_theta, u_p at t_end and D for the weights
    ``shown`` (None: the smallest, the study's default and the largest); weighted validation
    losses w_data L_data (solid) and w_PDE L_PDE (dashed); errors against w_PDE (``boxes``
    per w_PDE and quantity, from ``errors``: :func:`panels.error_boxes`)."""
    ws, rs = _sorted(results, "w_pde")
    if shown is None:
        shown = (ws[0], studies.get("loss_weight").default["w_pde"], ws[-1])
    sel = [(find(results, w_pde=w), w) for w in shown]
    sel = [(r, w) for r, w in sel if r is not None] or [(rs[0], ws[0])]
    cols = dict(zip([w for _, w in sel], ("tab:red", "tab:blue", "tab:olive", "tab:cyan")))
    entries = [(r, f"$w_\\mathrm{{PDE}}$ = {value_label(w)}", cols[w]) for r, w in sel]
    fig, gs = _solutions_at_end_row(entries)
    ax = fig.add_subplot(gs[1, 0])
    panels.operators(ax, entries, "D")
    ax = fig.add_subplot(gs[1, 1])
    data_curves, pde_curves = [], []
    for r, w in sel:
        cfg = r.record.config
        data_curves.append((r, f"$w_\\mathrm{{data}} L_\\mathrm{{data}}$, $w_\\mathrm{{PDE}}$ = {value_label(w)}",
                            cols[w], "-", cfg.w_data))
        pde_curves.append((r, f"$w_\\mathrm{{PDE}} L_\\mathrm{{PDE}}$, $w_\\mathrm{{PDE}}$ = {value_label(w)}",
                           cols[w], "--", cfg.w_pde))
    panels.loss_curves(ax, data_curves, key="hist_val_data", ylabel="weighted validation loss")
    panels.loss_curves(ax, pde_curves, key="hist_val_pde", ylabel="weighted validation loss")
    # above the panel, where no curve can cross it
    ax.legend([Line2D([], [], color="k", ls="-"), Line2D([], [], color="k", ls="--")],
              ["$w_\\mathrm{data} L_\\mathrm{data}$", "$w_\\mathrm{PDE} L_\\mathrm{PDE}$"],
              title="line style (colours as top left)", **ABOVE)
    ax = fig.add_subplot(gs[2, :])
    panels.error_boxes(ax, boxes, errors, "w_pde", {w: value_label(w) for w in ws}, xlabel="PDE weight $w_\\mathrm{PDE}$ ($w_\\mathrm{data}$ = 1, "
                "$w_\\mathrm{BC}$ = 0)")
    return panels.finish(fig)


# ----------------------------------------------------------------------------- Fig. 5
#: The two heat maps of Fig. 5: ours (the relative L2 error in the Frobenius norm, i.e. over
#: all grid values, mean over replicates, as the paper's caption says) and the authors'
#: (what their heat-map code computes: the spectral norm of the (t, x) matrix, median over
#: replicates).  Failed forward solves are left out of the statistic and counted in the cell
#: in both.  (column of the chapter's table, norm, panel title, colour-bar label)
ARCH_HEATMAPS = (
    ("mean", "frobenius", "our runs, our metric: Frobenius norm, mean",
     "mean rel. error of $u_\\mathrm{p}$"),
    ("50%", "spectral", "our runs, the authors' metric: spectral norm, median",
     "median rel. error of $u_\\mathrm{p}$"),
)
def architecture_figure(results, heat, shown=None, authors_metric=False):
    """Fig. 5 (diffusion-advection): u_theta, u_p at t_end, D and V for the diagonal
    architectures (h_D, n_D) = (h_V, n_V); validation loss per architecture; heat map of
    the mean rel. L2 error of u_p over all (D, V) combinations (``heat``: see
    :func:`panels.architecture_heatmap`).

    ``authors_metric``: the validation losses take a row of their own and the heat map is
    drawn twice, side by side (``ARCH_HEATMAPS``): ours, and the same runs in the authors'
    metric (spectral norm, median over replicates)."""
    shown = [tuple(a) for a in (shown or panels.heat_archs(heat))]
    sel = [(find(results, arch_D=a, arch_V=a), a) for a in shown]
    sel = [(r, a) for r, a in sel if r is not None]
    entries = [(r, f"$(h, n)$ = {arch_label(a)}", c) for (r, a), c in zip(sel, ARCH_COLORS)]
    if authors_metric:
        fig = plt.figure(figsize=(10, 13))
        gs = fig.add_gridspec(4, 2, height_ratios=(1, 1, 0.8, 1.25))
        ax = fig.add_subplot(gs[0, 0])
        panels.solutions_at_end(ax, entries, "u_theta", title="learned solution $u_\\theta$")
        panels.clear_legend(ax)
        ax = fig.add_subplot(gs[0, 1])
        panels.solutions_at_end(ax, entries, "u_p", title="forward-predicted solution $u_\\mathrm{p}$")
    else:
        fig, gs = _solutions_at_end_row(entries)
    for col, op in enumerate(("D", "V")):
        ax = fig.add_subplot(gs[1, col])
        panels.operators(ax, entries, op)
    ax = fig.add_subplot(gs[2, :] if authors_metric else gs[2, 0])
    panels.loss_curves(ax, entries)
    maps = ARCH_HEATMAPS if authors_metric else ARCH_HEATMAPS[:1]
    for k, (column, norm, title, cbar) in enumerate(maps):
        ax = fig.add_subplot(gs[3, k] if authors_metric else gs[2, 1])
        panels.architecture_heatmap(ax, heat, column, norm, cbar_label=cbar, title=title if authors_metric else None)
    return panels.finish(fig)


# ----------------------------------------------------------------------------- Fig. 6
def batch_size_figure(fixed, errors, boxes, timing=None):
    """Fig. 6 (diffusion): u_theta and u_p at t_end per batch size (fixed-epoch runs
    ``fixed``); validation loss per B; the time of 4000 epochs against B from the timing
    benchmark (``timing``; None: the committed one, ``studies.batch_size.timing()``) with
    the fit T = a / B + c, labelled with the benchmark's grid and noise level (its clipping
    is the benchmark's, not necessarily that of ``fixed``); errors after the fixed budget of optimiser steps (``boxes`` per B
    and quantity, from ``errors``: :func:`panels.error_boxes`)."""
    timing = studies.batch_size.timing() if timing is None else timing
    Bs, rf = _sorted(fixed, "batch_size")
    Bb = sorted(set(boxes.reset_index()["batch_size"]))
    cols = plotting.value_colors(len(Bs), "plasma")

    def lab(r):
        b, used = r.record.config.batch_size, r.record.batch_size_used
        return f"$B$ = {b}" + (f" (ran as {used})" if used != b else "")

    entries = [(r, lab(r), c) for r, c in zip(rf, cols)]
    fig, gs = _solutions_at_end_row(entries)
    ax = fig.add_subplot(gs[1, 0])
    panels.loss_curves(ax, entries)
    ax = fig.add_subplot(gs[1, 1])
    fit = time_fit(timing)
    # a batch the benchmark's training set could not fill ran smaller: said in the legend, in the
    # runs' legend's words ("ran as"), as the benchmark's (its grid need not be that of the runs above)
    ran = [f"$B$ = {int(breq)} ran as {int(b)}" for b, breq in zip(fit["B"], fit["B_requested"]) if b != breq]
    ax.plot(fit["B"], fit["T"], "o", color="k", ms=4,
            label=f"timing benchmark, {studies.batch_size.timing_grid_words()}" + (f"\n(its {', '.join(ran)})" if ran else ""))
    if np.isfinite(fit["a"]):
        bb = np.geomspace(fit["B"].min(), fit["B"].max(), 100)
        ax.plot(bb, fit["a"] / bb + fit["c"], "k--", lw=0.9,
                label=f"$T = a/B + c$, $a$ = {fmt(fit['a'], **SECONDS)} s, $c$ = {fmt(fit['c'], **SECONDS)} s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plotting.plain_log_ticks(ax, "x")
    plotting.plain_log_ticks(ax, "y")
    ax.set_xlabel("batch size used $B$")
    ax.set_ylabel("time for 4000 epochs (s)")
    panels.legend(ax, **{**ABOVE, "ncol": 1})
    ax = fig.add_subplot(gs[2, :])
    panels.error_boxes(ax, boxes, errors, "batch_size", {b: str(int(b)) for b in Bb},
                       xlabel="batch size $B$ (fixed budget of optimiser steps)")
    return panels.finish(fig)


def budgets_figure(errors, boxes, titles: dict):
    """Errors after two training budgets side by side: one box-plot panel per budget
    (``titles``: {study of the runs: panel title}); ``boxes`` per study, batch size, epochs
    run and quantity, from ``errors`` (:func:`panels.error_boxes`)."""
    fig, axes = plt.subplots(1, len(titles), figsize=(5.2 * len(titles), 3.6), sharey=True, squeeze=False)
    flat = boxes.reset_index()
    for ax, (study, title) in zip(axes[0], titles.items()):
        epochs = dict(flat.loc[flat["study"] == study, ["batch_size", "epochs"]].itertuples(index=False))
        series = [({**pick, "study": study}, label, color) for pick, label, color in panels.ERR_SERIES]
        panels.error_boxes(ax, boxes, errors, "batch_size", {b: f"{int(b)}\n({e:,})" for b, e in sorted(epochs.items())},
                           series=series, xlabel="batch size $B$ (epochs run)")
        ax.set_title(title)
    axes[0][0].set_ylabel("rel. $L^2$ error")
    return panels.finish(fig)


#: The figure of each study that has one (the study's name -> the function that draws it):
#: the Supporting Material draws each repeat with its study's.
STUDY_FIGURES = {"framework": framework_figure, "noise": noise_figure, "learning_rate": learning_rate_figure,
                 "loss_weight": loss_weight_figure, "architecture": architecture_figure,
                 "batch_size": batch_size_figure}


# ----------------------------------------------------------------------------- own data (binn fit / predict)
def own_data_solutions(x, t, u_obs, u_theta=None, u_p=None, *, x_label="x", u_label="u", t_label="t",
                       obs_label="replicate", u_true=None):
    """Data (every replicate, open grey symbols) against u_theta and u_p (mean +- 1 sd over
    networks) at every observation time, one panel each.  ``u_obs`` is (n_rep, n_t, n_x);
    ``u_theta`` / ``u_p`` are (R, n_t, n_x) or None (``binn predict``: u_p only); ``u_true``
    (n_t, n_x), a known noise-free solution, dashed black.  Many times: :data:`panels.MAX_PANELS`
    of them (``panels.shown_times``)."""
    k = panels.shown_times(len(t))
    t, u_obs = np.asarray(t)[k], np.asarray(u_obs, float)[:, k]
    u_theta, u_p, u_true = (None if a is None else np.asarray(a)[..., k, :] for a in (u_theta, u_p, u_true))
    fig, grid, axes = panels.grid_axes(len(t))
    markers = ("o", "s", "^", "v", "D")
    for k, ax in enumerate(axes):
        for r in range(u_obs.shape[0]):
            ax.plot(x, u_obs[r, k], markers[r % len(markers)], ms=2.5, mfc="none", color="0.45", mew=0.6,
                    label=f"{obs_label} {r + 1}" if u_obs.shape[0] > 1 else "data")
        if u_theta is not None:
            plotting.band(ax, x, np.asarray(u_theta)[:, k], COLORS["u_theta"], "$u_\\theta$")
        if u_p is not None:
            plotting.band(ax, x, np.asarray(u_p)[:, k], COLORS["u_p"], "$u_\\mathrm{p}$", ls="--")
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
    over networks whose solve succeeded), one panel per requested time (at most
    :data:`panels.MAX_PANELS`: ``panels.shown_times``)."""
    k = panels.shown_times(len(t))
    t, u_p = np.asarray(t)[k], np.asarray(u_p)[:, k]
    fig, grid, axes = panels.grid_axes(len(t))
    for k, ax in enumerate(axes):
        plotting.band(ax, x, np.asarray(u_p)[:, k], COLORS["u_p"], "$u_\\mathrm{p}$")
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
            tag(ax.plot(u_grid, c[r], color=COLORS[name], lw=0.5, alpha=0.35)[0], f"network {r + 1}", "each network")
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
    and the training loss, against the epoch, in training units.  The data term is dashed and
    drawn over the solid total, so that where the data term is nearly all of the total both
    lines still show."""
    fig, ax = plt.subplots(figsize=(6, 3.8))
    n = np.asarray(history["val_total"]).shape[1]
    ep = np.arange(1, n + 1)
    for key, lab, ls in (("val_total", "validation, total", "-"), ("val_data", "validation, data", "--"),
                         ("val_pde", "validation, PDE residual", "-."), ("train_total", "training, total", ":")):
        if key in history:
            plotting.loss_curve_panel(ax, ep, history[key], label=lab, ls=ls)
    if best_epoch is not None and len(best_epoch):
        ax.axvline(float(np.median(best_epoch)), color="0.5", lw=0.8, ls=(0, (1, 3)), label="median best epoch")
    ax.set_ylabel("loss (training units)")
    ax.legend(fontsize=plotting.NOTE_SIZE)
    fig.tight_layout()
    return fig
