"""Hostile but fair input: each case of the reliability review, so that none comes back.

Fast: tiny stores (two settings of a few epochs), CLI requests stopped before training
(``no_training``), copies of committed records in temporary folders.
"""
import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from binn_utils.applications import cli
from binn_utils.engine.training import TrainConfig
from binn_utils.store import records as store, stores
from binn_utils.store.records import DamagedRecordError, StoreWarning
from binn_utils.store.loading import load_setting
from binn_utils.store.migration import migrate_store
from binn_utils.store.runner import run_settings
from binn_utils.store.setting import Setting, replicates

TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, compile=False)
ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "results" / "runs"


def _setting(lr):
    ds, ss = replicates(2)
    return Setting("learning_rate", f"lr={lr:g}", "diffusion", 1e-3, False, ds, ss, TINY.replace(lr=lr),
                   swept=("lr",))


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
    # what a terminal shows of each line: the part after its last \r (a progress bar redraws with
    # \r) and after its last cursor-up (a nested bar ends its line with one; a bar closed just
    # before the message leaves one in front of it)
    lines = [ln.rsplit("\r", 1)[-1].rsplit("\x1b[A", 1)[-1] for ln in err.split("\n")]
    lines = [ln for ln in lines if ln.strip()]
    assert rc == code, err
    assert "Traceback" not in err and len(lines) == 1, err
    return lines[0]


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


# ----------------------------------------------------------------------------- 4. limits first, one line
@pytest.mark.parametrize("args, message", [
    (["--dry-run", "--seeds", "100000000"], "--seeds: must be at most 10,000, got 100000000"),
    (["--dry-run", "--seeds", "99999999999999999999"], "--seeds: must be at most 10,000"),
    (["--dry-run", "--epochs", "100000000000000000000"], "--epochs: must be at most 10,000,000"),
    (["--dry-run", "--seeds", "1e8"], "--seeds: must be a positive integer, got '1e8'"),
    (["--workers", "100000"], "--workers: must be at most 1,024"),
    (["--checkpoint-every", "100000000000"], "--checkpoint-every: must be at most"),
    (["--scheduler", "localhost"], "scheduler address 'localhost' is not of the form tcp://HOST:PORT"),
    (["--scheduler", "tcp://host:port"], "is not of the form tcp://HOST:PORT"),
])
def test_limits_are_checked_before_any_work(capsys, no_training, tmp_path, args, message):
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path), *args])
    assert message in err


def test_a_missing_batch_system_is_named_before_any_work(capsys, no_training, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))                      # no sbatch here
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                             "--cluster", "slurm"])
    assert "`sbatch`, which is not on PATH" in err and "--cluster local" in err


@pytest.mark.parametrize("toml, message", [
    ('jobs = "many"', "jobs must be an integer, got 'many'"),
    ("jobs = 100000000", "jobs must be between 1 and 10000"),
    ("cores = -1", "cores must be between 1 and 4096, got -1"),
    ("memory = 4", "memory must be a string, got 4"),
    ("walltime = 30", "walltime must be a string"),
    ('job_extra_directives = "--gres=gpu:1"', "job_extra_directives must be a list"),
    ("bogus_key = 1", "unknown key(s) bogus_key: dask-jobqueue's SLURMCluster takes none such"),
    ('memory = "lots"', "memory 'lots' is not an amount of memory"),
])
def test_bad_cluster_config_values_are_one_line_even_in_a_dry_run(capsys, no_training, tmp_path, toml, message):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[slurm]\n{toml}\n")
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                             "--cluster", "slurm", "--cluster-config", str(cfg), "--dry-run"])
    assert message in err and "c.toml" in err


def test_an_unreachable_scheduler_is_one_line(capsys, tmp_path, monkeypatch):
    from binn_utils.store import clusters
    monkeypatch.setattr(clusters, "CONNECT_TIMEOUT_S", 1)
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [_setting(5e-4)])
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                             "--scheduler", "tcp://127.0.0.1:9"])
    assert "no Dask scheduler answers at tcp://127.0.0.1:9: nothing listens there" in err and "dask scheduler" in err


def test_a_fit_or_sweep_refused_for_its_scheduler_makes_no_folder(capsys, tmp_path, monkeypatch):
    """`binn fit --scheduler` took an empty address (training here) and printed its whole plan before
    finding no scheduler at an address; a refused fit or sweep left its output folder behind."""
    from binn_utils.applications import fit_example
    from binn_utils.store import clusters
    monkeypatch.setattr(clusters, "CONNECT_TIMEOUT_S", 1)
    fit_example.write_example_csv(tmp_path / "data.csv", n_x=11, times=(0.0, 24.0, 48.0), n_rep=1)
    fit = ["fit", str(tmp_path / "data.csv"), "--x", "x_um", "--t", "t_h", "--u", "density", "--mechanisms", "DG",
           "--scale", "quick", "--out", str(tmp_path / "out")]
    assert "scheduler" in _one_line(capsys, fit + ["--scheduler", ""])
    assert "no Dask scheduler answers at tcp://127.0.0.1:9" in _one_line(capsys, fit + ["--scheduler", "tcp://127.0.0.1:9"])
    assert not (tmp_path / "out").exists()
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "rq"),
                             "--scheduler", "tcp://127.0.0.1:9"])
    assert "no Dask scheduler answers" in err and not (tmp_path / "rq").exists()


def test_ctrl_c_says_what_was_kept_and_how_to_resume(capsys, tmp_path, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [_setting(5e-4)])
    monkeypatch.setattr(cli, "run_settings", interrupted)
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                             "--workers", "1"], code=130)
    assert "stored; rerun the same command to continue" in err


def _workers_of(proc) -> list:
    """The worker processes (started by multiprocessing) under ``proc``, living ones only."""
    import psutil
    try:
        kids = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return []
    out = []
    for k in kids:
        try:
            if k.status() != psutil.STATUS_ZOMBIE and "multiprocessing" in " ".join(k.cmdline()):
                out.append(k)
        except psutil.Error:
            pass
    return out


#: The `binn` command as its installed script runs it (the entry point in pyproject.toml).
#: Not `python -m ...cli`: there CPython may end the process by SIGINT (status -2) after
#: the command has handled a Ctrl-C, when one passed through an exec() on the way (it does
#: in distributed's delayed imports); from a shell both read 130.
BINN_ENTRY_POINT = "import sys; from binn_utils.applications import main; sys.exit(main())"


def _ctrl_c_while_workers_start(argv, n_started, after, timeout=60):
    """Start the `binn` command ``argv`` in a process group of its own, wait until ``n_started``
    worker processes exist and ``after`` seconds more (they are starting: importing, connecting),
    then send SIGINT to the whole group, as a terminal's Ctrl-C does.  Returns (exit status,
    stderr, the workers seen); a command still running ``timeout`` s later is a hang."""
    proc = subprocess.Popen([sys.executable, "-c", BINN_ENTRY_POINT, *argv], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while len(seen := _workers_of(proc)) < n_started:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.05)
        time.sleep(after)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{' '.join(argv[:2])} still running {timeout} s after Ctrl-C")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, err, seen


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask") or not Path("/proc/self/stat").exists(),
                    reason="needs POSIX signal masks and Linux /proc")
@pytest.mark.parametrize("command", ["sweep", "fit"])
@pytest.mark.parametrize("n_started, after", [(1, 0.0), (2, 0.0), (2, 1.0), (2, 3.0)],
                         ids=["first worker spawned", "both spawned", "importing", "connecting"])
