"""``binn migrate``: bring every stored pair to the current store format without retraining.

Records stored before the current checksums existed are damaged to every other reader
(:func:`is_unsealed` finds them); :func:`migrate_store` reads them after the checks they allow
and adds the checksums (and the fields they predate, with the values they had) to those that
verify (``migrate_pair``).
"""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from . import records
from .setting import LEGACY_DEFAULTS, SETTING_KIND
from .sweep_record import CHOOSES_INITIAL, LEGACY

#: What a record stored before a field existed had (results/README.md;
#: ``sweep_record.LEGACY``): added by :func:`migrate_store` so that every migrated record
#: states it.  ``initial`` only concerns the benchmarks of ``CHOOSES_INITIAL``.
LEGACY_RECORD_FIELDS = {k: LEGACY[k] for k in ("forward_method", "device", "trained_with")}


def migrate_store(results_dir=None) -> dict:
    """Bring every stored pair under ``results_dir`` (the runs, the cached fits, e.g.
    ``scratch/``, and the checkpoints) to ``records.STORE_FORMAT`` if it verifies
    (``migrate_pair``: its name is the hash of its specification, it has the fields
    of its kind, its arrays match their checksum): add the checksums and the fields it
    predates (``LEGACY_RECORD_FIELDS``, ``LEGACY_DEFAULTS``), leaving the arrays, every other
    field and every key as they are; no retraining.  Pairs that do not verify are left
    alone, unstamped (they count as missing and are rerun).  Returns {path of the .json:
    outcome}, the outcome "current", "migrated", "damaged: <why>" or "failed: <why>"."""
    root = Path(results_dir or records.default_results_dir())
    out = {}
    for js in _json_files(root):
        npz = js.with_suffix(".npz")
        if js.name.startswith(".") or (js.parent.name not in ("runs", "checkpoints") and not npz.exists()):
            continue  # a temporary file, or a JSON file that is not half of a stored pair
        kind = SETTING_KIND if js.parent.name == "runs" else None  # elsewhere: by its content
        out[str(js)] = migrate_pair(npz, js, _legacy_fields, kind=kind, verify=errors_match_arrays)
    return out


def is_unsealed(js) -> bool:
    """Whether ``js`` is a readable record without its whole-record checksum: damaged to every
    reader but ``binn migrate``, which verifies it and seals it (a file that is not a regular
    one, or not a JSON object, is not: it is damaged)."""
    js = Path(js)
    try:
        record = json.loads(js.read_text()) if js.is_file() else None
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and records.RECORD_CHECKSUM_FIELD not in record


def unsealed_words(n: int, results_dir=None) -> str:
    """Why ``n`` unsealed records stop training (``binn sweep``, ``load_or_run``): training them
    again would write over records ``binn migrate`` could verify and keep."""
    where = "" if results_dir is None else f" --results-dir {results_dir}"
    return (f"{n} stored record(s) have no checksum (written before whole-record checksums, or the field was "
            f"removed) and are not read: `binn migrate{where}` verifies and seals them")


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
            stored, u = (errors or {}).get(f"err_{name}"), arrays.get(f"{which}_{name}")
            if stored is None or u is None:
                continue
            given = np.linalg.norm((u - clean).reshape(u.shape[0], -1), axis=1) / norm
            stored = np.array([np.nan if v is None else v for v in stored], float)
            both = np.isfinite(given) & np.isfinite(stored)
            if stored.shape != given.shape or not np.allclose(stored[both], given[both], rtol=REL_TOL, atol=0):
                return (f"its {which} errors of {name} do not match its arrays (edited?): left unsealed; "
                        "the next run that needs it trains it again")
    return None


def _json_files(root: Path) -> list[Path]:
    """Every .json file under ``root``, sorted; a folder that cannot be listed (no permission)
    is an OSError naming it, not a store that seems empty ("0 records migrated")."""
    def refuse(err: OSError):
        raise err
    return sorted(Path(d) / f for d, _, files in os.walk(root, onerror=refuse) for f in files if f.endswith(".json"))


def _legacy_fields(record: dict) -> dict:
    """The fields a stored setting's record predates, with the values they had (none for
    the records of cached fits, which are not settings)."""
    if "benchmark" not in record or "metrics" not in record:
        return {}
    return {**LEGACY_RECORD_FIELDS, **(LEGACY_DEFAULTS if record["benchmark"] in CHOOSES_INITIAL else {})}


def migrate_pair(npz, js, fill=None, kind=None, verify=None) -> str:
    """Bring one pair to ``records.STORE_FORMAT`` without touching its arrays, only if it verifies
    (``records.read_pair`` with ``kind``: its name is the hash of its specification, it has its kind's
    fields, its arrays match their checksum or pass the zip's CRC check).  ``fill(record)`` (optional)
    gives fields with the values records had before the field existed; those the record lacks are
    added.  ``verify(record, npz bytes)``: why its numbers do not match its arrays (an edit a missing
    checksum cannot show), or None; such a record is damaged, never sealed.  Returns "current"
    (already sealed), "migrated" (checksums, store format and missing fields added), "damaged: <why>"
    (left as it is: it is treated as missing and recomputed by the next run that needs it) or
    "failed: <why>" (it verifies but could not be rewritten, e.g. a read-only folder)."""
    npz, js = Path(npz), Path(js)
    try:
        record, _ = records.read_pair(npz, js, load_arrays=False, kind=kind, unsealed=True)
    except (records.DamagedRecordError, FileNotFoundError) as err:
        return f"damaged: {err}"
    if records.is_sealed(record):
        return "current"
    data = npz.read_bytes()
    why = verify(record, data) if verify is not None else None
    if why:
        return f"damaged: {js}: {why}"
    new = records.seal({**(fill(record) if fill else {}), **record}, records.sha256_bytes(data))
    try:
        with records.folder_lock(js.parent):
            if npz.read_bytes() != data:  # rewritten meanwhile by a sweep: that one is current
                return "current"
            records.atomic_write(js, records.json_bytes(new))
            records.fsync_folder(js.parent)
    except OSError as err:
        return f"failed: cannot rewrite {js}: {err.strerror or err}"
    return "migrated"
