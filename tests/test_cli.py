"""The `binn` command: usage errors before any work, where results go, what it reports, Ctrl-C."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import torch

from binn_utils import studies
from binn_utils.applications import cli
from binn_utils.engine.training import TrainConfig
from binn_utils.store import provenance, records, stores
from binn_utils.store.records import StoreWarning
from binn_utils.store.runner import run_settings
from binn_utils.store.setting import Setting, replicates

ROOT = Path(__file__).resolve().parents[1]
TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, compile=False)


def _needs_dask_jobqueue():
    """Skip without dask_jobqueue, found without importing it here (its import sets SIGINT's
    handler to sys.exit in the importing process; the command's own import puts it back)."""
    import importlib.util
    if importlib.util.find_spec("dask_jobqueue") is None:
        pytest.skip("needs dask_jobqueue")


def _tiny(label="a", **kw):
    ds, ss = replicates(2)
    return Setting("test", label, "diffusion", 1e-3, False, ds, ss, TINY.replace(**kw))


@pytest.fixture
def no_training(monkeypatch):
    """Fail the test if the CLI gets as far as training."""
    def refuse(*a, **k):
        raise AssertionError("the CLI started a sweep")
    monkeypatch.setattr(cli, "run_settings", refuse)


def _usage_error(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("args, message", [
    (["--epochs", "0"], "--epochs: must be a positive integer, got 0"),
    (["--epochs", "-1"], "--epochs: must be a positive integer, got -1"),
    (["--epochs", "1.5"], "--epochs: must be a positive integer, got '1.5'"),
    (["--seeds", "0"], "--seeds: must be a positive integer, got 0"),
    (["--seeds", "-1"], "--seeds: must be a positive integer"),
    (["--workers", "0"], "--workers: must be a positive integer, got 0"),
    (["--workers", "-3"], "--workers: must be a positive integer"),
    (["--noise-var", "-1"], "--noise-var: must be a finite number >= 0, got -1"),
    (["--noise-var", "nan"], "--noise-var: must be a finite number >= 0, got nan"),
    (["--forward-method", "Euler"], "invalid choice: 'Euler'"),
    (["--noise-var", "1e-400"], "--noise-var: 1e-400 is too small to be told from 0"),
    (["--noise-var", "1e-320"], "--noise-var: 1e-320 is too small to be told from 0"),   # subnormal: digits lost
    (["--noise-var", "1e300"], "--noise-var: 1e300 is infinite in float32, where training runs"),  # data all inf
    (["--noise-var", "1e80"], "--noise-var: 1e80 is infinite in float32"),
    (["--results-dir", ""], "--results-dir: must name a folder, got an empty string"),
    (["--results-dir", "  "], "--results-dir: must name a folder"),
    (["--datasets", "0"], "--datasets: must be a positive integer, got 0"),
])
@pytest.mark.parametrize("cmd", ["sweep", "status"])
def test_bad_arguments_are_one_line_usage_errors(capsys, no_training, cmd, args, message):
    assert message in _usage_error(capsys, [cmd, "learning_rate", "--scale", "quick", *args])


def test_minus_zero_noise_is_the_same_setting_as_zero():
    from binn_utils.applications import arguments
    args = cli.parser().parse_args(["status", "learning_rate", "--noise-var", "-0.0"])
    assert args.noise_var == 0.0 and str(args.noise_var) == "0.0"
    a, = studies.get("learning_rate").settings("quick", noise_var=-0.0, rates=(5e-4,))
    b, = studies.get("learning_rate").settings("quick", noise_var=0.0, rates=(5e-4,))
    assert a.key == b.key
    assert arguments.noise_variance("0e5") == 0.0      # a zero written otherwise is still zero


def test_version_names_the_package_and_exits_0(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("binn 0.")


def test_datasets_multiplies_a_main_text_setting_keeping_the_one_dataset_key():
    one = cli.settings_for("loss_weight", "quick")
    five = cli.settings_for("loss_weight", "quick", datasets=5)
    assert [s.key for s in cli.settings_for("loss_weight", "quick", datasets=1)] == [s.key for s in one]
    assert sorted(set(five[0].datasets)) == [0, 1, 2, 3, 4] and len(five[0].seeds) == 5 * len(one[0].seeds)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_missing_gpu_is_a_usage_error_before_any_work(capsys, no_training, tmp_path):
    err = _usage_error(capsys, ["sweep", "learning_rate", "--scale", "quick", "--device", "cuda",
                                "--results-dir", str(tmp_path)])
    assert "no CUDA GPU is available" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_gpu_is_needed_where_the_workers_run_not_where_binn_runs(capsys, no_training, tmp_path):
    """With batch-system workers (or a scheduler) the GPU is theirs: a login node without one may submit."""
    _needs_dask_jobqueue()
    config = tmp_path / "cluster.toml"
    config.write_text('[slurm]\nqueue = "gpu"\njob_extra_directives = ["--gres=gpu:1"]\n')
    base = ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "r"),
            "--cluster", "slurm", "--cluster-config", str(config), "--dry-run"]
    assert cli.main(base + ["--device", "cuda"]) == 0
    assert "#SBATCH --gres=gpu:1" in capsys.readouterr().out
    assert "device must be 'cpu' or 'cuda[:k]'" in _usage_error(capsys, base + ["--device", "meta"])
    assert "unknown device 'gpu'" in _usage_error(capsys, base + ["--device", "gpu"])


def test_an_unusable_results_folder_is_a_usage_error_before_any_work(capsys, no_training, tmp_path):
    afile = tmp_path / "results.txt"
    afile.write_text("")
    for cmd in ("sweep", "status"):
        assert f"{afile}: it is a file" in _usage_error(capsys, [cmd, "learning_rate", "--results-dir", str(afile)])
        err = _usage_error(capsys, [cmd, "learning_rate", "--results-dir", str(afile / "below")])
        assert f"lies under {afile}, which is a file" in err


def test_quick_results_never_go_to_the_committed_store(monkeypatch, tmp_path, capsys):
    """Without --results-dir the quick scale writes to out/results-quick, the others to results/."""
    monkeypatch.setattr(stores, "default_results_dir", lambda: tmp_path / "results")
    used = []
    monkeypatch.setattr(cli, "run_settings", lambda sets, results_dir, **kw: used.append(Path(results_dir)) or [])
    assert cli.main(["sweep", "learning_rate", "--scale", "quick"]) == 0
    assert cli.main(["sweep", "learning_rate", "--scale", "lite"]) == 0
    assert cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "mine")]) == 0
    assert cli.main(["sweep", "learning_rate", "--preset", "quick"]) == 0       # the old name of --scale
    assert used == [tmp_path / "out" / "results-quick", tmp_path / "results", tmp_path / "mine",
                    tmp_path / "out" / "results-quick"]
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.json"))


