"""The scorecard in words: verdict marks, the claims table, the headline box (the landing page's,
briefer, is ``landing_text``'s), the details of every claim, the table of our
choices and the table of what was run, from the data of ``binn_utils.claims.scorecard``.
Nothing here changes a verdict."""
from __future__ import annotations

import html
from collections import Counter

from ..analysis.reporting import and_list, table_cell
from ..analysis.contrasts import POWER
from ..analysis.verdicts import COUNTED, LEVEL, OUTCOME_RULE, Interval, Outcome, Verdict, family_size
from ..claims.context import RunRow
from ..claims.scorecard import ChoiceEffect, Judged
from .authors_figures import DATA_WORDS, fidelity_sentence, fidelity_table_md  # noqa: F401 (the answer's)
from .tables import QUANTITY_WORDS, in_words
from .recommendations_text import recommendations_box_md
from .verdict_marks import mark_md

#: the outcomes of claims that do not simply hold: the box under the answer names what holds each back
FAILING = (Outcome.FAILS, Outcome.HOLDS_EXCEPT, Outcome.UNRESOLVED)
SYMBOLS_TEX = {"u_theta": "$u_\\theta$", "u_p": "$u_\\mathrm{p}$", "w_PDE/w_data": "$w_\\mathrm{PDE}/w_\\mathrm{data}$",
               "T ∝ 1/B": "$T \\propto 1/B$", "B = 40-160": "$B$ = 40-160", "u = 0": "$u = 0$", "D ": "$D$ ",
               "V and G": "$V$ and $G$"}
PROVENANCE_HEAD = ["results", "data", "scale", "settings", "epochs",
                   "replicates per setting (datasets × initialisations)", "trained on (settings)",
                   "integrator of the forward solution (settings)"]


def verdict_words(j: Judged, counts: bool = True) -> str:
    """'holds, with exceptions (of 5 sub-claims: 2 agree, 3 disagree)', or 'not tested (results not stored yet)'."""
    if j.unstored or not counts:
        return j.outcome.value + (" (results not stored yet)" if j.unstored else "")
    vs = [s.verdict for s in j.subclaims]
    counts = ", ".join(f"{n} {w}" for n, w in ((vs.count(Verdict.AGREES), "agree"), (vs.count(Verdict.DISAGREES), "disagree"),
                                              (vs.count(Verdict.INDISTINCT), "cannot be distinguished")) if n)
    return j.outcome.value + (f" (of {len(vs)} sub-claims: {counts}{_uncounted(vs, '; ')})" if counts else "")


def _uncounted(verdicts, lead: str = ", ") -> str:
    """'; 1 not tested' for the sub-claims that do not count towards the outcome ('' if none)."""
    return "".join(f"{lead}{n} {v.value}" for v in (Verdict.UNDECIDED, Verdict.NOT_TESTED) if (n := verdicts.count(v)))


def outcome_rule_md() -> str:
    """How a claim's verdict follows from its sub-claims' (``verdicts.aggregate``), as MyST:
    the rule's own words (``verdicts.COUNTED``, ``verdicts.OUTCOME_RULE``)."""
    return "\n".join([COUNTED, ""] + [f"* **{o.value}** {words};" for o, _, words in OUTCOME_RULE])[:-1] + "."


def intervals_words(numbers) -> str:
    """The intervals a sub-claim was decided on, saying which they are ('medians of the datasets'
    medians with their 95 % intervals: u_theta 0.08 [0.07, 0.09]; ...', or 'medians over the
    networks' from one dataset; each named once; another estimate's as it is)."""
    level = f"{100 * LEVEL:g} %"
    whats = {v.what if isinstance(v, Interval) else None for v in numbers.values()}
    items = "; ".join(f"{k} {v}" for k, v in numbers.items())
    if whats == {"median"}:
        over = {v.datasets > 1 for v in numbers.values()}      # several datasets: the median of their medians
        which = {frozenset({True}): "medians of the datasets' medians", frozenset({False}): "medians over the networks"}
        return f"{which.get(frozenset(over), 'medians')} with their {level} intervals: {items}"
    if whats == {"IQR"}:
        return f"interquartile ranges with their {level} bootstrap intervals: {items}"
    named = {"median": f"median with its {level} interval", "IQR": f"IQR with its {level} bootstrap interval"}
    said = [isinstance(v, Interval) and v.what in named and k.lower().startswith(v.what.lower()) for k, v in numbers.items()]
    body = "; ".join(f"{k} ({named[v.what]}) {v}" if isinstance(v, Interval) and v.what in named and not ok  # a name
                     else f"{k} {v}" for (k, v), ok in zip(numbers.items(), said))            # that says its statistic
    return (f"each with its {level} interval: " if all(said) else "") + body


