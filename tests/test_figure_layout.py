"""A reader can read the figures: tick labels, heat-map numbers and legends do not collide with
each other or with the data (measured with matplotlib's renderer, in display pixels)."""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from binn_utils import studies  # noqa: E402
from binn_utils.analysis import results_table  # noqa: E402
from binn_utils.presentation import authors_figures, figures, plotting, tables  # noqa: E402
from binn_utils.store import loading, records  # noqa: E402
from synthetic import figure_boxes, figure_heat  # noqa: E402


@pytest.fixture(autouse=True)
def _style():
    with plt.rc_context():
        plotting.style()
        yield
    plt.close("all")


#: Two texts closer than this (display pixels, at 100 dpi) run together.
GAP = 4.0


def _grown(box, px=GAP / 2):
    return box.from_extents(box.x0 - px, box.y0 - px, box.x1 + px, box.y1 + px)


def _collisions(texts, renderer):
    boxes = [_grown(t.get_window_extent(renderer)) for t in texts]
    return [(texts[i].get_text(), texts[j].get_text()) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if boxes[i].overlaps(boxes[j])]


def _tick_labels(ax, axis):
    """The tick labels drawn on an axis: visible, non-empty and within the axis' view."""
    a = ax.yaxis if axis == "y" else ax.xaxis
    lo, hi = sorted(ax.get_ylim() if axis == "y" else ax.get_xlim())
    k = 1 if axis == "y" else 0
    return [t for t in a.get_ticklabels(which="both")
            if t.get_visible() and t.get_text() and lo <= t.get_position()[k] <= hi]


def _check_ticks(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in "xy":
            labels = _tick_labels(ax, axis)
            assert not _collisions(labels, renderer), f"{axis} tick labels overlap: {_collisions(labels, renderer)}"


@pytest.mark.parametrize("height", [1.2, 2.0, 4.0])
@pytest.mark.parametrize("span", [(0.025, 0.22), (0.001, 0.1), (0.3, 0.5), (1e-7, 0.2)])
def test_log_tick_labels_have_room(height, span):
    fig, ax = plt.subplots(figsize=(4, height))
    ax.plot([0, 1], span)
    ax.set_yscale("log")
    ax.set_ylim(*span)
    plotting.plain_log_ticks(ax)
    _check_ticks(fig)
    assert len(_tick_labels(ax, "y")) >= 2  # still a scale to read


def _check_heat_map(fig, axes):
    _check_ticks(fig)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        assert not _collisions(list(ax.texts), renderer)
        cell = ax.transData.transform([[0, 0], [1, 1]])
        width = abs(cell[1, 0] - cell[0, 0])
        assert all(t.get_window_extent(renderer).width < width - GAP for t in ax.texts)


def test_heat_map_numbers_fit_narrow_cells():
    """Two 4 x 4 maps side by side in a narrow figure, numbers like 0.0721 and a colour bar
    spanning less than a decade."""
    rng = np.random.default_rng(0)
    M = 0.05 + 0.2 * rng.random((4, 4))
    labels = ["(1, 1)", "(4, 1)", "(4, 4)", "(4, 32)"]
    fig, axes = plt.subplots(1, 2, figsize=(7, 2.8))
    for ax in axes:
        plotting.heatmap(ax, M, labels, labels, fmt="{:.3g}", log=True, fontsize=12)
    _check_heat_map(fig, axes)


@pytest.mark.parametrize("authors_metric", [False, True])
def test_fig5_heat_maps_read_cleanly(authors_metric):
    from test_architecture_figure import ARCHS, PERTURB, _result
    results = [_result(aD, aV, PERTURB[aD, aV]) for aD in ARCHS for aV in ARCHS]
    fig = figures.architecture_figure(results, figure_heat(results), authors_metric=authors_metric)
    _check_heat_map(fig, [ax for ax in fig.axes if (ax.get_gid() or "").startswith("heatmap:")])


def _covered_points(ax, legend, renderer):
    """Data points of the panel's lines that lie under its legend."""
    box = legend.get_window_extent(renderer)
    n = 0
    for line in ax.get_lines():
        xy = np.column_stack(line.get_data()).astype(float)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if xy.size:
            px = ax.transData.transform(xy)
            n += int(np.sum((px[:, 0] > box.x0) & (px[:, 0] < box.x1) & (px[:, 1] > box.y0) & (px[:, 1] < box.y1)))
    return n


def _stored(name, **kw):
    scale = records.committed_scale(name)
    settings = studies.get(name).settings_for_chapter(dict(scale=scale, noise_var=None, dense=False, epochs=None,
                                                           seeds=None, **kw))
    return loading.load_or_run(settings, scale, None)


def _batch_runs():
    runs = studies.batch_size.chapter_settings(dict(scale=None, noise_var=None, dense=False, epochs=None,
                                                    seeds=None, batch_sizes=tuple(studies.BATCH_SIZES),
                                                    budget_steps=None))
    scale = runs["fixed"][0]
    return {k: loading.load_or_run(runs[k][1], scale, None) for k in ("fixed", "budget", "authors")}


def _legend_with(fig, words):
    hits = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend() is not None
            and any(words in t.get_text() for t in [ax.get_legend().get_title(), *ax.get_legend().get_texts()])]
    assert len(hits) == 1
    return hits[0]


