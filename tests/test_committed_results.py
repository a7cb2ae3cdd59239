"""The committed results store covers every setting the book's figures need.

The store's manifest (`results/manifest.json`) names the scale each study's committed
results were run at; every chapter reads its scale from there (its `scale` parameter is
None). From the chapters' parameters (read from the Jupytext source, as papermill and the
book see them) each study's `settings_for_chapter` rebuilds the settings its chapter loads
(through the same `chapter_settings` where a study has one), and we check that every one
is stored, so that `make book` (which refuses to train) cannot fail on a
missing result, and a chapter's default cannot drift away from what was run.
"""
import ast
import json
import sys
from pathlib import Path

import pytest

from binn_utils import studies
from binn_utils.store.stores import committed_scale, committed_supporting_scales, default_results_dir, read_manifest
from binn_utils.studies.supporting import Page

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def parameters(notebook: str) -> dict:
    """The values assigned in the notebook's cell tagged `parameters`."""
    lines = (ROOT / "notebooks" / f"{notebook}.py").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# %%") and '"parameters"' in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# %%")), len(lines))
    values = {}
    for node in ast.parse("\n".join(lines[start + 1:end])).body:
        if isinstance(node, ast.Assign):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def supporting_settings(p: dict) -> list:
    """The settings the Supporting Material notebook loads with parameters ``p``: each study
    at ``scale``, or at ``fallback_scale`` where only that is stored, and its reference
    configuration at the same scale."""
    return Page.of(p).settings()


def book_settings() -> dict:
    """chapter -> the settings its figures load with the chapter's default parameters."""
    out = {st.chapter: st.settings_for_chapter(parameters(st.chapter))
           for st in studies.REGISTRY.values() if st.chapter}
    out["supplementary"] = supporting_settings(parameters("supplementary"))
    from render_supporting import CONFIGS
    for name, (_, params) in CONFIGS.items():
        out[f"supporting/{name}"] = supporting_settings({**parameters("supplementary"), **params})
    return out


@pytest.mark.parametrize("notebook", ["scorecard", "diagnostics", "supplementary"]
                         + [st.chapter for st in studies.REGISTRY.values() if st.chapter])
def test_notebooks_take_the_committed_scales_from_the_manifest(notebook):
    p = parameters(notebook)
    assert p["scale"] is None and p.get("reaction_scale") is None
    assert "study_presets" not in p and "preset" not in p  # the old name of `scale`


def test_the_manifest_names_a_known_scale_for_every_study_listed_or_not():
    listed = read_manifest(default_results_dir())
    assert listed["default"] in studies.SCALES
    for st in studies.REGISTRY.values():
        assert committed_scale(st.name) == listed["scales"].get(st.name, listed["default"]), st.name
        assert committed_scale(st.name) in studies.SCALES, st.name
    assert committed_scale("a study the manifest does not list") == listed["default"]
    assert set(committed_supporting_scales()) <= set(studies.SCALES)


@pytest.mark.parametrize("chapter, settings", sorted(book_settings().items()))
def test_every_setting_the_book_needs_is_committed(chapter, settings):
    results = default_results_dir()
    missing = [f"{s.study}: {s.label} (scale-derived key {s.key})" for s in settings if not s.is_done(results)]
    assert not missing, f"{chapter}: {len(missing)} of {len(settings)} settings not in results/runs:\n" + \
        "\n".join(missing)


def test_committed_results_record_configuration_seed_commit_and_time():
    runs = sorted((default_results_dir() / "runs").glob("*.json"))
    assert runs, "no committed results"
    from binn_utils.store.sweep_record import SweepRecord
    for js in runs:
        rec = SweepRecord.from_json(json.loads(js.read_text()), where=js.name)   # the store's typed record
        n = len(rec.seeds)
        assert rec.config.epochs >= 1 and n >= 1 and len(rec.status) == n == len(rec.datasets), js.name
        for cp in rec.metrics.values():          # one evaluation per replicate at every checkpoint
            assert len(cp.err_u_theta) == len(cp.err_u_p) == len(cp.up_status) == n, js.name
            assert all(len(v) == n for v in cp.operator_errors.values()), js.name
        assert rec.provenance["commit"] and rec.provenance["torch"], js.name
        assert rec.wall_time_s > 0, js.name


