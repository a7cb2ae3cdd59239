"""Sweeps on Dask (a LocalCluster of 2 single-threaded workers, tiny settings): the same
numbers as the in-process path, a killed worker, a failing setting, the batch-system dry run."""
import json
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

from binn_utils.engine.training import TrainConfig
from binn_utils.store.loading import load_setting
from binn_utils.store.runner import run_settings
from binn_utils.store.setting import Setting, replicates

distributed = pytest.importorskip("distributed")

TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), arch_V=(2, 4), arch_G=(2, 4), epochs=3, compile=False)


def _settings(n, epochs=3):
    ds, ss = replicates(2)
    return [Setting("test", f"s{i}", "diffusion", 1e-3, False, ds, ss,
                    TINY.replace(lr=10.0 ** -(2 + i), epochs=epochs)) for i in range(n)]


def _assert_same_numbers(sets, dir_a, dir_b):
    for s in sets:
        a, b = load_setting(s, dir_a), load_setting(s, dir_b)
        assert set(a.arrays) == set(b.arrays)
        for k in a.arrays:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        for k in ("metrics", "status", "epochs_run", "config", "seeds", "datasets", "trained_with", "u_range"):
            assert getattr(a.record, k) == getattr(b.record, k), k


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 single-threaded worker processes, as `binn sweep` starts one."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            Client(c) as client:
        yield c, client


@pytest.mark.slow
def test_dask_sweep_stores_the_same_numbers_as_the_serial_path(tmp_path, capsys):
    sets = _settings(3)
    # workers=2: an embedded LocalCluster started and closed by the call
    assert sorted(run_settings(sets, tmp_path / "dask", workers=2, progress=True)) == sorted(s.key for s in sets)
    err = capsys.readouterr().err
    assert "LocalCluster of 2 single-threaded worker processes" in err and "GiB memory limit each" in err
    assert "3/3" in err                                                  # the progress bar over settings
    assert run_settings(sets, tmp_path / "serial", workers=1, progress=False) == [s.key for s in sets]
    _assert_same_numbers(sets, tmp_path / "dask", tmp_path / "serial")
    # merged groups too: the same grouping gives the same numbers on either path
    assert len(run_settings(sets, tmp_path / "dask-merged", workers=2, progress=False, merge=True,
                            max_group_replicates=4)) == 3
    run_settings(sets, tmp_path / "serial-merged", workers=1, progress=False, merge=True, max_group_replicates=4)
    _assert_same_numbers(sets, tmp_path / "dask-merged", tmp_path / "serial-merged")
    assert load_setting(sets[0], tmp_path / "dask-merged").record.trained_with == {"settings": 2, "replicates": 4}


def _executing(dask_worker):
    return len(dask_worker.state.executing)


@pytest.mark.slow
def test_a_killed_worker_does_not_lose_settings(tmp_path, cluster):
    _, client = cluster
    sets = _settings(4, epochs=200)
    killed = {}

    def kill_one_busy_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            busy = [addr for addr, n in client.run(_executing).items() if n]
            if busy:
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                killed.update(pid=pid, stored_before=sum(s.is_done(tmp_path) for s in sets))
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one_busy_worker, daemon=True)
    killer.start()
    done = run_settings(sets, tmp_path, progress=False, scheduler=client.scheduler.address)
    killer.join(timeout=5)
    assert killed, "no worker was ever seen executing a task"
    assert killed["stored_before"] < len(sets), "the worker was killed after the sweep had finished"
    assert sorted(done) == sorted(s.key for s in sets)
    assert all(s.is_done(tmp_path) for s in sets)
    assert not [p.name for p in (tmp_path / "runs").iterdir() if p.name.startswith(".") or ".tmp" in p.name]
    with pytest.raises(OSError):
        os.kill(killed["pid"], 0)                     # the killed process is gone
    assert killed["pid"] not in client.run(os.getpid).values()


@pytest.mark.slow
def test_a_failing_setting_on_dask_is_recorded_and_the_others_finish(tmp_path, cluster):
    _, client = cluster
    good = _settings(2)
    bad = _settings(1, epochs=4)[0]
    object.__setattr__(bad, "benchmark", "no_such_benchmark")     # raises inside the task, on a worker
    with pytest.raises(RuntimeError, match=r"(?s)1 of 3 settings failed.*no_such_benchmark"):
        run_settings([bad] + good, tmp_path, progress=False, scheduler=client.scheduler.address)
    assert all(s.is_done(tmp_path) for s in good) and not bad.is_done(tmp_path)