def test_ctrl_c_while_dask_workers_start_is_one_line_and_ends_them(tmp_path, command, n_started, after):
    """Ctrl-C while the two Dask workers of `binn sweep --workers 2` / `binn fit --workers 2` are
    still starting: exit status 130, the one line saying what was kept and how to resume, no
    worker traceback, no hang, no worker left running."""
    if command == "sweep":
        argv = ["sweep", "learning_rate", "--scale", "quick", "--workers", "2", "--results-dir", str(tmp_path)]
    else:
        from binn_utils.applications import fit_example
        fit_example.write_example_csv(tmp_path / "data.csv", n_x=11, times=(0.0, 24.0, 48.0), n_rep=1)
        argv = ["fit", str(tmp_path / "data.csv"), "--x", "x_um", "--t", "t_h", "--u", "density",
                "--mechanisms", "DG", "--scale", "quick", "--epochs", "5000", "--batch-size", "8",
                "--workers", "2", "--out", str(tmp_path / "out")]
    rc, err, workers = _ctrl_c_while_workers_start(argv, n_started, after)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("sweep:", "sweep,", "training (parts)"))]
    assert rc == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    assert lines[-1].startswith(f"binn {command}: ") and "rerun the same command to continue" in lines[-1], err
    assert all(ln.startswith(("binn ", "dask: ")) for ln in lines), err
    time.sleep(1.0)
    assert not [w for w in workers if w.is_running() and w.status() != "zombie"], "worker processes left running"


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask") or not Path("/proc/self/stat").exists(),
                    reason="needs POSIX signal masks and Linux /proc")
@pytest.mark.parametrize("after", [0.0, 0.2, 4.0])
def test_ctrl_c_with_a_forward_solve_pool_is_one_line_and_ends_it(tmp_path, after):
    """Ctrl-C during an in-process sweep whose forward solves run in a pool of processes
    (`--workers 1 --solve-workers 2`), while the pool's processes are still starting Python
    (0 and 0.2 s after they appear) or once they have started: exit status 130, the one
    line, no traceback from the pool's processes, none of them left running."""
    argv = ["sweep", "learning_rate", "--scale", "quick", "--epochs", "3000", "--workers", "1",
            "--solve-workers", "2", "--results-dir", str(tmp_path)]          # training for a minute
    rc, err, workers = _ctrl_c_while_workers_start(argv, 2, after)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("sweep:", "sweep,", "training (parts)"))]
    assert rc == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert lines[-1].startswith("binn sweep: ") and "rerun the same command to continue" in lines[-1], err
    time.sleep(1.0)
    assert not [w for w in workers if w.is_running() and w.status() != "zombie"], "pool processes left running"


def test_a_ctrl_c_while_the_command_loads_is_one_line(monkeypatch, capsys):
    """The `binn` entry point (`binn_utils.applications.main`): a Ctrl-C while Python imports
    the command (here: raised by the import of its module) is one line and status 130."""
    import importlib.abc
    import binn_utils.applications as applications

    class Interrupting(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "binn_utils.applications.cli":
                raise KeyboardInterrupt
            return None
    monkeypatch.delitem(sys.modules, "binn_utils.applications.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert applications.main() == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["binn: interrupted while starting: nothing was run"]


def test_a_ctrl_c_held_back_is_raised_once_the_block_is_over():
    """`sigint_held_back`: the block runs to its end, then the Ctrl-C that came in it is
    raised (KeyboardInterrupt), and SIGINT's handler is Python's again."""
    from binn_utils.engine.first_use import sigint_held_back
    before = signal.signal(signal.SIGINT, signal.default_int_handler)   # whatever another test left
    try:
        ran = []
        with pytest.raises(KeyboardInterrupt):
            with sigint_held_back():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.2)            # the signal is handled in here: held back
                ran.append("to the end")
        assert ran == ["to the end"] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with sigint_held_back():           # no Ctrl-C: nothing raised
            ran.append("again")
        assert ran[-1] == "again" and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_second_ctrl_c_while_a_cluster_closes_after_the_first_closes_it_all_the_same(monkeypatch):
    """`close_dask` after Ctrl-C: a second Ctrl-C while the client closes no longer leaves the
    cluster unclosed (distributed then closed it at exit, waiting some ten seconds for the
    workers already ended, the one line said): both are closed, then it is raised."""
    from binn_utils.store import clusters
    monkeypatch.setattr(clusters, "end_worker_processes", lambda: None)
    closed = []

    class Closing:
        def __init__(self, name, press=False):
            self.name, self.press = name, press

        def close(self, timeout=None):
            if self.press:                                  # the second Ctrl-C comes now
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.2)
            closed.append(self.name)

    before = signal.signal(signal.SIGINT, signal.default_int_handler)   # whatever another test left
    try:
        with pytest.raises(KeyboardInterrupt):
            clusters.close_dask(Closing("client", press=True), Closing("cluster"), interrupted=True)
        assert closed == ["client", "cluster"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_importing_dask_jobqueue_leaves_ctrl_c_as_it_was():
    """dask_jobqueue sets SIGINT's handler to sys.exit when imported (a Ctrl-C would end a
    `--cluster slurm` sweep with status 0, saying nothing); `import_dask_jobqueue` puts
    Python's handler back (in a fresh process: this one may have imported it already)."""
    import importlib.util
    if importlib.util.find_spec("dask_jobqueue") is None:
        pytest.skip("needs dask_jobqueue")
    code = ("import signal; from binn_utils.store.clusters import import_dask_jobqueue; import_dask_jobqueue(); "
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["True"], out.stderr[-2000:]


_IMPORTS_DURING_A_SWEEP = """
import sys
from binn_utils.applications import cli
from binn_utils.store import runner

def compiled():
    return {n for n, m in list(sys.modules.items()) if str(getattr(m, "__file__", "") or "").endswith((".so", ".pyd"))}

before = []
first_use = runner.import_first_use_modules
def recording():
    first_use()
    before.append(compiled())
runner.import_first_use_modules = recording
rc = cli.main(["sweep", "learning_rate", "--scale", "quick", "--epochs", "2", "--workers", "1",
               "--solve-workers", "0", "--results-dir", sys.argv[1]])
assert rc == 0 and len(before) == 1, (rc, before)
print("first imported while it ran:", *sorted(compiled() - before[0]))
"""


def test_no_compiled_module_is_first_imported_while_a_sweep_runs(tmp_path):
    """A Ctrl-C that comes while an extension module initialises can be lost (numpy.random's
    Cython modules swallow the KeyboardInterrupt: the sweep trained on), so a sweep imports
    every compiled module its training and forward solves load on first use before its work
    starts (`first_use.import_first_use_modules`): none is first imported after that."""
    out = subprocess.run([sys.executable, "-c", _IMPORTS_DURING_A_SWEEP, str(tmp_path)], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1]
    assert last == "first imported while it ran:", last


class _ClosedPipe:
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_is_one_line(capsys, two_settings, monkeypatch):
    _, root = two_settings
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    rc = cli.main(["status", "learning_rate", "--scale", "quick", "--results-dir", str(root)])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and err.strip().splitlines() == [
        "binn status: output cut short: the reading end of the pipe closed"]


def test_migrate_on_a_read_only_store_is_one_line(copied, capsys, monkeypatch):
    small, large, root = copied
    for _, js in (small.paths(root), large.paths(root)):        # records from before whole-record checksums
        rec = json.loads(js.read_text())
        del rec[store.RECORD_CHECKSUM_FIELD]
        rec[store.FORMAT_FIELD] = 2
        js.write_bytes(store.json_bytes(rec))

    def read_only(path, data):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(store, "atomic_write", read_only)        # root may write anywhere: simulate it
    assert cli.main(["migrate", "--results-dir", str(root)]) == 1
    said = capsys.readouterr()
    assert "Traceback" not in said.err and len(said.err.strip().splitlines()) == 1
    assert "Permission denied (and 1 more)" in said.err
    assert "2 not rewritable (make the folder writable" in said.out


def test_a_folder_in_place_of_a_store_file_is_named_and_counted_missing(copied, capsys, monkeypatch):
    small, large, root = copied
    npz, js = small.paths(root)
    js.unlink()
    js.mkdir()
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [small, large])
    out, warned = _status(capsys, root)
    assert "1/2 settings stored" in out and len(warned) == 1 and f"{js.name}: a folder, not a file" in warned[0]


# ----------------------------------------------------------------------------- 3. outputs all or nothing
@pytest.fixture(scope="module")
def a_fit(tmp_path_factory):
    """One `binn fit` of one network for one epoch (what the tests below damage or overwrite)."""
    from binn_utils.applications import fit_example
    d = tmp_path_factory.mktemp("fit")
    fit_example.write_example_csv(d / "data.csv", n_x=11, times=(0.0, 24.0, 48.0), n_rep=1)
    argv = ["fit", str(d / "data.csv"), "--mechanisms", "D,G", "--x", "x_um", "--t", "t_h", "--u", "density",
            "--scale", "quick", "--epochs", "1", "--seeds", "1", "--batch-size", "20", "--forward-method", "BDF",
            "--out", str(d / "out")]
    assert cli.main(argv) == 0
    return d / "out", argv


@pytest.fixture
def fit_copy(a_fit, tmp_path):
    out, argv = a_fit
    shutil.copytree(out, tmp_path / "out")
    return tmp_path / "out", [*argv[:-1], str(tmp_path / "out")]


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_an_interrupted_or_failed_fit_write_leaves_the_old_fit_whole(fit_copy, capsys, monkeypatch, failure):
    import matplotlib.figure
    out, argv = fit_copy
    before = _snapshot(out)

    def fail(self, path, *a, **k):
        if isinstance(failure, OSError):
            raise OSError(failure.errno, failure.strerror, str(path))
        raise failure
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fail)
    err = _one_line(capsys, argv[:-2] + ["--seeds", "1", "--lr", "0.01", "--out", str(out)],
                    code=130 if isinstance(failure, KeyboardInterrupt) else 1)
    assert ("No space left on device" in err and "free space or choose another --out" in err) \
        if isinstance(failure, OSError) else "rerun the same command to continue" in err
    after = _snapshot(out)
    assert {k: v for k, v in after.items() if not k.startswith("networks/")} == \
        {k: v for k, v in before.items() if not k.startswith("networks/")}     # the old fit, whole
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".")] == []   # no half-written folder


