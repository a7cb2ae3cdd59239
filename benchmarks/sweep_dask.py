"""Sweep throughput: the Dask path of ``run_settings`` against a plain ProcessPoolExecutor.

    python benchmarks/sweep_dask.py [--rounds 2] [--workers 2] [--study learning_rate]

Runs the same small sweep (a study of the quick scale: 12 epochs, 2 replicates per
setting, BDF forward solves) alternately, ``--rounds`` times each, into fresh temporary
stores:

* ``dask``: ``run_settings(workers=W)``, i.e. what ``binn sweep`` does: an embedded
  LocalCluster of W single-threaded worker processes, started and closed by the call,
  each result written by the client;
* ``pool``: the executor this replaced: a ``ProcessPoolExecutor`` of W spawned,
  single-threaded processes running the same task (``compute.group_task``), results
  stored by the parent as they come back.

Both times include starting and stopping the workers.  Prints settings per minute of
each run and the median of each path.
"""
import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from binn_utils.applications.cli import settings_for  # noqa: E402
from binn_utils.store.compute import group_task  # noqa: E402
from binn_utils.store.runner import run_settings, store_computed  # noqa: E402
from binn_utils.store.setting import group_settings  # noqa: E402

FORWARD = "BDF"


def _init():
    import torch
    torch.set_num_threads(1)


def run_pool(settings, results_dir, workers):
    groups = group_settings(settings, merge=False)
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_init) as pool:
        futures = {pool.submit(group_task, g, None, FORWARD): g for g in groups}
        for fut in as_completed(futures):
            outputs, _ = fut.result()
            for s, (arrays, record) in zip(futures[fut], outputs):
                store_computed(s, arrays, record, results_dir)


def run_dask(settings, results_dir, workers):
    run_settings(settings, results_dir, workers=workers, progress=False, forward_method=FORWARD)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--study", default="learning_rate")
    args = ap.parse_args(argv)
    settings = settings_for(args.study, "quick")
    print(f"{len(settings)} settings of {args.study} (quick scale), {args.workers} workers, "
          f"{args.rounds} rounds of each path, alternating", flush=True)
    rates = {"dask": [], "pool": []}
    for r in range(args.rounds):
        for name, fn in (("dask", run_dask), ("pool", run_pool)) if r % 2 == 0 else \
                (("pool", run_pool), ("dask", run_dask)):
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                fn(settings, tmp, args.workers)
                secs = time.perf_counter() - t0
                assert all(s.is_done(tmp) for s in settings)
            rates[name].append(len(settings) / secs * 60)
            print(f"round {r}: {name:4s} {secs:6.1f} s  {rates[name][-1]:6.2f} settings/min", flush=True)
    dask, pool = statistics.median(rates["dask"]), statistics.median(rates["pool"])
    print(f"median: dask {dask:.2f} settings/min, pool {pool:.2f} settings/min; "
          f"dask/pool = {dask / pool:.3f}")


if __name__ == "__main__":
    main()
