"""The diagnostics chapter's tables and phrases, from
:class:`~binn_utils.analysis.diagnostic_calibration.Scored` and
:class:`~binn_utils.analysis.diagnostic_calibration.Calibration` (``titles`` maps a study's name, a group of
``Scored``, to the words a table shows for it).  Nothing here computes a number the chapter
judges by: that is the analysis layer's job.
"""
from __future__ import annotations

import re

from ..analysis.diagnostic_calibration import SHORT_NAMES, Calibration, Counts, Scored
from ..analysis.reporting import fmt
from .tables import in_words


#: The parts of a stored setting's label (``Setting.label``) in words, for the tables.
_LABEL_WORDS = ((re.compile(r"^w_pde=(\S+)"), r"PDE weight \1"), (re.compile(r"^r=(\S+)"), r"learning rate \1"),
                (re.compile(r"^sigma2=(\S+) u(\(.*\))"), r"noise variance \1, solution network \2"),
                (re.compile(r"^B=(\d+) budget=(\d+)"), r"B = \1, budget of \2 steps"),
                (re.compile(r"^B=(\d+) authors' budget"), r"B = \1, the authors' budget"),
                (re.compile(r"^B=(\d+)"), r"B = \1"),
                (re.compile(r"^D(\(.*?\)) V(\(.*?\))"), r"D network \1, V network \2"))


def setting_words(label: str) -> str:
    """A stored setting's label in words ("w_pde=0.0001": "PDE weight 0.0001"; "sigma2=0.001
    u(4, 32)": "noise variance 0.001, solution network (4, 32)"), as the tables show it."""
    for pattern, words in _LABEL_WORDS:
        if pattern.match(label):   # an exponent as the figures write it: 5e-7, not 5e-07
            return re.sub(r"(?<=\de)\+?(-?)0*(?=\d)", r"\1", pattern.sub(words, label, count=1))
    return label.replace("_", " ")


def short_flags(names) -> str:
    """The letters of some diagnostics' flags (e.g. 'U M'), '-' for none."""
    return " ".join(SHORT_NAMES[n] for n in names) or "-"


def _further(scored: Scored, i: int) -> list[str]:
    """The flags of setting ``i`` that do not count (the further checks beyond ``scored.signs``)."""
    return [n for n in scored.table[i].flags if n not in scored.signs]


def settings_table(scored: Scored, titles: dict) -> str:
    """Every setting: the flags that count, the further checks' flags, ground-truth errors,
    failure and outcome."""
    rows = ["| study | setting | flags | further checks | err $u_\\theta$ | err $u_\\mathrm{p}$ (x best) | operator errors | "
            "failure | outcome |", "|---|---|---|---|---|---|---|---|---|"]
    for i, (g, rep, v, out) in enumerate(zip(scored.groups, scored.table, scored.truth, scored.outcomes)):
        ops = ", ".join(f"{k} {fmt(e)}" for k, e in v["ops"].items())
        extra = f"; {v['bad']}/{v['R']} failed" if v["bad"] else ""
        rows.append(f"| {titles[g]} | {setting_words(rep.label)} | {short_flags(scored.flags(i))} | {short_flags(_further(scored, i))} "
                    f"| {fmt(v['theta'])} | "
                    f"{fmt(v['up'])} ({fmt(v['rel'], '.2g')}){extra} | {ops} | {'**yes**' if v['fail'] else 'no'} | "
                    f"{out} |")
    return "\n".join(rows)


def numbers_table(scored: Scored, columns) -> str:
    """The numbers behind the flags (``scored.table.to_markdown``: flagged values in bold), its
    heads and settings in words."""
    lines = scored.table.to_markdown(columns=list(columns)).split("\n")
    head, rule, body = lines[0], lines[1], lines[2:]
    head = in_words(head.replace("underfitting", "under-fitting").replace("overfitting", "over-fitting"))
    rows = []
    for row in body:
        cells = row.split(" | ")
        if columns and columns[0] == "setting" and cells:
            cells[0] = "| " + setting_words(cells[0].removeprefix("| ").strip())
        rows.append(" | ".join(cells))
    return "\n".join([head, rule, *rows])


def outcome_table(scored: Scored, titles: dict) -> str:
    """Hits, misses, false alarms and quiet settings per study and in all."""
    rows = ["| study | settings | failures | hits | misses | false alarms | quiet and fine |",
            "|---|---|---|---|---|---|---|"]
    for label, c in [(t, scored.counts(g)) for g, t in titles.items()] + [("**all**", scored.counts())]:
        rows.append(f"| {label} | {c['n']} | {c['hit'] + c['miss']} | {c['hit']} | {c['miss']} | "
                    f"{c['false alarm']} | {c['quiet and fine']} |")
    return "\n".join(rows)


def outcome_list(scored: Scored, titles: dict, which: str, most: int = 5) -> str:
    """'<study>: <setting>; ...' of the settings with outcome ``which`` (false alarms with
    their flags), 'none' if there are none; more than ``most``: how many in each study (the
    table above names them)."""
    hits = [i for i, o in enumerate(scored.outcomes) if o == which]
    if len(hits) > most:
        per = {g: sum(scored.groups[i] == g for i in hits) for g in dict.fromkeys(scored.groups[i] for i in hits)}
        return "; ".join(f"{titles[g]}: {n}" for g, n in per.items()) + " (each named in the table above)"
    out = [f"{titles[scored.groups[i]]}: {setting_words(scored.table[i].label)}"
           + (f" ({short_flags(scored.flags(i))})" if which == "false alarm" else "") for i in hits]
    return "; ".join(out) if out else "none"


