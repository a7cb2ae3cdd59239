"""Glue between the results and the notebooks: statistics, numbers in prose, summaries.

Numbers quoted in the book's prose are glued from the results (myst-nb ``glue``), never
typed by hand.  Where results are read from and whether a missing one may be trained is
the store's policy (``records.stores_for``, ``sweeps.load_or_run``).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..engine.metrics import median_iqr
from ..store.sweeps import reported
from .verdicts import Outcome, Summary, Verdict


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

# Criteria of the computed verdicts (glued into the prose with the numbers they judge).
RISE_THRESHOLD = 0.10        # a final validation loss this much above its minimum counts as a late rise
LATE_DROP_THRESHOLD = 0.05   # a fall this large over the last quarter of training: not converged
THETA_OK = 0.10              # u_theta "matches" the latent solution: median relative L2 error at most this
OPERATOR_OK = 0.10           # an operator is "recovered": median relative error over the observed range at most this
FACTOR = 2.0                 # "large" / "poor": a median error more than this times the reference error
NEAR_ZERO = 0.2              # "around / near zero": the lowest 20 % of the range of u
TREND_P = 0.05               # "grows with the noise": one-sided Spearman test of the errors against sigma^2
MIN_REPLICATES = 5           # fewer replicates per setting: a median and an IQR rest on one or two runs
INVERSE_LAW_R2 = 0.9         # T = a / B + c fits with at least this R^2 (and a > 0)


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


def _medians(results, metric, which=None):
    return np.array([median(r.metric(metric, which)) for r in results])


def _best(values, meds):
    """Value with the lowest finite median (None if none)."""
    meds = np.asarray(meds, float)
    if not np.isfinite(meds).any():
        return None
    return values[int(np.nanargmin(np.where(np.isfinite(meds), meds, np.inf)))]


def quartiles(values) -> tuple[float, float]:
    """(25th, 75th) percentile of the finite values (NaN, NaN if none)."""
    st = median_iqr(values)
    return st["q25"], st["q75"]


def clearly_above(a, b):
    """True if the interquartile range of ``a`` lies entirely above that of ``b`` (the
    stated tolerance for "larger": overlapping IQRs are within the spread), None if either
    has no finite value."""
    (a1, _), (_, b3) = quartiles(a), quartiles(b)
    return None if not np.isfinite([a1, b3]).all() else bool(a1 > b3)


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
    u = np.asarray(res["u_grid"], float)
    lo, hi = res.record.u_range
    obs = (u >= lo - 1e-12) & (u <= hi + 1e-12)
    inside = obs & (u >= band[0] - 1e-12) & (u <= band[1] + 1e-12)
    outside = obs & ~inside
    err = np.abs(np.asarray(res.net(f"op_{op}"), float) - np.asarray(res[f"true_op_{op}"], float)[None])
    with warnings.catch_warnings():  # a diverged replicate has NaN curves
        warnings.simplefilter("ignore", RuntimeWarning)
        f = lambda m: median(np.nanmean(err[:, m], axis=1)) if m.any() else np.nan  # noqa: E731
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
                 "theta_ok": fmt(THETA_OK, "g"), "factor": fmt(FACTOR, "g"), "near_pct": fmt(100 * NEAR_ZERO, "g"),
                 "near_u": fmt(near[1], ".2g"), "up_near": fmt(up_near), "up_rest": fmt(up_rest),
                 "theta_near": fmt(th_near), "theta_rest": fmt(th_rest)})
    s.judge("theta_verdict", bool(th <= THETA_OK) if np.isfinite(th) else None)
    s.judge("near_verdict", bool(up_near > FACTOR * th_near) if np.isfinite([up_near, th_near]).all() else None)
    s.judge("local_verdict", bool(up_near > up_rest) if np.isfinite([up_near, up_rest]).all() else None)
    for op in ("V", "G"):
        e_in, e_out = band_errors(res, op, near)
        s[f"{op}_near"], s[f"{op}_rest"] = fmt(e_in), fmt(e_out)
        s.judge(f"{op}_verdict", bool(e_in > e_out) if np.isfinite([e_in, e_out]).all() else None)
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
        rises = None if not np.isfinite(st["rise"]) else bool(st["rise"] > 1 + RISE_THRESHOLD)
        s.judge(f"rise_verdict_{tag}", rises, "rises", "does not rise")
    if len(archs) == 2:
        nz = [v for v in nvs if v > 0]
        for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
            a = _medians([find(results, noise_var=v, arch_u=archs[0]) for v in nz], m)
            b = _medians([find(results, noise_var=v, arch_u=archs[1]) for v in nz], m)
            s[f"{short}_small_wins"] = f"{int(np.sum(a < b))} of {len(nz)}"
            s.judge(f"{short}_small_wins_verdict", bool(np.sum(a < b) > len(nz) / 2) if nz else None)
        r0a, r0b = find(results, noise_var=0.0, arch_u=archs[0]), find(results, noise_var=0.0, arch_u=archs[1])
        if r0a is not None and r0b is not None:
            ma, mb = median(r0a.metric("err_u_theta")), median(r0b.metric("err_u_theta"))
            s["clean_theta_a"], s["clean_theta_b"] = fmt(ma), fmt(mb)
            s.judge("clean_large_wins", bool(mb < ma) if np.isfinite([ma, mb]).all() else None)
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
        s.judge(f"best_{short}_verdict", None if best is None else any(np.isclose(best, p) for p in paper_best))
    small, r_shown = rs[0], (find(rs, lr=shown) or rs[len(rs) // 2])
    cs, cm = curve_stats(small), curve_stats(r_shown)
    s["late_pct"] = fmt(100 * LATE_DROP_THRESHOLD, "g")
    s["smallest"] = value_label(rates[0])
    s["shown"] = value_label(meta_value(r_shown, "lr"))
    s["late_drop_small"] = fmt(100 * cs["late_drop"], ".2g")
    s["late_drop_shown"] = fmt(100 * cm["late_drop"], ".2g")
    s.judge("small_still_falling",
            None if not np.isfinite(cs["late_drop"]) else bool(cs["late_drop"] > LATE_DROP_THRESHOLD),
            "is still falling", "has levelled off")
    s["small_up"] = fmt(median(small.metric("err_u_p")))
    s["small_theta"] = fmt(median(small.metric("err_u_theta")))
    big = [r for r, v in zip(rs, rates) if v >= unstable_from]
    s["large_rates"] = ", ".join(value_label(meta_value(r, "lr")) for r in big) or "none"
    rough_big = [curve_stats(r)["roughness"] for r in big]
    s["rough_shown"] = fmt(cm["roughness"], ".2g")
    s["rough_large"] = ", ".join(fmt(v, ".2g") for v in rough_big) or "n/a"
    s["large_up"] = ", ".join(fmt(median(r.metric("err_u_p"))) for r in big) or "n/a"
    s["large_theta"] = ", ".join(fmt(median(r.metric("err_u_theta"))) for r in big) or "n/a"
    s["shown_up"] = fmt(median(r_shown.metric("err_u_p")))
    s["shown_theta"] = fmt(median(r_shown.metric("err_u_theta")))
    # a large rate whose every run failed counts as worse; if the shown rate's runs all failed,
    # there is nothing to compare with: undecided
    worse, shown_up = [median(r.metric("err_u_p")) for r in big], median(r_shown.metric("err_u_p"))
    s.judge("large_worse_verdict", None if not big or not np.isfinite(shown_up) else
                                   bool(all((not np.isfinite(w)) or w > shown_up for w in worse)))
    s["failures"] = failures_sentence(rs, lambda r: f"r = {value_label(meta_value(r, 'lr'))}")
    return s


def loss_weight_summary(results, paper_best, low, high, factor=FACTOR) -> Summary:
    """Fig. 4: errors and weighted loss balance against w_PDE; the best weight against the
    paper's range ``paper_best`` (the study gives it)."""
    ws = [meta_value(r, "w_pde") for r in results]
    order = np.argsort(ws)
    rs = [results[i] for i in order]
    ws = [ws[i] for i in order]
    s = Summary()
    mins = {}
    for m, short in (("err_u_theta", "theta"), ("err_u_p", "up")):
        meds = _medians(rs, m)
        best = _best(ws, meds)
        mins[short] = np.nanmin(meds) if np.isfinite(meds).any() else np.nan
        s[f"best_{short}"] = value_label(best) if best is not None else "n/a"
        s[f"best_{short}_err"] = fmt(mins[short])
        s.judge(f"best_{short}_verdict", None if best is None else bool(paper_best[0] * (1 - 1e-9) <= best
                                                                        <= paper_best[1] * (1 + 1e-9)))
    rl, rh = find(rs, w_pde=low), find(rs, w_pde=high)
    for tag, r in (("low", rl), ("high", rh)):
        th = median(r.metric("err_u_theta")) if r is not None else np.nan
        up = median(r.metric("err_u_p")) if r is not None else np.nan
        s[f"{tag}_theta"], s[f"{tag}_up"] = fmt(th), fmt(up)
        s[f"{tag}_theta_ratio"] = fmt(th / mins["theta"], ".2g") if np.isfinite(th) else "n/a"
        s[f"{tag}_up_ratio"] = fmt(up / mins["up"], ".2g") if np.isfinite(up) else "n/a"
    if rl is not None:
        th, up = median(rl.metric("err_u_theta")), median(rl.metric("err_u_p"))
        s.judge("low_verdict", bool(th <= factor * mins["theta"] and up > factor * mins["up"])
                               if np.isfinite([th, up]).all() else None)
        wd, wp = rl.record.config.w_data, rl.record.config.w_pde
        with np.errstate(all="ignore"):
            ld = np.nanmedian(np.asarray(rl["hist_val_data"], float) * wd, axis=0)
            lp = np.nanmedian(np.asarray(rl["hist_val_pde"], float) * wp, axis=0)
            gap = np.log10(ld / lp)
        gap = gap[np.isfinite(gap)]
        s["low_gap_min"] = fmt(gap.min(), ".2g") if gap.size else "n/a"
        s["low_gap_final"] = fmt(gap[-1], ".2g") if gap.size else "n/a"
        s.judge("low_gap_verdict", bool(gap.min() > 3) if gap.size else None)
    else:
        s.update(low_gap_min="n/a", low_gap_final="n/a")
        s.judge("low_verdict", None)
        s.judge("low_gap_verdict", None)
    if rh is not None:
        th, up = median(rh.metric("err_u_theta")), median(rh.metric("err_u_p"))
        s.judge("high_verdict", bool(th > factor * mins["theta"] and up > factor * mins["up"])
                                if np.isfinite([th, up]).all() else None)
    else:
        s.judge("high_verdict", None)
    s["low"], s["high"], s["factor"] = value_label(low), value_label(high), fmt(factor, "g")
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
    s["tolerance"] = "interquartile ranges of the per-replicate errors that do not overlap"
    # "(1, 1) the worst": no other equal-size network clearly worse, and (1, 1) clearly worse
    # than at least one; undecided when its errors overlap with every other's
    errs = [r.metric(up_metric) if r is not None else np.array([np.nan]) for r in diag]
    worse_than = [clearly_above(errs[0], e) for e in errs[1:]]
    beaten_by = [clearly_above(e, errs[0]) for e in errs[1:]]
    if any(b for b in beaten_by):
        s.judge("smallest_worst", False)
    elif any(w for w in worse_than):
        s.judge("smallest_worst", True)
    else:
        s.judge("smallest_worst", None)
    s["smallest_clearly_worse_than"] = ", ".join(arch_label(a) for a, w in zip(archs[1:], worse_than) if w) or "none"
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
        better = clearly_above(r44.metric(up_metric), r432.metric(up_metric))
        s.judge("saturates_verdict", None if better is None else not better)
        d44, d432 = r44.operator_error("D"), r432.operator_error("D")
        s.judge("D_worse_verdict", bool(median(d432) > median(d44) and iqr(d432) > iqr(d44))
                                   if np.isfinite([median(d44), median(d432)]).all() else None)
    else:
        s.judge("saturates_verdict", None)
        s.judge("D_worse_verdict", None)
    s["failures"] = failures_sentence(results, lambda r: f"D {arch_label(meta_value(r, 'arch_D'))} "
                                                         f"V {arch_label(meta_value(r, 'arch_V'))}")
    return s


