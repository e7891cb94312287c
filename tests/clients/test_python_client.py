"""kozyr_client against a real server: the whole API, errors as KozyrError, at-most-once moves
and watches that survive dropped connections and a server restart."""

from __future__ import annotations

import asyncio
import random
import threading
import time
import uuid
from collections.abc import Callable

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc as pb_grpc
from kozyr.match.log import Entry
from kozyr_client import ErrorReason, KozyrClient, KozyrError, SeatClient, Watch, moves
from tests.clients.conftest import RestartableServer
from tests.clients.netfault import Proxy
from tests.conftest import ARBITER, ServerThread

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
Code = grpc.StatusCode


def seats_of(client: KozyrClient, game: str) -> tuple[str, list[SeatClient]]:
    """A match of `game` with every seat named; its id and one SeatClient per seat."""
    created = client.create_match(game, [f"p{i}" for i in range(PLAYERS[game])])
    return created.match_id, [
        client.seat(created.match_id, created.tokens[i]) for i in range(PLAYERS[game])
    ]


def play(
    seats: list[SeatClient], rng: random.Random, stop: Callable[[int], bool] = lambda version: False
) -> pb.MatchView:
    """Random legal moves until the match ends (or `stop(version)`); the last view."""
    view = seats[0].view()
    while view.status != pb.MATCH_STATUS_FINISHED and not stop(view.version):
        seat = seats[view.to_act]
        view = seat.move(rng.choice(seat.legal_moves())).view
    return view


class Collector(threading.Thread):
    """Iterates a Watch in the background."""

    def __init__(self, watch: Watch) -> None:
        super().__init__(daemon=True)
        self.watch = watch
        self.updates: list[pb.MatchUpdate] = []
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            for update in self.watch:
                self.updates.append(update)
        except BaseException as e:  # reported by the test
            self.error = e

    def wait_for(self, version: int, limit: float = 30.0) -> None:
        """Block until the watch has delivered `version` (a synchronisation, not a timing)."""
        deadline = time.monotonic() + limit
        while self.watch.version < version:
            assert time.monotonic() < deadline, f"the watch never reached version {version}"
            assert self.error is None, self.error
            time.sleep(0.01)


