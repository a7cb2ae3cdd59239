"""The results store's stored pairs of files: how they are named, written and checked.

Both the runs of the sweeps (``runner``) and the cached own-data fits (``fits``) keep
their results as pairs ``<key>.npz`` (arrays) and ``<key>.json`` (a record describing
them), named by :func:`key_of` (a prefix and a hash of everything that determines the
numbers).  This module writes and checks them; where the stores lie, their manifest and
whether a missing pair may be trained are :mod:`binn_utils.store.stores`'.

*Writing* (:func:`write_pair`).  The arrays and then the record, with the SHA-256 of the ``.npz`` bytes
(``npz_sha256``), the store format (``store_format``) and the SHA-256 of the record itself
(``record_sha256``, over its canonical JSON without that field: the whole record, arrays' checksum
included), go to uniquely named temporary files in the same folder, flushed to disk (``fsync``); only
when both are written are they renamed over ``<name>.npz`` and then ``<name>.json``, so that a full
disk leaves the pair as it was (never an ``.npz`` without its ``.json``).  Files get the permissions the
umask gives new files (as every other output).  Temporary names are unique (two sweeps writing into one
store never take each other's file), and the pair is written under an exclusive lock of the folder
(where the platform has ``fcntl``), so two writers of the same pair leave one writer's complete pair,
never a mixture.  A writer killed at any point leaves either the old pair, or a damaged one (treated
as missing), plus at most a hidden ``.<name>.*.tmp`` file.

*Checking* (:func:`read_pair`, :func:`check_pair`: the one check that loading, ``binn
status``, ``binn sweep`` and ``binn migrate`` apply).  A record is trusted only if it is
whole and is what its name says.  A pair is *damaged* when its JSON does not parse or is
not a record, its content does not match ``record_sha256``, it lacks a field its kind
requires (:class:`RecordKind`, whatever its store format; :func:`require_fields`), its name
is not the hash of the specification it holds (a pair copied over another's names), its
``.npz`` is missing, the ``.npz`` bytes do not match ``npz_sha256``, its numbers do not match its arrays
(its kind's ``verify``), or it has no ``record_sha256`` while its store format has one;
:class:`DamagedRecordError` then names the file and what is wrong, and the pair counts as missing: the
next run that needs it (``binn sweep``) trains it again over it.  A record written before whole-record
checksums (store format 2: ``npz_sha256`` only; format 1: no checksum, the ``.npz`` a zip whose members
pass their CRC-32 check) that passes every other check is *unsealed* (:class:`UnsealedRecordError`):
it is read by :func:`~binn_utils.store.migration.migrate_pair` (``binn migrate``) alone, which adds
the checksums without touching the arrays, and never trained over.  So every record is sound, unsealed
(``binn migrate`` seals it) or damaged (``binn sweep`` trains it again): each state has its one command.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

# Their home is ``stores``; ``presentation.rerun_box`` still imports them from here (its import
# moves to ``stores`` with that module's next change, and these two lines go).

STORE_FORMAT = 3
"""Version of the stored pair (not of what the numbers mean, so not part of any key):
1 = no checksum; 2 = ``npz_sha256`` (SHA-256 of the .npz bytes) in every record;
3 = also ``record_sha256`` (SHA-256 of the record's canonical JSON without that field)."""

CHECKSUM_FIELD = "npz_sha256"
RECORD_CHECKSUM_FIELD = "record_sha256"
FORMAT_FIELD = "store_format"


class DamagedRecordError(RuntimeError):
    """A stored pair that cannot be trusted (the message names the file and the reason)."""


class UnsealedRecordError(DamagedRecordError):
    """A record of an older store format, without its checksum, that passes every other check (its
    arrays verify): not read until ``binn migrate`` seals it, never trained over."""


class StoreWarning(UserWarning):
    """A damaged stored pair was found: treated as missing and recomputed, or, unsealed, left unread."""


def key_of(prefix: str, spec: dict) -> str:
    """``<prefix>-<12 hex digits of the SHA-1 of spec>``: the name a result is stored under
    (``spec``: JSON-serialisable, everything that determines the stored numbers)."""
    digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
    return f"{prefix}-{digest}"


def pair_paths(folder, key: str) -> tuple[Path, Path]:
    """The two files of the pair stored as ``key`` in ``folder``: (.npz, .json)."""
    folder = Path(folder)
    return folder / f"{key}.npz", folder / f"{key}.json"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def folder_lock(folder: Path):
    """Exclusive lock of ``folder`` while a pair is written (a no-op without ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: unique temporary names only
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:     # another process holds it: say so, then wait (not in silence)
            warnings.warn(StoreWarning(f"waiting for the lock of {folder}, held by another process (another "
                                       "sweep or fit writing into this store?); Ctrl-C stops"), stacklevel=3)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def fsync_folder(folder: Path):
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


def umask() -> int:
    """The process's umask (read without changing it for longer than the call)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_temporary(path: Path, data: bytes) -> str:
    """``data`` in a new uniquely named hidden file beside ``path``, flushed to disk (``fsync``);
    returns its name (removed again if writing fails, e.g. a full disk).  The file gets the
    permissions the umask gives a new file (``mkstemp`` alone: 0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with contextlib.suppress(AttributeError, NotImplementedError):  # not POSIX
            os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: Path, data: bytes):
    """``path`` gets ``data`` or keeps what it had: unique temporary file, fsync, rename."""
    tmp = write_temporary(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def json_bytes(record: dict) -> bytes:
    return json.dumps(record, indent=1, sort_keys=True).encode()


def record_sha256(record: dict) -> str:
    """SHA-256 of a record's canonical JSON (sorted keys, no spaces) without ``record_sha256``:
    the record's content, the arrays' checksum included."""
    body = {k: v for k, v in record.items() if k != RECORD_CHECKSUM_FIELD}
    return sha256_bytes(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def seal(record: dict, npz_sha256: str) -> dict:
    """``record`` with the arrays' checksum, the store format and its own checksum."""
    record = {k: v for k, v in record.items() if k != RECORD_CHECKSUM_FIELD}
    record.update({CHECKSUM_FIELD: npz_sha256, FORMAT_FIELD: STORE_FORMAT})
    return {**record, RECORD_CHECKSUM_FIELD: record_sha256(record)}


@dataclass(frozen=True)
class RecordKind:
    """What a stored record of one kind must hold: the ``fields`` every such record has had
    since the first was stored, and ``name(record, stem)``, the name it must be stored under
    (computed from the specification it holds; ``stem``: the name it is stored under, for a
    prefix the specification does not determine).  ``marker``: a field that only records of
    this kind have (None: the kind of records that match no other, see :func:`kind_of`).
    ``verify(record, npz bytes)``: why the record's numbers do not match its arrays, or None (an
    edit that a record without its checksum cannot show otherwise; None: nothing to compare)."""

    what: str
    fields: tuple
    name: Callable[[dict, str], str]
    marker: str | None = None
    verify: Callable[[dict, bytes], str | None] | None = None


#: Kinds of stored records, tried in order by :func:`kind_of` (modules that store records
#: of a kind add theirs: ``setting`` the settings' and the checkpoints', ``fits`` the fits').
KINDS: list = []


def kind_of(record: dict) -> RecordKind:
    """The kind of a stored record: the first of :data:`KINDS` whose marker it holds, else
    the one without marker."""
    for kind in KINDS:
        if kind.marker is not None and kind.marker in record:
            return kind
    for kind in KINDS:
        if kind.marker is None:
            return kind
    raise LookupError("no kind of record is known for it")


def write_pair(npz, js, arrays: dict, record: dict) -> dict:
    """Write ``arrays`` (compressed .npz) and then ``record`` (.json) atomically, all or nothing:
    both files are written to temporary files first and only then renamed into place, the
    ``.npz`` first; a failure before the renames (a full disk, Ctrl-C) leaves the pair as it was,
    and if the record's rename fails after the arrays', the arrays it had are put back (none: the
    new ``.npz`` is removed), so that no ``.npz`` is left without its ``.json``.

    Returns the record as written, with ``npz_sha256``, ``store_format`` and ``record_sha256``
    added (:func:`seal`).
    ``record`` must already be JSON-clean (no NaN, no numpy scalars).
    """
    npz, js = Path(npz), Path(js)
    npz.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    data = buf.getvalue()
    record = seal(record, sha256_bytes(data))
    text = json_bytes(record)
    with folder_lock(npz.parent):
        tmp_npz = write_temporary(npz, data)
        try:
            tmp_js = write_temporary(js, text)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_npz)
            raise
        old = f"{tmp_npz}.old"            # the arrays replaced, kept until the record is in place
        try:
            try:
                os.link(npz, old)
            except OSError:
                old = None
            os.replace(tmp_npz, npz)
            try:
                os.replace(tmp_js, js)
            except BaseException:                 # the older pair back, or none: never a half pair
                with contextlib.suppress(OSError):
                    os.replace(old, npz) if old else npz.unlink()
                raise
        finally:
            for tmp in (tmp_npz, tmp_js, old):
                with contextlib.suppress(OSError, TypeError):
                    os.unlink(tmp)
        fsync_folder(npz.parent)
    return record


