"""The shape of the imports: no `_private` name crosses a module boundary, the pure core imports
only the standard library and itself, the import contracts of pyproject.toml bite, and no two
modules share a name (docs/architecture.md, "Layers"); and the games build their states by
keyword, not from long rows of values by position."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "service"
KOZYR = SERVICE / "kozyr"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# The pure core: the games, the match and what they stand on, and the replay verifier.
PURE = ("kozyr.core", "kozyr.games", "kozyr.match", "kozyr.replay")
# kozyr.replay.export fetches a log over the public API (gRPC): the one impure replay module.
IMPURE_IN_PURE = ("kozyr.replay.export",)
# The only third-party imports of the pure core, each for what the standard library lacks.
ALLOWED_EXTERNAL = {
    # Every entry is hashed as canonical JSON: orjson writes json's bytes ten times faster.
    "kozyr.core.jsontext": {"orjson"},
    # Ed25519 to check a receipt's signature offline (the standard library has no Ed25519).
    "kozyr.core.receipts": {"cryptography"},
}


def _modules(top: Path) -> list[Path]:
    return sorted(p for p in top.rglob("*.py") if "_proto" not in p.parts)


def _module_name(path: Path) -> str:
    base = SERVICE if path.is_relative_to(SERVICE) else ROOT
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module an ImportFrom names, relative imports resolved against `module`."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) for every import in `path`, at any depth (function bodies and
    TYPE_CHECKING blocks included); name is None for `import module`."""
    module, tree = _module_name(path), ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, path.name == "__init__.py")
            found.extend((node.lineno, source, alias.name) for alias in node.names)
    return found


# ---------------------------------------------------------------------------- private names


def private_uses(source: str, module: str, is_package: bool = False) -> list[str]:
    """Where the code of `module` reaches for another kozyr module's `_private` name: `from
    kozyr.x import _name`, or `m._name` on a kozyr module `m` it imported."""
    tree = ast.parse(source)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _absolute(node, module, is_package)
            if origin.split(".")[0] != "kozyr":
                continue
            for alias in node.names:
                if _is_private(alias.name) and origin != module:
                    found.append(f"{node.lineno}: from {origin} import {alias.name}")
                modules.add(alias.asname or alias.name)  # `from kozyr.x import y` may be a module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kozyr":
                    modules.add(alias.asname or "kozyr")
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
            continue
        chain, base = [node.attr], node.value
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id in modules:
            found.append(f"{node.lineno}: {'.'.join([base.id, *reversed(chain)])}")
    return found


def test_the_private_scan_sees_both_forms() -> None:
    """The scan below can fail: it sees a private name imported and one reached through a
    module, and leaves dunders, public names and a module's own names alone."""
    source = (
        "from kozyr.games.dix.tables import _BIT\n"
        "from kozyr.games import dix\n"
        "import kozyr.core.fast as fast\n"
        "from kozyr.games.dix.model import _OWN\n"
        "x = dix._DECK, fast._filling, dix.__name__, dix.DECK, kozyr.games._x\n"
        "import kozyr.games\n"
    )
    assert private_uses(source, "kozyr.games.dix.model") == [
        "1: from kozyr.games.dix.tables import _BIT",
        "5: dix._DECK",
        "5: fast._filling",
        "5: kozyr.games._x",
    ]


@pytest.mark.parametrize("top", ["service/kozyr", "tests"])
def test_no_private_name_crosses_a_module_boundary(top: str) -> None:
    """A name shared between modules is public; `_private` stays in its module."""
    found = [
        f"{path.relative_to(ROOT)}:{use}"
        for path in _modules(ROOT / top)
        for use in private_uses(
            path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py"
        )
    ]
    assert not found, "private names used across modules:\n" + "\n".join(found)


# ---------------------------------------------------------------------------- purity


def _pure_modules() -> list[Path]:
    return [
        p
        for p in _modules(KOZYR)
        if _module_name(p).startswith(PURE) and _module_name(p) not in IMPURE_IN_PURE
    ]


def _in_pure_core(module: str) -> bool:
    return (
        module in PURE or module.startswith(tuple(f"{p}." for p in PURE))
    ) and not module.startswith(IMPURE_IN_PURE)


