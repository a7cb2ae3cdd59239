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
preset = None
train_missing = None     # None: train missing runs with the quick preset only (and only the chapters' default
                         # configurations); False: never train; True: train everything that is missing
results_dir = None       # None: read results/, train what it lacks into out/results (quick runs: out/results-quick)
output_dir = None        # unused: this page writes no files

# %% tags=["remove-cell"]
import warnings

import numpy as np
from IPython.display import Markdown, display

from binn_utils import diagnostics, reporting, store, studies, sweeps
from binn_utils.reporting import arch_label, find, fmt, med_iqr, median, value_label
from binn_utils.verdicts import Claim, Outcome, Verdict, aggregate

OUTCOMES = [o.value for o in Outcome]  # the order the scorecard counts them in
from binn_utils.sweeps import reporting_checkpoint

# Criteria of the verdicts (glued into the prose below; they live in binn_utils.reporting).
THETA_OK, OPERATOR_OK, FACTOR, NEAR_ZERO = (reporting.THETA_OK, reporting.OPERATOR_OK, reporting.FACTOR,
                                            reporting.NEAR_ZERO)


def sp(name):
    """The preset of one study's results: its committed scale, or ``preset`` if one is given."""
    return preset or store.committed_scale(name)


def may_train(chapter_default=True):
    """Whether missing settings may be trained (only quick runs, by default)."""
    if train_missing is None:
        return preset == "quick" and chapter_default
    return bool(train_missing)


def planned(settings, pre):
    """'<preset> preset: E epochs, R replicates' of settings that may not be stored yet."""
    s = settings[0]
    return f"*{pre}* preset: {s.config.epochs} epochs, {len(s.seeds)} replicates"


def named(res, pre, **kw):
    """The run a piece of evidence rests on: preset and reporting.run_description."""
    return f"*{pre}* preset: {reporting.run_description(res, **kw)}"


def load(settings, pre, desc, chapter_default=True):
    """Stored results of ``settings`` (RuntimeError if some are missing and may not be trained)."""
    missing = sweeps.missing(settings, pre, results_dir)
    if missing and (not may_train(chapter_default) or store.require_stored()):
        raise RuntimeError(f"{len(missing)} of {len(settings)} settings of the {desc} ({planned(settings, pre)}) "
                           "are not in the results store")
    return sweeps.load_or_run(settings, pre, results_dir, desc=desc)


_cache = {}


def study(name):
    """Results of a main-text study at its chapter's preset, a tuple of parts for a study in
    parts (loaded once; RuntimeError if missing)."""
    if name not in _cache:
        st, pre = studies.get(name), sp(name)
        try:
            parts = tuple(load(ss, pre, f"{st.title} study" + (f" ({what})" if i else ""))
                          for i, (ss, what) in enumerate(zip(st.groups(pre), st.parts)))
            _cache[name] = parts if len(parts) > 1 else parts[0]
        except RuntimeError as err:
            _cache[name] = err
    if isinstance(_cache[name], RuntimeError):
        raise _cache[name]
    return _cache[name]


def verdict(subs):
    """The rule stated in the prose (``verdicts.aggregate``): from a claim's sub-claims."""
    return aggregate(w for *_, w in subs).value


def tally(subs):
    words = [w for *_, w in subs]
    plural = {Verdict.AGREES: "agree", Verdict.DISAGREES: "disagree"}
    parts = [f"{n} {k.value if n == 1 else plural.get(k, k.value)}" for k in Verdict if (n := words.count(k))]
    return f"sub-claims: {', '.join(parts)}"


# %% tags=["remove-cell"]
# Claims 1-10 are checked by their studies (binn_utils/studies/*.py, ``Study.claims``); a check
# returns (evidence, sub-claims, chapters it links to, whether some of its results are missing),
# sub-claims being (label, verdict) or (group, label, verdict), and reads the results through
# this context. Claims 11 and 12 span several studies and are checked below.


