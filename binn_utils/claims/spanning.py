"""The paper's claims that span studies: 11 (the Supporting Material repeats leave the
conclusions unchanged) and 12 (ground-truth-free diagnostics signal failure).

Their study-specific facts come from the registry: the studies repeated on each grid
(``Study.repeated_on``) and the comparisons a repeat is checked on (``Study.repeat_checks``),
the studies whose failures claim 12 diagnoses (``Study.diagnosed``, at ``paper_failures``
and the default point).
"""
from __future__ import annotations

import numpy as np

from ..analysis import diagnostic_roc, diagnostics, reporting
from ..analysis.reporting import find, fmt, value_label
from ..analysis.verdicts import (Claim, ClaimCheck, SubClaim, Verdict, adjust_family, every, expect, median_interval,
                                subclaim_id)
from ..studies import REGISTRY, SUPPORTING_CONFIGURATIONS, get, repeated, sweeps
from ..studies.supporting import against_reference
from .context import RunRow, described, run_row


def config_label(noise_var, dense: bool) -> str:
    return f"$\\sigma^2$ = {value_label(noise_var)}, {351 if dense else 71} points"


def _first(res):
    return res[0] if isinstance(res, tuple) else res


def repeat_groups() -> list[tuple]:
    """Claim 11's groups of repeats, each (noise variance, dense, study names): the studies
    repeated on the 71-point grid in every Supporting Material configuration, and the noise
    study (which sweeps sigma^2; noise variance None) on the dense grid."""
    sparse = [st.name for st in repeated(dense=False)]
    return [(nv, dn, sparse) for nv, dn in SUPPORTING_CONFIGURATIONS] + [
        (None, True, [st.name for st in repeated(dense=True) if st.sweeps_noise])]


def counts_against_reference(st, noise_var, dense: bool) -> bool:
    """Whether claim 11 counts the comparison of ``st`` at its default with the 71-point grid
    in the configuration (``noise_var``, ``dense``): dense repeats only, a study that sweeps
    sigma^2 at its default level only."""
    return (bool(dense) and (float(noise_var), True) in {(float(a), b) for a, b in SUPPORTING_CONFIGURATIONS}
            and not (st.sweeps_noise and noise_var != st.default["noise_var"]))


def counts_repeat_checks(st, noise_var, dense: bool) -> bool:
    """Whether claim 11 counts the ``repeat_checks`` of ``st`` in the configuration
    (``noise_var``, ``dense``): one of ``repeat_groups``."""
    return any(st.name in names and dn == bool(dense) and (nv is None or float(nv) == float(noise_var))
               for nv, dn, names in repeat_groups())


def counted_words(st, summ, noise_var, dense: bool, mark=lambda text, test: text) -> str:
    """Which of a Supporting Material page's verdicts on ``st`` (its summary ``summ``) the
    scorecard's claim 11 counts (``Study.repeat_checks``), in one markdown sentence (``mark(words,
    test)``: a verdict's words with the test it repeats, ``summ.tests``)."""
    if not counts_repeat_checks(st, noise_var, dense) or not st.repeat_checks:
        return "The scorecard's claim 11 counts none of these comparisons."
    return (f"The scorecard's claim 11 counts {len(st.repeat_checks)} of these comparisons: "
            + "; ".join(f"{label} ({mark(summ.verdicts[key].value, summ.tests.get(key))})"
                        for key, label in st.repeat_checks)
            + "; the others are computed the same way and not counted.")


def reference_counted_words(names, noise_var, dense: bool) -> str:
    """Which rows (studies ``names``: the rows the comparison with the reference configuration
    printed) of a Supporting Material page the scorecard's claim 11 counts, in one sentence."""
    counted = [get(n).title for n in names if counts_against_reference(get(n), noise_var, dense)]
    if not counted:
        return ("The scorecard's claim 11 counts none of these comparisons: it compares only the dense repeats "
                "with the 71-point grid.")
    return (f"The scorecard's claim 11 counts three comparisons (the median $u_\\theta$ and $u_\\mathrm{{p}}$ errors, "
            "and the variability of the learned operators between initialisations) "
            f"of the row{'s' if len(counted) > 1 else ''} {reporting.and_list(counted)}.")