def impure_imports(path: Path) -> list[str]:
    """The imports of `path` that leave the standard library and the pure core."""
    module, found = _module_name(path), []
    allowed = ALLOWED_EXTERNAL.get(module, set())
    for line, source, name in _imports(path):
        top = source.split(".")[0]
        if top == "kozyr":
            # `from kozyr import games` names a package; `from kozyr.x import y` a name of x
            target = f"{source}.{name}" if source == "kozyr" and name else source
            if not _in_pure_core(target):
                found.append(f"{module}:{line}: {target}")
        elif top not in sys.stdlib_module_names and top != "__future__" and top not in allowed:
            found.append(f"{module}:{line}: {source}")
    return found


def test_the_pure_core_imports_only_the_standard_library_and_itself() -> None:
    """core, games, match and the replay verifier never import the shell, a transport or a
    third-party package (two named exceptions): they run anywhere, from data alone."""
    modules = _pure_modules()
    assert len(modules) > 40 and all(_module_name(p) != "kozyr.replay.export" for p in modules)
    found = [bad for path in modules for bad in impure_imports(path)]
    assert not found, "impure imports in the pure core:\n" + "\n".join(found)


def test_the_purity_check_sees_an_impure_import() -> None:
    """kozyr.replay.export, left out above, imports grpc and the client: the check says so."""
    found = impure_imports(KOZYR / "replay" / "export.py")
    assert any(bad.endswith(": grpc") for bad in found), found


# ---------------------------------------------------------------------------- the contracts bite


def _toy_config(tmp_path: Path) -> Path:
    """pyproject.toml's layers and acyclic contracts, applied to a toy package `toy` that has
    kozyr's top-level packages (empty) in place of kozyr's."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] in ("layers", "acyclic_siblings")
    ]
    assert {c["type"] for c in contracts} == {"layers", "acyclic_siblings"}
    toy = tmp_path / "toy"
    toy.mkdir()
    (toy / "__init__.py").write_text("", encoding="utf-8")
    for package in sorted(p.name for p in KOZYR.iterdir() if (p / "__init__.py").exists()):
        (toy / package).mkdir()
        (toy / package / "__init__.py").write_text("", encoding="utf-8")
    lines = ["[tool.importlinter]", 'root_packages = ["toy"]']
    for contract in contracts:
        lines.append("[[tool.importlinter.contracts]]")
        for key, value in contract.items():
            lines.append(f"{key} = {_toml(value)}")
    config_path = tmp_path / "importlinter.toml"
    config_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config_path


def _toml(value: object) -> str:
    """A contract's value as TOML, kozyr's names turned into toy's."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    text = str(value)
    return json.dumps("toy" if text == "kozyr" else text.replace("kozyr.", "toy."))


