"""Fig. 4: porous-medium equation, w_PDE swept with w_data = 1 and w_BC = 0."""
from __future__ import annotations

import numpy as np

from ..analysis import authors_archive, reporting
from ..analysis.reporting import (failures_sentence, find, fmt, intervals_of, lowest_median, median, medians,
                                  meta_value, value_label)
from ..analysis.intervals import over_datasets
from ..analysis.verdicts import (LEVEL, Claim, ClaimCheck, Interval, SubClaim, Summary, Verdict, above_best_other, all_hold,
                                 best_of, labels_of, median_interval)
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.setting import Setting
from .base import (PAPER_DEFAULTS, PARAMETER_WORDS, PaperPoint, Shown, Study, best_in_range, initialisations, number_label,
                   scale_values, train_config, value_range)
from .base import in_range_words
from .base import Drawing, box_drawing

PDE_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3)
#: The weights w_PDE / w_data with the lowest errors in the paper's Fig. 4.
PAPER_BEST = (1e-1, 1e0)
#: The weights the paper's "w_data >~ w_PDE" allows (w_data = 1): data-fitting "at least as influential
#: as the PDE residual" (its Results and Discussion); the weights above, 10 to 1000, break it.
DATA_AT_LEAST = (PDE_WEIGHTS[0], 1e0)


def build(scale="book", weights=PDE_WEIGHTS, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None, datasets=None, distinct_seeds=False) -> list[Setting]:
    p = scale_values(scale)
    ds, ss = initialisations(p, seeds, datasets, distinct_seeds)
    return [Setting("loss_weight", f"w_pde={number_label(w)}", "porous_medium", noise_var, dense, ds, ss,
                    train_config(p, epochs, w_pde=float(w), w_bc=0.0), swept=("w_pde",))
            for w in weights]


def _label(v) -> str:
    return "n/a" if v is None else value_label(v)


def above_three(iv):
    """The paper's "more than three orders of magnitude": the interval of a gap (decades) above 3
    agrees, below 3 disagrees, across 3 cannot be distinguished; no finite estimate: cannot be decided."""
    return None if not iv.finite else True if iv.lo > 3 else False if iv.hi < 3 else Verdict.INDISTINCT


def median_curve_gap(data, pde, datasets=None) -> Interval:
    """The smallest gap over training, in decades, between the median curves of the weighted data
    and PDE validation losses (``data``, ``pde``: one row per network), the paper's reading of its
    figure: per dataset (``datasets``: each network's; None: one), the median curves of its
    initialisations; over datasets, ``intervals.over_datasets`` (the dataset the unit)."""
    ds = np.zeros(len(data), int) if datasets is None else np.asarray(datasets)
    per = []
    for d in np.unique(ds):
        with np.errstate(all="ignore"):
            gap = np.log10(np.nanmedian(data[ds == d], axis=0) / np.nanmedian(pde[ds == d], axis=0))
        gap = gap[np.isfinite(gap)]
        if gap.size:
            per.append(float(gap.min()))
    if not per:
        return Interval(np.nan, np.nan, np.nan, 0, LEVEL)
    est, lo, hi, coverage = over_datasets(per)
    return Interval(est, lo, hi, len(per), coverage)


