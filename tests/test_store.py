"""The results store never trusts a damaged pair; writers never clash; old records migrate."""
import json
import os
import shutil
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from binn_utils.engine.training import TrainConfig
from binn_utils.store import provenance, records, stores
from binn_utils.store.records import DamagedRecordError, StoreWarning
from binn_utils.store.loading import load_setting
from binn_utils.store.migration import migrate_store
from binn_utils.store.runner import run_settings
from binn_utils.store.setting import Setting, replicates
from binn_utils.store.sweep_record import SweepRecord

TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=3, compile=False)
COMMITTED = Path(__file__).resolve().parents[1] / "results" / "runs"


def _setting(label="a", lr=5e-4):
    ds, ss = replicates(2)
    return Setting("test", label, "diffusion", 1e-3, False, ds, ss, TINY.replace(lr=lr), swept=("lr",))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """One tiny setting stored once; tests damage copies of it."""
    root = tmp_path_factory.mktemp("store")
    s = _setting()
    run_settings([s], root, workers=1, progress=False)
    return s, root


def _copy(stored, tmp_path):
    s, root = stored
    shutil.copytree(root / "runs", tmp_path / "runs")
    return s, s.paths(tmp_path)


def test_every_record_carries_the_checksum_of_its_arrays(stored):
    s, root = stored
    npz, js = s.paths(root)
    rec = json.loads(js.read_text())
    assert rec[records.CHECKSUM_FIELD] == records.sha256_bytes(npz.read_bytes())
    assert rec[records.FORMAT_FIELD] == records.STORE_FORMAT
    assert records.FORMAT_FIELD not in s.spec()          # the store format is not part of the key
    assert not list((root / "runs").glob(".*"))        # no temporary file left behind


