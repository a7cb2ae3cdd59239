"""The diagnostics chapter's table of the points where the paper says how the recovery went
(``studies.paper_points``: every study's failures, then its defaults), with our flags, the
median error of u_p and our ground truth at each: one row per point of the registry."""
from __future__ import annotations

from ..analysis.diagnostic_calibration import Scored
from .tables import paper_point

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
