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
# # Diagnosing failure without ground truth
#
# **The paper's claim.** "In experimental applications, the true governing operators are
# unknown": practitioners should monitor stable validation-loss trajectories, the
# agreement between the learned solution $u_\theta$ and the forward simulation $u_p$
# driven by the learned operators, and the consistency across initialisations;
# "discrepancies between $u_\theta$ and $u_p$, increasing validation losses during
# training, or substantial variability between repeated optimisations ... provide early
# indications that the recovered operators should be interpreted with caution"
# (Discussion).
#
# The paper does not test this advice. We do, on its own experiments, where the ground
# truth *is* known: every setting of the main-text studies (learning rate, loss weighting,
# operator-network size, batch size, observation noise) is checked with the six
# ground-truth-free diagnostics of `binn_utils.diagnostics` (which see only the
# validation losses, the observations, $u_\theta$, $u_p$ and the learned operators), and
# the flags are compared with the errors against the noise-free solution.

# %% tags=["parameters"]
# None: each study at the scale of its committed results (results/manifest.json); or one scale for
# all: "quick" (CI smoke run), "lite", "book", "paper"
preset = None
epochs = None          # None: each study's preset value
seeds = None           # number of initialisations; None: the preset's value
failure_factor = 3.0   # ground-truth failure: median u_p error > this x the best comparable setting
calibration_seed = 0   # seed of the split into the settings thresholds are chosen on and the held-out ones
calibration_splits = 20  # further seeded splits (seeds 1..n) whose held-out counts are pooled
results_dir = None     # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None      # folder for the figure files; None: do not write files

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from binn_utils import diagnostics, figures, plotting, reporting, store, studies, sweeps
from binn_utils.sweeps import SettingResult, reported

plotting.style()
fmt = reporting.fmt


def sp(name):
    """The preset of one study's results: its committed scale, or ``preset`` if one is given."""
    return preset or store.committed_scale(name)


STUDIES = {  # study -> (title, settings); a study in parts: its first part (batch size: fixed epochs)
    st.name: (st.label, st.groups(sp(st.name), epochs=epochs, seeds=seeds)[0]) for st in studies.sweeps()}
settings = [s for _, ss in STUDIES.values() for s in ss]
unique = list({s.key: s for s in settings}.values())
loaded = dict(zip([s.key for s in unique], sweeps.load_or_run(unique, preset, results_dir, desc="diagnostics")))
# a run shared by two studies is shown under each, with that study's label and swept value
results = [SettingResult(s, loaded[s.key].record, loaded[s.key].arrays) for s in settings]
study_of = [s.study for s in settings]
table = diagnostics.diagnose_many(results, labels=[s.label for s in settings])
reporting.glue("dg_n", str(len(results)))
_desc = {"quick": "quick smoke runs", "lite": "1000 epochs, 3 initialisations (noise: fewer)",
         "book": "4000 epochs, 5 initialisations", "paper": "the paper's grid"}
reporting.glue("dg_presets", "; ".join(f"{name.replace('_', ' ')}: {sp(name)} preset ({_desc.get(sp(name), '')})"
                                       for name in STUDIES))

# %% [markdown]
# The runs checked here are those of the chapters: {glue:text}`dg_presets`.
#
# ## The ground truth and the rule for "failure"
#
# For each setting we take the median over its replicates of the relative $L^2$ errors of
# $u_\theta$ and $u_p$ against the noise-free solution and of each learned operator over
# the observed range of $u$. We call a setting a **ground-truth failure** when
#
# 1. its median $u_p$ error is more than {glue:text}`dg_factor` times that of the best
#    setting of the same study with the same noise level (what the same data allow), or
# 2. more than half of its replicates diverged or had a failed forward solve.
#
# A setting is **flagged** when at least one of the six diagnostics raises its flag.
# Each setting is then a *hit* (failure, flagged), a *miss* (failure, not flagged), a
# *false alarm* (flagged, no failure) or *quiet and fine*.

# %% tags=["remove-cell"]
DIAG_SHORT = {"underfitting": "U", "instability": "I", "overfitting": "O", "mechanistic_mismatch": "M",
              "operator_spread": "S", "loss_balance": "B"}


