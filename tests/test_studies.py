"""The study registry: every study is one module that owns its grid, default point and figure."""
import dataclasses
import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

from binn_utils import studies
from binn_utils.analysis.reporting import find
from binn_utils.analysis.verdicts import Verdict
from binn_utils.applications import cli
from binn_utils.engine.training import TrainConfig
from binn_utils.presentation import figures, framework_tables, noise_tables
from binn_utils.store.loading import SettingResult
from binn_utils.studies.supporting import Page
from synthetic import sweep_record

import prose

NAMES = tuple(studies.REGISTRY)


def test_every_module_of_the_package_defines_a_registered_study():
    pkg = studies.__path__
    modules = [m.name for m in pkgutil.iter_modules(pkg) if m.name not in ("base", "supporting")]
    registered = {s.name for s in studies.REGISTRY.values()}
    for name in modules:
        mod = importlib.import_module(f"binn_utils.studies.{name}")
        assert mod.STUDY.name in registered, name
    assert len(registered) == len(studies.REGISTRY)


@pytest.mark.parametrize("name", NAMES)
def test_settings_carry_the_study_name_and_are_distinct(name):
    st = studies.get(name)
    sets = st.settings("quick")
    assert sets
    # the study's own settings; a study in parts names each part (batch_size, batch_size_budget)
    assert all(s.study.startswith(name) for s in sets)
    assert len({s.key for s in sets}) == len(sets)
    assert len(st.groups("quick")) == len(st.parts)


@pytest.mark.parametrize("name", NAMES)
def test_cli_settings_are_the_registry_settings(name):
    keys = [s.key for s in cli.settings_for(name, "quick", noise_var=1e-2, dense=True, epochs=3, seeds=2)]
    assert keys == [s.key for s in studies.get(name).settings("quick", noise_var=1e-2, dense=True, epochs=3,
                                                              seeds=2)]


def test_noise_override_of_a_study_that_sweeps_noise_picks_that_level():
    sets = studies.get("noise").settings("quick", noise_var=1e-2)
    assert {s.noise_var for s in sets} == {1e-2}
    assert len(sets) == len(studies.NOISE_ARCHS)


def _fake_results(settings):
    return [SettingResult(s, sweep_record(len(s.seeds)), {}) for s in settings]


@pytest.mark.parametrize("st", studies.sweeps(), ids=lambda s: s.name)
def test_default_point_and_paper_failures_lie_on_the_grid(st):
    results = _fake_results(st.groups("paper")[0])
    hit = st.default_setting(results)
    assert hit is not None
    # the default point is the paper's default hyperparameters (one source: TrainConfig)
    cfg, paper = hit.setting.config, TrainConfig()
    for field in ("lr", "w_pde", "batch_size", "arch_u", "arch_D", "arch_V"):
        assert getattr(cfg, field) == getattr(paper, field), field
    for p in st.paper_failures:
        assert find(results, **p.point) is not None, p


def test_every_study_with_a_paper_figure_has_its_figure_function():
    with_figure = {s.name for s in studies.REGISTRY.values() if s.paper_figure}
    assert with_figure and set(figures.STUDY_FIGURES) == with_figure
    assert all(callable(draw) for draw in figures.STUDY_FIGURES.values())


def test_supporting_material_repeats_and_reference():
    assert [s.name for s in studies.repeated(dense=False)] == ["learning_rate", "loss_weight", "architecture",
                                                               "batch_size"]
    assert [s.name for s in studies.repeated(dense=True)][-1] == "noise"
    assert studies.reference_configuration(0.0, False) == (1e-3, False)
    assert studies.reference_configuration(1e-2, True) == (1e-2, False)


def test_a_supporting_material_page_draws_the_repeated_studies_against_their_reference():
    sparse = Page(noise_var=0.0)
    assert sparse.studies() == studies.repeated(dense=False) and not sparse.is_reference and sparse.expect_lower
    assert sparse.reference_of(studies.get("learning_rate")) == (1e-3, False)
    dense = Page(noise_var=1e-2, dense=True, study="noise, batch_size")
    assert [s.name for s in dense.studies()] == ["batch_size", "noise"]          # in the book's order
    assert dense.reference == (1e-2, False) and dense.expect_lower
    assert dense.reference_of(studies.get("noise")) == (1e-2, False)              # the sparse grid, all levels
    assert not Page(noise_var=1e-2).expect_lower
    main = Page(noise_var=1e-3, study="noise")
    assert main.is_reference and main.reference_of(studies.get("noise")) is None
    assert main.reference_of(studies.get("learning_rate")) is None
    assert Page(noise_var=0.0, compare=False).reference_of(studies.get("learning_rate")) is None
    # a study that sweeps sigma^2 is built at all its levels whatever the page's noise
    noise = studies.get("noise")
    assert main.groups(noise, 0.0, False, "quick")[0] == noise.settings("quick")
    lr = main.groups(studies.get("learning_rate"), 0.0, True, "quick")[0]
    assert {s.noise_var for s in lr} == {0.0} and all(s.dense for s in lr)
    assert Page.of({"noise_var": 0.01, "dense": True, "output_dir": None}) == Page(noise_var=0.01, dense=True)
    with pytest.raises(ValueError, match="learning_rate"):
        Page(study="nonsense").studies()


