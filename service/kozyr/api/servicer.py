"""The KozyrService servicer: authentication, proto ⇄ domain, error mapping, logs and metrics.

Each RPC is thin: parse and check the request, ask the engine, convert the answer; errors become
statuses in api/rpc_calls.py. The match RPCs are here; the history RPCs (logs, replays) are in
api/history_rpcs.py and the platform RPCs (lobby, feed) in api/platform_rpcs.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import structlog

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.api import lobby, spectators, terms
from kozyr.api.auth import tenants
from kozyr.api.auth.arbiter import Arbiter, viewer_of
from kozyr.api.guard import bearer_values, check_request
from kozyr.api.history_rpcs import HistoryRpcs
from kozyr.api.metrics import METRICS, count_move
from kozyr.api.movelog import MoveLog
from kozyr.api.platform_rpcs import PlatformRpcs
from kozyr.api.presence import Presence
from kozyr.api.rpc_calls import Context, internal, next_update, rpc, stream_rpc
from kozyr.api.session import Session
from kozyr.api.tlog_rpcs import TlogRpcs
from kozyr.config.settings import Tenancy
from kozyr.core.cards import parse_cards
from kozyr.engine import Engine, Viewer
from kozyr.games import GAMES
from kozyr.match import lifecycle, limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.match.lifecycle import Step
from kozyr.match.limits import (
    MAX_DECK_TEXT,
    MAX_NAME,
    MAX_OPTION_TEXT,
    MAX_OPTIONS,
    MAX_PREARRANGED,
)
from kozyr.match.record import MatchRecord
from kozyr.platform.publisher import Platform
from kozyr.wire import convert
from kozyr.wire import receipt_messages as wire_receipts
from kozyr.wire.status import bounded, refusal

log = structlog.get_logger("kozyr.api")


class KozyrServicer(HistoryRpcs, PlatformRpcs, TlogRpcs, kozyr_pb2_grpc.KozyrServiceServicer):
    """gRPC front of an Engine."""

    def __init__(
        self,
        engine: Engine,
        arbiter: Arbiter | None = None,
        tenancy: Tenancy | None = None,
        leeway_s: float = 30.0,
        *,
        move_log: MoveLog | None = None,
        session_moves: int = 256,
        platform: Platform | None = None,
    ) -> None:
        self.engine = engine
        self.platform = platform  # the tenants' feed and lobby (None: no Redis, no platform)
        self.arbiter = arbiter
        self.tenancy = tenancy or Tenancy({})
        self.access = tenants.Access(self.tenancy, leeway_s)
        self.closing = asyncio.Event()
        self.move_log = move_log or MoveLog()
        self.session_moves = session_moves
        self.session_rate = (5_000.0, 10_000)  # moves a second and burst (server/bootstrap.py)
        self.term_defaults = terms.Defaults()  # the server's (config.py)
        self.presence = Presence(engine)  # who watches which seat (abandonment, R-7)
        self.process = secrets.token_hex(6)  # ListGamesResponse.process

    # ------------------------------------------------------------------ helpers

    async def _viewer(self, match_id: str, context: Context) -> Viewer:
        token = None
        for value in bearer_values(context):  # one value at most, printable ASCII, bounded
            scheme, _, token = value.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise MatchError(
                    Kind.UNAUTHENTICATED,
                    "MALFORMED_TOKEN",
                    "send the token as 'authorization: Bearer <token>'",
                    match_id,
                )
            token = token.strip()
        return await self._viewer_as(tenants.current(), match_id, token)

    async def _viewer_as(self, caller: tenants.Caller, match_id: str, token: str | None) -> Viewer:
        """Who `caller` is in the match: the one check every call and every play-session seat
        passes (the tenant owns the match, then its ticket, else the bearer token)."""
        await self.access.check_owner(self.engine, self.platform, caller, match_id)
        if caller.ticket is not None:
            return await self.access.ticket_viewer(self.engine, caller.ticket, match_id)
        return await viewer_of(self.engine, self.arbiter, match_id, token)

    async def _seat(self, match_id: str, context: Context) -> int:
        viewer = await self._viewer(match_id, context)
        ticket = tenants.current().ticket
        if ticket is not None and ticket.scope != "play":
            raise MatchError(
                Kind.FORBIDDEN,
                "TICKET_CANNOT_MOVE",
                f"a {ticket.scope} ticket cannot move; moves need a play ticket",
                match_id,
            )
        if viewer.seat is None and not viewer.arbiter:
            await self.engine.record(match_id)  # an unknown match is NOT_FOUND first
            raise MatchError(
                Kind.UNAUTHENTICATED,
                "NO_TOKEN",
                "moves need your seat token: send 'authorization: Bearer <token>'",
                match_id,
            )
        if viewer.seat is None:
            raise MatchError(
                Kind.FORBIDDEN,
                "SPECTATOR_CANNOT_MOVE",
                "only a seated player may move; send your seat token",
                match_id,
            )
        return viewer.seat

    def _view(self, record: MatchRecord, viewer: Viewer) -> pb.MatchView:
        return convert.match_view(record, viewer.seat)

    async def _watched(self, match_id: str, seat: int) -> bool:
        return await self.presence.watched(match_id, seat)

    def _update(self, applied: Step, viewer: Viewer) -> tuple[list[pb.Event], pb.MatchView]:
        record = applied.record
        shown = convert.events_for(
            record.game, applied.entry.version, applied.events, viewer.seat, arbiter=viewer.arbiter
        )
        return shown, self._view(record, viewer)

    # ------------------------------------------------------------------ RPCs

    @rpc
    async def ListGames(
        self, request: pb.ListGamesRequest, context: Context
    ) -> pb.ListGamesResponse:
        """Every game with its options."""
        return pb.ListGamesResponse(
            games=[convert.game_info(g) for g in GAMES.values()], process=self.process
        )

    @rpc
    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Context
    ) -> pb.CreateMatchResponse:
        """Create a match and hand out the named seats' tokens."""
        return await self._create(request)

    @rpc
    async def CreateMatches(
        self, request: pb.CreateMatchesRequest, context: Context
    ) -> pb.CreateMatchesResponse:
        """Create each match of the batch as CreateMatch would; each is answered on its own."""
        self.access.take_creations(tenants.current().tenant, len(request.matches))
        # At once: their store calls share the lanes' writes (py-spy had a server playing
        # bots spend 14 % of its CPU creating 16-match batches one match after another). A
        # request id used again in the batch waits for its earlier use, so the first of them
        # is the one created, as in order.
        results: dict[int, pb.CreateMatchResult] = {}
        for wave in _waves(request.matches):
            made = await asyncio.gather(*(self._create_one(request.matches[k]) for k in wave))
            results.update(zip(wave, made, strict=True))
        return pb.CreateMatchesResponse(results=[results[k] for k in range(len(results))])

    async def _create_one(self, item: pb.CreateMatchRequest) -> pb.CreateMatchResult:
        try:
            check_request(item)
            return pb.CreateMatchResult(created=await self._create(item))
        except MatchError as e:
            METRICS.errors.labels(reason=e.code).inc()
            return pb.CreateMatchResult(refused=refusal(e))
        except Exception:  # the others stand: this one alone is refused, and logged
            status = internal("CreateMatches")
            return pb.CreateMatchResult(
                refused=pb.Refusal(
                    code=status.code.value[0], reason="INTERNAL", message=status.details
                )
            )

    async def _create(self, request: pb.CreateMatchRequest) -> pb.CreateMatchResponse:
        if not request.game:
            raise bad_request("EMPTY_GAME", "name the game: " + ", ".join(GAMES))
        if not request.seats:
            raise bad_request(
                "NO_SEATS", "list one seat per player (a name, or empty to leave it open)"
            )
        if len(request.options) > MAX_OPTIONS or any(
            len(k) > MAX_OPTION_TEXT or len(v) > MAX_OPTION_TEXT for k, v in request.options.items()
        ):
            raise bad_request("FIELD_TOO_LONG", "too many or too long options")
        decks, dice = _prearranged(request)
        match_terms, names = terms.terms_of(request, self.term_defaults)
        seats = [(name, s.seed_contribution) for name, s in zip(names, request.seats, strict=True)]
        lifecycle.check_named_contributions(seats)
        created = await self.engine.create(
            request.game,
            dict(request.options),
            seats,
            terms=match_terms,
            request_id=request.request_id,
            scope=tenants.current().tenant,
            first_dealer=request.first_dealer if request.HasField("first_dealer") else None,
            decks=decks,
            dice=dice,
            tenant=tenants.current().tenant,
            users=[s.user for s in request.seats],
        )
        self.move_log.created(
            match_id=created.match_id, game=bounded(request.game), seats=len(request.seats)
        )
        return pb.CreateMatchResponse(
            match_id=created.match_id,
            version=created.version,
            tokens=[pb.SeatToken(seat=t.seat, name=t.name, token=t.token) for t in created.tokens],
            receipt=wire_receipts.to_pb(created.receipt),
            seed_commitment=created.commitment,
        )

    @rpc
    async def JoinMatch(
        self, request: pb.JoinMatchRequest, context: Context
    ) -> pb.JoinMatchResponse:
        """Claim an open seat (by match id or join link; with a play ticket, its seat)."""
        match_id, seat, user = await self._joining(request)
        if len(request.name) > MAX_NAME:
            raise bad_request("FIELD_TOO_LONG", f"a name may have at most {MAX_NAME} characters")
        joined = await self.engine.join(
            match_id, request.name, seat, request.seed_contribution, user=user
        )
        log.info(
            "seat_joined",
            match_id=match_id,
            seat=joined.seat,
            user=bounded(user),
            version=joined.version,
            started=joined.started,
        )
        return pb.JoinMatchResponse(
            seat=joined.seat,
            token=joined.token,
            version=joined.version,
            started=joined.started,
            receipt=wire_receipts.to_pb(joined.receipt),
            seed_commitment=joined.commitment,
        )

    async def _joining(self, request: pb.JoinMatchRequest) -> tuple[str, int | None, str]:
        """The match, seat and user a join is for."""
        caller = tenants.current()
        match_id = request.match_id
        if request.link:
            config = self.tenancy.get(caller.tenant)
            match_id = lobby.match_of_link(config.join_link if config else "", request.link)
            if request.match_id and request.match_id != match_id:
                raise bad_request("BAD_LINK", "the link is for another match than match_id")
        limits.check_match_id(match_id)
        await self.access.check_owner(self.engine, self.platform, caller, match_id)
        seat = request.seat if request.HasField("seat") else None
        ticket = caller.ticket
        if ticket is None:
            return match_id, seat, ""
        if ticket.scope != "play":
            raise MatchError(
                Kind.FORBIDDEN,
                "TICKET_CANNOT_JOIN",
                f"a {ticket.scope} ticket cannot take a seat",
                match_id,
            )
        if seat is not None and seat != ticket.seat:
            raise MatchError(
                Kind.FORBIDDEN,
                "TICKET_FOR_ANOTHER_SEAT",
                f"the ticket is for seat {ticket.seat}",
                match_id,
            )
        return match_id, ticket.seat, ticket.user

    @rpc
    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.GetMatchResponse:
        """The caller's view."""
        viewer = await self._viewer(request.match_id, context)
        record = await self.engine.record(request.match_id)
        record = await spectators.delayed_record(self.engine, record, viewer)
        return pb.GetMatchResponse(view=self._view(record, viewer))

    @rpc
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: Context
    ) -> pb.ListLegalMovesResponse:
        """The caller's legal moves."""
        viewer = await self._viewer(request.match_id, context)
        record = await self.engine.current(request.match_id)
        moves: list[pb.Move] = []
        if viewer.seat is not None and record.started and not record.finished:
            game = record.game
            moves = [
                convert.move_from_command(game, c)
                for c in game.legal_commands(record.state, viewer.seat)
            ]
        return pb.ListLegalMovesResponse(version=record.version, moves=moves)

    @rpc
    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, context: Context
    ) -> pb.SubmitMoveResponse:
        """Decide and record one move."""
        started = time.perf_counter()
        match_id, seat = request.match_id, None
        game_name = "?"
        limits.check_match_id(match_id)  # before it reaches a log line
        try:
            seat = await self._seat(match_id, context)
            game = await self.engine.game_of(match_id)
            game_name = game.NAME
            if not request.HasField("move"):
                raise bad_request("EMPTY_MOVE", "the request has no move")
            command = convert.command_from_move(game, request.move)
            ticket = tenants.current().ticket
            applied = await self.engine.submit(
                match_id,
                seat,
                command,
                request.command_id,
                request.expected_version if request.HasField("expected_version") else None,
                actor=ticket.user if ticket is not None else "",
            )
        except MatchError as e:
            if e.seat is None:
                e.seat = seat
            if not e.match_id:
                e.match_id = match_id
            count_move(game_name, e.code)
            self.move_log.record(
                e.code,
                (time.perf_counter() - started) * 1e3,
                match_id=match_id,
                seat=seat,
                command_id=bounded(request.command_id),
            )
            raise
        record = applied.record
        events = convert.events_for(record.game, applied.entry.version, applied.events, seat)
        view = convert.match_view(record, seat, lean=request.lean_view)
        elapsed = time.perf_counter() - started
        count_move(game_name, "OK")
        METRICS.latency.observe(elapsed)
        self.move_log.record(
            "OK",
            elapsed * 1e3,
            match_id=match_id,
            seat=seat,
            command_id=request.command_id,
            version=applied.entry.version,
        )
        return pb.SubmitMoveResponse(
            version=applied.entry.version,
            events=events,
            view=view,
            receipt=wire_receipts.to_pb(self.engine.receipt(applied)),
        )

    @stream_rpc
    async def WatchMatch(
        self, request: pb.WatchMatchRequest, context: Context
    ) -> AsyncGenerator[pb.MatchUpdate, None]:
        """Stream updates after from_version until the match ends or the server stops."""
        viewer = await self._viewer(request.match_id, context)
        METRICS.watchers.inc()
        seat = viewer.seat
        if seat is not None:
            await self.presence.opened(request.match_id, seat)
        delay = 0 if seat is not None or viewer.arbiter else await self._delay(request.match_id)
        try:
            async with contextlib.aclosing(
                spectators.delayed(
                    self.engine.updates(request.match_id, request.from_version),
                    delay,
                    self.engine.now_ms,
                )
            ) as updates:
                while (applied := await next_update(updates, self.closing)) is not None:
                    events, view = self._update(applied, viewer)
                    yield pb.MatchUpdate(
                        version=applied.entry.version,
                        events=events,
                        view=view,
                        receipt=wire_receipts.to_pb(self.engine.receipt(applied)),
                    )
        finally:
            METRICS.watchers.dec()
            if seat is not None:
                self.presence.closed(request.match_id, seat)

    async def _delay(self, match_id: str) -> int:
        """The match's spectator delay, ms: its terms never change after entry 1, so any
        cached record says it, and only a match this process holds none of is read."""
        record = self.engine.cached(match_id) or await self.engine.record(match_id)
        return record.terms.spectator_delay_ms

    @stream_rpc
    async def PlaySession(
        self, requests: AsyncIterator[Any], context: Context
    ) -> AsyncGenerator[pb.SessionPushes, None]:
        """A bot's seats over one stream (kozyr.api.session)."""
        session = Session(
            self.engine,
            self.closing,
            in_flight=self.session_moves,
            move_log=self.move_log,
            rate=self.session_rate,
            viewer=functools.partial(self._viewer_as, tenants.current()),
        )
        async with contextlib.aclosing(session.run(requests)) as pushes:
            async for push in pushes:
                yield push

    @rpc
    async def Contribute(
        self, request: pb.ContributeRequest, context: Context
    ) -> pb.ContributeResponse:
        """A named seat's seed contribution, after the commitment (docs/fairness.md §1)."""
        limits.check_match_id(request.match_id)
        seat = await self._seat(request.match_id, context)
        step = await self.engine.contribute(request.match_id, seat, request.seed_contribution)
        log.info(
            "seed_contributed",
            match_id=request.match_id,
            seat=seat,
            started=step.record.started,
            version=step.record.version,
        )
        return pb.ContributeResponse(
            version=step.record.version,
            started=step.record.started,
            receipt=wire_receipts.to_pb(self.engine.receipt(step)),
        )

    @rpc
    async def EndMatch(self, request: pb.EndMatchRequest, context: Context) -> pb.EndMatchResponse:
        """Resign, abort or claim the win for the caller's seat (docs/rules.md R-7)."""
        limits.check_match_id(request.match_id)
        seat = await self._seat(request.match_id, context)
        applied = await terms.end_match(self.engine, request, seat, self._watched)
        log.info(
            "match_ended_early",
            match_id=request.match_id,
            seat=seat,
            reason=pb.EndReason.Name(request.reason),
            version=applied.entry.version,
        )
        events, view = self._update(applied, Viewer(seat))
        return pb.EndMatchResponse(
            version=applied.entry.version,
            events=events,
            view=view,
            receipt=wire_receipts.to_pb(self.engine.receipt(applied)),
        )


