"""Verdict helpers of binn_utils.analysis.reporting and the studies' summaries on small synthetic results."""
import numpy as np
import pytest

from binn_utils.analysis import reporting
from binn_utils.studies import batch_size, framework, noise
from synthetic import sweep_record


class FakeResult:
    def __init__(self, meta, record=None, arrays=None, errs=None):
        self.meta = meta
        self.record = record
        self.arrays = arrays or {}
        self._errs = errs or {}

    def __getitem__(self, k):
        return self.arrays[k]

    def metric(self, name, which="best"):
        return np.asarray(self._errs[name], float)

    def up_status(self, which="best"):
        return list(self.record.metrics[which].up_status)


def test_fmt_and_word():
    assert reporting.fmt(None) == "n/a"
    assert reporting.fmt(float("nan")) == "n/a"
    assert reporting.fmt(0.012345) == "0.0123"
    assert reporting.fmt(12.0, "d") == "12"
    assert reporting.word(True) == "agrees" and reporting.word(False) == "disagrees"
    assert reporting.word(None) == "cannot be decided"


def test_find_matches_floats_and_architectures():
    rs = [FakeResult({"lr": 5e-4, "arch_D": [4, 4]}), FakeResult({"lr": 5e-3, "arch_D": [4, 32]})]
    assert reporting.find(rs, lr=5e-4) is rs[0]
    assert reporting.find(rs, lr=0.005 * (1 + 1e-12)) is rs[1]
    assert reporting.find(rs, arch_D=(4, 32)) is rs[1]
    assert reporting.find(rs, lr=1.0) is None
    assert reporting.value_label(5e-4) == "5e-4" and reporting.value_label(1000.0) == "1000"
    assert reporting.value_label((4, 32)) == "(4, 32)"


def test_fmt_writes_prose_plain_and_literal_numbers():
    assert reporting.fmt(0.012345) == "0.0123" and reporting.fmt(2.6, "d") == "3" and reporting.fmt("x") == "x"
    assert [reporting.fmt(v) for v in (None, np.nan, np.inf)] == ["n/a"] * 3
    assert reporting.fmt(12345.6) == "1.23e+04" and reporting.fmt(12345.6, plain_from=1000) == "12,346"
    assert reporting.fmt(999.0, plain_from=1000) == "999" and reporting.fmt(np.inf, plain_from=1000) == "n/a"
    lit = [reporting.fmt(v, literal=True) for v in (True, np.int64(12345), np.nan, -np.inf, (0.5, 2), None, 0.12345)]
    assert lit == ["yes", "12345", "nan", "-inf", "(0.5, 2)", "None", "0.123"]
    assert reporting.fmt(0.12345, ".2g", literal=True) == "0.12"


