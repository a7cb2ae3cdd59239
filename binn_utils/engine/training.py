"""Training R independent ADR-BINN replicates as one batched model (paper Algorithm 1).

Each optimiser step: a mini-batch of B training observations sampled without replacement
(an epoch is one pass over a random permutation, ``ceil(N_train / B)`` steps, the last
batch possibly smaller, as a PyTorch ``DataLoader`` with ``shuffle=True`` does), N_PDE
collocation points drawn uniformly in (x_min, x_max) x [0, t_end] and N_BC boundary times
per boundary, redrawn every step; Adam with learning rate r.  After every epoch the
validation losses are recorded on the validation split (PDE and boundary terms on a
fixed, seeded set of validation collocation points so that the curves are not noisier
than they need to be), and the best-validation parameters are kept besides the final ones.

Replicates are independent: replicate r draws its initial weights and all its random
samples from generators seeded by ``seeds[r]`` only, and per-replicate learning rates and
loss weights enter only elementwise, so in exact arithmetic its result would not depend on
which other replicates share its batch.  In floating point it does, slightly: batched
kernels may sum in another order for another batch.  In float64 a replicate trained alone
and in a batch agree to rounding (tested); in float32, the default, the rounding
differences are amplified by training (most at large learning rates), so replicates
trained in different groups, or on a GPU instead of a CPU, agree statistically but not
bit for bit (tested).  The results store records the grouping and the device.  Within one
run, the CPU's compiled float32 step goes through the replicates block by block
(``replicate_blocks``, for the caches); its kernels are generic in the replicate count from two
on, and the numbers are one batch's bit for bit (tested).

``train`` checks the request, then builds one run's tensors (``_Run``), runs its epochs
(``_Epochs``: in line, or replaying a CUDA graph) chunk by chunk (``_train_chunks``) and
returns a :class:`TrainResult`.  The compiled kernels are in ``kernels``, the random draws
in ``sampling``.
"""
from __future__ import annotations

import math
import time
from typing import Sequence

import numpy as np
import torch

from .kernels import canonical, compiled_kernels, replicate_blocks
from .layout import NetworkLayout
from .networks import ENGINE_VERSION, leaf_views, xavier_init
from .observations import Observations, stable_int
from .sampling import ChunkDrawer, collocation
# the torch-free half of training (configuration, checks, results), here for the trainer's users
from .runs import (EPOCHS_MAX, HISTORY_KEYS, SEED_MAX, TrainConfig, TrainingError, TrainResult, TrainState,  # noqa: F401
                   build_layout, check_distinct, check_number, check_seeds, is_int, resolve_mechanisms)


# ----------------------------------------------------------------------------- the request
def resolve_device(device) -> torch.device:
    """``None`` -> CPU; a device that this machine does not have is a clear error."""
    if device is None:
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise TrainingError(f"unknown device {device!r}: {err}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise TrainingError(f"device {device!r} requested but no CUDA GPU is available here")
    if dev.type not in ("cpu", "cuda"):
        raise TrainingError(f"device must be 'cpu' or 'cuda[:k]', got {device!r}")
    return dev


def device_name(dev: torch.device) -> str:
    if dev.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(dev)}"
    import platform
    return f"cpu: {platform.processor() or platform.machine()}, {torch.get_num_threads()} thread(s)"


def _datasets(data, R: int) -> list:
    """One ``Observations`` per replicate; replicates sharing a batch need datasets of the
    same sizes on the same domain."""
    datas = [data] * R if isinstance(data, Observations) else list(data)
    if len(datas) != R:
        raise TrainingError(f"{len(datas)} datasets given for {R} replicates")
    d0 = datas[0]
    for d in datas:
        if not isinstance(d, Observations):
            raise TrainingError(f"data must be Observations, got {type(d).__name__}")
        if (len(d.train_idx), len(d.val_idx)) != (len(d0.train_idx), len(d0.val_idx)):
            raise TrainingError("replicates sharing a batch need datasets of the same size")
        if d.x_range != d0.x_range or d.t_range != d0.t_range:
            raise TrainingError("replicates sharing a batch need the same domain")
    return datas


