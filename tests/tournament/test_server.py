"""A --server tournament end to end: every bot a gRPC client with its own seat token, every
match a real stored match that can be read back."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import KeyRing, read_receipts
from kozyr.replay import archive
from kozyr.replay.verify import verify
from kozyr.tournament import Tournament, run, served, serverbots
from kozyr.tournament.remote import every_process, lane_connections
from kozyr.tournament.scoreboard import to_json
from kozyr.tournament.serverbots import play_server_bots
from kozyr_client import Backoff, KozyrClient
from tests.api.helpers import auth
from tests.conftest import ARBITER, ServerThread
from tests.reliability.harness import redis_servers_on
from tests.server.test_workers import Workers

pytestmark = pytest.mark.slow  # whole tournaments through a server, in worker processes


def test_a_served_dix_tournament_is_the_in_process_one_with_stored_matches(
    server: ServerThread,
) -> None:
    t = Tournament(
        "dix", ("heuristic", "ismcts:iters=4"), (("single_hand", "true"),), "duplicate", 4, 9
    )
    served = run(t, workers=1, server=server.address)
    local = run(t, workers=1)
    assert not served.interrupted and len(served.results) == 4
    # The fixtures' deals were prearranged from the same seeds and the bots are seeded
    # alike, so the served matches are the very matches played in-process.
    assert [(r.winners, r.scores, r.moves) for r in served.results] == [
        (r.winners, r.scores, r.moves) for r in local.results
    ]
    ids = [r.match_id for r in served.results]
    assert len(set(ids)) == 4 and all(ids)
    assert [m["match_id"] for m in to_json(served)["matches"]] == ids
    stub = server.stub()
    for r in served.results:
        view = stub.GetMatch(pb.GetMatchRequest(match_id=r.match_id)).view
        assert view.status == pb.MATCH_STATUS_FINISHED
        assert view.prearranged  # a duplicate deal is marked as arranged
        assert list(view.outcome.winners) == list(r.winners)
        assert [p.name for p in view.players] == [t.names[p] for p in r.lineup]
        log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=r.match_id), metadata=auth(ARBITER))
        seats = [json.loads(e.canonical_json)["seat"] for e in log.entries[1:]]
        assert len(seats) == r.moves  # one stored entry per bot move, by the seats themselves
        assert set(seats) == {0, 1}


def test_a_served_durak_tournament_with_worker_processes(server: ServerThread) -> None:
    t = Tournament("durak-dice", ("heuristic", "random", "ismcts:iters=3"), (), "duplicate", 3, 4)
    result = run(t, workers=2, server=server.address)
    assert len(result.results) == 3 and not result.interrupted
    assert sum(len(r.winners) > 0 for r in result.results) == 3
    # Decks and die rolls are both prearranged from the deal's seed: the same matches as
    # in-process, so dice luck cancels in a served duplicate tournament too.
    local = run(t, workers=1)
    assert [(r.winners, r.scores, r.moves) for r in result.results] == [
        (r.winners, r.scores, r.moves) for r in local.results
    ]
    stub = server.stub()
    for r in result.results:
        view = stub.GetMatch(pb.GetMatchRequest(match_id=r.match_id)).view
        assert view.status == pb.MATCH_STATUS_FINISHED
        assert list(view.outcome.scores) == list(r.scores)


def test_a_served_window_refills_as_matches_end_and_creates_none_once_stopping(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3 matches in play per session, created 2 at a time: 12 fixtures over 2 sessions make
    # each window refill twice as its matches end, on one stream each.
    monkeypatch.setattr(served, "AT_ONCE", 3)
    monkeypatch.setattr(served, "BATCH", 2)
    t = Tournament("dix", ("heuristic", "random"), (("single_hand", "true"),), "duplicate", 12, 6)
    local = {r.index: (r.winners, r.scores, r.moves) for r in run(t, workers=1).results}
    results = served.play_served(t, t.fixtures(), server.address)
    assert [(r.index, r.winners, r.scores, r.moves) for r in results] == [
        (i, *local[i]) for i in sorted(local)
    ]
    # Stopping after each window's first batch: its 2 matches finish, no more are created.
    asked = threading.local()

    def stopping() -> bool:
        asked.n = getattr(asked, "n", 0) + 1
        return asked.n > 2  # the loop asks twice before its first batch

    partial = served.play_served(t, t.fixtures(), server.address, stopping)
    assert len(partial) == 4
    assert all((r.winners, r.scores, r.moves) == local[r.index] for r in partial)


def test_one_worker_keeps_its_windows_of_matches_in_play_to_the_last(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4 matches in play per session, created 2 at a time: 24 fixtures make each of the
    # worker's two windows refill five times. One worker once played one match after another.
    monkeypatch.setattr(served, "AT_ONCE", 4)
    monkeypatch.setattr(served, "BATCH", 2)
    t = Tournament("dix", ("heuristic", "random"), (("single_hand", "true"),), "duplicate", 24, 5)
    served.GAUGE.reset()
    result = run(t, workers=1, server=server.address)
    assert not result.interrupted and len(result.results) == 24
    # One window per session for the whole run, each filled to its 4 matches, and no window's
    # decisions in flight dropped to none while it had fixtures left to create.
    gauge = served.GAUGE
    assert (gauge.windows, gauge.matches, gauge.peak, gauge.starved) == (served.SESSIONS, 24, 4, 0)
    local = run(t, workers=1)
    assert [(r.winners, r.scores, r.moves) for r in result.results] == [
        (r.winners, r.scores, r.moves) for r in local.results
    ]
    # The count does see a window run dry: 2 in play refilled 2 at a time must wait for both.
    monkeypatch.setattr(served, "AT_ONCE", 2)
    served.GAUGE.reset()
    assert len(served.play_served(t, t.fixtures()[:8], server.address)) == 8
    assert served.GAUGE.starved > 0


def test_a_served_tournament_with_seeded_deals_keeps_logs_and_receipts_that_verify(
    server: ServerThread, tmp_path: Path
) -> None:
    t = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        2,
        5,
        deals="seeded",
        keep=str(tmp_path),
    )
    result = run(t, workers=1, server=server.address)
    assert len(result.results) == 2 and not result.interrupted
    key = bytes(server.signer.public_key).hex()
    for r in result.results:
        replay = tmp_path / f"{r.match_id}.jsonl"
        receipts = [tmp_path / f"{r.match_id}.seat{k}.receipts.jsonl" for k in (0, 1)]
        report = verify(
            archive.read(replay),
            keys=KeyRing([bytes.fromhex(key)]),
            receipts=[x for p in receipts for x in read_receipts(p)],
        )
        assert report.verified, report.text()
        assert report.fair and not report.prearranged  # the server's seed, the seats' bytes
        contributions = archive.read(replay).header["seats"]
        # 32 random bytes a seat, given after the commitment (a contribution window)
        assert all(len(s["contribution"]) == 64 for s in contributions)
        assert not report.server_alone and "could have chosen" not in report.text()


def test_a_tournament_of_the_servers_own_bots_plays_the_in_process_matches(
    server: ServerThread,
) -> None:
    t = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        6,
        3,
        server_bots=True,
    )
    served = run(t, workers=2, server=server.address)
    local = run(t, workers=1)
    assert not served.interrupted and len(served.results) == 6
    # Prearranged deals and the in-process bots' seeds (spec option seed=): the same matches.
    assert [(r.winners, r.scores, r.moves) for r in served.results] == [
        (r.winners, r.scores, r.moves) for r in local.results
    ]
    stub = server.stub()
    for r in served.results:
        log = stub.GetMatchLog(
            pb.GetMatchLogRequest(match_id=r.match_id), metadata=auth(ARBITER)
        ).entries
        seats = [json.loads(e.canonical_json)["seat"] for e in log[1:]]
        assert len(seats) == r.moves and set(seats) == {0, 1}  # the bots' own entries


def test_the_servers_bots_keep_a_window_of_matches_in_play_to_the_last(
    server: ServerThread,
) -> None:
    t = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        30,
        8,
        server_bots=True,
    )
    heard: list[int] = []
    # 5 in play at once, fewer than a batch: a batch is made once all 5 have room, 30 in all.
    results = play_server_bots(
        t, t.fixtures(), server.address, at_once=5, heard=lambda r: heard.append(r.index)
    )
    local = run(t, workers=1)
    assert sorted(heard) == [f.index for f in t.fixtures()]
    assert [(r.index, r.winners, r.scores, r.moves) for r in results] == [
        (r.index, r.winners, r.scores, r.moves) for r in local.results
    ]


def test_an_interrupted_tournament_of_the_servers_bots_keeps_the_matches_in_play(
    server: ServerThread,
) -> None:
    t = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        400,
        2,
        server_bots=True,
    )

    def stop_early(done: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    result = run(t, workers=1, server=server.address, on_progress=stop_early)
    assert result.interrupted
    # No match was created after the Ctrl-C, and each one in play then was waited for.
    assert 3 <= len(result.results) <= 64
    local = {r.index: r for r in run(t, workers=1).results}
    for r in result.results:
        assert (r.winners, r.scores, r.moves) == (
            local[r.index].winners,
            local[r.index].scores,
            local[r.index].moves,
        )


def test_an_interrupted_served_tournament_keeps_the_matches_in_play(server: ServerThread) -> None:
    # Worker processes tell each match's end as it comes (progress within a long chunk), and
    # the first Ctrl-C stops them creating matches: those in play end and are kept.
    # More fixtures than the workers' sessions hold in play at once (2 x SESSIONS x AT_ONCE).
    total = 800
    assert total > 2 * served.SESSIONS * served.AT_ONCE
    t = Tournament(
        "dix", ("heuristic", "random"), (("single_hand", "true"),), "duplicate", total, 2
    )
    reported: list[int] = []

    def stop_early(done: int) -> None:
        reported.append(done)
        if done >= 3:
            raise KeyboardInterrupt

    result = run(t, workers=2, server=server.address, on_progress=stop_early)
    assert result.interrupted and reported[0] < total
    assert 3 <= len(result.results) < total
    local = {r.index: r for r in run(t, workers=1).results}
    for r in result.results:
        assert (r.winners, r.scores, r.moves) == (
            local[r.index].winners,
            local[r.index].scores,
            local[r.index].moves,
        )


def test_a_player_spec_longer_than_a_seat_name_still_plays_served(server: ServerThread) -> None:
    """A spec can be longer than the server's 64-character seat name (a policy's path, many
    options): its seat takes the name cut with the end of its digest, so two such players stay
    apart, and the match is the in-process one."""
    long = "ismcts:iters=3,c=0.7000000000000000000000000000000000000000000000000000001"
    t = Tournament("dix", (long, long.replace("iters=3", "iters=2")), (("single_hand", "true"),))
    assert all(len(n) > 64 for n in t.names)
    assert len(set(t.seat_names)) == 2 and all(len(n) <= 64 for n in t.seat_names)
    served = run(
        Tournament(t.game, t.players, t.options, matches=2), workers=1, server=server.address
    )
    local = run(Tournament(t.game, t.players, t.options, matches=2), workers=1)
    assert [(r.winners, r.scores) for r in served.results] == [
        (r.winners, r.scores) for r in local.results
    ]
    view = server.stub().GetMatch(pb.GetMatchRequest(match_id=served.results[0].match_id)).view
    assert {p.name for p in view.players} == set(t.seat_names)


def test_the_results_feed_resumes_after_its_last_event_when_the_server_goes_away(
    redis_url: str,
) -> None:
    t = Tournament(
        "dix",
        ("heuristic", "random"),
        (("single_hand", "true"),),
        "duplicate",
        8,
        3,
        server_bots=True,
    )
    first = ServerThread(redis_url)
    ended: queue.Queue[serverbots.Heard] = queue.Queue()
    client = KozyrClient(first.address)
    feed = serverbots.ResultsFeed(client, ended, Backoff(attempts=100, first=0.05, cap=0.2))
    made = set(serverbots.create_with_bots(client, t, list(t.fixtures()[:4])))
    heard = [_end(ended) for _ in range(4)]
    # The server stops (its feed ends; new calls fail with UNAVAILABLE) and another takes its
    # port: the feed is opened again after the last end it heard, and hears the next ones.
    first.stop()
    second = ServerThread(redis_url, address=first.address)
    try:
        made |= set(serverbots.create_with_bots(client, t, list(t.fixtures()[4:])))
        heard += [_end(ended) for _ in range(4)]
        assert feed.reopened >= 1
        assert sorted(heard) == sorted(made)  # every end once: none lost, none twice
    finally:
        feed.close()
        client.close()
        second.stop()


def _end(ended: queue.Queue[serverbots.Heard]) -> str:
    item = ended.get(timeout=120)  # a bound, not a clock: a broken feed fails the test
    assert isinstance(item, pb.TenantEvent), item
    return item.match_id


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[Workers]:
    """A running `kozyr serve --workers 2` (tests/server/test_workers.py); nothing left."""
    serving = Workers(tmp_path)
    try:
        yield serving
    finally:
        serving.process.kill()
        serving.process.wait(10)
        for pid in redis_servers_on(tmp_path / "data"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_both_processes_of_a_two_worker_server_play_served_and_server_bot_matches(
    two_workers: Workers,
) -> None:
    address = two_workers.address
    two = {c.server_process() for c in every_process(address)}
    assert len(two) == 2
    # Two client workers with a session each share the processes out, one each.
    lanes = [lane_connections(address, k, 2, 1) for k in range(2)]
    assert [len(lane) for lane in lanes] == [1, 1]
    assert {c.server_process() for lane in lanes for c in lane} == two
    t = Tournament("dix", ("heuristic", "random"), (("single_hand", "true"),), "duplicate", 24, 4)
    served.GAUGE.reset()
    result = run(t, workers=1, server=address)
    assert len(result.results) == 24 and not result.interrupted
    assert set(served.GAUGE.by_process) == two
    assert sum(served.GAUGE.by_process.values()) == 24
    bots = replace(t, server_bots=True)
    serverbots.PLAYED_BY.clear()
    assert len(play_server_bots(bots, bots.fixtures(), address)) == 24
    assert set(serverbots.PLAYED_BY) == two
