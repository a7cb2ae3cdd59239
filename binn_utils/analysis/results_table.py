"""A study's stored results as one tidy table: one row per trained network.

:func:`table` turns a list of loaded results (``loading.SettingResult``) into a
``pandas.DataFrame`` with a row per network (per replicate and checkpoint) and these columns:

* ``source`` ("ours"), ``study``, ``setting`` (the setting's label);
* the study's swept values, one column per ``Setting.meta`` key (``lr``, ``w_pde``,
  ``arch_D`` / ``arch_V`` as ``(h, n)`` tuples, ``batch_size``, ...);
* ``noise_var``, ``grid`` (spatial points: 71, or 351 for the dense data), ``dataset``,
  ``seed``, ``replicate`` (its index in the setting), ``epochs``;
* ``checkpoint`` (which networks the errors are of: "best", the lowest validation loss,
  or "final"), ``norm`` (of the u errors: "frobenius" or "spectral");
* ``err_u_theta``, ``err_u_p`` and one ``err_<op>`` per learned operator (relative errors;
  NaN where undefined: a failed forward solve, or an operator error in the spectral norm);
* ``status`` (the training: "ok" or why it stopped) and ``up_status`` (the forward solve).

:func:`authors_table` gives the authors' archived runs (:mod:`binn_utils.analysis.authors_archive`)
in the same columns with ``source = "authors"``; :func:`against_datasets` asks whether the
authors' runs lie where one more dataset of ours would put them (their median of a setting:
:func:`one_more_dataset`; their single run: :func:`one_more_run`).  pandas is the scientific
Python ecosystem's usual table library; groupby / median is the whole computation a
chapter shows.
"""
from __future__ import annotations

import functools

import warnings

import numpy as np
import pandas as pd

from ..store.sweep_record import CHECKPOINTS, reported
from . import authors_archive
from .contrasts import t_quantile

#: Spatial points of the sparse and the dense data.
GRIDS = {False: 71, True: 351}
NORMS = ("frobenius", "spectral")
#: The relative errors of the u fields: stored (Frobenius) and derived (spectral) names.
U_ERRORS = {"frobenius": {"err_u_theta": "err_u_theta", "err_u_p": "err_u_p"},
            "spectral": {"err_u_theta": "err_u_theta_spectral", "err_u_p": "err_u_p_spectral"}}
OPERATORS = ("D", "G", "V")
ERRORS = ("err_u_theta", "err_u_p") + tuple(f"err_{op}" for op in OPERATORS)
#: Columns before the study's swept values, and after them.
HEAD = ("source", "study", "setting")
TAIL = ("noise_var", "grid", "data", "dataset", "seed", "replicate", "epochs", "checkpoint", "norm") + ERRORS \
    + ("status", "up_status")
#: Interval of :func:`ratio_interval`: a seeded percentile bootstrap of the ratio of medians.
BOOTSTRAP_SEED = 0
BOOTSTRAP_DRAWS = 4000
LEVEL = 0.95


def _meta_value(v):
    return tuple(v) if isinstance(v, list) else v


def _checkpoints(checkpoints) -> tuple:
    if checkpoints == "reported":
        return (reported(),)
    if checkpoints == "both":
        return CHECKPOINTS
    bad = [c for c in checkpoints if c not in CHECKPOINTS]
    if bad:
        raise ValueError(f"unknown checkpoint(s) {bad}; choose from {CHECKPOINTS}, 'reported' or 'both'")
    return tuple(checkpoints)


def _rows(res, which: str, norm: str) -> list[dict]:
    s = res.setting
    meta = {k: _meta_value(v) for k, v in s.meta.items()}
    errs = {col: res.metric(name, which) for col, name in U_ERRORS[norm].items()}
    for op in OPERATORS:
        stored = res.record.metrics[which].operator_errors
        errs[f"err_{op}"] = (res.operator_error(op, which) if op in stored and norm == "frobenius"
                             else np.full(len(s.seeds), np.nan))
    status, up_status = res.record.status, res.up_status(which)
    return [{"source": "ours", "study": s.study, "setting": s.label, **meta,
             "noise_var": float(s.noise_var), "grid": GRIDS[bool(s.dense)], "data": s.data, "dataset": int(d),
             "seed": int(sd),
             "replicate": i, "epochs": int(res.record.epochs_run), "checkpoint": which, "norm": norm,
             **{k: float(v[i]) for k, v in errs.items()}, "status": status[i], "up_status": up_status[i]}
            for i, (d, sd) in enumerate(zip(s.datasets, s.seeds))]


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    meta = [c for c in df.columns if c not in HEAD + TAIL]
    return df.reindex(columns=list(HEAD) + meta + list(TAIL))


