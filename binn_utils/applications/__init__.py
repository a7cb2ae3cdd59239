"""The applications layer: the ``binn`` command (``cli``, ``arguments``, ``fit_commands``,
``interrupts``) and own data (``fit_plan``: a ``binn fit`` request; ``fit_report``: its files;
``predict``: ``binn predict``; ``fit_example``: a problem with a known answer).  The notebooks
sit on top."""

import sys


def main() -> int:
    """The ``binn`` command (``cli.main``), loaded here so that a Ctrl-C in the fraction of a
    second Python spends loading it ends the command as a Ctrl-C does later (one line, exit
    status 130), not with a traceback of the import under way."""
    try:
        from .cli import main as command
    except KeyboardInterrupt:
        print("binn: interrupted while starting: nothing was run", file=sys.stderr)
        return 130
    return command()
