"""The notebooks' parameters: what each name means, and one check of a notebook's values.

Every chapter is a parameterised notebook (its cell tagged ``parameters``; ``make rerun``
and papermill set them).  A parameter means the same in every notebook that has it, so its
kind lives here once, in :data:`PARAMETERS`; each notebook's first code cell after its
parameters calls :func:`check_parameters` with all of them, so a wrong value stops the
notebook at once with one line (:class:`ParameterError`) instead of a traceback deep in a
training run.  ``scripts/rerun.py`` (``make rerun``) applies the same check before it
starts the notebook.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..engine.problems import INITIALS, REACTIONS
from ..analysis.scratch import INITIAL_CELLS
from ..studies import SCALES, sweeps
from .arguments import FLOAT32_MAX


class ParameterError(ValueError):
    """A notebook parameter with a value it cannot take; the message is one line."""


@dataclass(frozen=True)
class Param:
    """The kind of a notebook parameter: ``kind`` one of "number", "integer", "bool",
    "text", "path", "scale" (a training scale), "choice" (one of ``choices``), "pair" (an (h, n)
    pair of integers), "numbers" / "integers" / "pairs" (a list of numbers, of integers, of
    (h, n) pairs); ``low`` /
    ``high`` bound numbers (``low_open``: strictly above ``low``); ``none``: None allowed
    (the notebook's default); ``check``: a further test of the value, returning an error
    message or None."""
    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple = ()
    none: bool = True
    check: Callable[[Any], str | None] | None = None
    means: str = ""


def _studies_words(value) -> str | None:
    known = tuple(st.name for st in sweeps())
    wanted = [w.strip() for w in str(value).split(",") if w.strip()]
    if value != "all" and (not wanted or any(w not in known for w in wanted)):
        return f"must be 'all' or a comma-separated list of {', '.join(known)}"
    return None


def _mechanisms(value) -> str | None:
    if not value or any(c not in "DVG" for c in str(value)) or len(set(str(value))) != len(str(value)):
        return "must be letters out of D, V and G, each at most once (e.g. DG)"
    return None


POSITIVE = dict(low=0, low_open=True)
# upper bounds: far beyond any run the book makes, low enough that a typo (1e20 epochs) is refused at once
SCALE_CHOICES = tuple(SCALES)

#: Every notebook parameter, by name: one meaning for each name across the notebooks.
PARAMETERS: dict[str, Param] = {
    "scale": Param("scale", means="training scale"),
    "reaction_scale": Param("scale", means="scale of the reaction-term comparison"),
    "fallback_scale": Param("scale", means="scale read where a study is not stored at `scale`"),
    "noise_var": Param("number", low=0, high=FLOAT32_MAX, means="observation noise variance"),
    "noise_vars": Param("numbers", low=0, high=FLOAT32_MAX, means="swept noise variances"),
    "shown_noise": Param("number", low=0, means="noise variance of the shown panels"),
    "dense": Param("bool", none=False, means="351 spatial points instead of 71"),
    "epochs": Param("integer", low=1, high=10**6, means="training epochs"),
    "seeds": Param("integer", low=1, high=10**4, means="initialisations"),
    "datasets": Param("integer", low=1, high=10**3, means="independently drawn datasets"),
    "budget_steps": Param("integer", low=1, high=10**9, means="optimiser steps of the fixed budget"),
    "archs": Param("pairs", low=1, high=10**4, means="network sizes (h, n)"),
    "shown_arch": Param("pair", low=1, high=10**4, means="network size (h, n) of the shown panels"),
    "batch_sizes": Param("integers", low=1, high=10**7, means="swept batch sizes"),
    "rates": Param("numbers", **POSITIVE, means="swept learning rates"),
    "shown_rate": Param("number", **POSITIVE, means="learning rate of the shown panels"),
    "weights": Param("numbers", **POSITIVE, means="swept PDE loss weights"),
    "shown_weights": Param("numbers", **POSITIVE, means="PDE loss weights of the shown panels"),
    "reaction": Param("choice", choices=REACTIONS, none=False, means="reading of the reaction term"),
    "initial": Param("choice", choices=INITIALS, none=False, means="initial condition"),
    "replicate_shown": Param("integer", low=0, none=False, means="initialisation of the shown panels"),
    "compare_initial": Param("bool", none=False),
    "compare_grid": Param("bool", none=False),
    "compare_reactions": Param("bool", none=False),
    "compare": Param("bool", none=False),
    "train_missing": Param("bool"),
    "failure_factor": Param("number", low=1, low_open=True, none=False, means="ground-truth failure factor"),
    "calibration_seed": Param("integer", low=0, none=False),
    "calibration_splits": Param("integer", low=0, high=10**4, none=False),
    "initial_cells": Param("choice", choices=INITIAL_CELLS, none=False, means="cells seeded per well"),
    "mechanisms": Param("text", none=False, check=_mechanisms),
    "drop_first_column": Param("bool", none=False),
    "study": Param("text", none=False, check=_studies_words),
    "source": Param("path"),
    "output_dir": Param("path"),
}


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _number_problem(p: Param, v, integer: bool) -> str | None:
    if not _is_number(v) or (integer and float(v) != int(v)):
        return f"must be {'an integer' if integer else 'a finite number'}, got {v!r}"
    if p.low is not None and (v <= p.low if p.low_open else v < p.low):
        return f"must be {'above' if p.low_open else 'at least'} {p.low:g}, got {v!r}"
    if p.high is not None and v > p.high:
        return f"must be at most {p.high:g}, got {v!r}"
    return None


def _pair_problem(p: Param, v) -> str | None:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) != 2:
        return f"must be an (h, n) pair such as [4, 32], got {v!r}"
    return next((b for b in (_number_problem(p, x, True) for x in v) if b), None)


def problem(name: str, value, spec: Mapping[str, Param] | None = None) -> str | None:
    """What is wrong with the value of the parameter ``name`` (None: nothing)."""
    p = (spec or PARAMETERS)[name]
    if value is None:
        return None if p.none else "must be given (None is not allowed)"
    if p.kind in ("number", "integer"):
        return _number_problem(p, value, p.kind == "integer")
    if p.kind == "bool":
        return None if isinstance(value, bool) else f"must be True or False, got {value!r}"
    if p.kind in ("scale", "choice"):
        choices = SCALE_CHOICES if p.kind == "scale" else p.choices
        if value not in choices or isinstance(value, bool):
            return f"must be one of {', '.join(map(repr, choices))}, got {value!r}"
        return None
    if p.kind in ("text", "path"):
        if not isinstance(value, str) and not (p.kind == "path" and hasattr(value, "__fspath__")):
            return f"must be {'a folder' if p.kind == 'path' else 'text'}, got {value!r}"
        if p.kind == "path" and not str(value).strip():   # an unset shell variable: no fall-back to the default
            return "must name a folder, got an empty string (an unset shell variable?); leave it out for the default"
        return p.check(value) if p.check else None
    if p.kind == "pair":
        return _pair_problem(p, value)
    if p.kind in ("numbers", "integers", "pairs"):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            return f"must be a list, e.g. [0.0, 0.01], got {value!r}"
        items = list(value)
        if not items:
            return "must be a non-empty list"
        for v in items:
            if p.kind == "pairs":
                bad = _pair_problem(p, v)
            else:
                bad = _number_problem(p, v, p.kind == "integers")
            if bad:
                return f"each entry {bad}"
        return None
    raise AssertionError(f"unknown kind {p.kind!r} of parameter {name!r}")


def check_parameters(values: Mapping[str, Any], spec: Mapping[str, Param] | None = None) -> None:
    """Raise :class:`ParameterError` (one line) at the first parameter in ``values`` whose
    value its kind in ``spec`` (default :data:`PARAMETERS`) does not allow, or whose name is
    not there."""
    spec = spec or PARAMETERS
    for name, value in values.items():
        if name not in spec:
            raise ParameterError(f"unknown parameter {name!r} (known: {', '.join(sorted(spec))})")
        bad = problem(name, value, spec)
        if bad:
            raise ParameterError(f"parameter {name} {bad}")
