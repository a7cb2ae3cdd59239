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
folder that cannot be written, a scheduler address where no Dask scheduler answers) is
refused with one line on stderr and exit status 2 before any training; Ctrl-C stops a sweep within seconds, keeping what was finished.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import warnings
from collections import Counter
from importlib import metadata
from pathlib import Path

from .. import studies
from . import main as binn_main     # (the package's entry point, for `python -m` below)
from ..engine.forward_solve import FORWARD_METHODS
from ..engine.observations import DATA_SOURCES
from ..store import provenance, stores
from ..store.clusters import (JOBQUEUE_CLUSTERS, SCHEDULER_ENV, check_scheduler_address, check_scheduler_answers,
                              check_submit_command, end_worker_processes, load_cluster_config,
                              make_jobqueue_cluster)
from ..store.migration import is_unsealed, migrate_store, unsealed_words
from ..store.runner import CHECKPOINT_EVERY, check_run_request, run_settings
from ..store.sweep_record import reported
from ..store.setting import PRIORITIES, group_cost, group_settings, on_data, order_groups, replicate_steps
from . import arguments, fit_commands, interrupts
from .arguments import USAGE_ERROR


def plans() -> dict:
    """Named lists of studies for ``binn sweep --plan``, from the registry as it is now:
    entries (study, scale, noise variance or None for the study's default, dense), run in
    this order (``--priority`` orders the groups)."""
    supporting = [st.name for st in studies.repeated(dense=False)]
    return {
        # the default runs, then the main text's sweeps (Figs. 2-6) in the book's order
        "paper-main": [("defaults", "paper", None, False)] + [(st.name, "paper", None, False)
                                                               for st in studies.sweeps()],
        "paper-architecture": [("architecture", "paper", None, False)],
        "paper-supporting": [(s, "paper", nv, False) for nv in (0.0, 1e-2) for s in supporting],
        "quick-test": [("learning_rate", "quick", None, False), ("architecture", "quick", None, False)],
        # the 71-point Supporting Material repeats of two studies with fewer initialisations but
        # the paper's epochs (run with --epochs 4000): replicates reduced before epochs
        "sm-epochs": [(s, "lite", nv, False) for nv in (0.0, 1e-3, 1e-2) for s in ("learning_rate", "loss_weight")],
        # the dense-grid Supporting Material at the paper's scale (351 points: five times the steps)
        "paper-dense": [(s, "paper", nv, True) for nv in (1e-3, 0.0, 1e-2) for s in supporting],
        "lite-dense": ([(s, "lite", nv, True) for nv in (1e-3, 0.0, 1e-2) for s in supporting]
                       + [("noise", "lite", None, True)]),
    }


def settings_for(study: str, scale: str, noise_var=None, dense=False, epochs=None, seeds=None,
                 datasets=None, data="ours", distinct_seeds=False) -> list:
    """Every setting of one study (all its parts); ``noise_var`` None: the study's own noise levels;
    ``datasets`` None: the study's own number of datasets; ``data``: whose data (``--data``);
    ``distinct_seeds``: each dataset its own initialisation seeds (``--distinct-seeds``)."""
    out = studies.get(study).settings(scale, noise_var=noise_var, dense=dense, epochs=epochs, seeds=seeds,
                                      datasets=datasets, distinct_seeds=distinct_seeds or None)
    return out if data == "ours" else on_data(out, data)


def default_scale(args, study: str) -> str:
    """The scale of a request without ``--scale``: ``binn status`` reads the committed results'
    scale (``results/manifest.json``, as the chapters do), ``binn sweep`` trains the book scale."""
    if args.scale:
        return args.scale
    return stores.committed_scale(study) if args.cmd == "status" else "book"


