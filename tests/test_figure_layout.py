"""A reader can read the figures: tick labels, heat-map numbers and legends do not collide with
each other or with the data (measured with matplotlib's renderer, in display pixels)."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from binn_utils import studies  # noqa: E402
from binn_utils.analysis import results_table  # noqa: E402
from binn_utils.presentation import authors_figures, figures, plotting, tables, text_layout  # noqa: E402
from binn_utils.store import loading, stores  # noqa: E402
from synthetic import figure_boxes, figure_heat  # noqa: E402


pytestmark = pytest.mark.usefixtures("book_style")


GAP = text_layout.GAP


def _tick_labels(ax, axis):
    """The tick labels drawn on an axis: visible, non-empty and within the axis' view."""
    a = ax.yaxis if axis == "y" else ax.xaxis
    lo, hi = sorted(ax.get_ylim() if axis == "y" else ax.get_xlim())
    k = 1 if axis == "y" else 0
    return [t for t in a.get_ticklabels(which="both")
            if t.get_visible() and t.get_text() and lo <= t.get_position()[k] <= hi]


def _check_ticks(fig):
    """No two texts of the figure collide (tick labels, labels, titles, legends, notes)."""
    found = text_layout.text_collisions(fig)
    assert not found, "texts that collide: " + "; ".join(" / ".join(c.words()) for c in found)


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
        cell = ax.transData.transform([[0, 0], [1, 1]])
        width = abs(cell[1, 0] - cell[0, 0])
        assert all(t.get_window_extent(renderer).width < width - GAP for t in ax.texts)


def test_heat_map_numbers_fit_narrow_cells():
    """Two 4 x 4 maps side by side in a narrow figure, numbers like 0.0721 and a colour bar
    spanning less than a decade."""
    rng = np.random.default_rng(0)
    M = 0.05 + 0.2 * rng.random((4, 4))
    labels = ["(1, 1)", "(4, 1)", "(4, 4)", "(4, 32)"]
    # room between the maps for the first one's colour bar and the second one's row labels
    fig, axes = plt.subplots(1, 2, figsize=(7, 2.8), gridspec_kw={"wspace": 0.7})
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
    """How much of the panel's data lies under its legend: the points of its lines and
    markers, and 100 for each band, box or note (``panels.data_under``)."""
    return figures.panels.data_under(ax, renderer)(legend.get_window_extent(renderer))


def _stored(name, **kw):
    scale = stores.committed_scale(name)
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


# ----------------------------------------------------------------------------- the check itself
def _found(fig):
    return [c.words() for c in text_layout.text_collisions(fig)]


def test_two_texts_printed_on_top_of_each_other_are_found():
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "failed", transform=ax.transAxes)
    ax.text(0.52, 0.51, "diverged", transform=ax.transAxes)
    ax.text(0.1, 0.1, "far away", transform=ax.transAxes)
    assert _found(fig) == [("note 'failed' (panel 1)", "note 'diverged' (panel 1)")]


def test_tick_labels_on_top_of_each_other_are_found():
    fig, ax = plt.subplots(figsize=(2.5, 2))
    ax.set_xticks(range(10))
    ax.set_xticklabels([f"label {i}" for i in range(10)])
    found = _found(fig)
    assert ("x tick label 'label 0' (panel 1)", "x tick label 'label 1' (panel 1)") in found
    assert all(a.startswith("x tick label") and b.startswith("x tick label") for a, b in found)


def test_a_clean_figure_has_none():
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
        ax.plot([0, 1], [1, 0], label="another line")
        ax.set(xlabel="$x$", ylabel="$u$", title="a panel")
        ax.legend(loc="center left")
        ax.text(0.98, 0.02, "a note", transform=ax.transAxes, ha="right")
    fig.suptitle("a figure")
    fig.tight_layout()
    assert len(text_layout.drawn_texts(fig)) > 20
    assert _found(fig) == []


def test_rotated_tick_labels_that_do_not_touch_are_not_reported():
    """Labels at 45 degrees whose upright boxes overlap while the glyphs do not; crowded closer,
    they are found."""
    def labelled(width):
        fig, ax = plt.subplots(figsize=(width, 3))
        ax.set_xticks(range(8))
        ax.set_xticklabels([f"long label {i}" for i in range(8)], rotation=45, ha="right")
        fig.tight_layout()
        return fig, ax

    fig, ax = labelled(6)
    fig.canvas.draw()
    boxes = [t.get_window_extent(fig.canvas.get_renderer()) for t in ax.get_xticklabels()]
    assert all(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))      # the upright boxes overlap
    assert _found(fig) == []
    fig, _ = labelled(2.2)
    assert len(_found(fig)) >= 5


def test_a_colour_bar_label_running_into_the_title_above_is_found():
    fig, axes = plt.subplots(2, 1, figsize=(4, 3.2))
    axes[0].plot([0, 1], [0, 1])
    im = axes[1].imshow(np.arange(9.0).reshape(3, 3))
    fig.colorbar(im, ax=axes[1], label="a very long colour-bar label, running up")
    axes[1].set_title("the map")
    assert any("colour-bar label" in a + b and "tick label" in a + b for a, b in _found(fig))


def test_an_axis_label_running_into_the_next_panel_is_found():
    fig, axes = plt.subplots(2, 1, figsize=(4, 3))
    axes[0].set_xticks([])
    axes[0].set_xlabel("the upper panel's x label")
    axes[1].set_title("the lower panel's title")
    found = _found(fig)
    assert ("x axis label \"the upper panel's x label\" (panel 1)", "title \"the lower panel's title\" (panel 2)") in found
    fig.tight_layout()
    assert _found(fig) == []


