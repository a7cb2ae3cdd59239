"""The framework chapter's (Fig. 1) tables and sentences: its errors, the same BINN on
both grids beside the authors' dense run, on each initial condition's data and on each
reading of the reaction term (numbers from ``studies.framework``; formatting and wording
here, as in :mod:`binn_utils.presentation.tables`)."""
from __future__ import annotations

from ..analysis.reporting import fmt, med_iqr, median, word
from ..engine.metrics import median_iqr
from ..analysis.verdicts import Verdict


def below_or_above(below: bool) -> str:
    """A comparison in words: "below" or "above"."""
    return word(below, "below", "above")


def matches_words(verdict: Verdict) -> str:
    """Whether u_theta matches the latent solution (a ``studies.framework.summary`` verdict), in words."""
    return {Verdict.AGREES: "matches", Verdict.DISAGREES: "does not match"}.get(
        verdict, "cannot be shown, with this many replicates, to match")


def framework_table(res, summary) -> str:
    """Fig. 1's errors (median [IQR] over initialisations): u_theta, u_p, both near zero and
    elsewhere, and each operator over the observed range (``summary``: ``studies.framework.summary(res)``)."""
    rows = ["| quantity | median [IQR] over initialisations |", "|---|---|",
            f"| rel. $L^2$ error of $u_\\theta$ | {summary['err_theta']} |",
            f"| rel. $L^2$ error of $u_\\mathrm{{p}}$ | {summary['err_up']} (final networks: "
            f"{fmt(median(res.metric('err_u_p', 'final')))}) |",
            f"| mean \\|error\\| of $u_\\theta$ / $u_\\mathrm{{p}}$ where the true solution is in the lowest "
            f"{summary['near_pct']} % of its range | {summary['theta_near']} / {summary['up_near']} |",
            f"| mean \\|error\\| of $u_\\theta$ / $u_\\mathrm{{p}}$ elsewhere | {summary['theta_rest']} / {summary['up_rest']} |"]
    for op in ("D", "V", "G"):
        rows.append(f"| rel. $L^2$ error of {op} over $u \\in$ [{res.record.u_range[0]:.3f}, "
                    f"{res.record.u_range[1]:.3f}] | {med_iqr(res.operator_error(op))} |")
    return "\n".join(rows)


def grid_table(rows) -> str:
    """Fig. 1 on the 71- and the 351-point grid beside the authors' dense run
    (``studies.framework.grid_comparison``): median [IQR] over our initialisations."""
    grids = sorted({g for r in rows for g in r["ours"]})
    head = " | ".join(f"ours, {g} points: median [IQR]" for g in grids)
    out = [f"| relative $L^2$ error of | {head} | the authors' run, 351 points |",
           "|---|" + "---|" * len(grids) + "---|"]
    for r in rows:
        theirs = ", ".join(f"{v:.3g}" for v in r["authors"]) or "not archived"
        out.append(f"| {r['quantity']} | " + " | ".join(med_iqr(r["ours"][g]) for g in grids) + f" | {theirs} |")
    return "\n".join(out)


def grid_words(rows, quantity: str = "$D$") -> str:
    """``quantity``'s error on each grid and in the authors' dense run, a sentence each
    (glued text: no TeX, the operator's letter plain)."""
    r = next(r for r in rows if r["quantity"] == quantity)
    name = quantity.strip("$")
    said = []
    for k, (g, v) in enumerate(sorted(r["ours"].items())):
        st = median_iqr(v)
        what = f"On {g} points the median relative error of {name}" if not k else f"On {g} points it"
        if st["n"] == st["n_failed"]:
            said.append(f"{what} is not known: every run failed.")
            continue
        failed = f"; {st['n_failed']} of {st['n']} runs failed" if st["n_failed"] else ""
        said.append(f"{what} is {fmt(st['median'])} (interquartile range [{fmt(st['q25'])}, "
                    f"{fmt(st['q75'])}]{failed}).")
    if len(r["authors"]):
        said.append(f"The authors' one dense run at this noise level gives a relative error of {name} of "
                    f"{fmt(float(r['authors'][0]))}.")
    return " ".join(said)


def initials_table(summaries) -> str:
    """The same BINN on each initial condition's data (``studies.framework.summary`` of each)."""
    rows = ["| data | max of the noise-free $u$ | rel. $L^2$ error $u_\\theta$: median [IQR] "
            "| rel. $L^2$ error $u_\\mathrm{p}$: median [IQR] | median mean \\|error\\| near zero, $u_\\theta$ / $u_\\mathrm{p}$ |",
            "|---|---|---|---|---|"]
    for f in summaries:
        rows.append(f"| {f['data']} | {f['max_u']} | {f['err_theta']} | {f['err_up']} | "
                    f"{f['theta_near']} / {f['up_near']} |")
    return "\n".join(rows)


def reactions_table(labels, results) -> str:
    """The same BINN on each reading of the reaction term (``labels[i]``: that of ``results[i]``)."""
    rows = ["| reaction | max of the noise-free $u$ | rel. $L^2$ error $u_\\theta$: median [IQR] "
            "| rel. $L^2$ error $u_\\mathrm{p}$: median [IQR] | rel. error of $G$: median [IQR] |", "|---|---|---|---|---|"]
    for label, rr in zip(labels, results):
        rows.append(f"| {label} | {float(rr['u_clean'].max()):.3f} | {med_iqr(rr.metric('err_u_theta'))} | "
                    f"{med_iqr(rr.metric('err_u_p'))} | {med_iqr(rr.operator_error('G'))} |")
    return "\n".join(rows)
