"""User data: validation messages, rescaling and unit conversion, and one tiny end-to-end fit."""
import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

from binn_utils.analysis.user_data import (Scaling, UserObservations, curve_shapes, fit_user_data,
                                           load_observations_csv, observations_from_arrays, operator_shape,
                                           validate_mechanisms)
from binn_utils.engine.forward_solve import forward_solve

X = np.linspace(100.0, 400.0, 7)      # micrometres
T = np.array([0.0, 12.0, 24.0])       # hours


def grid_rows(x=X, t=T, reps=(None,), u_of=lambda x, t, r: 1000 + 10 * x + t):
    rows = []
    for r in reps:
        for tt in t:
            for xx in x:
                rows.append((xx, tt, u_of(xx, tt, r), r))
    return rows


def csv_text(rows, header="x,t,u", rep=False):
    lines = [header + (",rep" if rep else "")]
    for xx, tt, uu, r in rows:
        lines.append(f"{xx},{tt},{uu}" + (f",{r}" if rep else ""))
    return "\n".join(lines) + "\n"


def load(text, **kw):
    return load_observations_csv(io.StringIO(text), **kw)


# ----------------------------------------------------------------------------- validation
def test_valid_csv_and_unsorted_input(tmp_path):
    rows = grid_rows()
    obs = load(csv_text(rows))
    assert obs.u.shape == (1, 3, 7)
    np.testing.assert_allclose(obs.x, X)
    np.testing.assert_allclose(obs.t, T)
    np.testing.assert_allclose(obs.u[0], 1000 + 10 * X[None, :] + T[:, None])
    shuffled = [rows[i] for i in np.random.default_rng(3).permutation(len(rows))]
    path = tmp_path / "data.csv"
    path.write_text(csv_text(shuffled))
    obs2 = load_observations_csv(path)
    np.testing.assert_array_equal(obs2.u, obs.u)
    np.testing.assert_array_equal(obs2.x, obs.x)
    assert obs2.source == str(path)
    # extra columns and custom names are fine
    text = csv_text(rows, header="pos,time,density").replace("\n", ",ignored\n")
    obs3 = load(text.replace("density,ignored", "density,notes"), x="pos", t="time", u="density")
    np.testing.assert_array_equal(obs3.u, obs.u)


def test_missing_column_is_named():
    with pytest.raises(ValueError, match=r"missing column\(s\) 'u'.*header has 'x', 't', 'density'"):
        load(csv_text(grid_rows(), header="x,t,density"))
    with pytest.raises(ValueError, match=r"missing column\(s\) 'replicate'"):
        load(csv_text(grid_rows()), replicate="replicate")


def test_nan_non_numeric_and_empty_rows_are_named():
    lines = csv_text(grid_rows()).splitlines()
    bad = list(lines)
    bad[3] = bad[3].rsplit(",", 1)[0] + ",nan"
    with pytest.raises(ValueError, match=r"row 3 \(line 4\): column 'u' is 'nan' \(NaN/inf\)"):
        load("\n".join(bad))
    bad = list(lines)
    bad[5] = "abc," + bad[5].split(",", 1)[1]
    with pytest.raises(ValueError, match=r"row 5 \(line 6\): column 'x' has a non-numeric value 'abc'"):
        load("\n".join(bad))
    bad = list(lines)
    bad[2] = bad[2].split(",")[0] + ",," + bad[2].split(",")[2]
    with pytest.raises(ValueError, match=r"row 2 \(line 3\): column 't' is empty"):
        load("\n".join(bad))
    bad = list(lines)
    bad[4] = "150.0,0.0"
    with pytest.raises(ValueError, match=r"row 4 \(line 5\): column 'u' is missing"):
        load("\n".join(bad))
    # arrays: long format names the entry, grid format the (t, x) node
    x, t, u = (np.array([r[i] for r in grid_rows()], dtype=float) for i in range(3))
    u[5] = np.inf
    with pytest.raises(ValueError, match=r"entry 5: column 'u' is inf"):
        observations_from_arrays(x, t, u)
    ug = 1000 + 10 * X[None, :] + T[:, None]
    ug[2, 4] = np.nan
    with pytest.raises(ValueError, match=r"u\[2, 4\] \(t=24.0, x=300.0\): column 'u' is nan"):
        observations_from_arrays(X, T, ug)


