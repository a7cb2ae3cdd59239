"""How often the per-figure comparison with the authors (``results_table.figure_ratio``) decides,
on simulated figures with correlated settings (``analysis.figure_ratio_simulation``): the
false-alarm rate at no difference, the rate of calling a ratio at the margin equivalent, and
the power to see 1.25x, 1.5x and 2x, with 3, 5 and 10 datasets (splits).

    python benchmarks/figure_ratio_power.py [--draws 2000]
"""
import argparse

from binn_utils.analysis.figure_ratio_simulation import rates
from binn_utils.analysis.results_table import EQUIVALENCE_MARGIN


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000)
    args = ap.parse_args()
    print(f"margin {EQUIVALENCE_MARGIN}x; {args.draws} simulated figures per cell (8 settings x 10 initialisations)")
    for single in (False, True):
        print("\nthe authors' median of 10 runs per setting" if not single else "\nthe authors' single run per setting")
        print("datasets | 'differs' at 1x | 'equivalent' at 1x | 'equivalent' at margin | 'differs' at 1.25x | 1.5x | 2x")
        for S in (3, 5, 10):
            r = {x: rates(S, x, args.draws, single=single) for x in (1.0, EQUIVALENCE_MARGIN, 1.5, 2.0)}
            print(f"{S:>8} | {r[1.0]['differs']:>15.3f} | {r[1.0]['equivalent']:>18.3f} | "
                  f"{r[EQUIVALENCE_MARGIN]['equivalent']:>22.3f} | {r[EQUIVALENCE_MARGIN]['differs']:>18.3f} | "
                  f"{r[1.5]['differs']:.3f} | {r[2.0]['differs']:.3f}")


if __name__ == "__main__":
    main()
