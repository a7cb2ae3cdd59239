"""Claims and verdicts as data.

A sub-claim of the paper is checked against the stored results and gets a
:class:`Verdict`; a claim's :class:`Outcome` follows from its sub-claims' verdicts by one
rule, :func:`aggregate`.  The words a reader sees are the presentation layer's business
(``binn_utils.analysis.reporting.word`` for the chapters' prose, ``binn_utils.presentation.scorecard_text`` for
the scorecard): no code here or above it reads a verdict back from prose.

How a sub-claim is decided
--------------------------
Every sub-claim compares per-replicate numbers of settings (or of two quantities of the same
runs).  A setting's replicates are nested: datasets (a split and a noise draw), and
initialisations within each; an :class:`Interval` keeps them (``sample``), with their
datasets and networks (``median_interval(values, of=result)``).

* a **median** gets its exact distribution-free confidence interval from order statistics:
  ``[x_(k), x_(n+1-k)]`` covers the population median with probability
  ``1 - 2 P(Bin(n, 1/2) <= k - 1)``, whatever the distribution of the errors; over
  several datasets the unit is the dataset (the per-dataset medians: their order
  statistics from six datasets on, below six, where no order-statistic interval reaches
  95 %, their Student-t interval, ``intervals.over_datasets``);
* a **comparison of two medians** (:func:`expect`, :func:`order`) is decided on the interval
  of their difference (``contrasts.contrast``: the dataset as the unit, paired where the same
  networks are measured twice; exact rank intervals on one dataset, a t interval over
  datasets): it *agrees* (or *disagrees*) when that interval excludes no difference in the
  direction the paper's sentence says (or the other way), and *cannot be distinguished*
  otherwise, never *disagrees*;
* a **spread** (the interquartile range between initialisations, for "less variable" and
  "consistently") gets a seeded percentile bootstrap interval (``BOOTSTRAP`` resamples,
  seed ``SEED``; over several datasets, from the per-dataset spreads), and two spreads are
  compared on the interval of their ratio (``contrasts.spread_contrast``: a bootstrap of
  the initialisations on one dataset, the t interval of the per-dataset log ratios over
  several), decided as a difference of medians is.

The comparisons of one claim (of one configuration of a repeat) are held to the level
together by Holm's procedure (:func:`adjust_family`).  No cut-off of ours (10 %, 1.5x, 2x)
decides anything: where the paper's words need a reference ("accurately", "large",
"consistently") the sub-claim's rule names it, and it comes from runs (the best setting of
the same study, the other quantity of the same runs, or the authors' own archived runs at
the same setting).  "Lowest at X" agrees when X is lower than every other setting; "best in
a range R" when the best setting in R is lower than the best setting outside R.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Iterable, Mapping

import numpy as np

from .contrasts import detectable_at, effect_sd, holm, pooled_effect_sd
from .intervals import (BOOTSTRAP, LEVEL, SEED, Interval, difference, labels_of, median_interval,  # noqa: F401
                        median_rank, spread_interval)


class Verdict(enum.Enum):
    """What the stored results say about one sub-claim."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    INDISTINCT = "cannot be distinguished"      # the difference is not resolved with these runs
    UNDECIDED = "cannot be decided"             # nothing to compare: e.g. every replicate failed
    NOT_TESTED = "not tested"                   # we did not run what it needs

    @classmethod
    def of(cls, flag) -> "Verdict":
        """AGREES for True, DISAGREES for False, UNDECIDED for None."""
        return cls.UNDECIDED if flag is None else (cls.AGREES if flag else cls.DISAGREES)

    @property
    def decided(self) -> bool:
        return self in (Verdict.AGREES, Verdict.DISAGREES)


#: A verdict as the rest of a sentence about the paper ("our lowest error is at 5e-4, which
#: {WITH_PAPER[v]}"): summaries hold it under ``<key>_with_paper`` beside the verdict's word.
WITH_PAPER = {Verdict.AGREES: "agrees with the paper", Verdict.DISAGREES: "disagrees with the paper",
              Verdict.INDISTINCT: "cannot be distinguished from the paper's statement with this many replicates: "
                                  "the interval of the difference contains zero",
              Verdict.UNDECIDED: "cannot be decided against the paper (nothing to compare)",
              Verdict.NOT_TESTED: "was not tested against the paper"}