def table(results, *, checkpoints="reported", norms=("frobenius",)) -> pd.DataFrame:
    """One row per trained network of ``results`` (loaded settings of one or more studies),
    per checkpoint and norm: ``checkpoints`` "reported" (the networks every figure of the
    book reads, ``sweep_record.reported()``), "both", or a tuple of ``sweep_record.CHECKPOINTS``;
    ``norms`` of the u errors (the spectral ones are computed from the stored fields)."""
    bad = [n for n in norms if n not in NORMS]
    if bad:
        raise ValueError(f"unknown norm(s) {bad}; choose from {NORMS}")
    rows = [row for res in results for which in _checkpoints(checkpoints) for norm in norms
            for row in _rows(res, which, norm)]
    return _frame(rows)


def curves(results) -> pd.DataFrame:
    """The curves a chapter's figure draws for each setting of ``results``, as the median and
    quartiles over its networks: the total validation loss at each recorded epoch, and each
    learned operator (the reported networks) at each u of its grid.  One row per setting,
    curve and point: the setting's columns of :func:`table`, ``curve`` ("validation loss" or
    "D", "V", "G"), ``x`` (the epoch or u), ``q25``, ``median``, ``q75``, ``networks``."""
    rows = []
    for res in results:
        s = res.setting
        head = {"study": s.study, "setting": s.label, **{k: _meta_value(v) for k, v in s.meta.items()},
                "noise_var": float(s.noise_var), "grid": GRIDS[bool(s.dense)], "data": s.data}
        drawn = [("validation loss", res["curve_epochs"], res["hist_val_total"])]
        drawn += [(op, res["u_grid"], res.net(f"op_{op}")) for op in OPERATORS if f"{reported()}_op_{op}" in res.arrays]
        for name, xs, values in drawn:
            v = np.asarray(values, float)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)        # a column where every network failed
                q25, med, q75 = np.nanpercentile(v, [25, 50, 75], axis=0)
            n = np.isfinite(v).sum(axis=0)
            rows += [{**head, "curve": name, "x": float(x), "q25": float(a), "median": float(m), "q75": float(b),
                      "networks": int(k)} for x, a, m, b, k in zip(xs, q25, med, q75, n)]
    return pd.DataFrame(rows)


def authors_table(study: str, noise_var: float, grid: int = 71, norm: str = "frobenius") -> pd.DataFrame:
    """The authors' archived runs of ``study`` at one noise level, grid and norm, in the
    columns of :func:`table` (``source = "authors"``, ``checkpoint = "best"``: their errors
    are of the best-validation networks; dataset, epochs and status are not recorded).  An
    empty table (same columns) where the archive has none."""
    if norm not in authors_archive.NORMS:
        raise ValueError(f"unknown norm {norm!r}; choose one of {authors_archive.NORMS}")
    cells: dict[tuple, dict] = {}
    for r in authors_archive.rows():
        if (r.study != study or r.grid != grid or r.norm != norm
                or not np.isclose(r.noise_var, noise_var, rtol=1e-9, atol=0.0)):
            continue
        key = (r.setting, r.replicate)
        if key not in cells:
            label = ";".join(f"{k}={v}" for k, v in r.setting)
            cells[key] = {"source": "authors", "study": study, "setting": label, **dict(r.setting),
                          "noise_var": float(r.noise_var), "grid": r.grid, "data": "authors", "dataset": pd.NA,
                          "seed": r.replicate,
                          "replicate": r.replicate, "epochs": pd.NA, "checkpoint": "best", "norm": norm,
                          **{e: np.nan for e in ERRORS}, "status": pd.NA, "up_status": pd.NA}
        cells[key][r.quantity] = r.value
    if not cells:
        return _frame([]).astype({e: float for e in ERRORS})
    return _frame([cells[k] for k in sorted(cells, key=lambda k: (str(k[0]), k[1]))])


