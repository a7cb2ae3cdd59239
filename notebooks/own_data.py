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
# # Fit your own data
#
# The paper's purpose is practical: how to recover mechanisms reliably from real data.
# This page shows the one command that does it for a CSV file of measurements,
#
# ```bash
# binn fit DATA.csv --mechanisms D,G --x x_um --t t_h --u density --replicate well --out fit/
# ```
#
# on a data set whose answer we know, so that every output can be checked against the
# truth; {doc}`scratch_assay` applies the same code (`binn fit --example scratch-assay --out scratch-fit/`) to
# real scratch assays. The command validates the file (a missing column, a non-numeric or
# empty cell, an incomplete or unequally spaced grid, too few points for one mini-batch
# ... each stop it with a one-line message before anything is trained), rescales the data to
# the paper's training domain, trains one BINN per initialisation with the paper's default
# hyperparameters, computes the forward-predicted solution $u_\mathrm{p}$ from the learned
# operators alone, runs the ground-truth-free checks of {doc}`diagnostics`, and writes
#
# | file | contents |
# |---|---|
# | `operators.csv` | each learned operator in the data's units: median, quartiles and standard deviation over initialisations on a grid of $u$; `observed = 0` outside the observed range |
# | `solutions.npz` | the data, $u_\theta$ and $u_\mathrm{p}$ on the data grid, and each forward solve's status |
# | `solutions.png`, `operators.png`, `losses.png` | the figures below |
# | `diagnostics.md` | every check with its value, its threshold and what to do when it fires |
# | `report.html` | all of the above on one self-contained page |
# | `fit.json` | the full specification, versions, commit and a digest of the data |
#
# The trained networks are stored with the fit; running the command again with the same
# data and options loads them instead of training. `binn predict fit/ --ic ic.csv --t
# 0,12,24 --out what-if/` then solves the learned equation from a new initial condition,
# and `binn predict fit/ --u-grid 0:0.003:61 --out ops/` tabulates the operators on any
# grid of $u$.

# %% tags=["parameters", "hide-input"]
scale = None       # the `binn fit --scale`: None: the committed fit's (results/manifest.json); or "quick" (CI smoke run), "lite", "book", "paper"
source = None      # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None   # folder for the fit's output files; None: a temporary folder

# %% tags=["remove-cell"]
# the parameters checked before anything runs: a bad value stops here with one line
from binn_utils.applications.notebook_parameters import check_parameters

check_parameters(dict(scale=scale, source=source, output_dir=output_dir))

# %% tags=["remove-cell"]
import tempfile
from pathlib import Path

from IPython.display import Markdown, display

from binn_utils.analysis import reporting
from binn_utils.applications import fit_example, fit_report
from binn_utils.presentation import drawn_data, plotting, tables
from binn_utils.store import stores

scale = scale or stores.committed_scale("own_data")
out = Path(output_dir) if output_dir else Path(tempfile.mkdtemp(prefix="binn-fit-"))
out.mkdir(parents=True, exist_ok=True)
# the committed copy of fit_example.write_example_csv()'s data (data/README.md)
data_csv = fit_example.EXAMPLE_FILE
x_true, t_true, u_true = fit_example.write_example_csv(out / "regenerated.csv")
if (out / "regenerated.csv").read_bytes() != data_csv.read_bytes():
    print("note: regenerating the example data here gives a file that differs in the last digits "
          "from the committed one (another floating-point environment); the committed file is used")
plan = fit_example.example_plan(out / "fit", scale, cache_dir=stores.folders_for(scale, source, "own_data"))
fit, files = fit_report.run_fit(plan, progress=False, echo=lambda s: None)
# the report's figures again, with the known answer drawn in (dashed black)
shown = fit_report.fit_figures(fit, plan.units, truth=fit_example.example_truth(u_true))
with_truth = {name: plotting.save(fig, out / "with-truth", Path(name).stem) for name, fig in shown.items()}
if output_dir is None:   # the book: their layout checked with every other figure's, what they draw linked
    for name, fig in shown.items():
        plotting.save(fig, None, f"own_data_{Path(name).stem}")
reporting.glue("drawn_words", drawn_data.WORDS)   # after each figure's link to everything it draws
reporting.glue("od_what", f"{fit.result.epochs_run} epochs, {fit.result.n_replicates} initialisations "
                          f"(binn fit at its {scale} scale)")
reporting.glue("od_grid", f"{x_true.size} positions from 0 to 1000 µm at {t_true.size} times "
                          f"({', '.join(f'{v:g}' for v in t_true)} h), two replicates with 2% noise")

