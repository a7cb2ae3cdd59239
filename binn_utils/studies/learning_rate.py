"""Fig. 3: Burgers' equation, learning rate r from 5e-7 to 5e-1."""
from __future__ import annotations

from ..observations import DEFAULT_NOISE_VAR
from ..reporting import learning_rate_summary
from ..sweeps import Setting
from .base import PAPER_DEFAULTS, Study, initialisations, number_label, preset, train_config

LEARNING_RATES = (5e-7, 5e-6, 5e-5, 5e-4, 5e-3, 5e-2, 5e-1)


def build(scale="book", rates=LEARNING_RATES, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None) -> list[Setting]:
    p = preset(scale)
    ds, ss = initialisations(p, seeds)
    return [Setting("learning_rate", f"r={number_label(r)}", "burgers", noise_var, dense, ds, ss,
                    train_config(p, epochs, lr=float(r)), meta=(("lr", float(r)),)) for r in rates]


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    return [f"Lowest median error of $u_\\theta$ at $r$ = {s['best_theta']}, of $u_\\mathrm{{p}}$ at "
            f"$r$ = {s['best_up']}; the paper's 5e-5 to 5e-4: {s['best_theta_verdict']} "
            f"($u_\\theta$), {s['best_up_verdict']} ($u_\\mathrm{{p}}$).",
            f"Smallest rate $r$ = {s['smallest']}: the median validation loss fell by "
            f"{s['late_drop_small']} % over the last quarter of training, so it {s['small_still_falling']} "
            f"(more than {s['late_pct']} %: not converged).",
            f"Large rates $r$ = {s['large_rates']}: median $u_\\mathrm{{p}}$ errors {s['large_up']} against "
            f"{s['shown_up']} at $r$ = {s['shown']}; larger errors at large rates "
            f"{s['large_worse_verdict']} with the paper.",
            f"Diverged trainings and failed forward solves: {s['failures']}."]


#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.0, False): 7,
    (0.01, False): 11,
    (0.001, False): 3,
    (0.0, True): 16,
    (0.001, True): 17,
    (0.01, True): 18,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("best_theta_verdict", "lowest $u_\\theta$ error at $r$ in [5e-5, 5e-4]"),
                 ("best_up_verdict", "lowest $u_\\mathrm{p}$ error at $r$ in [5e-5, 5e-4]"),
                 ("small_still_falling", "smallest $r$ not converged"),
                 ("large_worse_verdict", "larger errors at $r \\ge$ 1e-2"))

STUDY = Study(
    "learning_rate", "learning rate", "burgers", "Burgers", build,
    default={"lr": PAPER_DEFAULTS.lr},
    chapter="learning_rate",
    paper_figure=3,
    figure="learning_rate_figure",
    sweep=True,
    repeated_on=("sparse", "dense"),
    summary=learning_rate_summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    paper_failures=({"lr": 5e-7}, {"lr": 5e-2}, {"lr": 5e-1}),
    repeat_checks=REPEAT_CHECKS,
)
