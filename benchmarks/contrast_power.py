"""Power and error rates of the book's decision rule on synthetic nested data; prints its
figures (no assertions: ``tests/test_contrasts.py`` asserts the level and the coverage).

    python benchmarks/contrast_power.py            # 1000 simulations per cell
    python benchmarks/contrast_power.py --sims 200

Two settings measured on the same D datasets, 10 initialisations each: log-errors with a
dataset effect shared by both settings (within-dataset correlation ``icc``), a dataset x
setting interaction of s.d. 0.3 (the effect varies between datasets) and a shift of 0, 1 or
2 within-setting standard deviations.  For each cell it prints how often the rule decides
(the interval of the difference excludes 0), how often its interval covers the true mean
effect, the median smallest detectable effect, and, for comparison, how often the rule this
book used before decides: two exact 95 % intervals of the median, replicates pooled, that do
not overlap.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from binn_utils.analysis.contrasts import Sample, contrast
from binn_utils.analysis.verdicts import median_interval


def simulate(rng, D, n, icc, shift, interaction=0.3):
    mu = rng.normal(0, math.sqrt(icc), D)
    gam = rng.normal(0, interaction, D) if D > 1 else np.zeros(D)
    eps = math.sqrt(1 - icc)
    a = mu[:, None] + rng.normal(0, eps, (D, n))
    b = mu[:, None] + shift + gam[:, None] + rng.normal(0, eps, (D, n))
    ds, ss = np.repeat(np.arange(D), n), np.tile(np.arange(n), D)
    return Sample.of(np.exp(b.ravel()), ds, ss, "b"), Sample.of(np.exp(a.ravel()), ds, ss, "a")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2024)
    print(f"{'D':>3} {'icc':>4} {'shift (SD)':>10} {'decides':>8} {'covers':>7} {'detectable':>11} "
          f"{'old rule decides':>17}")
    for D in (1, 5, 10):
        for icc in (0.0, 0.6, 0.9):
            for shift in (0.0, 1.0, 2.0):
                dec = cov = old = 0
                det = []
                for _ in range(args.sims):
                    b, a = simulate(rng, D, 10, icc, shift)
                    c = contrast(b, a)
                    dec += c.sign != 0
                    cov += c.lo <= shift <= c.hi
                    det.append(c.detectable)
                    ib, ia = median_interval(b.array), median_interval(a.array)
                    old += ib.hi < ia.lo or ib.lo > ia.hi
                s = args.sims
                print(f"{D:>3} {icc:>4.1f} {shift:>10.1f} {dec / s:>8.1%} {cov / s:>7.1%} "
                      f"{np.median(det):>11.2f} {old / s:>17.1%}")


if __name__ == "__main__":
    main()
