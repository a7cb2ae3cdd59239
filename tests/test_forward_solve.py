"""Tests of the SM finite-volume forward solver (binn_utils.engine.forward_solve)."""

import time

import numpy as np
import pytest

from binn_utils.engine.forward_solve import (
                                             ForwardSolution,
                                             failure_count,
                                             forward_solve,
                                             forward_solve_many,
                                             fv_rhs,
                                             )
from binn_utils.engine.metrics import relative_l2

L = 7.0


def grid(n):
    return np.linspace(-L, L, n)


def trapezoid_weights(x):
    dx = x[1] - x[0]
    w = np.full(x.size, dx)
    w[[0, -1]] = dx / 2
    return w


def diffusion_exact(x, t):
    return 0.5 * np.cos(np.pi * x / 7) * np.exp(-0.5 * (np.pi / 7) ** 2 * t) + 0.5


def barenblatt(x, t):
    s = t + 0.5
    return s**-0.25 * np.sqrt(np.maximum(3 / (np.pi * np.sqrt(3)) - x**2 / (12 * np.sqrt(s)), 0.0))


def solve_exact_case(exact, D, n, t):
    x = grid(n)
    sol = forward_solve(D, None, None, exact(x, t[0]), x, t)
    ref = exact(x[None, :], t[:, None])
    return sol, relative_l2(sol.u, ref), float(np.max(np.abs(sol.u - ref)))


# --------------------------------------------------------------------------
# right-hand side against a literal (looped) transcription of the SM formulas
# --------------------------------------------------------------------------
def rhs_loop(u, dx, D, V, G):
    N = u.size
    ue = {i: u[i] for i in range(N)}
    ue[-1], ue[N] = u[1], u[N - 2]
    F = {}
    for i in range(-1, N):  # face i+1/2
        a, b = ue[i], ue[i + 1]
        Dh = 0.5 * (D(np.array([a]))[0] + D(np.array([b]))[0])
        Vh = 0.5 * (V(np.array([a]))[0] + V(np.array([b]))[0])
        up = a if Vh >= 0 else b
        F[i] = Dh * (b - a) / dx - Vh * up
    return np.array([(F[i] - F[i - 1]) / dx + u[i] * G(np.array([u[i]]))[0] for i in range(N)])


def test_rhs_matches_looped_formula():
    rng = np.random.default_rng(0)
    x = np.linspace(-1, 1, 9)
    u = rng.uniform(0, 1, x.size)
    D = lambda u: 0.1 + u**2  # noqa: E731
    V = lambda u: u - 0.5  # noqa: E731  (changes sign -> both upwind branches)
    G = lambda u: 1 - u  # noqa: E731
    dx = x[1] - x[0]
    np.testing.assert_allclose(fv_rhs(u, dx, D, V, G), rhs_loop(u, dx, D, V, G), rtol=1e-12)
    # absent mechanisms (None) contribute zero
    zero = lambda u: np.zeros_like(u)  # noqa: E731
    np.testing.assert_allclose(fv_rhs(u, dx, D, None, None), rhs_loop(u, dx, D, zero, zero),
                               rtol=1e-12)


# --------------------------------------------------------------------------
# exact solutions
# --------------------------------------------------------------------------
T_DIFF = np.linspace(0, 18, 7)
T_PME = np.linspace(0, 4, 7)


@pytest.mark.parametrize("n, tol_rel, tol_max", [(71, 2.5e-4, 2.5e-4), (351, 1.2e-5, 1.2e-5)])
def test_diffusion_matches_analytic(n, tol_rel, tol_max):
    # measured: 71 nodes rel 1.33e-4 / max 1.23e-4; 351 nodes rel 5.3e-6 / max 5.6e-6
    sol, rel, mx = solve_exact_case(diffusion_exact, lambda u: np.full_like(u, 0.5), n, T_DIFF)
    assert sol.ok, sol.message
    assert sol.u.shape == (7, n)
    np.testing.assert_array_equal(sol.u[0], diffusion_exact(grid(n), 0.0))
    assert rel < tol_rel and mx < tol_max


def test_diffusion_second_order_in_space():
    D = lambda u: np.full_like(u, 0.5)  # noqa: E731
    _, e71, _ = solve_exact_case(diffusion_exact, D, 71, T_DIFF)
    _, e141, _ = solve_exact_case(diffusion_exact, D, 141, T_DIFF)
    # dx halves -> error / 4 (measured ratio 4.02)
    assert 3.5 < e71 / e141 < 4.5