def claim_supporting(ctx) -> ClaimCheck:
    """Claim 11: every stored Supporting Material repeat against the main text's comparisons,
    and each dense repeat against the sparse grid at the same noise level."""
    subs, parts, runs, loaded = [], [], set(), {}
    sparse = [st.name for st in repeated(dense=False)]
    for nv, dense, names in repeat_groups():
        group = config_label(nv, dense) if nv is not None else "noise study, 351 points"
        agree = total = 0
        missing = []
        for name in names:
            st = get(name)
            got = ctx.repeat(name, nv, dense)
            if got is None:
                missing.append(st.title)
                subs.append(SubClaim(f"{st.title}: conclusions unchanged", Verdict.NOT_TESTED, group))
                continue
            res, scale = got
            # a study that sweeps sigma^2 (nv None): under its default level
            loaded[(name, st.default["noise_var"] if nv is None else nv, dense)] = res, scale
            runs.add(described([_first(res)[0].setting], scale))
            summ = st.summary(res)
            # the same comparisons on the authors' archived runs (the 71-point grid only)
            they = st.authors(nv) if st.authors and nv is not None and not dense else None
            subs += repeat_subclaims(st, summ, group, they)
            total += len(st.repeat_checks)
        held = adjust_family(s for s in subs if s.group == group)
        agree = sum(s.verdict is Verdict.AGREES for s in held)
        txt = f"{group}: {agree} of {total} comparisons agree" if total else f"{group}: not stored"
        if total and missing:
            txt += f" ({', '.join(missing)} not stored)"
        parts.append(txt)
    # more data: dense against sparse at the same noise level, at the paper's default setting of each study
    lower = []
    for nv, dense in SUPPORTING_CONFIGURATIONS:
        if not dense:
            continue
        group = f"{config_label(nv, True)} against 71 points"
        n_cmp = 0
        for st in sweeps():
            if not counts_against_reference(st, nv, True):
                continue  # a study that sweeps sigma^2 is compared at its default noise level only
            here, scale = loaded.get((st.name, nv, True), (None, None))
            if here is None:
                continue
            # the sparse reference at the dense repeat's scale: a comparison at one scale
            ref, _ = ctx.repeat(st.name, nv, False, at=scale) or (None, None)
            if ref is None:
                continue
            a, b = find(_first(here), **st.default), find(_first(ref), **st.default)
            if a is None or b is None:
                continue
            v_med, _, ivs = against_reference(a.metric("err_u_p"), b.metric("err_u_p"), True, a, b)
            th = {k: median_interval(r.metric("err_u_theta"), of=r) for k, r in (("dense", a), ("sparse", b))}
            subs.append(SubClaim(f"{st.title}: lower median $u_\\theta$ error at the default",
                                 expect(th["dense"], th["sparse"], -1), group,
                                 {f"median $u_\\theta$ error, {k}": iv for k, iv in th.items()},
                                 rule="the difference of the medians resolved"))
            subs.append(SubClaim(f"{st.title}: lower median $u_\\mathrm{{p}}$ error at the default", v_med, group,
                                 {k: v for k, v in ivs.items() if k.startswith("median")},
                                 rule="the difference of the medians resolved"))
            subs.append(operators_steadier(st, a, b, group))
            med_here, med_ref = str(ivs["median here"]), str(ivs["median, reference"])
            lower.append(f"{st.title} ($\\sigma^2$ = {value_label(nv)}, {scale} scale): {med_here} against {med_ref}")
            n_cmp += 1
        if not n_cmp:
            subs.append(SubClaim("denser data reduce the errors and the variability of the learned operators", Verdict.NOT_TESTED, group))
    first = ctx.supporting_scales()[0]
    run = ("; ".join(sorted(runs)) if runs else
           described(ctx.repeat_settings(sparse[0], 0.0, False, first)[0], first) + " (planned)")
    ev = (f"Comparisons with the main-text conclusions per configuration: {'; '.join(parts)}. " + (
          "The median $u_\\mathrm{p}$ errors at the default setting, each with its 95 % interval, dense against "
          "sparse (both read at the dense repeat's scale), are these" + "".join(f". {x[0].upper()}{x[1:]}" for x in lower)
          if lower else "No dense repeat is stored"))
    return ClaimCheck(run, ev, tuple(subs), ("supplementary",), any(s.verdict is Verdict.NOT_TESTED for s in subs))


