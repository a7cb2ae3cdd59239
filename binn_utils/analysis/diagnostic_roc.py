"""The ground-truth-free diagnostics measured on every stored network.

Each trained network of the store (``results/runs``: every benchmark, scale, noise level and
grid) is a labelled case: its truth (errors against the noise-free solution) says whether it
failed, and the diagnostics of :mod:`binn_utils.analysis.diagnostics` -- computed from what a
practitioner has (validation curves, observations, u_theta, u_p, the learned operators) --
say whether it was flagged.

**Scores.**  Each diagnostic's number is divided by its threshold (:func:`scores_of`), so that
the diagnostic flags exactly when its score exceeds 1 (an all-or-nothing criterion -- a
diverged replicate, a failed forward solve, a collapsed or blown-up network -- scores
infinity).  Each network is diagnosed alone (its own curves, its own u_theta and u_p);
operator spread needs several initialisations on the same data and is the setting's.  The
paper's score (:data:`PAPER`) is the largest of the three that flag the paper's warning signs
(``diagnostics.PAPER_SIGNS``: mismatch, rising validation loss, operator spread): the score
claim 12 and the chapter judge the paper's advice by.  The combined score (:data:`COMBINED`)
is the largest of all six, with this book's three further checks: its flag (any diagnostic)
is "combined score > 1".  A ROC curve follows every threshold c on a score (flagged: score > c).

**Failure** (:func:`failure_labels`).  Networks are compared with others trained on the same
data -- same benchmark, whose data (ours or the authors' rebuilt ones), grid, noise variance,
reaction and initial condition (a *data group*).  The reference is the median u_p error of the best setting of the group (the
lowest median over its networks: what these data allow a BINN to reach).  A network
**failed** when its forward solve failed, its training diverged, or its u_p error exceeds
``factor`` times the reference.  ``factor`` is read off the runs (:func:`failure_factor`):
the networks of the best settings themselves scatter about their median from one
initialisation to the next; the factor is the 99th percentile of that scatter (the ratio
u_p error / reference over the best settings' networks, pooled over the data groups), so a
network beyond it is worse than chance among initialisations of the best setting allows.
(The pooled ratio of all networks is not bimodal -- one mode near 1 and a long tail -- so
no natural gap offers itself.)  A **setting** failed when more than half of its networks failed.

**Held-out thresholds** (:func:`leave_one_out`).  For each benchmark in turn, a diagnostic's
threshold is chosen on the networks of the other benchmarks -- the lowest threshold whose
false-alarm rate there is at most :data:`FALSE_MAX` (the most failures caught that the
false-alarm budget allows) -- and counted on the left-out benchmark; the counts of the five
left-out benchmarks are summed.  The area under the ROC curve (:func:`auc`) has a seeded
bootstrap interval that resamples settings (networks of one setting share data and
thresholds, so they are not independent cases).

The table is computed once per content of the store and cached (:func:`labelled_table`):
the cache key is a digest of the store's records (each carries the SHA-256 of its arrays),
and of the code that computes it (this module and ``diagnostics``), so a changed store or a
changed rule recomputes it and an unchanged one is read back in a fraction of a second.  The cache file is a derived, ignored artefact (``results/cache/``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import diagnostic_calibration as calibration, diagnostics as dg
from .diagnostic_thresholds import DEFAULT_THRESHOLDS, Thresholds
from ..engine.metrics import median_iqr
from ..store.records import read_pair
from ..store.stores import default_results_dir
from ..store.sweep_record import SweepRecord
from ..store.sweep_record import reported

__all__ = ["DIAGNOSTICS", "PAPER", "COMBINED", "COMPOSITES", "COMPOSITE_WORDS", "name_of", "CAUGHT_MIN", "FALSE_MAX", "BOOTSTRAP", "SEED", "scores_of",
           "LabelledTable", "labelled_table", "store_digest", "failure_factor", "failure_labels", "roc",
           "auc", "auc_interval", "choose_threshold", "Held", "best_settings", "FAILURE_QUANTILE", "leave_one_out", "setting_table", "log_ratio", "summary", "stored_summary", "rates_markdown",
           "folds_markdown", "rate_pair", "pct", "phrase"]

DIAGNOSTICS = dg.DIAGNOSTIC_NAMES
PAPER = "the paper's three signs"
COMBINED = "combined"
#: the diagnostics each composite score takes the largest of
COMPOSITES = {PAPER: tuple(dg.PAPER_SIGNS), COMBINED: DIAGNOSTICS}
#: how tables and figures name each composite score (flag: any of its diagnostics)
COMPOSITE_WORDS = {PAPER: "the paper's three signs (any)", COMBINED: "all six diagnostics (any)"}
CAUGHT_MIN = 0.85
FALSE_MAX = 0.15
FAILURE_QUANTILE = 0.99
"""A network failed when its u_p error exceeds what 99 % of the best setting's own
initialisations reach (relative to their median): chance variation between
initialisations at the best setting puts 1 in 100 of its networks beyond that factor."""
BOOTSTRAP = 1000
SEED = 0
CACHE_VERSION = 2
_THIS = __import__(__name__, fromlist=["_"])


# ----------------------------------------------------------------------------- scores
def _finite_or(v, default=0.0):
    v = float(v)
    return v if np.isfinite(v) else default


def scores_of(rep, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> dict:
    """{diagnostic: score} of a :class:`~binn_utils.analysis.diagnostics.DiagnosticReport`:
    each diagnostic's number over its threshold (module docstring), ``thresholds`` being those
    the report was diagnosed with; flag <=> score > 1."""
    t, d = thresholds, rep.diagnostics
    u = d["underfitting"]
    s_u = max(_finite_or(u.value, 0.0) / t.underfit_tail_fraction if not np.isposinf(u.value) else np.inf,
              _finite_or(u.extra.get("tail_decades", np.nan)) / t.underfit_tail_decades)
    if u.extra.get("collapsed_replicates"):
        s_u = np.inf
    i = d["instability"]
    s_i = np.inf if (i.extra.get("n_failed") or i.extra.get("blown_up_replicates")) else \
        _finite_or(i.value) / t.instability_roughness
    o = d["overfitting"]
    s_o = (_finite_or(o.value) / t.overfit_factor
           if o.extra.get("min_at_fraction", 1.0) < dg.OVERFIT_MIN_BEFORE else 0.0)
    m = d["mechanistic_mismatch"]
    med_p = m.extra.get("median_err_u_p_obs", np.nan)
    if m.extra.get("n_failed_u_p"):
        s_m = np.inf
    elif not med_p <= dg.MISMATCH_MIN_ERROR:
        s_m = m.value / t.mismatch_ratio if not np.isnan(m.value) else 0.0
    else:
        s_m = 0.0
    s_s = _finite_or(d["operator_spread"].value) / t.spread_cv
    b = d["loss_balance"]
    parts = [_finite_or(b.extra.get("weight_ratio", np.nan)) / t.weight_ratio_max]
    if b.value == 0:
        parts.append(np.inf)
    elif np.isfinite(b.value):
        parts += [t.balance_min / b.value, b.value / t.balance_max]
    return {"underfitting": s_u, "instability": s_i, "overfitting": s_o, "mechanistic_mismatch": s_m,
            "operator_spread": s_s, "loss_balance": max(parts)}


# ----------------------------------------------------------------------------- the table
def _record_paths(results_dir=None) -> list[Path]:
    return sorted((Path(results_dir or default_results_dir()) / "runs").glob("*.json"))


def store_digest(results_dir=None) -> str:
    """SHA-256 over the store's records (names and bytes; each record holds its arrays' SHA-256)."""
    h = hashlib.sha256()
    for p in _record_paths(results_dir):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


@dataclass
class LabelledTable:
    """One row per stored network (arrays of equal length) and its setting's metadata."""

    cols: dict            # name -> (n,) array
    digest: str
    which: str

    def __len__(self):
        return len(self.cols["up_error"])

    def __getitem__(self, k) -> np.ndarray:
        return self.cols[k]

    def score(self, name: str) -> np.ndarray:
        """(n,) score of a diagnostic, or of a composite (:data:`PAPER`, :data:`COMBINED`)."""
        if name in COMPOSITES:
            return np.max(np.stack([self.cols[f"score_{n}"] for n in COMPOSITES[name]]), axis=0)
        return self.cols[f"score_{name}"]

    def subset(self, mask) -> "LabelledTable":
        mask = np.asarray(mask, bool)
        return LabelledTable({k: v[mask] for k, v in self.cols.items()}, self.digest, self.which)