def test_unknown_study_is_refused_with_the_known_names():
    with pytest.raises(ValueError, match="learning_rate"):
        studies.get("nope")


@pytest.mark.parametrize("st", [s for s in studies.sweeps() if s.repeat_checks], ids=lambda s: s.name)
def test_repeat_checks_name_verdicts_of_the_study_summary(st, monkeypatch):
    """On the committed results: each comparison a Supporting Material repeat is checked on is
    a typed verdict of the study's summary (not a word to be parsed back)."""
    from binn_utils.store import loading, stores
    from binn_utils.analysis.verdicts import Verdict
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    scale = stores.committed_scale(st.name)
    parts = tuple(loading.load_or_run(p, scale, progress=False) for p in st.groups(scale))
    summary = st.summary(parts if len(parts) > 1 else parts[0])
    for key, label in st.repeat_checks:
        assert isinstance(summary.verdicts[key], Verdict), key
        assert label


class _Run:
    """A stored batch-size run as steps_against_errors reads it."""

    def __init__(self, B, epochs, steps_per_epoch, err, final=None):
        self.meta = {"batch_size": B}
        self.record = sweep_record(epochs_run=epochs, steps_per_epoch=steps_per_epoch)
        self._err = {None: np.array(err, float), "final": np.array(final if final is not None else err, float)}

    def metric(self, name, which=None):
        return self._err[which]


def test_batch_size_steps_against_errors_counts_medians_and_compares_intervals():
    from binn_utils.presentation import tables
    lo, hi, wide = np.linspace(0.1, 0.2, 12), np.linspace(0.5, 0.6, 12), np.linspace(0.1, 0.3, 12)
    fixed = [_Run(40, 100, 10, [0.2]), _Run(10, 100, 40, hi), _Run(160, 100, 3, lo), _Run(640, 100, 1, [0.1]),
             _Run(20, 100, 20, lo)]
    budget = [_Run(10, 50, 40, lo), _Run(40, 100, 10, [0.5]), _Run(160, 200, 3, wide, final=6 * lo),
              _Run(20, 200, 20, [np.nan])]
    rows, more_worse, decided = studies.batch_size.steps_against_errors(fixed, budget)
    assert [r["batch_size"] for r in rows] == [10, 20, 40, 160]         # ascending B; 640 has no budget run
    assert rows[0]["steps"] == [4000, 2000] and rows[0]["ratio"] == pytest.approx(0.15 / 0.55)
    assert rows[3]["ratio_final"] == pytest.approx(6.0)
    assert (more_worse, decided) == (2, 3)                              # B = 40: same steps, not counted
    # 20: a run without a finite error, counted and undecided; 160: intervals overlap
    assert [r["larger"] for r in rows] == [Verdict.AGREES, Verdict.UNDECIDED, None, Verdict.INDISTINCT]
    assert studies.batch_size.more_steps_worse(rows) is Verdict.UNDECIDED
    lines = tables.steps_table(rows).splitlines()
    assert len(lines) == 6 and lines[2].startswith(f"| 10 | 4,000 | 2,000 | {rows[0]['intervals'][0]} | ")
    assert "| larger |" in lines[2] and "| cannot be decided |" in lines[3] and "| same steps |" in lines[4]
    assert "| indistinguishable |" in lines[5]
    words = tables.steps_words(rows, more_worse, decided, "best-validation")
    assert "indistinguishable in 1; 1 cannot be decided (a run without a finite error)." in words


class _Curve(dict):
    """A stored learning-rate run as large_rate_curves reads it: its rate and validation loss."""

    def __init__(self, lr, curve):
        super().__init__(hist_val_total=np.array([curve]), curve_epochs=np.arange(1, len(curve) + 1))
        self.meta = {"lr": lr}