def test_existing_scheduler_from_the_environment(tmp_path, monkeypatch, cluster):
    """BINN_SCHEDULER names the scheduler when no scheduler argument does (even for one group)."""
    _, client = cluster
    monkeypatch.setenv("BINN_SCHEDULER", client.scheduler.address)
    s, = _settings(1)
    before = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert run_settings([s], tmp_path, workers=1, progress=False) == [s.key]
    after = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert sum(after.values()) == sum(before.values()) + 1      # it ran on the cluster, not in-process


def test_stop_starting_after_starts_nothing_more_on_either_path(tmp_path, cluster, capsys):
    _, client = cluster
    sets = _settings(2)
    assert run_settings(sets, tmp_path, workers=1, progress=False, stop_starting_after=0) == []
    assert run_settings(sets, tmp_path, progress=False, scheduler=client.scheduler.address,
                        stop_starting_after=0) == []
    assert not any(s.is_done(tmp_path) for s in sets)
    assert capsys.readouterr().err.count("time window: 2 of 2 settings not run") == 2


@pytest.mark.slow
def test_hard_stop_abandons_running_groups_and_closes_the_cluster(tmp_path, capsys):
    slow = _settings(2, epochs=10 ** 6)
    t0 = time.monotonic()
    # 20 s: time to start the cluster and both groups (they would run for hours)
    assert run_settings(slow, tmp_path, workers=2, progress=False, hard_stop_after=20) == []
    assert time.monotonic() - t0 < 90
    err = capsys.readouterr().err
    # both groups were submitted; how many had started by then depends on the machine's load
    assert re.search(r"hard stop after 20 s: [12] running group\(s\) abandoned", err)
    assert "time window: 2 of 2 settings not run" in err
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_priority_orders_the_groups_by_their_cost():
    from binn_utils.store.setting import group_cost, order_groups
    short, long_, wide = _settings(1)[0], _settings(1, epochs=300)[0], _settings(1)[0]
    wide = Setting("test", "wide", "diffusion", 1e-3, False, wide.datasets, wide.seeds,
                   TINY.replace(arch_u=(2, 24)))
    groups = [[short], [long_], [wide]]
    assert order_groups(groups) == groups
    assert order_groups(groups, "longest") == [[long_], [wide], [short]]
    assert order_groups(groups, "shortest") == [[short], [wide], [long_]]
    assert group_cost([long_]) == pytest.approx(100 * group_cost([short]))
    with pytest.raises(ValueError, match="unknown priority"):
        order_groups(groups, "random")


def _forbid_store_writes(dask_worker=None):
    """Make every store write in this (worker) process fail; returns the previous function."""
    from binn_utils.store import records

    def refuse(*a, **k):
        raise PermissionError("a worker wrote into the store")
    previous = records.write_pair
    records.write_pair = refuse
    return previous is not refuse


@pytest.mark.slow
def test_workers_never_write_into_the_store(tmp_path, cluster):
    """With store writes made to fail inside every worker process, a sweep still stores
    everything: the client (this process) writes, the workers only return results."""
    _, client = cluster
    assert all(client.run(_forbid_store_writes).values())
    sets = _settings(2)
    assert sorted(run_settings(sets, tmp_path, progress=False, scheduler=client.scheduler.address)) == \
        sorted(s.key for s in sets)
    assert all(s.is_done(tmp_path) for s in sets)
    # the patch is live on the workers: a task that writes there fails
    def write_there():
        from binn_utils.store import records
        records.write_pair(tmp_path / "x.npz", tmp_path / "x.json", {}, {})
    with pytest.raises(PermissionError, match="a worker wrote into the store"):
        client.submit(write_there, pure=False).result()