def test_predict_refuses_to_write_into_a_fit_folder(a_fit, capsys):
    out, _ = a_fit
    before = _snapshot(out)
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:1:3", "--out", str(out)])
    assert "is the folder of a `binn fit`" in err and _snapshot(out) == before
    # nor into a folder inside it (a later `binn fit` there would refuse the fit's own folder)
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:1:3", "--out", str(out / "sub")])
    assert "lies inside the folder of the `binn fit` it reads" in err and _snapshot(out) == before


@pytest.mark.parametrize("damage, message", [
    (lambda r: r.pop("u_range"), "lacks u_range"),
    (lambda r: r.update(u_range="wide"), "not a readable fit record"),
    (lambda r: r.update(networks=["networks/none.npz", "networks/none.json"]), "cannot be read"),
])
def test_a_broken_fit_json_is_one_line(fit_copy, capsys, tmp_path, damage, message):
    out, _ = fit_copy
    rec = json.loads((out / "fit.json").read_text())
    damage(rec)
    # sealed again, as a writer of a broken record would: the checks behind the checksum speak
    rec[store.RECORD_CHECKSUM_FIELD] = store.record_sha256(rec)
    (out / "fit.json").write_text(json.dumps(rec))
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:1:3", "--out", str(tmp_path / "p")])
    assert message in err and "rerun `binn fit`" in err


# ----------------------------------------------------------------------------- 2. own data means what the user meant
def _grid(n_x=11, n_t=4):
    x, t = np.linspace(0.0, 1.0, n_x), np.linspace(0.0, 3.0, n_t)
    return x, t, 1.0 + 0.5 * np.exp(-t)[:, None] * np.cos(np.pi * x)[None, :]


def test_masked_values_are_missing_data():
    from binn_utils.analysis.user_data import observations_from_arrays
    x, t, u = _grid()
    masked = np.ma.masked_array(u, mask=np.zeros_like(u, bool))
    masked[1, 2] = np.ma.masked
    masked[2, 3] = np.ma.masked
    with pytest.raises(ValueError, match=r"u has 2 masked value\(s\) of 44 .*a grid has no holes"):
        observations_from_arrays(x, t, masked)
    X, T = np.meshgrid(x, t)
    long_u = np.ma.masked_array(np.r_[u.ravel(), 7.0], mask=np.r_[np.zeros(u.size, bool), True])
    obs = observations_from_arrays(np.r_[X.ravel(), 0.5], np.r_[T.ravel(), 1.0], long_u)
    assert obs.u.max() < 2 and "1 masked entry dropped" in obs.describe()     # the masked 7.0 is not data


def test_datetime_times_need_their_unit_and_the_plan_states_it():
    from binn_utils.analysis.user_data import observations_from_arrays
    x, _, u = _grid()
    start = np.datetime64("2024-03-01T08:00")
    t = start + np.arange(4) * np.timedelta64(6, "h")
    with pytest.raises(ValueError, match=r"t holds datetime64 values: say the unit .*time_unit='h'"):
        observations_from_arrays(x, t, u)
    obs = observations_from_arrays(x, t, u, time_unit="h")
    np.testing.assert_array_equal(obs.t, [0.0, 6.0, 12.0, 18.0])
    assert "t given as datetime64: in h after 2024-03-01T08:00" in obs.describe()
    obs = observations_from_arrays(x, np.arange(4) * np.timedelta64(90, "m"), u, time_unit="h")
    np.testing.assert_array_equal(obs.t, [0.0, 1.5, 3.0, 4.5])


def test_large_offsets_are_distinct_values():
    from binn_utils.analysis.user_data import observations_from_arrays
    x, _, u = _grid(n_x=21)
    unix = 1.7e9 + np.arange(4.0)                                            # Unix seconds, 1 s apart
    np.testing.assert_array_equal(observations_from_arrays(x, unix, u).t, unix)
    far = 1e9 + np.arange(21.0)                                              # positions 1e9 + 0..20
    obs = observations_from_arrays(far, unix, u)
    assert obs.x.size == 21 and obs.x[0] == 1e9 and obs.x[-1] == 1e9 + 20


def test_a_uniform_grid_printed_to_few_decimals_is_accepted_snapped_and_said():
    from binn_utils.analysis.user_data import observations_from_arrays
    x, t, u = _grid(n_x=7)                                                   # spacing 1/6
    obs = observations_from_arrays(np.round(x, 3), t, u)
    np.testing.assert_allclose(obs.x, x, atol=1e-15)
    assert "x is written to 3 decimal(s); its 7 values were snapped to the uniform grid" in obs.describe()
    bent = np.round(x, 3)
    bent[3] += 0.004                                                         # more than the rounding
    with pytest.raises(ValueError, match="must be equally spaced"):
        observations_from_arrays(bent, t, u)


