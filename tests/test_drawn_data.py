"""What a figure draws, written beside it (``NAME_drawn.csv``, ``drawn_data.drawn_table``): every
point of every line and marker set the figure draws is a row of its panel, a band's edges, a box's
quartiles, a bar's height and a heat-map cell's value are in it, and each row says which series
(legend entry) it belongs to, also for a curve drawn once per observation time with one entry."""
import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from binn_utils import studies  # noqa: E402
from binn_utils.analysis.reporting import value_label  # noqa: E402
from binn_utils.presentation import drawn_data, figures, plotting  # noqa: E402
from binn_utils.store import loading, stores  # noqa: E402
from synthetic import figure_boxes  # noqa: E402


pytestmark = pytest.mark.usefixtures("book_style")


def _saved(fig, tmp_path, name="fig"):
    """Save as a chapter does; (the table read back from its CSV, the layout record)."""
    plotting.save(fig, tmp_path, name)
    table = pd.read_csv(tmp_path / f"{name}_drawn.csv", keep_default_na=False, na_values=[""])
    return table, json.loads((tmp_path / "layout" / f"{name}.json").read_text())


def _has(rows, x, y, rtol=1e-5) -> bool:
    return bool(np.any(np.isclose(rows["x"], x, rtol=rtol, atol=1e-12)
                       & np.isclose(rows["y"], y, rtol=rtol, atol=1e-12)))


def _every_point_is_a_row(fig, table):
    """Each point of each data line and marker set of each panel is a row of that panel, of its
    series where the artist has a legend entry. Returns the number of points checked."""
    checked = 0
    for number, ax in enumerate(drawn_data.data_axes(fig), start=1):
        panel = table[table["panel"] == number]
        for artist in drawn_data.drawn_artists(ax):
            if isinstance(artist, Line2D) and artist.get_transform() == ax.transData:
                points = artist.get_xydata()
            elif isinstance(artist, PathCollection):
                points = np.asarray(artist.get_offsets(), float)
            else:
                continue
            label = artist.get_label()
            rows = panel[panel["series"] == drawn_data.plain(label)] if not label.startswith("_") else panel
            for x, y in points[np.all(np.isfinite(points), axis=1)]:
                assert _has(rows, x, y), f"panel {number}: ({x}, {y}) of {label!r} is not in the table"
                checked += 1
    return checked


def test_every_point_band_box_bar_and_cell_drawn_is_in_the_table(tmp_path):
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(2, 3, figsize=(12, 7))
    x, t = np.linspace(0.0, 1.0, 9), np.array([0.0, 0.25, 0.5])
    pred = rng.random((4, 3, 9))
    plotting.solution_panel(axes[0, 0], x, t, pred, pred[0], label="$u_\\theta$")
    plotting.shade_unobserved(axes[0, 0], (0.0, 0.8), x)
    axes[0, 0].scatter([0.2, 0.4], [0.3, 0.6], label="data")
    curves = rng.random((5, 6)) + 0.1
    plotting.loss_curve_panel(axes[0, 1], np.arange(1, 7), curves, label="validation loss")
    values = np.array([0.1, 0.2, 0.3, 0.35, 2.0])
    plotting.error_boxes(axes[0, 2], [plotting.box_stats(values, 0.2, 0.3, 0.35)], [0], "tab:red", label="$u_p$")
    axes[0, 2].set_xticks([0])
    axes[0, 2].set_xticklabels(["$\\sigma^2$ = 0.01"])
    plotting.heatmap(axes[1, 0], np.array([[1.0, 2.0], [np.nan, 4.0]]), ["a", "b"], ["c", "d"], cbar_label="mean error")
    axes[1, 1].bar([1, 2], [3.0, 5.0], label="counts")
    axes[1, 1].errorbar([1.5], [2.0], yerr=[[0.5], [1.0]], fmt="o", label="median")
    axes[1, 2].plot([1, 10, 100], [5.0, 0.5, 0.05], "o", label="timing")
    axes[1, 2].set(xscale="log", yscale="log", xlabel="batch size $B$", ylabel="time (s)")
    table, record = _saved(fig, tmp_path)
    assert list(table.columns) == list(drawn_data.COLUMNS)
    assert _every_point_is_a_row(fig, table) > 60
    # the band: mean -/+ 1 sd over replicates at every x, at each time
    ok = pred[:, 1]
    band = table[(table["panel"] == 1) & (table["kind"] == "band") & (table["part"] == "mean ± 1 sd, t = 0.25")]
    assert np.allclose(band["ymin"], ok.mean(0) - ok.std(0), rtol=1e-5)
    assert np.allclose(band["ymax"], ok.mean(0) + ok.std(0), rtol=1e-5)
    # a curve drawn once per time with one legend entry: each time's rows are the series'
    first = table[table["panel"] == 1]
    assert set(first.loc[first["style"] == "dashed line", "part"]) == {"t = 0", "t = 0.25", "t = 0.5"}
    assert set(first.loc[first["style"] == "dashed line", "series"]) == {"truth"}
    assert set(first.loc[first["kind"] == "band", "series"]) == {"u_θ"}
    assert set(first.loc[first["part"] == "u not observed", "xmin"]) == {0.8}
    loss = table[table["panel"] == 2]
    assert np.allclose(loss.loc[loss["part"] == "interquartile range", "ymax"], np.percentile(curves, 75, axis=0),
                       rtol=1e-5)
    box = table[(table["panel"] == 3) & (table["part"] == "box: quartiles")].iloc[0]
    assert (box["ymin"], box["ymax"], box["series"], box["xtick"]) == (0.2, 0.35, "u_p", "σ^2 = 0.01")
    assert set(table.loc[(table["panel"] == 3) & (table["part"] == "beyond the whiskers"), "y"]) == {2.0}
    cells = table[table["kind"] == "heat-map cell"]
    assert sorted(cells["value"].dropna()) == [1.0, 2.0, 4.0] and set(cells["series"]) == {"mean error"}
    assert set(cells["xtick"]) == {"c", "d"} and set(cells["ytick"]) == {"a", "b"}
    bars = table[table["kind"] == "bar"]
    assert sorted(bars["y"]) == [3.0, 5.0] and set(bars["series"]) == {"counts"}
    error_bar = table[(table["kind"] == "error bar") & (table["series"] == "median")]
    assert error_bar[["ymin", "ymax"]].values.tolist() == [[1.5, 3.0]]
    timing = table[table["panel"] == 6]
    assert set(timing["xlabel"]) == {"batch size B"} and set(timing["ylabel"]) == {"time (s)"}
    # the layout record names what was drawn, for the built book's check of the linked file
    assert record["drawn"] == {"rows": len(table), "panels": 6,
                               "series": sorted(set(table["series"].dropna()) - {""})}
    assert {"truth", "u_θ", "data", "validation loss", "u_p", "counts", "timing"} <= set(record["drawn"]["series"])