def test_replicate_steps_count_every_optimiser_step_of_every_replicate():
    from binn_utils.engine.observations import make_observations
    from binn_utils.store.setting import replicate_steps
    n_train = len(make_observations("diffusion", 0.0).train_idx)
    s, = _settings(1, epochs=7)
    for batch in (10, 10 ** 6):
        t = Setting("test", "b", "diffusion", 1e-3, False, s.datasets, s.seeds, s.config.replace(batch_size=batch))
        assert replicate_steps(t) == 7 * -(-n_train // min(batch, n_train)) * 2


def test_forward_solves_in_a_process_pool_give_the_same_records(tmp_path):
    """In-process sweeps run the u_p solves in a process pool, each group's evaluation beside
    the next group's training: the same numbers and statuses as solving them one after the
    other in line."""
    sets = _settings(2)
    for n in (1, 2):
        run_settings(sets, tmp_path / f"pool{n}", workers=1, progress=False, solve_workers=n)
    run_settings(sets, tmp_path / "serial", workers=1, progress=False, solve_workers=0)
    for n in (1, 2):
        _assert_same_numbers(sets, tmp_path / f"pool{n}", tmp_path / "serial")



def test_a_groups_evaluation_runs_beside_the_next_groups_training(tmp_path, monkeypatch):
    """With a solve process, group k is evaluated in the sweep's evaluation thread while
    group k + 1 trains in the main thread; each is stored once its evaluation is done."""
    import threading
    import binn_utils.store.compute as sw
    import binn_utils.store.runner as runner
    events, lock = [], threading.Lock()

    def logged(name, fn):
        def call(*a, **k):
            label = (a[0][0] if name == "train" else a[0].settings[0]).label
            with lock:
                events.append((name, "start", label, threading.current_thread().name))
            out = fn(*a, **k)
            with lock:
                events.append((name, "end", label, threading.current_thread().name))
            return out
        return call
    monkeypatch.setattr(sw, "compute_group", logged("train", sw.compute_group))
    monkeypatch.setattr(runner, "evaluate_group", logged("evaluate", sw.evaluate_group))
    real_store = runner.store_computed

    def store(setting, *a):
        events.append(("store", "-", setting.label, threading.current_thread().name))
        return real_store(setting, *a)
    monkeypatch.setattr(runner, "store_computed", store)
    sets = _settings(3, epochs=40)
    assert run_settings(sets, tmp_path, workers=1, progress=False, solve_workers=1) == [s.key for s in sets]
    threads = {(name, label): thread for name, when, label, thread in events}
    assert {threads[(name, s.label)] for s in sets for name in ("train", "store")} == {"MainThread"}
    assert all(threads[("evaluate", s.label)].startswith("binn-evaluate") for s in sets)
    order = [(name, when, label) for name, when, label, _ in events]
    # the first group's evaluation starts before the second group's training ends, and at
    # most one evaluation waits: the second starts after the first is stored
    assert order.index(("evaluate", "start", "s0")) < order.index(("train", "end", "s1"))
    assert order.index(("store", "-", "s0")) < order.index(("evaluate", "start", "s1"))


def test_ctrl_c_while_the_next_group_trains_stores_the_group_trained_before(tmp_path, monkeypatch):
    """A group whose evaluation runs beside the next group's training is finished and stored
    when Ctrl-C comes during that training: only the interrupted group is lost."""
    import binn_utils.store.compute as sw
    real = sw.compute_group

    def interrupted(group, **kw):
        if group[0].label == "s1":
            raise KeyboardInterrupt
        return real(group, **kw)
    monkeypatch.setattr(sw, "compute_group", interrupted)
    sets = _settings(2, epochs=40)
    with pytest.raises(KeyboardInterrupt, match="1 of 2 settings finished and stored"):
        run_settings(sets, tmp_path, workers=1, progress=False, solve_workers=1)
    assert [s.is_done(tmp_path) for s in sets] == [True, False]


def test_a_failed_evaluation_beside_the_training_is_counted_and_the_others_stored(tmp_path, monkeypatch):
    import binn_utils.store.compute as sw
    import binn_utils.store.runner as runner

    def failing(trained, *a, **k):
        if trained.settings[0].label == "s1":
            raise FloatingPointError("a forward solve broke")
        return sw.evaluate_group(trained, *a, **k)
    monkeypatch.setattr(runner, "evaluate_group", failing)
    sets = _settings(3)
    with pytest.raises(RuntimeError, match=r"(?s)1 of 3 settings failed.*s1.*a forward solve broke"):
        run_settings(sets, tmp_path, workers=1, progress=False, solve_workers=1)
    assert [s.is_done(tmp_path) for s in sets] == [True, False, True]

def _long_setting():
    return [Setting("test", "long", "diffusion", 1e-3, False, *replicates(2), TINY.replace(epochs=9, chunk_epochs=2))]


def _stop_after_first_segment(monkeypatch, results):
    """A sweep interrupted (Ctrl-C) while the group's second segment trains."""
    import binn_utils.store.compute as sw
    real = sw.compute_group

    def interrupted(*a, **k):
        if k["state"] is not None:
            raise KeyboardInterrupt
        return real(*a, **k)
    with monkeypatch.context() as m:
        m.setattr(sw, "compute_group", interrupted)
        with pytest.raises(KeyboardInterrupt, match="rerun the same command"):
            run_settings(_long_setting(), results, workers=1, progress=False, checkpoint_every=3)


def test_a_stopped_sweep_resumes_a_group_at_its_checkpoint(tmp_path, monkeypatch):
    """A group longer than --checkpoint-every trains in segments; interrupted during its
    second segment, it keeps the checkpoint of the first, and the next sweep resumes there
    and stores the same numbers as an uninterrupted sweep; the checkpoint is then removed."""
    import binn_utils.store.compute as sw
    sets = _long_setting()
    run_settings(sets, tmp_path / "whole", workers=1, progress=False, checkpoint_every=None)
    _stop_after_first_segment(monkeypatch, tmp_path / "cut")
    ck = list((tmp_path / "cut" / "checkpoints").glob("group-*.json"))
    assert len(ck) == 1 and not sets[0].is_done(tmp_path / "cut")
    assert json.loads(ck[0].read_text())["epoch"] == 4              # 3 rounded up to whole chunks of 2
    starts = []
    real = sw.compute_group
    monkeypatch.setattr(sw, "compute_group", lambda *a, **k: starts.append(k["state"].epoch) or real(*a, **k))
    assert run_settings(sets, tmp_path / "cut", workers=1, progress=False, checkpoint_every=3) == [sets[0].key]
    assert starts == [4, 8]                                           # resumed, never from zero
    assert not list((tmp_path / "cut" / "checkpoints").glob("group-*"))
    _assert_same_numbers(sets, tmp_path / "whole", tmp_path / "cut")


def test_the_sweep_bar_moves_at_each_checkpoint_and_counts_only_this_run(tmp_path, monkeypatch):
    """A sweep of long groups showed 0 settings of N (and no time left) until its first group
    was stored, hours in; the bar now moves, in the groups' cost, at each checkpoint, and a
    resumed group's earlier epochs are not counted as this run's pace."""
    import tqdm
    bars = []

    class Bar:
        def __init__(self, total, desc, **kw):
            self.total, self.n, self.seen, self.post = total, 0.0, [], [desc]
            bars.append(self)

        def update(self, d):
            self.n += d
            self.seen.append(self.n / self.total)

        def set_description_str(self, s, refresh=True):
            self.post.append(s)

        def write(self, *a, **k):
            pass

        def close(self):
            pass
    monkeypatch.setattr(tqdm, "tqdm", Bar)
    run_settings(_long_setting(), tmp_path / "whole", workers=1, progress=False, checkpoint_every=3)
    assert bars[-1].seen == pytest.approx([4 / 9, 8 / 9, 1.0])          # epochs 4 and 8 of 9, then stored
    assert bars[-1].post == ["settings, 0/1 settings stored"] * 3 + ["settings, 1/1 settings stored"]
    _stop_after_first_segment(monkeypatch, tmp_path / "cut")            # a checkpoint at epoch 4
    run_settings(_long_setting(), tmp_path / "cut", workers=1, progress=False, checkpoint_every=3)
    assert bars[-1].seen == pytest.approx([4 / 5, 1.0])                 # of the 5 epochs this run trains


def test_a_damaged_checkpoint_is_not_trusted(tmp_path, monkeypatch):
    import binn_utils.store.runner as runner
    _stop_after_first_segment(monkeypatch, tmp_path / "cut")
    npz = next((tmp_path / "cut" / "checkpoints").glob("group-*.npz"))
    npz.write_bytes(npz.read_bytes()[:100])
    with pytest.warns(runner.records.StoreWarning, match="damaged.*not resumed from: its group trains again from the start"):
        assert runner._Sweep(tmp_path / "cut", 1, None).checkpoint(_long_setting()) is None


def test_segments_through_dask_give_the_same_numbers(tmp_path):
    """On Dask each segment is a task that returns the training state; the client keeps it
    and submits the next: the same numbers as one uninterrupted in-process run."""
    sets = _long_setting() + [Setting("test", "short", "diffusion", 1e-3, False, *replicates(2), TINY)]
    run_settings(sets, tmp_path / "whole", workers=1, progress=False, checkpoint_every=None)
    run_settings(sets, tmp_path / "dask", workers=2, progress=False, checkpoint_every=3)
    _assert_same_numbers(sets, tmp_path / "whole", tmp_path / "dask")
    assert not list((tmp_path / "dask" / "checkpoints").glob("group-*"))