class Outcome(enum.Enum):
    """A claim's verdict: what its tested evidence says of its primary statement."""

    HOLDS = "holds"
    HOLDS_EXCEPT = "holds, with exceptions"
    FAILS = "does not hold"
    UNRESOLVED = "not resolved"
    NOT_TESTED = "not tested"


#: How the sub-claims count towards a claim's verdict, in the words the scorecard prints.
COUNTED = ("Each claim names its primary statement: the part of the paper's sentence a reader acts on (where "
           "the errors are lowest, which choice is better, what fails), written down from the paper's words; "
           "without one, every part is primary. Only tested sub-claims count: one that was not tested is listed "
           "with why, and never decides. The verdict of a claim is then:")

#: The rule of :func:`aggregate`, on the tested sub-claims: of its primary statement, the numbers
#: that agree (``a``), disagree (``d``) and are not resolved (``i``: cannot be distinguished, or cannot
#: be decided); of the others, the number that disagree (``x``); and each condition in the words the
#: scorecard prints.  The conditions exclude one another, so each line is the whole rule for its
#: outcome (tests/test_verdicts.py checks it on every count).
OUTCOME_RULE = (
    (Outcome.HOLDS, lambda a, d, i, x: a > 0 and d + i == 0 and x == 0,
     "when every tested part of its primary statement agrees and no other sub-claim disagrees"),
    (Outcome.HOLDS_EXCEPT, lambda a, d, i, x: a > 0 and d + i == 0 and x > 0,
     "when every tested part of its primary statement agrees but another sub-claim disagrees"),
    (Outcome.FAILS, lambda a, d, i, x: d > 0,
     "when a tested part of its primary statement disagrees"),
    (Outcome.UNRESOLVED, lambda a, d, i, x: d == 0 and i > 0,
     "when no tested part of its primary statement disagrees but one cannot be distinguished (or decided) "
     "with these runs, whatever its other sub-claims say"),
    (Outcome.NOT_TESTED, lambda a, d, i, x: a + d + i == 0,
     "when no part of its primary statement was tested, in particular when the claim's results are not in "
     "the results store yet"),
)


def outcome_counts(verdicts: Iterable[Verdict], primary: Iterable[bool] | None = None) -> tuple[int, int, int, int]:
    """(a, d, i, x) of :data:`OUTCOME_RULE`: ``primary`` flags each verdict as a part of the
    claim's primary statement (None: every one is); untested verdicts are not counted."""
    verdicts = [Verdict(v) for v in verdicts]
    flags = [True] * len(verdicts) if primary is None else list(primary)
    if len(flags) != len(verdicts):
        raise ValueError("one primary flag per verdict")
    prim = [v for v, f in zip(verdicts, flags) if f]
    other = [v for v, f in zip(verdicts, flags) if not f]
    return (prim.count(Verdict.AGREES), prim.count(Verdict.DISAGREES),
            prim.count(Verdict.INDISTINCT) + prim.count(Verdict.UNDECIDED), other.count(Verdict.DISAGREES))


def aggregate(verdicts: Iterable[Verdict], primary: Iterable[bool] | None = None) -> Outcome:
    """A claim's outcome from its sub-claims' verdicts (``primary``: which are parts of its
    primary statement; None: all), by ``OUTCOME_RULE``: *holds* when every tested part of the
    primary statement agrees (and *holds, with exceptions* when another sub-claim disagrees);
    *does not hold* when a tested part of it disagrees; *not resolved* when no part of it disagrees but
    one cannot be distinguished; *not tested* when no part of it was tested.  An untested
    sub-claim never decides.  (The scorecard gives the counts beside each outcome.)"""
    counts = outcome_counts(verdicts, primary)
    return next(outcome for outcome, holds, _ in OUTCOME_RULE if holds(*counts))


def order(a: Interval, b: Interval) -> int | None:
    """-1 if ``a`` is lower than ``b``, +1 if higher, 0 if not resolved; None if either has no
    replicate.  Two medians (or two spreads) with their replicates: the interval of their
    difference (:func:`difference`) excludes no difference one way or the other; without
    their replicates (a bare interval), the two intervals do not overlap."""
    if np.isnan(a.estimate) or np.isnan(b.estimate):
        return None
    c = difference(a, b)
    if c is not None:
        return c.sign
    if a.hi < b.lo:
        return -1
    if a.lo > b.hi:
        return 1
    return 0