DAMAGE = {
    "json truncated to 300 bytes": (1, lambda b: b[:300], "not valid JSON"),
    "json emptied": (1, lambda b: b"", "not valid JSON"),
    "json not a record": (1, lambda b: b"[1, 2]", "not a record"),
    "json missing": (1, None, r"\.json: missing"),
    "npz truncated": (0, lambda b: b[: len(b) // 2], "SHA-256 does not match"),
    "npz emptied": (0, lambda b: b"", "SHA-256 does not match"),
    "npz one byte flipped": (0, lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], "SHA-256 does not match"),
    "npz missing": (0, None, r"\.npz: missing"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_pair_is_never_trusted(stored, tmp_path, damage):
    which, how, message = DAMAGE[damage]
    s, paths = _copy(stored, tmp_path)
    path = paths[which]
    if how is None:
        path.unlink()
    else:
        path.write_bytes(how(path.read_bytes()))
    with pytest.warns(StoreWarning, match=path.name):
        assert not s.is_done(tmp_path)                 # counts as missing ...
    with pytest.raises(DamagedRecordError, match=message) as err:
        load_setting(s, tmp_path)                      # ... and loading names the file
    assert str(path) in str(err.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StoreWarning)
        assert run_settings([s], tmp_path, workers=1, progress=False) == [s.key]   # ... and is rerun
    assert s.is_done(tmp_path)
    np.testing.assert_array_equal(load_setting(s, tmp_path)["final_u_theta"],
                                  load_setting(s, stored[1])["final_u_theta"])


def test_concurrent_writers_of_one_pair_never_clash(tmp_path):
    """Two sweeps storing into one store: unique temporary names and a folder lock."""
    npz, js = tmp_path / "runs" / "k.npz", tmp_path / "runs" / "k.json"
    errors, barrier = [], threading.Barrier(6)

    def writer(w):
        barrier.wait()
        for i in range(15):
            try:
                records.write_pair(npz, js, {"a": np.full(1000, w * 100 + i)}, {"writer": w, "i": i})
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    any_name = records.RecordKind("test", ("writer", "i"), lambda record, stem: stem)
    rec, arrays = records.read_pair(npz, js, kind=any_name)  # one writer's complete pair, never a mix
    assert np.all(arrays["a"] == rec["writer"] * 100 + rec["i"])
    assert sorted(p.name for p in npz.parent.iterdir()) == ["k.json", "k.npz"]


def test_results_folder_is_checked_before_any_training(tmp_path):
    s = _setting()
    afile = tmp_path / "file"
    afile.write_text("")
    for bad, message in ((afile, "it is a file"), (afile / "below", "lies under")):
        with pytest.raises(ValueError, match=message):
            run_settings([s], bad, workers=1, progress=False)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        run_settings([s], tmp_path, workers=0, progress=False)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write into read-only folders")
def test_read_only_results_folder_is_refused_before_training(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs").chmod(0o500)
    try:
        with pytest.raises(ValueError, match="cannot store results"):
            run_settings([_setting()], tmp_path, workers=1, progress=False)
    finally:
        (tmp_path / "runs").chmod(0o700)


def test_an_unwritable_results_folder_is_refused_before_training(tmp_path, monkeypatch):
    """A folder that refuses new files (read-only; simulated here, as root may write anywhere)."""
    import binn_utils.store.compute as compute

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(records.tempfile, "mkstemp", denied)
    monkeypatch.setattr(compute, "compute_group", lambda *a, **k: pytest.fail("trained into an unwritable folder"))
    with pytest.raises(ValueError, match=r"cannot store results in .*: Permission denied"):
        run_settings([_setting()], tmp_path, workers=1, progress=False)


def _legacy_copies(tmp_path, n=4):
    """Committed records as they were before checksums (format 1): real arrays and records."""
    names = sorted(p.stem for p in COMMITTED.glob("*.json"))
    if not names:
        pytest.skip("no committed results in this checkout")
    # a spread of benchmarks, including the nonlinear ADR (whose `initial` may be absent)
    picks = {}
    for name in names:
        picks.setdefault(name.rsplit("-", 1)[0], name)
    chosen = list(picks.values())[:n]
    runs = tmp_path / "runs"
    runs.mkdir(parents=True)
    originals = {}
    for name in chosen:
        shutil.copy(COMMITTED / f"{name}.npz", runs / f"{name}.npz")
        rec = json.loads((COMMITTED / f"{name}.json").read_text())
        for k in (records.CHECKSUM_FIELD, records.FORMAT_FIELD, records.RECORD_CHECKSUM_FIELD):
            rec.pop(k, None)
        (runs / f"{name}.json").write_bytes(records.json_bytes(rec))
        originals[name] = rec
    return runs, originals


def test_legacy_records_load_and_migrate_without_retraining(tmp_path):
    runs, originals = _legacy_copies(tmp_path)
    # a record from before devices and groupings were recorded
    first = next(iter(originals))
    for k in ("device", "trained_with", "forward_method"):
        originals[first].pop(k, None)
    (runs / f"{first}.json").write_bytes(records.json_bytes(originals[first]))
    npz_bytes = {n: (runs / f"{n}.npz").read_bytes() for n in originals}
    settings = {n: Setting.from_record(SweepRecord.from_json(rec)) for n, rec in originals.items()}
    assert all(s.key == n for n, s in settings.items())
    # format 1 (no checksum): damaged to every reader until `binn migrate` verifies and seals it
    for s in settings.values():
        with pytest.warns(StoreWarning, match="no checksum record_sha256 .*arrays verify.*`binn migrate` seals it"):
            assert not s.is_done(tmp_path)
        with pytest.raises(records.DamagedRecordError, match="no checksum"):
            load_setting(s, tmp_path)

    outcome = migrate_store(tmp_path)
    assert set(outcome.values()) == {"migrated"} and len(outcome) == len(originals)
    for n, s in settings.items():
        rec = json.loads((runs / f"{n}.json").read_text())
        assert (runs / f"{n}.npz").read_bytes() == npz_bytes[n]               # arrays untouched
        assert {k: rec[k] for k in originals[n]} == originals[n]               # every field kept
        assert rec[records.CHECKSUM_FIELD] == records.sha256_bytes(npz_bytes[n])
        assert rec[records.FORMAT_FIELD] == records.STORE_FORMAT
        assert rec["forward_method"] and "device" in rec and "trained_with" in rec
        if rec["benchmark"] == "nonlinear_adr":
            assert rec["initial"] in ("text", "code")
        assert s.key == n and s.is_done(tmp_path)
        assert load_setting(s, tmp_path).record == SweepRecord.from_json({**originals[n], **{
            k: rec[k] for k in rec if k not in originals[n]}})
    assert {k: json.loads((runs / f"{first}.json").read_text())[k] for k in ("device", "trained_with",
                                                                             "forward_method")} == \
        {"device": "cpu (not recorded)", "trained_with": None, "forward_method": "RK45"}
    assert run_settings(list(settings.values()), tmp_path, workers=1, progress=False) == []
    assert set(migrate_store(tmp_path).values()) == {"current"}                # idempotent


def test_migration_leaves_damaged_and_misnamed_records_alone(tmp_path):
    runs, originals = _legacy_copies(tmp_path, n=3)
    a, b, c = originals
    (runs / f"{a}.npz").write_bytes((runs / f"{a}.npz").read_bytes()[:1000])          # truncated zip
    (runs / f"{b}.json").rename(runs / "diffusion-000000000000.json")                  # wrong name
    (runs / f"{b}.npz").rename(runs / "diffusion-000000000000.npz")
    # without its checksum but with arrays that do not verify: damaged, not unsealed (`binn sweep` trains it)
    with pytest.warns(StoreWarning, match=f"{a}.npz: not a readable .npz archive.*`binn sweep`"):
        assert not Setting.from_record(SweepRecord.from_json(originals[a])).is_done(tmp_path)
    outcome = {Path(k).stem: v for k, v in migrate_store(tmp_path).items()}
    assert outcome[a].startswith("damaged") and f"{a}.npz" in outcome[a]
    assert outcome["diffusion-000000000000"].startswith("damaged") and b in outcome["diffusion-000000000000"]
    assert outcome[c] == "migrated"
    assert records.CHECKSUM_FIELD not in json.loads((runs / f"{a}.json").read_text())


def test_cached_fit_is_verified_and_a_damaged_one_retrained(tmp_path, monkeypatch):
    from binn_utils.analysis.user_data import fit_user_data_cached, observations_from_arrays
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    x, t = np.linspace(0.0, 1.0, 15), np.linspace(0.0, 2.0, 6)
    obs = observations_from_arrays(x, t, 1.0 + 0.5 * np.exp(-t)[:, None] * np.cos(np.pi * x)[None, :])
    cfg = TrainConfig(arch_u=(2, 4), arch_D=(2, 4), epochs=2, batch_size=20, compile=False)
    fit = fit_user_data_cached(obs, "D", cfg, seeds=[0, 1], cache_dir=tmp_path)
    npz, js = fit.cache_files
    rec = json.loads(js.read_text())
    assert rec[records.CHECKSUM_FIELD] == records.sha256_bytes(npz.read_bytes())
    npz.write_bytes(npz.read_bytes()[:-10])
    with pytest.warns(StoreWarning, match=npz.name), pytest.raises(RuntimeError, match="missing or damaged"):
        fit_user_data_cached(obs, "D", cfg, seeds=[0, 1], cache_dir=tmp_path, require_stored=True)
    with pytest.warns(StoreWarning, match=npz.name):
        again = fit_user_data_cached(obs, "D", cfg, seeds=[0, 1], cache_dir=tmp_path)
    np.testing.assert_array_equal(again.result.final, fit.result.final)
    assert records.read_pair(npz, js)[0][records.CHECKSUM_FIELD] == records.sha256_bytes(npz.read_bytes())
    # the cached fits migrate with the runs
    rec = json.loads(js.read_text())
    del rec[records.CHECKSUM_FIELD], rec[records.FORMAT_FIELD], rec[records.RECORD_CHECKSUM_FIELD]
    js.write_bytes(records.json_bytes(rec))
    assert migrate_store(tmp_path) == {str(js): "migrated"}
    assert json.loads(js.read_text())[records.CHECKSUM_FIELD] == records.sha256_bytes(npz.read_bytes())


def test_one_rule_decides_whether_a_missing_result_may_be_trained(monkeypatch):
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    stores.check_may_train(["a"], "results", "settings are", "run it")              # may train
    stores.check_may_train([], "results", "settings are", "run it", require=True)   # nothing missing
    with pytest.raises(RuntimeError, match=r"2 settings are not .* \(missing or damaged: a, b\) and "
                                           r"require_stored=True forbids training here; run it"):
        stores.check_may_train(["a", "b"], "results", "settings are", "run it", require=True)
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    with pytest.raises(RuntimeError, match="BINN_REQUIRE_STORED=1 forbids training"):
        stores.check_may_train(["a"], "results", "fit is", "run it")
    stores.check_may_train(["a"], "results", "fit is", "run it", require=False)     # `binn fit` asks to train


def test_a_user_fit_is_a_pair_of_the_store_and_a_damaged_one_is_not_retrained_in_a_book_build(tmp_path, monkeypatch):
    """User fits are stored, checked and refused like the sweeps' runs: named by ``records.key_of``,
    and with BINN_REQUIRE_STORED=1 a damaged one is reported (a warning naming the file) and
    is an error, not a training run."""
    from binn_utils.analysis.user_data import fit_spec, fit_user_data_cached, observations_from_arrays
    monkeypatch.delenv("BINN_REQUIRE_STORED", raising=False)
    x, t = np.linspace(0.0, 1.0, 15), np.linspace(0.0, 2.0, 6)
    obs = observations_from_arrays(x, t, 1.0 + 0.5 * np.exp(-t)[:, None] * np.cos(np.pi * x)[None, :])
    cfg = TrainConfig(arch_u=(2, 4), arch_D=(2, 4), epochs=2, batch_size=20, compile=False)
    fit = fit_user_data_cached(obs, "D", cfg, seeds=[0], cache_dir=tmp_path, prefix="mine")
    assert fit.cache_key == records.key_of("mine", fit_spec(obs, "D", cfg, [0]))
    assert fit.cache_files == records.pair_paths(tmp_path, fit.cache_key)
    npz, js = fit.cache_files
    js.write_text(js.read_text()[:-5])                                             # truncated record
    monkeypatch.setenv("BINN_REQUIRE_STORED", "1")
    with pytest.warns(StoreWarning, match=js.name), \
            pytest.raises(RuntimeError, match="1 fit is not in the results store .*BINN_REQUIRE_STORED=1"):
        fit_user_data_cached(obs, "D", cfg, seeds=[0], cache_dir=tmp_path, prefix="mine")
    with pytest.raises(DamagedRecordError, match=js.name):                         # nothing was rewritten
        records.read_pair(npz, js)


def test_the_source_fingerprint_names_the_numeric_code(tmp_path):
    import shutil
    root = Path(provenance.__file__).resolve().parents[1]
    for name in provenance.NUMERIC_SOURCES:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(root / name, tmp_path / name)
    assert provenance.source_fingerprint(tmp_path) == provenance.source_fingerprint()
    (tmp_path / "engine/losses.py").write_text((tmp_path / "engine/losses.py").read_text() + "\n# a change\n")
    assert provenance.source_fingerprint(tmp_path) != provenance.source_fingerprint()
    rec = provenance.provenance()
    assert rec["source_sha256"] == provenance.source_fingerprint() and "diff_sha256" in rec


def test_the_numeric_sources_are_the_engine_and_the_store():
    """Every module of the engine and store layers (the code that makes a stored number) is
    hashed into a record's provenance; a new one cannot be forgotten."""
    root = Path(provenance.__file__).resolve().parents[1]
    modules = {p.relative_to(root).as_posix() for folder in ("engine", "store") for p in (root / folder).glob("*.py")
               if p.name != "__init__.py"}
    assert set(provenance.NUMERIC_SOURCES) == modules


@pytest.mark.parametrize("prov, named", [
    ({"commit": "abc", "dirty_worktree": False}, True),
    ({"commit": "abc", "dirty_worktree": True}, False),
    ({"commit": "abc", "dirty_worktree": True, "source_sha256": "f" * 64}, True),
    ({"commit": "unknown", "dirty_worktree": False}, False),
    ({}, False),
])
def test_a_record_names_its_code_by_a_clean_commit_or_a_fingerprint(prov, named):
    assert provenance.names_its_code(prov) is named


def test_distinct_seeds_nest_initialisations_in_datasets():
    from binn_utils.store.setting import SEED_STRIDE, seeds_distinct
    ds, ss = replicates(10, 10, distinct=True)
    pairs = set(zip(ds, ss))
    assert len(pairs) == 100 and len(set(ss)) == 100          # no seed used on two datasets
    assert ss[:10] == tuple(range(10))                        # dataset 0 keeps seeds 0-9
    assert ss[10:20] == tuple(range(SEED_STRIDE, SEED_STRIDE + 10))
    crossed = replicates(10, 10)
    assert len(set(crossed[1])) == 10                         # the old design crosses them
    cfg = TrainConfig(epochs=2)
    assert seeds_distinct(Setting("t", "a", "diffusion", 1e-3, False, ds, ss, cfg))
    assert not seeds_distinct(Setting("t", "a", "diffusion", 1e-3, False, *crossed, cfg))
    with pytest.raises(ValueError, match="at most"):
        replicates(SEED_STRIDE + 1, 2, distinct=True)


def test_distinct_seeds_give_new_keys_on_the_authors_data_and_in_the_noise_study():
    from binn_utils.store.setting import on_data, seeds_distinct
    from binn_utils import studies
    lr = studies.get("learning_rate")
    old = on_data(lr.settings("paper", datasets=10), "authors")
    new = on_data(lr.settings("paper", datasets=10, distinct_seeds=True), "authors")
    assert all(seeds_distinct(s) for s in new) and not any(seeds_distinct(s) for s in old)
    assert not {s.key for s in old} & {s.key for s in new}
    noise = studies.get("noise").settings("paper", noise_var=0.0, distinct_seeds=True)
    assert sorted(len(set(s.datasets)) for s in noise) == [6, 10]   # (6, 128) on 6, (4, 32) on 10
    assert all(seeds_distinct(s) for s in noise)


@pytest.mark.parametrize("fails", ["the record's temporary file", "the record's rename"])
@pytest.mark.parametrize("before", ["nothing stored", "an older pair"])
def test_a_full_disk_never_leaves_an_npz_without_its_json(tmp_path, monkeypatch, fails, before):
    """A full disk while a sweep wrote a pair left the ``.npz`` without its ``.json`` (a half pair).
    Now both files are written before either is renamed into place: the store keeps what it had
    (nothing, or the older pair, still sound), and no temporary file."""
    npz, js = tmp_path / "p.npz", tmp_path / "p.json"
    if before == "an older pair":
        records.write_pair(npz, js, {"a": np.zeros(3)}, {"what": "old"})
    old = {p: p.read_bytes() for p in (npz, js) if p.exists()}
    full = OSError(28, "No space left on device")
    if fails == "the record's temporary file":
        real = records.write_temporary

        def write_temporary(path, data):
            if path.suffix == ".json":
                raise full
            return real(path, data)
        monkeypatch.setattr(records, "write_temporary", write_temporary)
    else:
        real = os.replace

        def replace(src, dst):
            if str(dst).endswith(".json"):
                raise full
            return real(src, dst)
        monkeypatch.setattr(records.os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        records.write_pair(npz, js, {"a": np.ones(3)}, {"what": "new"})
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in old), list(tmp_path.iterdir())
    assert {p: p.read_bytes() for p in old} == old                          # the older pair as it was


def test_the_manifest_tells_the_chapters_and_the_scorecard_which_results_have_distinct_seeds(monkeypatch):
    """A study listed in the manifest's ``distinct_seeds`` is read with each dataset's own seeds by
    its chapter and on the authors' data; unlisted, with the seeds shared (the stored records)."""
    from binn_utils import studies
    from binn_utils.store.setting import seeds_distinct
    params = dict(scale=None, noise_vars=None, dense=False, epochs=None, seeds=None)
    noise = studies.get("noise")
    monkeypatch.setattr(studies.base, "committed_distinct_seeds", lambda name, data="ours": False)
    assert not any(seeds_distinct(s) for s in noise.settings_for_chapter(params) if len(set(s.datasets)) > 1)
    listed = {("noise", "ours"), ("learning_rate", "authors")}
    monkeypatch.setattr(studies.base, "committed_distinct_seeds", lambda name, data="ours": (name, data) in listed)
    got = noise.settings_for_chapter(params)
    assert got and all(seeds_distinct(s) for s in got)
    assert sorted({len(set(s.datasets)) for s in got}) == [6, 10]
    lr = studies.get("learning_rate")
    n = stores.committed_datasets("learning_rate", "authors")
    on_theirs = lr.authors_data_settings("paper")
    assert len(on_theirs) == 7 and all(s.data == "authors" and len(set(s.datasets)) == n for s in on_theirs)
    assert all(seeds_distinct(s) for s in on_theirs) == (n > 1)
