"""Ground-truth-free diagnostics on synthetic validation curves, errors, weights and operators."""
import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from binn_utils.analysis import diagnostic_calibration as calib, diagnostics as dg
from binn_utils.analysis.reporting import fmt
from binn_utils.analysis.diagnostics import (DiagnosticReport, diagnose, diagnose_arrays, diagnose_many,
                                            observed_u_range)
from binn_utils.presentation.plotting import shade_unobserved
from synthetic import sweep_record

import prose

E = 1000
EPOCHS = np.arange(1, E + 1)
RNG = np.random.default_rng(0)
U_GRID = np.linspace(0.0, 1.0, 101)


def converged(R=4, noise=0.02, seed=0):
    """Fast decay onto a plateau, small multiplicative jitter."""
    rng = np.random.default_rng(seed)
    base = 1e-3 + 0.1 * np.exp(-EPOCHS / 50.0)
    return base * 10 ** (noise * rng.standard_normal((R, E)))


def benign(val_total, **kw):
    """Arguments describing a healthy setting around the given validation curves."""
    R = val_total.shape[0]
    rng = np.random.default_rng(1)
    D = 0.5 + 0.01 * rng.standard_normal((R, 1)) + 0 * U_GRID
    args = dict(epochs=EPOCHS, val_total=val_total, val_data=val_total * 0.9,
                val_pde=val_total * 0.9 * 0.1,            # w_pde L_pde / (w_data L_data) = 0.01
                weights=np.array([1.0, 0.1, 1e-3]),
                err_u_theta_obs=np.full(R, 0.06), err_u_p_obs=np.full(R, 0.065),
                up_status=["ok"] * R, status=["ok"] * R, u_grid=U_GRID, operators={"D": D},
                u_obs=np.linspace(0.1, 0.9, 200))
    args.update(kw)
    return args


def test_smooth_converged_curve_flags_nothing():
    rep = diagnose_arrays(**benign(converged()))
    assert isinstance(rep, DiagnosticReport)
    assert rep.flags == [], rep.summary()
    assert rep.ok
    assert rep["underfitting"].value < dg.UNDERFIT_TAIL_FRACTION
    assert rep["instability"].value < dg.INSTABILITY_ROUGHNESS
    assert rep["overfitting"].value < dg.OVERFIT_FACTOR
    assert rep["mechanistic_mismatch"].value == pytest.approx(0.065 / 0.06)
    assert rep["loss_balance"].value == pytest.approx(0.01)
    assert rep["operator_spread"].value < dg.SPREAD_CV


def test_steeply_falling_curve_flags_underfitting():
    # straight in log: 2 decades over training, 0.2 decades in the last 10%
    curve = 0.1 * 10 ** (-2.0 * EPOCHS / E) * np.ones((3, 1))
    rep = diagnose_arrays(**benign(curve))
    d = rep["underfitting"]
    assert d.flag and rep.flags == ["underfitting"]
    assert d.extra["tail_decades"] == pytest.approx(0.2, rel=0.02)
    assert d.value == pytest.approx(0.1, rel=0.05)


def test_slowly_falling_curve_flags_underfitting():
    # the paper's tiny learning rate: decreases slowly and steadily; only 0.01 decades at the end
    curve = 0.05 * (1 - 0.2 * EPOCHS / E) * np.ones((3, 1))
    d = diagnose_arrays(**benign(curve))["underfitting"]
    assert d.extra["tail_decades"] < dg.UNDERFIT_TAIL_DECADES
    assert d.value > dg.UNDERFIT_TAIL_FRACTION and d.flag


def test_underfitting_message_reads_a_late_rise_as_a_rise():
    # falls 2 decades, then rises 0.05 decades over the last 20 % (0.025 over the last 10 %): no "lowered by -"
    curve = (0.1 * 10 ** (-2.0 * np.minimum(EPOCHS, 0.8 * E) / (0.8 * E))
             * 10 ** (0.05 * np.maximum(EPOCHS - 0.8 * E, 0) / (0.2 * E))) * np.ones((3, 1))
    d = diagnose_arrays(**benign(curve))["underfitting"]
    assert d.extra["tail_decades"] < 0 and not d.flag
    assert d.message.startswith("the median validation loss rose by 0.025 decades over the last 100 of 1000 "), d.message
    assert not prose.defects(d.message), d.message
    falling = diagnose_arrays(**benign(0.1 * 10 ** (-2.0 * EPOCHS / E) * np.ones((3, 1))))["underfitting"]
    assert "epochs lowered the median validation loss by 0.2 decades" in falling.message
    assert not prose.defects(falling.message), falling.message