def test_the_own_data_page_fit_is_committed(tmp_path):
    """The page "Fit your own data" loads its stored networks (the book refuses to train)."""
    from binn_utils.applications import fit_example
    from binn_utils.store import records
    from binn_utils.analysis.user_data import fit_spec_of
    p = parameters("own_data")
    assert p["scale"] is None          # the page fits at the committed fit's scale
    plan = fit_example.example_plan(tmp_path / "out", committed_scale("own_data"),
                                    cache_dir=default_results_dir() / "own_data")
    key = records.key_of(plan.prefix, fit_spec_of(plan.prep, extra=plan.extra))
    npz = default_results_dir() / "own_data" / f"{key}.npz"
    assert records.check_pair(npz, npz.with_suffix(".json")) is not None, f"{npz} is not stored"


def test_the_scratch_assay_chapter_fit_is_committed():
    """The scratch-assay chapter's fit, at its default parameters, is stored under the key it computes."""
    from binn_utils.applications import fit_plan
    from binn_utils.store import records
    from binn_utils.analysis.user_data import fit_spec_of
    p = parameters("scratch_assay")
    plan = fit_plan.scratch_plan(None, p["initial_cells"], p["mechanisms"], p["scale"], epochs=p["epochs"],
                                 seeds=p["seeds"], drop_first_column=p["drop_first_column"],
                                 source=default_results_dir())
    key = records.key_of(plan.prefix, fit_spec_of(plan.prep, extra=plan.extra))
    npz = default_results_dir() / "scratch" / f"{key}.npz"
    assert records.check_pair(npz, npz.with_suffix(".json")) is not None, f"{npz} is not stored"


# ----------------------------------------------------------------------------- like for like
CHECKS = ROOT / "results" / "checks" / "device"


def _device_kind(record) -> str:
    return "cuda" if str(record.device).startswith("cuda") else "cpu"


def comparisons() -> dict:
    """(chapter, study part, grid, noise variance) -> the settings compared in one figure:
    one part of a study on one grid at one noise level (the noise study's figure spans
    its noise levels)."""
    out = {}
    for chapter, settings in book_settings().items():
        for s in settings:
            nv = None if s.study == "noise" else s.noise_var
            out.setdefault((chapter, s.study, "351" if s.dense else "71", nv), []).append(s)
    # the framework chapter's parts are compared in groups (studies.framework.COMPARED)
    parts = studies.framework.chapter_settings(parameters("framework"))
    for key in [k for k in out if k[0] == "framework"]:
        del out[key]
    for i, group in enumerate(studies.framework.COMPARED):
        for s in (s for part in group if part in parts for s in parts[part][1]):
            out.setdefault(("framework", f"parts {i}", "351" if s.dense else "71", s.noise_var), []).append(s)
    return out


def _kinds(settings):
    stored = [s.stored_record(default_results_dir(), warn=False) for s in settings]
    return [(s, r) for s, r in zip(settings, stored) if r is not None]


@pytest.mark.parametrize("study", sorted(read_manifest(default_results_dir()).get("datasets", {})))
def test_main_text_on_several_datasets_names_its_code_on_one_device(study):
    """A study whose main-text results the manifest lists on several datasets: every setting its
    chapter and the scorecard read has at least five datasets (dataset 0 among them) x ten
    initialisations, names its code, and the figure's settings share one device, one engine and
    one integrator."""
    from binn_utils.store.provenance import names_its_code
    st = studies.get(study)
    settings = st.groups(committed_scale(study), datasets=read_manifest(default_results_dir())["datasets"][study])
    stored = _kinds([s for part in settings for s in part])
    assert stored and len(stored) == sum(len(part) for part in settings), f"{study}: not every setting is stored"
    for s, r in stored:
        per = {d: r.datasets.count(d) for d in set(r.datasets)}
        assert len(per) >= 5 and 0 in per and min(per.values()) >= 10, f"{s.label}: datasets x seeds {per}"
        assert names_its_code(r.provenance), f"{s.label}: the record cannot name its code"
    assert len({(_device_kind(r), r.engine, r.forward_method) for _, r in stored}) == 1


