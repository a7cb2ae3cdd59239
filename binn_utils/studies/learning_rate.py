"""Fig. 3: Burgers' equation, learning rate r from 5e-7 to 5e-1."""
from __future__ import annotations

import numpy as np

from ..analysis import authors_archive, diagnostics, reporting
from ..analysis.reporting import (and_list, change_words, curve_stats, each, failures_sentence, find, fmt, intervals_of,
                                  lowest_median, median, medians, meta_value, respectively, excursion_replicates,
                                  value_label)
from ..analysis.verdicts import (Claim, ClaimCheck, Interval, SubClaim, Summary, Verdict, all_hold, every, expect,
                                 median_interval)
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.setting import Setting
from .base import (PAPER_DEFAULTS, PARAMETER_WORDS, PaperPoint, Shown, Study, best_in_range, initialisations, number_label,
                   scale_values, train_config, value_range)
from .base import in_range_words
from .base import Drawing, Phrase, box_drawing

LEARNING_RATES = (5e-7, 5e-6, 5e-5, 5e-4, 5e-3, 5e-2, 5e-1)
#: The learning rates with the lowest errors in the paper's Fig. 3.
PAPER_BEST = (5e-5, 5e-4)
#: The paper's "learning rates of order 10^-2 or larger give rise to unstable optimisation".
UNSTABLE_FROM = 1e-2
# Readings of the paper's words (glued into the prose with the numbers they judge).  No
# cut-off here decides a verdict: the verdicts compare intervals (``verdicts``); these say
# where a quantity is measured or describe a curve in words.
LATE_DROP_THRESHOLD = 0.05   # words only: a fall this large over the last quarter is called "still falling"
FACTOR = 2.0                 # words only (the learning-rate chapter's "stalled" curves)


def build(scale="book", rates=LEARNING_RATES, noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None,
          seeds=None, datasets=None, distinct_seeds=False) -> list[Setting]:
    p = scale_values(scale)
    ds, ss = initialisations(p, seeds, datasets, distinct_seeds)
    return [Setting("learning_rate", f"r={number_label(r)}", "burgers", noise_var, dense, ds, ss,
                    train_config(p, epochs, lr=float(r)), swept=("lr",)) for r in rates]


def large_rate_curves(results, shown, unstable_from=UNSTABLE_FROM) -> dict:
    """How the validation loss behaves at the rates from ``unstable_from`` on, against the
    ``shown`` result's: ``stats`` (``reporting.curve_stats`` per rate, keyed by its label),
    ``erratic`` (rougher than the shown rate's curve), ``flat`` (the others) and ``stalled``
    (flat, ending more than ``FACTOR`` times above the shown rate's final loss);
    ``shown``: the shown rate's curve statistics.  Each rate's statistics add ``jump``: the median
    of each replicate's largest rise (``excursion_replicates``), as the summary's interval has it."""
    shown_stats = reporting.curve_stats(shown)
    large = [r for r in sorted(results, key=lambda r: reporting.meta_value(r, "lr"))
             if reporting.meta_value(r, "lr") >= unstable_from]
    stats = {reporting.value_label(reporting.meta_value(r, "lr")): dict(
        reporting.curve_stats(r), jump=median_interval(excursion_replicates(r), failures_high=True, of=r).estimate)
        for r in large}
    erratic = [k for k, c in stats.items() if c["roughness"] > shown_stats["roughness"]]
    flat = [k for k in stats if k not in erratic]
    return {"shown": shown_stats, "stats": stats, "erratic": erratic, "flat": flat,
            "stalled": [k for k in flat if stats[k]["final"] > FACTOR * shown_stats["final"]]}


#: "Not converged" read as a validation loss still falling over the last ``LATE_WINDOW`` of training
#: (our reading: the paper says "not converged after 4000 epochs" without a window)
LATE_WINDOW = 0.25


def late_drop_replicates(res, key="hist_val_total") -> np.ndarray:
    """Per replicate, the relative fall of the validation loss over the last ``LATE_WINDOW`` of
    training (positive: still falling; NaN for a failed replicate)."""
    c = np.asarray(res[key], float)
    n = c.shape[1]
    q = min(n - 1, int(round((1 - LATE_WINDOW) * (n - 1))))
    with np.errstate(all="ignore"):
        return np.where(c[:, q] > 0, (c[:, q] - c[:, -1]) / c[:, q], np.nan)


