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
# # A real-biology example: scratch assays
#
# **Why this chapter.** The paper's benchmarks are all synthetic, and its Discussion names
# this as a limitation: in experimental applications "the true governing operators are
# unknown", so one can only monitor the optimisation, the agreement between the learned
# solution $u_\theta$ and the forward solve $u_\mathrm{p}$, and the consistency across
# initialisations. Here we do exactly that on real data: the PC-3 prostate-cancer
# scratch assays of {cite:t}`jin2016scratch`, the data on which BINNs were first
# demonstrated {cite}`lagergren2020binns`. Cells are seeded at one of six initial
# densities, a scratch is made, and the cell density across the scratch is measured
# every 12 hours for two days, in three independent experiments.
#
# We fit a reaction-diffusion BINN,
# $u_t = \partial_x\left(D(u)\,u_x\right) + u\,G(u)$ with no-flux ends, with the paper's
# default hyperparameters, to the replicate mean of one initial density, using the
# own-data entry point of `binn_utils.analysis.user_data` (it rescales the data to the paper's
# training domain and converts the learned operators back to µm²/h and h⁻¹). The data
# and their provenance are in `data/` (see `data/README.md`).

# %% tags=["parameters", "hide-input"]
scale = "book"           # "quick" (CI smoke run), "book" (the stored fit), "paper" (same as book)
initial_cells = 16000     # cells seeded per well: 10000, 12000, 14000, 16000, 18000 or 20000
mechanisms = "DG"         # operators learned: D (diffusion), G (growth); "V" would add advection
epochs = None             # None: the scale's value (book: the paper's 4000)
seeds = None              # number of initialisations; None: the scale's value (book: 10)
drop_first_column = True  # drop the first position (x of 25 um), an edge artefact (as Lagergren et al. 2020)
source = None        # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None         # folder for the figure files; None: do not write files

# %% tags=["remove-cell"]
# the parameters checked before anything runs: a bad value stops here with one line
from binn_utils.applications.notebook_parameters import check_parameters

check_parameters(dict(scale=scale, initial_cells=initial_cells, mechanisms=mechanisms, epochs=epochs,
                      seeds=seeds, drop_first_column=drop_first_column, source=source, output_dir=output_dir))

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from binn_utils.analysis import diagnostics, reporting, scratch, user_data
from binn_utils.applications import fit_plan
from binn_utils.presentation import drawn_data, frame_tables, plotting, scratch_figures, tables
from binn_utils.analysis.reporting import fmt

plotting.style()
data = scratch.load_scratch(initial_cells, drop_first_column)
fit = fit_plan.fit_scratch(initial_cells, mechanisms, scale, epochs, seeds, drop_first_column, source)
R = fit.result.n_replicates
U = 1e3  # densities are shown in 10^-3 cells/µm^2

reporting.glue("sc_cells", f"{int(initial_cells):,}")
reporting.glue("sc_what", f"{fit.result.epochs_run} epochs, {R} initialisations, "
                          f"default hyperparameters, replicate mean of {data.n_replicates} experiments")
reporting.glue("sc_grid", f"{data.x.size} positions ({data.x[0]:g} to {data.x[-1]:g} µm) x "
                          f"{data.t.size} times ({', '.join(f'{v:g}' for v in data.t)} h)")
reporting.glue("sc_R", str(R))

# %% [markdown]
# ## The data and the fitted solutions
#
# For {glue:text}`sc_cells` cells per well the data are
# {glue:text}`sc_grid`, three experiments each.

# %% tags=["hide-input"]
x, t = fit.x, fit.t
u_mean = data.u_mean
fig = scratch_figures.scratch_solutions(x, t, data.u, data.replicates, fit.u_theta, fit.u_p, scale=U)
# what the figure draws, one row per (t, x): each experiment's data, each network's u_theta and u_p
drawn = {"t": np.repeat(t, x.size), "x": np.tile(x, t.size)}
drawn |= {f"data_{k}": np.asarray(u, float).ravel() for k, u in enumerate(data.u)}
drawn |= {f"{name}_{k}": np.asarray(u, float).ravel() for name, us in (("u_theta", fit.u_theta), ("u_p", fit.u_p))
          for k, u in enumerate(us)}
