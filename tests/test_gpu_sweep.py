"""The GPU plan runner's selection of work (dry runs only: no training)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import gpu_sweep  # noqa: E402


def test_unknown_study_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        gpu_sweep.main(["--plan", "quick-test", "--studies", "bogus", "--dry-run"])
    assert exc.value.code == 2
    assert "unknown study bogus" in capsys.readouterr().err


def test_studies_and_skip_studies_select_plan_entries(tmp_path, capsys):
    # an empty results folder: every setting of the plan is missing
    gpu_sweep.main(["--plan", "quick-test", "--results-dir", str(tmp_path), "--dry-run"])
    everything = capsys.readouterr().out
    assert "learning_rate" in everything and "architecture" in everything
    gpu_sweep.main(["--plan", "quick-test", "--results-dir", str(tmp_path), "--studies", "architecture",
                    "--dry-run"])
    only = capsys.readouterr().out
    assert "architecture" in only and "learning_rate" not in only
    gpu_sweep.main(["--plan", "quick-test", "--results-dir", str(tmp_path), "--skip-studies", "architecture",
                    "--dry-run"])
    rest = capsys.readouterr().out
    assert "learning_rate" in rest and "architecture" not in rest


def test_non_positive_epochs_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        gpu_sweep.main(["--plan", "quick-test", "--epochs", "0", "--dry-run"])
    assert exc.value.code == 2
    assert "must be a positive integer" in capsys.readouterr().err
