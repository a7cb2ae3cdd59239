"""Results store: round trip, resumability, shared settings, failure recording."""
import hashlib
import json

import numpy as np
import pytest

from binn_utils import studies
from binn_utils.engine.training import TrainConfig
from binn_utils.store.records import StoreWarning
from binn_utils.store.loading import load_setting
from binn_utils.store.runner import run_settings
from binn_utils.store.setting import Setting, replicates

TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), arch_V=(2, 4), arch_G=(2, 4), epochs=3, compile=False)


def _setting(label="a", lr=5e-4, bench="diffusion", **kw):
    ds, ss = replicates(2)
    return Setting("test", label, bench, 1e-3, False, ds, ss, TINY.replace(lr=lr, **kw), swept=("lr",))


def test_store_round_trip_and_resume(tmp_path):
    s1, s2 = _setting("a"), _setting("b", lr=1e-3)
    assert run_settings([s1], tmp_path, workers=1, progress=False) == [s1.key]
    # a second request for the same settings trains only what is missing
    assert run_settings([s1, s2], tmp_path, workers=1, progress=False) == [s2.key]
    assert run_settings([s1, s2], tmp_path, workers=1, progress=False) == []
    res = load_setting(s1, tmp_path)
    assert res["final_u_theta"].shape == (2, 7, 71)
    assert res["final_u_p"].shape == (2, 7, 71)
    assert res["hist_val_total"].shape[0] == 2
    rec = json.loads(s1.paths(tmp_path)[1].read_text())
    assert rec["config"]["lr"] == 5e-4 and rec["seeds"] == [0, 1]
    assert {"commit", "torch", "numpy", "finished_utc"} <= set(rec["provenance"])
    assert len(res.metric("err_u_theta")) == 2 and np.all(np.isfinite(res.metric("err_u_theta")))
    assert res.record.metrics["final"].up_status == ("ok", "ok")
    assert rec["forward_method"] == "RK45"


def test_forward_method_is_recorded_and_checked(tmp_path):
    s = _setting("a")
    with pytest.raises(ValueError, match="unknown forward-solve method 'Euler'"):
        run_settings([s], tmp_path, workers=1, progress=False, forward_method="Euler")
    run_settings([s], tmp_path / "bdf", workers=1, progress=False, forward_method="BDF")
    run_settings([s], tmp_path / "rk45", workers=1, progress=False)
    bdf, rk = load_setting(s, tmp_path / "bdf"), load_setting(s, tmp_path / "rk45")
    assert bdf.record.forward_method == "BDF"
    # the integrator changes u_p only within the solver tolerance; training is untouched
    np.testing.assert_array_equal(bdf["final_u_theta"], rk["final_u_theta"])
    np.testing.assert_allclose(bdf.metric("err_u_p"), rk.metric("err_u_p"), rtol=1e-3)


def test_identical_specifications_share_a_run_across_studies(tmp_path):
    a = _setting("a")
    b = Setting("other_study", "different label", a.benchmark, a.noise_var, a.dense, a.datasets, a.seeds, a.config)
    assert a.key == b.key
    c = _setting("a", lr=1e-3)
    assert c.key != a.key


def test_same_setting_gives_same_numbers(tmp_path):
    s = _setting("a")
    run_settings([s], tmp_path / "one", workers=1, progress=False)
    run_settings([s], tmp_path / "two", workers=1, progress=False)
    r1, r2 = load_setting(s, tmp_path / "one"), load_setting(s, tmp_path / "two")
    np.testing.assert_array_equal(r1["final_u_theta"], r2["final_u_theta"])
    np.testing.assert_array_equal(r1.metric("err_u_p"), r2.metric("err_u_p"))


def test_interrupted_run_leaves_no_half_written_result(tmp_path):
    s = _setting("a")
    npz, js = s.paths(tmp_path)
    npz.parent.mkdir(parents=True)
    npz.write_bytes(b"partial")  # arrays written, metadata missing: not done (and said so)
    with pytest.warns(StoreWarning, match=r"\.json: missing .*an interrupted write"):
        assert not s.is_done(tmp_path)
        assert run_settings([s], tmp_path, workers=1, progress=False) == [s.key]
    assert load_setting(s, tmp_path)["final_u_theta"].shape == (2, 7, 71)


def test_missing_result_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no stored results"):
        load_setting(_setting("zzz"), tmp_path)


def test_setting_rejects_mismatched_replicates():
    with pytest.raises(ValueError, match="one entry per replicate"):
        Setting("t", "x", "diffusion", 0.0, False, (0, 1), (0,), TINY)