def test_a_meshgrid_is_named_as_such():
    from binn_utils.analysis.user_data import observations_from_arrays
    x, t, u = _grid()
    X, T = np.meshgrid(x, t)
    with pytest.raises(ValueError, match=r"x must be 1-D \(the grid's axis\), got shape \(4, 11\): .*meshgrid"):
        observations_from_arrays(X, t, u)


def _csv(path, rows, encoding="utf-8", sep=","):
    path.write_bytes("".join(sep.join(map(str, r)) + "\n" for r in rows).encode(encoding))
    return path


def _long_rows(extra=None):
    x, t, u = _grid()
    head = ["x", "t", "density"] + ([extra] if extra else [])
    return [head] + [[f"{xv:g}", f"{tv:g}", f"{u[k, j]:.6g}"] + (["9"] if extra else [])
                     for k, tv in enumerate(t) for j, xv in enumerate(x)]


def _fit_argv(path, tmp_path, *more):
    return ["fit", str(path), "--mechanisms", "D", "--u", "density", "--scale", "quick", "--batch-size", "10",
            *more, "--out", str(tmp_path / "out")]


def test_two_columns_of_one_name_are_an_error(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv", _long_rows(extra="density"))
    err = _one_line(capsys, _fit_argv(path, tmp_path))
    assert "the header names column 'density' 2 times (fields 3, 4)" in err and "rename the others" in err


def _plan_only(monkeypatch):
    from binn_utils.applications import fit_report

    def stop(plan, **kw):
        raise KeyboardInterrupt("stopped before training")
    monkeypatch.setattr(fit_report, "run_fit", stop)


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab")])
def test_binn_fit_detects_the_separator_and_says_so(tmp_path, capsys, monkeypatch, sep, name):
    _plan_only(monkeypatch)
    path = _csv(tmp_path / "d.csv", _long_rows(), sep=sep)
    assert cli.main(_fit_argv(path, tmp_path)) == 130
    assert f"detected: {name}-separated (--delimiter" in capsys.readouterr().out
    err = _one_line(capsys, _fit_argv(path, tmp_path, "--delimiter", ","))
    assert f"{name}-separated, read it with --delimiter" in err


def test_binn_fit_encodings_are_detected_or_named_with_an_option(tmp_path, capsys, monkeypatch):
    _plan_only(monkeypatch)
    rows = _long_rows()
    rows[0][2] = "densité"
    latin = _csv(tmp_path / "latin.csv", rows, encoding="latin-1")
    err = _one_line(capsys, _fit_argv(latin, tmp_path, "--u", "densité"))
    assert "--encoding 'latin-1' or 'cp1252'" in err
    assert cli.main(_fit_argv(latin, tmp_path, "--u", "densité", "--encoding", "latin-1")) == 130
    utf16 = _csv(tmp_path / "utf16.csv", rows, encoding="utf-16")             # with its byte-order mark
    assert cli.main(_fit_argv(utf16, tmp_path, "--u", "densité")) == 130
    assert "read as utf-16 text" in capsys.readouterr().out
    no_bom = _csv(tmp_path / "utf16le.csv", rows, encoding="utf-16-le")
    assert "--encoding 'utf-16'" in _one_line(capsys, _fit_argv(no_bom, tmp_path, "--u", "densité"))


def test_a_folder_given_as_the_data_file(tmp_path, capsys):
    err = _one_line(capsys, _fit_argv(tmp_path, tmp_path))
    assert "is a folder, not a data file: name the CSV file inside it" in err


def test_too_few_points_for_a_batch_prescribes_the_option(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv", _long_rows())
    err = _one_line(capsys, _fit_argv(path, tmp_path, "--batch-size", "100"))
    assert "--batch-size 35" in err


def test_negative_times_are_values_not_options(a_fit, capsys):
    out, _ = a_fit
    err = _one_line(capsys, ["predict", str(out), "--t", "-10,0,10", "--u-grid", "0:1:3", "--out", str(out.parent / "p")])
    assert "a prediction needs both --ic" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["status", "all"], ["sweep", "learning_rate", "--scale",
                                                                                   "quick", "--dry-run"],
                                  ["migrate", "--results-dir", "store"]])