def _batch_size(config: TrainConfig, d0: Observations) -> int:
    """The mini-batch size used: the configured one, clipped to the training points if the
    configuration allows it."""
    n_train = len(d0.train_idx)
    B = config.batch_size
    if B > n_train:
        if not config.clip_batch_to_data:
            raise TrainingError(f"batch size B={B} is larger than the {n_train} training points; "
                                "use a smaller B or clip_batch_to_data=True (full-batch training)")
        B = n_train
    if len(d0.val_idx) < 1:
        raise TrainingError("the validation split is empty")
    return B


def _per_replicate(value, default, R, name):
    if value is None:
        return np.full(R, float(default))
    arr = np.asarray(value, dtype=np.float64).reshape(-1)
    if arr.size == 1:
        arr = np.full(R, arr.item())
    if arr.size != R:
        raise TrainingError(f"{name} has {arr.size} values for {R} replicates")
    positive = name in ("lr", "w_data")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or (positive and np.any(arr <= 0)):
        raise TrainingError(f"{name} values must be finite and {'> 0' if positive else '>= 0'}: {arr}")
    return arr


def _replicate_values(config: TrainConfig, datas, seeds, lr, w_data, w_pde, w_bc):
    """(learning rates (R,), loss weights (R, 3): data, PDE, boundary), the config's unless
    given per replicate; no two replicates may be the same network."""
    R = seeds.size
    lr_arr = _per_replicate(lr, config.lr, R, "lr")
    weights_np = np.stack([_per_replicate(w_data, config.w_data, R, "w_data"),
                           _per_replicate(w_pde, config.w_pde, R, "w_pde"),
                           _per_replicate(w_bc, config.w_bc, R, "w_bc")], axis=1)
    ids = {}
    check_distinct([(ids.setdefault(id(d), len(ids)), int(s), float(r), *map(float, w))
                    for d, s, r, w in zip(datas, seeds, lr_arr, weights_np)], seeds.tolist())
    return lr_arr, weights_np


