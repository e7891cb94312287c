"""Clocks on the real server with short clocks (fractions of a second): every timeout policy
in every game ends the match as the rules say (docs/rules.md R-7 … R-9), with the right
termination and seats, and watchers see it. No timing is asserted, only outcomes."""

from __future__ import annotations

import json
import time
import uuid

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.replay import archive
from kozyr.replay.archive import RawEntry
from kozyr.replay.verify import verify
from tests.api.helpers import PLAYERS, Stub, Watcher, auth, reason
from tests.conftest import ARBITER

SHORT = {
    "dix": {"single_hand": "true"},
    "six-dozens": {"max_hands": "1"},
    "durak-dice": {"games": "1"},
}
LIMIT_MS = 150


def timed_match(
    stub: Stub,
    game: str,
    policy: int = pb.TIMEOUT_POLICY_FORFEIT,
    policy_bot: str = "",
    limit_ms: int = LIMIT_MS,
    **kwargs: object,
) -> tuple[str, list[str]]:
    """A match of `game` with a short limit per decision; its id and the tokens."""
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game,
            options=SHORT[game],
            seats=[pb.SeatRequest(name=f"p{i}") for i in range(PLAYERS[game])],
            time_control=pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=limit_ms),
            timeout_policy=policy,
            policy_bot=policy_bot,
            **kwargs,
        )
    )
    return response.match_id, [t.token for t in sorted(response.tokens, key=lambda t: t.seat)]


def finished(watcher: Watcher, bound_s: float = 120) -> pb.MatchView:
    """The watcher's last view once its stream ended (a bound for a hang, not a timing)."""
    watcher.join(bound_s)
    assert not watcher.is_alive() and watcher.error is None, watcher.error
    view = watcher.updates[-1].view
    assert view.status == pb.MATCH_STATUS_FINISHED
    return view


def events_of(watcher: Watcher, kind: str) -> list[dict[str, object]]:
    return [json.loads(e.data_json) for u in watcher.updates for e in u.events if e.type == kind]


def verified(stub: Stub, match_id: str) -> None:
    """The finished match's log verifies offline, timeouts and endings included."""
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER))
    lines = archive.build([RawEntry(e.version, e.canonical_json, e.hash) for e in log.entries])
    report = verify(archive.parse(archive.dumps(lines)))
    assert report.status == "VERIFIED", report.problems


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_R_9_forfeit_a_silent_seat_times_out_and_loses(stub: Stub, game: str) -> None:
    match_id, _ = timed_match(stub, game)
    first = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert first.deadline_ms > 0 and len(first.remaining_ms) == PLAYERS[game]
    watcher = Watcher(stub, match_id, None)
    view = finished(watcher)
    outcome = view.outcome
    assert outcome.termination == pb.TERMINATION_TIMED_OUT
    assert list(outcome.seats) == [first.to_act] and first.to_act not in outcome.winners
    assert [e["seat"] for e in events_of(watcher, "TimedOut")] == [first.to_act]
    verified(stub, match_id)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_R_9_auto_move_plays_the_default_decision_until_somebody_resigns(
    stub: Stub, game: str
) -> None:
    match_id, tokens = timed_match(stub, game, pb.TIMEOUT_POLICY_AUTO_MOVE)
    watcher = Watcher(stub, match_id, tokens[0])
    deadline = time.monotonic() + 120  # a bound for a hang, not a timing
    while len(events_of(watcher, "TimedOut")) < 3 and watcher.is_alive():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    timeouts = events_of(watcher, "TimedOut")
    if watcher.is_alive():  # still running: seat 0 gives up
        stub.EndMatch(
            pb.EndMatchRequest(match_id=match_id, reason=pb.END_REASON_RESIGN, command_id="r"),
            metadata=auth(tokens[0]),
        )
    view = finished(watcher)
    assert all(t["policy"] == "AUTO_MOVE" for t in timeouts) and len(timeouts) >= 3
    assert view.outcome.termination in (pb.TERMINATION_RESIGNED, pb.TERMINATION_NORMAL)
    if view.outcome.termination == pb.TERMINATION_RESIGNED:
        assert list(view.outcome.seats) == [0] and 0 not in view.outcome.winners
    verified(stub, match_id)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_R_9_the_bot_policy_plays_silent_seats_to_the_normal_end(stub: Stub, game: str) -> None:
    match_id, _ = timed_match(stub, game, pb.TIMEOUT_POLICY_BOT, "heuristic")
    watcher = Watcher(stub, match_id, None)
    view = finished(watcher, 300)
    assert view.outcome.termination in (pb.TERMINATION_NORMAL, pb.TERMINATION_GUARD)
    timeouts = events_of(watcher, "TimedOut")
    assert timeouts and all(t["policy"] == "BOT" for t in timeouts)
    assert {t["seat"] for t in timeouts} == set(range(PLAYERS[game]))
    verified(stub, match_id)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_R_7_an_abort_before_anyone_decided_has_no_result(stub: Stub, game: str) -> None:
    match_id, tokens = timed_match(stub, game, limit_ms=600_000)  # no timeout in the way
    watcher = Watcher(stub, match_id, tokens[1])
    answer = stub.EndMatch(
        pb.EndMatchRequest(
            match_id=match_id, reason=pb.END_REASON_ABORT, command_id=uuid.uuid4().hex
        ),
        metadata=auth(tokens[1]),
    )
    assert answer.view.outcome.termination == pb.TERMINATION_ABORTED
    assert list(answer.view.outcome.winners) == [] and list(answer.view.outcome.seats) == [1]
    assert finished(watcher).outcome.termination == pb.TERMINATION_ABORTED
    verified(stub, match_id)