def requested_settings(args) -> dict:
    """{label: settings} of a ``binn sweep``/``binn status`` request: one study, all, or plans."""
    if args.plan is None:
        names = tuple(studies.REGISTRY) if args.study == "all" else (args.study,)
        return {study: settings_for(study, default_scale(args, study), args.noise_var, args.dense, args.epochs,
                                    args.seeds, args.datasets, args.data, args.distinct_seeds) for study in names}
    out, named = {}, plans()
    in_plans = {study for plan in args.plan for study, *_ in named[plan]}
    outside = [st for st in (args.studies or []) + list(args.skip_studies) if st not in in_plans]
    if outside:
        raise ValueError(f"{', '.join(dict.fromkeys(outside))} not in --plan {' '.join(args.plan)} (its studies: "
                         f"{', '.join(sorted(in_plans))})")
    for plan in args.plan:
        for study, scale, nv, dense in named[plan]:
            if (args.studies is not None and study not in args.studies) or study in args.skip_studies:
                continue
            label = f"{plan}:{study}" + ("" if nv is None else f"(noise {nv:g})") + (" dense" if dense else "")
            out[label] = settings_for(study, scale, nv, dense, args.epochs, args.seeds, args.datasets, args.data,
                                      args.distinct_seeds)
    if not out:
        raise ValueError("--studies and --skip-studies leave nothing of the plan to run")
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
    if (args.seeds or 1) * (args.datasets or 1) > arguments.REPLICATES_MAX:
        raise ValueError(f"--seeds {args.seeds} x --datasets {args.datasets} is {args.seeds * args.datasets:,} "
                         f"replicates per setting; at most {arguments.REPLICATES_MAX:,}")
    if args.cmd == "status":      # the device a sweep would take, though status trains nothing (and imports no torch)
        if args.device is not None and not re.fullmatch(r"cpu|cuda(:\d+)?", args.device):
            raise ValueError(f"device must be 'cpu' or 'cuda[:k]', got {args.device!r}")
        return
    if args.max_group is not None and not args.merge:
        raise ValueError("--max-group bounds the batched models of --merge: give --merge too")
    if args.solve_workers is not None and args.workers not in (None, 1):
        raise ValueError("--solve-workers runs the forward solves beside an in-process sweep (--workers 1); "
                         "with several workers each solves its own")
    if None not in (args.stop_starting_after, args.hard_stop_after) and args.hard_stop_after < args.stop_starting_after:
        raise ValueError(f"--hard-stop-after {args.hard_stop_after:g} comes before --stop-starting-after "
                         f"{args.stop_starting_after:g}: groups would be abandoned while others may still start")


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