def test_fig4_ticks_and_loss_legend_clear_of_the_curves():
    results = _stored("loss_weight", weights=tuple(studies.PDE_WEIGHTS))
    fig = figures.loss_weight_figure(results, *figure_boxes(results, ["w_pde"]))
    _check_ticks(fig)
    ax, legend = _legend_with(fig, "line style")
    assert _covered_points(ax, legend, fig.canvas.get_renderer()) == 0
    top_left = fig.axes[0]  # the colours' legend on the solutions
    assert _covered_points(top_left, top_left.get_legend(), fig.canvas.get_renderer()) == 0


def test_fig6_timing_legend_clear_of_the_data_and_budget_labels_apart():
    runs = _batch_runs()
    fig = figures.batch_size_figure(runs["fixed"], *figure_boxes(runs["budget"], ["batch_size"]))
    _check_ticks(fig)
    ax, legend = _legend_with(fig, "timing benchmark, 71-point grid")
    assert _covered_points(ax, legend, fig.canvas.get_renderer()) == 0
    top_left = fig.axes[0]  # five entries on a panel the curves fill
    assert _covered_points(top_left, top_left.get_legend(), fig.canvas.get_renderer()) == 0
    errors, boxes = figure_boxes(runs["budget"] + runs["authors"], ["study", "batch_size", "epochs"])
    fig = figures.budgets_figure(errors, boxes, {runs["budget"][0].setting.study: "a",
                                                 runs["authors"][0].setting.study: "b"})
    _check_ticks(fig)


def test_authors_comparison_figure_reads_cleanly():
    ours = results_table.table(_stored("architecture", archs=tuple(studies.OPERATOR_ARCHS)), norms=("spectral",))
    theirs = results_table.authors_table("architecture", noise_var=1e-3, norm="spectral")
    runs = results_table.long(pd.concat([ours, theirs]), quantities=("err_u_p",))
    stats = runs.groupby(["arch_D", "arch_V", "source", "data", "quantity", "norm"])["value"].describe().reset_index()
    fig = authors_figures.authors_comparison_figure(runs, stats, ["arch_D", "arch_V"], [("err_u_p", "spectral")],
                                            label_fn=lambda a: f"{a[0]}\n{a[1]}")
    _check_ticks(fig)
    ax = fig.axes[0]
    assert _covered_points(ax, ax.get_legend(), fig.canvas.get_renderer()) == 0
    # every median drawn is the group-by's: 16 of ours, 16 of the authors'
    assert len(stats[stats["count"] > 0]) == 32


def test_the_caption_says_grey_only_where_grey_is_drawn():
    grid = np.linspace(0.0, 1.0, 50)
    for u_range, shaded in (((1e-17, 1.0), False), ((0.0, 1.0), False), ((0.1, 1.0), True), ((0.0, 0.8), True)):
        fig, ax = plt.subplots()
        ax.plot(grid, grid)
        patches = plotting.shade_unobserved(ax, u_range, grid)
        assert bool(patches) == shaded
        assert ("Grey:" in tables.unobserved_words(u_range, grid)) == shaded


def test_figure_data_goes_where_the_chapters_link_it():
    """The chapters link ``../book/figure-data/NAME.csv`` from notebooks/: the book tree's folder."""
    root = Path(__file__).resolve().parents[1]
    assert plotting.FIGURE_DATA == root / "book" / "figure-data"


def test_a_box_draws_the_quartiles_and_counts_it_is_given():
    """The box plots only draw: a box's median line and edges are the chapter's numbers
    (``describe()``'s columns), its failure count the table's, whatever the runs say."""
    runs = {"err_u_theta": [0.1, 0.2, 0.3, 0.4], "err_u_p": [0.2, 0.3, 0.4, np.nan]}
    errors = pd.DataFrame([{"lr": lr, "quantity": q, "value": v, "status": "ok"}
                           for lr in (1e-4, 1e-3) for q, vs in runs.items() for v in vs])
    groups = errors.groupby(["lr", "quantity"])
    boxes = groups["value"].describe()
    boxes["failed"] = groups.size() - boxes["count"]
    boxes["diverged"] = 0
    boxes.loc[(1e-3, "err_u_p"), ["25%", "50%", "75%", "failed"]] = [0.25, 0.31, 0.37, 2]
    boxes.loc[(1e-4, "err_u_theta"), "diverged"] = boxes.loc[(1e-4, "err_u_p"), "diverged"] = 3
    fig, ax = plt.subplots()
    figures.panels.error_boxes(ax, boxes, errors, "lr", {1e-4: "a", 1e-3: "b"})
    medians = sorted(line.get_ydata()[0] for line in ax.get_lines() if len(line.get_ydata()) == 2
                     and line.get_ydata()[0] == line.get_ydata()[1] and line.get_xdata()[0] > 0.9)
    assert 0.31 in medians
    assert [t.get_text() for t in ax.texts if "failed" in t.get_text()] == ["1/4\nfailed", "2/5\nfailed"]
    # diverged trainings: the networks' property, counted once per position (both errors are of the same networks)
    assert [t.get_text() for t in ax.texts if "div." in t.get_text()] == ["3/4 div."]
