"""An estimate over replicates with its interval: the median (exact, distribution-free, from
order statistics) and the spread between initialisations (interquartile range, seeded
bootstrap), each keeping the replicates behind it -- their datasets, initialisations and
networks -- so that two of them are compared on the interval of their difference
(``contrasts``; ``verdicts`` decides).

Over several datasets the dataset is the unit: the estimate is the median of the
per-dataset medians (or interquartile ranges), and its interval comes from those
per-dataset values (:func:`over_datasets`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .contrasts import (BOOTSTRAP, LEVEL, SEED, Contrast, Sample, contrast, iqr, median_rank, spread_contrast,
                        t_quantile)


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
            if self.datasets <= 1 and self.n <= 1:
                return f"{_g(self.estimate)} [no interval from one value]"
            units = f"{self.datasets} datasets" if self.datasets > 1 else f"{self.n} replicates"
            return f"{_g(self.estimate)} [unbounded with {units}]"
        return f"{_g(self.estimate)} [{_g(self.lo)}, {_g(self.hi)}]"


def _g(v: float) -> str:
    """Three significant figures, as plain numbers from 1,000 to a million (5,870, not 5.87e+03)."""
    return f"{float(f'{v:.3g}'):,.0f}" if np.isfinite(v) and 1e3 <= abs(v) < 1e6 else f"{v:.3g}"


def _finite(values, failures_high: bool = False) -> np.ndarray:
    x = np.asarray(values, float).ravel()
    return np.sort(x[np.isfinite(x) | (failures_high & np.isposinf(x))])


def over_datasets(per_dataset, level: float = LEVEL) -> tuple[float, float, float, float]:
    """(estimate, lo, hi, coverage) of a quantity over datasets from its per-dataset values
    (medians, or interquartile ranges): the estimate is their median; with six or more
    datasets the exact order-statistic interval (``median_rank``); with two to five, where
    no order-statistic interval reaches ``level``, the Student-t interval of the per-dataset
    values (of their logarithms where all are positive) -- the t over datasets that every
    difference uses (``contrasts``) -- widened to hold the estimate."""
    x = np.sort(np.asarray(per_dataset, float))
    est = float(np.median(x))
    k, coverage = median_rank(x.size, level)
    if k:
        return est, float(x[k - 1]), float(x[x.size - k]), coverage
    if x.size < 2 or not np.isfinite(x).all():
        return est, -np.inf, np.inf, coverage
    log = bool((x > 0).all())
    y = np.log(x) if log else x
    half = t_quantile(level, y.size - 1) * float(y.std(ddof=1)) / np.sqrt(y.size)
    lo, hi = y.mean() - half, y.mean() + half
    if log:
        lo, hi = np.exp(lo), np.exp(hi)
    return est, float(min(lo, est)), float(max(hi, est)), level


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
    median of the per-dataset medians and its interval comes from them (:func:`over_datasets`;
    correlated initialisations are never counted as independent)."""
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
        est, lo, hi, coverage = over_datasets([np.median(v) for v, _ in sample.by_dataset().values()], level)
        return Interval(est, lo, hi, n, coverage, sample=sample)
    k, coverage = median_rank(x.size, level)
    est = float(np.median(x))
    if not k:
        return Interval(est, -np.inf, np.inf, n, coverage, sample=sample)
    return Interval(est, float(x[k - 1]), float(x[x.size - k]), n, coverage, sample=sample)


def spread_interval(values, level: float = LEVEL, seed: int = SEED, of=None) -> Interval:
    """The spread between initialisations: the interquartile range of the finite ``values``
    with its seeded percentile-bootstrap interval; unbounded with fewer replicates than a
    median's exact interval needs at ``level`` (a bootstrap of so few values covers far less
    than it claims).  With the replicates of several datasets (``of``: a stored setting's
    result) the spread is taken within each dataset -- the variability between
    initialisations, not between datasets -- and the estimate and interval come from the
    per-dataset spreads (:func:`over_datasets`); where each dataset ran one initialisation, the
    spread is the one between the datasets (``Sample.spread_unit``)."""
    x = _finite(values)
    n = x.size
    if not n:
        return Interval(np.nan, np.nan, np.nan, 0, np.nan, "IQR")
    sample = None
    if of is not None:
        raw = np.asarray(values, float).ravel()
        sample = Sample.of(np.where(np.isfinite(raw), raw, np.nan), **labels_of(of)).spread_unit()
    if sample is not None and sample.n_datasets > 1:
        per = [iqr(v) for v, _ in sample.by_dataset().values() if v.size >= 2]
        est, lo, hi, coverage = over_datasets(per, level) if per else (np.nan, np.nan, np.nan, np.nan)
        return Interval(est, lo, hi, n, coverage, "IQR", sample)
    spread = float(iqr(x))
    if not median_rank(n, level)[0]:     # too few replicates to bound it
        return Interval(spread, -np.inf, np.inf, n, level, "IQR", sample)
    rng = np.random.default_rng(seed)
    spreads = iqr(x[rng.integers(0, n, size=(BOOTSTRAP, n))])
    lo, hi = np.percentile(spreads, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return Interval(spread, float(lo), float(hi), n, level, "IQR", sample)


def difference(a: Interval, b: Interval) -> Contrast | None:
    """The interval of the difference of ``a`` against ``b``: of two medians
    (``contrasts.contrast``: the dataset as the unit, paired where the same networks were
    measured twice), of two spreads (``contrasts.spread_contrast``: the ratio of the spreads
    between initialisations); None where either lacks its replicates or they are not alike."""
    if a.sample is None or b.sample is None or a.what != b.what:
        return None
    return contrast(a.sample, b.sample) if a.what == "median" else spread_contrast(a.sample, b.sample)
