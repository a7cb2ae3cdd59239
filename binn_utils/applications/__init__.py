"""The applications layer: the ``binn`` command (``cli``, ``arguments``, ``fit_commands``,
``interrupts``) and own data (``fit_plan``: a ``binn fit`` request; ``fit_report``: its files;
``predict``: ``binn predict``; ``fit_example``: a problem with a known answer).  The notebooks
sit on top."""

import errno
import os
import sys

#: errors of writing to a full, broken or closed standard output or error
OUTPUT_ERRORS = (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EBADF, errno.EDQUOT)


#: errors of a file or folder binn cannot read or write where it is (permissions, a file where a
#: folder should be): one line naming it, not a traceback
ACCESS_ERRORS = (errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR, errno.EROFS)


def _access_failed(err: OSError) -> int:
    """One line on stderr naming the file or folder that could not be used, and status 1."""
    where = f" {err.filename}" if err.filename else ""
    try:
        print(f"binn: cannot use{where}: {err.strerror or err} (check that it exists as the kind of path asked "
              "for and that this user may read and write it)", file=sys.stderr, flush=True)
    except OSError:
        pass
    return 1


def _output_failed(err: OSError) -> int:
    """One line on stderr (nothing for a closed pipe: the reader has gone) and status 1 when
    standard output could not be written; stdout is pointed at /dev/null so that Python's own
    flush at exit does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    if err.errno != errno.EPIPE:
        try:
            print(f"binn: cannot write the output: {err.strerror or err}", file=sys.stderr, flush=True)
        except OSError:
            pass
    return 1


def main() -> int:
    """The ``binn`` command (``cli.main``), loaded here so that a Ctrl-C in the fraction of a
    second Python spends loading it ends the command as a Ctrl-C does later (one line, exit
    status 130), not with a traceback of the import under way.  A closed standard output (``>&-``)
    is refused before anything runs: what the command says would be lost (and the first file
    it opened would take the place of its output)."""
    if sys.stdout is None:
        print("binn: standard output is closed (>&-): nothing was run; give it a file, or > /dev/null to "
              "discard what binn says", file=sys.stderr)
        return 2
    try:
        from .cli import main as command
    except KeyboardInterrupt:
        print("binn: interrupted while starting: nothing was run", file=sys.stderr)
        return 130
    try:
        try:
            rc = command()
        except SystemExit as exc:       # --help, --version, usage errors: argparse's exit
            rc = exc.code
        sys.stdout.flush()              # a full device shows here, not silently at exit
        return rc
    except OSError as err:
        if isinstance(err, BrokenPipeError) or err.errno in OUTPUT_ERRORS:
            return _output_failed(err)
        if err.errno in ACCESS_ERRORS:
            return _access_failed(err)
        raise
