"""The size rule: no module above ``MAX_MODULE_LINES`` lines, no function (or method)
above ``MAX_FUNCTION_LINES``, anywhere in the package (a module that grows past it has more
than one job: split it by job; a function: into named steps)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "binn_utils"
#: The package's layers: every folder of it (a new one is checked without being named here).
CHECKED = sorted(p.name for p in PKG.iterdir() if (p / "__init__.py").is_file())
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

MODULES = sorted(PKG.rglob("*.py"))


def too_long(source: str, name: str) -> list[str]:
    """What in ``source`` (a module called ``name``) breaks the size rule, in words."""
    lines = source.count("\n") + (not source.endswith("\n") and bool(source))
    out = [f"{name}: {lines} lines (at most {MAX_MODULE_LINES})"] if lines > MAX_MODULE_LINES else []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = node.end_lineno - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                out.append(f"{name}:{node.lineno} {node.name}: {n} lines (at most {MAX_FUNCTION_LINES})")
    return out


def test_every_layer_is_checked():
    assert {"engine", "store", "analysis", "studies", "claims", "presentation", "applications"} <= set(CHECKED)
    assert all(any(m.parent.name == folder for m in MODULES) for folder in CHECKED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PKG).as_posix())
def test_no_module_or_function_is_too_long(path):
    assert too_long(path.read_text(), path.relative_to(PKG).as_posix()) == []


def test_the_rule_catches_a_long_module_and_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    long_function = f"def f():\n{body}\n"                       # the def line and 80 more
    assert too_long(long_function, "m") == [f"m:1 f: {MAX_FUNCTION_LINES + 1} lines (at most {MAX_FUNCTION_LINES})"]
    assert too_long(f"def f():\n{body[:body.rindex(chr(10))]}\n", "m") == []    # exactly 80: allowed
    long_module = "x = 1\n" * (MAX_MODULE_LINES + 1)
    assert too_long(long_module, "m") == [f"m: {MAX_MODULE_LINES + 1} lines (at most {MAX_MODULE_LINES})"]
    assert too_long("x = 1\n" * MAX_MODULE_LINES, "m") == []
