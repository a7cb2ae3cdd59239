"""The table of what was run (the scorecard's and the dense page's) names every study and
configuration the book reads, from the committed store: every setting a chapter or a Supporting
Material page loads with its default parameters, every study and variant the manifest lists,
and the committed fits."""
from __future__ import annotations

import pytest

from binn_utils.claims import runs_read, scorecard
from binn_utils.claims.context import Context, RunRow
from binn_utils.presentation import scorecard_text
from binn_utils.store.stores import default_results_dir, read_manifest

from test_committed_results import book_settings


@pytest.fixture(scope="module")
def rows():
    return scorecard.runs(Context(train=False))


def test_every_setting_the_book_reads_is_a_row_of_what_was_run(rows):
    named = {k for r in rows for k in r.keys}
    missing = {f"{chapter}: {s.study} {s.label}" for chapter, settings in book_settings().items()
               for s in settings if s.key not in named}
    assert not missing, f"{len(missing)} settings the book reads are in no row:\n" + "\n".join(sorted(missing)[:40])


def test_every_study_and_variant_of_the_manifest_and_every_fit_is_stored_in_a_row(rows):
    m = read_manifest(default_results_dir())
    whats = " | ".join(r.what for r in rows)
    assert all(r.stored for r in rows), [r.what for r in rows if not r.stored]
    for name in m["authors_data"]:
        assert f"on the authors' data" in whats and any(name.split("_")[0] in r.what.lower().replace(" ", "_")
                                                         for r in rows if "authors' data" in r.what), name
    assert "the three readings of the reaction term" in whats           # variants: framework_reactions
    assert "Fig. 1 on the 351-point grid" in whats
    if m.get("dense_datasets", {}).get("noise"):
        assert "Fig. 2 as printed: the (4, 32) network on the 351-point grid" in whats
    fits = [r for r in rows if r.data]
    stored_fits = sorted(p.parent.name for folder in runs_read.FITS
                         for p in (default_results_dir() / folder).glob("*.json"))
    assert len(fits) == len(stored_fits) >= 2
    assert {r.scales[0] for r in fits} <= {"paper", "book", "lite", "quick"}


def test_the_table_says_how_many_stored_settings_it_does_not_name(rows):
    words = runs_read.unnamed_words(rows)
    n = sum(len(k) for k in runs_read.stored_keys().values()) - len({k for r in rows for k in r.keys} & set().union(
        *runs_read.stored_keys().values()))
    assert (f"{n:,} further setting" in words) if n else words == ""


def test_a_fits_row_reads_its_data_in_words():
    row = RunRow("Scratch assay: the BINN fit", ("paper",), (), False, (4000,), ((1, 10),), ("cpu",), ("BDF",),
                 data="the scratch-assay data")
    cells = scorecard_text.provenance_cells(row)
    assert cells[:3] == ["Scratch assay: the BINN fit", "the scratch-assay data", "paper"]
    assert runs_read.scale_of_fit(4000, 10) == "paper" and runs_read.scale_of_fit(1000, 3) == "lite"
    assert runs_read.scale_of_fit(7, 7) == "–"
