"""Tests of the benchmark definitions, the forward solvers and the reference data.

Paper: Methods > "Mathematical models" (Eqs. diff, PM, burger, DA, NL_ADR) and
Supporting Material > "Synthetic data generation".  Reference error levels quoted
in the comments were measured with OMP_NUM_THREADS=1 (see the errata page).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from binn_utils.engine import problems as bm
from binn_utils.engine import solvers

SOLVERS = {"mol": solvers.solve_mol, "spectral": solvers.solve_spectral,
           "fem": solvers.solve_fem}


def refined_grid(refine: int) -> np.ndarray:
    return np.linspace(bm.X_MIN, bm.X_MAX, (bm.N_DENSE - 1) * refine + 1)


def solve_on(bench, method, refine, **kw):
    """Solve ``bench`` with ``method`` on the refined grid, sample data nodes."""
    x = refined_grid(refine)
    u = SOLVERS[method](bench.D, bench.V, bench.G, bench.initial_condition(x),
                        x, bench.times(), **kw)
    return u[:, ::refine]


def order(e_coarse: float, e_fine: float, ratio: float = 2.0) -> float:
    return math.log(e_coarse / e_fine) / math.log(ratio)


# ---------------------------------------------------------------------------
# definitions
# ---------------------------------------------------------------------------
def test_grids_and_times():
    xd, xs = bm.spatial_grid(True), bm.spatial_grid(False)
    assert xd.shape == (351,) and xs.shape == (71,)
    assert xd[0] == -7.0 and xd[-1] == 7.0
    assert np.allclose(np.diff(xd), 0.04) and np.allclose(np.diff(xs), 0.2)
    assert np.array_equal(xs, xd[::bm.SPARSE_STRIDE])
    table = {"diffusion": (18.0, 7), "porous_medium": (4.0, 7), "burgers": (10.0, 7),
             "diffusion_advection": (18.0, 7), "nonlinear_adr": (4.0, 9)}
    for name, (t_end, n) in table.items():
        b = bm.get_benchmark(name)
        assert (b.t_end, b.n_times) == (t_end, n)
        assert np.allclose(b.times(), np.linspace(0, t_end, n))


def test_constitutive_functions_and_mechanisms():
    u = np.linspace(0.0, 1.0, 11)
    d, p, bu, da, nl = (bm.get_benchmark(n) for n in bm.BENCHMARK_NAMES)
    assert d.mechanisms == ("D",) and p.mechanisms == ("D",)
    assert bu.mechanisms == da.mechanisms == ("D", "V")
    assert nl.mechanisms == ("D", "V", "G")
    assert np.allclose(d.D(u), 0.5) and np.allclose(p.D(u), 3 * u**2)
    assert np.allclose(bu.D(u), 0.01) and np.allclose(bu.V(u), 0.3 * u)
    assert np.allclose(da.V(u), 0.6 * u * (1 - u))
    assert np.allclose(nl.D(u), u**5 / 10) and np.allclose(nl.V(u), u * (1 - u))
    for b in (d, p):
        assert np.array_equal(b.V(u), np.zeros_like(u))
    for b in (d, p, bu, da):
        assert np.array_equal(b.G(u), np.zeros_like(u))
    # the three readings of the NL-ADR reaction term (reaction = u G(u))
    assert np.allclose(bm.get_benchmark("nonlinear_adr").G(u), -0.5)
    assert np.allclose(bm.get_benchmark("nonlinear_adr", "text").G(u), u / 2)
    assert np.allclose(bm.get_benchmark("nonlinear_adr", "equation").G(u), 0.5)
    assert [b.solver for b in (d, p, bu, da, nl)] == ["exact", "exact", "spectral",
                                                      "fem", "mol"]


def test_initial_conditions_match_paper_formulas():
    x = bm.spatial_grid(True)
    p = bm.get_benchmark("porous_medium")
    pm_ic = 2**0.25 * np.sqrt(np.maximum(3 / (np.pi * np.sqrt(3)) - np.sqrt(2) * x**2 / 12, 0))
    assert np.allclose(p.initial_condition(x), pm_ic, atol=1e-15)          # Eq. PM_IC
    assert np.allclose(p.exact(x, 0.0)[0], pm_ic, atol=1e-15)
    d = bm.get_benchmark("diffusion")
    assert np.allclose(d.exact(x, 0.0)[0], d.initial_condition(x))
    nl = bm.get_benchmark("nonlinear_adr").initial_condition(x)
    assert 0.09 < nl.max() < 0.11                                          # cap at 1 inactive
    assert bm.get_benchmark("burgers").exact(x, [0.0]) is None


def test_exact_solutions_satisfy_their_pdes():
    """Finite-difference residual of Eqs. diff_ana and PM-sol (away from the front)."""
    x = np.linspace(-2.0, 2.0, 81)                     # inside the PM support
    t = np.array([0.7, 2.3])
    h, k = 1e-3, 1e-4
    d = bm.get_benchmark("diffusion")
    ut = (d.exact(x, t + k) - d.exact(x, t - k)) / (2 * k)
    uxx = (d.exact(x + h, t) - 2 * d.exact(x, t) + d.exact(x - h, t)) / h**2
    assert np.abs(ut - 0.5 * uxx).max() < 1e-6
    p = bm.get_benchmark("porous_medium")
    ut = (p.exact(x, t + k) - p.exact(x, t - k)) / (2 * k)
    cube = lambda y: p.exact(y, t) ** 3               # (3u^2 u_x)_x = (u^3)_xx
    lap = (cube(x + h) - 2 * cube(x) + cube(x - h)) / h**2
    assert np.abs(ut - lap).max() < 1e-5


def test_benchmarks_are_hashable_values():
    a, b = bm.get_benchmark("burgers"), bm.get_benchmark("burgers")
    assert a == b and hash(a) == hash(b)
    assert bm.get_benchmark("nonlinear_adr") != bm.get_benchmark("nonlinear_adr", "text")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.t_end = 1.0


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------
def test_errors_are_helpful():
    with pytest.raises(ValueError, match="unknown benchmark 'heat'.*diffusion"):
        bm.get_benchmark("heat")
    with pytest.raises(ValueError, match="unknown reaction 'u/2'.*supporting"):
        bm.get_benchmark("nonlinear_adr", reaction="u/2")
    with pytest.raises(ValueError, match="no exact solution.*'spectral'"):
        bm.reference_solution(bm.get_benchmark("burgers"), method="exact")
    with pytest.raises(ValueError, match="unknown method"):
        bm.reference_solution(bm.get_benchmark("burgers"), method="rk4")
    with pytest.raises(ValueError, match="refine"):
        bm.reference_solution(bm.get_benchmark("nonlinear_adr"), refine=0)
    with pytest.raises(ValueError, match="stencil"):
        solvers.solve_mol(np.sin, np.sin, np.sin, np.zeros(5), np.arange(5.0), [0, 1],
                          stencil="upwind")
    with pytest.raises(ValueError, match="uniform"):
        solvers.solve_fem(np.sin, np.sin, np.sin, np.zeros(4), np.array([0, 1, 3, 4.0]),
                          [0, 1])


# ---------------------------------------------------------------------------
# reference data: shapes, caching, Neumann condition, mass balance
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", bm.BENCHMARK_NAMES)
def test_reference_shapes_and_sparse_is_subsample(name):
    b = bm.get_benchmark(name)
    dense = bm.reference_solution(b, dense=True)
    sparse = bm.reference_solution(b)
    assert dense.shape == (b.n_times, 351) and sparse.shape == (b.n_times, 71)
    assert np.array_equal(sparse, dense[:, ::5])
    assert np.all(np.isfinite(dense))
    assert np.allclose(dense[0], b.initial_condition(bm.spatial_grid(True)), atol=1e-12)
    # cached, and callers get their own copy
    sparse[:] = -1.0
    assert np.array_equal(bm.reference_solution(b, dense=True)[:, ::5], dense[:, ::5])


@pytest.mark.parametrize("name", bm.BENCHMARK_NAMES)
@pytest.mark.parametrize("dense", [True, False])
def test_reference_neumann_condition(name, dense):
    """Second-order one-sided u_x at x = +-7 of the data is ~0 (Eq. BC)."""
    u = bm.reference_solution(bm.get_benchmark(name), dense=dense)
    dx = 0.04 if dense else 0.2
    left = (-3 * u[:, 0] + 4 * u[:, 1] - u[:, 2]) / (2 * dx)
    right = (3 * u[:, -1] - 4 * u[:, -2] + u[:, -3]) / (2 * dx)
    assert max(np.abs(left).max(), np.abs(right).max()) < 1e-4


def test_reference_mass_balance():
    """Trapezoidal mass of the dense data.

    Diffusion: 7 exactly; porous medium: M = 3 up to quadrature error of the
    square-root front; Burgers / diffusion-advection: conserved because
    u(+-7) ~ 1e-7 makes the boundary flux -uV negligible; NL-ADR with G = -1/2
    ("supporting"): d/dt mass = -mass/2 + boundary flux (~0), so mass decays
    like exp(-t/2); with G = +1/2 ("equation") it grows like exp(t/2) (sampling
    the steep front at the data nodes limits the check to ~1e-3).
    """
    x = bm.spatial_grid(True)
    mass = {n: bm.trapezoid_mass(bm.reference_solution(bm.get_benchmark(n), True), x)
            for n in bm.BENCHMARK_NAMES}
    assert np.abs(mass["diffusion"] - 7.0).max() < 1e-12
    assert np.abs(mass["porous_medium"] - 3.0).max() < 2e-3
    for n in ("burgers", "diffusion_advection"):
        assert np.abs(mass[n] / mass[n][0] - 1).max() < 1e-6, n
    t = bm.get_benchmark("nonlinear_adr").times()
    m = mass["nonlinear_adr"]
    assert np.abs(m / (m[0] * np.exp(-t / 2)) - 1).max() < 1e-6
    grow = bm.get_benchmark("nonlinear_adr", "equation")
    m = bm.trapezoid_mass(bm.reference_solution(grow, True), x)
    assert np.abs(m / (m[0] * np.exp(t / 2)) - 1).max() < 1e-3


# ---------------------------------------------------------------------------
# solvers: boundary condition, exactness, convergence
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["mol", "spectral", "fem"])
def test_constant_state_keeps_neumann_not_no_flux(method):
    """A constant state with advection stays constant under u_x = 0.

    With a zero-total-flux condition (the natural condition of the FEM flux
    form without the boundary term) the advective flux uV would pile mass up
    at one end; here u(x, t) = c exp(G t) must hold everywhere.
    """
    x = np.linspace(-7, 7, 71)
    t = np.linspace(0, 2, 5)
    u = SOLVERS[method](lambda u: 0.1 + u**2, lambda u: 0.5 + u, lambda u: 0 * u - 0.3,
                        np.full(x.size, 0.8), x, t)
    assert np.abs(u - 0.8 * np.exp(-0.3 * t)[:, None]).max() < 1e-7


def test_wide_stencil_decouples_odd_even_nodes():
    """The literal SM stencil cannot damp a checkerboard; the compact one can."""
    x = np.linspace(-7, 7, 71)
    u0 = 0.5 + 0.01 * (-1.0) ** np.arange(x.size)
    half = lambda u: 0 * u + 0.5
    zero = lambda u: 0 * u
    t = [0.0, 1.0]
    wide = solvers.solve_mol(half, zero, zero, u0, x, t, stencil="wide")
    compact = solvers.solve_mol(half, zero, zero, u0, x, t, stencil="compact")
    assert np.abs(wide[-1] - u0).max() < 1e-9                # never smoothed
    assert np.abs(compact[-1] - compact[-1].mean()).max() < 1e-6


@pytest.mark.parametrize("method,tol", [("mol", 1e-5), ("fem", 1e-5), ("spectral", 1e-7)])
def test_numerical_paths_match_exact_diffusion(method, tol):
    b = bm.get_benchmark("diffusion")
    exact = bm.reference_solution(b, dense=True)
    num = bm.reference_solution(b, dense=True, method=method)
    assert np.abs(num - exact).max() < tol          # measured 4.9e-6, 4.9e-6, 1.1e-8


def test_mol_second_order_on_diffusion_and_fem_too():
    b = bm.get_benchmark("diffusion")
    exact = bm.reference_solution(b, dense=True)
    for method, kw in (("mol", {"integrator": "LSODA"}), ("fem", {})):
        e1, e2 = (np.abs(solve_on(b, method, r, **kw) - exact).max() for r in (1, 2))
        assert order(e1, e2) > 1.8, method           # measured 2.00 for both


def test_mol_matches_exact_porous_medium_with_reduced_order():
    """The Barenblatt front is a square-root singularity: first order at best."""
    b = bm.get_benchmark("porous_medium")
    exact = bm.reference_solution(b, dense=True)
    err = {}
    for r in (1, 2, 4):
        e = solve_on(b, "mol", r, integrator="LSODA") - exact
        err[r] = (np.abs(e).max(), np.sqrt(np.mean(e**2)))
    assert err[1][0] < 3e-2 and err[1][1] < 2e-3      # measured 2.8e-2, 1.6e-3
    assert order(err[1][0], err[4][0], 4) > 0.4       # max norm, measured 0.62
    assert order(err[1][1], err[4][1], 4) > 0.8       # rms, measured 1.06


def test_grid_convergence_on_nonlinear_adr():
    """All mechanisms active (reaction 'text': G = u/2); reference: spectral, refine 4."""
    b = bm.get_benchmark("nonlinear_adr", "text")
    ref = solve_on(b, "spectral", 4, rtol=1e-10, atol=1e-13)
    e = {(m, r): np.abs(solve_on(b, m, r) - ref).max()
         for m, rs in (("mol", (1, 2, 4)), ("fem", (1, 2)), ("spectral", (1, 2)))
         for r in rs}
    assert order(e["mol", 1], e["mol", 2]) > 1.8      # measured 1.95
    assert order(e["mol", 2], e["mol", 4]) > 1.8      # measured 2.00
    assert order(e["fem", 1], e["fem", 2]) > 1.8      # measured 1.96
    assert e["spectral", 1] / e["spectral", 2] > 30   # spectral: measured ~170
    assert e["spectral", 2] < 1e-7


@pytest.mark.parametrize("method", ["mol", "spectral", "fem"])
def test_tolerance_convergence(method):
    b = bm.get_benchmark("nonlinear_adr", "text")
    x = bm.spatial_grid(True)
    args = (b.D, b.V, b.G, b.initial_condition(x), x, b.times())
    ref = SOLVERS[method](*args, rtol=1e-12, atol=1e-14)
    err = [np.abs(SOLVERS[method](*args, rtol=rt, atol=rt * 1e-2) - ref).max()
           for rt in (1e-4, 1e-6, 1e-8)]
    assert err[0] / err[1] > 10 and err[1] / err[2] > 10   # measured ~100 each
    assert err[2] < 1e-7


def test_default_references_agree_across_methods():
    """Paper's solver at the default refinement vs an independent method."""
    cases = [("burgers", "mol", 16, 3e-4),              # spectral vs MOL: 1.4e-4
             ("diffusion_advection", "spectral", 2, 3e-4),   # FEM vs spectral: ~1e-4
             ("nonlinear_adr", "spectral", 1, 1e-5)]    # MOL vs spectral: 1.4e-6
    for name, other, refine, tol in cases:
        b = bm.get_benchmark(name)
        ref = bm.reference_solution(b, dense=True)
        alt = bm.reference_solution(b, dense=True, method=other, refine=refine)
        assert np.abs(ref - alt).max() / np.abs(ref).max() < tol, name