def _num(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.2e}"


def difference_words(s, subclaims=()) -> str:
    """The difference a sub-claim was decided on, for a reader: 'u_p near zero / u_theta near
    zero: ratio 2.1 [1.6, 2.9], 1 dataset × 10 initialisations, the same networks paired';
    where it cannot be distinguished, the smallest effect this design finds 80 % of the time (over
    several datasets: from the per-dataset spread pooled over its family, ``verdicts.design_detectable``);
    where Holm took a decision away, what it gave alone; with several datasets, on how many
    one dataset alone would have decided otherwise.  Empty where it was not decided on one
    difference (``subclaims``: its claim's, for the size of its family)."""
    c = s.difference
    if c is None:
        return ""
    a, b = [k for k, v in s.numbers.items() if isinstance(v, Interval)]
    est, lo, hi = c.ratio
    what = "ratio" if c.scale == "log" else "difference"
    runs = (f"{c.datasets} dataset{'s' if c.datasets > 1 else ''} × {c.inits} initialisations"
            + (", the same networks paired" if c.paired else "")
            + (", the datasets paired" if c.datasets > 1 and not c.paired else ""))
    out = f"{a} against {b}: {what} {_num(est)} [{_num(lo)}, {_num(hi)}] ({runs})"
    if s.verdict is Verdict.INDISTINCT and s.alone is None:
        det = s.design_detectable if s.design_detectable is not None else c.detectable_ratio
        out += ("; this design would find " + (f"a ratio of {_num(det)} (or 1/{_num(det)})" if c.scale == "log"
                                               else f"a difference of ±{_num(det)}")
                + f" {100 * POWER:g} % of the time" if det < float("inf") else "; too few runs to find any difference")
    if s.alone is not None:
        out += (f"; alone it {s.alone.value}, but not once the {family_size(subclaims, s.group)} comparisons of "
                f"its family are held to {100 * LEVEL:g} % together (Holm)")
    if c.single_differ:
        out += f"; one dataset alone would have decided otherwise on {c.single_differ} of {c.datasets}"
    return out


def decision_md() -> str:
    """How a sub-claim is decided, in the words of the code that decides it
    (``analysis.contrasts``, ``verdicts.expect``, ``verdicts.adjust_family``)."""
    lv = f"{100 * LEVEL:g} %"
    return (f"A comparison of two settings (or of two quantities of the same runs) is decided on the "
            f"{lv} interval of their difference, as a ratio of errors: *agrees* when the interval lies on "
            "the side the paper's sentence says, *disagrees* when on the other, *cannot be distinguished* "
            "when it contains a ratio of 1. Where the paper's sentence claims sameness (\"performs at "
            "least as well\", \"centred close to\") the interval is held against a margin named with "
            "the sub-claim and listed among our readings of the paper's words: *agrees* when it lies "
            "within the margin, *disagrees* when wholly beyond it, *cannot be distinguished* when it "
            "crosses the margin's edge. The dataset (a split and a noise draw) is the unit: within "
            "each dataset the difference is the Hodges–Lehmann estimate over its initialisations (of the "
            "per-network differences where the same networks are measured twice); over several datasets "
            "the estimate is the mean of the per-dataset differences with its Student-t interval (paired by "
            "dataset), so correlated initialisations are never counted as independent; on one dataset, the "
            "exact distribution-free rank interval of its initialisations, which speaks of that dataset "
            "only. Where the difference cannot be distinguished the smallest effect the design would have "
            f"found {100 * POWER:g} % of the time is given (over several datasets from the spread of the "
            "per-dataset effects pooled over the claim's comparisons, not one comparison's few datasets), so "
            "that 'the same within a few per cent' and "
            "'too few runs' read differently. The comparisons of one claim (of one configuration, for the "
            f"Supporting Material repeats) are held to {100 * LEVEL:g} % together by Holm's procedure; "
            "a sub-claim made of several comparisons (one setting against every other, every noise level) "
            "needs every one of them to hold to agree, and disagrees only when one goes the other way after "
            "Holm's correction for their number. Spreads between initialisations (interquartile ranges within "
            f"a dataset) are compared on the {lv} interval of their ratio in the same way: a bootstrap of the "
            "initialisations on one dataset (conservative: it errs less often than it may), the Student-t "
            "interval of the per-dataset ratios over several. "
            "The synthetic checks of this rule (coverage, the rate of false decisions, power) are in "
            "`tests/test_contrasts.py` and `benchmarks/contrast_power.py`.")