def test_a_figure_without_data_draws_no_rows(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([], [], "s", label="legend only")
    table, record = _saved(fig, tmp_path)
    assert table.empty and record["drawn"]["rows"] == 0


@pytest.mark.parametrize("tex, words", [("$u_\\mathrm{p}$", "u_p"), ("$\\sigma^2$ = 0.01", "σ^2 = 0.01"),
                                        ("rel. $L^2$ error of $u_\\theta$", "rel. L^2 error of u_θ"),
                                        ("density ($10^{-3}$ cells/µm²)", "density (10^-3 cells/µm²)"),
                                        ("10\n(4,000)", "10 (4,000)")])
def test_labels_are_written_without_tex(tex, words):
    assert drawn_data.plain(tex) == words


def _stored(name, **kw):
    scale = stores.committed_scale(name)
    settings = studies.get(name).settings_for_chapter(dict(scale=scale, noise_var=None, dense=False, epochs=None,
                                                           seeds=None, **kw))
    return loading.load_or_run(settings, scale, None)


def test_fig4_writes_its_weighted_loss_terms_and_profiles(tmp_path):
    """Fig. 4's table holds what its panels draw: w_data L_data and w_PDE L_PDE (median over
    networks, each times its weight) and u_theta at the last time, per shown weight."""
    results = _stored("loss_weight", weights=tuple(studies.PDE_WEIGHTS))
    fig = figures.loss_weight_figure(results, *figure_boxes(results, ["w_pde"]))
    table, _ = _saved(fig, tmp_path, "fig4")
    assert _every_point_is_a_row(fig, table) > 1000
    default = studies.get("loss_weight").default["w_pde"]
    res = next(r for r in results if r.record.config.w_pde == default)
    for key, weight, term in (("hist_val_pde", default, "w_PDE L_PDE"), ("hist_val_data", 1.0, "w_data L_data")):
        rows = table[table["series"].str.startswith(term) & (table["part"] == "median")
                     & table["series"].str.endswith(f"= {drawn_data.plain(value_label(default))}")]
        median = np.nanmedian(np.asarray(res[key], float) * weight, axis=0)
        drawn = dict(zip(rows["x"], rows["y"]))
        assert len(drawn) == np.isfinite(median).sum()
        assert all(np.isclose(drawn[e], m, rtol=1e-5) for e, m in zip(res["curve_epochs"], median) if np.isfinite(m))
    top_left = table[(table["panel"] == 1) & (table["part"] == "mean")]
    assert top_left["series"].nunique() == 3 and set(top_left["title"]) == {"learned solution u_θ"}


def test_fig1_draws_one_initialisation_and_its_file_holds_it(tmp_path):
    """Fig. 1 draws one network's u_theta at every observation time: those are its rows."""
    scale, shown = studies.framework.chapter_settings(dict(
        scale=None, noise_var=None, dense=False, epochs=None, seeds=None, reaction=None, initial=None,
        compare_initial=None, compare_grid=None, compare_reactions=None, reaction_scale=None))["shown"]
    (res,) = loading.load_or_run(shown, scale, None)
    network = {"replicate": 1}
    fig = figures.framework_figure(res, network)
    table, _ = _saved(fig, tmp_path, "fig1")
    assert _every_point_is_a_row(fig, table) > 0
    u_theta = table[(table["panel"] == 1) & (table["series"] == "u_θ")]
    assert len(u_theta) == np.isfinite(res.net("u_theta")[1]).sum()
    for i, t in enumerate(res["t"]):
        at = u_theta[u_theta["part"] == f"t = {t:.4g}"]
        assert np.allclose(at["y"], res.net("u_theta")[1][i], rtol=1e-5)


def test_panels_sharing_an_axis_share_its_label(tmp_path):
    """Panels one above the other label their common x axis once: each panel's rows carry it."""
    fig, axes = plt.subplots(2, 1, sharex=True)
    axes[0].plot([1, 2], [1, 2], label="a")
    axes[1].plot([1, 2], [2, 3], label="b")
    axes[1].set_xlabel("mismatch ratio")
    table, _ = _saved(fig, tmp_path)
    assert set(table["xlabel"]) == {"mismatch ratio"} and list(table["panel"]) == [1, 1, 2, 2]
