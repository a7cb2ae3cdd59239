"""Command line: run a study's sweep into the results store (resumable).

    binn sweep learning_rate --preset book [--noise-var 0.01] [--dense] [--workers 2]
    binn sweep all --preset book
    binn sweep learning_rate --preset paper --merge --device cuda   # one batched model on a GPU
    binn status --preset book            # how many settings of each study are stored
    binn migrate                         # add checksums to records stored before they existed

Results go to results/ (quick preset: out/results-quick) unless --results-dir says
otherwise.  A request that cannot be honoured (a bad number, a missing GPU, a results
folder that cannot be written) is refused with one line on stderr and exit status 2
before any training; Ctrl-C stops a sweep within seconds, keeping what was finished.
"""
from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections import Counter

from . import store, studies
from .forward_solve import FORWARD_METHODS
from .reporting import results_dir_for
from .sweeps import check_run_request, default_results_dir, migrate_store, run_settings

STUDIES = ("defaults", "framework", "noise", "learning_rate", "loss_weight", "architecture", "batch_size",
           "batch_size_authors")
USAGE_ERROR = 2


def settings_for(study: str, preset: str, noise_var=None, dense=False, epochs=None, seeds=None) -> list:
    kw = dict(dense=dense, epochs=epochs, seeds=seeds)
    if study == "noise":
        return studies.noise_study(preset, dense=dense, epochs=epochs, seeds=seeds,
                                   **({} if noise_var is None else {"noise_vars": (noise_var,)}))
    if noise_var is not None:
        kw["noise_var"] = noise_var
    if study == "defaults":
        return studies.default_runs(preset, **kw)
    if study == "framework":
        return studies.framework_study(preset, **kw)
    if study == "learning_rate":
        return studies.learning_rate_study(preset, **kw)
    if study == "loss_weight":
        return studies.loss_weight_study(preset, **kw)
    if study == "architecture":
        return studies.architecture_study(preset, **kw)
    if study == "batch_size":
        fixed, budget = studies.batch_size_study(preset, **kw)
        return fixed + budget
    if study == "batch_size_authors":
        return studies.batch_size_authors_budget(preset, **kw)
    raise ValueError(f"unknown study {study!r}; choose from {STUDIES + ('all',)}")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), not the usage block."""

    def error(self, message):
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _noise_variance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def forward_method_note(sets, results_dir, requested: str) -> str | None:
    """One line naming stored settings whose u_p was computed with another integrator than
    ``requested`` (records without the field used RK45), or None.  They are kept, not
    recomputed: the integrators agree to the solver tolerance."""
    used = Counter()
    for s in sets:
        rec = s.stored_record(results_dir, warn=False)
        if rec is not None and rec.get("forward_method", "RK45") != requested:
            used[rec.get("forward_method", "RK45")] += 1
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
        sp.add_argument("study", choices=STUDIES + ("all",))
        sp.add_argument("--preset", default="book", choices=sorted(studies.PRESETS))
        sp.add_argument("--noise-var", type=_noise_variance, default=None)
        sp.add_argument("--dense", action="store_true")
        sp.add_argument("--epochs", type=_positive_int, default=None)
        sp.add_argument("--seeds", type=_positive_int, default=None, help="replicates (initialisations)")
        sp.add_argument("--results-dir", default=None,
                        help="results folder (default: results/, for the quick preset out/results-quick)")
        sp.add_argument("--workers", type=_positive_int, default=None)
        sp.add_argument("--merge", action="store_true",
                        help="train settings that differ only in learning rate, loss weights, noise level or "
                             "datasets as one batched model (fewer, larger batches; float64: the same numbers "
                             "to rounding, float32: statistically, not bitwise, the same)")
        sp.add_argument("--device", default=None, help="'cuda' to train on a GPU (default: CPU)")
        sp.add_argument("--forward-method", default="RK45", choices=FORWARD_METHODS,
                        help="integrator of the u_p forward solves (default: RK45, the paper's; "
                             "BDF is much faster on the 351-point grid)")
    mp = sub.add_parser("migrate", help="add checksums (store format 2) to stored records that predate them")
    mp.add_argument("--results-dir", default=None, help="results folder (default: results/)")
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            return _migrate(args.results_dir) if args.cmd == "migrate" else _run(ap, args)
        except KeyboardInterrupt as err:
            print(f"binn {args.cmd}: {err or 'interrupted'}", file=sys.stderr)
            return 130


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"binn: warning: {message}", file=sys.stderr, flush=True)


def _run(ap, args) -> int:
    """``binn sweep`` and ``binn status``."""
    results_dir = results_dir_for(args.preset, args.results_dir)
    names = STUDIES if args.study == "all" else (args.study,)
    try:
        if results_dir.exists() and not results_dir.is_dir():
            raise ValueError(f"--results-dir {results_dir} is a file, not a folder")
        plan = {study: settings_for(study, args.preset, args.noise_var, args.dense, args.epochs, args.seeds)
                for study in names}
        if args.cmd == "sweep":
            check_run_request(results_dir, args.workers, args.device, args.forward_method)
    except ValueError as err:  # TrainingError is one
        ap.exit(USAGE_ERROR, f"binn {args.cmd}: error: {err}\n")
    legacy = 0
    for study, sets in plan.items():
        records = [s.stored_record(results_dir) for s in sets]
        done = sum(r is not None for r in records)
        legacy += sum(r is not None and store.CHECKSUM_FIELD not in r for r in records)
        if args.cmd == "status":
            print(f"{study:15s} {done:4d}/{len(sets)} settings stored")
            continue
        print(f"{study}: {len(sets) - done} of {len(sets)} settings to run", flush=True)
        note = forward_method_note(sets, results_dir, args.forward_method)
        if note:
            print(note, flush=True)
        try:
            run_settings(sets, results_dir, workers=args.workers, desc=study, merge=args.merge, device=args.device,
                         forward_method=args.forward_method)
        except RuntimeError as err:  # some settings failed; the others are stored
            print(f"binn sweep: {err}", file=sys.stderr)
            return 1
    if legacy:
        print(f"{legacy} stored record(s) predate checksums: run `binn migrate"
              f"{'' if args.results_dir is None else ' --results-dir ' + str(results_dir)}` to add them")
    return 0


def _migrate(results_dir) -> int:
    """``binn migrate``: every stored pair to the current store format (no retraining)."""
    root = results_dir or default_results_dir()
    outcomes = migrate_store(root)
    kinds = Counter(o.split(":")[0] for o in outcomes.values())
    for path, o in outcomes.items():
        if o.startswith("damaged"):
            print(f"  {o}", file=sys.stderr)
    print(f"{root}: {kinds['migrated']} record(s) migrated, {kinds['current']} already current, "
          f"{kinds['damaged']} damaged (left as they are: they count as missing and are rerun)")
    return 1 if kinds["damaged"] else 0


if __name__ == "__main__":
    sys.exit(main())
