"""Glue between the results and the notebooks: statistics, numbers in prose, summaries.

Numbers quoted in the book's prose are glued from the results (myst-nb ``glue``), never
typed by hand.  Where results are read from and whether a missing one may be trained is
the store's policy (``records.stores_for``, ``loading.load_or_run``).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..engine.metrics import median_iqr
from ..store.sweep_record import reported
from .verdicts import (LEVEL, Interval, Outcome, Summary, Verdict, above_best_other, all_of, best_in, best_of, expect,
                       highest_at, median_interval, spread_interval)


def med_iqr(values) -> str:
    """'median [q25, q75]' of the finite values, with the count of failures if any."""
    st = median_iqr(values)
    if st["n"] == st["n_failed"]:
        return "all failed"
    s = f"{st['median']:.3g} [{st['q25']:.3g}, {st['q75']:.3g}]"
    if st["n_failed"]:
        s += f" ({st['n_failed']} failed)"
    return s


def median(values) -> float:
    """The median of the finite values (NaN if none)."""
    return median_iqr(values)["median"]


def iqr(values) -> float:
    """The interquartile range of the finite values (NaN if none)."""
    st = median_iqr(values)
    return st["q75"] - st["q25"]


def glue(name: str, value, display: bool = False):
    """myst-nb glue when available (book builds); otherwise just print (plain Jupyter)."""
    try:
        from myst_nb import glue as _glue
    except ImportError:  # pragma: no cover
        print(f"{name} = {value}")
        return
    _glue(name, value, display=display)


def run_description(res, epochs: bool = True, noise: bool = True, device: bool = True,
                    scale: str | None = None) -> str:
    """What was run, for figure captions: (scale,) epochs, replicates, datasets, noise, grid, device."""
    rec = res.record
    if scale:
        return f"scale {scale}, " + run_description(res, epochs, noise, device)
    n_ds = len(set(rec.datasets))
    grid = "351 x" if rec.dense else "71 x"
    return ((f"{rec.config.epochs} epochs, " if epochs else "") + f"{rec.replicates} replicates "
            f"({n_ds} dataset{'s' if n_ds > 1 else ''} x {rec.replicates // n_ds} initialisations), "
            + (f"noise variance {rec.noise_var:g}, " if noise else "")
            + f"{grid} {len(res['t'])} observation grid" + (f", trained {trained_on(rec)}" if device else ""))


def trained_on(record) -> str:
    """Where a stored setting (a ``SweepRecord``) was trained, in words (runs stored before
    devices were recorded: a CPU)."""
    dev = record.device or "cpu"
    if dev.startswith("cuda"):
        return f"on a GPU ({dev.split(':', 1)[1].strip()})" if ":" in dev else "on a GPU"
    return "on a CPU"


def devices_note(results, label_fn) -> str:
    """For captions of studies whose settings were trained on different devices: which where.

    Empty when every setting was trained on the same kind of device (``run_description``
    then says where)."""
    by_dev: dict = {}
    for r in results:
        by_dev.setdefault(trained_on(r.record), []).append(label_fn(r))
    if len(by_dev) < 2:
        return ""
    return "Trained " + "; ".join(f"{dev}: {', '.join(labels)}" for dev, labels in by_dev.items()) + "."


def metrics_table(results, label_fn=None, which=None, beside="final") -> str:
    """Markdown table: median [IQR] errors of u_theta and u_p per setting, u_p failures.

    ``which`` networks are reported; the median u_p error of the ``beside`` networks (the
    final ones, by default) is shown in a column of its own (None: no such column)."""
    which = which or reported()
    beside = None if beside == which else beside
    extra = f" | median $u_p$ error, {beside} networks" if beside else ""
    rows = [f"| setting | rel. L2 error $u_\\theta$ | rel. L2 error $u_p${extra} | $u_p$ failures | diverged |",
            "|---|---|---|---|---|" + ("---|" if beside else "")]
    for r in results:
        label = label_fn(r) if label_fn else r.setting.label
        st = r.up_status(which)
        div = sum(s != "ok" for s in r.record.status)
        col = f" | {fmt(median(r.metric('err_u_p', beside)))}" if beside else ""
        rows.append(f"| {label} | {med_iqr(r.metric('err_u_theta', which))} | "
                    f"{med_iqr(r.metric('err_u_p', which))}{col} | {sum(s != 'ok' for s in st)}/{len(st)} | {div} |")
    return "\n".join(rows)


# ----------------------------------------------------------------------------- verdict numbers
# Each study's numbers for the "Verdict" prose, as strings to glue: the section notebooks
# and the Supporting Material notebook glue the same summaries under different prefixes.
# A comparison with the paper is computed ("agrees"/"disagrees"), never typed.

#: The nonlinear ADR benchmark's two initial conditions (``problems.INITIALS``), in words.
INITIAL_WORDS = {"code": "the authors' Fig. 1 data (initial bumps of height 1 and 0.7)",
                 "text": "the paper's Eq. ic-nl (initial bumps of height 0.1 and 0.07)"}

# Readings of the paper's words (glued into the prose with the numbers they judge).  No
# cut-off here decides a verdict: the verdicts compare intervals (``verdicts``); these say
# where a quantity is measured or describe a curve in words.
RISE_THRESHOLD = 0.10        # words only: a final validation loss this much above its minimum is called a rise
LATE_DROP_THRESHOLD = 0.05   # words only: a fall this large over the last quarter is called "still falling"
FACTOR = 2.0                 # words only (the learning-rate chapter's "stalled" curves)
NEAR_ZERO = 0.2              # "around / near zero": the lowest 20 % of the range of u
TREND_P = 1 - LEVEL          # "grows with the noise": one-sided Spearman test at the intervals' level


def fmt(v, spec: str = ".3g") -> str:
    """A number for prose; 'n/a' for None/NaN (e.g. every replicate failed)."""
    if v is None:
        return "n/a"
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not np.isfinite(v):
        return "n/a"
    return format(int(round(v)), spec) if spec.endswith("d") else format(v, spec)


def word(flag, yes: str = "agrees", no: str = "disagrees", undecided: str = "cannot be decided") -> str:
    return undecided if flag is None else (yes if flag else no)


def and_list(items) -> str:
    """Items in words: "a", "a and b", "a, b and c" ("" for none)."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def each(values) -> str:
    """Values that go with a list of things named nearby, in words: one value as it is,
    equal values once ("0.5 each"), else "0.1, 0.2 and 0.3"."""
    values = [str(v) for v in values]
    if len(set(values)) <= 1:
        return (values[0] + (" each" if len(values) > 1 else "")) if values else ""
    return and_list(values)


