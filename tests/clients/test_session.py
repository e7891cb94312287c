"""PlaySession through kozyr_client against a real server: seats of every game played to the
end over one stream, a dropped stream resumed with no lost or doubled move, 1,000 seats in one
session, refusals as pushes."""

from __future__ import annotations

import json
import queue
import random
import threading
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.config.settings import ServerConfig
from kozyr.core import jsontext
from kozyr.games import get_game
from kozyr.games.codec import encode
from kozyr.match.log import Entry
from kozyr.match.record import apply_entry
from kozyr.tournament.remote import EventReader
from kozyr_client import KozyrClient, KozyrError, PlaySession
from tests.clients.netfault import Proxy
from tests.conftest import ARBITER, ServerThread

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
SHORT = {
    "dix": {"single_hand": "true"},
    "six-dozens": {"max_hands": "2"},
    "durak-dice": {"games": "1"},
}


def chooser(seed: int) -> object:
    rng = random.Random(seed)
    return lambda decision: rng.choice(list(decision.moves))


def bounded_run(
    session: PlaySession, timeout: float = 120.0
) -> dict[tuple[str, int], pb.SeatFinished]:
    """run() with a watchdog: a session that cannot finish is closed, and the test fails."""
    timer = threading.Timer(timeout, session.close)
    timer.start()
    try:
        return session.run()
    finally:
        timer.cancel()


def entries(client: KozyrClient, match_id: str) -> list[dict[str, object]]:
    log = client.seat(match_id, ARBITER).log()
    return [json.loads(e.canonical_json) for e in log.entries]


def assert_each_move_once(client: KozyrClient, match_id: str) -> None:
    """Every move of the log answers one decision: its id names the version it was decided at,
    and no (seat, id) appears twice."""
    log = entries(client, match_id)
    moves = [(e["seat"], e["command_id"]) for e in log if e["command_id"]]
    assert moves and len(moves) == len(set(moves)), "a move recorded twice"
    for e in log:
        if e["command_id"]:
            assert e["command_id"] == f"ps-v{int(str(e['version'])) - 1}"


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_one_session_plays_every_seat_of_a_match_to_the_end(
    server: ServerThread, game: str
) -> None:
    with KozyrClient(server.address) as client:
        created = client.create_match(game, [f"p{i}" for i in range(PLAYERS[game])], SHORT[game])
        session = PlaySession(client, chooser(1))
        for seat, token in created.tokens.items():
            session.add(created.match_id, seat, token)
        finished = bounded_run(session)
        assert len(finished) == PLAYERS[game]
        views = [f.view for f in finished.values()]
        assert all(v.status == pb.MATCH_STATUS_FINISHED and v.revealed_server_seed for v in views)
        assert len({v.version for v in views}) == 1
        assert sum(s.moves for s in session.seats.values()) == len(
            [e for e in entries(client, created.match_id) if e["command_id"]]
        )
        assert_each_move_once(client, created.match_id)
        # Each seat's pushes carried every event it may see, once: as many as a watcher gets.
        watched = Counter[int]()
        for update in client.seat(created.match_id, created.tokens[0]).watch(0):
            watched[update.version] += len(update.events)
        assert finished[(created.match_id, 0)].version == max(watched)


@pytest.mark.parametrize("receipts", [True, False])
def test_decisions_carry_receipts_unless_the_seat_asks_for_none(
    server: ServerThread, receipts: bool
) -> None:
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["a", "b"], SHORT["dix"])
        pushed: list[pb.Decision | pb.SeatFinished] = []
        session = PlaySession(client, chooser(2), on_event=pushed.append, receipts=receipts)
        for seat, token in created.tokens.items():
            session.add(created.match_id, seat, token)
        finished = bounded_run(session)
        decisions = [p for p in pushed if isinstance(p, pb.Decision)]
        assert decisions and all(d.HasField("receipt") == receipts for d in decisions)
        # The final push has its receipt either way: the last entry's hash chains every other.
        key = server.signer.keys[0]
        for done in finished.values():
            assert done.HasField("receipt") and done.receipt.key_id == key.key_id
            assert done.receipt.version == done.version


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_game_views_are_the_rules_view_of_the_seat_in_place_of_the_table(
    server: ServerThread, game: str
) -> None:
    with KozyrClient(server.address) as client:
        created = client.create_match(game, [f"p{i}" for i in range(PLAYERS[game])], SHORT[game])
        pushed: list[pb.Decision | pb.SeatFinished] = []
        session = PlaySession(client, chooser(3), on_event=pushed.append, game_views=True)
        for seat, token in created.tokens.items():
            session.add(created.match_id, seat, token)
        bounded_run(session)
        log = client.seat(created.match_id, ARBITER).log().entries
    records, record = {}, None
    for stored in log:  # the match folded from its full log, version by version
        record = apply_entry(record, Entry.from_canonical(stored.canonical_json), stored.hash)
        records[record.version] = record
    rules = get_game(game)
    decisions = [p for p in pushed if isinstance(p, pb.Decision)]
    assert len(decisions) == len(log) - len(
        [e for e in log if '"command_id":""' in e.canonical_json]
    )
    for d in decisions:
        assert d.view.WhichOneof("table") is None  # no table: the game view stands for it
        assert (d.view.status, d.view.to_act, d.view.version) == (
            pb.MATCH_STATUS_PLAYING,
            d.seat,
            d.version,
        )
        # Exactly what a bot inside the server is given: the rules' view of that seat alone.
        expected = rules.view(records[d.version].state, d.seat)
        assert json.loads(d.game_view_json) == json.loads(jsontext.dumps(encode(expected)))
        assert EventReader(rules).view(d.game_view_json) == expected
    # The finished seats' final views still have their tables.
    assert all(p.view.WhichOneof("table") for p in pushed if isinstance(p, pb.SeatFinished))