def diagnostic_table(scored: Scored) -> str:
    """Per diagnostic: settings flagged, failures among them, failures only it flags (those
    beyond ``scored.signs`` marked as further checks)."""
    rows = ["| diagnostic | settings flagged | of which failures | failures no other flag that counts caught |",
            "|---|---|---|---|"]
    for n, (flagged, failures, alone) in scored.by_diagnostic().items():
        further = "" if n in scored.signs else ", a further check"
        rows.append(f"| {n.replace('_', ' ')} ({SHORT_NAMES[n]}{further}) | {flagged} | {failures} | {alone} |")
    return "\n".join(rows)


def _counts_cells(c: Counts) -> str:
    caught = f"{c.caught} / {c.failures}" + (f" ({100 * c.caught_rate:.0f}%)" if c.failures else "")
    false = f"{c.false_alarms} / {c.fine}" + (f" ({100 * c.false_alarm_rate:.0f}%)" if c.fine else "")
    return f"{caught} | {false}"


def counts_table(counted: dict) -> str:
    """One row per way a chapter counted flags against the truth (``counted``: {what was
    counted, in words: ``Counts``}): failures caught and false alarms, each with its rate."""
    rows = ["| counted on | caught / failures | false alarms / fine |", "|---|---|---|"]
    return "\n".join(rows + [f"| {what} | {_counts_cells(c)} |" for what, c in counted.items()])


def calibration_table(cal: Calibration) -> str:
    """Our default thresholds and the chosen ones, each on the part they were chosen on and the held-out part."""
    rows = ["| thresholds | settings | caught / failures | false alarms / fine |", "|---|---|---|---|"]
    for key, lab in (("module", "our defaults"), ("chosen", "chosen on the first part")):
        for part, plab in (("first", "first part (choice)"), ("second", "second part (held out)")):
            rows.append(f"| {lab} | {plab} | {_counts_cells(cal.counts[(key, part)])} |")
    return "\n".join(rows)


#: each threshold of ``analysis.diagnostic_thresholds`` as a reader names it
THRESHOLD_WORDS = {"UNDERFIT_TAIL_FRACTION": "under-fitting: share of the decrease in the last tenth",
                   "UNDERFIT_TAIL_DECADES": "under-fitting: decades fallen in the last tenth",
                   "INSTABILITY_ROUGHNESS": "instability: roughness of the loss (decades)",
                   "OVERFIT_FACTOR": "over-fitting: final over minimum loss", "MISMATCH_RATIO": "mismatch ratio",
                   "SPREAD_CV": "operator spread (coefficient of variation)",
                   "BALANCE_MIN": "loss balance: lowest weighted PDE / data loss",
                   "BALANCE_MAX": "loss balance: highest weighted PDE / data loss",
                   "WEIGHT_RATIO_MAX": "loss balance: weight ratio"}


def changed_thresholds(cal: Calibration) -> str:
    """'<threshold in words> old → new; ...' of the thresholds the choice changes."""
    out = [f"{THRESHOLD_WORDS.get(k, k)} {fmt(old, 'g')} → {fmt(new, 'g')}" for k, old, new in cal.changed()]
    return "; ".join(out) if out else "none (our default values)"


def rates(c: Counts) -> str:
    """'<caught>% caught, <false>% false alarms' ('n/a' without failures or fine settings)."""
    if not (c.failures and c.fine):
        return "n/a"
    return f"{100 * c.caught_rate:.0f}% caught, {100 * c.false_alarm_rate:.0f}% false alarms"


def paper_failures_table(scored: Scored, rows) -> str:
    """The settings where the paper reports a failure: the paper's three signs against the
    study's default (claim 12's comparison, ``diagnostics.signs_against_default``), the flags
    at our thresholds, the median u_p error and our ground truth there and at the default.
    ``rows``: (study, ``studies.PaperPoint``, the point's index in ``scored``, the default's
    index, its ``SignsAgainstDefault`` or None where it is not compared)."""
    out = ["| setting | the paper says | the paper's signs against the default | flags (further checks) "
           "| median err $u_\\mathrm{p}$ (x best) | ground truth (our rule) | at the default |", "|---|---|---|---|---|---|---|"]

    def truth(i):
        return "not run" if i is None else "failure" if scored.truth[i]["fail"] else "fine"
    for st, p, i, ref, against in rows:
        if i is None:
            out.append(f"| {st.problem}, {p.label} | {p.says} | not run | not run | not run | not run | {truth(ref)} |")
            continue
        v = scored.truth[i]
        other_noise = dict(p.point).get("noise_var", st.default.get("noise_var")) != st.default.get("noise_var")
        signs = (against.words() if against is not None else
                 "not compared: the default has another noise level, so other data" if other_noise else "not compared")
        flags = short_flags(scored.flags(i)) + (f" ({short_flags(_further(scored, i))})" if _further(scored, i) else "")
        out.append(f"| {st.problem}, {p.label} | {p.says} | {signs} | {flags} | {fmt(v['up'])} ({fmt(v['rel'], '.2g')}) "
                   f"| {truth(i)} | {truth(ref)} |")
    return "\n".join(out)