# ----------------------------------------------------------------------------- one run's tensors
class _Run:
    """One training run on its device: the replicates' data, the fixed validation set, the
    kernels, and the state that an epoch (``run_epoch``) updates in place -- a CUDA graph
    replays on these same tensors (``state``)."""

    def __init__(self, layout: NetworkLayout, config: TrainConfig, datas, seeds, B: int, lr_arr, weights_np,
                 initial_params, dev: torch.device, block: int | None = None):
        R = self.R = seeds.size
        self.layout, self.config, self.B, self.dev = layout, config, B, dev
        dtype = self.dtype = torch.float64 if config.dtype == "float64" else torch.float32
        d0 = datas[0]
        self.n_train = len(d0.train_idx)
        self.x_range, self.t_range = d0.x_range, d0.t_range
        self.train_pts = torch.tensor(np.stack([d.points("train") for d in datas]), dtype=dtype, device=dev)
        val_pts = torch.tensor(np.stack([d.points("val") for d in datas]), dtype=dtype, device=dev)
        self.weights = torch.tensor(weights_np, dtype=dtype, device=dev)
        self.lr_t = torch.tensor(lr_arr, dtype=dtype, device=dev).reshape(R, 1)
        self.flat = self._initial_parameters(initial_params, seeds)
        self.leaves = leaf_views(self.flat, layout)
        self.m = torch.zeros_like(self.flat)
        self.v = torch.zeros_like(self.flat)
        self.gens = [torch.Generator().manual_seed(stable_int("sampling", int(s))) for s in seeds]
        nb = config.n_bc
        self.bc_x = torch.cat([torch.full((nb,), self.x_range[0]), torch.full((nb,), self.x_range[1])]).to(dev, dtype)
        self.val_pde, self.val_bc = self._validation_collocation(seeds)
        self.val_xt, self.val_u = val_pts[..., :2].contiguous(), val_pts[..., 2].contiguous()
        self.loss_and_grad, self.val_fn, self.adam = compiled_kernels(layout, config.compile)
        self.bound = {}   # the kernels bound to this run's signatures (``run_epoch``)
        self.blocks = replicate_blocks(R, layout, dev, block, compiled_float32=config.compile and dtype == torch.float32)
        self.S = math.ceil(self.n_train / B)   # optimiser steps per epoch
        self.hist = torch.full((len(HISTORY_KEYS), R, config.epochs), float("nan"), dtype=torch.float64, device=dev)
        self.best = self.flat.detach().clone()
        self.best_val = torch.full((R,), float("inf"), dtype=dtype, device=dev)
        self.best_epoch = torch.zeros(R, dtype=torch.int64, device=dev)
        self.diverged = torch.full((R,), -1, dtype=torch.int64, device=dev)
        self.epoch = torch.zeros((), dtype=torch.int64, device=dev)
        # Adam's step counter, one per block of replicates (each block's update counts its own)
        self.counters = [torch.zeros((), dtype=dtype, device=dev) for _ in self.blocks]
        # each block's views of the tensors a step updates, made once (in place, they stay views)
        self.block_views = [(i, j, counter, *(t if len(self.blocks) == 1 else t[i:j]
                                              for t in (self.flat, self.m, self.v, self.lr_t, self.weights)))
                            for (i, j), counter in zip(self.blocks, self.counters)]
        self.hist_e = torch.zeros((len(HISTORY_KEYS), R), dtype=torch.float64, device=dev)

    @property
    def state(self) -> tuple:
        """The tensors an epoch updates in place (saved and restored around a graph capture)."""
        return (self.flat, self.m, self.v, *self.counters, self.lr_t, self.best, self.best_val, self.best_epoch,
                self.diverged, self.epoch, self.hist_e)

    def _initial_parameters(self, initial_params, seeds) -> torch.Tensor:
        """(R, n_params): ``initial_params`` if given, else each replicate's Xavier initialisation."""
        if initial_params is not None:
            init = np.asarray(initial_params, dtype=np.float64)
            if init.shape != (self.R, self.layout.n_params):
                raise TrainingError(f"initial_params has shape {init.shape}, expected {(self.R, self.layout.n_params)}")
            return torch.tensor(init, dtype=self.dtype, device=self.dev)
        return torch.stack([xavier_init(self.layout, int(s), self.dtype) for s in seeds]).to(self.dev)

    def _validation_collocation(self, seeds):
        """The fixed validation collocation points (R, val_n_pde, 2) and boundary points
        (R, 2 val_n_bc, 2), seeded per replicate."""
        config, dtype, (x0, x1) = self.config, self.dtype, self.x_range
        vgens = [torch.Generator().manual_seed(stable_int("validation", int(s))) for s in seeds]
        vp, vb = zip(*[collocation(g, (x0, x1), self.t_range, dtype, (config.val_n_pde,), (2 * config.val_n_bc,))
                       for g in vgens])
        vbc_x = torch.cat([torch.full((config.val_n_bc,), x0), torch.full((config.val_n_bc,), x1)]).to(dtype)
        return torch.stack(vp).to(self.dev), torch.stack([torch.stack([vbc_x, b], dim=1) for b in vb]).to(self.dev)

    def drawer(self, threads) -> ChunkDrawer:
        """The draws of this run's mini-batches and collocation points (``sampling.ChunkDrawer``)."""
        return ChunkDrawer(self.gens, self.n_train, self.S, self.config.n_pde, 2 * self.config.n_bc, self.x_range,
                           self.t_range, self.dtype, self.dev, threads=threads)

    def run_epoch(self, perm_e, cp_e, cb_e):
        """One epoch: S optimiser steps, then validation, the best parameters and divergence
        (a diverged replicate is frozen at its best parameters; the others go on).  No
        host-device synchronisation and no data-dependent Python branch: on a GPU the whole
        epoch is captured once as a CUDA graph and replayed."""
        R, config, one = self.R, self.config, len(self.blocks) == 1
        b1, b2 = config.betas
        with torch.no_grad():
            train_acc = torch.zeros(R, dtype=self.dtype, device=self.dev)
            accs = [train_acc if one else train_acc[i:j] for i, j in self.blocks]
            for inputs in self._steps(perm_e, cp_e, cb_e):
                for (i, j, counter, flat, m, v, lr, weights), acc in zip(self.block_views, accs):   # each block in turn
                    pde_xt, bc_xt, data_xt, data_u = inputs if one else (t[i:j] for t in inputs)
                    args = (flat, pde_xt, bc_xt, data_xt, data_u, weights)
                    key = (j - i, data_u.shape[1])
                    step = self.bound.get(key)
                    if step is None:   # the kernel for this signature, selected once per run
                        step = self.bound[key] = self.loss_and_grad.bind(*args)
                    total, grad = step(*args)
                    args = (flat, grad, m, v, counter, lr, acc, total)
                    if ("adam", j - i) not in self.bound:
                        self.bound["adam", j - i] = self.adam.bind(*args, b1, b2, config.eps)
                    self.bound["adam", j - i](*args)
            self.epoch.add_(1)
            comps = self.val_fn(self.leaves, self.val_pde, self.val_bc, self.val_xt, self.val_u)
            self._record_epoch(comps, train_acc)

    def _steps(self, perm_e, cp_e, cb_e):
        """The epoch's S steps' inputs (collocation points (R, N_PDE, 2), boundary points
        (R, 2 N_BC, 2), the mini-batch's (x, t) (R, B, 2) and u (R, B)), each contiguous: made
        for the whole epoch at once, step-major, so that a step's inputs are views (the same
        values as gathered step by step; the last mini-batch may be smaller)."""
        R, B, S = self.R, self.B, self.S
        full = self.n_train // B   # steps with a whole mini-batch
        data = torch.gather(self.train_pts, 1, perm_e[..., None].expand(-1, -1, 3))   # (R, N, 3), epoch order
        whole = data[:, :full * B].reshape(R, full, B, 3).transpose(0, 1)
        data_xt, data_u = whole[..., :2].contiguous(), whole[..., 2].contiguous()
        pde_xt = cp_e.transpose(0, 1).contiguous()
        bc_xt = torch.stack([self.bc_x.expand(S, R, -1), cb_e.transpose(0, 1)], dim=3)
        steps = [(pde_xt[s], bc_xt[s], data_xt[s], data_u[s]) for s in range(full)]
        if full < S:
            last = data[:, full * B:]
            steps.append((pde_xt[full], bc_xt[full], canonical(last[..., :2].contiguous()),
                          canonical(last[..., 2].contiguous())))
        return steps

    def _record_epoch(self, comps, train_acc):
        """The epoch's validation losses and mean training loss into ``hist_e``; the best
        parameters kept; a replicate whose loss or parameters are not finite is frozen."""
        flat, best = self.flat, self.best
        vtot = (comps * self.weights).sum(dim=1)
        self.hist_e[0:3] = comps.T.double()
        self.hist_e[3] = vtot.double()
        self.hist_e[4] = (train_acc / self.S).double()
        bad = ~(torch.isfinite(vtot) & torch.isfinite(flat).all(dim=1))
        improved = (vtot < self.best_val) & ~bad
        best.copy_(torch.where(improved[:, None], flat, best))
        self.best_val.copy_(torch.where(improved, vtot, self.best_val))
        self.best_epoch.copy_(torch.where(improved, self.epoch, self.best_epoch))
        self.diverged.copy_(torch.where(bad & (self.diverged < 0), self.epoch, self.diverged))
        flat.copy_(torch.where(bad[:, None], best, flat))
        self.m.masked_fill_(bad[:, None], 0.0)
        self.v.masked_fill_(bad[:, None], 0.0)
        self.lr_t.masked_fill_(bad[:, None], 0.0)

    def restore(self, resume: TrainState):
        """Load ``resume`` into the state tensors, the history and the generators; returns
        (epoch, wall time so far, first epoch's time)."""
        R, E, chunk_epochs, flat = self.R, self.config.epochs, self.config.chunk_epochs, self.flat
        k = int(resume.epoch)
        if not 0 < k < E or k % chunk_epochs:
            raise TrainingError(f"cannot resume at epoch {k}: not a chunk boundary (every {chunk_epochs}) "
                                f"before the last epoch ({E})")
        if resume.flat.shape != tuple(flat.shape) or resume.gen_states.shape[0] != R:
            raise TrainingError(f"the state to resume from is for {resume.flat.shape} parameters, "
                                f"this run has {tuple(flat.shape)}")
        for t, a in ((flat, resume.flat), (self.m, resume.m), (self.v, resume.v), (self.best, resume.best),
                     (self.best_val, resume.best_val), (self.best_epoch, resume.best_epoch),
                     (self.diverged, resume.diverged)):
            t.copy_(torch.as_tensor(a).to(t.dtype))
        self.lr_t.copy_(torch.as_tensor(resume.lr).reshape(R, 1).to(self.lr_t.dtype))
        for counter in self.counters:
            counter.fill_(resume.step)
        self.epoch.fill_(k)
        self.hist[:, :, :k] = torch.as_tensor(resume.hist)
        for g, st in zip(self.gens, resume.gen_states):
            g.set_state(torch.as_tensor(st, dtype=torch.uint8))
        return k, float(resume.wall_time_s), float(resume.first_epoch_s)

    def paused_state(self, epoch: int, gen_states, wall: float, first_epoch_s: float) -> TrainState:
        """The run as it stands at a chunk boundary, with the generators' states before the
        chunk not yet trained: ``train(..., resume=...)`` goes on from there."""
        return TrainState(
            epoch=epoch, flat=self.flat.detach().cpu().numpy().copy(), m=self.m.cpu().numpy().copy(),
            v=self.v.cpu().numpy().copy(), step=float(self.counters[0]), lr=self.lr_t[:, 0].cpu().numpy().copy(),
            best=self.best.cpu().numpy().copy(), best_val=self.best_val.cpu().numpy().copy(),
            best_epoch=self.best_epoch.cpu().numpy().copy(), diverged=self.diverged.cpu().numpy().copy(),
            hist=self.hist[:, :, :epoch].cpu().numpy().copy(), gen_states=np.stack(gen_states),
            wall_time_s=wall, first_epoch_s=first_epoch_s)