def test_one_legends_entries_and_hidden_texts_are_not_paired():
    fig, ax = plt.subplots(figsize=(5, 4))
    for k in range(4):
        ax.plot([0, 1], [k, k + 1], label=f"entry {k}")
    ax.legend(title="a title", loc="center", labelspacing=0, handletextpad=0)   # its own texts: never a collision
    ax.text(0.5, 0.5, "hidden", transform=ax.transAxes, visible=False, fontsize=30)
    ax.text(0.5, 0.5, "", transform=ax.transAxes)
    ax.text(0.5, 0.5, "", transform=ax.transAxes)
    fig.tight_layout()
    assert _found(fig) == []
    ax.text(0.5, 0.5, "on the legend", transform=ax.transAxes, ha="center", va="center")
    assert all("on the legend" in a + b and "legend " in a + b for a, b in _found(fig)) and _found(fig)


def test_save_records_what_the_check_finds(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    assert plotting.save(fig, tmp_path, "clean") == tmp_path / "clean.png"
    record = json.loads((tmp_path / "layout" / "clean.json").read_text())
    assert record["figure"] == "clean" and record["texts"] > 5 and record["collisions"] == []
    ax.text(0.5, 0.5, "one", transform=ax.transAxes)
    ax.text(0.5, 0.5, "two", transform=ax.transAxes)
    plotting.save(fig, tmp_path, "planted")
    record = json.loads((tmp_path / "layout" / "planted.json").read_text())
    assert record["collisions"] == [["note 'one' (panel 1)", "note 'two' (panel 1)"]]
    assert plotting.layout_path(None, "x") == plotting.FIGURE_DATA / "layout" / "x.json"


def test_the_records_check_fails_on_a_collision_or_a_missing_record(tmp_path):
    for name in ("a", "b"):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        plotting.record_layout(fig, tmp_path, name)
    folder = tmp_path / "layout"
    assert plotting.layout_defects(["a", "b"], folder) == []
    assert plotting.layout_defects(["a", "b", "c"], folder) == [f"c: no layout record in {folder}"]
    record = json.loads((folder / "b.json").read_text())
    record["collisions"] = [["x tick label '1' (panel 1)", "x tick label '2' (panel 1)"]]
    (folder / "b.json").write_text(json.dumps(record))
    assert plotting.layout_defects(["a", "b"], folder) == ["b: x tick label '1' (panel 1) / x tick label '2' (panel 1)"]
    assert plotting.layout_defects(["a"], folder) == []          # the record of a figure no longer drawn is not read
    (folder / "a.json").write_text("{")
    assert plotting.layout_defects(["a"], folder)[0].startswith("a: unreadable layout record")


def test_a_colour_bar_spanning_under_a_decade_labels_only_ticks_with_room():
    """The dense grid's Fig. 5 (Supporting Material, no noise): errors from 0.026 to 0.259, under a
    decade, on a short colour bar: evenly spaced values crowd at the top of the log scale."""
    M = np.array([[0.259, 0.113, 0.0404, 0.0307], [0.256, 0.112, 0.0353, 0.0261],
                  [0.252, 0.112, 0.0357, 0.0265], [0.238, 0.128, 0.033, 0.0262]])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    cbar = plotting.heatmap(axes[1], M, list("abcd"), list("abcd"), fmt="{:.3g}", log=True)
    fig.tight_layout()
    assert _found(fig) == []
    assert len([t for t in cbar.ax.get_yticklabels() if t.get_text()]) >= 3


def test_a_legend_stays_off_a_band_after_the_layout():
    """An operator panel whose band fills the lower part and whose curve the upper part of every
    place but one (the paper's Fig. 11 D panel: matplotlib's "best" put the legend on the band)."""
    fig, axes = plt.subplots(2, 2, figsize=(8, 6))
    u = np.linspace(0, 1, 101)
    for ax in axes.ravel():
        m = 0.004 + 0.002 * np.sin(np.pi * u)
        ax.plot(u, m, color="tab:green", label="learned D, $r$ = 5e-4")
        ax.fill_between(u, m - 0.0015, m + 0.0015, color="tab:green", alpha=0.25, lw=0)
        ax.plot(u, 0.01 + 0 * u, "k--", label="truth")
        ax.set_ylim(0.001, 0.011)
        figures.panels.clear_legend(ax)
    figures.panels.finish(fig)
    renderer = fig.canvas.get_renderer()
    for ax in axes.ravel():
        assert _covered_points(ax, ax.get_legend(), renderer) == 0
    assert _found(fig) == []


def test_the_budgets_legends_clear_of_the_boxes():
    runs = _batch_runs()
    errors, boxes = figure_boxes(runs["budget"] + runs["authors"], ["study", "batch_size", "epochs"])
    fig = figures.budgets_figure(errors, boxes, {runs["budget"][0].setting.study: "a",
                                                 runs["authors"][0].setting.study: "b"})
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        assert _covered_points(ax, ax.get_legend(), renderer) == 0
    assert _found(fig) == []


def test_loss_curves_where_every_replicate_diverged_draw_a_gap_without_warnings():
    """Epochs after every replicate diverged (NaN): 'All-NaN slice encountered' reached the user."""
    import warnings
    import matplotlib.pyplot as plt
    from binn_utils.presentation.plotting import loss_curve_panel
    fig, ax = plt.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss_curve_panel(ax, [1, 2, 3], np.array([[1.0, 2.0, np.nan], [1.0, np.nan, np.nan]]))
    plt.close(fig)
