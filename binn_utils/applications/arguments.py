"""The ``binn`` command's argument types and parser: every bad value is one line, exit status 2.

Each type checks its value as argparse reads it (a number, its range, its bound), so that a
request that cannot be honoured is refused before any work: a dry run with 1e8 seeds
answers at once instead of building 1e8 replicates.
"""
from __future__ import annotations

import argparse
import math
import sys

from ..engine.runs import EPOCHS_MAX, check_learning_rate
from ..store.clusters import check_scheduler_address
from ..store.runner import WORKERS_MAX

#: The exit status of a refused request.
USAGE_ERROR = 2


class Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), not the usage block."""

    def error(self, message):
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")

    def _print_message(self, message, file=None):
        """As argparse's, but a failed write (a full device) is raised, not swallowed: ``binn
        --help > /dev/full`` must not exit 0 with its output lost (``applications.main``
        reports it in one line)."""
        if message:
            file = file or sys.stderr
            file.write(message)
            file.flush()


#: Upper bounds of the integer options.
SEEDS_MAX = 10_000
DATASETS_MAX = 1_000
COUNT_MAX = 10 ** 6
#: replicates of one setting (--seeds x --datasets): each bound alone allows ten million, whose
#: specification alone takes minutes to build
REPLICATES_MAX = 10_000


def int_up_to(hi: int, lo: int = 1):
    """An argparse type: an integer from ``lo`` (1 or 0) to ``hi``."""
    kind = "a positive integer" if lo == 1 else "an integer >= 0"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:,}, got {text}")
        return value
    return parse


positive_int = int_up_to(COUNT_MAX)
epochs = int_up_to(EPOCHS_MAX)
seeds = int_up_to(SEEDS_MAX)
datasets = int_up_to(DATASETS_MAX)
workers = int_up_to(WORKERS_MAX)
solve_workers = int_up_to(WORKERS_MAX, lo=0)


#: the smallest nonzero value a number argument may take: below it double precision keeps only a
#: few digits (subnormal numbers), so the value given is not the value stored
TINY = 1e-300


#: The largest number float32 holds: a noise variance or loss weight above it is infinite where training runs.
FLOAT32_MAX = 3.4028234663852886e38


def non_negative(unit: str = "", float32: bool = False):
    """An argparse type: a finite number >= 0 (``unit``: e.g. " of seconds", for the message;
    ``float32``: also finite in float32, the training's arithmetic)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number{unit} >= 0, got {text!r}") from None
        if not math.isfinite(value) or value < 0:
            raise argparse.ArgumentTypeError(f"must be a finite number{unit} >= 0, got {text}")
        if float32 and value > FLOAT32_MAX:
            raise argparse.ArgumentTypeError(f"{text} is infinite in float32, where training runs; give a number "
                                             f"of at most {FLOAT32_MAX:.3g}")
        if value != 0 and value < TINY or value == 0 and any(c in "123456789" for c in text.lower().split("e")[0]):
            raise argparse.ArgumentTypeError(f"{text} is too small to be told from 0 in double precision; "
                                             f"give 0 or a number of at least {TINY:g}")
        return value + 0.0      # -0.0 is 0.0: one value, one stored key
    return parse


class Version(argparse.Action):
    """``--version``: prints ``binn`` and what ``version()`` returns, computed only when asked
    (reading the checkout's commit costs a few git calls that ``binn --help`` need not pay)."""

    def __init__(self, option_strings, version, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)
        self.version = version

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"binn {self.version()}")
        parser.exit()


def named(what: str):
    """An argparse type: the name of ``what`` (a folder, a file), not empty: an unset shell
    variable must not fall back to the default in silence."""
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"must name {what}, got an empty string (an unset shell variable?)")
        return text
    return parse


folder = named("a folder")


def scheduler_address(text: str) -> str:
    """An argparse type: a Dask scheduler's address of a scheme binn connects with
    (``clusters.check_scheduler_address``), not empty."""
    named("a Dask scheduler (tcp://HOST:PORT)")(text)
    try:
        check_scheduler_address(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


noise_variance = non_negative(float32=True)
seconds = non_negative(" of seconds")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def learning_rate(text: str) -> float:
    """An argparse type: a learning rate the trainer can use (``runs.check_learning_rate``: a
    finite number > 0, normal in float32; ``--lr 1e-320`` is refused as ``--noise-var`` refuses it)."""
    value = positive_float(text)
    try:
        return check_learning_rate(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def delimiter(text):
    if text is None:
        return None
    text = {"tab": "\t", "\\t": "\t"}.get(text, text)
    if len(text) != 1:
        raise ValueError(f"--delimiter must be one character (or 'tab'), got {text!r}")
    return text


#: Options whose value may start with "-" (a negative number): `--t -10,0,10` is `--t=-10,0,10`.
NUMBER_OPTIONS = ("--t", "--u-grid")


def join_negative_values(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    out, i = [], 0
    while i < len(argv):
        if argv[i] in NUMBER_OPTIONS and i + 1 < len(argv) and argv[i + 1][:1] == "-" and argv[i + 1][1:2].isdigit():
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out
