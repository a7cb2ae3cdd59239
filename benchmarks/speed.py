"""Speed benchmark of the BINN trainer; prints its figures (no assertions).

    python benchmarks/speed.py                 # everything (a few minutes)
    python benchmarks/speed.py --quick         # fewer steps, no full run
    python benchmarks/speed.py --device cuda   # GPU: one process, R in the thousands

0. cold and warm start: a fresh process that imports the trainer and trains one epoch of
   10 replicates, first with an empty compile cache (every kernel compiled), then again
   (every kernel loaded from the cache that the first filled; ``engine.kernels.compile_cache_dir``);
1. the plain reference step (one model, nested autograd, torch.optim.Adam; tests/reference_binn.py);
2. the fast step (batched, derivatives propagated analytically, hand-written backward,
   torch.compile) for R = 1, 10, 50 on one thread, for the (6, 128) solution network and for
   the dense (351-node) grid's batch of 40, and with one single-threaded process per core;
3. a full default run: 10 replicates x 4000 epochs on the diffusion benchmark (71 x 7 data,
   noise 1e-3, B = 40, per-epoch validation), replicates split over one process per core.
Default configuration = the paper's hyperparameter table (u, D networks (4, 32)).  Each line
ends with the 1-minute load average: the machine may be shared, and the figures are only
comparable at equal load.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _setup():
    torch.set_num_threads(1)


def reference_step_us(n_steps: int, clock=time.perf_counter) -> float:
    """Microseconds per optimiser step of the plain autograd reference (float32 cast), on
    ``clock`` (wall time; ``time.thread_time``: this thread's CPU time)."""
    from reference_binn import RefBINN
    from binn_utils.engine.networks import xavier_init
    from binn_utils.engine.observations import make_observations
    from binn_utils.engine.training import TrainConfig, build_layout

    layout = build_layout(TrainConfig(), ("D",))
    model = RefBINN(layout, xavier_init(layout, 0), dtype=torch.float32)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    obs = make_observations("diffusion", 1e-3)
    pts = torch.tensor(obs.points("train"), dtype=torch.float32)
    gen = torch.Generator().manual_seed(0)
    w = torch.tensor([1.0, 0.1, 0.001])

    def step():
        idx = torch.randperm(pts.shape[0], generator=gen)[:40]
        pde = torch.rand(40, 2, generator=gen) * torch.tensor([14.0, 18.0]) - torch.tensor([7.0, 0.0])
        bc = torch.stack([torch.cat([torch.full((40,), -7.0), torch.full((40,), 7.0)]),
                          18 * torch.rand(80, generator=gen)], 1)
        loss = (model.losses(pde, bc, pts[idx, :2], pts[idx, 2]) * w).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(5):
        step()
    t0 = clock()
    for _ in range(n_steps):
        step()
    return 1e6 * (clock() - t0) / n_steps


def fast_run(R: int, epochs: int, seed0: int = 0, arch_u=(4, 32), dense: bool = False, device=None):
    """(compile+warm-up seconds, timed training seconds, replicate-steps, result) on this process."""
    from binn_utils.engine.observations import make_observations
    from binn_utils.engine.training import TrainConfig, train

    _setup()
    obs = make_observations("diffusion", 1e-3, dense=dense)
    seeds = list(range(seed0, seed0 + R))
    t0 = time.perf_counter()
    train(obs, TrainConfig(epochs=2, arch_u=arch_u), seeds=seeds, device=device)  # compile, warm up
    warm = time.perf_counter() - t0
    res = train(obs, TrainConfig(epochs=epochs, arch_u=arch_u), seeds=seeds, device=device)
    return warm, res.wall_time_s, res.epochs_run * res.steps_per_epoch * R, res


_START_PROBE = """
import sys, time
t0 = time.perf_counter()
import torch
from binn_utils.engine.observations import make_observations
from binn_utils.engine.training import TrainConfig, train
torch.set_num_threads(1)
t1 = time.perf_counter()
res = train(make_observations("diffusion", 1e-3), TrainConfig(epochs=1), seeds=range(10))
print(t1 - t0, res.extra["first_epoch_s"], time.time() - float(sys.argv[1]))
"""


def start_times(cache_dir) -> tuple:
    """(import seconds, first-epoch seconds (compiling or loading the kernels), seconds from
    launching the process to its first epoch trained, process wall seconds (its exit
    included)) of a fresh process training one epoch with the compile cache ``cache_dir``."""
    import subprocess
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache_dir), "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _START_PROBE, repr(time.time())], env=env, capture_output=True,
                         text=True, check=True)
    wall = time.perf_counter() - t0
    imp, first, trained = map(float, out.stdout.split()[-3:])
    return imp, first, trained, wall


def start_lines():
    import tempfile
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold start (empty compile cache):", "warm start (kernels in the cache):"):
            imp, first, trained, wall = start_times(cache)
            print(f"{label:<44s} {trained:6.1f} s from process start to one epoch trained   (import {imp:4.1f} s, "
                  f"first epoch incl. {'compiling' if 'cold' in label else 'loading'} the kernels {first:5.1f} s; "
                  f"{wall:5.1f} s with the process's exit; {_load()})", flush=True)


def _load() -> str:
    return f"load {os.getloadavg()[0]:4.1f}"


