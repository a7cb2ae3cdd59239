"""The authors' data rebuilt (``--data authors``): their clean solution and noise draw exactly,
a seeded split of their sizes per dataset index, a stored key of its own, clear refusals."""
import json
from pathlib import Path

import numpy as np
import pytest

from binn_utils import studies
from binn_utils.applications import cli
from binn_utils.engine.observations import AUTHORS_DATASETS, AUTHORS_FIGURES, make_observations
from binn_utils.engine.problems import get_benchmark, reference_solution
from binn_utils.store import records
from binn_utils.store.setting import Setting, on_data
from binn_utils.store.sweep_record import SweepRecord


def _authors(key):
    with np.load(AUTHORS_DATASETS) as z:
        return z[key]


@pytest.mark.parametrize("name, seed", [("burgers", 2), ("porous_medium", 2), ("diffusion_advection", 2),
                                        ("diffusion", 8)])
def test_the_noise_is_their_scripts_draw_and_the_clean_solution_theirs(name, seed):
    """Their scripts seed numpy's legacy generator and draw randn(7, 71) once (DATASETS.md)."""
    fig = AUTHORS_FIGURES[name]
    obs = make_observations(name, 1e-3, data="authors")
    z = np.random.RandomState(seed).randn(7, 71)
    np.testing.assert_array_equal(obs.u_clean, _authors(f"{fig}/u_clean"))
    np.testing.assert_allclose(obs.u_obs, obs.u_clean + np.sqrt(1e-3) * z, rtol=0, atol=1e-15)
    np.testing.assert_allclose(obs.u_obs, _authors(f"{fig}/u_observed_var0.001"), rtol=0, atol=1e-15)
    # their clean solution is ours up to the solver (Burgers: periodic against Neumann; diffusion-advection:
    # their finite elements): within a tenth of the noise standard deviation
    assert np.max(np.abs(obs.u_clean - reference_solution(get_benchmark(name)))) < 0.1 * np.sqrt(1e-3)


def test_fig1_takes_the_draw_of_each_variance():
    bench = get_benchmark("nonlinear_adr", initial="code")
    fig = AUTHORS_FIGURES["nonlinear_adr"]
    a, b = (make_observations(bench, v, data="authors") for v in (1e-3, 1e-2))
    np.testing.assert_allclose(a.u_obs, _authors(f"{fig}/u_observed_71pt_var0.001"), rtol=0, atol=1e-15)
    np.testing.assert_allclose((b.u_obs - b.u_clean) / 0.1, _authors(f"{fig}/noise_standard_normal_71pt_draw3"),
                               rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="draws noise for the variances"):
        make_observations(bench, 5e-2, data="authors")
    with pytest.raises(ValueError, match="code's reaction and initial condition"):
        make_observations(get_benchmark("nonlinear_adr"), 1e-3, data="authors")


def test_each_dataset_index_is_one_split_of_their_sizes_of_the_same_data():
    a, b = (make_observations("burgers", 1e-3, dataset=d, data="authors") for d in (0, 1))
    np.testing.assert_array_equal(a.u_obs, b.u_obs)
    for o in (a, b):
        assert (len(o.train_idx), len(o.val_idx), len(o.test_idx)) == (397, 49, 51)
        assert sorted(np.concatenate([o.train_idx, o.val_idx, o.test_idx])) == list(range(497))
    assert not np.array_equal(a.train_idx, b.train_idx)
    again = make_observations("burgers", 1e-3, dataset=1, data="authors")
    np.testing.assert_array_equal(again.train_idx, b.train_idx)
    assert "the authors' data, split 1" in b.describe()


def test_a_setting_on_their_data_has_a_key_of_its_own_and_ours_keeps_the_committed_key():
    ours, = studies.get("learning_rate").settings("quick", rates=(5e-4,))
    theirs, = on_data([ours], "authors")
    assert theirs.key != ours.key and theirs.spec()["data"] == "authors"
    legacy = {k: v for k, v in ours.spec().items() if k != "data"}      # a record stored before the field
    assert ours.key == records.key_of(ours.benchmark, legacy)
    with pytest.raises(ValueError, match="71-point grid only"):
        on_data(studies.get("learning_rate").settings("quick", rates=(5e-4,), dense=True), "authors")
    with pytest.raises(ValueError, match="unknown data"):
        on_data([ours], "theirs")


def test_the_record_states_whose_data_and_reads_older_ones_as_ours(tmp_path):
    s, = on_data(studies.get("learning_rate").settings("quick", rates=(5e-4,)), "authors")
    stored = (json.loads(p.read_text()) for p in
              sorted((Path(__file__).resolve().parents[1] / "results" / "runs").glob("burgers-*.json")))
    d = next(r for r in stored if not r["dense"] and r["noise_var"] == 1e-3)
    assert "data" not in d
    rec = SweepRecord.from_json(d)
    assert rec.data == "ours" and "data" not in rec.to_json()
    theirs = SweepRecord.from_json({**d, "data": "authors"})
    assert theirs.to_json()["data"] == "authors"
    assert Setting.from_record(theirs).data == "authors"
    assert s.data == "authors"


@pytest.mark.parametrize("args, message", [
    (["loss_weight", "--dense", "--data", "authors"], "71-point grid only"),
    (["framework", "--noise-var", "0.05", "--data", "authors"], "draws noise for the variances"),
    (["loss_weight", "--data", "theirs"], "invalid choice: 'theirs'"),
])
def test_cli_refuses_what_the_authors_data_do_not_have_in_one_line(capsys, monkeypatch, args, message):
    monkeypatch.setattr(cli, "run_settings", lambda *a, **k: (_ for _ in ()).throw(AssertionError("trained")))
    for cmd in ("sweep", "status"):
        with pytest.raises(SystemExit) as exc:
            cli.main([cmd, *args, "--scale", "quick"])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
