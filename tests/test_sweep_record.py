"""A stored setting's record is typed (``SweepRecord``): the store reads and writes it, the
committed files load into it unchanged, a record missing a field is damaged, and outside
the store layer nothing reads a record by string key."""
import ast
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from binn_utils import studies
from binn_utils.store import records
from binn_utils.store.records import DamagedRecordError, StoreWarning
from binn_utils.store.loading import load_setting
from binn_utils.store.setting import Setting
from binn_utils.store.sweep_record import LEGACY, Checkpoint, SweepRecord

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "binn_utils"
COMMITTED = ROOT / "results" / "runs"
#: Fields the committed records carry that a record no longer holds: ``first_requested_as``
#: (written, never read; its ``meta`` repeated the configuration, e.g. ``lr``) and
#: ``replicates`` (the number of seeds).
DROPPED = {"first_requested_as", "replicates"}


def _committed(n=None):
    paths = sorted(COMMITTED.glob("*.json"))
    if not paths:
        pytest.skip("no committed results in this checkout")
    return paths if n is None else paths[:: max(1, len(paths) // n)]


def test_every_committed_record_loads_and_writes_back_what_it_holds():
    """Nothing is lost: ``to_json`` gives back every stored field but the dropped ones and
    the three the store adds (the checksums, the format); old fields are ignored, not rewritten."""
    for js in _committed():
        stored = json.loads(js.read_text())
        rec = SweepRecord.from_json(stored, js)
        assert rec.replicates == len(stored["seeds"]) == len(rec.status)
        assert rec.npz_sha256 == stored[records.CHECKSUM_FIELD]
        kept = {k: v for k, v in stored.items()
                if k not in DROPPED | {records.CHECKSUM_FIELD, records.RECORD_CHECKSUM_FIELD, records.FORMAT_FIELD}}
        written = rec.to_json()
        # fields added since (LEGACY) are stated in the typed record
        assert {k: written[k] for k in kept} == kept and set(written) - set(kept) <= set(LEGACY), js.name
        assert Setting.from_record(rec).key == js.stem


def test_a_record_missing_a_field_is_damaged(tmp_path):
    js = _committed(1)[0]
    runs = tmp_path / "runs"
    runs.mkdir()
    stored = json.loads(js.read_text())
    setting = Setting.from_record(SweepRecord.from_json(stored, js))
    assert setting.stored_record(tmp_path) is None                             # nothing stored yet
    shutil.copy(js.with_suffix(".npz"), runs / js.with_suffix(".npz").name)
    (runs / js.name).write_bytes(records.json_bytes(stored))
    assert setting.stored_record(tmp_path) == SweepRecord.from_json(stored)
    del stored["epochs_run"]
    stored[records.RECORD_CHECKSUM_FIELD] = records.record_sha256(stored)   # checksums still sound
    (runs / js.name).write_bytes(records.json_bytes(stored))
    with pytest.raises(DamagedRecordError, match=f"{js.name}.*(missing field|lacks).*epochs_run"):
        load_setting(setting, tmp_path)
    with pytest.warns(StoreWarning, match="epochs_run"):
        assert setting.stored_record(tmp_path) is None and not setting.is_done(tmp_path)
    stored["metrics"] = {"best": {"err_u_p": [0.1]}}                          # a checkpoint without its fields
    stored["epochs_run"] = 3
    stored[records.RECORD_CHECKSUM_FIELD] = records.record_sha256(stored)
    (runs / js.name).write_bytes(records.json_bytes(stored))
    with pytest.raises(DamagedRecordError, match="unreadable field"):
        load_setting(setting, tmp_path)


def test_each_fact_once():
    """The learning rate lives in the configuration only, in a record and in a setting (whose
    swept values are read from its parameters); the replicates are the seeds."""
    names = {f.name for f in dataclasses.fields(SweepRecord)}
    assert "lr" not in names and not DROPPED & names
    rec = SweepRecord.from_json(json.loads(_committed(1)[0].read_text()))
    assert not DROPPED & set(rec.to_json()) and "lr" in rec.to_json()["config"]
    s = studies.get("learning_rate").settings("quick")[0]
    assert s.swept == ("lr",) and s.meta == {"lr": s.config.lr} and "lr" not in {f.name for f in dataclasses.fields(s)}
    assert Setting.from_record(rec).meta == {}
    with pytest.raises(ValueError, match="each fact once"):
        dataclasses.replace(s, described=(("lr", 0.5),))
    with pytest.raises(ValueError, match="swept names no parameter"):
        dataclasses.replace(s, swept=("learning_rate",))
    for st in studies.REGISTRY.values():                      # every study's grid is read from its settings
        for s in st.settings("quick"):
            assert all(s.meta[n] == s.parameter(n) for n in s.swept)


#: Keys that name a record's field but are also keys of other documents of the package,
#: read there legitimately: a study's scale values and defaults (seeds, datasets, noise_var,
#: dense, reaction, initial), an own-data fit's plan (``user_data``: config, mechanisms,
#: forward_method, replicates), the ``fit.json`` of ``binn fit`` (u_range, provenance,
#: forward_method), a table's counts (replicates, status), the diagnostics' error arrays
#: (err_u_theta_obs, err_u_p_obs), the columns of ``diagnostic_roc``'s table of networks
#: (benchmark, err_u_theta, err_u_p), a fit's or a Summary's "data".  Every other field name is a record's only; a
#: subscript of ``<x>.record`` is flagged whatever its key.
SHARED_KEYS = {"seeds", "datasets", "noise_var", "dense", "reaction", "initial", "config", "mechanisms",
               "forward_method", "replicates", "u_range", "provenance", "status", "err_u_theta_obs", "err_u_p_obs",
               "benchmark", "err_u_theta", "err_u_p", "data"}
RECORD_KEYS = ({f.name for c in (SweepRecord, Checkpoint) for f in dataclasses.fields(c)} | DROPPED) - SHARED_KEYS


def record_key_reads(path: Path):
    """(line, key) of every read of a record by string key in ``path``: a subscript or
    ``.get`` of ``<x>.record`` (a stored setting's record), or with a key only a record has."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args:
            target, key = node.func.value, node.args[0]
        else:
            continue
        on_record = isinstance(target, ast.Attribute) and target.attr == "record"
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and (on_record or key.value in RECORD_KEYS):
            yield node.lineno, key.value


def test_record_keys_are_read_in_the_store_only():
    bad = [f"{p.relative_to(ROOT)}:{line}: [{key!r}]" for p in sorted(PKG.rglob("*.py"))
           if p.relative_to(PKG).parts[0] != "store" for line, key in record_key_reads(p)]
    assert not bad, "read the record's attributes instead:\n" + "\n".join(bad)


def test_the_scan_catches_a_key_read(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('def f(r, rec):\n    return r.record["status"], rec["epochs_run"], rec.get("metrics"), '
                 'p["seeds"], r.record.status\n')
    assert list(record_key_reads(f)) == [(2, "status"), (2, "epochs_run"), (2, "metrics")]
