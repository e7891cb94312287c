"""Early endings and timeouts on the engine: each is one entry appended through
`append_with` (below), the same expected-version append as a move, so whatever lands first wins
and nothing is applied twice (docs/rules.md R-7 … R-9; the pure checks are match/endings.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kozyr.engine.engine import Engine
from kozyr.match import clock, endings, limits
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import command_key
from kozyr.match.phases import phase
from kozyr.match.record import MatchRecord
from kozyr.platform.publisher import PHASE

ChooseBot = Callable[[MatchRecord, int, str], Awaitable[Any]]


async def append_with(
    engine: Engine, match_id: str, key: str, build: Callable[[MatchRecord, int], Awaitable[Step]]
) -> Step:
    """Append the entry `build(record, now_ms)` makes (or refuses with MatchError) through
    the same expected-version append as a move: on CONFLICT it is built again on the
    caught-up record, and a repeated `key` gets the recorded answer. Early endings and
    timeouts use it, so a move that lands first wins. (Kept beside them, not in
    kozyr.engine.engine, which stays the moves' module.)"""
    async with engine.writing(match_id, fresh=True) as record:
        for _ in range(engine.max_retries):
            try:
                step = await build(record, engine.now_ms())
            except MatchError:
                if key and (answer := await engine.repeated(match_id, key)) is not None:
                    return answer
                raise
            await engine.deadline_before(record, step)
            # An ending is a lifecycle entry: its phase goes into the meta with it, and the
            # owner's feed and lobby hear of it (platform/publisher.py), as for a finishing move.
            meta = {PHASE: str(phase(step.record))} if step.record.finished else None
            status, version = await engine.store.append(
                match_id, record.version, key, step.text, step.digest, meta
            )
            if status == "OK":
                await engine.committed(record, step)
                return step
            if status == "DUPLICATE":
                return await engine.answer_at(match_id, version)
            record = await engine.after_refusal(record, status, version)
    raise MatchError(
        Kind.CONFLICT,
        "TOO_MANY_CONFLICTS",
        "too many concurrent writers on this match; try again",
        match_id,
    )


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
