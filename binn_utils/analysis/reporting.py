"""Glue between the results and the notebooks: statistics, numbers in prose, summaries.

Numbers quoted in the book's prose are glued from the results (myst-nb ``glue``), never typed
by hand.  Where results are read from and whether a missing one may be trained is the store's
policy (``stores.stores_for``, ``loading.load_or_run``)."""
from __future__ import annotations

import warnings

import numpy as np

from ..engine.metrics import median_iqr
from ..store.sweep_record import reported
from .verdicts import Outcome, median_interval


def med_iqr(values) -> str:
    """'median [q25, q75]' of the finite values, with the count of failures if any."""
    st = median_iqr(values)
    if st["n"] == st["n_failed"]:
        return "all failed"
    failed = f" ({st['n_failed']} failed)" if st["n_failed"] else ""
    return f"{st['median']:.3g} [{st['q25']:.3g}, {st['q75']:.3g}]{failed}"


def median(values) -> float:
    """The median of the finite values (NaN if none)."""
    return median_iqr(values)["median"]


def iqr(values) -> float:
    """The interquartile range of the finite values (NaN if none)."""
    return (st := median_iqr(values))["q75"] - st["q25"]


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
        return (("the paper's scale" if scale == "paper" else f"the {scale} scale") + ", "
                + run_description(res, epochs, noise, device))
    grid = "351 x" if rec.dense else "71 x"
    return ((f"{rec.config.epochs} epochs, " if epochs else "") + replicates_words(res) + ", "
            + (f"noise variance {rec.noise_var:g}, " if noise else "")
            + f"{grid} {len(res['t'])} observation grid" + (f", trained {trained_on(rec)}" if device else ""))


def replicates_words(res) -> str:
    """A stored setting's replicates: '100 replicates (10 datasets x 10 initialisations)'."""
    rec = res.record
    n_ds = len(set(rec.datasets))
    return (f"{rec.replicates} replicates ({n_ds} dataset{'s' if n_ds > 1 else ''} x "
            f"{rec.replicates // n_ds} initialisations)")


def change_words(fall, spec: str = ".2g") -> str:
    """A relative fall (``fall``: a fraction, positive when a loss went down) as a verb phrase:
    'fell by 12 %', 'rose by 2.1 %' (a negative fall), 'did not change'; 'n/a' where undefined."""
    if fall is None or not np.isfinite(fall):
        return "n/a"
    if fall == 0:
        return "did not change"
    return f"{'fell' if fall > 0 else 'rose'} by {fmt(100 * abs(fall), spec)} %"


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
    """Markdown table: median [IQR] errors of u_theta and u_p per setting, failed solves of u_p
    and diverged trainings.

    ``which`` networks are reported; the median u_p error of the ``beside`` networks (the
    final ones, by default) is shown in a column of its own (None: no such column).  A count
    that is zero in every row is not a column: one sentence under the table says so, with the
    number of networks (:func:`no_failures_sentence`); any non-zero count keeps its column."""
    which = which or reported()
    beside = None if beside == which else beside
    head = ["setting", "relative $L^2$ error of $u_\\theta$, median [interquartile range]",
            "relative $L^2$ error of $u_\\mathrm{p}$, median [interquartile range]"]
    head += [f"median $u_\\mathrm{{p}}$ error, {beside} networks"] if beside else []
    rows, failed, diverged, networks = [], [], [], 0
    for r in results:
        st = r.up_status(which)
        failed.append(f"{sum(s != 'ok' for s in st)}/{len(st)}")
        diverged.append(str(sum(s != "ok" for s in r.record.status)))
        networks += len(st)
        rows.append([label_fn(r) if label_fn else r.setting.label, med_iqr(r.metric("err_u_theta", which)),
                     med_iqr(r.metric("err_u_p", which))]
                    + ([fmt(median(r.metric("err_u_p", beside)))] if beside else []))
    any_failed = any(not f.startswith("0/") for f in failed)
    any_diverged = any(d != "0" for d in diverged)
    for shown, name, counts_ in ((any_failed, "failed solves of $u_\\mathrm{p}$", failed),
                                 (any_diverged, "diverged trainings", diverged)):
        if shown:
            head.append(name)
            rows = [row + [c] for row, c in zip(rows, counts_)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]
    read = "the networks of the lowest validation loss" if which == "best" else f"the {which} networks"
    notes = [f"The {beside} networks are those at the end of training; every other column, every figure and "
             f"every verdict read {read}." if beside == "final" else "",
             no_failures_sentence(not any_diverged, not any_failed, networks) if results else ""]
    return "\n".join(lines) + "".join(f"\n\n{n}" for n in notes if n)


