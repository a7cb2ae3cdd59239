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
# # Supporting Material: noise-free, high-noise and dense-data repeats
#
# **The paper's claim.** The Supporting Material repeats the studies of Figs. 3-6
# (learning rate, loss weighting, operator-network size, batch size) without noise
# ($\sigma^2 = 0$), with more noise ($\sigma^2 = 10^{-2}$) and, for every noise level
# including the main text's $10^{-3}$, on a spatial grid five times denser (351 instead of
# 71 points); the noise study of Fig. 2 is repeated on the dense grid. The qualitative
# conclusions are unchanged in every repeat: intermediate learning rates, balanced loss
# weights, moderately sized operator networks and intermediate batch sizes remain best.
# Without noise the errors are lower, the learned operators vary less between
# initialisations and the validation losses fall more smoothly; with more noise the
# errors are larger, the operators vary more and the losses fluctuate more; denser data
# reduce the errors and the variability.
#
# **Scale.** Each study of each repeat is read at the paper's scale where those runs are
# stored, and otherwise at our reduced scale, which reduces epochs as well as replicates
# (the {doc}`/book/errata`, item 31, says why). What each scale trains, from the studies'
# settings:
#
# ```{glue:md} sm_scales
# :format: myst
# ```
#
# Every caption ends with the
# scale, epochs and replicates of its runs; a comparison with the reference configuration
# reads the reference at the same scale, and the list under its table says which runs each
# row reads.
# Every verdict on this page is computed by the same functions as the scorecard's: a
# comparison of intervals over the initialisations, which with two or three replicates
# usually cannot distinguish the settings. The scorecard's claim 11 counts only some of
# them (the comparisons each study names for its repeats, and on the dense grid the comparison
# with the 71-point grid); a sentence under each list and under the comparison table names those
# it counts. The table of what was run, at the
# end of the {doc}`/notebooks/scorecard`, lists every configuration with its scale and
# hardware.
#
# This one notebook draws any of these repeats: its parameters choose the noise level,
# the grid and the study. The book renders it once per configuration: the chapter's first
# page is the noise-free repeat on the 71-point grid, and its sections
# ({doc}`/book/supporting/noise_1e-2` and the dense
# grid {doc}`/book/supporting/dense_0`, {doc}`/book/supporting/dense_1e-3`,
# {doc}`/book/supporting/dense_1e-2`) are the same
# notebook executed with other parameters by papermill when the book is built;
# {doc}`/book/supporting/dense` says what the dense
# grid changes and what a repeat costs. Each figure names the figure of the paper it
# repeats (the Supporting Material's figures are the paper's Figs. 7-27). Any repeat is
# one command away, e.g.
# `make rerun NB=supplementary PARAMS="-p noise_var 0.01 -p dense True"`. The panels are
# the same as in the main-text chapters ({doc}`/notebooks/learning_rate`,
# {doc}`/notebooks/loss_weighting`, {doc}`/notebooks/architecture`,
# {doc}`/notebooks/batch_size`, {doc}`/notebooks/noise`), drawn by the same functions.
#
# ```{glue:md} rerun
# :format: myst
# ```

# %% tags=["parameters", "hide-input"]
# None: the scales of the committed repeats (results/manifest.json), the largest stored first;
# or "quick" (CI smoke run), "lite" (reduced), "book", "paper" (binn_utils/studies/base.py SCALES)
scale = None
fallback_scale = "lite" # a study (or reference) not stored at `scale` but stored at this one is read here; None: never
noise_var = 0.0          # observation noise variance sigma^2 of the repeat: 0, 1e-3 or 1e-2
dense = False            # True: 351 spatial points instead of 71
# "all", or one or more (comma-separated) of learning_rate, loss_weight, architecture,
# batch_size, noise ("all" includes the noise study only on the dense grid)
study = "all"
epochs = None            # None: the scale's value
seeds = None             # number of initialisations; None: the scale's value
compare = True           # also load the reference configuration (same scale) and compare errors with it
source = None       # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None        # folder for the figure files; None: do not write files

# %% tags=["remove-cell"]
# the parameters checked before anything runs: a bad value stops here with one line
from binn_utils.applications.notebook_parameters import check_parameters

check_parameters(dict(scale=scale, fallback_scale=fallback_scale, noise_var=noise_var, dense=dense,
                      study=study, epochs=epochs, seeds=seeds, compare=compare, source=source,
                      output_dir=output_dir))

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from binn_utils import studies
from binn_utils.analysis import reporting, results_table
from binn_utils.presentation import drawn_data, figures, plotting, rerun_box, tables, verdict_marks
from binn_utils.claims.spanning import counted_words, held_summaries, reference_counted_words
from binn_utils.studies.supporting import Page, compare_configurations, scale_table

