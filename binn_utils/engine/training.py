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
bit for bit (tested).  The results store records the grouping and the device.
"""
from __future__ import annotations

import hashlib
import math
import os
import time
from typing import Sequence

import numpy as np
import torch

from .losses import loss_and_grad, loss_components
from .layout import NetworkLayout
from .networks import ENGINE_VERSION, leaf_views, xavier_init
from .observations import Observations, stable_int
# the torch-free half of training (configuration, checks, results), here for the trainer's users
from .runs import (EPOCHS_MAX, HISTORY_KEYS, SEED_MAX, TrainConfig, TrainingError, TrainResult, TrainState,  # noqa: F401
                   build_layout, check_distinct, check_number, check_seeds, is_int, resolve_mechanisms)


# ----------------------------------------------------------------------------- compiled kernels
_COMPILED: dict = {}


def _adam_update(flat, grad, m, v, step, lr, b1: float, b2: float, eps: float):
    """torch.optim.Adam's update (amsgrad=False, no weight decay), batched, in place.

    lr has shape (R, 1): replicates may have different learning rates.
    """
    m.lerp_(grad, 1.0 - b1)
    v.mul_(b2).addcmul_(grad, grad, value=1.0 - b2)
    bc1 = 1.0 - b1 ** step
    bc2 = 1.0 - b2 ** step
    denom = (v.sqrt() / bc2.sqrt()).add_(eps)
    flat.sub_(m / denom * (lr / bc1))


_MALLOC_TUNED = False


def _tune_malloc():
    """Keep freed memory in the process (glibc): no trimming, no mmap for large blocks.

    Each compiled step allocates its work buffers afresh (a few hundred kB at R = 10); with
    glibc's defaults they were returned to the kernel and touched anew every step -- about
    600 page faults per step at R = 10, which cost about half the step's time (measured
    under load: 633 -> 298 us per replicate-step), and page zeroing competes for memory
    bandwidth between processes.  Process-wide and harmless elsewhere: the process's peak
    memory stays mapped.  A no-op off glibc.
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED = True
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 1 << 30)   # M_TRIM_THRESHOLD: do not give the heap's top back
        libc.mallopt(-3, 1 << 25)   # M_MMAP_THRESHOLD: 32 MiB (glibc's maximum), serve from the heap
    except (OSError, AttributeError):
        pass


def _canonical(t: torch.Tensor) -> torch.Tensor:
    """``t`` with the strides of a fresh contiguous tensor of its shape.

    ``.contiguous()`` leaves a tensor alone when only size-1 dimensions have unusual
    strides, e.g. ``cp[:, e, s]`` at R = 1, whose leading stride is the chunk's length: the
    compiled kernel, specialised on strides, would then be recompiled for every chunk length
    (this made R = 1 slower than the reference).  Metadata only: no host-device sync.
    """
    stride, expected = t.stride(), []
    acc = 1
    for n in reversed(t.shape):
        expected.append(acc)
        acc *= n
    if tuple(reversed(expected)) == stride:
        return t
    return t.clone(memory_format=torch.contiguous_format)


def _flush_denormals(fn):
    """``fn`` run with float denormals flushed to zero on the CPU (FTZ/DAZ), then the
    default (gradual underflow) restored.

    Saturated tanh units and the softplus' tails produce float32 denormals (below 1.2e-38)
    whose arithmetic takes microcode assists on x86: training ran twice as slowly at R = 50.
    Flushing them changes results only through quantities below 1e-38 (and float64 not at
    all in practice), and makes the step's arithmetic independent of the caller's setting.
    It applies to the calling thread, i.e. to all the work with one intra-op thread.
    """
    def call(*args, **kw):
        torch.set_flush_denormal(True)
        try:
            return fn(*args, **kw)
        finally:
            torch.set_flush_denormal(False)
    return call


COMPILE_CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
"""The environment variable naming the folder where compiled kernels are kept between
processes (torch inductor's own: its FX graph and AOT autograd caches live there)."""


