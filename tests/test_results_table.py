"""The results table: one row per trained network, the authors' rows in the same columns, and
the comparison of medians with its bootstrap interval."""
import numpy as np
import pandas as pd
import pytest

from binn_utils.analysis import authors_archive, results_table as rt
from test_architecture_figure import ARCHS, PERTURB, _rel, _result, _u_p


@pytest.fixture(scope="module")
def results():
    return [_result(aD, aV, PERTURB[aD, aV]) for aD in ARCHS for aV in ARCHS]


def test_one_row_per_network_with_its_setting_and_errors(results):
    df = rt.table(results)
    assert len(df) == sum(len(PERTURB[k]) for k in PERTURB)
    assert list(df.columns[:3]) == ["source", "study", "setting"]
    assert {"arch_D", "arch_V", "noise_var", "grid", "dataset", "seed", "checkpoint", "norm", "err_u_theta",
            "err_u_p", "err_D", "err_V", "status", "up_status"} <= set(df.columns)
    row = df[(df["arch_D"] == (1, 1)) & (df["arch_V"] == (4, 4))].sort_values("seed")
    assert row["seed"].tolist() == [0, 1, 2]
    assert row["grid"].unique().tolist() == [71]
    # the failed forward solve stays, as NaN with its status
    assert np.isnan(row["err_u_p"].iloc[1]) and row["up_status"].iloc[1].startswith("failed")
    assert row["err_u_p"].iloc[0] == pytest.approx(_rel(_u_p(0.02), "fro"))
    assert row["err_G"].isna().all()  # no G network in this benchmark


def test_both_checkpoints_and_the_spectral_norm(results):
    both = rt.table(results[:1], checkpoints="both", norms=("frobenius", "spectral"))
    assert sorted(both.groupby(["checkpoint", "norm"]).size().items()) == [
        (("best", "frobenius"), 3), (("best", "spectral"), 3), (("final", "frobenius"), 3), (("final", "spectral"), 3)]
    spec = both[(both["norm"] == "spectral") & (both["checkpoint"] == "best")]["err_u_p"].to_numpy()
    assert spec == pytest.approx([_rel(_u_p(e), "spectral") for e in PERTURB[ARCHS[0], ARCHS[0]]])
    assert both[both["norm"] == "spectral"]["err_D"].isna().all()  # operator errors: one norm only
    with pytest.raises(ValueError, match="unknown norm"):
        rt.table(results, norms=("l1",))
    with pytest.raises(ValueError, match="unknown checkpoint"):
        rt.table(results, checkpoints=("last",))


def test_authors_rows_in_the_same_columns_as_the_archive():
    a = rt.authors_table("learning_rate", noise_var=1e-3, grid=71)
    assert len(a) == 70 and set(a["source"]) == {"authors"}
    assert list(a.columns) == list(rt.HEAD) + ["lr"] + list(rt.TAIL)
    for lr in (5e-4, 5e-7):
        sel = a[np.isclose(a["lr"], lr)].sort_values("replicate")
        assert sel["err_u_p"].to_numpy() == pytest.approx(
            authors_archive.errors("learning_rate", "err_u_p", noise_var=1e-3, lr=lr))
        assert sel["err_u_theta"].to_numpy() == pytest.approx(
            authors_archive.errors("learning_rate", "err_u_theta", noise_var=1e-3, lr=lr))
    spec = rt.authors_table("architecture", noise_var=1e-3, norm="spectral")
    assert len(spec) == 160 and spec["err_u_p"].notna().all() and spec["err_u_theta"].isna().all()
    assert set(spec["arch_D"]) == {(1, 1), (4, 1), (4, 4), (4, 32)}
    one = rt.authors_table("batch_size", noise_var=1e-3)
    assert one.groupby(["batch_size", "budget"]).size().max() == 1  # one run per B
    assert rt.authors_table("learning_rate", noise_var=1e-3, grid=351).empty


