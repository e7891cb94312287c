"""House rules that keep the code readable (issue 29): no module over 600 lines, no function over
60, as `ruff format` writes them (`make lint` checks the format, so the files are measured as they
are). They hold for every Python module the project writes: the service (not its generated
_proto), the Python client and the tests, bench scripts included. A module that grows past them
is split by concept, never squeezed or moved into a file named for the budget.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREES = (ROOT / "service" / "kozyr", ROOT / "clients" / "python" / "src", ROOT / "tests")
MODULES = sorted(p for tree in TREES for p in tree.rglob("*.py") if "_proto" not in p.parts)
MAX_MODULE, MAX_FUNCTION = 600, 60


def test_every_tree_is_measured() -> None:
    for tree in TREES:
        assert any(p.is_relative_to(tree) for p in MODULES), f"no module found under {tree}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE, f"{path.name} is over {MAX_MODULE} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION
    ]
    assert not long, f"functions over {MAX_FUNCTION} lines in {path.name}: {', '.join(long)}"