def summary(results, low=PDE_WEIGHTS[0], high=PDE_WEIGHTS[-1]) -> Summary:
    """Fig. 4: errors and weighted loss balance against w_PDE; the best weight against the
    paper's range ``PAPER_BEST``, the weights ``low`` and ``high`` against the best."""
    ws = [meta_value(r, "w_pde") for r in results]
    order = np.argsort(ws)
    rs = [results[i] for i in order]
    ws = [ws[i] for i in order]
    s = Summary()
    mins, ivs = {}, {}
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        meds = medians(rs, m)
        best = lowest_median(ws, meds)
        mins[short] = np.nanmin(meds) if np.isfinite(meds).any() else np.nan
        s[f"best_{short}"] = value_label(best) if best is not None else "n/a"
        s[f"best_{short}_err"] = fmt(mins[short])
        ivs[short] = intervals_of(rs, "w_pde", m)
        best_in_range(s, f"best_{short}_verdict", ivs[short], PAPER_BEST)
        best_in_range(s, f"data_{short}_verdict", ivs[short], DATA_AT_LEAST)
    rl, rh = find(rs, w_pde=low), find(rs, w_pde=high)
    for tag, r in (("low", rl), ("high", rh)):
        th = median(r.metric("err_u_theta")) if r is not None else np.nan
        up = median(r.metric("err_u_p")) if r is not None else np.nan
        s[f"{tag}_theta"], s[f"{tag}_up"] = fmt(th), fmt(up)
        s[f"{tag}_theta_ratio"] = fmt(th / mins["theta"], ".2g") if np.isfinite(th) else "n/a"
        s[f"{tag}_up_ratio"] = fmt(up / mins["up"], ".2g") if np.isfinite(up) else "n/a"
    if rl is not None:
        low_extremes(s, "low_verdict", ivs, low)
        wd, wp = rl.record.config.w_data, rl.record.config.w_pde
        with np.errstate(all="ignore"):
            ld = np.nanmedian(np.asarray(rl["hist_val_data"], float) * wd, axis=0)
            lp = np.nanmedian(np.asarray(rl["hist_val_pde"], float) * wp, axis=0)
            gap = np.log10(ld / lp)
            # per replicate, the smallest gap over training (the paper: "throughout training")
            per = np.nanmin(np.log10(np.asarray(rl["hist_val_data"], float) * wd
                                     / (np.asarray(rl["hist_val_pde"], float) * wp)), axis=1)
        gap = gap[np.isfinite(gap)]
        s["low_gap_min"] = fmt(gap.min(), ".2g") if gap.size else "n/a"
        s["low_gap_final"] = fmt(gap[-1], ".2g") if gap.size else "n/a"
        # the paper's "more than three orders of magnitude throughout training", per replicate:
        # the interval of the median over replicates of each one's smallest gap, against 3
        iv = median_interval(np.where(np.isfinite(per), per, np.nan), of=rl)
        s["low_gap_replicates"] = str(iv)
        s.compare("low_gap_verdict", above_three(iv), {"smallest gap, decades": iv})
        # the paper's own estimand: the gap between its figure's median curves (per dataset, over datasets)
        cv = median_curve_gap(np.asarray(rl["hist_val_data"], float) * wd, np.asarray(rl["hist_val_pde"], float) * wp,
                              labels_of(rl)["datasets"])
        s["low_gap_curves"] = str(cv)
        s.compare("low_gap_curves_verdict", above_three(cv), {"smallest gap of the median curves, decades": cv})
    else:
        s.update(low_gap_min="n/a", low_gap_final="n/a", low_gap_replicates="n/a", low_gap_curves="n/a")
        for k in ("low_verdict", "low_gap_verdict", "low_gap_curves_verdict"):
            s.judge(k, None)
    if rh is not None:
        high_extremes(s, "high_verdict", ivs, high)
    else:
        s.judge("high_verdict", None)
    s["low"], s["high"] = value_label(low), value_label(high)
    s["failures"] = failures_sentence(rs, lambda r: f"w_PDE = {value_label(meta_value(r, 'w_pde'))}")
    return s


def low_extremes(s: Summary, key: str, ivs: dict, low) -> Verdict:
    """"A too small weight ``low`` gives a small u_theta error but a large u_p error": its
    u_theta interval below its u_p interval (the same runs), and its u_p interval above the
    best other weight's (``ivs``: {"theta"/"up": {weight: Interval}})."""
    th, up = ivs["theta"].get(low), ivs["up"].get(low)
    ref = best_of(ivs["up"], [k for k in ivs["up"] if k != low])
    v = (Verdict.UNDECIDED if th is None or up is None or ref is None
         else all_hold([(th, up, -1), (up, ivs["up"][ref], 1)]))      # held to the level together
    return s.compare(key, v, {"u_theta": th, "u_p": up, f"u_p at the best other ({_label(ref)})":
                              ivs["up"].get(ref)})


