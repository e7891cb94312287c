"""PlaySession: one bidirectional stream that plays any number of seats for a bot process.

A unary call costs about four times a message on an open stream (issue 15: 466 vs 133 µs of
server CPU), and the unary loop of a bot is three of them per move (watch, ListLegalMoves,
SubmitMove). On a session the client adds seats once - each token authenticated once, for the
life of the stream - and from then on the server pushes each decision a seat must take (its
view, its legal moves, the events it saw since its previous push) and the client answers with a
SessionMove. The session's seats of one match follow it through one Engine.updates, which
hands over the steps this process appended itself without reading the store; an event every
seat may see is encoded once for all of them.

No lost and no doubled move: a move carries the version of the decision it answers (it is
submitted with that expected version) and a command id (a repeat gets the recorded answer).
A client whose stream dropped adds its seats again with the last version it saw: the events
after it are pushed, and the decision at it again if the move did not land.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.auth.arbiter import viewer_of
from kozyr.api.guard import TokenBucket
from kozyr.api.metrics import count_move
from kozyr.api.movelog import MoveLog
from kozyr.engine import Engine
from kozyr.engine.answers import Viewer
from kozyr.match import limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.wire import convert, receipt_messages
from kozyr.wire.status import STATUS, bounded, reason_name

log = structlog.get_logger("kozyr.api")

MAX_SEATS_PER_MESSAGE = 1_000
MAX_MOVES_PER_MESSAGE = 1_000
MAX_SESSION_SEATS = 10_000
MAX_PUSHES_PER_MESSAGE = 512  # pushes ready at once go out in one message, up to this many


@dataclass(slots=True, eq=False)
class _Seat:
    """One seat of a session: what it asked for and what it heard so far."""

    seat: int
    from_version: int
    skip_events: bool = False
    skip_receipts: bool = False
    seen: int = -1  # the last version whose step it heard (a restarted follower skips it)
    events: list[pb.Event] = field(default_factory=list)  # since its last push
    lean: bool = False  # its views leave out what it was sent already
    game_views: bool = False  # its decisions carry game_view_json, their views no table


class _Pushing:
    """Session._push's context, one per session (a push is made in place, with no await, so
    two never overlap): a generator-based context manager cost ~2 % of a server's CPU."""

    __slots__ = ("_pushes", "_session")

    def __init__(self, session: Session) -> None:
        self._session = session
        self._pushes: Any = None

    def __enter__(self) -> pb.SessionPush:
        out = self._session._out
        if not out or len(out[-1].pushes) >= MAX_PUSHES_PER_MESSAGE:
            out.append(pb.SessionPushes())
        self._pushes = out[-1].pushes
        return self._pushes.add()  # type: ignore[no-any-return]

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        pushes, self._pushes = self._pushes, None
        if kind is None:
            self._session._ready.set()
            return
        del pushes[-1]
        if not pushes:
            self._session._out.pop()  # the message was opened for it


