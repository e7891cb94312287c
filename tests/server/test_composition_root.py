"""One composition root: server/bootstrap.py is the only place a server is put together.

In service/kozyr only server/bootstrap.py constructs a `KozyrServicer(`, an `Engine(`, a gRPC
server (`grpc.aio.server(`) or the web port (`start_web(`); `kozyr serve`, `kozyr play` and
every test fixture that runs a server go through it (a Wiring and `start`, or
server/background.BackgroundServer), so the tests run the path production runs. The tests are
scanned too: none builds a servicer, a gRPC server or a web port of its own. Tests of the
engine alone (on a MemoryStore, or on Redis with no server) still construct `Engine(`
directly: they test the engine, not a server, so `Engine(` is not looked for in tests/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kozyr

SERVICE = Path(kozyr.__file__).parent
ROOT = SERVICE / "server" / "bootstrap.py"
TESTS = Path(__file__).resolve().parent.parent
SERVER_PARTS = {"KozyrServicer", "server", "start_web"}  # grpc.aio.server(...) is `server`


def calls(path: Path, names: set[str]) -> list[str]:
    """`path:line name` of each call of one of `names` (a plain name or an attribute)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in names and (name != "server" or ast.unparse(func) == "grpc.aio.server"):
            found.append(f"{path.name}:{node.lineno} {name}")
    return found


def test_only_the_bootstrap_builds_an_engine_a_servicer_or_a_transport() -> None:
    strays = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path != ROOT:
            strays += calls(path, SERVER_PARTS | {"Engine"})
    assert strays == []
    built = {c.split()[-1] for c in calls(ROOT, SERVER_PARTS | {"Engine"})}
    assert built == SERVER_PARTS | {"Engine"}


def test_no_test_builds_a_server_without_the_bootstrap() -> None:
    strays = []
    for path in sorted(TESTS.rglob("*.py")):
        if path != Path(__file__).resolve():
            strays += calls(path, SERVER_PARTS)
    assert strays == []


def test_the_scan_finds_a_stray_server(tmp_path: Path) -> None:
    stray = tmp_path / "stray.py"
    stray.write_text("s = grpc.aio.server()\nv = KozyrServicer(e)\nEngine(MemoryStore())\n")
    assert calls(stray, SERVER_PARTS | {"Engine"}) == [
        "stray.py:1 server",
        "stray.py:2 KozyrServicer",
        "stray.py:3 Engine",
    ]