def median_interval(values, level: float = LEVEL, seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """(median, low, high) of the finite ``values``: the median and its seeded percentile
    bootstrap interval (NaN for no values; a single value is its own interval)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return (np.nan, np.nan, np.nan)
    draws = _boot_medians(v, np.random.default_rng(seed))
    lo, hi = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return (float(np.median(v)), float(lo), float(hi))


def _boot_medians(v: np.ndarray, rng) -> np.ndarray:
    return np.median(v[rng.integers(0, v.size, size=(BOOTSTRAP_DRAWS, v.size))], axis=1)


def ratio_interval(ours, theirs, level: float = LEVEL, seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """(ratio, low, high): the ratio of the medians of the finite ``ours`` and ``theirs``
    and its seeded percentile bootstrap interval, resampling each group's runs (with
    replacement) independently.  A group of one run contributes no spread, so the interval
    then reflects only the other group's.  NaNs where a group is empty."""
    a, b = (np.asarray(x, float) for x in (ours, theirs))
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size == 0 or b.size == 0:
        return (np.nan, np.nan, np.nan)
    rng = np.random.default_rng(seed)
    draws = _boot_medians(a, rng) / _boot_medians(b, rng)
    lo, hi = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return (float(np.median(a) / np.median(b)), float(lo), float(hi))


def long(df: pd.DataFrame, quantities=("err_u_theta", "err_u_p")) -> pd.DataFrame:
    """``df`` with one row per (network, quantity): the error in ``value``, its name in
    ``quantity`` (rows without a value, e.g. a quantity the archive lacks, are left out;
    failed forward solves stay, as NaN, to be counted)."""
    ids = [c for c in df.columns if c not in ERRORS]
    out = df.melt(id_vars=ids, value_vars=list(quantities), var_name="quantity", value_name="value")
    missing = out["value"].isna() & ~((out["source"] == "ours") & (out["quantity"] == "err_u_p"))
    return out[~missing].reset_index(drop=True)


@functools.lru_cache(maxsize=None)
def median_variance_factor(k: int) -> float:
    """``k`` times the variance of the median of ``k`` independent standard normals: how much
    more a median varies than a mean of the same ``k`` (1 for k = 1 and 2; 1.383 for k = 10;
    pi/2 as k grows), by numerical integration over the middle order statistics' density."""
    from math import erf, exp, factorial, pi, sqrt
    from scipy import integrate
    if k <= 2:
        return 1.0
    lim = 10.0

    def F(x):
        return 0.5 * (1 + erf(x / sqrt(2)))

    def pdf(x):
        return exp(-x * x / 2) / sqrt(2 * pi)
    if k % 2:                                   # the middle order statistic, i = (k + 1) / 2
        i = (k + 1) // 2
        c = factorial(k) / factorial(i - 1) ** 2
        var, _ = integrate.quad(lambda x: c * (F(x) * (1 - F(x))) ** (i - 1) * pdf(x) * x * x, -lim, lim)
    else:                                       # the mean of the two middle ones, i and i + 1
        i = k // 2
        c = factorial(k) / factorial(i - 1) ** 2
        var, _ = integrate.dblquad(lambda y, x: c * F(x) ** (i - 1) * (1 - F(y)) ** (i - 1) * pdf(x) * pdf(y)
                                   * ((x + y) / 2) ** 2, -lim, lim, lambda x: x, lambda x: lim)
    return float(k * var)


