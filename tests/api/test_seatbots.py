"""Server-side seat bots: a seat CreateMatch gives to a bot is played by the server itself."""

from __future__ import annotations

import itertools
import json
import random
import time
import uuid

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import PLAYERS, Stub, Watcher, auth, reason


def bot_match(stub: Stub, game: str, bots: list[str]) -> tuple[str, dict[int, str]]:
    """A match whose seats are bots where `bots` names one; its id and the people's tokens."""
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game,
            seats=[pb.SeatRequest(name="" if b else f"p{i}", bot=b) for i, b in enumerate(bots)],
        )
    )
    return response.match_id, {t.seat: t.token for t in response.tokens}


def play_people(stub: Stub, match_id: str, tokens: dict[int, str], seed: int = 0) -> pb.MatchView:
    """The people play random legal moves while the bots answer; the final view."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 120  # a bound for a hang, not a timing
    while time.monotonic() < deadline:
        view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
        if view.status == pb.MATCH_STATUS_FINISHED:
            return view
        if view.to_act not in tokens:  # a bot's turn: it plays on its own
            time.sleep(0.005)
            continue
        token = tokens[view.to_act]
        legal = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(token)
        ).moves
        if legal:
            stub.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    move=rng.choice(legal),
                    command_id=uuid.uuid4().hex,
                    expected_version=view.version,
                ),
                metadata=auth(token),
            )
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_bot_seat_is_played_by_the_server_to_the_end(stub: Stub, game: str) -> None:
    bots = ["heuristic" if i else "" for i in range(PLAYERS[game])]
    match_id, tokens = bot_match(stub, game, bots)
    assert set(tokens) == {0}, "a bot's seat gets no token"
    watcher = Watcher(stub, match_id, tokens[0])
    view = play_people(stub, match_id, tokens)
    assert view.outcome.reason
    assert [p.name for p in view.players][1] == "heuristic (bot)"
    watcher.join(30)
    assert watcher.error is None and watcher.updates[-1].view.status == pb.MATCH_STATUS_FINISHED


def test_a_bot_that_acts_first_plays_at_once(stub: Stub) -> None:
    # Dix with a fixed first dealer: the bot seat 1 may be the one to lead.
    match_id, tokens = bot_match(stub, "dix", ["", "random"])
    view = play_people(stub, match_id, tokens, seed=3)
    assert view.status == pb.MATCH_STATUS_FINISHED


@pytest.mark.parametrize(
    ("bots", "code"),
    [
        (["", "nonsense"], "BAD_BOT"),
        (["", "ismcts"], "BAD_BOT"),
    ],
)
def test_a_bad_bot_request_is_refused_with_its_reason(
    stub: Stub, bots: list[str], code: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        bot_match(stub, "dix", bots)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason(info.value) == code


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_match_of_bots_alone_is_played_to_the_end_entry_by_entry(stub: Stub, game: str) -> None:
    # A headless tournament's match: the server plays every seat, in runs appended as one.
    bots = ["heuristic"] + ["random"] * (PLAYERS[game] - 1)
    match_id, tokens = bot_match(stub, game, bots)
    assert tokens == {}
    watcher = Watcher(stub, match_id, None, from_version=1)
    watcher.join(60)
    assert watcher.error is None and watcher.updates
    versions = [u.view.version for u in watcher.updates]
    assert versions == list(range(2, versions[-1] + 1))  # every entry, once, in order
    final = watcher.updates[-1].view
    assert final.status == pb.MATCH_STATUS_FINISHED and final.outcome.reason
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
    assert [e.version for e in log] == list(range(1, versions[-1] + 1))
    assert all(
        json.loads(e.canonical_json)["prev"] == before.hash for before, e in itertools.pairwise(log)
    )
