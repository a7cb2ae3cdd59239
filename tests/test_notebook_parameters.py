"""Notebook parameters: one check (binn_utils.applications.notebook_parameters), called by every
notebook's first code cell after its parameters and by `make rerun` (scripts/rerun.py)
before anything runs; a bad name or value is one line and exit status 2."""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import jupytext
import pytest

from binn_utils.applications.notebook_parameters import PARAMETERS, ParameterError, check_parameters

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def rerun():
    spec = importlib.util.spec_from_file_location("rerun", ROOT / "scripts" / "rerun.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("values, message", [
    ({"noise_vars": "abc"}, "parameter noise_vars must be a list, e.g. [0.0, 0.01], got 'abc'"),
    ({"noise_vars": 0.01}, "parameter noise_vars must be a list, e.g. [0.0, 0.01], got 0.01"),
    ({"scale": "quik"}, "parameter scale must be one of 'quick', 'book', 'lite', 'paper', got 'quik'"),
    ({"epochs": -5}, "parameter epochs must be at least 1, got -5"),
    ({"epochs": 1e20}, "parameter epochs must be at most 1e+06, got 1e+20"),
    ({"epochs": 2.5}, "parameter epochs must be an integer, got 2.5"),
    ({"noise_vars": [0.0, -0.01]}, "parameter noise_vars each entry must be at least 0, got -0.01"),
    ({"noise_vars": [0.0, 1e300]}, "parameter noise_vars each entry must be at most 3.40282e+38, got 1e+300"),
    ({"noise_var": 1e80}, "parameter noise_var must be at most 3.40282e+38, got 1e+80"),
    ({"archs": [[4, 32], [6]]}, "parameter archs each entry must be an (h, n) pair such as [4, 32], got [6]"),
    ({"dense": "yes"}, "parameter dense must be True or False, got 'yes'"),
    ({"reaction": "half"}, "parameter reaction must be one of 'supporting', 'text', 'equation', got 'half'"),
    ({"study": "noise,lr"}, "parameter study must be 'all' or a comma-separated list of learning_rate, "
                            "loss_weight, architecture, batch_size, noise"),
    ({"noise_var": None, "dense": None}, "parameter dense must be given (None is not allowed)"),
])
def test_a_bad_value_is_one_line_naming_the_parameter(values, message):
    with pytest.raises(ParameterError) as err:
        check_parameters(values)
    assert str(err.value) == message and "\n" not in str(err.value)


def test_good_values_pass():
    check_parameters({"noise_vars": [0.0, 0.01], "scale": "quick", "epochs": 5, "archs": [[4, 32], [6, 128]],
                      "shown_arch": (4, 32), "dense": True, "study": "noise,batch_size", "initial_cells": 16000,
                      "mechanisms": "DG", "source": None, "output_dir": "out/x", "shown_rate": 5e-4})
    with pytest.raises(ParameterError, match="unknown parameter 'noise_var_typo'"):
        check_parameters({"noise_var_typo": 1})


def parameters_cell(path: Path) -> dict:
    """{name: default} of a notebook's cell tagged parameters."""
    nb = jupytext.read(path)
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    return {t.id: ast.literal_eval(node.value) for node in ast.parse(cell.source).body
            if isinstance(node, ast.Assign) for t in node.targets}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_checks_all_its_parameters_first(path):
    nb = jupytext.read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = next(i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
    check = code[first + 1].source
    calls = [n for n in ast.walk(ast.parse(check)) if isinstance(n, ast.Call)
             and getattr(n.func, "id", None) == "check_parameters"]
    assert len(calls) == 1, f"{path.name}: the cell after the parameters must call check_parameters"
    passed = {k.arg: getattr(k.value, "id", None) for k in calls[0].args[0].keywords}
    defaults = parameters_cell(path)
    assert passed == {k: k for k in defaults}, f"{path.name} checks {sorted(passed)}, has {sorted(defaults)}"
    assert set(defaults) <= set(PARAMETERS)
    check_parameters(defaults)                  # the defaults are values the parameters can take


def test_rerun_refuses_an_unknown_parameter_naming_the_notebooks(tmp_path, capsys):
    rc = rerun().main(["noise", str(tmp_path), "-p", "noise_var", "0.01"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("make rerun: notebook noise has no parameter 'noise_var'; its parameters: scale, noise_vars, ")
    assert not (tmp_path / "noise.ipynb").exists()


@pytest.mark.parametrize("argv, line", [
    (["-p", "noise_vars", "abc"], "parameter noise_vars must be a list"),
    (["-p", "noise_vars", "0.01"], "parameter noise_vars must be a list"),
    (["-p", "scale", "quik"], "parameter scale must be one of"),
    (["-p", "epochs", "-5"], "parameter epochs must be at least 1"),
    (["-y", "[1, 2]"], "-y needs a mapping"),
])
def test_rerun_refuses_a_bad_value_in_one_line(argv, line, tmp_path, capsys):
    rc = rerun().main(["noise", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith(f"make rerun: {line}") and err.count("\n") == 1, err


def test_rerun_passes_lists_through_p_and_y(tmp_path, capsys):
    m = rerun()
    assert m.main(["--dry-run", "noise", str(tmp_path), "-p", "noise_vars", "[0.0, 0.01]", "-p", "archs",
                   "[(4, 32)]", "-p", "scale", "quick"]) == 0
    assert "noise_vars=[0.0, 0.01] archs=[[4, 32]] scale='quick'" in capsys.readouterr().out
    assert m.main(["--dry-run", "noise", str(tmp_path), "-y", "{noise_vars: [0.0, 0.01], dense: true}"]) == 0
    assert "noise_vars=[0.0, 0.01] dense=True" in capsys.readouterr().out


def test_the_notebooks_own_check_stops_it_and_rerun_prints_its_line(tmp_path, capsys):
    """Without the script's check (papermill used directly), the notebook's first cell
    after its parameters stops it; `make rerun` turns that into the same one line."""
    m = rerun()
    m.check_parameters = lambda values: None        # let the value reach the notebook
    rc = m.main(["own_data", str(tmp_path), "-p", "scale", "quik"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert re.fullmatch(r"make rerun: parameter scale must be one of 'quick', 'book', 'lite', 'paper', got 'quik'\n",
                        err), err