def title_tex(claim) -> str:
    """The short title of a claim with its symbols as math."""
    t = claim.title
    for plain, tex in SYMBOLS_TEX.items():
        t = t.replace(plain, tex)
    return t


def labelled(s) -> str:
    """A sub-claim's label with its rule, e.g. '(4, 4) recovers D (median rel. error at most 0.1)'."""
    return f"{s.label} ({s.rule})" if s.rule else s.label


def what_failed(subclaims, most: int = 4) -> str:
    """The sub-claims that disagree with the paper, in words (grouped ones with their group)."""
    out = [(f"{s.group}: " if s.group else "") + f"“{s.label}”"
           for s in subclaims if s.verdict is Verdict.DISAGREES]
    if len(out) > most + 1:                 # "and 1 more" would hide what one more name says
        out = out[:most] + [f"and {len(out) - most} more"]
    return "; ".join(out)


def holding_back(subclaims, most: int = 2) -> str:
    """What keeps a claim from simply holding, in words: "disagreeing: " and the sub-claims that
    disagree (as the scorecard's table names them); where none does, "held back by " and the parts
    of its primary statement that are not resolved, then the others, each with its verdict
    (untested ones last: they never decide)."""
    if any(s.verdict is Verdict.DISAGREES for s in subclaims):
        return "disagreeing: " + what_failed(subclaims, most)
    rank = sorted((s for s in subclaims if s.verdict is not Verdict.AGREES),
                  key=lambda s: (s.verdict is Verdict.NOT_TESTED, not s.primary))
    out = [(f"{s.group}: " if s.group else "") + f"“{s.label}” ({s.verdict.value})" for s in rank]
    if len(out) > most + 1:                 # "and 1 more" would hide what one more name says
        out = out[:most] + [f"and {len(out) - most} more"]
    return "held back by " + "; ".join(out) if out else ""


def tally(subclaims) -> str:
    """'sub-claims: 3 agree, 1 disagrees, 1 not tested'."""
    words = [s.verdict for s in subclaims]
    plural = {Verdict.AGREES: "agree", Verdict.DISAGREES: "disagree"}
    parts = [f"{n} {k.value if n == 1 else plural.get(k, k.value)}" for k in Verdict if (n := words.count(k))]
    return f"sub-claims: {', '.join(parts)}"


#: The label of a claim's numbers on the scorecard: which median they are, against the sub-claims'.
OURS = ("*Ours.* The medians and spreads in this paragraph are pooled over all of a setting's networks, as its "
        "figure draws them. Each sub-claim below decides on its own interval, the dataset the unit: over several "
        "datasets, that of the median of the datasets' medians, which can differ from the pooled median.")


def evidence(j: Judged) -> str:
    """Our evidence for a claim: its numbers and the chapters (its sub-claims are counted in the
    title of the fold it opens, and in the claims table)."""
    if j.check is None:
        return f"Results not stored yet: {j.error}."
    links = ", ".join(f"{{doc}}`{c}`" for c in j.check.chapters)
    return f"{j.check.evidence}. See {links}."


def counts(judged: list[Judged]) -> dict[Outcome, int]:
    """How many claims have each outcome, in the order the scorecard counts them."""
    return {o: sum(j.outcome is o for j in judged) for o in Outcome}