def respectively(values) -> str:
    """:func:`each`, with "respectively" after different values."""
    values = [str(v) for v in values]
    return each(values) + (" respectively" if len(set(values)) > 1 else "")


#: The outcomes of a claim, in the order the scorecard counts them.
VERDICTS = tuple(o.value for o in Outcome)


def _norm(v):
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)
    return float(v)


def meta_value(res, key):
    """The swept value ``key`` of a result, lists as tuples (hashable, comparable)."""
    return _norm(res.meta[key])


def find(results, **meta):
    """The first result whose meta matches every key=value (floats to 1e-9 relative), or None."""
    for r in results:
        ok = True
        for k, v in meta.items():
            if k not in r.meta:
                ok = False
                break
            a, b = meta_value(r, k), _norm(v)
            if isinstance(a, float):
                ok = np.isclose(a, b, rtol=1e-9, atol=0.0)
            else:
                ok = a == b
            if not ok:
                break
        if ok:
            return r
    return None


def arch_label(arch) -> str:
    return "({}, {})".format(*arch)


def value_label(v) -> str:
    """Swept value for tables and ticks: '5e-04' style for floats, '(4, 32)' for architectures."""
    if isinstance(v, (list, tuple)):
        return arch_label(v)
    v = float(v)
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 1e4:
        return f"{int(v)}"
    return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e")


def counts(res) -> dict:
    """Replicates, diverged trainings and failed forward solves of one setting."""
    up = res.up_status()
    return {"replicates": len(res.record.status),
            "diverged": sum(s != "ok" for s in res.record.status),
            "up_failed": sum(s != "ok" for s in up)}


def failures_sentence(results, label_fn) -> str:
    """'none' or e.g. 'r = 5e-1: 3 of 10 diverged, 2 forward solves failed; ...'."""
    parts = []
    for r in results:
        c = counts(r)
        bits = []
        if c["diverged"]:
            bits.append(f"{c['diverged']} of {c['replicates']} trainings diverged")
        if c["up_failed"]:
            bits.append(f"{c['up_failed']} of {c['replicates']} forward solves failed")
        if bits:
            parts.append(f"{label_fn(r)}: {', '.join(bits)}")
    return "; ".join(parts) if parts else "none"


