"""Every entry of a match reaches the store through one write primitive (engine/writing.py).

The scan finds every *awaited* `.append(...)` / `.append_many(...)` call in service/kozyr (the
Store port's methods are coroutines; a list's `append` is never awaited, so it is not
mistaken for one) and allows them only inside the store implementations themselves
(kozyr/store/) and in kozyr/engine/writing.py. A second caller anywhere else (a new command
appending on its own, say `await engine.store.append(...)` in engine/matches.py) makes this
test fail, naming the file and line; that was checked by hand once by adding such a call.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kozyr

ROOT = Path(kozyr.__file__).parent
WRITE_PATH = ROOT / "engine" / "writing.py"
STORES = ROOT / "store"
APPENDS = {"append", "append_many"}


def store_appends(tree: ast.AST) -> list[int]:
    """The lines of the awaited `.append` / `.append_many` calls in `tree`."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Await)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr in APPENDS
    ]


def test_only_the_write_primitive_appends_to_a_store() -> None:
    strays = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == WRITE_PATH or STORES in path.parents:
            continue
        lines = store_appends(ast.parse(path.read_text(encoding="utf-8")))
        strays += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert strays == [], f"append to a store outside engine/writing.py: {strays}"


def test_the_scan_sees_an_append_and_the_write_primitive_has_them() -> None:
    stray = "async def f(engine):\n    await engine.store.append('m', 1, '', 't', 'd', None)\n"
    assert store_appends(ast.parse(stray)) == [2]
    assert store_appends(ast.parse("def f(xs):\n    xs.append(1)\n")) == []
    assert len(store_appends(ast.parse(WRITE_PATH.read_text(encoding="utf-8")))) == 3
