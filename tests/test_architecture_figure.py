"""Fig. 5 with both heat maps (ours: Frobenius norm, mean; the authors': spectral norm,
median), drawn from small synthetic stored results with a failed forward solve."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from binn_utils.engine.training import TrainConfig  # noqa: E402
from binn_utils.presentation import figures  # noqa: E402
from binn_utils.store.loading import SettingResult  # noqa: E402
from binn_utils.store.setting import Setting  # noqa: E402
from synthetic import figure_heat, sweep_record  # noqa: E402

ARCHS = ((1, 1), (4, 4))
NT, NX, NU, NC = 3, 8, 20, 5
rng = np.random.default_rng(0)
U_CLEAN = 0.5 + 0.3 * rng.random((NT, NX))
#: per-replicate perturbations (not multiples of the truth, so the two norms differ);
#: None: the forward solve of that replicate failed
PERTURB = {((1, 1), (1, 1)): [0.05, 0.10, 0.30], ((1, 1), (4, 4)): [0.02, None, 0.40],
           ((4, 4), (1, 1)): [0.08, 0.09, 0.50], ((4, 4), (4, 4)): [0.01, 0.03, 0.20]}
DIRECTION = rng.standard_normal((NT, NX))


def _u_p(eps):
    return np.full((NT, NX), np.nan) if eps is None else U_CLEAN + eps * DIRECTION


def _rel(pred, ord_):
    if not np.all(np.isfinite(pred)):
        return np.nan
    if ord_ == "fro":
        return np.linalg.norm((pred - U_CLEAN).ravel()) / np.linalg.norm(U_CLEAN.ravel())
    return np.linalg.norm(pred - U_CLEAN, 2) / np.linalg.norm(U_CLEAN, 2)


def _result(aD, aV, eps):
    R = len(eps)
    s = Setting("architecture", f"D{aD} V{aV}", "diffusion_advection", 1e-3, False, (0,) * R, tuple(range(R)),
                TrainConfig(epochs=2, arch_D=tuple(aD), arch_V=tuple(aV)), swept=("arch_D", "arch_V"))
    u_p = np.stack([_u_p(e) for e in eps])
    u_grid = np.linspace(0, 1, NU)
    fro = [None if e is None else _rel(_u_p(e), "fro") for e in eps]
    metrics = {"err_u_p": fro, "err_u_theta": [0.01] * R,
               "up_status": ["ok" if e is not None else "failed: synthetic" for e in eps],
               "operator_errors": {"D": [0.1] * R, "V": [0.1] * R}}
    rec = sweep_record(R, u_range=[0.5, 0.8], metrics={"best": metrics, "final": metrics})
    arrays = {"x": np.linspace(0, 1, NX), "t": np.linspace(0, 1, NT), "u_clean": U_CLEAN, "u_grid": u_grid,
              "true_op_D": 0.01 + 0 * u_grid, "true_op_V": u_grid * (1 - u_grid),
              "curve_epochs": np.arange(1, NC + 1), "hist_val_total": np.tile(np.geomspace(1, 0.1, NC), (R, 1))}
    for which in ("best", "final"):
        arrays[f"{which}_u_p"] = u_p
        arrays[f"{which}_u_theta"] = np.tile(U_CLEAN, (R, 1, 1))
        arrays[f"{which}_op_D"] = np.tile(arrays["true_op_D"], (R, 1))
        arrays[f"{which}_op_V"] = np.tile(arrays["true_op_V"], (R, 1))
    return SettingResult(s, rec, arrays)


@pytest.fixture(scope="module")
def results():
    return [_result(aD, aV, PERTURB[aD, aV]) for aD in ARCHS for aV in ARCHS]


def _heatmaps(fig):
    return {ax.get_gid(): ax for ax in fig.axes if (ax.get_gid() or "").startswith("heatmap:")}


def _cell_text(ax, i, j):
    """The text drawn in cell (row i = D network, column j = V network)."""
    hits = [t.get_text() for t in ax.texts if np.allclose(t.get_position(), (j, i))]
    assert len(hits) == 1
    return hits[0]


def test_both_heat_maps_are_drawn_with_legible_cells(results):
    fig = figures.architecture_figure(results, figure_heat(results), authors_metric=True)
    try:
        maps = _heatmaps(fig)
        assert set(maps) == {"heatmap:mean:frobenius", "heatmap:50%:spectral"}
        for ax in maps.values():
            assert len(ax.images) == 1 and len(ax.texts) == len(ARCHS) ** 2
            assert min(t.get_fontsize() for t in ax.texts) >= 9
        # cell (D (4, 4), V (1, 1)): ours is the Frobenius mean, the authors' the spectral median
        eps = PERTURB[(4, 4), (1, 1)]
        fro = np.mean([_rel(_u_p(e), "fro") for e in eps])
        spec = np.median([_rel(_u_p(e), "spectral") for e in eps])
        assert not np.isclose(fro, spec, rtol=0.05)
        assert _cell_text(maps["heatmap:mean:frobenius"], 1, 0) == f"{fro:.3g}"
        assert _cell_text(maps["heatmap:50%:spectral"], 1, 0) == f"{spec:.3g}"
    finally:
        plt.close(fig)


def test_a_failed_replicate_is_counted_in_the_spectral_map(results):
    fig = figures.architecture_figure(results, figure_heat(results), authors_metric=True)
    try:
        ax = _heatmaps(fig)["heatmap:50%:spectral"]
        # D (1, 1), V (4, 4): replicate 1 failed; the median is over the two that did not
        # (not NaN, not the previous replicate's error reused) and the failure is in the cell
        ok = [_rel(_u_p(e), "spectral") for e in PERTURB[(1, 1), (4, 4)] if e is not None]
        reused = np.median([ok[0], ok[0], ok[1]])
        assert not np.isclose(np.median(ok), reused, rtol=0.01)
        assert _cell_text(ax, 0, 1) == f"{np.median(ok):.3g}\n1 failed"
        # the cells without failures carry no note
        assert "failed" not in _cell_text(ax, 0, 0) and "failed" not in _cell_text(ax, 1, 1)
    finally:
        plt.close(fig)


def test_default_figure_keeps_one_heat_map(results):
    """The Supporting Material draws Fig. 5 without the authors' metric: one heat map."""
    fig = figures.architecture_figure(results, figure_heat(results))
    try:
        assert set(_heatmaps(fig)) == {"heatmap:mean:frobenius"}
    finally:
        plt.close(fig)