def _add_sweep_parsers(sub):
    """The ``sweep`` and ``status`` subcommands: the registry's studies as they are now."""
    names = tuple(studies.REGISTRY)
    for name in ("sweep", "status"):
        sp = sub.add_parser(name)
        sp.add_argument("study", nargs="?", choices=names + ("all",))
        sp.add_argument("--plan", nargs="+", choices=sorted(plans()), default=None,
                        help="named lists of studies (each entry has its own scale) instead of one study")
        sp.add_argument("--studies", nargs="+", choices=names, default=None, help="only these studies of the plans")
        sp.add_argument("--skip-studies", nargs="+", choices=names, default=(),
                        help="leave these studies of the plans out")
        sp.add_argument("--scale", default=None, choices=sorted(studies.SCALES),
                        help="training scale: epochs, initialisations, datasets (default: "
                             + ("the scale of each study's committed results, results/manifest.json)" if name == "status"
                                else "book)"))
        sp.add_argument("--preset", dest="scale", default=None, choices=sorted(studies.SCALES),
                        help=argparse.SUPPRESS)  # the old name of --scale
        sp.add_argument("--noise-var", type=arguments.noise_variance, default=None)
        sp.add_argument("--dense", action="store_true")
        sp.add_argument("--epochs", type=arguments.epochs, default=None)
        sp.add_argument("--seeds", type=arguments.seeds, default=None, help="replicates (initialisations)")
        sp.add_argument("--datasets", type=arguments.datasets, default=None,
                        help="datasets (independent splits and noise draws), each with every initialisation "
                             "(default: the study's own: one, or the noise study's)")
        sp.add_argument("--distinct-seeds", action="store_true",
                        help="each dataset its own initialisation seeds (dataset d: seeds 1000 d + s), so that "
                             "initialisations nest in datasets; without it every dataset uses seeds 0, 1, ... "
                             "(the design of the results stored before)")
        sp.add_argument("--data", choices=DATA_SOURCES, default="ours",
                        help="whose data: ours (our solution, noise draw and split per dataset), or the authors' "
                             "(their clean solution and noise draw, data/authors_archive/DATASETS.md; each dataset "
                             "one seeded random split of them, as their split is lost)")
        sp.add_argument("--results-dir", type=arguments.folder, default=None,
                        help="results folder (default: results/, for the quick scale out/results-quick)")
        sp.add_argument("--workers", type=arguments.workers, default=None,
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
            _add_sweep_options(sp)


def _add_sweep_options(sp):
    """What ``binn sweep`` takes beyond ``binn status``: grouping, order, time window, where the workers are."""
    sp.add_argument("--max-group", type=arguments.positive_int, default=None,
                    help="with --merge: at most this many replicates per batched model")
    sp.add_argument("--priority", choices=PRIORITIES, default="given",
                    help="order groups start in: as requested, the longest first, or the shortest first")
    sp.add_argument("--stop-starting-after", type=arguments.seconds, default=None, metavar="SECONDS",
                    help="start no group after this many seconds (running ones finish)")
    sp.add_argument("--hard-stop-after", type=arguments.seconds, default=None, metavar="SECONDS",
                    help="abandon running groups after this many seconds (nothing half-written is stored)")
    sp.add_argument("--scheduler", type=arguments.scheduler_address, default=None, metavar="tcp://HOST:PORT",
                    help="an existing Dask scheduler (default: $BINN_SCHEDULER, else a LocalCluster)")
    sp.add_argument("--cluster", choices=("local",) + tuple(JOBQUEUE_CLUSTERS), default="local",
                    help="where workers come from: a LocalCluster here, or batch jobs (dask-jobqueue)")
    sp.add_argument("--cluster-config", type=arguments.named("a TOML file"), default=None, metavar="FILE.toml",
                    help="TOML file whose [slurm] / [pbs] / [sge] section configures the batch jobs")
    sp.add_argument("--dry-run", action="store_true",
                    help="print the groups (and the batch job script) and run nothing")
    sp.add_argument("--checkpoint-every", type=arguments.epochs, default=CHECKPOINT_EVERY, metavar="EPOCHS",
                    help="train long groups in tasks of this many epochs, keeping the training state "
                         f"between them (a dead worker or a stopped sweep resumes there; default "
                         f"{CHECKPOINT_EVERY})")
    sp.add_argument("--allow-dirty", action="store_true",
                    help="at the paper scale, train even though tracked files differ from the commit "
                         "(each record then keeps the hash of that difference beside the commit)")
    sp.add_argument("--solve-workers", type=arguments.solve_workers, default=None, metavar="N",
                    help="in-process sweeps (--workers 1): processes running the u_p forward solves beside "
                         "the training (0: in line; default: all usable cores but one, at most one per "
                         "replicate, with --device cuda or more than one group, else 0)")


def package_version() -> str:
    """The installed package's version (and the commit of its checkout, where it is one)."""
    try:
        v = metadata.version("binn_utils")
    except metadata.PackageNotFoundError:
        v = "unknown"
    commit = provenance.work_tree_state().get("commit")
    return v + (f" (commit {commit[:7]})" if commit and commit != "unknown" else "")


def parser() -> argparse.ArgumentParser:
    """The ``binn`` command's parser (the study choices: the registry as it is now)."""
    ap = arguments.Parser(prog="binn", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action=arguments.Version, version=package_version,
                    help="print the version of binn (and the commit of its checkout) and exit")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=arguments.Parser)
    _add_sweep_parsers(sub)
    mp = sub.add_parser("migrate", help="add the checksums of the current store format to stored records that "
                                        "predate them and verify (name = hash of their specification)")
    mp.add_argument("--results-dir", type=arguments.folder, default=None, help="results folder (default: results/)")
    fit_commands.add_parsers(sub)
    return ap


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(arguments.join_negative_values(argv))
    if argv is None:  # the `binn` command itself: Ctrl-C stops it, not each of its worker processes
        interrupts.main_thread_only()
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            if args.cmd in ("fit", "predict"):
                rc = (fit_commands.fit if args.cmd == "fit" else fit_commands.predict)(ap, args)
            else:
                rc = _migrate(args.results_dir) if args.cmd == "migrate" else _run(ap, args)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return rc
        except KeyboardInterrupt as err:
            # the `binn` command itself (not a call from Python) exits now: a second Ctrl-C meanwhile is ignored
            with interrupts.further_ones_ignored() if argv is None else contextlib.nullcontext():
                print(f"binn {args.cmd}: {str(err) or _INTERRUPTED.get(args.cmd, 'interrupted')}", file=sys.stderr)
                if argv is None:
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
        end_worker_processes()
    with contextlib.suppress(OSError, AttributeError, ValueError):
        sys.stderr.flush()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())


#: What Ctrl-C leaves, when the interrupted code does not say it more precisely.
_INTERRUPTED = {
    "sweep": "interrupted: every setting finished before is stored; rerun the same command to continue",
    "fit": "interrupted: networks whose training had finished are stored under the output folder's networks/ "
           "(or the store); rerun the same command to continue: it reads them and trains the others from the "
           "start; an older fit in --out is left as it was",
    "predict": "interrupted: nothing was written into --out",
    "migrate": "interrupted: each record is either migrated or as it was; rerun to continue",
}


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"binn: warning: {message}", file=sys.stderr, flush=True)


