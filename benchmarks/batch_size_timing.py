"""Time per epoch and per optimiser step for each batch size, as the paper's Fig. 6 measures it; prints its figures.

    python benchmarks/batch_size_timing.py [--rounds 7] [--epochs 2] [--json results/benchmarks/batch_size_timing.json]

The paper trains "on the CPU", one network at a time, with plain autograd and Adam, and
validates every epoch.  This benchmark times that trainer (``tests/reference_binn.py``: the
plain-autograd reference that the fast trainer is tested against, float32 as published) on
the Fig. 6 configuration (diffusion, 71 x 7 data, noise 1e-3: ``binn_utils.studies.batch_size.TIMING_*``;
N_PDE = N_BC = 40) for
B = 10, 40, 160, 640, in ONE process on ONE device, the batch sizes interleaved round by
round (so a change of the machine's load during the run affects every B alike), and prints:

* per B: optimiser steps per epoch, the median time per step and per epoch (training and
  the epoch's validation) over the rounds, and the 4000-epoch time T it implies;
* the fit T = a / B + c (least squares) and its R^2: the paper's claim T proportional to 1/B;
* the paper's five-minute budget and the authors' ten (their archived FIXEDTIME10 runs)
  turned into optimiser steps and epochs per B on this machine.

The first line names the machine, torch and the load average: the absolute times are this
machine's; the ratios between batch sizes are what carries over.  ``--json`` also writes the
figures (and the printout) to a file: the committed one, results/benchmarks/batch_size_timing.json,
is what the batch-size chapter and claim 10 read.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

BATCH_SIZES = (10, 40, 160, 640)
BUDGETS_MIN = {"the paper's five minutes": 5, "the authors' ten minutes (FIXEDTIME10)": 10}


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "load n/a"


class Trainer:
    """One network trained by the plain-autograd reference: ``epoch(B)`` runs one epoch of
    mini-batches of ``B`` training points and the epoch's validation, returning (seconds
    of training, seconds of validation, steps)."""

    def __init__(self, seed: int = 0):
        from reference_binn import RefBINN
        from binn_utils.engine.networks import xavier_init
        from binn_utils.engine.observations import make_observations
        from binn_utils.engine.training import TrainConfig, build_layout
        from binn_utils.studies.batch_size import TIMING_DENSE, TIMING_NOISE_VAR

        self.cfg = TrainConfig()
        layout = build_layout(self.cfg, ("D",))
        self.model = RefBINN(layout, xavier_init(layout, seed), dtype=torch.float32)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=self.cfg.lr)
        obs = make_observations("diffusion", TIMING_NOISE_VAR, dense=TIMING_DENSE)
        self.train_pts = torch.tensor(obs.points("train"), dtype=torch.float32)
        self.val_pts = torch.tensor(obs.points("val"), dtype=torch.float32)
        self.gen = torch.Generator().manual_seed(seed)
        self.w = torch.tensor([self.cfg.w_data, self.cfg.w_pde, self.cfg.w_bc], dtype=torch.float32)
        x, t = self.train_pts[:, 0], self.train_pts[:, 1]
        self.box = (float(x.min()), float(x.max()), float(t.min()), float(t.max()))

    def _colloc(self, n, n_bc):
        x0, x1, t0, t1 = self.box
        pde = torch.rand(n, 2, generator=self.gen) * torch.tensor([x1 - x0, t1 - t0]) + torch.tensor([x0, t0])
        tb = t0 + (t1 - t0) * torch.rand(n_bc, generator=self.gen)
        bc = torch.stack([torch.cat([torch.full((n_bc,), x0), torch.full((n_bc,), x1)]), torch.cat([tb, tb])], 1)
        return pde, bc

    def epoch(self, B: int):
        n = self.train_pts.shape[0]
        B = min(B, n)
        order = torch.randperm(n, generator=self.gen)
        steps = math.ceil(n / B)
        t0 = time.perf_counter()
        for k in range(steps):
            idx = order[k * B:(k + 1) * B]
            pde, bc = self._colloc(self.cfg.n_pde, self.cfg.n_bc)
            loss = (self.model.losses(pde, bc, self.train_pts[idx, :2], self.train_pts[idx, 2]) * self.w).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        t1 = time.perf_counter()
        pde, bc = self._colloc(self.cfg.val_n_pde, self.cfg.val_n_bc)
        val = (self.model.losses(pde, bc, self.val_pts[:, :2], self.val_pts[:, 2]) * self.w).sum()
        float(val.detach())
        return t1 - t0, time.perf_counter() - t1, steps, B


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (each B once per round)")
    ap.add_argument("--epochs", type=int, default=2, help="epochs per B per round")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args()
    lines = []

    def say(line):
        print(line, flush=True)
        lines.append(line)

    if args.rounds < 1 or args.epochs < 1:
        ap.error("--rounds and --epochs must be positive")
    torch.set_num_threads(1)
    say(f"batch-size timing: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, one thread, "
          f"torch {torch.__version__}, the plain-autograd reference trainer (float32); {_load()}")
    trainers = {B: Trainer(seed=0) for B in BATCH_SIZES}  # one network per B, as in the paper
    for B in BATCH_SIZES:  # warm-up epoch each
        trainers[B].epoch(B)
    times = {B: [] for B in BATCH_SIZES}
    for _ in range(args.rounds):
        for B in BATCH_SIZES:
            for _ in range(args.epochs):
                times[B].append(trainers[B].epoch(B))
    rows = []
    for B in BATCH_SIZES:
        train_s = np.array([t[0] for t in times[B]])
        val_s = np.array([t[1] for t in times[B]])
        steps, used = times[B][0][2], times[B][0][3]
        step_ms = 1e3 * float(np.median(train_s)) / steps
        epoch_s = float(np.median(train_s + val_s))
        rows.append((B, steps, step_ms, epoch_s, 4000 * epoch_s, used))
        say(f"B = {B:4d}{'' if used == B else f' (full batch: {used})'}: {steps:3d} steps per epoch, {step_ms:6.2f} ms per step, {1e3 * epoch_s:8.1f} ms per epoch "
              f"(validation included), 4000 epochs = {4000 * epoch_s:7.0f} s   ({_load()})")
    Bs = np.array([r[5] for r in rows], float)  # the batch size used (a batch larger than the data is clipped)
    T = np.array([r[4] for r in rows])
    A = np.stack([1 / Bs, np.ones_like(Bs)], 1)
    (a, c), *_ = np.linalg.lstsq(A, T, rcond=None)
    r2 = 1 - np.sum((T - A @ np.array([a, c])) ** 2) / np.sum((T - T.mean()) ** 2)
    say(f"fit T = a/B + c: a = {a:.0f} s, c = {c:.0f} s, R^2 = {r2:.4f}")
    for name, minutes in BUDGETS_MIN.items():
        parts = []
        for B, steps, step_ms, epoch_s, _, _ in rows:
            n_ep = 60 * minutes / epoch_s
            parts.append(f"B = {B}: {n_ep * steps:,.0f} steps, {n_ep:,.0f} epochs")
        say(f"{name} on this machine: " + "; ".join(parts))
    say(f"done ({_load()})")
    if args.json:
        out = {"machine": platform.processor() or platform.machine(), "cores": os.cpu_count(),
               "torch": torch.__version__, "trainer": "plain-autograd reference (tests/reference_binn.py), float32",
               "rounds": args.rounds, "epochs_per_round": args.epochs,
               "batch_sizes": [{"B": B, "B_used": used, "epoch_steps": steps, "ms_per_step": step_ms,
                                "s_per_epoch": epoch_s, "s_4000_epochs": T4000}
                               for B, steps, step_ms, epoch_s, T4000, used in rows],
               "fit": {"a_s": float(a), "c_s": float(c), "r2": float(r2)},
               "budgets_min": BUDGETS_MIN, "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
               "printout": lines,
               "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
