"""Identifiability from the forward model: the rule and the cases whose answer is known."""
import numpy as np
import pytest
from scipy import stats

from binn_utils.analysis import fit_identifiability as fit_ident
from binn_utils.analysis import identifiability as ident
from binn_utils.analysis import identifiability_words as ident_words
from binn_utils.engine.problems import spatial_grid


def test_rule_boundaries_are_the_stated_quantiles():
    # not / weakly: the Neyman-Pearson test at 5 % has power 1/2 exactly at z_0.95^2
    z2 = ident.detect_threshold(0.05)
    assert stats.norm.cdf(np.sqrt(z2) - stats.norm.ppf(0.95)) == pytest.approx(0.5)
    assert ident.constraint_level(0.99 * z2, 497) == "not"
    assert ident.constraint_level(1.01 * z2, 497) == "weakly"
    well = ident.fit_threshold(497)
    assert well == pytest.approx(stats.chi2.ppf(0.95, 497) - 497)
    assert ident.constraint_level(0.99 * well, 497) == "weakly"
    assert ident.constraint_level(well, 497) == "well"
    # more data points: the goodness-of-fit boundary grows like sqrt(N)
    assert ident.fit_threshold(4 * 497) > 1.9 * well


def test_text_fig1_data_do_not_constrain_D():
    """The paper's Eq. (14) (bumps of 1/10): D = u^5/10 is about 1e-6 of the dynamics."""
    for dense in (False, True):
        r = ident.benchmark_identifiability("nonlinear_adr", dense, 1e-3, initial="text")
        # D's removal leaves no signal, but a constant added to D would be seen: indistinguishable
        # from zero, pinned near it (D is there, u^5/10, but too small to tell)
        assert r["D"].level == "indistinguishable" and r["D"].signal == "not" and r["D"].near_zero is not None
        assert r["D"].share < 1e-4
        assert "D" in r.unseen()
        assert r["G"].signal == "well"


def test_diffusion_benchmark_constrains_D_well():
    r = ident.benchmark_identifiability("diffusion", False, 1e-3)
    assert r["D"].level == "well" and r["D"].share == pytest.approx(1.0)
    assert r.unseen() == []
    # a larger noise lowers every chi-square change by the ratio of the variances
    r2 = ident.benchmark_identifiability("diffusion", False, 1e-2)
    assert r2["D"].dchi2["half"] == pytest.approx(r["D"].dchi2["half"] / 10, rel=1e-6)


def test_noise_free_data_use_the_solver_error():
    r = ident.benchmark_identifiability("diffusion", False, 0.0)
    assert r.sigma_source == "solver error"
    assert 0 < r.sigma < 1e-3
    assert r.sigma == pytest.approx(ident.solver_sigma(ident.get_benchmark("diffusion"), False))


def test_a_vanishing_effect_is_seen_as_such():
    """A synthetic model whose G is 1e-9 times the diffusion: G indistinguishable from zero (its
    removal changes nothing, but a small added growth rate would be seen: the data pin it near
    zero), D well; a term the data see nothing of at any size of the ladder stays "not"."""
    x = spatial_grid(False)
    u0 = 0.5 + 0.5 * np.cos(np.pi * x / 7)
    r = ident.identifiability({"D": lambda u: 0.5 + 0 * u, "G": lambda u: 1e-9 + 0 * u}, u0, x,
                              np.linspace(0, 4, 5), 0.03)
    assert r["G"].level == "indistinguishable" and r["D"].level == "well"
    assert 0 < r["G"].near_zero <= 0.1 / 4
    assert r["D"].near_zero is None                 # its removal is seen: no near-zero bound asked for
    # noise so large that nothing is seen: G unmeasurable, no bound near zero
    loud = ident.identifiability({"D": lambda u: 0.5 + 0 * u, "G": lambda u: 1e-9 + 0 * u}, u0, x,
                                 np.linspace(0, 4, 5), 1e3)
    assert loud["G"].level == "not" and loud["G"].near_zero is None


