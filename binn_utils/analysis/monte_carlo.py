"""A Monte Carlo test with sequential stopping (Besag & Clifford 1991, "Sequential Monte Carlo
p-values", Biometrika 78: 301-304): the observed statistic is set among statistics of data
sets simulated under the null hypothesis, drawn one at a time, and the drawing stops as soon
as ``stop_after`` (h) of them reach the observed value (the null is then kept, and no more
are needed).

With at most ``sims`` (K) simulations and ``g`` of them reaching the observed value:

* stopped after ``l`` simulations with h reaching it: p = h / l;
* all K drawn, g < h reaching it: p = (g + 1) / (K + 1).

Both are valid p-values (their chance of falling to ``level`` or below under the null is at
most ``level``, whatever the null distribution), so a rejection at 5 % needs K >= 19: with
K = 19 and h = 1 the null is rejected only when none of the 19 simulated statistics reaches
the observed one, and the first that does ends the test.  Every draw comes from one seeded
generator: the same call gives the same answer.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["MonteCarloTest", "sequential_test", "smallest_sims"]


def smallest_sims(level: float) -> int:
    """The fewest simulations K for which a Monte Carlo test can reject at ``level``:
    (0 + 1) / (K + 1) <= level."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"the test level must lie between 0 and 1, got {level!r}")
    return int(np.ceil(1.0 / level - 1.0 - 1e-9))


@dataclass
class MonteCarloTest:
    """One sequential Monte Carlo test (:func:`sequential_test`)."""

    observed: float
    simulated: tuple = ()          # the simulated statistics, in the order drawn
    sims: int = 19                 # K: the most simulations planned
    stop_after: int = 1            # h: stop once this many reach the observed value
    seed: object = 0              # the seed of the generator (an int, or a tuple of ints)
    seconds: float = 0.0           # wall time of the simulations
    failed: int = 0                # simulated data sets whose statistic could not be computed (counted as reaching it)
    notes: dict = field(default_factory=dict)

    @property
    def reached(self) -> int:
        """How many simulated statistics reach the observed one (>=)."""
        return int(sum(1 for s in self.simulated if not s < self.observed))

    @property
    def stopped_early(self) -> bool:
        return self.reached >= self.stop_after

    @property
    def p_value(self) -> float:
        if self.stopped_early:
            return self.stop_after / len(self.simulated)
        return (self.reached + 1) / (len(self.simulated) + 1)

    def rejects(self, level: float) -> bool:
        """Whether the null hypothesis is rejected at ``level`` (p <= level)."""
        return bool(self.p_value <= level + 1e-12)


def sequential_test(observed: float, simulate: Callable[[np.random.Generator], float], *, sims: int = 19,
                    stop_after: int = 1, seed=0) -> MonteCarloTest:
    """The sequential Monte Carlo test of ``observed`` (module docstring): ``simulate(rng)``
    draws one data set under the null with the generator ``rng`` and returns its statistic (a
    statistic that is not a finite number counts as reaching the observed one: a simulation
    that fails never makes the test reject).  ``seed`` (an int or a tuple of ints) seeds the one generator of every draw."""
    if int(sims) != sims or sims < 1 or int(stop_after) != stop_after or not 1 <= stop_after <= sims:
        raise ValueError(f"need whole numbers 1 <= stop_after <= sims, got sims={sims!r}, stop_after={stop_after!r}")
    rng = np.random.default_rng(list(seed) if isinstance(seed, tuple) else seed)
    out, failed, t0 = [], 0, time.perf_counter()
    for _ in range(int(sims)):
        s = float(simulate(rng))
        if not np.isfinite(s):
            failed, s = failed + 1, float("inf")
        out.append(s)
        if sum(1 for v in out if not v < observed) >= stop_after:
            break
    return MonteCarloTest(float(observed), tuple(out), int(sims), int(stop_after), seed,
                          time.perf_counter() - t0, failed)
