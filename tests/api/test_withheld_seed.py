"""The arbiter's bytes of a running match predict no later deal (docs/fairness.md §1).

A three-game Durak match is played into its first game; then everything the arbiter token can
read (GetMatchLog, its export file, the arbiter's watch stream, ReplayMatch) is taken as bytes
and searched for the server seed, the match seed (raw and hex) and the deck order of game 2
(what the issue showed could be predicted). The test knows them because it reads the server
seed from Redis, as only the service may.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.cards import deck
from kozyr.core.fairness import RandomStream, deal_label, match_seed
from kozyr.replay import archive
from tests.api.helpers import auth
from tests.conftest import ARBITER, ServerThread


def play_into_the_first_game(stub: Any) -> str:
    """A three-game Durak match, its seats' contributions given after the commitment, played
    12 random moves into game 1 (far from its end): its id."""
    created = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="durak-dice",
            options={"games": "3"},
            seats=[pb.SeatRequest(name=n) for n in ("ann", "bob", "cid")],
            contribution_window_ms=30_000,
        )
    )
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.tokens}
    for seat, contribution in ((0, b"\x01"), (1, b""), (2, b"xyz")):  # after the commitment
        stub.Contribute(
            pb.ContributeRequest(match_id=match_id, seed_contribution=contribution),
            metadata=auth(tokens[seat]),
        )
    rng = random.Random(3)
    for _ in range(12):  # into game 1, far from its end
        view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
        legal = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[view.to_act])
        ).moves
        stub.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id,
                command_id=uuid.uuid4().hex,
                move=legal[rng.randrange(len(legal))],
            ),
            metadata=auth(tokens[view.to_act]),
        )
    return match_id


def secrets_of(redis_client: redis.Redis, match_id: str) -> list[bytes]:
    """What would predict game 2: the server seed and the match seed (raw and hex), and game
    2's first cards as they would be written in JSON or in the protobuf encoding."""
    server_seed = bytes.fromhex(str(redis_client.hget(f"kozyr:{{{match_id}}}:meta", "server_seed")))
    seed = match_seed(server_seed, [b"\x01", b"", b"xyz"])
    game2 = RandomStream(seed, deal_label(2)).shuffle(deck(36))
    return [
        server_seed,
        server_seed.hex().encode(),
        seed,
        seed.hex().encode(),
        ",".join(f'"{c.code}"' for c in game2[:8]).encode(),
        "".join(f"{len(c.code):c}{c.code}" for c in game2[:8]).encode(),
    ]


def logged_events(log: pb.GetMatchLogResponse, kind: str) -> list[dict[str, Any]]:
    """The events of type `kind` in a match's log, as its export writes them."""
    return [
        ev
        for e in log.entries
        for ev in archive.entry_line(archive.RawEntry(e.version, e.canonical_json, e.hash))[
            "events"
        ]
        if ev["type"] == kind
    ]


def test_the_arbiter_bytes_of_a_running_match_hold_nothing_that_predicts_a_later_deal(
    server: ServerThread, redis_client: redis.Redis
) -> None:
    stub = server.stub()
    match_id = play_into_the_first_game(stub)
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER))
    replay = stub.ReplayMatch(
        pb.ReplayMatchRequest(match_id=match_id, version=2), metadata=auth(ARBITER)
    )
    exported = archive.dumps(
        archive.build([archive.RawEntry(e.version, e.canonical_json, e.hash) for e in log.entries])
    )
    assert not any("SeedRevealed" in e.canonical_json for e in log.entries)  # still running
    stream = stub.WatchMatch(
        pb.WatchMatchRequest(match_id=match_id), metadata=auth(ARBITER), timeout=30
    )
    watched = [next(stream).SerializeToString() for _ in log.entries]
    stream.cancel()

    secrets = secrets_of(redis_client, match_id)
    arbiter_bytes = [
        log.SerializeToString(),
        replay.SerializeToString(),
        exported.encode(),
        *watched,
    ]
    for blob in arbiter_bytes:
        for secret in secrets:
            assert secret not in blob
    # What the arbiter does see: game 1's deal (deck and rolls), and no other deal.
    dealt = logged_events(log, "Dealt")
    assert [d["number"] for d in dealt] == [1] and dealt[0]["deck"]
    started = logged_events(log, "MatchStarted")
    assert started[0]["seed"] == ""