def _frame(source, values, **cols):
    return pd.DataFrame({"source": source, "lr": 1e-3, "norm": "frobenius", "err_u_theta": np.nan,
                         "err_u_p": values, **cols})


def test_interval_of_a_ratio():
    rng = np.random.default_rng(1)
    a, b = rng.lognormal(0.0, 0.1, 40), rng.lognormal(np.log(2.0), 0.1, 40)
    ratio, lo, hi = rt.ratio_interval(a, b)
    assert lo < 0.5 < hi and hi - lo < 0.2
    # well separated groups: the interval excludes 1
    assert rt.ratio_interval(a, a * 3)[2] < 1
    # one run on one side: that side adds no spread, the interval still holds the ratio
    ratio, lo, hi = rt.ratio_interval(a, [2.0])
    assert lo <= ratio <= hi and ratio == pytest.approx(np.median(a) / 2.0)
    assert np.isnan(rt.ratio_interval([], b)).all()
    med, lo, hi = rt.median_interval([1.0, 2.0, 3.0, np.nan])
    assert med == 2.0 and lo <= 2.0 <= hi



def _log_medians(rng, draws, datasets, inits, icc, shift=0.0):
    """(draws, datasets) log medians of nested log-normal errors: a dataset effect and an
    initialisation effect on the log scale, intra-dataset correlation ``icc``, total variance 1."""
    b = rng.normal(0, np.sqrt(icc), (draws, datasets, 1))
    e = rng.normal(0, np.sqrt(1 - icc), (draws, datasets, inits))
    return np.median(shift + b + e, axis=2)


@pytest.mark.parametrize("datasets", [3, 5])
@pytest.mark.parametrize("icc", [0.0, 0.3, 0.6, 0.9])
def test_one_more_dataset_is_a_5_percent_test_on_nested_data_with_no_difference(datasets, icc):
    """The authors' median as one more dataset of the same method: the prediction range covers
    it 95 % of the time whatever the intra-dataset correlation (Monte Carlo, 4000 draws)."""
    rng = np.random.default_rng(7)
    ours, theirs = _log_medians(rng, 4000, datasets, 10, icc), _log_medians(rng, 4000, 1, 10, icc)[:, 0]
    out = np.array([rt.one_more_dataset(m, L) for m, L in zip(ours, theirs)])
    rate, tol = np.mean(out[:, 3] < 0.05), 3 * np.sqrt(0.05 * 0.95 / 4000)
    assert abs(rate - 0.05) <= tol, rate
    assert np.array_equal((out[:, 1] <= out[:, 0]) & (out[:, 0] <= out[:, 2]), out[:, 3] >= 0.05)


def test_the_variance_of_a_median_against_a_mean_is_the_known_one():
    """k var(median of k standard normals): 1 for k = 1, 2; 3 x 0.4487 for k = 3 (the textbook
    value); pi/2 as k grows; and, for k = 10, what 400,000 seeded draws give."""
    f = rt.median_variance_factor
    assert f(1) == f(2) == 1.0 and f(3) == pytest.approx(3 * 0.4487, abs=1e-3)
    assert f(100) == pytest.approx(np.pi / 2, rel=0.02) and f(10) < f(11) < np.pi / 2
    draws = np.median(np.random.default_rng(3).standard_normal((400_000, 10)), axis=1)
    assert f(10) == pytest.approx(10 * draws.var(), rel=0.01)