def test_tables_and_metric_comparison_of_the_heat_maps(results):
    from binn_utils import studies
    from binn_utils.presentation import tables
    from binn_utils.analysis.reporting import fmt
    mean = tables.architecture_table(results, "mean").splitlines()
    assert mean[0] == "| mean: $D$ \\ $V$ | (1, 1) | (4, 4) |" and len(mean) == 4
    fro = np.mean([_rel(_u_p(e), "fro") for e in PERTURB[(1, 1), (4, 4)] if e is not None])
    assert mean[2].endswith(f" | {fmt(fro)} (1 failed) |")
    # a published row whose second cell shows another V network; (4, 32) was not run here
    row = tables.published_row_table(results, ((1, 1), (4, 4), (4, 32)), ((1, 1), (1, 1), (4, 4)), row_D=(4, 4))
    lines = row.splitlines()
    assert "(mislabelled)" in lines[3] and "(mislabelled)" not in lines[2] and "not run" in lines[4]
    m = studies.architecture.spectral_against_frobenius(results)
    spec = {k: np.median([_rel(_u_p(e), 2) for e in v if e is not None]) for k, v in PERTURB.items()}
    assert m["ratio"].size == 4 and m["best_combo"] == min(spec, key=spec.get)
    assert (m["ratio_median"], m["ratio_min"], m["ratio_max"]) == (np.median(m["ratio"]), m["ratio"].min(),
                                                                   m["ratio"].max())
    assert m["spectral_vs_ours"] == int(np.sign(m["ratio_median"] - 1)) and m["spectral_vs_ours"] in (-1, 0, 1)
    assert m["best"] == pytest.approx(min(spec.values()))
    assert m["same_best"] is True                      # (4, 4), (4, 4) has the smallest errors in both norms


def test_the_heat_map_draws_the_numbers_it_is_given(results):
    """The figure only draws: a cell shows the chapter's table's value, not one of its own."""
    heat = figure_heat(results).reset_index()
    cell = [k == ("frobenius", (4, 4), (1, 1)) for k in zip(heat["norm"], heat["arch_D"], heat["arch_V"])]
    heat.loc[cell, "mean"] = 0.123
    fig = figures.architecture_figure(results, heat)
    try:
        assert _cell_text(_heatmaps(fig)["heatmap:mean:frobenius"], 1, 0) == "0.123"
    finally:
        plt.close(fig)