def _prearranged(request: pb.CreateMatchRequest) -> tuple[list[Any], list[tuple[int, ...]]]:
    """The request's prearranged deal (docs/rules.md R-3): its decks and die rolls, read."""
    if max(len(request.prearranged_decks), len(request.prearranged_dice)) > MAX_PREARRANGED:
        raise bad_request(
            "TOO_MANY_PREARRANGED",
            f"at most {MAX_PREARRANGED} prearranged decks and roll lists",
        )
    decks = []
    for text in request.prearranged_decks:
        if len(text) > MAX_DECK_TEXT:
            raise bad_request("FIELD_TOO_LONG", "a prearranged deck is too long")
        try:
            decks.append(parse_cards(text))
        except ValueError as e:
            raise bad_request("BAD_CARD", str(e)) from None
    dice = []
    for text in request.prearranged_dice:
        if len(text) > MAX_DECK_TEXT:
            raise bad_request("FIELD_TOO_LONG", "a prearranged roll list is too long")
        try:
            dice.append(tuple(int(v) for v in text.replace(",", " ").split()))
        except ValueError:
            raise bad_request(
                "BAD_DICE", "write die rolls as numbers 1..6 separated by spaces"
            ) from None
    return decks, dice


def _waves(items: Sequence[pb.CreateMatchRequest]) -> list[list[int]]:
    """The batch's positions in waves: the n-th use of a request id in wave n (no id: 0)."""
    waves: list[list[int]] = []
    uses: dict[str, int] = {}
    for k, item in enumerate(items):
        n = uses.get(item.request_id, 0) if item.request_id else 0
        if item.request_id:
            uses[item.request_id] = n + 1
        if n == len(waves):
            waves.append([])
        waves[n].append(k)
    return waves