@pytest.mark.parametrize("datasets", [5, 10])
@pytest.mark.parametrize("icc", [0.3, 0.6, 0.9, 1.0])
def test_one_more_dataset_of_a_median_pooled_over_ten_datasets_holds_its_level(datasets, icc):
    """The printed Fig. 2: the authors' median pooled over 10 datasets x 10 initialisations, set
    against the mean of ours as the mean of 10 more datasets' medians: no more than 5 % false
    alarms (Monte Carlo, 4000 draws); its range is narrower than one dataset's would be."""
    rng = np.random.default_rng(17)
    ours = _log_medians(rng, 4000, datasets, 10, icc)
    b = rng.normal(0, np.sqrt(icc), (4000, 10, 1))
    theirs = np.median((b + rng.normal(0, np.sqrt(1 - icc), (4000, 10, 10))).reshape(4000, -1), axis=1)
    out = np.array([rt.one_more_dataset(m, L, theirs_datasets=10) for m, L in zip(ours, theirs)])
    assert np.mean(out[:, 3] < 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    one = np.array([rt.one_more_dataset(m, L) for m, L in zip(ours[:200], theirs[:200])])
    assert np.all(out[:200, 2] < one[:, 2]) and np.all(out[:200, 1] > one[:, 1])


def test_one_more_dataset_finds_a_shift_and_prints_its_power():
    """A real difference (the authors' runs shifted by 2 and 4 standard deviations of a
    dataset's median) is found, more often the larger; how often is printed (-s)."""
    rng = np.random.default_rng(8)
    found = {}
    for datasets in (3, 5):
        for k in (2, 4):
            ours = _log_medians(rng, 2000, datasets, 10, 0.6)
            theirs = _log_medians(rng, 2000, 1, 10, 0.6)[:, 0]
            sd = float(np.std(_log_medians(rng, 20000, 1, 10, 0.6)))
            found[datasets, k] = np.mean([rt.one_more_dataset(m, L + k * sd)[3] < 0.05 for m, L in zip(ours, theirs)])
    print("one_more_dataset, 10 initialisations per dataset, icc 0.6: a shift of 2 / 4 SD of a dataset's median "
          "found " + "; ".join(f"{d} datasets {found[d, 2]:.0%} / {found[d, 4]:.0%}" for d in (3, 5)))
    from scipy import stats
    for (d, k), rate in found.items():       # the noncentral t's power, within Monte Carlo error
        q = stats.t.ppf(0.975, d - 1)
        nc = k / np.sqrt(1 + 1 / d)
        power = stats.nct.sf(q, d - 1, nc) + stats.nct.cdf(-q, d - 1, nc)
        assert abs(rate - power) < 3 * np.sqrt(power * (1 - power) / 2000) + 0.01, (d, k, rate, power)
    assert found[5, 4] > found[5, 2] and found[3, 4] > found[3, 2] and found[5, 2] > found[3, 2]


def _nested(rng, datasets, inits, icc, shift=0.0, source="ours"):
    rows = []
    for d, med in enumerate(_log_medians(rng, 1, datasets, inits, icc, shift)[0]):
        for i in range(inits):
            v = float(np.exp(med + rng.normal(0, 0.1)))
            rows.append({"source": source, "setting": "s", "noise_var": 1e-3, "grid": 71, "dataset": d,
                         "seed": i, "replicate": i, "checkpoint": "best", "norm": "frobenius",
                         "err_u_theta": v, "err_u_p": v})
    return pd.DataFrame(rows)


def test_against_datasets_holds_the_table_to_simultaneous_ranges_and_refuses_unlike_designs():
    rng = np.random.default_rng(9)
    ours = pd.concat([_nested(rng, 5, 10, 0.5).assign(setting=s) for s in "abc"])
    theirs = pd.concat([_nested(rng, 1, 10, 0.5, shift=sh, source="authors").assign(setting=s)
                        for s, sh in zip("abc", (0.0, 0.0, 8.0))])
    t = rt.against_datasets(ours, theirs, "setting", quantities=("err_u_theta",))
    assert list(t["beyond"]) == [False, False, True]
    assert t["ratio"].iloc[2] < 1e-2      # ours / theirs, the book's one direction: their errors are far larger here
    assert t["p"].iloc[2] < 0.05 / 3 and (t["datasets"] == 5).all() and (t["inits"] == 10).all()
    # beyond exactly where the ratio leaves its range, each range at 1 - 0.05 / 3 (Bonferroni)
    assert list(t["beyond"]) == list((t["ratio"] < t["range_lo"]) | (t["ratio"] > t["range_hi"]))
    m = np.log(ours[ours["setting"] == "c"].groupby("dataset")["err_u_theta"].median())
    L = np.log(theirs[theirs["setting"] == "c"]["err_u_theta"].median())
    assert tuple(t[["ratio", "range_lo", "range_hi", "p"]].iloc[2]) == pytest.approx(
        rt.one_more_dataset(m, L, 1 - 0.05 / 3))
    # failed runs of ours (NaN) are counted, left out of their dataset's median, and do not stop the test
    holed = ours.copy()
    holed.loc[(holed["setting"] == "c") & (holed["dataset"] < 2) & (holed["replicate"] == 0), "err_u_p"] = np.nan
    h = rt.against_datasets(holed, theirs, "setting", quantities=("err_u_p",))       # a failed forward solve
    assert list(h["failed"]) == [0, 0, 2] and h["p"].notna().all() and list(h["beyond"]) == [False, False, True]
    three = rt.against_datasets(ours, theirs[theirs["replicate"] < 3], "setting", quantities=("err_u_theta",))
    assert three["p"].isna().all() and not three["beyond"].any()   # three runs of theirs: not a median of 10
    one = rt.against_datasets(ours, theirs[theirs["replicate"] == 0], "setting", quantities=("err_u_theta",))
    assert one["p"].notna().all()                  # one run of theirs: set against one run (one_more_run)
    single = rt.against_datasets(ours[ours["dataset"] == 0], theirs, "setting", quantities=("err_u_theta",))
    assert single["p"].isna().all() and not single["beyond"].any()  # one dataset of ours: no spread between


def test_the_comparison_table_and_its_words_say_what_the_rows_hold():
    from binn_utils.presentation import authors_figures as af
    rng = np.random.default_rng(10)
    ours = pd.concat([_nested(rng, 5, 10, 0.5).assign(setting=s) for s in "abc"])
    splits = pd.concat([_nested(rng, 3, 10, 0.2).assign(setting=s) for s in "abc"])
    theirs = pd.concat([_nested(rng, 1, 10, 0.5, shift=sh, source="authors").assign(setting=s)
                        for s, sh in zip("abc", (0.0, 0.0, 8.0))])
    by_data = {"ours": rt.against_datasets(ours, theirs, "setting", quantities=("err_u_theta",)),
               "authors": rt.against_datasets(splits, theirs, "setting", quantities=("err_u_theta",))}
    md = af.against_datasets_table(by_data, lambda r: r["setting"])
    rows = md.splitlines()[2:]
    assert len(rows) == 3 and "beyond" not in rows[0] + rows[1] and rows[2].count("beyond") == 2
    assert "5 datasets x 10" in md and "3 splits x 10" in md
    words = af.against_datasets_words(by_data)
    t = by_data["ours"]
    assert (f"our typical median is {rt_fmt(t['ratio'].min())} to {rt_fmt(t['ratio'].max())} times the authors' median"
            in words
            and "in 1 of the 3 comparisons" in words and "splits and initialisations explain" in words)
    assert "| authors: median |" in md
    # the authors' single runs (Fig. 6): said as such
    single = {"ours": rt.against_datasets(ours, theirs[theirs["replicate"] == 0], "setting", quantities=("err_u_theta",))}
    md = af.against_datasets_table(single, lambda r: r["setting"])
    assert "| authors: their one run |" in md
    # a single run inside its range is no agreement: how far it could be told apart is said (issue 47)
    inside = single["ours"][~single["ours"]["beyond"]]
    assert len(inside) and md.count(": not comparable beyond ") == len(inside)
    assert "not comparable" not in af.against_datasets_table(by_data, lambda r: r["setting"])   # medians: ranges only
    assert "our typical run is " in af.against_datasets_words(single) and "times the authors' single run" in \
        af.against_datasets_words(single)
    with pytest.raises(ValueError, match="other settings"):
        af.against_datasets_table({"ours": by_data["ours"], "authors": by_data["authors"].iloc[::-1]},
                                  lambda r: r["setting"])


def rt_fmt(v):
    from binn_utils.analysis.reporting import fmt
    return fmt(v)


def test_curves_hold_what_the_figures_draw_median_and_quartiles_over_the_networks():
    res = _result((4, 4), (4, 4), [0.0, 0.1, None])
    res.arrays["best_op_D"] = np.stack([res.arrays["best_op_D"][0] * k for k in (1.0, 2.0, 3.0)])
    c = rt.curves([res])
    assert set(c["curve"]) == {"validation loss", "D", "V"}
    loss = c[c["curve"] == "validation loss"]
    np.testing.assert_allclose(loss["x"], res["curve_epochs"])
    np.testing.assert_allclose(loss["median"], np.median(res["hist_val_total"], axis=0))
    d = c[c["curve"] == "D"]
    np.testing.assert_allclose(d["median"], 2 * res.arrays["best_op_D"][0])       # the middle network
    np.testing.assert_allclose(d["q25"], 1.5 * res.arrays["best_op_D"][0])
    assert (d["networks"] == 3).all() and (d["setting"] == res.setting.label).all()


@pytest.mark.parametrize("datasets", [3, 5])
@pytest.mark.parametrize("icc", [0.0, 0.3, 0.6, 0.9, 0.99])
def test_one_more_run_holds_its_level_for_a_single_run_on_nested_data(datasets, icc):
    """The authors' single run (Fig. 6's archive) as one run of one more dataset: rejected at
    most about 5 % of the time when it is one (Monte Carlo, 4000 draws, 10 runs per dataset),
    whatever the intra-dataset correlation; found when shifted by 3 standard deviations of a run."""
    rng = np.random.default_rng(11)
    n = 4000
    ours = rng.normal(0, np.sqrt(icc), (n, datasets, 1)) + rng.normal(0, np.sqrt(1 - icc), (n, datasets, 10))
    new = rng.normal(0, np.sqrt(icc), n) + rng.normal(0, np.sqrt(1 - icc), n)
    out = np.array([rt.one_more_run(list(o), L) for o, L in zip(ours, new)])
    rate = np.mean(out[:, 3] < 0.05)
    assert 0.03 <= rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / n), rate
    assert np.array_equal((out[:, 1] <= out[:, 0]) & (out[:, 0] <= out[:, 2]), out[:, 3] >= 0.05)
    shifted = np.array([rt.one_more_run(list(o), L + 3.0)[3] for o, L in zip(ours[:500], new[:500])])
    assert np.mean(shifted < 0.05) > rate
    assert np.isnan(rt.one_more_run(list(ours[0, :2]), 0.0)).all()        # two datasets: not tested


