"""Stored pairs of files: ``<name>.npz`` (arrays) and ``<name>.json`` (a record describing them).

Both the results store (``sweeps``) and the cached own-data fits (``user_data``) keep their
results as such pairs.  This module writes and checks them:

*Writing* (:func:`write_pair`).  The arrays go to a uniquely named temporary file in the
same folder, which is flushed to disk (``fsync``) and renamed over ``<name>.npz``; then
the record, with the SHA-256 of the ``.npz`` bytes (``npz_sha256``) and the store format
(``store_format``), is written the same way to ``<name>.json``, last.  Temporary names are
unique (two sweeps writing into one store never take each other's file), and the pair is
written under an exclusive lock of the folder (where the platform has ``fcntl``), so two
writers of the same pair leave one writer's complete pair, never a mixture.  A writer
killed at any point leaves either the old pair, or a pair whose checksum does not match
(treated as missing), plus at most a hidden ``.<name>.*.tmp`` file.

*Checking* (:func:`read_pair`, :func:`check_pair`).  A pair is *damaged* when its JSON
does not parse or is not a record, its ``.npz`` is missing, or the ``.npz`` bytes do not
match the stored checksum; :class:`DamagedRecordError` then names the file and what is
wrong.  A record written before checksums existed (no ``npz_sha256``, store format 1) is
accepted when its ``.npz`` is a readable zip archive whose every member passes the zip
format's own CRC-32 check; :func:`migrate_pair` (``binn migrate``) adds the checksum to
such records without touching the arrays.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np

STORE_FORMAT = 2
"""Version of the stored pair (not of what the numbers mean, so not part of any key):
1 = no checksum; 2 = ``npz_sha256`` (SHA-256 of the .npz bytes) in every record."""

CHECKSUM_FIELD = "npz_sha256"
FORMAT_FIELD = "store_format"


class DamagedRecordError(RuntimeError):
    """A stored pair that cannot be trusted (the message names the file and the reason)."""


class StoreWarning(UserWarning):
    """A damaged stored pair was found and is treated as missing (it will be recomputed)."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def _folder_lock(folder: Path):
    """Exclusive lock of ``folder`` while a pair is written (a no-op without ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: unique temporary names only
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _fsync_folder(folder: Path):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _atomic_write(path: Path, data: bytes):
    """``path`` gets ``data`` or keeps what it had: unique temporary file, fsync, rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def json_bytes(record: dict) -> bytes:
    return json.dumps(record, indent=1, sort_keys=True).encode()


def write_pair(npz, js, arrays: dict, record: dict) -> dict:
    """Write ``arrays`` (compressed .npz) and then ``record`` (.json) atomically.

    Returns the record as written, with ``npz_sha256`` and ``store_format`` added.
    ``record`` must already be JSON-clean (no NaN, no numpy scalars).
    """
    npz, js = Path(npz), Path(js)
    npz.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    data = buf.getvalue()
    record = {**record, CHECKSUM_FIELD: sha256_bytes(data), FORMAT_FIELD: STORE_FORMAT}
    text = json_bytes(record)
    with _folder_lock(npz.parent):
        _atomic_write(npz, data)
        _atomic_write(js, text)
        _fsync_folder(npz.parent)
    return record


def _damaged(path: Path, why: str) -> DamagedRecordError:
    return DamagedRecordError(f"damaged stored result {path}: {why}")


def _read_record(js: Path) -> dict:
    try:
        record = json.loads(js.read_text())
    except UnicodeDecodeError as err:
        raise _damaged(js, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise _damaged(js, f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}; "
                           "truncated or overwritten?)") from None
    if not isinstance(record, dict):
        raise _damaged(js, f"the JSON holds a {type(record).__name__}, not a record")
    return record