# the ground-truth rule (binn_utils.diagnostics.ground_truth_failures): groups of comparable settings
# are the settings of one study at one noise level
G = diagnostics.ground_truth_failures(results, study_of, failure_factor)
flag = [bool(rep.flags) for rep in table]
fail = [v["fail"] for v in G]
outcome = ["hit" if f and fl else "miss" if f else "false alarm" if fl else "quiet and fine"
           for f, fl in zip(fail, flag)]
reporting.glue("dg_factor", fmt(failure_factor, "g"))

# %% [markdown]
# ## Every setting
#
# Flags: **U** under-fitting, **I** instability, **O** over-fitting, **M** mechanistic
# mismatch ($u_p$ against $u_\theta$), **S** operator spread across initialisations,
# **B** loss balance (definitions and thresholds in `binn_utils.diagnostics`). Errors are
# medians over replicates against the noise-free solution; "x best" is the ratio of the
# $u_p$ error to the best comparable setting's.

# %% tags=["remove-input"]
rows = ["| study | setting | flags | err $u_\\theta$ | err $u_p$ (x best) | operator errors | "
        "failure | outcome |", "|---|---|---|---|---|---|---|---|"]
for i, (s, rep, v) in enumerate(zip(settings, table, G)):
    fl = " ".join(DIAG_SHORT[n] for n in rep.flags) or "-"
    ops = ", ".join(f"{k} {fmt(e)}" for k, e in v["ops"].items())
    extra = f"; {v['bad']}/{v['R']} failed" if v["bad"] else ""
    rows.append(f"| {STUDIES[s.study][0].split(' (')[0]} | {s.label} | {fl} | {fmt(v['theta'])} | "
                f"{fmt(v['up'])} ({fmt(v['rel'], '.2g')}){extra} | {ops} | {'**yes**' if v['fail'] else 'no'} | "
                f"{outcome[i]} |")
display(Markdown("\n".join(rows)))

# %% [markdown]
# The numbers behind the flags (flagged values in bold):

# %% tags=["remove-input", "hide-output"]
display(Markdown(table.to_markdown(columns=["setting", "err_u_theta_obs", "err_u_p_obs", "underfitting",
                                            "tail_decades", "instability", "overfitting", "mismatch", "spread",
                                            "loss_balance", "w_pde/w_data"])))

# %% [markdown]
# ## How often do the flags match the ground truth?

# %% tags=["remove-input"]
def count(idx):
    c = {k: sum(outcome[i] == k for i in idx) for k in ("hit", "miss", "false alarm", "quiet and fine")}
    c["n"] = len(idx)
    return c


rows = ["| study | settings | failures | hits | misses | false alarms | quiet and fine |", "|---|---|---|---|---|---|---|"]
for st, (title, _) in STUDIES.items():
    c = count([i for i in range(len(results)) if study_of[i] == st])
    rows.append(f"| {title} | {c['n']} | {c['hit'] + c['miss']} | {c['hit']} | {c['miss']} | {c['false alarm']} | "
                f"{c['quiet and fine']} |")
tot = count(range(len(results)))
rows.append(f"| **all** | {tot['n']} | {tot['hit'] + tot['miss']} | {tot['hit']} | {tot['miss']} | "
            f"{tot['false alarm']} | {tot['quiet and fine']} |")
display(Markdown("\n".join(rows)))

# %% tags=["remove-cell"]
n_fail = tot["hit"] + tot["miss"]
n_fine = tot["n"] - n_fail
for k, v in (("n_fail", n_fail), ("n_fine", n_fine), ("hits", tot["hit"]), ("misses", tot["miss"]),
             ("false", tot["false alarm"]), ("quiet", tot["quiet and fine"])):
    reporting.glue(f"dg_{k}", str(v))
reporting.glue("dg_sens", f"{100 * tot['hit'] / n_fail:.0f}%" if n_fail else "n/a (no failures)")
reporting.glue("dg_false_rate", f"{100 * tot['false alarm'] / n_fine:.0f}%" if n_fine else "n/a (every setting failed)")
reporting.glue("dg_n_flagged", str(sum(flag)))
names = [f"{STUDIES[settings[i].study][0].split(' (')[0]}: {settings[i].label}" for i in range(len(results))]
miss = [names[i] for i in range(len(results)) if outcome[i] == "miss"]
reporting.glue("dg_miss_list", "; ".join(miss) if miss else "none")
fa = [f"{names[i]} ({' '.join(DIAG_SHORT[n] for n in table[i].flags)})" for i in range(len(results))
      if outcome[i] == "false alarm"]
