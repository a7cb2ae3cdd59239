"""Snapshot every output of the book, to check that a change leaves the book unchanged.

    python scripts/book_snapshot.py --out snap.json [--keep DIR] [NAME ...]
    python scripts/book_snapshot.py --compare A.json B.json

The first form executes every chapter (``notebooks/*.py``: Jupytext to ipynb, papermill
with the notebooks/ folder as working directory and the default parameters) and every
Supporting Material page (the configurations of ``scripts/render_supporting.py``,
rendered the same way into a temporary folder), all with ``BINN_REQUIRE_STORED=1``, so
only the committed results are read and nothing is trained.  It writes one JSON file: per
notebook, per code cell, every output as ``[kind, value]``: each glued value
(``glue:NAME/MIME``), every ``text/plain``, ``text/markdown`` and ``text/html`` output,
the SHA-256 of every ``image/png``, printed streams and errors.  Memory addresses
(``0x7f...``) are blanked, since they change from one run to the next.  NAME restricts the
run to some notebooks (a chapter's file stem, or ``supporting/<configuration>``).

The second form prints each difference between two snapshots (notebook, cell, kind) and
exits 1 if there is any, 0 if the snapshots are identical.

A maintainer's tool: run it before and after a change that should not change the book
(a refactoring) and compare.  The code executed is the tree this script lives in (its
root is put first on the kernels' ``PYTHONPATH``).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
TEXT_KINDS = ("text/plain", "text/markdown", "text/html")


def _text(value) -> str:
    return ADDRESS.sub("0x…", "".join(value) if isinstance(value, list) else str(value))


def _bundle(data: dict, prefix: str = "") -> list:
    """The entries of one mime bundle: texts verbatim (addresses blanked), PNGs by hash."""
    entries = []
    for mime in sorted(data):
        if mime in TEXT_KINDS:
            entries.append([prefix + mime, _text(data[mime])])
        elif mime == "image/png":
            raw = base64.b64decode("".join(data[mime]) if isinstance(data[mime], list) else data[mime])
            entries.append([prefix + "image/png sha256", hashlib.sha256(raw).hexdigest()])
    return entries


def outputs_of(nb) -> dict:
    """``{cell index: {"source": first line, "outputs": [[kind, value], ...]}}`` of the
    code cells of an executed notebook (a dict as read by nbformat)."""
    cells = {}
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        entries = []
        for out in cell.get("outputs", []):
            kind = out["output_type"]
            if kind == "stream":
                entries.append([f"stream:{out['name']}", _text(out["text"])])
            elif kind == "error":
                entries.append(["error", f"{out['ename']}: {_text(out['evalue'])}"])
            else:
                glued = out.get("metadata", {}).get("scrapbook")
                if glued:
                    strip = len(glued.get("mime_prefix", ""))
                    data = {k[strip:]: v for k, v in out["data"].items()}
                    entries += _bundle(data, prefix=f"glue:{glued['name']}/")
                else:
                    entries += _bundle(out.get("data", {}))
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        cells[str(i)] = {"source": source.strip().splitlines()[0] if source.strip() else "",
                         "outputs": entries}
    return cells


def _execute_chapter(path: Path, work: Path) -> Path:
    import jupytext
    import papermill

    src = work / f".{path.stem}.src.ipynb"
    jupytext.write(jupytext.read(path), src)
    out = work / f"{path.stem}.ipynb"
    papermill.execute_notebook(str(src), str(out), cwd=str(ROOT / "notebooks"),
                               progress_bar=False, kernel_name="python3")
    return out


def _render_supporting():
    """scripts/render_supporting.py of this tree, as a module."""
    spec = importlib.util.spec_from_file_location("render_supporting", ROOT / "scripts" / "render_supporting.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def notebooks() -> list:
    """``[(name, how to execute it into a folder)]``: the chapters, then the Supporting
    Material pages."""
    jobs = [(p.stem, lambda work, p=p: _execute_chapter(p, work))
            for p in sorted((ROOT / "notebooks").glob("*.py"))]
    supporting = _render_supporting()
    jobs += [(f"supporting/{name}", lambda work, name=name: supporting.render(name, work))
             for name in supporting.CONFIGS]
    return jobs


def snapshot(names=(), keep: Path | None = None) -> dict:
    import nbformat

    os.environ["BINN_REQUIRE_STORED"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    os.environ.setdefault("PYTHONHASHSEED", "0")
    jobs = notebooks()
    unknown = set(names) - {n for n, _ in jobs}
    if unknown:
        raise SystemExit(f"book_snapshot: unknown notebook(s) {sorted(unknown)}; have {[n for n, _ in jobs]}")
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, execute in jobs:
            if names and name not in names:
                continue
            work = (keep or Path(tmp)) / name.replace("/", "_")
            work.mkdir(parents=True, exist_ok=True)
            print(f"book_snapshot: {name}", file=sys.stderr, flush=True)
            entry = {}
            try:
                path = execute(work)
            except Exception as exc:  # recorded: the comparison shows it
                entry["failed"] = f"{type(exc).__name__}: {_text(str(exc))[:2000]}"
                done = [p for p in sorted(work.glob("*.ipynb")) if not p.name.startswith(".")]
                path = done[0] if done else None
            if path is not None:
                entry["cells"] = outputs_of(nbformat.read(path, as_version=4))
            result[name] = entry
    return result


def compare(a: dict, b: dict) -> list:
    """Every difference between two snapshots, as lines."""
    lines = []
    for nb in sorted(set(a) | set(b)):
        if nb not in a or nb not in b:
            lines.append(f"{nb}: only in {'the second' if nb not in a else 'the first'} snapshot")
            continue
        for key in ("failed",):
            if a[nb].get(key) != b[nb].get(key):
                lines.append(f"{nb}: {key}: {a[nb].get(key)!r} -> {b[nb].get(key)!r}")
        ca, cb = a[nb].get("cells", {}), b[nb].get("cells", {})
        for cell in sorted(set(ca) | set(cb), key=int):
            if cell not in ca or cell not in cb:
                lines.append(f"{nb}: cell {cell}: only in {'the second' if cell not in ca else 'the first'} snapshot")
                continue
            oa, ob = ca[cell]["outputs"], cb[cell]["outputs"]
            if oa == ob:
                continue
            where = f"{nb}: cell {cell} ({cb[cell]['source'][:60]!r})"
            if [k for k, _ in oa] != [k for k, _ in ob]:
                lines.append(f"{where}: kinds {[k for k, _ in oa]} -> {[k for k, _ in ob]}")
            for (ka, va), (kb, vb) in zip(oa, ob):
                if ka == kb and va != vb:
                    lines.append(f"{where}: {ka}: {_short(va)} -> {_short(vb)}")
    return lines


def _short(value: str, width: int = 300) -> str:
    value = repr(value)
    return value if len(value) <= width else value[:width] + "…"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="notebooks to execute (default: all)")
    ap.add_argument("--out", help="the snapshot file to write")
    ap.add_argument("--keep", help="folder to keep the executed notebooks in (default: a temporary one)")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two snapshots")
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        lines = compare(a, b)
        print("\n".join(lines) if lines else f"identical: {len(a)} notebooks")
        return 1 if lines else 0
    if not args.out:
        ap.error("give --out FILE (or --compare A B)")
    snap = snapshot(set(args.names), Path(args.keep).resolve() if args.keep else None)
    Path(args.out).write_text(json.dumps(snap, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    failed = [n for n, e in snap.items() if "failed" in e]
    print(f"book_snapshot: {len(snap)} notebooks -> {args.out}" + (f"; failed: {failed}" if failed else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