def test_bad_input():
    x = spatial_grid(False)
    with pytest.raises(ValueError, match="sigma"):
        ident.identifiability({"D": lambda u: u}, np.ones_like(x), x, [0, 1], 0.0)
    with pytest.raises(ValueError, match="subset"):
        ident.identifiability({"Q": lambda u: u}, np.ones_like(x), x, [0, 1], 0.1)
    with pytest.raises(ValueError, match="noise variance"):
        ident.benchmark_identifiability("diffusion", False, -1.0)


def test_authors_fig1_data_constrain_D_weakly_on_351_points():
    """The authors' Fig. 1 data: D is about 2 % of the dynamics; a factor two in D is below the
    goodness-of-fit level on both grids (weakly constrained on 351 points), and the 351-point
    grid raises its chi-square change about five-fold (five times the points); D's shape (the
    tilt) the data do not see on either grid, so D as a function is not constrained."""
    sparse = ident.benchmark_identifiability("nonlinear_adr", False, 1e-3, initial="code")
    dense = ident.benchmark_identifiability("nonlinear_adr", True, 1e-3, initial="code")
    scale = {g: min((ident.constraint_level(r["D"].dchi2[p], r.n_points) for p in ("half", "double")),
                    key=ident.LEVELS.index) for g, r in (("sparse", sparse), ("dense", dense))}
    assert scale["sparse"] in ("not", "weakly") and scale["dense"] == "weakly"
    assert sparse["D"].level == dense["D"].level == "not"
    assert dense["D"].dchi2["tilt"] < ident.detect_threshold()
    # N counts the points after the initial time: 8 of the 9 rows
    assert sparse.n_points == 8 * 71 and dense.n_points == 8 * 351
    assert 3 < dense["D"].dchi2["half"] / sparse["D"].dchi2["half"] < 7
    assert sparse["G"].level == dense["G"].level == "well"


def test_the_check_is_solved_on_a_fine_grid():
    assert ident.refinement(spatial_grid(False)) == 10 and ident.refinement(spatial_grid(True)) == 2


def test_learned_operators_on_a_users_data():
    """Learned curves equal to the truth of the diffusion benchmark, with a tiny growth term a
    user asked for: D needed and well constrained, the growth indistinguishable from zero; sigma
    from the data's own scatter, or the replicates' where the caller has it."""
    from binn_utils.engine.problems import get_benchmark, reference_solution
    b = get_benchmark("diffusion")
    x, t = spatial_grid(False), b.times()
    u = reference_solution(b, dense=False)
    grid = np.linspace(0, 1, 101)
    curves = {"D": np.tile(b.D(grid), (3, 1)), "G": np.full((3, 101), 1e-9)}
    rng = np.random.default_rng(0)
    u_obs = u + 0.03 * rng.standard_normal(u.shape)
    c = fit_ident.learned_identifiability(curves, grid, x, t, u_obs)
    assert c.sigma == pytest.approx(0.03, rel=0.15) and "neighbouring points" in c.sigma_source
    assert c["D"].level == "well" and c["D"].need == "needed" and c["G"].level == "indistinguishable"
    words = ident_words.warnings_of(c)
    assert len(words) == 1 and words[0].startswith("G: indistinguishable from zero")
    assert "the data cannot tell G from zero" in ident_words.fit_markdown(c)
    # a between-replicate estimate is used when there is one
    c2 = fit_ident.learned_identifiability(curves, grid, x, t, u_obs, replicate_sd=0.04)
    assert c2.sigma == 0.04 and "between-replicate" in c2.sigma_source


def test_the_table_says_when_no_default_run_is_stored_and_when_an_error_measures_nothing():
    assert ident_words.error_words(float("nan"), "well") == "no default run stored"
    assert ident_words.error_words(0.0123, "well") == "0.0123"
    assert ident_words.error_words(0.5, "not") == "0.5 (not constrained: not a measure of the method)"


def test_separate_replicates_each_add_their_chi_square():
    """Replicates fitted separately are independent measurements of one solution: n of them
    give n times the chi-square change of one, on n times the points (it counted one)."""
    x, t = np.linspace(-7, 7, 71), np.linspace(0, 4, 5)
    u0 = lambda x: np.exp(-x ** 2 / 2)  # noqa: E731
    ops = {"D": lambda u: 0.5 + 0 * u}
    one = ident.identifiability(ops, u0, x, t, 0.05)
    three = ident.identifiability(ops, u0, x, t, 0.05, copies=3)
    assert three.n_points == 3 * one.n_points
    for p in ("zero", "half", "double"):
        assert np.isclose(three["D"].dchi2[p], 3 * one["D"].dchi2[p])
    with pytest.raises(ValueError, match="copies must be a positive integer"):
        ident.identifiability(ops, u0, x, t, 0.05, copies=0)