def no_failures_sentence(none_diverged: bool, none_failed: bool, networks: int) -> str:
    """What a table without its columns of counts says once under it: 'No training diverged and
    every forward solve succeeded (70 networks).' ('' when both columns are shown)."""
    said = (["no training diverged"] if none_diverged else []) + (["every forward solve succeeded"] if none_failed else [])
    if not said:
        return ""
    text = " and ".join(said)
    return f"{text[0].upper()}{text[1:]} ({networks} networks)."


# ----------------------------------------------------------------------------- numbers in words
# The helpers of each study's summary (``studies.<name>.summary``: its numbers for the
# "Verdict" prose, as strings to glue, which the chapters and the Supporting Material glue
# under different prefixes).  A comparison with the paper is computed, never typed.
#: below this a p-value is written as "< P_FLOOR": more digits claim a precision no model of the runs has
P_FLOOR = 1e-4


def fmt_p(p, relation: bool = False) -> str:
    """A p-value as prose writes it: two significant figures, or '< 0.0001' below :data:`P_FLOOR`
    (``relation``: with '= ' before a value, for "$p$ = 0.012" beside "$p$ < 0.0001")."""
    if p is not None and np.isfinite(p) and p < P_FLOOR:
        return f"< {P_FLOOR:.4f}"
    return ("= " if relation else "") + fmt(p, ".2g")


def fmt(v, spec: str = ".3g", *, plain_from: float | None = None, figures: int | None = None,
        literal: bool = False) -> str:
    """A number as text: the package's one number formatter.

    For prose (the default): ``spec`` (a format spec; one ending in "d" rounds to an
    integer), 'n/a' for None, NaN or infinity (e.g. every replicate failed), anything that
    is not a number as ``str``.  ``plain_from``: values at least this large as plain rounded
    numbers (1,234 not 1.23e+03), rounded first to ``figures`` significant figures where
    given (``fmt(5867.9, plain_from=1000, figures=3)``: 5,870).  ``literal`` (the diagnostics'
    tables and messages): the value as it is where prose would say 'n/a' or round: yes/no for a bool, an integer in
    full, 'nan', 'inf' or '-inf', a tuple or list element by element, None as 'None'."""
    if literal:
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (tuple, list)):
            return "(" + ", ".join(fmt(x, spec, literal=True) for x in v) + ")"
        if not isinstance(v, (float, np.floating)):
            return str(v)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    if v is None:
        return "n/a"
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not np.isfinite(v):
        return "n/a"
    if plain_from is not None and abs(v) >= plain_from:
        if figures is not None and v != 0:
            v = round(v, figures - 1 - int(np.floor(np.log10(abs(v)))))
        return f"{v:,.0f}"
    return format(int(round(v)), spec) if spec.endswith("d") else format(v, spec)


def word(flag, yes: str = "agrees", no: str = "disagrees", undecided: str = "cannot be decided") -> str:
    return undecided if flag is None else (yes if flag else no)


