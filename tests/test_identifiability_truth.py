"""The identifiability of a fit's learned operators where the truth is known: synthetic data
drawn from forward solves of known operators, "learned" operators handed in as curves (no
network is trained), each case asserting the label its truth implies.  Seconds each."""
import warnings
from types import SimpleNamespace

import numpy as np
import prose
import pytest

from binn_utils.analysis import fit_identifiability as fi
from binn_utils.analysis import identifiability as ident
from binn_utils.analysis import identifiability_words as ident_words
from binn_utils.applications import fit_report

X = np.linspace(0.0, 1.0, 41)
T = np.linspace(0.0, 1.0, 6)
GRID = np.linspace(-0.2, 1.2, 71)          # the u grid the learned curves are given on


def bump(x):
    return 0.1 + 0.8 * np.exp(-((np.asarray(x) - 0.5) / 0.2) ** 2)


def D(u):
    return 0.02 + 0.0 * np.asarray(u)


def G_weak(u):
    return 0.3 * (1.0 - np.asarray(u))


def data(truth: dict, sigma: float, seed: int = 0, replicates: int = 0) -> np.ndarray:
    """The noise-free solution of ``truth`` plus independent normal noise (``replicates``
    independent draws stacked, or one data set)."""
    u = ident.solve_on_grid(truth, bump, X, T)
    rng = np.random.default_rng(seed)
    if replicates:
        return u[None] + sigma * rng.standard_normal((replicates,) + u.shape)
    return u + sigma * rng.standard_normal(u.shape)


def curves(**ops) -> dict:
    """Learned curves of two networks that agree, on GRID."""
    return {k: np.tile(f(GRID), (2, 1)) for k, f in ops.items()}


def label(obs, **ops) -> dict:
    c = fi.learned_identifiability(curves(**ops), GRID, X, T, obs)
    return {k: oc.level for k, oc in c.operators.items()}, c


# ----------------------------------------------------------------------------- the noise, from the data
def test_sigma_comes_from_the_data_not_from_the_fit():
    """The neighbouring points' scatter finds the true noise within 10 % on a 41-point grid, and
    the learned model plays no part: an absurd model gives the same sigma in the report (and is
    refused), a good one passes."""
    obs = data({"D": D}, 0.02, seed=3)
    s, how, dof = fi.data_noise(obs)
    assert s == pytest.approx(0.02, rel=0.1) and "neighbouring points" in how and dof > 50
    _, good = label(obs, D=D)
    assert good.sigma == s and good.fit.ok
    assert good.fit.sigma_fitted == pytest.approx(0.02, rel=0.2)          # the fit's own, reported beside it
    with pytest.raises(fi.FitRefused) as exc:
        label(obs, D=lambda u: 2.0 + 0 * u)
    assert exc.value.check.sigma == s


def test_replicates_kept_separate():
    """Three replicates fitted separately: sigma is their spread at each point, each counts
    (three times the points), and the needed diffusion is told about three times as surely
    as from one replicate."""
    obs = data({"D": D}, 0.05, seed=4, replicates=3)
    s, how, dof = fi.data_noise(obs)
    assert s == pytest.approx(0.05, rel=0.1) and "spread of the 3 replicates" in how and dof == 2 * 6 * 41
    (l3, c3), (l1, c1) = label(obs, D=D), label(obs[0], D=D)
    assert c3.n_points == 3 * c1.n_points == 3 * 5 * 41
    assert c3["D"].need == c1["D"].need == "needed"
    assert ident.LEVELS.index(l3["D"]) >= ident.LEVELS.index(l1["D"])       # more data: never a weaker label
    assert 2.0 < c3["D"].dchi2_without / c1["D"].dchi2_without < 4.5


