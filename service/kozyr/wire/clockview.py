"""How views show a match's clock and how it ended (docs/rules.md R-7 … R-9): the time
control, the policy, each seat's time left, the deadline as a timestamp, the termination."""

from __future__ import annotations

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match import clock
from kozyr.match.record import MatchRecord

KINDS = {
    pb.TIME_CONTROL_KIND_UNSPECIFIED: "NONE",
    pb.TIME_CONTROL_KIND_NONE: "NONE",
    pb.TIME_CONTROL_KIND_DECISION: "DECISION",
    pb.TIME_CONTROL_KIND_FISCHER: "FISCHER",
    pb.TIME_CONTROL_KIND_CORRESPONDENCE: "CORRESPONDENCE",
}
KIND_OF = {
    "NONE": pb.TIME_CONTROL_KIND_NONE,
    "DECISION": pb.TIME_CONTROL_KIND_DECISION,
    "FISCHER": pb.TIME_CONTROL_KIND_FISCHER,
    "CORRESPONDENCE": pb.TIME_CONTROL_KIND_CORRESPONDENCE,
}
POLICIES = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: "FORFEIT",
    pb.TIMEOUT_POLICY_FORFEIT: "FORFEIT",
    pb.TIMEOUT_POLICY_AUTO_MOVE: "AUTO_MOVE",
    pb.TIMEOUT_POLICY_BOT: "BOT",
}
POLICY_OF = {
    "FORFEIT": pb.TIMEOUT_POLICY_FORFEIT,
    "AUTO_MOVE": pb.TIMEOUT_POLICY_AUTO_MOVE,
    "BOT": pb.TIMEOUT_POLICY_BOT,
}
TERMINATIONS = {
    "NORMAL": pb.TERMINATION_NORMAL,
    "GUARD": pb.TERMINATION_GUARD,
    "RESIGNED": pb.TERMINATION_RESIGNED,
    "TIMED_OUT": pb.TERMINATION_TIMED_OUT,
    "ABORTED": pb.TERMINATION_ABORTED,
    "ABANDONED": pb.TERMINATION_ABANDONED,
    "EXPIRED": pb.TERMINATION_EXPIRED,
}


def fill_clock(msg: pb.MatchView, record: MatchRecord) -> None:
    """The view's clock: time control, policy, the time left as of the start of the current
    decision, the deadline as a timestamp (all from the log, so a view never depends on when
    it was made)."""
    terms = record.terms
    control = msg.time_control  # set in place: every pushed decision fills one
    control.kind, control.limit_ms = KIND_OF[terms.clock], terms.limit_ms
    control.bank_ms, control.increment_ms = terms.bank_ms, terms.increment_ms
    if terms.clock == "CORRESPONDENCE":
        control.days = terms.limit_ms // clock.DAY_MS
    msg.timeout_policy = POLICY_OF[terms.policy]
    msg.clock_since_ms = record.clock.since_ms
    msg.remaining_ms.extend(clock.remaining(record, record.clock.since_ms))
    due = clock.deadline(record)
    if due is not None:
        msg.deadline_ms = due.at_ms
    for player in msg.players:
        if terms.bots:
            player.bot = terms.bots[player.seat]
        player.botted = player.seat in record.clock.botted


def outcome_fields(msg: pb.Outcome, termination: str, seats: tuple[int, ...]) -> None:
    """The outcome's termination and the seats it concerns."""
    msg.termination = TERMINATIONS[termination]
    msg.seats.extend(seats)


def game_clock_info(msg: pb.GameInfo) -> None:
    """What ListGames says of clocks: every time control and policy."""
    msg.time_controls.extend(KIND_OF.values())
    msg.timeout_policies.extend(POLICY_OF.values())