def test_noisy_sawtooth_flags_instability():
    saw = ((EPOCHS % 7) / 7.0 - 0.5)
    curve = converged(3) * 10 ** (0.6 * saw + 0.2 * RNG.standard_normal((3, E)))
    rep = diagnose_arrays(**benign(curve))
    assert rep["instability"].flag
    assert rep["instability"].value > dg.INSTABILITY_ROUGHNESS


def test_u_shaped_curve_flags_overfitting_and_late_noise_does_not():
    base = 1e-3 * (1 + 4 * ((EPOCHS - 300) / 700.0).clip(0) ** 2) + 0.1 * np.exp(-EPOCHS / 30.0)
    rep = diagnose_arrays(**benign(base * np.ones((3, 1))))
    d = rep["overfitting"]
    assert d.flag and d.value == pytest.approx(5.0, rel=0.05)
    assert d.extra["min_at_fraction"] < 0.4
    # a rise confined to the last 10% of training (minimum after 80%) is not over-fitting
    late = 1e-3 * (1 + 4 * ((EPOCHS - 900) / 100.0).clip(0) ** 2) + 0.1 * np.exp(-EPOCHS / 30.0)
    assert not diagnose_arrays(**benign(late * np.ones((3, 1))))["overfitting"].flag


def test_nan_status_and_nonfinite_curves_flag_instability():
    curve = converged(3)
    rep = diagnose_arrays(**benign(curve, status=["ok", "diverged at epoch 5", "ok"]))
    assert rep["instability"].flag and rep["instability"].extra["n_failed"] == 1
    curve = curve.copy()
    curve[2, 400:] = np.nan
    rep = diagnose_arrays(**benign(curve))
    assert rep["instability"].flag and rep["instability"].extra["failed_replicates"] == [2]
    # the median curve ignores the broken replicate: no spurious over/under-fitting
    assert not rep["overfitting"].flag and not rep["underfitting"].flag


@pytest.mark.parametrize("w_pde, pde_factor, expect", [
    (0.1, 0.1, None),            # defaults: ratio 0.01
    (1e-4, 0.1, "low"),          # the paper's w_PDE = 1e-4: ratio 1e-5
    (0.1, 1e3, "high"),          # PDE term 100x the data term
    (1e3, 1e-6, "weights_break_rule"),  # residual driven small, but w_PDE >> w_data
])
def test_loss_balance(w_pde, pde_factor, expect):
    curve = converged(3)
    rep = diagnose_arrays(**benign(curve, val_pde=curve * pde_factor, val_data=curve,
                                   weights=np.array([1.0, w_pde, 0.0])))
    d = rep["loss_balance"]
    assert d.value == pytest.approx(w_pde * pde_factor, rel=0.05)
    if expect is None:
        assert not d.flag
    else:
        assert d.flag and d.extra[expect]


def test_mechanistic_mismatch():
    curve = converged(4)
    rep = diagnose_arrays(**benign(curve, err_u_p_obs=np.array([0.2, 0.25, 0.3, 0.05])))
    assert rep["mechanistic_mismatch"].flag
    # (nearly) noise-free data: a large ratio of tiny errors is not a mismatch
    rep = diagnose_arrays(**benign(curve, err_u_theta_obs=np.full(4, 1e-3), err_u_p_obs=np.full(4, 4e-3)))
    assert rep["mechanistic_mismatch"].value == pytest.approx(4.0)
    assert not rep["mechanistic_mismatch"].flag
    # a failed forward solve is flagged even if the others agree
    rep = diagnose_arrays(**benign(curve, err_u_p_obs=np.array([0.06, np.nan, 0.06, 0.06]),
                                   up_status=["ok", "failed: x", "ok", "ok"]))
    assert rep["mechanistic_mismatch"].flag and rep["mechanistic_mismatch"].extra["n_failed_u_p"] == 1


def test_operator_spread():
    curve = converged(6)
    scales = np.array([0.4, 1.0, 1.6, 0.5, 1.2, 1.5])[:, None]
    V = 0.6 * U_GRID * (1 - U_GRID)                 # vanishes at u = 0, 1: floored denominator
    rep = diagnose_arrays(**benign(curve, operators={"D": 0.5 * scales + 0 * U_GRID,
                                                     "V": V * (1 + 0.01 * np.arange(6)[:, None])}))
    d = rep["operator_spread"]
    assert d.flag and d.extra["worst"] == "D"
    assert d.extra["per_operator"]["V"] < 0.05
    row = rep.row()
    assert row["spread_D"] == pytest.approx(d.value) and "spread_V" in row
    # consistent within each dataset, different between datasets: not an initialisation spread
    ops = {"D": np.repeat([[0.3], [0.6], [0.9]], 2, axis=0) + 0 * U_GRID}
    rep = diagnose_arrays(**benign(curve, operators=ops, groups=[0, 0, 1, 1, 2, 2]))
    assert rep["operator_spread"].value == pytest.approx(0.0, abs=1e-12)
    assert not rep["operator_spread"].flag