def test_R_7_a_claim_needs_an_abandoned_seat_and_then_wins(stub: Stub) -> None:
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
            abandon_grace_ms=100,
        )
    )
    match_id = response.match_id
    tokens = [t.token for t in sorted(response.tokens, key=lambda t: t.seat)]
    to_act = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view.to_act
    other = 1 - to_act
    watcher = Watcher(stub, match_id, tokens[to_act])  # the absent seat is still watched
    request = pb.EndMatchRequest(match_id=match_id, reason=pb.END_REASON_CLAIM_VICTORY)
    bound = time.monotonic() + 60
    while not watcher.updates:
        assert time.monotonic() < bound
        time.sleep(0.01)
    time.sleep(0.15)  # past the grace: refused only because the seat is watched
    with pytest.raises(grpc.RpcError) as info:
        stub.EndMatch(
            pb.EndMatchRequest(
                match_id=match_id, command_id="c1", reason=pb.END_REASON_CLAIM_VICTORY
            ),
            metadata=auth(tokens[other]),
        )
    assert reason(info.value) == "NOT_ABANDONED"
    with pytest.raises(grpc.RpcError) as info:
        stub.EndMatch(
            pb.EndMatchRequest(
                match_id=match_id, command_id="c2", reason=pb.END_REASON_CLAIM_VICTORY
            ),
            metadata=auth(tokens[to_act]),
        )
    assert reason(info.value) == "NOTHING_TO_CLAIM"
    assert request.reason == pb.END_REASON_CLAIM_VICTORY
    ended = Watcher(stub, match_id, None)
    # Without any watcher of the absent seat the claim succeeds (its watcher is closed by
    # the end of the test's own stream: a fresh match shows the success path).
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
            abandon_grace_ms=1,
        )
    )
    second = response.match_id
    toks = [t.token for t in sorted(response.tokens, key=lambda t: t.seat)]
    absent = stub.GetMatch(pb.GetMatchRequest(match_id=second)).view.to_act
    time.sleep(0.01)
    answer = stub.EndMatch(
        pb.EndMatchRequest(match_id=second, command_id="c3", reason=pb.END_REASON_CLAIM_VICTORY),
        metadata=auth(toks[1 - absent]),
    )
    outcome = answer.view.outcome
    assert outcome.termination == pb.TERMINATION_ABANDONED
    assert list(outcome.seats) == [absent] and list(outcome.winners) == [1 - absent]
    verified(stub, second)
    assert ended.is_alive() or ended.error is None


def test_R_7_an_open_match_expires_and_its_watchers_see_it(stub: Stub) -> None:
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="six-dozens",
            seats=[pb.SeatRequest(name="a"), pb.SeatRequest(), pb.SeatRequest()],
            expire_ms=100,
        )
    )
    watcher = Watcher(stub, response.match_id, None)
    view = finished(watcher)
    assert view.outcome.termination == pb.TERMINATION_EXPIRED
    assert list(view.outcome.seats) == [1, 2]
    with pytest.raises(grpc.RpcError) as info:
        stub.JoinMatch(pb.JoinMatchRequest(match_id=response.match_id, name="late"))
    assert reason(info.value) == "MATCH_OVER"


def test_a_late_move_is_refused_out_of_time_or_after_the_forfeit(stub: Stub) -> None:
    match_id, tokens = timed_match(stub, "dix")
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    # A card of the leader's hand (any card leads): read from its view, not ListLegalMoves,
    # which is empty once the 150 ms limit has passed, as it may on a loaded machine.
    hand = stub.GetMatch(
        pb.GetMatchRequest(match_id=match_id), metadata=auth(tokens[view.to_act])
    ).view.dix.hand
    move = pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=hand[0])))
    watcher = Watcher(stub, match_id, None)
    finished(watcher)
    with pytest.raises(grpc.RpcError) as info:
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, move=move, command_id="late"),
            metadata=auth(tokens[view.to_act]),
        )
    assert reason(info.value) in ("MATCH_OVER", "OUT_OF_TIME")


def test_list_games_names_the_time_controls_and_policies(stub: Stub) -> None:
    for info in stub.ListGames(pb.ListGamesRequest()).games:
        assert pb.TIME_CONTROL_KIND_FISCHER in info.time_controls
        assert pb.TIMEOUT_POLICY_BOT in info.timeout_policies
