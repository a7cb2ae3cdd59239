"""``binn migrate``: bring every stored pair to the current store format without retraining.

Records stored before the current checksums existed whose arrays verify are *unsealed*: read by
nothing else, never trained over (:func:`is_unsealed` finds them); :func:`migrate_store` adds the
checksums (and the fields they predate, with the values they had) to them (``migrate_pair``).
A record that does not verify is damaged (``records.read_pair``): it counts as missing, and the
next run that needs it (``binn sweep``) trains it again; ``binn status``, ``binn sweep`` and
``binn migrate`` say so in the same words (``records.missing_words``).
"""
from __future__ import annotations

import os
from pathlib import Path

from . import records, stores
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
    alone, unstamped (they count as missing: ``binn sweep`` trains them again).  Returns {path of the .json:
    outcome}, the outcome "current", "migrated", "damaged: <why>" or "failed: <why>"."""
    root = Path(results_dir or stores.default_results_dir())
    out = {}
    for js in _json_files(root):
        npz = js.with_suffix(".npz")
        if js.name.startswith(".") or (js.parent.name not in ("runs", "checkpoints") and not npz.exists()):
            continue  # a temporary file, or a JSON file that is not half of a stored pair
        out[str(js)] = migrate_pair(npz, js, _legacy_fields, kind=_kind_in(js))
    return out


def _kind_in(js: Path):
    """The kind a record in this place must be: a setting's in ``runs/``, elsewhere by its content."""
    return SETTING_KIND if js.parent.name == "runs" else None


def is_unsealed(js) -> bool:
    """Whether ``js`` (with its ``.npz`` beside it) is an unsealed record: one without its
    whole-record checksum that passes every other check, its arrays included, so that
    ``binn migrate`` seals it (``records.UnsealedRecordError``).  A record that does not verify
    is not: it is damaged, and trained again."""
    js = Path(js)
    try:
        records.read_pair(js.with_suffix(".npz"), js, load_arrays=False, kind=_kind_in(js))
    except records.UnsealedRecordError:
        return True
    except (records.DamagedRecordError, FileNotFoundError):
        pass
    return False


def unsealed_words(n: int, results_dir=None) -> str:
    """Why ``n`` unsealed records stop training (``binn sweep``, ``load_or_run``): training them
    again would write over records ``binn migrate`` verified and can keep."""
    where = "" if results_dir is None else f" --results-dir {results_dir}"
    return (f"{n} stored record(s) have no checksum (written before whole-record checksums) and are not read; "
            f"their arrays verify: `binn migrate{where}` seals them")


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


def migrate_pair(npz, js, fill=None, kind=None) -> str:
    """Bring one pair to ``records.STORE_FORMAT`` without touching its arrays, only if it verifies
    (``records.read_pair`` with ``kind``: its name is the hash of its specification, it has its kind's
    fields, its arrays match their checksum or pass the zip's CRC check).  ``fill(record)`` (optional)
    gives fields with the values records had before the field existed; those the record lacks are
    added.  A record whose numbers do not match its arrays (its kind's ``verify``: an edit a missing
    checksum cannot show) is damaged, never sealed.  Returns "current"
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
