# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The ADR-BINN framework (Fig. 1)
#
# **The paper's claim.** An ADR-BINN with the default hyperparameters, trained on the
# nonlinear advection-diffusion-reaction benchmark with noise variance $10^{-3}$,
# recovers the latent solution well everywhere ($u_\theta$), but the forward-predicted
# solution $u_p$ misses the data where the true solution is zero, because the learned
# advection and growth operators deviate most around $u = 0$ (Fig. 1, bottom).
#
# Here we train the same BINN (four MLPs, $(h, n) = (4, 32)$ each, defaults of the
# paper's hyperparameter table, see {doc}`../book/methods`) and show the same panels.
# The reaction term is the Supporting Material's $G = -1/2$ (see {doc}`../book/errata`).

# %% tags=["parameters"]
preset = "paper"         # "quick" (CI smoke run), "lite", "book", "paper" (committed: the published grid)
noise_var = 1e-3         # observation noise variance sigma^2
dense = False            # True: 351 spatial points instead of 71
epochs = None            # None: the preset's value
seeds = None             # number of initialisations; None: the preset's value
reaction = "supporting"  # G of the nonlinear ADR benchmark: "supporting" (-1/2), "text" (u/2), "equation" (+1/2)
replicate_shown = 0      # which initialisation the solution panels show (the paper shows one)
compare_reactions = True # also compare the three readings of the reaction term (shorter runs)
reaction_preset = "lite" # preset of that comparison ("quick" when preset is "quick")
results_dir = None       # None: the committed store (quick runs: out/results-quick)
output_dir = None        # folder for the figure files; None: do not write files

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np

from binn_utils import plotting, reporting, studies

plotting.style()
settings = studies.framework_study(preset, noise_var=noise_var, dense=dense, epochs=epochs, seeds=seeds,
                                   reaction=reaction)
(res,) = reporting.load_or_run(settings, preset, results_dir, desc="framework")
what = reporting.run_description(res, preset=preset)
reporting.glue("fw_what", what)

# %% [markdown]
# ## Learned and forward-predicted solutions, learned operators

# %% tags=["hide-input"]
x, t = res["x"], res["t"]
r = replicate_shown
fig, axes = plt.subplots(1, 5, figsize=(15, 2.9))
for ax, key, name in ((axes[0], "u_theta", "u_theta"), (axes[1], "u_p", "u_p")):
    for i in range(len(t)):
        ax.plot(x, res.net(key)[r, i], color=plotting.COLORS[name], lw=1.2,
                label=("$u_\\theta$" if name == "u_theta" else "$u_p$") if i == 0 else None)
        ax.plot(x, res["u_clean"][i], "k--", lw=0.8, label="truth" if i == 0 else None)
    ax.set_xlabel("$x$")
    ax.set_ylabel("$u$")
    ax.legend(loc="upper right")
for ax, op in zip(axes[2:], ("D", "G", "V")):
    ax.plot(res["u_grid"], res.net(f"op_{op}")[r], color=plotting.COLORS[op], label=f"learned {op}")
    ax.plot(res["u_grid"], res[f"true_op_{op}"], "k--", lw=0.9, label="truth")
    plotting.shade_unobserved(ax, res.record["u_range"], res["u_grid"])
    ax.set_xlabel("$u$")
    ax.set_ylabel(plotting.OP_LABELS[op])
    ax.legend()