plotting.save(fig, output_dir, f"scratch_{initial_cells}_solutions", data=pd.DataFrame(drawn))
reporting.glue("fig_scratch_solutions", fig)
reporting.glue("fig_scratch_solutions_paper", tables.paper_figure_words(None))
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_scratch_solutions
# :name: fig-scratch-solutions
#
# {glue:text}`fig_scratch_solutions_paper` Scratch assay of {cite:t}`jin2016scratch`, {glue:text}`sc_cells` cells per well.
# Grey open symbols: the three experiments; blue: learned solution $u_\theta$; orange
# dashed: forward-predicted solution $u_\mathrm{p}$ from the learned $D$ and $G$ and the learned
# initial condition $u_\theta(x, 0)$; lines and bands are mean $\pm 1$ standard deviation
# over initialisations ({glue:text}`sc_what`).
# ```

# %% tags=["remove-input"]
display(Markdown(drawn_data.link_md(f"scratch_{initial_cells}_solutions") + " "
                 f"{{download}}`Every network's solutions </book/figure-data/scratch_{initial_cells}_solutions.csv>`: "
                 "one row per time and position: each experiment's data and each network's $u_\\theta$ and $u_\\mathrm{p}$, in cells/µm² (CSV)."))

# %% tags=["remove-cell"]
# How well do u_theta and u_p reproduce the data?  Compared with how well the
# experiments reproduce each other (each experiment against their mean).
rep_err = scratch.replicate_errors(data)
err_th = fit.evaluation.err_u_theta_obs
err_p = fit.evaluation.err_u_p_obs
reporting.glue("sc_err_theta", reporting.med_iqr(err_th))
reporting.glue("sc_err_p", reporting.med_iqr(err_p))
reporting.glue("sc_rep_err", ", ".join(fmt(v, plain_from=tables.PLAIN_FROM) for v in rep_err))
reporting.glue("sc_p_vs_rep", tables.replicates_words(scratch.misfit_against_replicates(err_p, rep_err)))
n_fail = fit.evaluation.n_failed_u_p
reporting.glue("sc_up_failed", "none" if n_fail == 0 else f"{n_fail} of {R}")
inside = scratch.scratch_bias(fit, u_mean)[0]
reporting.glue("sc_scratch_x", f"{x[inside].min():g} to {x[inside].max():g} µm" if inside.any() else "none")

# %% [markdown]
# Against the replicate mean, the relative $L^2$ error (median [IQR] over
# initialisations) is {glue:text}`sc_err_theta` for $u_\theta$ and {glue:text}`sc_err_p`
# for $u_\mathrm{p}$; failed forward solves: {glue:text}`sc_up_failed`. For scale, the three
# experiments differ from their own mean by {glue:text}`sc_rep_err`: the forward solve's
# misfit is {glue:text}`sc_p_vs_rep` the between-experiment variability.
#
# Where does the forward solve miss the data? Per observation time: the relative error of
# $u_\mathrm{p}$ against the replicate mean, and inside the scratch ({glue:text}`sc_scratch_x`,
# where the initial density is below 10% of its maximum) the mean of $u_\mathrm{p}$ minus the
# data, each the median over initialisations (at the first time, $u_\mathrm{p}$ is the learned
# initial condition $u_\theta(x, 0)$, from which the forward solve starts):

# %%
inside, bias = scratch.scratch_bias(fit, u_mean)
per_time = pd.DataFrame({"relative error of $u_\\mathrm{p}$": scratch.errors_per_time(fit, u_mean),
                         "$u_\\mathrm{p}$ minus data inside the scratch (10⁻³ cells/µm²)": U * bias},
                        index=pd.Index(t, name="time (h)"))