def _network_rows(path: Path, which: str) -> list[dict]:
    raw, a = read_pair(path.with_suffix(".npz"), path, load_arrays=True)
    rec = SweepRecord.from_json(raw, where=path.name)
    if which not in rec.metrics:
        return []
    m, cfg = rec.metrics[which], rec.config
    R = len(rec.status)
    nan = (lambda vs: np.array([np.nan if v is None else v for v in vs], dtype=float))
    eth, ep = nan(m.err_u_theta_obs), nan(m.err_u_p_obs)
    up_status, status = list(m.up_status), list(rec.status)
    weights = np.array([cfg.w_data, cfg.w_pde, cfg.w_bc], float)
    ops = {n: a[f"{which}_op_{n}"] for n in ("D", "V", "G") if f"{which}_op_{n}" in a}
    datasets = np.asarray(rec.datasets)[:R]
    common = dict(epochs=a["curve_epochs"], weights=weights, u_grid=a.get("u_grid"))
    whole = dg.diagnose_arrays(val_total=a["hist_val_total"], val_data=a.get("hist_val_data"),
                               val_pde=a.get("hist_val_pde"), err_u_theta_obs=eth, err_u_p_obs=ep,
                               up_status=up_status, operators=ops, u_obs=a["u_obs"], status=status,
                               groups=datasets, **common)
    setting_scores = scores_of(whole)
    spread = setting_scores["operator_spread"]
    group = "|".join(map(str, (rec.benchmark, rec.data, int(bool(rec.dense)), float(rec.noise_var), rec.reaction,
                               rec.initial or "text")))
    err_up, err_th = nan(m.err_u_p), nan(m.err_u_theta)
    rows = []
    for r in range(R):
        rep = dg.diagnose_arrays(val_total=a["hist_val_total"][r:r + 1],
                                 val_data=None if "hist_val_data" not in a else a["hist_val_data"][r:r + 1],
                                 val_pde=None if "hist_val_pde" not in a else a["hist_val_pde"][r:r + 1],
                                 err_u_theta_obs=eth[r:r + 1], err_u_p_obs=ep[r:r + 1],
                                 up_status=up_status[r:r + 1], u_obs=a["u_obs"][r:r + 1],
                                 status=status[r:r + 1], operators=None, **common)
        sc = scores_of(rep)
        sc["operator_spread"] = spread
        rows.append({"setting": path.stem, "problem": rec.benchmark, "group": group,
                     "dense": bool(rec.dense), "noise_var": float(rec.noise_var),
                     "epochs": int(rec.epochs_run), "replicate": r,
                     "up_error": err_up[r], "theta_error": err_th[r],
                     "ok": bool(status[r] == "ok" and up_status[r] == "ok"),
                     **{f"score_{n}": float(v) for n, v in sc.items()},
                     **{f"setting_score_{n}": float(v) for n, v in setting_scores.items()}})
    return rows


