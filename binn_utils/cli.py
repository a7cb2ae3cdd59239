"""Command line: run a study's sweep into the results store (resumable).

    binn sweep learning_rate --preset book [--noise-var 0.01] [--dense] [--workers 2]
    binn sweep all --preset book
    binn sweep learning_rate --preset paper --merge --device cuda   # one batched model on a GPU
    binn status --preset book            # how many settings of each study are stored
"""
from __future__ import annotations

import argparse
import sys

from . import studies
from .forward_solve import FORWARD_METHODS
from .sweeps import default_results_dir, run_settings

STUDIES = ("defaults", "framework", "noise", "learning_rate", "loss_weight", "architecture", "batch_size",
           "batch_size_authors")


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="binn", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("sweep", "status"):
        sp = sub.add_parser(name)
        sp.add_argument("study", choices=STUDIES + ("all",))
        sp.add_argument("--preset", default="book", choices=sorted(studies.PRESETS))
        sp.add_argument("--noise-var", type=float, default=None)
        sp.add_argument("--dense", action="store_true")
        sp.add_argument("--epochs", type=int, default=None)
        sp.add_argument("--seeds", type=int, default=None, help="replicates (initialisations)")
        sp.add_argument("--results-dir", default=None)
        sp.add_argument("--workers", type=int, default=None)
        sp.add_argument("--merge", action="store_true",
                        help="train settings that differ only in learning rate, loss weights, noise level or "
                             "datasets as one batched model (fewer, larger batches; float64: the same numbers, "
                             "float32: the same up to summation order)")
        sp.add_argument("--device", default=None, help="'cuda' to train on a GPU (default: CPU)")
        sp.add_argument("--forward-method", default="RK45", choices=FORWARD_METHODS,
                        help="integrator of the u_p forward solves (default: RK45, the paper's; "
                             "BDF is much faster on the 351-point grid)")
    args = ap.parse_args(argv)
    results_dir = args.results_dir or default_results_dir()
    names = STUDIES if args.study == "all" else (args.study,)
    for study in names:
        sets = settings_for(study, args.preset, args.noise_var, args.dense, args.epochs, args.seeds)
        done = sum(s.is_done(results_dir) for s in sets)
        if args.cmd == "status":
            print(f"{study:15s} {done:4d}/{len(sets)} settings stored")
        else:
            print(f"{study}: {len(sets) - done} of {len(sets)} settings to run", flush=True)
            run_settings(sets, results_dir, workers=args.workers, desc=study, merge=args.merge, device=args.device,
                         forward_method=args.forward_method)
    return 0


if __name__ == "__main__":
    sys.exit(main())