def wall_time_fit(fixed) -> dict:
    """Per-replicate wall-clock time of the fixed-epoch batch-size runs and a fit T = a / B + c.

    B is the batch size actually used (a batch larger than the training set is clipped).
    The replicates of a setting train together as one batched model, so the time of one
    replicate is the setting's time divided by its number of replicates.  The time is the
    steady-state training time (first epoch, which compiles the kernels, excluded and
    extrapolated) where recorded, else the wall time.
    """
    from scipy.optimize import curve_fit
    B = np.array([r.record.batch_size_used for r in fixed], float)
    B_req = np.array([r.record.config.batch_size for r in fixed], float)
    T = np.array([(r.record.wall_time_s if r.record.steady_time_s is None else r.record.steady_time_s)
                  / r.record.replicates for r in fixed], float)
    steps = np.array([r.record.epochs_run * r.record.steps_per_epoch for r in fixed], float)
    order = np.argsort(B)
    B, B_req, T, steps = B[order], B_req[order], T[order], steps[order]
    out = dict(B=B, B_requested=B_req, T=T, steps=steps, per_step_ms=1e3 * T / steps,
               a=np.nan, c=np.nan, r2=np.nan)
    if len(B) >= 2 and np.all(np.isfinite(T)):
        f = lambda b, a, c: a / b + c  # noqa: E731
        try:
            (a, c), _ = curve_fit(f, B, T, p0=(T[0] * B[0], 0.0))
            pred = f(B, a, c)
            ss = np.sum((T - T.mean()) ** 2)
            out.update(a=float(a), c=float(c), r2=float(1 - np.sum((T - pred) ** 2) / ss) if ss > 0 else np.nan)
        except RuntimeError:
            pass
    return out