reporting.glue("dg_false_list", "; ".join(fa) if fa else "none")

# %% [markdown]
# Of the {glue:text}`dg_n` settings, {glue:text}`dg_n_fail` are failures by the rule
# above. The diagnostics flagged {glue:text}`dg_hits` of them (hits;
# {glue:text}`dg_sens` of the failures) and missed {glue:text}`dg_misses`
# ({glue:text}`dg_miss_list`). Of the {glue:text}`dg_n_fine` settings that did not fail,
# {glue:text}`dg_false` were flagged anyway (false alarms, {glue:text}`dg_false_rate`:
# {glue:text}`dg_false_list`) and {glue:text}`dg_quiet` were quiet.
#
# Which diagnostic does the work:

# %% tags=["remove-input"]
rows = ["| diagnostic | settings flagged | of which failures | failures caught by this flag alone |",
        "|---|---|---|---|"]
per_diag = {}
for n, short in DIAG_SHORT.items():
    fl = [n in rep.flags for rep in table]
    alone = sum(f and fa and table[i].flags == [n] for i, (f, fa) in enumerate(zip(fl, fail)))
    per_diag[n] = (sum(fl), sum(f and fa for f, fa in zip(fl, fail)))
    rows.append(f"| {n.replace('_', ' ')} ({short}) | {sum(fl)} | {per_diag[n][1]} | {alone} |")
display(Markdown("\n".join(rows)))

# %% tags=["remove-cell"]
top = max(per_diag, key=lambda n: (per_diag[n][1], -per_diag[n][0]))
reporting.glue("dg_top", top.replace("_", " ") if per_diag[top][1] else "none (no flag coincided with a failure)")
reporting.glue("dg_top_n", f"{per_diag[top][1]} of {n_fail}" if n_fail else "n/a")

# %% [markdown]
# The diagnostic whose flags coincide with the most failures is
# **{glue:text}`dg_top`** ({glue:text}`dg_top_n` failures).
#
# ## The settings where the paper locates failure
#
# The paper describes failure at the extremes of its sweeps and success at the defaults.
# What our diagnostics and the ground truth say there:

# %% tags=["remove-cell"]
from binn_utils.reporting import find

_lr, _lw = studies.get("learning_rate"), studies.get("loss_weight")
PAPER_ROWS = {  # id -> (study, meta to find the setting): where the paper reports failure, then its defaults
    "lr_small": ("learning_rate", _lr.paper_failures[0]),
    "lr_5e-2": ("learning_rate", _lr.paper_failures[1]),
    "lr_5e-1": ("learning_rate", _lr.paper_failures[2]),
    "w_low": ("loss_weight", _lw.paper_failures[0]),
    "w_high": ("loss_weight", _lw.paper_failures[1]),
    "noise_big": ("noise", studies.get("noise").paper_failures[0]),
    **{f"def_{tag}": (name, studies.get(name).default) for tag, name in (
        ("lr", "learning_rate"), ("w", "loss_weight"), ("arch", "architecture"), ("B", "batch_size"),
        ("noise", "noise"))},
}
n_agree = n_rows = 0
for rid, (st, meta) in PAPER_ROWS.items():
    idx = [i for i in range(len(results)) if study_of[i] == st]
    hit = find([results[i] for i in idx], **meta)
    if hit is None:
        for k in ("flags", "up", "gt", "agree"):
            reporting.glue(f"dg_pl_{rid}_{k}", "not run")
        continue
    i = next(j for j in idx if results[j] is hit)
    paper_fail = not rid.startswith("def_")
    reporting.glue(f"dg_pl_{rid}_flags", ", ".join(n.replace("_", " ") for n in table[i].flags) or "none")
    reporting.glue(f"dg_pl_{rid}_up", f"{fmt(G[i]['up'])} ({fmt(G[i]['rel'], '.2g')} x best)")
    reporting.glue(f"dg_pl_{rid}_gt", "failure" if fail[i] else "fine")
    ok = flag[i] == paper_fail
    n_agree += ok
    n_rows += 1
    reporting.glue(f"dg_pl_{rid}_agree", "yes" if ok else "no")