def compile_cache_dir() -> str:
    """The folder of the compiled kernels: ``$TORCHINDUCTOR_CACHE_DIR`` if set, else
    ``binn/torchinductor`` under ``$XDG_CACHE_HOME`` (default ``~/.cache``).

    The CPU kernels compiled ahead of time are saved in its ``binn-aot`` folder
    (``_Precompiled``), and torch.compile keeps there what it builds (the FX graph cache and
    the AOT autograd cache, keyed on the traced graph, the torch version and the compiler's
    options), so a later process that asks for the same kernels loads them instead of
    compiling: a fresh machine compiles each kernel once.  torch's own default is a folder
    under /tmp, which a reboot empties; this one persists.  Set before the first compile of
    the process (``_kernels``); delete the folder to force recompiling.
    """
    if COMPILE_CACHE_ENV not in os.environ:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        os.environ[COMPILE_CACHE_ENV] = os.path.join(base, "binn", "torchinductor")
    return os.environ[COMPILE_CACHE_ENV]


def _vary(t, dims, strict=False):
    """Mark dimensions of ``t`` (a tensor or a ``leaf_views`` dict) whose size may change
    between calls without recompiling: the compiled kernel is then generic in them.  Sizes
    0 and 1 are specialised by the compiler anyway (R = 1 is its own kernel).  ``strict``:
    the ahead-of-time compile must honour the marks (it raises where it cannot)."""
    mark = torch._dynamo.mark_dynamic if strict else torch._dynamo.maybe_mark_dynamic
    for x in (t.values() if isinstance(t, dict) else (t,)):
        for d in dims:
            if x.dim() > d and x.shape[d] > 1:
                mark(x, d)


class _Precompiled:
    """``fn`` compiled ahead of time on the CPU (``torch.compile(...).aot_compile``) and kept as
    a file in the compile cache, one per signature of the arguments: a later process loads
    the file and runs it without tracing ``fn`` again (TorchDynamo's trace of the step was
    most of a warm start, about 5 s of CPU).

    The signature is everything the kernel is specialised on: the dtypes, the static sizes and
    the strides of strided views, which of the ``varying`` sizes are 0, 1 or more (the kernel is
    generic in those), the non-tensor arguments, the thread count and the grad mode; the file
    name adds a digest of torch's version, the layout and the engine's source files, so changed
    code never runs stale kernels.  A saved kernel is called without its own guards: they
    would reject arguments that differ only in the varying sizes' marks, and the signature
    already selects the kernel (the tests compare a loaded kernel's numbers for another
    replicate count and batch size with the uncompiled ones).  A file that cannot be
    written, read or compiled falls back to ``jit``, the function compiled as usual."""

    SOURCES = ("layout.py", "networks.py", "losses.py", "training.py")

    def __init__(self, fn, name, layout, varying, jit):
        self.fn, self.name, self.varying, self.jit = fn, name, varying, jit
        h = hashlib.sha256(f"{torch.__version__} {layout!r} {name}".encode())
        for source in self.SOURCES:
            with open(os.path.join(os.path.dirname(__file__), source), "rb") as f:
                h.update(f.read())
        self.digest = h.hexdigest()[:20]
        self.ready = {}

    def _signature(self, args) -> tuple:
        parts = [torch.get_num_threads(), torch.is_grad_enabled()]
        for a, dims in zip(args, list(self.varying) + [()] * len(args)):
            if isinstance(a, (torch.Tensor, dict)):
                parts.append(tuple((x.dtype, x.requires_grad, tuple(min(n, 2) if d in dims else n for d, n in enumerate(x.shape)),
                                    None if x.is_contiguous() else x.stride())
                                   for x in (a.values() if isinstance(a, dict) else (a,))))
            else:
                parts.append(a)
        return tuple(parts)

    def _prepare(self, key, args):
        sig = hashlib.sha256(repr(key).encode()).hexdigest()[:20]
        path = os.path.join(compile_cache_dir(), "binn-aot", f"{self.name}-{self.digest}-{sig}.pt")
        try:
            if os.path.exists(path):
                with open(path, "rb") as f:
                    fn = torch.compiler.load_compiled_function(f)
            else:
                for a, dims in zip(args, self.varying):
                    if isinstance(a, (torch.Tensor, dict)):
                        _vary(a, dims, strict=True)
                fn = torch.compile(self.fn, fullgraph=True, dynamic=None, options={"cpp_wrapper": True}).aot_compile(
                    (args, {}))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fn.save_compiled_function(path)   # written atomically
            fn.disable_guard_check()
            return fn
        except Exception as err:  # noqa: BLE001 -- any failure: compile as usual instead
            import warnings
            warnings.warn(f"compiled kernel {self.name} not kept across processes ({type(err).__name__}: {err}); "
                          "compiling it in this process")
            return None

    def __call__(self, *args):
        key = self._signature(args)
        if key not in self.ready:
            self.ready[key] = self._prepare(key, args)
        fn = self.ready[key]
        if fn is None:
            for a, dims in zip(args, self.varying):
                if isinstance(a, (torch.Tensor, dict)):
                    _vary(a, dims)
            return self.jit(*args)
        return fn(*args)


