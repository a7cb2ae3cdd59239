"""The compiled kernels of the trainer: one batched optimiser step's loss and gradient, the
validation losses and Adam's update, compiled once per layout (``compiled_kernels``) and, on the CPU,
kept across processes in a compile cache (``compile_cache_dir``); and the blocks of replicates that
a CPU step runs in turn (``replicate_blocks``).

Compiled or not, the arithmetic is the same on the CPU: float denormals are flushed to zero
during every kernel (``flush_denormals``).  ``training.train`` calls these kernels; the loss
and its hand-written gradient are ``losses.loss_and_grad`` and ``losses.loss_components``.
"""
from __future__ import annotations

import functools
import hashlib
import os
import types

import torch

from .layout import NetworkLayout
from .losses import loss_and_grad, loss_components
from .problems import user_cache_dir

_COMPILED: dict = {}


def adam_update(flat, grad, m, v, step, lr, b1: float, b2: float, eps: float):
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


def canonical(t: torch.Tensor) -> torch.Tensor:
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


def flush_denormals(fn):
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


def _uncompiled(fn):
    """``fn`` run in line, denormals flushed (``flush_denormals``), in inference mode: the
    same operations as under ``no_grad``, without autograd's bookkeeping on each (a tenth of
    an uncompiled step at the quick scale).  Its results are read, never differentiated."""
    flushed = flush_denormals(fn)

    def call(*args):
        with torch.inference_mode():
            return flushed(*args)
    return call


COMPILE_CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
"""The environment variable naming the folder where compiled kernels are kept between
processes (torch inductor's own: its FX graph and AOT autograd caches live there)."""


def compile_cache_dir() -> str:
    """The folder of the compiled kernels: ``$TORCHINDUCTOR_CACHE_DIR`` if set, else
    ``torchinductor`` under ``problems.user_cache_dir()`` (``binn`` under ``$XDG_CACHE_HOME``,
    default ``~/.cache``).

    The CPU kernels compiled ahead of time are saved in its ``binn-aot`` folder
    (``_Precompiled``), and torch.compile keeps there what it builds (the FX graph cache and
    the AOT autograd cache, keyed on the traced graph, the torch version and the compiler's
    options), so a later process that asks for the same kernels loads them instead of
    compiling: a fresh machine compiles each kernel once.  torch's own default is a folder
    under /tmp, which a reboot empties; this one persists.  Set before the first compile of
    the process (``compiled_kernels``); delete the folder to force recompiling.
    """
    if COMPILE_CACHE_ENV not in os.environ:
        os.environ[COMPILE_CACHE_ENV] = os.path.join(user_cache_dir(), "torchinductor")
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

    SOURCES = ("layout.py", "networks.py", "losses.py", "kernels.py")

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
                # traced as a function of its own (a fresh code object: what TorchDynamo
                # learnt compiling this function for another signature does not carry over,
                # so the kernel depends on its signature only), Python floats as constants
                # (a saved kernel cannot take them as inputs)
                fresh = types.FunctionType(self.fn.__code__.replace(co_name=f"{self.name}_{sig}"), self.fn.__globals__,
                                           self.fn.__name__, self.fn.__defaults__, self.fn.__closure__)
                with torch._dynamo.config.patch(specialize_float=True):
                    fn = torch.compile(fresh, fullgraph=True, dynamic=None,
                                       options={"cpp_wrapper": True}).aot_compile((args, {}))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fn.save_compiled_function(path)   # written atomically
            fn.disable_guard_check()
            return fn
        except Exception as err:  # noqa: BLE001 -- any failure: compile as usual instead
            import warnings
            warnings.warn(f"compiled kernel {self.name} not kept across processes ({type(err).__name__}: {err}); "
                          "compiling it in this process")
            return None

    def bind(self, *args):
        """The saved kernel for arguments with the signature of ``args``, called as it is (no
        signature, no checks: about 20 us less per call), or None where it could not be kept."""
        key = self._signature(args)
        if key not in self.ready:
            self.ready[key] = self._prepare(key, args)
        return self.ready[key]

    def __call__(self, *args):
        fn = self.bind(*args)
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
    precompiled = None if name is None else _Precompiled(fn, name, layout, varying, jit)
    cpu = flush_denormals(jit if precompiled is None else precompiled)
    other = torch.compile(fn, dynamic=None)

    def on_cpu(flat):
        t = flat if isinstance(flat, torch.Tensor) else next(iter(flat.values()))  # leaf_views dict
        return t.device.type == "cpu"

    def call(flat, *args):
        if precompiled is not None and on_cpu(flat):
            return cpu(flat, *args)
        for a, dims in zip((flat,) + args, varying):
            if isinstance(a, (torch.Tensor, dict)):
                _vary(a, dims)
        return (cpu if on_cpu(flat) else other)(flat, *args)

    def bind(*args):
        """``call`` for arguments with the signature of ``args`` (dtypes, static sizes,
        strides, grad mode, thread count): on the CPU the saved kernel itself, denormals
        flushed, without the checks that select it; the caller passes contiguous tensors of
        that signature, in the same grad mode and with the same thread count.  Elsewhere
        ``call``."""
        kernel = precompiled.bind(*args) if precompiled is not None and on_cpu(args[0]) else None
        return call if kernel is None else flush_denormals(kernel)

    call.bind = bind
    return call


def _bound_call(fn):
    """``fn`` with a ``bind`` that returns ``fn`` itself (nothing to select)."""
    fn.bind = lambda *args: fn
    return fn


