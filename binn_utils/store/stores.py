"""Where the results stores lie, what the committed one's manifest says, and whether a missing
result may be trained (the pairs themselves, named, written and checked: :mod:`binn_utils.store.records`).

Results are read from the committed store (``results/``) and then the working store
(``out/results``); what neither holds is trained into the working store, so a rerun never writes into
the committed results (:func:`stores_for`).  ``BINN_REQUIRE_STORED=1`` (set by ``make book``;
:func:`require_stored`) turns a missing or damaged stored result, a run or a fit, into an error instead
of a training run (:func:`check_may_train`), so the book is always built from the committed results.
The committed store's manifest (``manifest.json``: :func:`read_manifest`) records the training scale
of each study's committed results (:func:`committed_scale`), their datasets and seeds
(``committed_*``).  A folder that is to hold a store is checked before anything is written
(:func:`check_folder_path`, :func:`check_writable`).
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

#: Set to "1" (``make book`` does) to make a missing stored result an error instead of a
#: training run: the book is then built from the committed results only.
REQUIRE_STORED_ENV = "BINN_REQUIRE_STORED"
#: The committed store's manifest: which training scale each study's committed results used.
MANIFEST = "manifest.json"


def require_stored() -> bool:
    """Whether a missing result must be an error (``BINN_REQUIRE_STORED=1``), not trained."""
    return os.environ.get(REQUIRE_STORED_ENV) == "1"


#: What a manifest must hold (its "about" says what each means): a key and the type of its value;
#: the keys marked False may be absent.
MANIFEST_FIELDS = {"scales": (dict, True), "default": (str, True), "variants": (dict, False),
                   "supporting": (list, False), "datasets": (dict, False), "authors_data": (dict, False),
                   "dense_datasets": (dict, False), "distinct_seeds": (dict, False)}
#: The training scales a manifest may name (``studies.base.SCALES``; a test keeps the two equal).
MANIFEST_SCALES = ("quick", "lite", "book", "paper")


def _manifest_value_defect(m: dict) -> str | None:
    """What is wrong with the values of manifest ``m`` (its keys and their types checked before):
    a scale that is not one, a count of datasets that is not a positive integer, a list of
    studies that is not one; None where nothing is."""
    scales = {**{f"scales.{k}": v for k, v in m["scales"].items()}, "default": m["default"],
              **{f"variants.{k}": v for k, v in m.get("variants", {}).items()},
              **{f"supporting[{i}]": v for i, v in enumerate(m.get("supporting", []))}}
    for where, v in scales.items():
        if v not in MANIFEST_SCALES:
            return f"names {v!r} as {where}, not a scale ({', '.join(MANIFEST_SCALES)})"
    for key in ("datasets", "authors_data", "dense_datasets"):
        for k, v in m.get(key, {}).items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                return f"has {v!r} as {key}.{k}, not a positive number of datasets"
    for k, v in m.get("distinct_seeds", {}).items():
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            return f"has {v!r} as distinct_seeds.{k}, not a list of study names"
    return None


class ManifestError(ValueError):
    """A manifest that cannot be read, or does not hold what a manifest holds (the message names it)."""


def read_manifest(folder) -> dict:
    """The manifest of the store in ``folder`` (its keys: its own "about"); a
    :class:`ManifestError` naming the file where it is not JSON or not a manifest
    (``MANIFEST_FIELDS``), e.g. ``{}`` or ``[]``."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise FileNotFoundError(f"{path}: no manifest of the committed results")
    try:
        m = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ManifestError(f"{path}, the manifest of the committed results, cannot be read "
                            f"({type(err).__name__}: {err}); restore it from git") from None
    if not isinstance(m, dict):
        raise ManifestError(f"{path}, the manifest of the committed results, holds a {type(m).__name__}, not the "
                            "mapping of a manifest; restore it from git")
    for key, (kind, required) in MANIFEST_FIELDS.items():
        if (required and key not in m) or (key in m and not isinstance(m[key], kind)):
            raise ManifestError(f"{path}, the manifest of the committed results, "
                                + (f"lacks {key!r}" if key not in m else
                                   f"has a {type(m[key]).__name__} as {key!r}, not a {kind.__name__}")
                                + "; restore it from git")
    defect = _manifest_value_defect(m)
    if defect:
        raise ManifestError(f"{path}, the manifest of the committed results, {defect}; restore it from git")
    return m


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
    """``stores_for(scale, source)``'s folders with ``sub`` appended (in the order read)."""
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
    committed store's manifest (its ``default`` for a study it does not list)."""
    m = read_manifest(default_results_dir())
    return {**m["scales"], **m.get("variants", {})}.get(name, m["default"])


def committed_datasets(name: str, data: str = "ours") -> int | None:
    """The number of datasets of the committed main-text results of study ``name`` (its paper
    figure's configuration), from the manifest's ``datasets``; None for a study it does not list
    (the study's own number: one, or the noise study's).  ``data="authors"``: the splits of the
    authors' rebuilt data it is stored on (``authors_data``); ``"dense"``: our datasets on the
    351-point grid at the committed scale (``dense_datasets``); None where none."""
    key = {"ours": "datasets", "authors": "authors_data", "dense": "dense_datasets"}[data]
    return read_manifest(default_results_dir()).get(key, {}).get(name)


def committed_distinct_seeds(name: str, data: str = "ours") -> bool:
    """Whether the committed results of study ``name`` on ``data`` ("ours": its main text;
    "authors": its runs on the authors' data; "dense": on the 351-point grid) give each dataset
    its own initialisation seeds (``setting.replicates(distinct=True)``), from the manifest's
    ``distinct_seeds``: {data: [study, ...]}."""
    return name in read_manifest(default_results_dir()).get("distinct_seeds", {}).get(data, [])


def committed_supporting_scales() -> tuple:
    """The scales of the committed Supporting Material repeats, largest first."""
    return tuple(read_manifest(default_results_dir())["supporting"])


def check_folder_path(folder, what: str = "store results in") -> Path:
    """``folder`` as a Path; a ValueError naming it where it is a file or lies under one (no
    folder can be made there), checked without creating anything."""
    folder = Path(folder)
    for p in [folder, *folder.parents]:
        if p.exists() and not p.is_dir():
            where = "is a file" if p == folder else f"lies under {p}, which is a file"
            raise ValueError(f"cannot {what} {folder}: it {where}")
    return folder


def check_store_root(folder, what: str = "store results in") -> Path:
    """:func:`check_folder_path` of a store given by its user (``--results-dir``), and a ValueError
    where it is a store's ``runs/`` folder instead (its records were read as none)."""
    folder = check_folder_path(folder, what)
    if folder.name == "runs" and not (folder / "runs").exists() and next(folder.glob("*.json"), None) is not None:
        raise ValueError(f"cannot {what} {folder}: it is a store's runs/ folder (it holds the records); give the "
                         f"store itself, {folder.parent}")
    return folder


def check_writable(folder, create: bool = True) -> Path:
    """Create ``folder`` (and parents) if needed and make sure files can be written there: a cheap
    ValueError naming it where it is a file, lies under a file, or is not writable.  Without
    ``create`` (a dry run) nothing is created: the folder, or the nearest of its parents that
    exists, must be writable."""
    folder = check_folder_path(folder)
    if not create:
        existing = next(p for p in [folder, *folder.parents] if p.exists())
        if not os.access(existing, os.W_OK | os.X_OK):
            raise ValueError(f"cannot store results in {folder}: {existing} is not writable")
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-test.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ValueError(f"cannot store results in {folder}: {err.strerror or err}") from None
    return folder
