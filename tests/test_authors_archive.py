"""The authors' archived errors are vendored unchanged (data/authors_archive)."""
import csv
import hashlib
from pathlib import Path

import pytest

ARCHIVE = Path(__file__).resolve().parents[1] / "data" / "authors_archive"
SHA256 = {
    "errors.csv": "270865c22aab92db77fa9a16f0a019c8bf7cd757e5f59f23d41cf20fdcfe90f6",
    "README.md": "55803e97c0c76bce8d978d85ec9022f43af9d9db3ba708ae3af5e1d6af1ed0d6",
    "DATASETS.md": "e8231dc2bfb75082c7ebfab6be8f7070936121b06df746797ea34e0d66cf2c5f",
    "authors_datasets.npz": "60e2a0b8b1ea51b88767067f7035f2eec03d2857dc3742bcc899d3d53380e363",
    "check.py": "fdf20ab406c565b77297ad25d55aee4a9f3ef797fb98d060dc2d496892057e54",
    "LICENSE": "6050744639a6f1257c10c3df7f9abb26ff0a36989960cd82f1fb9c0908eba61f",
}


@pytest.mark.parametrize("name", sorted(SHA256))
def test_archive_file_is_unchanged(name):
    assert hashlib.sha256((ARCHIVE / name).read_bytes()).hexdigest() == SHA256[name]


def test_archive_has_the_rows_its_readme_counts():
    rows = list(csv.DictReader((ARCHIVE / "errors.csv").open()))
    assert len(rows) == 1965
    assert sum(r["source"] == "archived" for r in rows) == 1477
    assert {r["norm"] for r in rows} == {"frobenius", "spectral", "l2"}


def test_the_reader_names_settings_as_our_studies_do():
    import numpy as np
    from binn_utils.analysis import authors_archive as aa
    up = aa.errors("learning_rate", "err_u_p", noise_var=1e-3, lr=5e-4)
    assert up.shape == (10,) and np.all(up > 0)
    spec = aa.errors("architecture", "err_u_p", noise_var=1e-3, norm="spectral", arch_D=(4, 4), arch_V=[4, 32])
    frob = aa.errors("architecture", "err_u_p", noise_var=1e-3, arch_D=(4, 4), arch_V=(4, 32))
    assert spec.shape == frob.shape == (10,) and np.all(frob >= spec)  # Frobenius >= spectral for one matrix
    assert aa.errors("batch_size", "err_u_p", noise_var=0.0, batch_size=40, budget="10min").shape == (1,)
    assert len(aa.settings("architecture", noise_var=0.01)) == 16
    with pytest.raises(ValueError, match="several archived settings"):
        aa.errors("batch_size", "err_u_p", noise_var=0.0, batch_size=40)
    assert aa.errors("learning_rate", "err_u_p", noise_var=1e-3, lr=1.0).size == 0