def test_the_papers_warning_signs_per_replicate():
    """One number per replicate for each of the paper's three signs, failures +inf."""
    from binn_utils.analysis.diagnostic_checks import mismatch_ratios, operator_deviations, validation_rises
    r = mismatch_ratios([0.1, 0.1, 0.1], [0.2, np.nan, 0.15], ["ok", "failed: x", "failed: y"])
    assert r[0] == pytest.approx(2.0) and np.isposinf(r[1:]).all()
    u_shape = 1e-3 * (1 + ((EPOCHS - 300) / 300.0) ** 2)          # minimum at epoch 300, ends 6.4x higher
    rises = validation_rises(EPOCHS, np.stack([converged(1)[0], u_shape, np.full(E, np.nan)]), ["ok", "ok", "ok"])
    assert rises[0] == pytest.approx(1.0, abs=0.05) and 3 < rises[1] < 7 and np.isposinf(rises[2])
    assert np.isposinf(validation_rises(EPOCHS, converged(2), ["ok", "diverged"])[1])
    # a rise per replicate is what the overfitting diagnostic reads off the median curve
    one = diagnose_arrays(**benign(u_shape[None]))["overfitting"].value
    assert validation_rises(EPOCHS, u_shape[None])[0] == pytest.approx(one)
    scales = np.array([0.5, 1.0, 1.5, np.nan])[:, None]
    dev = operator_deviations(U_GRID, {"D": 0.5 * scales + 0 * U_GRID, "V": 0.1 + 0 * scales * U_GRID},
                              (0.2, 0.8))
    assert dev[:3] == pytest.approx([0.5, 0.0, 0.5]) and np.isposinf(dev[3])
    # deviations are from the mean of the initialisations on the same data
    same = operator_deviations(U_GRID, {"D": np.repeat([[0.3], [0.9]], 2, axis=0) + 0 * U_GRID}, (0, 1), [0, 0, 1, 1])
    assert same == pytest.approx(np.zeros(4), abs=1e-12)
    assert np.isnan(operator_deviations(U_GRID, {"D": np.ones((2, 101))}, (0, 1), [0, 1])).all()


def test_observed_range_is_robust_and_shading():
    u = np.concatenate([np.linspace(0.1, 0.8, 2000), [5.0, -3.0]])
    lo, hi = observed_u_range(u)
    assert 0.1 <= lo < 0.11 and 0.79 < hi <= 0.8
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xlim(0, 1)
    patches = shade_unobserved(ax, (lo, hi))
    assert len(patches) == 2 and ax.get_xlim() == (0, 1)
    assert len(shade_unobserved(ax, (-1, 2))) == 0
    assert len(shade_unobserved(ax, (lo, hi), np.linspace(0.2, 1, 5))) == 1 and ax.get_xlim() == (0, 1)
    plt.close(fig)


def _fake_setting_result(curves, status):
    from binn_utils.store.loading import SettingResult
    from binn_utils.store.setting import Setting
    from binn_utils.engine.training import TrainConfig
    R, n = curves.shape
    setting = Setting(study="lr", label="r=5e-4", benchmark="diffusion", noise_var=1e-3, dense=False,
                      datasets=(0,) * R, seeds=tuple(range(R)), config=TrainConfig(epochs=E))
    stride = E // n
    arrays = {"curve_epochs": np.arange(stride, E + 1, stride), "hist_val_total": curves.astype(np.float32),
              "hist_val_data": (0.9 * curves).astype(np.float32),
              "hist_val_pde": (0.09 * curves).astype(np.float32),
              "u_obs": np.linspace(0, 1, R * 7 * 5).reshape(R, 7, 5).astype(np.float32), "u_grid": U_GRID,
              "best_op_D": np.full((R, U_GRID.size), 0.5, np.float32),
              "final_op_D": np.full((R, U_GRID.size), 0.5, np.float32)}
    metrics = {"err_u_theta_obs": [0.06] * R, "err_u_p_obs": [0.06] * (R - 1) + [None],
               "up_status": ["ok"] * (R - 1) + ["failed: blowup"], "err_u_theta": [None] * R,
               "err_u_p": [None] * R, "operator_errors": {}}
    # the final networks' forward solves all succeeded; the reported (best) ones did not
    final = dict(metrics, up_status=["ok"] * R, err_u_p_obs=[0.06] * R)
    return SettingResult(setting, sweep_record(R, status=status, metrics={"best": metrics, "final": final}), arrays)


