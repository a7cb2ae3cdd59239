"""The difference between two sets of replicates, with the dataset as the unit.

A setting's replicates are nested: datasets (a split and a noise draw), and initialisations
of the networks within each dataset.  Initialisations on one dataset are correlated (they
share its split and its noise), so pooling them as independent replicates overstates what
they know.  A comparison is therefore made in two steps:

1. **Within each dataset** the effect of going from ``b`` to ``a``: on the log scale where
   every value is positive (a ratio), else as a difference.  For the same networks measured
   twice (``u_p`` against ``u_theta`` of the same runs: the same source and the same
   replicates), the median of the per-network differences (the Hodges--Lehmann estimate of
   the paired differences, from their Walsh averages); otherwise the Hodges--Lehmann shift
   between the two groups (the median of all differences ``a_i - b_j``).
2. **Across datasets**: with two or more datasets that both sets share, the per-dataset
   effects are paired by dataset; the estimate is their mean and its interval the
   Student-t interval with ``D - 1`` degrees of freedom.  Its unit is the dataset, whatever
   the correlation of the initialisations within one.  Where a per-dataset effect is
   infinite (most replicates failed), the distribution-free sign interval over datasets
   (order statistics of the effects, exact coverage from the binomial) replaces the t
   interval.

With **one dataset** (the paper's design for Figs. 1 and 3-6) the interval comes from the
initialisations alone: the exact distribution-free interval of the Hodges--Lehmann estimate
(Mann--Whitney for two groups, Wilcoxon signed-rank for paired networks), computed from the
exact null distribution of the rank statistic.  It speaks of that dataset only, and every
verdict decided on one says so (:attr:`Contrast.datasets`).

A comparison is decided on this interval of the difference: it excludes no difference
(0 on the log scale, ratio 1) one way or the other, or it does not.  Where it does not, the
**smallest detectable effect** says what the design could have seen: the effect that a
test at the same level finds with probability ``POWER`` (80 %) at the observed spread,
``(q_{1-alpha/2} + q_{POWER}) * SE`` with ``SE`` the half-width over ``q_{1-alpha/2}``
(t quantiles over datasets, normal ones within a dataset), so "equal within x" and "too few
runs" read differently.  Every contrast also carries its two-sided p-value (t test over
datasets, or the exact rank test), which :func:`holm` uses to control the error rate of a
claim's family of sub-claims.

``tests/test_contrasts.py`` checks the coverage and the error rates of these rules on
synthetic nested data (datasets x initialisations, within-dataset correlation 0 to 0.9);
``benchmarks/contrast_power.py`` prints their power.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

#: Confidence level of every interval of a difference (and 1 - the error rate of a decision).
LEVEL = 0.95
#: Power at which the smallest detectable effect is given.
POWER = 0.80
#: Bootstrap resamples of a spread's interval, and their seed (every random draw is seeded).
BOOTSTRAP = 4000
SEED = 2024


@dataclass(frozen=True)
class Sample:
    """Per-replicate values with the dataset and the initialisation (seed) of each replicate,
    and the networks they were measured on (``source``: e.g. a setting's key; None when
    unknown).  NaN values (undefined: a failed forward solve) are left out; +inf (a failure
    counted as the worst) stays in."""

    values: tuple
    datasets: tuple
    seeds: tuple
    source: object = None

    @classmethod
    def of(cls, values, datasets=None, seeds=None, source=None) -> "Sample":
        x = np.asarray(values, float).ravel()
        d = np.zeros(x.size, int) if datasets is None else np.asarray(datasets).ravel()
        s = np.arange(x.size) if seeds is None else np.asarray(seeds).ravel()
        if d.size != x.size or s.size != x.size:
            raise ValueError(f"{x.size} values but {d.size} dataset and {s.size} seed labels")
        keep = ~np.isnan(x)
        return cls(tuple(x[keep]), tuple(d[keep].tolist()), tuple(s[keep].tolist()), source)

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.values, float)

    @property
    def n_datasets(self) -> int:
        return len(set(self.datasets))

    def spread_unit(self) -> "Sample":
        """The sample a spread between initialisations is taken on: itself; but where every
        dataset ran one initialisation, one pool of independent replicates (each named by its
        dataset), whose spread is the only one there is."""
        if len(set(self.datasets)) == len(self.datasets) > 1:
            return Sample(self.values, (0,) * len(self.values), self.datasets, self.source)
        return self

    def by_dataset(self) -> dict:
        """dataset -> (values, seeds) in seed order."""
        out = {}
        for d in sorted(set(self.datasets)):
            idx = [i for i, k in enumerate(self.datasets) if k == d]
            idx.sort(key=lambda i: self.seeds[i])
            out[d] = (np.asarray([self.values[i] for i in idx], float), tuple(self.seeds[i] for i in idx))
        return out


@dataclass(frozen=True)
class Contrast:
    """The difference between two samples (``a`` relative to ``b``): ``estimate`` with its
    interval ``[lo, hi]`` at ``level``, on the scale ``scale`` ("log": ``exp`` of the numbers
    is the ratio a / b; "difference": a - b), its two-sided ``p`` value, the smallest effect
    the design would have detected (``detectable``, on the same scale, >= 0), how it was
    made (``method``), on how many ``datasets`` and initialisations per dataset (``inits``),
    whether the replicates were ``paired`` (the same networks), and with several datasets how
    many of them alone would have given another decision (``single_differ``)."""

    estimate: float
    lo: float
    hi: float
    p: float
    detectable: float
    scale: str
    method: str
    datasets: int
    inits: int
    paired: bool
    level: float = LEVEL
    single_differ: int | None = None

    @property
    def sign(self) -> int:
        """-1: ``a`` lower than ``b`` (the interval below 0), +1: higher, 0: not resolved."""
        if self.hi < 0:
            return -1
        if self.lo > 0:
            return 1
        return 0

    def as_ratio(self, v: float) -> float:
        return float(np.exp(v)) if self.scale == "log" else float(v)

    @property
    def ratio(self) -> tuple[float, float, float]:
        """(estimate, lo, hi) as ratios a / b ("log") or differences."""
        return self.as_ratio(self.estimate), self.as_ratio(self.lo), self.as_ratio(self.hi)

    @property
    def detectable_ratio(self) -> float:
        """The smallest detectable effect as a factor (>= 1) or a difference (>= 0)."""
        return self.as_ratio(self.detectable)


def _stats():
    """scipy.stats, imported on first use (``binn --help`` and ``binn status`` load no scipy)."""
    from scipy import stats
    return stats


def t_quantile(level: float, df: int) -> float:
    """The Student-t quantile of a two-sided interval at ``level`` with ``df`` degrees of freedom."""
    return float(_stats().t.ppf((1 + level) / 2, df))


# ----------------------------------------------------------------------------- rank intervals
@lru_cache(maxsize=None)
def _mann_whitney_null(m: int, n: int) -> np.ndarray:
    """P(U = u), u = 0 .. m n, of the Mann--Whitney statistic under no difference (exact)."""
    # f[i][j][u]: number of arrangements; built over i, j with the classic recursion
    prev = [np.ones(1)] + [None] * n          # i = 0: U = 0 for every j
    for j in range(1, n + 1):
        prev[j] = np.ones(1)
    for i in range(1, m + 1):
        cur = [np.ones(1)]                   # j = 0
        for j in range(1, n + 1):
            a, b = cur[j - 1], prev[j]       # last element from the second group / the first
            out = np.zeros(i * j + 1)
            out[:a.size] += a
            out[j:j + b.size] += b
            cur.append(out)
        prev = cur
    counts = prev[n]
    return counts / counts.sum()


@lru_cache(maxsize=None)
def _signed_rank_null(n: int) -> np.ndarray:
    """P(W+ = w), w = 0 .. n(n+1)/2, of the Wilcoxon signed-rank statistic (exact)."""
    f = np.ones(1)
    for k in range(1, n + 1):
        g = np.zeros(f.size + k)
        g[:f.size] += f
        g[k:k + f.size] += f
        f = g
    return f / f.sum()


def _rank_index(null: np.ndarray, level: float) -> int:
    """The largest k with P(T <= k - 1) <= (1 - level) / 2 (0 if none): the interval is then
    [d_(k), d_(N + 1 - k)] of the N sorted differences (or Walsh averages)."""
    cdf = np.cumsum(null)
    alpha2 = (1 - level) / 2
    ok = np.nonzero(cdf <= alpha2 + 1e-12)[0]
    return int(ok[-1]) + 1 if ok.size else 0


@lru_cache(maxsize=None)
def _binomial_half(n: int) -> np.ndarray:
    """P(Bin(n, 1/2) = k), k = 0 .. n (exact, without scipy)."""
    return np.asarray([math.comb(n, k) for k in range(n + 1)], float) * 0.5 ** n


def median_rank(n: int, level: float = LEVEL) -> tuple[int, float]:
    """(k, coverage) of the narrowest order-statistic interval ``[x_(k), x_(n+1-k)]`` for the
    median of ``n`` values whose exact coverage ``1 - 2 P(Bin(n, 1/2) <= k - 1)`` is at least
    ``level`` (the sign interval); (0, coverage of [min, max]) where even that falls short."""
    if not n:
        return 0, 0.0
    pmf = _binomial_half(n)
    k = _rank_index(pmf, level)
    return (k, 1.0 - 2.0 * float(pmf[:k].sum())) if k else (0, 1.0 - 2 * 0.5 ** n)


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - b with inf - inf read as no difference (two failures)."""
    with np.errstate(invalid="ignore"):
        d = a - b
    return np.where(np.isnan(d), 0.0, d)


