"""Set-up shared by every test module."""
import os
import signal
import sys

import pytest

# One thread per process: the tests train and solve in-process, often beside other work (a second
# test run, a sweep, a book build); with torch's default of one thread per core, two processes side
# by side ran about five times slower each (issue 51).  Set before torch is first imported (it reads
# OMP_NUM_THREADS then), and inherited by every process a test starts.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
if "torch" in sys.modules:      # imported already (a plugin): set it directly
    sys.modules["torch"].set_num_threads(1)

# The Ctrl-C tests start `binn` as a terminal would and send it SIGINT.  A test run started in
# the background of a script (`make test &`) inherits SIGINT ignored, as POSIX has it, and so
# would every process it starts: their Ctrl-C would be lost and those tests would fail for a
# reason of the caller's.  The session therefore handles SIGINT as Python does by default;
# the processes it starts get SIGINT's default action back when they start, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def book_style():
    """The book's plotting style for one test, restored after it, and every figure closed.

    Modules that draw figures use it for every test: ``pytestmark =
    pytest.mark.usefixtures("book_style")``.
    """
    import matplotlib.pyplot as plt
    from binn_utils.presentation import plotting
    with plt.rc_context():
        plotting.style()
        yield
    plt.close("all")