reporting.glue("dg_pl_agree", f"{n_agree} of {n_rows}")

# %% [markdown]
# | setting | the paper says | our flags | median err $u_p$ | ground truth (our rule) | flags match the paper |
# |---|---|---|---|---|---|
# | Burgers, $r = 5\times10^{-7}$ | under-fitting: loss still falling, large errors | {glue:text}`dg_pl_lr_small_flags` | {glue:text}`dg_pl_lr_small_up` | {glue:text}`dg_pl_lr_small_gt` | {glue:text}`dg_pl_lr_small_agree` |
# | Burgers, $r = 5\times10^{-2}$ | unstable optimisation, larger errors | {glue:text}`dg_pl_lr_5e-2_flags` | {glue:text}`dg_pl_lr_5e-2_up` | {glue:text}`dg_pl_lr_5e-2_gt` | {glue:text}`dg_pl_lr_5e-2_agree` |
# | Burgers, $r = 5\times10^{-1}$ | unstable optimisation, larger errors | {glue:text}`dg_pl_lr_5e-1_flags` | {glue:text}`dg_pl_lr_5e-1_up` | {glue:text}`dg_pl_lr_5e-1_gt` | {glue:text}`dg_pl_lr_5e-1_agree` |
# | porous medium, $w_{PDE} = 10^{-4}$ | $u_\theta$ fine, $u_p$ and $D$ wrong | {glue:text}`dg_pl_w_low_flags` | {glue:text}`dg_pl_w_low_up` | {glue:text}`dg_pl_w_low_gt` | {glue:text}`dg_pl_w_low_agree` |
# | porous medium, $w_{PDE} = 10^{3}$ | $u_\theta$ and $u_p$ both poor | {glue:text}`dg_pl_w_high_flags` | {glue:text}`dg_pl_w_high_up` | {glue:text}`dg_pl_w_high_gt` | {glue:text}`dg_pl_w_high_agree` |
# | diffusion, $\sigma^2 = 0.05$, $(h_u, n_u) = (6, 128)$ | over-fitting: validation loss rises late | {glue:text}`dg_pl_noise_big_flags` | {glue:text}`dg_pl_noise_big_up` | {glue:text}`dg_pl_noise_big_gt` | {glue:text}`dg_pl_noise_big_agree` |
# | Burgers, $r = 5\times10^{-4}$ (default) | good | {glue:text}`dg_pl_def_lr_flags` | {glue:text}`dg_pl_def_lr_up` | {glue:text}`dg_pl_def_lr_gt` | {glue:text}`dg_pl_def_lr_agree` |
# | porous medium, $w_{PDE} = 10^{-1}$ (default) | good | {glue:text}`dg_pl_def_w_flags` | {glue:text}`dg_pl_def_w_up` | {glue:text}`dg_pl_def_w_gt` | {glue:text}`dg_pl_def_w_agree` |
# | diffusion-advection, $D$, $V$ $(4, 32)$ (default) | good | {glue:text}`dg_pl_def_arch_flags` | {glue:text}`dg_pl_def_arch_up` | {glue:text}`dg_pl_def_arch_gt` | {glue:text}`dg_pl_def_arch_agree` |
# | diffusion, $B = 40$ (default) | good | {glue:text}`dg_pl_def_B_flags` | {glue:text}`dg_pl_def_B_up` | {glue:text}`dg_pl_def_B_gt` | {glue:text}`dg_pl_def_B_agree` |
# | diffusion, $\sigma^2 = 10^{-3}$, $(4, 32)$ (default) | good | {glue:text}`dg_pl_def_noise_flags` | {glue:text}`dg_pl_def_noise_up` | {glue:text}`dg_pl_def_noise_gt` | {glue:text}`dg_pl_def_noise_agree` |
#
# "Flags match the paper": a flag where the paper reports failure, no flag at a default.
# They match in {glue:text}`dg_pl_agree` rows. The last-but-one column applies our rule,
# which need not agree with the paper's qualitative reading.
#
# ## Forward-solve mismatch against the ground truth

# %% tags=["hide-input"]
ratio = np.array([rep["mechanistic_mismatch"].value for rep in table], float)
up = np.array([v["up"] for v in G], float)
fail_a = np.array(fail)
fig = figures.mismatch_figure(ratio, up, np.array([v["rel"] for v in G], float), study_of,
                              {st: title for st, (title, _) in STUDIES.items()}, flag, fail, failure_factor,
                              diagnostics.MISMATCH_RATIO)