def test_learning_rate_large_rate_curves_are_erratic_flat_or_stalled():
    ep = np.arange(40)
    smooth = 1e-1 * 0.9 ** ep                                           # the shown rate: smooth, ends low
    jagged = 1e-2 * 10 ** (0.5 * (ep % 2))                              # rougher than the shown curve
    stuck = np.r_[np.full(5, 0.005), np.full(35, 0.5)]                   # jumps up 2 decades, then flat: stalled
    flat_low = 1e-1 * 0.9 ** ep                                          # flat (as smooth) and as low
    res = [_Curve(5e-4, smooth), _Curve(5e-2, jagged), _Curve(5e-1, stuck), _Curve(1e-2, flat_low),
           _Curve(5e-3, jagged)]                                          # below 1e-2: not a large rate
    c = studies.learning_rate.large_rate_curves(res, res[0])
    assert list(c["stats"]) == ["1e-2", "5e-2", "5e-1"]
    assert c["erratic"] == ["5e-2"] and c["flat"] == ["1e-2", "5e-1"] and c["stalled"] == ["5e-1"]
    assert c["shown"]["final"] == pytest.approx(smooth[-1])
    from binn_utils.presentation import tables
    from binn_utils.analysis.verdicts import Summary, Verdict
    words = tables.large_rate_words(c, "5e-4")
    assert words.startswith("at r = 5e-2 the loss is more erratic (rougher) than at r = 5e-4. ")
    assert ". At r = 1e-2 it is no more erratic than at r = 5e-4. " in words
    # the stalled rate: calm from step to step, yet it ends high, and the roughness is said not to see a jump
    assert (". At r = 5e-1 it moves from one recorded epoch to the next no more than at r = 5e-4. But its final "
            "value is 304 times that at r = 5e-4; the roughness counts the typical step, not a jump") in words, words
    assert words.endswith("step to step.")
    assert not prose.defects(words) and not prose.crowded(words, 3), words
    # two stalled rates ending at the same loss (the chapter's case): the factor once, with "each"
    both = tables.large_rate_words(dict(c, stats=dict(c["stats"], **{"1e-2": c["stats"]["5e-1"]}), erratic=[],
                                        flat=["1e-2", "5e-1"], stalled=["1e-2", "5e-1"]), "5e-4")
    assert both.startswith("at r = 1e-2 and 5e-1 the loss moves from one recorded epoch to the next no more than "
                           "at r = 5e-4. But at each rate its final value is 304 times that at r = 5e-4; "), both
    assert not prose.defects(both) and not prose.crowded(both, 3), both
    # two stalled rates ending apart: both factors, in the rates' order
    apart = tables.large_rate_words(dict(c, stats=dict(c["stats"], **{"1e-2": dict(c["stats"]["5e-1"], final=0.05)}),
                                         erratic=[], flat=["1e-2", "5e-1"], stalled=["1e-2", "5e-1"]), "5e-4")
    assert "But its final value is 30 and 304 times, respectively, that at r = 5e-4; " in apart, apart
    assert tables.large_rate_words(dict(c, stats={}, erratic=[], flat=[], stalled=[]), "5e-4") == \
        "no rate of 1e-2 or more was run."
    s = Summary({"smallest": "5e-7", "late_change_small": "fell by 30 %"})
    s.judge("small_still_falling", True, "is still falling", "has levelled off")
    learnt = tables.learnt_from_curves(s, c)
    assert learnt.startswith("a curve still falling at the end marks too small a rate (at r = 5e-7 it fell by 30 %")
    assert ". An erratic curve marks too large a rate (r = 5e-2). Too large a rate can also" in learnt
    assert "(r = 5e-1): a loss that ends far above" in learnt and not prose.crowded(learnt, 3)
    s.judge("small_still_falling", False)
    assert tables.learnt_from_curves(s, dict(c, erratic=[], stalled=[])) == \
        "at the smallest rate (r = 5e-7) the curve had levelled off, so too small a rate did not show in it."
    s["shown"] = "5e-4"
    s.judge("small_still_falling", Verdict.INDISTINCT)                  # overlapping intervals: no claim either way
    assert "cannot be told apart from that at r = 5e-4" in tables.learnt_from_curves(s, dict(c, erratic=[], stalled=[]))