def test_diagnose_stored_setting_and_table():
    curves = converged(3)[:, 9::10]  # stored curves are downsampled
    sr = _fake_setting_result(curves, ["ok"] * 3)
    rep = diagnose(sr)
    assert rep.label == "lr: r=5e-4" and rep.n_epochs == E and rep.n_replicates == 3
    assert rep.flags == ["mechanistic_mismatch"]   # the one failed forward solve of the best networks
    assert "mechanistic_mismatch" not in diagnose(sr, which="final").flags
    assert rep["loss_balance"].value == pytest.approx(0.01, rel=1e-3)
    assert rep.u_range[0] < 0.02 and rep.u_range[1] > 0.98
    steep = 0.1 * 10 ** (-2.0 * np.arange(10, E + 1, 10) / E) * np.ones((3, 1))
    table = diagnose_many([sr, _fake_setting_result(steep, ["ok"] * 3)], labels=["smooth", "steep"])
    rows = table.rows(flag_columns=True)
    assert [r["setting"] for r in rows] == ["smooth", "steep"]
    assert rows[1]["underfitting_flag"] and not rows[0]["underfitting_flag"]
    md = table.to_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| setting |") and len(lines) == 4
    assert "**" in lines[3] and "underfitting" in lines[3]
    assert table._repr_markdown_() == md
    # the paper's warning signs of the stored setting, per replicate: the failed solve the highest mismatch
    signs = dg.warning_signs(sr)
    assert list(signs) == list(dg.WARNING_SIGNS) and all(v.shape == (3,) for v in signs.values())
    assert signs["mismatch"][:2] == pytest.approx([1.0, 1.0]) and np.isposinf(signs["mismatch"][2])
    assert (signs["validation rise"] >= 1).all() and signs["operator deviation"] == pytest.approx(np.zeros(3))
    assert np.isfinite(dg.warning_signs(sr, which="final")["mismatch"]).all()
    with pytest.raises(ValueError, match="2 labels for 1"):
        diagnose_many([sr], labels=["a", "b"])
    with pytest.raises(TypeError, match="cannot diagnose"):
        diagnose(42)


def test_diagnose_a_real_stored_setting(tmp_path):
    """The stored-results path on a genuine (tiny) run of the results store."""
    from binn_utils.store.loading import load_setting
    from binn_utils.store.runner import run_setting
    from binn_utils.store.setting import Setting
    from binn_utils.engine.training import TrainConfig
    cfg = TrainConfig(arch_u=(2, 4), arch_D=(2, 4), epochs=4, compile=False, val_n_pde=20, val_n_bc=5)
    setting = Setting(study="test", label="tiny", benchmark="diffusion", noise_var=1e-3, dense=False,
                      datasets=(0, 0, 1), seeds=(0, 1, 0), config=cfg)
    run_setting(setting, tmp_path)
    sr = load_setting(setting, tmp_path)
    rep = diagnose(sr)
    assert rep.n_replicates == 3 and rep.n_epochs == 4 and rep.label == "test: tiny"
    assert rep["loss_balance"].extra["weight_ratio"] == pytest.approx(0.1)
    lo, hi = rep.u_range                     # from the noisy observations, not the stored truth range
    assert lo != sr.record.u_range[0] and 0.0 < hi - lo < 1.3
    assert set(rep["operator_spread"].extra["per_operator"]) == {"D"}
    assert np.isfinite(rep["mechanistic_mismatch"].value) or rep["mechanistic_mismatch"].flag
    best = diagnose(sr, which="best")
    assert best["mechanistic_mismatch"].extra["median_err_u_theta_obs"] == pytest.approx(
        np.nanmedian(sr.metric("err_u_theta_obs", "best")))


# ----------------------------------------------------------------------------- failed training
def _data_curve(R, level):
    """Validation data-loss curves (R, E) falling from 0.5 to ``level`` x the data variance."""
    return level + (0.5 - level) * np.exp(-EPOCHS / 50.0) * np.ones((R, 1))


U_OBS = np.linspace(0.1, 0.9, 200)
VAR = U_OBS.var()
ERR_MEAN = np.linalg.norm(U_OBS - U_OBS.mean()) / np.linalg.norm(U_OBS)


