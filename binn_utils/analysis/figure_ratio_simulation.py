"""Simulated figures for validating :func:`results_table.figure_ratio`'s decision.

A figure of K settings is trained on S datasets of ours with R initialisations each, and on
one dataset (split) of the authors'.  On the log scale an error is
``mu_k + a + b_k + e``: ``mu_k`` the setting's level, ``a`` the dataset's effect on every setting
(which makes a figure's settings correlated within a dataset), ``b_k`` the dataset's effect on
one setting, ``e`` the initialisation's; the authors' dataset is one more draw, their errors
shifted by the true ratio.  ``tests/test_results_table.py`` checks the false-alarm rate and the
equivalence error at the margin; ``benchmarks/figure_ratio_power.py`` prints the power.
"""
from __future__ import annotations

import numpy as np

from .results_table import DIFFERS, EQUIVALENT, pooled_ratio

#: (dataset, dataset x setting, initialisation) standard deviations of the log errors: the dataset
#: part about that of the stored main-text runs (the spread of a figure's pooled error over our datasets:
#: 0.035-0.16 in Figs. 3-5, whose dataset effects correlate 0.8-0.96 across settings)
SPREADS = (0.1, 0.08, 0.4)


def simulated_units(rng, S: int, K: int, R: int, ratio: float, single: bool = False, spreads=SPREADS):
    """(units, theirs) of one simulated figure for :func:`results_table.pooled_ratio`: our
    errors are ``ratio`` times the authors' (ours / theirs); ``single``: the authors ran each
    setting once."""
    sa, sb, se = spreads
    mu = rng.normal(0.0, 1.0, K)

    def dataset(shift: float) -> np.ndarray:                    # K x R log errors
        return (mu[:, None] + shift + rng.normal(0, sa) + rng.normal(0, sb, K)[:, None]
                + rng.normal(0, se, (K, R)))

    ours = [dataset(0.0) for _ in range(S)]
    theirs = dataset(-np.log(ratio))
    if single:
        return [x.mean(axis=0) for x in ours], float(theirs[:, 0].mean())
    return [float(np.median(x, axis=1).mean()) for x in ours], float(np.median(theirs, axis=1).mean())


def rates(S: int, ratio: float, draws: int = 2000, K: int = 8, R: int = 10, single: bool = False, seed: int = 0,
          margin: float | None = None) -> dict:
    """How often each decision is taken on ``draws`` simulated figures: {"differs": ...,
    "equivalent": ...} (fractions)."""
    rng = np.random.default_rng([seed, S, int(round(1000 * ratio)), int(single)])
    verdicts = [pooled_ratio(*simulated_units(rng, S, K, R, ratio, single), margin=margin)["verdict"]
                for _ in range(draws)]
    return {"differs": verdicts.count(DIFFERS) / draws, "equivalent": verdicts.count(EQUIVALENT) / draws}
