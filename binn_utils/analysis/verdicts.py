"""Claims and verdicts as data.

A sub-claim of the paper is checked against the stored results and gets a
:class:`Verdict`; a claim's :class:`Outcome` follows from its sub-claims' verdicts by one
rule, :func:`aggregate`.  The words a reader sees are the presentation layer's business
(``binn_utils.analysis.reporting.word`` for the chapters' prose, ``binn_utils.presentation.scorecard_text`` for
the scorecard): no code here or above it reads a verdict back from prose.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping


class Verdict(enum.Enum):
    """What the stored results say about one sub-claim."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    UNDECIDED = "cannot be decided"             # e.g. every replicate failed, or the errors overlap
    TOO_FEW = "too few replicates to decide"    # fewer initialisations than a decision needs
    NOT_TESTED = "not tested"                   # we did not run what it needs

    @classmethod
    def of(cls, flag) -> "Verdict":
        """AGREES for True, DISAGREES for False, UNDECIDED for None."""
        return cls.UNDECIDED if flag is None else (cls.AGREES if flag else cls.DISAGREES)

    @property
    def decided(self) -> bool:
        return self in (Verdict.AGREES, Verdict.DISAGREES)


class Outcome(enum.Enum):
    """A claim's verdict."""

    REPRODUCED = "reproduced"
    PARTLY = "partly reproduced"
    NOT_REPRODUCED = "not reproduced"
    NOT_TESTED = "not tested"


def aggregate(verdicts: Iterable[Verdict]) -> Outcome:
    """A claim's outcome from its sub-claims' verdicts.

    Only decided sub-claims count: sub-claims that were not tested, cannot be decided or
    have too few replicates to decide neither support nor downgrade a claim.  reproduced:
    every decided sub-claim agrees; not reproduced: none does; partly reproduced: some
    agree and some disagree; not tested: nothing was decided."""
    verdicts = [Verdict(v) for v in verdicts]
    agree, disagree = verdicts.count(Verdict.AGREES), verdicts.count(Verdict.DISAGREES)
    if agree + disagree == 0:
        return Outcome.NOT_TESTED
    if disagree == 0:
        return Outcome.REPRODUCED
    if agree == 0:
        return Outcome.NOT_REPRODUCED
    return Outcome.PARTLY


@dataclass(frozen=True)
class SubClaim:
    """One checked sub-claim: what it says, its verdict, the numbers that decided it and the
    rule as text (``group``: e.g. the configuration of a Supporting Material repeat)."""

    label: str
    verdict: Verdict
    group: str | None = None
    numbers: Mapping = field(default_factory=dict)
    rule: str = ""


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

    @property
    def outcome(self) -> Outcome:
        return aggregate(s.verdict for s in self.subclaims)


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


class Summary(dict):
    """A study's numbers as text to glue (``summary[key]``) with the typed verdict of each
    comparison with the paper (``summary.verdicts[key]``); the text of a verdict key is its
    wording (``yes``/``no``/``undecided``), the verdict itself is never read back from it."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.verdicts: dict[str, Verdict] = {}

    def judge(self, key: str, flag, yes: str = Verdict.AGREES.value, no: str = Verdict.DISAGREES.value,
              undecided: str = Verdict.UNDECIDED.value) -> Verdict:
        """Record the verdict of comparison ``key`` (True: agrees, False: disagrees, None:
        cannot be decided) and its wording."""
        v = Verdict.of(flag)
        self.verdicts[key] = v
        self[key] = undecided if flag is None else (yes if flag else no)
        return v
