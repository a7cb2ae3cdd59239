"""A setting: what determines a stored result, and how settings are grouped and costed.

A *setting* is one group of replicates trained with identical hyperparameters (one point
of a study's grid: a learning rate, a loss weight, an architecture...).  Its results live
in ``<results_dir>/runs/<benchmark>-<hash>.npz`` (arrays) and ``.json`` (specification,
per-replicate metrics and provenance); the hash covers the full specification
(:meth:`Setting.spec`), so a notebook that asks for a setting finds it only if every
parameter (including epochs, seeds and datasets) matches, and studies that share a setting
(the defaults appear in several figures) share its run.  The pair is written and checked by
``records`` (:data:`SETTING_KIND`: what a setting's record must hold and the name it must be
stored under).  Settings that differ only in parameters the training step applies per
replicate are trained as one batch (:func:`group_settings`); a group's training checkpoint
is named by its settings (:data:`CHECKPOINT_KIND`); :func:`order_groups` starts the longest
first (:func:`group_cost`).  Running settings: ``runner``; loading them: ``loading``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from . import records
from ..engine.observations import DATA_SOURCES, check_authors_data
from ..engine.problems import INITIALS
from ..engine.runs import TrainConfig, TrainingError, build_layout, check_distinct, check_number, check_seeds
from .sweep_record import CHOOSES_INITIAL, LEGACY, REQUIRED_FIELDS, SweepRecord, errors_match_arrays

RESULTS_FORMAT = 1


#: Specification fields added after the first stored results, with the value those had.
LEGACY_DEFAULTS = {"initial": LEGACY["initial"], "data": LEGACY["data"]}


#: The parameters of a setting that are not training parameters (``TrainConfig``).
SETTING_PARAMETERS = ("benchmark", "noise_var", "dense", "reaction", "initial", "data")


@dataclass(frozen=True)
class Setting:
    study: str
    label: str
    benchmark: str
    noise_var: float
    dense: bool
    datasets: tuple
    seeds: tuple
    config: TrainConfig
    reaction: str = "supporting"
    initial: str = "text"  # nonlinear ADR only: Eq. (14) ("text") or the authors' Fig. 1 data ("code")
    #: whose data (``observations.DATA_SOURCES``): "ours", or "authors" (their clean solution and
    #: noise draw; each dataset index one seeded split of them)
    data: str = "ours"
    #: the parameters that place it on its study's grid (names of a ``TrainConfig`` field or
    #: of one of ``SETTING_PARAMETERS``), e.g. ("lr",): their values are the setting's own
    swept: tuple = ()
    #: (name, value) pairs that describe it and are not its parameters, e.g. (("budget_steps", 1000),)
    described: tuple = ()

    def __post_init__(self):
        if len(self.datasets) != len(self.seeds):
            raise ValueError("datasets and seeds must have one entry per replicate")
        if len(self.seeds) < 1:
            raise ValueError("a setting needs at least one replicate")
        check_seeds(self.seeds)
        for d in self.datasets:
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0:
                raise TrainingError(f"datasets must be non-negative integers, got {d!r}")
        check_distinct(list(zip(self.datasets, self.seeds)), self.seeds, "dataset")
        if check_number("noise variance", self.noise_var) < 0:
            raise TrainingError(f"noise variance must be >= 0, got {self.noise_var!r}")
        if self.initial not in INITIALS:
            raise ValueError(f"unknown initial condition {self.initial!r}; choose one of {INITIALS}")
        if self.data not in DATA_SOURCES:
            raise ValueError(f"unknown data {self.data!r}; choose one of {DATA_SOURCES}")
        if self.data == "authors":
            check_authors_data(self.benchmark, self.noise_var, self.dense, self.reaction, self.initial)
        parameters = set(SETTING_PARAMETERS) | {f.name for f in dataclasses.fields(TrainConfig)}
        if set(self.swept) - parameters:
            raise ValueError(f"swept names no parameter of a setting: {sorted(set(self.swept) - parameters)}")
        if {name for name, _ in self.described} & parameters:
            raise ValueError("described repeats a parameter of the setting (each fact once: name it in swept): "
                             f"{sorted({name for name, _ in self.described} & parameters)}")
        self.config.validate()

    @property
    def meta(self) -> dict:
        """The values that place it on its study's grid: its swept parameters (each stated
        once, in the setting itself) and what ``described`` adds."""
        return {**{name: self.parameter(name) for name in self.swept}, **dict(self.described)}

    def parameter(self, name: str):
        """The value of one of its parameters: a field of the setting or of its ``config``."""
        return getattr(self, name) if name in SETTING_PARAMETERS else getattr(self.config, name)

    @classmethod
    def from_record(cls, record: SweepRecord, study: str = "", label: str = "") -> "Setting":
        """The setting a stored record describes (its key is the name it is stored under)."""
        return cls(study, label, record.benchmark, record.noise_var, record.dense, record.datasets, record.seeds,
                   record.config, reaction=record.reaction, initial=record.initial or LEGACY["initial"],
                   data=record.data)

    def spec(self) -> dict:
        """Everything that determines the numbers (not the study or label it is shown under)."""
        spec = {"format": RESULTS_FORMAT, "benchmark": self.benchmark, "reaction": self.reaction,
                "noise_var": float(self.noise_var) + 0.0, "dense": bool(self.dense),   # -0.0 is 0.0
                "datasets": [int(d) for d in self.datasets], "seeds": [int(s) for s in self.seeds],
                "config": self.config.to_dict()}
        if self.benchmark in CHOOSES_INITIAL:
            spec["initial"] = self.initial
        spec["data"] = self.data
        return spec

    @property
    def key(self) -> str:
        """Stored under this name: identical specifications share one run across studies.

        Fields added to the specification after results were first stored are hashed only
        where they differ from the value those results had (``LEGACY_DEFAULTS``), so the
        committed keys stay valid while every record states the field."""
        spec = {k: v for k, v in self.spec().items() if LEGACY_DEFAULTS.get(k, object()) != v}
        return records.key_of(self.benchmark, spec)

    def paths(self, results_dir) -> tuple[Path, Path]:
        return records.pair_paths(Path(results_dir) / "runs", self.key)

    def stored_record(self, results_dir, warn: bool = True) -> SweepRecord | None:
        """The stored record if the setting is stored and sound; None if it is missing or
        damaged (a damaged pair gives a ``records.StoreWarning`` naming the file)."""
        npz, js = self.paths(results_dir)
        record = records.check_pair(npz, js, warn=warn, kind=SETTING_KIND)
        if record is None:
            return None
        try:
            return SweepRecord.from_json(record, js)
        except records.DamagedRecordError as err:
            if warn:
                warnings.warn(f"{err}; {records.missing_words(err)}", records.StoreWarning, stacklevel=2)
            return None

    def is_done(self, results_dir) -> bool:
        """Stored, and the stored pair is sound (see :func:`records.read_pair`)."""
        return self.stored_record(results_dir) is not None


def _setting_name(record: dict, stem: str) -> str:
    return Setting.from_record(SweepRecord.from_json(record, stem)).key


#: A setting's stored record: its specification (``Setting.spec``, whose hash is its name)
#: and what every evaluated setting has stored since the first; without its checksum, its errors
#: must be those its arrays give.
SETTING_KIND = records.RecordKind("setting", REQUIRED_FIELDS, _setting_name, verify=errors_match_arrays)
records.KINDS.append(SETTING_KIND)


#: With distinct seeds, dataset d's initialisations are seeds ``d * SEED_STRIDE + s``: no two
#: datasets share one (a network's initialisation is drawn from its seed alone, so shared
#: seeds would cross initialisations with datasets).  Dataset 0 keeps seeds 0, 1, ...
SEED_STRIDE = 1000


def replicates(n_seeds: int, n_datasets: int = 1, seed0: int = 0, dataset0: int = 0, distinct: bool = False):
    """(datasets, seeds) tuples for every combination of datasets and initialisations.

    ``distinct`` False: the same seeds ``seed0 + s`` on every dataset (the design of the stored
    results before distinct seeds; initialisations crossed with datasets).  True: each dataset
    its own seeds (``SEED_STRIDE``), so initialisations nest inside datasets."""
    if distinct and n_seeds > SEED_STRIDE:
        raise ValueError(f"distinct seeds allow at most {SEED_STRIDE} initialisations per dataset")
    ds = [dataset0 + d for d in range(n_datasets) for _ in range(n_seeds)]
    ss = [seed0 + s + (SEED_STRIDE * (dataset0 + d) if distinct else 0) for d in range(n_datasets)
          for s in range(n_seeds)]
    return tuple(ds), tuple(ss)


def seeds_distinct(setting) -> bool:
    """Whether no seed of ``setting`` is used on two of its datasets (initialisations nested in
    datasets, not crossed with them)."""
    by_seed: dict = {}
    for d, s in zip(setting.datasets, setting.seeds):
        by_seed.setdefault(int(s), set()).add(int(d))
    return all(len(v) == 1 for v in by_seed.values())


# hyperparameters that enter the training step only elementwise per replicate: settings
# that differ only in these (and in their noise level or datasets) can share one batch
MERGEABLE = ("lr", "w_data", "w_pde", "w_bc")


def on_data(settings: Sequence[Setting], data: str) -> list[Setting]:
    """The same settings trained on ``data`` (``observations.DATA_SOURCES``): "authors" gives
    the authors' rebuilt data, each dataset index one seeded split of them (ValueError, one
    line, where those data do not exist for a setting)."""
    return [dataclasses.replace(s, data=data) for s in settings]


def merge_key(setting: Setting) -> str:
    """Settings with equal merge keys can be trained as one batched model."""
    cfg = {k: v for k, v in setting.config.to_dict().items() if k not in MERGEABLE}
    return json.dumps({"benchmark": setting.benchmark, "reaction": setting.reaction, "initial": setting.initial,
                       "dense": bool(setting.dense), "config": cfg}, sort_keys=True)


def group_settings(settings: Sequence[Setting], merge: bool = True,
                   max_replicates: int | None = None) -> list[list[Setting]]:
    """Partition settings into batches trained together (order kept within a group).

    Without ``merge`` every setting is its own group.  ``max_replicates`` caps a group's
    total replicates (a setting larger than the cap still forms one group).
    """
    if not merge:
        return [[s] for s in settings]
    by_key: dict = {}
    for s in settings:
        by_key.setdefault(merge_key(s), []).append(s)
    groups = []
    for members in by_key.values():
        cur, n = [], 0
        for s in members:
            if cur and max_replicates and n + len(s.seeds) > max_replicates:
                groups.append(cur)
                cur, n = [], 0
            cur.append(s)
            n += len(s.seeds)
        groups.append(cur)
    return groups


def group_key(group) -> str:
    """The name of a group's checkpoint: the keys of its settings, in order."""
    return _group_name([s.key for s in group])


