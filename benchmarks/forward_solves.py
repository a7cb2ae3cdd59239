"""Throughput of the u_p forward solves, one process against a pool; prints its figures.

    python benchmarks/forward_solves.py [--replicates 8] [--workers N] [--rk45-dense]

Trains R replicates briefly (150 epochs, seeds 0..R-1) on the diffusion data, noise 1e-3,
on the 71-point and the 351-point grid, then times the R forward solves of the learned PDEs
(``forward_solve_many``) one after the other and in a pool of N processes
(``solve_workers.solve_pool``, as an in-process ``binn sweep`` runs them), with BDF and
with the paper's RK45 (on the 351-point grid RK45 is stability-limited, about a minute
per solve: only with ``--rk45-dense``).  Prints solves per second and checks that the
pool returns the same solutions.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from binn_utils import studies
from binn_utils.engine.forward_solve import forward_solve_many
from binn_utils.engine.solve_workers import solve_pool
from binn_utils.engine.observations import make_observations
from binn_utils.engine.training import train


def jobs(dense: bool, R: int):
    data = make_observations("diffusion", 1e-3, dense=dense)
    cfg = studies.noise_study("quick", dense=dense)[0].config.replace(epochs=150, compile=False, batch_size=160)
    res = train(data, cfg, seeds=list(range(R)))
    ops = [[res.operator(n, r, "final") for n in ("D", "V", "G")] for r in range(R)]
    u0 = list(res.u_theta(data.x, data.t, "final")[:, 0])
    return ops, u0, data.x, data.t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replicates", type=int, default=8)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rk45-dense", action="store_true")
    args = ap.parse_args()
    pool = solve_pool(args.workers if args.workers > 1 else 0)
    try:
        if pool is not None:  # wait until the processes (started at once) have imported what they need
            list(pool.map(abs, range(args.workers)))
        print(f"{args.replicates} solves per line; pool of {args.workers} processes on {os.cpu_count()} cores")
        for dense in (False, True):
            ops, u0, x, t = jobs(dense, args.replicates)
            for method in ("BDF", "RK45"):
                if dense and method == "RK45" and not args.rk45_dense:
                    continue
                line = f"{x.size:3d}-point grid, {method:4s}:"
                out = {}
                for name, m in (("1 process", None), (f"{args.workers} processes", None if pool is None else pool.map)):
                    if name != "1 process" and m is None:
                        continue
                    t0 = time.perf_counter()
                    out[name] = forward_solve_many(ops, u0, x, t, solve_map=m, method=method)
                    dt = time.perf_counter() - t0
                    line += f"  {name}: {len(ops) / dt:7.2f} solves/s"
                sols = list(out.values())
                same = all(np.array_equal(a.u, b.u, equal_nan=True) for a, b in zip(sols[0], sols[-1]))
                failed = sum(not s.ok for s in sols[0])
                print(line + f"  (same solutions: {same}; {failed} failed)", flush=True)
    finally:
        if pool is not None:
            pool.shutdown()


if __name__ == "__main__":
    main()