def test_against_datasets_sets_a_single_authors_run_against_one_run_of_one_more_dataset():
    rng = np.random.default_rng(12)
    ours = pd.concat([_nested(rng, 5, 10, 0.5).assign(setting=s) for s in "ab"])
    one = pd.concat([_nested(rng, 1, 1, 0.5, shift=sh, source="authors").assign(setting=s)
                     for s, sh in zip("ab", (0.0, 8.0))])
    t = rt.against_datasets(ours, one, "setting", quantities=("err_u_theta",))
    assert list(t["n_authors"]) == [1, 1] and list(t["beyond"]) == [False, True]
    logs = [np.log(g["err_u_theta"].to_numpy()) for _, g in ours[ours["setting"] == "a"].groupby("dataset")]
    L = float(np.log(one[one["setting"] == "a"]["err_u_theta"].iloc[0]))
    assert t["p"].iloc[0] == pytest.approx(rt.one_more_run(logs, L, 1 - 0.05 / 2)[3])
    assert t["median_ours"].iloc[0] == pytest.approx(np.exp(np.mean([x.mean() for x in logs])))


def test_the_comparison_words_say_why_nothing_was_tested_on_too_few_datasets():
    from binn_utils.presentation import authors_figures as af
    rng = np.random.default_rng(13)
    ours = _nested(rng, 1, 10, 0.5)
    one = _nested(rng, 1, 1, 0.5, source="authors")
    t = {"ours": rt.against_datasets(ours, one, "setting", quantities=("err_u_theta",))}
    words = af.against_datasets_words(t)
    assert "our runs are on 1 dataset: too few to say where one run of one more dataset would fall (it takes 3)" in words
    assert "(1 dataset x 10)" in af.against_datasets_table(t, lambda r: r["setting"])


