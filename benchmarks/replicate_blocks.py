"""The CPU step before and after blocks of replicates; prints its figures (no assertions).

    python benchmarks/replicate_blocks.py                      # the noise study's (6, 128), R = 60
    python benchmarks/replicate_blocks.py --arch-u 4 32 --R 100 --epochs 10
    python benchmarks/replicate_blocks.py --blocks 0 30 10 5 2  # 0: all R in one block

The trainer's own pace (``train`` on the diffusion benchmark, 71 x 7 data, noise 1e-3, the
paper's hyperparameters but the u-network, one intra-op thread, float32) with each optimiser
step run over all R replicates at once ("before") and block by block (``kernels.replicate_blocks``:
the default blocks, "after", and any asked for), in this thread's CPU microseconds per
replicate-step after one epoch that loads the kernels.  The settings are timed in turn, round
after round, and each figure is the median over rounds; each is also said as a ratio to the
plain-autograd reference step of the default configuration timed in the same run
(``speed.reference_step_us``, in CPU time), so that runs on a machine of another day's speed
compare.  The numbers of every block size are the same bit for bit (tests/test_training.py).
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from binn_utils.engine.kernels import replicate_blocks
from binn_utils.engine.observations import make_observations
from binn_utils.engine.runs import TrainConfig, build_layout
from binn_utils.engine.training import train
from speed import reference_step_us   # (benchmarks/, the script's folder, is on the path)
from step_profile import load


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--R", type=int, default=60)
    ap.add_argument("--arch-u", type=int, nargs=2, default=(6, 128), metavar=("H", "N"))
    ap.add_argument("--epochs", type=int, default=4, help="epochs per timed run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--blocks", type=int, nargs="*", default=[], help="more block sizes to time (0: one block)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    R, cfg = args.R, TrainConfig(arch_u=tuple(args.arch_u), epochs=args.epochs, chunk_epochs=args.epochs)
    layout = build_layout(cfg, ("D",))
    default = replicate_blocks(R, layout, torch.device("cpu"))
    sizes = sorted({j - i for i, j in default})
    print(f"replicate blocks: torch {torch.__version__}, one thread, R = {R}, u network {cfg.arch_u} "
          f"({layout.n_params:,} parameters a replicate), {args.epochs} epochs a run, {args.rounds} rounds; "
          f"default blocks: {len(default)} of {'/'.join(map(str, sizes))} replicates; {load()}")
    asked = {"before (one block)": R, "after (the default blocks)": None}
    asked.update({f"blocks of {b}": (b or R) for b in args.blocks})
    obs = make_observations("diffusion", 1e-3)
    for block in asked.values():   # the kernels loaded (or compiled) in this process
        train(obs, cfg.replace(epochs=1, chunk_epochs=1), seeds=range(R), replicate_block=block)
    times = {name: [] for name in asked}
    for _ in range(args.rounds):
        for name, block in asked.items():
            t0 = time.thread_time()
            res = train(obs, cfg, seeds=range(R), replicate_block=block)
            times[name].append(1e6 * (time.thread_time() - t0) / (res.epochs_run * res.steps_per_epoch * R))
    ref = reference_step_us(100, clock=time.thread_time)
    before = statistics.median(times["before (one block)"])
    for name, ts in times.items():
        us = statistics.median(ts)
        print(f"  {name:<28s} {us:8.1f} us per replicate-step = {us / ref:.3f} reference steps "
              f"({before / us:.2f}x the speed of one block)")
    print(f"  (the reference: the plain-autograd step of the default configuration, one model, {ref:.0f} us "
          f"in CPU time, measured now; {load()})")


if __name__ == "__main__":
    main()