def test_reaction_readings_have_labels_and_a_table_row_each():
    from binn_utils.presentation import tables
    from binn_utils.engine.problems import REACTIONS

    class Run(dict):
        def metric(self, name, which=None):
            return np.array([0.1, 0.2, 0.3])

        def operator_error(self, op, which=None):
            return np.array([0.5, np.nan])

    fw = studies.framework
    assert fw.REACTION_READINGS == tuple(fw.REACTION_LABELS) and set(fw.REACTION_READINGS) == set(REACTIONS)
    rows = framework_tables.reactions_table(fw.REACTION_LABELS.values(), [Run(u_clean=np.array([0.25, 1.0]))] * 3).splitlines()
    assert len(rows) == 5
    assert rows[2] == ("| $G=-1/2$ (Supporting Material) | 1.000 | 0.2 [0.15, 0.25] | 0.2 [0.15, 0.25] | "
                       "0.5 [0.5, 0.5] (1 failed) |")


def test_the_diagnostics_table_has_a_row_for_every_failure_point_of_the_registry():
    from binn_utils.presentation.diagnostic_tables import paper_failures_table
    sweeps = studies.sweeps()
    at = [(st, p, None, None, None) for st in sweeps for p in st.paper_failures]
    rows = paper_failures_table(None, at).splitlines()[2:]
    assert len(rows) == sum(len(st.paper_failures) for st in sweeps) > 0
    assert rows[0] == ("| Burgers, $r = 5\\times10^{-7}$ | under-fitting: loss still falling, large errors | not run "
                       "| not run | not run | not run | not run |")
    # the chapter shows this table, compared as claim 12 compares, not one written by hand
    text = (Path(__file__).resolve().parents[1] / "notebooks" / "diagnostics.py").read_text()
    assert "paper_failures_table(scored, at)" in text and "diagnostics.signs_against_default(" in text
    assert not re.search(r"dg_pl_\w+_flags", text)


@pytest.mark.parametrize("st", studies.sweeps(), ids=lambda s: s.name)
def test_a_sweep_names_its_paper_failures_in_words(st):
    assert all(isinstance(p, studies.PaperPoint) and p.label and p.says for p in st.paper_failures)


def test_more_steps_worse_needs_every_decided_batch_size_and_reads_as_words():
    from binn_utils.presentation import tables
    more_steps_worse = studies.batch_size.more_steps_worse
    row = lambda v: {"larger": v}  # noqa: E731
    every, overlap, none = [row(Verdict.AGREES)] * 4, [row(Verdict.AGREES), row(Verdict.INDISTINCT)], [row(None)]
    assert more_steps_worse(every) is Verdict.AGREES and more_steps_worse(none) is Verdict.UNDECIDED
    assert more_steps_worse(overlap) is Verdict.INDISTINCT
    assert more_steps_worse(every[:1] + [row(Verdict.DISAGREES)]) is Verdict.DISAGREES
    most, some, nothing = (tables.steps_words(r, *c, "best-validation") for r, c in
                           ((every, (4, 4)), (overlap, (2, 2)), (none, (0, 0))))
    assert most.startswith("Of the 4 batch sizes whose two runs took different numbers of optimiser steps, the "
                           "run with more steps has the larger median error of uₚ (best-validation networks) in 4 (a "
                           "description of the medians, not a verdict). Decided on the interval of the difference of "
                           "the two medians, its error is larger in 4, smaller in 0 and "
                           "indistinguishable in 0. More optimiser steps thus went with")
    assert some.endswith("in 2 (a description of the medians, not a verdict). Decided on the interval of the difference of the two "
                         "medians, its error is larger in 1, smaller in 0 and indistinguishable "
                         "in 1. Over-training shows at 1 of the 2 batch sizes, not at every one: the larger error "
                         "is resolved there and not elsewhere.")
    neither = tables.steps_words([row(Verdict.INDISTINCT)] * 2, 1, 2, "best-validation")
    assert neither.endswith("These runs therefore do not show more optimiser steps going with a larger error.")
    assert nothing.startswith("No batch size took different numbers of optimiser steps")
    for words in (most, some, nothing):
        assert not prose.defects(words) and words.count(":") <= 1, words


def test_framework_signal_against_noise():
    class Run(dict):
        record = sweep_record(noise_var=1e-2)                           # sigma = 0.1
    sn = studies.framework.signal_against_noise(Run(u_clean=np.array([[0.0, 0.3], [0.02, 0.05]]), t=np.array([0, 2.5])))
    assert (sn["max_start"], sn["max_end"], sn["t_end"]) == (0.3, 0.05, 2.5)
    assert sn["sigma"] == pytest.approx(0.1) and sn["below"] is True
    sn = studies.framework.signal_against_noise(Run(u_clean=np.array([[0.0, 0.3], [0.2, 0.05]]), t=np.array([0, 1])))
    assert sn["below"] is False
    from binn_utils.analysis.verdicts import Verdict
    assert [framework_tables.matches_words(v) for v in (Verdict.AGREES, Verdict.DISAGREES, Verdict.UNDECIDED)] == \
        ["matches", "does not match", "cannot be shown, with this many replicates, to match"]
    assert (framework_tables.below_or_above(True), framework_tables.below_or_above(False)) == ("below", "above")