def _columns(rows: list[dict]) -> dict:
    cols = {}
    for k in rows[0]:
        vals = [r[k] for r in rows]
        cols[k] = np.array(vals, dtype=object if isinstance(vals[0], str) else None)
        if isinstance(vals[0], str):
            cols[k] = cols[k].astype(str)
    return cols


def labelled_table(results_dir=None, *, which: str | None = None, cache: bool = True) -> LabelledTable:
    """Every stored network with its truth and its diagnostics' scores, cached per content of
    the store (module docstring)."""
    which = which or reported()
    base = Path(results_dir or default_results_dir())
    digest = store_digest(base)
    code = hashlib.sha256(b"".join(Path(m.__file__).read_bytes() for m in (dg, _THIS))).hexdigest()
    cache_file = base / "cache" / f"diagnostic_roc-v{CACHE_VERSION}-{which}-{digest[:16]}-{code[:12]}.npz"
    if cache and cache_file.exists():
        with np.load(cache_file, allow_pickle=False) as f:
            return LabelledTable({k: f[k] for k in f.files}, digest, which)
    rows = [row for p in _record_paths(base) for row in _network_rows(p, which)]
    if not rows:
        raise ValueError(f"no stored networks under {base / 'runs'}")
    table = LabelledTable(_columns(rows), digest, which)
    if cache:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **table.cols)
        tmp.replace(cache_file)
    return table