def batch_size_summary(fixed, budget, paper_best) -> Summary:
    """Fig. 6: wall time against B, errors after a fixed budget of optimiser steps; the best
    batch sizes against the paper's ``paper_best`` (the study gives them)."""
    fit = wall_time_fit(fixed)
    s = Summary({"fit_a": fmt(fit["a"]), "fit_c": fmt(fit["c"]), "fit_r2": fmt(fit["r2"], ".3f"),
                 "times": ", ".join(f"B = {int(b)}: {fmt(t)} s" for b, t in zip(fit["B_requested"], fit["T"])),
                 "per_step": ", ".join(f"B = {int(b)}: {fmt(t, '.2g')} ms" for b, t in zip(fit["B_requested"],
                                                                                           fit["per_step_ms"]))})
    s["r2_min"] = fmt(INVERSE_LAW_R2, "g")
    inv = None if not np.isfinite(fit["r2"]) else bool(fit["r2"] > INVERSE_LAW_R2 and fit["a"] > 0)
    s.judge("inverse_verdict", inv)
    if np.isfinite(fit["c"]) and np.isfinite(fit["a"]) and len(fit["B"]):
        s["c_share"] = fmt(100 * fit["c"] / fit["T"][-1], ".2g")
    else:
        s["c_share"] = "n/a"
    clipped = [r for r in fixed if r.record.batch_size_used != r.record.config.batch_size]
    s["clipped"] = ("; ".join(f"B = {r.record.config.batch_size} ran as full-batch training with "
                              f"B = {r.record.batch_size_used}" for r in clipped) or "no batch size was clipped")
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
        s.judge(f"best_{short}_verdict", None if best is None else best in paper_best)
        s[f"budget_{short}"] = ", ".join(f"B = {b}: {fmt(v)}" for b, v in zip(Bs, med))
    iqrs = [iqr(r.metric("err_u_p")) for r in rb]
    s["budget_up_iqr"] = ", ".join(f"B = {b}: {fmt(v, '.2g')}" for b, v in zip(Bs, iqrs))
    if 10 in Bs and all(b in Bs for b in paper_best):
        i10 = Bs.index(10)
        mid = [iqrs[Bs.index(b)] for b in paper_best]
        s.judge("small_variable_verdict", bool(iqrs[i10] > max(mid)) if np.isfinite([iqrs[i10], *mid]).all()
                                          else None)
    else:
        s.judge("small_variable_verdict", None)
    if Bs and all(b in Bs for b in paper_best):
        big = Bs[-1]
        mb = meds["up"][Bs.index(big)]
        mm = min(meds["up"][Bs.index(b)] for b in paper_best)
        s["largest"] = str(big)
        s.judge("large_worse_verdict", bool(mb > mm) if np.isfinite([mb, mm]).all() else None)
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
        if np.isfinite(up).all():
            lower.append((up[0] < up[1]) == expect_lower)
        if np.isfinite(iq).all():
            narrower.append((iq[0] < iq[1]) == expect_lower)
    verdict = {"n": len(lower), "errors_as_expected": f"{sum(lower)} of {len(lower)}",
               "spread_as_expected": f"{sum(narrower)} of {len(narrower)}"}
    return "\n".join(rows), verdict