def high_extremes(s: Summary, key: str, ivs: dict, high) -> Verdict:
    """"A too large weight ``high`` gives large errors in both": each interval above that of
    the best other weight."""
    rt = best_of(ivs["theta"], [k for k in ivs["theta"] if k != high])
    ru = best_of(ivs["up"], [k for k in ivs["up"] if k != high])
    v = (Verdict.UNDECIDED if high not in ivs["theta"] or high not in ivs["up"] or rt is None or ru is None
         else all_hold([(ivs["theta"][high], ivs["theta"][rt], 1), (ivs["up"][high], ivs["up"][ru], 1)]))
    return s.compare(key, v, {"u_theta": ivs["theta"].get(high), f"u_theta best other ({_label(rt)})":
                                             ivs["theta"].get(rt), "u_p": ivs["up"].get(high),
                                             f"u_p best other ({_label(ru)})": ivs["up"].get(ru)})


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    lo, hi = (reporting.value_label(v) for v in PAPER_BEST)
    return [f"Lowest median error of $u_\\theta$ at $w_\\mathrm{{PDE}}$ = {s['best_theta']}, of "
            f"$u_\\mathrm{{p}}$ at {s['best_up']}. "
            + in_range_words(lo, hi, s["best_theta_verdict"], s["best_up_verdict"]),
            f"$w_\\mathrm{{PDE}}$ = {s['low']}: median errors {s['low_theta']} ($u_\\theta$) and "
            f"{s['low_up']} ($u_\\mathrm{{p}}$). They are {s['low_theta_ratio']} and {s['low_up_ratio']} "
            f"times the lowest. Good $u_\\theta$ with poor $u_\\mathrm{{p}}$ "
            f"(each comparison decided on the interval of the ratio of the medians): {s['low_verdict']}.",
            f"The weighted PDE loss more than three orders of magnitude below the data loss throughout training, "
            f"read as the paper reads its figure, on the median curves of each dataset: {s['low_gap_curves']} "
            f"decades, {s['low_gap_curves_verdict']}; per replicate, the smallest gap has median "
            f"{s['low_gap_replicates']} decades, {s['low_gap_verdict']}.",
            f"$w_\\mathrm{{PDE}}$ = {s['high']}: median errors {s['high_theta']} ($u_\\theta$) and "
            f"{s['high_up']} ($u_\\mathrm{{p}}$); large errors in both (higher than the best other weight's): {s['high_verdict']}.",
            s["failures"]]


# ----------------------------------------------------------------------------- claims
# Each check reads the results through ``ctx`` (ctx.study(name), ctx.variant(name, desc, **overrides),
# ctx.scale(name), ctx.run(result, name); see claims.context) and returns a verdicts.ClaimCheck.

def authors_summary(noise_var=DEFAULT_NOISE_VAR):
    """The comparisons of ``summary`` that need only errors of u_theta and u_p (best weight,
    the extremes), on the authors' archived Fig. 4 runs (``authors_archive``); None where
    none is archived."""
    ws = [m["w_pde"] for m in authors_archive.settings("loss_weight", noise_var=noise_var)]
    if not ws:
        return None
    they, ivs = Summary(), {}
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        ivs[short] = {w: median_interval(authors_archive.errors("loss_weight", m, noise_var=noise_var, w_pde=w))
                      for w in ws}
        best_in_range(they, f"best_{short}_verdict", ivs[short], PAPER_BEST)
        best_in_range(they, f"data_{short}_verdict", ivs[short], DATA_AT_LEAST)
    low_extremes(they, "low_verdict", ivs, PDE_WEIGHTS[0])
    high_extremes(they, "high_verdict", ivs, PDE_WEIGHTS[-1])
    return they


def claim_loss_low_high(ctx):
    res = ctx.study("loss_weight")
    s = summary(res)
    they = authors_summary() or Summary()
    d = {reporting.meta_value(r, "w_pde"): median_interval(r.operator_error("D"), of=r) for r in res}
    low, high = PDE_WEIGHTS[0], PDE_WEIGHTS[-1]
    d_wrong, d_ref = above_best_other(d, low)
    subs = [SubClaim(f"$w_\\mathrm{{PDE}}$ = {s['low']}: small $u_\\theta$ error but large $u_\\mathrm{{p}}$ error",
                     s.verdicts["low_verdict"], numbers=s.intervals.get("low_verdict", {}),
                     authors=they.verdicts.get("low_verdict"),
                     rule="its $u_\\theta$ error lower than its $u_\\mathrm{p}$ error (the same runs), and its "
                          "$u_\\mathrm{p}$ error higher than that of the best other weight"),
            SubClaim(f"$w_\\mathrm{{PDE}}$ = {s['low']}: $D_\\phi$ wrong",
                     d_wrong if low in d else Verdict.UNDECIDED,
                     numbers={f"w_PDE = {s['low']}": d.get(low), f"best other ({reporting.value_label(d_ref)})"
                              if d_ref is not None else "best other": d.get(d_ref)},
                     rule="median rel. error of $D_\\phi$: higher than that of the best other weight"),
            SubClaim(f"$w_\\mathrm{{PDE}}$ = {s['low']}: weighted PDE loss more than three orders of magnitude below "
                     "the data loss throughout training", s.verdicts["low_gap_verdict"],
                     numbers=s.intervals.get("low_gap_verdict", {}),
                     rule="the paper's three orders, per replicate: the median over replicates of each one's smallest "
                          "gap over training (decades), its interval above 3"),
            SubClaim(f"$w_\\mathrm{{PDE}}$ = {s['low']}: on the median curves, as the paper's figure draws them, "
                     "weighted PDE loss more than three orders of magnitude below the data loss throughout training",
                     s.verdicts["low_gap_curves_verdict"], numbers=s.intervals.get("low_gap_curves_verdict", {}),
                     rule="the paper's figure's reading, off median curves: per dataset, the smallest gap over "
                          "training between the median curves of its initialisations (decades), over datasets; its "
                          "interval above 3"),
            SubClaim(f"$w_\\mathrm{{PDE}}$ = {reporting.value_label(high)}: large errors in both", s.verdicts["high_verdict"],
                     numbers=s.intervals.get("high_verdict", {}), authors=they.verdicts.get("high_verdict"),
                     rule="reference: the best other weight; both higher than the reference's")]
    runs, ev = ctx.run(res[0], 'loss_weight'), (f"At $w_\\mathrm{{PDE}}$ = 1e-4 the median $u_\\theta$ error is "
          f"{s['low_theta']}, {s['low_theta_ratio']}x the lowest. Its median $u_\\mathrm{{p}}$ error is {s['low_up']}, "
          f"{s['low_up_ratio']}x the lowest. Its $D_\\phi$ error is {d.get(low)} (the best other weight's "
          f"{d.get(d_ref)}), and the weighted PDE loss stays at least {s['low_gap_min']} decades below the data loss. At $w_\\mathrm{{PDE}}$ = "
          f"1e3 the median $u_\\theta$ error is {s['high_theta']}, {s['high_theta_ratio']}x the lowest. Its "
          f"median $u_\\mathrm{{p}}$ error is {s['high_up']}, {s['high_up_ratio']}x the lowest")
    return ClaimCheck(runs, ev, tuple(subs), ("loss_weighting",))


