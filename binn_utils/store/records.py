"""The results store: stored pairs of files, where they live, and whether a missing one may be trained.

Both the runs of the sweeps (``sweeps``) and the cached own-data fits (``user_data``) keep
their results as pairs ``<key>.npz`` (arrays) and ``<key>.json`` (a record describing
them), named by :func:`key_of` (a prefix and a hash of everything that determines the
numbers).  This module writes and checks them, and holds the store policy (below).

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

*Policy.*  Results are read from the committed store (``results/``) and then the working
store (``out/results``); what neither holds is trained into the working store, so a rerun
never writes into the committed results (:func:`stores_for`).  ``BINN_REQUIRE_STORED=1``
(set by ``make book``; :func:`require_stored`) turns a missing or damaged stored result,
a run or a fit, into an error instead of a training run (:func:`check_may_train`), so the
book is always built from the committed results.  The committed store's manifest records
the training scale of each study's committed results (:func:`committed_scale`).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
import subprocess
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ..engine.training import HISTORY_KEYS, TrainConfig, TrainResult, build_layout

STORE_FORMAT = 2
"""Version of the stored pair (not of what the numbers mean, so not part of any key):
1 = no checksum; 2 = ``npz_sha256`` (SHA-256 of the .npz bytes) in every record."""

CHECKSUM_FIELD = "npz_sha256"
FORMAT_FIELD = "store_format"


class DamagedRecordError(RuntimeError):
    """A stored pair that cannot be trusted (the message names the file and the reason)."""


class StoreWarning(UserWarning):
    """A damaged stored pair was found and is treated as missing (it will be recomputed)."""


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


def default_results_dir() -> Path:
    """The committed store: ``results/`` of the repository."""
    return Path(__file__).resolve().parents[2] / "results"


def results_dir_for(scale: str, source=None) -> Path:
    """The store a training scale belongs to: the committed one, or for quick runs out/results-quick
    (``source``, a folder: that folder instead)."""
    if source:
        return Path(source)
    root = default_results_dir()
    return root.parent / "out" / "results-quick" if scale == "quick" else root


def working_dir() -> Path:
    """The working store: what a notebook trains because the committed store lacks it."""
    return default_results_dir().parent / "out" / "results"


def stores_for(scale: str, source=None) -> list[Path]:
    """Where results are read, in order; the last is where missing ones are trained.

    The committed store and then the working store (``working_dir``): a rerun reads the
    committed results but never writes into them.  With ``BINN_REQUIRE_STORED=1`` only the
    committed store counts; quick runs and an explicit ``source`` use that one folder."""
    here = results_dir_for(scale, source)
    if source or scale == "quick" or require_stored():
        return [here]
    return [here, working_dir()]


def folders_for(scale: str, source=None, sub: str = "") -> list[Path]:
    """``stores_for(scale, source)``'s folders with ``sub`` appended (e.g. where cached fits
    of one kind are read, in order; the last is where a missing one is trained)."""
    return [d / sub for d in stores_for(scale, source)]


def check_may_train(missing, where, what: str, hint: str, require: bool | None = None):
    """Raise a RuntimeError if results named ``missing`` (not stored in ``where``, or damaged)
    must not be trained here: ``require`` (default: :func:`require_stored`) is true."""
    missing = list(missing)
    if require is None:
        require = require_stored()
    if not missing or not require:
        return
    names = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
    why = f"{REQUIRE_STORED_ENV}=1" if require_stored() else "require_stored=True"
    raise RuntimeError(f"{len(missing)} {what} not in the results store {where} (missing or damaged: {names}) "
                       f"and {why} forbids training here; {hint}")


def committed_scale(name: str) -> str:
    """The training scale of the committed results of study (or variant) ``name``, from the
    committed store's manifest."""
    m = read_manifest(default_results_dir())
    return {**m["scales"], **m.get("variants", {})}[name]


def committed_supporting_scales() -> tuple:
    """The scales of the committed Supporting Material repeats, largest first."""
    return tuple(read_manifest(default_results_dir())["supporting"])


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


#: The package's modules whose code can change a stored number (training, evaluation, the
#: benchmarks and their data); :func:`source_fingerprint` hashes them.  Presentation,
#: analysis and the command line are left out: they read records, they do not make them.
#: Paths relative to the package: every module of the engine and the store layers.
NUMERIC_SOURCES = ("engine/networks.py", "engine/losses.py", "engine/training.py", "engine/forward_solve.py",
                   "engine/solvers.py", "engine/problems.py", "engine/observations.py", "engine/metrics.py",
                   "engine/evaluation.py", "store/sweeps.py", "store/records.py", "store/sweep_record.py")


