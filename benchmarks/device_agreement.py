"""Do a CPU and a GPU give the same results for the same seeds?  Trains or compares; prints figures.

    python benchmarks/device_agreement.py train --device cuda --workers 2 --out DIR
    python benchmarks/device_agreement.py compare DIR [--results results]

The settings: the Supporting Material architecture repeat at the paper's scale (71 points,
4000 epochs, 10 initialisations) for D = V = (1, 1) and D = V = (4, 32) at noise variances
0 and 1e-2, whose committed records were trained on the CPU with engine version 2.  ``train``
trains the same specifications (same seeds, same datasets) on ``--device`` into
``DIR/runs`` (with ``--workers 2``: two Dask worker processes, each training one merged
group of two noise levels).  ``compare`` prints, per setting, the median u_theta and u_p
errors on each device and the ratio of the medians with a 95 % interval from a seeded
bootstrap over initialisations (``results_table.ratio_interval``); float32 training diverges between
devices at rounding level and then chaotically, so the same seeds do not give the same
numbers: the question is whether the two devices' distributions can be distinguished.
The records it trains are committed under ``results/checks/device`` (the stored check of
the like-for-like rule, ``tests/test_committed_results.py``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ARCHS = ((1, 1), (4, 32))
NOISE = (0.0, 1e-2)


def settings(epochs=None):
    from binn_utils import studies
    out = []
    for nv in NOISE:
        for s in studies.get("architecture").settings("paper", noise_var=nv, epochs=epochs):
            m = dict(s.meta)
            if tuple(m["arch_D"]) == tuple(m["arch_V"]) and tuple(m["arch_D"]) in ARCHS:
                out.append(s)
    return out


def train(args):
    from binn_utils.store.runner import run_settings
    sets = settings(args.epochs)
    print(f"training {len(sets)} settings on {args.device} with {args.workers} worker(s) into {args.out}", flush=True)
    done = run_settings(sets, Path(args.out), workers=args.workers, device=args.device, merge=True,
                        progress=False, desc="device check")
    print(f"stored {len(done)} settings", flush=True)


def compare(args):
    from binn_utils.analysis.results_table import ratio_interval
    from binn_utils.store.loading import load_setting
    for s in settings():
        a, b = load_setting(s, Path(args.results)), load_setting(s, Path(args.folder))
        for m in ("err_u_theta", "err_u_p"):
            x, y = a.metric(m), b.metric(m)
            est, lo, hi = ratio_interval(y, x)
            print(f"{s.label:<22s} sigma2={s.noise_var:<6g} {m:<12s} {a.record.device[:14]:>14s} "
                  f"{np.nanmedian(x):.4g}  {b.record.device[:14]:>14s} {np.nanmedian(y):.4g}  "
                  f"ratio {est:.3f} [{lo:.3f}, {hi:.3f}]", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--device", default="cuda")
    t.add_argument("--workers", type=int, default=2)
    t.add_argument("--out", required=True)
    t.add_argument("--epochs", type=int, default=None, help="fewer epochs (a smoke test of this script)")
    c = sub.add_parser("compare")
    c.add_argument("folder")
    c.add_argument("--results", default=str(ROOT / "results"))
    args = ap.parse_args()
    (train if args.cmd == "train" else compare)(args)


if __name__ == "__main__":
    main()