class Context:
    """Each study's results at its scale, as the claims' checks read them."""

    def scale(self, name):
        return sp(name)

    def study(self, name):
        return study(name)

    def variant(self, name, desc, scale=None, **overrides):
        pre = scale or sp(name)
        return load(studies.get(name).settings(pre, **overrides), pre, desc)

    def run(self, res, name, **kw):
        return named(res, sp(name), **kw)


ctx = Context()


# %% tags=["remove-cell"]
# Claim 11: the Supporting Material's repeats.
SM_CONFIGS = ((0.0, False), (1e-2, False), (0.0, True), (1e-3, True), (1e-2, True))
SM_CHECKS = {st.name: (st.summary, st.repeat_checks) for st in studies.sweeps() if st.repeat_checks}
SM_TITLES = {name: studies.get(name).title for name in SM_CHECKS}


def sm_settings(name, nv, dense, pre):
    st = studies.get(name)
    return st.groups(pre, noise_var=None if st.sweeps_noise else nv, dense=dense)


def sm_presets():
    """Presets to read the Supporting Material repeats at, the largest stored first."""
    return (preset,) if preset else store.committed_supporting_scales()


def sm_load(name, nv, dense, at=None):
    """(results, preset) of one study in one configuration at the largest Supporting
    Material preset stored (``at``: at that preset only); None if none is.

    Only the configurations the chapters run by default (the noise-free sparse repeat, and
    the main text's sparse noise study) may be trained (quick runs)."""
    chapter_default = (not dense) and (studies.get(name).sweeps_noise or nv == 0.0)
    for pre in ((at,) if at else sm_presets()):
        ss = sm_settings(name, nv, dense, pre)
        try:
            parts = tuple(load(part, pre, f"{name} repeat" + (f" ({what})" if i else ""), chapter_default)
                          for i, (part, what) in enumerate(zip(ss, studies.get(name).parts)))
            return (parts if len(parts) > 1 else parts[0]), pre
        except RuntimeError:
            continue
    return None


def n_replicates(res):
    """The fewest replicates of any setting in a study's results."""
    flat = [r for part in (res if isinstance(res, tuple) else (res,)) for r in part]
    return min(len(r.setting.seeds) for r in flat)


def config_label(nv, dense):
    return f"$\\sigma^2$ = {value_label(nv)}, {351 if dense else 71} points"