def _group_name(keys) -> str:
    return "group-" + hashlib.sha1(json.dumps(list(keys)).encode()).hexdigest()[:12]


#: A group's training checkpoint (``runner._Sweep.checkpoint``): named by its settings' keys.
CHECKPOINT_KIND = records.RecordKind("checkpoint", ("settings", "epoch"),
                                   lambda record, stem: _group_name(record["settings"]), marker="settings")
records.KINDS.insert(0, CHECKPOINT_KIND)


def replicate_steps(setting: Setting) -> int:
    """Optimiser steps of all the setting's replicates together (epochs x steps per epoch x
    replicates): the unit the README's cost table uses to size a cluster."""
    n_train = _n_train(setting.benchmark, bool(setting.dense))
    return setting.config.epochs * -(-n_train // min(setting.config.batch_size, n_train)) * len(setting.seeds)


def group_cost(group) -> float:
    """Rough relative cost of a group: optimiser steps plus validations, times the networks'
    parameters and the replicates (for ``priority="longest"``: long groups start first)."""
    s = group[0]
    n_train = _n_train(s.benchmark, bool(s.dense))
    steps = s.config.epochs * (-(-n_train // min(s.config.batch_size, n_train)) + 0.5)
    size = build_layout(s.config, ("D", "V", "G")).n_params
    return steps * size * (1 + sum(len(x.seeds) for x in group) / 400)


def _n_train(benchmark: str, dense: bool) -> int:
    from ..engine.observations import make_observations
    key = (benchmark, dense)
    if key not in _N_TRAIN:
        _N_TRAIN[key] = len(make_observations(benchmark, 0.0, dense=dense).train_idx)
    return _N_TRAIN[key]


_N_TRAIN: dict = {}
PRIORITIES = ("given", "longest", "shortest")


def order_groups(groups, priority: str = "given"):
    """Groups in the order they start: as given (the request's order), ``"longest"`` first
    (a window of many workers ends sooner), or ``"shortest"`` first (one worker in a short
    window stores the most settings); by :func:`group_cost`, stable."""
    if priority not in PRIORITIES:
        raise ValueError(f"unknown priority {priority!r}; choose one of {PRIORITIES}")
    if priority == "given":
        return list(groups)
    return sorted(groups, key=group_cost, reverse=priority == "longest")