def expect(a: Interval, b: Interval, direction: int) -> Verdict:
    """The verdict on "``a`` is lower than ``b``" (``direction`` -1) or "higher" (+1), by
    :func:`order`: agrees when the difference is resolved that way, disagrees when the other
    way, cannot be distinguished when it is not resolved, cannot be decided without finite
    replicates."""
    o = order(a, b)
    if o is None:
        return Verdict.UNDECIDED
    if o == 0:
        return Verdict.INDISTINCT
    return Verdict.AGREES if o == direction else Verdict.DISAGREES


def all_hold(comparisons: Iterable[tuple[Interval, Interval, int]]) -> Verdict:
    """The verdict on a sentence made of several comparisons of two intervals, each with its own
    direction ((``a``, ``b``, -1): ``a`` lower than ``b``; +1: higher), all of which must hold:
    agrees when every one is resolved its way at the level; disagrees when one goes the other
    way once they are held to the level together (Holm over the p-values of their differences,
    as :func:`every`); cannot be decided when one has no finite replicate (and none
    disagrees); otherwise cannot be distinguished."""
    comparisons = list(comparisons)
    if not comparisons:
        return Verdict.UNDECIDED
    signs, kept = held_together([(a, b) for a, b, _ in comparisons])
    wanted = [d for _, _, d in comparisons]
    if all(o == d for o, d in zip(signs, wanted)):
        return Verdict.AGREES
    if any(o == -d and ok for o, d, ok in zip(signs, wanted, kept)):
        return Verdict.DISAGREES
    return Verdict.UNDECIDED if None in signs else Verdict.INDISTINCT


def every(pairs: Iterable[tuple[Interval, Interval]], direction: int) -> Verdict:
    """The verdict on a sentence that holds only if each of several comparisons does ("``a``
    lower than ``b`` at every noise level": ``direction`` -1; higher: +1): agrees when every
    comparison is resolved that way at the level (each must hold, so agreeing needs no
    adjustment); disagrees when one goes the other way once the comparisons are held to the
    level together (Holm over their p-values: one of several reversed by chance is not a
    disagreement); cannot be decided when one has no finite replicate (and none disagrees);
    otherwise cannot be distinguished."""
    return all_hold((a, b, direction) for a, b in pairs)


def held_together(pairs: Iterable[tuple[Interval, Interval]]) -> tuple[list, list[bool]]:
    """Each comparison's :func:`order` and whether it stands once the comparisons are held to
    the level together (Holm over the p-values of their differences; a bare interval, without
    replicates, keeps its decision as made)."""
    signs, ps = [], []
    for a, b in pairs:
        signs.append(order(a, b))
        c = difference(a, b) if signs[-1] is not None else None
        ps.append(c.p if c is not None else (0.0 if signs[-1] else np.nan))
    return signs, holm(ps)


def lowest_at(intervals: Mapping, at) -> Verdict:
    """"Lowest at ``at``": :func:`every` comparison of its interval with each other finite one
    lower (a setting with no finite replicate counts as higher)."""
    mine = intervals.get(at)
    if mine is None or not mine.finite:
        return Verdict.UNDECIDED
    others = [(mine, iv) for k, iv in intervals.items() if k != at and iv.finite]
    return every(others, -1) if others else Verdict.AGREES


def highest_at(intervals: Mapping, at) -> Verdict:
    """"Highest at ``at``" (the worst, the most variable): ``lowest_at`` mirrored."""
    mine = intervals.get(at)
    if mine is None or not mine.finite:
        return Verdict.UNDECIDED
    others = [(mine, iv) for k, iv in intervals.items() if k != at and iv.finite]
    return every(others, 1) if others else Verdict.AGREES


def no_worse(a: Interval, b: Interval, margin: float) -> Verdict:
    """"``a`` at least as good as ``b``" (non-inferiority) within a factor ``margin`` > 1 of
    the errors: agrees when the interval of the ratio a / b lies below ``margin``, disagrees
    when it lies above, cannot be distinguished otherwise; cannot be decided without
    replicates or with errors that are not all positive."""
    c = difference(a, b)
    if c is None or c.scale != "log":
        return Verdict.UNDECIDED
    m = math.log(margin)
    return Verdict.AGREES if c.hi < m else Verdict.DISAGREES if c.lo > m else Verdict.INDISTINCT