def claim_supplementary():
    subs, parts, runs = [], [], set()
    loaded = {}
    # the four studies in every configuration, and the noise study (which sweeps sigma^2) on the dense grid
    sparse = [st.name for st in studies.repeated(dense=False)]
    for nv, dense, names in [(nv, dn, sparse) for nv, dn in SM_CONFIGS] + [
            (None, True, [st.name for st in studies.repeated(dense=True) if st.sweeps_noise])]:
        group = config_label(nv, dense) if nv is not None else "noise study, 351 points"
        agree = total = 0
        missing = []
        for name in names:
            got = sm_load(name, nv, dense)
            if got is None:
                missing.append(SM_TITLES[name])
                subs.append((group, f"{SM_TITLES[name]}: conclusions unchanged", Verdict.NOT_TESTED))
                continue
            res, pre = got
            loaded[(name, 1e-3 if nv is None else nv, dense)] = res, pre  # the noise study: under its default 1e-3
            first = res[0][0] if isinstance(res, tuple) else res[0]
            runs.add(f"*{pre}* preset: {reporting.run_description(first, noise=False).split(' (')[0]}")
            fn, checks = SM_CHECKS[name]
            summ = fn(res)
            few = n_replicates(res) < reporting.MIN_REPLICATES
            for key, label in checks:
                w = Verdict.TOO_FEW if few else summ.verdicts[key]
                subs.append((group, f"{SM_TITLES[name]}: {label}", w))
                total += 1
                agree += w is Verdict.AGREES
        txt = f"{group}: {agree} of {total} comparisons agree" if total else f"{group}: not stored"
        if total and missing:
            txt += f" ({', '.join(missing)} not stored)"
        parts.append(txt)
    # more data: dense against sparse at the same noise level, at the paper's default setting of each study
    lower = []
    for nv, dense in SM_CONFIGS:
        if not dense:
            continue
        group = f"{config_label(nv, True)} against 71 points"
        n_cmp = 0
        for st in studies.sweeps():
            name = st.name
            if st.sweeps_noise and nv != st.default["noise_var"]:
                continue  # a study that sweeps sigma^2 is compared at its default noise level only
            here, pre = loaded.get((name, nv, True), (None, None))
            if here is None:
                continue
            # the sparse reference at the dense repeat's preset: a comparison at one scale
            ref, _ = sm_load(name, nv, False, at=pre) or (None, None)
            if ref is None:
                continue
            h = here[0] if isinstance(here, tuple) else here
            r = ref[0] if isinstance(ref, tuple) else ref
            sel = st.default
            a, b = find(h, **sel), find(r, **sel)
            if a is None or b is None:
                continue
            ea, eb = median(a.metric("err_u_p")), median(b.metric("err_u_p"))
            ia, ib = reporting.iqr(a.metric("err_u_p")), reporting.iqr(b.metric("err_u_p"))
            few = min(len(a.setting.seeds), len(b.setting.seeds)) < reporting.MIN_REPLICATES

            def decide(x, y):
                return Verdict.TOO_FEW if few else Verdict.of(bool(x < y) if np.isfinite([x, y]).all() else None)

            subs.append((group, f"{SM_TITLES[name]}: lower median $u_\\mathrm{{p}}$ error at the default", decide(ea, eb)))
            subs.append((group, f"{SM_TITLES[name]}: smaller IQR of the $u_\\mathrm{{p}}$ error at the default",
                         decide(ia, ib)))
            lower.append(f"{SM_TITLES[name]} ($\\sigma^2$ = {value_label(nv)}): {fmt(ea)} against {fmt(eb)}")
            n_cmp += 1
        if not n_cmp:
            subs.append((group, "denser data reduce the errors and their spread", Verdict.NOT_TESTED))
    run = ("; ".join(sorted(runs)) if runs else
           planned(sm_settings("learning_rate", 0.0, False, sm_presets()[0]), sm_presets()[0]) + " (planned)")
    ev = (f"{run}. Comparisons with the main-text conclusions per configuration: {'; '.join(parts)}. "
          "Median $u_\\mathrm{p}$ error at the default setting, dense against sparse: "
          + ("; ".join(lower) if lower else "no dense repeat stored"))
    return ev, subs, ["supplementary"], any(w is Verdict.NOT_TESTED for *_, w in subs)


# %% tags=["remove-cell"]
# Claim 12: ground-truth-free diagnostics at the paper's failure settings and defaults.
DIAG_STUDIES = (studies.get("learning_rate"), studies.get("loss_weight"))
DIAG_CASES = (  # (study, meta, the paper's reading): where the paper reports failure, then its defaults
    [(st.name, dict(m), "failure") for st in DIAG_STUDIES for m in st.paper_failures]
    + [(st.name, dict(st.default), "default") for st in DIAG_STUDIES])