def claims_table(judged: list[Judged]) -> str:
    """One row per claim: verdict, and for a claim that does not simply hold the sub-claims that
    disagree in the same cell (a column of its own would stand empty in most rows), then the short
    title with its chapter."""
    table = ["| # | verdict | claim (chapter) |", "| --- | --- | --- |"]
    for j in judged:
        failed = what_failed(j.subclaims) if j.outcome in FAILING else ""
        table.append(f"| [{j.claim.number}](#{claim_anchor(j.claim)}) | {mark_md(j.outcome, verdict_words(j))}"
                     + (f"; disagreeing: {table_cell(failed)}" if failed else "") + " | "
                     f"{table_cell(title_tex(j.claim))} ({{doc}}`{j.claim.figure} <{j.claim.chapter}>`) |")
    return "\n".join(table)


def choices_table(effects: list[ChoiceEffect]) -> str:
    rows = ["| our choice | alternative | claims whose verdict changes |", "| --- | --- | --- |"]
    for e in effects:
        changed = [f"claim {o.claim.number}: {verdict_words(o, False)} → {verdict_words(t, False)}"
                   for o, t in e.changed]
        rows.append(f"| {e.ours} | {e.alternative} | {'; '.join(changed) or 'none'} |")
    return in_words("\n".join(rows))   # (the package's names of quantities in the book's words)


def _failing(judged: list[Judged]) -> list[Judged]:
    """The claims that do not simply hold, in the order of ``FAILING``."""
    return sorted([j for j in judged if j.outcome in FAILING],
                  key=lambda j: (FAILING.index(j.outcome), j.claim.number))


def headline_md(judged: list[Judged], fidelity=None, recommendations=None) -> str:
    """The headline box of the scorecard (MyST); ``fidelity``: ``scorecard.fidelity``'s;
    ``recommendations``: ``recommendations.table``'s rows, in a box before it."""
    # the summary once: the answer counts the verdicts and names the claims; the table of the
    # claims below gives each one's (the landing page says it briefly: landing_text)
    lines = ([recommendations_box_md(recommendations), ""] if recommendations else []) + [
             "```{admonition} The answer in brief", ":class: note", "", plain_answer_md(judged, fidelity), "```"]
    return "\n".join(lines)


#: an outcome's words after a count: one ("1 is not resolved"), or more ("3 hold")
SINGULAR_OUTCOMES = {Outcome.HOLDS: "holds", Outcome.HOLDS_EXCEPT: "holds, with exceptions", Outcome.FAILS: "does not hold",
                     Outcome.UNRESOLVED: "is not resolved", Outcome.NOT_TESTED: "is not tested"}
PLURAL_OUTCOMES = {Outcome.HOLDS: "hold", Outcome.HOLDS_EXCEPT: "hold, with exceptions", Outcome.FAILS: "do not hold",
                   Outcome.UNRESOLVED: "are not resolved", Outcome.NOT_TESTED: "are not tested"}