def all_of(verdicts: Iterable[Verdict]) -> Verdict:
    """One verdict for a sentence made of several parts that are not each a comparison of
    two intervals (a non-inferiority at every level): disagrees if one disagrees, agrees if all
    agree, cannot be decided if one cannot (and none disagrees), otherwise cannot be
    distinguished.  Several comparisons of intervals: :func:`all_hold` or :func:`every`, which hold
    a disagreement to the level (Holm); a part that is a comparison must go there."""
    vs = list(verdicts)
    if not vs:
        return Verdict.UNDECIDED
    if Verdict.DISAGREES in vs:
        return Verdict.DISAGREES
    if all(v is Verdict.AGREES for v in vs):
        return Verdict.AGREES
    return Verdict.UNDECIDED if Verdict.UNDECIDED in vs else Verdict.INDISTINCT


def some(pairs: Iterable[tuple[Interval, Interval]], direction: int) -> Verdict:
    """The verdict on a sentence that any one of several comparisons bears out ("x, y or z
    signals ...": ``a`` higher than ``b`` for one of them, ``direction`` +1; lower: -1), the
    dual of :func:`every`: agrees when one comparison is resolved that way once the comparisons
    are held to the level together (Holm over their p-values: each is one more chance of
    agreeing by chance); disagrees only when every comparison is resolved the other way (each
    must, so disagreeing needs no adjustment); cannot be decided when none has finite
    replicates; otherwise (one that could not be decided might have borne it out) cannot be
    distinguished."""
    pairs = list(pairs)
    if not pairs:
        return Verdict.UNDECIDED
    signs, kept = held_together(pairs)
    if all(o is None for o in signs):
        return Verdict.UNDECIDED
    if any(o == direction and ok for o, ok in zip(signs, kept)):
        return Verdict.AGREES
    return Verdict.DISAGREES if all(o == -direction for o in signs) else Verdict.INDISTINCT


def best_of(intervals: Mapping, keys) -> object:
    """The key among ``keys`` with the lowest finite estimate (None if none)."""
    keys = [k for k in keys if k in intervals and intervals[k].finite]
    return min(keys, key=lambda k: intervals[k].estimate) if keys else None


def best_in(intervals: Mapping, inside: Callable) -> tuple[Verdict, object, object]:
    """"Best in a range": the best setting with ``inside(key)`` against the best setting
    outside; (verdict, best inside, best outside).  Nothing finite inside: cannot be decided;
    nothing finite outside: agrees."""
    b_in = best_of(intervals, [k for k in intervals if inside(k)])
    b_out = best_of(intervals, [k for k in intervals if not inside(k)])
    if b_in is None:
        return Verdict.UNDECIDED, None, b_out
    if b_out is None:
        return Verdict.AGREES, b_in, None
    return expect(intervals[b_in], intervals[b_out], -1), b_in, b_out


def above_best_other(intervals: Mapping, at) -> tuple[Verdict, object]:
    """"Large at ``at``" (the reference: the best other setting of the same study): agrees
    when the difference from the best other setting is resolved upwards, disagrees when downwards;
    (verdict, the reference's key)."""
    ref = best_of(intervals, [k for k in intervals if k != at])
    if at not in intervals or ref is None:
        return Verdict.UNDECIDED, ref
    return expect(intervals[at], intervals[ref], 1), ref


