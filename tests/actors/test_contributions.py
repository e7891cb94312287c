"""Seed contributions after the commitment (docs/fairness.md §1, issue 30), on the in-memory
store with a clock the test moves: a match with a contribution window waits for its named
seats' contributions, starts on the last, or at the end of the window with the silent seats'
contributions logged empty; the deal uses exactly what the log holds before it."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from kozyr.actors.seatbots import SeatBots
from kozyr.actors.timers import Timers
from kozyr.core.fairness import match_seed
from kozyr.engine import Engine, early_endings
from kozyr.games import GAMES
from kozyr.games.contract import Dealt, Setup
from kozyr.match import clock, lifecycle
from kozyr.match.errors import MatchError
from kozyr.replay import archive
from kozyr.replay.report import Report
from kozyr.replay.verify import verify
from kozyr.store.memory import MemoryStore
from tests.actors.test_timers import Clock
from tests.replay.helpers import rehash

WINDOW = 30_000


async def windowed(engine: Engine, bots: tuple[str, ...] = ()) -> str:
    terms = clock.make_terms(bots=bots, contribute_ms=WINDOW)
    seats = [("a", b""), ("b", b"")]
    return (await engine.create("dix", {}, seats, terms=terms)).match_id


async def events(store: MemoryStore, match_id: str) -> list[list[str]]:
    return [
        [e["type"] for e in json.loads(row.text)["events"]]
        for row in await store.read_after(match_id, 0)
    ]


def test_the_match_waits_for_its_named_seats_and_deals_from_what_the_log_holds() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        engine = Engine(store, clock=now, random_bytes=random.Random(1).randbytes)
        match_id = await windowed(engine)
        record = await engine.record(match_id)
        assert not record.started and record.awaiting == (0, 1)
        step = await engine.contribute(match_id, 1, b"bee")
        assert not step.record.started and step.record.awaiting == (0,)
        with pytest.raises(MatchError) as twice:
            await engine.contribute(match_id, 1, b"again")
        assert twice.value.code == "NOT_AWAITING_CONTRIBUTION"
        step = await engine.contribute(match_id, 0, b"ann")
        assert step.record.started
        assert await events(store, match_id) == [
            ["MatchCreated", "MatchTerms"],
            ["SeedContributed"],
            ["SeedContributed", "MatchStarted", "FirstDealerChosen", "Dealt", "TurnedUp"],
        ]
        # The deal comes from the seed of exactly the contributions the log holds.
        seed = bytes.fromhex(await store.meta(match_id, "server_seed") or "")
        assert step.record.contributions == (b"ann".hex(), b"bee".hex())
        game = GAMES["dix"]
        dealt = game.start(
            game.make_config({}, 2), ["a", "b"], match_seed(seed, [b"ann", b"bee"]), Setup()
        )
        expected = next(e for e in dealt if isinstance(e, Dealt)).deck
        logged = [json.loads(r.text)["events"] for r in await store.read_after(match_id, 0)]
        deck = next(e["deck"] for e in logged[-1] if e["type"] == "Dealt")
        assert deck == [str(card) for card in expected]

    asyncio.run(body())


def test_a_silent_seat_gets_an_explicit_empty_contribution_when_the_window_ends() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        engine = Engine(store, clock=now, random_bytes=random.Random(2).randbytes)
        timers = Timers(engine, SeatBots(engine), lease_ms=500)
        match_id = await windowed(engine)
        await engine.contribute(match_id, 0, b"ann")
        await asyncio.sleep(0)
        assert await timers.tick() == 0  # the window is open
        now.now += WINDOW / 1000
        await timers.tick()
        record = await engine.record(match_id)
        assert record.started and record.contributions == (b"ann".hex(), "")
        logged = [json.loads(r.text)["events"] for r in await store.read_after(match_id, 0)]
        closed = [e for entry in logged for e in entry if e["type"] == "ContributionsClosed"]
        assert closed == [{"type": "ContributionsClosed", "seats": [1]}]
        with pytest.raises(MatchError) as late:
            await engine.contribute(match_id, 1, b"too late")
        assert late.value.code == "NOT_AWAITING_CONTRIBUTION"
        await timers.close()

    asyncio.run(body())


def test_a_bot_seat_waits_for_nobody_and_a_match_without_a_window_starts_at_once() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        engine = Engine(store, clock=now, random_bytes=random.Random(3).randbytes)
        match_id = await windowed(engine, bots=("", "random"))
        assert (await engine.record(match_id)).awaiting == (0,)
        assert (await engine.contribute(match_id, 0, b"")).record.started
        plain = await engine.create("dix", {}, [("a", b""), ("b", b"")])
        assert (await engine.record(plain.match_id)).started
        with pytest.raises(MatchError) as none:
            await engine.contribute(plain.match_id, 0, b"x")
        assert none.value.code == "NOT_AWAITING_CONTRIBUTION"

    asyncio.run(body())


def test_a_named_seats_contribution_at_creation_is_refused() -> None:
    with pytest.raises(MatchError) as refused:
        lifecycle.check_named_contributions([("ann", b"known to the server first"), ("", b"")])
    assert refused.value.code == "CONTRIBUTION_BEFORE_COMMITMENT"
    lifecycle.check_named_contributions([("ann", b""), ("", b"an open seat's, never sent")])


async def _report(engine: Engine, match_id: str) -> Report:
    log = await engine.log(match_id)
    lines = archive.build([archive.RawEntry(e.version, e.text, e.hash) for e in log])
    return verify(archive.parse(archive.dumps(lines)))


def test_verify_checks_the_contributions_and_says_when_the_operator_could_choose() -> None:
    async def body() -> None:
        store, now = MemoryStore(), Clock()
        engine = Engine(store, clock=now, random_bytes=random.Random(4).randbytes)
        timers = Timers(engine, SeatBots(engine), lease_ms=500)
        fair = await windowed(engine)
        await engine.contribute(fair, 1, b"bee")
        now.now += WINDOW / 1000
        await timers.tick()  # seat 0 stays silent: closed empty at the window's end
        await early_endings.resign(engine, fair, 0, "r")
        report = await _report(engine, fair)
        assert report.verified and report.fair and not report.server_alone, report.text()
        assert report.text().endswith(
            "VERIFIED — a fair deal: every shuffle and roll came from the committed seed"
        )
        plain = (await engine.create("dix", {}, [("a", b""), ("b", b"")])).match_id
        await early_endings.resign(engine, plain, 0, "r")
        report = await _report(engine, plain)
        assert report.verified and report.server_alone and not report.fair, report.text()
        assert "could have chosen it" in report.text()
        # A window closed before its end: the log is edited and re-hashed, verify says where.
        early = await windowed(engine)
        await engine.contribute(early, 0, b"ann")
        now.now += WINDOW / 1000
        await timers.tick()
        await early_endings.resign(engine, early, 0, "r")
        log = await engine.log(early)
        lines = archive.build([archive.RawEntry(e.version, e.text, e.hash) for e in log])
        closed = next(line for line in lines if line.get("version") == 3)
        closed["time_ms"] -= 1
        rehashed = archive.parse(archive.dumps(rehash(lines)))
        problems = verify(rehashed).text()
        assert "closed before its end" in problems, problems
        await timers.close()

    asyncio.run(body())