def failed_words(records) -> str:
    """What failed in stored ``records`` (trainings that diverged, forward solves of the reported
    checkpoint that failed), counted over their replicates, as '; 6 of 6 replicates diverged in
    training'; '' where nothing failed: a stored setting is not a sound one."""
    tallies = [r.failures(reported()) for r in records if r is not None]
    n, diverged, solves = (sum(t[k] for t in tallies) for k in ("replicates", "diverged", "up_failed"))
    parts = ([f"{diverged} of {n} replicates diverged in training"] if diverged else []) + \
            ([f"{solves} of {n} forward solves failed"] if solves else [])
    return "; " + " and ".join(parts) if parts else ""


def _run(ap, args) -> int:
    """``binn sweep`` and ``binn status``."""
    try:
        _check_request_shape(args)
        scales = {e[1] for p in args.plan for e in plans()[p]} if args.plan else {args.scale or "book"}
        results_dir = stores.results_dir_for("quick" if scales == {"quick"} else "book", args.results_dir)
        stores.check_store_root(results_dir, "store results in" if args.cmd == "sweep" else "read results in")
        if args.cmd == "status" and args.results_dir is not None and not Path(results_dir).exists():
            raise ValueError(f"--results-dir {args.results_dir}: no such folder (nothing is stored there)")
        plan = requested_settings(args)
        cluster_config = None
        if args.cmd == "sweep":
            scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV)
            if scheduler:
                check_scheduler_address(scheduler)
                if not args.dry_run:      # no scheduler answers there: refused before any work, nor folder made
                    try:
                        check_scheduler_answers(scheduler)
                    except RuntimeError as err:
                        raise ValueError(str(err)) from None
            remote = bool(scheduler) or args.cluster in JOBQUEUE_CLUSTERS
            check_run_request(results_dir, args.workers, args.device, args.forward_method, remote=remote,
                              create=not args.dry_run)
            if "paper" in scales and not args.allow_dirty and not args.dry_run:
                check_clean_tree()
            if args.cluster in JOBQUEUE_CLUSTERS:
                cluster_config = load_cluster_config(args.cluster_config, args.cluster)
                if not args.dry_run:
                    check_submit_command(args.cluster)
    except ValueError as err:  # TrainingError is one
        ap.exit(USAGE_ERROR, f"binn {args.cmd}: error: {err}\n")
    legacy, todo, seen = set(), [], set()
    for study, sets in plan.items():
        stored = [s.stored_record(results_dir, warn=False) for s in sets]
        # a record that is not read: unsealed (its arrays verify: `binn migrate` seals it), or damaged (said once)
        unsealed = [r is None and is_unsealed(s.paths(results_dir)[1]) for s, r in zip(sets, stored)]
        for s, r, u in zip(sets, stored, unsealed):
            if r is None and not u:
                s.stored_record(results_dir)              # warns with the file's name where it is damaged
        done = sum(r is not None for r in stored)
        legacy.update(s.key for s, u in zip(sets, unsealed) if u)
        if args.cmd == "status":
            unnamed = sum(r is not None and not provenance.names_its_code(r.provenance) for r in stored)
            scale = f" (scale {default_scale(args, study)})" if args.plan is None else ""
            print(f"{study:15s} {done:4d}/{len(sets)} settings stored{scale}" + failed_words(stored)
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
        why = unsealed_words(len(legacy), None if args.results_dir is None else results_dir)
        if args.cmd == "sweep" and not args.dry_run:     # training them again would write over them
            ap.exit(USAGE_ERROR, f"binn sweep: error: {why}; run it first\n")
        print(why)
    if args.cmd == "status" or (not todo and not args.dry_run):
        return 0
    if args.dry_run:
        return _dry_run(args, todo, cluster_config)
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
    finished = set(done)
    print(f"sweep: {len(done)} of {len(todo)} settings run and stored"
          + failed_words(s.stored_record(results_dir, warn=False) for s in todo if s.key in finished))
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
    root = Path(results_dir or stores.default_results_dir())
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
          f"{kinds['damaged']} damaged"
          + (" (left as they are, not sealed: they count as missing, and the next run that needs them, "
             "`binn sweep`, trains them again over them)" if kinds["damaged"] else "")
          + (f", {kinds['failed']} not rewritable (make the folder writable and rerun `binn migrate`)"
             if kinds["failed"] else ""))
    return 1 if kinds["damaged"] or kinds["failed"] else 0


if __name__ == "__main__":        # `python -m binn_utils.applications.cli`: as the installed `binn`
    sys.exit(binn_main())
