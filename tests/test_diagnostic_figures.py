"""The diagnostics chapter's figures read at the page's width: no wider than the page shows
them at their size, each ROC panel with a legend that names the score of every curve and its
area under the curve at that panel's level (networks or settings), and the curves drawn through
the points where they turn."""
import shutil

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from binn_utils.analysis import diagnostic_roc  # noqa: E402
from binn_utils.presentation import diagnostic_figures, drawn_data, plotting  # noqa: E402
from binn_utils.store.stores import default_results_dir  # noqa: E402

#: The book's text column shows a figure of this many pixels at its size (100 dpi).
PAGE_PX = 800


pytestmark = pytest.mark.usefixtures("book_style")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """Two committed records of each of three benchmarks copied into a temporary store."""
    src = default_results_dir() / "runs"
    root = tmp_path_factory.mktemp("store")
    (root / "runs").mkdir()
    for b in ("burgers", "diffusion", "porous_medium"):
        for p in sorted(src.glob(f"{b}-*.json"))[:2]:
            shutil.copy(p, root / "runs" / p.name)
            shutil.copy(p.with_suffix(".npz"), root / "runs" / p.with_suffix(".npz").name)
    return root


def test_each_roc_panel_names_every_curve_with_its_own_auc(small_store, tmp_path):
    table = diagnostic_roc.labelled_table(small_store, cache=False)
    summary = diagnostic_roc.summary(table, n_boot=20)
    fig = diagnostic_figures.roc_figure(table, summary)
    fig.canvas.draw()
    inches = fig.get_tightbbox(fig.canvas.get_renderer()).width
    assert inches * 100 <= 1.15 * PAGE_PX          # legends included: shown at about its size
    names = (*diagnostic_roc.DIAGNOSTICS, *diagnostic_roc.COMPOSITES)
    panels = drawn_data.data_axes(fig)
    assert len(panels) == 2
    for ax, level in zip(panels, ("per", "settings")):
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        for n in names:
            auc = summary[level][n]["auc"][0]
            assert f"{diagnostic_roc.name_of(n)}, AUC {auc:.2f}" in texts, (level, n, texts)
        assert all(mark in texts for mark in diagnostic_figures.ROC_MARKS)
    plotting.save(fig, tmp_path, "roc")


def test_a_curve_keeps_the_points_where_it_turns():
    x = np.array([0.0, 0.0, 0.0, 0.1, 0.2, 0.2, 0.3, 1.0])
    y = np.array([0.0, 0.1, 0.2, 0.2, 0.2, 0.5, 0.6, 1.0])
    tx, ty = diagnostic_figures.turns(x, y)
    assert list(zip(tx, ty)) == [(0.0, 0.0), (0.0, 0.2), (0.2, 0.2), (0.2, 0.5), (0.3, 0.6), (1.0, 1.0)]


def test_the_mismatch_figure_reads_at_the_page_width_and_draws_every_setting(tmp_path):
    """One panel above the other at the page's width; every setting a point of both panels (a
    failed forward solve at the dotted line beyond the largest ratio), and the legend names the
    studies, the failures and both dashed lines."""
    from types import SimpleNamespace
    ratio = np.array([1.1, 1.5, 2.5, np.inf, 1.2])
    scored = SimpleNamespace(mismatch_ratio=lambda: ratio, groups=["a", "a", "b", "b", "b"],
                             flagged=[True, False, True, True, False], failed=[False, False, True, True, False],
                             truth=[{"up": u, "rel": r} for u, r in zip([0.01, 0.02, 0.3, 0.5, 0.015],
                                                                        [1.0, 2.0, 15.0, 25.0, 1.5])])
    fig = diagnostic_figures.mismatch_figure(scored, {"a": "study a", "b": "study b"}, failure_factor=3.0)
    fig.canvas.draw()
    assert fig.get_tightbbox(fig.canvas.get_renderer()).width * 100 <= 1.1 * PAGE_PX
    texts = {t.get_text() for legend in fig.legends for t in legend.get_texts()}
    assert {"study a", "study b", "ground-truth failure", "the mismatch flag's threshold",
            "failure by our rule"} <= texts
    plotting.save(fig, tmp_path, "mismatch")
    import pandas as pd
    table = pd.read_csv(tmp_path / "mismatch_drawn.csv")
    studies = table[table["series"].isin(["study a", "study b"])]
    for panel, y in ((1, "up"), (2, "rel")):
        drawn = studies[studies["panel"] == panel]
        assert sorted(drawn["y"]) == sorted(v[y] for v in scored.truth)
        assert drawn["x"].max() > ratio[np.isfinite(ratio)].max()       # the failed solve, beyond
    assert set(table.loc[table["kind"] == "vertical line", "xlabel"]) == {"mismatch ratio (no ground truth)"}