def test_published_heat_map_mislabelled_cells_and_their_words():
    from binn_utils.presentation import tables
    cells = studies.architecture.mislabelled_published_cells()
    assert cells == [((4, 1), (4, 4)), ((4, 4), (4, 32)), ((4, 32), (4, 1))]
    assert tables.mislabelled_cells(cells[:1]) == "the cell labelled V = (4, 1) shows V = (4, 4)"
    assert tables.mislabelled_cells([]) == "none"
    assert [tables.order_words(s) for s in (-1, 0, 1, None)] == ["lower than", "the same as", "higher than", "n/a"]


@pytest.mark.parametrize("name", ["framework", "batch_size", "learning_rate"])
def test_a_chapter_loads_what_its_parameters_ask_for(name, monkeypatch):
    """settings_for_chapter (the chapters' loading and the committed-results test) follows the
    chapter's parameters, not only its scale."""
    st = studies.get(name)
    base = dict(scale="quick", noise_var=None, dense=False, epochs=None, seeds=None)
    if name == "framework":
        full = dict(base, reaction="supporting", initial="code", compare_initial=True, compare_grid=True,
                    compare_reactions=True, reaction_scale=None)
        assert len(st.settings_for_chapter(full)) == 6         # two initial conditions, two grids, three reactions
        assert [s.dense for s in st.chapter_settings(full)["other grid"][1]] == [True]
        assert len(st.settings_for_chapter(dict(full, compare_initial=False, compare_grid=False,
                                                compare_reactions=False))) == 1
        assert {s.noise_var for s in st.settings_for_chapter(dict(full, noise_var=5e-3))} == {5e-3}
    elif name == "batch_size":
        full = dict(base, batch_sizes=None, budget_steps=None)
        # fixed epochs, fixed budget, the authors' budget; its lower bracket at the batch sizes it trains
        assert len(st.settings_for_chapter(full)) == 3 * len(studies.BATCH_SIZES) + len(studies.AUTHORS_BUDGET_EPOCHS_LOW)
        assert len(st.settings_for_chapter(dict(full, batch_sizes=(10, 40)))) == 3 * 2
    else:
        full = dict(base, rates=None, shown_rate=None, output_dir=None)  # a parameter build does not take is left out
        assert len(st.settings_for_chapter(full)) == len(studies.LEARNING_RATES)
        assert [s.config.lr for s in st.settings_for_chapter(dict(full, rates=(5e-4,), noise_var=0.0))] == [5e-4]
        assert st.settings_for_chapter(dict(full, noise_var=0.0))[0].noise_var == 0.0


