"""Loading stored settings: a :class:`SettingResult`, which store holds a setting, and
:func:`load_or_run` (what a chapter calls: stored results, training only what is missing).

A damaged stored pair (see ``records``) is never trusted: it counts as missing (a warning
names the file) and is rerun, and loading it raises an error naming the file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import records, stores
from .migration import is_unsealed, unsealed_words
from .runner import run_settings
from .setting import SETTING_KIND, Setting
from .sweep_record import SweepRecord, reported


@dataclass
class SettingResult:
    setting: Setting
    record: SweepRecord
    arrays: dict = field(repr=False)

    def metric(self, name: str, which: str | None = None) -> np.ndarray:
        """Per-replicate values of a stored metric, or of one derived from the stored
        arrays (``DERIVED_METRICS``); NaN where undefined (a failed forward solve).
        ``which`` networks (default: ``sweep_record.reported``)."""
        which = which or reported()
        if name in DERIVED_METRICS:
            return DERIVED_METRICS[name](self, which)
        vals = getattr(self.record.metrics[which], name)
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def operator_error(self, op: str, which: str | None = None) -> np.ndarray:
        which = which or reported()
        vals = self.record.metrics[which].operator_errors[op]
        return np.array([np.nan if v is None else v for v in vals], dtype=float)

    def net(self, name: str, which: str | None = None) -> np.ndarray:
        """A stored array of the ``which`` networks (default: ``sweep_record.reported``): ``u_theta``,
        ``u_p`` or ``op_D`` / ``op_V`` / ``op_G``."""
        return self.arrays[f"{which or reported()}_{name}"]

    def up_status(self, which: str | None = None) -> list:
        return list(self.record.metrics[which or reported()].up_status)

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def meta(self) -> dict:
        return self.setting.meta


def _spectral_error(key):
    def err(res: SettingResult, which: str) -> np.ndarray:
        from ..engine.metrics import relative_l2_many
        return relative_l2_many(res.net(key, which), res["u_clean"], norm="spectral")
    return err


#: Metrics computed from the stored arrays on demand: the relative error in the spectral
#: (matrix 2-) norm of the (t, x) matrix, as the authors' Fig. 5 heat map computes it.
DERIVED_METRICS = {"err_u_p_spectral": _spectral_error("u_p"), "err_u_theta_spectral": _spectral_error("u_theta")}


def load_setting(setting: Setting, results_dir=None) -> SettingResult:
    """The stored setting; FileNotFoundError if it is not stored, ``records.DamagedRecordError``
    (naming the file) if its stored pair is damaged (rerun it: a sweep recomputes it)."""
    npz, js = setting.paths(results_dir or stores.default_results_dir())
    try:
        record, arrays = records.read_pair(npz, js, kind=SETTING_KIND)
    except FileNotFoundError:
        raise FileNotFoundError(f"no stored results for {setting.study}/{setting.key}; run it first") from None
    return SettingResult(setting, SweepRecord.from_json(record, js), arrays)


def where_stored(setting: Setting, stores) -> Path | None:
    """The first of ``stores`` holding a sound copy of ``setting`` (None if none does)."""
    return next((d for d in stores if setting.is_done(d)), None)


def missing(settings, scale: str, source=None) -> list:
    """The settings stored in none of the stores ``stores.stores_for(scale, source)``."""
    folders = stores.stores_for(scale, source)
    return [s for s in settings if where_stored(s, folders) is None]


#: The integrator of u_p when a chapter trains what the store lacks (``load_or_run``), by
#: grid: on the 351-point grid RK45 is stability-limited (minutes per solve), and the
#: committed dense paper-scale records use BDF (the same solution to the tolerance).
CHAPTER_FORWARD_METHOD = {False: "RK45", True: "BDF"}


def load_or_run(settings, scale: str, source=None, progress=None, desc="settings", workers=1):
    """Stored results for ``settings``, training (with a progress bar) what is missing into
    the last of ``stores.stores_for(scale, source)`` (where ``stores.check_may_train``
    allows it), its u_p solved by ``CHAPTER_FORWARD_METHOD`` of its grid.  A record without its
    checksum (unsealed) stops it before any training, as it stops ``binn sweep``."""
    folders = stores.stores_for(scale, source)
    todo = [s for s in settings if where_stored(s, folders) is None]
    for d in folders:   # an unsealed record is not read, and training it again would write over it
        n = sum(is_unsealed(s.paths(d)[1]) for s in todo)
        if n:
            raise RuntimeError(unsealed_words(n, d) + "; run it first")
    stores.check_may_train([f"{s.study}:{s.label}" for s in todo], folders[0], "settings are",
                           "run `binn sweep <study> --scale <scale>` first")
    if progress is None:
        progress = scale != "quick"
    for dense, method in CHAPTER_FORWARD_METHOD.items():
        part = [s for s in todo if bool(s.dense) == dense]
        if part:
            run_settings(part, folders[-1], workers=workers, progress=progress, desc=desc, forward_method=method)
    return [load_setting(s, where_stored(s, folders)) for s in settings]


def largest_stored(make_settings, scales, source=None) -> str:
    """The first of ``scales`` whose settings (``make_settings(scale)``, a list or a tuple
    of lists) are all stored; the first scale if none is (it is then trained or, with
    ``BINN_REQUIRE_STORED=1``, reported missing)."""
    scales = [p for p in dict.fromkeys(scales) if p]
    for pre in scales:
        ss = make_settings(pre)
        flat = [s for part in ss for s in part] if isinstance(ss, tuple) else list(ss)
        if not missing(flat, pre, source):
            return pre
    return scales[0]
