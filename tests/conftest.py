"""Set-up shared by every test module."""
import signal

# The Ctrl-C tests start `binn` as a terminal would and send it SIGINT.  A test run started in
# the background of a script (`make test &`) inherits SIGINT ignored, as POSIX has it, and so
# would every process it starts: their Ctrl-C would be lost and those tests would fail for a
# reason of the caller's.  The session therefore handles SIGINT as Python does by default;
# the processes it starts get SIGINT's default action back when they start, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