def test_list_games_names_every_game(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        games = {g.name: g for g in client.list_games()}
    assert set(games) == set(PLAYERS)
    assert (games["dix"].min_players, games["dix"].max_players) == (2, 2)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_create_join_watch_and_play_each_game_to_the_end(server: ServerThread, game: str) -> None:
    n = PLAYERS[game]
    with KozyrClient(server.address) as client:
        created = client.create_match(game, ["host"] + [""] * (n - 1))
        assert list(created.tokens) == [0]
        spectator = client.spectate(created.match_id)
        watcher = Collector(spectator.watch())
        seats = [client.seat(created.match_id, created.tokens[0])]
        for i in range(1, n):
            joined = client.join(created.match_id, f"guest{i}", seed_contribution=bytes([i]))
            assert joined.seat == i and joined.started == (i == n - 1)
            seats.append(client.seat(created.match_id, joined.token))
        final = play(seats, random.Random(n))
        watcher.join(30)
        assert not watcher.is_alive() and watcher.error is None, watcher.error
    assert final.status == pb.MATCH_STATUS_FINISHED and final.outcome.winners
    versions = [u.version for u in watcher.updates]
    assert versions == list(range(1, final.version + 1))
    assert watcher.updates[-1].view.status == pb.MATCH_STATUS_FINISHED
    assert watcher.watch.finished and watcher.watch.reconnects == 0


def test_a_joining_seat_contributes_32_random_bytes_after_the_commitment_by_default(
    server: ServerThread,
) -> None:
    with KozyrClient(server.address) as client:
        contributed = []
        for _ in range(2):
            created = client.create_match("dix", ["host", ""])
            joined = client.join(created.match_id, "guest")
            assert joined.commitment == created.commitment  # public before the join
            log = server.run(server.running.engine.log(created.match_id))
            given = [Entry.from_canonical(e.text).events[0] for e in log[1:]]
            # the host's, named at creation (create_match gives it), then the guest's join
            assert [e["type"] for e in given] == ["SeedContributed", "SeatJoined"]
            contributed += [e["contribution"] for e in given]
        none = client.create_match("dix", ["host", ""])
        client.join(none.match_id, "guest", seed_contribution=b"")
        log = server.run(server.running.engine.log(none.match_id))
    assert [len(c) for c in contributed] == [64] * 4 and len(set(contributed)) == 4
    assert '"contribution":""' in log[-1].text


class MethodLog(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """The RPCs a client's channel made, by name (a real interceptor on a real channel)."""

    def __init__(self) -> None:
        self.called: list[str] = []

    def _note(self, details: grpc.ClientCallDetails) -> None:
        self.called.append(str(details.method).rsplit("/", 1)[1])

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        self._note(details)
        return continuation(details, request)

    def intercept_unary_stream(self, continuation, details, request):  # type: ignore[no-untyped-def]
        self._note(details)
        return continuation(details, request)

    def intercept_stream_stream(self, continuation, details, requests):  # type: ignore[no-untyped-def]
        self._note(details)
        return continuation(details, requests)


def test_play_takes_every_decision_over_one_play_session(server: ServerThread) -> None:
    """SeatClient.play's default (issue 32): the server pushes each decision on one stream and
    takes the move on it, so no move costs a ListLegalMoves and a SubmitMove call."""
    calls = MethodLog()
    with KozyrClient(server.address) as client, KozyrClient(server.address) as other:
        client.stub = pb_grpc.KozyrServiceStub(grpc.intercept_channel(client.channel, calls))
        created = other.create_match("dix", ["me", "you"])
        me = client.seat(created.match_id, created.tokens[0])
        you = other.seat(created.match_id, created.tokens[1])
        rival = threading.Thread(target=you.play, args=(lambda view, legal: legal[0],))
        rival.start()
        final = me.play(lambda view, legal: legal[-1])
        rival.join(60)
    assert final.status == pb.MATCH_STATUS_FINISHED
    assert sorted(set(calls.called)) == ["GetMatch", "PlaySession"], calls.called
    assert me.receipts.all()[-1].version == final.version  # the final push's receipt kept


def test_errors_are_kozyr_errors_with_the_reason_code(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        match_id, seats = seats_of(client, "dix")
        view = seats[0].view()
        idle = seats[1 - view.to_act]
        mover = seats[view.to_act]
        with pytest.raises(KozyrError) as info:
            idle.move(moves.play("dix", idle.view().dix.hand[0]))
        e = info.value
        assert (e.code, e.reason) == (Code.FAILED_PRECONDITION, "NOT_YOUR_TURN")
        assert e.metadata == {"matchId": match_id, "seat": str(1 - view.to_act), "rule": "DIX-4"}
        assert e.message and not e.transport
        assert e.error_reason == ErrorReason.ERROR_REASON_NOT_YOUR_TURN

        with pytest.raises(KozyrError) as info:
            client.spectate(match_id).move(mover.legal_moves()[0])
        assert (info.value.code, info.value.reason) == (Code.UNAUTHENTICATED, "NO_TOKEN")
        with pytest.raises(KozyrError) as info:
            client.seat(match_id, ARBITER).move(mover.legal_moves()[0])
        assert (info.value.code, info.value.reason) == (
            Code.PERMISSION_DENIED,
            "SPECTATOR_CANNOT_MOVE",
        )
        with pytest.raises(KozyrError) as info:
            client.seat(match_id, "x" * 40).view()
        assert (info.value.code, info.value.reason) == (Code.UNAUTHENTICATED, "BAD_TOKEN")
        with pytest.raises(KozyrError) as info:
            client.spectate("no-such-match").view()
        assert info.value.code == Code.NOT_FOUND
        with pytest.raises(KozyrError) as info:
            client.join(match_id, "late")
        assert (info.value.code, info.value.reason) == (Code.FAILED_PRECONDITION, "SEAT_TAKEN")
        with pytest.raises(KozyrError) as info:  # a version the match can never be at
            mover.move(mover.legal_moves()[0], expected_version=0)
        assert (info.value.code, info.value.reason) == (
            Code.INVALID_ARGUMENT,
            "BAD_EXPECTED_VERSION",
        )
        with pytest.raises(KozyrError) as info:
            client.create_match("chess", ["a", "b"])
        assert info.value.code == Code.INVALID_ARGUMENT


def test_a_server_that_is_not_there_is_a_transport_error(redis_url: str) -> None:
    from tests.clients.conftest import free_port

    with KozyrClient(f"127.0.0.1:{free_port()}", timeout=2) as client:
        client.backoff = type(client.backoff)(attempts=1, first=0.01)
        with pytest.raises(KozyrError) as info:
            client.list_games()
    assert info.value.code == Code.UNAVAILABLE and info.value.transport
    assert info.value.reason == "UNAVAILABLE"


def test_the_same_command_id_moves_once(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        _, seats = seats_of(client, "durak-dice")
        view = seats[0].view()
        mover = seats[view.to_act]
        move = mover.legal_moves()[0]
        first = mover.move(move, command_id="cmd-1")
        again = mover.move(move, command_id="cmd-1")
        assert first.version == again.version == view.version + 1
        assert mover.view().version == view.version + 1


def test_a_move_whose_answer_was_lost_is_retried_with_the_same_command_id(
    server: ServerThread, proxy: Proxy
) -> None:
    with KozyrClient(server.address) as direct, KozyrClient(proxy.address) as client:
        _, seats = seats_of(direct, "durak-dice")
        view = seats[0].view()
        token = seats[view.to_act].token
        assert token is not None
        mover = client.seat(seats[0].match_id, token)
        move = mover.legal_moves()[0]
        proxy.cut_next_response()
        answer = mover.move(move)  # the server applies it, the answer is cut, the client retries
        assert proxy.cuts == 1, "the fault was never injected"
        assert answer.version == view.version + 1
        assert seats[0].view().version == view.version + 1, "the retry moved a second time"
        entries = direct.seat(seats[0].match_id, ARBITER).log().entries
        commands = [Entry.from_canonical(e.canonical_json).command_id for e in entries]
        assert commands.count(commands[-1]) == 1 and len(entries) == answer.version


def test_create_match_is_idempotent_per_request_id(server: ServerThread) -> None:
    request_id = f"req-{uuid.uuid4().hex}"
    with KozyrClient(server.address) as client:
        a = client.create_match("dix", ["a", "b"], request_id=request_id, options={"target": "10"})
        b = client.create_match("dix", ["a", "b"], request_id=request_id, options={"target": "10"})
        c = client.create_match("dix", ["a", "b"], options={"target": "10"})
    assert a == b and c.match_id != a.match_id
    # three entries: the match created, then each named seat's contribution (the second
    # call's contributions are refused as given already, and it answers the same)
    assert a.version == 3


def test_watch_resumes_after_the_connection_drops(server: ServerThread, proxy: Proxy) -> None:
    with KozyrClient(server.address) as direct, KozyrClient(proxy.address) as through:
        match_id, seats = seats_of(direct, "six-dozens")
        watcher = Collector(through.spectate(match_id).watch())
        rng = random.Random(5)
        for target in (8, 16, 24):
            play(seats, rng, stop=lambda v, t=target: v >= t)  # type: ignore[misc]
            watcher.wait_for(seats[0].view().version)
            proxy.cut_all()  # mid-match, with the stream open
        final = play(seats, rng)
        watcher.join(30)
        assert not watcher.is_alive() and watcher.error is None, watcher.error
    assert [u.version for u in watcher.updates] == list(range(1, final.version + 1))
    assert watcher.watch.reconnects >= 3
    assert watcher.updates[-1].view.outcome == final.outcome


def test_watch_resumes_across_a_server_restart(restartable: RestartableServer) -> None:
    with KozyrClient(restartable.address) as client:
        match_id, seats = seats_of(client, "dix")
        token = seats[0].token
        assert token is not None
        watcher = Collector(client.seat(match_id, token).watch())
        rng = random.Random(7)
        play(seats, rng, stop=lambda v: v >= 10)
        watcher.wait_for(seats[0].view().version)
        restartable.stop()
        restartable.start()
        final = play(seats, rng)
        watcher.join(30)
        assert not watcher.is_alive() and watcher.error is None, watcher.error
        mine = seats[0].view()
    assert [u.version for u in watcher.updates] == list(range(1, final.version + 1))
    assert watcher.watch.reconnects >= 1
    assert watcher.updates[-1].view == mine  # still seat 0's own view after the resume


def test_a_cancelled_watch_resumes_and_a_closed_one_ends(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        match_id, seats = seats_of(client, "dix")
        watch = client.spectate(match_id).watch()
        first = next(watch)
        watch._call.cancel()  # cut from outside, as a proxy or a load balancer might
        play(seats, random.Random(3), stop=lambda v: v > first.version)
        assert next(watch).version == first.version + 1
        assert watch.reconnects == 1
        play(seats, random.Random(3), stop=lambda v: v > first.version + 1)
        watch.close()
        assert list(watch) == []
        assert watch.version == first.version + 1 and not watch.finished


def test_watching_a_finished_match_from_its_end_returns_nothing(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        match_id, seats = seats_of(client, "dix")
        final = play(seats, random.Random(1))
        assert list(client.spectate(match_id).watch(from_version=final.version)) == []
        tail = list(client.spectate(match_id).watch(from_version=final.version - 2))
        assert [u.version for u in tail] == [final.version - 1, final.version]
        log = client.spectate(match_id).log()
        assert log.game == "dix" and len(log.entries) == final.version
        replay = client.seat(match_id, ARBITER).replay(final.version, as_seat=0)
        assert replay.view.status == pb.MATCH_STATUS_FINISHED and replay.text


def test_move_helpers_build_what_the_server_offers(server: ServerThread) -> None:
    with KozyrClient(server.address) as client:
        for game in PLAYERS:
            _, seats = seats_of(client, game)
            view = seats[0].view()
            for move in seats[view.to_act].legal_moves():
                action, card = moves.action_of(move)
                assert moves.make_move(game, action, card) == move
                assert moves.describe(move).startswith(action)
    assert moves.take() == pb.Move(durak_dice=pb.DurakDiceMove(take=pb.Take()))
    with pytest.raises(ValueError):
        moves.make_move("dix", "take")


def test_a_durak_view_shows_the_last_bout_and_who_took_it(server: ServerThread) -> None:
    # The deal is random, so one match may end with no beaten bout: play up to eight.
    taken = beaten = 0
    with KozyrClient(server.address) as client:
        rng = random.Random(11)
        for _ in range(8):
            if taken and beaten:
                break
            t, b = _play_durak_watching_bouts(client, rng)
            taken, beaten = taken + t, beaten + b
    assert taken and beaten


def _play_durak_watching_bouts(client: KozyrClient, rng: random.Random) -> tuple[int, int]:
    match_id, seats = seats_of(client, "durak-dice")
    spectator = client.spectate(match_id)
    taken = beaten = 0
    view = seats[0].view()
    while view.status != pb.MATCH_STATUS_FINISHED:
        before = view.durak_dice
        seat = seats[view.to_act]
        move = rng.choice(seat.legal_moves())
        view = seat.move(move).view
        after = view.durak_dice
        if after.bout_number != before.bout_number and view.status == pb.MATCH_STATUS_PLAYING:
            # The bout just ended: its cards are the last bout, public to everyone.
            attacks = [p.attack for p in after.last_bout]
            assert attacks[: len(before.table)] == [p.attack for p in before.table]
            assert spectator.view().durak_dice.last_bout == after.last_bout
            if after.HasField("last_bout_taken_by"):
                assert after.last_bout_taken_by == before.defender
                taken += 1
            else:
                beaten += 1
    return taken, beaten


def test_a_watch_the_client_closes_leaves_nothing_waiting_on_the_server(
    server: ServerThread,
) -> None:
    from kozyr.api.metrics import METRICS

    def open_watchers() -> float:
        return METRICS.registry.get_sample_value("kozyr_open_watchers") or 0.0

    def waiting(match_id: str) -> list[object]:
        """The server's tasks still waiting for an entry of this match."""

        async def tasks() -> list[object]:
            return [
                t
                for t in asyncio.all_tasks()
                if t is not asyncio.current_task()
                and ("Engine._wait" in repr(t.get_coro()) or "asend" in repr(t.get_coro()))
            ]

        return server.run(tasks())  # type: ignore[no-any-return]

    with KozyrClient(server.address) as client:
        match_id, _ = seats_of(client, "dix")
        before = open_watchers()
        watch = client.spectate(match_id).watch()
        assert next(watch).version == 1  # the server now waits for entry 2 for this watcher
        assert open_watchers() == before + 1
        watch.close()
        deadline = time.monotonic() + 30
        while open_watchers() > before:  # the server has seen the cancellation
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert waiting(match_id) == [], "a cancelled watch left its wait running on the server"
