"""The scorecard as data: every claim of the paper checked against the results, the choices
of ours that move a verdict, and what was run.  Words and tables: ``binn_utils.presentation.scorecard_text``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from . import runs_read, spanning
from ..analysis import results_table
from ..analysis.verdicts import Claim, ClaimCheck, Outcome, subclaim_id
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.sweep_record import reporting_checkpoint
from ..studies import REGISTRY, batch_size
from ..studies.base import asks_main_text
from .context import Context, RunRow, run_row


def claims() -> list[Claim]:
    """Every claim of the paper, by number: the studies' and the spanning ones."""
    return sorted([c for st in REGISTRY.values() for c in st.claims] + list(spanning.CLAIMS), key=lambda c: c.number)


def by_figure(which) -> list:
    """The registry's studies for which ``which(study)`` holds, by the paper's figure they
    repeat; those that repeat none last, in the registry's order."""
    return sorted((s for s in REGISTRY.values() if which(s)),
                  key=lambda s: (s.paper_figure is None, s.paper_figure or 0))


@dataclass(frozen=True)
class Judged:
    """A claim and what checking it found (``check`` None: results it needs are not stored,
    and may not be trained; ``error`` says which)."""

    claim: Claim
    check: ClaimCheck | None
    error: str = ""

    @property
    def outcome(self) -> Outcome:
        return self.check.outcome if self.check else Outcome.NOT_TESTED

    @property
    def unstored(self) -> bool:
        """Not tested because results it needs are not stored yet."""
        return self.outcome is Outcome.NOT_TESTED and (self.check is None or self.check.missing)

    @property
    def subclaims(self) -> tuple:
        return self.check.subclaims if self.check else ()


def judge(claim: Claim, ctx: Context, **choices) -> Judged:
    """Check one claim (with ``choices``: keyword arguments of its check)."""
    try:
        return Judged(claim, claim.check(ctx, **choices).with_primary(claim.primary))
    except RuntimeError as err:  # results not stored (and not to be trained here, or BINN_REQUIRE_STORED=1)
        return Judged(claim, None, str(err))


def judge_all(ctx: Context) -> list[Judged]:
    return [judge(c, ctx) for c in claims()]


def judge_chapter(ctx: Context, chapter: str) -> list[Judged]:
    """The claims whose evidence chapter ``chapter`` shows, checked as the scorecard checks them."""
    return [judge(c, ctx) for c in claims() if c.chapter == chapter]


#: the chapter parameters that ``asks_main_text`` reads; any other that :func:`chapter_verdicts`
#: is given (a swept list, another initial condition) must be None, its default
MAIN_TEXT_PARAMETERS = ("scale", "noise_var", "dense", "epochs", "seeds", "reaction")


def chapter_verdicts(chapter: str, params: Mapping, source=None) -> list[Judged] | None:
    """The scorecard's verdicts on the claims chapter ``chapter`` shows (:func:`judge_chapter`,
    the committed results, read from ``source`` as the chapter reads them), where its
    parameters ``params`` ask for the committed main-text configuration those verdicts read
    (``asks_main_text``, and every other parameter given None); None where they do not."""
    study = next((st for st in REGISTRY.values() if st.chapter == chapter), None)
    if study is None:
        raise ValueError(f"no study has the chapter {chapter!r}")
    if not asks_main_text(study.name, params) or any(
            v is not None for k, v in params.items() if k not in MAIN_TEXT_PARAMETERS):
        return None
    return judge_chapter(Context(source=source), chapter)


def scorecard_verdicts(judged: list[Judged]) -> dict[str, str]:
    """{:func:`subclaim_id`: the verdict's word} of every sub-claim the scorecard judges (after Holm)."""
    return {subclaim_id(j.claim.number, s): s.verdict.value for j in judged for s in j.subclaims}


def scorecard_outcomes(judged: list[Judged]) -> dict[str, str]:
    """{claim number: its outcome's word} of every claim the scorecard judges."""
    return {str(j.claim.number): j.outcome.value for j in judged}


def held_summary(summary, judged: list[Judged] | None):
    """A chapter's study summary with the scorecard's verdicts: each comparison decided on the
    intervals of one of the scorecard's sub-claims (the same numbers) takes that sub-claim's verdict
    and its :func:`subclaim_id` (``summary.tests``; a sub-claim's ``keys`` name the comparisons it repeats
    where its numbers do not, several of them the parts of its sentence, ``summary.parts``); where Holm's correction over its claim took the
    decision away (``SubClaim.alone``), its words say what it gave alone.  The summary given is not
    changed (a copy).  ``judged``: ``chapter_verdicts``'s (None: the chapter was run with other
    parameters, and its verdicts speak of that run alone: the summary as it is)."""
    import copy
    if not judged:
        return summary
    out = copy.deepcopy(summary)
    for j in judged:
        n = sum(1 for s in j.subclaims if s.difference is not None)
        for sub in j.subclaims:
            keys = sub.keys or tuple(k for k, ivs in summary.intervals.items() if sub.numbers and ivs == dict(sub.numbers))
            for key in (k for k in keys if k not in out.tests and k in summary.verdicts):
                out.tests[key] = subclaim_id(j.claim.number, sub)
                if len(sub.keys) > 1:       # a part of the sentence the sub-claim judges: its own word stands
                    out.parts.add(key)
                elif summary.verdicts[key] is not sub.verdict:
                    out.judge(key, sub.verdict)
                    if sub.alone is not None:
                        out[key] += (f" (alone it {sub.alone.value}, but not once claim {j.claim.number}'s {n} "
                                     "comparisons are held to 95 % together, as the scorecard holds them)")
    return out


