"""Diagnostics measured on every stored network: scores, failure rule, ROC/AUC, held-out split."""
import shutil
from pathlib import Path

import numpy as np
import pytest

from binn_utils.analysis import diagnostic_roc as roc_mod
from binn_utils.analysis import diagnostics as dg
from binn_utils.store.records import read_pair
from binn_utils.store.stores import default_results_dir


def synthetic(seed=0, n_per=60, benchmarks=("a", "b", "c")):
    """A labelled table: per benchmark, failed cases score higher on average (plus noise)."""
    rng = np.random.default_rng(seed)
    rows = {"setting": [], "benchmark": [], "score": [], "failed": []}
    for j, b in enumerate(benchmarks):
        f = rng.random(n_per) < 0.4
        s = rng.normal(0, 1, n_per) + 1.5 * f + 0.7 * j
        rows["setting"] += [f"{b}{i // 5}" for i in range(n_per)]
        rows["benchmark"] += [b] * n_per
        rows["score"] += list(s)
        rows["failed"] += list(f)
    return {k: np.array(v) for k, v in rows.items()}


def test_held_out_threshold_never_sees_its_benchmark():
    t = synthetic()
    held = roc_mod.leave_one_out(t["score"], t["failed"], t["benchmark"])
    for left in ("a", "b", "c"):
        # scramble everything about the left-out benchmark: its threshold must not move
        s2, f2 = t["score"].copy(), t["failed"].copy()
        sel = t["benchmark"] == left
        rng = np.random.default_rng(1)
        s2[sel] = rng.normal(10, 5, sel.sum())
        f2[sel] = ~f2[sel]
        again = roc_mod.leave_one_out(s2, f2, t["benchmark"])
        assert again.thresholds[left] == held.thresholds[left]
        # and its threshold is the one chosen on the others alone
        assert held.thresholds[left] == roc_mod.choose_threshold(t["score"][~sel], t["failed"][~sel])
    # the held-out counts are counted on the left-out benchmark only, and pooled by summing
    tot = held.pooled
    assert tot.failures == int(t["failed"].sum()) and tot.fine == int((~t["failed"]).sum())


def test_chosen_threshold_respects_the_false_alarm_budget():
    t = synthetic(seed=3)
    c = roc_mod.choose_threshold(t["score"], t["failed"], 0.15)
    fa = np.mean(t["score"][~t["failed"]] > c)
    assert fa <= 0.15
    # the next lower distinct score would break the budget (the threshold is the lowest allowed)
    lower = np.max(t["score"][t["score"] < c]) if np.any(t["score"] < c) else -np.inf
    assert np.mean(t["score"][~t["failed"]] > lower) > 0.15


def test_auc_is_the_pairwise_probability_with_ties_halved():
    t = synthetic(seed=5)
    s = np.round(t["score"], 1)   # ties
    f = t["failed"]
    pos, neg = s[f], s[~f]
    brute = (np.sum(pos[:, None] > neg[None, :]) + 0.5 * np.sum(pos[:, None] == neg[None, :])) / (pos.size * neg.size)
    assert roc_mod.auc(s, f) == pytest.approx(brute)
    a, lo, hi = roc_mod.auc_interval(s, f, t["setting"], n=200, seed=0)
    assert lo <= a <= hi and a == pytest.approx(brute)
    assert roc_mod.auc_interval(s, f, t["setting"], n=200, seed=0) == (a, lo, hi)   # seeded
    # the ROC's ends and its area
    thr, sens, fa = roc_mod.roc(s, f)
    assert (sens[0], fa[0], sens[-1], fa[-1]) == (0, 0, 1, 1)
    assert np.trapezoid(sens, fa) == pytest.approx(brute)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """Three committed records (one per benchmark) copied into a temporary store."""
    src = default_results_dir() / "runs"
    picks = []
    for b in ("burgers", "diffusion", "porous_medium"):
        picks.append(sorted(src.glob(f"{b}-*.json"))[0])
    root = tmp_path_factory.mktemp("store")
    (root / "runs").mkdir()
    for p in picks:
        shutil.copy(p, root / "runs" / p.name)
        shutil.copy(p.with_suffix(".npz"), root / "runs" / p.with_suffix(".npz").name)
    return root