def test_noise_diffusivity_rule_comparison_and_budget(monkeypatch):
    from types import SimpleNamespace

    from binn_utils.analysis.verdicts import Verdict
    from synthetic import Fake
    noise = studies.noise
    u = np.linspace(0, 1, 21)
    band = (u >= 0.4) & (u <= 0.6)

    def fake(inside, outside, n=40, datasets=None):
        """``n`` replicates of a learned D (true 1/2): ``inside`` + a replicate's offset (-0.01 to
        0.01) over the band the data cover at t_end ([0.4, 0.6]), ``outside`` elsewhere."""
        D = np.stack([np.where(band, inside + d, outside) for d in np.linspace(-0.01, 0.01, n)])
        return Fake({}, {"err_u_p": [0.1] * n}, record={"u_range": (0.2, 0.9)}, datasets=datasets,
                    arrays={"u_clean": np.array([np.linspace(0.2, 0.9, 5), np.linspace(0.4, 0.6, 5)]), "u_grid": u,
                            "true_op_D": np.full(u.size, 0.5), "best_op_D": D})
    sd = np.std(np.linspace(-0.01, 0.01, 40)) / 0.5          # the band Fig. 2 draws, relative: 1.2 %
    # "centred close": the deviation's interval within +- that band agrees, wholly beyond it disagrees
    for r, centred, outside, within in [(fake(0.5, 0.8), Verdict.AGREES, Verdict.AGREES, 1.0),  # centred, worse outside
                                        (fake(0.5 * (1 + sd), 0.8), Verdict.INDISTINCT, Verdict.AGREES, None),  # at the band
                                        (fake(0.52, 0.8), Verdict.DISAGREES, Verdict.AGREES, None),  # 4 % off: 3 s.d.
                                        (fake(0.75, 0.6), Verdict.DISAGREES, Verdict.DISAGREES, 0.0),  # biased
                                        (fake(np.nan, np.nan), Verdict.UNDECIDED, Verdict.UNDECIDED, np.nan)]:
        d = noise.diffusivity_verdicts(r)
        assert (d["centred"], d["unreliable_outside"]) == (centred, outside)
        if within is not None:
            assert d["within_sd"] == pytest.approx(within, nan_ok=True)
        assert d["band"] == (pytest.approx(0.4), pytest.approx(0.6))
    assert noise.diffusivity_verdicts(fake(0.5, 0.8))["margin"] == pytest.approx(sd)
    # the band is a dataset's initialisations' (the paper's figure): one network per dataset draws none
    one_each = noise.diffusivity_verdicts(fake(0.5, 0.8, n=8, datasets=tuple(range(8))))
    assert np.isnan(one_each["margin"]) and one_each["centred"] is Verdict.UNDECIDED
    monkeypatch.setattr(noise, "CENTRED_SDS", 2.0)          # the reading, varied: twice the band
    assert noise.diffusivity_verdicts(fake(0.5 * (1 + sd), 0.8))["centred"] is Verdict.AGREES
    run = lambda errs, epochs=4000: SimpleNamespace(operator_error=lambda op: np.array(errs),  # noqa: E731
                                                     record=sweep_record(5, config={"epochs": epochs}))
    c = noise.diffusivity_against(run([0.1, 0.2, 0.3]), run([0.4, 0.4, 0.4]))
    assert c["ratio"] == pytest.approx(2.0) and c["iqr_other"] == 0.0 and c["iqr_shown"] == pytest.approx(0.1)
    assert noise_tables.diffusivity_against_words(c, "(4, 32)") == \
        "2 times that of (4, 32) (larger), with an interquartile range 0 against 0.1"
    assert noise_tables.diffusivity_against_words(noise.diffusivity_against(run([0.0]), run([0.1])), "(4, 32)") == "n/a"
    fewer = SimpleNamespace(record=sweep_record(3, config={"epochs": 4000}))
    assert noise.budget_differences([run([0.1]), run([0.1])]) == ()
    assert noise.budget_differences([run([0.1]), run([0.1], 500)]) == ("epochs",)
    assert noise.budget_differences([run([0.1]), fewer]) == ("initialisations",)
    assert noise.budget_differences([run([0.1]), fewer, run([0.1], 500)]) == ("epochs", "initialisations")
    assert noise_tables.budget_words(("initialisations",)).startswith("The networks had different numbers of "
                                                                "initialisations per dataset (")
    assert noise_tables.budget_words(("epochs",)).startswith("The networks had different numbers of epochs (")
    assert noise_tables.budget_words(("epochs", "initialisations", "datasets")).startswith(
        "The networks had different numbers of epochs, initialisations per dataset and datasets (")
    assert noise_tables.budget_words(("epochs", "datasets")).endswith("datasets (the larger one costs far more per "
                                                                     "step), so their boxes and curves are not a "
                                                                     "like-for-like comparison.")
    assert noise_tables.budget_words(()) == "Both networks had the same datasets, epochs and initialisations."
    # the like-for-like design (issue 48): the same epochs and initialisations on each dataset, (6, 128) on a
    # subset of the (4, 32) network's datasets, each network's datasets counted, not its replicates
    net = lambda arch, ds, per=10: SimpleNamespace(record=sweep_record(  # noqa: E731
        per * len(ds), config={"epochs": 4000, "arch_u": arch}, datasets=[d for d in ds for _ in range(per)]))
    small, big = net((4, 32), range(10)), net((6, 128), range(6))
    assert noise.budget_differences([small, big]) == ("datasets",)
    assert noise.shared_datasets([small, big]) == (("(4, 32)", 10), ("(6, 128)", 6), 6)
    words = noise_tables.budget_words(("datasets",), noise.shared_datasets([small, big]))
    assert words.startswith("Both networks had the same epochs and initialisations on each dataset; (6, 128) ran on "
                            "6 of the 10 datasets of (4, 32) (") and words.endswith("use only the 6 datasets they share.")
    apart = noise.shared_datasets([small, net((6, 128), range(8, 12))])
    assert apart == (("(4, 32)", 10), ("(6, 128)", 4), 2)
    assert "(4, 32) ran on 10 datasets and (6, 128) on 4, 2 of them the same" in noise_tables.budget_words(("datasets",), apart)
    assert noise.budget_differences([small, net((6, 128), range(10))]) == ()
    assert noise_tables.budget_words((), noise.shared_datasets([small])) == ""     # one network: no comparison
    assert noise.budget_differences([small, net((6, 128), range(6), per=5)]) == ("initialisations", "datasets")