def test_a_full_stdout_is_one_line_and_a_nonzero_status(argv, tmp_path):
    """`binn ... > /dev/full`: one line on stderr naming the cause, exit status 1, no traceback
    (--help exited 0 with its output lost; status and --dry-run ended in an OSError traceback)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    (tmp_path / "store" / "runs").mkdir(parents=True)            # an empty store for migrate
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-c", "import sys; from binn_utils.applications import main; "
                              "sys.exit(main())", *argv], stdout=full, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip() == "binn: cannot write the output: No space left on device", out.stderr


def test_a_store_lock_held_elsewhere_is_reported_not_waited_on_in_silence(tmp_path):
    """Another process holds the store folder's lock: the writer says so (one warning naming the
    folder) and writes once the lock is released."""
    import fcntl
    import threading
    held = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    threading.Timer(1.0, lambda: os.close(held)).start()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with store.folder_lock(tmp_path):
            pass
    said = [str(w.message) for w in caught if issubclass(w.category, StoreWarning)]
    assert len(said) == 1 and f"waiting for the lock of {tmp_path}" in said[0]


# ----------------------------------------------------------------------------- 6. paths binn cannot use
@pytest.mark.parametrize("error", [PermissionError(13, "Permission denied", "/somewhere/runs"),
                                   NotADirectoryError(20, "Not a directory", "/somewhere/runs")])
def test_a_path_binn_cannot_use_is_one_line_naming_it(error, capsys, monkeypatch):
    """A results folder, a record or a data file this user may not read (root may read anything,
    so the error is raised where binn meets it): one line naming it, status 1, no traceback."""
    from binn_utils import applications

    def refused(*a, **k):
        raise error
    monkeypatch.setattr(cli, "requested_settings", refused)
    monkeypatch.setattr(sys, "argv", ["binn", "status", "learning_rate"])
    assert applications.main() == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"binn: cannot use /somewhere/runs: {error.strerror}")


def test_a_long_cell_in_a_column_nobody_asked_for_is_read(tmp_path, capsys, monkeypatch):
    """A 200 kB note in an unused column (csv refuses cells over 131,072 characters by default)."""
    _plan_only(monkeypatch)
    rows = _long_rows(extra="note")
    rows[1][-1] = "x" * 200_000
    path = _csv(tmp_path / "d.csv", rows)
    assert cli.main(_fit_argv(path, tmp_path)) == 130      # read, planned, stopped before training
    import csv
    assert csv.field_size_limit() == 131072                 # the module's limit is put back


def test_a_binary_cluster_config_names_the_file_and_the_option(tmp_path):
    from binn_utils.store.clusters import load_cluster_config
    path = tmp_path / "cluster.toml"
    path.write_bytes(b"\x9b\xff\x00binary")
    with pytest.raises(ValueError) as info:
        load_cluster_config(path, "slurm")
    assert str(path) in str(info.value) and "--cluster-config" in str(info.value)
    assert "is not UTF-8 text" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_make_rerun_into_a_file_is_one_line_before_any_work(kind, tmp_path, capsys):
    import importlib.util
    spec = importlib.util.spec_from_file_location("rerun", Path(__file__).parents[1] / "scripts" / "rerun.py")
    rerun = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rerun)
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    out = blocker if kind == "file" else blocker / "out"
    assert rerun.main(["noise", str(out), "-p", "scale", "quick"]) == 2
    err = capsys.readouterr().err
    said = "it is a file" if kind == "file" else f"lies under {blocker}, which is a file"
    assert len(err.strip().splitlines()) == 1 and said in err and str(out) in err
    assert blocker.read_text() == "mine"


def test_a_killed_fits_temporary_folder_is_removed_by_the_next_fit_into_that_folder(tmp_path):
    """SIGKILL while a fit writes leaves .OUT.tmp-*; the next fit into OUT removes it once it is
    old enough not to belong to a fit writing now, and leaves anything else alone."""
    from binn_utils.applications.fit_report import STALE_TEMPORARY_S, remove_stale_temporaries
    out = tmp_path / "fit"
    old, young, other = (tmp_path / ".fit.tmp-abc123", tmp_path / ".fit.tmp-def456", tmp_path / ".other.tmp-x")
    for d in (old, young, other):
        d.mkdir()
        (d / "report.html").write_text("partial")
    past = time.time() - STALE_TEMPORARY_S - 60
    os.utime(old, (past, past))
    os.utime(other, (past, past))
    assert remove_stale_temporaries(out) == [old]
    assert not old.exists() and young.exists() and other.exists()


def test_predict_never_writes_over_files_it_did_not_write(a_fit, capsys, tmp_path, monkeypatch):
    """--out holding the user's own files, or the current folder: one line before any work,
    nothing touched (their operators.csv was overwritten without a word)."""
    out, _ = a_fit
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "operators.csv").write_text("my own table")
    (mine / "notes.txt").write_text("mine")
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:0.001:3", "--out", str(mine)])
    assert "holds other files (notes.txt)" in err and (mine / "operators.csv").read_text() == "my own table"
    monkeypatch.chdir(mine)
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:0.001:3", "--out", "."])
    assert "is the current folder or one above it" in err and (mine / "operators.csv").read_text() == "my own table"


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_an_interrupted_or_failed_prediction_leaves_the_previous_one_whole(a_fit, capsys, tmp_path, monkeypatch,
                                                                           failure):
    """Ctrl-C while the figure is drawn, or a full disk: the previous prediction's files whole
    (they were overwritten one by one, the CSV left mid-row), and no temporary folder left."""
    import matplotlib.figure
    out, _ = a_fit
    pred = tmp_path / "pred"
    ic = tmp_path / "ic.csv"
    ic.write_text("x,u\n" + "".join(f"{x:g},{0.0005 + 0.0001 * (x > 500)}\n" for x in np.linspace(0, 1000, 11)))
    argv = ["predict", str(out), "--ic", str(ic), "--x", "x", "--u", "u", "--t", "0,12,24", "--u-grid", "0:0.001:5",
            "--forward-method", "BDF", "--out", str(pred)]
    assert cli.main(argv) == 0
    before = _snapshot(pred)
    assert set(before) == {"operators.csv", "predictions.csv", "predictions.npz", "predictions.png"}

    def fail(self, path, *a, **k):
        if isinstance(failure, OSError):
            raise OSError(failure.errno, failure.strerror, str(path))
        raise failure
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fail)
    again = list(argv)
    again[argv.index("--t") + 1] = "0,6,12,24"                  # other times: other numbers
    try:
        rc = cli.main(again)
    except KeyboardInterrupt:
        rc = 130
    assert rc == (130 if isinstance(failure, KeyboardInterrupt) else 1)
    assert _snapshot(pred) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _listening(reply: bytes | None):
    """A TCP server on 127.0.0.1 that accepts and then sends ``reply`` (None: nothing, ever);
    its port and a function that stops it."""
    import socket
    import threading
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    held, stop = [], threading.Event()

    def serve():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            held.append(conn)
            if reply is not None:
                conn.sendall(reply)
    threading.Thread(target=serve, daemon=True).start()

    def close():
        stop.set()
        for c in held:
            c.close()
        srv.close()
    return srv.getsockname()[1], close


@pytest.mark.parametrize("reply, said", [(None, "sent no Dask handshake within 1 s"),
                                         (b"HTTP/1.1 400 Bad Request\r\n\r\n", "it answers HTTP"),
                                         (b"\xff" * 16, "not a Dask handshake"),
                                         (b"\x00" * 8, "not a Dask handshake"),     # was struct.error
                                         (b"abc", "it sent 3 byte(s) and then nothing within 1 s"),
                                         (b"\x00" * 16, "not a Dask handshake")])
def test_a_scheduler_address_where_something_else_listens_is_one_line_in_time(capsys, tmp_path, monkeypatch,
                                                                              reply, said):
    """An HTTP server (the dashboard's port), a service that accepts and never answers, or a
    proxy's answer read as a message of 3 EiB: one line within the documented time-out."""
    from binn_utils.store import clusters
    monkeypatch.setattr(clusters, "CONNECT_TIMEOUT_S", 1)
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [_setting(5e-4)])
    port, close = _listening(reply)
    try:
        start = time.monotonic()
        err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                                 "--scheduler", f"tcp://127.0.0.1:{port}"])
        assert time.monotonic() - start < 10
    finally:
        close()
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port}: " in err and said in err


def test_predict_bounds_its_work_and_says_where_it_extrapolates(a_fit, capsys, tmp_path):
    """A grid of u of ten million values: one line before any work.  Many output times: the
    figure draws a dozen (it drew one panel per time and hung), the tables hold all.  Times past
    the span the fit saw: a note.  An explicit solver on a fine grid: a note naming BDF."""
    from binn_utils.applications.requests import fine_grid_note
    out, _ = a_fit
    err = _one_line(capsys, ["predict", str(out), "--u-grid", "0:0.003:10000000", "--out", str(tmp_path / "p")])
    assert "asks for 10000000 values of u; at most 100000" in err and not (tmp_path / "p").exists()
    ic = tmp_path / "ic.csv"
    ic.write_text("x,u\n" + "".join(f"{x:g},0.0005\n" for x in np.linspace(0, 1000, 11)))
    times = ",".join(f"{v:g}" for v in np.linspace(0, 96, 30))
    assert cli.main(["predict", str(out), "--ic", str(ic), "--t", times, "--forward-method", "BDF",
                     "--out", str(tmp_path / "p")]) in (0, 1)     # 1: every solve of this one-epoch fit failed
    said = capsys.readouterr().out
    assert "the figure shows 12 of the 30 times" in said
    assert "longer than the 48 the fit saw in its data" in said
    z = np.load(tmp_path / "p" / "predictions.npz")
    assert z["u_p"].shape[1] == 30
    assert "--forward-method BDF" in fine_grid_note(1000, "RK45")
    assert fine_grid_note(1000, "BDF") is None and fine_grid_note(71, "RK45") is None


def test_a_file_read_in_the_wrong_encoding_is_named_as_such_in_one_short_line(tmp_path, capsys):
    """A UTF-8 file read with --encoding utf-16: its header is mojibake (7.8 kB of it was the
    error line); one short line that asks whether the encoding is right.  A header of Chinese
    column names is not mojibake."""
    from binn_utils.analysis.user_csv import garbled
    rows = _long_rows()
    path = _csv(tmp_path / "d.csv", rows)
    if path.stat().st_size % 2:                     # an even number of bytes decodes as UTF-16 (to mojibake)
        path = _csv(tmp_path / "d.csv", rows[:-1])
    err = _one_line(capsys, _fit_argv(path, tmp_path, "--encoding", "utf-16"))
    assert "does not read as column names" in err and "is the text encoding right?" in err and len(err) < 400
    odd = tmp_path / "odd.csv"                      # an odd number: not UTF-16 at all, but UTF-8
    odd.write_bytes(path.read_bytes() + b"\n")
    err = _one_line(capsys, _fit_argv(odd, tmp_path, "--encoding", "utf-16"))
    assert "--encoding 'utf-8'" in err and "latin-1" not in err
    assert not garbled(["位置", "时间", "密度"]) and not garbled(["x", "t", "densité (µm⁻²)"])


