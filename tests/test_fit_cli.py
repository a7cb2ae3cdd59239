"""`binn fit` and `binn predict`: validation before work, every output file, the cache, predictions."""
import csv
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from binn_utils.analysis import user_data
from binn_utils.analysis.user_data import Scaling, data_digest, load_observations_csv, prepare_fit
from binn_utils.applications import cli, fit_example, fit_plan, fit_report, predict
from binn_utils.engine import training
from binn_utils.engine.forward_solve import forward_solve
from binn_utils.engine.problems import get_benchmark, reference_solution, spatial_grid
from binn_utils.presentation import figures
from binn_utils.store import records

K = fit_example.EXAMPLE_K


def synthetic_rows(n_x=11, times=(0.0, 12.0, 24.0, 36.0, 48.0), n_rep=2, noise=0.02, seed=1):
    """The rows of ``fit_example.write_example_csv`` (the known problem of the book page)."""
    with tempfile.TemporaryDirectory() as d:
        x, t, u = fit_example.write_example_csv(Path(d) / "e.csv", n_x=n_x, times=times, n_rep=n_rep, noise=noise,
                                               seed=seed)
        with open(Path(d) / "e.csv", newline="") as f:
            rows = list(csv.reader(f))
    return rows, x, t, u


def write_csv(path, rows, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return path


COLS = ["--x", "x_um", "--t", "t_h", "--u", "density", "--replicate", "well"]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """One quick `binn fit` (3 epochs, 2 networks) shared by the tests below."""
    d = tmp_path_factory.mktemp("fit")
    rows, *_ = synthetic_rows()
    data = write_csv(d / "data.csv", rows)
    out = d / "out"
    rc = cli.main(["fit", str(data), "--mechanisms", "D,G", *COLS, "--scale", "quick", "--epochs", "3",
                   "--forward-method", "BDF", "--out", str(out)])
    assert rc == 0
    return data, out


def test_fit_writes_every_file(fitted):
    data, out = fitted
    for name in fit_report.OUTPUT_FILES:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    rec = json.loads((out / "fit.json").read_text())
    obs = load_observations_csv(data, x="x_um", t="t_h", u="density", replicate="well")
    assert rec["data"]["digest_sha1"] == data_digest(obs)
    assert rec["forward_method"] == "BDF" and rec["options"]["epochs"] == 3 and rec["options"]["seeds"] == 2
    assert rec["provenance"]["commit"] and rec["provenance"]["torch"]
    assert rec["results"]["networks_trained_by_this_run"] == 2
    assert all((out / n).is_file() for n in rec["networks"])
    # operators.csv: user units, both inside and outside the observed range, finite numbers
    with open(out / "operators.csv") as f:
        rows = list(csv.DictReader(f))
    assert {"u", "observed", "D_median", "D_q25", "D_q75", "D_sd", "G_median"} <= set(rows[0])
    assert "V_median" not in rows[0]
    assert {r["observed"] for r in rows} == {"0", "1"}
    lo, hi = rec["u_range"]
    assert all((r["observed"] == "1") == (lo <= float(r["u"]) <= hi) for r in rows)
    assert all(np.isfinite(float(r["D_median"])) for r in rows)
    # solutions.npz on the data grid
    z = np.load(out / "solutions.npz")
    assert z["u_theta"].shape == z["u_p"].shape == (2, 5, 11)
    assert z["u_data"].shape == (2, 5, 11)
    np.testing.assert_allclose(z["u_data"], obs.u)
    assert len(z["up_status"]) == 2
    # the report is one self-contained page: three embedded figures, no links to other files
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 3
    assert "src=\"http" not in page and ".png\"" not in page
    md = (out / "diagnostics.md").read_text()
    for name in ("underfitting", "instability", "overfitting", "mechanistic mismatch", "operator spread",
                 "loss balance"):
        assert f"| {name} |" in md
    # the report's line on the diagnostics says what fired, no more ("no warning signs" overclaimed)
    said = [ln for ln in md.splitlines() if ln.startswith("Diagnostics: ")]
    assert said in (["Diagnostics: none fired."], [f"Diagnostics: check {', '.join(rec['results']['flags'])}."])
    assert "warning signs" not in md and said[0] in page
    # each flag beside its held-out rates over the stored networks, and how strongly the data
    # constrain each learned operator (D and G asked for)
    from binn_utils.analysis import diagnostic_roc
    held = diagnostic_roc.stored_summary(n_boot=0)["per"]["mechanistic_mismatch"]["held"].pooled
    assert f"| {diagnostic_roc.pct(held.caught_rate)} / {diagnostic_roc.pct(held.false_alarm_rate)} |" in md
    assert "How strongly do these data constrain each learned operator?" in md
    # a 3-epoch fit does not fit its data: no operator gets a data-level label, the section says why
    assert "Not measured: the fit check refused the fit: " in md and "| D |" not in md
    # the report shows that section under its own heading, not inside the diagnostics table
    assert "<h2>How strongly do these data constrain each learned operator?</h2>" in page
    assert "Not measured: the fit check refused the fit: " in page


def test_the_reports_identifiability_section_is_its_own():
    """report.html shows the identifiability section apart from the diagnostics table: its
    heading, its paragraph (sigma, thresholds, chi-square change) and its own table, with the
    warnings (it was merged into the diagnostics table: D under "diagnostic")."""
    from binn_utils.analysis import identifiability as ident
    from binn_utils.analysis import identifiability_words as ident_words
    oc = ident.OperatorConstraint("D", {"zero": 900.0, "half": 80.0, "double": 300.0, "tilt": 1.2},
                                  {}, 0.8, 140)
    c = ident.Identifiability("learned operators", {"D": oc}, 0.05, "0.0001 cells/um^2, the rms residual", 140)
    md = ("| diagnostic | value |\n|---|---|\n| underfitting | 0.1 |\n\nDiagnostics: none fired.\n\n"
          + ident_words.fit_markdown(c, {"D": (2.0, "um^2/h")}))
    diag, section = fit_report.report_sections(md)
    assert not any(ln.startswith("| D ") for ln in diag) and section[0] == ident_words.FIT_HEADING
    page = fit_report._md_section_html(section)
    assert page.startswith("<h2>How strongly do these data constrain each learned operator?</h2>")
    assert "sigma = 0.0001 cells/um^2, the rms residual" in page and "chi-square change" in page
    assert "<th>operator</th>" in page and "<td>D</td>" in page
    assert "cannot tell its shape over the observed range" in page        # the tilt, not the size
    assert "half or twice itself" not in page


def test_rerun_trains_nothing(fitted, monkeypatch, capsys):
    data, out = fitted

    def refuse(*a, **k):
        raise AssertionError("trained again")
    monkeypatch.setattr(training, "train", refuse)
    before = np.load(out / "solutions.npz")["u_theta"]
    rc = cli.main(["fit", str(data), "--mechanisms", "DG", *COLS, "--scale", "quick", "--epochs", "3",
                   "--forward-method", "BDF", "--out", str(out)])
    assert rc == 0
    assert "nothing trained" in capsys.readouterr().out
    rec = json.loads((out / "fit.json").read_text())
    assert rec["results"]["networks_trained_by_this_run"] == 0
    np.testing.assert_array_equal(np.load(out / "solutions.npz")["u_theta"], before)


def test_predict_and_operator_export(fitted, tmp_path, capsys):
    _, out = fitted
    ic = tmp_path / "ic.csv"
    x = np.linspace(0, 1000, 21)
    write_csv(ic, [["x", "u"]] + [[f"{v:g}", f"{K * (0.2 + 0.5 * (v > 500)):g}"] for v in x])
    rc = cli.main(["predict", str(out), "--ic", str(ic), "--t", "0,6,12", "--u-grid", "0:0.004:9",
                   "--out", str(tmp_path / "p")])
    assert rc == 0
    said = capsys.readouterr().out
    z = np.load(tmp_path / "p" / "predictions.npz")
    assert z["u_p"].shape == (2, 3, 21)
    n_ok = int(sum(s == "ok" for s in z["status"]))
    assert f"{n_ok} of 2 ok" in said
    ok = z["status"] == "ok"
    np.testing.assert_allclose(z["u_p"][ok, 0], np.broadcast_to(z["u0"], (ok.sum(), 21)), rtol=1e-12)
    with open(tmp_path / "p" / "operators.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["u"]) for r in rows] == pytest.approx(np.linspace(0, 0.004, 9))
    # the table on any grid agrees with the fit's own operators.csv where the grids meet
    rec, result, sc = predict.load_fit_dir(out)
    direct = sc.operator_factor("D") * result.operator_curves(sc.u_to_train([0.001]), rec["which"])["D"]
    row = predict.operator_table(result, sc, rec["which"], [0.001], rec["u_range"])[0]
    assert row["D_median"] == pytest.approx(float(np.median(direct)))


@pytest.mark.parametrize("name, discretisation", [("diffusion", 1e-3), ("porous_medium", 3e-2)])
def test_predict_with_true_operators_reproduces_the_reference(name, discretisation):
    """A benchmark in other units: x in um (x_user = 100 (x + 7)), t in h (t_user = 3 t),
    u in cells/um^2 (u_user = c u), so D_user(v) = 100^2 / 3 * D(v / c).  Solved through
    ``predict_solutions`` it gives the benchmark's forward solve (to the solver tolerance)
    and its reference solution (exact here, to the finite-volume discretisation error on the
    71-point grid, larger at the Barenblatt solution's moving front)."""
    bench = get_benchmark(name)
    x, t = spatial_grid(), bench.times()
    ref = reference_solution(bench)
    xu, tu, c = 100 * (x + 7), 3 * t, 2e-3
    sc = Scaling.fit(xu, tu, c * ref)

    def d_user(v):
        return 100 ** 2 / 3 * np.asarray(bench.D(np.asarray(v, float) / c), float) * np.ones_like(v)
    u, status = predict.predict_solutions([(d_user, None, None)], xu, c * ref[0], tu, sc, method="BDF")
    assert status == ["ok"]
    same = forward_solve(bench.D, None, None, ref[0], x, t, method="BDF")
    assert np.linalg.norm(u[0] - c * same.u) / np.linalg.norm(c * same.u) < 1e-5
    assert np.linalg.norm(u[0] - c * ref) / np.linalg.norm(c * ref) < discretisation


def test_predict_counts_failed_solves():
    sc = Scaling.fit([0, 1, 2], [0, 1], [0.1, 1.0])

    def broken(u):
        return np.full_like(np.asarray(u, float), np.nan)
    u, status = predict.predict_solutions([(broken, None, None)], [0, 1, 2], [0.1, 0.5, 1.0], [0, 1], sc)
    assert status[0].startswith("failed") and np.all(np.isnan(u[0, 1:]))


def test_a_prediction_the_data_units_cannot_hold_is_a_failed_solve():
    """Densities near 1e308 that grow (G = 1 per unit time, e-fold by t = 1): the solve is sound in
    training units, but u in the data's units overflows; it said "ok" beside an infinite u."""
    from binn_utils.analysis.user_units import UNREPRESENTABLE
    sc = Scaling.fit([0, 1, 2], [0, 1], [1e308, 1.5e308])

    def growth(u):
        return np.ones_like(np.asarray(u, float))
    u, status = predict.predict_solutions([(None, None, growth)], [0, 1, 2], [1e308] * 3, [0, 1], sc)
    assert status == [UNREPRESENTABLE] and np.all(np.isnan(u[0]))
    u, status = predict.predict_solutions([(None, None, growth)], [0, 1, 2], [1e307] * 3, [0, 1], sc)
    assert status == ["ok"] and np.all(np.isfinite(u[0]))


# ----------------------------------------------------------------------------- validation: exit 2, one line
def _rows():
    return synthetic_rows()[0]


def _bad_cases():
    r = _rows()
    cases = {}
    cases["missing column"] = ([[c if c != "density" else "dens" for c in r[0]]] + r[1:], {})
    c = [row[:] for row in r]
    c[5][2] = "abc"
    cases["non-numeric"] = (c, {})
    c = [row[:] for row in r]
    c[7][2] = ""
    cases["empty cell"] = (c, {})
    c = [row[:] for row in r]
    c[9][0] = "nan"
    cases["nan"] = (c, {})
    c = [row[:] for row in r]
    c.append(c[3][:])
    cases["duplicate"] = (c, {})
    cases["incomplete grid"] = (r[:-1], {})
    c = [row[:] for row in r]
    for row in c[1:]:
        if row[0] == "1000":
            row[0] = "1100"
    cases["uneven spacing"] = (c, {})
    cases["too few points for a batch"] = ([r[0]] + [row for row in r[1:] if float(row[1]) <= 12], {})
    cases["single time"] = ([r[0]] + [row for row in r[1:] if float(row[1]) == 0], {})
    c = [row[:] for row in r]
    for row in c[1:]:
        row[2] = "0.5"
    cases["constant"] = (c, {})
    c = [row[:] for row in r]
    for row in c[1:]:
        row[2] = str(-abs(float(row[2])))
    cases["negative"] = (c, {})
    return cases  # a semicolon-separated file is detected by `binn fit` (tests/test_hostile.py)


@pytest.mark.parametrize("case", list(_bad_cases()))
def test_each_data_error_exits_2_with_the_api_message(case, tmp_path, capsys):
    rows, kw = _bad_cases()[case]
    path = write_csv(tmp_path / "bad.csv", rows, **kw)
    with pytest.raises(ValueError) as api:
        prepare_fit(str(path), "DG", training.TrainConfig(epochs=2, compile=False), range(2),
                    x="x_um", t="t_h", u="density", replicate="well")
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        cli.main(["fit", str(path), "--mechanisms", "D,G", *COLS, "--scale", "quick", "--out", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err == f"binn fit: error: {api.value}\n"
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()  # nothing written, nothing trained


def test_encoding_and_mechanism_errors_exit_2(tmp_path, capsys):
    rows = _rows()
    path = write_csv(tmp_path / "ok.csv", rows)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(path.read_bytes().replace(b"density", "densit\u00e9".encode("latin-1")))
    for argv, api in (
            ([str(path), "--mechanisms", "D,X"], lambda: prepare_fit(str(path), "D,X")),
            ([str(latin), "--mechanisms", "DG"], lambda: load_observations_csv(str(latin)))):
        with pytest.raises(ValueError) as err_api:
            api()
        with pytest.raises(SystemExit) as exc:
            cli.main(["fit", *argv, "--scale", "quick", "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err == f"binn fit: error: {err_api.value}\n"


@pytest.mark.parametrize("args, message", [
    (["--epochs", "0"], "--epochs: must be a positive integer, got 0"),
    (["--lr", "-1"], "--lr: must be a finite number > 0, got -1"),
    (["--w-pde", "nan"], "--w-pde: must be a finite number >= 0, got nan"),
    (["--w-pde", "1e300"], "--w-pde: 1e300 is infinite in float32, where training runs"),
    (["--batch-size", "1000"], "too few observations for one mini-batch"),
    (["--scale", "huge"], "invalid choice: 'huge'"),
    (["--forward-method", "Euler"], "invalid choice: 'Euler'"),
    (["--workers", "2", "--scheduler", "tcp://h:1"], "not allowed with argument"),
    (["--example", "scratch-assay"], "give DATA.csv or --example, not both"),
])
def test_bad_options_exit_2(args, message, tmp_path, capsys):
    path = write_csv(tmp_path / "ok.csv", _rows())
    with pytest.raises(SystemExit) as exc:
        cli.main(["fit", str(path), "--mechanisms", "DG", *COLS, *args, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_fit_without_data_or_mechanisms_and_missing_file(tmp_path, capsys):
    for argv, message in ((["--out", "o"], "name the data file"),
                          (["x.csv", "--out", "o"], "--mechanisms"),
                          ([str(tmp_path / "none.csv"), "--mechanisms", "D", "--out", "o"], "no such file")):
        with pytest.raises(SystemExit) as exc:
            cli.main(["fit", *argv])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and message in err, err


def test_predict_usage_errors(fitted, tmp_path, capsys):
    _, out = fitted
    ic = write_csv(tmp_path / "ic.csv", [["x", "u"], ["0", "1"], ["1", "1"], ["3", "1"]])
    for argv, message in (([str(tmp_path), "--u-grid", "0:1:3"], "no fit.json"),
                          ([str(out)], "nothing to do"),
                          ([str(out), "--ic", str(ic)], "needs both --ic"),
                          ([str(out), "--ic", str(ic), "--t", "0,1"], "equally spaced"),
                          ([str(out), "--u-grid", "1:0:5"], "--u-grid must be"),
                          ([str(out), "--u-grid", "-1e308:1e308:5"], "beyond what double precision holds"),
                          ([str(out), "--ic", str(ic), "--t", "5,1"], "increasing times")):
        with pytest.raises(SystemExit) as exc:
            cli.main(["predict", *argv, "--out", str(tmp_path / "p")])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_fit_user_data_uses_the_integrator(tmp_path):
    """The Python API and the CLI share one path: the integrator reaches the forward solve."""
    from binn_utils.analysis.user_data import fit_user_data
    path = write_csv(tmp_path / "d.csv", _rows())
    cfg = training.TrainConfig(epochs=2, compile=False)
    kw = dict(x="x_um", t="t_h", u="density", replicate="well")
    rk, bdf = (fit_user_data(str(path), "DG", cfg, seeds=[0], forward_method=m, **kw) for m in ("RK45", "BDF"))
    assert (rk.forward_method, bdf.forward_method) == ("RK45", "BDF")
    ok = np.isfinite(rk.u_p).all() and np.isfinite(bdf.u_p).all()
    if ok:  # the same solution to the solver tolerance
        np.testing.assert_allclose(rk.u_p, bdf.u_p, rtol=1e-3, atol=1e-3 * np.abs(rk.u_p).max())
    with pytest.raises(ValueError, match="unknown forward-solve method"):
        fit_user_data(str(path), "DG", cfg, seeds=[0], forward_method="Euler", **kw)


@pytest.mark.slow
def test_fit_recovers_sign_and_shape_of_known_operators(tmp_path):
    """A few hundred epochs on the small problem: D > 0 and increasing, G decreasing and
    positive at low density (the true D = 200 + 1800 u/K, G = 0.04 (1 - u/K))."""
    rows, *_ = synthetic_rows(n_x=21, noise=0.0, n_rep=1)
    path = write_csv(tmp_path / "d.csv", rows)
    plan = fit_plan.plan_fit(str(path), "DG", tmp_path / "out", x="x_um", t="t_h", u="density",
                               replicate="well", epochs=400, seeds=3, forward_method="BDF")
    fit, _ = fit_report.run_fit(plan, progress=False, echo=lambda s: None, require_stored=False)
    lo, hi = fit.u_range
    g = np.linspace(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo), 21)
    c = fit.operator_curves(g)
    D, G = np.median(c["D"], axis=0), np.median(c["G"], axis=0)
    assert np.all(D > 0)
    assert np.mean(np.diff(D) > 0) >= 0.8, D
    assert np.mean(np.diff(G) < 0) >= 0.8, G
    assert G[0] > 0, G


def test_training_in_parts_resumes_and_combines(tmp_path, monkeypatch):
    """A fit trained in parts stores each part as it finishes; after an interruption only
    the missing part is trained, and the parts combine into one result of all networks."""
    path = write_csv(tmp_path / "d.csv", _rows())
    cfg = training.TrainConfig(epochs=2, compile=False)
    prep = prepare_fit(str(path), "DG", cfg, range(3), x="x_um", t="t_h", u="density", replicate="well")
    key = records.key_of("k", {"x": 1})
    npz = tmp_path / f"{key}.npz"
    first, files, _ = user_data._train_parts(prep, npz, {"x": 1}, key, False, 1, None, n_parts=3)
    assert [p.name for p, _ in files] == [f"{key}-part{i}of3.npz" for i in (1, 2, 3)]
    assert first.n_replicates == 3 and list(first.seeds) == [0, 1, 2]
    assert first.extra["trained_in_parts"] == 3 and first.history["val_total"].shape == (3, 2)
    for f in files[1]:
        f.unlink()                       # "interrupted" before part 2 was stored
    calls = []
    real = training.train

    def counting(datas, config, seeds, **kw):
        calls.append(list(seeds))
        return real(datas, config, seeds, **kw)
    monkeypatch.setattr(training, "train", counting)
    again, _, n_again = user_data._train_parts(prep, npz, {"x": 1}, key, False, 1, None, n_parts=3)
    assert calls == [[1]] and n_again == 1           # the networks this run trained, not all of them
    np.testing.assert_array_equal(again.final[[0, 2]], first.final[[0, 2]])
    np.testing.assert_array_equal(again.final[1], first.final[1])  # same seed, same data, same process


@pytest.mark.slow
def test_parts_on_dask_workers_match_parts_trained_here(tmp_path):
    """--workers 2: the parts train on a LocalCluster of two processes; the networks are
    those of the same parts trained in this process (same seeds, same data, same batches)."""
    path = write_csv(tmp_path / "d.csv", _rows())
    cfg = training.TrainConfig(epochs=2, compile=False)
    prep = prepare_fit(str(path), "DG", cfg, range(2), x="x_um", t="t_h", u="density", replicate="well")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    key = records.key_of("k", {})
    here, *_ = user_data._train_parts(prep, tmp_path / "a" / "k.npz", {}, key, False, 1, None, n_parts=2)
    remote, files, _ = user_data._train_parts(prep, tmp_path / "b" / "k.npz", {}, key, False, 2, None)
    assert [p.name for p, _ in files] == [f"{key}-part1of2.npz", f"{key}-part2of2.npz"]
    np.testing.assert_allclose(remote.final, here.final, rtol=1e-6, atol=1e-7)


def test_committed_example_data_is_the_generators(tmp_path):
    """data/own_data_example.csv (the book page's data) is write_example_csv()'s output."""
    committed = Path(fit_report.__file__).resolve().parents[2] / "data" / "own_data_example.csv"
    fit_example.write_example_csv(tmp_path / "e.csv")
    a = load_observations_csv(committed, x="x_um", t="t_h", u="density", replicate="well")
    b = load_observations_csv(tmp_path / "e.csv", x="x_um", t="t_h", u="density", replicate="well")
    np.testing.assert_allclose(a.u, b.u, rtol=1e-6)
    assert a.replicates == b.replicates == ["w1", "w2"]


def test_a_failed_part_is_counted_and_the_others_kept(tmp_path, monkeypatch):
    """A part whose training raises is counted and named in the error (which `binn fit`
    prints, exiting 1), the other part is stored, and the rerun trains only the failed one."""
    path = write_csv(tmp_path / "d.csv", _rows())
    real = training.train
    calls = []

    def flaky(datas, config, seeds, **kw):
        calls.append(list(seeds))
        if list(seeds) == [1] and len(calls) <= 2:
            raise RuntimeError("out of memory")
        return real(datas, config, seeds, **kw)
    monkeypatch.setattr(training, "train", flaky)
    prep = prepare_fit(str(path), "DG", training.TrainConfig(epochs=2, compile=False), range(2), x="x_um",
                       t="t_h", u="density", replicate="well")
    key = records.key_of("k", {})
    with pytest.raises(RuntimeError, match=r"1 of 2 training parts failed \(part 2: RuntimeError: out of memory\)"):
        user_data._train_parts(prep, tmp_path / "k.npz", {}, key, False, 1, None, n_parts=2)
    assert (tmp_path / f"{key}-part1of2.npz").is_file() and not (tmp_path / f"{key}-part2of2.npz").exists()
    result, *_ = user_data._train_parts(prep, tmp_path / "k.npz", {}, key, False, 1, None, n_parts=2)
    assert calls == [[0], [1], [1]] and result.n_replicates == 2


@pytest.mark.slow
def test_fit_on_an_existing_scheduler(tmp_path, capsys):
    """binn fit --scheduler ADDR: one part per worker of that scheduler, combined and stored
    under the fit's key; a rerun without the scheduler loads the networks."""
    from distributed import LocalCluster
    path = write_csv(tmp_path / "d.csv", _rows())
    argv = ["fit", str(path), "--mechanisms", "DG", *COLS, "--scale", "quick", "--epochs", "2",
            "--forward-method", "BDF", "--out", str(tmp_path / "out")]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        assert cli.main(argv + ["--scheduler", cluster.scheduler_address]) == 0
    rec = json.loads((tmp_path / "out" / "fit.json").read_text())
    assert rec["results"]["networks_trained_by_this_run"] == 2
    stored = json.loads((tmp_path / "out" / rec["networks"][1]).read_text())
    assert stored["extra"]["trained_in_parts"] == 2
    assert not list((tmp_path / "out" / "networks").glob("*part*"))
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert "nothing trained" in capsys.readouterr().out


def test_the_example_recovery_check():
    from types import SimpleNamespace
    truth = {k: f for k, (f, _) in fit_example.EXAMPLE_TRUTH.items()}
    exact = SimpleNamespace(u_range=(1e-4, 1e-3), operator_curves=lambda g: {
        k: np.array([f(g), 1.1 * f(g), 0.9 * f(g)]) for k, f in truth.items()})
    rec = fit_example.example_recovery(exact)
    assert {k: shape for k, (shape, _) in rec.items()} == {k: s for k, (_, s) in fit_example.EXAMPLE_TRUTH.items()}
    assert rec["D"][1] == pytest.approx(0.1) and rec["G"][1] == pytest.approx(0.1)
    # the shape is that of the median curve: a falling minority does not change it
    falling = SimpleNamespace(u_range=(1e-4, 1e-3), operator_curves=lambda g: {
        "D": np.array([truth["D"](g), 2 * truth["D"](g), -truth["D"](g)])})
    assert fit_example.example_recovery(falling)["D"][0] == "increasing"


def test_the_example_page_draws_the_truth_and_says_no_more_than_the_diagnostics_tell():
    import matplotlib
    matplotlib.use("Agg")
    from binn_utils.presentation import figures, tables
    x, t = np.linspace(0, 1000, 11), np.array([0.0, 12.0])
    u_true = np.ones((2, 11)) * K / 2
    fig = figures.own_data_solutions(x, t, u_true[None] * 1.01, np.ones((3, 2, 11)) * K / 2, u_true=u_true)
    truth_lines = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == "truth"]
    assert len(truth_lines) == 2 and np.allclose(truth_lines[0].get_ydata(), u_true[0])
    grid = np.linspace(0, K, 21)
    truth = fit_example.example_truth(u_true)
    assert set(truth) == {"u", "D", "G"}
    fig = figures.own_data_operators(grid, {"D": np.ones((3, 21)), "G": np.ones((3, 21))}, (1e-4, 1e-3),
                                     truth={k: truth[k](grid) for k in "DG"})
    for ax, op in zip(fig.axes, "DG"):
        (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "truth"]
        np.testing.assert_allclose(line.get_ydata(), fit_example.EXAMPLE_TRUTH[op][0](grid))
    quiet = tables.fired_against_truth([], {"D": 0.304, "G": 0.239})
    assert quiet.startswith("No diagnostic fired on this fit, yet the operators' median relative errors against the "
                            "truth are 0.304 (D) and 0.239 (G):") and "warning" not in quiet
    assert tables.fired_against_truth(["underfitting", "operator_spread"], {"D": 0.5}) == (
        "On this fit underfitting and operator spread fired; the operators' median relative errors against the "
        "truth are 0.5 (D).")


@pytest.mark.parametrize("where, message", [
    ("data folder", "holds the data file ok.csv"),
    ("user files", "holds other files (important, notes.txt)"),
    ("results store", "is a results store"),
    ("current folder", "is the current folder or one above it"),
    ("parent folder", "is the current folder or one above it"),
    ("empty string", "--out must name a folder, got an empty string"),
])
def test_out_never_deletes_what_binn_did_not_write(where, message, tmp_path, capsys, monkeypatch):
    """`--out` is replaced as a whole: a folder holding anything but a previous fit's outputs,
    the data's folder, a results store, the current folder or one above it are refused before
    any training, and every file in them is still there."""
    monkeypatch.setattr(fit_report, "run_fit", lambda *a, **k: pytest.fail("trained"))
    (tmp_path / "data").mkdir()
    path = write_csv(tmp_path / "data" / "ok.csv", _rows())
    out = {"data folder": tmp_path / "data", "user files": tmp_path / "mine", "results store": tmp_path / "store",
           "current folder": Path("."), "parent folder": Path(".."), "empty string": ""}[where]
    (tmp_path / "mine" / "important").mkdir(parents=True)
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    (tmp_path / "mine" / "fit.json").write_text("{}")
    (tmp_path / "store" / "runs").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / ("mine/important" if where in ("current folder", "parent folder") else "elsewhere"))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["fit", str(path), "--mechanisms", "DG", *COLS, "--scale", "quick", "--out", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_out_holding_a_previous_fit_is_replaced(fitted, tmp_path):
    from binn_utils.applications.fit_plan import check_output_folder
    data, out = fitted
    check_output_folder(out, str(data))          # a previous fit's folder: allowed (replaced)
    check_output_folder(tmp_path / "new")        # a new folder: allowed


@pytest.mark.parametrize("error", [ValueError("the unperturbed model cannot be solved: RuntimeError: blew up"),
                                   ValueError("cannot estimate the noise: the fitted solution matches the data "
                                              "exactly"),
                                   RuntimeError("the solve did not reach every output time with finite values")])
def test_a_learned_model_that_cannot_be_measured_is_a_line_of_the_report(error, monkeypatch):
    """A blown-up or collapsed fit (its learned model cannot be solved forward) or an exact fit:
    the identifiability section says so, as a property of the fit, and the report is written."""
    def fails(fit, units=None):
        raise error
    monkeypatch.setattr(fit_report, "fit_identifiability", fails)
    md = fit_report.identifiability_markdown(object())
    assert md.startswith("## How strongly do these data constrain each learned operator?")
    assert f"Not measured: {str(error).rstrip('.')}" in md and "a property of the fit, not of the data" in md
    assert "no operator gets a label" in md


@pytest.mark.parametrize("edit", ["x_factor", "strip"])
def test_predict_refuses_an_edited_fit_json(edit, fitted, tmp_path, capsys):
    """fit.json carries its own checksum: one changed digit of a scaling factor, or the checksum
    removed, is a one-line error, not operators in the wrong units."""
    import shutil
    _, out = fitted
    mine = tmp_path / "fit"
    shutil.copytree(out, mine)
    rec = json.loads((mine / "fit.json").read_text())
    if edit == "x_factor":
        rec["scaling"]["x_factor"] = rec["scaling"]["x_factor"] * 1.1
    else:
        del rec[records.RECORD_CHECKSUM_FIELD]
    (mine / "fit.json").write_text(json.dumps(rec))
    with pytest.raises(SystemExit) as exc:
        cli.main(["predict", str(mine), "--u-grid", "0:1:3", "--out", str(tmp_path / "p")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1
    assert ("does not match its checksum" if edit == "x_factor" else "no checksum") in err


# ----------------------------------------------------------------------------- issue 51: fit and predict
def _one_line_exit(capsys, argv, code=2):
    """Run the CLI: it must end with ``code`` and one line on stderr, no traceback."""
    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    lines = [ln.rsplit("\r", 1)[-1].rsplit("\x1b[A", 1)[-1] for ln in err.split("\n")]   # what a terminal shows
    lines = [ln for ln in lines if ln.strip()]
    assert rc == code and "Traceback" not in err and len(lines) == 1, err
    return lines[0]


@pytest.fixture
def no_training(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("binn fit started training")
    monkeypatch.setattr(fit_report, "run_fit", refuse)


def _example_csv(path, x_fmt=None, n_x=31, times=(0.0, 24.0, 48.0)):
    """The example's data on 31 positions of [0, 1000], the positions written with ``x_fmt``."""
    fit_example.write_example_csv(path, n_x=n_x, times=times, n_rep=1)
    if x_fmt is not None:
        rows = list(csv.reader(open(path, newline="")))
        j = rows[0].index("x_um")
        h = 1000 / (n_x - 1)
        for r in rows[1:]:
            r[j] = x_fmt(h * round(float(r[j]) / h))      # the exact grid, written as x_fmt writes
        write_csv(path, rows)
    return path


QUICK = ["--mechanisms", "D,G", "--x", "x_um", "--t", "t_h", "--u", "density", "--scale", "quick", "--epochs", "1",
         "--seeds", "1", "--batch-size", "20", "--forward-method", "BDF"]


@pytest.mark.parametrize("x_fmt, said", [(lambda v: f"{v:.5f}", "x_um is written to 5 decimal(s)"),
                                         (lambda v: repr(float(np.float32(v))), "rounding, e.g. values written in single")])
def test_a_grid_the_solver_would_refuse_is_snapped_before_training_and_the_fit_solves(tmp_path, capsys, x_fmt, said):
    """31 positions on [0, 1000] written to 5 decimals (or in float32) trained, stored their
    networks, then crashed in the forward solve on every rerun: now snapped, said in the plan, and
    the fit, its rerun and a prediction on such a grid all solve."""
    data = _example_csv(tmp_path / "d.csv", x_fmt)
    argv = ["fit", str(data), *QUICK, "--out", str(tmp_path / "out")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert said in out and "snapped" in out and out.index("snapped") < out.index("networks: trained")
    assert cli.main(argv) == 0 and "nothing trained" in capsys.readouterr().out
    ic = write_csv(tmp_path / "ic.csv", [["x", "u"]] + [[x_fmt(v), f"{K / 2:g}"] for v in np.linspace(0, 1000, 31)])
    assert cli.main(["predict", str(tmp_path / "out"), "--ic", str(ic), "--t", "0,12", "--out", str(tmp_path / "p")]) \
        in (0, 1)                                       # 1: the one-epoch network's solve may fail; no traceback
    said_p = capsys.readouterr()
    assert "snapped" in said_p.out and "Traceback" not in said_p.err
    assert np.load(tmp_path / "p" / "predictions.npz")["u_p"].shape == (1, 2, 31)


def _special(tmp_path, what):
    import gzip
    import zipfile
    if what in ("/dev/null", "/dev/zero"):
        if not os.path.exists(what):
            pytest.skip(f"no {what}")
        return what
    path = tmp_path / f"special-{what}"
    if what == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(path)
    elif what == "folder":
        path.mkdir()
    elif what == "gzip":
        path.write_bytes(gzip.compress(b"x,t,u\n0,0,1\n"))
    elif what == "xlsx":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("[Content_Types].xml", "<Types/>")
            z.writestr("xl/workbook.xml", "<workbook/>")
    elif what == "png":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    elif what == "npz":
        np.savez(path, x=np.arange(3))
        path = path.with_suffix(".npz")
    elif what == "quote":
        path.write_text('x_um,t_h,density\n0,0,1\n"500,0,2\n1000,0,3\n')
    elif what == "empty name":
        return ""
    return str(path)


SPECIAL = [("/dev/null", "is a device, not a"), ("/dev/zero", "is a device, not a"),
           ("fifo", "is a pipe (a FIFO, or <(command))"), ("folder", "is a folder, not a"),
           ("empty name", "named by an empty string (an unset shell variable?)"),
           ("gzip", "not a CSV text file but a gzip-compressed file: decompress it"),
           ("xlsx", "not a CSV text file but an Excel workbook (.xlsx): save it as CSV"),
           ("png", "not a CSV text file but a PNG image"), ("npz", "not a CSV text file but a NumPy .npz archive"),
           ("quote", "line 3: a quote (\") opens a field that is not closed on that line")]


@pytest.mark.parametrize("what, said", SPECIAL)
def test_data_that_is_not_a_csv_file_is_named_for_what_it_is(tmp_path, capsys, no_training, what, said):
    err = _one_line_exit(capsys, ["fit", _special(tmp_path, what), *QUICK, "--out", str(tmp_path / "out")])
    assert said in err and "no such file" not in err and "--encoding" not in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("what, said", SPECIAL)
def test_an_initial_condition_that_is_not_a_csv_file_is_named_for_what_it_is(fitted, tmp_path, capsys, what, said):
    _, out = fitted
    err = _one_line_exit(capsys, ["predict", str(out), "--ic", _special(tmp_path, what), "--t", "0,1",
                                  "--x", "x_um", "--u", "density", "--out", str(tmp_path / "p")])
    assert said.replace("not a", "not an") in err or said in err, err
    assert "no such file" not in err and not (tmp_path / "p").exists()


@pytest.mark.parametrize("lr", ["1e-320", "1e-40", "nan", "inf", "-1e-3", "0", "1e39"])
def test_a_learning_rate_that_cannot_train_is_refused_as_noise_var_refuses(tmp_path, capsys, no_training, lr):
    data = _example_csv(tmp_path / "d.csv", n_x=11)
    err = _one_line_exit(capsys, ["fit", str(data), *QUICK, f"--lr={lr}", "--out", str(tmp_path / "out")])
    assert f"argument --lr: " in err and ("cannot train" in err or "must be a finite number > 0" in err), err


def test_initial_condition_and_u_grid_sizes_are_bounded_before_any_work(fitted, tmp_path, capsys, monkeypatch):
    """An initial condition of more than MAX_IC_POSITIONS positions, and a --u-grid of 1e10 values:
    one line each, before the array is built (1e10 values was a MemoryError; 1e9, 8 GB and 38 s)."""
    import time
    _, out = fitted

    def no_linspace(*a, **k):
        raise AssertionError("the grid was built")
    monkeypatch.setattr(predict.np, "linspace", no_linspace)
    t0 = time.perf_counter()
    err = _one_line_exit(capsys, ["predict", str(out), "--u-grid", "0:1:10000000000", "--out", str(tmp_path / "p")])
    assert "asks for 10000000000 values of u; at most 100000" in err and time.perf_counter() - t0 < 5
    monkeypatch.undo()
    n = predict.MAX_IC_POSITIONS + 1
    ic = tmp_path / "ic.csv"
    ic.write_text("x,u\n" + "".join(f"{k},1\n" for k in range(n)))
    err = _one_line_exit(capsys, ["predict", str(out), "--ic", str(ic), "--t", "0,1", "--out", str(tmp_path / "p")])
    assert f"{n:,} positions; an initial condition has at most {predict.MAX_IC_POSITIONS:,}" in err
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(predict.MAX_IC_BYTES + 1)                       # sparse: never read
    err = _one_line_exit(capsys, ["predict", str(out), "--ic", str(big), "--t", "0,1", "--out", str(tmp_path / "p")])
    assert f"{predict.MAX_IC_BYTES + 1:,} bytes; an initial condition has at most" in err


def test_predict_chooses_the_integrator_by_the_cost_model_fit_uses():
    from binn_utils.applications import requests
    said = []
    assert predict.choose_method(None, "RK45", 1000, 10, said.append) == "BDF"
    assert "1000 positions: the fit's RK45 would take ~" in said[0] and "solving with BDF" in said[0]
    rk45, bdf = requests.solve_seconds(1000, "RK45"), requests.solve_seconds(1000, "BDF")
    assert rk45 > 100 * bdf and f"~{requests.duration(10 * rk45)}" in said[0]
    said.clear()
    assert predict.choose_method("RK45", "BDF", 1000, 10, said.append) == "RK45"       # asked for: kept, with a note
    assert "--forward-method BDF" in said[0] and f"~{requests.duration(rk45)}" in said[0]
    said.clear()
    assert predict.choose_method(None, "RK45", 51, 10, said.append) == "RK45" and said == []
    # the fit's estimate rests on the same model: ten RK45 solves on 1000 positions dominate it
    plan = fit_plan.plan_fit(observations_on(1000), "D", None, scale="quick", cache_dir=tempfile.mkdtemp())
    assert plan.estimated_seconds() >= plan.n_networks * rk45


def observations_on(n_x):
    x = np.linspace(0, 1000, n_x)
    t = np.array([0.0, 24.0, 48.0])
    return user_data.observations_from_arrays(x, t, 1 + np.outer(1 + t, np.sin(x / 300) ** 2) / 100)


def test_the_fits_solution_figure_draws_at_most_twelve_times_and_the_plan_says_which():
    from binn_utils.presentation import panels
    t = np.arange(400.0)
    x = np.linspace(0, 1, 5)
    fig = figures.own_data_solutions(x, t, np.ones((1, 400, 5)), np.ones((2, 400, 5)), np.ones((2, 400, 5)))
    drawn = [ax.get_title() for ax in fig.axes if ax.axison]
    assert len(drawn) == panels.MAX_PANELS == 12 and drawn[0] == "t = 0" and drawn[-1] == "t = 399"
    obs = user_data.observations_from_arrays(x, t, 1 + np.outer(1 + t, 1 + x) / 1e3)
    plan = fit_plan.plan_fit(obs, "D", None, scale="quick", cache_dir=tempfile.mkdtemp(), batch_size=32)
    said = plan.describe()
    assert f"solutions.png draws 12 of the 400 times (t = 0, 36, 73," in said and "399)" in said


@pytest.mark.parametrize("where", ["storing the networks", "writing the outputs"])
def test_a_full_disk_says_truly_whether_the_networks_are_stored(tmp_path, capsys, monkeypatch, where):
    """A full disk during the outputs said "the networks are stored" also when it came while they
    were stored (none were)."""
    from binn_utils.store import fits
    if where == "storing the networks":
        def full(result, npz, js, spec):
            Path(npz).parent.mkdir(parents=True, exist_ok=True)
            Path(npz).write_bytes(b"half")                          # a half-written file, not a stored pair
            raise OSError(28, "No space left on device", str(npz))
        monkeypatch.setattr(fits, "save_train_result", full)
    else:
        import matplotlib.figure

        def full(self, path, *a, **k):
            raise OSError(28, "No space left on device", str(path))
        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    data = _example_csv(tmp_path / "d.csv", n_x=11)
    err = _one_line_exit(capsys, ["fit", str(data), *QUICK, "--out", str(tmp_path / "out")], code=1)
    assert "No space left on device" in err
    if where == "storing the networks":
        assert "no networks were stored: the rerun trains all 1 again" in err and "are stored" not in err
    else:
        assert f"the networks are stored in {tmp_path / 'out' / 'networks'}: the rerun loads them" in err


def test_fit_and_predict_train_and_solve_on_one_thread(fitted, tmp_path, monkeypatch):
    """Two fits side by side took five times as long each with torch's default threads."""
    import torch
    _, out = fitted
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert cli.main(["predict", str(out), "--u-grid", "0:0.004:5", "--out", str(tmp_path / "p")]) == 0
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_a_fit_never_replaces_a_folder_of_files_it_did_not_write(tmp_path, monkeypatch):
    """`binn fit` replaces its --out folder: a report.html of the user's own (the right name, but
    no fit.json beside it) and a notes folder or hidden file inside networks/ were deleted; now
    refused in one line.  An earlier fit's folder, or an interrupted one's networks/ alone, is not."""
    from binn_utils.applications.fit_plan import check_output_folder
    monkeypatch.chdir(tmp_path)
    own = tmp_path / "own"
    own.mkdir()
    (own / "report.html").write_text("my report")
    with pytest.raises(ValueError, match="holds files but no readable fit.json"):
        check_output_folder(own)
    (own / "fit.json").write_text("not json")
    with pytest.raises(ValueError, match="no readable fit.json"):
        check_output_folder(own)
    (own / "fit.json").write_text('{"command": "binn fit"}')
    check_output_folder(own)                                        # an earlier fit's folder
    for stray in ("my_notes", ".keep", "notes.txt"):
        nets = own / "networks"
        nets.mkdir(exist_ok=True)
        (nets / "fit-0123.npz").write_bytes(b"x")
        (nets / stray).mkdir() if stray == "my_notes" else (nets / stray).write_text("x")
        with pytest.raises(ValueError, match=f"its networks folder holds what a previous fit does not write \\({stray}"):
            check_output_folder(own)
        import shutil
        shutil.rmtree(nets)
    interrupted = tmp_path / "interrupted"
    (interrupted / "networks").mkdir(parents=True)
    (interrupted / "networks" / "fit-0123.json").write_text("{}")
    check_output_folder(interrupted)                               # networks stored before a Ctrl-C: resumed
    (interrupted / "networks" / ".fit-0123.npz.k2j4.tmp").write_bytes(b"x")     # a write cut short (killed)
    check_output_folder(interrupted)


def test_an_example_refuses_the_options_that_read_a_data_file_and_out_refuses_a_link(capsys, tmp_path, monkeypatch):
    """--example reads its shipped file as its chapter does: --x, --delimiter, --encoding ... were
    silently ignored; a symbolic link as --out was replaced by a folder, leaving a hidden link behind."""
    monkeypatch.chdir(tmp_path)
    for extra in (["--x", "nope"], ["--delimiter", ";;"], ["--encoding", "bogus"], ["--replicate", "well"]):
        with pytest.raises(SystemExit) as ex:
            cli.main(["fit", "--example", "scratch-assay", "--out", "ex", *extra])
        assert ex.value.code == 2
        err = capsys.readouterr().err
        assert f"{extra[0]} read(s) a DATA.csv" in err and err.count("\n") == 1
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    from binn_utils.applications.fit_plan import check_output_folder
    with pytest.raises(ValueError, match="is a symbolic link"):
        check_output_folder(tmp_path / "link")


def test_an_initial_condition_with_a_column_named_twice_is_refused(tmp_path):
    """A header 'x,x,u' was read by its first x; --x and --u naming one column gave a misleading
    'position appears twice'."""
    twice = tmp_path / "ic.csv"
    twice.write_text("x,x,u\n0,1,0.001\n500,2,0.001\n1000,3,0.001\n")
    with pytest.raises(ValueError, match="names 'x' more than once"):
        predict.load_initial_condition(twice)
    with pytest.raises(ValueError, match="--x and --u both name the column 'u'"):
        predict.load_initial_condition(twice, x="u", u="u")


def test_a_fit_on_a_grid_where_rk45_would_take_a_year_solves_with_bdf_and_says_so():
    """20,000 positions: the plan estimated ~8,889 h of RK45 solves and started; now BDF, said,
    unless RK45 is asked for; the paper's RK45 wherever it is not slow."""
    from binn_utils.applications.fit_plan import _integrator
    method, note = _integrator(None, 20_000, 5)
    assert method == "BDF" and "RK45, the paper's integrator, would take" in note and "--forward-method RK45" in note
    assert _integrator("RK45", 20_000, 5) == ("RK45", None)
    assert _integrator(None, 71, 5) == ("RK45", None)


def test_a_u_grid_beyond_double_precision_in_training_units_is_refused():
    """Data of order 1e-3: u = 1e307 is 1e310 in training units; it gave an overflow warning and
    operators read at an infinite u."""
    sc = Scaling.fit([0, 1, 2], [0, 1], [1e-3, 2e-3])
    with pytest.raises(ValueError, match="u = 1e\\+307 is beyond double precision in the fit's training units"):
        predict.check_u_grid_units(np.array([1.0, 1e307]), sc)
    predict.check_u_grid_units(np.array([1e-3, 1.0]), sc)


def test_times_with_an_empty_entry_are_refused():
    """--t "0,,12" silently dropped the blank entry (a time left out); a trailing comma is a list's end."""
    with pytest.raises(ValueError, match="--t has an empty entry"):
        predict.parse_times("0,,12")
    assert list(predict.parse_times("0, 12,")) == [0.0, 12.0]