def test_porous_medium_barenblatt_converges():
    D = lambda u: 3 * u**2  # noqa: E731
    s71, e71, _ = solve_exact_case(barenblatt, D, 71, T_PME)
    s351, e351, m351 = solve_exact_case(barenblatt, D, 351, T_PME)
    assert s71.ok and s351.ok
    # measured: rel 1.74e-2 (71) and 4.70e-3 (351); the sqrt-type front
    # limits the order to ~0.8-1 in dx.
    assert e71 < 2.5e-2
    assert e351 < 7e-3
    assert e351 < 0.4 * e71
    assert m351 < 4e-2


def test_pure_diffusion_conserves_trapezoid_mass():
    x = grid(141)
    u0 = np.exp(-((x + 2) ** 2)) + 0.3 * np.exp(-((x - 5) ** 2) / 0.5)  # mass near the boundary
    t = np.linspace(0, 10, 6)
    sol = forward_solve(lambda u: 0.1 + u**2, None, None, u0, x, t)
    assert sol.ok
    mass = sol.u @ trapezoid_weights(x)
    np.testing.assert_allclose(mass, mass[0], rtol=1e-10)


@pytest.mark.parametrize("V", [0.5, -0.5])
def test_upwind_advection_transports_bump(V):
    x = grid(141)
    x_start = -3.0 if V > 0 else 3.0
    u0 = np.exp(-((x - x_start) ** 2))
    t = np.linspace(0, 4, 5)
    sol = forward_solve(None, lambda u: np.full_like(u, V), None, u0, x, t)
    assert sol.ok
    w = trapezoid_weights(x)
    mass = sol.u @ w
    com = (sol.u @ (w * x)) / mass
    np.testing.assert_allclose(com, x_start + V * t, atol=1e-4)
    np.testing.assert_allclose(mass, mass[0], rtol=1e-5)
    # first-order upwind: monotone (no undershoot), numerically diffusive
    assert sol.u.min() > -1e-8
    assert sol.u[-1].max() < 0.95 * u0.max()


def test_reaction_only_exponential_decay():
    x = grid(71)
    u0 = 0.5 + 0.4 * np.sin(x)
    t = np.linspace(0, 4, 9)
    sol = forward_solve(None, None, lambda u: -0.5, u0, x, t)  # scalar output broadcast
    assert sol.ok
    np.testing.assert_allclose(sol.u, u0[None, :] * np.exp(-t / 2)[:, None], rtol=1e-6, atol=1e-9)


def test_operator_output_shapes_accepted():
    x = grid(31)
    u0 = np.exp(-x**2)
    t = np.linspace(0, 1, 3)
    a = forward_solve(lambda u: np.full_like(u, 0.5), None, None, u0, x, t)
    b = forward_solve(lambda u: 0.5 * np.ones((u.size, 1)), None, None, u0, x, t)  # column
    c = forward_solve(lambda u: 0.5, None, None, u0, x, t)  # scalar
    assert a.ok and b.ok and c.ok
    np.testing.assert_array_equal(a.u, b.u)
    np.testing.assert_array_equal(a.u, c.u)


def test_single_output_time_and_bad_grids():
    x = grid(11)
    sol = forward_solve(lambda u: 0.5, None, None, np.ones(11), x, np.array([0.0]))
    assert sol.ok and sol.u.shape == (1, 11)
    with pytest.raises(ValueError):
        forward_solve(None, None, None, np.ones(11), x**3, [0, 1])  # non-uniform
    with pytest.raises(ValueError):
        forward_solve(None, None, None, np.ones(10), x, [0, 1])  # u0 shape
    with pytest.raises(ValueError):
        forward_solve(None, None, None, np.ones(11), x, [1, 0])  # decreasing t


# --------------------------------------------------------------------------
# failure paths: never raise, clear status, NaN output
# --------------------------------------------------------------------------
def _raising(u):
    raise RuntimeError("network exploded")


