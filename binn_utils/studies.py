"""The paper's experiments as lists of settings, for three presets.

* ``quick``: a smoke run for CI (few epochs, two replicates, no compilation); its numbers
  mean nothing scientifically.
* ``book``: what the committed results of the rendered book were run with: the paper's
  4000 epochs with 5 initialisations (10 for the default runs), a smaller noise study.
* ``lite``: the Supporting Material repeats at 1000 epochs and 3 initialisations.
* ``paper``: the published grid (4000 epochs, ten initialisations, ten datasets in the
  noise study).

Every study function takes overrides (noise variance, dense grid, epochs, replicates,
datasets, and the swept values) so a notebook's papermill parameters map straight onto it.
"""
from __future__ import annotations

import math

import numpy as np

from .observations import NOISE_VARIANCES
from .sweeps import Setting, replicates
from .training import TrainConfig, TrainingError

PRESETS = {
    "quick": dict(epochs=12, seeds=2, datasets=2, compile=False, big_epochs=6, big_datasets=1, budget_steps=150),
    # book: the paper's 4000 epochs, but 5 initialisations per setting (10 for the
    # default runs) and a reduced noise study -- what two CPU cores allowed in one session
    "book": dict(epochs=4000, seeds=5, datasets=3, compile=True, big_epochs=500, big_datasets=2,
                 budget_steps=40_000, noise_seeds=3, big_seeds=2),
    # lite: the Supporting Material repeats (other noise levels, dense data) at a quarter
    # of the training length and 3 initialisations
    "lite": dict(epochs=1000, seeds=3, datasets=2, compile=True, big_epochs=250, big_datasets=1,
                 budget_steps=10_000, noise_seeds=2, big_seeds=2),
    # paper: the published grid, except that the (6, 128) u-network of the noise study,
    # ~25x dearer per step, gets 3 datasets instead of 10 (10 initialisations each)
    "paper": dict(epochs=4000, seeds=10, datasets=10, compile=True, big_epochs=4000, big_datasets=3,
                  budget_steps=75_000),
}
LEARNING_RATES = (5e-7, 5e-6, 5e-5, 5e-4, 5e-3, 5e-2, 5e-1)
PDE_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3)
OPERATOR_ARCHS = ((1, 1), (4, 1), (4, 4), (4, 32))
BATCH_SIZES = (10, 40, 160, 640)
NOISE_ARCHS = ((4, 32), (6, 128))
# the published trainer takes ~4 ms per step here, so five minutes ~ 75,000 steps
PAPER_BUDGET_STEPS = 75_000
# The published Fig. 6 budget runs (the authors' FIXEDTIME10 folders: ten minutes of wall
# clock, one initialisation per B): the epochs their own timings give for ten minutes.
AUTHORS_BUDGET_EPOCHS = {10: 2200, 40: 8100, 160: 23_000, 640: 45_000}


def preset(name: str) -> dict:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return dict(PRESETS[name])


def _count(name: str, value, default) -> int:
    """An override (epochs, seeds, datasets, budget steps): ``default`` if None, else a
    positive integer (0, negatives and fractions are errors, never replaced or truncated)."""
    if value is None:
        return int(default)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise TrainingError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _base(p: dict, epochs=None, **kw) -> TrainConfig:
    return TrainConfig(epochs=_count("epochs", epochs, p["epochs"]), compile=p["compile"], **kw)


def _reps(p, seeds):
    return replicates(_count("seeds", seeds, p["seeds"]))


def _fmt(v) -> str:
    return f"{v:g}"


def default_runs(preset_name="book", noise_var=1e-3, dense=False, epochs=None, seeds=None,
                 benchmarks=None) -> list[Setting]:
    """One default-hyperparameter setting per benchmark (the engine's acceptance runs).

    Ten initialisations (the paper's N_rep) in every preset but ``quick``.
    """
    from .benchmarks import BENCHMARK_NAMES
    p = preset(preset_name)
    ds, ss = replicates(_count("seeds", seeds, p["seeds"] if preset_name == "quick" else 10))
    return [Setting("defaults", name, name, noise_var, dense, ds, ss, _base(p, epochs))
            for name in (benchmarks or BENCHMARK_NAMES)]


def framework_study(preset_name="book", noise_var=1e-3, dense=False, epochs=None, seeds=None,
                    reaction="supporting", initial="code") -> list[Setting]:
    """Fig. 1: the ADR-BINN with default hyperparameters on the nonlinear ADR benchmark.

    Ten initialisations.  ``initial`` = "code" (default): the data the authors' code
    generated for the published figure (bumps of height 1 and 0.7); "text": the paper's
    Eq. ic-nl (heights 0.1 and 0.07), the same setting as the nonlinear ADR default run.
    """
    p = preset(preset_name)
    ds, ss = replicates(_count("seeds", seeds, p["seeds"] if preset_name == "quick" else 10))
    return [Setting("framework", "default", "nonlinear_adr", noise_var, dense, ds, ss, _base(p, epochs),
                    reaction=reaction, initial=initial)]