def one_more_dataset(log_medians, log_theirs: float, level: float = LEVEL,
                     theirs_datasets: int = 1) -> tuple[float, float, float, float]:
    """(ratio, range_lo, range_hi, p): is ``log_theirs`` (the log of a median over one dataset)
    one more draw of the S >= 2 dataset medians ``log_medians`` (logs)?  ``ratio`` = ours /
    theirs, ``exp(mean - log_theirs)``, the book's one direction; the range: the 95 % prediction
    interval of that ratio (symmetric on the log scale),
    ``exp(+-t_{S-1} sd sqrt(1/K + 1/S))``; ``p``: two-sided, Student's t with S - 1 degrees of
    freedom (:func:`against_datasets`).  ``theirs_datasets`` K: theirs a median of the runs of K
    datasets pooled (the printed Fig. 2: ten, errata 36).  It varies at most as the median of K
    datasets' effects does (where the datasets dominate; their initialisations, pooled, vary it
    less), so its variance is taken as ``sd^2 f_K / K`` (:func:`median_variance_factor`), and the
    range ``exp(+-t_{S-1} sd sqrt(f_K/K + 1/S))`` (validated on nested data in the tests);
    K = 1: one dataset's median."""
    from scipy import stats
    m = np.asarray(log_medians, float)
    n, centre, k = m.size, float(np.mean(m)), int(theirs_datasets)
    scale = float(np.std(m, ddof=1) * np.sqrt(median_variance_factor(k) / k + 1 / n))
    if scale > 0:
        p = float(2 * stats.t.sf(abs(log_theirs - centre) / scale, n - 1))
    else:                                          # every dataset gave the same median
        p = 1.0 if log_theirs == centre else 0.0
    half = t_quantile(level, n - 1) * scale
    return float(np.exp(centre - log_theirs)), float(np.exp(-half)), float(np.exp(half)), p


def one_more_run(log_runs, log_theirs: float, level: float = LEVEL) -> tuple[float, float, float, float]:
    """(ratio, range_lo, range_hi, p): is ``log_theirs`` (the log of a single run) one run of one
    more dataset of ours?  ``log_runs``: per dataset (S >= 3), the logs of its runs.  On the log
    scale a run is the overall mean + a dataset effect + an initialisation effect, so with ``m``
    the datasets' means, ``s_m^2`` their variance, ``w`` the pooled variance within datasets and
    ``R`` the harmonic mean of their sizes, a new run minus ``mean(m)`` has variance
    ``s_m^2 (1 + 1/S) + w (1 - 1/R)`` (both terms' expectations add up to it), referred to
    Student's t with Satterthwaite's degrees of freedom, capped at ``(S - 1)(1 + w-term /
    s_m-term)`` so that they fall to S - 1 where the datasets' part dominates (Satterthwaite's
    alone rejected 7.5 % of true nulls at S = 3 in simulation; capped: 4-6 % for S = 3 to 10,
    the tests); ``ratio`` = ours / theirs, ``exp(mean(m) - log_theirs)``, the range its prediction interval
    (:func:`against_datasets`, for the authors' single runs).  Needs S >= 3 (NaN otherwise)."""
    from scipy import stats
    runs = [np.asarray(r, float) for r in log_runs]
    m = np.array([r.mean() for r in runs])
    S, N = m.size, sum(r.size for r in runs)
    if S < 3:
        return (np.nan,) * 4
    R = S / sum(1 / r.size for r in runs)
    w = sum(((r - r.mean()) ** 2).sum() for r in runs) / (N - S) if N > S else 0.0
    parts = np.array([np.var(m, ddof=1) * (1 + 1 / S), w * (1 - 1 / R)])
    dfs = np.array([S - 1, max(N - S, 1)])
    var = float(parts.sum())
    df = min(var ** 2 / float(np.sum(parts ** 2 / dfs)), (S - 1) * (1 + parts[1] / parts[0])) if parts[0] > 0 else (
        dfs[1] if var > 0 else S - 1)
    centre = float(np.mean(m))
    if var > 0:
        p = float(2 * stats.t.sf(abs(log_theirs - centre) / np.sqrt(var), df))
    else:
        p = 1.0 if log_theirs == centre else 0.0
    half = float(stats.t.ppf(1 - (1 - level) / 2, df) * np.sqrt(var))
    return float(np.exp(centre - log_theirs)), float(np.exp(-half)), float(np.exp(half)), p