def test_a_named_pipe_or_an_unreadable_record_in_the_store_is_damaged_not_a_hang(copied, capsys, monkeypatch):
    """A .npz replaced by a named pipe hung `binn status` (the read never ends); a record this
    user may not read was a traceback.  Both: a warning naming the file, counted missing."""
    small, large, root = copied
    npz, _ = small.paths(root)
    npz.unlink()
    os.mkfifo(npz)
    _, js = large.paths(root)
    real = Path.read_text

    def refused(self, *a, **k):
        if self == js:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)
    monkeypatch.setattr(Path, "read_text", refused)
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [small, large])
    out, warned = _status(capsys, root)
    assert "0/2 settings stored" in out and len(warned) == 2
    assert any(f"{npz.name}: not a regular file" in w for w in warned)
    assert any(f"{js.name}: cannot be read (Permission denied)" in w for w in warned)


@pytest.mark.parametrize("decimals", [1, 2])
def test_a_grid_written_to_too_few_decimals_is_told_so_truly(decimals):
    """Positions k/3 written to 1 or 2 decimals move by more than 1 % of the spacing when
    snapped: refused, and the error says why (it said rounding was accepted and these differ by
    more, which was false); to 3 decimals they are snapped."""
    from binn_utils.analysis.user_observations import uniform_grid
    nodes = np.round(np.arange(21) / 3, decimals)
    with pytest.raises(ValueError, match=f"written to {decimals} decimal\\(s\\), too few for their spacing"):
        uniform_grid(nodes, "d.csv", "x")
    snapped, note = uniform_grid(np.round(np.arange(21) / 3, 3), "d.csv", "x")
    assert note and np.allclose(snapped, np.arange(21) / 3)


def test_migrate_never_seals_a_record_whose_errors_were_edited(copied):
    """A record with its checksums stripped and an error edited was sealed by `binn migrate`
    with a fresh checksum, making the edit look sound.  Its errors are now checked against its
    own arrays first: the edited one is left unsealed (damaged), the untouched one migrates."""
    small, large, root = copied
    for s, edit in ((small, 0.6), (large, 0.0)):
        _, js = s.paths(root)
        rec = json.loads(js.read_text())
        for k in (store.RECORD_CHECKSUM_FIELD, store.FORMAT_FIELD, store.CHECKSUM_FIELD):
            rec.pop(k, None)
        rec["metrics"]["best"]["err_u_theta"][0] += edit
        js.write_bytes(store.json_bytes(rec))
    outcome = {Path(k).stem: v for k, v in migrate_store(root).items()}
    assert outcome[small.key].startswith("damaged") and "do not match its arrays (edited?)" in outcome[small.key]
    assert outcome[large.key] == "migrated"
    assert store.RECORD_CHECKSUM_FIELD not in json.loads(small.paths(root)[1].read_text())


def test_migrate_on_a_folder_it_cannot_list_says_so(copied, capsys, monkeypatch):
    """runs/ unreadable: `binn migrate` said "0 record(s) migrated" (an empty-looking store),
    exit 0.  Now one line naming the folder, exit 1 (root lists anything: the refusal is raised
    where the walk meets it)."""
    from binn_utils import applications
    from binn_utils.store import migration
    _, _, root = copied
    real = os.walk

    def walk(top, onerror=None, **k):
        if onerror is not None:
            onerror(PermissionError(13, "Permission denied", str(Path(top) / "runs")))
        return real(top, onerror=onerror, **k)
    monkeypatch.setattr(migration.os, "walk", walk)
    monkeypatch.setattr(sys, "argv", ["binn", "migrate", "--results-dir", str(root)])
    assert applications.main() == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"binn: cannot use {root / 'runs'}: Permission denied (check that it exists as the kind "
                           "of path asked for and that this user may read and write it)")


# ----------------------------------------------------------------------------- issue 51: a way out of every state
def _strip_checksum(rec):
    rec.pop(store.RECORD_CHECKSUM_FIELD)           # a current record with the field removed
    return rec


def _legacy_edited(rec):
    for k in (store.CHECKSUM_FIELD, store.FORMAT_FIELD, store.RECORD_CHECKSUM_FIELD):
        rec.pop(k)                                 # an unsealed record ...
    rec["metrics"]["best"]["err_u_theta"][0] *= 1.5  # ... with one edited value
    return rec


@pytest.mark.parametrize("damage", [_strip_checksum, lambda rec: {}, _legacy_edited],
                         ids=["checksum field removed", "{}", "unsealed with one edited value"])
def test_every_record_that_cannot_be_sealed_has_one_way_out_and_every_command_names_it(copied, capsys,
                                                                                        monkeypatch, damage):
    """Such a record was a dead end: `status` said `binn migrate` seals it, `migrate` called it
    damaged, `sweep` refused until `migrate` had run.  Now all three call it damaged and name
    `binn sweep`, which trains it again; afterwards it is stored and sound."""
    small, _, root = copied
    npz, js = small.paths(root)
    js.write_bytes(store.json_bytes(damage(json.loads(js.read_text()))))
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [small])
    argv = ["learning_rate", "--scale", "quick", "--results-dir", str(root), "--workers", "1"]
    assert cli.main(["status", *argv[:-2]]) == 0
    out, err = capsys.readouterr()
    assert "0/1 settings stored" in out and "binn migrate" not in out + err, out + err
    assert str(js.name) in err and "`binn sweep`) trains it again" in err, err
    assert cli.main(["migrate", "--results-dir", str(root)]) == 1
    out, err = capsys.readouterr()
    assert "1 damaged" in out and "`binn sweep`, trains them again" in out and str(js) in err, out + err
    assert cli.main(["sweep", *argv]) == 0                      # the way out: trained again
    assert "1 of 1 settings run and stored" in capsys.readouterr().out
    assert cli.main(["status", *argv[:-2]]) == 0
    assert "1/1 settings stored" in capsys.readouterr().out
    assert store.is_sealed(json.loads(js.read_text()))


