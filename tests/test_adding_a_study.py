"""Adding a study is what CONTRIBUTING.md says: a module that defines ``STUDY``, listed in the
registry, and nothing else; the command line, ``binn status``, the plans, the diagnostics
chapter's table and the scorecard then find it.

The toy study below is such a module (written here instead of in ``binn_utils/studies/``)
and the ``toy`` fixture lists it in the registry for one test and takes it out afterwards;
its networks are tiny and train in seconds at any scale."""
import re
from pathlib import Path

import numpy as np
import pytest

from binn_utils import studies
from binn_utils.analysis.verdicts import Claim, ClaimCheck, Outcome, SubClaim, Verdict
from binn_utils.applications import cli
from binn_utils.claims import scorecard
from binn_utils.claims.context import Context
from binn_utils.engine.observations import DEFAULT_NOISE_VAR
from binn_utils.engine.runs import TrainConfig
from binn_utils.presentation import scorecard_text
from binn_utils.presentation.diagnostic_tables import paper_failures_table
from binn_utils.store.stores import committed_scale
from binn_utils.store.setting import Setting, replicates
from binn_utils.studies.base import PaperPoint, Shown, Study, count

ROOT = Path(__file__).resolve().parents[1]
TINY = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, compile=False)
RATES = (5e-4, 5e-2)


# ----------------------------------------------------------------------------- the toy study's module
def build(scale="book", noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None, seeds=None) -> list:
    """Two learning rates on the diffusion benchmark, tiny networks, at every scale."""
    ds, ss = replicates(count("seeds", seeds, 1))
    return [Setting("toy", f"r={lr:g}", "diffusion", noise_var, dense, ds, ss,
                    TINY.replace(lr=lr, epochs=count("epochs", epochs, TINY.epochs)), swept=("lr",)) for lr in RATES]


def claim_toy(ctx):
    runs = ctx.study("toy")
    errors = np.concatenate([r.metric("err_u_theta") for r in runs])
    sub = SubClaim("every network's error of $u_\\theta$ is finite", Verdict.of(bool(np.isfinite(errors).all())))
    return ClaimCheck(ctx.run(runs[0], "toy"), f"{errors.size} networks", (sub,), ("toy",))


def toy_study(number: int) -> Study:
    claim = Claim(number, "A toy claim.", "None: a test's.", claim_toy, title="toy networks train",
                  figure="toy", chapter="toy")
    return Study("toy", "toy rate", "diffusion", "toy diffusion", build, default={"lr": RATES[0]}, sweep=True,
                 paper_failures=(PaperPoint({"lr": RATES[1]}, "$r = 0.05$", "toy failure"),),
                 claims=(claim,), shown=(Shown("the toy study"),))


@pytest.fixture
def toy(monkeypatch):
    """The toy study, in the registry for one test (removed afterwards); its claim numbered
    after the paper's."""
    number = max(c.number for c in scorecard.claims()) + 1
    st = toy_study(number)
    monkeypatch.setitem(studies.REGISTRY, st.name, st)
    yield st
    # monkeypatch takes it out again; nothing else was changed


def _stdout(capsys, argv, code=0) -> str:
    assert cli.main(argv) == code
    return capsys.readouterr().out


# ----------------------------------------------------------------------------- the checks
def test_a_study_not_in_the_registry_is_not_a_choice(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        cli.main(["sweep", "toy", "--scale", "quick", "--dry-run", "--results-dir", str(tmp_path)])
    assert exc.value.code == 2 and "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_registered_study_is_swept_counted_planned_and_scored(toy, capsys, tmp_path):
    store = ["--results-dir", str(tmp_path)]
    # the command line: a choice, a dry run, status before and after a sweep
    dry = _stdout(capsys, ["sweep", "toy", "--scale", "quick", "--dry-run", *store])
    assert "toy: 2 of 2 settings to run" in dry and "2 groups, 2 settings, 2 replicates" in dry
    assert re.search(r"^toy\s+0/2 settings stored", _stdout(capsys, ["status", "all", "--scale", "quick", *store]), re.M)
    assert "sweep: 2 of 2 settings run and stored" in _stdout(capsys, ["sweep", "toy", "--scale", "quick",
                                                                      "--workers", "1", *store])
    assert re.search(r"^toy\s+2/2 settings stored", _stdout(capsys, ["status", "toy", "--scale", "quick", *store]),
                     re.M)
    # the plans: the main text's sweeps list it (a study with sweep=True)
    assert ("toy", "paper", None, False) in cli.plans()["paper-main"]
    planned = _stdout(capsys, ["sweep", "--plan", "paper-main", "--studies", "toy", "--dry-run", *store])
    assert "paper-main:toy: 0 of 2 settings to run" in planned   # the toy ignores the scale: stored already
    # the diagnostics chapter's table of the points where the paper locates failure
    rows = paper_failures_table(None, [(st, p, None, None, None) for st in studies.sweeps() for p in st.paper_failures])
    assert "| toy diffusion, $r = 0.05$ | toy failure |" in rows
    # the scorecard: read at the manifest's scale for a study it does not list, from the sweep's store
    assert committed_scale("toy") == "lite"
    ctx = Context(train=False, source=tmp_path)
    claim, = toy.claims
    assert claim in scorecard.claims()
    judged = scorecard.judge(claim, ctx)
    assert judged.check is not None and judged.outcome is Outcome.HOLDS, judged.error
    assert judged.check.runs.startswith("*lite* scale: ")
    assert f"| [{claim.number}](#sc-claim-{claim.number}) | " in scorecard_text.claims_table([judged])
    row, = [r for r in scorecard.runs(ctx) if r.what == "the toy study"]
    assert row.scales == ("lite",) and row.epochs == (TINY.epochs,) * 2


def test_contributing_names_files_that_exist():
    """Every file CONTRIBUTING.md's "How to add a study" names is where it says."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("## How to add a study", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`((?:binn_utils|notebooks|tests|results)/[\w./-]+?\.(?:py|json))`", section))
    named |= set(re.findall(r"`(_toc\.yml)`", section))
    assert len(named) >= 8, named
    missing = [p for p in sorted(named) if "NAME" not in p and not (ROOT / p).exists()]
    assert not missing, missing
