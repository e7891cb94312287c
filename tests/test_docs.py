"""The documentation stands alone and tells the truth.

docs/rules.md has an entry for every rule ID the code names (and, where the shared rules page is
beside the clone, exactly its IDs), documents every option as the games define it, and its
package copy is identical; nothing links outside the repository; `kozyr rules` fits 80 columns;
and every code block of README.md and clients/*/README.md is run, except the few marked
``<!-- not run: why -->``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kozyr.cli import rules_command
from kozyr.games import GAMES
from kozyr.games.contract import OptionSpec
from kozyr_client import KozyrClient, pb
from tests.clients.test_typescript_client import ts_bot  # noqa: F401  (the built client)
from tests.conftest import ServerThread, repo_root

ROOT = repo_root()
DOCS = ROOT / "docs" / "rules.md"
PACKAGE_COPY = ROOT / "service" / "kozyr" / "docs" / "rules.md"
SHARED_RULES = ROOT.parent / "shared" / "RULES.md"  # beside the clone in CI, absent elsewhere
ID = re.compile(r"\b(?:R|DIX|SIX|DUR)-\d+\b")
READMES = [ROOT / "README.md", *sorted((ROOT / "clients").glob("*/README.md"))]
KOZYR = [sys.executable, "-m", "kozyr.cli"]


def _ids_in_the_code() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        found |= set(ID.findall(path.read_text("utf-8")))
    for path in (ROOT / "tests").rglob("test_*.py"):
        for name in re.findall(r"def test_((?:R|DIX|SIX|DUR)_\d+)", path.read_text("utf-8")):
            found.add(name.replace("_", "-"))
    return found


def test_every_rule_id_the_code_names_has_an_entry_in_docs_rules_md() -> None:
    ids = rules_command.rule_ids(DOCS.read_text("utf-8"))
    assert len(ids) == len(set(ids)), "a rule ID has two entries"
    named = _ids_in_the_code()
    assert {"DIX-5", "SIX-8", "DUR-7", "R-4"} <= named  # the search itself finds IDs
    assert named - set(ids) == set(), "rule IDs used in service/ or tests/ without an entry"


@pytest.mark.skipif(not SHARED_RULES.exists(), reason="no shared/RULES.md beside this clone")
def test_docs_rules_md_has_every_rule_id_of_the_shared_rules_page() -> None:
    # docs/rules.md may add rules of its own (the early endings and clocks: R-7 … R-9,
    # DIX-10 …), never drop one of the shared page.
    shared = set(ID.findall(SHARED_RULES.read_text("utf-8")))
    assert shared <= set(rules_command.rule_ids(DOCS.read_text("utf-8")))


def test_the_package_copy_of_the_rules_is_docs_rules_md() -> None:
    # docs/rules.md is the source; kozyr rules reads the copy an installed wheel ships.
    assert PACKAGE_COPY.read_bytes() == DOCS.read_bytes(), (
        "docs/rules.md changed: run `cp docs/rules.md service/kozyr/docs/rules.md`"
    )
    assert rules_command.text() == DOCS.read_text("utf-8")


def _shown(value: object) -> str:
    if value is None:
        return "unset"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _option_rows(section: rules_command.Section) -> dict[str, list[str]]:
    rows = [line for line in section.lines if line.startswith("| `")]
    cells = [[c.strip() for c in row.strip("| ").split("|")] for row in rows]
    return {c[0].strip("`"): c[1:] for c in cells}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_option_is_documented_with_its_values_and_default(name: str) -> None:
    rows = _option_rows(rules_command.sections()[name])
    specs: tuple[OptionSpec, ...] = GAMES[name].OPTIONS
    assert set(rows) == {spec.name for spec in specs}
    for spec in specs:
        values, default, meaning = rows[spec.name]
        assert default == _shown(spec.default), spec.name
        if spec.choices:
            assert values.split(", ") == [_shown(c) for c in spec.choices], spec.name
        if spec.minimum is not None:
            assert values == f"integer ≥ {spec.minimum}", spec.name
        assert set(ID.findall(meaning)) == set(ID.findall(spec.help)), f"{spec.name}: its rules"


def test_the_docs_link_nothing_outside_the_repository() -> None:
    pages = [*READMES, *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text("utf-8")
        assert "../shared" not in text, page
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # an absolute URL
            resolved = (page.parent / target).resolve()
            assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{page}: {target}"


def _kozyr(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOZYR, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_kozyr_rules_prints_games_rules_and_one_rule_in_80_columns() -> None:
    listing = _kozyr("rules")
    assert listing.returncode == 0 and "six-dozens" in listing.stdout
    outputs = [listing.stdout]
    for name, section in rules_command.sections().items():
        whole = _kozyr("rules", name)
        assert whole.returncode == 0, whole.stderr
        assert all(rule in whole.stdout for rule in section.rules)
        outputs.append(whole.stdout)
        outputs += [
            "\n".join(rules_command.rule_text(rules_command.sections(), name, rid))
            for rid in section.rules
        ]
    one = _kozyr("rules", "dix", "dix-5")
    assert one.returncode == 0 and one.stdout.startswith("DIX-5 — Following suit\n")
    assert "must play a card of the led suit" in one.stdout and "`" not in one.stdout
    assert "R-4 — Automatic actions" in _kozyr("rules", "durak-dice", "R-4").stdout
    for text in outputs:
        assert all(len(line) <= 80 for line in text.splitlines())


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["chess"], "unknown game 'chess'"),
        (["dix", "DIX-99"], "dix has no rule 'DIX-99'"),
        (["dix", "SIX-8"], "SIX-8 is a rule of six-dozens, not dix"),
    ],
)
def test_an_unknown_game_or_rule_is_one_clear_line_and_exit_2(args: list[str], said: str) -> None:
    result = _kozyr("rules", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and said in result.stderr, result.stderr


@pytest.mark.slow
def test_kozyr_rules_works_from_an_installed_wheel(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next(tmp_path.glob("kozyr-*.whl"))
    assert "kozyr/docs/rules.md" in zipfile.ZipFile(wheel).namelist()
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)  # what pip install puts into site-packages
    shown = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "import kozyr.cli; print(kozyr.cli.__file__); "
            "kozyr.cli.main(['rules', 'dix', 'DIX-5'])",
            str(site),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(str(site)) and "DIX-5 — Following suit" in shown.stdout


# ---------------------------------------------------------------------------- code blocks


def code_blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """The fenced blocks of a page: (language, code, the reason it is not run or None)."""
    blocks = []
    pattern = r"(?:<!-- not run: ([^>]*?) -->\n)?```(\w*)\n(.*?)^```"
    for reason, lang, code in re.findall(pattern, page.read_text("utf-8"), re.S | re.M):
        blocks.append((lang, code, reason or None))
    return blocks


def test_only_a_few_blocks_are_not_run_and_each_says_why() -> None:
    skipped = [(p.name, r) for p in READMES for _, _, r in code_blocks(p) if r is not None]
    assert 0 < len(skipped) <= 5, skipped
    assert all(len(reason) > 10 for _, reason in skipped)
    langs = {lang for p in READMES for lang, _, r in code_blocks(p) if r is None}
    assert langs <= {"sh", "python", "ts", "text"}, "a block this test does not know how to run"


def test_the_layout_block_names_only_what_exists() -> None:
    trees = [code for lang, code, _ in code_blocks(ROOT / "README.md") if lang == "text"]
    assert trees
    for tree in trees:
        parent = ROOT
        for line in tree.splitlines():
            names = re.split(r"\s{2,}", line.strip())[0]
            for name in names.split(", "):
                base = ROOT if not line.startswith(" ") else parent
                assert (base / name).exists(), f"README layout: {line.strip()}"
                if not line.startswith(" "):
                    parent = ROOT / name


def _finished_match(address: str) -> str:
    """A Dix match played to its end on the server (first legal move each time)."""
    with KozyrClient(address) as client:
        created = client.create_match("dix", ["ann", "bob"], options={"single_hand": "true"})
        seats = {s: client.seat(created.match_id, t) for s, t in created.tokens.items()}
        view = seats[0].view()
        while view.status != pb.MATCH_STATUS_FINISHED:
            player = seats[view.to_act]
            view = player.move(player.legal_moves()[0]).view
    return created.match_id


def _runnable(lang: str) -> list[tuple[str, str]]:
    return [
        (page.name, code)
        for page in READMES
        for block_lang, code, reason in code_blocks(page)
        if block_lang == lang and reason is None
    ]


def test_the_shell_blocks_run(server: ServerThread, tmp_path: Path) -> None:
    blocks = _runnable("sh")
    assert blocks
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    match_id = _finished_match(server.address)
    for page, code in blocks:
        script = code.replace("MATCH_ID", match_id).replace("127.0.0.1:50051", server.address)
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, f"{page}:\n{code}\n{result.stdout}\n{result.stderr}"
        if "kozyr rules dix DIX-5" in code:
            assert "DIX-5 — Following suit" in result.stdout


def test_the_python_blocks_run_a_match_to_its_end(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = _runnable("python")
    assert blocks
    for page, code in blocks:
        namespace: dict[str, object] = {"__name__": "__readme__"}
        exec(compile(code.replace("127.0.0.1:50051", server.address), page, "exec"), namespace)
        created = namespace.get("created")
        if created is not None:  # a block that creates a match plays it to the end
            with KozyrClient(server.address) as client:
                view = client.spectate(created.match_id).view()  # type: ignore[attr-defined]
            assert view.status == pb.MATCH_STATUS_FINISHED, page
    assert "winners:" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.usefixtures("ts_bot")
def test_the_typescript_blocks_run_a_match_to_its_end(server: ServerThread, tmp_path: Path) -> None:
    ts = ROOT / "clients" / "typescript"
    index = (ts / "dist" / "src" / "index.js").as_uri()
    transpile = (
        "const ts = require(process.argv[1]); const fs = require('fs');"
        "const out = ts.transpileModule(fs.readFileSync(process.argv[2], 'utf8'),"
        " {compilerOptions: {module: ts.ModuleKind.ESNext,"
        " target: ts.ScriptTarget.ES2022}});"
        "fs.writeFileSync(process.argv[3], out.outputText);"
    )
    blocks = _runnable("ts")
    assert blocks
    for i, (page, code) in enumerate(blocks):
        source, target = tmp_path / f"block{i}.ts", tmp_path / f"block{i}.mjs"
        source.write_text(
            code.replace("./src/index.js", index).replace("127.0.0.1:50051", server.address)
        )
        subprocess.run(
            [
                "node",
                "-e",
                transpile,
                str(ts / "node_modules" / "typescript"),
                str(source),
                str(target),
            ],
            check=True,
            timeout=60,
        )
        result = subprocess.run(
            ["node", str(target)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "NODE_NO_WARNINGS": "1"},
        )
        assert result.returncode == 0, f"{page}:\n{result.stdout}\n{result.stderr}"
        assert "winners" in result.stdout, result.stdout