def _lint(tmp_path: Path, config: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(
        [str(LINT_IMPORTS), str(config), "--no-cache"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return run.stdout + run.stderr


def _plant(tmp_path: Path, module: str, source: str) -> None:
    (tmp_path / "toy" / Path(*module.split("."))).with_suffix(".py").write_text(
        source, encoding="utf-8"
    )


def test_the_contracts_bite(tmp_path: Path) -> None:
    """On a toy copy of kozyr's packages, the contracts keep a clean tree and break on an import
    that points up the layers and on a cycle of siblings."""
    config = _toy_config(tmp_path)
    clean = _lint(tmp_path, config)
    assert "BROKEN" not in clean and "0 broken" in clean, clean

    _plant(tmp_path, "games.rules", "import toy.server\n")  # the pure core reaching up
    upward = _lint(tmp_path, config)
    assert "Layers" in upward and "toy.games.rules -> toy.server" in upward, upward
    assert "1 broken" in upward, upward

    _plant(tmp_path, "games.rules", "")
    _plant(tmp_path, "match.clock", "import toy.match.record\n")
    _plant(tmp_path, "match.record", "import toy.match.clock\n")  # the circle of issue 29
    circle = _lint(tmp_path, config)
    assert "No cycles are allowed in toy.match" in circle and "1 broken" in circle, circle


# ---------------------------------------------------------------------------- names


def _per_game(path: Path) -> bool:
    """A module of the per-game pattern: directly inside games/<game>/, or bots/**/<game>.py."""
    rel = path.relative_to(KOZYR).parts
    games = {p.name for p in (KOZYR / "games").iterdir() if (p / "__init__.py").exists()}
    if rel[0] == "games" and len(rel) == 3 and rel[1] in games:
        return True
    return rel[0] == "bots" and path.stem in games


def test_no_two_modules_share_a_name() -> None:
    """A module's basename says what it is, once: no two rooms hold a `port.py` or an
    `endings.py` (a package's own name repeated inside it counts as a clash too)."""
    named: dict[str, list[str]] = defaultdict(list)
    for path in _modules(KOZYR):
        if path.stem in ("__init__", "__main__") or _per_game(path):
            continue
        named[path.stem].append(str(path.relative_to(KOZYR)))
    for package in (p for p in KOZYR.rglob("*") if (p / "__init__.py").exists()):
        if "_proto" not in package.parts and package != KOZYR:
            named[package.name].append(f"{package.relative_to(KOZYR)}/")
    clashes = {name: paths for name, paths in named.items() if len(paths) > 1}
    assert not clashes, "modules sharing a name:\n" + "\n".join(
        f"{name}: {', '.join(sorted(paths))}" for name, paths in sorted(clashes.items())
    )


# ---------------------------------------------------------------------------- states by keyword

GAMES = KOZYR / "games"
# At most three values by position: a small record reads plainly that way (`Card(rank, suit)`,
# `CardPlayed(seat, card)`, `TurnedUp(card, trump, leader)`); from four on, a reader counts
# commas to know which value is which field, and a state of 15 or 19 fields was built so.
MAX_POSITIONAL = 3
_GENERATED = {"constructor": 0, "replacer": 1}  # core.fast: the positional values each takes


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def positional_calls(source: str) -> list[tuple[int, str, int]]:
    """(line, name, values by position) for every call in `source` that passes a class more
    than MAX_POSITIONAL values by position (a name starting with a capital letter), and every
    call of a constructor that core.fast generated in the module (`_x = constructor(Cls)`)
    that passes any value by position (a `replacer`'s: any but the instance it copies).
    A starred argument counts as one value."""
    tree = ast.parse(source)
    generated: dict[str, int] = {}
    for node in ast.walk(tree):
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call) and _called_name(value.func) in _GENERATED:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    generated[target.id] = _GENERATED[str(_called_name(value.func))]
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (name := _called_name(node.func)) is None:
            continue
        limit = generated.get(name, MAX_POSITIONAL if name[:1].isupper() else None)
        if limit is not None and len(node.args) > limit:
            found.append((node.lineno, name, len(node.args)))
    return sorted(found)


def test_the_positional_scan_sees_classes_and_generated_constructors() -> None:
    """The scan below can fail: it sees a class given four values by position and a generated
    constructor given any, and leaves keywords, short records, a replacer's instance and
    functions alone."""
    source = (
        "from kozyr.core import fast\n"
        "from kozyr.core.fast import constructor, replacer\n"
        "_state: Final = constructor(State)\n"
        "_bout = fast.constructor(BoutStarted)\n"
        "_moved = replacer(State, 'turn')\n"
        "a = State(1, 2, 3, 4), model.State(m, g, *rest, k)\n"
        "b = _state(1, turn=2), _bout(bout=1, attacker=0), _moved(s, turn=1), _moved(s, 1)\n"
        "c = Card(rank, suit), TurnedUp(c, t, 0), State(match=m, info=i, hands=h, won=w)\n"
        "d = deal(1, 2, 3, 4, 5), _other(1, 2, 3, 4, 5)\n"
    )
    assert positional_calls(source) == [
        (6, "State", 4),
        (6, "State", 4),
        (7, "_moved", 2),
        (7, "_state", 1),
    ]


def test_the_games_build_their_states_by_keyword() -> None:
    """Issue 29: no state or record of a game is built from a long row of unnamed values. A call
    inside games/ passes a class at most MAX_POSITIONAL values by position (three: see its
    comment), and the fast constructors of core.fast take every field by keyword (a replacer
    the instance it copies first), so a reader sees which value goes to which field. No call
    is exempt: the states, the events, the option rows, the match's fixed part and the
    configs all go by keyword."""
    over: list[str] = []
    for path in _modules(GAMES):
        module = path.relative_to(GAMES).as_posix()
        for line, name, count in positional_calls(path.read_text(encoding="utf-8")):
            over.append(f"games/{module}:{line}: {name}(…{count} values by position)")
    assert len(_modules(GAMES)) > 20
    assert not over, "build these by keyword:\n" + "\n".join(over)