@pytest.mark.parametrize("case, collapsed, blown_up", [
    ("healthy", [], []),
    ("one network constant at the data mean", [2], []),
    ("one network worse than the mean", [0], []),
    ("one blew up at the end", [], [1]),
    ("noise-dominated data, loss ends at the variance", [], []),
])
def test_collapse_and_blow_up_are_flagged(case, collapsed, blown_up):
    R = 3
    vd = _data_curve(R, 0.01) * VAR
    err = np.full(R, 0.1)
    if case == "one network constant at the data mean":
        err[2] = ERR_MEAN
    elif case == "one network worse than the mean":
        err[0] = 1.0                                   # e.g. u_theta = 0
    elif case == "one blew up at the end":
        vd[1, -50:] = 25.0 * VAR                       # far above its best and the variance
    elif case == "noise-dominated data, loss ends at the variance":
        vd = (0.6 + 0.45 * (EPOCHS / E) ** 4 * np.ones((R, 1))) * VAR   # over-fitting noise
    total = vd + 1e-4
    rep = diagnose_arrays(**benign(total, val_data=vd, val_pde=0.01 * vd, u_obs=U_OBS, err_u_theta_obs=err,
                                   err_u_p_obs=err * 1.05))
    assert rep["underfitting"].extra["collapsed_replicates"] == collapsed
    assert rep["instability"].extra["blown_up_replicates"] == blown_up
    assert rep["underfitting"].flag == bool(collapsed) and rep["instability"].flag == bool(blown_up)
    assert not rep.ok if collapsed or blown_up else rep.flags in ([], ["overfitting"])
    if collapsed:
        assert "no better than their mean" in rep["underfitting"].message
    if blown_up:
        assert "blew up" in rep["instability"].message


def test_a_real_run_at_a_huge_learning_rate_is_not_ok():
    """Status "ok" (nothing non-finite), but the networks collapse: the diagnostics say so;
    the same tiny configuration at a sane learning rate collapses nowhere."""
    from binn_utils.engine.evaluation import evaluate
    from binn_utils.engine.observations import make_observations
    from binn_utils.engine.training import TrainConfig, train
    obs = make_observations("diffusion", 1e-3)
    cfg = TrainConfig(arch_u=(2, 8), arch_D=(2, 4), epochs=12, compile=False)
    reports = {}
    for lr in (5e-3, 50.0):
        res = train(obs, cfg.replace(lr=lr), seeds=[0, 1])
        assert res.status == ["ok", "ok"]
        reports[lr] = diagnose(res, evaluate(res, obs, "best"), obs)
    assert reports[50.0]["underfitting"].extra["collapsed_replicates"] == [0, 1]
    assert not reports[50.0].ok and "underfitting" in reports[50.0].flags
    assert reports[5e-3]["underfitting"].extra["collapsed_replicates"] == []
    assert reports[5e-3]["instability"].extra["blown_up_replicates"] == []


# ----------------------------------------------------------------------------- calibration
def _reports():
    """Three settings: healthy; operator spread only (CV ~0.5); loss balance only (w_PDE = 10)."""
    healthy = benign(converged())
    offsets = np.array([[-1.0], [-0.3], [0.3], [1.0]])             # CV about 0.34
    spread = benign(converged(), operators={"D": 0.5 * (1 + 0.4 * offsets) + 0 * U_GRID})
    heavy = benign(converged(), weights=np.array([1.0, 10.0, 1e-3]),
                   val_pde=converged() * 0.9 * 0.001)
    return [dg.diagnose_arrays(**a) for a in (healthy, spread, heavy)], [healthy, spread, heavy]


def test_thresholds_are_an_explicit_object_and_reject_unknown_names():
    _, args = _reports()
    assert dg.diagnose_arrays(**args[1])["operator_spread"].flag
    relaxed = dg.thresholds(SPREAD_CV=10.0)
    assert relaxed.spread_cv == 10.0 and relaxed.as_dict()["SPREAD_CV"] == 10.0
    rep = dg.diagnose_arrays(**args[1], thresholds=relaxed)
    assert not rep["operator_spread"].flag and rep["operator_spread"].threshold == 10.0
    # the module's thresholds are untouched: the next diagnosis flags again
    assert dg.SPREAD_CV == 0.25 and dg.DEFAULT_THRESHOLDS.spread_cv == dg.SPREAD_CV
    assert dg.diagnose_arrays(**args[1])["operator_spread"].flag
    assert set(dg.DEFAULT_THRESHOLDS.as_dict()) == set(dg.THRESHOLD_NAMES)
    assert all(v == getattr(dg, k) for k, v in dg.DEFAULT_THRESHOLDS.as_dict().items())
    with pytest.raises(ValueError, match="unknown threshold"):
        dg.thresholds(SPREAD=1.0)
    with pytest.raises(ValueError, match="must be a number > 0"):
        dg.thresholds(SPREAD_CV=-1)