def curve_stats(res, key="hist_val_total", weight=1.0) -> dict:
    """Shape of the median (over replicates) validation-loss curve.

    min_epoch: epoch of its minimum; rise: final / minimum value; late_drop: relative
    decrease over the last quarter of training (positive = still falling);
    roughness: median |change of log10 loss| between consecutive recorded epochs in the
    second half of training.
    """
    c = np.asarray(res[key], float) * weight
    c = np.where(np.isfinite(c), c, np.nan)
    ep = np.asarray(res["curve_epochs"])
    with np.errstate(all="ignore"):
        med = np.nanmedian(c, axis=0) if c.size else np.array([np.nan])
    out = dict(min_epoch=np.nan, rise=np.nan, late_drop=np.nan, roughness=np.nan, final=np.nan, epochs=np.nan)
    ok = np.isfinite(med) & (med > 0)
    if not ok.any():
        return out
    i_min = int(np.nanargmin(np.where(ok, med, np.inf)))
    n = len(med)
    q = min(n - 1, int(round(0.75 * (n - 1))))
    half = med[n // 2:]
    lg = np.log10(half[np.isfinite(half) & (half > 0)])
    out.update(min_epoch=int(ep[i_min]), rise=float(med[-1] / med[i_min]), final=float(med[-1]),
               late_drop=float((med[q] - med[-1]) / med[q]) if med[q] > 0 else np.nan,
               roughness=float(np.median(np.abs(np.diff(lg)))) if lg.size > 1 else np.nan,
               epochs=int(ep[-1]))
    return out


def rise_replicates(res, key="hist_val_total") -> np.ndarray:
    """Per replicate, the final validation loss over its minimum (NaN for a failed replicate)."""
    c = np.asarray(res[key], float)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = np.where(np.isfinite(c) & (c > 0), c, np.nan)
        return c[:, -1] / np.nanmin(c, axis=1)


def late_drop_replicates(res, key="hist_val_total") -> np.ndarray:
    """Per replicate, the relative fall of the validation loss over the last quarter of
    training (positive: still falling; NaN for a failed replicate)."""
    c = np.asarray(res[key], float)
    n = c.shape[1]
    q = min(n - 1, int(round(0.75 * (n - 1))))
    with np.errstate(all="ignore"):
        return np.where(c[:, q] > 0, (c[:, q] - c[:, -1]) / c[:, q], np.nan)


def network_comparison(results, archs, levels, metric, interval, datasets=None) -> dict:
    """Per noise level, "the first u-network of ``archs`` lower than the second": (verdict,
    interval of the first, of the second) of ``interval`` (``median_interval`` or
    ``spread_interval``) over the replicates of ``metric``; ``datasets`` "common": only the
    datasets both networks ran."""
    out = {}
    for nv in levels:
        a, b = find(results, noise_var=nv, arch_u=archs[0]), find(results, noise_var=nv, arch_u=archs[1])
        if a is None or b is None:
            continue
        ea, eb = a.metric(metric), b.metric(metric)
        if datasets == "common":
            common = sorted(set(a.setting.datasets) & set(b.setting.datasets))
            ea, eb = ea[np.isin(a.setting.datasets, common)], eb[np.isin(b.setting.datasets, common)]
        ia, ib = interval(ea), interval(eb)
        out[nv] = (expect(ia, ib, -1), ia, ib)
    return out


def levels_words(per_level: dict) -> str:
    """'lower at 2 of 4 noise levels, higher at 1, indistinguishable at 1'."""
    vs = [v for v, *_ in per_level.values()]
    n = len(vs)
    return (f"lower at {vs.count(Verdict.AGREES)} of {n} noise levels, higher at {vs.count(Verdict.DISAGREES)}, "
            f"indistinguishable at {vs.count(Verdict.INDISTINCT)}")


def intervals_of(results, key, metric, interval=median_interval) -> dict:
    """{swept value ``key``: ``interval`` of ``metric`` over its replicates}."""
    return {meta_value(r, key): interval(r.metric(metric)) for r in results}


def _medians(results, metric, which=None):
    return np.array([median(r.metric(metric, which)) for r in results])


def _best(values, meds):
    """Value with the lowest finite median (None if none)."""
    meds = np.asarray(meds, float)
    if not np.isfinite(meds).any():
        return None
    return values[int(np.nanargmin(np.where(np.isfinite(meds), meds, np.inf)))]


def rank_trend(levels, values):
    """Spearman's rank correlation of per-replicate ``values`` against their ``levels``
    and its one-sided p-value (alternative: increasing); NaN if undefined."""
    from scipy.stats import spearmanr
    x, y = np.asarray(levels, float), np.asarray(values, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.unique(x[ok]).size < 2:
        return float("nan"), float("nan")
    res = spearmanr(x[ok], y[ok], alternative="greater")
    return float(res.statistic), float(res.pvalue)


def near_zero_errors(res, frac: float, key: str = "u_p") -> tuple[np.ndarray, np.ndarray]:
    """Per replicate, the mean |``key`` - truth| where the noise-free solution is in the
    lowest ``frac`` of its range ("where the true solution is near zero") and over the rest
    of the (t, x) grid; NaN for a failed replicate."""
    truth = np.asarray(res["u_clean"], float)
    lo, hi = float(truth.min()), float(truth.max())
    near = truth <= lo + frac * (hi - lo)
    pred = np.asarray(res.net(key), float)
    err = np.abs(pred - truth[None])
    with np.errstate(all="ignore"):
        e_near = np.where(np.isfinite(err).all(axis=(1, 2)), err[:, near].mean(axis=1), np.nan)
        e_rest = np.where(np.isfinite(err).all(axis=(1, 2)), err[:, ~near].mean(axis=1), np.nan)
    return e_near, e_rest


def band_errors(res, op, band):
    """Median over replicates of the mean |learned - true| of ``op`` inside and outside
    ``band`` (a u interval), both restricted to the observed range of u."""
    return tuple(median(e) for e in band_error_replicates(res, op, band))


def band_error_replicates(res, op, band):
    """Per replicate, the mean |learned - true| of ``op`` inside and outside ``band`` (a u
    interval), both restricted to the observed range of u (NaN where empty)."""
    u = np.asarray(res["u_grid"], float)
    lo, hi = res.record.u_range
    obs = (u >= lo - 1e-12) & (u <= hi + 1e-12)
    inside = obs & (u >= band[0] - 1e-12) & (u <= band[1] + 1e-12)
    outside = obs & ~inside
    err = np.abs(np.asarray(res.net(f"op_{op}"), float) - np.asarray(res[f"true_op_{op}"], float)[None])
    with warnings.catch_warnings():  # a diverged replicate has NaN curves
        warnings.simplefilter("ignore", RuntimeWarning)
        f = lambda m: np.nanmean(err[:, m], axis=1) if m.any() else np.full(len(err), np.nan)  # noqa: E731
        return f(inside), f(outside)


def framework_summary(res) -> Summary:
    """Fig. 1: how well u_theta and u_p match the truth, globally and where the true
    solution is near zero, and where the learned V and G deviate most."""
    th = median(res.metric("err_u_theta"))
    up_near, up_rest = (median(e) for e in near_zero_errors(res, NEAR_ZERO, "u_p"))
    th_near, th_rest = (median(e) for e in near_zero_errors(res, NEAR_ZERO, "u_theta"))
    lo, hi = res.record.u_range
    near = (lo, lo + NEAR_ZERO * (hi - lo))
    s = Summary({"data": INITIAL_WORDS[getattr(res.setting, "initial", "text")], "max_u": fmt(np.max(res["u_clean"])),
                 "err_theta": med_iqr(res.metric("err_u_theta")), "err_up": med_iqr(res.metric("err_u_p")),
                 "near_pct": fmt(100 * NEAR_ZERO, "g"),
                 "near_u": fmt(near[1], ".2g"), "up_near": fmt(up_near), "up_rest": fmt(up_rest),
                 "theta_near": fmt(th_near), "theta_rest": fmt(th_rest)})
    (upn, upr), (thn, _) = near_zero_errors(res, NEAR_ZERO, "u_p"), near_zero_errors(res, NEAR_ZERO, "u_theta")
    ith, iup = median_interval(res.metric("err_u_theta")), median_interval(res.metric("err_u_p"))
    s.compare("theta_verdict", expect(ith, iup, -1), {"u_theta": ith, "u_p": iup})
    i_near, i_th_near, i_rest = median_interval(upn), median_interval(thn), median_interval(upr)
    s.compare("near_verdict", expect(i_near, i_th_near, 1), {"u_p near zero": i_near, "u_theta near zero": i_th_near})
    s.compare("local_verdict", expect(i_near, i_rest, 1), {"u_p near zero": i_near, "u_p elsewhere": i_rest})
    for op in ("V", "G"):
        e_in, e_out = band_error_replicates(res, op, near)
        s[f"{op}_near"], s[f"{op}_rest"] = fmt(median(e_in)), fmt(median(e_out))
        a, b = median_interval(e_in), median_interval(e_out)
        s.compare(f"{op}_verdict", expect(a, b, 1), {"near u = 0": a, "elsewhere": b})
    s.intervals["D_err"] = {"D": median_interval(res.operator_error("D"))}
    s["D_err"] = str(s.intervals["D_err"]["D"])
    return s


def noise_summary(results, shown_noise, shown_arch, high_noise=None) -> Summary:
    """Fig. 2: errors against noise variance for two u-network architectures; the numbers
    of one setting at ``shown_noise`` and ``shown_arch`` (the study gives its default point)."""
    archs = sorted({meta_value(r, "arch_u") for r in results}, key=lambda a: (a[0] * a[1], a))
    nvs = sorted({meta_value(r, "noise_var") for r in results})
    high_noise = nvs[-1] if high_noise is None else high_noise
    shown_arch = tuple(shown_arch)
    s = Summary({"rise_pct": fmt(100 * RISE_THRESHOLD, "g"), "trend_p": fmt(TREND_P, "g"),
                 "noise_levels": ", ".join(value_label(v) for v in nvs), "nv_lo": value_label(nvs[0]),
                 "nv_hi": value_label(nvs[-1]), "shown": value_label(shown_noise), "high": value_label(high_noise)})
    tags = ("a", "b")
    for tag, arch in zip(tags, archs):
        rs = [find(results, noise_var=v, arch_u=arch) for v in nvs]
        s[f"arch_{tag}"] = arch_label(arch)
        for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
            meds = _medians(rs, m)
            s[f"{short}_lo_{tag}"] = fmt(meds[0])
            s[f"{short}_hi_{tag}"] = fmt(meds[-1])
            fin = meds[np.isfinite(meds)]
            mono = bool(np.all(np.diff(fin) >= 0)) if fin.size == meds.size else None
            s[f"{short}_mono_{tag}"] = word(mono, "rises monotonically", "does not rise monotonically")
            lv = np.concatenate([np.full(len(r.metric(m)), v) for r, v in zip(rs, nvs) if r is not None])
            ev = np.concatenate([r.metric(m) for r in rs if r is not None])
            rho, p = rank_trend(lv, ev)
            s[f"{short}_rho_{tag}"] = fmt(rho, ".2f")
            s[f"{short}_p_{tag}"] = fmt(p, ".2g")
            s.judge(f"{short}_grows_{tag}", None if not np.isfinite(p) else bool(rho > 0 and p < TREND_P))
        st = curve_stats(find(results, noise_var=high_noise, arch_u=arch) or rs[-1])
        sl = curve_stats(find(results, noise_var=shown_noise, arch_u=arch) or rs[0])
        s[f"rise_high_{tag}"] = fmt(st["rise"], ".2f")
        s[f"minep_high_{tag}"] = fmt(st["min_epoch"], "d")
        s[f"epochs_{tag}"] = fmt(st["epochs"], "d")
        s[f"rise_low_{tag}"] = fmt(sl["rise"], ".2f")
        hi_r = find(results, noise_var=high_noise, arch_u=arch)
        lo_r = find(results, noise_var=shown_noise, arch_u=arch)
        i_hi = median_interval(rise_replicates(hi_r) if hi_r is not None else [])
        i_lo = median_interval(rise_replicates(lo_r) if lo_r is not None else [])
        s.compare(f"rise_verdict_{tag}", expect(i_hi, i_lo, 1), {f"rise at {value_label(high_noise)}": i_hi,
                                                                 f"rise at {value_label(shown_noise)}": i_lo},
                  "rises", "does not rise")
    if len(archs) == 2:
        nz = [v for v in nvs if v > 0]
        for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
            per_level = network_comparison(results, archs, nz, m, median_interval)
            s[f"{short}_small_wins"] = levels_words(per_level)
            s.compare(f"{short}_small_wins_verdict", all_of(v for v, *_ in per_level.values()),
                      {f"{value_label(nv)}, {arch_label(a)}": iv for nv, (_, ia, ib) in per_level.items()
                       for a, iv in zip(archs, (ia, ib))})
        r0a, r0b = find(results, noise_var=0.0, arch_u=archs[0]), find(results, noise_var=0.0, arch_u=archs[1])
        if r0a is not None and r0b is not None:
            ia, ib = median_interval(r0a.metric("err_u_theta")), median_interval(r0b.metric("err_u_theta"))
            s["clean_theta_a"], s["clean_theta_b"] = str(ia), str(ib)
            s.compare("clean_large_wins", expect(ib, ia, -1), {arch_label(archs[0]): ia, arch_label(archs[1]): ib})
        else:
            s["clean_theta_a"] = s["clean_theta_b"] = "n/a"
            s.judge("clean_large_wins", None)
    for k in [k for k in s if k.endswith("_a")]:  # a single architecture: fill the second one's keys
        s.setdefault(k[:-2] + "_b", "n/a")
    for k in ("theta_small_wins", "theta_small_wins_verdict", "up_small_wins", "up_small_wins_verdict",
              "clean_theta_a", "clean_theta_b", "clean_large_wins"):
        s.setdefault(k, "n/a")
    for k in ("theta_small_wins_verdict", "up_small_wins_verdict", "clean_large_wins"):  # one architecture
        s.verdicts.setdefault(k, Verdict.UNDECIDED)
    shown = find(results, noise_var=shown_noise, arch_u=shown_arch) or results[0]
    s["shown_arch"] = arch_label(meta_value(shown, "arch_u"))
    s["shown_D_err"] = med_iqr(shown.operator_error("D"))
    uc = shown["u_clean"]
    s["u_range_all"] = f"[{uc.min():.2f}, {uc.max():.2f}]"
    s["u_range_end"] = f"[{uc[-1].min():.2f}, {uc[-1].max():.2f}]"
    return s


def learning_rate_summary(results, shown, paper_best, unstable_from=1e-2) -> Summary:
    """Fig. 3: errors and validation-loss behaviour against the learning rate; the large
    rates are compared with the rate ``shown``, the best rate with the paper's ``paper_best``
    (the study gives both)."""
    rates = [meta_value(r, "lr") for r in results]
    order = np.argsort(rates)
    rs = [results[i] for i in order]
    rates = [rates[i] for i in order]
    s = Summary()
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        meds = _medians(rs, m)
        best = _best(rates, meds)
        s[f"best_{short}"] = value_label(best) if best is not None else "n/a"
        s[f"best_{short}_err"] = fmt(np.nanmin(meds)) if np.isfinite(meds).any() else "n/a"
        best_in_range(s, f"best_{short}_verdict", intervals_of(rs, "lr", m), paper_best)
    small, r_shown = rs[0], (find(rs, lr=shown) or rs[len(rs) // 2])
    cs, cm = curve_stats(small), curve_stats(r_shown)
    s["late_pct"] = fmt(100 * LATE_DROP_THRESHOLD, "g")
    s["smallest"] = value_label(rates[0])
    s["shown"] = value_label(meta_value(r_shown, "lr"))
    s["late_drop_small"] = fmt(100 * cs["late_drop"], ".2g")
    s["late_drop_shown"] = fmt(100 * cm["late_drop"], ".2g")
    i_small, i_shown = median_interval(late_drop_replicates(small)), median_interval(late_drop_replicates(r_shown))
    s.compare("small_still_falling", expect(i_small, i_shown, 1),
              {f"fall over the last quarter, r = {s['smallest']}": i_small, f"r = {s['shown']}": i_shown},
              "is still falling", "has levelled off")
    s["small_up"] = fmt(median(small.metric("err_u_p")))
    s["small_theta"] = fmt(median(small.metric("err_u_theta")))
    big = [r for r, v in zip(rs, rates) if v >= unstable_from]
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
                          {value_label(meta_value(r, "lr")): median_interval(r.metric("err_u_p")) for r in big},
                          median_interval(r_shown.metric("err_u_p")), s["shown"])
    s["failures"] = failures_sentence(rs, lambda r: f"r = {value_label(meta_value(r, 'lr'))}")
    return s


def _label(v) -> str:
    return "n/a" if v is None else value_label(v)


def best_in_range(s: Summary, key: str, intervals: dict, paper_best) -> Verdict:
    """Record "lowest errors for a swept value in ``paper_best`` (a closed range)": the best
    setting in the range against the best outside it (``verdicts.best_in``)."""
    lo, hi = min(paper_best), max(paper_best)
    v, b_in, b_out = best_in(intervals, lambda x: lo * (1 - 1e-9) <= x <= hi * (1 + 1e-9))
    return s.compare(key, v, {f"best in {value_label(lo)}-{value_label(hi)} ({value_label(b_in)})"
                              if b_in is not None else "in range": intervals.get(b_in, Interval(np.nan, np.nan, np.nan, 0, np.nan)),
                              f"best outside ({value_label(b_out)})" if b_out is not None else "outside":
                              intervals.get(b_out, Interval(np.nan, np.nan, np.nan, 0, np.nan))})


def low_extremes(s: Summary, key: str, ivs: dict, low) -> Verdict:
    """"A too small weight ``low`` gives a small u_theta error but a large u_p error": its
    u_theta interval below its u_p interval (the same runs), and its u_p interval above the
    best other weight's (``ivs``: {"theta"/"up": {weight: Interval}})."""
    th, up = ivs["theta"].get(low), ivs["up"].get(low)
    large, ref = above_best_other(ivs["up"], low)
    v = Verdict.UNDECIDED if th is None or up is None else all_of([expect(th, up, -1), large])
    return s.compare(key, v, {"u_theta": th, "u_p": up, f"u_p at the best other ({_label(ref)})":
                              ivs["up"].get(ref)})


def high_extremes(s: Summary, key: str, ivs: dict, high) -> Verdict:
    """"A too large weight ``high`` gives large errors in both": each interval above that of
    the best other weight."""
    (vt, rt), (vu, ru) = above_best_other(ivs["theta"], high), above_best_other(ivs["up"], high)
    return s.compare(key, all_of([vt, vu]), {"u_theta": ivs["theta"].get(high), f"u_theta best other ({_label(rt)})":
                                             ivs["theta"].get(rt), "u_p": ivs["up"].get(high),
                                             f"u_p best other ({_label(ru)})": ivs["up"].get(ru)})


def larger_at_large_rates(s: Summary, key: str, large: dict, shown: Interval, shown_label: str) -> Verdict:
    """"Errors increase at large rates": every large rate's u_p interval (``large``: {label:
    Interval}) above that of the shown rate (a large rate whose every run failed counts as
    above; without finite errors at the shown rate: cannot be decided)."""
    return s.compare(key, Verdict.UNDECIDED if not large or not shown.finite else
                     all_of(Verdict.AGREES if not iv.finite else expect(iv, shown, 1) for iv in large.values()),
                     {**{f"r = {k}": iv for k, iv in large.items()}, f"r = {shown_label}": shown})


def loss_weight_summary(results, paper_best, low, high) -> Summary:
    """Fig. 4: errors and weighted loss balance against w_PDE; the best weight against the
    paper's range ``paper_best`` (the study gives it)."""
    ws = [meta_value(r, "w_pde") for r in results]
    order = np.argsort(ws)
    rs = [results[i] for i in order]
    ws = [ws[i] for i in order]
    s = Summary()
    mins, ivs = {}, {}
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        meds = _medians(rs, m)
        best = _best(ws, meds)
        mins[short] = np.nanmin(meds) if np.isfinite(meds).any() else np.nan
        s[f"best_{short}"] = value_label(best) if best is not None else "n/a"
        s[f"best_{short}_err"] = fmt(mins[short])
        ivs[short] = intervals_of(rs, "w_pde", m)
        best_in_range(s, f"best_{short}_verdict", ivs[short], paper_best)
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
        gap = gap[np.isfinite(gap)]
        s["low_gap_min"] = fmt(gap.min(), ".2g") if gap.size else "n/a"
        s["low_gap_final"] = fmt(gap[-1], ".2g") if gap.size else "n/a"
        s.judge("low_gap_verdict", bool(gap.min() > 3) if gap.size else None)   # the paper's "three orders"
    else:
        s.update(low_gap_min="n/a", low_gap_final="n/a")
        s.judge("low_verdict", None)
        s.judge("low_gap_verdict", None)
    if rh is not None:
        high_extremes(s, "high_verdict", ivs, high)
    else:
        s.judge("high_verdict", None)
    s["low"], s["high"] = value_label(low), value_label(high)
    s["failures"] = failures_sentence(rs, lambda r: f"w_PDE = {value_label(meta_value(r, 'w_pde'))}")
    return s


def architecture_matrix(results, stat="mean", metric="err_u_p"):
    """(archs, matrix[i_D, j_V], failures[i_D][j_V]) of a statistic of a metric over replicates."""
    archs = sorted({meta_value(r, "arch_D") for r in results} | {meta_value(r, "arch_V") for r in results},
                   key=lambda a: (a[0] * a[1], a))
    M = np.full((len(archs), len(archs)), np.nan)
    notes = [["" for _ in archs] for _ in archs]
    for i, aD in enumerate(archs):
        for j, aV in enumerate(archs):
            r = find(results, arch_D=aD, arch_V=aV)
            if r is None:
                notes[i][j] = "not run"
                continue
            v = r.metric(metric)
            ok = v[np.isfinite(v)]
            if ok.size:
                M[i, j] = float(np.mean(ok) if stat == "mean" else np.median(ok))
            if ok.size < v.size:
                notes[i][j] = f"{v.size - ok.size} failed"
    return archs, M, notes


def smallest_worst(s: Summary, key: str, intervals: dict, smallest) -> Verdict:
    """"(1, 1) is biased with large u_p error", read as the worst of the equal-size
    networks: its interval above every other's (``verdicts.highest_at``)."""
    return s.compare(key, highest_at(intervals, smallest), {arch_label(a): iv for a, iv in intervals.items()})


def saturates(s: Summary, key: str, i432: Interval, i44: Interval) -> Verdict:
    """"(4, 32) is no better (slightly worse)" than (4, 4): its interval above (4, 4)'s."""
    return s.compare(key, expect(i432, i44, 1), {"(4, 32)": i432, "(4, 4)": i44})


def architecture_summary(results, default, up_metric: str = "err_u_p") -> Summary:
    """Fig. 5: forward-solve and operator errors for the operator-network architectures.

    ``default``: the paper's default point (``arch_D``, ``arch_V``), which the paper finds no
    better than (4, 4) for both networks.
    ``up_metric``: the u_p error the comparisons use ("err_u_p": Frobenius norm, as every
    other figure; "err_u_p_spectral": the spectral norm of the authors' heat map)."""
    archs, M_mean, _ = architecture_matrix(results, "mean", up_metric)
    _, M_med, _ = architecture_matrix(results, "median", up_metric)
    diag = [find(results, arch_D=a, arch_V=a) for a in archs]
    s = Summary()
    meds = np.array([median(r.metric(up_metric)) if r is not None else np.nan for r in diag])
    for a, r, m in zip(archs, diag, meds):
        tag = f"{a[0]}x{a[1]}"
        s[f"up_{tag}"] = fmt(m)
        s[f"theta_{tag}"] = fmt(median(r.metric("err_u_theta"))) if r is not None else "n/a"
        for op in ("D", "V"):
            e = r.operator_error(op) if r is not None else np.array([np.nan])
            s[f"{op}err_{tag}"] = fmt(median(e))
            s[f"{op}iqr_{tag}"] = fmt(iqr(e), ".2g")
        s[f"val_{tag}"] = fmt(curve_stats(r)["final"]) if r is not None else "n/a"
    best = _best(archs, meds)
    s["best_diag"] = arch_label(best) if best is not None else "n/a"
    smallest = archs[0]
    s["smallest"] = arch_label(smallest)
    s["tolerance"] = f"{100 * LEVEL:g} % intervals of the median that do not overlap"
    # "(1, 1) the worst": its interval above every other equal-size network's
    ivs = {a: median_interval(r.metric(up_metric) if r is not None else []) for a, r in zip(archs, diag)}
    smallest_worst(s, "smallest_worst", ivs, smallest)
    s["smallest_clearly_worse_than"] = ", ".join(arch_label(a) for a in archs[1:]
                                                 if expect(ivs[smallest], ivs[a], 1) is Verdict.AGREES) or "none"
    if np.isfinite(M_mean).any():
        i, j = np.unravel_index(np.nanargmin(M_mean), M_mean.shape)
        s["best_mean_combo"] = f"D {arch_label(archs[i])}, V {arch_label(archs[j])}"
        s["best_mean"] = fmt(M_mean[i, j])
        i2, j2 = np.unravel_index(np.nanargmin(M_med), M_med.shape)
        s["best_median_combo"] = f"D {arch_label(archs[i2])}, V {arch_label(archs[j2])}"
        s["best_median"] = fmt(M_med[i2, j2])
        s["mean_median_same"] = word(bool((i, j) == (i2, j2)), "the same combination", "a different combination")
    else:
        s.update(best_mean_combo="n/a", best_mean="n/a", best_median_combo="n/a", best_median="n/a",
                 mean_median_same="n/a")
    # the paper: (4,4) as good as its default (4,32), whose D is slightly worse and more variable
    r44, r432 = find(results, arch_D=(4, 4), arch_V=(4, 4)), find(results, **default)
    if r44 is not None and r432 is not None:
        saturates(s, "saturates_verdict", median_interval(r432.metric(up_metric)), median_interval(r44.metric(up_metric)))
        d44, d432 = r44.operator_error("D"), r432.operator_error("D")
        m44, m432, q44, q432 = (median_interval(d44), median_interval(d432), spread_interval(d44), spread_interval(d432))
        s.compare("D_worse_verdict", all_of([expect(m432, m44, 1), expect(q432, q44, 1)]),
                  {"median, (4, 32)": m432, "median, (4, 4)": m44, "IQR, (4, 32)": q432, "IQR, (4, 4)": q44})
        for op in ("D", "V"):
            every = {(meta_value(r, "arch_D"), meta_value(r, "arch_V")): median_interval(r.operator_error(op))
                     for r in results}
            key = ((4, 4), (4, 4))
            ref = best_of(every, [k for k in every if k != key])
            s.compare(f"recovers_{op}", expect(every[key], every[ref], -1) if ref is not None else Verdict.UNDECIDED,
                      {"(4, 4)": every[key], f"best other (D {arch_label(ref[0])}, V {arch_label(ref[1])})"
                       if ref is not None else "best other": every.get(ref)})
    else:
        for k in ("saturates_verdict", "D_worse_verdict", "recovers_D", "recovers_V"):
            s.judge(k, None)
    s["failures"] = failures_sentence(results, lambda r: f"D {arch_label(meta_value(r, 'arch_D'))} "
                                                         f"V {arch_label(meta_value(r, 'arch_V'))}")
    return s


def time_fit(timing: dict) -> dict:
    """Fig. 6's training time against the batch size, from the timing benchmark
    (``studies.batch_size.timing()``: ``benchmarks/batch_size_timing.py``, one network of the
    plain-autograd trainer, the batch sizes interleaved in one process on one device): the
    time T of 4000 epochs per B and the fit T = a / B + c with the t interval of a.

    B is the batch size actually used (a batch larger than the training set is clipped).
    ``timing`` None (no benchmark of this grid): empty arrays and NaN."""
    from scipy.optimize import curve_fit
    rows = sorted(timing["batch_sizes"], key=lambda r: r["B_used"]) if timing else []
    B = np.array([r["B_used"] for r in rows], float)
    B_req = np.array([r["B"] for r in rows], float)
    T = np.array([r["s_4000_epochs"] for r in rows], float)
    steps = np.array([4000 * r["epoch_steps"] for r in rows], float)
    out = dict(B=B, B_requested=B_req, T=T, steps=steps, per_step_ms=np.array([r["ms_per_step"] for r in rows]),
               a=np.nan, c=np.nan, r2=np.nan, a_lo=np.nan, a_hi=np.nan)
    if len(B) >= 2 and np.all(np.isfinite(T)):
        f = lambda b, a, c: a / b + c  # noqa: E731
        try:
            (a, c), cov = curve_fit(f, B, T, p0=(T[0] * B[0], 0.0))
            pred = f(B, a, c)
            ss = np.sum((T - T.mean()) ** 2)
            # the t interval of a at the verdicts' level (len(B) - 2 degrees of freedom)
            from scipy.stats import t as student
            half = (student.ppf((1 + LEVEL) / 2, len(B) - 2) * np.sqrt(cov[0, 0])
                    if len(B) > 2 and np.isfinite(cov[0, 0]) else np.inf)
            out.update(a=float(a), c=float(c), r2=float(1 - np.sum((T - pred) ** 2) / ss) if ss > 0 else np.nan,
                       a_lo=float(a - half), a_hi=float(a + half))
        except RuntimeError:
            pass
    return out


def batch_size_summary(fixed, budget, paper_best, timing) -> Summary:
    """Fig. 6: training time against B (from the timing benchmark ``timing``: ``time_fit``),
    errors after a fixed budget of optimiser steps; the best batch sizes against the paper's
    ``paper_best`` (the study gives them)."""
    fit = time_fit(timing)
    s = Summary({"fit_a": fmt(fit["a"]), "fit_c": fmt(fit["c"]), "fit_r2": fmt(fit["r2"], ".3f"),
                 "times": ", ".join(f"B = {int(b)}: {fmt(t)} s" for b, t in zip(fit["B_requested"], fit["T"])),
                 "per_step": ", ".join(f"B = {int(b)}: {fmt(t, '.2g')} ms" for b, t in zip(fit["B_requested"],
                                                                                           fit["per_step_ms"]))})
    ia = Interval(fit["a"], fit["a_lo"], fit["a_hi"], len(fit["B"]), LEVEL, "a")
    s["a_interval"] = str(ia)
    s.compare("inverse_verdict", expect(ia, Interval(0.0, 0.0, 0.0, 0, 1.0, "zero"), 1) if ia.finite
              else Verdict.UNDECIDED, {"a": ia})
    if np.isfinite(fit["c"]) and np.isfinite(fit["a"]) and len(fit["B"]):
        s["c_share"] = fmt(100 * fit["c"] / fit["T"][-1], ".2g")
    else:
        s["c_share"] = "n/a"
    clipped = [r for r in fixed if r.record.batch_size_used != r.record.config.batch_size]
    s["clipped"] = ("; ".join(f"B = {r.record.config.batch_size} ran as full-batch training with "
                              f"B = {r.record.batch_size_used}" for r in clipped)
                    or "No batch size was larger than the training set")
    Bs = [int(meta_value(r, "batch_size")) for r in budget]
    order = np.argsort(Bs)
    rb = [budget[i] for i in order]
    Bs = [Bs[i] for i in order]
    s["budget_steps"] = f"{int(rb[0].meta.get('budget_steps', 0)):,}" if rb else "n/a"
    s["budget_epochs"] = ", ".join(f"B = {b}: {r.record.epochs_run} epochs" for b, r in zip(Bs, rb))
    meds = {}
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        med = _medians(rb, m)
        meds[short] = med
        best = _best(Bs, med)
        s[f"best_{short}"] = str(best) if best is not None else "n/a"
        best_in_range(s, f"best_{short}_verdict", intervals_of(rb, "batch_size", m), paper_best)
        s[f"budget_{short}"] = ", ".join(f"B = {b}: {fmt(v)}" for b, v in zip(Bs, med))
    iqrs = [iqr(r.metric("err_u_p")) for r in rb]
    s["budget_up_iqr"] = ", ".join(f"B = {b}: {fmt(v, '.2g')}" for b, v in zip(Bs, iqrs))
    if 10 in Bs and all(b in Bs for b in paper_best):
        spreads = {b: spread_interval(rb[Bs.index(b)].metric("err_u_p")) for b in (10, *paper_best)}
        s.compare("small_variable_verdict", highest_at(spreads, 10), {f"IQR, B = {b}": iv for b, iv in spreads.items()})
    else:
        s.judge("small_variable_verdict", None)
    if Bs and all(b in Bs for b in paper_best):
        big = Bs[-1]
        ivs = intervals_of(rb, "batch_size", "err_u_p")
        ref = best_of(ivs, list(paper_best))
        s["largest"] = str(big)
        s.compare("large_worse_verdict", expect(ivs[big], ivs[ref], 1) if ref is not None else Verdict.UNDECIDED,
                  {f"B = {big}": ivs[big], f"B = {ref}": ivs.get(ref)})
    else:
        s["largest"] = "n/a"
        s.judge("large_worse_verdict", None)
    s["failures"] = failures_sentence(rb, lambda r: f"B = {meta_value(r, 'batch_size'):g}")
    return s


def glue_summary(prefix: str, summary: dict):
    """Glue every entry of a summary as text under ``prefix_key``."""
    for k, v in summary.items():
        glue(f"{prefix}_{k}", str(v))


# ----------------------------------------------------------------------------- Supporting Material
def compare_configurations(here: dict, reference: dict, expect_lower: bool, defaults: dict) -> tuple[str, dict]:
    """Markdown table comparing, per study, the errors at the paper's default setting
    (``defaults``: study -> its default point) in this configuration with those in a
    reference configuration; returns (table, verdicts)."""
    rows = ["| study | setting | median $u_\\theta$ error here | reference | median $u_\\mathrm{p}$ error here "
            "| reference | IQR of $u_\\mathrm{p}$ error here | reference |", "|---" * 8 + "|"]
    lower, narrower = [], []
    for study, res_here in here.items():
        res_ref = reference.get(study)
        sel = defaults[study]
        a = find(res_here, **sel) if res_here else None
        b = find(res_ref, **sel) if res_ref else None
        if a is None or b is None:
            continue
        label = ", ".join(f"{k} = {value_label(v)}" for k, v in sel.items())
        th = (median(a.metric("err_u_theta")), median(b.metric("err_u_theta")))
        up = (median(a.metric("err_u_p")), median(b.metric("err_u_p")))
        iq = (iqr(a.metric("err_u_p")), iqr(b.metric("err_u_p")))
        rows.append(f"| {study.replace('_', ' ')} | {label} | {fmt(th[0])} | {fmt(th[1])} | {fmt(up[0])} | "
                    f"{fmt(up[1])} | {fmt(iq[0], '.2g')} | {fmt(iq[1], '.2g')} |")
        v_med, v_iqr, _ = against_reference(a.metric("err_u_p"), b.metric("err_u_p"), expect_lower)
        lower.append(v_med)
        narrower.append(v_iqr)

    def words(vs):
        return (f"{vs.count(Verdict.AGREES)} of {len(vs)} (the other way in {vs.count(Verdict.DISAGREES)}, "
                f"cannot be distinguished in {vs.count(Verdict.INDISTINCT)})")
    verdict = {"n": len(lower), "errors_as_expected": words(lower), "spread_as_expected": words(narrower)}
    return "\n".join(rows), verdict


def against_reference(here, reference, expect_lower: bool) -> tuple[Verdict, Verdict, dict]:
    """A configuration's per-replicate errors against the reference configuration's at the
    same setting: (median, IQR) each lower (``expect_lower``) or higher as the paper expects,
    and the four intervals -- the one rule of the Supporting Material pages and of claim 11."""
    d = -1 if expect_lower else 1
    ivs = {"median here": median_interval(here), "median, reference": median_interval(reference),
           "IQR here": spread_interval(here), "IQR, reference": spread_interval(reference)}
    return (expect(ivs["median here"], ivs["median, reference"], d), expect(ivs["IQR here"], ivs["IQR, reference"], d),
            ivs)
