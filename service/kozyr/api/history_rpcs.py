"""The history RPCs: a match's full log, its replay at a version, the inspection of a replay,
and the keys receipts are signed with. A log is open to the arbiter, and to everyone once the
match is finished."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api import replays
from kozyr.api.rpc_calls import Context, rpc
from kozyr.engine import Engine, Viewer
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.match.record import MatchRecord
from kozyr.replay import steps as replay_steps
from kozyr.wire import convert
from kozyr.wire import receipt_messages as wire_receipts


class HistoryRpcs:
    """KozyrService's history RPCs (a part of KozyrService: api/servicer.py)."""

    engine: Engine

    if TYPE_CHECKING:

        async def _viewer(self, match_id: str, context: Context) -> Viewer: ...

    @rpc
    async def GetMatchLog(
        self, request: pb.GetMatchLogRequest, context: Context
    ) -> pb.GetMatchLogResponse:
        """The full log: for the arbiter, or for anyone once the match is finished."""
        record = await self._replayable(request.match_id, context)
        entries = await self.engine.log(request.match_id)
        return pb.GetMatchLogResponse(
            game=record.game.NAME,
            entries=wire_receipts.log_entries(record, entries),
        )

    @rpc
    async def GetSigningKeys(
        self, request: pb.GetSigningKeysRequest, context: Context
    ) -> pb.GetSigningKeysResponse:
        """The public keys receipts are signed with."""
        return wire_receipts.signing_keys(self.engine.signer)

    @rpc
    async def ReplayMatch(
        self, request: pb.ReplayMatchRequest, context: Context
    ) -> pb.ReplayMatchResponse:
        """The view at a version, for the arbiter or for anyone once the match is finished."""
        current = await self._replayable(request.match_id, context)
        if not 1 <= request.version <= current.version:
            raise bad_request("NO_SUCH_VERSION", f"version must be 1..{current.version}")
        record = await self.engine.record_at(request.match_id, request.version)
        assert record is not None
        seat = request.as_seat if request.HasField("as_seat") else None
        if seat is not None and not 0 <= seat < record.players:
            raise bad_request("NOT_A_SEAT", f"there is no seat {seat} in this match")
        view = convert.match_view(record, seat)
        # The same text `kozyr replay show` prints for that step and viewer.
        shown = (
            seat
            if seat is not None
            else (replay_steps.SPECTATOR if request.spectator else replay_steps.FULL)
        )
        return pb.ReplayMatchResponse(view=view, text=replay_steps.table_text(record, shown))

    @rpc
    async def InspectReplay(
        self, request: pb.InspectReplayRequest, context: Context
    ) -> pb.InspectReplayResponse:
        """The verdict and one step of a stored match's replay or of a replay file (web)."""
        return await replays.inspect_async(
            await replays.replay_text(self, request, context), request
        )

    async def _replayable(self, match_id: str, context: Context) -> MatchRecord:
        """The match's record if the caller may read its history: the arbiter, or all once over."""
        viewer = await self._viewer(match_id, context)
        record = await self.engine.record(match_id)
        if not (viewer.arbiter or record.finished):
            raise MatchError(
                Kind.FORBIDDEN,
                "MATCH_NOT_FINISHED",
                "the log is open to everyone once the match is finished; before "
                "that only the arbiter may read it",
                record.match_id,
                viewer.seat,
            )
        return record