def noise_study(preset_name="book", noise_vars=NOISE_VARIANCES, archs=NOISE_ARCHS, dense=False,
                epochs=None, seeds=None, datasets=None) -> list[Setting]:
    """Fig. 2: diffusion benchmark, u-network (h_u, n_u) in archs, ten datasets x ten seeds.

    In the ``book`` preset the large (6, 128) network runs fewer epochs and replicates
    (``big_*`` preset entries): it costs ~25x more per step than (4, 32).
    """
    p = preset(preset_name)
    out = []
    for arch in archs:
        big = tuple(arch) != (4, 32)
        n_ep = _count("epochs", epochs, p["big_epochs"] if big else p["epochs"])
        n_ds = _count("datasets", datasets, p["big_datasets"] if big else p["datasets"])
        n_seeds = _count("seeds", seeds, p.get("big_seeds", p["seeds"]) if big else p.get("noise_seeds", p["seeds"]))
        ds, ss = replicates(n_seeds, n_ds)
        for nv in noise_vars:
            cfg = _base(p, n_ep, arch_u=tuple(arch))
            out.append(Setting("noise", f"sigma2={_fmt(nv)} u{tuple(arch)}", "diffusion", nv, dense, ds, ss, cfg,
                               meta=(("noise_var", float(nv)), ("arch_u", list(arch)))))
    return out


def learning_rate_study(preset_name="book", rates=LEARNING_RATES, noise_var=1e-3, dense=False,
                        epochs=None, seeds=None) -> list[Setting]:
    """Fig. 3: Burgers' equation, learning rate r from 5e-7 to 5e-1."""
    p = preset(preset_name)
    ds, ss = _reps(p, seeds)
    return [Setting("learning_rate", f"r={_fmt(r)}", "burgers", noise_var, dense, ds, ss,
                    _base(p, epochs, lr=float(r)), meta=(("lr", float(r)),)) for r in rates]


def loss_weight_study(preset_name="book", weights=PDE_WEIGHTS, noise_var=1e-3, dense=False,
                      epochs=None, seeds=None) -> list[Setting]:
    """Fig. 4: porous-medium equation, w_PDE swept with w_data = 1 and w_BC = 0."""
    p = preset(preset_name)
    ds, ss = _reps(p, seeds)
    return [Setting("loss_weight", f"w_pde={_fmt(w)}", "porous_medium", noise_var, dense, ds, ss,
                    _base(p, epochs, w_pde=float(w), w_bc=0.0), meta=(("w_pde", float(w)),)) for w in weights]


def architecture_study(preset_name="book", archs=OPERATOR_ARCHS, noise_var=1e-3, dense=False,
                       epochs=None, seeds=None) -> list[Setting]:
    """Fig. 5: diffusion-advection benchmark, (h, n) of D and V over all combinations."""
    p = preset(preset_name)
    ds, ss = _reps(p, seeds)
    out = []
    for aD in archs:
        for aV in archs:
            cfg = _base(p, epochs, arch_D=tuple(aD), arch_V=tuple(aV))
            out.append(Setting("architecture", f"D{tuple(aD)} V{tuple(aV)}", "diffusion_advection", noise_var,
                               dense, ds, ss, cfg, meta=(("arch_D", list(aD)), ("arch_V", list(aV)))))
    return out


def batch_size_authors_budget(preset_name="book", noise_var=1e-3, dense=False, epochs=None,
                              seeds=None) -> list[Setting]:
    """Fig. 6 with the authors' budget: for each B the number of epochs that ten minutes of
    their trainer gave (``AUTHORS_BUDGET_EPOCHS``; scaled by the preset's epochs / 4000 in
    the smaller presets, or by ``epochs`` / 4000 when given), ten initialisations in the
    paper preset where the authors ran one."""
    p = preset(preset_name)
    ds, ss = _reps(p, seeds)
    scale = _count("epochs", epochs, p["epochs"]) / 4000
    out = []
    for B, n_ep in AUTHORS_BUDGET_EPOCHS.items():
        cfg = _base(p, max(1, round(n_ep * scale)), batch_size=int(B), clip_batch_to_data=True)
        out.append(Setting("batch_size_authors", f"B={B} authors' budget", "diffusion", noise_var, dense, ds, ss,
                           cfg, meta=(("batch_size", int(B)), ("budget_epochs", cfg.epochs))))
    return out


def batch_size_study(preset_name="book", batch_sizes=BATCH_SIZES, noise_var=1e-3, dense=False,
                     epochs=None, seeds=None, budget_steps=None) -> tuple[list[Setting], list[Setting]]:
    """Fig. 6: diffusion benchmark, mini-batch size B.

    Returns (fixed-epoch settings, fixed-budget settings).  A batch larger than the
    training set is clipped to it (full-batch training, recorded).  The fixed training
    budget is a number of optimiser steps: the published trainer's cost per step hardly
    depends on B (its 4000-epoch time scales as 1/B), so a fixed wall-clock budget is a
    fixed number of steps.
    """
    from .observations import make_observations
    p = preset(preset_name)
    ds, ss = _reps(p, seeds)
    budget = _count("budget_steps", budget_steps, p["budget_steps"])
    n_train = len(make_observations("diffusion", noise_var, dense=dense).train_idx)
    fixed, budgeted = [], []
    for B in batch_sizes:
        cfg = _base(p, epochs, batch_size=int(B), clip_batch_to_data=True)
        fixed.append(Setting("batch_size", f"B={B}", "diffusion", noise_var, dense, ds, ss, cfg,
                             meta=(("batch_size", int(B)),)))
        spe = math.ceil(n_train / min(int(B), n_train))
        cfg_b = cfg.replace(epochs=max(1, math.ceil(budget / spe)))
        budgeted.append(Setting("batch_size_budget", f"B={B} budget={budget}", "diffusion", noise_var, dense,
                                ds, ss, cfg_b, meta=(("batch_size", int(B)), ("budget_steps", budget))))
    return fixed, budgeted
