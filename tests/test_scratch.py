"""Cached own-data fits (user_data.fit_user_data_cached) and the scratch-assay data."""
import numpy as np
import pytest

from binn_utils import scratch
from binn_utils.training import TrainConfig
from binn_utils.user_data import fit_spec, fit_user_data, fit_user_data_cached

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


def test_scratch_presets():
    with pytest.raises(ValueError, match="unknown preset"):
        scratch.preset_values("huge")
    assert scratch.preset_values("quick", epochs=5, seeds=3)["epochs"] == 5
    assert scratch.cache_dir("quick").parts[-2:] == ("results-quick", "scratch")