fig.tight_layout()
plotting.save(fig, output_dir, "fig1_framework")
reporting.glue("fig_framework", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_framework
# :name: fig-framework
#
# Nonlinear ADR benchmark, default ADR-BINN ({glue:text}`fw_what`). From left: learned
# solution $u_\theta$ (blue) and forward-predicted solution $u_p$ (orange) at every
# observation time, learned $D$ (green), $G$ (purple) and $V$ (brown) for one
# initialisation; dashed black: truth. Grey: values of $u$ outside the range the data
# cover, where the operators are not constrained.
# ```
#
# ## All initialisations
#
# The paper shows one initialisation. Across all of ours, the relative $L^2$ errors
# against the noise-free solution (median [interquartile range]) and operator errors
# over the observed range of $u$ are:

# %% tags=["remove-input"]
from IPython.display import Markdown, display

ops = ("D", "V", "G")
err_th = res.metric("err_u_theta")
err_p = res.metric("err_u_p")
reporting.glue("fw_err_theta", reporting.med_iqr(err_th))
reporting.glue("fw_err_p", reporting.med_iqr(err_p))
rows = ["| quantity | median [IQR] over initialisations |", "|---|---|",
        f"| rel. $L^2$ error of $u_\\theta$ | {reporting.med_iqr(err_th)} |",
        f"| rel. $L^2$ error of $u_p$ | {reporting.med_iqr(err_p)} |"]
for op in ops:
    rows.append(f"| rel. $L^2$ error of {op} over $u \\in$ [{res.record['u_range'][0]:.3f}, "
                f"{res.record['u_range'][1]:.3f}] | {reporting.med_iqr(res.operator_error(op))} |")
display(Markdown("\n".join(rows)))

# %% [markdown]
# ## Which reaction term?
#
# The paper states the reaction term three ways (see {doc}`../book/errata`). With the
# Supporting Material's decay, $G=-1/2$, the solution shrinks from $\max u\approx 0.1$ to
# about $0.014$ by $t=4$, below the noise standard deviation $\sqrt{10^{-3}}\approx0.032$;
# with growth ($G=+1/2$, the displayed equation) it rises to about $0.7$. The same BINN on
# the three variants ({glue:text}`fw_rx_what`):

# %% tags=["remove-input"]
if compare_reactions:
    rpre = "quick" if preset == "quick" else reaction_preset
    variants = {"supporting": "$G=-1/2$ (Supporting Material)", "text": "$G(u)=u/2$ (text)",
                "equation": "$G=+1/2$ (displayed equation)"}
    rx_settings = [studies.framework_study(rpre, noise_var=noise_var, dense=dense, reaction=rx)[0]
                   for rx in variants]
    rx = reporting.load_or_run(rx_settings, rpre, results_dir, desc="reactions")
    reporting.glue("fw_rx_what", reporting.run_description(rx[0], preset=rpre))
    rows = ["| reaction | max of the noise-free $u$ | rel. $L^2$ error $u_\\theta$ | rel. $L^2$ error $u_p$ "
            "| rel. error of $G$ |", "|---|---|---|---|---|"]
    for (name, label), r in zip(variants.items(), rx):
        rows.append(f"| {label} | {float(r['u_clean'].max()):.3f} | {reporting.med_iqr(r.metric('err_u_theta'))} | "
                    f"{reporting.med_iqr(r.metric('err_u_p'))} | {reporting.med_iqr(r.operator_error('G'))} |")
    errs = {name: reporting.median(r.metric("err_u_theta")) for name, r in zip(variants, rx)}
    reporting.glue("fw_rx_best", variants[min(errs, key=errs.get)])
    display(Markdown("\n".join(rows)))
else:
    reporting.glue("fw_rx_what", "not run (compare_reactions is off)")
    reporting.glue("fw_rx_best", "not run")

# %% [markdown]
# The reading whose learned solution is closest to the truth is {glue:text}`fw_rx_best`.
# The paper's Fig. 1 shows $u_\theta$ close to the latent solution everywhere. A variant
# whose late snapshots are mostly noise cannot give that, so the table is indirect
# evidence on which reaction term the published figure used.
#
# ## Verdict
#
# The solution network interpolates the data (median error of $u_\theta$:
# {glue:text}`fw_err_theta`), while the forward solve driven by the learned operators is
# worse (median error of $u_p$: {glue:text}`fw_err_p`). Whether the gap comes, as the
# paper says, from the operators near $u = 0$ can be read from the operator panels: the
# shaded region is where no data constrain them. The size of the gap for our runs is
# recorded in the {doc}`scorecard`.
#
# ## What we learnt
#
# * A BINN's output is two different things: an interpolant $u_\theta$ and a mechanism
#   ($D$, $V$, $G$); only the forward solve $u_p$ tests the mechanism.
# * Operators can only be trusted over the range of $u$ that the data cover.