@pytest.mark.parametrize("study", sorted(read_manifest(default_results_dir()).get("authors_data", {})))
def test_main_text_on_the_authors_data_is_stored_and_names_its_code(study):
    """A study the manifest lists on the authors' rebuilt data: every main-text setting is stored
    on that many splits x ten initialisations of their data, names its code, and the figure's
    settings share one device, one engine and one integrator."""
    from binn_utils.store.provenance import names_its_code
    from binn_utils.store.setting import seeds_distinct
    n = read_manifest(default_results_dir())["authors_data"][study]
    settings = studies.get(study).authors_data_settings(committed_scale(study))
    stored = _kinds(settings)
    assert len(stored) == len(settings), f"{study}: {len(stored)} of {len(settings)} settings stored"
    for s, r in stored:
        per = {d: r.datasets.count(d) for d in set(r.datasets)}
        assert r.data == "authors" and len(per) == n and min(per.values()) >= 10, f"{s.label}: {per}"
        if n >= 10:   # the splits of issue 47's campaign: each with initialisation seeds of its own
            assert seeds_distinct(s), f"{s.label}: a seed is used on two splits"
        assert names_its_code(r.provenance), f"{s.label}: the record cannot name its code"
    assert len({(_device_kind(r), r.engine, r.forward_method) for _, r in stored}) == 1


def test_figs_3_to_5_on_the_authors_data_are_read_at_ten_splits_each_with_its_own_seeds():
    """Issue 47's campaign is what the book reads: Figs. 3, 4 and 5 on at least ten splits of
    the authors' data, each split with initialisation seeds of its own (the test above then
    checks every record)."""
    m = read_manifest(default_results_dir())
    for study in ("learning_rate", "loss_weight", "architecture"):
        assert m["authors_data"].get(study, 0) >= 10, f"{study}: {m['authors_data'].get(study)} splits"
        assert study in m["distinct_seeds"]["authors"], f"{study}: the same seeds on every split"


@pytest.mark.parametrize("study", sorted(read_manifest(default_results_dir()).get("dense_datasets", {})))
def test_main_text_on_the_printed_grid_names_its_code_on_one_device(study):
    """The noise study's (4, 32) network on the 351-point grid at the paper's scale (the manifest's
    ``dense_datasets``; the chapter reads the levels stored and says which are not run): each
    stored level has that many datasets (0 among them) x ten initialisations and names its code,
    and the levels share one device, one engine and one integrator."""
    from binn_utils.store.provenance import names_its_code
    n = read_manifest(default_results_dir())["dense_datasets"][study]
    settings = studies.get(study).settings(committed_scale(study), archs=[studies.NOISE_ARCHS[0]], dense=True, datasets=n)
    assert settings == studies.noise.printed_grid_settings({})
    stored = _kinds(settings)
    assert stored, f"{study}: no setting on the 351-point grid stored"
    for s, r in stored:
        per = {d: r.datasets.count(d) for d in set(r.datasets)}
        assert len(per) == n and 0 in per and min(per.values()) >= 10, f"{s.label}: datasets x seeds {per}"
        assert names_its_code(r.provenance), f"{s.label}: the record cannot name its code"
    assert len({(_device_kind(r), r.engine, r.forward_method) for _, r in stored}) == 1


