"""The paper's practical recommendations, each with one answer from the runs.

The list is the paper's own, from its Discussion (the paragraph that begins "Taken together,
our findings suggest several practical recommendations", and the two before it on u_p and on
the warning signs), quoted verbatim, and it was written down before any verdict below was
computed.  Each recommendation rests on sub-claims of the scorecard's claims (``Part``: a claim,
the text of a sub-claim's label, and the study's summary key that decides that sub-claim), so
the answer on our data is the scorecard's own statistic (after Holm's correction), never a second
one.  It is given three times, judged by the same rules: on our data, on the authors' own data
(our runs on their clean solution and noise draw, where stored) and on the authors' archived runs.

The answer (:func:`answer`) on a list of parts, each with a verdict and the difference it was
decided on: *holds* when every part agrees; *does not hold* when one disagrees once the parts
are held to the level together (Holm over the p-values of their differences); *not resolved*
otherwise, with the smallest effect these runs would have found 80 % of the time; *not tested*
when no part could be compared, with the run that would test it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..analysis.contrasts import holm
from ..analysis.intervals import Interval, difference
from ..analysis.verdicts import Verdict
from ..store import stores
from ..studies import REGISTRY, architecture
from .context import Context


@dataclass(frozen=True)
class Part:
    """The sub-claims a recommendation rests on: claim ``claim``'s sub-claims whose label contains
    ``label`` (one, or several where a claim tests the same words at several settings), decided
    by the key ``key`` of study ``study``'s summary (None: no study summary decides it, e.g. a
    claim that spans studies)."""

    claim: int
    label: str
    study: str | None = None
    key: str | None = None


@dataclass(frozen=True)
class Recommendation:
    what: str          # in a few words, for the table
    quote: str         # the paper's words, verbatim from its Discussion
    parts: tuple       # ``Part``s, the first the one whose effect the table prints
    untested: str = ""  # the run or reading that would test what is not tested


RECOMMENDATIONS = (
    Recommendation(
        "checking $u_\\mathrm{p}$ as well as $u_\\theta$",
        "We therefore advocate that future applications of BINNs routinely assess both quantities, rather than "
        "relying solely on the accuracy of the learned neural network solution.",
        (Part(1, "$u_\\theta$ matches the latent solution, whereas", "framework", "theta_verdict"),
         Part(7, "small $u_\\theta$ error but large", "loss_weight", "low_verdict"))),
    Recommendation(
        "moderately expressive operator networks",
        "Moderately expressive network architectures should generally be preferred over highly "
        "over-parameterised models unless there is clear evidence of systematic under-fitting.",
        (Part(9, "the smallest architectures", "architecture", None),
         Part(9, "(4, 4) recovers D", "architecture", "recovers_D"),
         Part(9, "(4, 4) recovers V", "architecture", "recovers_V")),
        untested=f"that (4, 32) gives little additional benefit over (4, 4) is {architecture.SATURATION_WHY}"),
    Recommendation(
        "the smaller solution network on noisy data",
        "Moderately expressive network architectures should generally be preferred over highly "
        "over-parameterised models unless there is clear evidence of systematic under-fitting.",
        (Part(3, "lower median $u_\\theta$", "noise", "theta_small_wins_verdict"),
         Part(3, "at least as well", "noise", None)),
        untested="(6, 128) on as many datasets as (4, 32), one engine and one device (the noise study retrained "
                 "with `binn sweep noise --scale paper --distinct-seeds`)"),
    Recommendation(
        "$w_\\mathrm{data} \\gtrsim w_\\mathrm{PDE}$",
        "Data-fitting should remain at least as influential as the PDE residual throughout optimisation, either "
        "through iterative training strategies or by ensuring that $w_{\\mathrm{data}}\\gtrsim w_{\\mathrm{PDE}}$.",
        (Part(8, "gives the lowest $u_\\theta$", "loss_weight", "data_theta_verdict"),
         Part(8, "gives the lowest $u_\\mathrm{p}$", "loss_weight", "data_up_verdict"))),
    Recommendation(
        "intermediate learning rates",
        "Intermediate learning rates and batch sizes consistently provide the most favourable balance between "
        "optimisation efficiency, reconstruction accuracy, and robustness.",
        (Part(6, "lowest median $u_\\theta$", "learning_rate", "best_theta_verdict"),
         Part(6, "lowest median $u_\\mathrm{p}$", "learning_rate", "best_up_verdict"))),
    Recommendation(
        "intermediate batch sizes",
        "Intermediate learning rates and batch sizes consistently provide the most favourable balance between "
        "optimisation efficiency, reconstruction accuracy, and robustness.",
        (Part(10, "lowest median $u_\\theta$", "batch_size", "best_theta_verdict"),
         Part(10, "lowest median $u_\\mathrm{p}$", "batch_size", "best_up_verdict")),
        untested="the fixed-step budget on the authors' data (`binn sweep batch_size --data authors`)"),
    Recommendation(
        "heeding the warning signs",
        "Conversely, discrepancies between $u_\\theta$ and $u_\\mathrm{p}$, increasing validation losses during "
        "training, or substantial variability between repeated optimisations with different initialisations "
        "provide early indications that the recovered operators should be interpreted with caution.",
        (Part(12, "over every stored network"), Part(12, "a warning sign raised against the default")),
        untested="the diagnostics over networks trained on the authors' data, and the authors' archive holds no "
                 "loss curves"),
)

#: The answers, one meaning each.
HOLDS, FAILS, UNRESOLVED, NOT_TESTED = "holds", "does not hold", "not resolved", "not tested"


@dataclass(frozen=True)
class Answer:
    """One recommendation's answer on one data: the word, the effect of its first compared
    part (a ratio with its 95 % interval; None where it was not decided on one difference), and
    for *not resolved* the smallest effect these runs would have found."""

    word: str
    effect: tuple | None = None
    detectable: float | None = None
    #: what the effect is the ratio of, e.g. "best in range / best outside"
    effect_of: str = ""
    #: numbers a reader needs beside the word where the effect is not a ratio (claim 12's held-out rates)
    note: str = ""


def answer(verdicts, contrasts, names=None, detectables=None) -> Answer:
    """The answer on a recommendation's parts (``verdicts``, ``contrasts``: the difference each
    was decided on, or None, and ``names``: what each difference compares), by the rule of the
    module docstring."""
    names = list(names) if names is not None else [""] * len(verdicts)
    detectables = list(detectables) if detectables is not None else [None] * len(verdicts)
    keep = [v is not None and v is not Verdict.NOT_TESTED for v in verdicts]
    dets = [d for d, k in zip(detectables, keep) if k]
    vs = [v for v, k in zip(verdicts, keep) if k]
    cs = [c for c, k in zip(contrasts, keep) if k]
    ns = [n for n, k in zip(names, keep) if k]
    if not vs:
        return Answer(NOT_TESTED)
    first = next((i for i, c in enumerate(cs) if c is not None), None)
    effect = cs[first].ratio if first is not None else None
    effect_of = ns[first] if first is not None else ""
    idx = [i for i, c in enumerate(cs) if c is not None]
    kept = dict(zip(idx, holm([cs[i].p for i in idx])))
    if any(v is Verdict.DISAGREES and kept.get(i, True) for i, v in enumerate(vs)):
        return Answer(FAILS, effect, effect_of=effect_of)
    if all(v is Verdict.AGREES for v in vs):
        return Answer(HOLDS, effect, effect_of=effect_of)
    det = [d if d is not None else c.detectable_ratio for v, c, d in zip(vs, cs, dets) if c is not None and not v.decided]
    return Answer(UNRESOLVED, effect, min(det) if det else None, effect_of)


def _difference(numbers) -> tuple:
    """The difference of the two intervals of ``numbers`` ({label: Interval}) and its name
    ("first / second"); (None, "") otherwise."""
    ivs = [(k, v) for k, v in numbers.items() if isinstance(v, Interval)]
    if len(ivs) != 2:
        return None, ""
    return difference(ivs[0][1], ivs[1][1]), f"{ivs[0][0]} / {ivs[1][0]}"


def matching(p: Part, judged) -> list:
    """The scorecard's sub-claims ``p`` names (``judged``: the scorecard's ``judge_all``); [None]
    where there is none, so that the part counts as not tested."""
    j = next((j for j in judged if j.claim.number == p.claim), None)
    found = [s for s in j.subclaims if p.label in s.label] if j is not None else []
    return found or [None]


def on_ours(rec: Recommendation, judged) -> Answer:
    """The answer on our data: the scorecard's sub-claims (after Holm)."""
    vs, cs, ns, ds = [], [], [], []
    for s in (s for p in rec.parts for s in matching(p, judged)):
        vs.append(s.verdict if s is not None else None)
        c, name = _difference(s.numbers) if s is not None and s.difference is not None else (None, "")
        cs.append(c), ns.append(name), ds.append(s.design_detectable if s is not None else None)
    out = answer(vs, cs, ns, ds)
    if out.effect is None:          # numbers that are not a ratio of two intervals, as the sub-claim states them
        first = next((s for p in rec.parts for s in matching(p, judged) if s is not None), None)
        if first is not None and first.numbers and not any(isinstance(v, Interval) for v in first.numbers.values()):
            out = replace(out, note="; ".join(f"{k} {v}" for k, v in first.numbers.items()))
    return out