def _worker(args):
    R, epochs, seed0 = args
    warm, wall, rs, res = fast_run(R, epochs, seed0)
    return warm, wall, rs, res.history["val_total"][:, -1]


def parallel(R_total: int, epochs: int, procs: int):
    per = [R_total // procs + (1 if i < R_total % procs else 0) for i in range(procs)]
    seed0 = np.cumsum([0] + per[:-1])
    ctx = mp.get_context("spawn")
    t0 = time.perf_counter()
    with ctx.Pool(procs, initializer=_setup) as pool:
        out = pool.map(_worker, [(p, epochs, int(s)) for p, s in zip(per, seed0)])
    total = time.perf_counter() - t0
    warm = max(o[0] for o in out)
    train_wall = max(o[1] for o in out)
    rs = sum(o[2] for o in out)
    return total, warm, train_wall, rs, np.concatenate([o[3] for o in out])


def cuda_lines(Rs, epochs: int, big_Rs=()):
    """GPU: one process trains R replicates as one batched model (float32, default
    configuration, the 71-point grid), each epoch replayed as a CUDA graph, random numbers
    drawn on the CPU by a thread pool one chunk ahead.  Steady state: the first epoch
    (compiling and capturing) is left out."""
    from binn_utils.engine.observations import make_observations
    from binn_utils.engine.networks import ENGINE_VERSION
    from binn_utils.engine.training import TrainConfig, device_name, train

    obs = make_observations("diffusion", 1e-3)
    print(f"GPU: {device_name(torch.device('cuda'))}, torch {torch.__version__}")
    print(f"engine version {ENGINE_VERSION}")
    runs = [(dense, R, (4, 32)) for dense in (False, True) for R in Rs]
    runs += [(False, R, (6, 128)) for R in big_Rs]
    for dense, R, arch_u in runs:
        d = make_observations("diffusion", 1e-3, dense=True) if dense else obs
        res = train(d, TrainConfig(epochs=epochs, arch_u=arch_u), seeds=list(range(R)), device="cuda")
        rs = res.epochs_run * res.steps_per_epoch * R
        us = 1e6 * res.extra["steady_time_s"] / rs
        net = "" if arch_u == (4, 32) else f", u network {arch_u}"
        print(f"GPU fast step, R={R:5d}, {'351' if dense else ' 71'}-point grid{net}: {us:7.2f} us per replicate-step "
              f"({1e3 * res.extra['steady_time_s'] / (res.epochs_run * res.steps_per_epoch):6.3f} ms per step; "
              f"first epoch incl. compile and capture {res.extra['first_epoch_s']:5.1f} s; "
              f"CUDA graph {res.extra['cuda_graph']})", flush=True)


def _fast_line(label, ref, R, epochs, **kw):
    warm, wall, rs, res = fast_run(R, epochs, **kw)
    us = 1e6 * wall / rs
    vs = f"x{ref / us:5.1f} vs reference; " if ref else ""
    print(f"{label:<44s} {us:8.1f} us per replicate-step   ({vs}compile+warm-up {warm:5.1f} s; {_load()})",
          flush=True)
    return us


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer steps and no full default run")
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--replicates", type=int, nargs="+", default=[200, 2000, 10000], help="GPU: replicate counts")
    ap.add_argument("--big-replicates", type=int, nargs="*", default=[200, 500, 2000],
                    help="GPU: replicate counts for the (6, 128) u network (71 points)")
    ap.add_argument("--epochs", type=int, default=20, help="GPU: epochs per timed run")
    args = ap.parse_args()
    if args.device == "cuda":
        cuda_lines(args.replicates, args.epochs, args.big_replicates)
        return
    _setup()
    print(f"torch {torch.__version__}, {os.cpu_count()} cores, one thread per process, float32; {_load()}",
          flush=True)
    start_lines()
    ref = reference_step_us(50 if args.quick else 200)
    print(f"{'reference step (one model, nested autograd):':<44s} {ref:8.0f} us per replicate-step   "
          f"({_load()})", flush=True)
    epochs = 20 if args.quick else 100
    for R in (1, 10, 50):
        _fast_line(f"fast step, R={R:3d}, 1 process:", ref, R, epochs)
    _fast_line("fast step, R= 10, u network (6, 128):", ref, 10, max(2, epochs // 5), arch_u=(6, 128))
    _fast_line("fast step, R= 10, dense grid (351 x 7), B=40:", ref, 10, max(2, epochs // 5), dense=True)
    total, warm, wall, rs, _ = parallel(50, epochs, args.procs)
    us = 1e6 * wall / rs
    print(f"{f'fast step, R=50 over {args.procs} processes:':<44s} {us:8.1f} us per replicate-step   "
          f"(x{ref / us:5.1f} vs reference; machine-wide; {_load()})", flush=True)
    if not args.quick:
        total, warm, wall, rs, val = parallel(10, 4000, args.procs)
        print(f"full default run, 10 replicates x 4000 epochs over {args.procs} processes: "
              f"{wall:6.1f} s training ({total:6.1f} s wall including process start and "
              f"{warm:5.1f} s compile/warm-up); final validation loss median {np.median(val):.2e}; {_load()}",
              flush=True)


if __name__ == "__main__":
    main()