#: How "w_data >~ w_PDE" is tested (:data:`DATA_AT_LEAST`): on the one equation the weights were swept on.
DATA_RULE = ("the best weight with $w_\\mathrm{PDE} \\le w_\\mathrm{data}$ against the best above it ($w_\\mathrm{PDE}$ "
             "= 10 to 1000, $w_\\mathrm{data}$ = 1): the difference of the medians resolved (below: agrees, above: "
             "disagrees); the reading of the paper's \"at least as influential as the PDE residual\", on the porous-medium "
             "equation, the only one the weights were swept on (by the paper and by us)")


def claim_loss_best(ctx):
    res = ctx.study("loss_weight")
    s, best = summary(res), value_range(PAPER_BEST)
    they = authors_summary() or Summary()
    rule = ("the best weight in the range against the best outside it: the difference of the medians resolved "
            "(below: agrees, above: disagrees)")
    subs = [SubClaim(f"lowest median $u_\\theta$ error at $w_\\mathrm{{PDE}}/w_\\mathrm{{data}}$ in {best}",
                     s.verdicts["best_theta_verdict"], numbers=s.intervals["best_theta_verdict"], rule=rule,
                     authors=they.verdicts.get("best_theta_verdict")),
            SubClaim(f"lowest median $u_\\mathrm{{p}}$ error at $w_\\mathrm{{PDE}}/w_\\mathrm{{data}}$ in {best}",
                     s.verdicts["best_up_verdict"], numbers=s.intervals["best_up_verdict"], rule=rule,
                     authors=they.verdicts.get("best_up_verdict")),
            *(SubClaim(f"$w_\\mathrm{{data}} \\gtrsim w_\\mathrm{{PDE}}$ gives the lowest {err} error",
                       s.verdicts[f"data_{short}_verdict"], numbers=s.intervals[f"data_{short}_verdict"],
                       rule=DATA_RULE, authors=they.verdicts.get(f"data_{short}_verdict"))
              for short, err in (("theta", "$u_\\theta$"), ("up", "$u_\\mathrm{p}$"))),
            SubClaim("$w_\\mathrm{BC}$ has little influence", Verdict.NOT_TESTED,
                     rule="we do not sweep $w_\\mathrm{BC}$; neither does the paper")]
    runs, ev = f"{ctx.run(res[0], 'loss_weight')}, $w_\\mathrm{{data}}$ = 1", (f"The lowest median $u_\\theta$ error is "
          f"{s['best_theta_err']}, at $w_\\mathrm{{PDE}}$ = {s['best_theta']}. The lowest median $u_\\mathrm{{p}}$ "
          f"error is {s['best_up_err']}, at {s['best_up']}")
    return ClaimCheck(runs, ev, tuple(subs), ("loss_weighting",))


