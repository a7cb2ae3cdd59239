"""Command line: run a study's sweep into the results store (resumable).

    binn sweep learning_rate --scale book [--noise-var 0.01] [--dense] [--workers 2]
    binn sweep all --scale book
    binn sweep learning_rate --scale paper --merge --device cuda   # one batched model on a GPU
    binn sweep --plan paper-main --merge --max-group 160 --priority longest \
        --stop-starting-after 400 --hard-stop-after 540            # named lists of studies, a time window
    binn sweep all --scheduler tcp://HOST:8786                     # an existing Dask cluster
    binn sweep all --cluster slurm --cluster-config cluster.toml [--dry-run]
    binn status --scale book             # how many settings of each study are stored
    binn migrate                         # add checksums to records stored before them (if they verify)
    binn fit DATA.csv --mechanisms D,G --replicate well --out fit/   # your own data: a report
    binn fit --example scratch-assay --out scratch-fit/              # Jin et al. (2016)
    binn predict fit/ --ic ic.csv --t 0,12,24 --out what-if/         # the learned PDE, new start
    binn predict fit/ --u-grid 0:0.002:41 --out ops/                 # operators on any u grid

Each group of settings is a Dask task: by default on a LocalCluster of one single-threaded
worker process per core that the command starts and closes (--workers 1: in-process);
the command itself writes every result into the store.  --scheduler (or BINN_SCHEDULER)
attaches to an existing scheduler; --cluster slurm|pbs|sge starts workers as batch jobs
through dask-jobqueue, configured by the [slurm] (etc.) section of a TOML file (queue,
walltime, cores, memory, job_extra_directives, ...; jobs = how many jobs); --dry-run
prints the groups it would run and the job script it would submit, and runs nothing.

Results go to results/ (quick scale: out/results-quick) unless --results-dir says
otherwise.  A request that cannot be honoured (a bad number, a missing GPU, a results
folder that cannot be written) is refused with one line on stderr and exit status 2
before any training; Ctrl-C stops a sweep within seconds, keeping what was finished.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import warnings
from collections import Counter
from pathlib import Path

from .. import studies
from ..analysis.reporting import value_label
from ..engine.forward_solve import FORWARD_METHODS
from ..engine.runs import EPOCHS_MAX
from ..store import provenance, records
from ..store.clusters import (JOBQUEUE_CLUSTERS, SCHEDULER_ENV, check_scheduler_address, check_submit_command,
                              load_cluster_config, make_jobqueue_cluster)
from ..store.migration import migrate_store
from ..store.runner import CHECKPOINT_EVERY, WORKERS_MAX, check_run_request, run_settings
from ..store.setting import PRIORITIES, group_cost, group_settings, order_groups, replicate_steps

STUDIES = tuple(studies.REGISTRY)
USAGE_ERROR = 2
_SUPPORTING = tuple(s.name for s in studies.repeated(dense=False))
#: Named lists of studies for ``binn sweep --plan``: entries (study, scale, noise variance or
#: None for the study's default, dense), run in this order (``--priority`` orders the groups).
PLANS = {
    # the default runs, then the main text's sweeps (Figs. 2-6) in the book's order
    "paper-main": [("defaults", "paper", None, False)] + [(st.name, "paper", None, False) for st in studies.sweeps()],
    "paper-architecture": [("architecture", "paper", None, False)],
    "paper-supporting": [(s, "paper", nv, False) for nv in (0.0, 1e-2) for s in _SUPPORTING],
    "quick-test": [("learning_rate", "quick", None, False), ("architecture", "quick", None, False)],
    # the 71-point Supporting Material repeats of two studies with fewer initialisations but
    # the paper's epochs (run with --epochs 4000): replicates reduced before epochs
    "sm-epochs": [(s, "lite", nv, False) for nv in (0.0, 1e-3, 1e-2) for s in ("learning_rate", "loss_weight")],
    # the dense-grid Supporting Material at the paper's scale (351 points: five times the steps)
    "paper-dense": [(s, "paper", nv, True) for nv in (1e-3, 0.0, 1e-2) for s in _SUPPORTING],
    "lite-dense": ([(s, "lite", nv, True) for nv in (1e-3, 0.0, 1e-2) for s in _SUPPORTING]
                   + [("noise", "lite", None, True)]),
}


def settings_for(study: str, scale: str, noise_var=None, dense=False, epochs=None, seeds=None) -> list:
    """Every setting of one study (all its parts); ``noise_var`` None: the study's own noise levels."""
    return studies.get(study).settings(scale, noise_var=noise_var, dense=dense, epochs=epochs, seeds=seeds)


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), not the usage block."""

    def error(self, message):
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


#: Upper bounds of the integer options (checked before any work: a dry run with 1e8 seeds
#: answers at once instead of building 1e8 replicates).
SEEDS_MAX = 10_000
COUNT_MAX = 10 ** 6


def _int_up_to(hi: int):
    """An argparse type: an integer from 1 to ``hi``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:,}, got {text}")
        return value
    return parse