def test_an_unsealed_record_whose_arrays_verify_is_sealed_by_the_command_status_and_sweep_name(copied, capsys,
                                                                                                monkeypatch):
    small, _, root = copied
    npz, js = small.paths(root)
    rec = json.loads(js.read_text())
    for k in (store.CHECKSUM_FIELD, store.FORMAT_FIELD, store.RECORD_CHECKSUM_FIELD):
        rec.pop(k)
    js.write_bytes(store.json_bytes(rec))
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [small])
    argv = ["learning_rate", "--scale", "quick", "--results-dir", str(root)]
    assert cli.main(["status", *argv]) == 0
    out = capsys.readouterr().out
    assert "1 stored record(s) have no checksum" in out and f"`binn migrate --results-dir {root}` seals" in out
    assert "binn migrate" in _one_line(capsys, ["sweep", *argv, "--workers", "1"])   # refused: it would train over it
    assert cli.main(["migrate", "--results-dir", str(root)]) == 0
    assert "1 record(s) migrated" in capsys.readouterr().out
    assert cli.main(["status", *argv]) == 0
    assert "1/1 settings stored" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_sweep_leaves_no_process_behind(tmp_path, sig):
    """`binn sweep ... --workers 1` killed (SIGKILL, SIGTERM: nothing of its own runs to end its
    children) left its forward-solve worker and multiprocessing's resource tracker running,
    holding its standard output, so that `binn sweep ... | tee log` never returned.  Now every
    process it started ends within seconds, and its output pipe closes."""
    argv = ["sweep", "learning_rate", "--scale", "quick", "--epochs", "3000", "--workers", "1",
            "--solve-workers", "1", "--results-dir", str(tmp_path)]
    proc = subprocess.Popen([sys.executable, "-c", BINN_ENTRY_POINT, *argv], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    seen = []
    try:
        deadline = time.monotonic() + 180
        while len(seen := _workers_of(proc)) < 2:          # the solve worker and the resource tracker
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(sig)
        try:
            proc.communicate(timeout=30)                    # its stdout closes: `| tee` returns
        except subprocess.TimeoutExpired:
            pytest.fail("the sweep's standard output is still open 30 s after it was killed")
        deadline = time.monotonic() + 10
        while (left := [w for w in seen if w.is_running() and w.status() != "zombie"]) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not left, f"left running: {[' '.join(w.cmdline()) for w in left]}"
    finally:
        import psutil
        for w in seen:                                      # only what this test started
            with contextlib.suppress(psutil.Error):
                w.kill()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()



# ----------------------------------------------------------------------------- issue 51: no silent fall-back
@pytest.mark.parametrize("address, said", [
    ("", "must name a Dask scheduler (tcp://HOST:PORT), got an empty string"),
    ("tls://127.0.0.1:8786", "over tcp:// only, not tls://"),
    ("ws://127.0.0.1:8787", "over tcp:// only, not ws://"),
    ("wss://127.0.0.1:8787", "over tcp:// only, not wss://"),
    ("ucx://127.0.0.1:8786", "over tcp:// only, not ucx://"),
    ("inproc://127.0.0.1/1/2", "over tcp:// only, not inproc://"),
])
def test_a_scheduler_address_binn_cannot_use_is_refused_before_any_work(capsys, no_training, tmp_path, address,
                                                                         said):
    """`--scheduler ''` (an unset shell variable) ran a local cluster; tls:// and ws:// reached the
    Dask client and ended in a traceback.  Now one line naming the scheme binn connects with, exit 2."""
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path),
                             "--scheduler", address])
    assert said in err and "--scheduler" in err


def test_a_scheduler_of_another_scheme_in_the_environment_is_refused_too(capsys, no_training, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("BINN_SCHEDULER", "tls://127.0.0.1:8786")
    err = _one_line(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path)])
    assert "over tcp:// only, not tls://" in err


def test_status_refuses_a_results_folder_under_a_file_as_sweep_does(capsys, no_training, tmp_path):
    """`binn status --results-dir afile/sub` said "0/7 settings stored" where `sweep` refuses it."""
    (tmp_path / "afile").write_text("x")
    for cmd, verb in (("status", "read results in"), ("sweep", "store results in")):
        err = _one_line(capsys, [cmd, "learning_rate", "--scale", "quick", "--results-dir",
                                 str(tmp_path / "afile" / "sub")])
        assert f"cannot {verb} {tmp_path / 'afile' / 'sub'}: it lies under {tmp_path / 'afile'}, which is a file" \
            in err, err


def test_a_dry_run_writes_nothing(capsys, no_training, tmp_path):
    """`binn sweep --dry-run` created the results folder and its runs/ (at / too)."""
    where = tmp_path / "new" / "results"
    assert cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(where), "--dry-run"]) == 0
    assert "groups" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["status", "learning_rate", "--scale", "quick"],
                                  ["sweep", "learning_rate", "--scale", "quick", "--dry-run"],
                                  ["--version"]])
def test_a_closed_stdout_is_one_line_and_nothing_runs(argv, tmp_path):
    """`binn status >&-` ended in a traceback (AttributeError: sys.stdout is None)."""
    if argv[0] != "--version":
        argv = [*argv, "--results-dir", str(tmp_path / "results")]
    res = subprocess.run(["sh", "-c", '"$0" "$@" >&-', sys.executable, "-c", BINN_ENTRY_POINT, *argv],
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == ["binn: standard output is closed (>&-): nothing was run; give it a "
                                               "file, or > /dev/null to discard what binn says"], res.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("manifest", ["{}", "[]", '{"scales": [], "default": "lite"}', "{not json",
                                      '{"scales": {"learning_rate": "huge"}, "default": "lite"}',
                                      '{"scales": {}, "default": "lite", "datasets": {"noise": -3}}',
                                      '{"scales": {}, "default": "lite", "authors_data": {"noise": "abc"}}',
                                      '{"scales": {}, "default": "lite", "distinct_seeds": [1]}',
                                      '{"scales": {}, "default": "lite", "distinct_seeds": {"ours": [1]}}'])
def test_a_damaged_manifest_is_one_line_naming_it(capsys, no_training, tmp_path, monkeypatch, manifest):
    """`results/manifest.json` as {} or []: a traceback (KeyError, TypeError).  Now one line naming it."""
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "manifest.json").write_text(manifest)
    monkeypatch.setattr(stores, "default_results_dir", lambda: tmp_path / "results")
    err = _one_line(capsys, ["status", "learning_rate"])      # the scale: the manifest's
    assert str(Path("results") / "manifest.json") in err and "restore it from git" in err, err


def test_the_scales_a_manifest_may_name_are_the_studies_scales():
    from binn_utils.studies.base import SCALES
    assert set(stores.MANIFEST_SCALES) == set(SCALES)


def _rerun():
    import importlib.util
    spec = importlib.util.spec_from_file_location("rerun", ROOT / "scripts" / "rerun.py")
    rerun = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rerun)
    return rerun


def _results_files():
    return sorted(str(p) for p in (ROOT / "results").rglob("*"))


@pytest.mark.parametrize("out, params, said", [
    ("", [], "OUT is empty (an unset shell variable?)"),
    ("results", [], "lies in the committed results"),
    ("results/runs", [], "lies in the committed results"),
    ("OUT", ["-p", "source", ""], "parameter source must name a folder, got an empty string"),
    ("OUT", ["-p", "source", "../results"], "parameter source names the committed results"),
], ids=["OUT empty", "OUT=results", "OUT=results/runs", "source empty", "source=results"])
@pytest.mark.parametrize("dry", [True, False], ids=["dry run", "run"])
def test_make_rerun_refuses_an_empty_place_and_the_committed_store(tmp_path, capsys, monkeypatch, out, params,
                                                                   said, dry):
    """An empty OUT or source fell back to a default; OUT=results wrote a notebook and a .src/ folder
    into the committed store.  Now one line, exit 2, nothing written (neither there nor in OUT)."""
    monkeypatch.chdir(ROOT)
    before = _results_files()
    out = str(tmp_path / "out") if out == "OUT" else out
    rc = _rerun().main((["--dry-run"] if dry else []) + ["noise", out, "-p", "scale", "quick", *params])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and said in err, err
    assert _results_files() == before
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.ipynb"))