frame_tables.table(per_time)

# %% tags=["remove-cell"]
later = per_time["relative error of $u_\\mathrm{p}$"].iloc[1:]      # after the start
reporting.glue("sc_worst_t", f"{later.idxmax():g} h" if later.notna().any() else "n/a")
reporting.glue("sc_bias_first", tables.first_bias_words(bias, t, scale=U))

# %% [markdown]
# After the start, the error is largest at {glue:text}`sc_worst_t`. At the first observation
# after scratching, the forward solve inside the scratch is {glue:text}`sc_bias_first`.
#
# ## Learned mechanisms

# %% tags=["hide-input"]
lo, hi = fit.u_range
grid = np.linspace(min(0.0, lo), hi + 0.25 * (hi - min(0.0, lo)), 201)
curves = fit.operator_curves(grid)
fig = scratch_figures.scratch_operators(grid, curves, fit.u_range, fit.result.history, scale=U)
# the operator curves it draws, one row per density u: each network's curve of each operator
drawn = {"u": grid} | {f"{name}_{k}": c for name, cs in curves.items() for k, c in enumerate(np.atleast_2d(cs))}
plotting.save(fig, output_dir, f"scratch_{initial_cells}_operators", data=pd.DataFrame(drawn))
reporting.glue("fig_scratch_operators", fig)
reporting.glue("fig_scratch_operators_paper", tables.paper_figure_words(None))
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_scratch_operators
# :name: fig-scratch-operators
#
# {glue:text}`fig_scratch_operators_paper` Learned operators in the data's units, {glue:text}`sc_cells` cells per well
# ({glue:text}`sc_what`): thin lines, each initialisation; thick line and band, mean
# $\pm 1$ standard deviation. Grey: densities outside the observed range (0.5% to 99.5%
# quantiles of the data), where nothing constrains the operators. Right: training and
# validation losses (median and interquartile range over initialisations).
# ```

# %% tags=["remove-input"]
display(Markdown(drawn_data.link_md(f"scratch_{initial_cells}_operators") + " "
                 f"{{download}}`Every network's operators </book/figure-data/scratch_{initial_cells}_operators.csv>`: "
                 "one row per density $u$: each network's learned operators in the data's units (CSV)."))

# %% tags=["remove-cell"]
# Qualitative shape of the learned operators over the observed range (user_data.operator_shape)
obs_curves = fit.operator_curves(fit.u_grid)
reporting.glue("sc_agree", f"{100 * user_data.AGREE:.0f}%")
reporting.glue("sc_obs_range", f"[{U * lo:.2g}, {U * hi:.2g}]" + " × 10⁻³ cells/µm²")
for name in scratch.LITERATURE_SHAPES:
    if name not in obs_curves:
        for k in ("shape", "counts", "median"):
            reporting.glue(f"sc_{name}_{k}", "n/a (not learned)")
        reporting.glue(f"sc_{name}_lit", "was not learned, so cannot be compared with")
        continue
    shape, counts, n = user_data.operator_shape(obs_curves[name])
    reporting.glue(f"sc_{name}_shape", shape)
    reporting.glue(f"sc_{name}_counts", tables.shape_counts_words(counts, n))
    reporting.glue(f"sc_{name}_median", tables.median_curve(obs_curves[name], fit.u_grid,
                                                            scratch.UNITS[name], scale=U))
    reporting.glue(f"sc_{name}_lit", tables.literature_words(scratch.agrees_with_literature(name, shape, n), shape))
# where does the median growth rate cross zero (the implied carrying capacity)?
reporting.glue("sc_G_zero", tables.growth_zero_words(scratch.growth_zero(grid, curves, hi), scale=U))

