"""Fig. 4: porous-medium equation, w_PDE swept with w_data = 1 and w_BC = 0."""
from __future__ import annotations

from ..observations import DEFAULT_NOISE_VAR
from ..reporting import loss_weight_summary
from ..sweeps import Setting
from .base import PAPER_DEFAULTS, Study, initialisations, number_label, preset, train_config

PDE_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3)


def build(scale="book", weights=PDE_WEIGHTS, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None) -> list[Setting]:
    p = preset(scale)
    ds, ss = initialisations(p, seeds)
    return [Setting("loss_weight", f"w_pde={number_label(w)}", "porous_medium", noise_var, dense, ds, ss,
                    train_config(p, epochs, w_pde=float(w), w_bc=0.0), meta=(("w_pde", float(w)),))
            for w in weights]


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    return [f"Lowest median error of $u_\\theta$ at $w_\\mathrm{{PDE}}$ = {s['best_theta']}, of "
            f"$u_\\mathrm{{p}}$ at {s['best_up']}; the paper's 1e-1 to 1: {s['best_theta_verdict']} "
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
REPEAT_CHECKS = (("best_theta_verdict", "lowest $u_\\theta$ error at $w_\\mathrm{PDE}$ in [1e-1, 1]"),
                 ("best_up_verdict", "lowest $u_\\mathrm{p}$ error at $w_\\mathrm{PDE}$ in [1e-1, 1]"),
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
    summary=loss_weight_summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    paper_failures=({"w_pde": 1e-4}, {"w_pde": 1e3}),
    repeat_checks=REPEAT_CHECKS,
)
