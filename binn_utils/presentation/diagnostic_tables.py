"""The diagnostics chapter's tables and phrases, from
:class:`~binn_utils.analysis.diagnostic_calibration.Scored` and
:class:`~binn_utils.analysis.diagnostic_calibration.Calibration` (``titles`` maps a study's name, a group of
``Scored``, to the words a table shows for it).  Nothing here computes a number the chapter
judges by: that is the analysis layer's job.
"""
from __future__ import annotations

from ..analysis.diagnostic_calibration import SHORT_NAMES, Calibration, Counts, Scored
from ..analysis.reporting import fmt


def short_flags(rep) -> str:
    """The letters of the flags one report raises (e.g. 'U M'), '-' for none."""
    return " ".join(SHORT_NAMES[n] for n in rep.flags) or "-"


def settings_table(scored: Scored, titles: dict) -> str:
    """Every setting: its flags, ground-truth errors, failure and outcome."""
    rows = ["| study | setting | flags | err $u_\\theta$ | err $u_p$ (x best) | operator errors | "
            "failure | outcome |", "|---|---|---|---|---|---|---|---|"]
    for g, rep, v, out in zip(scored.groups, scored.table, scored.truth, scored.outcomes):
        ops = ", ".join(f"{k} {fmt(e)}" for k, e in v["ops"].items())
        extra = f"; {v['bad']}/{v['R']} failed" if v["bad"] else ""
        rows.append(f"| {titles[g]} | {rep.label} | {short_flags(rep)} | {fmt(v['theta'])} | "
                    f"{fmt(v['up'])} ({fmt(v['rel'], '.2g')}){extra} | {ops} | {'**yes**' if v['fail'] else 'no'} | "
                    f"{out} |")
    return "\n".join(rows)


def outcome_table(scored: Scored, titles: dict) -> str:
    """Hits, misses, false alarms and quiet settings per study and in all."""
    rows = ["| study | settings | failures | hits | misses | false alarms | quiet and fine |",
            "|---|---|---|---|---|---|---|"]
    for label, c in [(t, scored.counts(g)) for g, t in titles.items()] + [("**all**", scored.counts())]:
        rows.append(f"| {label} | {c['n']} | {c['hit'] + c['miss']} | {c['hit']} | {c['miss']} | "
                    f"{c['false alarm']} | {c['quiet and fine']} |")
    return "\n".join(rows)


def outcome_list(scored: Scored, titles: dict, which: str) -> str:
    """'<study>: <setting>; ...' of the settings with outcome ``which`` (false alarms with
    their flags), 'none' if there are none."""
    out = [f"{titles[g]}: {rep.label}" + (f" ({short_flags(rep)})" if which == "false alarm" else "")
           for g, rep, o in zip(scored.groups, scored.table, scored.outcomes) if o == which]
    return "; ".join(out) if out else "none"


def diagnostic_table(scored: Scored) -> str:
    """Per diagnostic: settings flagged, failures among them, failures only it flags."""
    rows = ["| diagnostic | settings flagged | of which failures | failures caught by this flag alone |",
            "|---|---|---|---|"]
    for n, (flagged, failures, alone) in scored.by_diagnostic().items():
        rows.append(f"| {n.replace('_', ' ')} ({SHORT_NAMES[n]}) | {flagged} | {failures} | {alone} |")
    return "\n".join(rows)


def paper_point(scored: Scored, i: int | None, paper_says_failure: bool) -> dict:
    """One row of the table of the settings where the paper locates failure (or success):
    our flags, the median u_p error, our ground truth and whether the flags match the paper
    (a flag where it reports failure, none where it does not); 'not run' without setting ``i``."""
    if i is None:
        return dict.fromkeys(("flags", "up", "gt", "agree"), "not run")
    v = scored.truth[i]
    return {"flags": ", ".join(n.replace("_", " ") for n in scored.table[i].flags) or "none",
            "up": f"{fmt(v['up'])} ({fmt(v['rel'], '.2g')} x best)",
            "gt": "failure" if v["fail"] else "fine",
            "agree": "yes" if scored.agrees_with_paper(i, paper_says_failure) else "no"}


def _counts_cells(c: Counts) -> str:
    caught = f"{c.caught} / {c.failures}" + (f" ({100 * c.caught_rate:.0f}%)" if c.failures else "")
    false = f"{c.false_alarms} / {c.fine}" + (f" ({100 * c.false_alarm_rate:.0f}%)" if c.fine else "")
    return f"{caught} | {false}"


def calibration_table(cal: Calibration) -> str:
    """The module's and the chosen thresholds, each on the part they were chosen on and the held-out part."""
    rows = ["| thresholds | settings | caught / failures | false alarms / fine |", "|---|---|---|---|"]
    for key, lab in (("module", "the module's"), ("chosen", "chosen on the first part")):
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
    return "; ".join(out) if out else "none (the module's values)"


def rates(c: Counts) -> str:
    """'<caught>% caught, <false>% false alarms' ('n/a' without failures or fine settings)."""
    if not (c.failures and c.fine):
        return "n/a"
    return f"{100 * c.caught_rate:.0f}% caught, {100 * c.false_alarm_rate:.0f}% false alarms"


#: The table of the points where the paper says how the recovery went (``studies.paper_points``:
#: every study's failures, then its defaults), with our flags, the median error of u_p and our
#: ground truth at each: one row per point of the registry.
HEADER = ("| setting | the paper says | our flags | median err $u_p$ | ground truth (our rule) | flags match the paper |\n"
          "|---|---|---|---|---|---|")


def paper_points_table(scored: Scored, at) -> str:
    """``at``: (study, ``studies.PaperPoint``, whether the paper reports a failure there, the
    point's index in ``scored`` or None where it was not run), in the table's order."""
    rows = [HEADER]
    for st, p, fails, i in at:
        c = paper_point(scored, i, fails)
        rows.append(f"| {st.problem}, {p.label} | {p.says} | {c['flags']} | {c['up']} | {c['gt']} | {c['agree']} |")
    return "\n".join(rows)