def repeat_subclaims(st, summ, group, they=None) -> list:
    """Claim 11's sub-claims of one study in one repeat: its ``repeat_checks``, each the verdict
    of its summary ``summ`` (``they``: the summary of the authors' archived runs, or None)."""
    return [SubClaim(f"{st.title}: {label}", summ.verdicts[key], group, numbers=summ.intervals.get(key, {}),
                     authors=they.verdicts.get(key) if they else None) for key, label in st.repeat_checks]


def repeat_group(st, noise_var, dense: bool) -> str | None:
    """The group (claim 11's family) of the repeat checks of ``st`` in the configuration
    (``noise_var``, ``dense``), as ``claim_supporting`` names it; None where claim 11 counts none."""
    for nv, dn, names in repeat_groups():
        if st.name in names and dn == bool(dense) and (nv is None or float(nv) == float(noise_var)):
            return config_label(nv, dense) if nv is not None else "noise study, 351 points"
    return None


def held_summaries(summaries: dict, noise_var=None, dense: bool = False) -> dict:
    """The summaries of one Supporting Material repeat ({study name: Summary}) with each repeat
    check held to the level as claim 11 holds it: with the checks of the other studies of its group
    (``repeat_group``; Holm, ``verdicts.adjust_family``).  A check whose decision Holm takes away is
    re-judged *cannot be distinguished*, its words saying what it gave alone, so that a page
    prints the scorecard's verdict; each counted check names its test (``Summary.tests``).
    ``noise_var`` None: the repeat checks of every study held together, in no group of claim 11.
    The summaries given are not changed (copies)."""
    import copy
    out = {name: copy.deepcopy(s) for name, s in summaries.items()}
    subs, keys = [], []
    for name, s in out.items():
        st = get(name)
        group = repeat_group(st, noise_var, dense) if noise_var is not None else "repeat"
        if group is not None:
            subs += repeat_subclaims(st, s, group)
            keys += [(name, key) for key, _ in st.repeat_checks]
    held = adjust_family(subs)
    for (name, key), h in zip(keys, held):
        n = sum(1 for x in held if x.group == h.group and x.difference is not None)
        if noise_var is not None:
            out[name].tests[key] = subclaim_id(11, h)
        if h.alone is not None:
            out[name].judge(key, h.verdict)
            out[name][key] += (f" (alone it {h.alone.value}, but not once this configuration's {n} comparisons are "
                               "held to 95 % together, as the scorecard holds them)")
    return out


def operators_steadier(st, dense, sparse, group) -> SubClaim:
    """Claim 11's "the recovered constitutive functions exhibit reduced variability between
    independent initialisations" for one study at its default: each learned operator's distance
    from the median curve of its dataset's initialisations (``reporting.operator_dispersion``,
    on the range of u both grids observed), lower on the dense grid for every operator."""
    lo = max(dense.record.u_range[0], sparse.record.u_range[0])
    hi = min(dense.record.u_range[1], sparse.record.u_range[1])
    ops = [op for op in dense.record.mechanisms if op in sparse.record.mechanisms]
    ivs = {(op, k): median_interval(reporting.operator_dispersion(r, op, (lo, hi)), of=r)
           for op in ops for k, r in (("dense", dense), ("sparse", sparse))}
    return SubClaim(f"{st.title}: learned operators less variable between initialisations at the default",
                    every([(ivs[op, "dense"], ivs[op, "sparse"]) for op in ops], -1), group,
                    {f"{op}, {k}": iv for (op, k), iv in ivs.items()},
                    rule="per network, the mean distance of its learned operator from the median curve of its "
                         "dataset's initialisations over the range of u both grids observed, relative to that "
                         "curve; the difference of the medians resolved lower on the dense grid for every operator")