def _two_sided_p(null: np.ndarray, diffs: np.ndarray) -> float:
    """Two-sided exact p of no difference, from the sorted differences (or Walsh averages)
    ``diffs``: ``2 P(T <= min(#d <= 0, #d >= 0))`` under the null -- without ties the exact
    Mann--Whitney or signed-rank p (``#d > 0`` is the statistic), with ties the p that agrees
    with the interval (p <= 1 - level exactly when the interval excludes 0)."""
    m = int(min((diffs <= 0).sum(), (diffs >= 0).sum()))
    return float(min(1.0, 2 * null[:m + 1].sum()))


def rank_contrast(a: np.ndarray, b: np.ndarray, paired: bool, level: float = LEVEL):
    """(estimate, lo, hi, p) of the Hodges--Lehmann location difference of ``a`` against
    ``b`` within one dataset: paired (the Walsh averages of ``a - b``) or two groups (all
    differences ``a_i - b_j``), with the exact distribution-free interval (unbounded when the
    replicates are too few for ``level``)."""
    if paired:
        d = _diff(a, b)
        n = d.size
        i, j = np.triu_indices(n)
        with np.errstate(invalid="ignore"):
            walsh = np.sort(np.where(np.isnan(d[i] + d[j]), 0.0, (d[i] + d[j]) / 2))
        null = _signed_rank_null(n)
        diffs = walsh
    else:
        diffs = np.sort(_diff(a[:, None], b[None, :]).ravel())
        null = _mann_whitney_null(a.size, b.size)
    k = _rank_index(null, level)
    est = float(np.median(diffs))
    p = _two_sided_p(null, diffs)
    if not k:
        return est, -np.inf, np.inf, p
    return est, float(diffs[k - 1]), float(diffs[diffs.size - k]), p