def plain_answer(judged: list[Judged], fidelity=None) -> list[str]:
    """At most ten short sentences for a modeller deciding how to train a BINN, from the
    typed verdicts and the intervals: how many claims hold, which hold in full and which not
    at all, the sub-claims our runs contradict, what the authors' archived runs say by the same rules, whether our runs are theirs
    (``fidelity``: ``scorecard.fidelity``'s), and how well the operators are recovered at the
    recommended settings."""
    by = {o: [j for j in judged if j.outcome is o] for o in Outcome}

    def named(js):
        return "; ".join(f"{title_tex(j.claim)} (claim {j.claim.number}{_not_counted(j)})" for j in js)

    def claims(js):
        return ("claims " if len(js) > 1 else "claim ") + and_list(j.claim.number for j in js)

    def tally(verdicts, agree="agree"):
        return (f"{verdicts.count(Verdict.AGREES)} {agree}, {verdicts.count(Verdict.DISAGREES)} disagree and "
                f"{verdicts.count(Verdict.INDISTINCT)} cannot be distinguished")

    said = [f"{len(by[o])} {SINGULAR_OUTCOMES[o] if len(by[o]) == 1 else PLURAL_OUTCOMES[o]}" for o in Outcome if by[o]]
    # an outcome's word can hold a comma ("hold, with exceptions"): the counts are set apart by semicolons
    listed = "; ".join(said[:-1]) + "; and " + said[-1] if len(said) > 1 else and_list(said)
    out = [f"Of the paper's {len(judged)} claims, tested on their primary statements: " + listed + ".",
           f"A comparison agrees or disagrees with the paper only where the {100 * LEVEL:g} % interval of the "
           "difference it makes leaves out zero (a ratio of 1), the comparisons of a claim held to that level "
           "together; a sub-claim that was not tested never decides."]
    for o, head in ((Outcome.HOLDS, "Hold"), (Outcome.HOLDS_EXCEPT, "Hold, with exceptions"),
                    (Outcome.FAILS, "Do not hold"), (Outcome.UNRESOLVED, "Not resolved with these runs")):
        if by[o]:
            out.append(f"{head}: {named(by[o])}.")
    out += [f"On claim {j.claim.number}, {title_tex(j.claim)}: {j.check.caveat}." for j in judged
            if j.check is not None and j.check.caveat]
    # those that make a claim fail first (its primary statement), so that a shortened list names them
    against = [f"“{(s.group + ': ') if s.group else ''}{s.label}” (claim {j.claim.number})"
               for j, s in sorted(((j, s) for j in judged for s in j.subclaims if s.verdict is Verdict.DISAGREES),
                                  key=lambda js: (js[0].outcome is not Outcome.FAILS, not js[1].primary))]
    if against:
        shown = against if len(against) <= 5 else against[:4] + [f"and {len(against) - 4} more"]
        out.append(f"The sub-claim{'s' if len(against) > 1 else ''} our runs contradict: " + "; ".join(shown) + ".")
    theirs = [(j, [s.authors for s in j.subclaims if s.authors is not None]) for j in judged]
    theirs = [(j, tv) for j, tv in theirs if tv]
    if theirs:
        out.append(f"The authors' own archived runs, judged by the same rules, bear on "
                   f"{claims([j for j, _ in theirs])}: of those sub-claims, "
                   f"{tally([v for _, tv in theirs for v in tv], 'agree with the paper')}.")
    if fidelity is not None:
        out.append(fidelity_sentence(fidelity))
    diffs = [s.difference for j in judged for s in j.subclaims if s.difference is not None]
    if diffs:
        one = sum(c.datasets == 1 for c in diffs)
        out.append(f"Of the {len(diffs)} comparisons decided on the difference between two settings (or two "
                   f"quantities of the same runs), {one} rest on one dataset, a single split and noise draw as in the "
                   f"paper's design, and speak of that dataset only; {len(diffs) - one} rest on several datasets, "
                   "the dataset as the unit.")
    nums = [(k, v) for j in judged if j.check for k, v in j.check.numbers.items()]
    if nums:
        out.append(f"At the recommended settings, the median relative error over initialisations [its "
                   f"{100 * LEVEL:g} % interval] "
                   "of " + "; of ".join(f"{k} is {v}" for k, v in nums) + ".")
    return out


def _not_counted(j: Judged) -> str:
    """'; 1 of its 3 sub-claims not tested' for a claim some of whose sub-claims were not
    compared (its outcome rests on the others only); '' if every one was."""
    vs = [s.verdict for s in j.subclaims]
    rest = _uncounted(vs)[2:]                     # '1 not tested', '1 cannot be decided, 2 not tested'
    if not rest:
        return ""
    n, words = rest.split(" ", 1)
    return f"; {n} of its {len(vs)} sub-claims {words}"


def plain_answer_md(judged: list[Judged], fidelity=None) -> str:
    """The answer's first sentence, then one bullet per sentence (MyST); the table of each figure
    beside the authors' runs after them."""
    first, *rest = plain_answer(judged, fidelity)
    table = ["", fidelity_table_md(fidelity)] if fidelity is not None else []
    return "\n".join([first, ""] + [f"* {x}" for x in rest] + table)