# ----------------------------------------------------------------------------- the truth
def _best_of_groups(table: LabelledTable) -> dict:
    """{data group: (median u_p error, setting)} of the best setting of each group."""
    best = {}
    for st in np.unique(table["setting"]):
        sel = table["setting"] == st
        med = median_iqr(table["up_error"][sel])["median"]
        g = table["group"][sel][0]
        if np.isfinite(med) and med < best.get(g, (np.inf, ""))[0]:
            best[g] = (med, st)
    return best


def log_ratio(table: LabelledTable) -> np.ndarray:
    """(n,) log10(u_p error / the median u_p error of its group's best setting); +inf where u_p failed."""
    best = _best_of_groups(table)
    ref = np.array([best.get(g, (np.nan,))[0] for g in table["group"]], float)
    with np.errstate(all="ignore"):
        lr = np.log10(table["up_error"] / ref)
    return np.where(np.isfinite(table["up_error"]), lr, np.inf)


def best_settings(table: LabelledTable) -> np.ndarray:
    """(n,) bool: the network belongs to the best setting of its data group."""
    return np.isin(table["setting"], [st for _, st in _best_of_groups(table).values()])


def failure_factor(table: LabelledTable, quantile: float = FAILURE_QUANTILE) -> float:
    """The factor read off the runs: 10 ** the ``quantile`` of log10(u_p error / reference)
    over the networks of the best settings (pooled over the data groups), i.e. how far above
    their own median the initialisations of the best setting reach by chance."""
    lr = log_ratio(table)[best_settings(table)]
    lr = lr[np.isfinite(lr)]
    if lr.size == 0:
        raise ValueError("no finite u_p error in the best settings: no failure factor")
    return float(10 ** np.quantile(lr, quantile))


def failure_labels(table: LabelledTable, factor: float) -> np.ndarray:
    """(n,) bool: the network failed (module docstring)."""
    return (~table["ok"].astype(bool)) | ~(log_ratio(table) <= np.log10(factor))


def setting_table(table: LabelledTable, failed) -> tuple[np.ndarray, np.ndarray, dict]:
    """(settings, failed (more than half of its networks), {diagnostic or composite: the setting's
    own score, from all its replicates together})."""
    failed = np.asarray(failed, bool)
    names, idx = np.unique(table["setting"], return_index=True)
    fail = np.array([failed[table["setting"] == s].mean() > 0.5 for s in names])
    sc = {n: table[f"setting_score_{n}"][idx] for n in DIAGNOSTICS}
    sc.update({c: np.max(np.stack([sc[n] for n in parts]), axis=0) for c, parts in COMPOSITES.items()})
    return names, fail, sc


