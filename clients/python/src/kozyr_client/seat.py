"""One viewer of one match: a seat acting with its token, or a spectator looking.

`KozyrClient.seat()` and `.spectate()` hand out a SeatClient; it reads the match (view, legal
moves, log, replay), acts in it (move, contribute, end, resign: moves and endings carry a command
id so a retry after UNAVAILABLE acts at most once), watches it, plays it to the end, and keeps
every receipt it is handed.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr_client.errors import KozyrError
from kozyr_client.receipts import Receipts, receipt_of
from kozyr_client.session import PlaySession
from kozyr_client.transport import Backoff
from kozyr_client.watch import Watch

if TYPE_CHECKING:
    from kozyr_client.client import KozyrClient


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

    # ------------------------------------------------------------------ reading

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

    # ------------------------------------------------------------------ acting

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

    # ------------------------------------------------------------------ following and playing

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