# %% [markdown]
# ## A problem with a known answer
#
# The example data (`data/own_data_example.csv`, written by the book's package from the
# model below) follow a
# reaction-diffusion equation $u_t = (D(u)u_x)_x + uG(u)$ with a diffusivity that rises
# with density, $D(u) = 200 + 1800\,u/K$ µm²/h, and a logistic growth rate
# $G(u) = 0.04\,(1 - u/K)$ 1/h with $K = 2\times10^{-3}$ cells/µm², started from a
# scratch-shaped initial condition: {glue:text}`od_grid`. The printout of `binn fit`
# before it trains:

# %% tags=["remove-input"]
print(plan.describe().replace(str(out), "<out>").replace(str(data_csv.parent), "data"))

# %% [markdown]
# ## The figures of the report
#
# This page fits with {glue:text}`od_what`; `--scale book` (the default) trains the paper's
# 4000 epochs and 10 initialisations.

# %% tags=["remove-input"]
from IPython.display import Image

display(Image(filename=str(with_truth["solutions.png"]), width=800))

# %% [markdown]
# `solutions.png`: the data (grey symbols, each replicate), the learned solution $u_\theta$
# (blue) and the forward-predicted solution $u_\mathrm{p}$ (orange, dashed), mean and $\pm 1$
# standard deviation over initialisations, at every observation time; on this page also
# the noise-free solution the data were drawn from (dashed black), which `binn fit`
# cannot know. $u_\mathrm{p}$ uses nothing but the learned operators and the learned initial
# condition: where it follows the data, the learned mechanism explains them.
#
# {download}`Everything this figure draws <../book/figure-data/own_data_solutions_drawn.csv>` (CSV):
# {glue:text}`drawn_words`.

# %% tags=["remove-input"]
display(Image(filename=str(with_truth["operators.png"]), width=700))

# %% tags=["remove-cell"]
lo, hi = fit.u_range
recovered = fit_example.example_recovery(fit)
reporting.glue("od_range", f"[{lo:.2g}, {hi:.2g}] cells/µm²")
for op in ("D", "G"):
    shape, err = recovered[op]
    reporting.glue(f"od_{op}", f"{shape} (true: {fit_example.EXAMPLE_TRUTH[op][1]}), median relative error "
                               f"{reporting.fmt(err)}")
reporting.glue("od_fired", tables.fired_against_truth(fit.report.flags, {k: e for k, (_, e) in recovered.items()}))

# %% [markdown]
# `operators.png`: the learned $D(u)$ and $G(u)$ in the data's units, each initialisation
# (thin lines) and their mean $\pm 1$ standard deviation, and on this page the true
# operators (dashed black); grey marks densities outside the
# observed range {glue:text}`od_range`, where nothing constrains the networks. Against the
# truth over the observed range, the median curve of $D$ is {glue:text}`od_D` and that
# of $G$ is {glue:text}`od_G` (relative $L^2$ error, median over initialisations). With
# real data there is no truth to compare with: the diagnostics below are what remains.
#
# {download}`Everything this figure draws <../book/figure-data/own_data_operators_drawn.csv>` (CSV):
# {glue:text}`drawn_words`.

# %% tags=["remove-input"]
display(Image(filename=str(with_truth["losses.png"]), width=500))

# %% [markdown]
# `losses.png`: validation losses (total, solid; data term, dashed, drawn over the total;
# PDE residual, dash-dotted) and the training loss (dotted), median and interquartile range
# over initialisations; the grey vertical line marks the median best-validation epoch.
#
# {download}`Everything this figure draws <../book/figure-data/own_data_losses_drawn.csv>` (CSV):
# {glue:text}`drawn_words`.
#
# ## The diagnostics, and what to do when one fires
#
# `diagnostics.md` of this fit (a flagged check reads **FLAG**):

# %% tags=["remove-input"]
md = Path(files["diagnostics.md"]).read_text(encoding="utf-8")
display(Markdown(tables.in_words(tables.flags_as_code("\n".join(md.splitlines()[4:])))))

