"""The processes that run forward solves in parallel (:func:`solve_pool`, :func:`close_pool`): a
pool started with SIGINT blocked, whose workers leave Ctrl-C to the process that started them
and end with it however it ends (:func:`_end_with_parent`: Linux's parent-death signal and a
watching thread), so that a killed sweep leaves no worker holding its output.  The solves
themselves are :mod:`binn_utils.engine.forward_solve`'s."""
from __future__ import annotations

import time

__all__ = ["PARENT_POLL_S", "solve_pool", "close_pool"]

#: seconds between a forward-solve worker's looks at whether the process that started it still lives
PARENT_POLL_S = 0.5
#: Linux's prctl option that sends a process a signal when its parent ends (<linux/prctl.h>)
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int):
    """End this process as soon as ``parent``, the process that started it, has ended, however
    it ended (SIGKILL, SIGTERM: nothing of the parent's runs then to end its children).  Were it
    left, it would wait for work forever, holding the parent's standard output (``binn sweep |
    tee log`` would never return) and multiprocessing's resource tracker with it (the tracker
    ends once no process holds its pipe).  On Linux the kernel sends SIGKILL when the parent
    (the thread that started this process: :func:`solve_pool`'s caller, which closes the pool
    before it returns) ends; everywhere a daemon thread checks the parent every
    ``PARENT_POLL_S`` seconds.  A parent gone before this runs is noticed at once."""
    import os
    import signal
    import sys
    import threading
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread below alone
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)
    threading.Thread(target=watch, name="binn-parent-watch", daemon=True).start()


def _quiet_worker(parent: int | None = None):
    """Forward-solve workers leave Ctrl-C to the parent, which ends them: SIGINT ignored, then
    unblocked (a process starts with it blocked: :func:`solve_pool`; one that came meanwhile
    is dropped); they end with their parent (``parent``, its process id: :func:`_end_with_parent`).
    They import numpy and SciPy only (the learned operators are numpy
    functions), so one starts in well under a second; were torch imported by a caller's
    operators, it would run single-threaded (parallelism comes from the processes)."""
    import signal
    import sys
    if parent is not None:
        _end_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def solve_pool(workers: int):
    """A pool of ``workers`` processes for forward solves (``evaluation.evaluate``'s
    ``solve_map`` is its ``map``), or None for no ``workers`` (None or 0: solve in line).
    Started with "spawn": the parent may hold a CUDA context and threads, which must not be
    forked.  Its processes are started at once, so that they are ready by the time the first
    solves come, with SIGINT blocked (a started process inherits the mask), so that a Ctrl-C
    is the parent's alone even while a process is still starting Python; once started they
    ignore it (:func:`_quiet_worker`), and the parent ends them (:func:`close_pool`), or, killed,
    they end with it (:func:`_end_with_parent`).  Only
    the process that runs a sweep in-process makes one: a Dask worker is daemonic and cannot
    have children (there the workers themselves are the parallelism)."""
    if not workers or workers < 1:
        return None
    import multiprocessing as mp
    import os
    import signal
    from concurrent.futures import ProcessPoolExecutor
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                               initializer=_quiet_worker, initargs=(os.getpid(),))
    masked = hasattr(signal, "pthread_sigmask")
    try:
        # the mask as it is (read without a change, so that a Ctrl-C raised by the call leaves
        # nothing blocked), then SIGINT blocked until the processes are started
        old = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if masked else None
        try:
            if masked:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            for _ in range(workers):   # start the processes now (the pool starts them on demand)
                pool.submit(int)
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)   # a Ctrl-C held back arrives here
    except BaseException:
        close_pool(pool, interrupted=True)
        raise
    return pool


def close_pool(pool, interrupted: bool = False):
    """Shut ``pool`` down: after its running solves (the normal end), or at once, its
    processes terminated (``interrupted``: Ctrl-C, which they do not receive)."""
    if pool is None:
        return
    procs = list(getattr(pool, "_processes", {}).values()) if interrupted else []
    pool.shutdown(wait=not interrupted, cancel_futures=True)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(5)