_positive_int = _int_up_to(COUNT_MAX)
_epochs = _int_up_to(EPOCHS_MAX)
_seeds = _int_up_to(SEEDS_MAX)
_workers = _int_up_to(WORKERS_MAX)


def _non_negative(unit: str = ""):
    """An argparse type: a finite number >= 0 (``unit``: e.g. " of seconds", for the message)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number{unit} >= 0, got {text!r}") from None
        if not math.isfinite(value) or value < 0:
            raise argparse.ArgumentTypeError(f"must be a finite number{unit} >= 0, got {text}")
        return value
    return parse


_noise_variance = _non_negative()
_seconds = _non_negative(" of seconds")


def requested_settings(args) -> dict:
    """{label: settings} of a ``binn sweep``/``binn status`` request: one study, all, or plans."""
    if args.plan is None:
        names = STUDIES if args.study == "all" else (args.study,)
        return {study: settings_for(study, args.scale or "book", args.noise_var, args.dense, args.epochs,
                                    args.seeds) for study in names}
    out = {}
    for plan in args.plan:
        for study, scale, nv, dense in PLANS[plan]:
            if (args.studies is not None and study not in args.studies) or study in args.skip_studies:
                continue
            label = f"{plan}:{study}" + ("" if nv is None else f"(noise {nv:g})") + (" dense" if dense else "")
            out[label] = settings_for(study, scale, nv, dense, args.epochs, args.seeds)
    return out


def _check_request_shape(args):
    if (args.study is None) == (args.plan is None):
        raise ValueError("name one study (or all), or --plan")
    if args.plan is not None:
        given = [o for o, v in (("--scale", args.scale), ("--noise-var", args.noise_var),
                                ("--dense", args.dense)) if v not in (None, False)]
        if given:
            raise ValueError(f"{', '.join(given)} cannot be combined with --plan (each entry has its own)")
    elif args.studies is not None or args.skip_studies:
        raise ValueError("--studies and --skip-studies select studies of a --plan")
    if getattr(args, "cluster_config", None) and args.cluster == "local":
        raise ValueError("--cluster-config configures --cluster slurm, pbs or sge")
    if getattr(args, "scheduler", None) and args.cluster != "local":
        raise ValueError("--scheduler and --cluster are two different places for the workers: name one")


def forward_method_note(sets, results_dir, requested: str) -> str | None:
    """One line naming stored settings whose u_p was computed with another integrator than
    ``requested`` (records without the field used RK45), or None.  They are kept, not
    recomputed: the integrators agree to the solver tolerance."""
    used = Counter()
    for s in sets:
        rec = s.stored_record(results_dir, warn=False)
        if rec is not None and rec.forward_method != requested:
            used[rec.forward_method] += 1
    if not used:
        return None
    what = ", ".join(f"{n} with {m}" for m, n in sorted(used.items()))
    return (f"  note: {sum(used.values())} stored setting(s) have u_p from another integrator than "
            f"{requested} ({what}); they are kept, not recomputed (delete their files to recompute)")


def main(argv=None) -> int:
    ap = _Parser(prog="binn", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    for name in ("sweep", "status"):
        sp = sub.add_parser(name)
        sp.add_argument("study", nargs="?", choices=STUDIES + ("all",))
        sp.add_argument("--plan", nargs="+", choices=sorted(PLANS), default=None,
                        help="named lists of studies (each entry has its own scale) instead of one study")
        sp.add_argument("--studies", nargs="+", choices=STUDIES, default=None, help="only these studies of the plans")
        sp.add_argument("--skip-studies", nargs="+", choices=STUDIES, default=(),
                        help="leave these studies of the plans out")
        sp.add_argument("--scale", default=None, choices=sorted(studies.SCALES),
                        help="training scale: epochs, initialisations, datasets (default: book)")
        sp.add_argument("--preset", dest="scale", default=None, choices=sorted(studies.SCALES),
                        help=argparse.SUPPRESS)  # the old name of --scale
        sp.add_argument("--noise-var", type=_noise_variance, default=None)
        sp.add_argument("--dense", action="store_true")
        sp.add_argument("--epochs", type=_epochs, default=None)
        sp.add_argument("--seeds", type=_seeds, default=None, help="replicates (initialisations)")
        sp.add_argument("--results-dir", default=None,
                        help="results folder (default: results/, for the quick scale out/results-quick)")
        sp.add_argument("--workers", type=_workers, default=None,
                        help="worker processes of the LocalCluster (default: one per core; 1: in-process)")
        sp.add_argument("--merge", action="store_true",
                        help="train settings that differ only in learning rate, loss weights, noise level or "
                             "datasets as one batched model (fewer, larger batches; float64: the same numbers "
                             "to rounding, float32: statistically, not bitwise, the same)")
        sp.add_argument("--device", default=None, help="'cuda' to train on a GPU (default: CPU)")
        sp.add_argument("--forward-method", default="RK45", choices=FORWARD_METHODS,
                        help="integrator of the u_p forward solves (default: RK45, the paper's; "
                             "BDF is much faster on the 351-point grid)")
        if name == "sweep":
            sp.add_argument("--max-group", type=_positive_int, default=None,
                            help="with --merge: at most this many replicates per batched model")
            sp.add_argument("--priority", choices=PRIORITIES, default="given",
                            help="order groups start in: as requested, or the longest first")
            sp.add_argument("--stop-starting-after", type=_seconds, default=None, metavar="SECONDS",
                            help="start no group after this many seconds (running ones finish)")
            sp.add_argument("--hard-stop-after", type=_seconds, default=None, metavar="SECONDS",
                            help="abandon running groups after this many seconds (nothing half-written is stored)")
            sp.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                            help="an existing Dask scheduler (default: $BINN_SCHEDULER, else a LocalCluster)")
            sp.add_argument("--cluster", choices=("local",) + tuple(JOBQUEUE_CLUSTERS), default="local",
                            help="where workers come from: a LocalCluster here, or batch jobs (dask-jobqueue)")
            sp.add_argument("--cluster-config", default=None, metavar="FILE.toml",
                            help="TOML file whose [slurm] / [pbs] / [sge] section configures the batch jobs")
            sp.add_argument("--dry-run", action="store_true",
                            help="print the groups (and the batch job script) and run nothing")
            sp.add_argument("--checkpoint-every", type=_epochs, default=CHECKPOINT_EVERY, metavar="EPOCHS",
                            help="train long groups in tasks of this many epochs, keeping the training state "
                                 f"between them (a dead worker or a stopped sweep resumes there; default "
                                 f"{CHECKPOINT_EVERY})")
            sp.add_argument("--allow-dirty", action="store_true",
                            help="at the paper scale, train even though tracked files differ from the commit "
                                 "(each record then keeps the hash of that difference beside the commit)")
            sp.add_argument("--solve-workers", type=_workers, default=None, metavar="N",
                            help="in-process sweeps (--workers 1): processes running the u_p forward solves "
                                 "in parallel (default: all cores but one with --device cuda, else 1)")
    mp = sub.add_parser("migrate", help="add the checksums of the current store format to stored records that "
                                        "predate them and verify (name = hash of their specification)")
    mp.add_argument("--results-dir", default=None, help="results folder (default: results/)")
    _add_fit_parsers(sub)
    args = ap.parse_args(_join_negative_values(argv))
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            if args.cmd in ("fit", "predict"):
                rc = (_fit if args.cmd == "fit" else _predict)(ap, args)
            else:
                rc = _migrate(args.results_dir) if args.cmd == "migrate" else _run(ap, args)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return rc
        except KeyboardInterrupt as err:
            print(f"binn {args.cmd}: {str(err) or _INTERRUPTED.get(args.cmd, 'interrupted')}", file=sys.stderr)
            if argv is None:  # the `binn` command itself (not a call from Python): it exits now
                _quiet_exit()
            return 130
        except BrokenPipeError:
            # the reader went away (`binn status | head -1`): stop writing, no traceback
            with contextlib.suppress(OSError, AttributeError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            print(f"binn {args.cmd}: output cut short: the reading end of the pipe closed", file=sys.stderr)
            return 1


def _quiet_exit():
    """After Ctrl-C has been reported in one line: end this process's children (Dask workers,
    solver pools) at once, and send what is left to say on the way out (distributed's
    complaints at exit about a cluster closed mid-start) nowhere."""
    with contextlib.suppress(Exception):
        import psutil
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "multiprocessing" in " ".join(child.cmdline()):  # Dask workers, process pools
                    child.terminate()
    with contextlib.suppress(OSError, AttributeError, ValueError):
        sys.stderr.flush()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())


#: What Ctrl-C leaves, when the interrupted code does not say it more precisely.
_INTERRUPTED = {
    "sweep": "interrupted: every setting finished before is stored; rerun the same command to continue",
    "fit": "interrupted: the networks finished before are stored under the output folder's networks/ "
           "(or the store); rerun the same command to continue; an older fit in --out is left as it was",
    "predict": "interrupted: nothing was written into --out",
    "migrate": "interrupted: each record is either migrated or as it was; rerun to continue",
}


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"binn: warning: {message}", file=sys.stderr, flush=True)


def _run(ap, args) -> int:
    """``binn sweep`` and ``binn status``."""
    try:
        _check_request_shape(args)
        scales = {e[1] for p in args.plan for e in PLANS[p]} if args.plan else {args.scale or "book"}
        results_dir = records.results_dir_for("quick" if scales == {"quick"} else "book", args.results_dir)
        if results_dir.exists() and not results_dir.is_dir():
            raise ValueError(f"--results-dir {results_dir} is a file, not a folder")
        plan = requested_settings(args)
        cluster_config = None
        if args.cmd == "sweep":
            remote = bool(args.scheduler or os.environ.get(SCHEDULER_ENV)) or args.cluster in JOBQUEUE_CLUSTERS
            check_run_request(results_dir, args.workers, args.device, args.forward_method, remote=remote)
            if "paper" in scales and not args.allow_dirty and not args.dry_run:
                check_clean_tree()
            if args.cluster in JOBQUEUE_CLUSTERS:
                cluster_config = load_cluster_config(args.cluster_config, args.cluster)
                if not args.dry_run:
                    check_submit_command(args.cluster)
            scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV)
            if scheduler:
                check_scheduler_address(scheduler)
    except ValueError as err:  # TrainingError is one
        ap.exit(USAGE_ERROR, f"binn {args.cmd}: error: {err}\n")
    legacy, todo, seen = 0, [], set()
    for study, sets in plan.items():
        stored = [s.stored_record(results_dir) for s in sets]
        done = sum(r is not None for r in stored)
        legacy += sum(r is not None and r.record_sha256 is None for r in stored)
        if args.cmd == "status":
            unnamed = sum(r is not None and not provenance.names_its_code(r.provenance) for r in stored)
            print(f"{study:15s} {done:4d}/{len(sets)} settings stored"
                  + (f"; {unnamed} cannot name their code (a modified tree, no fingerprint)" if unnamed else ""))
            continue
        line = f"{study}: {len(sets) - done} of {len(sets)} settings to run"
        if args.dry_run:
            steps = sum(replicate_steps(s) for s, r in zip(sets, stored) if r is None)
            line += f" ({steps / 1e6:.3g} M replicate-steps)"
        print(line, flush=True)
        note = forward_method_note(sets, results_dir, args.forward_method)
        if note:
            print(note, flush=True)
        todo += [s for s, r in zip(sets, stored) if r is None and s.key not in seen]
        seen.update(s.key for s in sets)
    if legacy:
        print(f"{legacy} stored record(s) predate whole-record checksums: run `binn migrate"
              f"{'' if args.results_dir is None else ' --results-dir ' + str(results_dir)}` to add them")
    if args.cmd == "status":
        return 0
    if args.dry_run:
        return _dry_run(args, todo, cluster_config)
    if not todo:
        return 0
    try:
        done = run_settings(todo, results_dir, workers=args.workers, desc="sweep", merge=args.merge,
                            device=args.device, forward_method=args.forward_method,
                            max_group_replicates=args.max_group, priority=args.priority,
                            stop_starting_after=args.stop_starting_after, hard_stop_after=args.hard_stop_after,
                            scheduler=args.scheduler, cluster=args.cluster, cluster_config=cluster_config,
                            solve_workers=args.solve_workers, checkpoint_every=args.checkpoint_every)
    except RuntimeError as err:  # some settings failed; the others are stored
        print(f"binn sweep: {err}", file=sys.stderr)
        return 1
    print(f"sweep: {len(done)} of {len(todo)} settings run and stored")
    return 0


def check_clean_tree():
    """Paper-scale records must name their code: refuse a work tree whose tracked files
    differ from its commit (``--allow-dirty`` trains anyway, recording the difference's hash)."""
    state = provenance.work_tree_state()
    if state["dirty_worktree"]:
        raise ValueError(f"tracked files differ from commit {state['commit'][:10]}: commit them first, so that the "
                         "paper-scale records name their code, or pass --allow-dirty (each record then keeps the "
                         "hash of the difference)")


def _dry_run(args, todo, cluster_config) -> int:
    """``binn sweep --dry-run``: the groups in the order they would start, and with a batch
    cluster the job script dask-jobqueue would submit; nothing runs, nothing is submitted."""
    groups = order_groups(group_settings(todo, args.merge, args.max_group), args.priority)
    print(f"{len(groups)} groups, {len(todo)} settings, {sum(len(s.seeds) for s in todo)} replicates, "
          f"{sum(replicate_steps(s) for s in todo) / 1e6:.3g} M replicate-steps")
    for i, g in enumerate(groups):
        print(f"  group {i:3d}: {g[0].study:18s} {g[0].benchmark:20s} {len(g):2d} settings "
              f"{sum(len(s.seeds) for s in g):4d} replicates, cost {group_cost(g):9.3g}")
    if args.cluster in JOBQUEUE_CLUSTERS:
        try:
            cluster, jobs = make_jobqueue_cluster(args.cluster, cluster_config)
        except ValueError as err:
            print(f"binn sweep: error: {err}", file=sys.stderr)
            return USAGE_ERROR
        try:
            print(f"{args.cluster}: {jobs} job(s) of this script would be submitted:")
            print(cluster.job_script())
        finally:
            cluster.close()
    return 0


def _migrate(results_dir) -> int:
    """``binn migrate``: every stored pair that verifies to the current store format (no
    retraining); the others are named and left as they are."""
    root = Path(results_dir or records.default_results_dir())
    if not root.is_dir():
        print(f"binn migrate: error: {root} is not a folder (name the results folder with --results-dir)",
              file=sys.stderr)
        return USAGE_ERROR
    outcomes = migrate_store(root)
    kinds = Counter(o.split(":")[0] for o in outcomes.values())
    for path, o in outcomes.items():
        if o.startswith("damaged"):
            print(f"  {o}", file=sys.stderr)
    failed = [o for o in outcomes.values() if o.startswith("failed")]
    if failed:
        print(f"  {failed[0]}" + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""), file=sys.stderr)
    print(f"{root}: {kinds['migrated']} record(s) migrated, {kinds['current']} already current, "
          f"{kinds['damaged']} damaged (left as they are, without checksums: they count as missing and are rerun)"
          + (f", {kinds['failed']} not rewritable (make the folder writable and rerun `binn migrate`)"
             if kinds["failed"] else ""))
    return 1 if kinds["damaged"] or kinds["failed"] else 0


