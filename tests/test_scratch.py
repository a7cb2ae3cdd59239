"""Cached own-data fits (user_data.fit_user_data_cached) and the scratch-assay data."""
from types import SimpleNamespace

import numpy as np
import pytest

from binn_utils.analysis import reporting, scratch
from binn_utils.analysis.user_data import fit_spec, fit_user_data, fit_user_data_cached
from binn_utils.applications import fit_plan
from binn_utils.engine.training import TrainConfig
from binn_utils.store import stores

CFG = TrainConfig(epochs=3, compile=False)


def test_scratch_selection():
    obs = scratch.load_scratch(16000)
    assert obs.u.shape == (3, 5, 37)
    assert obs.x[0] == 75 and obs.x[-1] == 1875
    np.testing.assert_array_equal(obs.t, [0, 12, 24, 36, 48])
    full = scratch.load_scratch(16000, drop_first_column=False)
    assert full.u.shape == (3, 5, 38) and full.x[0] == 25
    np.testing.assert_array_equal(full.u[:, :, 1:], obs.u)
    assert 1e-3 < obs.u.max() < 2e-3  # cells per square micrometre


@pytest.mark.parametrize("bad", [15000, "16k", None, 16000.5])
def test_bad_initial_cells_lists_valid_values(bad):
    with pytest.raises(ValueError, match="10000, 12000, 14000, 16000, 18000, 20000"):
        scratch.load_scratch(bad)


def test_cached_fit_round_trip(tmp_path, monkeypatch):
    obs = scratch.load_scratch(10000)
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    with pytest.raises(RuntimeError, match="1 fit is not in the results store"):
        fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1], cache_dir=tmp_path, require_stored=True)
    fresh = fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1], cache_dir=tmp_path, prefix="t")
    npz, js = fresh.cache_files
    assert npz.exists() and js.exists() and fresh.cache_key.startswith("t-")
    again = fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1], cache_dir=tmp_path, prefix="t",
                                 require_stored=True)
    assert again.cache_key == fresh.cache_key
    np.testing.assert_array_equal(again.result.final, fresh.result.final)
    np.testing.assert_array_equal(again.u_p, fresh.u_p)
    assert again.report.summary() == fresh.report.summary()
    # the stored networks are the uncached fit's networks
    plain = fit_user_data(obs, "DG", CFG, seeds=[0, 1])
    np.testing.assert_array_equal(plain.result.final, fresh.result.final)
    np.testing.assert_allclose(plain.u_p, fresh.u_p, rtol=1e-6, atol=1e-12)
    # the environment variable forbids training in book builds
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    with pytest.raises(RuntimeError, match="BINN_REQUIRE_STORED"):
        fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1, 2], cache_dir=tmp_path)


def test_cache_key_covers_data_and_training():
    a, b = scratch.load_scratch(10000), scratch.load_scratch(12000)
    base = fit_spec(a, "DG", CFG, [0, 1])
    assert fit_spec(a, "DG", CFG, [0, 1]) == base
    assert fit_spec(b, "DG", CFG, [0, 1])["data_sha1"] != base["data_sha1"]
    assert fit_spec(a, "D", CFG, [0, 1]) != base
    assert fit_spec(a, "DG", CFG.replace(epochs=4), [0, 1]) != base
    assert fit_spec(a, "DG", CFG, [0, 2]) != base
    assert fit_spec(a, "DG", CFG, [0, 1], extra={"initial_cells": 10000}) != base


def test_the_scratch_fit_at_a_scale(tmp_path, monkeypatch):
    monkeypatch.setattr(stores, "default_results_dir", lambda: tmp_path / "results")
    with pytest.raises(ValueError, match="unknown scale"):
        fit_plan.scratch_plan(scale="huge")
    plan = fit_plan.scratch_plan(scale="quick", epochs=5, seeds=3)
    assert (plan.prep["config"].epochs, plan.n_networks) == (5, 3)
    assert fit_plan.scratch_plan(scale="lite").prep["config"].epochs == fit_plan.SCALES["lite"]["epochs"]
    assert [d.parts[-2:] for d in plan.cache_dir] == [("results-quick", "scratch")]
    assert plan.prefix == "scratch-16000-DG" and plan.extra["initial_cells"] == 16000


