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
# Every claim of the Results and Discussion of {cite:t}`crossley_binn_principles` (with the
# Methods' claim on Fig. 1 and the Supporting Material's on its repeats) is quoted, tested against this edition's runs on its primary statement, and gets one of five verdicts:
# <span style="color:#1a7f37;font-weight:bold">✔ holds</span>,
# <span style="color:#9a6700;font-weight:bold">◐ holds, with exceptions</span>,
# <span style="color:#cf222e;font-weight:bold">✘ does not hold</span>,
# <span style="color:#57606a;font-weight:bold">≈ not resolved</span> or
# <span style="color:#57606a;font-weight:bold">○ not tested</span>. Each verdict is
# computed from the stored results; the chapter linked after each claim shows the evidence.

# %% tags=["parameters", "hide-input"]
# None: each study at the scale of its committed results (results/manifest.json), the Supporting
# Material repeats at the largest committed scale stored; or one scale for everything: "quick" (CI
# smoke run), "lite", "book", "paper"
scale = None
train_missing = None     # None: train missing runs with the quick scale only (and only the chapters' default
                         # configurations); False: never train; True: train everything that is missing
source = None       # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None        # unused: this page writes no files

# %% tags=["remove-cell"]
# the parameters checked before anything runs: a bad value stops here with one line
from binn_utils.applications.notebook_parameters import check_parameters

check_parameters(dict(scale=scale, train_missing=train_missing, source=source, output_dir=output_dir))

# %% tags=["remove-cell"]
# Every claim is checked by the study that owns it (binn_utils/studies/*.py; claims 11 and
# 12, which span studies: binn_utils/claims/spanning.py) through one context that reads each
# study's results; binn_utils.presentation.scorecard_text turns the verdicts into this page's words.
from IPython.display import HTML, Markdown, display

from binn_utils import studies
from binn_utils.analysis import diagnostic_roc, reporting
from binn_utils.analysis.reporting import fmt
from binn_utils.claims import readings, recommendations, runs_read, scorecard
from binn_utils.claims.context import Context
from binn_utils.presentation import landing_text, scorecard_text as text
from binn_utils.presentation.tables import folded_html
from binn_utils.analysis.verdicts import LEVEL

ctx = Context(scale=scale, train=train_missing, source=source)
judged = scorecard.judge_all(ctx)
effects = scorecard.choice_effects(ctx, judged)

for outcome, n in text.counts(judged).items():
    reporting.glue(f"sc_n_{outcome.value.replace(' ', '_')}", str(n))
reporting.glue("sc_n_claims", str(len(judged)))
# The level of the verdicts' intervals and of the trend test (binn_utils.analysis.verdicts, binn_utils.analysis.reporting).
reporting.glue("sc_level", fmt(100 * LEVEL, "g"))
reporting.glue("sc_near_zero", fmt(100 * studies.framework.NEAR_ZERO, "g"))
reporting.glue("sc_trend_p", fmt(studies.noise.TREND_P, "g"))
# claim 12's failure labels over every stored network (binn_utils.analysis.diagnostic_roc)
reporting.glue("sc_failure_pct", fmt(100 * diagnostic_roc.FAILURE_QUANTILE, "g") + "th")
# How a claim's verdict follows from its sub-claims', in the words of the rule itself (binn_utils.analysis.verdicts).
reporting.glue("sc_outcome_rule", Markdown(text.outcome_rule_md()))
reporting.glue("sc_decision", Markdown(text.decision_md()))

# %% tags=["remove-cell"]
# The headline box of this page (MyST, pasted at the top with glue:md) and, briefer and as HTML, the
# landing page's (binn_utils.presentation.landing_text: the answer once, pointing here for the tables).
# whether our runs are the authors': their archived runs against the spread of our datasets
fidelity = scorecard.fidelity(ctx)
# the paper's recommendations, each answered from the sub-claims that test it (binn_utils.claims.recommendations)
advice = recommendations.table(ctx, judged)
reporting.glue("hl_box", Markdown(text.headline_md(judged, fidelity, advice)))
reporting.glue("hl_box_html", HTML(landing_text.landing_html(judged, advice)))

