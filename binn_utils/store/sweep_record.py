"""What a stored setting's record holds, typed: :class:`SweepRecord`.

The JSON half of a stored pair (``results/runs/<benchmark>-<hash>.json``) is read into a
frozen :class:`SweepRecord` (:meth:`SweepRecord.from_json`) and written from one
(:meth:`SweepRecord.to_json`); only the store layer does either, every other module reads
attributes.  A record missing one of :data:`REQUIRED_FIELDS` is damaged
(:class:`~binn_utils.store.records.DamagedRecordError`, by ``records.require_fields``: the
check the store applies to every stored pair); fields added after the first results were
stored take the value those results had (``LEGACY``); fields a record no longer carries
(``first_requested_as``, ``replicates``) are ignored on read, so the committed files load
as they are.  Every record evaluates the networks of each of :data:`CHECKPOINTS`; the book
reads :func:`reported`'s.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import io
from dataclasses import dataclass

import numpy as np

from ..engine.runs import TrainConfig, TrainingError
from .records import CHECKSUM_FIELD, FORMAT_FIELD, RECORD_CHECKSUM_FIELD, DamagedRecordError, require_fields

#: Benchmarks whose initial condition has a text and a code reading (see problems.INITIALS).
CHOOSES_INITIAL = ("nonlinear_adr",)
#: What a record stored before a field existed had (results/README.md).  ``initial`` only
#: concerns the benchmarks of ``CHOOSES_INITIAL``.
LEGACY = {"forward_method": "RK45", "device": "cpu (not recorded)", "trained_with": None, "engine": 1,
          "steady_time_s": None, "first_epoch_s": None, "initial": "text", "data": "ours", CHECKSUM_FIELD: None,
          FORMAT_FIELD: 1, RECORD_CHECKSUM_FIELD: None}

#: Both sets of networks of every replicate are evaluated and stored: "best", the
#: parameters at the lowest validation loss (what the authors' code saves as
#: ``*_best_Iter*.pth`` and evaluates for every published error), and "final", those after
#: the last epoch.  ``REPORTED`` is the one every figure, table and verdict of the book uses.
CHECKPOINTS = ("best", "final")
REPORTED = "best"
_reported = contextvars.ContextVar("reported_checkpoint", default=REPORTED)


def reported() -> str:
    """The checkpoint that results are read at: ``REPORTED`` unless inside :func:`reporting_checkpoint`."""
    return _reported.get()


@contextlib.contextmanager
def reporting_checkpoint(which: str):
    """Read every result at the ``which`` networks inside the block (e.g. to see whether a
    verdict depends on reporting the best-validation or the final networks)."""
    if which not in CHECKPOINTS:
        raise ValueError(f"unknown checkpoint {which!r}; choose one of {CHECKPOINTS}")
    token = _reported.set(which)
    try:
        yield which
    finally:
        _reported.reset(token)


@dataclass(frozen=True)
class Checkpoint:
    """The evaluation of one checkpoint's networks (``best`` or ``final``): per-replicate
    relative L2 errors (None where undefined: a failed forward solve), the forward solves'
    statuses and each learned operator's error."""
    err_u_theta: tuple
    err_u_p: tuple
    err_u_theta_obs: tuple
    err_u_p_obs: tuple
    up_status: tuple
    operator_errors: dict  # operator name -> per-replicate errors

    @classmethod
    def from_json(cls, d: dict) -> "Checkpoint":
        return cls(**{f.name: (dict((k, tuple(v)) for k, v in d[f.name].items()) if f.name == "operator_errors"
                               else tuple(d[f.name])) for f in dataclasses.fields(cls)})

    def to_json(self) -> dict:
        return {"err_u_theta": list(self.err_u_theta), "err_u_p": list(self.err_u_p),
                "err_u_theta_obs": list(self.err_u_theta_obs), "err_u_p_obs": list(self.err_u_p_obs),
                "up_status": list(self.up_status),
                "operator_errors": {k: list(v) for k, v in self.operator_errors.items()}}


