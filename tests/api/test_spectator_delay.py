"""The spectator delay (a match term) and the lobby's joinable matches.

The delay is checked by the log's own times against the server's clock (the engine's clock is
data here), never by sleeping: a spectator is served the newest entry at least the delay old,
a seat and the arbiter the live table, and the spectator's view never holds a hand."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api import spectators
from kozyr.api.lobby import joinable
from kozyr.engine import Engine, Viewer
from kozyr.match import clock
from kozyr.match.log import Entry
from kozyr.store.memory import MemoryStore
from kozyr.wire import convert
from kozyr.wire.errorinfo import error_info
from tests.conftest import ServerThread

DELAY_MS = 10_000
START_MS = 1_767_225_600_000


def test_shown_version_is_the_newest_entry_old_enough() -> None:
    times = [1_000, 2_000, 5_000]
    assert spectators.shown_version(times, now_ms=2_500, delay_ms=1_000) == 1
    assert spectators.shown_version(times, now_ms=3_000, delay_ms=1_000) == 2
    assert spectators.shown_version(times, now_ms=6_000, delay_ms=1_000) == 3
    assert spectators.shown_version(times, now_ms=1_500, delay_ms=1_000) == 1  # at least entry 1


def test_a_spectator_sees_each_move_no_earlier_than_the_delay() -> None:
    now = [START_MS]

    async def body() -> None:
        engine = Engine(MemoryStore(), clock=lambda: now[0] / 1000)
        terms = clock.make_terms(spectator_delay_ms=DELAY_MS)
        created = await engine.create(
            "dix", {"single_hand": "true"}, [("a", b""), ("b", b"")], terms=terms
        )
        match_id = created.match_id
        for k in range(6):  # six moves, 4 s apart by the server's clock
            now[0] += 4_000
            record = await engine.current(match_id)
            seat = record.game.to_act(record.state)
            assert seat is not None
            command = record.game.legal_commands(record.state, seat)[0]
            await engine.submit(match_id, seat, command, f"c{k}")
        times = [Entry.from_canonical(s.text).time_ms for s in await engine.log(match_id)]
        live = await engine.record(match_id)
        for step_ms in range(0, 40_000, 1_000):
            now[0] = START_MS + step_ms
            if now[0] < times[-1]:
                continue  # the clock never runs back behind the log
            shown = await spectators.delayed_record(engine, live, Viewer(None))
            v = shown.version
            assert v == 1 or times[v - 1] + DELAY_MS <= now[0]  # old enough
            assert v == len(times) or times[v] + DELAY_MS > now[0]  # the newest such
            view = convert.match_view(shown, None)
            assert not view.dix.hand  # a spectator never holds a card
            seat_record = await spectators.delayed_record(engine, live, Viewer(0))
            assert seat_record.version == live.version  # a seat is never delayed
            arbiter = await spectators.delayed_record(engine, live, Viewer(None, arbiter=True))
            assert arbiter.version == live.version
        assert shown.version == live.version  # 40 s on, the spectator has caught up

    asyncio.run(body())


def test_the_delay_is_a_match_term_served_over_grpc(server: ServerThread) -> None:
    stub = server.stub()
    created = stub.CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            options={"single_hand": "true"},
            seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
            spectator_delay_ms=3_600_000,
        )
    )
    tokens = {t.seat: t.token for t in created.tokens}
    for k in range(3):
        view = stub.GetMatch(
            pb.GetMatchRequest(match_id=created.match_id),
            metadata=[("authorization", f"Bearer {tokens[0]}")],
        ).view
        seat = view.to_act
        bearer = [("authorization", f"Bearer {tokens[seat]}")]
        moves = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=created.match_id), metadata=bearer
        ).moves
        stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=created.match_id, move=moves[0], command_id=f"m{k}"),
            metadata=bearer,
        )
    live = stub.GetMatch(
        pb.GetMatchRequest(match_id=created.match_id),
        metadata=[("authorization", f"Bearer {tokens[1]}")],
    ).view
    watched = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id)).view
    assert live.version > watched.version == 1  # nothing an hour old but the creation
    assert not watched.dix.hand and not watched.dix.trick
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateMatch(
            pb.CreateMatchRequest(
                game="dix",
                seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
                spectator_delay_ms=-1,
            )
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(refused.value)  # type: ignore[arg-type]
    assert info is not None and info.reason == "BAD_TIME_CONTROL"


def test_the_lobby_lists_only_matches_someone_can_still_join() -> None:
    waiting = {"status": "waiting", "open_seats": [1], "expires_ms": 10_000}
    assert joinable(waiting, now_ms=9_999)
    assert not joinable(waiting, now_ms=10_000)  # expired, even before the timer records it
    assert not joinable({**waiting, "status": "finished"}, now_ms=0)  # aborted or expired
    assert not joinable({**waiting, "open_seats": []}, now_ms=0)
    assert joinable({"status": "waiting", "open_seats": [1]}, now_ms=10**13)  # older entry