def on_archive(rec: Recommendation, judged) -> Answer:
    """The answer on the authors' archived runs: each sub-claim's rule on them (``SubClaim.authors``)."""
    vs = [s.authors if s is not None else None for p in rec.parts for s in matching(p, judged)]
    return answer(vs, [None] * len(vs))


def on_authors_data(rec: Recommendation, ctx: Context) -> Answer:
    """The answer on our runs of the authors' own data (their clean solution and noise draw, each
    of our datasets one split of it): the study's summary on them, the same keys."""
    vs, cs, ns = [], [], []
    summaries: dict = {}
    for p in rec.parts:
        if p.study is None or p.key is None or not stores.committed_datasets(p.study, "authors"):
            vs.append(None), cs.append(None), ns.append("")
            continue
        if p.study not in summaries:
            st = REGISTRY[p.study]
            settings = st.authors_data_settings(ctx.scale(p.study))
            try:
                summaries[p.study] = st.summary(ctx.load(settings, ctx.scale(p.study), f"{st.title} (authors' data)"))
            except RuntimeError:
                summaries[p.study] = None
        s = summaries[p.study]
        v = s.verdicts.get(p.key) if s is not None else None
        vs.append(v)
        c, name = _difference(s.intervals.get(p.key, {})) if s is not None else (None, "")
        cs.append(c), ns.append(name)
    return answer(vs, cs, ns)


@dataclass(frozen=True)
class Row:
    recommendation: Recommendation
    ours: Answer
    authors_data: Answer
    archive: Answer


def table(ctx: Context, judged) -> list[Row]:
    """Every recommendation with its answers (``judged``: the scorecard's ``judge_all``)."""
    return [Row(r, on_ours(r, judged), on_authors_data(r, ctx), on_archive(r, judged)) for r in RECOMMENDATIONS]


def effect_finite(a: Answer) -> bool:
    return a.effect is not None and all(np.isfinite(x) for x in a.effect)