def test_flag_matrix_rows_and_choice():
    objs, args = _reports()
    M = calib.flag_matrix(args, diagnose_fn=lambda a, thr: dg.diagnose_arrays(**a, thresholds=thr))
    assert set(M) == set(dg.CANDIDATES)
    assert all(M[n].shape == (len(dg.CANDIDATES[n]), 3) for n in M)
    default = {n: 0 for n in M}                                   # candidate 0: the module's values
    np.testing.assert_array_equal(calib.combined_flags(M, default), [bool(r.flags) for r in objs])
    assert M["operator_spread"][0].tolist() == [False, True, False]
    assert M["operator_spread"][-1].tolist() == [False, False, False]   # SPREAD_CV = 1
    assert M["loss_balance"][0].tolist() == [False, False, True]
    # setting 2 is a failure, 1 is fine: the choice keeps a rule that flags w_PDE / w_data = 10
    # and relaxes the spread threshold
    failed = np.array([False, False, True])
    choice, counts = calib.choose_thresholds(M, failed, np.ones(3, bool))
    assert (counts.caught, counts.failures, counts.false_alarms, counts.fine) == (1, 1, 0, 2)
    assert not M["operator_spread"][choice["operator_spread"]][1]
    assert M["loss_balance"][choice["loss_balance"]][2]
    assert choice["operator_spread"] == 1                          # the smallest change that suffices
    assert str(counts) == "1 of 1 failures caught, 0 false alarms among 2 fine settings"
    # chosen on part of the settings only: the others do not influence the choice
    part = np.array([True, False, True])
    choice2, c2 = calib.choose_thresholds(M, failed, part)
    assert choice2["operator_spread"] == 0 and (c2.failures, c2.fine) == (1, 1)


def test_split_parts_is_seeded_balanced_and_keeps_runs_together():
    keys = [f"k{i}" for i in range(20)] + ["k0", "k1"]          # two runs shown under a second study
    strata = [("a", i % 4 == 0) for i in range(20)] + [("b", False), ("b", False)]
    p = calib.split_parts(keys, strata, seed=0)
    np.testing.assert_array_equal(p, calib.split_parts(keys, strata, seed=0))
    assert not np.array_equal(p, calib.split_parts(keys, strata, seed=1))
    assert p[20] == p[0] and p[21] == p[1]
    fails = [i for i in range(20) if i % 4 == 0]
    assert sum(p[i] for i in fails) in (2, 3)                  # 5 failures: 2 or 3 in each part
    assert 9 <= int(p[:20].sum()) <= 11


class _Stored:
    """A stored setting as the ground-truth rule sees it."""

    def __init__(self, up, noise=1e-3, status=None, up_status=None):
        self._up = np.asarray(up, float)
        n = self._up.size
        self.record = sweep_record(n, status=status or ["ok"] * n, noise_var=noise,
                                   metrics={"best": {"operator_errors": {"D": [0.1] * n}}})
        self._ups = up_status or ["ok"] * n

    def metric(self, name, which=None):
        return self._up if name == "err_u_p" else self._up / 2

    def up_status(self, which=None):
        return self._ups

    def operator_error(self, op, which=None):
        return np.full(self._up.size, 0.1)


def test_ground_truth_failure_rule():
    from binn_utils.analysis.diagnostic_calibration import ground_truth_failures
    rs = [_Stored([0.1, 0.1, 0.1]),                       # the best of its group
          _Stored([0.35, 0.35, 0.35]),                    # 3.5 x the best: a failure at factor 3
          _Stored([0.25, 0.25, 0.25]),                    # 2.5 x: fine
          _Stored([0.9, 0.9, 0.9], noise=1e-2),           # alone at its noise level: its own best
          _Stored([0.1, 0.1, 0.1], status=["ok", "diverged", "diverged"]),   # most replicates diverged
          _Stored([np.nan] * 3)]                          # no finite u_p error
    G = ground_truth_failures(rs, ["s"] * 6, 3.0)
    assert [v["fail"] for v in G] == [False, True, False, False, True, True]
    assert G[1]["rel"] == pytest.approx(3.5) and G[3]["rel"] == pytest.approx(1.0)
    assert G[0]["theta"] == pytest.approx(0.05) and G[4]["bad"] == 2 and G[0]["ops"] == {"D": pytest.approx(0.1)}
    # groups are per study: the same errors in another study are judged against that study's best
    assert not ground_truth_failures(rs[1:2], ["t"], 3.0)[0]["fail"]


# ----------------------------------------------------------------------------- flags against the ground truth
def test_outcome_of_each_combination():
    assert [calib.outcome(f, fl) for f, fl in ((True, True), (True, False), (False, True), (False, False))] == \
        list(calib.OUTCOMES)