FAILURES = {
    "D_nan": (dict(D=lambda u: np.where(u > 0.5, np.nan, 1.0)), {}, "failed", "non-finite"),
    "D_raises": (dict(D=_raising), {}, "failed", "RuntimeError"),
    "D_wrong_size": (dict(D=lambda u: np.ones(3)), {}, "failed", "returned 3 values"),
    "G_inf": (dict(G=lambda u: np.full_like(u, np.inf)), {}, "failed", "operator G"),
    "D_stiff": (dict(D=lambda u: np.full_like(u, 1e6)), dict(max_rhs=2000, stiff_fallback=None), "failed",
                "max_rhs"),
    "G_growth": (dict(G=lambda u: np.full_like(u, 50.0)), {}, "blowup", "exceeded"),
    "D_negative": (dict(D=lambda u: np.full_like(u, -0.5)), {}, "blowup", "exceeded"),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_failure_paths_return_status(case):
    ops, kw, status, msg = FAILURES[case]
    x = grid(71)
    u0 = np.exp(-x**2)
    t = np.linspace(0, 4, 5)
    start = time.perf_counter()
    sol = forward_solve(ops.get("D"), ops.get("V"), ops.get("G"), u0, x, t, **kw)
    assert time.perf_counter() - start < 10
    assert isinstance(sol, ForwardSolution)
    assert not sol.ok
    assert sol.status == status, sol.message
    assert msg in sol.message
    assert sol.u.shape == (5, 71)
    assert np.isnan(sol.u[-1]).all()
    if status == "blowup":  # rows before the blow-up are kept
        np.testing.assert_array_equal(sol.u[0], u0)
    if case == "D_stiff":
        assert sol.n_rhs == 2001


def test_blowup_bound_and_nonfinite_initial_condition():
    x = grid(31)
    u0 = np.exp(-x**2)
    t = np.linspace(0, 1, 3)
    grow = lambda u: np.full_like(u, 1.0)  # noqa: E731  e^t growth
    assert forward_solve(None, None, grow, u0, x, t).ok
    sol = forward_solve(None, None, grow, u0, x, t, blowup=2.0)
    assert sol.status == "blowup" and np.isfinite(sol.u[1]).all() and np.isnan(sol.u[2]).all()
    u0[3] = np.nan
    assert forward_solve(None, None, None, u0, x, t).status == "failed"


def test_forward_solve_many_and_failure_count():
    x = grid(31)
    t = np.linspace(0, 1, 3)
    u0 = np.exp(-x**2)
    sets = [
        (lambda u: 0.5, None, None),
        dict(D=lambda u: np.nan),
        dict(G=lambda u: 50.0),
    ]
    sols = forward_solve_many(sets, u0, x, t)
    assert [s.status for s in sols] == ["ok", "failed", "blowup"]
    assert failure_count(sols) == 2
    sols2 = forward_solve_many(sets[:1] * 2, [u0, 2 * u0], x, t)
    np.testing.assert_allclose(sols2[1].u, 2 * sols2[0].u, rtol=1e-5, atol=1e-8)  # linear problem
    with pytest.raises(ValueError):
        forward_solve_many(sets, [u0, u0], x, t)


# --------------------------------------------------------------------------
# the benchmarks' true operators reproduce the reference data
# --------------------------------------------------------------------------
# Relative L2 error (over the (t, x) data grid) of the FV forward solve with
# the TRUE operators and the true initial condition, solved directly on the
# data grid, against problems.reference_solution.  Measured values
# (SciPy 1.17.1, rtol=1e-6, atol=1e-9) in the comments; tolerances ~1.3-1.5x.
# The steep advective cases (Burgers, diffusion-advection) are limited by the
# first-order upwind flux: its numerical diffusion ~ |V| dx / 2 (0.03 at
# dx = 0.2) exceeds the physical D = 0.01 on the 71-node grid, so even the
# exact operators give u_p errors of ~8 % there (max pointwise error ~17-27 %
# of max|u|).  This is a floor for any learned-operator u_p error.
TRUE_OPERATOR_TOL = {
    # (benchmark, reaction, n_x): tolerance       measured
    ("diffusion", "supporting", 71): 2.0e-4,            # 1.33e-4
    ("diffusion", "supporting", 351): 1.0e-5,           # 5.29e-6
    ("porous_medium", "supporting", 71): 2.5e-2,        # 1.74e-2
    ("porous_medium", "supporting", 351): 7.0e-3,       # 4.70e-3
    ("burgers", "supporting", 71): 1.1e-1,              # 7.93e-2
    ("burgers", "supporting", 351): 2.5e-2,             # 1.75e-2
    ("diffusion_advection", "supporting", 71): 1.0e-1,  # 7.55e-2
    ("diffusion_advection", "supporting", 351): 3.0e-2,  # 2.07e-2
    ("nonlinear_adr", "supporting", 71): 1.3e-2,        # 8.73e-3  (G = -1/2)
    ("nonlinear_adr", "supporting", 351): 2.7e-3,       # 1.80e-3
    ("nonlinear_adr", "text", 71): 5.0e-2,              # 3.73e-2  (G = u/2)
    ("nonlinear_adr", "text", 351): 1.3e-2,             # 8.76e-3
    ("nonlinear_adr", "equation", 71): 1.3e-1,          # 9.52e-2  (G = +1/2)
    ("nonlinear_adr", "equation", 351): 4.5e-2,         # 2.97e-2
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, reaction, n_x", list(TRUE_OPERATOR_TOL),
    ids=[f"{b}-{r}-{n}" if b == "nonlinear_adr" else f"{b}-{n}" for b, r, n in TRUE_OPERATOR_TOL])
def test_true_operators_reproduce_reference(name, reaction, n_x):
    benchmarks = pytest.importorskip("binn_utils.engine.problems")
    bench = benchmarks.get_benchmark(name, reaction=reaction)
    dense = n_x == 351
    x = benchmarks.spatial_grid(dense)
    assert x.size == n_x
    t = bench.times()
    ref = benchmarks.reference_solution(bench, dense)
    sol = forward_solve(bench.D, bench.V, bench.G, bench.initial_condition(x), x, t)
    assert sol.ok, sol.message
    np.testing.assert_array_equal(sol.u[0], bench.initial_condition(x))
    assert relative_l2(sol.u, ref) < TRUE_OPERATOR_TOL[(name, reaction, n_x)]


def test_stiff_operator_falls_back_to_implicit_solver():
    """A huge learned D stalls RK45; the BDF fallback solves the same system (the profile
    flattens to its trapezoid mean, which the scheme conserves)."""
    x = grid(71)
    u0 = np.exp(-x**2)
    t = np.linspace(0, 4, 5)
    sol = forward_solve(lambda u: np.full_like(u, 1e6), None, None, u0, x, t, max_rhs=2000)
    assert sol.ok, sol.message
    assert "solved with BDF" in sol.message
    w = np.full(x.size, x[1] - x[0])
    w[[0, -1]] /= 2
    mean = (w @ u0) / w.sum()
    np.testing.assert_allclose(sol.u[-1], mean, rtol=1e-4)
    # where RK45 succeeds the fallback gives the same answer
    D = lambda u: 0.5 + 0 * u  # noqa: E731
    ref = forward_solve(D, None, None, u0, x, t)
    stiff = forward_solve(D, None, None, u0, x, t, max_rhs=50)
    assert "BDF" in stiff.message and stiff.ok
    np.testing.assert_allclose(stiff.u, ref.u, atol=5e-4)


@pytest.mark.parametrize("name", ["diffusion", "porous_medium", "diffusion_advection"])
def test_implicit_method_on_the_dense_grid_matches_rk45(name):
    """method="BDF" (used for some dense-grid evaluations) gives RK45's solution to the
    tolerance, in far fewer right-hand-side evaluations (RK45 is stability-limited there)."""
    benchmarks = pytest.importorskip("binn_utils.engine.problems")
    bench = benchmarks.get_benchmark(name)
    x = benchmarks.spatial_grid(dense=True)
    t = bench.times()
    u0 = bench.initial_condition(x)
    rk = forward_solve(bench.D, bench.V, bench.G, u0, x, t)
    bdf = forward_solve(bench.D, bench.V, bench.G, u0, x, t, method="BDF")
    assert rk.ok and bdf.ok, (rk.message, bdf.message)
    assert "solved with BDF" in bdf.message
    assert bdf.n_rhs < rk.n_rhs
    assert relative_l2(bdf.u, rk.u) < 1e-4


def test_unknown_forward_method_is_an_error():
    x = grid(71)
    with pytest.raises(ValueError, match="unknown forward-solve method 'Euler'"):
        forward_solve(lambda u: 0.5 + 0 * u, None, None, np.exp(-x**2), x, np.linspace(0, 1, 3), method="Euler")