# ----------------------------------------------------------------------------- needed, absent, indistinguishable
def test_an_absent_operator_fitted_is_called_absent():
    """Diffusion data fitted with D and an invented reaction G = 0.25 (1 - 2u): a model without G
    (D rescaled) fits as well, and G at its learned size fits worse: G absent, D needed."""
    levels, c = label(data({"D": D}, 0.02), D=D, G=lambda u: 0.25 * (1 - 2 * np.asarray(u)))
    assert c.fit.ok
    assert levels["G"] == "absent" and c["G"].need == "absent"
    assert c["G"].dchi2_without < ident.need_threshold() <= c["G"].dchi2_learned
    assert c["D"].need == "needed"
    md = ident_words.fit_markdown(c)
    assert "a model without G fits these data as well" in md and "the data do not need G" in md
    assert not prose.defects(ident_words.need_sentence(c["G"]))
    assert "Every learned operator leaves a measurable signal" not in md


def test_an_operator_without_signal_is_indistinguishable_from_zero():
    """A reaction 1e-6 of the diffusion, in the truth and in the fit: the data cannot tell it
    from zero, and the constant they would see bounds it."""
    tiny = lambda u: 1e-6 + 0 * np.asarray(u)  # noqa: E731
    levels, c = label(data({"D": D, "G": tiny}, 0.02), D=D, G=tiny)
    assert levels == {"D": "well", "G": "indistinguishable"}
    assert c["G"].near_zero is not None and c["G"].near_zero > 1e-6
    assert "indistinguishable from zero (|G| <~" in ident_words.level_words(c["G"])
    # in the table its pipes are escaped, so that every row keeps the head's cells
    table = ident_words.table_markdown([c])
    cells = lambda row: row.replace("\\|", "").count("|")  # noqa: E731
    head, _, *rows = table.splitlines()
    assert len(rows) == 2 and all(cells(r) == cells(head) for r in rows), table
    assert "(\\|G\\| <~" in rows[1]
    assert "the data cannot tell G from zero" in ident_words.need_sentence(c["G"])
    assert not prose.defects(ident_words.need_sentence(c["G"]))


def test_a_well_measured_operator():
    levels, c = label(data({"D": D, "G": G_weak}, 0.005), D=D, G=G_weak)
    assert levels == {"D": "well", "G": "well"} and c["G"].need == "needed"
    assert "the data need G, and they constrain its size and shape well" in ident_words.need_sentence(c["G"])


def test_a_weak_operator_loses_its_label_as_the_noise_rises():
    """The same weak reaction under more and more noise: its label only ever moves down (well,
    weakly, not constrained, then not needed), from well at the least noise to not constrained
    or indistinguishable from zero at the most."""
    rank = {"well": 3, "weakly": 2, "not": 1, "indistinguishable": 0, "absent": 0}
    got = [label(data({"D": D, "G": G_weak}, s, seed=5), D=D, G=G_weak)[0]["G"] for s in (0.005, 0.02, 0.08, 0.4)]
    assert got[0] == "well" and got[-1] in ("not", "indistinguishable")
    assert all(rank[a] >= rank[b] for a, b in zip(got, got[1:])), got


# ----------------------------------------------------------------------------- the fit check
def test_pure_noise_gets_no_label():
    """Data that are noise about a constant: no operator is needed.  A learned model no better
    than the constant is refused outright; one that passes by chance gets no operator called
    needed (one draw of each)."""
    def obs(seed):
        return 0.5 + 0.05 * np.random.default_rng(seed).standard_normal((T.size, X.size))
    invented = dict(D=D, G=lambda u: 0.1 * (1 - 2 * np.asarray(u)))
    with pytest.raises(fi.FitRefused) as exc:
        label(obs(7), **invented)
    assert exc.value.check.kind == "constant" and "no better than a constant" in str(exc.value)
    levels, c = label(obs(6), **invented)
    assert c.fit.chi2 < c.fit.chi2_constant
    assert all(oc.need != "needed" for oc in c.operators.values()), levels


