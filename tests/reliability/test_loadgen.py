"""`kozyr loadgen`: its checker refuses damaged logs, and 2,000 concurrently watched matches on
one `kozyr serve` lose nothing on a bounded number of Redis connections (issue 13)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from kozyr.games import get_game
from kozyr.match.log import Entry, canonical_json, entry_hash
from kozyr.replay.recorder import record_match
from kozyr.tools.load_report import passed
from kozyr.tools.loadgen import LoadConfig, LoadGen, is_loopback
from kozyr.tools.log_check import check_log
from tests.reliability.harness import ARBITER, Serve, sampling, store_probe

WATCHED = 2_000


def crafted_log() -> list[tuple[int, str, str]]:
    entries = record_match(get_game("dix"), ["ann", "bob"], b"\x07" * 32, max_moves=100_000)
    return [(e.version, e.canonical, e.hash) for e in entries][:12]


def acks_of(rows: list[tuple[int, str, str]]) -> dict[str, tuple[int, int]]:
    entries = [Entry.from_canonical(text) for _, text, _ in rows]
    return {e.command_id: (e.seat, e.version) for e in entries if e.version > 1}


def test_the_checker_passes_an_intact_log() -> None:
    rows = crafted_log()
    check = check_log(rows, acks_of(rows), seen=len(rows))
    assert (check.problems, check.lost, check.version) == ((), 0, 12)


def test_the_checker_fails_a_log_with_a_gap() -> None:
    rows = crafted_log()
    gapped = rows[:5] + rows[6:]
    check = check_log(gapped, acks_of(rows), seen=len(rows))
    assert check.corrupted
    assert any(p.startswith("gap: version 6 expected, 7 found") for p in check.problems)
    assert check.lost == len(rows) - 5  # the acks of versions 6.. are not in the readable log


def test_the_checker_fails_a_lost_acknowledged_move() -> None:
    rows = crafted_log()
    acked = acks_of(rows) | {"never-written": (0, 13)}
    check = check_log(rows, acked, seen=13)
    assert check.lost == 1
    assert "1 acknowledged move(s) missing from the log" in check.problems


def test_the_checker_fails_an_ack_answered_at_another_entry() -> None:
    rows = crafted_log()
    acked = acks_of(rows)
    cid = next(iter(acked))
    acked[cid] = (acked[cid][0], acked[cid][1] + 1)  # acknowledged as a version it is not
    assert check_log(rows, acked, seen=len(rows)).lost == 1


def test_the_checker_fails_a_broken_chain_and_a_bad_hash() -> None:
    rows = crafted_log()
    data = json.loads(rows[3][1])
    data["prev"] = "f" * 64
    forged = canonical_json(data)
    chain = [*rows[:3], (4, forged, entry_hash(forged)), *rows[4:]]
    assert (
        "version 4: prev is not the hash of version 3" in check_log(chain, {}, len(rows)).problems
    )
    hashed = [*rows[:3], (4, rows[3][1], "0" * 64), *rows[4:]]
    assert "version 4: hash does not match its text" in check_log(hashed, {}, len(rows)).problems


def test_the_checker_fails_a_log_behind_what_clients_saw() -> None:
    rows = crafted_log()
    assert check_log(rows, {}, seen=len(rows) + 1).problems == (
        f"the fold is at version {len(rows)}, clients saw {len(rows) + 1}",
    )


def test_loadgen_refuses_a_remote_address_unless_allowed() -> None:
    from kozyr.cli import main

    assert [
        is_loopback(a)
        for a in ("127.0.0.1:1", "localhost:1", "[::1]:1", "10.0.0.1:1", "example.org:443")
    ] == [True, True, True, False, False]
    assert main(["loadgen", "--server", "example.org:443", "--matches", "1"]) == 2


@pytest.mark.solo
def test_2000_concurrently_watched_matches_lose_nothing_on_few_redis_connections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve = Serve(tmp_path / "data").start()
    try:
        config = LoadConfig(
            server=serve.address,
            matches=WATCHED,
            concurrency=WATCHED,
            moves_per_match=2,
            seconds=90,
            seed=13,
            arbiter_token=ARBITER,
            deadline=20,
            give_up=40,
            ramp=60,
        )
        with sampling(serve.server_connections) as connections:
            report = asyncio.run(LoadGen(config, store_probe(serve)).run())
        stopped = serve.stop()
    finally:
        serve.kill_all()
    peak = max(connections)
    with capsys.disabled():
        print(
            f"\nloadgen {WATCHED} watched matches: {report['moves_acknowledged']} moves in "
            f"{report['seconds']} s ({report['moves_per_second']}/s), SubmitMove "
            f"{report['submit_latency_ms']} ms, errors {report['errors']}, peak "
            f"{report['peak_watched_matches']} matches watched at once, at most {peak} "
            f"Redis connections of the server, SIGTERM exit {stopped} s"
        )
    assert report["peak_watched_matches"] == WATCHED
    assert report["false_unavailable"] == 0
    assert report["acknowledged_lost"] == 0
    assert report["matches_checked"] == WATCHED
    assert report["moves_acknowledged"] == 2 * WATCHED
    assert passed(report), report["problems"]
    # The pools' bounds, whatever the number watched: moves (the feed and lobby share their
    # gate) 64 + 8 for background tasks, watchers 8 + 4, the webhook sender 8.
    assert peak <= 64 + 8 + 12 + 8, f"{peak} Redis connections for {WATCHED} watched"
    assert stopped is not None