plotting.save(fig, output_dir, "diagnostics_mismatch")
reporting.glue("fig_diag_mismatch", fig)
plt.close(fig)

# %% tags=["remove-cell"]
mm_flag = np.array([rep["mechanistic_mismatch"].flag for rep in table])
reporting.glue("dg_mm_hits", f"{int(np.sum(mm_flag & fail_a))} of {int(fail_a.sum())}")
reporting.glue("dg_mm_false", f"{int(np.sum(mm_flag & ~fail_a))} of {int((~fail_a).sum())}")
ok = np.isfinite(ratio) & np.isfinite(up) & (ratio > 0) & (up > 0)
if ok.sum() >= 3:
    lr_, lu_ = np.log(ratio[ok]), np.log(up[ok])
    rk = lambda a: np.argsort(np.argsort(a))  # noqa: E731
    rho = float(np.corrcoef(rk(lr_), rk(lu_))[0, 1])
    reporting.glue("dg_rho", fmt(rho, ".2f"))
else:
    reporting.glue("dg_rho", "n/a")

# %% [markdown]
# ```{glue:figure} fig_diag_mismatch
# :name: fig-diag-mismatch
#
# Every setting of the five studies: the ground-truth-free mismatch ratio
# err($u_p$, obs) / err($u_\theta$, obs) (median over replicates) against the median
# error of $u_p$ against the noise-free solution (left) and that error relative to the
# best setting of the same study and noise level (right). Filled: at least one diagnostic
# flag raised; open: none; black cross: ground-truth failure by our rule. Dashed black:
# the mismatch threshold; dashed red: the failure threshold of our rule. Settings whose
# forward solves mostly failed (ratio infinite) are drawn at the dotted line.
# ```
#
# The mismatch flag alone catches {glue:text}`dg_mm_hits` failures and fires on
# {glue:text}`dg_mm_false` settings that did not fail; the rank correlation between the
# mismatch ratio and the $u_p$ error over all settings is {glue:text}`dg_rho`.
#
# %% [markdown]
# ## Thresholds chosen on one part, counted on the other
#
# The thresholds above were set from the paper's statements and short runs. Can other
# thresholds reach the target of a practitioner's report, at least 85% of the failures
# flagged with at most 15% false alarms? Choosing them on all settings and counting on the
# same settings would flatter them, so we split the settings in two (seeded; half of each
# study's failures and half of its fine settings in each part; a run shown under two
# studies stays in one part), choose on the first part and count on the second, with the
# ground-truth rule above unchanged. For each diagnostic a few candidate thresholds are
# searched (`diagnostics.CANDIDATES`, the module's values among them), and the chosen
# combination is the one that meets the target on the first part with the fewest misses
# plus false alarms (if none does, the one with the lowest sum of the two rates), ties
# going to the smallest change from the module's values.

# %% tags=["remove-cell"]
M = diagnostics.flag_matrix(results)
fail_arr = np.array(fail, dtype=bool)
DEFAULT = {n: 0 for n in M}
if not np.array_equal(diagnostics.combined_flags(M, DEFAULT), np.array(flag)):
    raise RuntimeError("the flag matrix does not reproduce the diagnostics' own flags")
keys = [s.key for s in settings]
strata = [(s.study, f) for s, f in zip(settings, fail)]
part = diagnostics.split_parts(keys, strata, seed=calibration_seed)
choice, _ = diagnostics.choose_thresholds(M, fail_arr, part)


def counts_on(ch, sel):
    return diagnostics.count_flags(diagnostics.combined_flags(M, ch)[sel], fail_arr[sel])


def cell(c):
    caught = f"{c.caught} / {c.failures}" + (f" ({100 * c.caught_rate:.0f}%)" if c.failures else "")
    false = f"{c.false_alarms} / {c.fine}" + (f" ({100 * c.false_alarm_rate:.0f}%)" if c.fine else "")
    return f"{caught} | {false}"


rows = ["| thresholds | settings | caught / failures | false alarms / fine |", "|---|---|---|---|"]
for lab, ch in (("the module's", DEFAULT), ("chosen on the first part", choice)):
    for plab, sel in (("first part (choice)", part), ("second part (held out)", ~part)):
        rows.append(f"| {lab} | {plab} | {cell(counts_on(ch, sel))} |")
