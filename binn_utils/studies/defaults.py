"""The default-hyperparameter runs: one setting per benchmark (the engine's acceptance runs)."""
from __future__ import annotations

from ..engine.observations import DEFAULT_NOISE_VAR
from ..engine.problems import BENCHMARK_NAMES
from ..store.setting import Setting, replicates
from .base import Study, count, scale_values, train_config


def build(scale="book", noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None, seeds=None, datasets=None,
          distinct_seeds=False, benchmarks=None) -> list[Setting]:
    """One default-hyperparameter setting per benchmark; ten initialisations (the paper's
    N_rep) at every scale but ``quick``."""
    p = scale_values(scale)
    ds, ss = replicates(count("seeds", seeds, p["seeds"] if scale == "quick" else 10), count("datasets", datasets, 1),
                        distinct=distinct_seeds)
    return [Setting("defaults", name, name, noise_var, dense, ds, ss, train_config(p, epochs))
            for name in (benchmarks or BENCHMARK_NAMES)]


STUDY = Study("defaults", "default hyperparameters", "all", "every benchmark", build)
