"""Trained networks as a stored pair: the cached own-data fits and their parts
(:data:`FIT_KIND`, :func:`save_train_result`, :func:`load_train_result`), written and
checked by ``records``."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from . import records
from ..engine.runs import HISTORY_KEYS, TrainConfig, TrainResult, build_layout
from .provenance import provenance


def _fit_name(record: dict, stem: str) -> str:
    """The name of a stored fit: ``records.key_of(prefix, spec)``, a part of one (``spec["part"]``)
    with ``-part<i>of<n>`` appended; the prefix is the stored name's."""
    spec = record["spec"]
    if not isinstance(spec, dict):
        raise TypeError(f"its spec is a {type(spec).__name__}, not a dict")
    base = {k: v for k, v in spec.items() if k not in ("part", "networks")}
    suffix = f"-part{int(spec['part'][0])}of{int(spec['part'][1])}" if "part" in spec else ""
    head = stem[:-len(suffix)] if suffix and stem.endswith(suffix) else stem
    return records.key_of(head.rsplit("-", 1)[0], base) + suffix


#: Trained networks (:func:`save_train_result`): the cached own-data fits and their parts.
FIT_KIND = records.RecordKind("fit", ("spec", "config", "mechanisms", "status", "epochs_run",
                                      "steps_per_epoch", "wall_time_s"), _fit_name, marker="spec")
records.KINDS.append(FIT_KIND)


def save_train_result(result, path_npz, path_json, spec: dict | None = None) -> dict:
    """Store trained networks (a ``TrainResult``: parameters, histories, statuses) as a pair
    (``records.write_pair``), with ``spec`` (what determines them) in the record."""
    arrays = {"final": result.final, "best": result.best, "best_epoch": result.best_epoch,
              "seeds": result.seeds, "weights": result.weights, "lr": result.lr,
              "diverged_epoch": result.diverged_epoch}
    for k in HISTORY_KEYS:  # loss curves in single precision (they are only looked at)
        arrays[f"hist_{k}"] = np.asarray(result.history[k], dtype=np.float32)
    record = {"spec": spec or {}, "config": result.config.to_dict(), "mechanisms": list(result.mechanisms),
              "status": list(result.status), "epochs_run": int(result.epochs_run),
              "steps_per_epoch": int(result.steps_per_epoch), "wall_time_s": float(result.wall_time_s),
              "extra": dict(result.extra), "layout": result.layout.to_dict(), "provenance": provenance()}
    return records.write_pair(path_npz, path_json, arrays, records.clean_json(record))


def stored_fit_facts(path_json) -> tuple[int, int, str] | None:
    """What a stored fit ran, read from its checked record (``records.check_pair``): its epochs,
    its number of initialisations and its device ('cpu' for fits stored before devices were
    recorded); None where the pair is missing or damaged."""
    js = Path(path_json)
    rec = records.check_pair(js.with_suffix(".npz"), js, kind=FIT_KIND)
    if rec is None:
        return None
    return int(rec["epochs_run"]), len(rec["spec"]["seeds"]), str(rec.get("extra", {}).get("device", "cpu"))


def load_train_result(path_npz, path_json) -> TrainResult:
    """The ``TrainResult`` stored by :func:`save_train_result` (exact float64 parameters);
    :class:`records.DamagedRecordError` naming the file if the stored pair is damaged."""
    rec, a = records.read_pair(path_npz, path_json, kind=FIT_KIND)
    config = TrainConfig.from_dict(rec["config"])
    mech = tuple(rec["mechanisms"])
    return TrainResult(layout=build_layout(config, mech), config=config, seeds=a["seeds"], mechanisms=mech,
                       final=a["final"], best=a["best"], best_epoch=a["best_epoch"],
                       history={k: a[f"hist_{k}"].astype(np.float64) for k in HISTORY_KEYS}, weights=a["weights"],
                       lr=a["lr"], status=list(rec["status"]), diverged_epoch=a["diverged_epoch"],
                       epochs_run=int(rec["epochs_run"]), steps_per_epoch=int(rec["steps_per_epoch"]),
                       wall_time_s=float(rec["wall_time_s"]), extra=dict(rec.get("extra", {})))
