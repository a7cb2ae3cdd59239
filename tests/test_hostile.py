"""Hostile but fair input: each case of the reliability review, so that none comes back.

Fast: tiny stores (two settings of a few epochs), CLI requests stopped before training
(``no_training``), copies of committed records in temporary folders.
"""
import json
import os
import shutil
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest

from binn_utils import cli, store
from binn_utils.store import DamagedRecordError, StoreWarning
from binn_utils.sweeps import Setting, load_setting, migrate_store, replicates, run_settings
from binn_utils.training import TrainConfig

TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, compile=False)
COMMITTED = Path(__file__).resolve().parents[1] / "results" / "runs"


def _setting(lr):
    ds, ss = replicates(2)
    return Setting("learning_rate", f"lr={lr:g}", "diffusion", 1e-3, False, ds, ss, TINY.replace(lr=lr),
                   meta=(("lr", lr),))


@pytest.fixture(scope="module")
def two_settings(tmp_path_factory):
    """lr = 5e-4 and lr = 0.5, stored once (2 epochs); tests damage copies."""
    root = tmp_path_factory.mktemp("store")
    pair = (_setting(5e-4), _setting(0.5))
    run_settings(list(pair), root, workers=1, progress=False)
    return pair, root


@pytest.fixture
def copied(two_settings, tmp_path):
    (small, large), root = two_settings
    shutil.copytree(root / "runs", tmp_path / "runs")
    return small, large, tmp_path


@pytest.fixture
def no_training(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the CLI started a sweep")
    monkeypatch.setattr(cli, "run_settings", refuse)


def _one_line(capsys, argv, code=2):
    """Run the CLI; it must end with ``code`` and one line on stderr, no traceback."""
    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == code, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


# ----------------------------------------------------------------------------- 1. the store's trust
def _status(capsys, root):
    assert cli.main(["status", "learning_rate", "--scale", "quick", "--results-dir", str(root)]) == 0
    said = capsys.readouterr()
    return said.out, [ln for ln in said.err.splitlines() if ln.startswith("binn: warning: damaged")]


def test_a_pair_copied_over_another_settings_names_is_not_that_setting(copied):
    small, large, root = copied
    for src, dst in zip(large.paths(root), small.paths(root)):
        shutil.copyfile(src, dst)
    with pytest.warns(StoreWarning, match=f"{small.key}.json: it holds the specification of {large.key}"):
        assert not small.is_done(root)
    with pytest.raises(DamagedRecordError, match=f"specification of {large.key}, not of {small.key}"):
        load_setting(small, root)
    outcome = migrate_store(root)[str(small.paths(root)[1])]
    assert outcome.startswith("damaged") and large.key in outcome
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StoreWarning)
        assert load_setting(large, root).setting.config.lr == 0.5   # the original is untouched


@pytest.mark.parametrize("record", [{}, "legacy without config"])
def test_an_empty_or_partial_record_is_damaged_and_never_stamped(copied, record):
    small, _, root = copied
    npz, js = small.paths(root)
    if record == "legacy without config":
        rec = json.loads(js.read_text())
        for k in ("config", store.CHECKSUM_FIELD, store.FORMAT_FIELD, store.RECORD_CHECKSUM_FIELD):
            rec.pop(k)
        record = rec
    js.write_bytes(store.json_bytes(record))
    with pytest.warns(StoreWarning, match=f"{js.name}: not a whole setting record: it lacks .*config"):
        assert small.stored_record(root) is None
    assert migrate_store(root)[str(js)].startswith("damaged")
    assert json.loads(js.read_text()) == record                      # no checksum stamped on it


def test_one_edited_digit_of_a_metric_is_noticed(copied):
    small, _, root = copied
    npz, js = small.paths(root)
    rec = json.loads(js.read_text())
    rec["metrics"]["best"]["err_u_theta"][0] += 0.6
    js.write_bytes(store.json_bytes(rec))
    with pytest.raises(DamagedRecordError, match="content does not match its checksum record_sha256"):
        load_setting(small, root)
    assert migrate_store(root)[str(js)].startswith("damaged")


def test_status_and_sweep_name_the_damaged_file_and_count_it_missing(copied, capsys, monkeypatch):
    small, large, root = copied
    for src, dst in zip(large.paths(root), small.paths(root)):
        shutil.copyfile(src, dst)
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [small, large])
    out, warned = _status(capsys, root)
    assert "1/2 settings stored" in out
    assert any(small.key in w and large.key in w for w in warned)
    ran = []
    monkeypatch.setattr(cli, "run_settings", lambda todo, *a, **k: ran.extend(todo) or [s.key for s in todo])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StoreWarning)
        assert cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(root),
                         "--workers", "1"]) == 0
    assert ran == [small]


def test_migration_upgrades_committed_records_only_if_they_verify(tmp_path):
    names = sorted(p.stem for p in COMMITTED.glob("*.json"))[:3]
    if len(names) < 3:
        pytest.skip("no committed results in this checkout")
    runs = tmp_path / "runs"
    runs.mkdir()
    for n in names:
        for ext in (".json", ".npz"):
            shutil.copy(COMMITTED / f"{n}{ext}", runs / f"{n}{ext}")
    a, b, c = names
    # b: a format-2 record (arrays' checksum only) whose arrays were replaced afterwards
    rec_b = json.loads((runs / f"{b}.json").read_text())
    rec_b.pop(store.RECORD_CHECKSUM_FIELD, None)
    rec_b[store.FORMAT_FIELD] = 2
    (runs / f"{b}.json").write_bytes(store.json_bytes(rec_b))
    shutil.copy(COMMITTED / f"{a}.npz", runs / f"{b}.npz")
    # c: a format-2 record stored under a's name (a copied over)
    rec_c = json.loads((runs / f"{c}.json").read_text())
    rec_c.pop(store.RECORD_CHECKSUM_FIELD, None)
    rec_c[store.FORMAT_FIELD] = 2
    (runs / f"{a}.json").write_bytes(store.json_bytes(rec_c))
    shutil.copy(runs / f"{c}.npz", runs / f"{a}.npz")
    (runs / f"{c}.json").write_bytes(store.json_bytes(rec_c))
    outcome = {Path(k).stem: v for k, v in migrate_store(tmp_path).items()}
    assert outcome[a].startswith("damaged") and "specification of" in outcome[a]
    assert outcome[b].startswith("damaged") and "SHA-256 does not match" in outcome[b]
    assert outcome[c] in ("migrated", "current")
    assert store.RECORD_CHECKSUM_FIELD not in json.loads((runs / f"{a}.json").read_text())
    assert store.RECORD_CHECKSUM_FIELD not in json.loads((runs / f"{b}.json").read_text())
    sealed = json.loads((runs / f"{c}.json").read_text())
    assert sealed[store.RECORD_CHECKSUM_FIELD] == store.record_sha256(sealed)
    assert {k: v for k, v in sealed.items() if k not in (store.RECORD_CHECKSUM_FIELD, store.FORMAT_FIELD)} == \
        {k: v for k, v in rec_c.items() if k != store.FORMAT_FIELD}
    assert (runs / f"{c}.npz").read_bytes() == (COMMITTED / f"{c}.npz").read_bytes()


# ----------------------------------------------------------------------------- 5. permissions
def test_store_files_follow_the_umask(two_settings, tmp_path):
    old = os.umask(0o022)
    try:
        store.write_pair(tmp_path / "k.npz", tmp_path / "k.json", {"a": np.zeros(3)}, {"x": 1})
    finally:
        os.umask(old)
    for name in ("k.npz", "k.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name
    (small, _), root = two_settings
    for path in small.paths(root):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~old
