"""The paper's experiments, one module per study, in one registry.

``REGISTRY`` maps a study's name to its :class:`~binn_utils.studies.base.Study`; the CLI,
the chapters, the Supporting Material, the scorecard and the committed-results test loop
over it.  Adding a study: write a module that defines ``STUDY`` (see ``learning_rate.py``)
and list it below.
"""
from __future__ import annotations

from . import architecture, authors_budget, batch_size, defaults, framework, learning_rate, loss_weight, noise
from ..engine.observations import DEFAULT_NOISE_VAR
from .architecture import OPERATOR_ARCHS
from .base import PAPER_DEFAULTS, SCALES, PaperPoint, Study, scale_values
from .authors_budget import AUTHORS_BUDGET_EPOCHS, AUTHORS_BUDGET_EPOCHS_LOW
from .batch_size import BATCH_SIZES, PAPER_BUDGET_STEPS
from .learning_rate import LEARNING_RATES
from .loss_weight import PDE_WEIGHTS
from .noise import NOISE_ARCHS

REGISTRY: dict[str, Study] = {s.name: s for s in (
    defaults.STUDY, framework.STUDY, learning_rate.STUDY, loss_weight.STUDY, architecture.STUDY,
    batch_size.STUDY, authors_budget.AUTHORS_BUDGET, authors_budget.AUTHORS_BUDGET_LOW, noise.STUDY)}

# The builders under the names the chapters call them by.
default_runs = defaults.build
framework_study = framework.build
noise_study = noise.build
learning_rate_study = learning_rate.build
loss_weight_study = loss_weight.build
architecture_study = architecture.build
batch_size_study = batch_size.build
batch_size_authors_budget = authors_budget.build_authors_budget
batch_size_authors_budget_low = authors_budget.build_authors_budget_low


def get(name: str) -> Study:
    """The study called ``name`` (ValueError naming the known ones otherwise)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown study {name!r}; choose from {tuple(REGISTRY)}")
    return REGISTRY[name]


def sweeps() -> list[Study]:
    """The hyperparameter sweeps of the main text (Figs. 2-6), in the book's order."""
    return [s for s in REGISTRY.values() if s.sweep]


def repeated(dense: bool) -> list[Study]:
    """The studies the Supporting Material repeats on the dense (or the 71-point) grid."""
    grid = "dense" if dense else "sparse"
    return [s for s in REGISTRY.values() if grid in s.repeated_on]


#: The Supporting Material's repeats (noise variance, dense grid), besides the main text's (1e-3, sparse).
SUPPORTING_CONFIGURATIONS = ((0.0, False), (1e-2, False), (0.0, True), (1e-3, True), (1e-2, True))


def reference_configuration(noise_var: float, dense: bool) -> tuple[float, bool]:
    """The configuration a Supporting Material repeat is compared with: the sparse grid at
    the same noise level for a dense repeat, the main text's otherwise."""
    return (noise_var, False) if dense else (DEFAULT_NOISE_VAR, False)


__all__ = ["REGISTRY", "Study", "PaperPoint", "SCALES", "PAPER_DEFAULTS", "scale_values", "get", "sweeps", "repeated",
           "reference_configuration", "SUPPORTING_CONFIGURATIONS", "OPERATOR_ARCHS", "BATCH_SIZES", "PAPER_BUDGET_STEPS",
           "AUTHORS_BUDGET_EPOCHS", "AUTHORS_BUDGET_EPOCHS_LOW", "LEARNING_RATES", "PDE_WEIGHTS", "NOISE_ARCHS"]
