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
# # Reproduction scorecard
#
# ```{glue:md} hl_box
# :format: myst
# ```
#
# Every claim of the Results and Discussion of {cite:t}`crossley_binn_principles` is
# checked against this edition's runs, and gets one of four verdicts:
# <span style="color:#1a7f37;font-weight:bold">✔ reproduced</span>,
# <span style="color:#9a6700;font-weight:bold">◐ partly reproduced</span>,
# <span style="color:#cf222e;font-weight:bold">✘ not reproduced</span> or
# <span style="color:#57606a;font-weight:bold">○ not tested</span>. Each verdict is
# computed from the stored results; the chapter linked after each claim shows the evidence.

# %% tags=["parameters"]
# None: each study at the scale of its committed results (results/manifest.json), the Supporting
# Material repeats at the largest committed scale stored; or one scale for everything: "quick" (CI
# smoke run), "lite", "book", "paper"
scale = None
train_missing = None     # None: train missing runs with the quick scale only (and only the chapters' default
                         # configurations); False: never train; True: train everything that is missing
source = None       # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None        # unused: this page writes no files

# %% tags=["remove-cell"]
# Every claim is checked by the study that owns it (binn_utils/studies/*.py; claims 11 and
# 12, which span studies: binn_utils/claims/spanning.py) through one context that reads each
# study's results; binn_utils.presentation.scorecard_text turns the verdicts into this page's words.
from IPython.display import HTML, Markdown, display

from binn_utils.analysis import reporting
from binn_utils.analysis.reporting import fmt
from binn_utils.claims import scorecard
from binn_utils.claims.context import Context
from binn_utils.presentation import scorecard_text as text

ctx = Context(scale=scale, train=train_missing, source=source)
judged = scorecard.judge_all(ctx)
effects = scorecard.choice_effects(ctx, judged)

for outcome, n in text.counts(judged).items():
    reporting.glue(f"sc_n_{outcome.value.replace(' ', '_')}", str(n))
reporting.glue("sc_n_claims", str(len(judged)))
# Criteria of the verdicts (glued into the prose below; they live in binn_utils.analysis.reporting).
reporting.glue("sc_theta_ok", fmt(reporting.THETA_OK, "g"))
reporting.glue("sc_operator_ok", fmt(reporting.OPERATOR_OK, "g"))
reporting.glue("sc_factor", fmt(reporting.FACTOR, "g"))
reporting.glue("sc_near_zero", fmt(100 * reporting.NEAR_ZERO, "g"))
reporting.glue("sc_min_reps", str(reporting.MIN_REPLICATES))
reporting.glue("sc_trend_p", fmt(reporting.TREND_P, "g"))

# %% tags=["remove-cell"]
# The headline box of this page (MyST, pasted at the top with glue:md) and, as HTML, of the landing page.
reporting.glue("hl_box", Markdown(text.headline_md(judged)))
reporting.glue("hl_box_html", HTML(text.headline_html(judged)))

# %% tags=["remove-cell"]
# What was run: one row per study and configuration the book reads, from the stored records.
prov_html = text.provenance_html(scorecard.runs(ctx))
reporting.glue("sc_provenance", HTML(prov_html))

# %% [markdown]
# ## The claims
#
# Each row is one claim of the Results and Discussion of
# {cite:t}`crossley_binn_principles`, in short; the verdict comes first, and for a claim
# that is not fully reproduced, the sub-claims that disagree with the paper. The claims in
# the paper's words, the evidence and every sub-claim follow in {ref}`sc-details`.

# %% tags=["remove-input"]
display(Markdown(text.claims_table(judged)))

# %% [markdown]
# ## Which of our choices moves a verdict
#
# Where the paper's text and the authors' code differ, the book follows the code that
# made the published figures (see {doc}`../book/errata`). Each row recomputes the
# verdicts with the other reading; "none" means no verdict depends on the choice.

# %% tags=["remove-input"]
display(Markdown(text.choices_table(effects)))

