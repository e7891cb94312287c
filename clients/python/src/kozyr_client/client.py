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

This module holds the connection and the server-wide calls (games, matches made and joined, the
tenant's feed, the transparency log); a match's own calls are its SeatClient's (seat.py), its
watch is watch.py's, and what creating a match sends and answers is matches.py's.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, TypeVar

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.core.receipts import Receipt
from kozyr_client.errors import KozyrError
from kozyr_client.feed import Feed, open_feed
from kozyr_client.matches import Created, Joined, created_of, joined_of, match_request, refused
from kozyr_client.seat import SeatClient
from kozyr_client.transport import CHANNEL_OPTIONS, Backoff, bearer

Resp = TypeVar("Resp")

# How long a match created by create_match waits for its named seats' contributions (ms): the
# client gives them at once, so the window only matters to a client that dies in between.
CONTRIBUTION_WINDOW_MS = 30_000


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

    # ------------------------------------------------------------------ matches made and joined

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
        return joined_of(self.call(self.stub.JoinMatch, request, retry=False))

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

    # ------------------------------------------------------------------ the tenant's feed

    def feed(self, from_cursor: str = "$", types: Sequence[str] = ()) -> Feed:
        """The tenant's lifecycle events after `from_cursor` ("$": from now; "" from the start),
        only `types` if given (match.ended, …). Returns once the server has said where the feed
        starts, so nothing that happens after this call is missed."""
        return open_feed(self.stub, from_cursor, types)

    # ------------------------------------------------------------------ the transparency log

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