# ----------------------------------------------------------------------------- ROC and AUC
def roc(score, failed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds, sensitivity, false-alarm rate): flagged = score > threshold, for every
    distinct threshold (from above the largest score down to below the smallest)."""
    s = np.nan_to_num(np.asarray(score, float), nan=0.0)
    f = np.asarray(failed, bool)
    thr = np.unique(np.concatenate([[np.inf, -np.inf], np.unique(s)]))[::-1]
    sens = np.array([np.mean(s[f] > c) if f.any() else np.nan for c in thr])
    fa = np.array([np.mean(s[~f] > c) if (~f).any() else np.nan for c in thr])
    return thr, sens, fa


def _auc_weighted(s, f, w):
    """Mann-Whitney AUC with case weights (ties count one half)."""
    vals, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv, weights=w * f, minlength=vals.size)
    neg = np.bincount(inv, weights=w * ~f, minlength=vals.size)
    P, N = pos.sum(), neg.sum()
    if P == 0 or N == 0:
        return np.nan
    below = np.concatenate([[0.0], np.cumsum(neg)[:-1]])
    return float(np.sum(pos * (below + 0.5 * neg)) / (P * N))


def auc(score, failed) -> float:
    """Area under the ROC curve: the probability that a failed network scores above a fine one."""
    s = np.nan_to_num(np.asarray(score, float), nan=0.0)
    f = np.asarray(failed, bool)
    return _auc_weighted(s, f, np.ones(s.size))


def auc_interval(score, failed, clusters, n: int = BOOTSTRAP, seed: int = SEED, level: float = 0.95):
    """(AUC, low, high): percentile interval of a seeded bootstrap over ``clusters`` (settings)."""
    s = np.nan_to_num(np.asarray(score, float), nan=0.0)
    f = np.asarray(failed, bool)
    names, inv = np.unique(np.asarray(clusters), return_inverse=True)
    rng = np.random.default_rng(seed)
    draws = np.empty(n)
    for b in range(n):
        counts = np.bincount(rng.integers(0, names.size, names.size), minlength=names.size)
        draws[b] = _auc_weighted(s, f, counts[inv].astype(float))
    lo, hi = np.nanquantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return auc(s, f), float(lo), float(hi)


# ----------------------------------------------------------------------------- held-out thresholds
def choose_threshold(score, failed, false_max: float = FALSE_MAX) -> float:
    """The lowest threshold (flagged: score > threshold) whose false-alarm rate on these cases
    is at most ``false_max``: the most failures caught within the false-alarm budget."""
    thr, _, fa = roc(score, failed)
    ok = fa <= false_max
    return float(thr[ok][-1]) if ok.any() else float(np.inf)


@dataclass
class Held:
    """A score's thresholds chosen without each benchmark and counted on it."""

    name: str
    thresholds: dict      # {left-out benchmark: threshold chosen on the others}
    counts: dict          # {left-out benchmark: diagnostic_calibration.Counts on it}

    @property
    def pooled(self) -> calibration.Counts:
        c = list(self.counts.values())
        return calibration.Counts(*(sum(getattr(x, k) for x in c) for k in ("caught", "failures", "false_alarms", "fine")))

    def meets(self) -> bool:
        return self.pooled.meets(CAUGHT_MIN, FALSE_MAX)


def leave_one_out(score, failed, benchmarks, name: str = "", false_max: float = FALSE_MAX) -> Held:
    """For each benchmark: the threshold chosen (:func:`choose_threshold`) on the cases of the
    other benchmarks only, and its counts on the left-out benchmark."""
    s = np.nan_to_num(np.asarray(score, float), nan=0.0)
    f = np.asarray(failed, bool)
    b = np.asarray(benchmarks)
    thresholds, counts = {}, {}
    for left in sorted(set(b.tolist())):
        train = b != left
        c = choose_threshold(s[train], f[train], false_max)
        thresholds[left] = c
        counts[left] = calibration.count_flags(s[~train] > c, f[~train])
    return Held(name, thresholds, counts)


def summary(table: LabelledTable, factor: float | None = None, n_boot: int = BOOTSTRAP) -> dict:
    """Everything the chapter, claim 12 and ``binn fit`` quote, per diagnostic and for the
    composite scores (:data:`COMPOSITES`): {"factor", "failed" (n,), "n", "per": {name: {"auc": (a, lo, hi) (``n_boot``
    = 0: no interval, NaN bounds), "module": Counts at the module's thresholds, "held": Held}},
    "settings": the same at the level of settings, "n_settings", "settings_failed"}."""
    factor = failure_factor(table) if factor is None else float(factor)
    failed = failure_labels(table, factor)

    def block(scores, fail, clusters, bench):
        return {"auc": (auc_interval(scores, fail, clusters, n=n_boot) if n_boot
                        else (auc(scores, fail), np.nan, np.nan)),
                "module": calibration.count_flags(np.asarray(scores) > 1.0, fail),
                "held": leave_one_out(scores, fail, bench)}

    per = {n: block(table.score(n), failed, table["setting"], table["problem"]) for n in (*DIAGNOSTICS, *COMPOSITES)}
    names, sfail, ssc = setting_table(table, failed)
    bench_of = dict(zip(table["setting"], table["problem"]))
    sb = np.array([bench_of[s] for s in names])
    settings = {n: block(ssc[n], sfail, names, sb) for n in ssc}
    return {"factor": factor, "failed": failed, "n": len(table), "per": per, "settings": settings,
            "n_settings": int(names.size), "settings_failed": int(sfail.sum()),
            "benchmarks": sorted(set(table["problem"].tolist()))}