def _scored():
    """Four settings of two studies: quiet and fine, hit (under-fitting), false alarm
    (mismatch), miss; a failure's median u_p error is 5x its study's best."""
    steep = 0.1 * 10 ** (-2.0 * EPOCHS / E) * np.ones((4, 1))
    args = [benign(converged()), benign(steep, err_u_p_obs=np.full(4, 0.07)),
            benign(converged(), err_u_p_obs=np.array([0.2, 0.25, 0.3, 0.05])),
            benign(converged(), err_u_p_obs=np.full(4, 0.08))]
    results = [_Stored([up] * 4) for up in (0.1, 0.5, 0.1, 0.5)]
    for i, (r, a) in enumerate(zip(results, args)):
        r.meta, r.args = {"lr": 0.1 * i}, a
    groups = ["a", "a", "b", "b"]
    table = dg.DiagnosticTable([diagnose_arrays(**a) for a in args])
    return calib.Scored(results, groups, table, calib.ground_truth_failures(results, groups, 3.0))


def test_scored_counts_outcomes_per_study_and_per_diagnostic():
    sc = _scored()
    assert sc.flagged == [False, True, True, False] and sc.failed == [False, True, False, True]
    # only the flags of ``signs`` count: with the paper's three signs the under-fitting hit is a miss
    paper = dataclasses.replace(sc, signs=tuple(dg.PAPER_SIGNS))
    assert paper.flagged == [False, False, True, False] and paper.flags(1) == [] and paper.flags(2) == ["mechanistic_mismatch"]
    assert paper.outcomes == ["quiet and fine", "miss", "false alarm", "miss"]
    assert sc.outcomes == ["quiet and fine", "hit", "false alarm", "miss"]
    assert sc.counts("a") == {"hit": 1, "miss": 0, "false alarm": 0, "quiet and fine": 1, "n": 2}
    assert sc.counts() == {"hit": 1, "miss": 1, "false alarm": 1, "quiet and fine": 1, "n": 4}
    per = sc.by_diagnostic()
    assert per["underfitting"] == (1, 1, 1) and per["mechanistic_mismatch"] == (1, 0, 0)
    assert per["overfitting"] == (0, 0, 0) and list(per) == list(calib.SHORT_NAMES)
    assert sc.top_diagnostic() == "underfitting"
    later = calib.Scored(sc.results[2:], sc.groups[2:], dg.DiagnosticTable(sc.table.reports[2:]), sc.truth[2:])
    assert later.top_diagnostic() is None                        # its only flag is a false alarm
    mm = sc.mismatch_counts()
    assert (mm.caught, mm.failures, mm.false_alarms, mm.fine) == (0, 2, 1, 2)
    assert sc.index("b", lr=0.3) == 3 and sc.index("a", lr=0.3) is None


def test_mismatch_correlation_ranks_finite_positive_settings():
    sc = _scored()
    ratio = sc.mismatch_ratio()
    order = np.argsort(ratio)
    for sign in (1, -1):
        truth = [dict(v) for v in sc.truth]
        for rank, i in enumerate(order):
            truth[i]["up"] = 10.0 ** (sign * rank)
        assert calib.Scored(sc.results, sc.groups, sc.table, truth).mismatch_correlation() == pytest.approx(sign)
    truth = [dict(v, up=np.nan) for v in sc.truth[:2]] + sc.truth[2:]
    assert np.isnan(calib.Scored(sc.results, sc.groups, sc.table, truth).mismatch_correlation())


def test_calibrate_counts_both_parts_and_pools_further_splits():
    sc = _scored()
    keys = ["k0", "k1", "k2", "k3"]
    cal = sc.calibrate(keys, seed=0, splits=3, diagnose_fn=lambda r, thr: diagnose_arrays(**r.args, thresholds=thr))
    first = calib.split_parts(keys, list(zip(sc.groups, sc.failed)), seed=0)
    mod = cal.counts[("module", "first")], cal.counts[("module", "second")]
    assert (mod[0].failures + mod[0].fine, mod[1].failures + mod[1].fine) == (first.sum(), (~first).sum())
    assert mod[0].caught + mod[1].caught == 1 and mod[0].false_alarms + mod[1].false_alarms == 1
    assert cal.held is cal.counts[("chosen", "second")] and cal.splits == 3 and 0 <= cal.met <= 3
    held_sizes = sum((~calib.split_parts(keys, list(zip(sc.groups, sc.failed)), seed=s)).sum() for s in (1, 2, 3))
    assert cal.pooled.failures + cal.pooled.fine == held_sizes
    assert all(old != new for _, old, new in cal.changed())
    assert cal.held_meets() in (None, True, False)
    # diagnostics that do not reproduce the table's flags are refused
    with pytest.raises(RuntimeError):
        sc.calibrate(keys, diagnose_fn=lambda r, thr: diagnose_arrays(**benign(converged()), thresholds=thr))


