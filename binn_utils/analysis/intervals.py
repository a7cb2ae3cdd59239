"""An estimate over replicates with its interval: the median (exact, distribution-free, from
order statistics) and the spread (interquartile range, seeded bootstrap), each keeping the
replicates behind it -- their datasets, initialisations and networks -- so that two of them
are compared on the interval of their difference (``contrasts``; ``verdicts`` decides)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .contrasts import LEVEL, Contrast, Sample, contrast

#: Bootstrap resamples of a spread's interval, and their seed (every random draw is seeded).
BOOTSTRAP = 4000
SEED = 2024


@dataclass(frozen=True)
class Interval:
    """An estimate over replicates with its interval: ``what`` ("median" or "IQR"), the
    number ``n`` of replicates it counts (the finite ones; with ``median_interval(...,
    failures_high=True)`` failed ones too, as +inf) and the interval's coverage (exact for a
    median, nominal for a bootstrap).  Unbounded (``lo = -inf``, ``hi = inf``) where ``n`` is
    too small for the level; NaN throughout where no replicate counts."""

    estimate: float
    lo: float
    hi: float
    n: int
    coverage: float
    what: str = "median"
    #: the replicates behind it, with their datasets and networks (a comparison of two
    #: intervals that both have one is decided on the interval of their difference)
    sample: Sample | None = field(default=None, compare=False, repr=False)

    @property
    def datasets(self) -> int:
        """The datasets its replicates come from (1 where unknown)."""
        return self.sample.n_datasets if self.sample is not None else 1

    @property
    def finite(self) -> bool:
        return bool(np.isfinite(self.estimate))

    @property
    def bounded(self) -> bool:
        return bool(np.isfinite([self.lo, self.hi]).all())

    def __str__(self) -> str:
        if np.isnan(self.estimate):
            return "n/a (no finite replicate)"
        if np.isneginf(self.lo) and np.isposinf(self.hi):
            units = f"{self.datasets} datasets" if self.datasets > 1 else f"{self.n} replicates"
            return f"{self.estimate:.3g} [unbounded with {units}]"
        return f"{self.estimate:.3g} [{self.lo:.3g}, {self.hi:.3g}]"


def _finite(values, failures_high: bool = False) -> np.ndarray:
    x = np.asarray(values, float).ravel()
    return np.sort(x[np.isfinite(x) | (failures_high & np.isposinf(x))])


def median_rank(n: int, level: float = LEVEL) -> tuple[int, float]:
    """(k, coverage) of the narrowest order-statistic interval ``[x_(k), x_(n+1-k)]`` for the
    median of ``n`` replicates whose exact coverage ``1 - 2 P(Bin(n, 1/2) <= k - 1)`` is at
    least ``level``; (0, coverage of [min, max]) where even that falls short."""
    best = (0, 1.0 - 2 * 0.5 ** n if n else 0.0)
    cdf = 0.0
    for k in range(1, n // 2 + 1):
        cdf += math.comb(n, k - 1) * 0.5 ** n          # P(Bin(n, 1/2) <= k - 1)
        coverage = 1.0 - 2.0 * cdf
        if coverage < level:
            break
        best = (k, coverage)
    return best


def labels_of(result) -> dict:
    """The datasets, initialisations and networks of a stored setting's replicates, as
    :func:`median_interval` takes them (``of=``)."""
    st = getattr(result, "setting", None)
    if st is None:      # no labels: one dataset's initialisations, of these networks
        return dict(datasets=None, seeds=None, source=id(result))
    return dict(datasets=st.datasets, seeds=getattr(st, "seeds", None), source=getattr(st, "key", id(result)))


def median_interval(values, level: float = LEVEL, failures_high: bool = False, of=None,
                    datasets=None, seeds=None, source=None) -> Interval:
    """The median of the finite ``values`` with its exact distribution-free interval
    (``failures_high``: +inf values, failed replicates, count too, above every finite one).

    The replicates' datasets and networks come from ``of`` (a stored setting's result) or
    ``datasets``, ``seeds`` and ``source``; without them the replicates are one dataset's
    initialisations.  With several datasets the dataset is the unit: the estimate is the
    median of the per-dataset medians and its interval the order-statistic interval over
    datasets (correlated initialisations are never counted as independent)."""
    if of is not None:
        lab = labels_of(of)
        datasets, seeds, source = lab["datasets"], lab["seeds"], lab["source"]
    raw = np.asarray(values, float).ravel()
    keep = np.isfinite(raw) | (failures_high & np.isposinf(raw))
    x = np.sort(raw[keep])
    n = x.size
    if not n:
        return Interval(np.nan, np.nan, np.nan, 0, np.nan)
    masked = np.where(keep, raw, np.nan)
    sample = Sample.of(masked, datasets, seeds, source)
    if sample.n_datasets > 1:
        x = np.sort([np.median(v) for v, _ in sample.by_dataset().values()])
    k, coverage = median_rank(x.size, level)
    est = float(np.median(x))
    if not k:
        return Interval(est, -np.inf, np.inf, n, coverage, sample=sample)
    return Interval(est, float(x[k - 1]), float(x[x.size - k]), n, coverage, sample=sample)


def spread_interval(values, level: float = LEVEL, seed: int = SEED, of=None) -> Interval:
    """The interquartile range of the finite ``values`` with its seeded percentile-bootstrap
    interval; unbounded with fewer replicates than a median's exact interval needs at
    ``level`` (a bootstrap of so few values covers far less than it claims).  With the
    replicates of several datasets (``of``: a stored setting's result) the bootstrap is
    two-level: datasets with replacement, then initialisations within each."""
    x = _finite(values)
    n = x.size
    if not n:
        return Interval(np.nan, np.nan, np.nan, 0, np.nan, "IQR")
    q25, q75 = np.percentile(x, [25, 75])
    sample = None
    if of is not None:
        raw = np.asarray(values, float).ravel()
        sample = Sample.of(np.where(np.isfinite(raw), raw, np.nan), **labels_of(of))
    units = sample.n_datasets if sample is not None and sample.n_datasets > 1 else n
    if not median_rank(units, level)[0]:     # too few replicates, or datasets, to bound it
        return Interval(float(q75 - q25), -np.inf, np.inf, n, level, "IQR", sample)
    rng = np.random.default_rng(seed)
    if sample is not None and sample.n_datasets > 1:
        groups = [v for v, _ in sample.by_dataset().values()]
        spreads = np.empty(BOOTSTRAP)
        for i in range(BOOTSTRAP):
            both = np.concatenate([groups[j][rng.integers(0, groups[j].size, groups[j].size)]
                                   for j in rng.integers(0, len(groups), len(groups))])
            spreads[i] = np.subtract(*np.percentile(both, [75, 25]))
    else:
        draws = x[rng.integers(0, n, size=(BOOTSTRAP, n))]
        q = np.percentile(draws, [25, 75], axis=1)
        spreads = q[1] - q[0]
    lo, hi = np.percentile(spreads, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return Interval(float(q75 - q25), float(lo), float(hi), n, level, "IQR", sample)


def difference(a: Interval, b: Interval) -> Contrast | None:
    """The interval of the difference of ``a`` against ``b`` (``contrasts.contrast``: the
    dataset as the unit, paired where the same networks were measured twice); None where
    either lacks its replicates."""
    if a.sample is None or b.sample is None or a.what != "median" or b.what != "median":
        return None
    return contrast(a.sample, b.sample)