def test_make_rerun_dry_run_writes_nothing(tmp_path, capsys):
    out = tmp_path / "a" / "b"
    assert _rerun().main(["--dry-run", "noise", str(out), "-p", "scale", "quick"]) == 0
    assert "would run notebooks/noise.py" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_make_rerun_is_one_line_and_status_130(tmp_path, capsys, monkeypatch):
    rerun = _rerun()

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(rerun, "notebook_parameters", interrupted)
    assert rerun.main(["noise", str(tmp_path / "out"), "-p", "scale", "quick"]) == 130
    err = capsys.readouterr().err
    assert err.startswith("make rerun: interrupted") and err.count("\n") == 1 and "Traceback" not in err


def test_an_in_process_rerun_gives_the_log_back_after_its_ctrl_c(tmp_path, monkeypatch, capsys):
    """The Ctrl-C handler silences the log of the ending run; a caller of ``main`` in its own
    process (IPython, a test) gets its log and its Ctrl-C back."""
    import logging
    from types import SimpleNamespace
    import psutil
    rerun = _rerun()
    before = logging.root.manager.disable
    monkeypatch.setattr(psutil, "Process", lambda *a: SimpleNamespace(children=lambda recursive=True: []))
    monkeypatch.setattr(rerun, "notebook_parameters", lambda *a, **k: rerun._end_kernel_then_interrupt(2, None))
    handler = signal.getsignal(signal.SIGINT)
    assert rerun.main(["noise", str(tmp_path / "out"), "-p", "scale", "quick"]) == 130
    assert logging.root.manager.disable == before and signal.getsignal(signal.SIGINT) is handler
    assert capsys.readouterr().err.startswith("make rerun: interrupted")


_ABANDONED_CELL = """
import asyncio, gc, logging, sys
sys.path.insert(0, 'scripts')
import rerun
if sys.argv[1] == 'ctrl-c':
    try:
        rerun._end_kernel_then_interrupt(2, None)
    except KeyboardInterrupt:
        pass
async def cell():
    logging.getLogger('papermill').error('Kernel died while waiting for execute reply.')
    raise RuntimeError('Kernel died')
loop = asyncio.new_event_loop()
task = loop.create_task(cell())
loop.run_until_complete(asyncio.sleep(0.05))
del task
gc.collect()
"""


@pytest.mark.parametrize("ctrl_c", [False, True], ids=["no ctrl-c", "ctrl-c"])
def test_after_ctrl_c_an_abandoned_cell_task_prints_nothing(ctrl_c):
    """The CI saw a real Ctrl-C print nbclient's "Kernel died" and asyncio's "Task exception was
    never retrieved" with a traceback: the ended kernel's cell task, collected at exit.  After the
    rerun's Ctrl-C handler, the same abandoned task and log line print nothing (without it, both)."""
    res = subprocess.run([sys.executable, "-c", _ABANDONED_CELL, "ctrl-c" if ctrl_c else "-"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0
    if ctrl_c:
        assert res.stderr == "", res.stderr
    else:
        assert "Task exception was never retrieved" in res.stderr and "Kernel died while" in res.stderr


def _first_cell_done(proc, seen: list, deadline: float) -> bool:
    """Read ``proc``'s stdout (bytes, the progress bar's partial lines included) into ``seen``
    until the bar says a first cell is done, or ``deadline`` (time.monotonic) passes."""
    import re
    import select
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        chunk = os.read(proc.stdout.fileno(), 4096) if ready else b""
        if ready and not chunk:
            return False
        seen.append(chunk)
        if re.search(rb"cells: .*\| *[1-9][0-9]*/[0-9]+", b"".join(seen)):
            return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("when", ["starting", "kernel running"])
def test_a_real_ctrl_c_during_make_rerun_is_one_line_and_ends_the_kernel(tmp_path, when):
    """Ctrl-C while papermill starts the notebook's kernel: the kernel's own ZMQ traceback came
    through; now the kernel is ended first, and one line, status 130.  ``when``: just after the
    rerun says what it runs (its line just before papermill starts; a fixed time from the
    process's start could fall while a loaded machine still imports the package), or once the
    progress bar says the kernel has run the first cell (a fixed time after the line could fall
    after the quick notebook's last cell, on a fast machine, or as the process ends)."""
    import psutil
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "rerun.py"), "noise", str(tmp_path / "out"),
                             "-p", "scale", "quick"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    kids, seen = [], []
    try:
        assert proc.stdout.readline().startswith(b"make rerun: notebooks/noise.py with")
        if when == "kernel running":
            assert _first_cell_done(proc, seen, time.monotonic() + 300), b"".join(seen).decode()
        with contextlib.suppress(psutil.Error):
            kids = psutil.Process(proc.pid).children(recursive=True)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    out, err = (b"".join(seen) + out).decode(), err.decode()
    lines = [ln for ln in err.splitlines() if ln.strip() and "Kernel is running over TCP" not in ln]
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert lines == ["make rerun: interrupted: the notebook did not finish (what it wrote into OUT is partial)"], err
    assert "make rerun: wrote" not in out, out       # interrupted while the notebook ran, not after
    if when == "kernel running":   # the kernel, a process of the rerun's, was there to be ended
        assert kids, out
    time.sleep(1.0)
    assert not [k for k in kids if k.is_running() and k.status() != "zombie"], "the kernel is left running"


def test_make_rerun_into_an_out_it_cannot_write_is_one_line(tmp_path, capsys, monkeypatch):
    """OUT that cannot be made (under /proc), or that cannot be written once the notebook runs
    (papermill's write refused): a traceback; now one line naming it, exit 2."""
    rerun = _rerun()
    if Path("/proc/self").exists():
        assert rerun.main(["noise", "/proc/binn-rerun", "-p", "scale", "quick"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("make rerun: OUT=/proc/binn-rerun: cannot store results in") and err.count("\n") == 1
    import papermill

    def refused(src, dst, **k):
        raise PermissionError(13, "Permission denied", dst)
    monkeypatch.setattr(papermill, "execute_notebook", refused)
    assert rerun.main(["noise", str(tmp_path), "-p", "scale", "quick"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"make rerun: cannot write {tmp_path / 'noise.ipynb'}: Permission denied"], err


# ----------------------------------------------------------------------------- issue 51: one thread per process
def test_tests_and_in_process_sweeps_train_on_one_thread(tmp_path):
    """Two trainings side by side with torch's default threads (one per core) ran five times slower
    each.  The test session runs torch on one thread, and an in-process sweep (a notebook's
    load_or_run, `binn sweep --workers 1`) sets one thread however the process started."""
    import torch
    assert torch.get_num_threads() == 1
    code = ("import torch, sys; from pathlib import Path; sys.path.insert(0, 'tests');"
            "from test_hostile import _setting; from binn_utils.store.runner import run_settings;"
            "torch.set_num_threads(2); run_settings([_setting(5e-4)], Path(sys.argv[1]), workers=1, progress=False);"
            "print(torch.get_num_threads())")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1"], res.stdout


def test_a_batch_system_that_refuses_the_jobs_ends_the_sweep_in_one_line(capsys, tmp_path, monkeypatch):
    """An `sbatch` that fails (a wrong account, a full queue) was only logged: the sweep said '1
    job(s) submitted' and waited for ever; now it ends in one line, the cluster closed."""
    from binn_utils.store import clusters
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "sbatch").write_text("#!/bin/sh\necho 'sbatch: error: fake refusal' >&2\nexit 1\n")
    (fake / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(clusters, "SUBMIT_TIMEOUT_S", 5)
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [_setting(5e-4)])
    try:
        rc = cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "rq"),
                       "--cluster", "slurm"])
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 1 and "the batch system did not accept the 1 job(s) within 5 s (`sbatch` failed" in err, err
    assert "job(s) submitted" not in err