@dataclass(frozen=True)
class SweepRecord:
    """A stored setting: what determines its numbers (its specification, hashed into its
    key), how it was trained, its evaluation per checkpoint and where it comes from."""
    # the specification (``Setting.spec``)
    format: int                  # version of the specification (``setting.RESULTS_FORMAT``)
    benchmark: str
    reaction: str
    noise_var: float
    dense: bool
    datasets: tuple
    seeds: tuple
    config: TrainConfig
    initial: str | None          # the initial condition's reading (``CHOOSES_INITIAL`` only), else None
    data: str                    # whose data: "ours" or "authors" (``observations.DATA_SOURCES``)
    # the training
    status: tuple                # per replicate: "ok" or why it stopped
    epochs_run: int
    steps_per_epoch: int
    batch_size_used: int
    wall_time_s: float           # a merged group's times are the whole group's
    steady_time_s: float | None
    first_epoch_s: float | None
    mechanisms: tuple
    n_params: int
    device: str
    engine: int                  # ``networks.ENGINE_VERSION`` of the arithmetic
    trained_with: dict | None    # {"settings", "replicates"} of the merged group, None when alone
    forward_method: str          # the integrator of the u_p forward solves
    # the evaluation
    u_range: tuple               # observed range of u (operators are compared on it)
    metrics: dict                # checkpoint ("best", "final") -> Checkpoint
    # where it comes from
    provenance: dict
    npz_sha256: str | None       # checksum of the arrays (added by the store; None before format 2)
    store_format: int            # ``records.STORE_FORMAT`` it was written in
    record_sha256: str | None    # checksum of the record itself (added by the store; None before format 3)

    @property
    def replicates(self) -> int:
        return len(self.seeds)

    def failures(self, which: str) -> dict:
        """Its replicates, the trainings that diverged and the forward solves of checkpoint
        ``which`` that failed (none counted where it has no such checkpoint)."""
        up = self.metrics[which].up_status if which in self.metrics else ()
        return {"replicates": len(self.status), "diverged": sum(s != "ok" for s in self.status),
                "up_failed": sum(s != "ok" for s in up)}

    @classmethod
    def from_json(cls, d: dict, where="a record") -> "SweepRecord":
        """The record a stored JSON object holds; :class:`DamagedRecordError` naming
        ``where`` if a field it must have is missing or unreadable."""
        require_fields(d, REQUIRED_FIELDS, "setting", where)
        names = [f.name for f in dataclasses.fields(cls)]
        v = {n: d.get(n, LEGACY.get(n)) for n in names}
        if v["benchmark"] not in CHOOSES_INITIAL:
            v["initial"] = None
        try:
            v["config"] = TrainConfig.from_dict(v["config"])
            v["metrics"] = {k: Checkpoint.from_json(c) for k, c in v["metrics"].items()}
            for n in ("datasets", "seeds", "status", "mechanisms", "u_range"):
                v[n] = tuple(v[n])
        except (KeyError, TypeError, AttributeError, TrainingError) as err:
            raise DamagedRecordError(f"damaged stored result {where}: unreadable field ({type(err).__name__}: "
                                     f"{err})") from None
        return cls(**v)

    def to_json(self) -> dict:
        """The JSON object the store writes (without the checksums and format, which
        ``records.write_pair`` adds)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for n in (CHECKSUM_FIELD, FORMAT_FIELD, RECORD_CHECKSUM_FIELD):
            del d[n]
        if self.initial is None:
            del d["initial"]
        if self.data == LEGACY["data"]:
            del d["data"]
        d["config"] = self.config.to_dict()
        d["metrics"] = {k: c.to_json() for k, c in self.metrics.items()}
        return {k: (list(x) if isinstance(x, tuple) else x) for k, x in d.items()}


#: The fields every stored setting's record has had since the first (the others: ``LEGACY``).
REQUIRED_FIELDS = tuple(f.name for f in dataclasses.fields(SweepRecord) if f.name not in LEGACY)


#: how closely a record's errors must match those its arrays give (the arrays are float32, and a
#: small error is the difference of two nearly equal solutions: some 1e-5 relative is rounding)
REL_TOL = 1e-3


def errors_match_arrays(record: dict, data: bytes) -> str | None:
    """Why a stored setting's errors of u_theta and u_p (relative L2 against the noise-free
    solution, per replicate, at its best and final networks) differ from those its own arrays
    (the ``.npz`` bytes ``data``) give, or None: a record without its checksum can have been
    edited, and sealing it would make the edit look sound.  Records of other kinds (cached
    fits) have no such errors."""
    try:
        with np.load(io.BytesIO(data)) as f:
            arrays = {k: f[k] for k in f.files}
    except (ValueError, OSError, EOFError) as err:
        return f"its arrays cannot be read ({type(err).__name__}: {err})"
    metrics, clean = record.get("metrics"), arrays.get("u_clean")
    if not isinstance(metrics, dict) or clean is None:
        return None
    norm = float(np.linalg.norm(clean))
    for which, errors in metrics.items():
        for name in ("u_theta", "u_p"):
            try:
                stored, u = (errors or {}).get(f"err_{name}"), arrays.get(f"{which}_{name}")
                if stored is None or u is None:
                    continue
                given = np.linalg.norm((u - clean).reshape(u.shape[0], -1), axis=1) / norm
                stored = np.array([np.nan if v is None else v for v in stored], float)
            except (AttributeError, TypeError, ValueError, IndexError) as err:
                return f"its {which} errors of {name} cannot be read ({type(err).__name__}: {err})"
            both = np.isfinite(given) & np.isfinite(stored)
            if stored.shape != given.shape or not np.allclose(stored[both], given[both], rtol=REL_TOL, atol=0):
                return f"its {which} errors of {name} do not match its arrays (edited?)"
    return None