def test_a_rerun_reads_the_committed_fits_and_trains_into_the_working_store(tmp_path, monkeypatch):
    """Folders are read in order; a fit none of them holds is trained into the last only."""
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    monkeypatch.setattr(stores, "default_results_dir", lambda: tmp_path / "results")
    committed, working = fit_plan.scratch_plan().cache_dir
    assert (committed, working) == (tmp_path / "results" / "scratch", tmp_path / "out" / "results" / "scratch")
    obs = scratch.load_scratch(10000)
    made = fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1], cache_dir=committed, prefix="t")   # "committed"
    again = fit_user_data_cached(obs, "DG", CFG, seeds=[0, 1], cache_dir=(committed, working), prefix="t")
    assert again.trained == 0 and again.cache_files == made.cache_files
    other = fit_user_data_cached(obs, "DG", CFG, seeds=[0, 2], cache_dir=(committed, working), prefix="t")
    assert other.trained == 2 and other.cache_files[0].parent == working
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in made.cache_files)
    # a book build reads the committed store only
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    assert fit_plan.scratch_plan().cache_dir == (committed,)


def test_zero_crossing_interpolates_the_first_sign_change():
    u = np.linspace(0.0, 2.0, 5)
    assert scratch.zero_crossing(u, 0.8 - u) == pytest.approx(0.8)
    assert scratch.zero_crossing(u, 1.0 + u) is None


def test_the_chapter_readings_of_a_fit_and_their_words():
    from binn_utils.presentation import tables
    rep = [0.1, 0.2, 0.3]
    where = [scratch.misfit_against_replicates(e, rep) for e in ([0.05], [0.2, 0.3], [0.5], [np.nan])]
    assert where == [-1, 0, 1, None]
    assert [tables.replicates_words(w) for w in where] == ["smaller than", "within the range of", "larger than",
                                                          "n/a (every forward solve failed)"]
    assert scratch.agrees_with_literature("D", "increasing", 3) is True
    assert scratch.agrees_with_literature("G", "increasing", 3) is False
    assert scratch.agrees_with_literature("G", "decreasing", 0) is None
    assert [tables.literature_words(a) for a in (True, False)] == ["is consistent with", "is not consistent with"]
    # initialisations of mixed shapes: no shape to hold against the literature's
    assert tables.literature_words(False, "of no consistent shape") == "does not consistently show"
    assert tables.literature_words(None).endswith("cannot be compared with")
    u = np.linspace(0.0, 2e-3, 5)
    zero = scratch.growth_zero(u, {"G": np.array([8e-4 - u, 1e-3 - u, 1.2e-3 - u])}, u_max=0.9e-3)
    assert zero["u"] == pytest.approx(1e-3) and zero["inside"] is False and zero["top"] == 2e-3
    assert tables.growth_zero_words(zero) == "at u ≈ 1 × 10⁻³ cells/µm², above the observed range"
    assert tables.growth_zero_words(scratch.growth_zero(u, {"G": np.ones((2, 5))}, 1e-3)).startswith("nowhere")
    assert scratch.growth_zero(u, {"D": np.ones((2, 5))}, 1e-3) is None and \
        tables.growth_zero_words(None) == "n/a (G not learned)"
    assert tables.first_bias_words(np.array([0.0, -2e-4]), [0, 12]) == "behind the data (-0.2 × 10⁻³ cells/µm² at 12 h)"
    assert tables.first_bias_words(np.array([0.0, 4.04e-5]), [0, 12]) == "ahead of the data (+0.0404 × 10⁻³ cells/µm² at 12 h)"
    assert tables.first_bias_words(np.array([0.0]), [0]) == "n/a"