def and_list(items) -> str:
    """Items in words: "a", "a and b", "a, b and c" ("" for none)."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def table_cell(s) -> str:
    """``s`` in a cell of a markdown pipe table: on one line, its pipes (as in '|D|') escaped."""
    return str(s).replace("|", "\\|").replace("\n", " ")


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
    return res.record.failures(reported())


def failures_sentence(results, label_fn) -> str:
    """The settings' failures as one sentence: e.g. 'Diverged trainings and failed forward solves:
    r = 5e-1: 3 of 10 trainings diverged, 2 of 10 forward solves failed.', or where there are none
    the sentence a table without its columns of counts says (:func:`no_failures_sentence`)."""
    parts, networks = [], 0
    for r in results:
        c = counts(r)
        networks += c["replicates"]
        bits = []
        if c["diverged"]:
            bits.append(f"{c['diverged']} of {c['replicates']} trainings diverged")
        if c["up_failed"]:
            bits.append(f"{c['up_failed']} of {c['replicates']} forward solves failed")
        if bits:
            parts.append(f"{label_fn(r)}: {', '.join(bits)}")
    if not parts:
        return no_failures_sentence(True, True, networks)
    return f"Diverged trainings and failed forward solves: {'; '.join(parts)}."


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
    out.update(min_epoch=int(ep[i_min]), rise=float(med[-1] / med[i_min]), final=float(med[-1]),
               late_drop=float((med[q] - med[-1]) / med[q]) if med[q] > 0 else np.nan,
               roughness=_roughness(med), epochs=int(ep[-1]))
    return out


def _roughness(curve) -> float:
    """Median |change of log10| of a loss curve between consecutive recorded epochs in its
    second half (its positive finite values); NaN with fewer than two."""
    half = np.asarray(curve, float)[len(curve) // 2:]
    lg = np.log10(half[np.isfinite(half) & (half > 0)])
    return float(np.median(np.abs(np.diff(lg)))) if lg.size > 1 else np.nan


def roughness_replicates(res, key="hist_val_total") -> np.ndarray:
    """Per replicate, the roughness ``curve_stats`` measures on the median curve, on that
    replicate's own curve; +inf for a replicate whose loss became non-finite (its training
    diverged)."""
    c = np.atleast_2d(np.asarray(res[key], float))
    return np.array([_roughness(row) if np.isfinite(row).all() else np.inf for row in c])


def excursion_replicates(res, key="hist_val_total") -> np.ndarray:
    """Per replicate, the largest rise of its validation loss above the lowest value it had
    reached so far, in decades (max over the recorded epochs of log10 loss minus its running
    minimum: 0 for a loss that never went up); +inf for a replicate whose loss became
    non-finite (its training diverged)."""
    c = np.atleast_2d(np.asarray(res[key], float))
    with np.errstate(all="ignore"):
        lg = np.log10(c)
        exc = np.max(lg - np.minimum.accumulate(lg, axis=1), axis=1)
    return np.where(np.isfinite(c).all(axis=1) & (c > 0).all(axis=1), exc, np.inf)


def intervals_of(results, key, metric, interval=median_interval) -> dict:
    """{swept value ``key``: ``interval`` of ``metric`` over its replicates}."""
    return {meta_value(r, key): interval(r.metric(metric), of=r) for r in results}


def medians(results, metric, which=None):
    """The median of ``metric`` of each result (NaN where none is finite)."""
    return np.array([median(r.metric(metric, which)) for r in results])


def lowest_median(values, meds):
    """Value with the lowest finite median (None if none)."""
    meds = np.asarray(meds, float)
    if not np.isfinite(meds).any():
        return None
    return values[int(np.nanargmin(np.where(np.isfinite(meds), meds, np.inf)))]


def rank_trend(levels, values, datasets=None):
    """(rho, one-sided p: increasing) of per-replicate ``values`` against their ``levels``; NaN
    if undefined.  On one dataset (``datasets`` None or one label): Spearman's rank correlation
    and its p-value, which speaks of that dataset only.  On several, the dataset is the unit
    (its replicates at every level share its data, so they are not independent draws): rho is
    the mean of each dataset's Spearman correlation, p the one-sided Student t test of those
    correlations over the datasets (on Fisher's z = artanh(rho), whose spread is closer to
    normal than that of correlations near 1)."""
    from scipy.stats import spearmanr, ttest_1samp
    x, y = np.asarray(levels, float), np.asarray(values, float)
    g = np.zeros(x.size) if datasets is None else np.asarray(datasets)
    ok = np.isfinite(x) & np.isfinite(y)
    rhos = []
    for d in np.unique(g[ok]):
        sel = ok & (g == d)
        if sel.sum() >= 3 and np.unique(x[sel]).size >= 2 and np.unique(y[sel]).size >= 2:
            rhos.append(spearmanr(x[sel], y[sel], alternative="greater"))
    if not rhos:
        return float("nan"), float("nan")
    if len(rhos) == 1:
        return float(rhos[0].statistic), float(rhos[0].pvalue)
    r = np.array([res.statistic for res in rhos], float)
    if np.ptp(r) == 0:                                   # every dataset the same correlation
        return float(r[0]), 0.0 if r[0] > 0 else 1.0
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    return float(r.mean()), float(ttest_1samp(z, 0.0, alternative="greater").pvalue)


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


def band_spread(res, op, band) -> float:
    """The half-width of the band the paper's Fig. 2 (left) draws around the mean learned ``op``
    over ``band`` (a u interval): per dataset, the s.d. of its initialisations' curves relative to
    the true operator, mean over the band; the median over the datasets (NaN where no dataset has
    two finite curves there)."""
    u = np.asarray(res["u_grid"], float)
    inb = (u >= band[0]) & (u <= band[1])          # the points the deviation from the truth is taken over
    curves = np.asarray(res.net(f"op_{op}"), float)
    truth = np.abs(np.broadcast_to(np.asarray(res[f"true_op_{op}"], float), curves.shape[1:]))[inb]
    ds = getattr(getattr(res, "setting", None), "datasets", None)
    ds = np.zeros(len(curves), int) if ds is None else np.asarray(ds)
    spreads = []
    for d in np.unique(ds):
        c = curves[ds == d][:, inb]
        c = c[np.isfinite(c).all(axis=1)]
        if len(c) > 1 and inb.any():
            spreads.append(float(np.mean(c.std(axis=0) / truth)))
    return float(np.median(spreads)) if spreads else float("nan")


def operator_dispersion(res, op, u_range=None) -> np.ndarray:
    """Per replicate, how far its learned ``op`` lies from the median curve of its dataset's
    initialisations: the mean |learned - median| over the observed range of u (or over
    ``u_range``, e.g. the range two configurations share), relative to the mean |median| there.
    The variability between initialisations as one number per network (NaN for a replicate
    with no finite curve, or where the range holds no grid point)."""
    u = np.asarray(res["u_grid"], float)
    lo, hi = res.record.u_range if u_range is None else u_range
    keep = (u >= lo - 1e-12) & (u <= hi + 1e-12)
    curves = np.asarray(res.net(f"op_{op}"), float)[:, keep]
    out = np.full(len(curves), np.nan)
    if not keep.any():
        return out
    datasets = np.asarray(res.setting.datasets) if getattr(res, "setting", None) is not None else np.zeros(len(curves))
    with warnings.catch_warnings():  # a diverged replicate has NaN curves
        warnings.simplefilter("ignore", RuntimeWarning)
        for d in np.unique(datasets):
            rows = np.flatnonzero(datasets == d)
            ok = rows[np.isfinite(curves[rows]).all(axis=1)]
            if not ok.size:
                continue
            centre = np.median(curves[ok], axis=0)
            out[ok] = np.mean(np.abs(curves[ok] - centre), axis=1) / max(np.mean(np.abs(centre)), np.finfo(float).tiny)
    return out


#: the verdicts glued on this page so far: glue name -> {"test": the scorecard's test it repeats (None:
#: none), "part": whether it is one part of that test's sentence}; ``verdict_marks.record_html`` writes
#: it into the page for the built book's test (the glued words themselves are plain text)
PRINTED: dict[str, dict] = {}


def glue_verdict(name: str, words: str, test: str | None):
    """Glue one verdict's ``words`` as text under ``name`` and note in :data:`PRINTED` the
    scorecard's ``test`` it repeats (``verdicts.subclaim_id``; None: none)."""
    glue(name, words)
    PRINTED[name] = {"test": test, "part": False}


def glue_summary(prefix: str, summary: dict):
    """Glue every entry of a summary as text under ``prefix_key``, and note its verdicts in
    :data:`PRINTED` (with the tests a held summary repeats, ``Summary.tests``)."""
    for k, v in summary.items():
        glue(f"{prefix}_{k}", str(v))
    for k in getattr(summary, "verdicts", {}):
        for name in (k, f"{k}_with_paper"):
            PRINTED[f"{prefix}_{name}"] = {"test": summary.tests.get(k), "part": k in summary.parts}


# ----------------------------------------------------------------------------- Supporting Material


