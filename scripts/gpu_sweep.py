"""Run many studies' sweeps on one GPU machine, within a wall-clock window.

    python scripts/gpu_sweep.py --plan paper-main paper-supporting --workers 15 \
        --stop-starting-after 400 --hard-stop-after 540 --pack OUTDIR

Settings that may share a batch (same benchmark, architecture and batch size; any
learning rate, loss weights, noise level, datasets) are merged into groups of at most
``--max-group`` replicates; each group is one batched model trained on the GPU by one
worker process (one CPU core drives each; ``--workers`` processes share the GPU), then
evaluated (forward solves on the CPU) and stored in the results store exactly as
``binn sweep`` would.  Groups start in the plan's order (longest first within a plan
entry) until ``--stop-starting-after`` seconds; groups still running at
``--hard-stop-after`` are abandoned (nothing half-written is stored: the store is
resumable).  With ``--pack DIR`` the result files written by this run are copied, every
half minute and at the end, into tar files of at most 15 MB in DIR (for fetching them
from a remote machine).
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import tarfile
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from binn_utils import studies  # noqa: E402
from binn_utils.cli import settings_for  # noqa: E402
from binn_utils.forward_solve import FORWARD_METHODS  # noqa: E402
from binn_utils.sweeps import default_results_dir, group_settings, run_group  # noqa: E402


def _worker_init():
    import torch
    torch.set_num_threads(1)


def _run_in_worker(group, results_dir, device=None, forward_method="RK45"):
    t0 = time.perf_counter()
    recs = run_group(group, results_dir, device=device, forward_method=forward_method)
    return [s.key for s in group], time.perf_counter() - t0, [r["status"] for r in recs]

STUDY_SET = ("learning_rate", "loss_weight", "architecture", "batch_size")
# plan entries: (study, preset, noise_var or None for the study's default, dense)
PLANS = {
    "paper-main": [("defaults", "paper", None, False), ("learning_rate", "paper", None, False),
                   ("loss_weight", "paper", None, False), ("architecture", "paper", None, False),
                   ("batch_size", "paper", None, False), ("noise", "paper", None, False)],
    "paper-architecture": [("architecture", "paper", None, False)],
    "paper-supporting": [(s, "paper", nv, False) for nv in (0.0, 1e-2) for s in STUDY_SET],
    "quick-test": [("learning_rate", "quick", None, False), ("architecture", "quick", None, False)],
    # the 71-point Supporting Material repeats of two studies with fewer initialisations but
    # the paper's epochs (run with --epochs 4000): replicates reduced before epochs
    "sm-epochs": [(s, "lite", nv, False) for nv in (0.0, 1e-3, 1e-2) for s in ("learning_rate", "loss_weight")],
    "lite-dense": ([(s, "lite", nv, True) for nv in (1e-3, 0.0, 1e-2) for s in STUDY_SET]
                   + [("noise", "lite", None, True)]),
}


@functools.lru_cache(maxsize=None)
def _n_train(benchmark: str, dense: bool) -> int:
    from binn_utils.observations import make_observations
    return len(make_observations(benchmark, 0.0, dense=dense).train_idx)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def group_cost(group) -> float:
    """Rough relative cost: optimiser steps plus validations, times the network size."""
    s = group[0]
    n_train = _n_train(s.benchmark, bool(s.dense))
    B = min(s.config.batch_size, n_train)
    size = 1.0 if tuple(s.config.arch_u) == (4, 32) else 8.0
    return s.config.epochs * (math.ceil(n_train / B) + 0.5) * size * (1 + sum(len(x.seeds) for x in group) / 400)


def pack(new_files, out_dir: Path, limit=15_000_000):
    """Write the files into out_dir/results-NN.tar parts of at most ``limit`` bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    parts, cur, size = [], [], 0
    for f in sorted(new_files):
        n = f.stat().st_size + 2048
        if cur and size + n > limit:
            parts.append(cur)
            cur, size = [], 0
        cur.append(f)
        size += n
    if cur:
        parts.append(cur)
    for i, files in enumerate(parts):
        tmp = out_dir / f".results-{i:02d}.tar.tmp"
        with tarfile.open(tmp, "w") as tar:
            for f in files:
                tar.add(f, arcname=f"runs/{f.name}")
        os.replace(tmp, out_dir / f"results-{i:02d}.tar")
    return len(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plan", nargs="+", required=True, choices=sorted(PLANS))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--forward-method", default="RK45", choices=FORWARD_METHODS,
                    help="integrator of the u_p forward solves (recorded with each setting)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--max-group", type=int, default=160, help="replicates per batched model")
    ap.add_argument("--stop-starting-after", type=float, default=float("inf"))
    ap.add_argument("--hard-stop-after", type=float, default=float("inf"))
    ap.add_argument("--pack", default=None, help="folder for tar parts of the new result files")
    ap.add_argument("--results-dir", default=None)
    ap.add_argument("--studies", nargs="+", default=None,
                    help="only these studies of the plans (e.g. batch_size)")
    ap.add_argument("--skip-studies", nargs="+", default=(), help="leave these studies of the plans out")
    ap.add_argument("--epochs", type=_positive_int, default=None, help="override the presets' epochs")
    ap.add_argument("--dry-run", action="store_true", help="print the groups and exit")
    args = ap.parse_args(argv)
    known = {e[0] for entries in PLANS.values() for e in entries}
    unknown = sorted((set(args.studies or ()) | set(args.skip_studies)) - known)
    if unknown:
        ap.error(f"unknown stud{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
                 f"known: {', '.join(sorted(known))}")
    t0 = time.perf_counter()
    results_dir = Path(args.results_dir or default_results_dir())
    runs = results_dir / "runs"
    before = {p.name for p in runs.glob("*")} if runs.exists() else set()

    groups, seen = [], set()
    for plan in args.plan:
        todo = []
        for study, preset, nv, dense in PLANS[plan]:
            if (args.studies is not None and study not in args.studies) or study in args.skip_studies:
                continue
            todo += [s for s in settings_for(study, preset, nv, dense, epochs=args.epochs)
                     if s.key not in seen and not s.is_done(results_dir)]
            seen.update(s.key for s in todo)
        gs = group_settings(todo, merge=True, max_replicates=args.max_group)
        groups += sorted(gs, key=group_cost, reverse=True)
    n_set = sum(len(g) for g in groups)
    print(f"{len(groups)} groups, {n_set} settings, {sum(len(s.seeds) for g in groups for s in g)} replicates",
          flush=True)
    for i, g in enumerate(groups):
        print(f"  group {i:3d}: {g[0].study:18s} {g[0].benchmark:20s} {len(g):2d} settings "
              f"{sum(len(s.seeds) for s in g):4d} replicates, cost {group_cost(g):9.0f}", flush=True)
    if args.dry_run or not groups:
        return 0

    def elapsed():
        return time.perf_counter() - t0

    def pack_now():
        if args.pack:
            new = [p for p in runs.glob("*") if p.name not in before and not p.name.startswith(".")
                   and ".tmp" not in p.name]
            n = pack(new, Path(args.pack))
            print(f"[{elapsed():6.0f} s] packed {len(new)} files into {n} tar part(s)", flush=True)

    import multiprocessing as mp
    pool = ProcessPoolExecutor(max_workers=args.workers, mp_context=mp.get_context("spawn"),
                               initializer=_worker_init)
    futures = {pool.submit(_run_in_worker, g, results_dir, args.device, args.forward_method): g
               for g in groups}
    pending, n_ok, n_fail, last_pack, cancelled = set(futures), 0, 0, elapsed(), False
    while pending and elapsed() < args.hard_stop_after:
        done, pending = wait(pending, timeout=5, return_when=FIRST_COMPLETED)
        for fut in done:
            g = futures[fut]
            if fut.cancelled():
                continue
            try:
                keys, secs, status = fut.result()
                n_ok += len(g)
                print(f"[{elapsed():6.0f} s] done {g[0].study} {g[0].label!r} +{len(g) - 1} "
                      f"({sum(len(s.seeds) for s in g)} replicates, {secs:.0f} s)", flush=True)
            except Exception as exc:  # noqa: BLE001 - report, go on with the others
                n_fail += len(g)
                print(f"[{elapsed():6.0f} s] FAILED {g[0].study} {g[0].label!r}: {type(exc).__name__}: {exc}",
                      flush=True)
        if n_fail and not n_ok and n_fail >= min(3, len(groups)):
            print("the first groups all failed: giving up", flush=True)
            break
        if not cancelled and elapsed() > args.stop_starting_after:
            n_c = sum(f.cancel() for f in pending)
            cancelled = True
            print(f"[{elapsed():6.0f} s] stopped starting groups; {n_c} not started", flush=True)
        if elapsed() - last_pack > 30:
            pack_now()
            last_pack = elapsed()
    pack_now()
    print(f"finished: {n_ok} settings stored, {n_fail} failed, "
          f"{sum(len(futures[f]) for f in pending if not f.cancelled())} abandoned", flush=True)
    sys.stdout.flush()
    if not pending:
        pool.shutdown(wait=True)
        return 0
    for proc in list(getattr(pool, "_processes", {}).values()):  # abandon running groups
        proc.terminate()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