# ----------------------------------------------------------------------------- contrasts
def _scale(*arrays: np.ndarray) -> str:
    """"log" (ratios) where every value compared is positive, else "difference"."""
    x = np.concatenate(arrays)
    return "log" if x.size and (x > 0).all() else "difference"


def _transform(x: np.ndarray, scale: str) -> np.ndarray:
    return np.log(x) if scale == "log" else x


def _detectable(half_width: float, level: float, df: int | None) -> float:
    if not np.isfinite(half_width):
        return np.inf
    stats = _stats()
    q = stats.t if df else stats.norm
    args = (df,) if df else ()
    za, zb = q.ppf((1 + level) / 2, *args), q.ppf(POWER, *args)
    return float(half_width / za * (za + zb))


def detectable_at(sigma: float, datasets: int, level: float = LEVEL, power: float = POWER) -> float:
    """The design's smallest detectable effect: the difference a two-sided t test over
    ``datasets`` datasets (``datasets - 1`` degrees of freedom) resolves ``power`` of the time
    when the per-dataset effects have standard deviation ``sigma`` (the noncentral t: the
    noncentrality ``lam`` with ``P(|T'| > t) = power``, times ``sigma / sqrt(datasets)``)."""
    if datasets < 2 or not np.isfinite(sigma):
        return np.inf
    from scipy.optimize import brentq
    stats, df = _stats(), datasets - 1
    q = stats.t.ppf((1 + level) / 2, df)
    def short(x):                    # power at noncentrality x, less the target (scipy's nct is NaN far out: 1)
        p = stats.nct.sf(q, df, x) + stats.nct.cdf(-q, df, x)
        return (p if np.isfinite(p) else 1.0) - power
    lam = brentq(short, 0.0, 40.0)
    return float(lam * sigma / math.sqrt(datasets))