plotting.style()
page = Page(noise_var=noise_var, dense=dense, study=study, scale=scale, fallback_scale=fallback_scale,
            epochs=epochs, seeds=seeds, compare=compare, source=source)
SWEEPS = {st.name: st for st in studies.sweeps()}
drawn = page.studies()
scale_of = {st.name: page.scale_of(st) for st in drawn}  # the scale each study's results are read at
results = {st.name: page.load(st, noise_var, dense, scale_of[st.name]) for st in drawn}
# The paper compares each dense repeat with the sparse grid at the same noise level, and
# the noise-free and high-noise repeats with the main text (sigma^2 = 1e-3, sparse).
reference = {st.name: page.load(st, *page.reference_of(st), scale_of[st.name]) for st in drawn if page.reference_of(st)}
# numbers and verdicts of each study, the repeat's comparisons held to 95 % together as the scorecard's claim 11 holds them
summaries = {name: verdict_marks.marked_summary(s) for name, s in held_summaries(
    {st.name: st.summary(results[st.name]) for st in drawn}, noise_var, dense).items()}

ref_noise, _ = page.reference
reporting.glue("sm_config", f"noise variance {noise_var:g}, {'351' if dense else '71'} spatial points")
reporting.glue("sm_reference", "none (this is the main-text configuration)" if page.is_reference else
               f"noise variance {ref_noise:g}, 71 spatial points")
reporting.glue("sm_expect", "lower" if page.expect_lower else "higher")
reporting.glue("sm_scales", Markdown(scale_table(("paper", "lite"))))  # what each scale trains, from the studies' settings


def not_run_reason(st):
    """Why this page does not draw the study ``st``."""
    if st.sweeps_noise and study == "all":
        return ("the noise study is repeated on the dense grid only (on the 71-point grid it is the main text's "
                "{doc}`/notebooks/noise`; the dense repeat is on {doc}`/book/supporting/dense_1e-3`)")
    if st.sweeps_noise and dense:
        return ("the dense noise study sweeps the noise variance itself, so the book draws it once, on "
                "{doc}`/book/supporting/dense_1e-3`")
    return (f"this page draws study = {study}; rerun it with study = \"{st.name}\" to draw the "
            f"{st.name.replace('_', ' ')} study")


# the box that says how to rerun this page and what its runs cost
# (this configuration's runs, then those of the configuration it is compared with)
rerun_runs = [rerun_box.Runs(st.name, scale_of[st.name], noise_var=float(nv), dense=bool(dn))
              for nv, dn, of in ((noise_var, dense, drawn), *(((*page.reference_of(st), [st]) for st in drawn
                                                               if page.reference_of(st))))
              for st in of]
reporting.glue("rerun", Markdown(rerun_box.rerun_box_md(
    "supplementary", rerun_runs,
    tuple(f for f in (st.paper_figures.get((float(noise_var), bool(dense))) for st in drawn) if f),
    ("supplementary", "dense"), f"-p noise_var {float(noise_var):g}" + (" -p dense True" if dense else "")
    + (f" -p study {study}" if study != "all" else ""))))

for name, st in SWEEPS.items():
    num = st.paper_figures.get((float(noise_var), bool(dense)))
    reporting.glue(f"sm_{name}_paper_fig", tables.paper_figure_words(num, absent="a configuration it does not show"))

# %% [markdown]
# Each figure draws numbers computed from the results table (one row per trained network)
# as in its study's chapter: the quartiles of each setting's errors for the box plots (the
# batch-size study's boxes: its fixed-budget runs), and for the operator networks the mean
# and median error of $u_\mathrm{p}$ per pair of networks for the heat map. A failed
# forward solve has no error (NaN): it is left out and counted, as is a training whose
# loss became non-finite (kept, at its best-validation networks). Each study computes these
# numbers, and says what its caption needs, in its own module (`binn_utils/studies/`), so
# that this page asks every study the same question and draws whatever it answers.

# %% tags=["remove-cell"]
def draw(name):
    """The study's figure, saved, glued as sm_fig_<name>, with its run description (nothing
    for a study this page does not draw: its section is left out of the page, and the
    page's note says why)."""
    if name not in results:
        return
    st, res = SWEEPS[name], results[name]
    # the study says what its figure plots (numbers from the results table) and what its caption
    # says (studies.base.Drawing); the solution, operator and loss panels (and the batch-size
    # timing) are not in the results table: the figure reads them from the loaded results
    # (batch size: its fixed-epoch runs)
    drawing = st.drawing(res, summaries[name])
    fig = figures.STUDY_FIGURES[name](res[0] if isinstance(res, tuple) else res, *drawing.numbers)
    reporting.glue(f"sm_{name}_what", tables.runs_description(st, res, scale_of[name]))
    for slot, says in drawing.says.items():
        reporting.glue(f"sm_{name}_{slot}", tables.phrase(says))
    runs = [r for part in res for r in part] if isinstance(res, tuple) else res    # batch size: both kinds of run
    plotting.save(fig, output_dir, data_name(name), data=results_table.table(runs))
    reporting.glue(f"sm_fig_{name}", fig)
    plt.close(fig)


