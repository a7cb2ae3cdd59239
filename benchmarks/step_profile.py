"""Where one compiled training step's time goes on one CPU thread, and the floor of its
arithmetic; prints its figures (no assertions).

    python benchmarks/step_profile.py              # R = 50, the default configuration
    python benchmarks/step_profile.py --R 10 --rounds 5
    python benchmarks/step_profile.py --arch-u 6 128 --R 10   # the noise study's larger u-network

The default configuration (the paper's hyperparameter table: u and D networks (4, 32),
B = 40, N_PDE = 40, N_BC = 40) on the diffusion benchmark (71 x 7 data, noise 1e-3), R
replicates as one batched model, float32, denormals flushed, one intra-op thread.  The step
is split into parts, each compiled as the trainer compiles its kernels (C++ wrapper) and
timed on the same inputs, in CPU microseconds of this thread per replicate-step (the median
of ``--rounds`` rounds: CPU time, so that a loaded machine slows the figures less than it
would wall time):

* data movement: what ``training._Run.run_epoch`` does in line around the kernels, per step
  (``_Run._steps``: the epoch's mini-batches gathered, its collocation and boundary points
  laid out step by step, once per epoch);
* forward: the values alone -- u at every row, D at the collocation points;
* derivatives: the loss terms with u_x, u_t, u_xx, D' and the PDE residual
  (``losses.loss_components``) less the forward;
* backward: the trainer's step kernel (``losses.loss_and_grad``: losses and gradient) less
  ``loss_components``;
* optimiser: the trainer's Adam kernel (with the step counter and the running loss);
* validation: the per-epoch validation kernel spread over the epoch's steps.

The sum is compared with the trainer's own pace (``train`` over 20 epochs, in CPU time, its
random draws included), also said as a ratio to the plain-autograd reference step of the
default configuration timed in the same run (``speed.reference_step_us``, in CPU time), so
that runs on a machine of another day's speed compare.  The
floor: the step's matrix-product FLOPs (every bmm of one step, recorded with their shapes)
over the fastest rate measured for those same shapes on this core; and the same products
timed one by one (the step cannot take less than its products).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import torch

from binn_utils.engine.kernels import compiled_kernels, flush_denormals
from binn_utils.engine.losses import loss_components
from binn_utils.engine.networks import leaf_views, mlp_value, xavier_init
from binn_utils.engine.observations import make_observations
from binn_utils.engine.runs import TrainConfig, build_layout
from binn_utils.engine.sampling import collocation
from binn_utils.engine.training import _Run, train
from speed import reference_step_us   # (benchmarks/, the script's folder, is on the path)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_us(fn, n: int, rounds: int) -> float:
    """Median over ``rounds`` of this thread's CPU microseconds per call of ``fn`` (n calls)."""
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        times.append((time.thread_time() - t0) / n * 1e6)
    return statistics.median(times)


