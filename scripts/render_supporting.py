"""Render the Supporting Material notebook once per configuration, for the book.

    python scripts/render_supporting.py [--out book/supporting] [NAME ...]

``notebooks/supplementary.py`` is one parameterised notebook; the book's Supporting
Material chapter shows it (executed by Jupyter Book) for the noise-free repeat and, as
sections, the other configurations listed in ``CONFIGS``: for each, this script converts
the Jupytext source, gives the copy its own title, a one-sentence introduction (the
chapter's page has the full one) and its own figure labels, leaves out the sections of the
studies the page does not draw (cells tagged ``sm-<study>``; the page's note says why),
executes it with papermill into ``<out>/<name>.ipynb`` and hides the parameters cell and
papermill's injected one, which the book then shows as it is (those files are excluded from
the book's own execution).  Run by ``make book``; it trains nothing when
``BINN_REQUIRE_STORED=1`` (missing results are an error).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks" / "supplementary.py"
sys.path.insert(0, str(ROOT))
from binn_utils import studies  # noqa: E402
from binn_utils.studies.supporting import Page  # noqa: E402

STUDIES = tuple(st.name for st in studies.sweeps())
# the dense grid (351 points): the studies repeated there at each noise level, compared with
# the 71-point grid at the same level; the dense noise study (which sweeps sigma^2) once
DENSE_AT_ONE_LEVEL = ",".join(st.name for st in studies.repeated(dense=True) if not st.sweeps_noise)
# name -> (page title, papermill parameters)
CONFIGS = {
    "noise_1e-2": ("Supporting Material: more noise (σ² = 0.01)",
                   {"noise_var": 0.01, "dense": False, "study": "all", "compare": True}),
    "dense_0": ("Supporting Material: dense grid (351 points, no noise)",
                {"noise_var": 0.0, "dense": True, "study": DENSE_AT_ONE_LEVEL, "compare": True}),
    "dense_1e-3": ("Supporting Material: dense grid (351 points, σ² = 0.001) and the dense noise study",
                   {"noise_var": 0.001, "dense": True, "study": "all", "compare": True}),
    "dense_1e-2": ("Supporting Material: dense grid (351 points, σ² = 0.01)",
                   {"noise_var": 0.01, "dense": True, "study": DENSE_AT_ONE_LEVEL, "compare": True}),
}
INTRO = ("This page is the Supporting Material's repeat for the configuration below, drawn by the same "
         "notebook as the chapter's first page, {doc}`/notebooks/supplementary`, which states what the paper "
         "claims for these repeats and how they are read.")


def drawn(params: dict) -> set:
    """The names of the studies a page draws (as the notebook decides, ``Page.studies``)."""
    return {st.name for st in Page.of(params).studies()}


def prepare(nb, name: str, title: str, params: dict):
    """The chapter's notebook as one sub-page: its title, a one-sentence introduction,
    unique figure labels, and only the sections of the studies it draws."""
    first = nb.cells[0]
    lines = first.source.splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ValueError(f"{SOURCE} must start with a markdown title cell")
    first.source = f"# {title}\n\n{INTRO}"
    keep = drawn(params)
    cells = []
    for cell in nb.cells:
        tags = list(cell.metadata.get("tags", []))
        sections = [t[len("sm-"):] for t in tags if t.startswith("sm-") and t[len("sm-"):] in STUDIES]
        if sections and not set(sections) & keep:
            continue  # a study this page does not draw: no empty section
        if sections and "remove-cell" in tags:
            tags.remove("remove-cell")  # drawn here, though hidden on the chapter's own page
        if "hide-input" in tags:  # the code is shown once, on the chapter's own page
            tags[tags.index("hide-input")] = "remove-input"
        cell.metadata["tags"] = tags
        if cell.cell_type == "markdown":  # figure labels must be unique across the book
            cell.source = cell.source.replace(":name: fig-sm-", f":name: fig-sm-{name}-")
        cells.append(cell)
    nb.cells = cells
    return nb


def hide_parameters(path: Path):
    """Tag the parameters cell and papermill's injected-parameters cell remove-cell: the
    chapter's first page shows the parameters once."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "remove-cell" not in tags:
            tags.append("remove-cell")
    nbformat.write(nb, path)


def render(name: str, out_dir: Path) -> Path:
    import jupytext
    import papermill

    title, params = CONFIGS[name]
    nb = prepare(jupytext.read(SOURCE), name, title, params)
    out_dir.mkdir(parents=True, exist_ok=True)
    src = out_dir / f".{name}.src.ipynb"
    jupytext.write(nb, src)
    out = out_dir / f"{name}.ipynb"
    try:
        papermill.execute_notebook(str(src), str(out), parameters=params, cwd=str(ROOT / "notebooks"),
                                   progress_bar=False, kernel_name="python3")
    finally:
        src.unlink(missing_ok=True)
    hide_parameters(out)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"configurations to render (default: all of {sorted(CONFIGS)})")
    ap.add_argument("--out", default=str(ROOT / "book" / "supporting"))
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration(s) {unknown}; choose from {sorted(CONFIGS)}")
    for name in args.names or CONFIGS:
        print(f"render_supporting: {name} -> {render(name, Path(args.out))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