def adam_step(flat, grad, m, v, step, lr, acc, total, b1: float, b2: float, eps: float, update=adam_update):
    """One optimiser step's bookkeeping after the gradient: the step counter (a tensor: no
    host-device synchronisation) up by one, Adam's update (``update``: ``adam_update``, or
    that function compiled) and the epoch's running training loss ``acc`` plus this step's
    ``total``, in place."""
    step.add_(1)
    update(flat, grad, m, v, step, lr, b1, b2, eps)
    acc.add_(total)


def _adam_kernels(layout: NetworkLayout, compile_: bool):
    """``adam(flat, grad, m, v, step, lr, acc, total, b1, b2, eps)``: ``adam_step``, in place;
    ``adam.bind(...)`` (the same arguments) is it for tensors of that signature and these
    constants, called with the eight tensors.

    Compiled, on the CPU in float32 (the default): one kernel per (b1, b2, eps), which it
    holds as constants, compiled ahead of time and kept across processes like the step
    (``_Precompiled``: no TorchDynamo guards per call), with the numbers of the traced update
    bit for bit (tests).  Elsewhere (float64, where torch cannot save the kernel, and a GPU)
    Adam's update is traced in each process with its float arguments, the counter and the
    running loss added around it, as before."""
    if not compile_:
        general = _uncompiled(adam_step)
    else:
        general = functools.partial(adam_step, update=_by_device(adam_update, [(0,)] * 6))
    saved: dict = {}

    def bind(flat, grad, m, v, step, lr, acc, total, b1, b2, eps):
        if not (compile_ and flat.device.type == "cpu" and flat.dtype == torch.float32):
            return lambda *tensors: general(*tensors, b1, b2, eps)
        constants = (float(b1), float(b2), float(eps))
        if constants not in saved:
            def update(flat, grad, m, v, step, lr, acc, total):
                adam_step(flat, grad, m, v, step, lr, acc, total, *constants)
            name = "adam-" + hashlib.sha256(repr(constants).encode()).hexdigest()[:8]
            saved[constants] = _by_device(update, [(0,)] * 8, name, layout)
        return saved[constants].bind(flat, grad, m, v, step, lr, acc, total)

    def adam(*args):
        return bind(*args)(*args[:8])

    adam.bind = bind
    return adam


PARAMETERS_PER_BLOCK = 250_000
"""On the CPU, each optimiser step runs the replicates in blocks of about this many network
parameters in all (``replicate_blocks``)."""


def replicate_blocks(R: int, layout: NetworkLayout, dev: torch.device, block: int | None = None, *,
                     compiled_float32: bool = True) -> list:
    """The blocks of replicates, as (first, end) pairs, that each optimiser step runs in turn.

    On the CPU a step of many replicates at once works on more memory than the core's caches
    hold: a step of the noise study's (6, 128) u-network at R = 60 (86,338 parameters per
    replicate) took about 12 % more CPU time per replicate-step than the same step in blocks of
    two to five, and the (4, 32) networks at R = 100 8 to 13 % more than in blocks of 25 to 50
    (``benchmarks/replicate_blocks.py``).  So the compiled float32 step (``training._Run``)
    runs blocks of ``block`` replicates (default: ``PARAMETERS_PER_BLOCK`` parameters' worth,
    at least two), of near-equal sizes of at least ``block``; on a GPU, one block of all R.
    The replicates are independent and the saved kernels are the same (generic in the
    replicate count from two on), so the numbers are those of one block bit for bit (tests).
    ``compiled_float32`` False (a step in line, or in float64): one block, because there the
    batched products round differently by block size.  Validation, the best parameters and
    the history stay batched over all R."""
    if block is None:
        block = max(2, PARAMETERS_PER_BLOCK // layout.n_params)
    if not compiled_float32 or dev.type != "cpu" or R < 2 * block:
        return [(0, R)]
    n = R // block
    ends = [R * (k + 1) // n for k in range(n)]
    return list(zip([0] + ends[:-1], ends))


def compiled_kernels(layout: NetworkLayout, compile_: bool):
    """(loss_and_grad, val_fn, adam) for this layout, compiled once per process.

    loss_and_grad(flat, leaves, pde_xt, bc_xt, data_xt, data_u, weights) -> (total (R,),
    grad (R, n_params)): the weighted total loss per replicate and its gradient in flat
    order, by the hand-written backward (``losses.loss_and_grad``); no autograd, no
    host-device synchronisation.  ``leaves`` is accepted for the caller's convenience and
    not used.  ``loss_and_grad.bind(flat, pde_xt, bc_xt, data_xt, data_u, weights)`` is the
    step's kernel for arguments of that signature, called with the same positional
    arguments (no ``leaves``), contiguous, under ``torch.no_grad``, without the checks: the
    trainer binds it once per run and mini-batch row count (``kernels._by_device``; the
    thread count and grad mode are those at binding).

    adam(flat, grad, m, v, step, lr, acc, total, b1, b2, eps): ``adam_step``, in place;
    ``adam.bind(...)`` likewise (``_adam_kernels``).
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
        else:  # the same arithmetic as compiled on the CPU: denormals flushed
            step_fn, val_fn = (_bound_call(_uncompiled(f)) for f in (step_fn, val_fn))
        adam = _adam_kernels(layout, compile_)

        def loss_and_grad_fn(flat, leaves, pde_xt, bc_xt, data_xt, data_u, weights):
            with torch.no_grad():
                return step_fn(flat.detach(), canonical(pde_xt), canonical(bc_xt), canonical(data_xt),
                               canonical(data_u), canonical(weights))

        loss_and_grad_fn.bind = step_fn.bind

        _COMPILED[key] = (loss_and_grad_fn, val_fn, adam)
    return _COMPILED[key]