def claim_diagnostics():
    all_settings = {st.name: st.settings(sp(st.name)) for st in DIAG_STUDIES}
    cases, runs = [], {}
    for st, meta, reading in DIAG_CASES:
        (key, val), = meta.items()
        s = next(x for x in all_settings[st] if np.isclose(dict(x.meta)[key], val))
        name = ("$r$" if key == "lr" else "$w_\\mathrm{PDE}$") + f" = {value_label(val)}"
        try:
            (res,) = load([s], sp(st), f"{st} setting {s.label}")
            runs[st] = named(res, sp(st), noise=False)
        except RuntimeError:
            res = None
        cases.append((name, reading, res))
    stored = [c for c in cases if c[2] is not None]
    table = diagnostics.diagnose_many([r for *_, r in stored], labels=[n for n, *_ in stored]) if stored else []
    reports = dict(zip([n for n, *_ in stored], table))
    subs, parts = [], []
    for name, reading, res in cases:
        label = f"{name}: " + ("a flag fires" if reading == "failure" else "no flag (default)")
        if res is None:
            subs.append((label, Verdict.NOT_TESTED))
            parts.append(f"{name}: not stored")
            continue
        rep = reports[name]
        fired = bool(rep.flags)
        subs.append((label, Verdict.of(fired if reading == "failure" else not fired)))
        parts.append(f"{name}: " + (", ".join(f.replace("_", " ") for f in rep.flags) or "no flag"))
    what = "; ".join(f"{SM_TITLES[k]}: {v}" for k, v in runs.items()) or (
        "; ".join(planned(v, sp(k)) for k, v in all_settings.items()) + " (planned)")
    ev = f"{what}. Flags raised by `binn_utils.diagnostics`: {'; '.join(parts)}"
    return ev, subs, ["learning_rate", "loss_weighting"], any(r is None for *_, r in cases)


# %% tags=["remove-cell"]
CLAIMS = sorted([c for st in studies.REGISTRY.values() for c in st.claims] + [  # the two spanning studies
    Claim(11, r"The qualitative conclusions are unchanged without noise, with $\sigma^2=10^{-2}$, and with five times denser spatial sampling; more data mainly reduces errors and variability.",
          r"Supporting Material figures (noise-free, high-noise and dense-data repeats).", lambda ctx: claim_supplementary(),
          title='conclusions unchanged without noise, with more noise, with dense data', figure='Supporting Material', chapter='supplementary'),
    Claim(12, r"Good agreement of $u_\theta$ with poor agreement of $u_\mathrm{p}$ signals failed mechanistic recovery; without ground truth, stable validation losses, $u_\theta$–$u_\mathrm{p}$ agreement and consistency across initialisations indicate reliable operators.",
          r"Discussion, drawing on Figs. 2–6.", lambda ctx: claim_diagnostics(),
          title='ground-truth-free diagnostics signal failure', figure='Discussion', chapter='diagnostics'),
], key=lambda c: c.number)

def judge(fn):
    """(evidence, verdict, sub-claims) of one claim function."""
    try:
        ev, subs, chapters, missing = fn()
        v = verdict(subs)
        links = ", ".join(f"{{doc}}`{c}`" for c in chapters)
        ev = f"{ev}; {tally(subs)} ({links})."
        if v == "not tested" and missing:
            v = "not tested (results not stored yet)"
    except RuntimeError as err:  # results not stored (and not to be trained here, or BINN_REQUIRE_STORED=1)
        ev, subs, v = f"Results not stored yet: {err}.", [], "not tested (results not stored yet)"
    return ev, v, subs


rows = []  # (number, claim, paper's evidence, our evidence, verdict, sub-claims)
for c in CLAIMS:
    ev, v, subs = judge(lambda c=c: c.check(ctx))
    rows.append((c.number, c.text, c.paper_evidence, ev, v, subs))

# Our choices where the authors' text and code differ, and what each alternative does to the verdicts.
CLAIM_OF = {st: studies.get(st).claims[0] for st in ("framework", "architecture", "batch_size")}


def with_final_networks():
    with reporting_checkpoint("final"):
        return {c.number: judge(lambda c=c: c.check(ctx))[1] for c in CLAIMS}


