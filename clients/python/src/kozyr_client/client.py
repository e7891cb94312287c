"""A synchronous, typed client of the Kozyr service over one gRPC channel.

    with KozyrClient("127.0.0.1:50051") as client:
        created = client.create_match("dix", ["ann", "bob"])
        ann = client.seat(created.match_id, created.tokens[0])
        for update in ann.watch():
            ...

Retries: a call that fails with UNAVAILABLE (server restarting, Redis briefly away) is retried
with exponential backoff when repeating it cannot do anything twice: reads, CreateMatch (it
always sends a request id, a fresh one unless you give yours) and SubmitMove (it always sends a
command id and repeats the SAME id, so the server answers a repeat with the recorded result
instead of moving again). JoinMatch is never retried: a repeat could claim a second seat.

Watching: `SeatClient.watch()` reconnects after a dropped stream and resumes after the last
version it delivered, so its updates have consecutive versions with no gap and no duplicate.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, TypeVar

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.core.receipts import Receipt
from kozyr_client.errors import KozyrError
from kozyr_client.receipts import Receipts, receipt_of

Resp = TypeVar("Resp")

# Transport failures a watch recovers from by reconnecting: the server went away (UNAVAILABLE),
# the stream was cut (CANCELLED that we did not ask for, or an RST_STREAM that grpc reports as
# INTERNAL/UNKNOWN). Errors carrying the service's ErrorInfo are answers, not drops — except
# UNAVAILABLE, which the service sends while its event store is unreachable.
_DROPPED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    }
)

# grpc waits 1 s and more before reconnecting a channel whose connection failed; a player waiting
# on a restarted server wants it back within our own retry schedule.
CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


@dataclass(frozen=True, slots=True)
class Created:
    """A new match: its id, the named seats' tokens by seat, the version after creation."""

    match_id: str
    tokens: dict[int, str]
    version: int = 0
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """A claimed seat: the seat, its token, the version after joining, whether play began."""

    seat: int
    token: str
    version: int = 0
    started: bool = False
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Backoff:
    """Retry schedule: `attempts` retries after the first try, sleeping first, first*2, … ≤ cap."""

    attempts: int = 6
    first: float = 0.1
    cap: float = 2.0

    def delays(self) -> Iterator[float]:
        """The sleeps between tries."""
        delay = self.first
        for _ in range(self.attempts):
            yield delay
            delay = min(delay * 2, self.cap)


def match_request(
    game: str,
    seats: Sequence[str],
    options: Mapping[str, str] | None = None,
    request_id: str | None = None,
    first_dealer: int | None = None,
    prearranged_decks: Sequence[str] | None = None,
    prearranged_dice: Sequence[str] | None = None,
    seed_contributions: Sequence[bytes] | None = None,
    time_control: pb.TimeControl | None = None,
    timeout_policy: pb.TimeoutPolicy.ValueType = pb.TIMEOUT_POLICY_UNSPECIFIED,
    policy_bot: str = "",
    bots: Sequence[str] | None = None,
    contribution_window_ms: int | None = None,
) -> pb.CreateMatchRequest:
    """A CreateMatch request (see KozyrClient.create_match), always with a request id."""
    request = pb.CreateMatchRequest(
        game=game,
        options=dict(options or {}),
        seats=[
            pb.SeatRequest(name=name, seed_contribution=contribution, bot=bot)
            for name, contribution, bot in zip(
                seats,
                seed_contributions or [b""] * len(seats),
                bots or [""] * len(seats),
                strict=True,
            )
        ],
        timeout_policy=timeout_policy,
        policy_bot=policy_bot,
        # Always an id, so a retry after UNAVAILABLE returns the same match, not a second one.
        request_id=request_id or uuid.uuid4().hex,
        prearranged_decks=list(prearranged_decks or []),
        prearranged_dice=list(prearranged_dice or []),
    )
    if first_dealer is not None:
        request.first_dealer = first_dealer
    if contribution_window_ms is not None:
        request.contribution_window_ms = contribution_window_ms
    if time_control is not None:
        request.time_control.CopyFrom(time_control)
    return request


