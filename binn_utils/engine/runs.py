"""What a training run is asked for and what it gives back, without torch.

``TrainConfig`` (the hyperparameters, validated), the checks on seeds and numbers
(``TrainingError``), ``TrainResult`` (a finished run as numpy arrays) and ``TrainState``
(a run paused at a chunk boundary), and the network layout a configuration builds.  The
trainer itself (``training.train``, with the compiled kernels) needs torch; describing,
storing, reading and counting runs does not, so the command line, the results store and
the studies import this module, not the trainer.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .layout import Architecture, NetworkLayout, OperatorFunction, mlp_numpy
from .observations import Observations


class TrainingError(ValueError):
    """A training request that cannot be honoured (bad configuration or data)."""


SEED_MAX = 2 ** 63 - 1
"""Seeds are stored as 64-bit integers: 0 <= seed <= SEED_MAX."""

EPOCHS_MAX = 10 ** 7
"""At most this many epochs (the paper trains 4000; more is a typo, and beyond 2**63 an overflow)."""


def is_int(v) -> bool:
    """An integer (Python or numpy), not a bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_number(name: str, v) -> float:
    """``v`` as a float if it is a finite real number (not a string, not a bool)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TrainingError(f"{name} must be a number, got {v!r} ({type(v).__name__})")
    if not np.isfinite(v):
        raise TrainingError(f"{name} must be finite, got {v!r}")
    return float(v)


def check_learning_rate(lr, dtype: str = "float32") -> float:
    """``lr`` if Adam can train with it in ``dtype``'s arithmetic: a finite number > 0 that is a
    normal number there (a smaller one is 0 or subnormal, its steps lost; a larger one is inf)."""
    lr = check_number("learning rate", lr)
    info = np.finfo(np.float64 if dtype == "float64" else np.float32)
    if not float(info.tiny) <= lr <= float(info.max):
        raise TrainingError(f"learning rate {lr!r} cannot train: " + (
            "it must be > 0" if lr <= 0 else f"training runs in {info.dtype}, where it is "
            + ("0 or subnormal (its steps are lost)" if lr < float(info.tiny) else "infinite")
            + f"; give one between {float(info.tiny):.3g} and {float(info.max):.3g} (the paper's: 5e-4)"))
    return lr


def check_seeds(seeds) -> tuple:
    """The seeds as a tuple of Python ints; a clear :class:`TrainingError` for a seed that
    is not an integer in [0, SEED_MAX] (floats are not truncated) or for no seeds."""
    try:
        seeds = list(seeds)
    except TypeError:
        raise TrainingError(f"seeds must be a sequence of integers, got {seeds!r}") from None
    if not seeds:
        raise TrainingError("need at least one seed (replicate)")
    for s in seeds:
        if not is_int(s):
            raise TrainingError(f"seeds must be integers, got {s!r} ({type(s).__name__})")
        if not 0 <= s <= SEED_MAX:
            raise TrainingError(f"seeds must be in [0, 2**63 - 1], got {s}")
    return tuple(int(s) for s in seeds)


def check_distinct(keys, seeds, same: str = "data and hyperparameters"):
    """Raise if two replicates are the same network: equal ``keys`` (seed plus whatever
    else determines the training, described by ``same``).  Identical networks would make
    independent initialisations look perfectly consistent."""
    seen = {}
    for i, (k, s) in enumerate(zip(keys, seeds)):
        if k in seen:
            raise TrainingError(f"replicates {seen[k]} and {i} have the same seed {s} and the same {same}: "
                                "they would train the same network; use distinct seeds")
        seen[k] = i


@dataclass(frozen=True)
class TrainConfig:
    """Hyperparameters; defaults are the paper's Table of default hyperparameters."""

    arch_u: tuple = (4, 32)
    arch_D: tuple = (4, 32)
    arch_V: tuple = (4, 32)
    arch_G: tuple = (4, 32)
    batch_size: int = 40
    n_pde: int = 40
    n_bc: int = 40
    w_data: float = 1.0
    w_pde: float = 0.1
    w_bc: float = 0.001
    lr: float = 5e-4
    epochs: int = 4000
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    val_n_pde: int = 200
    val_n_bc: int = 40
    clip_batch_to_data: bool = False
    time_budget_s: float | None = None
    dtype: str = "float32"
    compile: bool = True
    chunk_epochs: int = 50

    def validate(self):
        """Raise a :class:`TrainingError` naming the first parameter that cannot be honoured."""
        for name in ("batch_size", "n_pde", "n_bc", "epochs", "val_n_pde", "val_n_bc", "chunk_epochs"):
            v = getattr(self, name)
            if not is_int(v) or v < 1:
                raise TrainingError(f"{name} must be a positive integer, got {v!r}")
            if v > EPOCHS_MAX:
                raise TrainingError(f"{name} must be at most {EPOCHS_MAX:,}, got {v!r}")
        for name in ("w_data", "w_pde", "w_bc", "lr", "eps"):
            check_number(name, getattr(self, name))
        for name in ("w_pde", "w_bc"):
            if getattr(self, name) < 0:
                raise TrainingError(f"loss weight {name} must be >= 0, got {getattr(self, name)!r}")
        if self.w_data <= 0:
            raise TrainingError(f"loss weight w_data must be > 0 (without the data term the networks never "
                                f"see the observations), got {self.w_data!r}")
        check_learning_rate(self.lr, self.dtype)
        if self.eps <= 0:
            raise TrainingError(f"Adam's eps must be > 0, got {self.eps!r}")
        try:
            b1, b2 = self.betas
        except (TypeError, ValueError):
            raise TrainingError(f"betas must be a pair (beta1, beta2), got {self.betas!r}") from None
        for name, b in (("beta1", b1), ("beta2", b2)):
            if not 0 <= check_number(name, b) < 1:
                raise TrainingError(f"Adam's {name} must be in [0, 1), got {b!r}")
        if self.dtype not in ("float32", "float64"):
            raise TrainingError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        if self.time_budget_s is not None and not check_number("time_budget_s", self.time_budget_s) > 0:
            raise TrainingError(f"time_budget_s must be > 0 or None, got {self.time_budget_s!r}")
        for name in ("clip_batch_to_data", "compile"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TrainingError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("arch_u", "arch_D", "arch_V", "arch_G"):
            try:
                Architecture.coerce(getattr(self, name))
            except ValueError as err:
                raise TrainingError(f"{name}: {err}") from None
        return self

    def replace(self, **kw) -> "TrainConfig":
        return dataclasses.replace(self, **kw)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise TrainingError(f"unknown training parameters: {sorted(unknown)}")
        return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()})