class Inputs:
    """One step's inputs at R replicates, drawn as the trainer draws them."""

    def __init__(self, R: int, cfg: TrainConfig):
        obs = make_observations("diffusion", 1e-3)
        self.layout = build_layout(cfg, ("D",))
        self.R, self.B, self.P, self.nb = R, cfg.batch_size, cfg.n_pde, cfg.n_bc
        gen = torch.Generator().manual_seed(0)
        self.flat = torch.stack([xavier_init(self.layout, s, torch.float32) for s in range(R)])
        self.flat += 0.05 * torch.randn(self.flat.shape, generator=gen)   # not the zero biases of the start
        self.leaves = leaf_views(self.flat, self.layout)
        self.train_pts = torch.tensor(obs.points("train"), dtype=torch.float32).expand(R, -1, -1).contiguous()
        self.n_train = self.train_pts.shape[1]
        self.S = math.ceil(self.n_train / self.B)
        self.perm = torch.stack([torch.randperm(self.n_train, generator=gen) for _ in range(R)])
        self.cp, self.cb = collocation(gen, obs.x_range, obs.t_range, torch.float32, (R, self.S, self.P),
                                       (R, self.S, 2 * self.nb))
        x0, x1 = obs.x_range
        self.bc_x = torch.cat([torch.full((self.nb,), x0), torch.full((self.nb,), x1)]).float()
        self.weights = torch.tensor([[1.0, 0.1, 1e-3]] * R)
        self.m, self.v = torch.zeros_like(self.flat), torch.zeros_like(self.flat)
        self.lr = torch.full((R, 1), 5e-4)
        self.step_t = torch.zeros(())
        self.acc = torch.zeros(R)
        self.val = collocation(gen, obs.x_range, obs.t_range, torch.float32, (R, cfg.val_n_pde), (R, 2 * cfg.val_n_bc))
        vbx = torch.cat([torch.full((cfg.val_n_bc,), x0), torch.full((cfg.val_n_bc,), x1)]).float()
        self.val_bc = torch.stack([vbx.expand(R, -1), self.val[1]], dim=2)
        vp = torch.tensor(obs.points("val"), dtype=torch.float32).expand(R, -1, -1)
        self.val_xt, self.val_u = vp[..., :2].contiguous(), vp[..., 2].contiguous()
        self.batch_args()

    def batch_args(self):
        """The step kernels' arguments as ``run_epoch`` makes them (``_Run._steps``, the data
        movement, for a whole epoch): the first step's."""
        # the trainer's own code, on this object's attributes of the same names (R, B, S,
        # n_train, train_pts, bc_x)
        self.epoch = _Run._steps(self, self.perm, self.cp, self.cb)
        self.args = self.epoch[0]
        return self.args


def compiled(fn):
    """``fn`` compiled as the trainer compiles its kernels on the CPU, denormals flushed."""
    return flush_denormals(torch.compile(fn, dynamic=False, options={"cpp_wrapper": True}))