# ----------------------------------------------------------------------------- binn fit / predict
EXAMPLES = {"scratch-assay": "PC-3 scratch assay of Jin et al. (2016), 16,000 cells per well (data/)"}


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def _add_read_options(p):
    """--delimiter and --encoding of a CSV file (default: detected, and said)."""
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="field separator of the CSV file: ',' ';' '|' or 'tab' (default: detected from the header)")
    p.add_argument("--encoding", default=None, metavar="NAME",
                   help="text encoding of the CSV file, e.g. utf-8, latin-1, cp1252, utf-16 (default: UTF-8, or "
                        "UTF-16 with its byte-order mark)")


def _delimiter(text):
    if text is None:
        return None
    text = {"tab": "\t", "\\t": "\t"}.get(text, text)
    if len(text) != 1:
        raise ValueError(f"--delimiter must be one character (or 'tab'), got {text!r}")
    return text


#: Options whose value may start with "-" (a negative number): `--t -10,0,10` is `--t=-10,0,10`.
_NUMBER_OPTIONS = ("--t", "--u-grid")


def _join_negative_values(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    out, i = [], 0
    while i < len(argv):
        if argv[i] in _NUMBER_OPTIONS and i + 1 < len(argv) and argv[i + 1][:1] == "-" and argv[i + 1][1:2].isdigit():
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _add_fit_parsers(sub):
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
    _add_read_options(fp)
    fp.add_argument("--replicates", choices=("mean", "separate"), default="mean",
                    help="train on the replicate mean (default) or on each replicate separately")
    fp.add_argument("--scale", choices=tuple(studies.SCALES), default="book",  # fit_report.SCALES' names (tested)
                    help="epochs and initialisations: quick (smoke run), lite, book or paper (4000 epochs, 10)")
    fp.add_argument("--seeds", type=_seeds, default=None, help="initialisations (default: the scale's)")
    fp.add_argument("--epochs", type=_epochs, default=None, help="default: the scale's")
    paper = studies.PAPER_DEFAULTS
    fp.add_argument("--batch-size", type=_positive_int, default=None, help=f"default: {paper.batch_size} (the paper's)")
    fp.add_argument("--lr", type=_positive_float, default=None, help=f"learning rate (default: {value_label(paper.lr)})")
    fp.add_argument("--w-pde", type=_non_negative(), default=None, help=f"PDE loss weight (default: {value_label(paper.w_pde)})")
    fp.add_argument("--forward-method", default="RK45", choices=FORWARD_METHODS,
                    help="integrator of u_p (default: RK45, the paper's; BDF is much faster on fine grids)")
    fp.add_argument("--which", choices=("best", "final"), default="best",
                    help="networks reported: best validation loss (default) or the last epoch")
    where = fp.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, default=None,
                       help="train the networks in this many parts on a LocalCluster (default: in-process)")
    where.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
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
    _add_read_options(pp)
    pp.add_argument("--forward-method", default=None, choices=FORWARD_METHODS,
                    help="integrator (default: the one of the fit)")
    pp.add_argument("--out", required=True, metavar="DIR")