# %% [markdown]
# The observed densities span {glue:text}`sc_obs_range`. Over them, the learned diffusivity is
# **{glue:text}`sc_D_shape`** (initialisations: {glue:text}`sc_D_counts`). Its median
# curve is {glue:text}`sc_D_median`. The learned growth rate is
# **{glue:text}`sc_G_shape`** (initialisations: {glue:text}`sc_G_counts`). Its median
# curve is {glue:text}`sc_G_median`. An initialisation's operator counts as increasing
# (decreasing) when it rises (falls) over at least {glue:text}`sc_agree` of the observed
# range, and the operator gets that shape when at least {glue:text}`sc_agree` of the
# initialisations agree. The median growth rate crosses zero {glue:text}`sc_G_zero`.
#
# ## Diagnostics without ground truth
#
# The checks of {doc}`diagnostics` (defined in `binn_utils.analysis.diagnostics`, thresholds
# there) applied to this fit; a flagged value is in bold.

# %% tags=["remove-input"]
display(Markdown(tables.report_table(fit.report)))

# %% tags=["remove-cell"]
flags = fit.report.flags
reporting.glue("sc_flags", ", ".join(f.replace("_", " ") for f in flags) if flags else "none")
reporting.glue("sc_n_flags", str(len(flags)))
mm = fit.report["mechanistic_mismatch"]
reporting.glue("sc_mismatch", fmt(mm.value, plain_from=tables.PLAIN_FROM))
reporting.glue("sc_mismatch_thr", fmt(diagnostics.MISMATCH_RATIO, "g"))
sp = fit.report["operator_spread"].extra.get("per_operator", {})
reporting.glue("sc_spread", ", ".join(f"{k} {fmt(v, plain_from=tables.PLAIN_FROM)}" for k, v in sp.items()) or "n/a")
reporting.glue("sc_spread_thr", fmt(diagnostics.SPREAD_CV, "g"))

# %% [markdown]
# Flags raised: **{glue:text}`sc_flags`**. The forward solve misses the data by
# {glue:text}`sc_mismatch` times as much as $u_\theta$ (flagged above
# {glue:text}`sc_mismatch_thr`). The coefficients of variation of the operators across
# initialisations are {glue:text}`sc_spread` (flagged above {glue:text}`sc_spread_thr`).
#
# ## Which mechanisms do these data need?
#
# The report of `binn fit` ends by asking the data themselves about each learned operator
# (the rules are those of {doc}`own_data`, section "Which operators do the data need"). The noise
# $\sigma$ is estimated from the data alone, here from the spread of the three experiments
# (divided by $\sqrt{3}$: their mean is fitted). The **fit check** solves the learned model
# forward from the first observed profile and compares it with every later measurement; a fit
# that diverged, blew up or collapsed, or whose $\chi^2$ (the sum over the data points of
# (data $-$ model)$^2/\sigma^2$) is beyond what noise of size $\sigma$ reaches in 99.9 % of data
# sets, is refused and no operator gets a label. Each operator is then fitted away: the data
# **need** it when the model without it (the other operators rescaled) fits them worse than
# noise explains: its $\chi^2$ rises by more than 3.84, and by more than in each of 19 data sets
# simulated from the model without it, noise of size $\sigma$ added, and fitted the same way
# (seeded draws; the simulation stops at the first that rises as much). Otherwise it is
# **absent** (the data also reject it at its learned size) or
# **indistinguishable from zero**. Only a needed operator is labelled **well**, **weakly** or
# **not** constrained, by how visibly halving, doubling and tilting it would change the
# solution. For this fit:

# %% tags=["remove-input"]
from binn_utils.applications import fit_report

id_md = fit_report.identifiability_markdown(fit, scratch.UNITS)
# the report's section without its own heading (this section's heading asks the same)
display(Markdown(tables.in_words(tables.flags_as_code(id_md.split("\n", 2)[2]))))