@dataclass(frozen=True)
class SubClaim:
    """One checked sub-claim: what it says, its verdict, the numbers that decided it and the
    rule as text (``group``: e.g. the configuration of a Supporting Material repeat)."""

    label: str
    verdict: Verdict
    group: str | None = None
    numbers: Mapping = field(default_factory=dict)
    rule: str = ""
    #: the same rule on the authors' own archived runs at the same setting (None: not archived)
    authors: Verdict | None = None
    #: the verdict its comparison gave alone, where holding its family to the level together
    #: (Holm, :func:`adjust_family`) took the decision away; None otherwise
    alone: Verdict | None = None
    #: whether its verdict is the test of no difference between its two numbers (False for a
    #: non-inferiority or threshold test: its p is not that difference's, and Holm leaves it out)
    tests_difference: bool = True
    #: whether it is a part of its claim's primary statement (``Claim.primary``; set when judged)
    primary: bool = True
    #: the smallest effect (a ratio, or a difference) its design finds 80 % of the time, from the
    #: per-dataset spread pooled over its family's comparisons over datasets (``design_detectable``);
    #: None where it was not decided over several datasets
    design_detectable: float | None = None
    #: the verdict keys of its study's summary it repeats, where its numbers alone do not name them (a
    #: verdict decided without intervals; several: a sentence made of those comparisons, each a part)
    keys: tuple = ()

    @cached_property
    def difference(self) -> Contrast | None:
        """The difference its verdict was decided on where it compares two medians with their
        replicates (the first of its ``numbers`` against the second); None otherwise."""
        ivs = [v for v in self.numbers.values() if isinstance(v, Interval)]
        return difference(*ivs) if len(ivs) == 2 and self.tests_difference else None


def adjust_family(subclaims: Iterable[SubClaim]) -> tuple[SubClaim, ...]:
    """Hold each family of sub-claims to the level together: the sub-claims of one group (a
    claim's, or one configuration's of a repeat) that compare two medians are tested with
    Holm's procedure on the p-values of their differences; a decided one that Holm does not
    reject cannot be distinguished (``alone`` keeps what it gave by itself).  A sub-claim made
    of several comparisons (a setting against every other, all noise levels) agrees only when
    every one of them does at the level, which bounds its error of agreeing; it disagrees when
    one goes the other way once its comparisons are held to the level together (:func:`every`).
    Such sub-claims, and non-inferiority or threshold tests, stay as they are."""
    subs = list(subclaims)
    for group in {s.group for s in subs}:
        idx = [i for i, s in enumerate(subs) if s.group == group and s.difference is not None]
        keep = holm([subs[i].difference.p for i in idx])
        for i, ok in zip(idx, keep):
            if subs[i].verdict.decided and not ok:
                subs[i] = replace(subs[i], verdict=Verdict.INDISTINCT, alone=subs[i].verdict)
    return tuple(subs)


def design_detectable(subclaims: Iterable[SubClaim]) -> tuple[SubClaim, ...]:
    """Each sub-claim decided over several datasets with the smallest effect its design finds
    80 % of the time (``contrasts.detectable_at``), from the standard deviation of the per-dataset
    effects pooled over the comparisons of its family on the same scale
    (``contrasts.pooled_effect_sd``) rather than from its own few datasets' spread."""
    subs = list(subclaims)
    pools: dict = {}
    for s in subs:
        c = s.difference
        if c is not None and effect_sd(c) is not None:
            pools.setdefault((s.group, c.scale), []).append(c)
    sd = {k: pooled_effect_sd(cs) for k, cs in pools.items()}
    for i, s in enumerate(subs):
        c = s.difference
        if c is not None and effect_sd(c) is not None and sd[(s.group, c.scale)] is not None:
            det = detectable_at(sd[(s.group, c.scale)], c.datasets, c.level)
            subs[i] = replace(s, design_detectable=c.as_ratio(det))
    return tuple(subs)


def subclaim_id(number: int, sub: SubClaim) -> str:
    """The stable name of one test of the scorecard: its claim, its group (a Supporting Material
    configuration) and its sub-claim's words.  A page that prints a verdict carries it beside the
    words (``presentation.verdict_marks``); the built book's test reads it back."""
    return f"claim {number} | {sub.group or ''} | {sub.label}"


def family_size(subclaims: Iterable[SubClaim], group) -> int:
    """How many sub-claims of ``group`` Holm's procedure holds to the level together."""
    return sum(1 for s in subclaims if s.group == group and s.difference is not None)