def _damaged(path: Path, why: str, error=DamagedRecordError) -> DamagedRecordError:
    return error(f"damaged stored result {path}: {why}")


def _read_record(js: Path) -> dict:
    try:
        record = json.loads(js.read_text())
    except OSError as err:                       # e.g. a record this user may not read
        raise _damaged(js, f"cannot be read ({err.strerror or err})") from None
    except UnicodeDecodeError as err:
        raise _damaged(js, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise _damaged(js, f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}; "
                           "truncated or overwritten?)") from None
    if not isinstance(record, dict):
        raise _damaged(js, f"the JSON holds a {type(record).__name__}, not a record")
    return record


def require_fields(record: dict, fields, what: str, where):
    """Raise :class:`DamagedRecordError` naming ``where`` unless ``record`` holds every one of
    ``fields`` (the fields a record of kind ``what`` must have): the one check that a stored
    record is whole, whether the store checks a pair or a record is read into its type."""
    lacks = [f for f in fields if f not in record]
    if lacks:
        raise _damaged(where, f"not a whole {what} record: it lacks {', '.join(lacks)}")


def _check_legacy_zip(npz: Path, data: bytes):
    """A record without checksum: the .npz must be a zip whose members pass their CRC-32."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            bad = z.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise _damaged(npz, f"not a readable .npz archive ({type(err).__name__}: {err})") from None
    if bad is not None:
        raise _damaged(npz, f"member {bad!r} fails its CRC check")


def _verify_record(js: Path, record: dict, kind) -> RecordKind:
    """Raise :class:`DamagedRecordError` unless ``record`` (the JSON of ``js``) is whole and is
    what its name says: its own checksum (or none, below format 3), the fields of its kind, its
    name.  Returns its kind."""
    stored = record.get(RECORD_CHECKSUM_FIELD)
    if stored is not None and stored != record_sha256(record):
        raise _damaged(js, f"its content does not match its checksum {RECORD_CHECKSUM_FIELD} (edited or "
                           "overwritten?)")
    if stored is None and isinstance(record.get(FORMAT_FIELD), int) and record[FORMAT_FIELD] >= 3:
        raise _damaged(js, f"store format {record[FORMAT_FIELD]} without its checksum {RECORD_CHECKSUM_FIELD} "
                           "(the field was removed: what it held cannot be verified)")
    if not isinstance(kind, RecordKind):
        try:
            kind = kind(record) if kind is not None else kind_of(record)
        except LookupError as err:
            raise _damaged(js, str(err)) from None
    require_fields(record, kind.fields, kind.what, js)
    try:
        name = kind.name(record, js.stem)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise _damaged(js, f"its specification cannot be read ({type(err).__name__}: {err})") from None
    if name != js.stem:
        raise _damaged(js, f"it holds the specification of {name}, not of {js.stem} (copied or renamed?)")
    return kind


def read_pair(npz, js, *, load_arrays: bool = True, kind=None, unsealed: bool = False):
    """``(record, arrays)`` of a checked pair (``arrays`` is None without ``load_arrays``).

    ``kind``: the :class:`RecordKind` the record must be (a function of the record giving
    it, or None: :func:`kind_of`).  Raises FileNotFoundError if neither file exists (nothing
    stored) and :class:`DamagedRecordError` (naming the file) if the pair is damaged (module
    docstring); ``unsealed``: a record of an older store format is read (``binn migrate`` only)."""
    npz, js = Path(npz), Path(js)
    if not js.exists():
        if npz.exists():
            raise _damaged(js, f"missing (its arrays {npz.name} exist: an interrupted write?)")
        raise FileNotFoundError(f"nothing stored as {js} / {npz.name}")
    for p in (js, npz):      # a folder; or a named pipe or a device, whose read would block or never end
        if p.exists() and not p.is_file():
            raise _damaged(p, "a folder, not a file" if p.is_dir() else "not a regular file (a named pipe, a socket?)")
    record = _read_record(js)
    kind = _verify_record(js, record, kind)
    try:
        data = npz.read_bytes()
    except FileNotFoundError:
        raise _damaged(npz, f"missing (the record {js.name} exists)") from None
    except OSError as err:
        raise _damaged(npz, f"cannot be read ({err.strerror or err})") from None
    stored = record.get(CHECKSUM_FIELD)
    if stored is not None:
        if sha256_bytes(data) != stored:
            raise _damaged(npz, f"its SHA-256 does not match the checksum in {js.name} "
                                "(truncated, overwritten or from another run)")
    else:
        _check_legacy_zip(npz, data)
    if record.get(RECORD_CHECKSUM_FIELD) is None:     # nothing shows an edit of the record but its arrays
        why = kind.verify(record, data) if kind.verify is not None else None
        if why:
            raise _damaged(js, why)
        if not unsealed:
            raise _damaged(js, f"it has no checksum {RECORD_CHECKSUM_FIELD} (written before whole-record "
                               "checksums), and its arrays verify", UnsealedRecordError)
    if not load_arrays:
        return record, None
    try:
        with np.load(io.BytesIO(data)) as f:
            arrays = {k: f[k] for k in f.files}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise _damaged(npz, f"cannot be read ({type(err).__name__}: {err})") from None
    return record, arrays


def check_pair(npz, js, *, warn: bool = True, kind=None) -> dict | None:
    """The record of a sound stored pair (:func:`read_pair`'s check, ``kind`` as there); None if
    nothing is stored or the pair is damaged (then, with ``warn``, a :class:`StoreWarning`
    names the file and what becomes of it: ``missing_words``)."""
    try:
        return read_pair(npz, js, load_arrays=False, kind=kind)[0]
    except FileNotFoundError:
        return None
    except DamagedRecordError as err:
        if warn:
            then = ("not resumed from: its group trains again from the start" if kind is not None
                    and kind.what == "checkpoint" else missing_words(err))
            warnings.warn(f"{err}; {then}", StoreWarning, stacklevel=2)
        return None


def missing_words(err: DamagedRecordError) -> str:
    """What happens to a record that is not read, and the one command that clears it: damaged,
    it is trained again by the next run that needs it (``binn sweep``); unsealed, ``binn migrate``
    seals it (never trained over)."""
    if isinstance(err, UnsealedRecordError):
        return "not read, nor trained over: `binn migrate` seals it"
    return "treated as missing: the next run that needs it (`binn sweep`) trains it again over it"


def is_sealed(record: dict) -> bool:
    """Whether a record carries the current store format's checksums (else: ``binn migrate``)."""
    return record.get(RECORD_CHECKSUM_FIELD) is not None and record.get(FORMAT_FIELD) == STORE_FORMAT


# ----------------------------------------------------------------------------- records
def clean_json(obj):
    """``obj`` as JSON can hold it: numpy scalars as Python numbers, NaN and inf as None."""
    if isinstance(obj, dict):
        return {k: clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_json(v) for v in obj]
    if isinstance(obj, float) and not np.isfinite(obj):
        return None  # JSON has no NaN; None marks a failed/undefined value
    if isinstance(obj, (np.floating, np.integer)):
        return clean_json(obj.item())
    return obj
