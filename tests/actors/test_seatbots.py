"""Seat bots on the engine and the in-memory store: a bot's seat plays itself, verifiably."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

from kozyr.actors.seatbots import SeatBots
from kozyr.engine import Engine
from kozyr.match.log import MatchTerms
from kozyr.replay import archive
from kozyr.replay.archive import RawEntry
from kozyr.replay.verify import verify
from kozyr.store.memory import MemoryStore

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def engine(store: MemoryStore) -> Engine:
    ticks = itertools.count(1_767_225_600)
    return Engine(store, clock=lambda: float(next(ticks)), random_bytes=random.Random(7).randbytes)


async def play_with_bots(game: str, bot: str) -> tuple[Engine, str]:
    """Seat 0 a person playing random legal moves, every other seat `bot`; to the end."""
    store = MemoryStore()
    eng = engine(store)
    bots = SeatBots(eng)
    n = PLAYERS[game]
    terms = MatchTerms(bots=("", *([bot] * (n - 1))))
    created = await eng.create(game, {}, [(f"p{i}", b"") for i in range(n)], terms=terms)
    assert [t.seat for t in created.tokens] == [0]
    rng = random.Random(1)
    for n_moves in itertools.count():
        assert n_moves < 5_000
        await bots.wait()
        record = await eng.record(created.match_id)
        if record.finished:
            break
        assert record.game.to_act(record.state) == 0, "only the person's turn is left open"
        legal = record.game.legal_commands(record.state, 0)
        await eng.submit(created.match_id, 0, rng.choice(legal), f"c{n_moves}")
    return eng, created.match_id


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_match_of_bots_alone_ends_and_leaves_nothing_kept(game: str) -> None:
    async def body() -> None:
        eng = engine(MemoryStore())
        bots = SeatBots(eng)
        n = PLAYERS[game]
        created = await eng.create(
            game, {}, [(f"p{i}", b"") for i in range(n)], terms=MatchTerms(bots=("heuristic",) * n)
        )
        assert bots.keeps(created.match_id)  # its bots' histories start at creation
        await bots.wait()
        assert (await eng.record(created.match_id)).finished
        assert not bots.keeps(created.match_id)

    asyncio.run(body())


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_bots_play_their_seats_and_the_log_verifies(game: str) -> None:
    async def body() -> None:
        eng, match_id = await play_with_bots(game, "heuristic")
        stored = await eng.log(match_id)
        lines = archive.build([RawEntry(e.version, e.text, e.hash) for e in stored])
        report = verify(archive.parse(archive.dumps(lines)))
        assert report.status == "VERIFIED", report.problems

    asyncio.run(body())