def chapter_brief_md(judged: list[Judged] | None) -> str:
    """The box at the top of a chapter (MyST): the scorecard's verdict on each claim the chapter
    shows, what holds it back, and a link to it on the scorecard; ``None`` where the chapter was
    run with other parameters than the committed main-text configuration the verdicts read."""
    lines = ["```{admonition} In brief", ":class: tip", ""]
    if judged is None:
        lines += ["This run's parameters are not the committed main-text configuration that the scorecard's "
                  "verdicts read, so they are not repeated here; the verdict section below speaks of this run "
                  "only.", "```"]
        return "\n".join(lines)
    for j in judged:
        if j.check is None:
            lines.append(f"* Claim {j.claim.number}, {title_tex(j.claim)}: results not stored yet.")
            continue
        back = holding_back(j.subclaims) if j.outcome is not Outcome.HOLDS else ""
        lines.append(f"* Claim {j.claim.number}, {title_tex(j.claim)}: {mark_md(j.outcome, verdict_words(j))}"
                     + (f"; {back}" if back else "") + (f"; {j.check.caveat}" if j.check.caveat else "") + ". "
                     f"{{ref}}`On the scorecard <{claim_anchor(j.claim)}>`.")
    lines += ["", "The verdict section below gives each comparison with its numbers.", "```"]
    return "\n".join(lines)


def claim_anchor(claim) -> str:
    """The anchor of a claim's details on the scorecard page ('sc-claim-7')."""
    return f"sc-claim-{claim.number}"


#: The verdicts as the heads of a table's columns of counts.
_COLUMN = {Verdict.AGREES: "agree", Verdict.DISAGREES: "disagree", Verdict.INDISTINCT: "cannot be distinguished",
           Verdict.UNDECIDED: "cannot be decided", Verdict.NOT_TESTED: "not tested"}


def _folded_title(lead: str, subclaims) -> str:
    """'Its 4 sub-claims: 3 agree, 1 disagrees', or 'Its sub-claim: agrees' for one."""
    subs = list(subclaims)
    return f"{lead} {len(subs)} {tally(subs)}" if len(subs) > 1 else f"{lead} 1 sub-claim: {subs[0].verdict.value}"


def _dropdown(title: str, table: list[str], lead: str = "") -> list[str]:
    """A folded table (MyST dropdown): its title always shown, its table's lines (after ``lead``,
    a paragraph) on a click."""
    return [f":::{{dropdown}} {title}", *([lead, ""] if lead else []), *table, ":::", ""]