@dataclass(frozen=True)
class ChoiceEffect:
    """One of our choices, its alternative, and the claims whose verdict the alternative
    changes (``changed``: (ours, theirs) pairs)."""

    ours: str
    alternative: str
    changed: tuple[tuple[Judged, Judged], ...]


def _verdict(j: Judged):
    return j.outcome, j.unstored


def choice_effects(ctx: Context, judged: list[Judged]) -> list[ChoiceEffect]:
    """Each choice of ours where the authors' text and code differ, with the verdicts the
    alternative gives: the networks evaluated (every claim), then the studies' ``choices``."""
    ours = {j.claim.number: j for j in judged}

    def effect(mine, other, theirs):
        return ChoiceEffect(mine, other, tuple((ours[t.claim.number], t) for t in theirs
                                               if _verdict(t) != _verdict(ours[t.claim.number])))

    with reporting_checkpoint("final"):
        final = judge_all(ctx)
    out = [effect("networks evaluated: best validation loss (the authors' code)", "final networks", final)]
    for st in by_figure(lambda s: s.choices):
        for ch in st.choices:
            out.append(effect(ch.ours, ch.alternative, [judge(c, ctx, **ch.overrides) for c in st.claims]))
    return out


def runs(ctx: Context) -> list[RunRow]:
    """The table of what was run: every study and configuration the book reads (the
    studies' ``shown`` rows, by figure; the further configurations the chapters read; the
    Supporting Material repeats; the fits), each from the store."""
    out = []
    for st in by_figure(lambda s: s.shown):
        scale = ctx.scale(st.name)
        for sh in st.shown:
            source = REGISTRY[sh.variant or st.name]
            # a variant on the datasets its chapter reads (the committed main text's)
            overrides = {**sh.overrides, **({"datasets": ctx.datasets(source.name)}
                                            if sh.variant and ctx.datasets(source.name) else {})}
            groups = source.groups(scale, **overrides)
            settings = groups[sh.part] if sh.part is not None else [s for g in groups for s in g]
            try:
                if sh.variant or sh.overrides:
                    res = ctx.variant(source.name, f"{st.title} ({sh.what})", scale=scale, **overrides)
                else:
                    res = ctx.study(st.name)
                    res = res[sh.part] if sh.part is not None else res
            except RuntimeError:
                res = None
            out.append(run_row(sh.what, settings, res, (scale,)))
    return (out + runs_read.chapter_rows(ctx) + spanning.supporting_rows(ctx) + runs_read.reference_rows(ctx)
            + runs_read.fit_rows())


#: The studies whose chapters set every setting beside the authors' archived runs of the same
#: configuration (ten initialisations each, the paper's noise level), and the errors compared:
#: {study: (archived study, swept columns, quantities of the per-setting table, norms, the archive's rows)}
#: (``results_table.against_datasets``, ``figure_ratio``); one norm each, the book's, so that no
#: networks are counted twice (the architecture chapter adds the spectral)
ARCHIVE_COMPARED = {"learning_rate": ("learning_rate", ("lr",), ("err_u_theta", "err_u_p"), ("frobenius",), {}),
                    "loss_weight": ("loss_weight", ("w_pde",), ("err_u_theta", "err_u_p"), ("frobenius",), {}),
                    "architecture": ("architecture", ("arch_D", "arch_V"), ("err_u_p",), ("frobenius",), {}),
                    "batch_size_authors": ("batch_size", ("batch_size",), ("err_u_theta", "err_u_p"), ("frobenius",),
                                           batch_size.AUTHORS_ARCHIVED)}


@dataclass(frozen=True)
class Fidelity:
    """Our runs beside the authors' archived ones, one row per paper figure, error and data our
    runs were trained on ("ours", "authors"): the ratio ours / theirs pooled over the figure's
    settings with its intervals and the decision at ``margin`` (``results_table.figure_ratio``,
    the dataset the unit).  Columns: ``data``, ``figure``, and ``figure_ratio``'s."""

    ratios: pd.DataFrame
    margin: float

    def of(self, data: str) -> pd.DataFrame:
        return self.ratios[self.ratios["data"] == data]


def fidelity(ctx: Context) -> Fidelity | None:
    """:class:`Fidelity` of the committed main text (None at another fixed scale, or where no
    figure of ours is stored beside the authors' archive)."""
    if ctx.fixed_scale:
        return None
    rows = []
    for name, (archive, by, quantities, norms, where) in ARCHIVE_COMPARED.items():
        st = REGISTRY[name]
        try:
            ours = ctx.study(name)
        except RuntimeError:
            continue
        theirs = pd.concat([results_table.authors_table(archive, DEFAULT_NOISE_VAR, norm=n) for n in norms])
        for column, value in where.items():
            theirs = theirs[theirs[column] == value]
        runs = {"ours": ours}
        settings = st.authors_data_settings(ctx.scale(name))
        if settings:
            runs["authors"] = ctx.load(settings, ctx.scale(name), f"{st.title} study (authors' data)")
        for data, results in runs.items():
            t = results_table.figure_ratio(results_table.table(results, norms=norms), theirs, list(by),
                                           quantities=("err_u_theta", "err_u_p"))
            rows += [{"data": data, "figure": REGISTRY[archive].paper_figure, **r} for r in t.to_dict("records")]
    if not rows:
        return None
    return Fidelity(pd.DataFrame(rows), results_table.EQUIVALENCE_MARGIN)
