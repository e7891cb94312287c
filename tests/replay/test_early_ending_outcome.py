"""`kozyr replay verify` reports the real outcome of a match that ended early (issue 30, f):
a resignation or an abort is the match's outcome, not "not finished"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from kozyr.engine import Engine, early_endings
from kozyr.replay import archive
from kozyr.replay.verify import verify
from kozyr.store.memory import MemoryStore

Ending = Callable[[Engine, str], Awaitable[object]]


async def resign_after_a_move(engine: Engine, match_id: str) -> None:
    record = await engine.record(match_id)
    seat = record.game.to_act(record.state)
    assert seat is not None
    await engine.submit(match_id, seat, record.game.legal_commands(record.state, seat)[0], "c1")
    await early_endings.resign(engine, match_id, 1, "r1")


async def abort_before_the_start(engine: Engine, match_id: str) -> None:
    await early_endings.abort(engine, match_id, 0, "a1")


@pytest.mark.parametrize(
    ("ending", "seats", "said"),
    [
        (resign_after_a_move, ("ann", "bob"), "seat 0 (ann) won"),
        (abort_before_the_start, ("ann", ""), "nobody won"),
    ],
    ids=["resigned", "aborted"],
)
def test_verify_reports_how_an_early_ending_ended(
    ending: Ending, seats: tuple[str, str], said: str
) -> None:
    async def body() -> str:
        engine = Engine(MemoryStore())
        created = await engine.create("dix", {}, [(name, b"") for name in seats])
        await ending(engine, created.match_id)
        log = await engine.log(created.match_id)
        lines = archive.build([archive.RawEntry(e.version, e.text, e.hash) for e in log])
        report = verify(archive.parse(archive.dumps(lines)))
        assert report.verified and report.finished, report.text()
        return report.outcome

    outcome = asyncio.run(body())
    assert outcome != "not finished" and said in outcome, outcome
    assert "(ended: RESIGNED)" in outcome or "(ended: ABORTED)" in outcome
