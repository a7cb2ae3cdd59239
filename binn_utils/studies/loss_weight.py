"""Fig. 4: porous-medium equation, w_PDE swept with w_data = 1 and w_BC = 0."""
from __future__ import annotations

import numpy as np

from ..analysis import reporting
from ..analysis.reporting import fmt, median
from ..analysis.verdicts import Claim, ClaimCheck, SubClaim, Verdict
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.sweeps import Setting
from .base import (PAPER_DEFAULTS, Shown, Study, initialisations, number_label, scale_values, train_config,
                   value_range)

PDE_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3)
#: The weights w_PDE / w_data with the lowest errors in the paper's Fig. 4.
PAPER_BEST = (1e-1, 1e0)


def build(scale="book", weights=PDE_WEIGHTS, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None) -> list[Setting]:
    p = scale_values(scale)
    ds, ss = initialisations(p, seeds)
    return [Setting("loss_weight", f"w_pde={number_label(w)}", "porous_medium", noise_var, dense, ds, ss,
                    train_config(p, epochs, w_pde=float(w), w_bc=0.0), swept=("w_pde",))
            for w in weights]


def summary(results, low=PDE_WEIGHTS[0], high=PDE_WEIGHTS[-1]):
    """The study's numbers (``reporting.loss_weight_summary``): the best weight against the
    paper's, the weights ``low`` and ``high`` against the best."""
    return reporting.loss_weight_summary(results, PAPER_BEST, low=low, high=high, factor=reporting.FACTOR)


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    lo, hi = (reporting.value_label(v) for v in PAPER_BEST)
    return [f"Lowest median error of $u_\\theta$ at $w_\\mathrm{{PDE}}$ = {s['best_theta']}, of "
            f"$u_\\mathrm{{p}}$ at {s['best_up']}; the paper's {lo} to {hi}: {s['best_theta_verdict']} "
            f"($u_\\theta$), {s['best_up_verdict']} ($u_\\mathrm{{p}}$).",
            f"$w_\\mathrm{{PDE}}$ = {s['low']}: median errors {s['low_theta']} ($u_\\theta$, "
            f"{s['low_theta_ratio']} times the lowest) and {s['low_up']} ($u_\\mathrm{{p}}$, "
            f"{s['low_up_ratio']} times the lowest); good $u_\\theta$ with poor $u_\\mathrm{{p}}$ "
            f"(factor {s['factor']}) {s['low_verdict']} with the paper. The weighted PDE loss stays at least "
            f"{s['low_gap_min']} orders of magnitude below the data loss (paper: more than three: "
            f"{s['low_gap_verdict']}).",
            f"$w_\\mathrm{{PDE}}$ = {s['high']}: median errors {s['high_theta']} ($u_\\theta$) and "
            f"{s['high_up']} ($u_\\mathrm{{p}}$); large errors in both {s['high_verdict']} with the paper.",
            f"Diverged trainings and failed forward solves: {s['failures']}."]


# ----------------------------------------------------------------------------- claims
# Each check reads the results through ``ctx`` (ctx.study(name), ctx.variant(name, desc, **overrides),
# ctx.scale(name), ctx.run(result, name); see claims.context) and returns a verdicts.ClaimCheck.

def claim_loss_low_high(ctx):
    res = ctx.study("loss_weight")
    s = summary(res)
    d = {reporting.meta_value(r, "w_pde"): median(r.operator_error("D")) for r in res}
    d_best = np.nanmin(list(d.values())) if np.isfinite(list(d.values())).any() else np.nan
    d_low = d.get(1e-4, np.nan)
    subs = [SubClaim(f"$w_\\mathrm{{PDE}}$ = 1e-4: $u_\\theta$ error within {s['factor']} times the lowest, "
                     f"$u_\\mathrm{{p}}$ error more than {s['factor']} times", s.verdicts["low_verdict"]),
            SubClaim("$w_\\mathrm{PDE}$ = 1e-4: $D_\\phi$ wrong",
                     Verdict.of(bool(d_low > reporting.FACTOR * d_best) if np.isfinite([d_low, d_best]).all() else None),
                     rule=f"median error more than {s['factor']} times the lowest"),
            SubClaim("$w_\\mathrm{PDE}$ = 1e-4: weighted PDE loss more than three orders of magnitude below the data loss",
                     s.verdicts["low_gap_verdict"]),
            SubClaim(f"$w_\\mathrm{{PDE}}$ = 1e3: both errors more than {s['factor']} times the lowest", s.verdicts["high_verdict"])]
    runs, ev = ctx.run(res[0], 'loss_weight'), (f"$w_\\mathrm{{PDE}}$ = 1e-4: median errors {s['low_theta']} "
          f"($u_\\theta$, {s['low_theta_ratio']}x the lowest), {s['low_up']} "
          f"($u_\\mathrm{{p}}$, {s['low_up_ratio']}x), "
          f"$D_\\phi$ {fmt(d_low)} (lowest {fmt(d_best)}), weighted PDE loss at least {s['low_gap_min']} decades "
          f"below the data loss; $w_\\mathrm{{PDE}}$ = 1e3: {s['high_theta']} ($u_\\theta$, "
          f"{s['high_theta_ratio']}x), {s['high_up']} ($u_\\mathrm{{p}}$, {s['high_up_ratio']}x)")
    return ClaimCheck(runs, ev, tuple(subs), ("loss_weighting",))