# %% [markdown]
# ## What can and cannot be concluded
#
# *What the fit supports.* The numbers above say how well a reaction-diffusion model with
# the learned $D(u)$ and $G(u)$ reproduces these data (the forward solve $u_\mathrm{p}$, which
# uses nothing but the learned operators and the learned initial condition), and how
# consistently independent initialisations recover the same operators. Only where both
# hold, i.e. no mechanistic-mismatch or spread flag, should the operator shapes be read as
# properties of the data rather than of one optimisation run. Whether the data need each
# operator at all, and how tightly they pin down its size and shape, is the section above's
# question, answered only where the fit check passes.
# The two measures of fit above answer different questions: the mismatch ratio compares
# $u_\mathrm{p}$ with $u_\theta$ on the same (replicate-mean) data, so it can exceed its threshold
# even when the misfit of $u_\mathrm{p}$ is comparable to the differences between experiments,
# if $u_\theta$ follows the mean closely.
#
# *Comparison with the literature (qualitative).* {cite:t}`jin2016scratch` found that
# the parameters of the Fisher-Kolmogorov model (constant diffusivity, logistic growth)
# calibrated to these assays depend on the initial density, and that a Porous-Fisher model,
# whose diffusive flux increases with density, describes them better;
# {cite:t}`lagergren2020binns` learned with BINNs a diffusivity that increases and a
# growth rate that decreases with density. By the rule above, and for this initial
# density only, our learned diffusivity {glue:text}`sc_D_lit` an increasing
# diffusivity and our learned growth rate {glue:text}`sc_G_lit` a decreasing growth
# rate. Where the operator-spread or mismatch flag is raised, this comparison is of
# shapes that this fit does not pin down or that do not reproduce the data.
#
# *What it cannot show.*
#
# * **Anything outside the observed densities** (grey in the operator panels): the
#   operators there are extrapolations of the networks.
# * **Mechanisms outside the model class.** The BINN only chooses $D(u)$ and $G(u)$ in
#   $u_t = (D(u)u_x)_x + uG(u)$. {cite:t}`lagergren2020binns` found that a delay in the
#   onset of growth and migration after scratching improved their fits; a plain
#   reaction-diffusion model whose operators depend on $u$ alone cannot represent a
#   delay: a time-dependent effect is either missed (a systematic misfit that changes
#   with time; a delayed onset would make a model without delay run ahead of the data
#   at early times, so look at the per-time errors and the sign of $u_\mathrm{p}$ minus the data
#   in the scratch above) or absorbed into distorted shapes of $D$ and $G$. Such a
#   pattern is compatible with a delay but does not prove one; testing it needs a model
#   with time-dependent (or delayed) operators, which the paper's ADR-BINN does not
#   have.
# * **Accuracy of the operators.** Without ground truth we cannot measure operator
#   errors; agreement across initialisations is consistency, not correctness (the
#   {doc}`diagnostics` chapter measures how often the diagnostics miss failures on the
#   synthetic benchmarks), and between-experiment variability is not propagated: we fit
#   the replicate mean once per initialisation.
# * **Generality.** One initial density; other densities can be fitted by changing the
#   chapter's parameters (`make rerun NB=scratch_assay PARAMS="-p initial_cells 20000"`; each fit
#   is stored separately). Whether the learned
#   operators agree between densities, the crux of Jin et al.'s argument, is not tested
#   here.
#
# ## What we learnt
#
# * The own-data path works on real measurements: the BINN is trained in the paper's
#   scaled domain and reports $D$ in µm²/h and $G$ in h⁻¹, over the observed range of
#   densities only.
# * On real data the diagnostics are all we have: the agreement of $u_\mathrm{p}$ with the data,
#   compared with how well the experiments agree with each other, and the spread across
#   initialisations say how far to trust the learned shapes.
# * A BINN answers "which $D(u)$ and $G(u)$" within the model class; whether the model
#   class is right (e.g. whether a delay is needed) is a separate question.