def timing_benchmark(step_ms=(4.0, 4.0, 4.4, 5.0), val_s=0.01) -> dict:
    """A timing benchmark as benchmarks/batch_size_timing.py writes it."""
    rows = []
    for B, ms in zip(studies.BATCH_SIZES, step_ms):
        used = min(B, 398)
        spe = -(-398 // used)
        rows.append({"B": B, "B_used": used, "epoch_steps": spe, "ms_per_step": ms,
                     "s_per_epoch": spe * ms / 1e3 + val_s, "s_4000_epochs": 4000 * (spe * ms / 1e3 + val_s)})
    return {"machine": "x86_64", "torch": "2", "trainer": "reference", "batch_sizes": rows, "fit": {},
            "budgets_min": {"five": 5}, "printout": [], "load_average": 0.1}


def test_batch_size_timing_comes_from_the_benchmark(tmp_path):
    from binn_utils.store.records import DamagedRecordError
    t = timing_benchmark()
    assert studies.batch_size.step_time_spread(t) == pytest.approx(5.0 / 4.0)
    fit = studies.batch_size.time_fit(t)
    assert list(fit["B"]) == [10, 40, 160, 398] and list(fit["B_requested"]) == [10, 40, 160, 640]
    assert fit["a"] > 0 and fit["a_lo"] > 0 and fit["r2"] > 0.99       # 40 steps of B = 10 against 1 of 640
    epochs = studies.batch_size.budget_epochs(t, 5)
    assert epochs[10] == pytest.approx(300 / t["batch_sizes"][0]["s_per_epoch"])
    committed = studies.batch_size.timing()                             # the committed benchmark is whole
    assert {r["B"] for r in committed["batch_sizes"]} == set(studies.BATCH_SIZES)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / studies.batch_size.TIMING_FILE).write_text('{"batch_sizes": []}')
    with pytest.raises(DamagedRecordError, match="not a timing benchmark"):
        studies.batch_size.timing(tmp_path)


def test_batch_size_notes_on_its_timings():
    from binn_utils.presentation import tables
    timing = {"batch_sizes": [{"B": 10, "ms_per_step": 3.71}, {"B": 640, "ms_per_step": 3.8}]}
    table = tables.budget_table({10: 1875, 640: 75000}, timing, {5: {10: 376.2, 640: 9431.0}, 10: {10: 752.0}})
    assert table.splitlines()[0] == ("| $B$ | epochs of our fixed-step budget | time per step on the timing machine (ms) "
                                     "| epochs in the paper's five minutes there | epochs in the authors' ten minutes there |")
    assert table.splitlines()[2:] == ["| 10 | 1,875 | 3.7 | 376 | 752 |", "| 640 | 75,000 | 3.8 | 9,431 | not timed |"]
    # the authors' own timings of their ten minutes, a column where given
    mine = tables.budget_table({10: 1875, 640: 75000}, timing, {5: {10: 376.2, 640: 9431.0}}, {10: 2200, 640: 45000})
    assert mine.splitlines()[0].endswith("| epochs in the authors' ten minutes by their own timings |")
    assert mine.splitlines()[2:] == ["| 10 | 1,875 | 3.7 | 376 | 2,200 |", "| 640 | 75,000 | 3.8 | 9,431 | 45,000 |"]
    assert tables.budget_table({10: 1875}, timing, {}, {640: 45000}).splitlines()[2] == "| 10 | 1,875 | 3.7 | not run by them |"
    assert (tables.networks_words("best"), tables.networks_words("final")) == ("best-validation", "final")


def test_batch_size_bullets_read_as_sentences_with_and_without_a_clipped_batch():
    from synthetic import batch_results
    fixed, budget = batch_results(lambda B: 100 / B + 1, lambda B: [0.1, 0.2, 0.3])
    clipped = " ".join(studies.batch_size.bullets(studies.batch_size.summary((fixed, budget))))
    assert "B = 640 ran as full-batch training with B = 398." in clipped and not prose.defects(clipped), clipped
    for r in fixed:                                   # the dense grid: every batch fits the training set
        r.record = dataclasses.replace(r.record, batch_size_used=r.record.config.batch_size)
    fits = " ".join(studies.batch_size.bullets(studies.batch_size.summary((fixed, budget))))
    assert ". No batch size was larger than the training set." in fits and not prose.defects(fits), fits