CHOICES = (
    ("networks evaluated: best validation loss (the authors' code)", "final networks", with_final_networks),
    ("Fig. 1 data: the authors' (heights 1 and 0.7)", "the paper's Eq. ic-nl (heights 0.1 and 0.07)",
     lambda: {CLAIM_OF["framework"].number: judge(lambda: CLAIM_OF["framework"].check(ctx, initial="text"))[1]}),
    ("Fig. 5 error: Frobenius norm (as every other figure)", "spectral norm (the published heat map)",
     lambda: {CLAIM_OF["architecture"].number: judge(lambda: CLAIM_OF["architecture"].check(ctx, "err_u_p_spectral"))[1]}),
    (f"Fig. 6 budget: {studies.PAPER_BUDGET_STEPS:,} optimiser steps for every $B$ (the paper's five minutes)",
     "the epochs ten minutes of the authors' trainer gave for each $B$",
     lambda: {CLAIM_OF["batch_size"].number: judge(lambda: CLAIM_OF["batch_size"].check(ctx, authors_budget=True))[1]}),
)
ours = {i: v for i, _, _, _, v, _ in rows}
choice_rows = ["| our choice | alternative | claims whose verdict changes |", "| --- | --- | --- |"]
for mine, other, fn in CHOICES:
    theirs = fn()
    changed = [f"claim {i}: {ours[i]} → {v}" for i, v in sorted(theirs.items()) if v != ours[i]]
    choice_rows.append(f"| {mine} | {other} | {'; '.join(changed) or 'none'} |")

counts = {k: sum(r[4].split(" (")[0] == k for r in rows) for k in OUTCOMES}
for k, n in counts.items():
    reporting.glue(f"sc_n_{k.replace(' ', '_')}", str(n))
reporting.glue("sc_n_claims", str(len(rows)))
reporting.glue("sc_theta_ok", fmt(THETA_OK, "g"))
reporting.glue("sc_operator_ok", fmt(OPERATOR_OK, "g"))
reporting.glue("sc_factor", fmt(FACTOR, "g"))
reporting.glue("sc_near_zero", fmt(100 * NEAR_ZERO, "g"))
reporting.glue("sc_min_reps", str(reporting.MIN_REPLICATES))
reporting.glue("sc_trend_p", fmt(reporting.TREND_P, "g"))

# %% tags=["remove-cell"]
# Presentation: verdict marks, short titles, "what failed", the headline box (here and, as
# HTML, on the landing page) and the table of what was run.  Nothing here changes a verdict.
import html
import re
from collections import Counter

from IPython.display import HTML

MARKS = {"reproduced": ("✔", "#1a7f37"), "partly reproduced": ("◐", "#9a6700"),
         "not reproduced": ("✘", "#cf222e"), "not tested": ("○", "#57606a")}
SYMBOLS_TEX = {"u_theta": "$u_\\theta$", "u_p": "$u_\\mathrm{p}$", "w_PDE/w_data": "$w_\\mathrm{PDE}/w_\\mathrm{data}$",
               "T ∝ 1/B": "$T \\propto 1/B$", "B = 40-160": "$B$ = 40-160", "u = 0": "$u = 0$", "D ": "$D$ ",
               "V and G": "$V$ and $G$"}


def base(v):
    """'not tested (results not stored yet)' -> 'not tested'."""
    return v.split(" (")[0]


def mark_md(v, words=True):
    sym, colour = MARKS[base(v)]
    return f'<span style="color:{colour};font-weight:bold">{sym}{" " + v if words else ""}</span>'


def title_tex(i):
    """The short title of claim i with its symbols as math."""
    t = CLAIMS[i - 1].title
    for plain, tex in SYMBOLS_TEX.items():
        t = t.replace(plain, tex)
    return t