def diagnosed() -> list:
    """The studies whose failures claim 12 diagnoses."""
    return [st for st in REGISTRY.values() if st.diagnosed]


def claim_diagnostics(ctx) -> ClaimCheck:
    """Claim 12, judged by one set of signs, the paper's three (``diagnostics.PAPER_SIGNS``): at
    each setting where the paper reports a failure, one of them is raised against the same
    study's default (``diagnostics.signs_against_default``: per replicate, no threshold; the
    diagnostics chapter's table of the paper's failure settings shows the same), and over every
    stored network they rank failed networks above fine ones (``every_network``)."""
    studies_ = diagnosed()
    all_settings = {st.name: st.settings(ctx.scale(st.name), datasets=ctx.datasets(st.name)) for st in studies_}
    runs, subs, parts = {}, [], []

    def load(st, meta):
        (key, val), = meta.items()
        s = next(x for x in all_settings[st.name] if np.isclose(x.meta[key], val))
        try:
            (res,) = ctx.load([s], ctx.scale(st.name), f"{st.name} setting {s.label}")
        except RuntimeError:
            return None
        runs[st.name] = ctx.run(res, st.name, noise=False)
        return res

    rule = ("the paper's three signs, per replicate: one sign's median higher than the default's, the three "
            "differences corrected together by Holm's procedure, agrees (the paper's 'or'); every sign's lower "
            "disagrees; a sign lower than at the default is named in the evidence")
    missing = False
    for st in studies_:
        ref = load(st, dict(st.default))
        ref_name = f"{st.symbol} = {value_label(next(iter(st.default.values())))}"
        for p in st.paper_failures:
            (_, val), = dict(p.point).items()
            name = f"{st.symbol} = {value_label(val)}"
            label = f"{name}: a warning sign raised against the default {ref_name}"
            res = load(st, dict(p.point))
            if res is None or ref is None:
                missing = True
                subs.append(SubClaim(label, Verdict.NOT_TESTED, rule=rule))
                parts.append(f"{name}: not stored")
                continue
            against = diagnostics.signs_against_default(res, ref)
            ivs = {f"{sign}, {k}": str(iv) for sign, pair in against.intervals.items()
                   for k, iv in zip((name, "default"), pair)}
            subs.append(SubClaim(label, against.verdict, numbers=ivs, rule=rule))
            parts.append(f"{name}: {against.words()}")
    what = "; ".join(f"{get(k).title}: {v}" for k, v in runs.items()) or (
        "; ".join(described(v, ctx.scale(k)) for k, v in all_settings.items()) + " (planned)")
    ev = ("Here are the paper's three signs at its failure settings, against the study's default (a sign is "
          "raised where the difference of its medians is resolved upward). " + ". ".join(f"At {p}" for p in parts))
    sub, more, caveat = every_network()
    subs.append(sub)
    ev += ". " + more
    return ClaimCheck(what, ev, tuple(subs), tuple(st.chapter for st in studies_), missing, caveat=caveat)


