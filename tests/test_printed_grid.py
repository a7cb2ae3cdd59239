"""The noise chapter's comparison of the printed Fig. 2 with our runs on each grid: its table,
figure and sentences (``presentation.authors_figures.printed_grid_*``), on synthetic nested data."""
import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd

from binn_utils.analysis.results_table import one_more_dataset
from binn_utils.analysis.verdicts import LEVEL
from binn_utils.presentation import authors_figures as af

import prose

LEVELS = (0.0, 1e-3, 5e-3, 1e-2, 5e-2)


def _rows(rng, log_centre, printed, grids=(71, 351), levels=LEVELS, datasets=5, sd=0.2):
    """The chapter's table: per grid and level, ``datasets`` dataset medians drawn around
    ``log_centre[grid] + log(level's base)`` and the printed median against them."""
    cells = [(g, nv) for g in grids for nv in levels]
    each = 1 - (1 - LEVEL) / len(cells)
    rows, medians = [], {}
    for g, nv in cells:
        m = log_centre[g] + np.log(1e-2 + nv) + sd * rng.standard_normal(datasets)
        medians.update({(g, nv, d): float(np.exp(v)) for d, v in enumerate(m)})
        ratio, lo, hi, p = one_more_dataset(m, np.log(printed[nv]), each)
        rows.append(dict(grid=g, noise_var=nv, datasets=datasets, inits=10, median_ours=float(np.exp(m.mean())),
                         printed=printed[nv], ratio=ratio, range_lo=lo, range_hi=hi, beyond=bool(p < 1 - each)))
    index = pd.MultiIndex.from_tuples(list(medians), names=["grid", "noise_var", "dataset"])
    return pd.DataFrame(rows, columns=af.PRINTED_COLUMNS), pd.Series(list(medians.values()), index=index)


def test_the_words_name_the_grid_whose_runs_give_every_printed_median():
    """Printed medians drawn as one more dataset of the 351-point runs, which are half the
    71-point ones: the sentences name the 351-point grid only, and the 71-point one as beyond."""
    rng = np.random.default_rng(0)
    printed = {nv: float(np.exp(np.log(0.5) + np.log(1e-2 + nv) + 0.2 * rng.standard_normal())) for nv in LEVELS}
    vs, _ = _rows(rng, {71: 0.0, 351: np.log(0.5)}, printed, sd=0.05)
    words = af.printed_grid_words(vs, LEVELS)
    assert vs.loc[vs["grid"] == 71, "beyond"].all() and not vs.loc[vs["grid"] == 351, "beyond"].any()
    assert "So the printed figure is consistent with our 351-point runs at every noise level." in words
    assert "It is not consistent with our 71-point runs taken together." in words
    assert "beyond what datasets and initialisations explain at none of its 5 noise levels" in words
    assert "It departs from them at 5 of the 5 noise levels (noise variances 0, 1e-3, 5e-3, 1e-2, 5e-2)." in words


def test_the_words_say_where_a_grid_departs_and_where_it_agrees():
    """One level beyond on the 71-point grid (as in the book): the finding names that level and the
    agreement at the others, from the table -- never a bare "not with our 71-point runs"."""
    rng = np.random.default_rng(0)
    printed = {nv: 1e-2 + nv for nv in LEVELS}
    vs, _ = _rows(rng, {71: 0.0, 351: 0.0}, printed, sd=0.05)
    vs["beyond"] = (vs["grid"] == 71) & (vs["noise_var"] == 0.0)
    words = af.printed_grid_words(vs, LEVELS)
    assert "The printed medians lie beyond what datasets and initialisations explain at 1 of its 5 noise levels (noise variance 0)." \
        in words
    assert words.endswith("It departs from them at 1 of the 5 noise levels (noise variance 0) and agrees with them "
                          "at the others.")
    assert not prose.defects(words)


def test_a_grid_not_run_at_every_level_is_compared_at_the_levels_run_on_both():
    rng = np.random.default_rng(1)
    printed = {nv: 0.5 * (1e-2 + nv) for nv in LEVELS}
    vs, _ = _rows(rng, {71: 0.0, 351: np.log(0.5)}, printed, sd=0.05)
    part = vs[(vs["grid"] == 71) | vs["noise_var"].isin([0.0, 5e-2])]
    words = af.printed_grid_words(part, LEVELS)
    assert "3 of the 5 levels are not run on it" in words
    assert ("So the printed figure is consistent with our 351-point runs at the 2 noise levels run on both grids "
            "(0, 5e-2).") in words
    table = af.printed_grid_table(part)
    assert table.count("not run | n/a") == 3


def test_both_grids_consistent_says_the_medians_cannot_tell_and_beyond_is_marked():
    rng = np.random.default_rng(2)
    printed = {nv: 1e-2 + nv for nv in LEVELS}
    vs, medians = _rows(rng, {71: 0.0, 351: 0.0}, printed, sd=0.1)
    assert not vs["beyond"].any()
    assert "cannot tell which grid it shows" in af.printed_grid_words(vs, LEVELS)
    vs.loc[0, "beyond"] = True
    assert af.printed_grid_table(vs).count(": beyond its range (") == 1
    fig = af.printed_grid_figure(medians, vs)
    assert len(fig.axes[0].get_legend().get_texts()) == 3


def test_nothing_stored_is_said_and_drawn_without_failing():
    empty = pd.DataFrame([], columns=af.PRINTED_COLUMNS)
    assert af.printed_grid_words(empty, LEVELS) == "No run of the printed figure's network is stored on either grid."
    fig = af.printed_grid_figure(pd.Series([], dtype=float), empty)
    assert not fig.axes[0].axison


def test_a_caption_names_only_the_failure_counters_drawn():
    from binn_utils.presentation import tables
    assert tables.failure_marks_words(pd.DataFrame({"failed": [0, 2], "diverged": [0, 1]})) == \
        "Counted beside the boxes: failed forward solves (2) at the top of the axes and diverged trainings (1) at " \
        "the bottom."
    assert "failed" not in tables.failure_marks_words(pd.DataFrame({"failed": [0], "diverged": [3]}))
    assert tables.failure_marks_words(pd.DataFrame({"failed": [0], "diverged": [0]})) == \
        "No forward solve failed and no training diverged."


def test_a_network_that_diverged_is_counted_once_not_once_per_error():
    from binn_utils.presentation import tables
    boxes = pd.DataFrame({"quantity": ["err_u_theta", "err_u_p"], "failed": [0, 1], "diverged": [2, 2]})
    assert tables.failure_marks_words(boxes.set_index("quantity")) == \
        "Counted beside the boxes: failed forward solves (1) at the top of the axes and diverged trainings (2) at " \
        "the bottom."


def test_the_printed_grid_caption_names_each_grids_datasets_and_initialisations():
    import pandas as pd
    from binn_utils.presentation.authors_figures import printed_grid_runs
    t = pd.DataFrame(dict(grid=[71, 71, 351, 351], datasets=[10, 10, 5, 4], inits=[10, 10, 10, 10]))
    assert printed_grid_runs(t) == ("Runs: 71 points, 10 datasets x 10 initialisations; "
                                    "351 points, 4 to 5 datasets x 10 initialisations.")
    assert printed_grid_runs(t.iloc[:0]) == "Runs: none stored."