def test_settings_stored_with_another_integrator_are_reported_not_silently_reused(monkeypatch, tmp_path, capsys):
    s = _tiny()
    run_settings([s], tmp_path, workers=1, progress=False, forward_method="BDF")
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [s])
    assert cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0 of 1 settings to run" in out
    assert "1 stored setting(s) have u_p from another integrator than RK45 (1 with BDF)" in out
    assert json.loads(s.paths(tmp_path)[1].read_text())["forward_method"] == "BDF"   # kept as it was
    assert cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path), "--forward-method", "BDF"]) == 0
    assert "another integrator" not in capsys.readouterr().out


def test_status_names_damaged_files_and_migrate_adds_checksums(monkeypatch, tmp_path, capsys):
    a, b = _tiny("a"), _tiny("b", lr=1e-3)
    run_settings([a, b], tmp_path, workers=1, progress=False)
    monkeypatch.setattr(cli, "settings_for", lambda *a_, **k: [a, b])
    npz_a, js_a = a.paths(tmp_path)
    js_a.write_text(js_a.read_text()[:300])                              # damaged
    npz_b, js_b = b.paths(tmp_path)
    rec = json.loads(js_b.read_text())
    del rec[records.CHECKSUM_FIELD], rec[records.FORMAT_FIELD], rec[records.RECORD_CHECKSUM_FIELD]  # before
    js_b.write_bytes(records.json_bytes(rec))
    assert cli.main(["status", "learning_rate", "--results-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "0/2 settings stored" in out and "1 stored record(s) have no checksum" in out and "`binn migrate" in out
    assert err.count("binn: warning: damaged stored result") == 1 and str(js_a) in err
    assert cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path), "--dry-run"]) == 0
    assert "1 stored record(s) have no checksum" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:      # a sweep would train it again over itself: refused first
        cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path)])
    assert stop.value.code == 2 and "have no checksum" in capsys.readouterr().err
    # a chapter's load_or_run refuses in the same words before it trains anything
    from binn_utils.store import loading
    monkeypatch.setattr(loading, "run_settings", lambda *a_, **k: pytest.fail("trained over an unsealed record"))
    with pytest.raises(RuntimeError, match=r"1 stored record\(s\) have no checksum .*`binn migrate --results-dir"):
        loading.load_or_run([b], "quick", source=tmp_path)
    assert json.loads(js_b.read_text()) == rec                                # untouched
    assert cli.main(["migrate", "--results-dir", str(tmp_path)]) == 1        # one damaged record
    out, err = capsys.readouterr()
    assert "1 record(s) migrated, 0 already current, 1 damaged" in out and str(js_a) in err
    assert json.loads(js_b.read_text())[records.CHECKSUM_FIELD] == records.sha256_bytes(npz_b.read_bytes())


def _children(pid):
    """Live child processes of ``pid`` (Linux /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(d.name))
    return out


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("to", ["client", "process group"])
def test_ctrl_c_stops_a_multi_worker_sweep_within_seconds_keeping_finished_work(tmp_path, to):
    """SIGINT to the sweeping process alone, or to its whole process group as a terminal's
    Ctrl-C sends it (the Dask workers get it too)."""
    script = textwrap.dedent(f"""
        import sys
        from binn_utils.store.runner import run_settings
        from binn_utils.store.setting import Setting
        from binn_utils.engine.training import TrainConfig
        cfg = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, compile=False)
        fast = [Setting("t", f"fast{{i}}", "diffusion", 1e-3, False, (0,), (i,), cfg) for i in range(2)]
        slow = [Setting("t", f"slow{{i}}", "diffusion", 1e-3, False, (0,), (i,), cfg.replace(epochs=10 ** 6))
                for i in range(2)]
        try:
            run_settings(fast + slow, {str(tmp_path)!r}, workers=2, progress=False)
        except KeyboardInterrupt as err:
            print(err, flush=True)
            sys.exit(130)
        """)
    cfg = TINY.replace(epochs=2)
    fast = [Setting("t", f"fast{i}", "diffusion", 1e-3, False, (0,), (i,), cfg) for i in range(2)]
    slow = [Setting("t", f"slow{i}", "diffusion", 1e-3, False, (0,), (i,), cfg.replace(epochs=10 ** 6))
            for i in range(2)]
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StoreWarning)       # a pair being written right now
            while not all(s.is_done(tmp_path) for s in fast):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the fast settings never finished"
                time.sleep(0.5)
        time.sleep(2.0)                                          # the workers are on the slow ones now
        workers = _children(proc.pid)
        assert workers, "no worker processes found"
        t0 = time.monotonic()
        if to == "client":
            proc.send_signal(signal.SIGINT)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        stopped_after = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert stopped_after < 15
    assert "sweep interrupted: 2 of 4 settings finished and stored" in out
    assert all(s.is_done(tmp_path) for s in fast) and not any(s.is_done(tmp_path) for s in slow)
    time.sleep(1.0)
    assert not [p for p in workers if _alive(p)], "worker processes left running"


def test_a_second_ctrl_c_while_the_command_reports_the_first_is_ignored(monkeypatch, capsys):
    """An impatient second Ctrl-C while `binn` reports the first and ends its workers (it
    escaped as a KeyboardInterrupt: a traceback and no exit status 130): still the one line
    and status 130; SIGINT's handler is the one from before afterwards."""
    def interrupted(ap, args):
        raise KeyboardInterrupt("sweep interrupted: 0 of 7 settings finished and stored; rerun the same command "
                                "to continue")

    ended = []

    def second_press():                       # the second Ctrl-C comes while the workers are ended
        signal.raise_signal(signal.SIGINT)
        ended.append(True)

    monkeypatch.setattr(cli, "_run", interrupted)
    monkeypatch.setattr(cli, "_quiet_exit", second_press)
    monkeypatch.setattr(cli.interrupts, "main_thread_only", lambda: None)
    monkeypatch.setattr(sys, "argv", ["binn", "sweep", "learning_rate", "--scale", "quick"])
    before = signal.getsignal(signal.SIGINT)
    try:
        rc = cli.main()
    except KeyboardInterrupt:
        pytest.fail("the second Ctrl-C escaped binn's report of the first")
    assert rc == 130 and ended == [True]
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("binn sweep: sweep interrupted: 0 of 7")
    assert signal.getsignal(signal.SIGINT) is before


# ----------------------------------------------------------------------------- plans, clusters
def test_plan_studies_and_skip_studies_select_plan_entries(tmp_path, capsys, no_training):
    """Ported from the former scripts/gpu_sweep.py: an empty results folder, every setting missing."""
    base = ["sweep", "--plan", "quick-test", "--results-dir", str(tmp_path), "--dry-run"]
    assert cli.main(base) == 0
    everything = capsys.readouterr().out
    assert "quick-test:learning_rate: 7 of 7 settings to run" in everything
    assert "quick-test:architecture: 16 of 16 settings to run" in everything
    assert "23 groups, 23 settings, 46 replicates, " in everything and " M replicate-steps" in everything
    assert cli.main(base + ["--studies", "architecture"]) == 0
    only = capsys.readouterr().out
    assert "architecture" in only and "learning_rate" not in only
    assert cli.main(base + ["--skip-studies", "architecture"]) == 0
    rest = capsys.readouterr().out
    assert "learning_rate" in rest and "architecture" not in rest
    assert not list(tmp_path.rglob("*.json"))                          # nothing ran


def test_dry_run_orders_groups_by_priority(tmp_path, capsys, no_training):
    base = ["sweep", "--plan", "quick-test", "--results-dir", str(tmp_path), "--dry-run"]
    assert cli.main(base) == 0
    given = [line for line in capsys.readouterr().out.splitlines() if "group " in line]
    assert cli.main(base + ["--priority", "longest"]) == 0
    longest = [line for line in capsys.readouterr().out.splitlines() if "group " in line]
    assert len(given) == len(longest) == 23
    assert "learning_rate" in given[0] and "architecture" in given[-1]  # the plan's order
    costs = [float(line.rsplit("cost", 1)[1]) for line in longest]
    assert costs == sorted(costs, reverse=True) and costs[0] > costs[-1]
    given_costs = [float(line.rsplit("cost", 1)[1]) for line in given]
    assert given_costs != costs and sorted(given_costs) == sorted(costs)   # the same groups, reordered


@pytest.mark.parametrize("args, message", [
    (["--plan", "bogus"], "invalid choice: 'bogus'"),
    (["--plan", "quick-test", "--studies", "bogus"], "invalid choice: 'bogus'"),
    (["--plan", "quick-test", "--epochs", "0"], "--epochs: must be a positive integer, got 0"),
    (["--plan", "quick-test", "--scale", "quick"], "--scale cannot be combined with --plan"),
    (["learning_rate", "--plan", "quick-test"], "name one study (or all), or --plan"),
    ([], "name one study (or all), or --plan"),
    (["learning_rate", "--studies", "noise"], "--studies and --skip-studies select studies of a --plan"),
    (["learning_rate", "--stop-starting-after", "-1"], "must be a finite number of seconds >= 0"),
    (["learning_rate", "--cluster", "lsf"], "invalid choice: 'lsf'"),
    (["learning_rate", "--cluster-config", "c.toml"], "--cluster-config configures --cluster slurm"),
    (["learning_rate", "--cluster", "slurm", "--scheduler", "tcp://h:1"], "name one"),
])
def test_plan_and_cluster_usage_errors(capsys, no_training, tmp_path, args, message):
    assert message in _usage_error(capsys, ["sweep", *args, "--results-dir", str(tmp_path)])


def test_slurm_dry_run_renders_the_configured_directives(tmp_path, capsys, no_training):
    _needs_dask_jobqueue()
    config = tmp_path / "cluster.toml"
    config.write_text(textwrap.dedent("""
        [slurm]
        queue = "gpu-short"
        account = "binn-lab"
        walltime = "02:30:00"
        cores = 4
        memory = "16GB"
        job_extra_directives = ["--gres=gpu:1", "--constraint=a100"]
        jobs = 3
        """))
    assert cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "r"),
                     "--cluster", "slurm", "--cluster-config", str(config), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "slurm: 3 job(s) of this script would be submitted" in out
    for directive in ("#SBATCH -p gpu-short", "#SBATCH -A binn-lab", "#SBATCH -t 02:30:00",
                      "#SBATCH --cpus-per-task=4", "#SBATCH --gres=gpu:1", "#SBATCH --constraint=a100"):
        assert directive in out
    assert "--nthreads 1" in out and "--nworkers 4" in out          # single-threaded workers, one per core
    # pbs and sge come from the same config format
    config.write_text('[pbs]\nqueue = "long"\nwalltime = "01:00:00"\ncores = 2\nmemory = "8GB"\n'
                      'job_extra_directives = ["-l gpus=1"]\n')
    assert cli.main(["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "r"),
                     "--cluster", "pbs", "--cluster-config", str(config), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "#PBS -q long" in out and "#PBS -l gpus=1" in out and "walltime=01:00:00" in out
    assert not list(tmp_path.rglob("*.json"))                          # nothing ran
    # a config without the section asked for is a usage error
    err = _usage_error(capsys, ["sweep", "learning_rate", "--scale", "quick", "--results-dir", str(tmp_path / "r"),
                                "--cluster", "slurm", "--cluster-config", str(config), "--dry-run"])
    assert "has no [slurm] section" in err


def test_sweep_summary_counts_failures_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    import binn_utils.store.compute as sw
    good, bad = _tiny("good"), _tiny("bad", lr=1e-3)
    real = sw.compute_group
    monkeypatch.setattr(sw, "compute_group", lambda group, **kw: (
        (_ for _ in ()).throw(OSError("disk full")) if group[0].key == bad.key else real(group, **kw)))
    monkeypatch.setattr(cli, "settings_for", lambda *a, **k: [good, bad])
    assert cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path), "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert "1 of 2 settings failed" in err and "disk full" in err
    assert good.is_done(tmp_path) and not bad.is_done(tmp_path)
    assert cli.main(["sweep", "learning_rate", "--results-dir", str(tmp_path), "--workers", "1"]) == 1
    assert "learning_rate: 1 of 2 settings to run" in capsys.readouterr().out      # only the failed one again


@pytest.mark.parametrize("dirty, allow, refused", [(True, False, True), (True, True, False), (False, False, False)])
def test_paper_scale_sweeps_refuse_a_modified_tree_unless_allowed(monkeypatch, capsys, no_training, tmp_path,
                                                                   dirty, allow, refused):
    monkeypatch.setattr(provenance, "work_tree_state", lambda: {"commit": "abc", "dirty_worktree": dirty,
                                                           "diff_sha256": "d" if dirty else None})
    ran = []
    monkeypatch.setattr(cli, "run_settings", lambda todo, *a, **k: ran.append(len(todo)) or [])
    argv = ["sweep", "learning_rate", "--scale", "paper", "--results-dir", str(tmp_path)] + (["--allow-dirty"] * allow)
    if refused:
        assert "tracked files differ from commit abc" in _usage_error(capsys, argv)
        assert ran == []
    else:
        assert cli.main(argv) == 0 and ran == [7]


HEAVY = ("torch", "scipy", "matplotlib", "dask", "distributed")


@pytest.mark.parametrize("argv, code", [(["--help"], 0), (["sweep", "no_such_study"], 2),
                                        (["status", "learning_rate", "--scale", "quick"], 0)])
def test_help_usage_errors_and_status_import_no_torch_scipy_matplotlib_or_dask(tmp_path, argv, code):
    """`binn --help`, a usage error and `binn status` answer at once: a fresh process imports
    neither torch nor scipy, matplotlib or Dask (the trainer, the solvers and the figures
    load only when a command trains, solves or draws)."""
    probe = textwrap.dedent(f"""
        import sys
        from binn_utils.applications import cli
        try:
            code = cli.main({argv!r} + (["--results-dir", {str(tmp_path)!r}] if {argv[0]!r} == "status" else []))
        except SystemExit as exc:
            code = exc.code
        print(code, *sorted(m for m in {HEAVY!r} if m in sys.modules))
        """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].split() == [str(code)], f"exit status, then what it imported: {out.stdout}"


def test_fit_scales_are_the_studies_scales():
    """`binn fit --scale` offers the studies' scale names without importing the fit report
    (matplotlib); the fit's own table must name the same scales."""
    from binn_utils import studies
    from binn_utils.applications import fit_plan
    assert set(fit_plan.SCALES) == set(studies.SCALES)


def test_status_reads_the_committed_scale_and_says_which(capsys):
    """`binn status` without --scale reads the scale the committed results were run at (as the
    chapters do) and prints it; `binn sweep` keeps the book scale as its default."""
    assert cli.main(["status", "loss_weight"]) == 0
    out = capsys.readouterr().out
    assert f"(scale {stores.committed_scale('loss_weight')})" in out
    args = cli.parser().parse_args(["sweep", "loss_weight"])
    assert cli.default_scale(args, "loss_weight") == "book"


def test_status_and_sweep_count_what_failed_in_the_stored_settings():
    from types import SimpleNamespace as NS
    from binn_utils.store.sweep_record import SweepRecord, reported

    def rec(status, up):        # what failed is counted by the record's own method
        r = NS(status=tuple(status), metrics={reported(): NS(up_status=tuple(up))})
        r.failures = lambda which: SweepRecord.failures(r, which)
        return r
    assert cli.failed_words([rec(["ok"] * 3, ["ok"] * 3), None]) == ""
    assert cli.failed_words([rec(["diverged at epoch 1"] * 3, ["ok"] * 3), rec(["ok"] * 3, ["ok", "failed", "ok"])]) \
        == "; 3 of 6 replicates diverged in training and 1 of 6 forward solves failed"
    assert SweepRecord.failures(rec(["ok", "nan loss"], ["ok", "ok"]), "final") \
        == {"replicates": 2, "diverged": 1, "up_failed": 0}       # no such checkpoint: no solve counted


def test_status_of_a_results_folder_that_does_not_exist_is_a_usage_error(capsys, tmp_path):
    err = _usage_error(capsys, ["status", "noise", "--results-dir", str(tmp_path / "typo")])
    assert f"--results-dir {tmp_path / 'typo'}: no such folder" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["status", "noise", "--device", "banana"], "device must be 'cpu' or 'cuda[:k]', got 'banana'"),
    (["status", "all", "--scale", "paper", "--seeds", "10000", "--datasets", "1000"],
     "--seeds 10000 x --datasets 1000 is 10,000,000 replicates per setting; at most 10,000"),
    (["sweep", "noise", "--scale", "quick", "--seeds", "200", "--datasets", "51", "--dry-run"], "at most 10,000"),
    (["sweep", "noise", "--scale", "quick", "--max-group", "5", "--dry-run"], "--max-group bounds the batched models"),
    (["sweep", "noise", "--scale", "quick", "--workers", "2", "--solve-workers", "3", "--dry-run"],
     "--solve-workers runs the forward solves beside an in-process sweep"),
    (["sweep", "noise", "--scale", "quick", "--stop-starting-after", "100", "--hard-stop-after", "50", "--dry-run"],
     "--hard-stop-after 50 comes before --stop-starting-after 100"),
])
def test_options_that_contradict_each_other_or_do_nothing_are_usage_errors(capsys, argv, message):
    assert message in _usage_error(capsys, argv)


@pytest.mark.parametrize("argv, message", [
    (["--studies", "framework"], "framework not in --plan quick-test (its studies: "),
    (["--skip-studies", "framework"], "framework not in --plan quick-test"),
])
def test_studies_of_a_plan_must_be_in_it(capsys, argv, message):
    assert message in _usage_error(capsys, ["sweep", "--plan", "quick-test", *argv, "--dry-run"])


def test_skipping_every_study_of_a_plan_is_a_usage_error(capsys):
    studies_in = sorted({s for s, *_ in cli.plans()["quick-test"]})
    err = _usage_error(capsys, ["sweep", "--plan", "quick-test", "--skip-studies", *studies_in, "--dry-run"])
    assert "leave nothing of the plan to run" in err


def test_a_stores_runs_folder_given_as_the_store_is_named(capsys, tmp_path):
    """--results-dir results/runs (the records' folder, not the store) reported '0/7 stored'."""
    runs = tmp_path / "store" / "runs"
    runs.mkdir(parents=True)
    (runs / "diffusion-0123456789ab.json").write_text("{}")
    err = _usage_error(capsys, ["status", "learning_rate", "--results-dir", str(runs)])
    assert "it is a store's runs/ folder" in err and str(tmp_path / "store") in err