def replicate_intervals(res) -> dict:
    """The estimates the chapter's verdicts compare for one rate's runs ``res``, each the median of
    the datasets' medians with its interval: the errors, each replicate's fall of the validation
    loss over the last quarter (in %) and its largest rise (a diverged replicate the highest)."""
    return {"err_u_theta": median_interval(res.metric("err_u_theta"), of=res),
            "err_u_p": median_interval(res.metric("err_u_p"), of=res),
            "fall": median_interval(100 * late_drop_replicates(res), of=res),
            "rise": median_interval(excursion_replicates(res), failures_high=True, of=res)}


def rise_words(median_rise: float) -> str:
    """A median largest rise in words: its value, or, where most replicates diverged (their
    rise the highest, so the median is infinite), that."""
    return fmt(median_rise) if np.isfinite(median_rise) else "above every finite rise (most replicates diverged)"


def ended_words(k: int, n: int) -> str:
    """How many of a rate's ``n`` replicates ended (so), as a sentence begins: "All 50 replicates
    ended", "None of its 50 replicates ended", "3 of its 50 replicates ended"."""
    return (f"All {n} replicates ended" if k == n else f"None of its {n} replicates ended" if k == 0
            else f"{k} of its {n} replicates ended")


def summary(results, shown=None) -> Summary:
    """Fig. 3: errors and validation-loss behaviour against the learning rate; the large
    rates (from ``UNSTABLE_FROM`` on) are compared with the rate ``shown`` (None: the
    default), the best rate with the paper's ``PAPER_BEST``."""
    shown = STUDY.default["lr"] if shown is None else shown
    rates = [meta_value(r, "lr") for r in results]
    order = np.argsort(rates)
    rs = [results[i] for i in order]
    rates = [rates[i] for i in order]
    s = Summary()
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        meds = medians(rs, m)
        best = lowest_median(rates, meds)
        s[f"best_{short}"] = value_label(best) if best is not None else "n/a"
        s[f"best_{short}_err"] = fmt(np.nanmin(meds)) if np.isfinite(meds).any() else "n/a"
        best_in_range(s, f"best_{short}_verdict", intervals_of(rs, "lr", m), PAPER_BEST)
    small, r_shown = rs[0], (find(rs, lr=shown) or rs[len(rs) // 2])
    cs, cm = curve_stats(small), curve_stats(r_shown)
    s["late_pct"] = fmt(100 * LATE_DROP_THRESHOLD, "g")
    s["smallest"] = value_label(rates[0])
    s["shown"] = value_label(meta_value(r_shown, "lr"))
    s["late_drop_small"] = fmt(100 * cs["late_drop"], ".2g")
    s["late_drop_shown"] = fmt(100 * cm["late_drop"], ".2g")
    s["late_change_small"], s["late_change_shown"] = change_words(cs["late_drop"]), change_words(cm["late_drop"])
    i_small, i_shown = median_interval(late_drop_replicates(small), of=small), median_interval(late_drop_replicates(r_shown), of=r_shown)
    s["fall_small"], s["fall_shown"] = str(i_small), str(i_shown)
    s.compare("small_still_falling", expect(i_small, i_shown, 1),
              {f"fall over the last quarter, r = {s['smallest']}": i_small, f"r = {s['shown']}": i_shown},
              "is still falling", "has levelled off")
    s["small_up"] = fmt(median(small.metric("err_u_p")))
    s["small_theta"] = fmt(median(small.metric("err_u_theta")))
    big = [r for r, v in zip(rs, rates) if v >= UNSTABLE_FROM]
    s["large_rates"] = and_list(value_label(meta_value(r, "lr")) for r in big) or "none"
    rough_big = [curve_stats(r)["roughness"] for r in big]
    s["rough_shown"] = fmt(cm["roughness"], ".2g")
    s["rough_large"] = respectively(fmt(v, ".2g") for v in rough_big) or "n/a"
    s["large_up"] = each(fmt(median(r.metric("err_u_p"))) for r in big) or "n/a"
    s["large_theta"] = each(fmt(median(r.metric("err_u_theta"))) for r in big) or "n/a"
    s["shown_up"] = fmt(median(r_shown.metric("err_u_p")))
    s["shown_theta"] = fmt(median(r_shown.metric("err_u_theta")))
    # a large rate whose every run failed counts as worse; if the shown rate's runs all failed,
    # there is nothing to compare with: undecided
    larger_at_large_rates(s, "large_worse_verdict",
                          {value_label(meta_value(r, "lr")): median_interval(r.metric("err_u_p"), of=r) for r in big},
                          median_interval(r_shown.metric("err_u_p"), of=r_shown), s["shown"])
    larger_at_large_rates(s, "large_worse_theta_verdict",
                          {value_label(meta_value(r, "lr")): median_interval(r.metric("err_u_theta"), of=r)
                           for r in big}, median_interval(r_shown.metric("err_u_theta"), of=r_shown), s["shown"])
    # "not converged after 4000 epochs" at the smallest rate: its errors higher than at the shown rate
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        i_s, i_d = median_interval(small.metric(m), of=small), median_interval(r_shown.metric(m), of=r_shown)
        s.compare(f"small_worse_{short}_verdict", expect(i_s, i_d, 1),
                  {f"r = {s['smallest']}": i_s, f"r = {s['shown']}": i_d})
    # "unstable optimisation" against "the validation loss curves decrease smoothly": each
    # replicate's largest rise above its best loss so far, higher at every large rate than at
    # the shown rate (a diverged replicate the highest).  A replicate whose final networks fit
    # no better than a constant (``diagnostics.collapsed``) keeps its recorded rise and is named
    # in the sentence: if its loss is flat from the first recorded epoch its rise is 0, and the
    # records cannot say whether it jumped there before (the chapter says so: a stalled curve
    # is not read as an unstable one).
    jump = {value_label(meta_value(r, "lr")): median_interval(excursion_replicates(r), failures_high=True, of=r)
            for r in big}
    i_jump = median_interval(excursion_replicates(r_shown), failures_high=True, of=r_shown)
    ended_const = {value_label(meta_value(r, "lr")): int(diagnostics.collapsed(r, "final").sum()) for r in big}
    # a sentence per large rate: the median rise (its interval is the sub-claim's) and the constant fits
    s["jump_large"] = " ".join(f"At $r$ = {k} it is {rise_words(iv.estimate)}. "
                               f"{ended_words(ended_const[k], len(r.record.status))} no better than a constant."
                               for (k, iv), r in zip(jump.items(), big))
    s["jump_shown_median"] = rise_words(i_jump.estimate)
    s["first_epoch"] = str(int(np.asarray(r_shown["curve_epochs"])[0]))
    # most replicates at the shown rate failed (its median is +inf): nothing to compare with
    s.compare("large_unstable_verdict", Verdict.UNDECIDED if not np.isfinite(i_jump.estimate) else
              every([(iv, i_jump) for iv in jump.values()], 1),
              {**{f"largest rise, r = {k}": iv for k, iv in jump.items()}, f"largest rise, r = {s['shown']}": i_jump})
    s["failures"] = failures_sentence(rs, lambda r: f"r = {value_label(meta_value(r, 'lr'))}")
    return s


def larger_at_large_rates(s: Summary, key: str, large: dict, shown: Interval, shown_label: str) -> Verdict:
    """"Errors increase at large rates": every large rate's u_p interval (``large``: {label:
    Interval}) above that of the shown rate (a large rate whose every run failed counts as
    above; without finite errors at the shown rate: cannot be decided)."""
    return s.compare(key, Verdict.UNDECIDED if not large or not shown.finite else
                     every([(iv, shown) for iv in large.values() if iv.finite], 1)
                     if any(iv.finite for iv in large.values()) else Verdict.AGREES,
                     {**{f"r = {k}": iv for k, iv in large.items()}, f"r = {shown_label}": shown})


def bullets(s: dict) -> list[str]:
    """The main-text comparisons of the study as markdown bullets (the Supporting Material
    repeats claim the same qualitative conclusions)."""
    lo, hi = (reporting.value_label(v) for v in PAPER_BEST)
    return [f"Lowest median error of $u_\\theta$ at $r$ = {s['best_theta']}, of $u_\\mathrm{{p}}$ at "
            f"$r$ = {s['best_up']}. "
            + in_range_words(lo, hi, s["best_theta_verdict"], s["best_up_verdict"]),
            f"Smallest rate $r$ = {s['smallest']}: over the last quarter of training each replicate's validation "
            f"loss fell by a fraction of its value at three quarters (negative: it rose). Its median is "
            f"{s['fall_small']}, against {s['fall_shown']} at the default rate. That the loss is still falling "
            f"at the smallest rate (a fall higher than at the default) {s['small_still_falling_with_paper']}.",
            f"Large rates $r$ = {s['large_rates']}: median $u_\\mathrm{{p}}$ errors {s['large_up']}. At the "
            f"default rate, $r$ = {s['shown']}: {s['shown_up']}. That the errors are larger at the large rates "
            f"{s['large_worse_verdict_with_paper']}.",
            s["failures"]]


# ----------------------------------------------------------------------------- claims
# Each check reads the results through ``ctx`` (ctx.study(name), ctx.variant(name, desc, **overrides),
# ctx.scale(name), ctx.run(result, name); see claims.context) and returns a verdicts.ClaimCheck.

def authors_summary(noise_var=DEFAULT_NOISE_VAR):
    """The best-rate comparisons (``best_in_range``) on the authors' archived Fig. 3
    runs (``authors_archive``), or None where none is archived."""
    rates = [m["lr"] for m in authors_archive.settings("learning_rate", noise_var=noise_var)]
    if not rates:
        return None
    they = Summary()
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        ivs = {r: median_interval(authors_archive.errors("learning_rate", m, noise_var=noise_var, lr=r)) for r in rates}
        best_in_range(they, f"best_{short}_verdict", ivs, PAPER_BEST)
    shown = STUDY.default["lr"]
    if shown in ivs:
        larger_at_large_rates(they, "large_worse_verdict", {reporting.value_label(r): iv for r, iv in ivs.items()
                                                                      if r >= UNSTABLE_FROM},
                                        ivs[shown], reporting.value_label(shown))
    return they


def claim_learning_rate(ctx):
    res = ctx.study("learning_rate")
    s, best = summary(res), value_range(PAPER_BEST)
    they = authors_summary() or Summary()
    rule = ("the best rate in the range against the best outside it: the difference of the medians resolved "
            "(below: agrees, above: disagrees)")
    subs = [SubClaim(f"lowest median $u_\\theta$ error at $r$ in {best}", s.verdicts["best_theta_verdict"],
                     numbers=s.intervals["best_theta_verdict"], rule=rule,
                     authors=they.verdicts.get("best_theta_verdict")),
            SubClaim(f"lowest median $u_\\mathrm{{p}}$ error at $r$ in {best}", s.verdicts["best_up_verdict"],
                     numbers=s.intervals["best_up_verdict"], rule=rule, authors=they.verdicts.get("best_up_verdict")),
            SubClaim(f"$r$ = {s['smallest']} not converged", s.verdicts["small_still_falling"],
                     numbers=s.intervals["small_still_falling"],
                     rule=f"reference: the default rate $r$ = {s['shown']}; per-replicate fall of the validation loss "
                          "over the last quarter of training, higher than the reference's"),
            SubClaim(f"$r$ = {s['smallest']}: larger $u_\\theta$ and $u_\\mathrm{{p}}$ errors than at the shown rate",
                     all_hold((*s.intervals[f"small_worse_{q}_verdict"].values(), 1) for q in ("theta", "up"))
                     if all(len(s.intervals.get(f"small_worse_{q}_verdict", {})) == 2 for q in ("theta", "up"))
                     else Verdict.UNDECIDED,
                     numbers={f"{k}, {word}": iv for q, word in (("theta", "$u_\\theta$"), ("up", "$u_\\mathrm{p}$"))
                              for k, iv in s.intervals[f"small_worse_{q}_verdict"].items()},
                     rule=f"median $u_\\theta$ and $u_\\mathrm{{p}}$ errors both higher than at $r$ = {s['shown']}",
                     keys=("small_worse_theta_verdict", "small_worse_up_verdict")),
            SubClaim("larger $u_\\theta$ errors at $r \\ge$ 1e-2 than at the shown rate",
                     s.verdicts["large_worse_theta_verdict"], numbers=s.intervals.get("large_worse_theta_verdict", {}),
                     rule=f"each large rate's median $u_\\theta$ higher than at $r$ = {s['shown']}"),
            SubClaim("larger $u_\\mathrm{p}$ errors at $r \\ge$ 1e-2 than at the shown rate", s.verdicts["large_worse_verdict"],
                     numbers=s.intervals.get("large_worse_verdict", {}), authors=they.verdicts.get("large_worse_verdict"),
                     rule=f"each large rate's median $u_\\mathrm{{p}}$ higher than at $r$ = {s['shown']}"),
            SubClaim("unstable optimisation at $r \\ge$ 1e-2: the validation loss comes further back up than at "
                     "the shown rate",
                     s.verdicts["large_unstable_verdict"], numbers=s.intervals["large_unstable_verdict"],
                     rule="per replicate, the largest rise of the validation loss above its lowest value so far, in "
                          f"decades (a diverged replicate the highest): each large rate's higher than at "
                          f"$r$ = {s['shown']}"),
            SubClaim("$r \\approx$ 1e-4 best across all benchmarks", Verdict.NOT_TESTED,
                     rule="we sweep $r$ on Burgers' equation only")]
    runs, ev = ctx.run(STUDY.default_setting(res) or res[0], 'learning_rate'), (f"The lowest median $u_\\theta$ error is "
          f"{s['best_theta_err']}, at $r$ = {s['best_theta']}. The lowest median $u_\\mathrm{{p}}$ error is "
          f"{s['best_up_err']}, at $r$ = {s['best_up']}. At $r$ = {s['smallest']} the validation loss "
          f"{s['late_change_small']} over the last quarter. The median $u_\\mathrm{{p}}$ errors at $r$ = "
          f"{s['large_rates']} are {s['large_up']}, against {s['shown_up']} at $r$ = {s['shown']}. The largest rise of "
          f"the validation loss above its lowest value so far, in decades, per replicate (a diverged one the highest; "
          f"the sub-claim below gives each median's interval), has the median "
          f"{s['jump_shown_median']} at $r$ = {s['shown']}"
          + (f". {s['jump_large'].rstrip('.')}" if s["jump_large"] else ""))
    return ClaimCheck(runs, ev, tuple(subs), ("learning_rate",))


#: The paper's claims this study checks: its words, its evidence, our check of it.
CLAIMS = (
    Claim(6, r"Learning rate shows three regimes on Burgers' equation: $r=5\times10^{-7}$ under-fits (not converged after 4000 epochs), $r\gtrsim10^{-2}$ is unstable, and $r=5\times10^{-5}$ to $5\times10^{-4}$ gives the lowest errors in $u_\theta$ and $u_\mathrm{p}$; $r\approx10^{-4}$ is best across all benchmarks.",
          r"Fig. 3; Supporting Material repeats at $\sigma^2\in\{0,10^{-2}\}$ and with dense data.", claim_learning_rate,
          primary=("lowest median",),
          quote='For very small learning rates, such as $r=5\\times10^{-7}$, the validation loss decreases only slowly throughout training and the BINN has not converged after 4000 epochs, indicating that the optimiser is unable to efficiently explore the loss landscape. […] At the opposite extreme, learning rates of order $10^{-2}$ or larger give rise to unstable optimisation. […] In Fig. 3, both the learned solution, $u_\\theta$, and the forward-predicted solution, $u_\\mathrm{p}$, achieve their lowest relative errors for $r=5\\times10^{-5}$ and $5\\times10^{-4}$, where the validation loss curves also decrease smoothly and reach the lowest values.',
          where='Results, Intermediate learning rates balance efficient optimisation with stable operator recovery (Fig. 3)',
          title='three learning-rate regimes', figure='Fig. 3', chapter='learning_rate'),
)

#: The paper's figure of each configuration (noise variance, dense grid).
PAPER_FIGURES = {
    (0.0, False): 7,
    (0.01, False): 11,
    (0.001, False): 3,
    (0.0, True): 16,
    (0.001, True): 17,
    (0.01, True): 18,
}

#: The main-text comparisons a Supporting Material repeat is checked on: (verdict key of the
#: summary, the sub-claim in the scorecard's words).
REPEAT_CHECKS = (("best_theta_verdict", f"lowest $u_\\theta$ error at $r$ in {value_range(PAPER_BEST)}"),
                 ("best_up_verdict", f"lowest $u_\\mathrm{{p}}$ error at $r$ in {value_range(PAPER_BEST)}"),
                 ("small_still_falling", "smallest $r$ not converged"),
                 ("large_worse_verdict", "larger errors at $r \\ge$ 1e-2"))


def drawing(results, s) -> Drawing:
    """Its Supporting Material figure: the error boxes over the rates, the operator panels (at the
    paper's default rate) shaded where the data do not reach."""
    d = box_drawing(results, ("lr",))
    shown = find(results, lr=PAPER_DEFAULTS.lr) or results[0]
    return Drawing(d.numbers, {**d.says, "grey": Phrase("unobserved", (shown.record.u_range, shown["u_grid"]))})


STUDY = Study(
    "learning_rate", "learning rate", "burgers", "Burgers", build,
    default={"lr": PAPER_DEFAULTS.lr},
    chapter="learning_rate",
    paper_figure=3,
    sweep=True,
    repeated_on=("sparse", "dense"),
    summary=summary,
    bullets=bullets,
    paper_figures=PAPER_FIGURES,
    paper_failures=(PaperPoint({"lr": 5e-7}, r"$r = 5\times10^{-7}$", "under-fitting: loss still falling, large errors"),
                    PaperPoint({"lr": 5e-2}, r"$r = 5\times10^{-2}$", "unstable optimisation, larger errors"),
                    PaperPoint({"lr": 5e-1}, r"$r = 5\times10^{-1}$", "unstable optimisation, larger errors")),
    repeat_checks=REPEAT_CHECKS,
    claims=CLAIMS,
    authors=authors_summary,
    shown=(Shown("Fig. 3, learning rate"),),
    symbol=PARAMETER_WORDS["lr"],
    diagnosed=True,
    drawing=drawing,
)