def test_a_poor_fit_gets_no_data_level_label():
    """The learned model is checked against the data first: a forward solution that misses the
    data by far more than the noise gets no label (the labels would describe the fit); one that
    matches the data to the noise is measured."""
    from binn_utils.engine.problems import get_benchmark, reference_solution
    b = get_benchmark("diffusion")
    x, t = spatial_grid(False), b.times()
    u = reference_solution(b, dense=False)
    grid = np.linspace(0, 1, 101)
    u_obs = u + 0.03 * np.random.default_rng(1).standard_normal(u.shape)
    good = fit_ident.learned_identifiability({"D": np.tile(b.D(grid), (3, 1))}, grid, x, t, u_obs)
    assert good["D"].level == "well" and good.fit.ok
    with pytest.raises(fit_ident.FitRefused, match="does not fit the data"):
        fit_ident.learned_identifiability({"D": np.tile(0.5 * b.D(grid), (3, 1))}, grid, x, t, u_obs)
    no_solution = fit_ident.fit_check(u_obs, None, 0.03)            # no forward solution at all
    assert not no_solution.ok and "could not be computed" in no_solution.reason


def test_separate_replicates_each_count_in_whether_the_model_fits():
    """With replicates fitted separately, the data's chi-square about the learned model sums
    every replicate's (it took replicate 0 times their number)."""
    rng = np.random.default_rng(3)
    u = np.tile(np.linspace(0, 1, 11), (5, 1))
    obs = u[None] + np.array([0.02, 0.05, 0.08])[:, None, None] * rng.standard_normal((3,) + u.shape)
    chi2, n = fit_ident.chi_square(obs, u, 0.01)
    assert chi2 == pytest.approx(sum(float(np.sum(((o - u)[1:] / 0.01) ** 2)) for o in obs)) and n == 3 * 4 * 11
    words = fit_ident.fit_check(obs, u, 0.01).reason
    assert f"is {chi2:.4g} on {3 * 4 * 11} points" in words
    assert fit_ident.chi_square(obs[0], u, 0.01)[1] == 4 * 11


def test_the_fit_bar_counts_the_uncertainty_of_sigma():
    """With sigma known the bar is chi-square's quantile; estimated from few squares, higher."""
    assert fit_ident.fit_bar(200) == pytest.approx(stats.chi2.ppf(fit_ident.FIT_QUANTILE, 200))
    assert fit_ident.fit_bar(200, 50) > fit_ident.fit_bar(200, 5000) > fit_ident.fit_bar(200)
    assert fit_ident.fit_bar(200, 1e7) == pytest.approx(fit_ident.fit_bar(200), rel=1e-3)


def test_the_report_says_which_change_leaves_an_operator_weakly_constrained():
    """D weakly constrained by its shape alone (the stored scratch-assay fit: tilt 6.54, its
    scale 36.1 and 85.4): the section says it is the tilt."""
    oc = ident.OperatorConstraint("D", {"zero": 217.0, "half": 36.1, "double": 85.4, "tilt": 6.54}, {}, 0.19, 148)
    c = ident.Identifiability("learned operators", {"D": oc}, 0.05, "0.05", 148)
    assert oc.level == "weakly"
    md = ident_words.fit_markdown(c)
    assert "D is weakly constrained: tilting it (its shape) changes the chi-square by 6.54, between 2.7 and 29.4." in md
    assert "halving it" not in md


def test_chi_squares_read_as_numbers_a_reader_writes():
    # three significant figures; from 1,000 up a plain number, never 1.85e+03 in a sentence
    assert [ident_words._g(v) for v in (3.841, 152.4, 1852.3, 123456.0, float("nan"))] == \
        ["3.84", "152", "1,850", "123,000", "failed"]
