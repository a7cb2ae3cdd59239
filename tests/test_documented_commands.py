"""Every `make rerun` and `binn` command written in README.md and the book's pages runs.

The commands are read from the fenced blocks and the inline code of README.md, book/*.md
and the notebooks' Markdown (a prose mention such as "`binn sweep`" or one with "..." is
not a command).  Each runs the cheap way, so a documented command cannot rot:

* ``make rerun``: its PARAMS are checked against the notebook (scripts/rerun.py
  --dry-run: the names in its ``parameters`` cell, the values by
  ``binn_utils.applications.notebook_parameters``); the first one also runs for real, through make,
  at the quick scale;
* ``binn sweep``: with ``--dry-run`` (the plan, nothing trained); ``binn status`` as
  written (it only reads); ``binn migrate`` on an empty results folder;
* ``binn fit``: at the quick scale with 2 epochs and 1 initialisation, DATA.csv being the
  own-data page's example file; ``binn predict`` on that fit.

A command that needs a GPU is skipped where there is none.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
START = re.compile(r"^(?:\.venv/bin/)?(?:binn|make rerun)\b")
QUICK_FIT = ["--scale", "quick", "--epochs", "2", "--seeds", "1"]


def documents():
    """(name, Markdown text) of README.md, book/*.md and the notebooks' Markdown cells."""
    import jupytext
    yield "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for p in sorted((ROOT / "book").glob("*.md")):
        yield f"book/{p.name}", p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "notebooks").glob("*.py")):
        nb = jupytext.read(p)
        yield f"notebooks/{p.name}", "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def commands_in(text: str) -> list[str]:
    """The commands of one document: lines of fenced blocks that start with `binn`,
    `.venv/bin/binn` or `make rerun` (continuations joined, comments dropped), and inline
    code spans that are whole commands (at least two words after the subcommand, or
    --help; none with "...")."""
    text = re.sub(r"\\\n\s*", " ", text)
    found, fenced = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("```"):
            fenced = not fenced
        elif fenced and START.match(s):
            found.append(re.sub(r"\s+#.*$", "", s))
    for m in re.finditer(r"`((?:\.venv/bin/)?(?:binn|make rerun)\s[^`]+)`", text):
        words = m.group(1).split()
        if "..." not in m.group(1) and (len(words) >= 4 or words[-1] == "--help"):
            found.append(" ".join(words))
    return [c.removeprefix(".venv/bin/") for c in found]


def toml_files(text: str) -> dict:
    """Fenced TOML blocks whose first line names the file ("# cluster.toml")."""
    files = {}
    for m in re.finditer(r"```toml\n(.*?)```", text, re.S):
        body = textwrap.dedent(m.group(1))
        name = re.fullmatch(r"#\s*(\S+\.toml)", body.splitlines()[0].strip()) if body.strip() else None
        if name:
            files[name.group(1)] = body
    return files


DOCS = dict(documents())
COMMANDS = sorted({c for text in DOCS.values() for c in commands_in(text)})
RERUNS = [c for c in COMMANDS if c.startswith("make rerun")]
BINN = [c for c in COMMANDS if c.startswith("binn")]


def test_the_documents_hold_the_commands_this_test_runs():
    assert any("NB=noise" in c for c in RERUNS), RERUNS
    assert {c.split()[1] for c in BINN} >= {"fit", "predict", "sweep", "status", "migrate"}, BINN


def make_variables(command: str) -> dict:
    """NB, PARAMS and OUT of a `make rerun` command, as make gets them."""
    return dict(w.split("=", 1) for w in shlex.split(command)[2:])


def rerun_main():
    spec = importlib.util.spec_from_file_location("rerun", ROOT / "scripts" / "rerun.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def env():
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0", OMP_NUM_THREADS="1")


@pytest.mark.parametrize("command", RERUNS)
def test_documented_make_rerun_is_accepted(command, tmp_path, capsys):
    variables = make_variables(command)
    # make hands $(PARAMS) to the shell unquoted: the shell splits it
    rc = rerun_main()(["--dry-run", variables["NB"], str(tmp_path / "out"), *shlex.split(variables.get("PARAMS", ""))])
    out, err = capsys.readouterr()
    assert rc == 0, f"{command}: {err.strip()}"
    assert "would run notebooks/" in out


def test_make_rerun_runs_the_first_documented_command_at_the_quick_scale(tmp_path):
    """Through make itself (its PARAMS quoting included), with the quick scale."""
    variables = make_variables(RERUNS[0])
    params = variables.get("PARAMS", "")
    if "scale" not in params:
        params += " -p scale quick"
    assert "quick" in params
    venv = Path(sys.executable).parent.parent
    res = subprocess.run(["make", "-o", f"{venv}/.installed", "rerun", f"NB={variables['NB']}", f"PARAMS={params}",
                          f"OUT={tmp_path / 'out'}", f"VENV={venv}"], cwd=ROOT, env=env(), capture_output=True,
                         text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "out" / f"{variables['NB']}.ipynb").is_file()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with the files the documented commands name: DATA.csv (the own-data
    example), ic.csv (its first time), the TOML files shown, and fit/ once `binn fit` ran."""
    d = tmp_path_factory.mktemp("commands")
    from binn_utils.applications import fit_example
    shutil.copyfile(fit_example.EXAMPLE_FILE, d / "DATA.csv")
    import csv
    with open(fit_example.EXAMPLE_FILE, newline="") as f:
        rows = [r for r in csv.DictReader(f) if float(r["t_h"]) == 0 and r["well"] == "w1"]
    (d / "ic.csv").write_text("x,u\n" + "".join(f"{r['x_um']},{r['density']}\n" for r in rows))
    for text in DOCS.values():
        for name, body in toml_files(text).items():
            (d / name).write_text(body)
    (d / "empty-results").mkdir()
    return d


def binn_argv(command: str, workdir: Path) -> list[str]:
    argv = shlex.split(command)[1:]
    sub = argv[0]
    if sub == "sweep" and "--dry-run" not in argv and "--help" not in argv:
        argv.append("--dry-run")
    elif sub == "migrate":
        argv += ["--results-dir", str(workdir / "empty-results")]
    elif sub == "fit":
        argv += QUICK_FIT
    return argv


def run_binn(argv, workdir, capsys) -> tuple[int, str]:
    from binn_utils.applications import cli
    here = Path.cwd()
    os.chdir(workdir)
    try:
        try:
            rc = cli.main(argv)
        except SystemExit as e:          # argparse: --help (0) or a usage error (2)
            rc = e.code
    finally:
        os.chdir(here)
    return rc, capsys.readouterr().err.strip()


ORDER = {"fit": 0, "predict": 1}      # predict needs the fit


@pytest.mark.parametrize("command", sorted(BINN, key=lambda c: (ORDER.get(c.split()[1], 2), c)))
def test_documented_binn_command_runs(command, workdir, capsys):
    if "--device cuda" in command:
        import torch
        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA GPU")
    if command.split()[1] == "predict" and not (workdir / "fit" / "fit.json").is_file():
        rc, err = run_binn(binn_argv(next(c for c in BINN if c.startswith("binn fit DATA.csv")), workdir),
                           workdir, capsys)
        assert rc == 0, err
    rc, err = run_binn(binn_argv(command, workdir), workdir, capsys)
    assert rc == 0, f"{command}: {err[-1000:]}"


def test_environment_yml_pins_what_requirements_txt_pins():
    """A conda user gets the same packages as `make` (environment.yml lacked pandas once)."""
    import re
    from pathlib import Path
    root = Path(__file__).parents[1]
    req = {line.split("==")[0].lower(): line.strip() for line in (root / "requirements.txt").read_text().splitlines()
           if line.strip() and not line.startswith("#")}
    env = {m.group(1).lower(): f"{m.group(1)}=={m.group(2)}"
           for m in re.finditer(r"^\s+- ([A-Za-z0-9_.\-]+)==(\S+)$", (root / "environment.yml").read_text(), re.M)}
    assert env == req