def claim_loss_best(ctx):
    res = ctx.study("loss_weight")
    s, best = summary(res), value_range(PAPER_BEST)
    subs = [SubClaim(f"lowest median $u_\\theta$ error at $w_\\mathrm{{PDE}}/w_\\mathrm{{data}}$ in {best}",
                     s.verdicts["best_theta_verdict"]),
            SubClaim(f"lowest median $u_\\mathrm{{p}}$ error at $w_\\mathrm{{PDE}}/w_\\mathrm{{data}}$ in {best}",
                     s.verdicts["best_up_verdict"]),
            SubClaim("$w_\\mathrm{BC}$ has little influence", Verdict.NOT_TESTED,
                     rule="we do not sweep $w_\\mathrm{BC}$; neither does the paper")]
    runs, ev = f"{ctx.run(res[0], 'loss_weight')}, $w_\\mathrm{{data}}$ = 1", (f"Lowest median error of $u_\\theta$ "
          f"{s['best_theta_err']} at $w_\\mathrm{{PDE}}$ = {s['best_theta']}, of $u_\\mathrm{{p}}$ {s['best_up_err']} "
          f"at {s['best_up']}")
    return ClaimCheck(runs, ev, tuple(subs), ("loss_weighting",))


#: The paper's claims this study checks: its words, its evidence, our check of it.
CLAIMS = (
    Claim(7, r"On the porous-medium equation with $w_\mathrm{BC}=0$, a too small PDE weight ($w_\mathrm{PDE}=10^{-4}$) gives a small $u_\theta$ error but a wrong $D_\phi$ and a large $u_\mathrm{p}$ error, with the weighted PDE loss over three orders of magnitude below the data loss; a too large weight ($10^{3}$) gives large errors in both.",
          r"Fig. 4; Supporting Material repeats.", claim_loss_low_high,
          title='too small and too large PDE weights fail', figure='Fig. 4', chapter='loss_weighting'),
    Claim(8, r"The lowest errors occur for $w_\mathrm{PDE}/w_\mathrm{data}$ between $10^{-1}$ and $10^{0}$; in general $w_\mathrm{data}\gtrsim w_\mathrm{PDE}$ is recommended, and $w_\mathrm{BC}$ has little influence.",
          r'Fig. 4 (bottom); "preliminary investigations" for $w_\mathrm{BC}$ (no figure).',
          claim_loss_best,
          title='lowest errors for w_PDE/w_data in [0.1, 1]', figure='Fig. 4', chapter='loss_weighting'),
)

#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.0, False): 8,
    (0.01, False): 12,
    (0.001, False): 4,
    (0.0, True): 19,
    (0.001, True): 20,
    (0.01, True): 21,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("best_theta_verdict", f"lowest $u_\\theta$ error at $w_\\mathrm{{PDE}}$ in {value_range(PAPER_BEST)}"),
                 ("best_up_verdict", f"lowest $u_\\mathrm{{p}}$ error at $w_\\mathrm{{PDE}}$ in {value_range(PAPER_BEST)}"),
                 ("low_verdict", "good $u_\\theta$, poor $u_\\mathrm{p}$ at $w_\\mathrm{PDE}$ = 1e-4"),
                 ("high_verdict", "both errors large at $w_\\mathrm{PDE}$ = 1e3"))

STUDY = Study(
    "loss_weight", "loss weighting", "porous_medium", "porous medium", build,
    default={"w_pde": PAPER_DEFAULTS.w_pde},
    chapter="loss_weighting",
    paper_figure=4,
    figure="loss_weight_figure",
    sweep=True,
    repeated_on=("sparse", "dense"),
    summary=summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    paper_failures=({"w_pde": 1e-4}, {"w_pde": 1e3}),
    repeat_checks=REPEAT_CHECKS,
    claims=CLAIMS,
    shown=(Shown("Fig. 4, loss weighting"),),
    symbol="$w_\\mathrm{PDE}$",
    diagnosed=True,
)
