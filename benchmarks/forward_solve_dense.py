"""RK45 against BDF for the u_p forward solve on the 351-point grid; prints its figures.

    python benchmarks/forward_solve_dense.py

Trains one BINN briefly on the dense diffusion data (noise 1e-3, 150 epochs, B = 160,
seed 0), then solves the learned PDE with the paper's RK45 and with BDF from the start
(``forward_solve(method="BDF")``) and prints evaluations, time and the largest difference
(errata item 28 quotes one run of this script).
"""
import time

import numpy as np

from binn_utils import studies
from binn_utils.engine.forward_solve import forward_solve
from binn_utils.engine.observations import make_observations
from binn_utils.engine.training import train


def main():
    data = make_observations("diffusion", 1e-3, dense=True)
    cfg = studies.noise_study("quick", dense=True)[0].config.replace(epochs=150, compile=False, batch_size=160)
    res = train(data, cfg, seeds=[0], progress=False)
    ops = [res.operator(n, 0, "final") for n in ("D", "V", "G")]
    u0 = res.u_theta(data.x, data.t, "final")[0, 0]
    sols = {}
    for method in ("RK45", "BDF"):
        t0 = time.perf_counter()
        sols[method] = sol = forward_solve(*ops, u0, data.x, data.t, method=method)
        print(f"{method:5s} {sol.status:4s} {sol.n_rhs:7d} right-hand-side evaluations  "
              f"{time.perf_counter() - t0:7.2f} s")
    print(f"largest difference {np.nanmax(np.abs(sols['BDF'].u - sols['RK45'].u)):.2e} "
          f"(max |u| {np.nanmax(np.abs(sols['RK45'].u)):.3f})")


if __name__ == "__main__":
    main()
