"""Fig. 2: observation noise on the diffusion benchmark, two u-network sizes."""
from __future__ import annotations

from ..observations import DEFAULT_NOISE_VAR, NOISE_VARIANCES
from ..reporting import noise_summary
from ..sweeps import Setting, replicates
from .base import PAPER_DEFAULTS, Study, count, number_label, preset, train_config

NOISE_ARCHS = (PAPER_DEFAULTS.arch_u, (6, 128))


def build(scale="book", noise_vars=NOISE_VARIANCES, archs=NOISE_ARCHS, dense=False, epochs=None, seeds=None,
          datasets=None, noise_var=None) -> list[Setting]:
    """u-network (h_u, n_u) in archs, ten datasets x ten seeds (``noise_var``: that level only).

    In the ``book`` scale the large (6, 128) network runs fewer epochs and replicates
    (``big_*`` preset entries): it costs ~25x more per step than (4, 32).
    """
    if noise_var is not None:
        noise_vars = (noise_var,)
    p = preset(scale)
    out = []
    for arch in archs:
        big = tuple(arch) != (4, 32)
        n_ep = count("epochs", epochs, p["big_epochs"] if big else p["epochs"])
        n_ds = count("datasets", datasets, p["big_datasets"] if big else p["datasets"])
        n_seeds = count("seeds", seeds, p.get("big_seeds", p["seeds"]) if big else p.get("noise_seeds", p["seeds"]))
        ds, ss = replicates(n_seeds, n_ds)
        for nv in noise_vars:
            cfg = train_config(p, n_ep, arch_u=tuple(arch))
            out.append(Setting("noise", f"sigma2={number_label(nv)} u{tuple(arch)}", "diffusion", nv, dense, ds, ss,
                               cfg, meta=(("noise_var", float(nv)), ("arch_u", list(arch)))))
    return out


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    return [f"Errors of $u_\\theta$ from noise variance {s['nv_lo']} to {s['nv_hi']}: {s['theta_lo_a']} to "
            f"{s['theta_hi_a']} for {s['arch_a']}, {s['theta_lo_b']} to {s['theta_hi_b']} for "
            f"{s['arch_b']}; of $u_\\mathrm{{p}}$: {s['up_lo_a']} to {s['up_hi_a']} and {s['up_lo_b']} to "
            f"{s['up_hi_b']}. Errors growing with the noise: {s['theta_grows_a']}, {s['up_grows_a']}, "
            f"{s['theta_grows_b']}, {s['up_grows_b']} ($u_\\theta$ and $u_\\mathrm{{p}}$ for {s['arch_a']}, "
            f"then for {s['arch_b']}).",
            f"{s['arch_a']} better than {s['arch_b']} at {s['up_small_wins']} nonzero noise levels "
            f"($u_\\mathrm{{p}}$): {s['up_small_wins_verdict']} with the paper.",
            f"Final over minimum validation loss at noise variance {s['high']}: {s['rise_high_a']} "
            f"({s['arch_a']}), {s['rise_high_b']} ({s['arch_b']}); a late rise "
            f"(over {s['rise_pct']} %): {s['rise_verdict_a']}, {s['rise_verdict_b']}."]


#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.001, False): 2,
    (0.0, True): 15,
    (0.001, True): 15,
    (0.01, True): 15,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("theta_grows_a", "$u_\\theta$ error grows with $\\sigma^2$, (4, 32)"),
                 ("up_grows_a", "$u_\\mathrm{p}$ error grows with $\\sigma^2$, (4, 32)"),
                 ("theta_grows_b", "$u_\\theta$ error grows with $\\sigma^2$, (6, 128)"),
                 ("up_grows_b", "$u_\\mathrm{p}$ error grows with $\\sigma^2$, (6, 128)"))

STUDY = Study(
    "noise", "noise", "diffusion", "diffusion", build,
    default={"noise_var": DEFAULT_NOISE_VAR, "arch_u": PAPER_DEFAULTS.arch_u},
    chapter="noise",
    paper_figure=2,
    figure="noise_figure",
    sweep=True,
    repeated_on=("dense",),
    sweeps_noise=True,
    summary=noise_summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    described_by="arch_u",
    heading="observation noise",
    paper_failures=({"noise_var": 5e-2, "arch_u": (6, 128)},),
    repeat_checks=REPEAT_CHECKS,
)
