"""Three replicas of the service on one Redis, clients spreading matches across them: moves to
one match through different replicas stay consistent (one log, one chain, the same view from
each), racing moves of one seat through two replicas have one winner, and a watcher on one
replica hears a move made through another (the delay is measured in tests/bench/bench.py)."""

from __future__ import annotations

import itertools
import json
import random
import threading
import uuid
from collections.abc import Iterator

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import Stub, Watcher, auth, create, play_one, reason
from tests.conftest import ARBITER, ServerThread
from tests.reliability.harness import wait_for


@pytest.fixture
def replicas(redis_url: str) -> Iterator[list[ServerThread]]:
    """Three servers (each its own engine, cache, feeds and pools) on the test Redis."""
    started = [ServerThread(redis_url) for _ in range(3)]
    yield started
    for srv in started:
        srv.stop()


def test_moves_through_three_replicas_make_one_consistent_log(replicas: list[ServerThread]) -> None:
    stubs = [r.stub() for r in replicas]
    matches = [create(stubs[i % 3], "dix") for i in range(6)]  # spread over the replicas
    watchers = [Watcher(stubs[(i + 1) % 3], m, None) for i, (m, _) in enumerate(matches)]
    rng = random.Random(11)
    last: dict[str, int] = {}
    for n in range(20):
        for i, (match_id, tokens) in enumerate(matches):
            done = play_one(stubs[(n + i) % 3], match_id, tokens, rng)  # a new replica each move
            if done is not None:
                assert done.version > last.get(match_id, 0)
                last[match_id] = done.version
    for (match_id, _), watcher in zip(matches, watchers, strict=True):
        views = [s.GetMatch(pb.GetMatchRequest(match_id=match_id)).view for s in stubs]
        assert {v.version for v in views} == {last[match_id]}, "every replica sees the top"
        assert len({v.SerializeToString() for v in views}) == 1, "the same spectator view"
        entries = (
            stubs[2]
            .GetMatchLog(pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER))
            .entries
        )
        assert [e.version for e in entries] == list(range(1, last[match_id] + 1))
        for a, b in itertools.pairwise(entries):
            assert json.loads(b.canonical_json)["prev"] == a.hash
        assert wait_for(
            lambda w=watcher, m=match_id: (
                bool(w.updates)  # type: ignore[misc]
                and w.updates[-1].version >= last[m]
            ),
            20,
        ), "a watcher on another replica hears every move"
        versions = [u.version for u in watcher.updates]
        assert versions == sorted(set(versions)), "consecutive, no duplicate"


def race(stubs: list[Stub], match_id: str, tokens: list[str]) -> tuple[int, list[object]]:
    """The seat to act sends three different moves at once, one through each replica, all
    expecting the current version; that version and what each got back."""
    view = stubs[0].GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    seat = view.to_act
    legal = (
        stubs[0]
        .ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[seat]))
        .moves
    )
    outcomes: list[object] = []
    gate = threading.Barrier(3)

    def submit(k: int) -> None:
        gate.wait(10)
        try:
            outcomes.append(
                stubs[k].SubmitMove(
                    pb.SubmitMoveRequest(
                        match_id=match_id,
                        move=legal[k % len(legal)],
                        command_id=uuid.uuid4().hex,
                        expected_version=view.version,
                    ),
                    metadata=auth(tokens[seat]),
                    timeout=10,
                )
            )
        except grpc.RpcError as e:
            outcomes.append(reason(e))

    threads = [threading.Thread(target=submit, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    return view.version, outcomes


def test_racing_moves_of_one_seat_through_three_replicas_have_one_winner(
    replicas: list[ServerThread],
) -> None:
    stubs = [r.stub() for r in replicas]
    for _ in range(5):  # several races, each on a fresh match
        match_id, tokens = create(stubs[0], "dix")
        version, outcomes = race(stubs, match_id, tokens)
        won = [o for o in outcomes if isinstance(o, pb.SubmitMoveResponse)]
        assert len(won) == 1, f"exactly one of the racing moves wins: {outcomes}"
        assert won[0].version == version + 1
        assert all(o in ("STALE_VERSION", "NOT_YOUR_TURN") for o in outcomes if o not in won), (
            outcomes
        )