def _by_device(fn, varying, name=None, layout=None):
    """``fn`` compiled, with the C++ wrapper and denormals flushed for CPU tensors, and on
    the CPU kept across processes as a saved kernel when it has a ``name``
    (``_Precompiled``; else its kernels come from the FX graph cache after a short trace).

    ``varying``: per positional argument, the dimensions that may change size between
    calls (the replicate axis; the number of rows of a mini-batch or a validation set):
    one kernel serves every replicate count, the last partial mini-batch and every grid,
    instead of one compile per shape.  Other shapes are static (specialised)."""
    jit = torch.compile(fn, dynamic=None, options={"cpp_wrapper": True})
    cpu = _flush_denormals(jit if name is None else _Precompiled(fn, name, layout, varying, jit))
    other = torch.compile(fn, dynamic=None)

    def call(flat, *args):
        t = flat if isinstance(flat, torch.Tensor) else next(iter(flat.values()))  # leaf_views dict
        if t.device.type == "cpu" and name is not None:
            return cpu(flat, *args)
        for a, dims in zip((flat,) + args, varying):
            if isinstance(a, (torch.Tensor, dict)):
                _vary(a, dims)
        return (cpu if t.device.type == "cpu" else other)(flat, *args)
    return call


def _kernels(layout: NetworkLayout, compile_: bool):
    """(loss_and_grad, val_fn, adam) for this layout, compiled once per process.

    loss_and_grad(flat, leaves, pde_xt, bc_xt, data_xt, data_u, weights) -> (total (R,),
    grad (R, n_params)): the weighted total loss per replicate and its gradient in flat
    order, by the hand-written backward (``losses.loss_and_grad``); no autograd, no
    host-device synchronisation.  ``leaves`` is accepted for the caller's convenience and
    not used.
    """
    key = (layout, compile_)
    _tune_malloc()
    if key not in _COMPILED:
        def step_fn(flat, pde_xt, bc_xt, data_xt, data_u, weights):
            return loss_and_grad(flat, layout, pde_xt, bc_xt, data_xt, data_u, weights)

        def val_fn(flat, pde_xt, bc_xt, data_xt, data_u):
            return loss_components(flat, layout, pde_xt, bc_xt, data_xt, data_u)

        if compile_:
            # on the CPU, a C++ wrapper calls the generated kernels (the Python wrapper's
            # per-kernel calls were a large part of the step at small R).  CUDA keeps the
            # default (the GPU path captures CUDA graphs).
            compile_cache_dir()
            # here, not at import: a process that never compiles (the quick scale, the book
            # reading stored results) does not load the compiler.  One process may train many
            # layouts and dtypes: allow more specialisations than dynamo's default
            torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)
            step_fn = _by_device(step_fn, [(0,), (0,), (0,), (0, 1), (0, 1), (0,)], "step", layout)
            val_fn = _by_device(val_fn, [(0,), (0,), (0,), (0, 1), (0, 1)], "validation", layout)
            # Adam is traced in each process (a few operations; its Python float arguments
            # cannot be traced ahead of time) and its kernel comes from the FX graph cache
            adam = _by_device(_adam_update, [(0,)] * 6)
        else:  # the same arithmetic as compiled on the CPU: denormals flushed
            step_fn, val_fn, adam = (_flush_denormals(f) for f in (step_fn, val_fn, _adam_update))

        def loss_and_grad_fn(flat, leaves, pde_xt, bc_xt, data_xt, data_u, weights):
            with torch.no_grad():
                return step_fn(flat.detach(), _canonical(pde_xt), _canonical(bc_xt), _canonical(data_xt),
                               _canonical(data_u), _canonical(weights))

        _COMPILED[key] = (loss_and_grad_fn, val_fn, adam)
    return _COMPILED[key]