def test_study_grids_match_the_paper():
    assert [dict(s.meta)["lr"] for s in studies.learning_rate_study("quick")] == \
        [5e-7, 5e-6, 5e-5, 5e-4, 5e-3, 5e-2, 5e-1]
    ws = studies.loss_weight_study("quick")
    assert [dict(s.meta)["w_pde"] for s in ws] == [1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]
    assert all(s.config.w_bc == 0 and s.benchmark == "porous_medium" for s in ws)
    arch = studies.architecture_study("quick")
    assert len(arch) == 16 and {s.benchmark for s in arch} == {"diffusion_advection"}
    fixed, budget = studies.batch_size_study("paper")
    assert [s.config.batch_size for s in fixed] == [10, 40, 160, 640]
    # the fixed budget is the same number of optimiser steps for every B (398 training points)
    steps = [s.config.epochs * -(-398 // min(s.config.batch_size, 398)) for s in budget]
    assert all(abs(n - studies.PAPER_BUDGET_STEPS) < 40 for n in steps)
    noise = studies.noise_study("paper")
    assert len(noise) == 10
    assert [len(s.seeds) for s in noise] == [100] * 5 + [30] * 5
    with pytest.raises(ValueError, match="unknown scale"):
        studies.learning_rate_study("fast")


def test_a_failing_setting_does_not_stop_the_others(tmp_path, monkeypatch):
    import binn_utils.store.compute as sw
    good, bad = _setting("good"), _setting("bad", lr=1e-3)
    real = sw.compute_group

    def flaky(group, **kw):
        if any(s.key == bad.key for s in group):
            raise OSError("disk full")
        return real(group, **kw)

    monkeypatch.setattr(sw, "compute_group", flaky)
    with pytest.raises(RuntimeError, match=r"(?s)1 of 2 settings failed.*disk full"):
        run_settings([bad, good], tmp_path, workers=1, progress=False)
    assert good.is_done(tmp_path) and not bad.is_done(tmp_path)


def test_grouping_merges_only_settings_that_differ_elementwise():
    from binn_utils.store.setting import group_settings
    a, b = _setting("a"), _setting("b", lr=1e-3)
    c = _setting("c", w_pde=1.0)
    d = _setting("d", batch_size=20)                  # another batch size: its own group
    e = _setting("e", bench="burgers")                # another benchmark: its own group
    ds, ss = replicates(2, seed0=4)
    f = Setting("test", "f", "diffusion", 1e-2, False, ds, ss, TINY)  # other noise and seeds: merged
    groups = group_settings([a, b, c, d, e, f])
    assert [[s.label for s in g] for g in groups] == [["a", "b", "c", "f"], ["d"], ["e"]]
    capped = group_settings([a, b, c, d, e, f], max_replicates=4)
    assert [[s.label for s in g] for g in capped] == [["a", "b"], ["c", "f"], ["d"], ["e"]]
    assert group_settings([a, b], merge=False) == [[a], [b]]


def test_merged_training_stores_the_same_numbers_as_separate_runs(tmp_path):
    cfg = TINY.replace(dtype="float64")
    ds, ss = replicates(2)
    a = Setting("test", "a", "diffusion", 1e-3, False, ds, ss, cfg.replace(lr=1e-3))
    b = Setting("test", "b", "diffusion", 1e-2, False, (1, 2), (3, 4), cfg.replace(w_pde=1.0, w_bc=0.0))
    assert run_settings([a, b], tmp_path / "merged", workers=1, progress=False, merge=True) == [a.key, b.key]
    run_settings([a, b], tmp_path / "separate", workers=1, progress=False)
    for s in (a, b):
        m, p = load_setting(s, tmp_path / "merged"), load_setting(s, tmp_path / "separate")
        np.testing.assert_allclose(m["final_u_theta"], p["final_u_theta"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(m.metric("err_u_p"), p.metric("err_u_p"), rtol=1e-7)
        np.testing.assert_allclose(m["hist_val_total"], p["hist_val_total"], rtol=1e-6)
        assert m.record.config == p.record.config == s.config
        assert m.record.trained_with == {"settings": 2, "replicates": 4}
        assert p.record.trained_with is None


def test_initial_condition_is_keyed_and_recorded_without_moving_old_keys():
    """The text reading keeps the keys results were stored under before the field existed;
    the code reading gets its own key; both records say which they are."""
    text, = studies.framework_study("paper", initial="text")
    code, = studies.framework_study("paper")
    default_run = [s for s in studies.default_runs("paper") if s.benchmark == "nonlinear_adr"][0]
    assert code.initial == "code" and text.key == default_run.key != code.key
    assert text.spec()["initial"] == "text" and code.spec()["initial"] == "code"
    legacy = {k: v for k, v in text.spec().items() if k not in ("initial", "data")}   # fields added later
    assert text.key.endswith(hashlib.sha1(json.dumps(legacy, sort_keys=True).encode()).hexdigest()[:12])
    assert "initial" not in studies.learning_rate_study("quick")[0].spec()   # no choice there
    with pytest.raises(ValueError, match="unknown initial condition"):
        text.__class__(**{**text.__dict__, "initial": "both"})


def test_merged_and_separate_runs_agree_statistically_in_float32(tmp_path):
    """float32, the default: batched kernels may sum in another order for another group, so
    merged and separate runs are *not* asserted to be bitwise equal (at large learning rates
    the rounding differences grow: the README and the training module say so).  At a small
    scale and learning rate they agree closely, and each record says how it was trained."""
    ds, ss = replicates(2)
    a = Setting("test", "a", "diffusion", 1e-3, False, ds, ss, TINY.replace(lr=1e-3))
    b = Setting("test", "b", "diffusion", 1e-2, False, (1, 2), (3, 4), TINY.replace(w_pde=1.0, w_bc=0.0))
    assert a.config.dtype == "float32"
    run_settings([a, b], tmp_path / "merged", workers=1, progress=False, merge=True)
    run_settings([a, b], tmp_path / "separate", workers=1, progress=False)
    for s in (a, b):
        m, p = load_setting(s, tmp_path / "merged"), load_setting(s, tmp_path / "separate")
        np.testing.assert_allclose(m["final_u_theta"], p["final_u_theta"], rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(m.metric("err_u_theta"), p.metric("err_u_theta"), rtol=1e-3)
        np.testing.assert_allclose(m["hist_val_total"], p["hist_val_total"], rtol=1e-3)
        assert m.record.trained_with == {"settings": 2, "replicates": 4} and p.record.trained_with is None
        assert m.record.device == p.record.device and m.record.device.startswith("cpu")


def test_no_document_claims_bitwise_independence_in_float32():
    """The claims the float32 test above cannot support are gone from the docs."""
    from pathlib import Path
    import binn_utils.engine.training as training
    import binn_utils.store.runner as runner
    for text in (training.__doc__, training.train.__doc__, runner.run_group.__doc__):
        assert "does not depend on which" not in text and "differs only by floating-point" not in text
        assert "statistically" in text
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "agree statistically but not bit for bit" in readme


def test_a_rerun_reads_the_committed_store_and_trains_into_the_working_store(tmp_path, monkeypatch):
    from binn_utils.store import loading, stores
    committed = tmp_path / "results"
    monkeypatch.setattr(stores, "default_results_dir", lambda: committed)
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    old, new = _setting("old"), _setting("new", lr=1e-3)
    run_settings([old], committed, workers=1, progress=False)
    assert stores.stores_for("lite") == [committed, tmp_path / "out" / "results"]
    got = loading.load_or_run([old, new], "lite", progress=False)
    assert [r.setting.key for r in got] == [old.key, new.key]
    assert new.is_done(tmp_path / "out" / "results") and not new.is_done(committed)   # committed store untouched
    assert loading.missing([old, new], "lite") == []
    # the book reads the committed store only: what a rerun trained does not count there
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    assert stores.stores_for("lite") == [committed]
    with pytest.raises(RuntimeError, match="1 settings are not in the results store .*"
                                           "BINN_REQUIRE_STORED=1 forbids training"):
        loading.load_or_run([old, new], "lite")
    # asked explicitly: a source folder is read and written, and nothing else
    assert stores.stores_for("lite", tmp_path / "mine") == [tmp_path / "mine"]
    assert stores.stores_for("quick") == [tmp_path / "out" / "results-quick"]


def test_a_chapter_solves_u_p_of_what_it_trains_on_the_dense_grid_with_bdf(tmp_path, monkeypatch):
    from binn_utils.store import loading
    calls = []
    monkeypatch.setattr(loading, "run_settings", lambda todo, folder, **kw: calls.append(
        ([s.dense for s in todo], kw["forward_method"])))
    monkeypatch.setattr(loading, "load_setting", lambda s, folder: s)
    monkeypatch.setattr(loading, "where_stored", lambda s, stores: None if not calls else tmp_path)
    sparse, dense = _setting("a"), _setting("b")
    dense = type(dense)(**{**dense.__dict__, "dense": True})
    loading.load_or_run([sparse, dense], "quick", source=tmp_path, progress=False)
    assert calls == [([False], "RK45"), ([True], "BDF")]