def test_seats_added_while_the_session_runs_are_played_until_it_is_closed(
    server: ServerThread,
) -> None:
    # run(until_closed=True) stays open while no seat is open; seats added from another
    # thread meanwhile are played on the same stream.
    with KozyrClient(server.address) as client:
        ended: queue.SimpleQueue[pb.SeatFinished] = queue.SimpleQueue()
        session = PlaySession(
            client, chooser(4), on_event=lambda p: isinstance(p, pb.SeatFinished) and ended.put(p)
        )
        finished: list[dict[tuple[str, int], pb.SeatFinished]] = []
        runner = threading.Thread(target=lambda: finished.append(session.run(until_closed=True)))
        runner.start()
        try:
            for _ in range(3):
                created = client.create_match("dix", ["a", "b"], SHORT["dix"])
                session.add_many([(created.match_id, s, t, 0) for s, t in created.tokens.items()])
                # Both seats end before the next match is added: nothing is open between.
                done = [ended.get(timeout=60) for _ in range(2)]
                assert {(d.match_id, d.seat) for d in done} == {
                    (created.match_id, 0),
                    (created.match_id, 1),
                }
                assert_each_move_once(client, created.match_id)
        finally:
            session.close()
            runner.join(30)
        assert not runner.is_alive() and len(finished[0]) == 6
        assert session.reconnects == 0  # one stream throughout


def test_a_seat_added_again_on_the_same_stream_doubles_no_event(server: ServerThread) -> None:
    # Seat 1 is added again mid-match (a resume on the same stream): the match's follower
    # starts over, and neither seat is sent an event twice.
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["a", "b"], SHORT["dix"])
        rng, pushed = random.Random(5), list[pb.Decision | pb.SeatFinished]()
        again: list[int] = []

        def choose(decision: pb.Decision) -> pb.Move:
            if decision.seat == 1 and decision.version >= 6 and not again:
                again.append(decision.version)
                session.add(created.match_id, 1, created.tokens[1], decision.version)
            return rng.choice(list(decision.moves))

        session = PlaySession(client, choose, on_event=pushed.append)
        for seat, token in created.tokens.items():
            session.add(created.match_id, seat, token)
        assert len(bounded_run(session)) == 2 and again
        for seat, token in created.tokens.items():
            watched = Counter[int]()
            for update in client.seat(created.match_id, token).watch(0):
                watched[update.version] += len(update.events)
            got = Counter(e.version for p in pushed if p.seat == seat for e in p.events)
            assert got == +watched, seat
        assert_each_move_once(client, created.match_id)


def test_a_dropped_stream_resumes_with_no_lost_or_doubled_move(server: ServerThread) -> None:
    proxy = Proxy(server.address)
    try:
        with KozyrClient(proxy.address) as client, KozyrClient(server.address) as direct:
            created = client.create_match("dix", ["a", "b"], SHORT["dix"])
            rng, decisions = random.Random(7), [0]

            def choose(decision: pb.Decision) -> pb.Move:
                decisions[0] += 1
                if decisions[0] in (3, 8, 13):  # the answer leaves, the stream is cut under it
                    threading.Timer(0.01, proxy.cut_all).start()
                return rng.choice(list(decision.moves))

            session = PlaySession(client, choose)
            for seat, token in created.tokens.items():
                session.add(created.match_id, seat, token)
            finished = bounded_run(session)
            assert len(finished) == 2 and session.reconnects >= 1 and proxy.cuts >= 1
            assert_each_move_once(direct, created.match_id)
            recorded = [e for e in entries(direct, created.match_id) if e["command_id"]]
            assert sum(s.moves for s in session.seats.values()) == len(recorded)
    finally:
        proxy.close()