# %% [markdown]
# ## How the verdicts are computed
#
# Nothing in the verdicts is typed by hand. Each claim is split into the
# sub-claims it makes (listed below), and each sub-claim is checked against the stored
# results by the same summary functions (`binn_utils.analysis.reporting`) whose numbers the
# chapters quote. A sub-claim *agrees* or *disagrees* with the paper, *cannot be decided*
# (e.g. every replicate of a setting needed for it failed, or the errors of the settings
# it compares overlap), has *too few replicates to decide* (fewer than
# {glue:text}`sc_min_reps` initialisations per setting), or is *not tested* (we did not
# run what it needs, or its results are not stored yet). Only decided sub-claims count;
# the verdict of a claim is then:
#
# * **reproduced** when every decided sub-claim agrees;
# * **not reproduced** when none agrees;
# * **partly reproduced** when some agree and some disagree;
# * **not tested** when no sub-claim could be decided, in particular when the claim's
#   results are not in the results store yet.
#
# The criteria that turn the paper's qualitative words into tests are those of the
# chapters (see their Verdict sections) and, for the words they do not test, these:
# "matches" means a median relative $L^2$ error of $u_\theta$ of at most
# {glue:text}`sc_theta_ok`; an operator is "recovered" ("centred near" the truth) when its
# median relative error (RMS relative deviation of the mean curve) is at most
# {glue:text}`sc_operator_ok`; an error is "large" or "poor" when it exceeds
# {glue:text}`sc_factor` times the reference error; "around $u = 0$" is the lowest
# {glue:text}`sc_near_zero` % of the observed range of $u$, and "where the true solution
# is near zero" the points of the $(t, x)$ grid where it is in the lowest
# {glue:text}`sc_near_zero` % of its range. Operator errors near zero and
# outside the paper's range, and solution errors near zero, are mean absolute
# differences from the truth (median over replicates). "Grows with $\sigma^2$" is a
# trend over all noise levels: Spearman's rank correlation of the per-replicate errors
# with $\sigma^2$ is positive with a one-sided $p$-value below
# {glue:text}`sc_trend_p`. Where a claim says one setting is worse or no better than
# another (claim 9), "clearly" larger means that the interquartile ranges of the
# per-replicate errors do not overlap; claim 3 compares the spread of the two networks'
# errors on the datasets both were run on. For claim 4 the paper's
# "observed range $[0.4, 0.6]$" is the range of the data at $t_\mathrm{end}$; our data
# also cover the initial condition. For claim 12 the failure settings are those where the
# paper reports failure ($r = 5\times10^{-7}$, $r \ge 5\times10^{-2}$,
# $w_\mathrm{PDE} = 10^{-4}$ and $10^{3}$), and a sub-claim agrees when at least one of the
# six ground-truth-free diagnostics of `binn_utils.analysis.diagnostics` raises a flag there, or
# none does at the defaults ($r = 5\times10^{-4}$, $w_\mathrm{PDE} = 10^{-1}$). Claim 11
# checks, for every Supporting Material configuration that is stored, the same
# comparisons as the main text, and, for each dense repeat, whether the median and the
# interquartile range of the $u_\mathrm{p}$ error at the paper's default setting of each
# study are lower than on the sparse grid at the same noise level.
#
# (sc-details)=
# ## Claims, evidence and sub-claims

# %% tags=["remove-input"]
display(Markdown(text.details_md(judged)))

# %% [markdown]
# ## What was run
#
# Every study and configuration this book reads, from the records stored with the
# results: the scale, the number of settings, the epochs (a range for the fixed-budget
# runs, whose epochs depend on the batch size), the replicates of each setting, where the
# settings were trained and which integrator computed $u_\mathrm{p}$. The scales are
# defined in `binn_utils/studies/base.py`: `paper` is the published grid (4000 epochs, 10
# initialisations; 10 datasets in the noise study, 3 for its large network), `lite` 1000
# epochs and 3 initialisations. A Supporting Material configuration is read at `paper`
# where it is stored, else at `lite`.

# %% tags=["remove-input"]
display(HTML(prov_html))