def subclaims_table(subs, subclaims=()) -> list[str]:
    """Sub-claims ``subs`` as a table (its lines; none without sub-claims): each one's words and rule,
    its verdict (and the authors' runs' where they bear on it), the numbers it rests on and the
    difference it was decided on (``subclaims``: all of its claim's, for the size of its family)."""
    if not subs:
        return []
    authors = any(s.authors is not None for s in subs)
    head = ["sub-claim (our rule)", "verdict"] + (["the authors' runs"] if authors else []) + [
        "our numbers", "the difference decided on"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in subs:
        cells = [labelled(s), f"*{s.verdict.value}*"] + ([f"*{s.authors.value}*" if s.authors else "–"] if authors else [])
        cells += [intervals_words(s.numbers) if s.numbers else "–", difference_words(s, subclaims) or "–"]
        out.append("| " + " | ".join(table_cell(c) for c in cells) + " |")
    return out


def details_md(judged: list[Judged]) -> str:
    """Each claim in the paper's words, its evidence, our numbers and every sub-claim, under an
    anchor of its own (:func:`claim_anchor`); our numbers and the sub-claims folded, a claim that
    spans several configurations (claim 11) as a table of their tallies with one fold per
    configuration."""
    lines = []
    for j in judged:
        numbers = evidence(j)  # the runs are in the table of what was run
        quote = (f"> “{j.claim.quote}” ({j.claim.where})" if j.claim.quote else "")
        # (its sub-claims counted once: in the title of the fold below, and in the claims table)
        lines += [f"({claim_anchor(j.claim)})=", f"**Claim {j.claim.number}** {mark_md(j.outcome, verdict_words(j, False))}",
                  "", quote, "",
                  f"*Our test of it:* {j.claim.text} *The paper's evidence:* {j.claim.paper_evidence}", ""]
        groups: dict = {}
        for s in j.subclaims:
            groups.setdefault(s.group, []).append(s)
        if set(groups) == {None}:
            lines += _dropdown(_folded_title("Our numbers and its", j.subclaims),
                               subclaims_table(groups[None], j.subclaims), f"{OURS} {numbers}")
            continue
        lines += _dropdown("Our numbers", [], f"{OURS} {numbers}")
        lines += ["| configuration | " + " | ".join(_COLUMN[v] for v in Verdict) + " |",
                  "| --- |" + " --- |" * len(Verdict)]
        for group, items in groups.items():
            vs = [s.verdict for s in items]
            lines.append(f"| {group or 'all'} | " + " | ".join(str(vs.count(v) or "") for v in Verdict) + " |")
        lines.append("")
        for group, items in groups.items():
            lines += _dropdown(_folded_title(f"{group or 'all'},", items), subclaims_table(items, j.subclaims))
    return in_words("\n".join(lines))   # (the package's names of quantities in the book's words)


def _hardware(device: str) -> str:
    if device.startswith("cuda"):
        return f"GPU ({device.split(':', 1)[1].strip()})" if ":" in device else "GPU"
    return "CPU"


def _counted(values) -> str:
    c = Counter(values)
    return ", ".join(f"{k}" if len(c) == 1 else f"{k}: {n}" for k, n in c.items())


def data_words(row: RunRow) -> str:
    """'σ² = 0.001, 71 points', or 'σ² = 0 to 0.05, 351 points' (a fit's: its data in words)."""
    if row.data:
        return row.data
    nv = row.noise_vars
    levels = f"{nv[0]:g}" if len(nv) == 1 else f"{nv[0]:g} to {nv[-1]:g}"
    return f"σ² = {levels}, {351 if row.dense else 71} points"


def provenance_cells(row: RunRow) -> list[str]:
    """A row of the table of what was run, as the cells under ``PROVENANCE_HEAD``."""
    head = [row.what, data_words(row), "/".join(row.scales)]
    if not row.stored:
        return head + ["not stored yet", "", "", "", ""]
    epochs = sorted(set(row.epochs))
    ep = f"{epochs[0]:,}" if len(epochs) == 1 else f"{epochs[0]:,}-{epochs[-1]:,}"
    rp = ", ".join(f"{d} × {k}" for d, k in sorted(set(row.replicates), reverse=True))   # "1 × 10": one dataset, said
    return head + [str(len(row.epochs)), ep, rp, _counted(_hardware(d) for d in row.devices), _counted(row.solvers)]


def provenance_html(rows: list[RunRow]) -> str:
    """The table of what was run (HTML)."""
    return ('<table class="table provenance-table"><thead><tr>'
            + "".join(f"<th>{html.escape(h)}</th>" for h in PROVENANCE_HEAD) + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in provenance_cells(r)) + "</tr>"
                      for r in rows)
            + "</tbody></table>")


def readings_md(sensitivities) -> str:
    """The table of our readings of the paper's words (``claims.readings.table``): each reading,
    where it comes from, the verdicts it decides, and whether they stand at its two neighbours."""
    lines = ["| the paper's words: our reading | from | decides | tried at | the verdicts |", "|---|---|---|---|---|"]
    for s in sensitivities:
        r = s.reading
        decides = and_list(f"claim {n}" for n in r.claims) if r.claims else "the agreement with the authors' runs"
        if s.value is None:
            tried, stands = "–", r.otherwise
        else:
            tried = " and ".join(_num(v) for v in s.tried)
            changed = [f"{_moved_what(what)}: {a} → {b}" for ms in s.moved for what, a, b in ms]
            stands = ("stand at both" if s.stands else
                      f"{len(changed)} move: " + "; ".join(changed[:3]) + ("; …" if len(changed) > 3 else ""))
        lines.append(f"| {r.words} | {r.source} | {decides} | {tried} | {stands} |")
    return "\n".join(lines)


def _moved_what(what) -> str:
    """A verdict a reading moved, in words: "claim n, its sub-claim" or "Fig. n, error on whose data"."""
    if len(what) == 2:
        return f"claim {what[0]}, {what[1]}"
    figure, data, quantity = what
    return f"Fig. {figure}, {QUANTITY_WORDS[quantity]} on {DATA_WORDS[data]}"