def data_name(name):
    """The file name of the table behind a study's figure on this page."""
    return f"sm_{name}_nv{noise_var:g}" + ("_dense" if dense else "")


def bullets(name):
    """The link to the data behind the study's figure, then its comparisons with the paper, as
    a list (computed from the results)."""
    if name not in results:
        return
    st, s = SWEEPS[name], summaries[name]
    display(Markdown(drawn_data.link_md(data_name(name))
                     + f" {{download}}`Every network's errors </book/figure-data/{data_name(name)}.csv>`: one row "
                     "per network, with its errors (CSV).\n\n"
                     + "\n".join(f"* {line}" for line in st.bullets(s))
                     + "\n\n" + counted_words(st, s, noise_var, dense, verdict_marks.verdict_md)))


# %% [markdown]
# This page: {glue:text}`sm_config`. Reference configuration for the comparisons at the
# end: {glue:text}`sm_reference`.

# %% tags=["remove-input"]
skipped = [st for st in SWEEPS.values() if st.name not in results]
if skipped:  # one unnumbered note instead of a section per study this page does not draw
    display(Markdown("**Not on this page:** " + "; ".join(not_run_reason(st) for st in skipped) + "."))

# %% [markdown] tags=["sm-learning_rate"]
# ## Learning rate (Burgers' equation)

# %% tags=["hide-input", "sm-learning_rate"]
draw("learning_rate")

# %% [markdown] tags=["sm-learning_rate"]
# ```{glue:figure} sm_fig_learning_rate
# :name: fig-sm-learning-rate
#
# {glue:text}`sm_learning_rate_paper_fig` Learning rate, {glue:text}`sm_config`.
# Panels as in {doc}`/notebooks/learning_rate`: $u_\theta$ and $u_\mathrm{p}$ at every
# observation time and $D_\phi$, $V_\zeta$ for $r = 5\times10^{-4}$ (mean $\pm 1$ s.d.
# over replicates, dashed black truth); validation losses (median and IQR) for every $r$;
# errors of $u_\theta$ (blue) and $u_\mathrm{p}$ (orange) against $r$.
# {glue:text}`sm_learning_rate_grey` {glue:text}`sm_learning_rate_marks` Runs:
# {glue:text}`sm_learning_rate_what`.
# ```

# %% tags=["remove-input", "sm-learning_rate"]
bullets("learning_rate")

# %% [markdown] tags=["sm-loss_weight"]
# ## Loss weighting (porous-medium equation)

# %% tags=["hide-input", "sm-loss_weight"]
draw("loss_weight")

# %% [markdown] tags=["sm-loss_weight"]
# ```{glue:figure} sm_fig_loss_weight
# :name: fig-sm-loss-weight
#
# {glue:text}`sm_loss_weight_paper_fig` Loss weighting, {glue:text}`sm_config`,
# $w_\mathrm{data} = 1$, $w_\mathrm{BC} = 0$. Panels as in
# {doc}`/notebooks/loss_weighting`: $u_\theta$, $u_\mathrm{p}$ at $t_\mathrm{end}$ and
# $D_\phi$ for $w_\mathrm{PDE} \in \{10^{-4}, 10^{-1}, 10^{3}\}$; weighted validation
# losses $w_\mathrm{data} L_\mathrm{data}$ (solid) and $w_\mathrm{PDE} L_\mathrm{PDE}$
# (dashed); errors against $w_\mathrm{PDE}$. Runs: {glue:text}`sm_loss_weight_what`.
# ```

# %% tags=["remove-input", "sm-loss_weight"]
bullets("loss_weight")

# %% [markdown] tags=["sm-architecture"]
# ## Operator-network size (diffusion-advection equation)

# %% tags=["hide-input", "sm-architecture"]
draw("architecture")

# %% [markdown] tags=["sm-architecture"]
# ```{glue:figure} sm_fig_architecture
# :name: fig-sm-architecture
#
# {glue:text}`sm_architecture_paper_fig` Operator-network size, {glue:text}`sm_config`.
# Panels as in {doc}`/notebooks/architecture`:
# $u_\theta$, $u_\mathrm{p}$ at $t_\mathrm{end}$, $D_\phi$ and $V_\zeta$ for the four
# equal-size architectures; their validation losses; mean relative $L^2$ error of
# $u_\mathrm{p}$ over all sixteen combinations of $D$ network (rows) and $V$ network
# (columns). Runs: {glue:text}`sm_architecture_what`.
# ```

# %% tags=["remove-input", "sm-architecture"]
bullets("architecture")