HISTORY_KEYS = ("val_data", "val_pde", "val_bc", "val_total", "train_total")


@dataclass
class TrainResult:
    """Everything a training run produced, as numpy arrays (replicate axis first)."""

    layout: NetworkLayout
    config: TrainConfig
    seeds: np.ndarray
    mechanisms: tuple
    final: np.ndarray            # (R, n_params) parameters after the last epoch
    best: np.ndarray             # (R, n_params) parameters at the lowest validation loss
    best_epoch: np.ndarray       # (R,) 1-based epoch of the best validation loss
    history: dict                # HISTORY_KEYS -> (R, epochs_run); losses unweighted except totals
    weights: np.ndarray          # (R, 3) w_data, w_pde, w_bc per replicate
    lr: np.ndarray               # (R,)
    status: list                 # "ok" or "diverged at epoch k"
    diverged_epoch: np.ndarray   # (R,) -1 if never
    epochs_run: int
    steps_per_epoch: int
    wall_time_s: float
    extra: dict = field(default_factory=dict)

    @property
    def n_replicates(self) -> int:
        return self.final.shape[0]

    def params(self, which: str = "final") -> np.ndarray:
        if which not in ("final", "best"):
            raise ValueError(f"which must be 'final' or 'best', got {which!r}")
        return self.final if which == "final" else self.best

    def operator(self, name: str, replicate: int, which: str = "final") -> OperatorFunction | None:
        net = self.layout.net(name)
        return None if net is None else OperatorFunction(self.params(which)[replicate], net)

    def operator_curves(self, u_grid, which: str = "final") -> dict:
        """name -> (R, len(u_grid)) learned operator values."""
        u_grid = np.asarray(u_grid, dtype=np.float64)
        out = {}
        for name in ("D", "V", "G"):
            net = self.layout.net(name)
            if net is not None:
                out[name] = np.stack([mlp_numpy(p, net, u_grid[:, None]) for p in self.params(which)])
        return out

    def u_theta(self, x, t, which: str = "final") -> np.ndarray:
        """(R, n_t, n_x) learned solution on a grid."""
        T, X = np.meshgrid(np.asarray(t, float), np.asarray(x, float), indexing="ij")
        xt = np.stack([X.ravel(), T.ravel()], axis=1)
        net = self.layout.net("u")
        return np.stack([mlp_numpy(p, net, xt).reshape(T.shape) for p in self.params(which)])