#: The paper's claims this study checks: its words, its evidence, our check of it.
CLAIMS = (
    Claim(7, r"On the porous-medium equation with $w_\mathrm{BC}=0$, a too small PDE weight ($w_\mathrm{PDE}=10^{-4}$) gives a small $u_\theta$ error but a wrong $D_\phi$ and a large $u_\mathrm{p}$ error, with the weighted PDE loss over three orders of magnitude below the data loss; a too large weight ($10^{3}$) gives large errors in both.",
          r"Fig. 4; Supporting Material repeats.", claim_loss_low_high,
          primary=("small $u_\\theta$ error but large", "large errors in both"),
          quote='This behaviour is particularly evident for $w_{\\mathrm{PDE}}=10^{-4}$, where the reconstructed diffusivity deviates markedly from the true constitutive function despite the excellent agreement between $u_\\theta$ and the observed data. […] For $w_{\\mathrm{PDE}}=10^{-4}$, the weighted PDE residual remains more than three orders of magnitude smaller than the weighted data loss throughout training (Fig. 4, middle right). […] This behaviour is evident for $w_{\\mathrm{PDE}}=10^3$, where both $u_\\theta$ and $u_\\mathrm{p}$ exhibit large reconstruction errors despite the strong emphasis placed on the PDE residual during training.',
          where='Results, Accurate operator recovery requires balancing loss contributions (Fig. 4)',
          title='too small and too large PDE weights fail', figure='Fig. 4', chapter='loss_weighting'),
    Claim(8, r"The lowest errors occur for $w_\mathrm{PDE}/w_\mathrm{data}$ between $10^{-1}$ and $10^{0}$; in general $w_\mathrm{data}\gtrsim w_\mathrm{PDE}$ is recommended, and $w_\mathrm{BC}$ has little influence.",
          r'Fig. 4 (bottom); "preliminary investigations" for $w_\mathrm{BC}$ (no figure).',
          claim_loss_best, primary=("lowest median",),
          quote='For the porous--medium equation, the lowest reconstruction errors occur when $w_{\\mathrm{PDE}}$ and $w_{\\mathrm{data}}$ lie approximately between $10^{-1}$ and $10^{0}$. […] Preliminary investigations established that the boundary-condition weighting, $w_{\\mathrm{BC}}$, had little influence on reconstruction accuracy. […] Across all experiments considered in this work, an effective balance is achieved when the data-fitting objective remains at least as influential as the PDE residual, that is, when $w_{\\mathrm{data}}\\gtrsim w_{\\mathrm{PDE}}$.',
          where='Results, Accurate operator recovery requires balancing loss contributions (Fig. 4)',
          title='lowest errors for w_PDE/w_data in [0.1, 1]', figure='Fig. 4', chapter='loss_weighting'),
)

#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.0, False): 8,
    (0.01, False): 12,
    (0.001, False): 4,
    (0.0, True): 19,
    (0.001, True): 20,
    (0.01, True): 21,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("best_theta_verdict", f"lowest $u_\\theta$ error at $w_\\mathrm{{PDE}}$ in {value_range(PAPER_BEST)}"),
                 ("best_up_verdict", f"lowest $u_\\mathrm{{p}}$ error at $w_\\mathrm{{PDE}}$ in {value_range(PAPER_BEST)}"),
                 ("low_verdict", "good $u_\\theta$, poor $u_\\mathrm{p}$ at $w_\\mathrm{PDE}$ = 1e-4"),
                 ("high_verdict", "both errors large at $w_\\mathrm{PDE}$ = 1e3"))


def drawing(results, s) -> Drawing:
    """Its Supporting Material figure: the error boxes over the PDE weights."""
    return box_drawing(results, ("w_pde",))


STUDY = Study(
    "loss_weight", "loss weighting", "porous_medium", "porous medium", build,
    default={"w_pde": PAPER_DEFAULTS.w_pde},
    chapter="loss_weighting",
    paper_figure=4,
    sweep=True,
    repeated_on=("sparse", "dense"),
    summary=summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    paper_failures=(PaperPoint({"w_pde": 1e-4}, "$w_\\mathrm{PDE} = 10^{-4}$", r"$u_\theta$ fine, $u_\mathrm{p}$ and $D$ wrong"),
                    PaperPoint({"w_pde": 1e3}, "$w_\\mathrm{PDE} = 10^{3}$", r"$u_\theta$ and $u_\mathrm{p}$ both poor")),
    repeat_checks=REPEAT_CHECKS,
    claims=CLAIMS,
    authors=authors_summary,
    shown=(Shown("Fig. 4, loss weighting"),),
    symbol=PARAMETER_WORDS["w_pde"],
    diagnosed=True,
    drawing=drawing,
)