def test_a_collapsed_fit_is_refused_with_advice_that_fits():
    obs = data({"D": D}, 0.02)
    # the diagnostics call a network collapsed: refused, whatever the operators
    with pytest.raises(fi.FitRefused) as exc:
        fi.learned_identifiability(curves(D=D), GRID, X, T, obs, n_networks=2, collapsed=[1])
    fc = exc.value.check
    assert fc.kind == "collapsed" and "1 of 2 networks collapsed" in fc.reason and "learning rate" in fc.advice
    assert not fc.failed_training
    # a learned model that decays to nothing (u_theta = 0 learned as strong death): no better than a constant
    with pytest.raises(fi.FitRefused) as exc:
        label(obs, D=lambda u: 0 * np.asarray(u), G=lambda u: -5 + 0 * np.asarray(u))
    assert exc.value.check.kind == "constant"
    md = ident_words.unmeasured_markdown(exc.value.check.reason, exc.value.check.advice)
    assert "no operator gets a label" in md and "| G |" not in md


def test_a_misfit_is_refused_with_advice_by_the_loss():
    """A learned diffusion ten times too small: the data's chi-square about it is beyond what
    noise gives; the advice is more epochs only where the loss was still falling."""
    obs = data({"D": D}, 0.01)
    small = lambda u: 0.002 + 0 * np.asarray(u)  # noqa: E731
    for falling, word in ((True, "--epochs"), (False, "--mechanisms")):
        with pytest.raises(fi.FitRefused) as exc:
            fi.learned_identifiability(curves(D=small), GRID, X, T, obs, still_falling=falling)
        assert exc.value.check.kind == "misfit" and word in exc.value.check.advice
        assert exc.value.check.chi2 > exc.value.check.bar


def test_a_blown_up_fit_says_so_in_every_line():
    """A network whose learned solution runs far beyond the data blew up: the check refuses the
    fit as a failed training, and every line of the report says so."""
    obs = data({"D": D}, 0.02)
    u_theta = np.stack([obs, 1.6e7 * np.ones_like(obs)])
    bad = fi.network_failures({}, u_theta, obs[None])
    assert bad == {"diverged": [], "blown up": [1], "collapsed": []}
    with pytest.raises(fi.FitRefused) as exc:
        fi.learned_identifiability(curves(D=D), GRID, X, T, obs, n_networks=2, blown_up=bad["blown up"])
    fc = exc.value.check
    assert fc.kind == "blown up" and fc.failed_training and "BLOWN UP" in fc.reason
    md = ident_words.unmeasured_markdown(fc.reason, fc.advice, fc.failed_training)
    tagged = fit_report.tag_failed("# Diagnostics\n\n| a | b |\n|---|---|\n| x | 1 |\nForward solves u_p: 2 of 2 ok.\n\n"
                                   + md, "the fit failed: 1 of 2 networks blew up")
    lines = [ln for ln in tagged.splitlines() if ln.strip() and not ln.startswith("|---")]
    assert lines and all("FIT FAILED" in ln for ln in lines), tagged
    # a diverged network (non-finite learned solution) is a failure too
    nan_theta = np.stack([obs, np.full_like(obs, np.nan)])
    assert fi.network_failures({}, nan_theta, obs[None])["diverged"] == [1]


def test_binn_fit_exits_non_zero_on_a_blown_up_fit():
    """training_failure reads the diagnostics and the learned solutions of the fit: a blown-up
    network is one sentence (binn fit prints it on stderr and exits 1); a sound fit is None."""
    obs = data({"D": D}, 0.02)

    def fit(u_theta, diagnostics=None):
        return SimpleNamespace(observations=[SimpleNamespace(u_obs=obs)], result=SimpleNamespace(n_replicates=2),
                               report=SimpleNamespace(diagnostics=diagnostics or {}),
                               evaluation=SimpleNamespace(u_theta=u_theta))
    assert fit_report.training_failure(fit(np.stack([obs, obs]))) is None
    words = fit_report.training_failure(fit(np.stack([obs, 1e7 * obs])))
    assert words.startswith("the fit failed: 1 of 2 networks blew up") and "\n" not in words
    inst = SimpleNamespace(extra={"failed_replicates": [0, 1], "blown_up_replicates": []}, flag=True)
    assert "2 of 2 networks diverged" in fit_report.training_failure(fit(np.stack([obs, obs]), {"instability": inst}))


