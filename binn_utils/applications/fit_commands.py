"""``binn fit`` and ``binn predict``: their options, and the commands, which check a request
in full before any work (exit status 2 and one line otherwise).

The fit's modules (``fit_plan``, ``fit_report``, ``predict``: matplotlib, the trainer) are
loaded only when one of these commands runs, so that ``binn --help`` answers at once.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from .. import studies
from ..analysis.reporting import value_label
from ..engine.forward_solve import FORWARD_METHODS
from ..store import stores
from ..store.clusters import SCHEDULER_ENV, check_scheduler_address, check_scheduler_answers
from ..store.compute import one_thread   # torch on one thread: two fits side by side (benchmarks/fit_threads.py)
from . import OUTPUT_ERRORS, arguments
from .arguments import USAGE_ERROR

EXAMPLES = {"scratch-assay": "PC-3 scratch assay of Jin et al. (2016), 16,000 cells per well (data/)"}


def add_read_options(p):
    """--delimiter and --encoding of a CSV file (default: detected, and said)."""
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="field separator of the CSV file: ',' ';' '|' or 'tab' (default: detected from the header)")
    p.add_argument("--encoding", default=None, metavar="NAME",
                   help="text encoding of the CSV file, e.g. utf-8, latin-1, cp1252, utf-16 (default: UTF-8, or "
                        "UTF-16 with its byte-order mark)")


def add_parsers(sub):
    """The ``fit`` and ``predict`` subcommands of ``binn``."""
    fp = sub.add_parser("fit", help="fit a BINN to your own data (CSV, long format) and write a report",
                        description="Validate DATA.csv, train (or load the stored networks), and write "
                                    "operators.csv, solutions.npz, figures, diagnostics.md, report.html and "
                                    "fit.json into --out.")
    fp.add_argument("data", nargs="?", metavar="DATA.csv", help="one row per measurement: x, t, u (and replicate)")
    fp.add_argument("--example", choices=sorted(EXAMPLES), default=None,
                    help="a shipped data set instead of DATA.csv, with its chapter's options")
    fp.add_argument("--mechanisms", default=None, help="operators to learn: a subset of D, V, G, e.g. D,G")
    for col in ("x", "t", "u"):
        fp.add_argument(f"--{col}", default=col, metavar="COLUMN", help=f"column of {col} (default: {col})")
    fp.add_argument("--replicate", default=None, metavar="COLUMN", help="column labelling replicate experiments")
    add_read_options(fp)
    fp.add_argument("--replicates", choices=("mean", "separate"), default="mean",
                    help="train on the replicate mean (default) or on each replicate separately")
    fp.add_argument("--scale", choices=tuple(studies.SCALES), default="book",  # fit_plan.SCALES' names (tested)
                    help="epochs and initialisations: quick (smoke run), lite, book or paper (4000 epochs, 10)")
    fp.add_argument("--seeds", type=arguments.seeds, default=None, help="initialisations (default: the scale's)")
    fp.add_argument("--epochs", type=arguments.epochs, default=None, help="default: the scale's")
    paper = studies.PAPER_DEFAULTS
    fp.add_argument("--batch-size", type=arguments.positive_int, default=None,
                    help=f"default: {paper.batch_size} (the paper's)")
    fp.add_argument("--lr", type=arguments.learning_rate, default=None,
                    help=f"learning rate (default: {value_label(paper.lr)})")
    fp.add_argument("--w-pde", type=arguments.non_negative(float32=True), default=None,
                    help=f"PDE loss weight (default: {value_label(paper.w_pde)})")
    fp.add_argument("--forward-method", default=None, choices=FORWARD_METHODS,
                    help="integrator of u_p (default: RK45, the paper's, or BDF where RK45 would be slow: it is much "
                         "faster on fine grids)")
    fp.add_argument("--which", choices=("best", "final"), default="best",
                    help="networks reported: best validation loss (default) or the last epoch")
    where = fp.add_mutually_exclusive_group()
    where.add_argument("--workers", type=arguments.workers, default=None,
                       help="train the networks in this many parts on a LocalCluster (default: in-process)")
    where.add_argument("--scheduler", type=arguments.scheduler_address, default=None, metavar="tcp://HOST:PORT",
                       help="train the parts on an existing Dask scheduler (default: $BINN_SCHEDULER if set)")
    fp.add_argument("--out", required=True, metavar="DIR", help="output folder (created)")
    pp = sub.add_parser("predict", help="solve the PDE learned by `binn fit` from a new initial condition, "
                                        "or export its operators on a grid of u")
    pp.add_argument("fitdir", metavar="FITDIR", help="the --out folder of `binn fit`")
    pp.add_argument("--ic", default=None, metavar="IC.csv", help="initial condition: columns x and u")
    pp.add_argument("--t", default=None, metavar="T0,T1,...", help="output times; the first is the initial condition's")
    pp.add_argument("--x", default="x", metavar="COLUMN")
    pp.add_argument("--u", default="u", metavar="COLUMN")
    pp.add_argument("--u-grid", default=None, metavar="LO:HI:N", help="write the operators on this grid of u")
    add_read_options(pp)
    pp.add_argument("--forward-method", default=None, choices=FORWARD_METHODS,
                    help="integrator (default: the one of the fit)")
    pp.add_argument("--out", required=True, metavar="DIR")


def fit(ap, args) -> int:
    """``binn fit``: validate everything, say what will be done, train what is missing, report."""
    from . import fit_plan, fit_report  # here: the figures and the trainer load only for fit and predict
    try:
        kw = dict(replicates=args.replicates, scale=args.scale, seeds=args.seeds, epochs=args.epochs,
                  batch_size=args.batch_size, lr=args.lr, w_pde=args.w_pde, forward_method=args.forward_method,
                  which=args.which)
        scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV) or None
        if scheduler and args.workers:
            raise ValueError(f"--workers and a scheduler ({SCHEDULER_ENV}) are two places for the work: name one")
        if scheduler:                 # before the plan, which makes the output folder
            check_scheduler_address(scheduler)
            try:
                check_scheduler_answers(scheduler)
            except RuntimeError as err:
                raise ValueError(str(err)) from None
        if args.example:
            if args.data is not None:
                raise ValueError("give DATA.csv or --example, not both")
            reading = [f"--{o}" for o in ("x", "t", "u") if getattr(args, o) != o] + \
                [f"--{o}" for o in ("replicate", "delimiter", "encoding") if getattr(args, o) is not None]
            if reading:
                raise ValueError(f"{', '.join(reading)} read(s) a DATA.csv; --example reads its shipped file as "
                                 "its chapter does")
            plan = fit_plan.scratch_plan(args.out, mechanisms=args.mechanisms or "DG", **kw)
        else:
            if args.data is None:
                raise ValueError("name the data file (DATA.csv) or an --example")
            if args.mechanisms is None:
                raise ValueError("say which operators to learn: --mechanisms, a subset of D, V, G (e.g. D,G)")
            plan = fit_plan.plan_fit(args.data, args.mechanisms, args.out, x=args.x, t=args.t, u=args.u,
                                     replicate=args.replicate, delimiter=arguments.delimiter(args.delimiter),
                                     encoding=args.encoding, **kw)
    except ValueError as err:  # TrainingError is one
        ap.exit(USAGE_ERROR, f"binn fit: error: {err}\n")
    print(plan.describe(), flush=True)
    one_thread()
    try:
        fit, files = fit_report.run_fit(plan, workers=args.workers, scheduler=scheduler, progress=True,
                                        require_stored=False, echo=lambda s: print(s, flush=True))
    except RuntimeError as err:  # some training parts failed (the others are stored), or no scheduler
        print(f"binn fit: {err}", file=sys.stderr)
        return 1
    except ValueError as err:    # a fit that cannot be solved on its positions: why, and how to refit
        print(f"binn fit: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # e.g. a full disk while storing the networks or writing the outputs
        print(f"binn fit: cannot write {err.filename or plan.out}: {err.strerror or err}; free space or choose "
              f"another --out, then rerun ({stored_or_not(plan)}; {plan.out} holds its previous fit, if any, "
              "unchanged)", file=sys.stderr)
        return 1
    ev = fit.evaluation
    print(f"forward solves u_p ({fit.forward_method}): {len(ev.up_status) - ev.n_failed_u_p} of "
          f"{len(ev.up_status)} ok; diagnostics: "
          + ("none fired" if fit.report.ok else "flags " + ", ".join(fit.report.flags)) + " (diagnostics.md)")
    print(f"wrote {', '.join(sorted(files))} into {plan.out}; open {plan.out / 'report.html'}")
    failure = fit_report.training_failure(fit)   # diverged or blew up: the report says so, and so does the status
    if failure:
        print(f"binn fit: {failure} (report in {plan.out})", file=sys.stderr)
        return 1
    return 0


def stored_or_not(plan) -> str:
    """What a failed write may truthfully say of the plan's networks: where they are stored, or
    that none were (then the rerun trains them again)."""
    with warnings.catch_warnings():    # a half-written pair is not stored; the message says so, once
        warnings.simplefilter("ignore")
        try:
            pair = plan.stored_networks()
        except OSError:
            pair = None
    if pair is None:
        return f"no networks were stored: the rerun trains all {plan.n_networks} again"
    return f"the networks are stored in {pair[0].parent}: the rerun loads them"


def predict(ap, args) -> int:
    """``binn predict``: the learned PDE from a new initial condition, or the operators on a grid."""
    from . import predict as predicting
    try:
        if args.ic is None and args.u_grid is None:
            raise ValueError("nothing to do: give --ic and --t (a prediction) and/or --u-grid (an operator table)")
        if (args.ic is None) != (args.t is None):
            raise ValueError("a prediction needs both --ic (initial condition) and --t (times)")
        if args.t is not None:
            predicting.parse_times(args.t)
        if args.u_grid is not None:
            predicting.parse_u_grid(args.u_grid)
        _, _, scaling = predicting.load_fit_dir(args.fitdir)
        if args.ic is not None:
            predicting.load_initial_condition(args.ic, x=args.x, u=args.u, delimiter=arguments.delimiter(args.delimiter),
                                              encoding=args.encoding, scaling=scaling)
        predicting.check_predict_out(args.out, args.fitdir)
        stores.check_writable(args.out)
    except (ValueError, OSError) as err:
        ap.exit(USAGE_ERROR, f"binn predict: error: {err}\n")
    one_thread()
    try:
        files = predicting.predict(args.fitdir, args.out, ic=args.ic, t=args.t, x=args.x, u=args.u,
                                   u_grid=args.u_grid, method=args.forward_method,
                                   echo=lambda s: print(s, flush=True),
                                   delimiter=arguments.delimiter(args.delimiter), encoding=args.encoding)
    except OSError as err:
        if err.filename is None and (isinstance(err, BrokenPipeError) or err.errno in OUTPUT_ERRORS):
            raise                    # standard output, not --out: the entry point says so in one line
        print(f"binn predict: cannot write {err.filename or args.out}: {err.strerror or err}; free space or "
              "choose another --out", file=sys.stderr)
        return 1
    except ValueError as err:   # what the checks above could not see (nothing written into --out)
        print(f"binn predict: error: {err}", file=sys.stderr)
        return USAGE_ERROR
    status = files.pop("status", [])
    print(f"wrote {', '.join(sorted(files))} into {args.out}")
    return 1 if status and not any(s == "ok" for s in status) else 0