def created_of(response: pb.CreateMatchResponse) -> Created:
    """The Created of a CreateMatch answer."""
    return Created(
        response.match_id,
        {t.seat: t.token for t in response.tokens},
        response.version,
        response.seed_commitment,
        receipt_of(response),
    )


def refused(refusal: pb.Refusal) -> KozyrError:
    """The KozyrError of one refused item of a batch."""
    return KozyrError(
        _CODES.get(refusal.code, grpc.StatusCode.UNKNOWN),
        refusal.reason,
        refusal.message,
        dict(refusal.metadata),
    )


_CODES = {c.value[0]: c for c in grpc.StatusCode}
# How long a match created by create_match waits for its named seats' contributions (ms): the
# client gives them at once, so the window only matters to a client that dies in between.
CONTRIBUTION_WINDOW_MS = 30_000
FEED_CURSOR = "kozyr-feed-cursor"  # WatchEvents' initial metadata: the cursor it starts after


class Feed:
    """An open WatchEvents stream: iterate its TenantEvents; `start` is where it began."""

    def __init__(self, call: Any, start: str) -> None:
        self._call = call
        self.start = start

    def __iter__(self) -> Iterator[pb.TenantEvent]:
        try:
            yield from self._call
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                raise KozyrError.from_rpc_error(e) from None

    def close(self) -> None:
        """End the stream."""
        self._call.cancel()

    def __enter__(self) -> Feed:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def bearer(token: str | None) -> tuple[tuple[str, str], ...]:
    """Call metadata for a token (none for a spectator)."""
    return () if token is None else (("authorization", f"Bearer {token}"),)