def against_datasets(ours: pd.DataFrame, theirs: pd.DataFrame, by, quantities=("err_u_theta", "err_u_p"),
                     level: float = LEVEL) -> pd.DataFrame:
    """Could the authors' runs have come from one more dataset of ours?  Per value of ``by``,
    quantity and norm: the median error of each of our datasets (``ours``: the ``dataset``
    column; each median over its initialisations) and the authors' median (their runs share one
    dataset: one split and noise draw).  With the same code and protocol their median is one more
    draw of a dataset's median, so on the log scale, with ``m`` our S dataset medians and ``L``
    theirs, ``(L - mean(m)) / (sd(m) sqrt(1 + 1/S))`` follows Student's t with S - 1 degrees of
    freedom (dataset medians normal on the log scale; validated on nested synthetic data in
    the tests: :func:`one_more_dataset`).  Columns: ``datasets`` (S), ``inits`` (our runs per
    dataset as trained, the most), ``failed`` (our runs without a positive finite value, a failed
    forward solve: left out of their dataset's median), ``median_ours`` (our typical dataset's
    median: ``exp(mean(m))``),
    ``median_authors``, ``n_authors``, ``ratio`` (our typical dataset / theirs: ``exp(mean(m) -
    L)``, the book's one direction), ``range_lo``, ``range_hi`` (the ratios that datasets and initialisations alone
    give: the prediction range, simultaneous over the table's rows at ``level`` by Bonferroni,
    each at ``1 - (1 - level) / rows``: what a difference had to exceed to be seen), ``p``
    (two-sided, unadjusted) and ``beyond`` (the ratio outside its range: p below
    ``(1 - level) / rows``).  Where the authors ran a setting once (Fig. 6's archive) their run
    is set against one run of one more dataset instead (:func:`one_more_run`, from three datasets;
    ``median_ours``: then our typical run, the exponential of the mean log error).  p is NaN
    (never beyond) below two datasets, and where the authors' runs per setting are neither one nor as many as ours per
    dataset were trained (a median of another number of runs varies otherwise: not one more
    draw of the same kind).  The authors'
    initialisations of a setting share one split (their scripts split once per process, before
    the settings' runs: ``data/authors_archive/DATASETS.md``) and one noise draw."""
    by = [by] if isinstance(by, str) else list(by)
    both = long(pd.concat([ours, theirs], ignore_index=True), quantities)
    both["quantity"] = pd.Categorical(both["quantity"], categories=list(quantities), ordered=True)
    cells = []
    for key, g in both.groupby(by + ["quantity", "norm"], sort=True, dropna=False, observed=True):
        mine = g[g["source"] == "ours"]
        ok = np.isfinite(mine["value"].to_numpy(float)) & (mine["value"].to_numpy(float) > 0)
        m = np.log(mine[ok].groupby("dataset")["value"].median().to_numpy(float))
        logs = [np.log(v.to_numpy(float)) for _, v in mine[ok].groupby("dataset")["value"]]
        design = mine.groupby("dataset").size()          # runs per dataset as trained, failed ones included
        inits = int(design.max()) if len(design) else 0
        b = g.loc[g["source"] == "authors", "value"].to_numpy(float)
        n_theirs = b.size
        b = b[np.isfinite(b) & (b > 0)]
        cells.append((key, m, logs, b, inits, n_theirs, int((~ok).sum())))
    testable = [b.size > 0 and ((n_theirs == inits and m.size >= 2) or (n_theirs == 1 and m.size >= 3))
                for _, m, _, b, inits, n_theirs, _ in cells]
    each = 1 - (1 - level) / max(1, sum(testable))
    rows = []
    for (key, m, logs, b, inits, n_theirs, failed), test in zip(cells, testable):
        n, single = m.size, n_theirs == 1 and inits > 1
        L = float(np.log(np.median(b))) if b.size else np.nan
        ratio, lo, hi, p = ((one_more_run(logs, L, each) if single else one_more_dataset(m, L, each)) if test
                            else (np.nan, np.nan, np.nan, np.nan))
        typical = float(np.exp(np.mean([x.mean() for x in logs]) if single else np.mean(m))) if n else np.nan
        rows.append({**dict(zip(by + ["quantity", "norm"], (*key[:-2], str(key[-2]), key[-1]))),
                     "datasets": int(n), "inits": inits, "failed": failed,
                     "median_ours": typical,
                     "median_authors": float(np.exp(L)) if b.size else np.nan, "n_authors": int(b.size),
                     "ratio": ratio, "range_lo": lo, "range_hi": hi, "p": p,
                     "beyond": bool(np.isfinite(p) and p < 1 - each)})
    return pd.DataFrame(rows)