def effect_sd(c: "Contrast") -> float | None:
    """The standard deviation of the per-dataset effects behind a contrast decided by the t
    interval over datasets (from its interval: ``(hi - lo) / 2 / t * sqrt(D)``); None otherwise."""
    if c is None or c.method != "t interval over datasets" or c.datasets < 2 or not np.isfinite(c.hi - c.lo):
        return None
    return float((c.hi - c.lo) / 2 / t_quantile(c.level, c.datasets - 1) * math.sqrt(c.datasets))


def pooled_effect_sd(contrasts) -> float | None:
    """The per-dataset effects' standard deviation pooled over several contrasts of one design
    (each on the same scale, decided over datasets; weighted by their degrees of freedom): the
    variance component a single comparison of three datasets estimates badly; None without any."""
    parts = [(c.datasets - 1, s) for c in contrasts if (s := effect_sd(c)) is not None]
    dof = sum(d for d, _ in parts)
    return float(math.sqrt(sum(d * s * s for d, s in parts) / dof)) if dof else None


def same_networks(a: Sample, b: Sample) -> bool:
    """Whether ``a`` and ``b`` were measured on the same networks (the same source and shared
    replicates), so that their replicates pair one to one on the replicates both have (a value
    missing on one side, e.g. a failed forward solve, drops that pair only)."""
    return (a.source is not None and a.source == b.source
            and bool(set(zip(a.datasets, a.seeds)) & set(zip(b.datasets, b.seeds))))


def contrast(a: Sample, b: Sample, level: float = LEVEL) -> Contrast | None:
    """The difference of ``a`` against ``b`` (module docstring); None where either has no
    replicate or they share no dataset."""
    if not a.values or not b.values:
        return None
    paired = same_networks(a, b)
    ga, gb = a.by_dataset(), b.by_dataset()
    common = sorted(d for d in set(ga) & set(gb) if not paired or set(ga[d][1]) & set(gb[d][1]))
    if not common:
        return None
    scale = _scale(*(g[d][0] for g in (ga, gb) for d in common))
    within = []
    for d in common:
        (xa, sa), (xb, sb) = ga[d], gb[d]
        if paired:     # the replicates both have, in the same order
            keep_a = [i for i, s in enumerate(sa) if s in sb]
            xa, xb = xa[keep_a], xb[[sb.index(sa[i]) for i in keep_a]]
        within.append(rank_contrast(_transform(xa, scale), _transform(xb, scale), paired, level))
    inits = int(round(np.median([len(set(ga[d][1]) & set(gb[d][1])) if paired else min(ga[d][0].size, gb[d][0].size)
                                 for d in common])))
    D = len(common)
    if D == 1:
        e, lo, hi, p = within[0]
        method = "Wilcoxon signed-rank interval" if paired else "Mann-Whitney (Hodges-Lehmann) interval"
        return Contrast(e, lo, hi, p, _detectable((hi - lo) / 2, level, None), scale,
                        method + ", one dataset", 1, inits, paired, level)
    return _across_datasets([w[0] for w in within], [w[1:3] for w in within], scale, inits, paired, level)


def _across_datasets(per, per_intervals, scale: str, inits: int, paired: bool, level: float) -> Contrast:
    """The contrast over ``D >= 2`` datasets from the per-dataset effects ``per`` (and their
    intervals, to count the datasets that alone would have decided otherwise): the Student-t
    interval of their mean, paired by dataset; the sign interval where one is infinite."""
    D = len(per)
    per_sign = [-1 if hi < 0 else (1 if lo > 0 else 0) for lo, hi in per_intervals]
    e = np.asarray(per, float)
    stats = _stats()
    if np.isfinite(e).all():
        m, sd = float(e.mean()), float(e.std(ddof=1))
        se = sd / math.sqrt(D)
        tq = t_quantile(level, D - 1)
        lo, hi = m - tq * se, m + tq * se
        p = float(2 * stats.t.sf(abs(m) / se, D - 1)) if se > 0 else (0.0 if m != 0 else 1.0)
        method = "t interval over datasets"
        det = _detectable(tq * se, level, D - 1)
    else:
        srt = np.sort(e)
        k, _ = median_rank(D, level)
        m = float(np.median(srt))
        lo, hi = (float(srt[k - 1]), float(srt[D - k])) if k else (-np.inf, np.inf)
        pos, neg = int((e > 0).sum()), int((e < 0).sum())
        p = float(min(1.0, 2 * stats.binom.cdf(min(pos, neg), pos + neg, 0.5))) if pos + neg else 1.0
        method = "sign interval over datasets"
        det = np.inf
    whole = -1 if hi < 0 else (1 if lo > 0 else 0)
    return Contrast(m, lo, hi, p, det, scale, method, D, inits, paired, level,
                    single_differ=int(sum(s != whole for s in per_sign)))


