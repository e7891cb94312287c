"""InspectReplay: the verifier's verdict and one step of a replay, for the web replay viewer.

The same code as `kozyr replay verify` and `kozyr replay show`, behind the API: a stored match is
built into its replay file from the log exactly as `kozyr replay export` builds it (so a viewer
sees what an exported file would say), and a file sent whole is read by the same parser. Who may
see what is the log's rule: a stored match once finished (any match for the arbiter); a file's
holder already holds all of it.
"""

from __future__ import annotations

from typing import Any

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api import convert
from kozyr.match.errors import bad_request
from kozyr.replay import archive, show
from kozyr.replay.verify import verify

MAX_REPLAY_FILE = 4 * 1024 * 1024 - 4096  # under the message limit, with room for the rest


async def replay_text(servicer: Any, request: pb.InspectReplayRequest, context: Any) -> str:
    """The replay file text to inspect: sent whole, or built from a readable stored log."""
    if request.WhichOneof("source") == "replay_file":
        if len(request.replay_file) > MAX_REPLAY_FILE:
            raise bad_request("FIELD_TOO_LONG",
                              f"a replay file may have at most {MAX_REPLAY_FILE} characters")
        return request.replay_file
    if not request.match_id:
        raise bad_request("EMPTY_SOURCE", "send a match_id or a replay_file")
    await servicer._replayable(request.match_id, context)  # the servicer decides who may read a log
    entries = await servicer.engine.log(request.match_id)
    raws = [archive.RawEntry(e.version, e.text, e.hash) for e in entries]
    return archive.dumps(archive.build(raws))


def inspect(text: str, request: pb.InspectReplayRequest) -> pb.InspectReplayResponse:
    """Verify the file and show the step asked for (INVALID_ARGUMENT for a bad step or seat)."""
    try:
        replay = archive.parse(text)
    except archive.Unreadable as e:
        return pb.InspectReplayResponse(status="UNREADABLE", report=f"UNREADABLE\nfile: {e}")
    report = verify(replay)
    try:
        frames = show.frames(replay)
    except ValueError as e:
        return pb.InspectReplayResponse(status=report.status, report=f"{report.text()}\n{e}",
                                        versions=len(replay.entries))
    total = len(frames)
    step = request.version or total
    if not 1 <= step <= total:
        raise bad_request("NO_SUCH_VERSION", f"version must be 1..{total}")
    frame = frames[step - 1]
    record = frame.record
    seat = request.as_seat if request.HasField("as_seat") else None
    if seat is not None and not 0 <= seat < record.players:
        raise bad_request("NOT_A_SEAT", f"there is no seat {seat} in this match")
    viewer: show.Viewer = seat if seat is not None else (
        show.SPECTATOR if request.spectator else show.FULL)
    full = seat is None and not request.spectator
    return pb.InspectReplayResponse(
        status=report.status, report=report.text(), versions=total, version=step,
        view=convert.match_view(record, seat),
        text=show.table_text(record, viewer),
        events=convert.events_for(record.game, step, frame.events, seat, arbiter=full))