def test_runs_with_the_same_best_validation_networks_are_found_and_said():
    from types import SimpleNamespace as NS
    from binn_utils.presentation import tables

    def run(epochs, best, err, seeds=(0, 1, 2), budget=False, lr=5e-4):
        setting = NS(seeds=seeds, datasets=(0, 0, 0), benchmark="diffusion", noise_var=1e-3, dense=False)
        meta = {"batch_size": 40, **({"budget_steps": 75000} if budget else {"budget_epochs": epochs})}
        return NS(setting=setting, meta=meta, arrays={"best_epoch": np.array(best)},
                  record=sweep_record(3, config={"epochs": epochs, "lr": lr, "batch_size": 40}, epochs_run=epochs),
                  metric=lambda name, which=None: np.array(err))
    same = studies.batch_size.same_best_networks
    authors = run(8100, [2965, 5862, 5037], [0.02, 0.03, 0.04])
    budget = run(7500, [2965, 5862, 5037], [0.02, 0.03, 0.04], budget=True)
    assert same(authors, [budget]) is budget
    assert same(authors, [run(7500, [2965, 5862, 5000], [0.02, 0.03, 0.04])]) is None     # another best epoch
    assert same(authors, [run(5000, [2965, 5862, 5037], [0.02, 0.03, 0.04])]) is None     # best after the end
    assert same(authors, [run(7500, [2965, 5862, 5037], [0.02, 0.03, 0.04], seeds=(3, 4, 5))]) is None
    assert same(authors, [run(7500, [2965, 5862, 5037], [0.02, 0.03, 0.04], lr=5e-3)]) is None
    assert same(authors, [run(7500, [2965, 5862, 5037], [0.02, 0.03, 0.05])]) is None     # errors differ
    assert tables.budget_row(authors, budget) == \
        "$B$ = 40 (8,100 epochs; the networks of the 7,500-epoch run, fixed budget)"
    assert tables.budget_row(authors) == "$B$ = 40 (8,100 epochs)"
    words = tables.same_networks_words([budget, None])
    assert words.startswith("1 of these 2 rows repeats the errors of a run shown above exactly. Each such pair") and \
        not prose.defects(words)
    assert tables.same_networks_words([None, None]) == ""


def test_fig1_grid_comparison_reads_the_authors_dense_run_at_the_same_noise():
    from types import SimpleNamespace
    import numpy as np
    from binn_utils.analysis import authors_archive
    from binn_utils.studies import framework

    def fake(dense, d_err):
        return SimpleNamespace(setting=SimpleNamespace(initial="code", noise_var=1e-3),
                               metric=lambda k: np.full(3, 0.1), operator_error=lambda op: np.full(3, d_err))
    rows = framework.grid_comparison({False: fake(False, 1.0), True: fake(True, 0.3)})
    d = next(r for r in rows if r["quantity"] == "$D$")
    assert np.all(d["ours"][71] == 1.0) and np.all(d["ours"][351] == 0.3)
    assert d["authors"].tolist() == authors_archive.errors("framework", "err_D", noise_var=1e-3, grid=351,
                                                             norm="l2").tolist()
    assert d["authors"].size == 1 and 0.3 < d["authors"][0] < 0.33   # the archive's 0.31912


def test_noise_levels_words_count_only_the_verdicts_that_occur():
    A, D, I = Verdict.AGREES, Verdict.DISAGREES, Verdict.INDISTINCT
    words = studies.noise.levels_words
    assert words({1: (A,), 2: (A,), 3: (I,), 4: (I,)}) == "lower at 2 and indistinguishable at 2 of the 4 noise levels"
    assert words({1: (A,), 2: (D,), 3: (I,)}) == "lower at 1, higher at 1 and indistinguishable at 1 of the 3 noise levels"
    assert words({1: (I,), 2: (I,)}) == "indistinguishable at both noise levels"
    assert words({1: (A,), 2: (A,), 3: (A,)}) == "lower at all 3 noise levels"
    assert len(prose.numbers_of(words({1: (A,), 2: (I,), 3: (I,), 4: (I,)}))) == 3
    U = Verdict.UNDECIDED   # every kind counted, so "all" is said only where one kind covers every level
    assert words({1: (A,), 2: (A,), 3: (U,)}) == "lower at 2 and cannot be decided at 1 of the 3 noise levels"
    assert words({1: (A,)}) == "lower at its one noise level" and words({}) == "no noise level compared"
