"""A run of server-side decisions appended as one (the seat bots' fast path).

When the seats to act are the server's own bots, nothing outside the process can come between
their decisions: the run decides them one after another on the record in memory (the same pure
`lifecycle.decide`/`play` as a move) and appends the whole run in one store call
(`Store.append_many`: the same expected-version, duplicate and fence checks, all or nothing).
A match of bots alone is then one store round trip per `limit` entries instead of one per move;
watchers and snapshots hear every entry as they would a move; the timers, the seat bots and
the platform feed hear where the run ended (writing.committed).
A writer that lands first makes the run a CONFLICT: nothing of it is kept, and the caller
starts again from the new record.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kozyr.engine import writing
from kozyr.engine.matches import Engine
from kozyr.match import clock, lifecycle
from kozyr.match.errors import MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.record import MatchRecord

# The next move of a run: (seat, command, command id), or None to end the run there.
NextMove = Callable[[MatchRecord], Awaitable[tuple[int, Any, str] | None]]
Heard = Callable[[Step], None]

RUN_LIMIT = 64  # entries per append: bounds the script's time in Redis and a watcher's burst


async def play_run(
    engine: Engine, match_id: str, next_move: NextMove, heard: Heard, *, limit: int = RUN_LIMIT
) -> list[Step]:
    """Decide moves while `next_move` gives one (at most `limit`) and append them as one.

    `heard` is told of each step as it is decided (before the append: a bot's history must
    include its run's earlier moves). Returns the steps appended; [] when nothing was to play
    or another writer came first. A store that lost entries or is full raises as a move does.
    """

    async def build(record: MatchRecord, now: int) -> list[Step]:
        return await _decide(engine, record, now, next_move, heard, limit)

    return await writing.write(engine, match_id, "", build, run=True)


async def _decide(
    engine: Engine, record: MatchRecord, now: int, next_move: NextMove, heard: Heard, limit: int
) -> list[Step]:
    steps: list[Step] = []
    while len(steps) < limit and not record.finished:
        move = await next_move(record)
        if move is None:
            break
        seat, command, command_id = move
        try:
            decision = lifecycle.decide(record, seat, command)
            clock.check_in_time(record, seat, now)
        except MatchError:
            if steps:
                break  # append what was decided; the refusal comes again on its own
            raise
        seed = await engine.server_seed(match_id=record.match_id) if decision.finishes else None
        step = lifecycle.play(record, decision, command_id, server_seed=seed, time_ms=now)
        steps.append(step)
        heard(step)
        record = step.record
    return steps