# ---------------------------------------------------------------------------
# the nonlinear ADR benchmark's two initial conditions (text and authors' code)
# ---------------------------------------------------------------------------
def test_nonlinear_adr_initial_conditions_text_and_code():
    x = bm.spatial_grid(dense=True)
    s2 = 2 * 0.7**2
    bump = lambda a1, a2: np.minimum(a1 * np.exp(-(x + 2) ** 2 / s2) + a2 * np.exp(-(x - 1) ** 2 / s2), 1)  # noqa
    text = bm.get_benchmark("nonlinear_adr").initial_condition(x)
    code = bm.get_benchmark("nonlinear_adr", initial="code").initial_condition(x)
    np.testing.assert_allclose(text, bump(0.1, 0.07), atol=1e-15)        # Eq. (14)
    np.testing.assert_allclose(code, bump(1.0, 0.7), atol=1e-15)         # the authors' generator
    assert code.max() == 1.0 and np.isclose(code[np.argmin(np.abs(x - 1))], 0.7, atol=1e-3)
    assert bm.get_benchmark("nonlinear_adr", initial="code") != bm.get_benchmark("nonlinear_adr")
    # the choice exists for every benchmark's signature but changes only this one
    assert np.array_equal(bm.get_benchmark("diffusion", initial="code").initial_condition(x),
                          bm.get_benchmark("diffusion").initial_condition(x))
    with pytest.raises(ValueError, match="unknown initial condition 'ic-nl'"):
        bm.get_benchmark("nonlinear_adr", initial="ic-nl")