_SUMMARIES = {}


def stored_summary(n_boot: int = BOOTSTRAP) -> dict:
    """:func:`summary` of the committed store (computed once per process and store content)."""
    table = labelled_table()
    key = (table.digest, n_boot)
    if key not in _SUMMARIES:
        _SUMMARIES[key] = summary(table, n_boot=n_boot)
    return _SUMMARIES[key]


def name_of(name: str) -> str:
    """A diagnostic's or composite score's name for a reader."""
    return COMPOSITE_WORDS.get(name, name.replace("_", " "))


def pct(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{100 * x:.0f} %"


def rate_pair(c: calibration.Counts) -> str:
    """"caught x % (a of b), false alarms y % (c of d)"."""
    return (f"{pct(c.caught_rate)} of failures caught ({c.caught} of {c.failures}), "
            f"{pct(c.false_alarm_rate)} false alarms ({c.false_alarms} of {c.fine})")


def rates_markdown(s: dict, level: str = "per") -> str:
    """A table per diagnostic and the composite scores: AUC [interval], the module's thresholds'
    rates on all cases, and the held-out rates of thresholds chosen without the benchmark."""
    lines = ["| diagnostic | AUC [95 % interval] | our default thresholds: caught | false alarms "
             "| held out: caught | false alarms | meets 85 % / 15 % held out |", "|---|---|---|---|---|---|---|"]
    for n, v in s[level].items():
        a, lo, hi = v["auc"]
        m, h = v["module"], v["held"].pooled
        iv = f" [{lo:.2f}, {hi:.2f}]" if np.isfinite(lo) else ""
        lines.append(f"| {name_of(n)} | {a:.2f}{iv} | {pct(m.caught_rate)} | {pct(m.false_alarm_rate)} "
                     f"| {pct(h.caught_rate)} ({h.caught}/{h.failures}) | {pct(h.false_alarm_rate)} "
                     f"({h.false_alarms}/{h.fine}) | {'yes' if v['held'].meets() else 'no'} |")
    return "\n".join(lines)


def folds_markdown(s: dict, name: str = PAPER, level: str = "per") -> str:
    """One diagnostic's left-out benchmarks: the threshold chosen without it and its counts on it."""
    h = s[level][name]["held"]
    lines = ["| left-out benchmark | threshold (score) chosen on the others | caught | false alarms |",
             "|---|---|---|---|"]
    for b, c in h.counts.items():
        lines.append(f"| {b.replace('_', ' ')} | {h.thresholds[b]:.3g} | {c.caught} of {c.failures} "
                     f"| {c.false_alarms} of {c.fine} |")
    return "\n".join(lines)


def phrase(s: dict, name: str = PAPER) -> str:
    """What the held-out figures say of a score, in words decided by its numbers: whether its
    AUC interval lies above 0.5 (it carries signal) and whether it meets the target held out."""
    a, lo, hi = s["per"][name]["auc"]
    signal = ("the ranking of failed above fine networks is better than chance" if lo > 0.5 else
              "the ranking of failed above fine networks cannot be told from chance" if hi >= 0.5 else
              "fine networks are ranked above failed ones")
    target = (f"our target (not the paper's) of {pct(CAUGHT_MIN)} caught at {pct(FALSE_MAX)} false alarms is "
              f"{'met' if s['per'][name]['held'].meets() else 'not met'} held out")
    return f"{signal}, and {target}"
