"""Where a stored result comes from: the commit of the code (with the hash of any change not
committed), a fingerprint of the code that can change a stored number
(:data:`NUMERIC_SOURCES`), the versions and the machine (:func:`provenance`: written into
every stored record)."""
from __future__ import annotations

import hashlib
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

from .records import sha256_bytes

#: The package's modules whose code can change a stored number (training, evaluation, the
#: benchmarks and their data); :func:`source_fingerprint` hashes them.  Presentation,
#: analysis and the command line are left out: they read records, they do not make them.
#: Paths relative to the package: every module of the engine and the store layers.
NUMERIC_SOURCES = ("engine/layout.py", "engine/networks.py", "engine/losses.py", "engine/runs.py",
                   "engine/kernels.py", "engine/sampling.py", "engine/training.py", "engine/forward_solve.py",
                   "engine/solvers.py", "engine/problems.py", "engine/observations.py", "engine/metrics.py",
                   "engine/evaluation.py", "engine/first_use.py", "engine/solve_workers.py",
                   "store/records.py", "store/provenance.py", "store/fits.py", "store/sweep_record.py",
                   "store/setting.py", "store/compute.py", "store/clusters.py", "store/runner.py", "store/loading.py",
                   "store/migration.py", "store/stores.py")


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


def cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else the platform's processor: float32
    kernels round differently on different CPUs even with the same vector instructions."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance() -> dict:
    """Where a stored result comes from: the commit (with the hash of any uncommitted change
    to tracked files), the fingerprint of the numeric sources, the versions and the machine
    (its CPU model too)."""
    import scipy
    import torch
    return {**work_tree_state(), "source_sha256": source_fingerprint(), "python": platform.python_version(),
            "torch": torch.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "machine": platform.machine(), "processor": platform.processor() or platform.machine(),
            "cpu": cpu_model(), "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