def test_code_initial_condition_reference_is_converged():
    """With u up to 1 the data solve uses LSODA; it agrees with RK45 and with a finer grid."""
    code = bm.get_benchmark("nonlinear_adr", initial="code")
    assert bm.solver_options(code, "mol") == {"integrator": "LSODA"}
    assert bm.solver_options(bm.get_benchmark("nonlinear_adr"), "mol") == {"integrator": "RK45"}
    u = bm.reference_solution(code)
    u8 = bm.reference_solution(code, refine=8)
    assert np.linalg.norm(u - u8) / np.linalg.norm(u) < 5e-4
    assert u.max() == pytest.approx(1.0, abs=1e-6) and u.min() > -1e-6 and 0.1 < u[-1].max() < 0.2


def test_a_computed_reference_solution_is_kept_on_disk_and_read_back(tmp_path, monkeypatch):
    """A numerical reference solution is written to the reference cache once and read back
    by a later process (here: after the in-memory cache is emptied) bit for bit, without
    solving again; a benchmark with operators of its own is not kept."""
    monkeypatch.setenv(bm.REFERENCE_CACHE_ENV, str(tmp_path))
    bench = bm.get_benchmark("burgers")
    bm._dense_reference.cache_clear()
    computed = bm.reference_solution(bench, dense=True)
    assert [p.suffix for p in tmp_path.iterdir()] == [".npz"]

    def no_solving(*args, **kw):
        raise AssertionError("solved again")
    monkeypatch.setitem(bm._SOLVERS, "spectral", no_solving)
    bm._dense_reference.cache_clear()
    np.testing.assert_array_equal(bm.reference_solution(bench, dense=True), computed)
    own = dataclasses.replace(bench, D=lambda u: 0.02 + 0 * u)
    with pytest.raises(AssertionError, match="solved again"):
        bm.reference_solution(own)
    named = dataclasses.replace(bench, name="my_burgers")          # a name of the caller's own
    with pytest.raises(AssertionError, match="solved again"):
        bm.reference_solution(named)
    bm._dense_reference.cache_clear()


def test_a_damaged_kept_reference_solution_is_never_trusted(tmp_path, monkeypatch):
    """A kept reference solution whose numbers were changed (a flipped byte, a file cut short,
    a valid array of the right shape with another checksum) is computed again, never read."""
    monkeypatch.setenv(bm.REFERENCE_CACHE_ENV, str(tmp_path))
    bench = bm.get_benchmark("burgers")
    bm._dense_reference.cache_clear()
    computed = np.array(bm.reference_solution(bench, dense=True))
    (kept,) = tmp_path.iterdir()
    with np.load(kept) as f:
        sha = f["sha256"]
    forged = computed.copy()
    forged[3, 5] += 1e-3                                   # one number changed, checksum kept
    damages = {"forged": lambda: np.savez(kept, u=forged, sha256=sha),
               "cut short": lambda: kept.write_bytes(kept.read_bytes()[:1000]),
               "no checksum": lambda: np.savez(kept, u=forged)}
    for what, damage in damages.items():
        damage()
        bm._dense_reference.cache_clear()
        np.testing.assert_array_equal(bm.reference_solution(bench, dense=True), computed, err_msg=what)
    bm._dense_reference.cache_clear()