@dataclass
class TrainState:
    """Where a training run stopped at a chunk boundary (``train(..., stop_at_epoch=k)``):
    everything ``train(..., resume=state)`` needs to go on as if it had never stopped (the
    same numbers bit for bit on the same device; tested).  Arrays are numpy, replicate axis
    first except ``hist`` (history keys, R, epochs so far)."""

    epoch: int
    flat: np.ndarray
    m: np.ndarray
    v: np.ndarray
    step: float
    lr: np.ndarray               # (R,) learning rates now (0 for a diverged replicate)
    best: np.ndarray
    best_val: np.ndarray
    best_epoch: np.ndarray
    diverged: np.ndarray         # (R,) 1-based epoch of divergence, -1 if never
    hist: np.ndarray
    gen_states: np.ndarray       # (R, n) uint8: the sampling generators before the next chunk
    wall_time_s: float
    first_epoch_s: float

    FIELDS = ("flat", "m", "v", "lr", "best", "best_val", "best_epoch", "diverged", "hist", "gen_states")

    def to_arrays(self) -> dict:
        """The state as named arrays (what a checkpoint file holds)."""
        out = {k: getattr(self, k) for k in self.FIELDS}
        out["scalars"] = np.array([self.epoch, self.step, self.wall_time_s, self.first_epoch_s], dtype=np.float64)
        return out

    @classmethod
    def from_arrays(cls, arrays: dict) -> "TrainState":
        epoch, step, wall, first = (float(x) for x in arrays["scalars"])
        return cls(epoch=int(epoch), step=step, wall_time_s=wall, first_epoch_s=first,
                   **{k: np.asarray(arrays[k]) for k in cls.FIELDS})


def resolve_mechanisms(data: Observations, mechanisms) -> tuple:
    if mechanisms is None:
        from .problems import BENCHMARK_NAMES, get_benchmark
        if data.name not in BENCHMARK_NAMES:
            raise TrainingError("say which mechanisms are present (a subset of 'D', 'V', 'G') "
                                f"for data {data.name!r}, which is not a benchmark")
        return tuple(get_benchmark(data.name).mechanisms)
    mech = tuple(dict.fromkeys(mechanisms))
    if not mech or any(m not in ("D", "V", "G") for m in mech):
        raise TrainingError(f"mechanisms must be a non-empty subset of ('D', 'V', 'G'), got {mechanisms!r}")
    return tuple(m for m in ("D", "V", "G") if m in mech)


def build_layout(config: TrainConfig, mechanisms) -> NetworkLayout:
    return NetworkLayout.build(config.arch_u,
                               config.arch_D if "D" in mechanisms else None,
                               config.arch_V if "V" in mechanisms else None,
                               config.arch_G if "G" in mechanisms else None)
