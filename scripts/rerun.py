"""Rerun one chapter notebook with other parameters (``make rerun``).

    python scripts/rerun.py [--dry-run] NB OUT [-p NAME VALUE ...] [-y YAML ...]

``-p NAME VALUE`` sets a parameter; VALUE is read as a Python literal where it is one
(``0.01``, ``True``, ``None``, ``[0.0, 0.01]``, ``[[4, 32]]``), else as text (``quick``).
``-y YAML`` sets several at once (``-y "{noise_vars: [0.0, 0.01], scale: quick}"``).
Before anything runs, each name must be one of the notebook's parameters (its cell tagged
``parameters``) and each value one that parameter can take
(``binn_utils.applications.notebook_parameters``): otherwise one line and exit status 2.  The notebook
(``notebooks/NB.py``) is converted, executed by papermill with the folder ``notebooks/``
as working directory into ``OUT/NB.ipynb``, its figures into ``OUT`` (its ``output_dir``
parameter).  A failing cell: one line naming it, exit status 1 (2 when it is the
notebook's own parameter check).  ``--dry-run``: check and say what would run, run nothing and
write nothing.  OUT must name a folder outside the committed results (``results/``: a rerun
never writes there) that can be written; Ctrl-C ends it with one line, exit status 130.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
try:        # a Ctrl-C while the package loads (seconds on a busy machine): the same one line as later
    from binn_utils.applications.notebook_parameters import ParameterError, check_parameters  # noqa: E402
    from binn_utils.store import stores  # noqa: E402
except KeyboardInterrupt:
    print("make rerun: interrupted: nothing was run", file=sys.stderr)
    raise SystemExit(130) from None

OUTPUT_PARAM = "output_dir"
SOURCE_PARAM = "source"
PROG = "make rerun"


def value_of(text: str):
    """A ``-p`` value: a Python literal where it is one (tuples as lists, which papermill
    passes on), else the text itself."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    return as_lists(value)


def as_lists(value):
    return [as_lists(v) for v in value] if isinstance(value, (list, tuple)) else value


def parse(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="check the notebook and its parameters, run nothing")
    ap.add_argument("nb", metavar="NB", help="a notebook of notebooks/, without .py")
    ap.add_argument("out", metavar="OUT", help="output folder")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    ap.add_argument("-y", "--yaml", action="append", default=[], metavar="YAML",
                    help="parameters as a YAML mapping")
    return ap.parse_args(argv)


def requested(args) -> dict:
    """The parameters asked for, in order (a later one wins)."""
    import yaml
    values = {}
    for text in args.yaml:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ParameterError(f"-y {text!r} is not YAML: {str(err).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise ParameterError(f"-y needs a mapping such as \"{{noise_vars: [0.0, 0.01]}}\", got {text!r}")
        values.update(data)
    for name, text in args.parameter:
        values[name] = value_of(text)
    return values


def notebook_parameters(source: Path, ipynb: Path) -> list[str]:
    """Convert ``source`` (Jupytext) to ``ipynb``; the names in its ``parameters`` cell."""
    import jupytext
    from papermill import inspect_notebook
    ipynb.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(jupytext.read(source), ipynb)
    return list(inspect_notebook(str(ipynb)))


def check_out(text: str) -> Path:
    """OUT as an absolute folder a rerun may write into: named (an empty OUT, an unset shell
    variable, must not fall back to the working folder), outside the committed results, and not
    a file or under one.  ValueError (one line) otherwise."""
    if not text.strip():
        raise ValueError("OUT is empty (an unset shell variable?): name the output folder, e.g. OUT=out/rerun")
    out = Path(text).resolve()
    committed = stores.default_results_dir().resolve()
    if out == committed or committed in out.parents:
        raise ValueError(f"OUT={text} lies in the committed results ({committed}), which a rerun never writes "
                         "into: name another folder, e.g. OUT=out/rerun")
    return out


def check_source(source):
    """A ParameterError where the ``source`` parameter names the committed results: a notebook
    trains what its source lacks into that source, and a rerun never writes into them (they are
    read without it: leave it out).  A relative source is read from ``notebooks/``, the notebook's
    working folder."""
    if source is None:
        return
    committed = stores.default_results_dir().resolve()
    where = (ROOT / "notebooks" / str(source)).resolve()
    if where == committed or committed in where.parents:
        raise ParameterError(f"parameter {SOURCE_PARAM} names the committed results ({where}), into which the "
                             f"notebook would train what they lack; leave {SOURCE_PARAM} out to read them (what "
                             "they lack is then trained into out/results)")