@dataclass(frozen=True)
class ClaimCheck:
    """What checking a claim against the results found: the runs it rests on, our evidence
    (its numbers), its sub-claims, the chapters that show it, and whether some of the results
    it needs are not stored (``missing``)."""

    runs: str
    evidence: str
    subclaims: tuple[SubClaim, ...]
    chapters: tuple[str, ...]
    missing: bool = False
    #: further numbers a reader acts on (e.g. an operator's error at the recommended setting): name -> Interval
    numbers: Mapping = field(default_factory=dict)
    #: what a reader should know beside the outcome, generated from the numbers (e.g. how weak a
    #: signal that agrees is); the landing page's answer and the chapters' boxes repeat it
    caveat: str = ""

    def __post_init__(self):
        object.__setattr__(self, "subclaims", design_detectable(adjust_family(self.subclaims)))

    @property
    def outcome(self) -> Outcome:
        """:func:`aggregate` of its sub-claims, a disagreement of its primary statement held to the
        level over the whole primary statement (Holm over the p-values of its parts' differences:
        the claim fails on one disagreement, so each is one more chance of failing by chance)."""
        subs = self.subclaims
        vs = [s.verdict for s in subs]
        idx = [i for i, s in enumerate(subs) if s.primary and s.difference is not None]
        for i, ok in zip(idx, holm([subs[i].difference.p for i in idx])):
            if vs[i] is Verdict.DISAGREES and not ok:
                vs[i] = Verdict.INDISTINCT
        return aggregate(vs, [s.primary for s in subs])

    def with_primary(self, parts: tuple) -> "ClaimCheck":
        """The same check with each sub-claim's ``primary`` flag from ``parts`` (``Claim.primary``:
        texts one of which a primary sub-claim's label contains; empty: every one is primary)."""
        subs = tuple(replace(s, primary=not parts or any(p in s.label for p in parts)) for s in self.subclaims)
        return replace(self, subclaims=subs)


@dataclass(frozen=True)
class Claim:
    """A claim of the paper: its number, its words, the paper's evidence, and the function
    that checks it against the results (``check(ctx, **choices)`` returns a
    :class:`ClaimCheck`; ``ctx`` is a ``binn_utils.claims.context.Context``)."""

    number: int
    text: str
    paper_evidence: str
    check: Callable
    title: str = ""
    figure: str = ""
    chapter: str = ""
    #: the paper's sentences, verbatim from its LaTeX source (citations, references and text
    #: markup removed, math kept; several joined by " […] "), and where they stand (section, figure)
    quote: str = ""
    where: str = ""
    #: its primary statement: texts of the labels of the sub-claims that make it (the part of the
    #: paper's sentence a reader acts on); empty: every sub-claim
    primary: tuple = ()


class Summary(dict):
    """A study's numbers as text to glue (``summary[key]``) with the typed verdict of each
    comparison with the paper (``summary.verdicts[key]``); the text of a verdict key is its
    wording (``yes``/``no``/``undecided``), the verdict itself is never read back from it."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.verdicts: dict[str, Verdict] = {}
        #: the intervals a verdict was decided on: key -> {label: Interval}
        self.intervals: dict[str, dict] = {}
        #: the scorecard's test each verdict repeats (``claims.scorecard.subclaim_id``), where a page holds
        #: the summary to the scorecard (``held_summary``, ``held_summaries``): key -> id
        self.tests: dict[str, str] = {}
        #: the keys that are each a part of the sentence their test judges (the test's verdict is not theirs)
        self.parts: set[str] = set()

    def compare(self, key: str, verdict: Verdict, intervals: Mapping, yes: str = Verdict.AGREES.value,
                no: str = Verdict.DISAGREES.value, indistinct: str = Verdict.INDISTINCT.value) -> Verdict:
        """Record a verdict decided on ``intervals`` ({label: Interval}) with its wording."""
        self.intervals[key] = {k: v for k, v in intervals.items() if v is not None}
        return self.judge(key, verdict, yes, no, indistinct=indistinct)

    def judge(self, key: str, flag, yes: str = Verdict.AGREES.value, no: str = Verdict.DISAGREES.value,
              undecided: str = Verdict.UNDECIDED.value, indistinct: str = Verdict.INDISTINCT.value) -> Verdict:
        """Record the verdict of comparison ``key`` (a ``Verdict``, or True: agrees, False:
        disagrees, None: cannot be decided) and its wording (one phrase per verdict)."""
        v = flag if isinstance(flag, Verdict) else Verdict.of(flag)
        self.verdicts[key] = v
        self[key] = {Verdict.AGREES: yes, Verdict.DISAGREES: no, Verdict.UNDECIDED: undecided,
                     Verdict.INDISTINCT: indistinct}.get(v, v.value)
        self[key + "_with_paper"] = WITH_PAPER[v]
        return v
