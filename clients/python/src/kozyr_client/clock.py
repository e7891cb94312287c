"""The clock of a match as a client shows it: each seat's time left and the deadline.

A MatchView carries each seat's time left as of `clock_since_ms` (when the current decision
began) and the deadline of that decision as a Unix timestamp in ms, by the server's clock
(docs/api.md). A client counts the seat to act down to the deadline.
"""

from __future__ import annotations

import time

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

KIND_TEXT = {
    pb.TIME_CONTROL_KIND_DECISION: "per decision",
    pb.TIME_CONTROL_KIND_FISCHER: "Fischer",
    pb.TIME_CONTROL_KIND_CORRESPONDENCE: "correspondence",
}


def timed(view: pb.MatchView) -> bool:
    """True when the match has a clock."""
    return view.time_control.kind in KIND_TEXT


def time_left(view: pb.MatchView, now_ms: int | None = None) -> list[int]:
    """Each seat's time left at `now_ms` (default: now), in ms; [] without a clock."""
    if not timed(view) or not view.remaining_ms:
        return []
    now = int(time.time() * 1000) if now_ms is None else now_ms
    left = list(view.remaining_ms)
    if (
        view.HasField("to_act")
        and view.HasField("deadline_ms")
        and view.status == pb.MATCH_STATUS_PLAYING
    ):
        left[view.to_act] = max(0, view.deadline_ms - now)
    return left


def seconds(ms: int) -> str:
    """A time left as people read it: 1:05:00, 4:07, 12.3s."""
    if ms >= 3_600_000:
        return f"{ms // 3_600_000}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}"
    if ms >= 60_000:
        return f"{ms // 60_000}:{ms // 1000 % 60:02d}"
    return f"{ms / 1000:.1f}s"


def clock_line(
    view: pb.MatchView, names: list[str] | None = None, now_ms: int | None = None
) -> str:
    """One line: the time control, each seat's time left (the seat to act marked), or ""."""
    left = time_left(view, now_ms)
    if not left:
        return ""
    labels = names or [p.name or f"seat {p.seat}" for p in view.players]
    to_act = view.to_act if view.HasField("to_act") else None
    parts = [f"{'>' if s == to_act else ''}{labels[s]} {seconds(ms)}" for s, ms in enumerate(left)]
    botted = [labels[p.seat] for p in view.players if p.botted]
    tail = f" · bot plays {', '.join(botted)}" if botted else ""
    return f"Clock ({KIND_TEXT[view.time_control.kind]}): " + " · ".join(parts) + tail