def _check_legacy_zip(npz: Path, data: bytes):
    """A record without checksum: the .npz must be a zip whose members pass their CRC-32."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            bad = z.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise _damaged(npz, f"not a readable .npz archive ({type(err).__name__}: {err})") from None
    if bad is not None:
        raise _damaged(npz, f"member {bad!r} fails its CRC check")


def read_pair(npz, js, *, load_arrays: bool = True):
    """``(record, arrays)`` of a checked pair (``arrays`` is None without ``load_arrays``).

    Raises FileNotFoundError if neither file exists (nothing stored) and
    :class:`DamagedRecordError` (naming the file) if the pair is damaged.
    """
    npz, js = Path(npz), Path(js)
    if not js.exists():
        if npz.exists():
            raise _damaged(js, f"missing (its arrays {npz.name} exist: an interrupted write?)")
        raise FileNotFoundError(f"nothing stored as {js} / {npz.name}")
    record = _read_record(js)
    try:
        data = npz.read_bytes()
    except FileNotFoundError:
        raise _damaged(npz, f"missing (the record {js.name} exists)") from None
    stored = record.get(CHECKSUM_FIELD)
    if stored is not None:
        if sha256_bytes(data) != stored:
            raise _damaged(npz, f"its SHA-256 does not match the checksum in {js.name} "
                                "(truncated, overwritten or from another run)")
    else:
        _check_legacy_zip(npz, data)
    if not load_arrays:
        return record, None
    try:
        with np.load(io.BytesIO(data)) as f:
            arrays = {k: f[k] for k in f.files}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise _damaged(npz, f"cannot be read ({type(err).__name__}: {err})") from None
    return record, arrays


def check_pair(npz, js, *, warn: bool = True) -> dict | None:
    """The record of a sound stored pair; None if nothing is stored or the pair is damaged
    (then, with ``warn``, a :class:`StoreWarning` names the file: it will be recomputed)."""
    try:
        return read_pair(npz, js, load_arrays=False)[0]
    except FileNotFoundError:
        return None
    except DamagedRecordError as err:
        if warn:
            warnings.warn(f"{err}; treated as missing (it will be recomputed)", StoreWarning, stacklevel=2)
        return None


def migrate_pair(npz, js, fill=None) -> str:
    """Bring one pair to :data:`STORE_FORMAT` without touching its arrays.

    ``fill(record)`` (optional) gives fields with the values records had before the field
    existed; those the record lacks are added.  Returns "current" (already has a matching
    checksum), "migrated" (checksum, store format and missing fields added) or
    "damaged: <why>" (left as it is: it is treated as missing and recomputed by the next
    run that needs it).
    """
    npz, js = Path(npz), Path(js)
    try:
        record, _ = read_pair(npz, js, load_arrays=False)
    except (DamagedRecordError, FileNotFoundError) as err:
        return f"damaged: {err}"
    if record.get(CHECKSUM_FIELD) is not None and record.get(FORMAT_FIELD) == STORE_FORMAT:
        return "current"
    data = npz.read_bytes()
    new = {**(fill(record) if fill else {}), **record,
           CHECKSUM_FIELD: sha256_bytes(data), FORMAT_FIELD: STORE_FORMAT}
    with _folder_lock(js.parent):
        if npz.read_bytes() != data:  # rewritten meanwhile by a sweep: that one is current
            return "current"
        _atomic_write(js, json_bytes(new))
        _fsync_folder(js.parent)
    return "migrated"


def check_writable(folder) -> Path:
    """Create ``folder`` (and parents) if needed and make sure files can be written there.

    Raises ValueError naming the folder (it is a file, lies under a file, or is not
    writable); cheap, so callers check before any expensive work.
    """
    folder = Path(folder)
    for p in [folder, *folder.parents]:
        if p.exists() and not p.is_dir():
            where = "is a file" if p == folder else f"lies under {p}, which is a file"
            raise ValueError(f"cannot store results in {folder}: it {where}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-test.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ValueError(f"cannot store results in {folder}: {err.strerror or err}") from None
    return folder


# ----------------------------------------------------------------------------- store policy
#: Set to "1" (``make book`` does) to make a missing stored result an error instead of a
#: training run: the book is then built from the committed results only.
REQUIRE_STORED_ENV = "BINN_REQUIRE_STORED"
#: The committed store's manifest: which training scale each study's committed results used.
MANIFEST = "manifest.json"


def require_stored() -> bool:
    """Whether a missing result must be an error (``BINN_REQUIRE_STORED=1``), not trained."""
    return os.environ.get(REQUIRE_STORED_ENV) == "1"


def read_manifest(folder) -> dict:
    """The manifest of the store in ``folder``: ``scales`` (study -> the scale of its
    committed results), ``supporting`` (the scales of the Supporting Material repeats,
    largest first) and ``variants`` (a study variant -> its scale)."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise FileNotFoundError(f"{path}: no manifest of the committed results")
    return json.loads(path.read_text())