calib_table = "\n".join(rows)
changed = []
for n, i in choice.items():
    for k, v in diagnostics.CANDIDATES[n][i].items():
        if v != diagnostics.CANDIDATES[n][0][k]:
            changed.append(f"{k} {fmt(diagnostics.CANDIDATES[n][0][k], 'g')} → {fmt(v, 'g')}")
reporting.glue("dg_cal_changed", "; ".join(changed) if changed else "none (the module's values)")
held = counts_on(choice, ~part)
reporting.glue("dg_cal_held", str(held))
reporting.glue("dg_cal_meets", reporting.word(held.meets(0.85, 0.15) if held.failures and held.fine else None,
                                              "meets", "does not meet"))
# the same procedure on further seeded splits: the held-out counts pooled
pool = [0, 0, 0, 0]
n_meet = 0
for seed in range(1, 1 + int(calibration_splits)):
    p_s = diagnostics.split_parts(keys, strata, seed=calibration_seed + seed)
    ch_s, _ = diagnostics.choose_thresholds(M, fail_arr, p_s)
    c_s = counts_on(ch_s, ~p_s)
    pool = [a + b for a, b in zip(pool, (c_s.caught, c_s.failures, c_s.false_alarms, c_s.fine))]
    n_meet += c_s.meets(0.85, 0.15)
pooled = diagnostics.Counts(*pool)
reporting.glue("dg_cal_splits", str(int(calibration_splits)))
reporting.glue("dg_cal_pooled", str(pooled) if calibration_splits else "n/a (no further splits)")
reporting.glue("dg_cal_pooled_rates", (f"{100 * pooled.caught_rate:.0f}% caught, {100 * pooled.false_alarm_rate:.0f}% "
                                       "false alarms") if pooled.failures and pooled.fine else "n/a")
reporting.glue("dg_cal_n_meet", f"{n_meet} of {int(calibration_splits)}")

# %% tags=["remove-input"]
display(Markdown(calib_table))

# %% [markdown]
# Chosen on the first part: {glue:text}`dg_cal_changed`. On the held-out part the chosen
# thresholds give {glue:text}`dg_cal_held`: the combination
# {glue:text}`dg_cal_meets` the target there. With so few failures in each part one split
# says little, so the same choice was repeated on {glue:text}`dg_cal_splits` further
# seeded splits: pooled over their held-out parts, {glue:text}`dg_cal_pooled`
# ({glue:text}`dg_cal_pooled_rates`); the target was met on the held-out part of
# {glue:text}`dg_cal_n_meet` splits. The module's thresholds (and so the reports of
# {doc}`own_data` and {doc}`scratch_assay`) are unchanged: a threshold enters them only
# once it holds up on settings it was not chosen on. For one calculation, other thresholds
# can be set with `diagnostics.thresholds(...)`.
#
# ## Verdict
#
# The paper's advice is qualitative; with its own experiments as test bed, our
# implementation of it caught {glue:text}`dg_hits` of {glue:text}`dg_n_fail` failures
# and raised {glue:text}`dg_false` false alarms among {glue:text}`dg_n_fine` good
# settings, and agreed with the paper's reading of its failure and default settings in
# {glue:text}`dg_pl_agree` cases. The thresholds are ours (chosen from the paper's
# statements and short runs, see `binn_utils.diagnostics`); a miss or a false alarm
# here is a statement about these thresholds as much as about the paper's advice.
# Thresholds chosen on half of the settings gave, on the other half,
# {glue:text}`dg_cal_held` (pooled over {glue:text}`dg_cal_splits` further splits:
# {glue:text}`dg_cal_pooled_rates`).
#
# ## What we learnt
#
# * Ground-truth-free checks can be scored only where the truth is known; doing so on
#   the paper's own sweeps turns its advice into counts of hits, misses and false alarms.
# * Each diagnostic targets one failure mode (slow optimisation, instability,
#   over-fitting, interpolation without mechanism, irreproducibility, imbalance); the
#   table of which flag does the work shows which of these modes actually occur in the
#   sweeps.
# * A flag is a reason to look, not a verdict: the per-setting table shows the numbers
#   behind every flag.