class Session:
    """One PlaySession stream: its seats, its moves in flight and the pushes waiting to go."""

    def __init__(
        self,
        engine: Engine,
        closing: asyncio.Event,
        *,
        in_flight: int = 256,
        move_log: MoveLog | None = None,
        rate: tuple[float, int] = (5_000.0, 10_000),
        clock: Callable[[], float] = time.monotonic,
        viewer: Callable[[str, str | None], Awaitable[Viewer]] | None = None,
    ) -> None:
        self.engine = engine
        # Who a seat's token is in its match: the servicer's own check (the caller's tenant,
        # ticket and token, as for a unary call); a bare token's seat without one.
        self.viewer = viewer or (lambda match_id, token: viewer_of(engine, None, match_id, token))
        self.closing = closing
        self.move_log = move_log or MoveLog()
        # The messages being built, the last one open: each push is made in place in it (a
        # push made apart was copied twice more, into its message and that into the stream's),
        # and the stream sends whatever is ready when it runs.
        self._out: list[pb.SessionPushes] = []
        self._ready = asyncio.Event()
        self._ending = False
        self.seats: dict[tuple[str, int], _Seat] = {}
        self.followers: dict[str, asyncio.Task[None]] = {}  # by match: see _follow
        self.moves: set[asyncio.Task[None]] = set()
        self.in_flight = asyncio.Semaphore(in_flight)
        self.clock = clock
        self.bucket = TokenBucket(rate[0], rate[1], clock())
        self.failure: BaseException | None = None
        self._pushing = _Pushing(self)

    async def run(self, requests: AsyncIterator[Any]) -> AsyncGenerator[pb.SessionPushes, None]:
        """The pushes of the session until the client closes its side or the server stops;
        what is ready at once goes out as one message."""
        reader = asyncio.create_task(self._read(requests))
        closing = asyncio.create_task(self._close_on(self.closing))
        try:
            while True:
                await self._ready.wait()
                self._ready.clear()
                out, self._out = self._out, []
                for message in out:
                    yield message
                if self._ending and not self._out:
                    break
            if self.failure is not None:
                raise self.failure
        finally:
            tasks = [reader, closing, *self.followers.values(), *self.moves]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _push(self) -> _Pushing:
        """A new push in the open message, filled in place within a `with` block (no await
        in it); a block that raises leaves no half-filled push behind."""
        return self._pushing

    def _end(self) -> None:
        """Send what is ready, then end the stream."""
        self._ending = True
        self._ready.set()

    async def _close_on(self, event: asyncio.Event) -> None:
        await event.wait()
        self._end()

    async def _read(self, requests: AsyncIterator[Any]) -> None:
        try:
            async for request in requests:
                if not isinstance(request, pb.SessionRequest):  # undecodable bytes
                    raise bad_request(
                        "BAD_REQUEST_BYTES",
                        f"the message is not a valid SessionRequest ({request.why})",
                    )
                if request.seats:
                    await self._add(request.seats)
                if len(request.moves) > MAX_MOVES_PER_MESSAGE:
                    raise bad_request(
                        "TOO_MANY_MOVES", f"send at most {MAX_MOVES_PER_MESSAGE} moves per message"
                    )
                for move in request.moves:
                    if wait := self.bucket.take(self.clock()):
                        self._refuse(
                            MatchError(
                                Kind.EXHAUSTED,
                                "RATE_LIMITED",
                                "too many moves on this session: "
                                f"wait {wait:.2f} s, then send this move again",
                                move.match_id,
                                move.seat,
                            ),
                            move.match_id,
                            move.seat,
                            move.command_id,
                        )
                        continue
                    await self.in_flight.acquire()
                    task = asyncio.create_task(self._move(move))
                    self.moves.add(task)
                    task.add_done_callback(self.moves.discard)
        except MatchError as e:
            self.failure = e
        finally:
            self._end()

    # ------------------------------------------------------------------ seats

    async def _add(self, seats: Any) -> None:
        if len(seats) > MAX_SEATS_PER_MESSAGE:
            raise bad_request(
                "TOO_MANY_SEATS", f"add at most {MAX_SEATS_PER_MESSAGE} seats per message"
            )
        touched: dict[str, list[_Seat]] = {}
        for wanted in seats:
            try:
                limits.check_match_id(wanted.match_id)
                if not 0 <= wanted.from_version < 2**31:
                    raise bad_request("NO_SUCH_VERSION", "from_version must be 0..2^31-1")
                viewer = await self.viewer(wanted.match_id, wanted.token or None)
                if viewer.seat is None:
                    raise MatchError(
                        Kind.FORBIDDEN,
                        "SPECTATOR_CANNOT_MOVE",
                        "a session acts for seats: send a seat token",
                        wanted.match_id,
                    )
                if viewer.seat != wanted.seat:
                    raise MatchError(
                        Kind.UNAUTHENTICATED,
                        "WRONG_SEAT",
                        f"the token is not seat {wanted.seat}'s",
                        wanted.match_id,
                    )
            except MatchError as e:
                self._refuse(e, wanted.match_id, wanted.seat, "")
                continue
            key = (wanted.match_id, viewer.seat)
            if key not in self.seats and len(self.seats) >= MAX_SESSION_SEATS:
                self._refuse(
                    MatchError(
                        Kind.EXHAUSTED,
                        "TOO_MANY_SEATS",
                        f"a session holds at most {MAX_SESSION_SEATS} seats",
                    ),
                    wanted.match_id,
                    viewer.seat,
                    "",
                )
                continue
            # Added again (a resume on the same stream): it starts over from its version.
            seat = self.seats[key] = _Seat(
                viewer.seat,
                wanted.from_version,
                wanted.skip_events,
                wanted.skip_receipts,
                game_views=wanted.game_views,
            )
            touched.setdefault(wanted.match_id, []).append(seat)
        for match_id, added in touched.items():
            self._follow(match_id, added)

    def _follow(self, match_id: str, added: list[_Seat]) -> None:
        """Follow the match for its seats of this session: one task for all of them, so each
        step is heard, and each event encoded, once. A follower already running is started
        again from the earliest version any of its seats needs (each seat skips what it heard
        already)."""
        old = self.followers.pop(match_id, None)
        seats = {s.seat: s for s in added}
        if old is not None:
            old.cancel()
            for seat in (k[1] for k in self.seats if k[0] == match_id):
                seats.setdefault(seat, self.seats[(match_id, seat)])
        self.followers[match_id] = asyncio.create_task(self._run_follower(match_id, seats))

    async def _run_follower(self, match_id: str, seats: dict[int, _Seat]) -> None:
        """Push the seats' decisions from their versions on, until the match ends."""

        def hear(step: Any) -> None:
            shown: dict[int, pb.Event] = {}  # events every seat may see, made once
            for seat in seats.values():
                self._step(match_id, seat, step, shown)

        try:
            start = max(min(s.from_version for s in seats.values()) - 1, 0)
            # The steps this process appends are heard from within their appends (`sink`).
            async with contextlib.aclosing(
                self.engine.updates(match_id, start, sink=hear)
            ) as updates:
                async for step in updates:
                    hear(step)
                    if step.record.finished:
                        break
        except MatchError as e:
            for number in seats:
                self._refuse(e, match_id, number, "")
        except Exception:
            log.exception("session_seat_failed", match_id=match_id)
            for number in seats:
                self._refuse(
                    MatchError(Kind.INTERNAL, "INTERNAL", "internal error; it has been logged"),
                    match_id,
                    number,
                    "",
                )
        finally:
            if self.followers.get(match_id) is asyncio.current_task():
                del self.followers[match_id]
                for number in seats:
                    self.seats.pop((match_id, number), None)

    def _step(self, match_id: str, seat: _Seat, step: Any, shown: dict[int, pb.Event]) -> None:
        """What one step pushes for one seat: its events kept for its next push, and its
        decision (or its match's end)."""
        record, version = step.record, step.record.version
        if version <= seat.seen:
            return  # heard before its follower started again
        seat.seen = version
        if version > seat.from_version and not seat.skip_events:
            seat.events += convert.events_for(
                record.game, version, step.events, seat.seat, shown=shown
            )
        if record.finished:
            with self._push() as push:
                done = push.finished
                done.match_id, done.seat, done.version = match_id, seat.seat, version
                done.events.extend(seat.events)
                convert.match_view(record, seat.seat, into=done.view)
                _receipt(done, self.engine.receipt(step))
            return
        if version < seat.from_version or not record.started:
            return
        game = record.game
        legal = game.legal_commands(record.state, seat.seat)
        if not legal:
            return
        with self._push() as push:
            decision = push.decision
            decision.match_id, decision.seat, decision.version = match_id, seat.seat, version
            decision.events.extend(seat.events)
            convert.match_view(
                record, seat.seat, lean=seat.lean, into=decision.view, table=not seat.game_views
            )
            if seat.game_views:
                decision.game_view_json = convert.game_view_json(record, seat.seat)
            decision.MergeFromString(convert.decision_moves(game, legal))
            if not seat.skip_receipts:
                _receipt(decision, self.engine.receipt(step))
        seat.events, seat.lean = [], True

    # ------------------------------------------------------------------ moves

    async def _move(self, move: pb.SessionMove) -> None:
        started = time.perf_counter()
        result, game_name = "OK", "?"
        try:
            if (move.match_id, move.seat) not in self.seats:
                limits.check_match_id(move.match_id)
                raise MatchError(
                    Kind.FORBIDDEN,
                    "NOT_IN_SESSION",
                    "add the seat to this session before moving for it",
                    move.match_id,
                    move.seat,
                )
            if not move.HasField("move"):
                raise bad_request("EMPTY_MOVE", "the move is empty")
            if not 1 <= move.version < 2**31:
                raise bad_request("BAD_EXPECTED_VERSION", "version must be the decision's")
            game = await self.engine.game_of(move.match_id)
            game_name = game.NAME
            command = convert.command_from_move(game, move.move)
            await self.engine.submit(
                move.match_id, move.seat, command, move.command_id, move.version
            )
        except MatchError as e:
            result = e.code
            self._refuse(e, move.match_id, move.seat, move.command_id)
        finally:
            self.in_flight.release()
            count_move(game_name, result)
            self.move_log.record(
                result,
                (time.perf_counter() - started) * 1e3,
                match_id=bounded(move.match_id),
                seat=move.seat,
                command_id=bounded(move.command_id),
                version=move.version,
                session=True,
            )

    def _refuse(self, error: MatchError, match_id: str, seat: int, command_id: str) -> None:
        with self._push() as push:
            refusal = push.refusal
            refusal.match_id, refusal.seat = bounded(match_id), seat
            refusal.command_id, refusal.code = bounded(command_id), STATUS[error.kind].value[0]
            refusal.reason = reason_name(error.code)
            refusal.message = bounded(error.message, 1024)


def _receipt(push: pb.Decision | pb.SeatFinished, receipt: Any) -> None:
    """Put the entry's signed receipt (None: the server signs none) into a push."""
    made = receipt_messages.to_pb(receipt)
    if made is not None:
        push.receipt.CopyFrom(made)