class KozyrClient:
    """A connection to one Kozyr server; a context manager that closes its channel."""

    def __init__(
        self,
        address: str,
        *,
        timeout: float | None = 30.0,
        backoff: Backoff | None = None,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.address = address
        self.timeout = timeout
        self.backoff = backoff or Backoff()
        self.channel = grpc.insecure_channel(address, options=[*CHANNEL_OPTIONS, *options])
        self.stub = kozyr_pb2_grpc.KozyrServiceStub(self.channel)
        # The latest signed tree head of the server's transparency log this client was shown
        # (`tree_head()` fetches and keeps it): a player keeps it with the last receipt.
        self.kept_tree_head: pb.TreeHead | None = None

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> KozyrClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel (open watches end)."""
        self.channel.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel is connected; KozyrError(UNAVAILABLE) after `timeout`."""
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise KozyrError(
                grpc.StatusCode.UNAVAILABLE,
                "UNAVAILABLE",
                f"no Kozyr server at {self.address} after {timeout} s",
                transport=True,
            ) from None

    # ------------------------------------------------------------------ calls

    def call(
        self,
        method: Callable[..., Resp],
        request: Any,
        token: str | None = None,
        *,
        retry: bool = True,
    ) -> Resp:
        """One unary call with the token; UNAVAILABLE retried when `retry`; KozyrError on
        failure."""
        delays = self.backoff.delays() if retry else iter(())
        while True:
            try:
                return method(request, metadata=bearer(token), timeout=self.timeout)
            except grpc.RpcError as e:
                error = KozyrError.from_rpc_error(e)
                delay = next(delays, None) if error.code == grpc.StatusCode.UNAVAILABLE else None
                if delay is None:
                    raise error from None
                time.sleep(delay)

    def list_games(self) -> list[pb.GameInfo]:
        """Every game the server runs, with its player counts and options."""
        return list(self.call(self.stub.ListGames, pb.ListGamesRequest()).games)

    def server_process(self) -> str:
        """The tag of the server process this connection reached (the same for its every
        call): `kozyr serve --workers N` has N processes behind one address."""
        return self.call(self.stub.ListGames, pb.ListGamesRequest()).process

    def create_match(
        self,
        game: str,
        seats: list[str],
        options: Mapping[str, str] | None = None,
        *,
        contribute: bool = True,
        **terms: Any,
    ) -> Created:
        """Create a match; one name per seat ("" leaves a seat open for join()). The keywords
        are match_request's: `bots` names a server-side bot per seat ("" for a person);
        `time_control` and `timeout_policy` set the clock (docs/rules.md R-8, R-9).

        With `contribute` (the default), a match dealt from its seed waits for its named
        seats' contributions (a contribution window, CONTRIBUTION_WINDOW_MS unless
        `contribution_window_ms` says), and this client gives each of them 32 fresh random
        bytes once the commitment is public (docs/fairness.md §1): the deal is one the server
        could not choose. The version returned is the one after those contributions."""
        prearranged = bool(terms.get("prearranged_decks") or terms.get("prearranged_dice"))
        if contribute and not prearranged:
            terms.setdefault("contribution_window_ms", CONTRIBUTION_WINDOW_MS)
        request = match_request(game, seats, options, **terms)
        created = created_of(self.call(self.stub.CreateMatch, request))
        if not (contribute and request.contribution_window_ms):
            return created
        return replace(created, version=self.contribute_seats(created))

    def contribute_seats(self, created: Created) -> int:
        """Give 32 fresh random bytes for every seat of a just-created match this client got a
        token for (a match with a contribution window, docs/fairness.md §1); the match's
        version after them. A seat that contributed already (a retried call) is passed over."""
        version = created.version
        for token in created.tokens.values():
            seat = self.seat(created.match_id, token)
            try:
                version = seat.contribute().version
            except KozyrError as e:  # a retry's answer: the first call contributed already
                if e.reason != "NOT_AWAITING_CONTRIBUTION":
                    raise
                version = seat.view().version
        return version

    def create_matches(
        self, requests: Sequence[pb.CreateMatchRequest]
    ) -> list[Created | KozyrError]:
        """Create up to 100 matches in one call (build each with match_request): per request,
        in order, the match created or the error that refused it alone. Retried after
        UNAVAILABLE like create_match: each request's id answers the same match again."""
        response = self.call(self.stub.CreateMatches, pb.CreateMatchesRequest(matches=requests))
        return [
            created_of(r.created) if r.HasField("created") else refused(r.refused)
            for r in response.results
        ]

    def feed(self, from_cursor: str = "$", types: Sequence[str] = ()) -> Feed:
        """The tenant's lifecycle events after `from_cursor` ("$": from now; "" from the start),
        only `types` if given (match.ended, …). Returns once the server has said where the feed
        starts, so nothing that happens after this call is missed."""
        call = self.stub.WatchEvents(
            pb.WatchEventsRequest(from_cursor=from_cursor, types=list(types))
        )
        try:
            start = dict(call.initial_metadata()).get(FEED_CURSOR, "")
        except grpc.RpcError as e:
            raise KozyrError.from_rpc_error(e) from None
        if not start:  # the call failed before its headers: its status says why
            try:
                next(iter(call))
            except grpc.RpcError as e:
                raise KozyrError.from_rpc_error(e) from None
        return Feed(call, str(start))

    def join(
        self,
        match_id: str,
        name: str,
        seat: int | None = None,
        seed_contribution: bytes | None = None,
    ) -> Joined:
        """Claim an open seat (the first open one unless `seat`); never retried. The seat's
        seed contribution is 32 fresh random bytes unless given (b"" for none): the match's
        commitment is public since its entry 1, so a contribution chosen now is one the server
        could not know when it committed (docs/fairness.md §1)."""
        if seed_contribution is None:
            seed_contribution = os.urandom(32)
        request = pb.JoinMatchRequest(
            match_id=match_id, name=name, seed_contribution=seed_contribution
        )
        if seat is not None:
            request.seat = seat
        response = self.call(self.stub.JoinMatch, request, retry=False)
        return Joined(
            response.seat,
            response.token,
            response.version,
            response.started,
            response.seed_commitment,
            receipt_of(response),
        )

    def signing_keys(self) -> list[pb.SigningKey]:
        """The public keys the server signs receipts with (the current one first)."""
        return list(self.call(self.stub.GetSigningKeys, pb.GetSigningKeysRequest()).keys)

    def tree_head(self) -> pb.TreeHead:
        """The transparency log's signed tree head now (GetTreeHead), kept in
        `kept_tree_head` unless the one kept already is larger (docs/fairness.md §9)."""
        head = self.call(self.stub.GetTreeHead, pb.GetTreeHeadRequest()).tree_head
        if self.kept_tree_head is None or head.size >= self.kept_tree_head.size:
            self.kept_tree_head = head
        return head

    def inclusion_proof(self, match_id: str, tree_size: int = 0) -> pb.GetInclusionProofResponse:
        """The match's leaves in the transparency log with their audit paths in the tree of
        `tree_size` leaves (0: the current one)."""
        request = pb.GetInclusionProofRequest(match_id=match_id, tree_size=tree_size)
        return self.call(self.stub.GetInclusionProof, request)

    def consistency_proof(self, first: int, second: int = 0) -> pb.GetConsistencyProofResponse:
        """The proof that the log's tree of `first` leaves is a prefix of the tree of `second`
        (0: the current one)."""
        request = pb.GetConsistencyProofRequest(first_size=first, second_size=second)
        return self.call(self.stub.GetConsistencyProof, request)

    def seat(
        self, match_id: str, token: str, receipts: Sequence[Receipt | None] = ()
    ) -> SeatClient:
        """Act in a match with a seat token (or look with the arbiter token); `receipts` are
        ones the seat got already (its Created or Joined receipt)."""
        seat = SeatClient(self, match_id, token)
        for receipt in receipts:
            seat.receipts.keep(receipt)
        return seat

    def spectate(self, match_id: str) -> SeatClient:
        """Look at a match as a spectator (no token: the public table only)."""
        return SeatClient(self, match_id, None)


class SeatClient:
    """One viewer of one match: a seat (with its token) or a spectator (token None)."""

    def __init__(self, client: KozyrClient, match_id: str, token: str | None) -> None:
        self.client = client
        self.match_id = match_id
        self.token = token
        # Every receipt this viewer was handed (moves, contributions, early endings, watched
        # updates): its evidence of what the server's log held (docs/fairness.md §6); the last
        # one (receipts.last) vouches for the whole log up to it; save them with
        # receipts.save(path).
        self.receipts = Receipts(match_id)

    def __repr__(self) -> str:
        who = "spectator" if self.token is None else "seat"
        return f"SeatClient({self.match_id!r}, {who})"

    def view(self) -> pb.MatchView:
        """The match as this viewer sees it now."""
        return self.client.call(
            self.client.stub.GetMatch, pb.GetMatchRequest(match_id=self.match_id), self.token
        ).view

    def legal(self) -> pb.ListLegalMovesResponse:
        """The legal moves with the version they are legal at."""
        return self.client.call(
            self.client.stub.ListLegalMoves,
            pb.ListLegalMovesRequest(match_id=self.match_id),
            self.token,
        )

    def legal_moves(self) -> list[pb.Move]:
        """This seat's legal moves now (empty when it is not its turn)."""
        return list(self.legal().moves)

    def move(
        self, move: pb.Move, command_id: str | None = None, expected_version: int | None = None
    ) -> pb.SubmitMoveResponse:
        """Play a move. Retried on UNAVAILABLE with the same command id, so at most once."""
        request = pb.SubmitMoveRequest(
            match_id=self.match_id, move=move, command_id=command_id or uuid.uuid4().hex
        )
        if expected_version is not None:
            request.expected_version = expected_version
        response = self.client.call(self.client.stub.SubmitMove, request, self.token)
        self.receipts.keep(receipt_of(response))
        return response

    def end(
        self, reason: pb.EndReason.ValueType, command_id: str | None = None
    ) -> pb.EndMatchResponse:
        """End the match early for this seat: pb.END_REASON_RESIGN, _ABORT or _CLAIM_VICTORY
        (docs/rules.md R-7). Retried on UNAVAILABLE with the same command id. The answer's
        receipt is kept in `receipts` like a move's: it is the receipt of the match's final
        entry (the one that reveals the seed), so `receipts.last` vouches for the whole log."""
        request = pb.EndMatchRequest(
            match_id=self.match_id, reason=reason, command_id=command_id or uuid.uuid4().hex
        )
        response: pb.EndMatchResponse = self.client.call(
            self.client.stub.EndMatch, request, self.token
        )
        self.receipts.keep(receipt_of(response))
        return response

    def contribute(self, contribution: bytes | None = None) -> pb.ContributeResponse:
        """Give this named seat's seed contribution, after the commitment (a match with a
        contribution window, docs/fairness.md §1): 32 fresh random bytes unless given
        (b"" for none). Never retried blindly: a second try is refused
        NOT_AWAITING_CONTRIBUTION once the first landed."""
        if contribution is None:
            contribution = os.urandom(32)
        request = pb.ContributeRequest(match_id=self.match_id, seed_contribution=contribution)
        response: pb.ContributeResponse = self.client.call(
            self.client.stub.Contribute, request, self.token, retry=False
        )
        self.receipts.keep(receipt_of(response))
        return response

    def resign(self, command_id: str | None = None) -> pb.EndMatchResponse:
        """Give the match up (the game's forfeit, R-7): `end(pb.END_REASON_RESIGN)`, its
        receipt (the final entry's) kept in `receipts`."""
        return self.end(pb.END_REASON_RESIGN, command_id)

    def watch(self, from_version: int = 0, backoff: Backoff | None = None) -> Watch:
        """Every update after `from_version` until the match ends, surviving dropped streams."""
        return Watch(self, from_version, backoff or self.client.backoff)

    def play(
        self, choose: Callable[[pb.MatchView, list[pb.Move]], pb.Move], watch: Watch | None = None
    ) -> pb.MatchView:
        """Play this seat to the end: at each of its turns, move `choose(view, legal moves)`.
        Returns the final view. By default over one PlaySession stream (the server pushes each
        decision with its legal moves and takes the move on the same stream: one message each
        way a move, resumed after drops); with `watch`, by following that Watch (which the
        caller may close) and moving by unary calls."""
        now = self.view()
        if not now.HasField("seat") or self.token is None:
            raise ValueError("play() needs a seat token")
        if watch is not None:
            return self._play_watching(now, choose, watch)
        # session.py builds on this module, so it is imported where it is used.
        from kozyr_client.session import PlaySession

        def decide(decision: pb.Decision) -> pb.Move:
            self.receipts.keep(receipt_of(decision))
            return choose(decision.view, list(decision.moves))

        session = PlaySession(self.client, decide)
        session.add(self.match_id, now.seat, self.token, now.version)
        finished = session.run()[(self.match_id, now.seat)]
        self.receipts.keep(receipt_of(finished))
        return finished.view

    def _play_watching(
        self,
        now: pb.MatchView,
        choose: Callable[[pb.MatchView, list[pb.Move]], pb.Move],
        updates: Watch,
    ) -> pb.MatchView:
        seat, last = now.seat, now
        with updates:
            for update in updates:
                last = update.view
                mine = last.HasField("to_act") and last.to_act == seat
                if last.status != pb.MATCH_STATUS_PLAYING or not mine:
                    continue
                legal = self.legal()
                if legal.version != update.version or not legal.moves:
                    continue  # the table moved on: a later update decides
                try:
                    self.move(choose(last, list(legal.moves)), expected_version=legal.version)
                except KozyrError as e:
                    # Another client of this seat moved in between: the next update decides.
                    if e.code != grpc.StatusCode.ABORTED and e.reason != "NOT_YOUR_TURN":
                        raise
        return last

    def log(self) -> pb.GetMatchLogResponse:
        """The full log (a finished match, or any match with the arbiter token)."""
        return self.client.call(
            self.client.stub.GetMatchLog, pb.GetMatchLogRequest(match_id=self.match_id), self.token
        )

    def replay(
        self, version: int, as_seat: int | None = None, spectator: bool = False
    ) -> pb.ReplayMatchResponse:
        """The view at `version` (a finished match, or any match with the arbiter token)."""
        request = pb.ReplayMatchRequest(
            match_id=self.match_id, version=version, spectator=spectator
        )
        if as_seat is not None:
            request.as_seat = as_seat
        return self.client.call(self.client.stub.ReplayMatch, request, self.token)


class Watch(Iterator[pb.MatchUpdate]):
    """An iterator of MatchUpdates that reconnects after a drop and resumes where it was.

    `version` is the last version delivered; `reconnects` counts the resumed streams. Close it
    (or use it as a context manager) to stop early; `close()` may be called from another thread.
    """

    def __init__(self, seat: SeatClient, from_version: int, backoff: Backoff) -> None:
        self.seat = seat
        self.version = from_version
        self.backoff = backoff
        self.reconnects = 0
        self.finished = False
        self._closed = False
        self._call: Any = None
        self._updates = self._run()

    def __iter__(self) -> Watch:
        return self

    def __next__(self) -> pb.MatchUpdate:
        return next(self._updates)

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._closed

    def close(self) -> None:
        """Stop watching; the iteration ends."""
        self._closed = True
        call = self._call
        if call is not None:
            call.cancel()

    def _connect(self) -> Any:
        client = self.seat.client
        return client.stub.WatchMatch(
            pb.WatchMatchRequest(match_id=self.seat.match_id, from_version=self.version),
            metadata=bearer(self.seat.token),
        )

    def _run(self) -> Iterator[pb.MatchUpdate]:
        delays = self.backoff.delays()
        while not self._closed:
            call = self._call = self._connect()
            progressed = False
            try:
                for update in call:
                    if update.version <= self.version:
                        continue  # already delivered before the reconnect: never a duplicate
                    if update.version != self.version + 1:
                        break  # a gap would be a server bug; resume after what we have
                    self.version = update.version
                    self.seat.receipts.keep(receipt_of(update))
                    progressed = True
                    delays = self.backoff.delays()  # progress earns a fresh retry budget
                    if update.view.status == pb.MATCH_STATUS_FINISHED:
                        self.finished = True
                    yield update
                    if self.finished:
                        return
            except grpc.RpcError as e:
                if self._closed:
                    return
                error = KozyrError.from_rpc_error(e)
                if error.code not in _DROPPED or not (
                    error.transport or error.code == grpc.StatusCode.UNAVAILABLE
                ):
                    raise error from None
            else:
                # The stream ended without the final update: the server is shutting down, or the
                # match was already over at our version. Ask which.
                if not progressed and self._over():
                    self.finished = True
                    return
            finally:
                call.cancel()
            if self._closed:
                return
            delay = next(delays, None)
            if delay is None:
                raise KozyrError(
                    grpc.StatusCode.UNAVAILABLE,
                    "WATCH_LOST",
                    f"the watch of {self.seat.match_id} could not be resumed "
                    f"after version {self.version}",
                    transport=True,
                )
            time.sleep(delay)
            self.reconnects += 1

    def _over(self) -> bool:
        try:
            view = self.seat.view()
        except KozyrError as e:
            if e.code == grpc.StatusCode.UNAVAILABLE:
                return False
            raise
        return view.status == pb.MATCH_STATUS_FINISHED and view.version <= self.version