def test_forward_solve_errors_per_time_and_bias_inside_the_scratch():
    x = np.linspace(0.0, 1.0, 11)
    u_mean = np.array([1.0 - np.exp(-((x - 0.5) / 0.1) ** 2), np.ones_like(x)])   # a scratch around x = 0.5
    u_p = np.stack([u_mean + 0.1, u_mean + 0.3])                                  # two initialisations
    fit = SimpleNamespace(u_p=u_p, t=np.array([0.0, 12.0]), result=SimpleNamespace(n_replicates=2))
    inside, bias = scratch.scratch_bias(fit, u_mean)
    assert inside.tolist() == (u_mean[0] < 0.1).tolist() and inside.sum() == 1
    np.testing.assert_allclose(bias, [0.2, 0.2])
    per_t = scratch.errors_per_time(fit, u_mean)
    np.testing.assert_allclose(per_t[1], 0.2)                                     # median of 0.1 and 0.3 on ones
    data = SimpleNamespace(u=np.stack([u_mean, 2 * u_mean]), u_mean=1.5 * u_mean, n_replicates=2)
    np.testing.assert_allclose(scratch.replicate_errors(data), [1 / 3, 1 / 3])


def test_scratch_chapter_phrases():
    from binn_utils.presentation import tables
    from binn_utils.analysis.diagnostics import Diagnostic
    plain = dict(plain_from=tables.PLAIN_FROM)
    assert reporting.fmt(12345.6, **plain) == "12,346" and reporting.fmt(0.12345, **plain) == "0.123"
    assert reporting.fmt(np.nan, **plain) == "n/a" and reporting.fmt("x", **plain) == "x"
    u = np.linspace(0.0, 2e-3, 21)
    hump = np.array([1e-3 - (u - 1e-3) ** 2 * 1e3] * 3)
    text = tables.median_curve(hump, u, "1/h")
    assert text.endswith(". Its maximum inside the range is 0.001 1/h, at u ≈ 1 × 10⁻³ cells/µm²") and "minimum" not in text
    report = SimpleNamespace(diagnostics={
        "a": Diagnostic("mechanistic_mismatch", 3.0, 2.0, True, "u_p | off"),
        "b": Diagnostic("loss_balance", 0.5, {"low": 1e-3, "high": 1e4}, False, "ok")})
    rows = tables.report_table(report).splitlines()
    assert rows[2] == "| mechanistic mismatch | **3** | 2 | **yes** | $u_\\mathrm{p}$ / off |"
    assert rows[3] == "| loss balance | 0.5 | low 0.001, high 10,000 | no | ok |"


def test_shape_counts_leave_out_the_shapes_no_initialisation_learned():
    from binn_utils.presentation import tables
    assert tables.shape_counts_words({"increasing": 4, "decreasing": 0, "non-monotone": 6}, 10) == \
        "4 increasing and 6 non-monotone, of 10"
    assert tables.shape_counts_words({"increasing": 0, "decreasing": 10, "non-monotone": 0}, 10) == "all 10 decreasing"
    assert tables.shape_counts_words({"increasing": 0, "decreasing": 2, "non-monotone": 0}, 2) == "both decreasing"
    assert tables.shape_counts_words({"increasing": 0, "decreasing": 1, "non-monotone": 0}, 1) == "1 decreasing, of 1"
    assert tables.shape_counts_words({"increasing": 0, "decreasing": 0, "non-monotone": 0}, 0) == \
        "no initialisation with a finite curve"


def test_a_damaged_or_edited_copy_of_the_shipped_scratch_data_is_refused(monkeypatch):
    """A truncated copy of the shipped CSV was read as far as it went (or failed on its grid);
    now its SHA-1 is checked against the shipped file's, and the error says how to restore it."""
    from binn_utils.analysis import user_data
    assert user_data.file_sha1(scratch.DATA_FILE) == scratch.DATA_FILE_SHA1     # the shipped file is the one named
    monkeypatch.setattr(scratch, "DATA_FILE_SHA1", "0" * 40)
    with pytest.raises(ValueError, match=r"damaged or edited .*git checkout -- data/scratch_assay_jin2016.csv"):
        scratch.load_scratch(16000)