def test_fig_2_like_for_like_shares_datasets_code_engine_and_device():
    """The noise study's like-for-like retraining (``--distinct-seeds``, issue 48): each level
    stored so far holds (4, 32) on ten datasets and (6, 128) on at least six of the same, each
    dataset with seeds of its own, ten initialisations each, from code it names, all on one
    device with one engine and integrator; once the manifest's ``distinct_seeds`` lists the
    study (the book reads them), every level of both networks is stored."""
    from binn_utils.store.provenance import names_its_code
    from binn_utils.store.setting import seeds_distinct
    from binn_utils.store.stores import committed_distinct_seeds
    settings = studies.get("noise").settings(committed_scale("noise"), distinct_seeds=True)
    stored = _kinds(settings)
    assert stored, "no level of the like-for-like Fig. 2 stored"
    if committed_distinct_seeds("noise"):
        assert len(stored) == len(settings), f"{len(stored)} of {len(settings)} settings stored"
    by_level = {}
    for s, r in stored:
        per = {d: r.datasets.count(d) for d in set(r.datasets)}
        big = tuple(s.config.arch_u) != tuple(studies.NOISE_ARCHS[0])
        assert len(per) >= (6 if big else 10) and min(per.values()) >= 10, f"{s.label}: datasets x seeds {per}"
        assert seeds_distinct(s) and names_its_code(r.provenance), s.label
        by_level.setdefault(s.noise_var, {})[big] = set(per)
    for level, nets in by_level.items():
        if len(nets) == 2:
            assert nets[True] <= nets[False], f"sigma2 = {level}: the (6, 128) datasets are not among the (4, 32)'s"
    assert len({(_device_kind(r), r.engine, r.forward_method) for _, r in stored}) == 1


@pytest.mark.parametrize("where, settings", sorted(comparisons().items(), key=lambda kv: str(kv[0])),
                         ids=lambda v: "/".join(map(str, v)) if isinstance(v, tuple) else "")
def test_one_engine_and_one_integrator_within_a_comparison(where, settings):
    """Like for like: every setting compared in one figure was trained by the same version of
    the trainer's arithmetic and its u_p solved by the same integrator."""
    stored = _kinds(settings)
    engines = {r.engine for _, r in stored}
    methods = {r.forward_method for _, r in stored}
    detail = "; ".join(f"{s.label}: engine {r.engine}, {r.forward_method}" for s, r in stored)
    assert len(engines) <= 1 and len(methods) <= 1, f"{where} mixes engines {engines} or integrators {methods}: {detail}"


def test_comparisons_that_mix_cpu_and_gpu_rest_on_a_stored_device_check():
    """Where CPU and GPU runs sit in one comparison, results/checks/device holds runs of the
    same specifications on the other device, and their medians cannot be told apart."""
    mixed = [w for w, sets in comparisons().items() if len({_device_kind(r) for _, r in _kinds(sets)}) > 1]
    if not mixed:
        return
    checked = device_check_rows()
    assert checked, f"{len(mixed)} comparisons mix CPU and GPU ({mixed[:3]} ...) but results/checks/device is empty"
    for label, metric, (est, lo, hi) in checked:
        assert lo <= 1.0 <= hi, f"device check {label} {metric}: median ratio {est:.3f} [{lo:.3f}, {hi:.3f}] excludes 1"


def device_check_rows() -> list:
    """(label, metric, (ratio of medians GPU / CPU, 95 % interval)) of every stored device check."""
    from binn_utils.analysis.results_table import ratio_interval
    from binn_utils.store import records
    from binn_utils.store.sweep_record import SweepRecord
    from binn_utils.store.loading import load_setting
    from binn_utils.store.setting import Setting
    rows = []
    for js in sorted((CHECKS / "runs").glob("*.json")):
        other = SweepRecord.from_json(records.read_pair(js.with_suffix(".npz"), js)[0], js)
        setting = Setting.from_record(other)
        assert setting.key == js.stem, f"{js.name}: its name is not its specification's hash"
        mine = load_setting(setting, default_results_dir())
        there = load_setting(setting, CHECKS)
        assert _device_kind(mine.record) != _device_kind(there.record), f"{js.name}: both runs on one device"
        assert list(mine.record.seeds) == list(there.record.seeds)
        for m in ("err_u_theta", "err_u_p"):
            rows.append((js.stem, m, ratio_interval(there.metric(m), mine.metric(m))))
    return rows


#: A committed record the code must reproduce: the σ² = 0 batch-size study's B = 640 (full
#: batch, one step per epoch: the cheapest), engine version 2, trained alone on one CPU thread.
REPRODUCED = "diffusion-4179736c118b"