def parts(inp: Inputs, n: int, rounds: int) -> dict:
    """CPU microseconds per step of each part (for all R replicates)."""
    lay, P = inp.layout, inp.P
    step, val_fn, adam = compiled_kernels(lay, True)
    netu, netD = lay.net("u"), lay.net("D")

    def values(flat, pde_xt, bc_xt, data_xt):
        u = mlp_value(flat, netu, torch.cat([pde_xt, bc_xt, data_xt], dim=1))
        return u, mlp_value(flat, netD, u[:, :P])

    values_c = compiled(values)
    comps_c = compiled(lambda flat, pde, bc, dxt, du: loss_components(flat, lay, pde, bc, dxt, du))
    cp, bc, dxt, du = inp.args
    # the parts' own copies: the trainer's kernels mark their arguments' replicate axis dynamic
    flat_, cp_, bc_, dxt_, du_ = (a.clone() for a in (inp.flat, cp, bc, dxt, du))
    out = {}
    with torch.no_grad():
        forward = cpu_us(lambda: values_c(flat_, cp_, bc_, dxt_), n, rounds)
        comps = cpu_us(lambda: comps_c(flat_, cp_, bc_, dxt_, du_), n, rounds)
        kernel = step.bind(inp.flat, cp, bc, dxt, du, inp.weights)   # as the trainer calls it
        total, grad = kernel(inp.flat, cp, bc, dxt, du, inp.weights)
        out["data movement"] = cpu_us(inp.batch_args, max(1, n // inp.S), rounds) / inp.S
        out["forward"] = forward
        out["derivatives"] = comps - forward
        whole = cpu_us(lambda: kernel(inp.flat, cp, bc, dxt, du, inp.weights), n, rounds)
        out["backward"] = whole - comps
        # Adam on copies, so that the parameters of the other parts stay where they are
        flat, m, v = inp.flat.clone(), inp.m.clone(), inp.v.clone()
        update = adam.bind(flat, grad, m, v, inp.step_t, inp.lr, inp.acc, total, 0.9, 0.999, 1e-8)
        out["optimiser"] = cpu_us(lambda: update(flat, grad, m, v, inp.step_t, inp.lr, inp.acc, total), n, rounds)
        steps = inp.S
        out["validation"] = cpu_us(lambda: val_fn(inp.leaves, inp.val[0], inp.val_bc, inp.val_xt, inp.val_u),
                                   max(1, n // steps), rounds) / steps
    return out


class _Products(torch.utils._python_dispatch.TorchDispatchMode):
    """Records every batched matrix product of a step with its operands' shapes."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in (torch.ops.aten.bmm.default, torch.ops.aten.baddbmm.default):
            a, b = (args[0], args[1]) if func is torch.ops.aten.bmm.default else (args[1], args[2])
            self.calls.append((tuple(a.shape), tuple(b.shape)))
        return func(*args, **(kwargs or {}))


def floor(inp: Inputs, n: int, rounds: int):
    """(matmul FLOPs per step, the fastest measured rate in FLOP/s, the products timed one by one in us)."""
    from binn_utils.engine.losses import loss_and_grad
    rec = _Products()
    with torch.no_grad(), rec:
        loss_and_grad(inp.flat, inp.layout, *inp.args, inp.weights)
    flops, alone, best = 0, 0.0, 0.0
    gen = torch.Generator().manual_seed(1)
    for (R, m, k), (_, _, nn) in sorted(set(rec.calls)):
        count = rec.calls.count(((R, m, k), (R, k, nn)))
        a, b = torch.randn(R, m, k, generator=gen), torch.randn(R, k, nn, generator=gen)
        us = cpu_us(lambda: torch.bmm(a, b), n, rounds)
        f = 2 * R * m * k * nn
        flops += count * f
        alone += count * us
        best = max(best, f / (us * 1e-6))
    return flops, best, alone


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--R", type=int, default=50)
    ap.add_argument("--steps", type=int, default=200, help="calls per round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--arch-u", type=int, nargs=2, default=None, metavar=("H", "N"),
                    help="the solution network (default: the paper's (4, 32); the noise study's larger: 6 128)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    R = args.R
    cfg = TrainConfig() if args.arch_u is None else TrainConfig(arch_u=tuple(args.arch_u))
    print(f"step profile: torch {torch.__version__}, one thread, R = {R}, u network {cfg.arch_u}, D network {cfg.arch_D}, "
          f"B = {cfg.batch_size}, N_PDE = {cfg.n_pde}, N_BC = {cfg.n_bc}, float32; {load()}")
    inp = Inputs(R, cfg)
    t0 = time.perf_counter()
    got = parts(inp, args.steps, args.rounds)
    print(f"(compiling and timing the parts: {time.perf_counter() - t0:.0f} s)")
    for name, us in got.items():
        print(f"  {name:<15s} {us / R:8.1f} us per replicate-step")
    total = sum(got.values()) / R
    print(f"  {'sum':<15s} {total:8.1f} us per replicate-step   ({load()})")
    obs = make_observations("diffusion", 1e-3)
    train(obs, cfg.replace(epochs=1), seeds=range(R))          # the kernels loaded in this process
    t0 = time.thread_time()
    res = train(obs, cfg.replace(epochs=20), seeds=range(R))
    pace = 1e6 * (time.thread_time() - t0) / (res.epochs_run * res.steps_per_epoch * R)
    ref = reference_step_us(100, clock=time.thread_time)
    print(f"  the trainer's own pace (train, 20 epochs, CPU time, random draws included): {pace:.1f} us "
          f"per replicate-step = {pace / ref:.3f} reference steps (the plain-autograd reference of the default "
          f"configuration, one model: {ref:.0f} us in CPU time, measured now)")
    flops, rate, alone = floor(inp, args.steps, args.rounds)
    print(f"floor: {flops / R:,.0f} matmul FLOPs per replicate-step (the step's batched products); the fastest "
          f"of their shapes ran at {rate / 1e9:.1f} GFLOP/s on this core -> {flops / rate / R * 1e6:.1f} us per "
          f"replicate-step; the same products timed one by one: {alone / R:.1f} us per replicate-step   ({load()})")


if __name__ == "__main__":
    main()
