"""One `binn fit` alone and two side by side, with torch on one thread and on its default
threads; prints the wall times.

    python benchmarks/fit_threads.py [--scale quick] [--epochs N] [--positions 51] [--times 6]

Writes the example's data (``fit_example.write_example_csv``: D and G, one replicate) and runs
``binn fit`` on it in fresh processes, each into its own output folder (nothing stored is
reused): first one alone, then two started together, in two modes: "one thread" is ``binn
fit`` as it is (``store.compute.one_thread``), "default threads" the same with torch's
``set_num_threads`` made a no-op and OMP_NUM_THREADS unset (torch then takes a thread per
core, as ``binn fit`` did before issue 51).  Prints each fit's seconds, the pair's slow-down
against the lone fit, the number of cores and the load average before each run (figures from
a loaded machine say so).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from binn_utils.applications import fit_example

#: runs ``binn fit`` with the arguments after it; "default" first makes torch.set_num_threads a no-op
RUNNER = """
import sys
if sys.argv[1] == "default":
    import torch
    torch.set_num_threads = lambda n: None
from binn_utils.applications.cli import main
sys.exit(main(sys.argv[2:]))
"""


def fit_argv(data: Path, out: Path, scale: str, epochs: int | None) -> list:
    return ["fit", str(data), "--mechanisms", "D,G", "--x", "x_um", "--t", "t_h", "--u", "density",
            "--scale", scale, "--forward-method", "BDF", "--out", str(out)] + (
        ["--epochs", str(epochs)] if epochs else [])


def start(mode: str, argv: list) -> subprocess.Popen:
    env = dict(os.environ)
    if mode == "default":
        env.pop("OMP_NUM_THREADS", None)
        env.pop("MKL_NUM_THREADS", None)
    return subprocess.Popen([sys.executable, "-c", RUNNER, mode, *argv], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def timed(mode: str, argvs: list) -> list:
    """Seconds of each of the fits ``argvs``, started together."""
    t0 = time.perf_counter()
    procs = [start(mode, a) for a in argvs]
    seconds = []
    for p in procs:
        _, err = p.communicate()
        seconds.append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(f"binn fit failed ({p.returncode}): {err.strip().splitlines()[-1:]}")
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", default="quick", choices=("quick", "lite"))
    ap.add_argument("--epochs", type=int, default=None, help="default: the scale's")
    ap.add_argument("--positions", type=int, default=51)
    ap.add_argument("--times", type=int, default=6)
    ap.add_argument("--modes", default="one,default", help="comma-separated: one, default")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        times = tuple(48.0 * k / (args.times - 1) for k in range(args.times))
        fit_example.write_example_csv(d / "data.csv", n_x=args.positions, times=times, n_rep=1)
        print(f"binn fit --scale {args.scale}{f' --epochs {args.epochs}' if args.epochs else ''}: "
              f"{args.positions} positions x {args.times} times, D and G; {os.cpu_count()} cores")
        runs = 0
        for mode in args.modes.split(","):
            label = {"one": "one thread", "default": "default threads"}[mode]

            def argvs(n):
                nonlocal runs
                runs += n
                return [fit_argv(d / "data.csv", d / f"out{runs - k}", args.scale, args.epochs) for k in range(n)]
            load = os.getloadavg()[0]
            alone = timed(mode, argvs(1))[0]
            load2 = os.getloadavg()[0]
            pair = timed(mode, argvs(2))
            print(f"{label:>16}: alone {alone:6.1f} s (load {load:.1f});  two side by side "
                  f"{pair[0]:6.1f} s and {pair[1]:6.1f} s (load {load2:.1f}): x{max(pair) / alone:.1f}")


if __name__ == "__main__":
    main()