# ----------------------------------------------------------------------------- words
def test_every_column_is_named_with_what_it_measures():
    levels, c = label(data({"D": D, "G": G_weak}, 0.02), D=D, G=G_weak)
    md = ident_words.fit_markdown(c)
    head = next(ln for ln in md.splitlines() if ln.startswith("| operator"))
    assert [h.strip() for h in head.strip("|").split("|")] == [h for h, _ in ident_words.COLUMNS]
    for h, what in ident_words.COLUMNS:
        assert f"{h}: {what}" in md
    assert "chi-square change without it" in head and "a change of chi-square" in md
    assert "Fit check: passed" in md and "estimated from the data" in md and "{" not in md
    assert sum(ln.startswith(("D: ", "G: ")) for ln in md.splitlines()) == 2        # one plain sentence each
    assert not prose.defects(md), prose.defects(md)


def test_no_warning_where_every_term_is_zero():
    """An operator whose term is zero at every time (and no dynamics at all): its share is not a
    number, said without a 'Mean of empty slice' warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = ident.identifiability({"G": lambda u: 0 * np.asarray(u)}, np.full(X.size, 0.5), X, T[:3], 0.05)
    assert np.isnan(r["G"].share)


def test_binn_fit_command_exits_1_with_one_line_on_a_blown_up_fit(tmp_path, monkeypatch, capsys):
    """`binn fit` whose networks blew up writes its report, prints one line on stderr and exits 1
    (the training itself replaced by a fit whose second network's solution runs to 1e7)."""
    from binn_utils.applications import cli, fit_example
    data_csv = tmp_path / "d.csv"
    fit_example.write_example_csv(data_csv, n_x=11, times=(0.0, 12.0, 24.0, 36.0, 48.0), n_rep=2)
    obs = data({"D": D}, 0.02)

    def fake_run_fit(plan, **kw):
        ok = SimpleNamespace(up_status=["ok", "ok"], n_failed_u_p=0, u_theta=np.stack([obs, 1e7 * obs]))
        fit = SimpleNamespace(observations=[SimpleNamespace(u_obs=obs)], result=SimpleNamespace(n_replicates=2),
                              report=SimpleNamespace(diagnostics={}, ok=True, flags=[]), evaluation=ok,
                              forward_method="RK45")
        return fit, {"report.html": plan.out / "report.html"}
    monkeypatch.setattr(fit_report, "run_fit", fake_run_fit)
    rc = cli.main(["fit", str(data_csv), "--mechanisms", "D,G", "--x", "x_um", "--t", "t_h", "--u", "density",
                   "--replicate", "well", "--scale", "quick", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and "1 of 2 networks blew up" in err[0], err


def logistic_data(seed: int = 8) -> np.ndarray:
    """Uniform logistic growth, G = 2 (1 - u) from u = 0.1 everywhere: no gradient in x at all."""
    u = ident.solve_on_grid({"G": lambda v: 2.0 * (1 - np.asarray(v))}, lambda x: 0.1 + 0 * x, X, T)
    return u + 0.02 * np.random.default_rng(seed).standard_normal(u.shape)


def test_uniform_growth_learned_within_5_percent_passes_the_fit_check():
    """The issue's case: a learned G within 5 % of the truth on uniform growth was refused while
    the check started from the learned solution's first row; from the data's first observed
    profile it fits, and G is needed and well constrained."""
    levels, c = label(logistic_data(), D=D, G=lambda v: 1.05 * 2.0 * (1 - np.asarray(v)))
    assert c.fit.ok and c.fit.chi2 < c.fit.bar
    assert c["G"].need == "needed" and levels["G"] == "well"


GROWTH = {"D": D, "G": lambda v: 2.0 * (1 - np.asarray(v))}      # the learned model: G true, D small


def growth_need(seed: int):
    """D's need on a draw of uniform logistic growth (the learned G true, a small D)."""
    obs = logistic_data(seed)
    return fi.operator_need(GROWTH, "D", obs, X, T, fi.data_noise(obs)[0])


#: Noise draws of uniform logistic growth (``logistic_data(seed)``) for the false-alarm rate: the
#: bar of chi-square alone calls D needed in 5 of these 20 (changes 7.4 to 159), where a test at
#: 5 % would in about 1.
FALSE_ALARM_DRAWS = range(20)
#: one of those five: removing D raises chi-square by 48, far beyond 3.84
BAR_WRONG_DRAW = 15


def test_uniform_growth_does_not_need_diffusion():
    """The known-truth case the bar of chi-square alone got wrong: uniform logistic growth, no
    gradient anywhere, fitted with the true G and a small D.  The smoothed first profile keeps a
    ripple of the noise that growth amplifies and only D damps, so removing D raises chi-square
    far beyond 3.84; a data set simulated without D rises as much, so D is not needed, and G,
    beyond all 19 simulated without it, is.  (Draw 8, the largest change of the 20 draws, 159,
    is the one in 20 a test at 5 % may call needed, and does: see the next test.)"""
    levels, c = label(logistic_data(BAR_WRONG_DRAW), **GROWTH)
    assert c["D"].dchi2_without >= ident.need_threshold()            # the bar alone: "needed"
    assert c["D"].null is not None and c["D"].null.reached >= 1
    assert c["D"].need != "needed" and levels["D"] in ("absent", "indistinguishable")
    assert c["G"].need == "needed" and c["G"].null.reached == 0 and len(c["G"].null.simulated) == fi.NULL_SIMULATIONS
    words = ident_words.need_sentence(c["D"])
    assert "change it as much" in words and ("the data do not need D" in words or "cannot tell D from zero" in words)
    assert not prose.defects(words)
    assert c["D"].null.seed == (fi.NULL_SEED, 0)


@pytest.mark.slow
def test_the_simulated_null_holds_its_false_alarm_rate():
    """D absent from uniform growth, 20 seeded noise draws: a test at 5 % calls D needed in about
    1 of 20.  The bar of chi-square alone passes in at least 3 of them (the case is a hard one
    for it); with the simulated null at most 1 of the 20 is called needed, and below the bar
    nothing is simulated."""
    results = {s: growth_need(s) for s in FALSE_ALARM_DRAWS}
    passed = [s for s, r in results.items() if r[1] >= ident.need_threshold()]
    needed = [s for s, r in results.items() if r[0] == "needed"]
    assert len(passed) >= 3, passed
    assert len(needed) <= 1, (needed, {s: results[s][4].simulated for s in passed})
    assert all(results[s][4] is None for s in results if s not in passed)


def test_a_clearly_needed_operator_is_still_needed():
    """A weak reaction beside diffusion, at the noise where it is no longer well constrained: its
    removal raises chi-square beyond every one of the 19 data sets simulated without it (p =
    1/20), so the simulated null keeps it needed, as it keeps diffusion."""
    obs = data({"D": D, "G": G_weak}, 0.02, seed=11)
    sigma = fi.data_noise(obs)[0]
    for k in ("G", "D"):
        need, change, _, _, null = fi.operator_need({"D": D, "G": G_weak}, k, obs, X, T, sigma)
        assert need == "needed" and null.reached == 0 and len(null.simulated) == fi.NULL_SIMULATIONS, (k, null)
        assert null.p_value == pytest.approx(0.05) and change > max(null.simulated)
