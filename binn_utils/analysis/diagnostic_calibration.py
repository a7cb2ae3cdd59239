"""The ground-truth-free diagnostics (``diagnostics``) against a known ground truth: the
failure rule, which settings are hits, misses and false alarms, and thresholds calibrated on
one part of a seeded, stratified split and counted on the other.

:func:`flag_matrix` gives each diagnostic's flags under candidate thresholds
(:data:`~binn_utils.analysis.diagnostic_thresholds.CANDIDATES`), :func:`choose_thresholds`
picks a combination on one part of a set of settings whose ground truth is known
(:func:`split_parts`) and :func:`count_flags` counts caught failures and false alarms on the
other part.  :func:`ground_truth_failures` applies the failure rule, :func:`score` sets each
setting's flags against it (:class:`Scored`: hits, misses, false alarms, which diagnostic
does the work) and :meth:`Scored.calibrate` chooses and counts thresholds on a seeded split.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..engine.metrics import median_iqr
from ..store.sweep_record import reported
from .diagnostic_thresholds import CANDIDATES, thresholds
from .diagnostics import DiagnosticTable, diagnose, diagnose_many
from .reporting import find, rank_trend


def flag_matrix(objs, candidates=None, which: str | None = None, diagnose_fn=None) -> dict:
    """{diagnostic: (n_candidates, n_settings) bool}: the flag each diagnostic raises on
    each of ``objs`` (as for ``diagnostics.diagnose_many``; or ``diagnose_fn(obj, thresholds)``,
    e.g. keyword arguments of ``diagnostics.diagnose_arrays``) under each of its
    ``candidates`` (default :data:`CANDIDATES`, each a :func:`thresholds` call's arguments).  Diagnostics depend only on their own thresholds, so any
    combination of candidates is the OR of these rows."""
    candidates = CANDIDATES if candidates is None else candidates
    if diagnose_fn is None:
        def diagnose_fn(o, thr):
            return diagnose(o, which=which, label="", thresholds=thr)
    objs = list(objs)
    out = {}
    for name, cands in candidates.items():
        rows = []
        for c in cands:
            thr = thresholds(**c)
            rows.append([bool(diagnose_fn(o, thr)[name].flag) for o in objs])
        out[name] = np.array(rows, dtype=bool).reshape(len(cands), len(objs))
    return out


@dataclass
class Counts:
    """Flags against a ground truth: caught / failures and false alarms / fine settings."""

    caught: int
    failures: int
    false_alarms: int
    fine: int

    @property
    def caught_rate(self) -> float:
        return self.caught / self.failures if self.failures else float("nan")

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.fine if self.fine else float("nan")

    def meets(self, caught_min: float, false_max: float) -> bool:
        return bool(self.failures and self.fine and self.caught_rate >= caught_min
                    and self.false_alarm_rate <= false_max)

    def __str__(self):
        return (f"{self.caught} of {self.failures} failures caught, {self.false_alarms} false alarms "
                f"among {self.fine} fine settings")


def count_flags(flagged, failed) -> Counts:
    flagged, failed = np.asarray(flagged, bool), np.asarray(failed, bool)
    return Counts(int(np.sum(flagged & failed)), int(np.sum(failed)), int(np.sum(flagged & ~failed)),
                  int(np.sum(~failed)))


def combined_flags(matrix: dict, choice: dict) -> np.ndarray:
    """Flagged settings (any diagnostic) when diagnostic ``name`` uses candidate ``choice[name]``."""
    rows = [matrix[n][choice[n]] for n in matrix]
    return np.any(np.stack(rows), axis=0)


def choose_thresholds(matrix: dict, failed, part, caught_min: float = 0.85, false_max: float = 0.15) -> tuple:
    """The combination of candidates (one per diagnostic; indices into the rows of
    ``matrix``, from :func:`flag_matrix`) chosen on the settings selected by ``part``
    (bool mask) alone: among combinations that catch at least ``caught_min`` of the
    failures there with at most ``false_max`` false alarms, the one with the fewest misses
    plus false alarms; if none does, the one with the lowest sum of the two rates.  Ties
    go to the combination closest to the defaults (candidate 0: fewest steps away).
    Returns (choice {name: index}, Counts on ``part``)."""
    failed, part = np.asarray(failed, bool), np.asarray(part, bool)
    names = list(matrix)
    f = failed[part]
    best, best_key = None, None
    for combo in itertools.product(*(range(matrix[n].shape[0]) for n in names)):
        flagged = np.any(np.stack([matrix[n][i][part] for n, i in zip(names, combo)]), axis=0)
        c = count_flags(flagged, f)
        ok = c.meets(caught_min, false_max)
        errors = (c.failures - c.caught) + c.false_alarms
        rates = (1 - c.caught_rate if c.failures else 0.0) + (c.false_alarm_rate if c.fine else 0.0)
        key = (not ok, errors if ok else rates, sum(combo))
        if best_key is None or key < best_key:
            best, best_key = dict(zip(names, combo)), key
    flagged = combined_flags({n: matrix[n][:, part] for n in names}, best)
    return best, count_flags(flagged, f)


def split_parts(keys, strata, seed: int = 0) -> np.ndarray:
    """A seeded split of settings into two parts (True: the part thresholds are chosen on),
    half of each stratum (e.g. study and ground-truth outcome) in each, and settings with
    the same ``key`` (one run shown under two studies) always in the same part."""
    keys, strata = list(keys), list(strata)
    rng = np.random.default_rng(seed)
    first = {}
    by_stratum = {}
    for k, s in zip(keys, strata):
        if k not in first:
            first[k] = s
            by_stratum.setdefault(s, []).append(k)
    chosen = set()
    parity = 0
    for s in sorted(by_stratum, key=str):
        ks = by_stratum[s]
        order = rng.permutation(len(ks))
        for j, i in enumerate(order):
            if (j + parity) % 2 == 0:
                chosen.add(ks[i])
        parity = (parity + len(ks)) % 2  # odd strata alternate which part gets the extra one
    return np.array([k in chosen for k in keys])


# ----------------------------------------------------------------------------- the ground truth
def ground_truth(res) -> dict:
    """Ground-truth numbers of one stored setting (medians over replicates): errors of u_p and
    u_theta against the noise-free solution and of each operator, the replicates that
    diverged or whose forward solve failed (``bad`` of ``R``), and the noise level."""
    up, th = res.metric("err_u_p"), res.metric("err_u_theta")
    st = res.record.status
    ups = res.up_status()
    bad = sum((a != "ok") or (b != "ok") for a, b in zip(st, ups))
    ops = {k: median_iqr(res.operator_error(k))["median"]
           for k in res.record.metrics[reported()].operator_errors}
    return dict(up=median_iqr(up)["median"], theta=median_iqr(th)["median"], bad=bad, R=len(st), ops=ops,
                noise=float(res.record.noise_var))


def ground_truth_failures(results, groups, factor: float) -> list[dict]:
    """``ground_truth`` of each result, with ``rel`` (its median u_p error over the best of
    its group: the same study, ``groups[i]``, at the same noise level) and ``fail``: a
    ground-truth failure when ``rel`` exceeds ``factor``, u_p has no finite error, or more
    than half of the replicates diverged or had a failed forward solve."""
    G = [ground_truth(r) for r in results]
    group = [(groups[i], G[i]["noise"]) for i in range(len(results))]
    best = {}
    for g, v in zip(group, G):
        if np.isfinite(v["up"]):
            best[g] = min(best.get(g, np.inf), v["up"])
    for i, v in enumerate(G):
        b = best.get(group[i], np.nan)
        v["rel"] = v["up"] / b if np.isfinite(v["up"]) and np.isfinite(b) and b > 0 else np.nan
        v["fail"] = bool((np.isfinite(v["rel"]) and v["rel"] > factor) or not np.isfinite(v["up"])
                         or v["bad"] > v["R"] / 2)
    return G


# ----------------------------------------------------------------------------- flags against the ground truth
#: one letter per diagnostic, for tables
SHORT_NAMES = {"underfitting": "U", "instability": "I", "overfitting": "O", "mechanistic_mismatch": "M",
               "operator_spread": "S", "loss_balance": "B"}
#: what a setting is, given its flags and its ground truth
OUTCOMES = ("hit", "miss", "false alarm", "quiet and fine")


def outcome(failed: bool, flagged: bool) -> str:
    """hit (a failure, flagged), miss (a failure, not flagged), false alarm (flagged, no
    failure) or quiet and fine."""
    return "hit" if failed and flagged else "miss" if failed else "false alarm" if flagged else "quiet and fine"


@dataclass
class Calibration:
    """Thresholds chosen on one part of a set of settings and counted on the other
    (:meth:`Scored.calibrate`)."""

    choice: dict     # {diagnostic: index into CANDIDATES[diagnostic]} chosen on the first part
    counts: dict     # {(thresholds, part): Counts}: thresholds "module" or "chosen", part "first" or "second"
    pooled: Counts   # the held-out counts of the further splits, summed
    splits: int      # further splits
    met: int         # further splits whose held-out part meets the target
    target: tuple    # (least share of failures caught, largest share of false alarms)

    @property
    def held(self) -> Counts:
        """The chosen thresholds on the held-out (second) part."""
        return self.counts[("chosen", "second")]

    def held_meets(self) -> bool | None:
        """Whether :attr:`held` meets the target (None without failures or fine settings there)."""
        return self.held.meets(*self.target) if self.held.failures and self.held.fine else None

    def changed(self) -> list[tuple]:
        """(threshold name, the module's value, the chosen value) of every threshold the choice changes."""
        return [(k, CANDIDATES[n][0][k], v) for n, i in self.choice.items()
                for k, v in CANDIDATES[n][i].items() if v != CANDIDATES[n][0][k]]


@dataclass
class Scored:
    """The diagnostics of several settings set against their ground truth (:func:`score`)."""

    results: list
    groups: list           # groups[i]: the study of setting i (settings compared with each other)
    table: DiagnosticTable
    truth: list            # :func:`ground_truth_failures` of each setting
    #: the diagnostics whose flags count: a setting is flagged when one of them raises its flag
    signs: tuple = tuple(SHORT_NAMES)

    def flags(self, i: int) -> list[str]:
        """The flags of setting ``i`` that count (those of :attr:`signs`)."""
        return [n for n in self.table[i].flags if n in self.signs]

    @property
    def flagged(self) -> list[bool]:
        """Settings where at least one of :attr:`signs` raised its flag."""
        return [bool(self.flags(i)) for i in range(len(self.table))]

    @property
    def failed(self) -> list[bool]:
        """Ground-truth failures."""
        return [v["fail"] for v in self.truth]

    @property
    def outcomes(self) -> list[str]:
        return [outcome(f, fl) for f, fl in zip(self.failed, self.flagged)]

    def counts(self, group=None) -> dict:
        """{outcome: settings} and "n" (settings) over the settings of ``group`` (None: all)."""
        out = [o for o, g in zip(self.outcomes, self.groups) if group is None or g == group]
        return {**{k: out.count(k) for k in OUTCOMES}, "n": len(out)}

    def by_diagnostic(self) -> dict:
        """{diagnostic: (settings it flags, failures among them, failures it alone flags)}: alone,
        no other flag of :attr:`signs` was raised (a further check: none of them was)."""
        out = {}
        for n in SHORT_NAMES:
            fl = [n in rep.flags for rep in self.table]
            # alone: no other flag that counts was raised (a further check: none that counts was)
            alone = [self.flags(i) == ([n] if n in self.signs else []) for i in range(len(fl))]
            out[n] = (sum(fl), sum(f and fa for f, fa in zip(fl, self.failed)),
                      sum(f and fa and a for f, fa, a in zip(fl, self.failed, alone)))
        return out

    def top_diagnostic(self) -> str | None:
        """The diagnostic of :attr:`signs` whose flags coincide with the most failures (of two,
        the one that flags fewer settings); None if no such flag coincides with a failure."""
        per = {n: v for n, v in self.by_diagnostic().items() if n in self.signs}
        top = max(per, key=lambda n: (per[n][1], -per[n][0]))
        return top if per[top][1] else None

    def index(self, group, **meta) -> int | None:
        """The setting of ``group`` whose swept values match ``meta`` (None if not among them)."""
        idx = [i for i, g in enumerate(self.groups) if g == group]
        hit = find([self.results[i] for i in idx], **meta)
        return None if hit is None else next(i for i in idx if self.results[i] is hit)

    def mismatch_ratio(self) -> np.ndarray:
        """The mechanistic-mismatch number of each setting."""
        return np.array([rep["mechanistic_mismatch"].value for rep in self.table], float)

    def mismatch_correlation(self) -> float:
        """Spearman's rank correlation between the mismatch number and the median u_p error,
        over the settings where both are finite and positive (NaN with fewer than three)."""
        ratio, up = self.mismatch_ratio(), np.array([v["up"] for v in self.truth], float)
        ok = np.isfinite(ratio) & np.isfinite(up) & (ratio > 0) & (up > 0)
        return rank_trend(ratio[ok], up[ok])[0]

    def mismatch_counts(self) -> Counts:
        """The mechanistic-mismatch flag alone against the ground truth."""
        return count_flags([rep["mechanistic_mismatch"].flag for rep in self.table], self.failed)

    def calibrate(self, keys, seed: int = 0, splits: int = 0, caught_min: float = 0.85,
                  false_max: float = 0.15, diagnose_fn=None) -> Calibration:
        """Thresholds (:data:`CANDIDATES`) chosen on one part of the settings by
        :func:`choose_thresholds` and counted on the other (:func:`split_parts`, stratified by
        group and ground truth; ``keys[i]``: the run of setting i), then the same on
        ``splits`` further splits (seeds ``seed + 1 ...``), their held-out counts pooled.
        ``diagnose_fn``: as for :func:`flag_matrix`."""
        matrix = {n: m for n, m in flag_matrix(self.results, diagnose_fn=diagnose_fn).items() if n in self.signs}
        failed = np.array(self.failed, bool)
        module = {n: 0 for n in matrix}
        if not np.array_equal(combined_flags(matrix, module), np.array(self.flagged)):
            raise RuntimeError("the flag matrix does not reproduce the diagnostics' own flags")
        strata = list(zip(self.groups, self.failed))

        def on(choice, sel):
            return count_flags(combined_flags(matrix, choice)[sel], failed[sel])

        part = split_parts(keys, strata, seed=seed)
        choice, _ = choose_thresholds(matrix, failed, part, caught_min, false_max)
        counts = {(lab, plab): on(ch, sel) for lab, ch in (("module", module), ("chosen", choice))
                  for plab, sel in (("first", part), ("second", ~part))}
        pool, met = [0, 0, 0, 0], 0
        for s in range(seed + 1, seed + 1 + splits):
            p = split_parts(keys, strata, seed=s)
            c = on(choose_thresholds(matrix, failed, p, caught_min, false_max)[0], ~p)
            pool = [a + b for a, b in zip(pool, (c.caught, c.failures, c.false_alarms, c.fine))]
            met += c.meets(caught_min, false_max)
        return Calibration(choice, counts, Counts(*pool), splits, met, (caught_min, false_max))


def score(results, groups, factor: float, labels: Sequence[str] | None = None, signs=None) -> Scored:
    """The diagnostics of ``results`` (``diagnostics.diagnose_many``) and their ground truth
    (:func:`ground_truth_failures` with ``groups`` and ``factor``); ``signs``: the diagnostics
    whose flags count (None: all six; ``diagnostics.PAPER_SIGNS``: the paper's three signs)."""
    results = list(results)
    return Scored(results, list(groups), diagnose_many(results, labels=labels),
                  ground_truth_failures(results, groups, factor), tuple(SHORT_NAMES if signs is None else signs))