def test_scores_exceed_one_exactly_where_the_diagnostics_flag(small_store):
    """The scores are read from the store and reproduce every flag of diagnostics.diagnose_arrays,
    at the module's thresholds and at others (each threshold halved) passed to both."""
    from binn_utils.analysis.diagnostic_thresholds import DEFAULT_THRESHOLDS, thresholds
    halved = thresholds(**{k: v / 2 for k, v in DEFAULT_THRESHOLDS.as_dict().items()})
    table = roc_mod.labelled_table(small_store, cache=False)
    for p in sorted((small_store / "runs").glob("*.json")):
        rec, a = read_pair(p.with_suffix(".npz"), p)
        which = table.which
        m = rec["metrics"][which]
        cfg = rec["config"]
        diagnose = lambda **kw: dg.diagnose_arrays(  # noqa: E731
            epochs=a["curve_epochs"], val_total=a["hist_val_total"], val_data=a["hist_val_data"],
            val_pde=a["hist_val_pde"], weights=[cfg["w_data"], cfg["w_pde"], cfg["w_bc"]],
            err_u_theta_obs=np.array(m["err_u_theta_obs"], float), err_u_p_obs=np.array(m["err_u_p_obs"], float),
            up_status=m["up_status"], u_grid=a["u_grid"],
            operators={n: a[f"{which}_op_{n}"] for n in "DVG" if f"{which}_op_{n}" in a},
            u_obs=a["u_obs"], status=rec["status"], groups=np.asarray(rec["datasets"]), **kw)
        rep, strict = diagnose(), diagnose(thresholds=halved)
        assert {n: roc_mod.scores_of(strict, halved)[n] > 1 for n in roc_mod.DIAGNOSTICS} == \
            {n: strict[n].flag for n in roc_mod.DIAGNOSTICS}
        sel = table["setting"] == p.stem
        assert sel.sum() == len(rec["status"])
        for n in roc_mod.DIAGNOSTICS:
            got = table[f"setting_score_{n}"][sel]
            assert np.all((got > 1.0) == rep[n].flag), n
        setting_combined = np.max([table[f"setting_score_{n}"][sel] for n in roc_mod.DIAGNOSTICS], axis=0)
        assert np.all((setting_combined > 1.0) == bool(rep.flags))
        np.testing.assert_allclose(table["up_error"][sel], np.array(m["err_u_p"], float))


def test_cache_is_keyed_on_the_store_contents(small_store, tmp_path):
    root = tmp_path / "s"
    shutil.copytree(small_store, root)
    fresh = roc_mod.labelled_table(root, cache=True)
    assert list((root / "cache").glob("diagnostic_roc-*.npz"))
    again = roc_mod.labelled_table(root, cache=True)
    for k in fresh.cols:
        np.testing.assert_array_equal(fresh[k], again[k])
    # change a record: a new digest, so the table is recomputed, not read back
    p = sorted((root / "runs").glob("*.json"))[0]
    p.unlink()
    p.with_suffix(".npz").unlink()
    assert roc_mod.store_digest(root) != fresh.digest
    assert len(roc_mod.labelled_table(root, cache=True)) < len(fresh)


def test_failure_rule_from_the_best_settings_scatter(small_store):
    table = roc_mod.labelled_table(small_store, cache=False)
    f = roc_mod.failure_factor(table)
    lr = roc_mod.log_ratio(table)[roc_mod.best_settings(table)]
    assert f == pytest.approx(10 ** np.quantile(lr[np.isfinite(lr)], roc_mod.FAILURE_QUANTILE))
    assert np.mean(lr <= np.log10(f) + 1e-12) >= 0.9
    failed = roc_mod.failure_labels(table, f)
    lr_all = roc_mod.log_ratio(table)
    assert np.array_equal(failed, ~table["ok"].astype(bool) | (lr_all > np.log10(f)))
    assert 0 < failed.sum() < failed.size


def test_networks_on_the_authors_data_are_their_own_data_group(tmp_path):
    """A network trained on the authors' rebuilt data is not judged against the best setting of
    ours (another clean solution and noise draw): the data group names whose data it is."""
    import json
    src = default_results_dir() / "runs"
    def data_of(p):
        return json.loads(p.read_text()).get("data")
    theirs = next(p for p in sorted(src.glob("diffusion-*.json")) if data_of(p) == "authors")
    ours = next(p for p in sorted(src.glob("diffusion-*.json")) if data_of(p) in (None, "ours"))   # older: ours
    (tmp_path / "runs").mkdir()
    for p in (theirs, ours):
        for q in (p, p.with_suffix(".npz")):
            shutil.copy(q, tmp_path / "runs" / q.name)
    table = roc_mod.labelled_table(tmp_path, cache=False)
    groups = {s: g for s, g in zip(table["setting"], table["group"])}
    assert groups[theirs.stem] != groups[ours.stem]
    assert "|authors|" in groups[theirs.stem] and "|ours|" in groups[ours.stem]
