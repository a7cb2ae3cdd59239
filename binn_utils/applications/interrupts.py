"""Ctrl-C reaches this process alone, not the worker processes it starts.

A terminal sends Ctrl-C (SIGINT) to every process of the foreground process group: the
Dask worker processes that ``binn sweep`` and ``binn fit --workers N`` start are in it,
and a worker interrupted while it starts prints its own traceback.  :func:`main_thread_only`
blocks SIGINT in every thread but the main one, as each thread starts: the kernel then
delivers it to the main thread (which raises KeyboardInterrupt as always: the command says
in one line what was kept, then ends its workers), and a process started from any other
thread (distributed starts its workers from its own threads) inherits the blocked signal.
The main thread itself never ignores SIGINT, so a Ctrl-C is never lost, whatever the
command is doing when it comes (ignoring it in the main thread while the cluster starts,
for the workers to inherit, loses a Ctrl-C that comes then: the command trains on).  Once a Ctrl-C
has stopped the command, a further one is ignored while it says so and ends its workers
(:func:`further_ones_ignored`): the command is ending anyway.  A worker ended while it starts may leave a semaphore,
which multiprocessing's resource tracker (a process of its own, with the terminal as its
stderr) removes at exit with a warning about it: that warning is not shown either.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager


#: Python's warning filter (``PYTHONWARNINGS``, read by every process the command starts) for
#: the resource tracker's report of the semaphores it cleaned up at exit.
TRACKER_CLEANUP = "ignore::UserWarning:multiprocessing.resource_tracker"


def _block_in_this_thread(*_):
    """A profile hook that runs once at the start of each new thread: SIGINT blocked there."""
    sys.setprofile(None)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def main_thread_only():
    """From now on, threads started by ``threading`` block SIGINT (POSIX only; called from
    the main thread of the ``binn`` command), and the processes it starts keep quiet about
    the semaphores they clean up after it."""
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (os.environ.get("PYTHONWARNINGS"), TRACKER_CLEANUP)))
    if hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread():
        threading.setprofile(_block_in_this_thread)


@contextmanager
def further_ones_ignored():
    """While the command reports a Ctrl-C and ends its workers (main thread only): a further
    Ctrl-C, an impatient second press, is ignored, so that it cannot cut the one line or the
    ending of the workers short with a traceback of its own; SIGINT's handler is put back
    afterwards (a Ctrl-C while the interpreter then shuts down still ends it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
