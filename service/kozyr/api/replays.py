"""InspectReplay: the verifier's verdict and one step of a replay, for the web replay viewer.

The same code as `kozyr replay verify` and `kozyr replay show`, behind the API: a stored match is
built into its replay file from the log exactly as `kozyr replay export` builds it (so a viewer
sees what an exported file would say), and a file sent whole is read by the same parser. Who may
see what is the log's rule: a stored match once finished (any match for the arbiter); a file's
holder already holds all of it.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from typing import Any

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match.errors import bad_request
from kozyr.replay import archive, steps
from kozyr.replay.verify import verify
from kozyr.wire import convert

MAX_REPLAY_FILE = 4 * 1024 * 1024 - 4096  # under the message limit, with room for the rest


async def replay_text(servicer: Any, request: pb.InspectReplayRequest, context: Any) -> str:
    """The replay file text to inspect: sent whole, or built from a readable stored log."""
    if request.WhichOneof("source") == "replay_file":
        if len(request.replay_file) > MAX_REPLAY_FILE:
            raise bad_request(
                "FIELD_TOO_LONG", f"a replay file may have at most {MAX_REPLAY_FILE} characters"
            )
        return request.replay_file
    if not request.match_id:
        raise bad_request("EMPTY_SOURCE", "send a match_id or a replay_file")
    await servicer._replayable(request.match_id, context)  # the servicer decides who may read a log
    entries = await servicer.engine.log(request.match_id)
    raws = [archive.RawEntry(e.version, e.text, e.hash) for e in entries]
    return archive.dumps(archive.build(raws))


@dataclass(frozen=True, slots=True)
class _Analysed:
    """A replay read and verified once: its verdict and its steps (or why they cannot show)."""

    status: str
    report: str
    versions: int
    frames: tuple[steps.Frame, ...] = ()


@functools.lru_cache(maxsize=8)
def _analyse(text: str) -> _Analysed:
    # Cached by the text: a viewer stepping through one replay asks for every step of it, and
    # verifying a long file costs far more than showing one step.
    try:
        replay = archive.parse(text)
    except archive.Unreadable as e:
        return _Analysed("UNREADABLE", f"UNREADABLE\nfile: {e}", 0)
    report = verify(replay)
    try:
        frames = steps.frames(replay)
    except ValueError as e:
        return _Analysed(report.status, f"{report.text()}\n{e}", len(replay.entries))
    return _Analysed(report.status, report.text(), len(frames), tuple(frames))


async def inspect_async(text: str, request: pb.InspectReplayRequest) -> pb.InspectReplayResponse:
    """`inspect` in a worker thread: a long file must not hold up the event loop's matches."""
    return await asyncio.to_thread(inspect, text, request)


def inspect(text: str, request: pb.InspectReplayRequest) -> pb.InspectReplayResponse:
    """Verify the file and show the step asked for (INVALID_ARGUMENT for a bad step or seat)."""
    analysed = _analyse(text)
    frames = analysed.frames
    if not frames:
        return pb.InspectReplayResponse(
            status=analysed.status, report=analysed.report, versions=analysed.versions
        )
    report = analysed
    total = len(frames)
    step = request.version or total
    if not 1 <= step <= total:
        raise bad_request("NO_SUCH_VERSION", f"version must be 1..{total}")
    frame = frames[step - 1]
    record = frame.record
    seat = request.as_seat if request.HasField("as_seat") else None
    if seat is not None and not 0 <= seat < record.players:
        raise bad_request("NOT_A_SEAT", f"there is no seat {seat} in this match")
    viewer: steps.Viewer = (
        seat if seat is not None else (steps.SPECTATOR if request.spectator else steps.FULL)
    )
    full = seat is None and not request.spectator
    return pb.InspectReplayResponse(
        status=report.status,
        report=report.report,
        versions=total,
        version=step,
        view=convert.match_view(record, seat),
        text=steps.table_text(record, viewer),
        events=convert.events_for(record.game, step, frame.events, seat, arbiter=full),
    )