#: The margin of "our errors are the authors'" for one figure's error (ours / theirs, pooled over
#: the figure's settings), fixed before any ratio was computed: within 1.25x either way.  It is a
#: quarter of the twofold differences the paper's figures are read for (their error axes span
#: decades), and about the spread of one dataset's median between initialisation draws.
EQUIVALENCE_MARGIN = 1.25
#: The words of a figure's agreement with the authors (:func:`equivalence`), one meaning each.
EQUIVALENT, DIFFERS, UNRESOLVED = "equivalent", "differs", "cannot be told"


def equivalence(lo90: float, hi90: float, lo95: float, hi95: float, margin: float | None = None) -> str:
    """The one decision of a figure's ratio ours / theirs (:func:`figure_ratio`): *equivalent*
    within ``margin`` when its 90 % interval lies inside ``[1 / margin, margin]`` (two one-sided
    tests at 5 %: a ratio at the margin is called equivalent at most 5 % of the time); else
    *differs* when its 95 % interval excludes 1 (a two-sided test at 5 %); else *cannot be told*
    (within the margin or beyond it).  NaN bounds: cannot be told.  ``margin`` None:
    ``EQUIVALENCE_MARGIN`` (read when called)."""
    margin = EQUIVALENCE_MARGIN if margin is None else margin
    if not all(np.isfinite(x) for x in (lo90, hi90, lo95, hi95)):
        return UNRESOLVED
    if 1 / margin < lo90 and hi90 < margin:
        return EQUIVALENT
    if hi95 < 1 or lo95 > 1:
        return DIFFERS
    return UNRESOLVED


def _figure_units(g: pd.DataFrame, single: bool) -> tuple[list, float, int]:
    """Per dataset of ours, the figure's log error pooled over the settings both have: the mean
    over settings of the log of the dataset's median (``single``: of each initialisation's run,
    one value per seed); and the authors' pooled log error (the mean over settings of the log of
    their median, or of their single run); and how many settings both have."""
    ours, theirs = g[g["source"] == "ours"], g[g["source"] == "authors"]
    ok = np.isfinite(ours["value"].to_numpy(float)) & (ours["value"].to_numpy(float) > 0)
    ours = ours[ok].assign(log=np.log(ours.loc[ok, "value"].to_numpy(float)))
    tb = theirs[np.isfinite(theirs["value"].to_numpy(float)) & (theirs["value"].to_numpy(float) > 0)]
    settings = sorted(set(ours["setting_key"]) & set(tb["setting_key"]))
    if not settings:
        return [], np.nan, 0
    ours, tb = ours[ours["setting_key"].isin(settings)], tb[tb["setting_key"].isin(settings)]
    L = float(np.mean([np.log(np.median(v.to_numpy(float))) for _, v in tb.groupby("setting_key")["value"]]))
    units = []
    for _, d in ours.groupby("dataset"):
        if d["setting_key"].nunique() < len(settings):      # a dataset without every setting is left out
            continue
        if single:
            per_seed = d.groupby(["seed", "setting_key"])["log"].mean().unstack()
            units.append(per_seed.dropna().mean(axis=1).to_numpy(float))
        else:
            units.append(float(d.groupby("setting_key")["log"].median().mean()))
    return units, L, len(settings)