def _collocation(gen, x_range, t_range, dtype, shape_p, shape_b):
    """Collocation points (shape_p + (2,)) uniform in the domain and boundary times
    (shape_b), drawn in float64 from ``gen`` (in this order) and cast to ``dtype``."""
    (x0, x1), (t0, t1) = x_range, t_range
    p = torch.rand(*shape_p, 2, generator=gen, dtype=torch.float64)
    p[..., 0] = x0 + (x1 - x0) * p[..., 0]
    p[..., 1] = t0 + (t1 - t0) * p[..., 1]
    bt = t0 + (t1 - t0) * torch.rand(*shape_b, generator=gen, dtype=torch.float64)
    return p.to(dtype), bt.to(dtype)


class _Later:
    """A future's face (``result()``) over a function: what ``_ChunkDrawer.submit`` returns."""

    def __init__(self, fn):
        self.result = fn


class _ChunkDrawer:
    """Draws a chunk of epochs' random numbers on the CPU: for each replicate, from its own
    generator and in a fixed order, the mini-batch permutations (chunk, N), then the
    collocation points (chunk, S, P, 2) and boundary times (chunk, S, 2 N_BC).  With
    ``threads`` > 0 the replicates are split over a thread pool and ``submit`` returns at
    once (the draw overlaps training); the numbers are the same either way."""

    def __init__(self, gens, n_train, S, n_pde, n_bc2, x_range, t_range, dtype, dev, threads=0):
        self.gens, self.n_train, self.S, self.n_pde, self.n_bc2 = gens, n_train, S, n_pde, n_bc2
        self.x_range, self.t_range, self.dtype, self.dev = x_range, t_range, dtype, dev
        self.pool = None
        if threads and threads > 0:
            from concurrent.futures import ThreadPoolExecutor
            self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="binn-draw")
            n = len(gens)
            k = min(threads, n)
            self.slices = [slice(i * n // k, (i + 1) * n // k) for i in range(k)]

    def _draw(self, gens, chunk):
        perms = torch.stack([torch.argsort(torch.rand(chunk, self.n_train, generator=g), dim=1) for g in gens])
        cp, cb = zip(*[_collocation(g, self.x_range, self.t_range, self.dtype, (chunk, self.S, self.n_pde),
                                    (chunk, self.S, self.n_bc2)) for g in gens])
        out = perms, torch.stack(cp), torch.stack(cb)
        if self.dev.type == "cuda":
            out = tuple(a.pin_memory() for a in out)
        return out

    def _to_device(self, parts):
        return tuple(torch.cat([x.to(self.dev, non_blocking=True) for x in a]) for a in zip(*parts))

    def submit(self, chunk):
        # the generators as they are before this chunk (a checkpoint taken before the chunk
        # trains restarts the draws here); the previous draw has finished by now
        self.states_before_last = [g.get_state().numpy().copy() for g in self.gens]
        if self.pool is None:
            drawn = self._to_device([self._draw(self.gens, chunk)])  # now: the generators move on here
            return _Later(lambda: drawn)
        futures = [self.pool.submit(self._draw, self.gens[sl], chunk) for sl in self.slices]
        return _Later(lambda: self._to_device([f.result() for f in futures]))

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _restore(resume: TrainState, state, hist, gens, R, E, chunk_epochs):
    """Load ``resume`` into the run's state tensors, history and generators; returns
    (epoch, wall time so far, first epoch's time)."""
    flat, m, v, step_t, lr_t, best, best_val, best_epoch, diverged_t, epoch_t, _ = state
    k = int(resume.epoch)
    if not 0 < k < E or k % chunk_epochs:
        raise TrainingError(f"cannot resume at epoch {k}: not a chunk boundary (every {chunk_epochs}) "
                            f"before the last epoch ({E})")
    if resume.flat.shape != tuple(flat.shape) or resume.gen_states.shape[0] != R:
        raise TrainingError(f"the state to resume from is for {resume.flat.shape} parameters, "
                            f"this run has {tuple(flat.shape)}")
    for t, a in ((flat, resume.flat), (m, resume.m), (v, resume.v), (best, resume.best),
                 (best_val, resume.best_val), (best_epoch, resume.best_epoch), (diverged_t, resume.diverged)):
        t.copy_(torch.as_tensor(a).to(t.dtype))
    lr_t.copy_(torch.as_tensor(resume.lr).reshape(R, 1).to(lr_t.dtype))
    step_t.fill_(resume.step)
    epoch_t.fill_(k)
    hist[:, :, :k] = torch.as_tensor(resume.hist)
    for g, st in zip(gens, resume.gen_states):
        g.set_state(torch.as_tensor(st, dtype=torch.uint8))
    return k, float(resume.wall_time_s), float(resume.first_epoch_s)


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


# ----------------------------------------------------------------------------- helpers
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


# ----------------------------------------------------------------------------- training
def train(data: Observations | Sequence[Observations], config: TrainConfig | None = None,
          seeds: Sequence[int] = tuple(range(10)), *, mechanisms=None, lr=None, w_pde=None,
          w_data=None, w_bc=None, initial_params: np.ndarray | None = None,
          progress: bool | str = False, device=None, cuda_graph: bool | None = None,
          draw_threads: int | None = None, resume: TrainState | None = None,
          stop_at_epoch: int | None = None) -> TrainResult:
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
    """
    config = (config or TrainConfig()).validate()
    dev = resolve_device(device)
    if stop_at_epoch is not None and (not is_int(stop_at_epoch) or stop_at_epoch < 1):
        raise TrainingError(f"stop_at_epoch must be a positive integer, got {stop_at_epoch!r}")
    seeds = np.asarray(check_seeds(seeds), dtype=np.int64)
    R = seeds.size
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
    mechanisms = resolve_mechanisms(d0, mechanisms)
    layout = build_layout(config, mechanisms)
    n_train = len(d0.train_idx)
    B = config.batch_size
    if B > n_train:
        if not config.clip_batch_to_data:
            raise TrainingError(f"batch size B={B} is larger than the {n_train} training points; "
                                "use a smaller B or clip_batch_to_data=True (full-batch training)")
        B = n_train
    if len(d0.val_idx) < 1:
        raise TrainingError("the validation split is empty")

    dtype = torch.float64 if config.dtype == "float64" else torch.float32
    lr_arr = _per_replicate(lr, config.lr, R, "lr")
    weights_np = np.stack([_per_replicate(w_data, config.w_data, R, "w_data"),
                           _per_replicate(w_pde, config.w_pde, R, "w_pde"),
                           _per_replicate(w_bc, config.w_bc, R, "w_bc")], axis=1)
    ids = {}
    check_distinct([(ids.setdefault(id(d), len(ids)), int(s), float(r), *map(float, w))
                    for d, s, r, w in zip(datas, seeds, lr_arr, weights_np)], seeds.tolist())

    # ---- tensors
    train_pts = torch.tensor(np.stack([d.points("train") for d in datas]), dtype=dtype, device=dev)
    val_pts = torch.tensor(np.stack([d.points("val") for d in datas]), dtype=dtype, device=dev)
    (x0, x1), (t0, t1) = d0.x_range, d0.t_range
    weights = torch.tensor(weights_np, dtype=dtype, device=dev)
    lr_t = torch.tensor(lr_arr, dtype=dtype, device=dev).reshape(R, 1)
    if initial_params is not None:
        init = np.asarray(initial_params, dtype=np.float64)
        if init.shape != (R, layout.n_params):
            raise TrainingError(f"initial_params has shape {init.shape}, expected {(R, layout.n_params)}")
        flat = torch.tensor(init, dtype=dtype, device=dev)
    else:
        flat = torch.stack([xavier_init(layout, int(s), dtype) for s in seeds]).to(dev)
    leaves = leaf_views(flat, layout)
    m = torch.zeros_like(flat)
    v = torch.zeros_like(flat)

    gens = [torch.Generator().manual_seed(stable_int("sampling", int(s))) for s in seeds]
    nb = config.n_bc
    bc_x = torch.cat([torch.full((nb,), x0), torch.full((nb,), x1)]).to(dev, dtype)

    # fixed validation collocation set, seeded per replicate
    vgens = [torch.Generator().manual_seed(stable_int("validation", int(s))) for s in seeds]
    vp, vb = zip(*[_collocation(g, (x0, x1), (t0, t1), dtype, (config.val_n_pde,), (2 * config.val_n_bc,))
                   for g in vgens])
    vbc_x = torch.cat([torch.full((config.val_n_bc,), x0), torch.full((config.val_n_bc,), x1)]).to(dtype)
    val_pde = torch.stack(vp).to(dev)
    val_bc = torch.stack([torch.stack([vbc_x, b], dim=1) for b in vb]).to(dev)
    val_xt, val_u = val_pts[..., :2].contiguous(), val_pts[..., 2].contiguous()

    loss_and_grad, val_fn, adam = _kernels(layout, config.compile)
    b1, b2 = config.betas

    S = math.ceil(n_train / B)
    steps_per_epoch = S
    E = config.epochs
    hist = torch.full((len(HISTORY_KEYS), R, E), float("nan"), dtype=torch.float64, device=dev)
    # the state one epoch updates in place (a CUDA graph replays on these same tensors)
    best = flat.detach().clone()
    best_val = torch.full((R,), float("inf"), dtype=dtype, device=dev)
    best_epoch = torch.zeros(R, dtype=torch.int64, device=dev)
    diverged_t = torch.full((R,), -1, dtype=torch.int64, device=dev)
    epoch_t = torch.zeros((), dtype=torch.int64, device=dev)
    step_t = torch.zeros((), dtype=dtype, device=dev)
    hist_e = torch.zeros((len(HISTORY_KEYS), R), dtype=torch.float64, device=dev)
    state = (flat, m, v, step_t, lr_t, best, best_val, best_epoch, diverged_t, epoch_t, hist_e)

    def run_epoch(perm_e, cp_e, cb_e):
        """One epoch: S optimiser steps, then validation, the best parameters and divergence
        (a diverged replicate is frozen at its best parameters; the others go on).  No
        host-device synchronisation and no data-dependent Python branch: on a GPU the whole
        epoch is captured once as a CUDA graph and replayed."""
        train_acc = torch.zeros(R, dtype=dtype, device=dev)
        for s in range(S):
            idx = perm_e[:, s * B:(s + 1) * B]
            batch = torch.gather(train_pts, 1, idx[..., None].expand(-1, -1, 3))
            bc_xt = torch.stack([bc_x.expand(R, -1), cb_e[:, s]], dim=2)
            # contiguous inputs: strides then do not depend on the chunk length, so the
            # compiled kernels are not re-specialised (recompiled) between runs
            total, grad = loss_and_grad(flat, leaves, cp_e[:, s].contiguous(), bc_xt,
                                        batch[..., :2].contiguous(), batch[..., 2].contiguous(), weights)
            step_t.add_(1)
            with torch.no_grad():
                adam(flat, grad, m, v, step_t, lr_t, b1, b2, config.eps)
            train_acc.add_(total)
        with torch.no_grad():
            epoch_t.add_(1)
            comps = val_fn(leaves, val_pde, val_bc, val_xt, val_u)
            vtot = (comps * weights).sum(dim=1)
            hist_e[0:3] = comps.T.double()
            hist_e[3] = vtot.double()
            hist_e[4] = (train_acc / S).double()
            bad = ~(torch.isfinite(vtot) & torch.isfinite(flat).all(dim=1))
            improved = (vtot < best_val) & ~bad
            best.copy_(torch.where(improved[:, None], flat, best))
            best_val.copy_(torch.where(improved, vtot, best_val))
            best_epoch.copy_(torch.where(improved, epoch_t, best_epoch))
            diverged_t.copy_(torch.where(bad & (diverged_t < 0), epoch_t, diverged_t))
            flat.copy_(torch.where(bad[:, None], best, flat))
            m.masked_fill_(bad[:, None], 0.0)
            v.masked_fill_(bad[:, None], 0.0)
            lr_t.masked_fill_(bad[:, None], 0.0)

    draw = _ChunkDrawer(gens, n_train, S, config.n_pde, 2 * nb, (x0, x1), (t0, t1), dtype, dev,
                        threads=draw_threads if draw_threads is not None else (8 if dev.type == "cuda" else 0))
    use_graph = dev.type == "cuda" if cuda_graph is None else bool(cuda_graph)
    if use_graph and dev.type != "cuda":
        raise TrainingError("cuda_graph=True needs a CUDA device")
    graph = static = None

    first_epoch_s = float("nan")
    bar = None
    if progress:
        from tqdm import tqdm  # text bar: works in terminals and notebooks, needs no ipywidgets
        bar = tqdm(total=E, desc=progress if isinstance(progress, str) else "training",
                   unit="epoch", leave=False)
    start = time.perf_counter()
    epoch, prior_wall = 0, 0.0
    if resume is not None:
        epoch, prior_wall, first_epoch_s = _restore(resume, state, hist, gens, R, E, config.chunk_epochs)
        if bar is not None:
            bar.update(epoch)
    stop = False
    paused = None
    pending = draw.submit(min(config.chunk_epochs, E - epoch))
    try:
        while epoch < E and not stop:
            chunk = min(config.chunk_epochs, E - epoch)
            if stop_at_epoch is not None and epoch >= stop_at_epoch:
                paused = draw.states_before_last  # the generators before the chunk not yet trained
                break
            perms, cp, cb = pending.result()   # (R, chunk, N), (R, chunk, S, P, 2), (R, chunk, S, 2nb)
            if epoch + chunk < E:  # draw the next chunk while this one trains
                pending = draw.submit(min(config.chunk_epochs, E - epoch - chunk))
            for e in range(chunk):
                if use_graph:
                    if graph is None:
                        static = (perms[:, e].clone(), cp[:, e].clone(), cb[:, e].clone())
                        try:
                            graph = _capture_epoch(run_epoch, static, state)
                        except RuntimeError as err:  # recorded: extra["cuda_graph"] is False
                            import warnings
                            warnings.warn(f"CUDA graph capture failed, training without it: {err}")
                            use_graph = False
                if use_graph:
                    for buf, src in zip(static, (perms[:, e], cp[:, e], cb[:, e])):
                        buf.copy_(src)
                    graph.replay()
                else:
                    run_epoch(perms[:, e], cp[:, e], cb[:, e])
                hist[:, :, epoch].copy_(hist_e)
                epoch += 1
                if epoch == 1:
                    if dev.type == "cuda":
                        torch.cuda.synchronize(dev)
                    first_epoch_s = time.perf_counter() - start
                if config.time_budget_s is not None:
                    if dev.type == "cuda":
                        torch.cuda.synchronize(dev)
                    if time.perf_counter() - start >= config.time_budget_s:
                        stop = True
                        break
            if dev.type == "cuda":
                torch.cuda.synchronize(dev)  # once per chunk: the bar shows what has run
            if bar is not None:
                bar.update(e + 1)
    finally:
        draw.close()
        if bar is not None:
            bar.close()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    wall = prior_wall + time.perf_counter() - start
    # the first epoch includes compiling the kernels for new shapes; the steady-state
    # time extrapolates the other epochs' pace to the whole run
    steady = (wall - first_epoch_s) * epoch / (epoch - 1) if epoch > 1 else wall
    diverged = diverged_t.cpu().numpy().copy()

    status = ["ok" if d < 0 else f"diverged at epoch {d}" for d in diverged]
    extra = {}
    if paused is not None:
        extra["state"] = TrainState(
            epoch=epoch, flat=flat.detach().cpu().numpy().copy(), m=m.cpu().numpy().copy(),
            v=v.cpu().numpy().copy(), step=float(step_t), lr=lr_t[:, 0].cpu().numpy().copy(),
            best=best.cpu().numpy().copy(), best_val=best_val.cpu().numpy().copy(),
            best_epoch=best_epoch.cpu().numpy().copy(), diverged=diverged.copy(),
            hist=hist[:, :, :epoch].cpu().numpy().copy(), gen_states=np.stack(paused),
            wall_time_s=wall, first_epoch_s=first_epoch_s)
    hist = hist.cpu()
    history = {k: hist[i, :, :epoch].numpy().copy() for i, k in enumerate(HISTORY_KEYS)}
    return TrainResult(layout=layout, config=config, seeds=seeds, mechanisms=mechanisms,
                       final=flat.detach().double().cpu().numpy().copy(),
                       best=best.double().cpu().numpy().copy(), best_epoch=best_epoch.cpu().numpy().copy(),
                       history=history, weights=weights_np, lr=lr_arr, status=status,
                       diverged_epoch=diverged, epochs_run=epoch, steps_per_epoch=steps_per_epoch,
                       wall_time_s=wall,
                       extra={"batch_size_used": B, "first_epoch_s": first_epoch_s, "steady_time_s": steady,
                              "device": device_name(dev), "cuda_graph": use_graph, "engine": ENGINE_VERSION,
                              **extra})
