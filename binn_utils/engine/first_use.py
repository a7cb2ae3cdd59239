"""Compiled modules that work loads on first use, imported before it starts.

A KeyboardInterrupt raised while an extension module initialises can be swallowed by its C
code: it happens in ``numpy.random``'s Cython modules, which NumPy imports when
``np.random`` is first named (the observations' noise draws), and a sweep interrupted there
trained on, deaf to that Ctrl-C.  Work that must stop on Ctrl-C (a sweep, a fit) calls
:func:`import_first_use_modules` before it starts, so that none of them is first imported
while it runs; a Ctrl-C during those imports is held back until they are done.
"""
from __future__ import annotations

import importlib
import signal
import threading
from contextlib import contextmanager

#: Compiled modules that training and forward solves load on first use: NumPy imports
#: ``numpy.random`` when it is first named (the observations' noise draws), and the forward
#: solves import SciPy's integrators and sparse matrices where they are used.
FIRST_USE_IMPORTS = ("numpy.random", "scipy.integrate", "scipy.sparse", "scipy.linalg")


@contextmanager
def sigint_held_back():
    """In the main thread: SIGINT's handler from before the block is put back after it, whatever
    the block set (an import may set one), and where that handler is Python code, a Ctrl-C that
    comes inside the block is held back and handed to it once the block is over (Python's
    raises KeyboardInterrupt); elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler, came = signal.getsignal(signal.SIGINT), []
    if callable(handler):
        signal.signal(signal.SIGINT, lambda *_: came.append(True))
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
    if came:
        handler(signal.SIGINT, None)


def import_first_use_modules():
    """Import :data:`FIRST_USE_IMPORTS` now, a Ctrl-C meanwhile held back until they are in
    (:func:`sigint_held_back`)."""
    with sigint_held_back():
        for name in FIRST_USE_IMPORTS:
            importlib.import_module(name)