@pytest.mark.slow
@pytest.mark.solo
def test_one_session_serves_a_thousand_seats_to_the_end(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        matches = [client.create_match("dix", ["a", "b"], SHORT["dix"]) for _ in range(500)]
        session = PlaySession(client, chooser(3))
        for created in matches:
            for seat, token in created.tokens.items():
                session.add(created.match_id, seat, token)
        finished = bounded_run(session, timeout=600)
        assert len(finished) == 1000
        assert all(f.view.status == pb.MATCH_STATUS_FINISHED for f in finished.values())


def test_refusals_are_pushes_with_the_reason(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["a", "b"], SHORT["dix"])
        session = PlaySession(client, chooser(1))
        session.add(created.match_id, 1, created.tokens[0])  # seat 0's token
        with pytest.raises(KozyrError) as refused:
            bounded_run(session)
        assert refused.value.reason == "WRONG_SEAT"
        assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED

        stub = server.stub()
        seats = [
            pb.SessionSeat(match_id=created.match_id, seat=s, token=created.tokens[s])
            for s in (0, 1)
        ]
        bad = pb.SessionMove(
            match_id="0" * 16,
            seat=1,
            command_id="x",
            version=1,
            move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card="2C"))),
        )
        done = threading.Event()

        def requests() -> Iterator[pb.SessionRequest]:
            yield pb.SessionRequest(seats=seats)
            yield pb.SessionRequest(moves=[bad])
            done.wait(60)  # keep our side open: a closed side ends the session

        call = stub.PlaySession(requests())
        kinds = {}
        for message in call:
            for push in message.pushes:
                kinds[push.WhichOneof("kind")] = push
            if "refusal" in kinds and "decision" in kinds:
                break
        done.set()
        call.cancel()
        assert kinds["refusal"].refusal.reason == "NOT_IN_SESSION"
        assert kinds["decision"].decision.moves


class Outbox:
    """The requests of a PlaySession call, added by the test while the stream runs."""

    def __init__(self, first: pb.SessionRequest) -> None:
        self.queued: list[pb.SessionRequest] = [first]
        self.ready = threading.Condition()
        self.closed = threading.Event()

    def requests(self) -> Iterator[pb.SessionRequest]:
        """What the call sends: every request put, until closed."""
        sent = 0
        while not self.closed.is_set():
            with self.ready:
                self.ready.wait_for(lambda n=sent: len(self.queued) > n or self.closed.is_set(), 30)
                batch, sent = self.queued[sent:], len(self.queued)
            yield from batch

    def put(self, request: pb.SessionRequest) -> None:
        """Send `request` next."""
        with self.ready:
            self.queued.append(request)
            self.ready.notify()

    def close(self) -> None:
        """End our side of the stream."""
        self.closed.set()
        with self.ready:
            self.ready.notify()


def first_move(d: pb.Decision) -> pb.SessionRequest:
    """The answer to a decision: its first legal move, at its version."""
    return pb.SessionRequest(
        moves=[
            pb.SessionMove(
                match_id=d.match_id,
                seat=d.seat,
                version=d.version,
                command_id=f"v{d.version}",
                move=d.moves[0],
            )
        ]
    )


def test_moves_past_the_sessions_rate_are_refused_and_change_nothing(redis_url: str) -> None:
    # A bucket of two moves that refills once in a thousand seconds: the third is refused.
    server = ServerThread(
        redis_url, config=ServerConfig(session_moves_per_s=0.001, session_moves_burst=2)
    )
    try:
        with KozyrClient(server.address) as client:
            created = client.create_match(
                "dix",
                ["a", "b"],
                SHORT["dix"],
                time_control=pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=600_000),
            )
            seats = [
                pb.SessionSeat(match_id=created.match_id, seat=s, token=t)
                for s, t in created.tokens.items()
            ]
            outbox = Outbox(pb.SessionRequest(seats=seats))
            call = server.stub().PlaySession(outbox.requests())
            refusal, moved = None, 0
            for message in call:
                for push in message.pushes:
                    if push.HasField("refusal"):
                        refusal = push.refusal
                    elif push.HasField("decision"):
                        d = push.decision
                        assert d.view.deadline_ms > 0  # the decision's deadline is pushed
                        outbox.put(first_move(d))
                        moved += 1
                if refusal is not None:
                    break
            outbox.close()
            call.cancel()
            assert refusal is not None and moved == 3
            assert (refusal.reason, refusal.code) == (
                "RATE_LIMITED",
                grpc.StatusCode.RESOURCE_EXHAUSTED.value[0],
            )
            assert "wait" in refusal.message
            # Two moves landed, the third changed nothing.
            assert client.spectate(created.match_id).view().version == created.version + 2
    finally:
        server.stop()
