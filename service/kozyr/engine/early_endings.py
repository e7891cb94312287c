"""Early endings and timeouts on the engine: each is one entry appended through the engine's
write path (engine/writing.py), the same expected-version append as a move, so whatever lands
first wins and nothing is applied twice (docs/rules.md R-7 … R-9; the pure checks are
match/endings.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kozyr.engine import writing
from kozyr.engine.matches import Engine
from kozyr.match import clock, endings, limits
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import command_key
from kozyr.match.record import MatchRecord

ChooseBot = Callable[[MatchRecord, int, str], Awaitable[Any]]


async def append_with(
    engine: Engine, match_id: str, key: str, build: Callable[[MatchRecord, int], Awaitable[Step]]
) -> Step:
    """Append the entry `build(record, now_ms)` makes (or refuses with MatchError) on the
    record caught up from the store, through the engine's write path (engine/writing.py): a
    move that lands first wins, and a repeated `key` gets the recorded answer."""

    async def steps(record: MatchRecord, now: int) -> list[Step]:
        return [await build(record, now)]

    return (await writing.write(engine, match_id, key, steps, fresh=True))[-1]


async def resign(engine: Engine, match_id: str, seat: int, command_id: str) -> Step:
    """R-7: `seat` resigns."""
    limits.check_command_id(command_id)

    async def build(record: MatchRecord, now: int) -> Step:
        seed = await engine.server_seed(match_id)
        return endings.resign(record, seat, command_id, server_seed=seed, time_ms=now)

    return await append_with(engine, match_id, command_key(seat, command_id), build)


async def abort(engine: Engine, match_id: str, seat: int, command_id: str) -> Step:
    """R-7: `seat` aborts the match before every seat has decided."""
    limits.check_command_id(command_id)

    async def build(record: MatchRecord, now: int) -> Step:
        clock.may_abort(record, seat)
        seed = await engine.server_seed(match_id)
        return endings.abort(record, seat, command_id, server_seed=seed, time_ms=now)

    return await append_with(engine, match_id, command_key(seat, command_id), build)


async def claim(
    engine: Engine,
    match_id: str,
    seat: int,
    command_id: str,
    watched: Callable[[str, int], Awaitable[bool]],
) -> Step:
    """R-7: `seat` claims the win from the abandoned seat to act (`watched(match, seat)` says
    whether anyone watches that seat now)."""
    limits.check_command_id(command_id)

    async def build(record: MatchRecord, now: int) -> Step:
        absent = clock.may_claim(record, seat, now, watched=False)
        is_watched = await watched(match_id, absent)
        seed = await engine.server_seed(match_id)
        return endings.claim(
            record, seat, command_id, watched=is_watched, server_seed=seed, time_ms=now
        )

    return await append_with(engine, match_id, command_key(seat, command_id), build)


async def apply_due(engine: Engine, match_id: str, choose: ChooseBot) -> Step | None:
    """Append what the match's due decision calls for (a timeout under its policy, or the
    expiry); None when nothing is due any more (a move landed first). A named bot's decision
    is the seat bots' (actors/seatbots.py), not this."""

    async def build(record: MatchRecord, now: int) -> Step:
        due = clock.deadline(record)
        if due is None or due.at_ms > now or due.kind == "BOT":
            raise MatchError(Kind.CONFLICT, "NOT_DUE", "nothing is due", match_id)
        if due.kind == "EXPIRY":
            return endings.expire(
                record, server_seed=await engine.server_seed(match_id), time_ms=now
            )
        if due.kind == "CONTRIBUTIONS":
            return endings.close_contributions(
                record, server_seed=await engine.server_seed(match_id), time_ms=now
            )
        command = None
        if endings.timeout_command(record, due)[0] == "BOT":
            assert due.seat is not None
            command = await choose(record, due.seat, record.terms.policy_bot)
        seed: bytes | None = None
        if endings.finishes(record, due, command):
            seed = await engine.server_seed(match_id)
        return endings.time_out(record, due, command, server_seed=seed, time_ms=now)

    try:
        return await append_with(engine, match_id, "", build)
    except MatchError as e:
        if e.code == "NOT_DUE":
            return None
        raise