# %% [markdown] tags=["sm-batch_size"]
# ## Batch size (diffusion equation)

# %% tags=["hide-input", "sm-batch_size"]
draw("batch_size")

# %% [markdown] tags=["sm-batch_size"]
# ```{glue:figure} sm_fig_batch_size
# :name: fig-sm-batch-size
#
# {glue:text}`sm_batch_size_paper_fig` Batch size, {glue:text}`sm_config`.
# Panels as in {doc}`/notebooks/batch_size`: $u_\theta$, $u_\mathrm{p}$ at
# $t_\mathrm{end}$ and validation losses of the fixed-epoch runs; the time of 4000
# epochs of one network in the timing benchmark, which ran on the
# {glue:text}`sm_batch_size_timing`, against the batch size it used (clipped to its own
# training set), with the fit $T = a/B + c$; errors after the fixed budget of optimiser
# steps. {glue:text}`sm_batch_size_clipped` Runs (fixed
# epochs): {glue:text}`sm_batch_size_what`.
# ```

# %% tags=["remove-input", "sm-batch_size"]
bullets("batch_size")

# %% [markdown] tags=["sm-noise", "remove-cell"]
# ## Observation noise (diffusion equation, dense grid)

# %% tags=["hide-input", "sm-noise", "remove-cell"]
# The cells of this section are tagged remove-cell: the chapter's own page (71 points) never
# draws the noise study; scripts/render_supporting.py keeps them on the dense page that does.
draw("noise")

# %% [markdown] tags=["sm-noise", "remove-cell"]
# ```{glue:figure} sm_fig_noise
# :name: fig-sm-noise
#
# {glue:text}`sm_noise_paper_fig` Observation noise on this page's grid. Panels
# as in {doc}`/notebooks/noise`. Runs: {glue:text}`sm_noise_what`. {glue:text}`sm_noise_fairness`
# ```

# %% tags=["remove-input", "sm-noise", "remove-cell"]
bullets("noise")

# %% [markdown]
# ## Compared with the reference configuration
#
# The Supporting Material's quantitative claim is a comparison: errors (and their spread
# over initialisations) are lower without noise and with denser data, higher with more
# noise. At the paper's default hyperparameters of each study, the errors in this
# configuration ({glue:text}`sm_config`) and in the reference configuration
# ({glue:text}`sm_reference`) are as follows. A study whose results come in parts is
# compared on its first part (the batch-size study: its fixed-epoch runs, as claim 11's
# comparison of the grids reads them, not the fixed-budget runs of its figure's boxes and
# of its list's verdicts); the list under the table names the runs each row reads.

# %% tags=["remove-cell"]
here = {k: v[0] if isinstance(v, tuple) else v for k, v in results.items()}  # a study in parts: its first
ref = {k: v[0] if isinstance(v, tuple) else v for k, v in reference.items()}
if ref:
    table, comp = compare_configurations(here, ref, page.expect_lower, SWEEPS, scale_of,
                                         {st.name: page.reference_note(st, scale_of[st.name]) for st in drawn})
    table += "\n\n" + reference_counted_words(comp["rows"], noise_var, dense)
else:
    table, comp = "*No comparison: this is the reference configuration (or `compare` is off).*", {
        "n": 0, "errors_as_expected": "n/a", "spread_as_expected": "n/a"}
reporting.glue("sm_errors_as_expected", comp["errors_as_expected"])
reporting.glue("sm_spread_as_expected", comp["spread_as_expected"])

# %% tags=["remove-input"]
display(Markdown(table))

# %% [markdown]
# ## Verdict
#
# The paper expects the median $u_\mathrm{p}$ error at the default setting to be
# {glue:text}`sm_expect` here than in the reference configuration (decided on the interval of
# the ratio of the two medians). Of the studies compared, it is so in
# {glue:text}`sm_errors_as_expected`, and the interquartile range of the $u_\mathrm{p}$
# errors (bootstrap intervals) is {glue:text}`sm_expect` in {glue:text}`sm_spread_as_expected`.
# Whether the qualitative conclusions carry over is answered, study by study, by the
# lists under each figure: each compares the location of the lowest errors and the two
# failure modes with the paper's main-text claims, computed from this configuration's
# results. The {doc}`/notebooks/scorecard` (claim 11) collects, over all configurations,
# the verdicts named under each list and under the comparison table.
#
# ## What we learnt
#
# * The Supporting Material repeats the four studies in five more configurations and the
#   noise study on the dense grid; one parameterised notebook reproduces all of them with
#   the same figure and verdict code as the main-text chapters, so they cannot drift apart.
# * "Conclusions unchanged" is a claim about where minima and failure modes lie, and can
#   be checked mechanically for each repeat; "more accurate" needs a reference
#   configuration, which for a dense repeat is the sparse grid at the same noise level.
