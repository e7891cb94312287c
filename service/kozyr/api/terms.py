"""CreateMatch's terms beyond the game's options: the seats' bots, the time control, the
timeout policy, the abandonment grace and the expiry (docs/rules.md R-7 … R-9)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.actors.seatbots import check_bot
from kozyr.engine import early_endings
from kozyr.engine.matches import Engine
from kozyr.match import clock
from kozyr.match.errors import bad_request
from kozyr.match.lifecycle import Step
from kozyr.match.limits import MAX_NAME
from kozyr.match.log import MatchTerms
from kozyr.wire.clockview import KINDS, POLICIES

MAX_BOT_SPEC = 64


@dataclass(frozen=True, slots=True)
class Defaults:
    """The server's defaults for what a request leaves unset (config.py, serve flags)."""

    grace_ms: int = 300_000
    expire_ms: int = 86_400_000
    policy_dir: str = ""  # where server bots' policies are read from (seatbots.served_spec)
    contribute_ms: int = 0  # the contribution window (docs/fairness.md §1)


def seat_bots(request: pb.CreateMatchRequest, policy_dir: str = "") -> tuple[str, ...]:
    """Each seat's bot spec ("" for a person), checked; () when no seat names a bot."""
    bots = []
    for seat in request.seats:
        if len(seat.bot) > MAX_BOT_SPEC:
            raise bad_request("FIELD_TOO_LONG", f"a bot spec has at most {MAX_BOT_SPEC} characters")
        bots.append(check_bot(seat.bot.strip(), policy_dir) if seat.bot.strip() else "")
    return tuple(bots) if any(bots) else ()


def seat_names(request: pb.CreateMatchRequest, bots: tuple[str, ...]) -> list[str]:
    """The seats' names: a bot's seat left unnamed is called after its bot."""
    names = []
    for i, seat in enumerate(request.seats):
        name = seat.name
        if bots and bots[i] and not name:
            name = f"{bots[i]} (bot)"[:MAX_NAME]
        names.append(name)
    return names


def terms_of(
    request: pb.CreateMatchRequest, defaults: Defaults = Defaults()
) -> tuple[MatchTerms, list[str]]:
    """The match's terms and the seats' names from a CreateMatch request."""
    bots = seat_bots(request, defaults.policy_dir)
    tc = request.time_control
    kind = KINDS.get(tc.kind)
    policy = POLICIES.get(request.timeout_policy)
    if kind is None:
        raise bad_request("BAD_TIME_CONTROL", "unknown time control kind")
    if policy is None:
        raise bad_request("BAD_TIMEOUT_POLICY", "unknown timeout policy")
    if len(request.policy_bot) > MAX_BOT_SPEC:
        raise bad_request("FIELD_TOO_LONG", f"a bot spec has at most {MAX_BOT_SPEC} characters")
    policy_bot = (
        check_bot(request.policy_bot.strip(), defaults.policy_dir)
        if request.policy_bot.strip()
        else ""
    )
    grace = request.abandon_grace_ms if request.HasField("abandon_grace_ms") else defaults.grace_ms
    expire = request.expire_ms if request.HasField("expire_ms") else defaults.expire_ms
    window = (
        request.contribution_window_ms
        if request.HasField("contribution_window_ms")
        else defaults.contribute_ms
    )
    terms = clock.make_terms(
        bots=bots,
        clock=kind,
        limit_ms=tc.limit_ms,
        bank_ms=tc.bank_ms,
        increment_ms=tc.increment_ms,
        days=tc.days,
        policy=policy,
        policy_bot=policy_bot,
        grace_ms=grace,
        expire_ms=expire,
        spectator_delay_ms=request.spectator_delay_ms,
        contribute_ms=window,
    )
    return terms, seat_names(request, bots)


async def end_match(
    engine: Engine,
    request: pb.EndMatchRequest,
    seat: int,
    watched: Callable[[str, int], Awaitable[bool]],
) -> Step:
    """EndMatch: resign, abort or claim the win for `seat` (R-7)."""
    if request.reason == pb.END_REASON_RESIGN:
        return await early_endings.resign(engine, request.match_id, seat, request.command_id)
    if request.reason == pb.END_REASON_ABORT:
        return await early_endings.abort(engine, request.match_id, seat, request.command_id)
    if request.reason == pb.END_REASON_CLAIM_VICTORY:
        return await early_endings.claim(
            engine, request.match_id, seat, request.command_id, watched
        )
    raise bad_request("BAD_END_REASON", "say why: RESIGN, ABORT or CLAIM_VICTORY", request.match_id)
