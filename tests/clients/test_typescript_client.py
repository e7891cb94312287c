"""The TypeScript client plays every game against the real Python server.

When node is on the machine, the pinned toolchain of clients/typescript is installed once with
`npm ci` (node_modules is kept and reused while package-lock.json is unchanged), the stubs are
generated from protos/ and compiled (kept while their inputs are unchanged), and the example bot
(examples/bot.ts) takes a seat next to Python random bots, or every seat, and plays to the end.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import random
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import KeyRing
from kozyr.core.tree_heads import TreeHead, head_problem
from kozyr_client import KozyrClient, KozyrError, SeatClient
from tests.conftest import ARBITER, ServerThread, repo_root

TS = repo_root() / "clients" / "typescript"
BOT = TS / "dist" / "examples" / "bot.js"
PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None,
        reason="node is not installed: the TypeScript client is not run",
    ),
]


def _digest(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(repo_root())).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _run(args: list[str], what: str, timeout: float = 300) -> None:
    result = subprocess.run(
        args, cwd=TS, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    if result.returncode != 0:
        pytest.fail(
            f"{what} failed ({' '.join(args)}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )


@pytest.fixture(scope="module")
def ts_bot() -> Path:
    """The compiled example bot, installing and building only what changed."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            "node is installed but npm is not: install npm (Debian: `apt-get install "
            "npm`) to build clients/typescript, or remove node to skip this test"
        )
    # Two modules use it (tests/test_docs.py too), so two xdist workers may build at once:
    # one at a time, or one `npm ci` deletes node_modules under the other's compiler.
    lock = Path(tempfile.gettempdir()) / f"kozyr-ts-{hashlib.sha256(bytes(TS)).hexdigest()[:16]}"
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes
        _build(npm)
    return BOT


