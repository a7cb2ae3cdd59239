"""The package's layers import one way, and only the presentation layer draws.

    engine <- store <- analysis <- studies, claims <- presentation <- applications (and notebooks)

The folders of ``binn_utils`` are the layers: a module's layer is the folder it sits in
(``binn_utils/<folder>/...``), and every module sits in one.  Every import of every module
is read with ``ast``, including imports inside functions: a module may import from its own
layer or a layer below it, never above; nothing imports a private name (``_x``) of another
module; no module below the presentation layer imports matplotlib; and the import graph has
no cycle.
"""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "binn_utils"
#: The layers from the bottom up, each the folders that hold it (CONTRIBUTING.md).
LAYERS = {
    "engine": ("engine",),
    "store": ("store",),
    "analysis": ("analysis",),
    "studies": ("studies", "claims"),
    "presentation": ("presentation",),
    "applications": ("applications",),
}
ORDER = list(LAYERS)
FOLDER_LAYER = {folder: layer for layer, folders in LAYERS.items() for folder in folders}
DRAWING = ("matplotlib",)


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def layer_of(module: str) -> str | None:
    """The layer of ``binn_utils.<folder>...``: its folder's (None for the package itself)."""
    if module == PKG.name:
        return None
    folder = MODULES[module].relative_to(PKG).parts[0]
    if folder not in FOLDER_LAYER:
        raise AssertionError(f"{module} is in no layer: put it in one of the folders {sorted(FOLDER_LAYER)} "
                             f"of {PKG}, or add a folder to LAYERS in {__file__}")
    return FOLDER_LAYER[folder]


def test_every_module_sits_in_a_layer_folder():
    """No module beside the layers (only the package's own ``__init__``), no layer without a folder."""
    loose = [m for m in MODULES if m != PKG.name and MODULES[m].parent == PKG]
    assert not loose, f"modules outside the layer folders: {loose}"
    for module in MODULES:
        layer_of(module)
    assert all((PKG / folder / "__init__.py").is_file() for folder in FOLDER_LAYER)


def imports(module: str):
    """(imported module, names, line) of every import in ``module``, relative ones resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            names = tuple(a.name for a in node.names)
            if node.module is None or node.level and not node.module:
                # "from . import x": each name is a module
                for n in names:
                    yield f"{target}.{n}", (), node.lineno
            else:
                yield target, names, node.lineno


def internal(target: str) -> str | None:
    """The module of ``binn_utils`` an import refers to (None for outside modules)."""
    if not target.startswith("binn_utils"):
        return None
    while target and target not in MODULES:
        target = target.rsplit(".", 1)[0] if "." in target else ""
    return target or None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_of_the_package_names_one_of_its_modules(module):
    """``from ..x import y`` names a module of this tree (an import of a module that moved
    could otherwise be served by another installed copy of the package)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    bad = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == PKG.name):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target not in MODULES:
                bad.append(f"line {node.lineno}: {target}")
        elif isinstance(node, ast.Import):
            bad += [f"line {node.lineno}: {a.name}" for a in node.names
                    if a.name.split(".")[0] == PKG.name and a.name not in MODULES]
    assert not bad, f"{module} imports modules that are not in {PKG}: " + ", ".join(bad)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_or_sideways(module):
    mine = layer_of(module)
    if mine is None:
        return
    upward = []
    for target, _, line in imports(module):
        dep = internal(target)
        if dep is None or layer_of(dep) is None:
            continue
        if ORDER.index(layer_of(dep)) > ORDER.index(mine):
            upward.append(f"line {line}: {module} ({mine}) imports {dep} ({layer_of(dep)})")
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_of_another_module_is_imported(module):
    bad = [f"line {line}: {n} from {target}" for target, names, line in imports(module)
           if internal(target) not in (None, module) for n in names if n.startswith("_") and n != "__version__"]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_nothing_below_the_presentation_layer_draws(module):
    mine = layer_of(module)
    if mine is None or ORDER.index(mine) >= ORDER.index("presentation"):
        return
    bad = [f"line {line}: {target}" for target, _, line in imports(module) if target.split(".")[0] in DRAWING]
    # a function that takes an Axes draws, whatever it imports
    tree = ast.parse(MODULES[module].read_text())
    bad += [f"line {f.lineno}: {f.name}(ax...)" for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(a.arg in ("ax", "axes") for a in f.args.args + f.args.kwonlyargs)]
    assert not bad, f"{module} ({mine}) draws: " + ", ".join(bad)