# %% tags=["remove-cell"]
# What was run: one row per study and configuration the book reads, from the stored records;
# and how many stored settings no row names (the book does not read them)
run_rows = scorecard.runs(ctx)
prov_html = text.provenance_html(run_rows)
unread = runs_read.unnamed_words(run_rows)
prov_html += f"<p>{unread}</p>" if unread else ""
reporting.glue("sc_provenance", HTML(prov_html))

# %% [markdown]
# ## The claims
#
# Each row is one claim of {cite:t}`crossley_binn_principles` (its Results and Discussion, the
# Methods' paragraph on Fig. 1, the Supporting Material), in short; the verdict comes first, and for a claim
# that does not simply hold, the sub-claims that disagree with the paper. The claims in
# the paper's words, the evidence and every sub-claim follow in {ref}`sc-details`.

# %% tags=["remove-input"]
display(Markdown(text.claims_table(judged)))

# %% [markdown]
# ## Our readings of the paper's words
#
# Where the paper's words need a number, a reference or an estimand that it does not give, the
# verdict rests on a reading of ours. Each is listed with where it comes from, and each number
# is tried at its two neighbours (half and twice a fraction; for a factor, half and twice its
# logarithm), the claims it decides judged again there.

# %% tags=["remove-input"]
display(Markdown(text.readings_md(readings.table(ctx, judged))))

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
# Nothing in the verdicts is typed by hand. Each claim is quoted from the paper and split
# into the sub-claims it makes (listed below, each with our test of it), and each sub-claim
# is a comparison computed from the stored results by the same functions whose numbers the
# chapters and the Supporting Material pages quote. Every number compared is the median (or,
# for "less variable", the interquartile range) of the per-replicate errors of a setting; a
# median's {glue:text}`sc_level` % interval is the exact distribution-free interval from order
# statistics (over the datasets' medians where there are several datasets). A comparison of
# two settings agrees or disagrees with the paper only where the {glue:text}`sc_level` %
# interval of their difference lies wholly on one side of no difference (a ratio of 1), with
# the dataset as the unit and the comparisons of a claim held to that level together; the
# few tests of another kind (a trend over the noise levels, a margin for "at least as well",
# a number the paper names) and the rules in full are folded below the outcome rule.
#
# ```{glue:md} sc_outcome_rule
# :format: myst
# ```
#
# ````{dropdown} The rules in full: the difference, datasets, multiplicity, and each claim's measures
# ```{glue:md} sc_decision
# :format: myst
# ```
#
# A sub-claim *cannot be decided* when a setting it needs has no finite replicate, and is
# *not tested* when we did not run what
# it needs. Apart from claim 12's last sub-claim (below), no threshold of ours turns a number
# into a verdict (where a quantity is measured, e.g. "near zero" or "the last quarter of
# training", is ours, and is named below):
# where the paper's words need a reference ("accurately", "large", "consistently"), the
# sub-claim's rule names it, and it is the best other setting of the same study, the other
# quantity of the same runs, or the authors' own archived runs. Where the authors' archived runs hold the numbers a
# sub-claim needs, the same rule applied to them is shown beside ours: whether the
# authors' own runs bear out the paper's sentence. "Grows with $\sigma^2$" is a trend
# over all noise levels: within each dataset, Spearman's rank correlation of its errors with
# $\sigma^2$; over the datasets, the mean correlation is positive with a one-sided Student
# $t$ test's $p$-value below {glue:text}`sc_trend_p` (the dataset is the unit).
#
# "Around $u = 0$" is the lowest {glue:text}`sc_near_zero` % of the observed range of
# $u$, and "where the true solution is near zero" the points of the $(t, x)$ grid where it
# is in the lowest {glue:text}`sc_near_zero` % of its range. Operator errors near zero and
# outside the paper's range, and solution errors near zero, are mean absolute differences
# from the truth, per replicate. Claim 3 compares the spread of the two networks' errors
# on the datasets both were run on (the noise chapter shows the same table). For claim 4
# the paper's "observed range $[0.4, 0.6]$" is the range of the data at
# $t_\mathrm{end}$; our data also cover the initial condition.
#
# For claim 12 the failure
# settings are those where the paper reports failure ($r = 5\times10^{-7}$,
# $r \ge 5\times10^{-2}$, $w_\mathrm{PDE} = 10^{-4}$ and $10^{3}$), each compared with its
# study's default ($r = 5\times10^{-4}$, $w_\mathrm{PDE} = 10^{-1}$) on the three warning
# signs the paper names, each one number per replicate with no threshold: the mismatch
# err($u_\mathrm{p}$, obs) / err($u_\theta$, obs); the validation loss at the end over its
# minimum (smoothed), which is above 1 when the loss rose; and how far the replicate's
# learned operators lie from their mean over the initialisations, over the observed range of
# $u$, relative to the size of that mean (the median over $u$; 1 when a replicate lies as far
# from the mean as the mean lies from zero, e.g. when the operators of most replicates
# collapsed to zero and one did not). A failed forward solve or a diverged run counts as the
# highest value. The paper says any one sign is a warning, so a sub-claim agrees when one
# sign's median is higher than at the default (the interval of the difference, with the three
# signs held to the level together by Holm's procedure, since each is one more chance of a
# false alarm), disagrees when every sign's is lower, cannot be decided when no sign can be
# computed, and otherwise cannot be distinguished. The
# paper does not say that every failure raises a sign: a sub-claim that cannot be distinguished
# (a loss that falls too slowly, as at $r = 5\times10^{-7}$, is none of the three signs) does
# not contradict its sentence, it only finds no support for it there. The last sub-claim asks
# whether the thresholded flags of the {doc}`diagnostics` chapter rank the networks that failed
# by the ground truth above the others, over every stored network (the ROC curve's area, with
# a bootstrap interval, against 0.5). Two of its ingredients are ours: a network's score is
# the largest, over the paper's three signs, of each one's number divided by its threshold, and a
# network counts as failed when its $u_\mathrm{p}$ error lies beyond the
# {glue:text}`sc_failure_pct` percentile of the scatter of the best settings' networks.
#
# Claim 11 checks, for every
# Supporting Material configuration that is stored, the same comparisons as the main
# text (the verdicts its pages print), and, for each dense repeat, whether the median
# and the interquartile range of the $u_\mathrm{p}$ error at the paper's default setting
# of each study are lower than on the sparse grid at the same noise level.
# ````
#
# (sc-details)=
# ## Claims, evidence and sub-claims

