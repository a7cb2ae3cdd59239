"""Fig. 5: diffusion-advection benchmark, (h, n) of the D and V networks over all combinations."""
from __future__ import annotations

from ..observations import DEFAULT_NOISE_VAR
from ..reporting import architecture_summary
from ..sweeps import Setting
from .base import PAPER_DEFAULTS, Study, initialisations, preset, train_config

OPERATOR_ARCHS = ((1, 1), (4, 1), (4, 4), (4, 32))


def build(scale="book", archs=OPERATOR_ARCHS, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None) -> list[Setting]:
    p = preset(scale)
    ds, ss = initialisations(p, seeds)
    out = []
    for aD in archs:
        for aV in archs:
            cfg = train_config(p, epochs, arch_D=tuple(aD), arch_V=tuple(aV))
            out.append(Setting("architecture", f"D{tuple(aD)} V{tuple(aV)}", "diffusion_advection", noise_var,
                               dense, ds, ss, cfg, meta=(("arch_D", list(aD)), ("arch_V", list(aV)))))
    return out


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    ups = ", ".join(f"({k[3:].replace('x', ', ')}): {v}" for k, v in s.items()
                    if k.startswith("up_") and "x" in k)
    return [f"Median $u_\\mathrm{{p}}$ errors of the equal-size architectures $(h, n)$: {ups}; the "
            f"smallest network {s['smallest']} being the worst {s['smallest_worst']} with the paper.",
            f"$(4, 32)$ no better than $(4, 4)$: {s['saturates_verdict']}; its $D$ worse and more "
            f"variable: {s['D_worse_verdict']}.",
            f"Lowest mean $u_\\mathrm{{p}}$ error over the sixteen combinations: {s['best_mean']} "
            f"({s['best_mean_combo']}); lowest median: {s['best_median']} ({s['best_median_combo']}).",
            f"Diverged trainings and failed forward solves: {s['failures']}."]


#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.0, False): 9,
    (0.01, False): 13,
    (0.001, False): 5,
    (0.0, True): 22,
    (0.001, True): 23,
    (0.01, True): 24,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("smallest_worst", "(1, 1) the worst"), ("saturates_verdict", "(4, 32) no better than (4, 4)"))

STUDY = Study(
    "architecture", "architecture", "diffusion_advection", "diffusion-advection", build,
    default={"arch_D": PAPER_DEFAULTS.arch_D, "arch_V": PAPER_DEFAULTS.arch_V},
    chapter="architecture",
    paper_figure=5,
    figure="architecture_figure",
    sweep=True,
    repeated_on=("sparse", "dense"),
    summary=architecture_summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    heading="operator networks",
    repeat_checks=REPEAT_CHECKS,
)