#: The exceptions to declaring dependencies at the top above the store, all for speed: the
#: command line loads the own-data modules (matplotlib, the trainer) only for `binn fit` and
#: `binn predict`, so that `binn --help`, usage errors and `binn status` answer at once
#: (tests/test_cli.py); a fit loads the trainer (torch) only when it trains, so reading a
#: stored fit (the book's chapters) needs no torch.  The `binn` entry point imports the
#: command inside its Ctrl-C handling, so that a Ctrl-C while it loads is one line.  The
#: registry of studies, which `binn status` loads, needs no scipy: claim 1's check loads the
#: identifiability modules (how well the data constrain D, and its words) when it runs.
LATE_IMPORTS = {"binn_utils.studies.framework": {"binn_utils.analysis.identifiability",
                                                  "binn_utils.analysis.identifiability_words"},
                "binn_utils.applications": {"binn_utils.applications.cli"},
                "binn_utils.applications.fit_commands": {"binn_utils.applications.fit_plan",
                                                         "binn_utils.applications.fit_report",
                                                         "binn_utils.applications.predict"},
                "binn_utils.analysis.user_data": {"binn_utils.engine.training"}}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_of_the_package_is_imported_inside_a_function_above_the_store(module):
    """Above the store layer every dependency is declared at the top of the module (the
    engine and the store import some modules late, e.g. in the workers that train)."""
    mine = layer_of(module)
    if mine is None or ORDER.index(mine) <= ORDER.index("store"):
        return
    tree = ast.parse(MODULES[module].read_text())
    top = {id(n) for n in tree.body}
    allowed = LATE_IMPORTS.get(module, set())
    late = [f"line {n.lineno}" for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            and id(n) not in top and (getattr(n, "level", 0) or (getattr(n, "module", None) or "").startswith("binn_utils")
                                      or any(a.name.startswith("binn_utils") for a in n.names))
            and not {internal(t) for t, _, line in imports(module) if line == n.lineno} <= allowed]
    assert not late, f"{module} imports binn_utils modules inside functions: {', '.join(late)}"


def test_the_import_graph_has_no_cycle():
    graph = {m: {d for t, _, _ in imports(m) if (d := internal(t)) and d != m
                 and not m.startswith(d + ".")} for m in MODULES}   # a package's submodule may import it
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_rules_catch_an_upward_import(tmp_path, monkeypatch):
    """The checker itself: an engine module importing a study is reported, as are an
    engine module that draws, a cycle and a module outside the layer folders."""
    fake = tmp_path / "binn_utils"
    for folder in ("", "engine", "studies"):
        (fake / folder).mkdir(exist_ok=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "engine" / "metrics.py").write_text("def f():\n    from ..studies import REGISTRY\n")
    (fake / "engine" / "solvers.py").write_text("def shade(ax, lo, hi):\n    ax.axvspan(lo, hi)\n")
    (fake / "studies" / "__init__.py").write_text("from ..engine.metrics import f\n")
    (fake / "loose.py").write_text("")
    (fake / "engine" / "losses.py").write_text("from ..networks import mlp\n")      # a module that moved
    monkeypatch.setattr(__import__(__name__), "PKG", fake)
    monkeypatch.setattr(__import__(__name__), "MODULES", {module_name(p): p for p in fake.rglob("*.py")})
    with pytest.raises(AssertionError, match="imports binn_utils.studies"):
        test_imports_go_down_or_sideways("binn_utils.engine.metrics")
    with pytest.raises(AssertionError, match="draws"):
        test_nothing_below_the_presentation_layer_draws("binn_utils.engine.solvers")
    with pytest.raises(AssertionError, match="import cycle"):
        test_the_import_graph_has_no_cycle()
    with pytest.raises(AssertionError, match="outside the layer folders.*binn_utils.loose"):
        test_every_module_sits_in_a_layer_folder()
    with pytest.raises(AssertionError, match="not in .*line 1: binn_utils.networks"):
        test_every_import_of_the_package_names_one_of_its_modules("binn_utils.engine.losses")
