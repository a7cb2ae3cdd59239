"""What a Supporting Material page says about its runs: whose time the batch-size timing is,
which verdicts the scorecard's claim 11 counts, which runs the comparison table reads, the
learning-rate sentence on the quantity its verdict compares, and the scales' definitions."""
import dataclasses

import numpy as np

from binn_utils import studies
from binn_utils.claims import spanning
from binn_utils.studies import batch_size, learning_rate
from binn_utils.studies.base import SCALES
from binn_utils.analysis.verdicts import Verdict
from binn_utils.studies.supporting import compare_configurations, expected_words, scale_table
from synthetic import Fake, batch_results, sweep, timing_of

import prose


def _on(results, **fields):
    for r in results:
        r.record = dataclasses.replace(r.record, **fields)
    return results


def test_timing_bullet_says_whose_time_the_benchmark_is():
    fixed, budget = batch_results(lambda B: 100 / B + 1, lambda B: [0.1, 0.2, 0.3])
    t = timing_of(fixed)
    assert (batch_size.TIMING_NOISE_VAR, batch_size.TIMING_DENSE) == (fixed[0].record.noise_var, False)
    said = {}
    for case, fields in (("benchmarked", {}), ("grid only", {"noise_var": 0.01}), ("other grid", {"dense": True})):
        s = batch_size.summary((_on(fixed, **fields), budget), t)
        said[case] = s["timed"], batch_size.bullets(s)[0]
        assert not prose.defects(said[case][1]) and ": ;" not in said[case][1], said[case]
    assert [v[0] for v in said.values()] == list(said)
    assert "71-point grid, $\\sigma^2$ = 1e-3" in said["benchmarked"][1]
    assert "in the timing benchmark" in said["benchmarked"][1] and ", this configuration):" in said["benchmarked"][1]
    assert "not timed" in said["grid only"][1] and "B = 10:" in said["grid only"][1]
    assert "this grid was not benchmarked" in said["other grid"][1] and "n/a" not in said["other grid"][1]


def test_claim_11_words_name_exactly_the_repeat_checks():
    st = studies.get("learning_rate")
    s = learning_rate.summary(sweep("lr", studies.LEARNING_RATES, lambda r: 0.1 + abs(np.log10(r / 5e-4))))
    words = spanning.counted_words(st, s, 0.0, True)
    assert f"counts {len(st.repeat_checks)} of these" in words
    for key, label in st.repeat_checks:
        assert f"{label} ({s.verdicts[key].value})" in words
    assert "counts none" in spanning.counted_words(st, s, 1e-3, False)         # the main text is no repeat
    noise = studies.get("noise")
    assert spanning.counts_repeat_checks(noise, 1e-3, True) and not spanning.counts_repeat_checks(noise, 0.0, False)
    assert [spanning.counts_repeat_checks(st, nv, dn) for nv, dn in ((0.0, False), (0.01, True), (1e-3, False))] \
        == [True, True, False]
    # the comparison with the 71-point grid: counted on the dense grid only
    assert "of the row learning rate." in spanning.reference_counted_words(["learning_rate"], 0.0, True)
    assert "of the rows learning rate and batch size." in spanning.reference_counted_words(
        ["learning_rate", "batch_size"], 0.0, True)
    assert "counts none" in spanning.reference_counted_words(["learning_rate"], 0.01, False)
    assert not spanning.counts_against_reference(noise, 0.01, True)             # sweeps sigma^2: its default only


def test_learning_rate_bullet_reports_the_fall_its_verdict_compares():
    ep = np.arange(1, 101)
    falling, rising = np.exp(-ep / 60.0), 1 + ep / 400.0

    def curve(r):
        return falling if r == studies.LEARNING_RATES[0] else rising
    s = learning_rate.summary(sweep("lr", studies.LEARNING_RATES, lambda r: 0.1, curve))
    line = learning_rate.bullets(s)[1]
    small, shown = s.intervals["small_still_falling"].values()
    assert str(small) in line and str(shown) in line and shown.estimate < 0 < small.estimate
    assert "negative: it rose" in line and line.endswith(f"{s['small_still_falling_with_paper']}.")
    assert not prose.defects(line), line


def test_comparison_table_names_the_runs_each_row_reads():
    fixed, budget = batch_results(lambda B: 100 / B + 1, lambda B: [0.1, 0.2, 0.3])
    ref, _ = batch_results(lambda B: 100 / B + 1, lambda B: [0.1, 0.2, 0.3])
    table, verdict = compare_configurations({"batch_size": fixed}, {"batch_size": ref}, True,
                                            {"batch_size": studies.get("batch_size")}, {"batch_size": "lite"},
                                            {"batch_size": "a note"})
    row = [line for line in table.splitlines() if line.startswith("| batch size")]
    assert len(row) == 1 and row[0].startswith("| batch size | $B$ = 40 |"), table
    assert verdict["n"] == 1 and verdict["rows"] == ["batch_size"]
    rec = fixed[0].record
    assert table.splitlines()[-1] == (f"* batch size: its fixed epochs part; scale lite: both {rec.config.epochs} "
                                      f"epochs, {rec.replicates} replicates; a note"), table


def test_the_scale_table_comes_from_the_scales():
    table = scale_table(("paper", "lite")).splitlines()
    assert table[0] == "| study | the paper's scale | our reduced scale |"
    rows = {line.split(" | ")[0][2:]: line[:-2].split(" | ")[1:] for line in table[2:]}
    assert len(rows) == len(table) - 2 and "learning rate" in rows and "batch size" in rows
    for col, name in enumerate(("paper", "lite")):
        p = SCALES[name]
        assert rows["learning rate"][col] == f"{p['epochs']} epochs, 1 dataset x {p['seeds']} initialisations"
        assert rows["batch size"][col].endswith(f"; fixed budget: {p['budget_steps']:,} steps")
        assert f"{p['big_epochs']} epochs, {p['big_datasets']} dataset" in rows["noise"][col]


def test_a_reference_read_below_the_scale_it_is_stored_at_says_so():
    from binn_utils.studies.supporting import Page
    page, arch = Page(noise_var=0.0, dense=True), studies.get("architecture")
    assert page.reference_of(arch) == (0.0, False)       # the committed 71-point repeat, stored at paper
    assert page.reference_note(arch, "lite") == ("the reference, stored at the paper scale too, is read at lite "
                                                 "like the runs here (like with like)")
    assert page.reference_note(arch, "paper") == ""


def test_the_count_of_expected_comparisons_names_only_the_others_there_are():
    A, D, I = Verdict.AGREES, Verdict.DISAGREES, Verdict.INDISTINCT
    assert expected_words([A, A, A, A]) == "all 4"
    assert expected_words([A]) == "1 of 1"
    assert expected_words([A, I, I, I]) == "1 of 4 (cannot be distinguished in 3)"
    assert expected_words([D, A, I, A]) == "2 of 4 (the other way in 1, cannot be distinguished in 1)"
    assert expected_words([D, D]) == "0 of 2 (the other way in 2)"