def test_chapter_tables_of_scored_settings():
    from binn_utils.presentation import diagnostic_tables, tables
    sc = _scored()
    titles = {"a": "study A", "b": "study B"}
    rows = diagnostic_tables.settings_table(sc, titles).splitlines()
    assert len(rows) == 2 + 4 and sum("**yes**" in r for r in rows) == 2 and "| U | - |" in rows[3]
    # with the paper's three signs counting, under-fitting moves to the further checks
    paper = dataclasses.replace(sc, signs=tuple(dg.PAPER_SIGNS))
    assert "| - | U |" in diagnostic_tables.settings_table(paper, titles).splitlines()[3]
    out = diagnostic_tables.outcome_table(sc, titles).splitlines()
    assert out[-1] == "| **all** | 4 | 2 | 1 | 1 | 1 | 1 |" and out[2].startswith("| study A | 2 | 1 | 1 | 0 |")
    assert diagnostic_tables.outcome_list(sc, titles, "false alarm") == f"study B: {sc.table[2].label} (M)"
    assert diagnostic_tables.outcome_list(sc, titles, "nothing") == "none"
    assert diagnostic_tables.diagnostic_table(sc).splitlines()[2] == "| underfitting (U) | 1 | 1 | 1 |"
    st = SimpleNamespace(problem="P", default={"lr": 0.0}, diagnosed=True)
    point = SimpleNamespace(label="r = 0.1", says="fails", point={"lr": 0.1})
    against = SimpleNamespace(words=lambda: "mismatch raised")
    t = diagnostic_tables.paper_failures_table(sc, [(st, point, 1, 0, against), (st, point, None, 0, None)]).splitlines()
    assert t[2] == f"| P, r = 0.1 | fails | mismatch raised | U | {fmt(sc.truth[1]['up'])} (5) | failure | fine |"
    assert t[3] == "| P, r = 0.1 | fails | not run | not run | not run | not run | fine |"
    noisy = SimpleNamespace(label="s2 = 0.05", says="fails", point={"noise_var": 0.05})
    st_noise = SimpleNamespace(problem="P", default={"noise_var": 0.001}, diagnosed=False)
    row = diagnostic_tables.paper_failures_table(sc, [(st_noise, noisy, 2, 0, None)]).splitlines()[2]
    assert "not compared: the default has another noise level" in row and "| M |" in row
    cal = calib.Calibration({n: 0 for n in dg.CANDIDATES}, {(t, p): calib.Counts(1, 2, 0, 2) for t in ("module", "chosen")
                                                         for p in ("first", "second")}, calib.Counts(0, 0, 0, 0), 0, 0,
                         (0.85, 0.15))
    assert len(diagnostic_tables.calibration_table(cal).splitlines()) == 6
    assert "1 / 2 (50%) | 0 / 2 (0%)" in diagnostic_tables.calibration_table(cal)
    assert diagnostic_tables.changed_thresholds(cal) == "none (our default values)" and diagnostic_tables.rates(cal.pooled) == "n/a"
    assert cal.held_meets() is False


def test_scale_words_are_the_scales_numbers(monkeypatch):
    from binn_utils import studies
    from binn_utils.presentation import diagnostic_tables, tables
    assert tables.scale_words("lite") == "1000 epochs, 3 initialisations (noise: fewer)"
    monkeypatch.setitem(studies.SCALES, "lite", dict(studies.SCALES["lite"], epochs=700, noise_seeds=3))
    assert tables.scale_words("lite") == "700 epochs, 3 initialisations"
    assert tables.scales_sentence({"noise": "paper"}) == "noise: paper scale (the paper's grid)"


def test_every_threshold_has_words_for_the_reader():
    from binn_utils.analysis.diagnostic_thresholds import THRESHOLD_NAMES
    from binn_utils.presentation.diagnostic_tables import THRESHOLD_WORDS
    assert set(THRESHOLD_WORDS) == set(THRESHOLD_NAMES)


def test_a_long_outcome_list_is_counted_per_study():
    from binn_utils.presentation import diagnostic_tables
    sc = _scored()
    titles = {"a": "study A", "b": "study B"}
    assert diagnostic_tables.outcome_list(sc, titles, "false alarm", most=0) == \
        "study B: 1 (each named in the table above)"