def strip_criterion(label):
    """A sub-claim's label without its final parenthesis (the criterion), e.g.
    '(4, 4) recovers D (median rel. error at most 0.1)' -> '(4, 4) recovers D'."""
    label = label.strip()
    if not label.endswith(")"):
        return label
    depth = 0
    for k in range(len(label) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(label[k], 0)
        if depth == 0:
            head, paren = label[:k].rstrip(), label[k:]
            # a criterion has words in it; "(4, 4)" is part of the sentence
            return head if head and re.search(r"[a-z]{2}", re.sub(r"\$[^$]*\$", "", paren)) else label
    return label


def what_failed(subs, most=4):
    """The sub-claims that disagree with the paper, in words (grouped ones with their group)."""
    out = []
    for sub in subs:
        group, label, w = sub if len(sub) == 3 else (None, *sub)
        if w is Verdict.DISAGREES:
            out.append((f"{group}: " if group else "") + f"“{strip_criterion(label)}”")
    if len(out) > most:
        out = out[:most] + [f"and {len(out) - most} more"]
    return "; ".join(out)


def split_evidence(ev):
    """(runs, numbers) of a claim's evidence: the run description up to the first sentence
    end, which the table of what was run replaces, and the numbers after it."""
    m = re.search(r"\. (?=[A-Z$(])", ev)
    return (ev[:m.start()], ev[m.end():]) if m else ("", ev)


def tex_to_html(text):
    """HTML for the landing page: inline $...$ as MathJax spans (as Sphinx writes them)."""
    parts = re.split(r"(\$[^$]+\$)", text)
    return "".join(f'<span class="math notranslate nohighlight">\\({html.escape(p[1:-1])}\\)</span>'
                   if p.startswith("$") and p.endswith("$") and len(p) > 1 else html.escape(p) for p in parts)


main = sorted([r for r in rows if base(r[4]) in ("not reproduced", "partly reproduced")],
              key=lambda r: (base(r[4]) != "not reproduced", r[0]))
count_words = [(k, counts[k]) for k in OUTCOMES]

# the headline box of this page (MyST, pasted at the top with glue:md)
lines = ["```{admonition} Does the paper hold up?", ":class: tip", "",
         f"Of the paper's {len(rows)} claims: " + ", ".join(f"{mark_md(k, words=False)} **{n}** {k}"
                                                            for k, n in count_words) + "."]
if main:
    lines += ["", "Where our runs contradict the paper (its sub-claims that disagree):"]
    lines.append("")
    for i, _, _, _, v, subs in main:
        fig, chap = CLAIMS[i - 1].figure, CLAIMS[i - 1].chapter
        lines.append(f"* {mark_md(v, words=False)} claim {i}, {title_tex(i)} ({{doc}}`{fig} <{chap}>`): "
                     f"{what_failed(subs, most=2) or 'see the sub-claims'}")
else:
    lines.append("No claim disagrees with our runs.")
lines += ["", "Each claim, its evidence and its sub-claims are below; the table of what was run "
          "(presets, epochs, replicates, hardware) closes the page.", "```"]
reporting.glue("hl_box", Markdown("\n".join(lines)))

# the same box as HTML for the landing page (links relative to book/intro.html)
items = "".join(
    f'<li><span style="color:{MARKS[base(v)][1]};font-weight:bold">{MARKS[base(v)][0]}</span> claim {i}, '
    f"{tex_to_html(title_tex(i))} "
    f'(<a href="../notebooks/{CLAIMS[i - 1].chapter}.html">{html.escape(CLAIMS[i - 1].figure)}</a>): '
    f"{tex_to_html(what_failed(subs, most=2) or 'see the sub-claims')}</li>" for i, _, _, _, v, subs in main)
counts_html = ", ".join(f'<span style="color:{MARKS[k][1]};font-weight:bold">{MARKS[k][0]}</span> '
                        f"<strong>{n}</strong> {k}" for k, n in count_words)
box = (f'<div class="admonition tip headline-box" id="headline-box"><p class="admonition-title">'
       f"Does the paper hold up?</p><p>Of the paper's {len(rows)} claims, checked against this edition's "
       f"runs: {counts_html}.</p>"
       + (f"<p>Where our runs contradict the paper (its sub-claims that disagree):</p><ul>{items}</ul>" if main else "<p>No claim disagrees with our runs.</p>")
       + '<p>Every verdict, with its evidence and sub-claims: <a href="../notebooks/scorecard.html">the '
       "reproduction scorecard</a>.</p></div>")
reporting.glue("hl_box_html", HTML(box))

# %% tags=["remove-cell"]
# What was run: one row per study and configuration the book reads, from the stored records.
def _flat(res):
    return [r for part in (res if isinstance(res, tuple) else (res,)) for r in part]


def _hardware(rec):
    dev = rec.get("device") or "cpu"
    return f"GPU ({dev.split(':', 1)[1].strip()})" if dev.startswith("cuda") and ":" in dev else \
        ("GPU" if dev.startswith("cuda") else "CPU")


def _counted(values):
    c = Counter(values)
    return ", ".join(f"{k}" if len(c) == 1 else f"{k}: {n}" for k, n in c.items())


def provenance_row(what, config, res, pre):
    flat = _flat(res)
    recs = [r.record for r in flat]
    epochs = sorted({rec["epochs_run"] for rec in recs})
    ep = f"{epochs[0]:,}" if len(epochs) == 1 else f"{epochs[0]:,}-{epochs[-1]:,}"
    reps = sorted({(len(set(rec["datasets"])), rec["replicates"] // max(len(set(rec["datasets"])), 1))
                   for rec in recs}, reverse=True)
    rp = ", ".join(f"{d} × {k}" if d > 1 else f"{k}" for d, k in reps)
    return [what, config, pre, str(len(flat)), ep, rp, _counted(_hardware(rec) for rec in recs),
            _counted(rec.get("forward_method") or "RK45" for rec in recs)]


def nv_words(nv, dense):
    return f"σ² = {nv:g}, {351 if dense else 71} points"


prov = []


def add(what, config, get, pre):
    try:
        prov.append(provenance_row(what, config, get(), pre))
    except RuntimeError:
        prov.append([what, config, pre, "not stored yet", "", "", "", ""])


add("Fig. 1, the authors' data", nv_words(1e-3, False), lambda: study("framework"), sp("framework"))
add("Fig. 1, the paper's Eq. ic-nl", nv_words(1e-3, False),
    lambda: load(studies.framework_study(sp("framework"), initial="text"), sp("framework"), "framework (text)"),
    sp("framework"))
add("Fig. 2, noise", "σ² = 0 to 0.05, 71 points", lambda: study("noise"), sp("noise"))
add("Fig. 3, learning rate", nv_words(1e-3, False), lambda: study("learning_rate"), sp("learning_rate"))
add("Fig. 4, loss weighting", nv_words(1e-3, False), lambda: study("loss_weight"), sp("loss_weight"))
add("Fig. 5, operator networks", nv_words(1e-3, False), lambda: study("architecture"), sp("architecture"))
add("Fig. 6, fixed epochs", nv_words(1e-3, False), lambda: study("batch_size")[0], sp("batch_size"))
add("Fig. 6, fixed budget of steps", nv_words(1e-3, False), lambda: study("batch_size")[1], sp("batch_size"))
add("Fig. 6, the authors' budget", nv_words(1e-3, False),
    lambda: load(studies.batch_size_authors_budget(sp("batch_size")), sp("batch_size"), "authors' budget",
                 chapter_default=False), sp("batch_size"))
for nv, dense in SM_CONFIGS:
    for name in [st.name for st in studies.repeated(dense=False)]:
        got = sm_load(name, nv, dense)
        what = f"Supporting Material, {SM_TITLES[name]}"
        if got is None:
            prov.append([what, nv_words(nv, dense), "/".join(sm_presets()), "not stored yet", "", "", "", ""])
        else:
            prov.append(provenance_row(what, nv_words(nv, dense), got[0], got[1]))
got = sm_load("noise", None, True)
if got is None:
    prov.append(["Supporting Material, noise", "σ² = 0 to 0.05, 351 points", "/".join(sm_presets()),
                 "not stored yet", "", "", "", ""])
else:
    prov.append(provenance_row("Supporting Material, noise", "σ² = 0 to 0.05, 351 points", got[0], got[1]))

PROV_HEAD = ["results", "data", "preset", "settings", "epochs", "replicates per setting (datasets × initialisations)",
             "trained on (settings)", "u_p solver (settings)"]
prov_html = ('<table class="table provenance-table"><thead><tr>'
             + "".join(f"<th>{html.escape(h)}</th>" for h in PROV_HEAD) + "</tr></thead><tbody>"
             + "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in prov)
             + "</tbody></table>")
reporting.glue("sc_provenance", HTML(prov_html))

# %% [markdown]
# ## The claims
#
# Each row is one claim of the Results and Discussion of
# {cite:t}`crossley_binn_principles`, in short; the verdict comes first, and for a claim
# that is not fully reproduced, the sub-claims that disagree with the paper. The claims in
# the paper's words, the evidence and every sub-claim follow in {ref}`sc-details`.

# %% tags=["remove-input"]
cell = lambda s: s.replace("|", "\\|").replace("\n", " ")  # noqa: E731
table = ["| # | verdict | claim (chapter) | what failed: the paper's sub-claims our runs contradict |",
         "| --- | --- | --- | --- |"]
for i, text, paper, ev, v, subs in rows:
    failed = what_failed(subs) if base(v) in ("partly reproduced", "not reproduced") else ""
    table.append(f"| {i} | {mark_md(v)} | {cell(title_tex(i))} ({{doc}}`{CLAIMS[i - 1].figure} <{CLAIMS[i - 1].chapter}>`) "
                 f"| {cell(failed)} |")
display(Markdown("\n".join(table)))

# %% [markdown]
# ## Which of our choices moves a verdict
#
# Where the paper's text and the authors' code differ, the book follows the code that
# made the published figures (see {doc}`../book/errata`). Each row recomputes the
# verdicts with the other reading; "none" means no verdict depends on the choice.

# %% tags=["remove-input"]
display(Markdown("\n".join(choice_rows)))

# %% [markdown]
# ## How the verdicts are computed
#
# Nothing in the verdicts is typed by hand. Each claim is split into the
# sub-claims it makes (listed below), and each sub-claim is checked against the stored
# results by the same summary functions (`binn_utils.reporting`) whose numbers the
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
# six ground-truth-free diagnostics of `binn_utils.diagnostics` raises a flag there, or
# none does at the defaults ($r = 5\times10^{-4}$, $w_\mathrm{PDE} = 10^{-1}$). Claim 11
# checks, for every Supporting Material configuration that is stored, the same
# comparisons as the main text, and, for each dense repeat, whether the median and the
# interquartile range of the $u_\mathrm{p}$ error at the paper's default setting of each
# study are lower than on the sparse grid at the same noise level.
#
# (sc-details)=
# ## Claims, evidence and sub-claims

# %% tags=["remove-input"]
lines = []
for i, text, paper, ev, v, subs in rows:
    runs, numbers = split_evidence(ev)
    lines.append(f"**Claim {i}** {mark_md(v)}")
    lines.append("")
    lines.append(f"*The paper:* {text} *Its evidence:* {paper}")
    lines.append("")
    lines.append(f"*Ours:* {numbers}")
    lines.append("")
    groups = {}
    for sub in subs:
        group, label, w = sub if len(sub) == 3 else (None, *sub)
        groups.setdefault(group, []).append(f"{label}: *{w.value}*")
    for group, items in groups.items():
        if group is None:
            lines += [f"* {item}" for item in items]
        else:
            lines.append(f"* {group}: " + "; ".join(items))
    lines.append("")
display(Markdown("\n".join(lines)))

# %% [markdown]
# ## What was run
#
# Every study and configuration this book reads, from the records stored with the
# results: the preset, the number of settings, the epochs (a range for the fixed-budget
# runs, whose epochs depend on the batch size), the replicates of each setting, where the
# settings were trained and which integrator computed $u_\mathrm{p}$. The presets are
# defined in `binn_utils/studies/base.py`: `paper` is the published grid (4000 epochs, 10
# initialisations; 10 datasets in the noise study, 3 for its large network), `lite` 1000
# epochs and 3 initialisations. A Supporting Material configuration is read at `paper`
# where it is stored, else at `lite`.

# %% tags=["remove-input"]
display(HTML(prov_html))