def pooled_ratio(units, theirs: float, margin: float | None = None, level: float = LEVEL) -> dict:
    """The ratio ours / theirs of a figure's pooled log error and its decision (:func:`figure_ratio`):
    ``units`` per dataset of ours, its pooled log error (a number), or each initialisation's
    (an array: the authors ran each setting once); ``theirs`` the authors' pooled log error.
    Keys: ``datasets``, ``ratio``, ``lo``, ``hi`` (95 %), ``lo90``, ``hi90``, ``p``, ``rule_out``,
    ``verdict``; NaN (cannot be told) below 3 datasets."""
    from scipy import stats
    S = len(units)
    if S < 3 or not np.isfinite(theirs):
        return {"datasets": S, **dict.fromkeys(("ratio", "lo", "hi", "lo90", "hi90", "p", "rule_out"), np.nan),
                "verdict": UNRESOLVED}
    if np.ndim(units[0]) > 0:
        # their pooled run as one run of one more dataset (ratio ours / theirs)
        r95, r90 = one_more_run(units, theirs, level), one_more_run(units, theirs, 2 * level - 1)
        ratio, p = r95[0], r95[3]
        lo, hi, lo90, hi90 = ratio * r95[1], ratio * r95[2], ratio * r90[1], ratio * r90[2]
    else:
        g = np.asarray(units, float)
        d = float(np.mean(g) - theirs)
        se = float(np.std(g, ddof=1) * np.sqrt(1 + 1 / S))
        ratio = float(np.exp(d))
        t95, t90 = t_quantile(level, S - 1), t_quantile(2 * level - 1, S - 1)
        lo, hi = float(np.exp(d - t95 * se)), float(np.exp(d + t95 * se))
        lo90, hi90 = float(np.exp(d - t90 * se)), float(np.exp(d + t90 * se))
        p = float(2 * stats.t.sf(abs(d) / se, S - 1)) if se > 0 else float(d == 0)
    return {"datasets": S, "ratio": ratio, "lo": lo, "hi": hi, "lo90": lo90, "hi90": hi90, "p": p,
            "rule_out": float(max(hi90, 1 / lo90)), "verdict": equivalence(lo90, hi90, lo, hi, margin)}


def figure_ratio(ours: pd.DataFrame, theirs: pd.DataFrame, by, quantities=("err_u_theta", "err_u_p"),
                 margin: float | None = None, level: float = LEVEL) -> pd.DataFrame:
    """Our errors against the authors' for one figure as one number per error: the ratio ours /
    theirs pooled over the figure's settings (those both have), with its intervals and the
    decision of :func:`equivalence` at ``margin``; a quantity the authors did not archive is left out.

    The dataset (split and noise draw) is the unit, and the correlation of a figure's settings
    within a dataset is kept: for each of our S datasets the figure's log error is the mean
    over settings of the log of its median (over initialisations); the authors' is the same mean
    over their runs, which share one split, so it is one more draw of a dataset's figure error.
    With ``g`` ours and ``G`` theirs, ``mean(g) - G`` has variance ``var(g) (1 + 1/S)``, referred
    to Student's t with S - 1 degrees of freedom (at least 3 datasets).  Where the authors ran
    each setting once (Fig. 6's archive) their pooled run is set against one run of one more
    dataset (:func:`one_more_run` on each initialisation's pooled error).  Validated by simulation
    on nested data with correlated settings (``tests/test_results_table.py``,
    ``benchmarks/figure_ratio_power.py``).  Columns: ``quantity``, ``norm``, ``settings`` (compared),
    and :func:`pooled_ratio`'s: ``datasets``, ``ratio`` (ours / theirs), ``lo``, ``hi`` (its 95 %
    interval), ``lo90``, ``hi90``, ``p`` (two-sided, of no difference), ``rule_out`` (the ratio
    either way beyond which the 90 % interval rules a difference out: ``max(hi90, 1 / lo90)``),
    ``verdict``."""
    by = [by] if isinstance(by, str) else list(by)
    both = long(pd.concat([ours, theirs], ignore_index=True), quantities)
    both["setting_key"] = both[by].astype(str).agg("|".join, axis=1)
    rows = []
    for (q, norm), g in both.groupby(["quantity", "norm"], sort=False):
        if not (g["source"] == "authors").any():
            continue
        single = bool((g[g["source"] == "authors"].groupby("setting_key").size() <= 1).all())
        units, L, k = _figure_units(g, single)
        rows.append({"quantity": q, "norm": norm, "settings": k, **pooled_ratio(units, L, margin, level)})
    return pd.DataFrame(rows)