# %% tags=["remove-input"]
display(Markdown(text.details_md(judged)))

# %% [markdown]
# ## What was run
#
# Every study and configuration this book reads, from the records stored with the
# results: the figures' runs; the further configurations the chapters read (Fig. 1 on one
# dataset, on the 351-point grid and with the three readings of its reaction term, the
# printed Fig. 2's network on the 351-point grid, the runs on the authors' data); the
# Supporting Material repeats; and the fits of the scratch assay and of the own-data page.
# For each: the scale, the number of settings, the epochs (a range for the fixed-budget
# runs, whose epochs depend on the batch size), the replicates of each setting, where the
# settings were trained and which integrator computed $u_\mathrm{p}$. The scales are
# defined in binn_utils/studies/base.py: "paper" is the published grid (4000 epochs, 10
# initialisations; 10 datasets in the noise study, 3 for its large network), "lite" fewer
# epochs and replicates, which differ between studies (the rows give each one's; the
# {doc}`/notebooks/supplementary` lists them). A Supporting Material configuration is read at
# the paper's scale where it is stored, else at the reduced one.

# %% tags=["remove-input"]
display(HTML(folded_html(f"The table of what was run ({len(run_rows)} rows)", prov_html)))

# %% tags=["remove-input"]
# every test's verdict as the scorecard decides it, after Holm (invisible; tests/book holds every page to it)
from binn_utils.presentation import verdict_marks  # noqa: E402
HTML(verdict_marks.record_html({}, scorecard.scorecard_verdicts(judged), scorecard.scorecard_outcomes(judged)))