def test_time_fit_recovers_an_inverse_law_from_the_benchmark():
    a, c = 120.0, 3.0
    rows = [{"B": B, "B_used": used, "epoch_steps": -(-398 // used), "ms_per_step": 1.0,
             "s_per_epoch": (a / used + c) / 4000, "s_4000_epochs": a / used + c}
            for B, used in ((640, 398), (10, 10), (160, 160), (40, 40))]
    fit = batch_size.time_fit({"batch_sizes": rows})
    assert np.isclose(fit["a"], a) and np.isclose(fit["c"], c) and fit["r2"] > 0.999
    assert list(fit["B"]) == [10, 40, 160, 398] and list(fit["B_requested"]) == [10, 40, 160, 640]
    assert np.allclose(fit["fitted"], a / fit["B"] + c)
    rows[0]["s_4000_epochs"] = 0.5 * (a / 398 + c)                    # the largest batch: half the law's time
    fit = batch_size.time_fit({"batch_sizes": rows})
    assert np.allclose(fit["fitted"], fit["a"] / fit["B"] + fit["c"])   # the curve drawn: the fit at the used B
    words = batch_size.fit_residual_words(fit)
    assert words.startswith("at the largest batch, B = 640, full-batch on the 398 training points, the benchmark's 1.65 s lies ")
    assert words.endswith(f"% below the fit's {reporting.fmt(fit['fitted'][-1])} s")


def test_curve_stats_detects_late_rise():
    ep = np.arange(1, 101)
    curve = np.concatenate([np.linspace(1.0, 0.1, 50), np.linspace(0.1, 0.2, 50)])
    res = FakeResult({}, arrays={"curve_epochs": ep, "hist_val_total": np.stack([curve, curve])})
    st = reporting.curve_stats(res)
    assert st["min_epoch"] == 50 and np.isclose(st["rise"], 2.0) and st["epochs"] == 100


def test_the_largest_rise_above_the_best_loss_so_far():
    smooth = np.linspace(1.0, 0.01, 100)                              # decreases smoothly: never rises
    jump = np.r_[np.linspace(1.0, 0.01, 50), np.full(50, 1.0)]        # blows up to 100x its best, then flat
    spikes = smooth * np.where(np.arange(100) % 10 == 5, 10.0, 1.0)   # one decade above the best, repeatedly
    diverged = np.r_[smooth[:60], np.full(40, np.nan)]
    res = FakeResult({}, arrays={"hist_val_total": np.stack([smooth, jump, spikes, diverged])})
    exc = reporting.excursion_replicates(res)
    assert exc[:3] == pytest.approx([0.0, 2.0, 1.0 + np.log10(smooth[5] / smooth[4])]) and np.isposinf(exc[3])


def test_failures_are_counted_not_dropped():
    rec = sweep_record(3, status=["ok", "diverged at epoch 3", "ok"],
                       metrics={"best": {"up_status": ["ok", "ok", "failed: stiff"]}})
    r = FakeResult({"lr": 0.5}, rec)
    assert reporting.counts(r) == {"replicates": 3, "diverged": 1, "up_failed": 1}
    text = reporting.failures_sentence([r], lambda x: "r = 0.5")
    assert "1 of 3 trainings diverged" in text and "1 of 3 forward solves failed" in text
    assert text.startswith("Diverged trainings and failed forward solves: r = 0.5: ") and text.endswith(".")
    fine = FakeResult({"lr": 0.1}, sweep_record(3, status=["ok"] * 3, metrics={"best": {"up_status": ["ok"] * 3}}))
    # none: the sentence a table without its count columns says, with the networks counted
    assert reporting.failures_sentence([fine, fine], str) == reporting.no_failures_sentence(True, True, 6)


def test_captions_say_where_settings_were_trained():
    gpu = FakeResult({"lr": 1}, record=sweep_record(device="cuda: NVIDIA H200"))
    cpu = FakeResult({"lr": 2}, record=sweep_record(device="cpu: x86_64, 1 thread(s)"))
    old = FakeResult({"lr": 3}, record=sweep_record(without=("device",)))  # stored before devices were recorded: a CPU
    assert reporting.trained_on(gpu.record) == "on a GPU (NVIDIA H200)"
    assert reporting.trained_on(old.record) == reporting.trained_on(cpu.record) == "on a CPU"
    label = lambda r: f"r={r.meta['lr']}"  # noqa: E731
    assert reporting.devices_note([cpu, old], label) == ""
    assert reporting.devices_note([gpu, cpu, old], label) == \
        "Trained on a GPU (NVIDIA H200): r=1; on a CPU: r=2, r=3."


def test_reported_networks_are_the_best_validation_ones():
    """Every figure, table and verdict reads the best-validation networks (the authors'
    ``*_best_Iter*.pth``) unless told otherwise; the final ones stay available beside them."""
    from binn_utils.store.loading import SettingResult
    from binn_utils.store.setting import Setting
    from binn_utils.store.sweep_record import REPORTED
    from binn_utils.engine.training import TrainConfig
    assert REPORTED == "best"
    s = Setting("lr", "r", "diffusion", 1e-3, False, (0, 0), (0, 1), TrainConfig(epochs=2))
    m = lambda e, st: {"err_u_theta": [e, e], "err_u_p": [e, None], "up_status": st,  # noqa: E731
                       "operator_errors": {"D": [e, e]}}
    rec = sweep_record(2, metrics={"best": m(0.1, ["ok", "failed: x"]), "final": m(0.5, ["ok", "ok"])})
    arrays = {"best_u_p": np.zeros(1), "final_u_p": np.ones(1)}
    r = SettingResult(s, rec, arrays)
    assert r.metric("err_u_theta")[0] == 0.1 and r.metric("err_u_theta", "final")[0] == 0.5
    assert np.isnan(r.metric("err_u_p")[1]) and r.operator_error("D")[0] == 0.1
    assert r.net("u_p")[0] == 0 and r.net("u_p", "final")[0] == 1
    assert reporting.counts(r)["up_failed"] == 1
    table = reporting.metrics_table([r], lambda x: "r").splitlines()
    assert "final networks" in table[0] and table[2].split("|")[4].strip() == "0.5"


def test_a_count_that_is_zero_in_every_row_is_said_once_not_a_column():
    """Failures are never hidden: a non-zero count keeps its column in every row; a count zero in
    every row is dropped and one sentence under the table says so, with the number of networks."""
    from binn_utils.store.loading import SettingResult
    from binn_utils.store.setting import Setting
    from binn_utils.engine.training import TrainConfig
    s = Setting("lr", "r", "diffusion", 1e-3, False, (0, 0), (0, 1), TrainConfig(epochs=2))

    def result(up, status=("ok", "ok")):
        m = {"err_u_theta": [0.1, 0.1], "err_u_p": [0.1 if u == "ok" else None for u in up], "up_status": list(up),
             "operator_errors": {"D": [0.1, 0.1]}}
        return SettingResult(s, sweep_record(2, status=list(status), metrics={"best": m, "final": m}), {})
    clean = reporting.metrics_table([result(["ok", "ok"]), result(["ok", "ok"])], lambda x: "r")
    assert "failed solves" not in clean and "diverged" not in clean.split("\n\n")[0]
    assert clean.endswith("\n\nNo training diverged and every forward solve succeeded (4 networks).")
    failed = reporting.metrics_table([result(["ok", "ok"]), result(["ok", "failed: x"])], lambda x: "r").splitlines()
    assert failed[0].endswith("| failed solves of $u_\\mathrm{p}$ |") and failed[2].endswith("| 0/2 |")
    assert failed[3].endswith("| 1/2 |") and failed[-1] == "No training diverged (4 networks)."
    both = reporting.metrics_table([result(["ok", "ok"], ("ok", "diverged at epoch 1")), result(["failed: x", "ok"])],
                                   lambda x: "r", beside=None).splitlines()
    assert both[0].endswith("| failed solves of $u_\\mathrm{p}$ | diverged trainings |")
    assert both[2].endswith("| 0/2 | 1 |") and both[3].endswith("| 1/2 | 0 |") and both[-1].startswith("| r |")


def test_rank_trend_is_a_trend_over_all_levels():
    rng = np.random.default_rng(1)
    levels = np.repeat([0, 1e-3, 5e-3, 1e-2, 5e-2], 10)
    rising = 0.01 + levels + 0.001 * rng.random(levels.size)
    rho, p = reporting.rank_trend(levels, rising)
    assert rho > 0.9 and p < 1e-10
    # higher at the last level than at the first, but no trend in between: not "grows"
    by_level = {0: 0.10, 1e-3: 0.30, 5e-3: 0.02, 1e-2: 0.01, 5e-2: 0.11}
    bumpy = np.array([by_level[v] for v in levels]) + 0.001 * rng.random(levels.size)
    rho, p = reporting.rank_trend(levels, bumpy)
    assert by_level[5e-2] > by_level[0] and rho < 0 and p > noise.TREND_P
    assert np.isnan(reporting.rank_trend([1, 1, 1], [1, 2, 3])[0])


def test_rank_trend_takes_the_dataset_as_the_unit():
    """Nested data as the noise study's (10 datasets x 5 levels x 10 initialisations), where each
    dataset reacts to each level in its own way (a dataset x level effect) and the errors do not
    grow with the level: the pooled test of the replicates finds a trend far more often than its
    level says; the test over datasets stays within it, and finds a real trend."""
    rng = np.random.default_rng(3)
    levels = np.tile(np.repeat(np.arange(5.0), 10), 10)
    datasets = np.repeat(np.arange(10), 50)
    pooled = over_datasets = found = 0
    n = 300
    for _ in range(n):
        cell = np.repeat(rng.normal(0, 1, 50), 10)                 # dataset x level
        y = cell + rng.normal(0, 0.3, levels.size)
        pooled += reporting.rank_trend(levels, y)[1] < noise.TREND_P
        over_datasets += reporting.rank_trend(levels, y, datasets)[1] < noise.TREND_P
        found += reporting.rank_trend(levels, y + 0.5 * levels, datasets)[1] < noise.TREND_P
    se = np.sqrt(0.05 * 0.95 / n)
    assert pooled / n > 0.15
    assert over_datasets / n <= 0.05 + 2 * se
    assert found / n > 0.8
    # one dataset: Spearman's own p-value, which speaks of that dataset only
    one = datasets == 0
    assert reporting.rank_trend(levels[one], levels[one], datasets[one])[1] == \
        reporting.rank_trend(levels[one], levels[one])[1]


def test_p_values_are_not_written_with_absurd_precision():
    assert reporting.fmt_p(1.9e-288) == "< 0.0001" and reporting.fmt_p(0.0123) == "0.012"
    assert reporting.fmt_p(float("nan")) == "n/a" and reporting.fmt_p(0.0123, relation=True) == "= 0.012"
    assert reporting.fmt_p(1e-9, relation=True) == "< 0.0001"


def test_near_zero_errors_are_local():
    t = np.linspace(0, 1, 3)[:, None]
    x = np.linspace(-1, 1, 21)[None, :]
    truth = np.maximum(0, 1 - 4 * x**2) * np.ones_like(t)      # zero outside |x| < 1/2
    leak = truth + 0.05 * (truth == 0)                           # wrong only where the truth is zero
    res = FakeResult({}, arrays={"u_clean": truth, "best_u_p": np.stack([leak, truth * np.nan])})
    res.net = lambda key, which=None: res.arrays[f"best_{key}"]
    near, rest = framework.near_zero_errors(res, 0.2)
    assert near[0] > 0.03 and rest[0] < 1e-12 and np.isnan(near[1]) and np.isnan(rest[1])


def test_results_can_be_read_at_the_other_checkpoint():
    from binn_utils.store.loading import SettingResult
    from binn_utils.store.setting import Setting
    from binn_utils.store.sweep_record import reported, reporting_checkpoint
    from binn_utils.engine.training import TrainConfig
    s = Setting("lr", "r", "diffusion", 1e-3, False, (0,), (0,), TrainConfig(epochs=2))
    rec = sweep_record(1, metrics={"best": {"err_u_p": [0.1]}, "final": {"err_u_p": [0.7]}})
    r = SettingResult(s, rec, {})
    with reporting_checkpoint("final"):
        assert reported() == "final" and r.metric("err_u_p")[0] == 0.7
    assert reported() == "best" and r.metric("err_u_p")[0] == 0.1
    import pytest
    with pytest.raises(ValueError, match="unknown checkpoint"):
        with reporting_checkpoint("last"):
            pass


def test_lists_in_words_name_each_value_once():
    from binn_utils.analysis.reporting import and_list, each, respectively
    assert [and_list(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]
    assert each(["0", "0"]) == "0 each" and each(["0.1"]) == "0.1" and each(["0.1", "0.2"]) == "0.1 and 0.2"
    assert respectively(["0.1", "0.2"]) == "0.1 and 0.2 respectively" and respectively(["1", "1"]) == "1 each"


def test_prose_finds_a_numbered_reference_in_doubled_parentheses():
    import prose
    assert prose.defects("against the noise-free solution ( (17) ). The")          # as a built page reads
    assert prose.defects("against the noise-free solution ((17)). The")
    assert not prose.defects(r"the order \((4,4)\), \((17)\) and Eq. (17).")       # math, a plain reference


def test_operator_dispersion_is_the_distance_from_the_median_curve_of_each_dataset():
    from types import SimpleNamespace
    u = np.linspace(0, 1, 11)
    # dataset 0: curves 1, 1.1, 1.2 (median 1.1); dataset 1: curves 5, 5, 5.5 (median 5) and a
    # diverged replicate; outside the range [0, 0.5] the curves differ wildly and must not count
    rows = [1.0, 1.1, 1.2, 5.0, 5.0, 5.5, np.nan]
    curves = np.array([np.where(u <= 0.5, r, 100.0 * i) for i, r in enumerate(rows)])
    res = FakeResult({}, SimpleNamespace(u_range=(0.0, 0.5)), {"u_grid": u, "best_op_D": curves})
    res.net = lambda name: res.arrays[f"best_{name}"]
    res.setting = SimpleNamespace(datasets=(0, 0, 0, 1, 1, 1, 1))
    got = reporting.operator_dispersion(res, "D")
    np.testing.assert_allclose(got[:6], [0.1 / 1.1, 0, 0.1 / 1.1, 0, 0, 0.1], rtol=1e-12)
    assert np.isnan(got[6])
    # a range that holds no grid point gives no number
    assert np.isnan(reporting.operator_dispersion(res, "D", (2.0, 3.0))).all()


def test_change_words_says_a_negative_fall_as_a_rise():
    from binn_utils.analysis.reporting import change_words
    assert change_words(0.12) == "fell by 12 %"
    assert change_words(-0.0207) == "rose by 2.1 %"      # not "fell by -2.1 %"
    assert change_words(0.0) == "did not change"
    assert change_words(np.nan) == "n/a" and change_words(None) == "n/a"


def test_estimate_and_ratio_words_say_what_a_median_is():
    from binn_utils.studies.base import estimate_words, ratio_words
    from binn_utils.analysis.verdicts import median_interval
    one = median_interval([1.0, 2.0, 3.0])
    assert estimate_words(one) == "the median of its 3 replicates"
    several = median_interval([1.0, 2.0, 3.0, 4.0], datasets=[0, 0, 1, 1], seeds=[0, 1, 0, 1], source="a")
    assert estimate_words(several) == "the median of its 2 datasets' medians"
    assert ratio_words(median_interval([]), one) == "n/a"


def test_a_glued_verdict_names_the_test_it_repeats(monkeypatch):
    glued = {}
    monkeypatch.setattr(reporting, "glue", lambda name, value: glued.__setitem__(name, value))
    monkeypatch.setattr(reporting, "PRINTED", {})
    reporting.glue_verdict("x_v", "agrees", "claim 3 |  | words")
    assert glued == {"x_v": "agrees"} and reporting.PRINTED == {"x_v": {"test": "claim 3 |  | words", "part": False}}