def _package_root() -> Path:
    return Path(__file__).resolve().parents[1]


def source_fingerprint(root: Path | None = None) -> str:
    """SHA-256 over the names and bytes of the package's :data:`NUMERIC_SOURCES`: names the
    code that computed a record even where the commit cannot (a modified work tree, a copy
    of the tree without its history)."""
    root = _package_root() if root is None else Path(root)
    h = hashlib.sha256()
    for name in sorted(NUMERIC_SOURCES):
        h.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return h.hexdigest()


def _git(*args) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, cwd=_package_root(),
                          timeout=10, check=True).stdout


def work_tree_state() -> dict:
    """The commit of the package's checkout and whether tracked files differ from it: {"commit",
    "dirty_worktree" (None outside a git checkout), "diff_sha256" (SHA-256 of ``git diff HEAD``
    of the tracked files when dirty, else None)}."""
    try:
        commit = _git("rev-parse", "HEAD").strip() or "unknown"
        dirty = _git("status", "--porcelain", "--untracked-files=no").strip() != ""
        diff = sha256_bytes(_git("diff", "HEAD", "--binary").encode()) if dirty else None
    except (OSError, subprocess.SubprocessError):
        commit, dirty, diff = "unknown", None, None
    return {"commit": commit, "dirty_worktree": dirty, "diff_sha256": diff}


def names_its_code(prov: dict) -> bool:
    """Whether a stored record's provenance (:func:`provenance`) names the code that computed
    it: a commit of a clean work tree, or the fingerprint of the numeric sources
    (:func:`source_fingerprint`)."""
    prov = prov or {}
    return bool(prov.get("source_sha256")) or (prov.get("dirty_worktree") is False
                                               and prov.get("commit", "unknown") != "unknown")


def provenance() -> dict:
    """Where a stored result comes from: the commit (with the hash of any uncommitted change
    to tracked files), the fingerprint of the numeric sources, the versions and the machine."""
    import scipy
    import torch
    return {**work_tree_state(), "source_sha256": source_fingerprint(), "python": platform.python_version(),
            "torch": torch.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "machine": platform.machine(), "processor": platform.processor() or platform.machine(),
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def save_train_result(result, path_npz, path_json, spec: dict | None = None) -> dict:
    """Store trained networks (a ``TrainResult``: parameters, histories, statuses) as a pair
    (:func:`write_pair`), with ``spec`` (what determines them) in the record."""
    arrays = {"final": result.final, "best": result.best, "best_epoch": result.best_epoch,
              "seeds": result.seeds, "weights": result.weights, "lr": result.lr,
              "diverged_epoch": result.diverged_epoch}
    for k in HISTORY_KEYS:  # loss curves in single precision (they are only looked at)
        arrays[f"hist_{k}"] = np.asarray(result.history[k], dtype=np.float32)
    record = {"spec": spec or {}, "config": result.config.to_dict(), "mechanisms": list(result.mechanisms),
              "status": list(result.status), "epochs_run": int(result.epochs_run),
              "steps_per_epoch": int(result.steps_per_epoch), "wall_time_s": float(result.wall_time_s),
              "extra": dict(result.extra), "layout": result.layout.to_dict(), "provenance": provenance()}
    return write_pair(path_npz, path_json, arrays, clean_json(record))


def load_train_result(path_npz, path_json) -> TrainResult:
    """The ``TrainResult`` stored by :func:`save_train_result` (exact float64 parameters);
    :class:`DamagedRecordError` naming the file if the stored pair is damaged."""
    rec, a = read_pair(path_npz, path_json)
    config = TrainConfig.from_dict(rec["config"])
    mech = tuple(rec["mechanisms"])
    return TrainResult(layout=build_layout(config, mech), config=config, seeds=a["seeds"], mechanisms=mech,
                       final=a["final"], best=a["best"], best_epoch=a["best_epoch"],
                       history={k: a[f"hist_{k}"].astype(np.float64) for k in HISTORY_KEYS}, weights=a["weights"],
                       lr=a["lr"], status=list(rec["status"]), diverged_epoch=a["diverged_epoch"],
                       epochs_run=int(rec["epochs_run"]), steps_per_epoch=int(rec["steps_per_epoch"]),
                       wall_time_s=float(rec["wall_time_s"]), extra=dict(rec.get("extra", {})))