# %% [markdown]
# {glue:text}`od_fired`
#
# Each check is defined in {doc}`diagnostics`, which also measures how often they catch
# the failures of the paper's sweeps and how often they fire on settings that are fine.
#
# * **underfitting**: the validation loss was still falling at the end (or a network fits
#   the data no better than their mean). Train longer (`--epochs`) or raise the learning
#   rate (`--lr`).
# * **instability**: the validation loss jumps, or a network diverged. Lower the learning
#   rate, or raise the batch size (`--batch-size`).
# * **overfitting**: the validation loss came back up after its minimum. Report the
#   best-validation networks (`--which best`, the default) or train for fewer epochs.
# * **mechanistic mismatch**: $u_\mathrm{p}$ misses the data much more than $u_\theta$, or a
#   forward solve failed. The learned operators do not reproduce the data: $u_\theta$
#   interpolates them without the mechanism. Try another loss weight (`--w-pde`), longer
#   training, or another model class (`--mechanisms`, e.g. add V).
# * **operator spread**: the initialisations disagree on an operator over the observed
#   range. Its shape is not pinned down by these data: read it with caution, and use more
#   initialisations (`--seeds`) to see how far the disagreement goes.
# * **loss balance**: the PDE term has almost no influence on the fit, or dominates it.
#   Raise or lower `--w-pde` (the paper recommends $w_\text{data} \gtrsim w_\text{PDE}$).
#
# A fit without flags is not proof of correct operators (agreement across
# initialisations is consistency, not correctness), and a flag is a reason to look, not a
# verdict. Operators are only ever meaningful over the observed range of $u$.
#
# ## Which operators do the data need, and how well do they pin them down?
#
# The last section of `diagnostics.md`, shown above, asks of each learned operator what the
# data themselves can say, in three steps.
#
# * **The noise.** Its size $\sigma$ is estimated from the data alone, never from the fit:
#   from the spread of the replicates at each point where there are several (divided by the
#   root of their number where their mean was fitted), otherwise from the scatter between
#   neighbouring points in space and time. The fit's own residual is printed beside it: much
#   larger than $\sigma$ means the model misses the data.
# * **The fit check.** The learned operators are solved forward from the data's first
#   observed profile (its point-to-point scatter smoothed away) and compared with every later
#   measurement: $\chi^2$ is the sum over the data points of (data $-$ model)$^2/\sigma^2$.
#   The fit is refused, and no operator gets a label, when a network diverged, blew up or
#   collapsed (the diagnostics above), when the forward solve fails, when the model fits no
#   better than a constant, or when $\chi^2$ exceeds what noise of size $\sigma$ reaches in
#   99.9 % of data sets (allowing for the uncertainty of $\sigma$ itself). The report then
#   says why and what to try for that failure; a refused label describes the fit, not the
#   data. A fit whose training diverged or blew up says so on every line of the report, and
#   the command ends with an error.
# * **Is each operator needed?** The data are fitted again without the operator, each other
#   operator allowed to change its size by a fitted factor, and with all of them, each with
#   its factor (both also adjusting the level and tilt of the profile they start from, so that
#   neither is judged on that profile's level or slope). If leaving the operator out raises
#   $\chi^2$ by less than 3.84 (what noise exceeds once in twenty data sets, one fitted factor
#   less), the data do not need it. A larger rise is not taken at its word: every refitted
#   model starts from the first observed profile, whose smoothing keeps some of its noise, and
#   growth amplifies that noise where only diffusion smooths it away, so on data with little
#   spatial structure diffusion could look needed when it is not. The rise is therefore set
#   against data simulated without the operator: the model without it, as fitted to the data,
#   is solved, noise of the estimated size $\sigma$ is added, and each simulated data set is
#   smoothed and fitted exactly as the real data were, up to 19 of them (the random draws
#   seeded, so that every run gives the same answer). The data **need** the operator only when
#   their rise is larger than that of every one of the 19 simulated data sets, a chance of 1 in
#   20 if the operator did nothing; the simulation stops at the first simulated data set whose
#   rise is as large, and the operator is then not needed (a sequential Monte Carlo test,
#   {cite:t}`besag1991sequential`). The report gives, for each operator, how many simulated
#   data sets rose as much, of how many drawn. An operator the data do not need is
#   **absent** when the data also reject it at the size the networks learned (the networks
#   invented it), and **indistinguishable from zero** when they can tell neither; the report
#   then gives the smallest constant value of the operator the data would have seen.
#
# Only a needed operator gets a level for its size and shape: each is halved, doubled and
# tilted (half at the low end of the observed $u$, one and a half times at the high end) in
# the forward model, and the change of the solution, summed as (change$/\sigma)^2$ over the
# data points, is compared with two bars. **Well** constrained: every change would show as a
# misfit of the data on its own (above the 95 % quantile of what noise adds to $\chi^2$ on
# these points); **weakly**: only a test aimed at that change could see it; **not**
# constrained: some change is below what any test can detect with even odds. Every column of
# the table is named in the report with what it measures, and each operator gets one plain
# sentence, such as "a model without G fits these data as well: the data do not need G".