# ----------------------------------------------------------------------------- spreads
def iqr(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """The interquartile range (numpy's linear percentiles) along ``axis``."""
    q25, q75 = np.percentile(x, [25, 75], axis=axis)
    return q75 - q25


def _log_spread(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """log IQR, a zero spread counted as the smallest positive one (finite, far below any other)."""
    return np.log(np.maximum(iqr(x, axis), np.finfo(float).tiny))


def spread_within(a: np.ndarray, b: np.ndarray, paired: bool, level: float = LEVEL, seed: int = SEED,
                  resamples: int = BOOTSTRAP) -> tuple[float, float, float, float]:
    """(estimate, lo, hi, p) of log(IQR(a) / IQR(b)) on one dataset: the seeded percentile
    bootstrap of the initialisations (the same networks resampled together where ``paired``),
    with the p-value that agrees with the interval (twice the share of resamples on the other
    side of no difference).  Its error rate stays at or below the level on 10 to 50
    initialisations a side (``tests/test_contrasts.py``): it is conservative, and its
    smallest detectable ratio says so."""
    est = float(_log_spread(a) - _log_spread(b))
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, a.size, (resamples, a.size))
    ib = ia if paired else rng.integers(0, b.size, (resamples, b.size))
    draws = _log_spread(a[ia]) - _log_spread(b[ib])
    lo, hi = np.percentile(draws, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    p = float(min(1.0, 2 * min((draws <= 0).mean(), (draws >= 0).mean())))
    return est, float(lo), float(hi), p


def spread_contrast(a: Sample, b: Sample, level: float = LEVEL) -> Contrast | None:
    """The ratio of the spreads between initialisations (the interquartile range within a
    dataset) of ``a`` against ``b``, on the log scale: within each dataset by
    :func:`spread_within`; over two or more datasets both have, the t interval of the
    per-dataset log ratios, paired by dataset (as :func:`contrast`).  Only finite values
    count; None where a dataset both share lacks two finite values a side."""
    if not a.values or not b.values:
        return None
    paired = same_networks(a, b)
    a, b = a.spread_unit(), b.spread_unit()
    ga, gb = a.by_dataset(), b.by_dataset()
    common = sorted(set(ga) & set(gb))
    within, sizes = [], []
    for i, d in enumerate(common):
        (xa, sa), (xb, sb) = ga[d], gb[d]
        if paired:
            keep_a = [j for j, s in enumerate(sa) if s in sb]
            xa, xb = xa[keep_a], xb[[sb.index(sa[j]) for j in keep_a]]
            ok = np.isfinite(xa) & np.isfinite(xb)
            xa, xb = xa[ok], xb[ok]
        else:
            xa, xb = xa[np.isfinite(xa)], xb[np.isfinite(xb)]
        if min(xa.size, xb.size) < 2:
            continue
        within.append(spread_within(xa, xb, paired, level, seed=SEED + i))
        sizes.append(min(xa.size, xb.size))
    if not within:
        return None
    inits = int(round(np.median(sizes)))
    if len(within) == 1:
        e, lo, hi, p = within[0]
        return Contrast(e, lo, hi, p, _detectable((hi - lo) / 2, level, None), "log",
                        "bootstrap interval of the ratio of spreads, one dataset", 1, inits, paired, level)
    return _across_datasets([w[0] for w in within], [w[1:3] for w in within], "log", inits, paired, level)


def holm(pvalues: Sequence[float], alpha: float = 1 - LEVEL) -> list[bool]:
    """Holm's step-down procedure: which of the hypotheses with these p-values are rejected at
    family-wise error rate ``alpha`` (NaN: not a hypothesis, never rejected)."""
    p = np.asarray(pvalues, float)
    valid = np.nonzero(~np.isnan(p))[0]
    order_ = valid[np.argsort(p[valid], kind="stable")]
    m = order_.size
    out = [False] * p.size
    for rank, i in enumerate(order_):
        if p[i] > alpha / (m - rank):
            break
        out[i] = True
    return out