def _end_kernel_then_interrupt(signum, frame):
    """Ctrl-C: the notebook's kernel (a process of this one, in a session of its own) is ended
    first, so that it cannot answer papermill's closing with tracebacks of its own; then the
    KeyboardInterrupt (a further Ctrl-C meanwhile is ignored: the rerun is ending anyway).
    The log is silenced from here on: the ended kernel is otherwise reported by nbclient
    ("Kernel died while waiting for execute reply") and by asyncio, whose abandoned cell task
    prints its DeadKernelError's traceback when it is collected, at exit."""
    import logging
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.disable(logging.CRITICAL)
    try:
        import psutil
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                child.kill()
    except ImportError:  # pragma: no cover - psutil is a requirement
        pass
    raise KeyboardInterrupt


def main(argv=None) -> int:
    """``make rerun`` (see the module's docstring); Ctrl-C: one line, exit status 130."""
    import logging
    import signal
    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, _end_kernel_then_interrupt) if main_thread else None
    logged = logging.root.manager.disable      # the Ctrl-C handler silences the log; a caller gets it back
    try:
        return _main(argv)
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):
            print(f"{PROG}: interrupted: the notebook did not finish (what it wrote into OUT is partial)",
                  file=sys.stderr)
        import gc
        gc.collect()      # the abandoned cell task collected while the log is still silenced
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, before)
        logging.disable(logged)


def _main(argv=None) -> int:
    args = parse(argv)
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))
    if args.nb not in names:
        print(f"{PROG}: no notebook notebooks/{args.nb}.py (have: {', '.join(names)})", file=sys.stderr)
        return 2
    try:
        out = check_out(args.out)
        # a file, under a file, or not writable: before anything runs (a dry run creates nothing)
        stores.check_writable(out, create=not args.dry_run)
    except ValueError as err:
        print(f"{PROG}: OUT={args.out}: {err}" if str(err).startswith("cannot") else f"{PROG}: {err}",
              file=sys.stderr)
        return 2
    # the notebook converted outside OUT: a refused request (or a dry run) leaves nothing there
    with tempfile.TemporaryDirectory(prefix="binn-rerun-") as scratch:
        try:
            return _run(args, out, Path(scratch) / f"{args.nb}.ipynb")
        except OSError as err:     # OUT writable a moment ago: gone, full, read-only
            where = f" {err.filename}" if err.filename else ""
            print(f"{PROG}: cannot write{where}: {err.strerror or err}", file=sys.stderr)
            return 2


def _run(args, out: Path, src: Path) -> int:
    try:
        values = requested(args)
        known = notebook_parameters(ROOT / "notebooks" / f"{args.nb}.py", src)
        unknown = [k for k in values if k not in known]
        if unknown:
            raise ParameterError(f"notebook {args.nb} has no parameter {', '.join(map(repr, unknown))}; "
                                 f"its parameters: {', '.join(known)}")
        if OUTPUT_PARAM in values:
            raise ParameterError(f"{OUTPUT_PARAM} is set by OUT=...")
        check_parameters(values)
        check_source(values.get(SOURCE_PARAM))
    except ParameterError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    values[OUTPUT_PARAM] = str(out)
    shown = " ".join(f"{k}={v!r}" for k, v in values.items())
    if args.dry_run:
        print(f"{PROG}: would run notebooks/{args.nb}.py with {shown} into {out / (args.nb + '.ipynb')}")
        return 0
    import papermill
    from papermill.exceptions import PapermillExecutionError
    print(f"{PROG}: notebooks/{args.nb}.py with {shown}", flush=True)
    try:
        # progress on the terminal: the cells done (with ETA), and what the kernel writes to its
        # stderr as it comes (warnings, e.g. a damaged stored result, and the bars of any training),
        # both on stdout so that stderr keeps this script's own one-line messages
        papermill.execute_notebook(str(src), str(out / f"{args.nb}.ipynb"), parameters=values,
                                   cwd=str(ROOT / "notebooks"), kernel_name="python3",
                                   progress_bar={"file": sys.stdout, "desc": f"{PROG}: cells"}, stderr_file=sys.stdout)
    except PapermillExecutionError as err:
        if err.ename == ParameterError.__name__:
            print(f"{PROG}: {err.evalue}", file=sys.stderr)
            return 2
        print(f"{PROG}: notebooks/{args.nb}.py failed in cell {err.exec_count}: {err.ename}: "
              f"{str(err.evalue).splitlines()[0] if err.evalue else ''} (the executed notebook: "
              f"{out / (args.nb + '.ipynb')})", file=sys.stderr)
        return 1
    print(f"{PROG}: wrote {out / (args.nb + '.ipynb')}; figures in {out}/")
    return 0


if __name__ == "__main__":
    rc = main()
    if rc == 130:     # the ended kernel's abandoned cell task reports itself when collected, at exit
        import logging
        logging.disable(logging.CRITICAL)
    sys.exit(rc)