def _fit(ap, args) -> int:
    """``binn fit``: validate everything, say what will be done, train what is missing, report."""
    from . import fit_report  # here: the figures and the trainer load only for fit and predict
    try:
        kw = dict(replicates=args.replicates, scale=args.scale, seeds=args.seeds, epochs=args.epochs,
                  batch_size=args.batch_size, lr=args.lr, w_pde=args.w_pde, forward_method=args.forward_method,
                  which=args.which)
        if args.example:
            if args.data is not None:
                raise ValueError("give DATA.csv or --example, not both")
            plan = fit_report.scratch_plan(args.out, mechanisms=args.mechanisms or "DG", **kw)
        else:
            if args.data is None:
                raise ValueError("name the data file (DATA.csv) or an --example")
            if args.mechanisms is None:
                raise ValueError("say which operators to learn: --mechanisms, a subset of D, V, G (e.g. D,G)")
            plan = fit_report.plan_fit(args.data, args.mechanisms, args.out, x=args.x, t=args.t, u=args.u,
                                       replicate=args.replicate, delimiter=_delimiter(args.delimiter),
                                       encoding=args.encoding, **kw)
        scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV) or None
        if scheduler and args.workers:
            raise ValueError(f"--workers and a scheduler ({SCHEDULER_ENV}) are two places for the work: name one")
        if scheduler:
            check_scheduler_address(scheduler)
    except ValueError as err:  # TrainingError is one
        ap.exit(USAGE_ERROR, f"binn fit: error: {err}\n")
    print(plan.describe(), flush=True)
    try:
        fit, files = fit_report.run_fit(plan, workers=args.workers, scheduler=scheduler, progress=True,
                                        require_stored=False, echo=lambda s: print(s, flush=True))
    except RuntimeError as err:  # some training parts failed (the others are stored), or no scheduler
        print(f"binn fit: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # e.g. a full disk while writing the outputs
        print(f"binn fit: cannot write {err.filename or plan.out}: {err.strerror or err}; free space or choose "
              f"another --out, then rerun (the networks are stored; {plan.out} holds its previous fit, if any, "
              "unchanged)", file=sys.stderr)
        return 1
    ev = fit.evaluation
    print(f"forward solves u_p ({fit.forward_method}): {len(ev.up_status) - ev.n_failed_u_p} of "
          f"{len(ev.up_status)} ok; diagnostics: "
          + ("none fired" if fit.report.ok else "flags " + ", ".join(fit.report.flags)) + " (diagnostics.md)")
    print(f"wrote {', '.join(sorted(files))} into {plan.out}; open {plan.out / 'report.html'}")
    return 0


def _predict(ap, args) -> int:
    """``binn predict``: the learned PDE from a new initial condition, or the operators on a grid."""
    from . import fit_report
    try:
        if args.ic is None and args.u_grid is None:
            raise ValueError("nothing to do: give --ic and --t (a prediction) and/or --u-grid (an operator table)")
        if (args.ic is None) != (args.t is None):
            raise ValueError("a prediction needs both --ic (initial condition) and --t (times)")
        if args.t is not None:
            fit_report.parse_times(args.t)
        if args.u_grid is not None:
            fit_report.parse_u_grid(args.u_grid)
        fit_report.load_fit_dir(args.fitdir)
        if args.ic is not None:
            fit_report.load_initial_condition(args.ic, x=args.x, u=args.u, delimiter=_delimiter(args.delimiter),
                                              encoding=args.encoding)
        fit_report.check_predict_out(args.out, args.fitdir)
        records.check_writable(args.out)
    except (ValueError, OSError) as err:
        ap.exit(USAGE_ERROR, f"binn predict: error: {err}\n")
    try:
        files = fit_report.predict(args.fitdir, args.out, ic=args.ic, t=args.t, x=args.x, u=args.u,
                                   u_grid=args.u_grid, method=args.forward_method,
                                   echo=lambda s: print(s, flush=True), delimiter=_delimiter(args.delimiter),
                                   encoding=args.encoding)
    except OSError as err:
        print(f"binn predict: cannot write {err.filename or args.out}: {err.strerror or err}; free space or "
              "choose another --out", file=sys.stderr)
        return 1
    status = files.pop("status", [])
    print(f"wrote {', '.join(sorted(files))} into {args.out}")
    return 1 if status and not any(s == "ok" for s in status) else 0


if __name__ == "__main__":
    sys.exit(main())