#: how far a float32 validation loss may move after 50 epochs on another CPU model with the same
#: vector instructions (its kernels round differently: 3.9e-7 relative was seen between two x86_64
#: AVX-512 machines)
ACROSS_CPUS_RTOL = 1e-5


@pytest.mark.slow
def test_the_code_reproduces_a_committed_record():
    """The stored key determines the numbers: the record's setting trained again to its
    first checkpoint (50 epochs: one chunk of random draws) gives its stored validation
    losses at epochs 10 ... 50 bit for bit on the CPU model the record names (records name it
    from store format 3's provenance ``cpu``), and to float32 rounding (``ACROSS_CPUS_RTOL``) on
    another with the same vector instructions, torch and machine (float32 rounding differs
    more between vector widths: elsewhere the test says so and skips).  It fails if the
    engine's numbers move without a new engine version."""
    import platform

    import numpy as np
    import torch

    from binn_utils.engine.runs import HISTORY_KEYS
    from binn_utils.store import records
    from binn_utils.store.compute import compute_group
    from binn_utils.store.setting import SETTING_KIND, Setting
    from binn_utils.store.sweep_record import SweepRecord

    npz, js = (default_results_dir() / "runs" / f"{REPRODUCED}{ext}" for ext in (".npz", ".json"))
    record, arrays = records.read_pair(npz, js, kind=SETTING_KIND)
    rec = SweepRecord.from_json(record, js)
    assert rec.engine == 2 and rec.trained_with is None and rec.device.startswith("cpu: x86_64, 1 thread")
    prov = record["provenance"]
    here = (torch.__version__, platform.machine(), torch.backends.cpu.get_cpu_capability())
    if here != (prov["torch"], prov["machine"], "AVX512"):
        pytest.skip(f"the record was trained with torch {prov['torch']} on {prov['machine']} with AVX512; here {here}")
    torch.set_num_threads(1)
    state = compute_group([Setting.from_record(rec)], forward_method=rec.forward_method, stop_at_epoch=50)
    assert state.epoch == 50
    epochs = arrays["curve_epochs"][arrays["curve_epochs"] <= 50]   # 1-based
    assert list(epochs) == [10, 20, 30, 40, 50]
    from binn_utils.store.provenance import cpu_model
    for i, key in enumerate(HISTORY_KEYS):
        got, stored = state.hist[i][:, epochs - 1].astype(np.float32), arrays[f"hist_{key}"][:, :epochs.size]
        if prov.get("cpu") == cpu_model():
            np.testing.assert_array_equal(got, stored, err_msg=key)
        else:
            np.testing.assert_allclose(got, stored, rtol=ACROSS_CPUS_RTOL, atol=0, err_msg=key)


@pytest.mark.parametrize("study", sorted(read_manifest(default_results_dir()).get("datasets", {})))
def test_a_chapter_reads_the_main_text_on_the_datasets_the_scorecard_reads(study):
    """A chapter run with its committed parameters (every parameter None, as the book runs it)
    loads the main-text settings on every dataset the manifest lists: its figures and the
    scorecard's verdicts rest on the same runs."""
    import inspect
    st = studies.get(study)
    params = dict.fromkeys(["scale", "noise_var", "dense", "epochs", "seeds", "datasets"])
    if st.chapter_settings is not None:
        params.update(dict.fromkeys(inspect.signature(st.chapter_settings).parameters, None))
        params.update(batch_sizes=None, budget_steps=None, dense=False, reaction="supporting", initial="code",
                      compare_initial=False, compare_grid=False, compare_reactions=False, reaction_scale=None)
    params.pop("params", None)
    n = read_manifest(default_results_dir())["datasets"][study]
    main = [s for s in st.settings_for_chapter(params) if not s.dense and s.study == study]
    on_n = {s.label for s in main if len(set(s.datasets)) == n}     # (a one-dataset partner may be read too)
    assert main and on_n == {s.label for s in main}, \
        f"{study}: the chapter reads {sorted({len(set(s.datasets)) for s in main})} datasets, the manifest lists {n}"
