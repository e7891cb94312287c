"""Bots over one PlaySession stream: many seats, one connection, one message per move.

    session = PlaySession(client, choose=lambda decision: decision.moves[0])
    session.add(created.match_id, 0, created.tokens[0])
    session.add(created.match_id, 1, created.tokens[1])
    finished = session.run()          # {(match_id, seat): SeatFinished} once every match ended

A caller that adds seats as it goes (from another thread) runs `run(until_closed=True)` and
calls `close()` once it has added its last seat and seen it finish.

The server pushes each decision a seat must take (`pb.Decision`: view, legal moves, the events
since the seat's previous push); `choose` answers it with a move. A dropped stream is opened
again and every seat added again from the last version it saw, so no event is delivered twice
and no move is lost or played twice: each move carries the decision's version (the server
refuses it at any other) and a command id made from it (a repeat gets the recorded answer).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr_client.errors import KozyrError, status_of
from kozyr_client.transport import Backoff, dropped

if TYPE_CHECKING:
    from kozyr_client.client import KozyrClient

MAX_SEATS_PER_MESSAGE = 1_000
# Refusals that only mean the table moved on before the move arrived: a later push decides.
STALE = frozenset({"STALE_VERSION", "NOT_YOUR_TURN", "MATCH_OVER"})


@dataclass
class SessionSeat:
    """One seat of a session: the last version pushed for it and, once over, its final push."""

    match_id: str
    seat: int
    token: str
    version: int = 0
    moves: int = 0
    finished: pb.SeatFinished | None = None
    answered: tuple[int, pb.Move] | None = None  # the last decision's version and our move
    retries: int = 0  # the last move's resends after UNAVAILABLE


class PlaySession:
    """Seats played by `choose` over one PlaySession stream, resumed after drops."""

    def __init__(
        self,
        client: KozyrClient,
        choose: Callable[[pb.Decision], pb.Move],
        *,
        backoff: Backoff | None = None,
        on_event: Callable[[pb.Decision | pb.SeatFinished], None] | None = None,
        receipts: bool = True,
        game_views: bool = False,
    ) -> None:
        self.client = client
        # False: decisions come without receipts (each seat's final push still has one).
        self.receipts = receipts
        # True: decisions carry the seat's view in the games' JSON form (game_view_json), as
        # a bot inside the server is given it, and their MatchView no table.
        self.game_views = game_views
        self.choose = choose
        self.on_event = on_event
        self.backoff = backoff or client.backoff
        self.seats: dict[tuple[str, int], SessionSeat] = {}
        self.reconnects = 0
        self.stale = 0  # moves the table had moved past (harmless; counted for the curious)
        self._outbox: queue.SimpleQueue[pb.SessionRequest | None] | None = None
        self._call: Any = None
        self._closed = False
        self._until_closed = False
        # add() from another thread and a stream taking its seats agree on who sends a seat.
        self._lock = threading.Lock()

    def add(self, match_id: str, seat: int, token: str, from_version: int = 0) -> SessionSeat:
        """Play `seat` of `match_id` (its token) from `from_version` on (from any thread)."""
        return self.add_many([(match_id, seat, token, from_version)])[0]

    def add_many(self, seats: Sequence[tuple[str, int, str, int]]) -> list[SessionSeat]:
        """Play several seats, each (match_id, seat, token, from_version), sent together."""
        states = [SessionSeat(m, s, token, v) for m, s, token, v in seats]
        with self._lock:
            for state in states:
                self.seats[(state.match_id, state.seat)] = state
            if self._outbox is not None:
                for k in range(0, len(states), MAX_SEATS_PER_MESSAGE):
                    self._outbox.put(self._seats_message(states[k : k + MAX_SEATS_PER_MESSAGE]))
        return states

    def close(self) -> None:
        """End the stream (from any thread); run() returns what finished so far."""
        self._closed = True
        if self._outbox is not None:
            self._outbox.put(None)
        call = self._call
        if call is not None:
            call.cancel()

    def run(self, *, until_closed: bool = False) -> dict[tuple[str, int], pb.SeatFinished]:
        """Play until every seat's match has ended (or close()); resume after drops. With
        `until_closed`, play until close() even while no seat is open (seats added as the
        caller goes)."""
        self._until_closed = until_closed
        delays = self.backoff.delays()
        while not self._closed and (until_closed or self._open_seats()):
            try:
                if self._stream():
                    delays = self.backoff.delays()  # progress earns a fresh retry budget
            except grpc.RpcError as e:
                if self._closed:
                    break
                error = KozyrError.from_rpc_error(e)
                if not dropped(error):
                    raise error from None
            if self._closed or not (until_closed or self._open_seats()):
                break
            delay = next(delays, None)
            if delay is None:
                raise KozyrError(
                    grpc.StatusCode.UNAVAILABLE,
                    "SESSION_LOST",
                    "the play session could not be resumed",
                    transport=True,
                )
            time.sleep(delay)
            self.reconnects += 1
        return {key: s.finished for key, s in self.seats.items() if s.finished is not None}

    # ------------------------------------------------------------------ one stream

    def _open_seats(self) -> list[SessionSeat]:
        return [s for s in self.seats.values() if s.finished is None]

    def _seats_message(self, seats: list[SessionSeat]) -> pb.SessionRequest:
        return pb.SessionRequest(
            seats=[
                pb.SessionSeat(
                    match_id=s.match_id,
                    seat=s.seat,
                    token=s.token,
                    from_version=s.version,
                    skip_receipts=not self.receipts,
                    game_views=self.game_views,
                )
                for s in seats
            ]
        )

    def _requests(
        self, outbox: queue.SimpleQueue[pb.SessionRequest | None]
    ) -> Iterator[pb.SessionRequest]:
        while (request := outbox.get()) is not None:
            yield request

    def _stream(self) -> bool:
        """One stream until every seat finished or it dropped; whether anything was pushed."""
        outbox: queue.SimpleQueue[pb.SessionRequest | None] = queue.SimpleQueue()
        with self._lock:
            seats = self._open_seats()
            for k in range(0, len(seats), MAX_SEATS_PER_MESSAGE):
                outbox.put(self._seats_message(seats[k : k + MAX_SEATS_PER_MESSAGE]))
            self._outbox = outbox
        call = self._call = self.client.stub.PlaySession(self._requests(outbox))
        progressed = False
        try:
            for message in call:
                progressed = True
                moves: list[pb.SessionMove] = []  # the answers to this message, sent as one
                for push in message.pushes:
                    self._handle(push, moves, outbox)
                if moves:
                    outbox.put(pb.SessionRequest(moves=moves))
                if not self._until_closed and not self._open_seats():
                    break
        finally:
            with self._lock:
                self._outbox = None
            outbox.put(None)
            call.cancel()
        return progressed

    def _handle(
        self,
        push: pb.SessionPush,
        moves: list[pb.SessionMove],
        outbox: queue.SimpleQueue[pb.SessionRequest | None],
    ) -> None:
        kind = push.WhichOneof("kind")
        if kind == "decision":
            self._decide(push.decision, moves)
        elif kind == "finished":
            self._finished(push.finished)
        elif kind == "refusal":
            self._refused(push.refusal, outbox)

    def _decide(self, decision: pb.Decision, moves: list[pb.SessionMove]) -> None:
        """Answer a decision pushed for one of our seats (none for an older one's repeat)."""
        state = self.seats.get((decision.match_id, decision.seat))
        if state is None or decision.version < state.version:
            return
        state.version = decision.version
        if self.on_event is not None:
            self.on_event(decision)
        if state.answered is not None and state.answered[0] == decision.version:
            # Pushed again on a resume while our answer may have landed: the same move
            # with the same id again, which the server records at most once.
            move = state.answered[1]
        else:
            move = self.choose(decision)
            state.answered, state.retries = (decision.version, move), 0
            state.moves += 1
        moves.append(_move(state))

    def _finished(self, done: pb.SeatFinished) -> None:
        """A seat's match ended: keep its final push."""
        state = self.seats.get((done.match_id, done.seat))
        if state is not None:
            state.version, state.finished = done.version, done
            if self.on_event is not None:
                self.on_event(done)

    def _refused(
        self, refusal: pb.SessionRefusal, outbox: queue.SimpleQueue[pb.SessionRequest | None]
    ) -> None:
        """A move refused: counted when the table had moved on, sent again after a pause when
        the store was briefly away, raised otherwise."""
        if refusal.reason in STALE:
            self.stale += 1
            return
        state = self.seats.get((refusal.match_id, refusal.seat))
        if (
            refusal.code == grpc.StatusCode.UNAVAILABLE.value[0]
            and state is not None
            and state.answered is not None
            and refusal.command_id
            and state.retries < self.backoff.attempts
        ):
            # The store was briefly away: the same move, same id, after a pause.
            delay = list(self.backoff.delays())[state.retries]
            state.retries += 1
            timer = threading.Timer(delay, outbox.put, (pb.SessionRequest(moves=[_move(state)]),))
            timer.daemon = True
            timer.start()
            return
        raise KozyrError(
            status_of(refusal.code),
            refusal.reason,
            refusal.message,
            {
                "matchId": refusal.match_id,
                "seat": str(refusal.seat),
                "commandId": refusal.command_id,
            },
        )


def _move(state: SessionSeat) -> pb.SessionMove:
    assert state.answered is not None
    version, move = state.answered
    return pb.SessionMove(
        match_id=state.match_id,
        seat=state.seat,
        move=move,
        command_id=f"ps-v{version}",
        version=version,
    )
