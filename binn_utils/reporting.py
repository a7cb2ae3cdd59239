"""Glue between the results store and the notebooks: presets, loading, numbers in prose.

Numbers quoted in the book's prose are glued from the results (myst-nb ``glue``), never
typed by hand.  ``BINN_REQUIRE_STORED=1`` (set by ``make book``) turns a missing stored
setting into an error instead of a long training run, so the book is always built from
the committed results.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .sweeps import default_results_dir, ensure


def results_dir_for(preset: str, results_dir=None) -> Path:
    """Where a notebook reads/writes results: quick runs never touch the committed store."""
    if results_dir:
        return Path(results_dir)
    root = default_results_dir()
    return root.parent / "out" / "results-quick" if preset == "quick" else root


def load_or_run(settings, preset: str, results_dir=None, progress=None, desc="settings", workers=None):
    """Stored results for ``settings``, training (with a progress bar) what is missing."""
    rdir = results_dir_for(preset, results_dir)
    missing = [s for s in settings if not s.is_done(rdir)]
    if missing and os.environ.get("BINN_REQUIRE_STORED") == "1":
        names = ", ".join(f"{s.study}:{s.label}" for s in missing[:5])
        raise RuntimeError(f"{len(missing)} settings are not in the results store {rdir} ({names}...); "
                           "run `binn sweep <study> --preset <preset>` first")
    if progress is None:
        progress = preset != "quick"
    return ensure(settings, rdir, workers=workers, progress=progress, desc=desc)


def med_iqr(values) -> str:
    """'median [q25, q75]' of the finite values, with the count of failures if any."""
    v = np.asarray(values, dtype=float)
    ok = v[np.isfinite(v)]
    if ok.size == 0:
        return "all failed"
    q1, med, q3 = np.percentile(ok, [25, 50, 75])
    s = f"{med:.3g} [{q1:.3g}, {q3:.3g}]"
    if ok.size < v.size:
        s += f" ({v.size - ok.size} failed)"
    return s


def median(values) -> float:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(np.median(v)) if v.size else float("nan")


def glue(name: str, value, display: bool = False):
    """myst-nb glue when available (book builds); otherwise just print (plain Jupyter)."""
    try:
        from myst_nb import glue as _glue
    except ImportError:  # pragma: no cover
        print(f"{name} = {value}")
        return
    _glue(name, value, display=display)


def run_description(res) -> str:
    """What was run, for figure captions: epochs, replicates, datasets, noise, grid."""
    spec = res.record
    n_ds = len(set(spec["datasets"]))
    grid = "351 x" if spec["dense"] else "71 x"
    return (f"{spec['config']['epochs']} epochs, {spec['replicates']} replicates "
            f"({n_ds} dataset{'s' if n_ds > 1 else ''} x {spec['replicates'] // n_ds} initialisations), "
            f"noise variance {spec['noise_var']:g}, {grid} {len(res['t'])} observation grid")


def metrics_table(results, label_fn=None, which="final") -> str:
    """Markdown table: median [IQR] errors of u_theta and u_p per setting, u_p failures."""
    rows = ["| setting | rel. L2 error $u_\\theta$ | rel. L2 error $u_p$ | $u_p$ failures | diverged |",
            "|---|---|---|---|---|"]
    for r in results:
        label = label_fn(r) if label_fn else r.setting.label
        st = r.record["metrics"][which]["up_status"]
        div = sum(s != "ok" for s in r.record["status"])
        rows.append(f"| {label} | {med_iqr(r.metric('err_u_theta', which))} | "
                    f"{med_iqr(r.metric('err_u_p', which))} | {sum(s != 'ok' for s in st)}/{len(st)} | {div} |")
    return "\n".join(rows)