# ----------------------------------------------------------------------------- epochs and chunks
def _capture_epoch(run_epoch, static, state):
    """Capture ``run_epoch(*static)`` as a CUDA graph.  It is first run twice on a side
    stream (compiling kernels and letting autograd and the allocator settle), then the
    state tensors are restored, so the warm-up changes nothing; capturing runs nothing."""
    saved = [t.clone() for t in state]
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                run_epoch(*static)
        torch.cuda.current_stream().wait_stream(side)
        for t, s in zip(state, saved):
            t.copy_(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            run_epoch(*static)
        return graph
    finally:  # on success a no-op (capturing runs nothing); after a failure, the state as it was
        torch.cuda.synchronize()
        for t, s in zip(state, saved):
            t.copy_(s)


class _Epochs:
    """Runs one epoch of a ``_Run``: in line, or (``use_graph``, a GPU's default) by replaying
    the epoch captured once as a CUDA graph on copies of its random numbers."""

    def __init__(self, run: _Run, cuda_graph: bool | None):
        self.run = run
        self.use_graph = run.dev.type == "cuda" if cuda_graph is None else bool(cuda_graph)
        if self.use_graph and run.dev.type != "cuda":
            raise TrainingError("cuda_graph=True needs a CUDA device")
        self.graph = self.static = None

    def __call__(self, perm_e, cp_e, cb_e):
        if self.use_graph and self.graph is None:
            self.static = (perm_e.clone(), cp_e.clone(), cb_e.clone())
            try:
                self.graph = _capture_epoch(self.run.run_epoch, self.static, self.run.state)
            except RuntimeError as err:  # recorded: extra["cuda_graph"] is False
                import warnings
                warnings.warn(f"CUDA graph capture failed, training without it: {err}")
                self.use_graph = False
        if self.use_graph:
            for buf, src in zip(self.static, (perm_e, cp_e, cb_e)):
                buf.copy_(src)
            self.graph.replay()
        else:
            self.run.run_epoch(perm_e, cp_e, cb_e)


def _sync(dev: torch.device):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _progress_bar(progress, epochs: int):
    if not progress:
        return None
    from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
    return tqdm(total=epochs, desc=progress if isinstance(progress, str) else "training", unit="epoch", leave=False)


def _train_chunks(run: _Run, epochs: _Epochs, draw: ChunkDrawer, bar, resume, stop_at_epoch):
    """Train epoch after epoch, a chunk of epochs' random numbers at a time (the next chunk
    drawn while this one trains), to the last epoch, the time budget or ``stop_at_epoch``.
    Returns (epochs run, the generators' states if paused there else None, wall time, the
    first epoch's time)."""
    E, dev, chunk_epochs, budget = run.config.epochs, run.dev, run.config.chunk_epochs, run.config.time_budget_s
    first_epoch_s = float("nan")
    start = time.perf_counter()
    epoch, prior_wall = 0, 0.0
    if resume is not None:
        epoch, prior_wall, first_epoch_s = run.restore(resume)
        if bar is not None:
            bar.update(epoch)
    stop = False
    paused = None
    pending = draw.submit(min(chunk_epochs, E - epoch))
    while epoch < E and not stop:
        chunk = min(chunk_epochs, E - epoch)
        if stop_at_epoch is not None and epoch >= stop_at_epoch:
            paused = draw.states_before_last  # the generators before the chunk not yet trained
            break
        perms, cp, cb = pending.result()   # (R, chunk, N), (R, chunk, S, P, 2), (R, chunk, S, 2nb)
        if epoch + chunk < E:  # draw the next chunk while this one trains
            pending = draw.submit(min(chunk_epochs, E - epoch - chunk))
        for e in range(chunk):
            epochs(perms[:, e], cp[:, e], cb[:, e])
            run.hist[:, :, epoch].copy_(run.hist_e)
            epoch += 1
            if epoch == 1:
                _sync(dev)
                first_epoch_s = time.perf_counter() - start
            if budget is not None:
                _sync(dev)
                if time.perf_counter() - start >= budget:
                    stop = True
                    break
        _sync(dev)  # once per chunk: the bar shows what has run
        if bar is not None:
            bar.update(e + 1)
    _sync(dev)
    return epoch, paused, prior_wall + time.perf_counter() - start, first_epoch_s


# ----------------------------------------------------------------------------- training
def train(data: Observations | Sequence[Observations], config: TrainConfig | None = None,
          seeds: Sequence[int] = tuple(range(10)), *, mechanisms=None, lr=None, w_pde=None,
          w_data=None, w_bc=None, initial_params: np.ndarray | None = None,
          progress: bool | str = False, device=None, cuda_graph: bool | None = None,
          draw_threads: int | None = None, resume: TrainState | None = None,
          stop_at_epoch: int | None = None, replicate_block: int | None = None) -> TrainResult:
    """Train ``len(seeds)`` replicates; see the module docstring.

    data: one ``Observations`` shared by all replicates, or one per replicate (same sizes).
    lr, w_pde, w_data, w_bc: optional per-replicate values overriding the config.
    initial_params: (R, n_params) to start from instead of the Xavier initialisation.
    device: where the arithmetic runs (``None``/"cpu", or e.g. "cuda").  All random numbers
    are drawn on the CPU from the same per-replicate generators whatever the device, so a
    run on a GPU starts from the same weights and sees the same mini-batches and
    collocation points as on the CPU; its arithmetic rounds differently, and training
    amplifies the difference (statistically, not bitwise, the same; module docstring).
    cuda_graph: on a GPU (the default there) each epoch is captured once as a CUDA graph and
    replayed, so no step costs a kernel launch from Python or a host-device synchronisation;
    the same kernels run either way (the numbers do not depend on it).
    draw_threads: threads drawing the next chunk's random numbers while the current chunk
    trains (default 8 on a GPU, 0 on the CPU: drawn in line).  Each replicate's numbers come
    from its own generator in the same order, so they do not depend on the threads.
    stop_at_epoch: stop at the first chunk boundary at or after this epoch, before the last;
    the result then has ``extra["state"]``, a :class:`TrainState`, and ``resume=state`` (same
    data, configuration, seeds and per-replicate values) goes on from there.
    replicate_block: the replicates per block of each compiled float32 step on the CPU
    (``replicate_blocks``; default by the networks' size): the numbers do not depend on it.
    """
    config = (config or TrainConfig()).validate()
    dev = resolve_device(device)
    if replicate_block is not None and (not is_int(replicate_block) or replicate_block < 2):
        raise TrainingError(f"replicate_block must be an integer of at least 2, got {replicate_block!r}")
    if stop_at_epoch is not None and (not is_int(stop_at_epoch) or stop_at_epoch < 1):
        raise TrainingError(f"stop_at_epoch must be a positive integer, got {stop_at_epoch!r}")
    seeds = np.asarray(check_seeds(seeds), dtype=np.int64)
    datas = _datasets(data, seeds.size)
    mechanisms = resolve_mechanisms(datas[0], mechanisms)
    layout = build_layout(config, mechanisms)
    B = _batch_size(config, datas[0])
    lr_arr, weights_np = _replicate_values(config, datas, seeds, lr, w_data, w_pde, w_bc)
    run = _Run(layout, config, datas, seeds, B, lr_arr, weights_np, initial_params, dev, replicate_block)
    epochs = _Epochs(run, cuda_graph)
    draw = run.drawer(draw_threads if draw_threads is not None else (8 if dev.type == "cuda" else 0))
    bar = _progress_bar(progress, config.epochs)
    try:
        epoch, paused, wall, first_epoch_s = _train_chunks(run, epochs, draw, bar, resume, stop_at_epoch)
    finally:
        draw.close()
        if bar is not None:
            bar.close()
    # the first epoch includes compiling the kernels for new shapes; the steady-state
    # time extrapolates the other epochs' pace to the whole run
    steady = (wall - first_epoch_s) * epoch / (epoch - 1) if epoch > 1 else wall
    diverged = run.diverged.cpu().numpy().copy()
    extra = {} if paused is None else {"state": run.paused_state(epoch, paused, wall, first_epoch_s)}
    hist = run.hist.cpu()
    return TrainResult(layout=layout, config=config, seeds=seeds, mechanisms=mechanisms,
                       final=run.flat.detach().double().cpu().numpy().copy(),
                       best=run.best.double().cpu().numpy().copy(), best_epoch=run.best_epoch.cpu().numpy().copy(),
                       history={k: hist[i, :, :epoch].numpy().copy() for i, k in enumerate(HISTORY_KEYS)},
                       weights=weights_np, lr=lr_arr,
                       status=["ok" if d < 0 else f"diverged at epoch {d}" for d in diverged],
                       diverged_epoch=diverged, epochs_run=epoch, steps_per_epoch=run.S, wall_time_s=wall,
                       extra={"batch_size_used": B, "first_epoch_s": first_epoch_s, "steady_time_s": steady,
                              "device": device_name(dev), "cuda_graph": epochs.use_graph, "engine": ENGINE_VERSION,
                              **extra})
