"""House rules that keep the code readable: no module over 600 lines, no function over 60."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parent.parent / "service" / "kozyr"
MODULES = sorted(p for p in SERVICE.rglob("*.py") if "_proto" not in p.parts)
MAX_MODULE, MAX_FUNCTION = 600, 60


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SERVICE)))
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