def _build(npm: str) -> None:
    """`npm ci` when the lock file changed, `npm run build` when an input did."""
    lock = TS / "package-lock.json"
    installed = TS / "node_modules" / ".kozyr-lock.sha256"
    want = _digest([lock, TS / "package.json"])
    if not installed.exists() or installed.read_text() != want:
        _run([npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"], "npm ci")
        installed.write_text(want)
    inputs = [
        *(repo_root() / "protos").rglob("*.proto"),
        *(TS / "vendor").rglob("*.proto"),
        *(TS / "src").glob("*.ts"),
        *(TS / "examples").glob("*.ts"),
        *(TS / "test").glob("*.ts"),
        TS / "buf.gen.yaml",
        TS / "tsconfig.json",
        lock,
    ]
    built = TS / "dist" / ".kozyr-build.sha256"
    want = _digest(inputs)
    if not BOT.exists() or not built.exists() or built.read_text() != want:
        _run([npm, "run", "build"], "generating and compiling the TypeScript client")
        built.write_text(want)


def bot(ts_bot: Path, server: ServerThread, *args: str) -> subprocess.Popen[str]:
    """Start the TypeScript bot process."""
    node = shutil.which("node")
    assert node is not None
    return subprocess.Popen(
        [node, str(ts_bot), "--server", server.address, "--quiet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=TS,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, dict[str, object], str]:
    """Wait for a bot; its exit code, JSON summary (last stdout line) and stderr."""
    out, err = process.communicate(timeout=240)
    lines = out.strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    return process.returncode, summary, err


class PythonBot(threading.Thread):
    """A Python random bot on one seat, through kozyr_client."""

    def __init__(self, seat: SeatClient, seed: int) -> None:
        super().__init__(daemon=True)
        self.seat, self.rng = seat, random.Random(seed)
        self.final: pb.MatchView | None = None
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.final = self.seat.play(lambda view, legal: self.rng.choice(legal))
        except BaseException as e:  # reported by the test
            self.error = e


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_the_typescript_bot_joins_and_plays_each_game_to_the_end(
    ts_bot: Path, server: ServerThread, game: str
) -> None:
    # One game follows WatchMatch with unary moves (--watch), the others play over a session.
    flags = ("--watch",) if game == "dix" else ()
    n = PLAYERS[game]
    ts_seat = n - 1  # the last seat is open; the TypeScript bot's join starts the match
    with KozyrClient(server.address) as client:
        created = client.create_match(game, [f"py{i}" for i in range(n - 1)] + [""])
        python = [
            PythonBot(client.seat(created.match_id, created.tokens[i]), i) for i in range(n - 1)
        ]
        code, summary, err = finish(
            bot(
                ts_bot,
                server,
                "--match",
                created.match_id,
                "--name",
                "ts",
                "--seed",
                str(n),
                *flags,
            )
        )
        for p in python:
            p.join(60)
            assert p.error is None, p.error
        final = client.spectate(created.match_id).view()
    assert code == 0, err
    assert final.status == pb.MATCH_STATUS_FINISHED
    assert final.players[ts_seat].name == "ts"
    assert summary["seat"] == ts_seat and summary["status"] == "FINISHED"
    assert summary.get("session", False) is not bool(flags)
    assert summary["version"] == final.version
    assert summary["winners"] == list(final.outcome.winners)
    assert int(str(summary["moves"])) > 0
    log = server.stub().GetMatchLog(pb.GetMatchLogRequest(match_id=created.match_id)).entries
    joined = [
        event
        for entry in log
        for event in json.loads(entry.canonical_json)["events"]
        if event["type"] == "SeatJoined"
    ]
    # joinMatch's default: 32 random bytes (the bot's --seed only seeds its choices)
    assert [len(bytes.fromhex(e["contribution"])) for e in joined] == [32]


def test_typescript_bots_in_every_seat_finish_a_durak_match(
    ts_bot: Path, server: ServerThread
) -> None:
    with KozyrClient(server.address) as client:
        created = client.create_match("durak-dice", [f"ts{i}" for i in range(4)])
        bots = [
            bot(
                ts_bot,
                server,
                "--match",
                created.match_id,
                "--token",
                created.tokens[i],
                "--seed",
                str(i),
            )
            for i in range(4)
        ]
        results = [finish(b) for b in bots]
        final = client.spectate(created.match_id).view()
    assert final.status == pb.MATCH_STATUS_FINISHED
    for seat, (code, summary, err) in enumerate(results):
        assert code == 0, err
        assert summary["seat"] == seat and summary["version"] == final.version


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_typescript_bots_in_every_seat_play_over_play_sessions(
    ts_bot: Path, server: ServerThread, game: str
) -> None:
    n = PLAYERS[game]
    with KozyrClient(server.address) as client:
        created = client.create_match(
            game, [f"ts{i}" for i in range(n)], {"single_hand": "true"} if game == "dix" else {}
        )
        bots = [
            bot(
                ts_bot,
                server,
                "--match",
                created.match_id,
                "--token",
                created.tokens[i],
                "--seed",
                str(i),
                "--session",
            )
            for i in range(n)
        ]
        results = [finish(b) for b in bots]
        final = client.spectate(created.match_id).view()
        log = client.seat(created.match_id, ARBITER).log()
    assert final.status == pb.MATCH_STATUS_FINISHED
    for seat, (code, summary, err) in enumerate(results):
        assert code == 0, err
        assert summary["session"] is True and summary["seat"] == seat
        assert summary["version"] == final.version
    moved = [e for e in log.entries if json.loads(e.canonical_json)["command_id"]]
    assert sum(int(str(r[1]["moves"])) for r in results) == len(moved)


def test_the_typescript_bot_keeps_the_logs_tree_head_once_its_match_ended(
    ts_bot: Path, redis_url: str, tmp_path: Path
) -> None:
    server = ServerThread(redis_url, tlog_dir=tmp_path / "tlog")
    try:
        with KozyrClient(server.address) as client:
            created = client.create_match("dix", ["ts0", "ts1"], {"single_hand": "true"})
            bots = [
                bot(ts_bot, server, "--match", created.match_id, "--token", created.tokens[i])
                for i in range(2)
            ]
            results = [finish(b) for b in bots]
            keys = KeyRing(k.public_key for k in client.signing_keys())
    finally:
        server.stop()
    for code, summary, err in results:
        assert code == 0, err
        head = TreeHead.from_json(summary["treeHead"])  # type: ignore[arg-type]
        assert head.size >= 2 and head_problem(head, keys) is None  # creation and end logged


def test_typescript_errors_carry_the_reason_code(ts_bot: Path, server: ServerThread) -> None:
    code, _, err = finish(bot(ts_bot, server, "--match", "no-such-match"))
    assert code == 2 and "NotFound MATCH_NOT_FOUND" in err, err
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["a", "b"])
        with pytest.raises(KozyrError):
            client.join(created.match_id, "c")
    code, _, err = finish(bot(ts_bot, server, "--match", created.match_id))
    assert code == 2 and "FailedPrecondition SEAT_TAKEN" in err and created.match_id in err, err


def test_the_typescript_unit_tests_pass(ts_bot: Path) -> None:
    npm = shutil.which("npm")
    assert npm is not None
    result = subprocess.run(
        [npm, "test"], cwd=TS, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # moves 2, errors 2, receipts 2, contribution 1, clock 1
    assert "# fail 0" in result.stdout and "# pass 8" in result.stdout