def test_duplicates_are_named():
    rows = grid_rows()
    rows.append(rows[8])  # same (x, t) again: data row 22
    with pytest.raises(ValueError, match=r"row 9 \(line 10\) and row 22 \(line 23\) are both at x=150, t=12"):
        load(csv_text(rows))
    # the same point in two different replicates is fine
    rows2 = grid_rows(reps=("a", "b"), u_of=lambda x, t, r: 1000 + 10 * x + t + (r == "b"))
    assert load(csv_text(rows2, rep=True), replicate="rep").n_replicates == 2
    rows2.append(rows2[-1])
    with pytest.raises(ValueError, match="in replicate 'b'"):
        load(csv_text(rows2, rep=True), replicate="rep")


def test_incomplete_and_irregular_grids_are_rejected():
    rows = grid_rows()
    del rows[10]
    with pytest.raises(ValueError, match=r"not form a full \(t, x\) grid: 1 of 21 .*x=250, t=12"):
        load(csv_text(rows))
    rows = grid_rows(reps=("a", "b"))
    del rows[-1]
    with pytest.raises(ValueError, match=r"replicate 'b' \(x=400, t=24\)"):
        load(csv_text(rows, rep=True), replicate="rep")
    xi = np.array([0.0, 1.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="equally spaced.*from 1 to 2"):
        load(csv_text(grid_rows(x=xi)))
    with pytest.raises(ValueError, match="only 2 distinct position"):
        load(csv_text(grid_rows(x=np.array([0.0, 1.0]))))


def test_too_few_points_for_a_batch():
    obs = load(csv_text(grid_rows()))          # 21 points -> 17 training points
    with pytest.raises(ValueError, match=r"3 x 7 = 21 grid points, i.e. 17 points, but the batch size is 40"):
        obs.check_batch_size(40)
    obs.check_batch_size(17)
    obs.check_batch_size(40, clip=True)
    with pytest.raises(ValueError, match="batch size is 40"):
        fit_user_data(obs, "D")               # the paper's default B = 40, before any training


def test_mechanisms():
    assert validate_mechanisms("VD") == ("D", "V")
    assert validate_mechanisms(["G"]) == ("G",)
    assert validate_mechanisms("D, G") == ("D", "G")
    for bad, msg in [("DX", "unknown mechanism.*'DX'"), (["D", "Q"], "unknown mechanism 'Q'"),
                     ("", "empty"), ([], "empty"), ("diffusion", "'diffusion'"),
                     ("D,D", "D named twice"), ("DDG", "D named twice")]:
        with pytest.raises(ValueError, match=msg):
            validate_mechanisms(bad)
    with pytest.raises(ValueError, match="unknown mechanism 'R'"):
        fit_user_data(load(csv_text(grid_rows())), ["D", "R"])


def test_replicates_mean_and_noise():
    rng = np.random.default_rng(0)
    noise = {r: rng.normal(0, 5.0, (3, 7)) for r in "ab"}
    rows = grid_rows(reps=("a", "b"), u_of=lambda x, t, r: 1000 + 10 * x + t
                     + noise[r][list(T).index(t), list(X).index(x)])
    obs = load(csv_text(rows, rep=True), replicate="rep")
    assert obs.replicates == ["a", "b"]
    np.testing.assert_allclose(obs.u_mean, 1000 + 10 * X[None, :] + T[:, None] + (noise["a"] + noise["b"]) / 2)
    assert 2 < obs.noise_sd < 10
    (mean_obs,) = obs.to_observations(replicates="mean")
    sep = obs.to_observations(replicates="separate")
    assert len(sep) == 2 and sep[1].dataset == 1
    sc = obs.scaling()
    np.testing.assert_allclose(mean_obs.u_obs, obs.u_mean / sc.u_factor)
    assert mean_obs.x_range == pytest.approx((-7.0, 7.0)) and mean_obs.t_range == pytest.approx((0.0, 10.0))
    np.testing.assert_allclose(mean_obs.x, np.linspace(-7, 7, 7))
    with pytest.raises(ValueError, match="'mean' or 'separate'"):
        obs.to_observations(replicates="pool")
    # grid arrays with replicate axis give the same object
    obs2 = observations_from_arrays(X, T, obs.u, replicate=["a", "b"])
    np.testing.assert_array_equal(obs2.u, obs.u)


# ----------------------------------------------------------------------------- unit conversion
def test_scaling_round_trips():
    sc = Scaling.fit(X, T, [0.0, 2000.0])
    assert sc.x_to_train(X[[0, -1]]) == pytest.approx([-7.0, 7.0])
    assert sc.t_to_train(T[[0, -1]]) == pytest.approx([0.0, 10.0])
    np.testing.assert_allclose(sc.x_to_user(sc.x_to_train(X)), X)
    np.testing.assert_allclose(sc.t_to_user(sc.t_to_train(T)), T)
    np.testing.assert_allclose(sc.u_to_user(sc.u_to_train([3.0, 1500.0])), [3.0, 1500.0])
    u = np.linspace(0, 2000, 11)
    f = (lambda v: 3.0 + np.sin(v / 500.0))
    for name in "DVG":
        np.testing.assert_allclose(sc.operator_to_user(name, sc.operator_to_train(name, f))(u), f(u))
    a, b = 14.0 / 300.0, 10.0 / 24.0
    assert sc.operator_factor("D") == pytest.approx(b / a ** 2)
    assert sc.operator_factor("V") == pytest.approx(b / a)
    assert sc.operator_factor("G") == pytest.approx(b)
    with pytest.raises(ValueError, match="unknown operator"):
        sc.operator_factor("Q")


def test_diffusion_benchmark_in_user_units():
    """The paper's diffusion solution (D = 1/2 on [-7, 7] x [0, 18]) re-expressed in user units:
    the converted training-domain diffusivity is the true diffusivity in user units."""
    L, T_end, c, x0 = 700.0, 64.8, 2000.0, 1000.0          # um, h, cells/mm^2, um
    xu = x0 + np.linspace(0, L, 71)
    tu = np.linspace(0, T_end, 7)
    Xp = (xu - x0) * 14.0 / L - 7.0
    Tp = tu * 18.0 / T_end

    def exact(xp, tp):
        return 0.5 * np.cos(np.pi * xp / 7) * np.exp(-0.5 * (np.pi / 7) ** 2 * tp) + 0.5

    U = c * exact(Xp[None, :], Tp[:, None])
    D_user = 0.5 * (L / 14.0) ** 2 / (T_end / 18.0)        # um^2/h
    # ground truth: the user-unit data solve u_t = D_user u_xx (finite differences of the formula)
    xx, tt, h, k = xu[30], tu[3], 1e-2, 1e-3
    uf = (lambda x, t: c * exact((x - x0) * 14.0 / L - 7.0, t * 18.0 / T_end))
    u_t = (uf(xx, tt + k) - uf(xx, tt - k)) / (2 * k)
    u_xx = (uf(xx + h, tt) - 2 * uf(xx, tt) + uf(xx - h, tt)) / h ** 2
    assert u_t == pytest.approx(D_user * u_xx, rel=1e-5)
    obs = observations_from_arrays(xu, tu, U)
    sc = obs.scaling()
    # training variables: t' = (10 / 18) x paper time, so the training-domain D is 0.5 * 18 / 10
    D_train = 0.5 * 18.0 / 10.0
    assert sc.u_factor == pytest.approx(U.max())
    assert sc.operator_to_user("D", lambda v: D_train + 0 * v)(np.array([100.0]))[0] == pytest.approx(D_user)
    assert sc.operator_factor("D") * D_train == pytest.approx(D_user)


def test_conversion_solves_the_same_problem_in_both_unit_systems():
    """Nonlinear D, V, G given in user units: solving in user units equals solving the
    converted problem in training units and mapping back (checks D, V and G together)."""
    xu = np.linspace(100.0, 400.0, 41)
    tu = np.linspace(0.0, 48.0, 5)
    K = 2000.0
    D_user = (lambda u: 40.0 * (1 + u / K))        # um^2/h
    V_user = (lambda u: 1.5 * (1 - u / K))         # um/h
    G_user = (lambda u: 0.04 * (1 - u / K))        # 1/h
    u0 = 200.0 + 1500.0 * np.exp(-((xu - 220.0) / 40.0) ** 2)
    ref = forward_solve(D_user, V_user, G_user, u0, xu, tu, rtol=1e-9, atol=1e-9)
    assert ref.ok
    sc = Scaling.fit(xu, tu, ref.u)
    ops = [sc.operator_to_train(n, f) for n, f in zip("DVG", (D_user, V_user, G_user))]
    sol = forward_solve(*ops, sc.u_to_train(u0), sc.x_to_train(xu), sc.t_to_train(tu), rtol=1e-9, atol=1e-12)
    assert sol.ok
    np.testing.assert_allclose(sc.u_to_user(sol.u), ref.u, rtol=1e-6, atol=1e-6 * K)
    # and the dynamics are not trivial: every mechanism moves the solution
    for drop in range(3):
        parts = [D_user, V_user, G_user]
        parts[drop] = None
        other = forward_solve(*parts, u0, xu, tu)
        assert np.max(np.abs(other.u - ref.u)) > 10.0


# ----------------------------------------------------------------------------- end to end
def test_fit_user_data_end_to_end(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from binn_utils.analysis.diagnostics import DiagnosticReport
    from binn_utils.engine.training import TrainConfig

    rng = np.random.default_rng(1)
    xu = np.linspace(0.0, 2.8, 15)      # mm
    tu = np.linspace(0.0, 36.0, 5)      # h
    u_true = 500.0 + 400.0 * np.cos(np.pi * xu / 2.8)[None, :] * np.exp(-tu / 30.0)[:, None]
    rows = []
    for rep in ("r1", "r2"):
        noisy = u_true + rng.normal(0, 10.0, u_true.shape)
        rows += [(xu[j], tu[k], noisy[k, j], rep) for k in range(tu.size) for j in range(xu.size)]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    path = tmp_path / "scratch.csv"
    path.write_text(csv_text(rows, header="x_mm,t_h,cells", rep=True))
    cfg = TrainConfig(arch_u=(2, 4), arch_D=(2, 4), arch_V=(2, 4), epochs=3, batch_size=20, compile=False,
                      val_n_pde=20, val_n_bc=5)
    fit = fit_user_data(path, "DV", cfg, seeds=range(2), x="x_mm", t="t_h", u="cells", replicate="rep")
    assert fit.mechanisms == ("D", "V") and fit.result.n_replicates == 2
    assert isinstance(fit.data, UserObservations) and fit.data.n_replicates == 2
    assert fit.u_p.shape == fit.u_theta.shape == (2, 5, 15)
    assert np.nanmax(fit.u_theta) > 50.0                     # user units, not training units
    np.testing.assert_allclose(fit.u_theta, fit.scaling.u_factor * fit.evaluation.u_theta)
    lo, hi = fit.u_range
    assert 80.0 < lo < 150.0 and 850.0 < hi < 920.0
    curves = fit.operator_curves()
    assert set(curves) == {"D", "V"} and curves["D"].shape == (2, 101)
    g = fit.u_grid[[0, 50, -1]]
    for name in "DV":
        raw = fit.result.operator_curves(g / fit.scaling.u_factor, "final")[name]
        np.testing.assert_allclose(fit.operator_curves(g)[name], fit.scaling.operator_factor(name) * raw)
        np.testing.assert_allclose(fit.operator(name, 1)(g), fit.operator_curves(g)[name][1])
    with pytest.raises(ValueError, match="'G' was not learned"):
        fit.operator("G")
    assert isinstance(fit.report, DiagnosticReport) and fit.report.n_replicates == 2
    assert fit.report.u_range == pytest.approx(fit.u_range)
    assert "mechanisms learned: diffusion D(u), advection V(u)" in fit.summary()
    # without the observations the range falls back on u_theta (training units; still no ground truth)
    from binn_utils.analysis.diagnostics import diagnose, diagnose_many, observed_u_range
    rep = diagnose(fit.result, fit.evaluation)
    assert rep.n_replicates == 2 and rep.u_range == pytest.approx(observed_u_range(fit.evaluation.u_theta))
    table = diagnose_many([fit, (fit.result, fit.evaluation, fit.observations[0])], labels=["a", "b"])
    assert [r["setting"] for r in table.rows()] == ["a", "b"] and fit.report.label == fit.data.source
    from binn_utils.presentation.plotting import user_operators
    axes = user_operators(fit)
    assert len(axes) == 2
    # each replicate separately: seeds x replicates networks, spread measured within a replicate
    fit2 = fit_user_data(fit.data, "D", cfg.replace(epochs=2), seeds=[0, 1], replicates="separate")
    assert fit2.result.n_replicates == 4 and len(fit2.observations) == 2
    assert fit2.u_p.shape == (4, 5, 15)


# ----------------------------------------------------------------------------- data that cannot mean what they say
def _grid(u_of):
    return observations_from_arrays(X, T, u_of(X[None, :], T[:, None]) + 0 * X[None, :] * T[:, None])


@pytest.mark.parametrize("u_of, message", [
    (lambda x, t: 5.0, r"column 'u' is constant \(every value is 5\)"),
    (lambda x, t: -1000 - x + t, "has no positive value"),
    (lambda x, t: np.where(x < 350, -x, 1.0 + t), r"negative at 71% of the observations"),
])
def test_data_that_cannot_be_a_density_are_errors(u_of, message):
    with pytest.raises(ValueError, match=message):
        _grid(u_of)


@pytest.mark.parametrize("u_of, message", [
    (lambda x, t: np.where(x < 200, -0.5, 1.0) + 0.01 * t, r"goes down to -0\.5 .*negative at 29%"),
    (lambda x, t: np.where((x == 400) & (t == 24), 1e6, 1.0 + 0.01 * x + t), r"largest value 1e\+06 \(at x=400, t=24\).*an outlier\?"),
    (lambda x, t: 1.0 + 0.001 * x, "does not change in time"),
])
def test_data_whose_fit_would_be_hard_to_read_warn(u_of, message):
    from binn_utils.analysis.user_data import DataWarning
    with pytest.warns(DataWarning, match=message):
        _grid(u_of)


def test_identical_replicates_warn_and_healthy_data_do_not():
    import warnings
    from binn_utils.analysis.user_data import DataWarning
    u = 1.0 + 0.01 * X[None, :] + T[:, None]
    with pytest.warns(DataWarning, match="the 2 replicates are identical"):
        observations_from_arrays(X, T, np.stack([u, u]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        observations_from_arrays(X, T, np.stack([u, u + 0.01]))
        observations_from_arrays(X, T, u - 0.02 * u.max() * (X[None, :] == 100))   # noise below zero


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab"), ("|", "pipe")])
def test_other_separators_are_named_with_the_fix(sep, name):
    text = csv_text(grid_rows()).replace(",", sep)
    with pytest.raises(ValueError, match=rf"{name}-separated, read it with --delimiter .* \(Python: "
                                         rf"delimiter={re.escape(repr(sep))}\)"):
        load(text)
    np.testing.assert_array_equal(load(text, delimiter=sep).u, load(csv_text(grid_rows())).u)


def test_a_file_in_another_encoding_is_named_with_the_fix(tmp_path):
    path = tmp_path / "données.csv"
    path.write_bytes(("# mesures à 37 °C\n" + csv_text(grid_rows())).encode("latin-1"))
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}: not readable as utf-8-sig text "
                                         r"\(byte 0xe0 on line 1\); give the file's encoding: --encoding "
                                         r"'latin-1' or 'cp1252' \(Python: encoding='latin-1' or 'cp1252'\)"):
        load_observations_csv(path)
    assert load_observations_csv(path, encoding="latin-1").u.shape == (1, 3, 7)
    with pytest.raises(ValueError, match="CSV buffer: not readable as utf-8-sig"):
        load_observations_csv(io.BytesIO(path.read_bytes()))


@pytest.mark.parametrize("x, t, message", [
    (X * 1e-200, T, r"converting diffusion D\(u\) back to them needs the factor 10\^-398,"),
    (X * 1e200, T, r"the factor 10\^402,"),
    (X, T * 1e-300, r"converting diffusion D\(u\) back to them needs the factor 10\^302,"),
    ((X - 250.0) / 150.0 * 1.5e308, T, "'x' spans more than the largest floating-point number"),
])
def test_units_beyond_floating_point_range_fail_before_training(x, t, message, monkeypatch):
    import binn_utils.engine.training as training
    from binn_utils.engine.training import TrainConfig
    monkeypatch.setattr(training, "train", lambda *a, **k: pytest.fail("trained despite impossible units"))
    with pytest.raises(ValueError, match=message):
        obs = observations_from_arrays(x, t, 1000 + 10 * X[None, :] + T[:, None])
        fit_user_data(obs, "D", TrainConfig(batch_size=10, epochs=1, compile=False), seeds=[0])


def test_curve_shapes_follow_the_share_of_rising_steps():
    u = np.linspace(0.0, 1.0, 11)
    bumpy = u.copy()
    bumpy[[2, 5]] = bumpy[[1, 4]] - 0.01           # falls over 2 of 10 steps: still increasing (80%)
    bumpier = bumpy.copy()
    bumpier[8] = bumpier[7] - 0.01                   # 3 of 10: non-monotone
    assert curve_shapes(np.array([u, 1 - u, np.sin(6 * u), bumpy, bumpier])).tolist() == [
        "increasing", "decreasing", "non-monotone", "increasing", "non-monotone"]


def test_operator_shape_needs_most_initialisations_to_agree():
    u = np.linspace(0.0, 1.0, 21)
    up = np.array([u * (1 + k) for k in range(5)] + [1 - u, np.full_like(u, np.nan)])
    shape, counts, n = operator_shape(up)
    assert (shape, n) == ("increasing", 6) and counts == {"increasing": 5, "decreasing": 1, "non-monotone": 0}
    mixed = np.array([u, u, u, 1 - u, 1 - u, np.sin(6 * u)])
    assert operator_shape(mixed)[0] == "of no consistent shape"
    assert operator_shape(mixed[3:5])[0] == "decreasing"


def test_the_package_offers_the_fits_without_importing_torch():
    """``from binn_utils import fit_user_data`` is the README's entry point; ``import
    binn_utils`` alone stays light (the fits, and torch, load on first use)."""
    import subprocess
    import sys
    code = ("import sys, binn_utils; assert 'torch' not in sys.modules, 'import binn_utils imported torch'; "
            "from binn_utils import fit_user_data, fit_user_data_cached; "
            "from binn_utils.analysis import user_data; "
            "assert (fit_user_data, fit_user_data_cached) == (user_data.fit_user_data, user_data.fit_user_data_cached)")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------------- issue 51: the grid, the file, the scale
def _grid_csv(x, t=(0.0, 12.0, 24.0), fmt="{}"):
    lines = ["x,t,u"] + [f"{fmt.format(xv)},{tv},{1 + 0.1 * tv + np.sin(k):.6g}" for tv in t
                         for k, xv in enumerate(x)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", ["5 decimals", "6 decimals", "float32", "float32 printed", "jitter 2e-7"])
def test_positions_the_forward_solve_would_refuse_are_snapped_and_said(case):
    """31 positions on [0, 1000] written to 5 decimals (0, 33.33333, ...), in float32, or off a
    uniform grid by 2e-7 of the spacing passed the data check (1e-6) unsnapped, trained, and then
    the forward solve (1e-8) refused them with a traceback: one definition now, and such a grid is
    snapped (the note says how) to one the solver takes, in user and in training units."""
    from binn_utils.engine.solvers import UNIFORM_RTOL, grid_nonuniformity, uniform_spacing
    x = np.linspace(0, 1000, 31)
    written = {"5 decimals": [f"{v:.5f}" for v in x], "6 decimals": [f"{v:.6f}" for v in x],
               "float32": [repr(float(np.float32(v))) for v in x], "float32 printed": [str(np.float32(v)) for v in x],
               "jitter 2e-7": [repr(float(v + 2e-7 * 33.3 * (-1) ** k)) for k, v in enumerate(x)]}[case]
    assert grid_nonuniformity(np.array(written, float)) > UNIFORM_RTOL      # the solver would refuse them
    obs = load(_grid_csv(written))
    assert grid_nonuniformity(obs.x) <= UNIFORM_RTOL
    np.testing.assert_allclose(obs.x, x, rtol=0, atol=1e-5)                   # moved by rounding alone
    uniform_spacing(obs.to_observations()[0].x)                               # training units: accepted
    note = "\n".join(obs.notes)
    assert "snapped" in note and "33.3333" in note
    assert ("written to 5 decimal(s)" in note) == (case == "5 decimals")
    sol = forward_solve(lambda u: 0.1 + 0 * u, None, None, obs.u_mean[0], obs.x, [0.0, 1.0], method="BDF")
    assert sol.ok


def test_the_check_and_the_solver_agree_on_every_grid():
    """Whatever the check accepts, the forward solve takes; whatever it refuses names the
    spacing: random grids off uniform by 1e-9 .. 1e-2 of their spacing."""
    from binn_utils.analysis.user_observations import uniform_grid
    from binn_utils.engine.solvers import uniform_spacing
    rng = np.random.default_rng(5)
    accepted = refused = 0
    for rel in 10.0 ** np.arange(-9, -1.5, 0.5):
        for n in (5, 31, 200):
            x = 3.0 + 0.7 * np.arange(n) + rng.normal(0, rel * 0.7, n)
            try:
                g, _ = uniform_grid(np.sort(x), "d.csv", "x")
            except ValueError as err:
                assert "equally spaced" in str(err) and "spacings range from" in str(err)
                refused += 1
                continue
            uniform_spacing(g)
            uniform_spacing(-7 + 14 * (g - g[0]) / (g[-1] - g[0]))
            accepted += 1
    assert accepted and refused


def test_positions_too_far_from_zero_for_double_precision_are_refused_with_the_offset():
    with pytest.raises(ValueError, match=r"lie near 1e\+09 with spacing 0.1: double precision cannot hold them "
                                         r"equally spaced .* subtract an offset, e.g. x - 1e\+09"):
        observations_from_arrays(1e9 + 0.1 * np.arange(21), T, np.ones((3, 21)) + np.arange(21) / 50)


def test_the_forward_solve_names_how_far_a_grid_is_from_uniform():
    x = np.linspace(0, 1, 11)
    x[4] += 1e-6
    with pytest.raises(ValueError, match=r"x must be uniform and increasing: its spacings differ from their mean "
                                         r"0.1 by up to 1e-05 of it \(at most 1e-08\)"):
        forward_solve(None, None, None, np.ones(11), x, [0.0, 1.0])


def test_a_stored_fit_that_cannot_be_solved_says_why_and_how_to_refit():
    """A fit whose grid the forward solve refuses (one stored before the check and the solver
    agreed): a one-line ValueError that names the grid and says refit, not the solver's traceback."""
    from binn_utils.analysis import user_data
    from binn_utils.engine.runs import TrainConfig
    from binn_utils.engine.training import train
    obs = observations_from_arrays(X, T, 1 + np.outer(T, X) / 1e4)
    prep = user_data.prepare_fit(obs, "D", TrainConfig(epochs=1, batch_size=8, compile=False), [0])
    result = train(prep["datas"], prep["config"], prep["run_seeds"], mechanisms=prep["mechanisms"])
    prep["datas"].x[3] += 1e-4                                             # as the old check let through
    with pytest.raises(ValueError, match=r"arrays: the fit cannot be solved on its positions \(x must be uniform "
                                         r"and increasing: .*\); refit"):
        user_data._finish_fit(prep, result)


@pytest.mark.parametrize("text, runs", [('x,t,u\n100,0,1\n"150,0,2\n200,0,3\n', "to line 4"),
                                        ('x,t,u\n100,0,1\n150,0,"2\n', "to the end of the file")])
def test_an_unterminated_quote_is_named_with_its_line(text, runs):
    """It was reported as a missing column at the last line (or, on the last line, read silently)."""
    with pytest.raises(ValueError, match=r"line 3: a quote \(\"\) opens a field that is not closed on that line "
                                         rf"\(the field runs {runs}\)"):
        load(text)


def _xlsx(path):
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")


@pytest.mark.parametrize("kind, said", [
    ("gzip", "a gzip-compressed file: decompress it"), ("xlsx", "an Excel workbook (.xlsx): save it as CSV"),
    ("png", "a PNG image"), ("npz", "a NumPy .npz archive"), ("zip", "a zip archive: extract the CSV file")])
@pytest.mark.parametrize("encoding", [None, "latin-1"])
def test_a_binary_file_is_named_by_its_type_not_by_an_encoding(tmp_path, kind, said, encoding):
    """latin-1 decodes any bytes, so advising it for a gzip or Excel file led nowhere."""
    import gzip
    import zipfile
    path = tmp_path / f"data.{kind}"
    if kind == "gzip":
        path.write_bytes(gzip.compress(csv_text(grid_rows()).encode()))
    elif kind == "xlsx":
        _xlsx(path)
    elif kind == "png":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    elif kind == "npz":
        np.savez(path, x=X)
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data.csv", csv_text(grid_rows()))
    with pytest.raises(ValueError) as err:
        load_observations_csv(path, encoding=encoding)
    assert f"{path}: not a CSV text file but {said}" in str(err.value) and "--encoding" not in str(err.value)


@pytest.mark.parametrize("what, said", [("", "named by an empty string"), ("/dev/null", "is a device"),
                                        ("fifo", "is a pipe (a FIFO"), ("folder", "is a folder"),
                                        ("missing", "no such file"), ("dangling", "a symbolic link to ")])
def test_a_data_path_that_is_not_a_file_says_what_it_is(tmp_path, what, said):
    if what == "/dev/null" and not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    path = {"fifo": tmp_path / "fifo", "folder": tmp_path, "missing": tmp_path / "none.csv",
            "dangling": tmp_path / "link.csv"}.get(what, what)
    if what == "dangling":
        os.symlink(tmp_path / "gone.csv", path)
    if what == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(path)
    with pytest.raises(ValueError, match=re.escape(said)):
        load_observations_csv(path)                            # never opened: a FIFO would block


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1.5e308])
def test_densities_near_the_ends_of_double_precision_keep_a_finite_noise_estimate(scale):
    """Densities of order 1e300 printed a noise estimate of inf (their squares overflow), 1e-300
    one of 0 (they vanish): computed on u over its largest value, the estimate scales with u."""
    u = np.stack([1 + np.outer(T, X) / 1e4, 1.1 + np.outer(T, X) / 1e4]) / 3
    ref = observations_from_arrays(X, T, u)
    obs = observations_from_arrays(X, T, u * scale)
    assert obs.noise_sd / scale == pytest.approx(ref.noise_sd, rel=1e-9)
    assert np.all(np.isfinite(obs.u_mean)) and obs.u_mean / scale == pytest.approx(ref.u_mean, rel=1e-9)
    assert "noise sd ~ inf" not in obs.describe() and "noise sd ~ 0;" not in obs.describe()
    sc = obs.scaling()
    assert np.max(sc.u_to_train(obs.u_mean)) == pytest.approx(np.max(ref.scaling().u_to_train(ref.u_mean)))


def test_a_u_p_the_data_units_cannot_hold_is_a_failed_solve():
    """Densities near 1e308: a solve sound in training units whose u_p rises a little above the
    data's largest value overflowed to inf in the data's units, and its status said "ok"."""
    from types import SimpleNamespace as NS
    from binn_utils.analysis.user_data import mark_unrepresentable_u_p
    from binn_utils.analysis.user_units import UNREPRESENTABLE, Scaling
    u_p = np.stack([np.full((2, 3), 0.9), np.full((2, 3), 1.3), np.full((2, 3), np.nan)])
    ev = NS(up_status=["ok", "ok", "failed: step size"], u_p=u_p, err_u_p=np.ones(3), err_u_p_obs=np.ones(3))
    sc = Scaling.fit(X, T, np.full((1, len(T), len(X)), 1.5e308))
    mark_unrepresentable_u_p(ev, sc)
    assert ev.up_status == ["ok", UNREPRESENTABLE, "failed: step size"]
    assert np.isnan(ev.u_p[1]).all() and np.isnan(ev.err_u_p[1]) and np.isnan(ev.err_u_p_obs[1])
    assert np.isfinite(sc.u_to_user(ev.u_p[0])).all() and ev.err_u_p[0] == 1.0


@pytest.mark.parametrize("lr, dtype, ok", [(1e-320, "float32", False), (1e-40, "float32", False),
                                           (1e-40, "float64", True), (1e39, "float32", False),
                                           (float("nan"), "float32", False), (1e-30, "float32", True)])
def test_a_learning_rate_that_cannot_train_is_refused(lr, dtype, ok):
    from binn_utils.engine.runs import TrainConfig, TrainingError
    config = TrainConfig(lr=lr, dtype=dtype)
    if ok:
        assert config.validate().lr == lr
    else:
        with pytest.raises(TrainingError, match="cannot train|must be finite"):
            config.validate()


def test_a_data_file_this_user_cannot_read_is_one_line(tmp_path, monkeypatch):
    """A file without read permission (chmod 000, for a user other than root) passed the stat and
    ended in a PermissionError traceback; now the check opens it and says so in one line."""
    from binn_utils.analysis import user_csv
    path = tmp_path / "d.csv"
    path.write_text(csv_text(grid_rows()))

    def refused(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))
    monkeypatch.setattr(user_csv, "open", refused, raising=False)
    with pytest.raises(ValueError) as err:
        user_csv.check_data_path(path)
    assert str(err.value) == f"{path}: cannot be read (Permission denied)"


def test_a_row_with_more_fields_than_the_header_is_refused(tmp_path):
    """A row with an extra value (a delimiter inside a value, or a shifted row) was read by its
    first fields; now refused, naming the row; empty trailing fields (a last delimiter) are fine."""
    text = csv_text(grid_rows()).splitlines()
    ok = tmp_path / "trailing.csv"
    ok.write_text("\n".join(text[:1] + [line + "," for line in text[1:]]) + "\n")
    load_observations_csv(ok)
    bad = tmp_path / "extra.csv"
    bad.write_text("\n".join(text[:3] + [text[3] + ",extra"] + text[4:]) + "\n")
    with pytest.raises(ValueError, match=r"row 3 \(line 4\): .* fields where the header has"):
        load_observations_csv(bad)


def test_two_roles_naming_one_column_are_refused_by_name(tmp_path):
    """--x t_h (the column of --t) gave 'duplicated points'; now the conflict is named."""
    path = tmp_path / "d.csv"
    path.write_text(csv_text(grid_rows()))
    with pytest.raises(ValueError, match="the column 't' is named for both t and x|the column 't' is named for both x and t"):
        load_observations_csv(path, x="t")