@pytest.mark.parametrize("single", [False, True])
@pytest.mark.parametrize("datasets", [3, 5, 10])
def test_figure_ratio_holds_its_error_rates_on_figures_with_correlated_settings(datasets, single):
    from binn_utils.analysis.figure_ratio_simulation import rates
    none = rates(datasets, 1.0, draws=1000, single=single)
    at_margin = rates(datasets, rt.EQUIVALENCE_MARGIN, draws=1000, single=single)
    assert none["differs"] <= 0.07                 # a false alarm at most about 5 % of the time
    assert at_margin["equivalent"] <= 0.07         # a ratio at the margin called equivalent at most 5 %
    twice = rates(datasets, 2.0, draws=300, single=single)
    assert twice["differs"] > at_margin["differs"] > none["differs"] * 0.8   # power grows with the ratio


def test_figure_ratio_pools_each_dataset_over_the_settings_before_comparing():
    rng = np.random.default_rng(3)
    rows = []
    for d in range(4):
        a = rng.normal(0, 0.1)
        for k, lr in enumerate((1e-4, 1e-3, 1e-2)):
            for s in range(5):
                rows.append({"source": "ours", "lr": lr, "dataset": d, "seed": s, "norm": "frobenius",
                             "err_u_theta": float(np.exp(k + a + rng.normal(0, 0.3))), "err_u_p": np.nan})
    for k, lr in enumerate((1e-4, 1e-3, 1e-2)):
        for s in range(5):
            rows.append({"source": "authors", "lr": lr, "dataset": pd.NA, "seed": s, "norm": "frobenius",
                         "err_u_theta": float(np.exp(k - np.log(1.3) + rng.normal(0, 0.3))), "err_u_p": np.nan})
    df = pd.DataFrame(rows)
    t = rt.figure_ratio(df[df.source == "ours"], df[df.source == "authors"], "lr", quantities=("err_u_theta",))
    ours = df[df.source == "ours"]
    units = [float(np.log(g.groupby("lr")["err_u_theta"].median()).mean()) for _, g in ours.groupby("dataset")]
    theirs = float(np.log(df[df.source == "authors"].groupby("lr")["err_u_theta"].median()).mean())
    expected = rt.pooled_ratio(units, theirs)
    row = t.iloc[0]
    assert row["settings"] == 3 and row["datasets"] == 4
    assert row["ratio"] == pytest.approx(expected["ratio"]) and row["lo"] == pytest.approx(expected["lo"])
    assert row["lo"] < row["lo90"] < row["ratio"] < row["hi90"] < row["hi"]
    assert row["verdict"] == rt.equivalence(row["lo90"], row["hi90"], row["lo"], row["hi"])
    assert np.exp(np.mean(units) - theirs) == pytest.approx(row["ratio"])


def test_equivalence_decides_in_one_order():
    m = rt.EQUIVALENCE_MARGIN
    assert rt.equivalence(0.9, 1.1, 0.85, 1.15) == rt.EQUIVALENT
    assert rt.equivalence(1.05, 1.2, 1.02, 1.24, m) == rt.EQUIVALENT      # inside the margin though not 1
    assert rt.equivalence(1.3, 1.6, 1.2, 1.7) == rt.DIFFERS
    assert rt.equivalence(0.7, 1.4, 0.6, 1.5) == rt.UNRESOLVED
    assert rt.equivalence(np.nan, 1.0, 0.5, 1.5) == rt.UNRESOLVED
    assert rt.pooled_ratio([0.0, 0.1], 0.0)["verdict"] == rt.UNRESOLVED     # two datasets: not tested