def every_network() -> tuple[SubClaim, str, str]:
    """Claim 12 over every stored network (``diagnostic_roc``): the sub-claim that the paper's
    three signs (``diagnostic_roc.PAPER``: a network's largest score of the three) rank failed
    networks above fine ones (its AUC's bootstrap interval above 0.5: agrees; below: disagrees;
    containing it: cannot be distinguished), its held-out detection and false-alarm rates
    in words, as the diagnostics chapter gives them, and the claim's caveat: how strong the
    ranking is, in the held-out rates."""
    s = diagnostic_roc.stored_summary()
    paper = s["per"][diagnostic_roc.PAPER]
    a, lo, hi = paper["auc"]
    verdict = Verdict.AGREES if lo > 0.5 else Verdict.DISAGREES if hi < 0.5 else Verdict.INDISTINCT
    held = paper["held"].pooled
    sub = SubClaim("over every stored network, the paper's three signs rank failed networks above fine ones", verdict,
                   numbers={"AUC of the paper's three signs": f"{fmt(a, '.2f')} [{fmt(lo, '.2f')}, {fmt(hi, '.2f')}]",
                            "held out: failures caught": diagnostic_roc.pct(held.caught_rate),
                            "held out: false alarms": diagnostic_roc.pct(held.false_alarm_rate)},
                   rule="AUC of the largest of the three signs' scores, 95 % bootstrap interval over settings, "
                        "against 0.5, chance. How weak a signal: with thresholds chosen on the other benchmarks, on "
                        f"the benchmark held out it catches {diagnostic_roc.pct(held.caught_rate)} of failures at "
                        f"{diagnostic_roc.pct(held.false_alarm_rate)} false alarms")
    more = (f"Of all {s['n']} stored networks, {int(s['failed'].sum())} failed by the truth. The paper's three signs "
            f"rank them with AUC {a:.2f} [{lo:.2f}, {hi:.2f}]: {diagnostic_roc.phrase(s)}. Holding each benchmark out in "
            f"turn, with thresholds chosen on the others, the signs catch {diagnostic_roc.pct(held.caught_rate)} of "
            f"the failures ({held.caught} of {held.failures} over all benchmarks). They flag "
            f"{diagnostic_roc.pct(held.false_alarm_rate)} of the fine networks ({held.false_alarms} of {held.fine})")
    caveat = (f"with thresholds chosen on other benchmarks, the paper's three signs catch "
              f"{diagnostic_roc.pct(held.caught_rate)} of failures, with {diagnostic_roc.pct(held.false_alarm_rate)} "
              f"of fine networks flagged (AUC {a:.2f})")
    return sub, more, caveat


CLAIMS = (
    Claim(11, r"The qualitative conclusions are unchanged without noise, with $\sigma^2=10^{-2}$, and with five times denser spatial sampling; more data mainly reduces errors and variability.",
          r"Supporting Material figures (noise-free, high-noise and dense-data repeats).", claim_supporting,
          quote='Overall, the qualitative conclusions remain unchanged. […] Nevertheless, the principal conclusions of the main text remain unchanged.',
          where='Supporting Material, Results for noise-free datasets; Results for highly noisy datasets',
          title='conclusions unchanged without noise, with more noise, with dense data', figure='Supporting Material', chapter='supplementary'),
    Claim(12, r"Without ground truth, stable validation losses, $u_\theta$–$u_\mathrm{p}$ agreement and consistency across initialisations indicate that the recovered operators are likely to be reliable; discrepancies between $u_\theta$ and $u_\mathrm{p}$, rising validation losses or variability between initialisations are early warnings of failed recovery.",
          r"Discussion, drawing on Figs. 2–6.", claim_diagnostics,
          quote='Stable validation loss trajectories, close agreement between the learned solution and forward simulations generated using the recovered operators, and consistency across different neural network initialisations all provide practical evidence that the inferred mechanisms are likely to be reliable. […] Conversely, discrepancies between $u_\\theta$ and $u_\\mathrm{p}$, increasing validation losses during training, or substantial variability between repeated optimisations with different initialisations provide early indications that the recovered operators should be interpreted with caution.',
          where='Discussion',
          title='ground-truth-free diagnostics signal failure', figure='Discussion', chapter='diagnostics'),
)


def supporting_rows(ctx) -> list[RunRow]:
    """The table of what was run: the Supporting Material repeats, each at the largest scale stored."""
    out = []
    for nv, dense, names in [(nv, dn, [st.name for st in repeated(dense=False)])
                             for nv, dn in SUPPORTING_CONFIGURATIONS] + [
            (None, True, [st.name for st in repeated(dense=True) if st.sweeps_noise])]:
        for name in names:
            got = ctx.repeat(name, nv, dense)
            scales = (got[1],) if got else ctx.supporting_scales()
            settings = [s for part in ctx.repeat_settings(name, nv, dense, scales[0]) for s in part]
            out.append(run_row(f"Supporting Material, {get(name).title}", settings, got and got[0], scales))
    return out
