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


def test_compare_gives_the_ratio_of_medians_and_a_seeded_interval():
    ours = _frame("ours", [1.0, 2.0, 3.0, np.nan, 4.0, 5.0])
    theirs = _frame("authors", [0.5, 1.0, 1.5, 2.0, 2.5])
    c = rt.compare(ours, theirs, "lr", quantities=("err_u_p",))
    assert len(c) == 1
    r = c.iloc[0]
    assert (r["median_ours"], r["median_authors"], r["ratio"]) == (3.0, 1.5, 2.0)
    assert (r["n_ours"], r["failed"], r["n_authors"]) == (5, 1, 5)
    assert r["ratio_lo"] < 2.0 < r["ratio_hi"]
    again = rt.compare(ours, theirs, "lr", quantities=("err_u_p",)).iloc[0]
    assert (again["ratio_lo"], again["ratio_hi"]) == (r["ratio_lo"], r["ratio_hi"])  # seeded


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
