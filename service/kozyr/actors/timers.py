"""The replica timer loop: every process claims due deadlines from the store and applies them.

Correctness needs no process-local timer. Each match's next deadline lives in the store
(Store.set_deadline: on Redis a sorted set per deadline shard); it is set from the record after
every append this process makes (a listener of the engine), and before the append when the
entry makes a decision due that was not (engine/writing.deadline_before), so a process dying between
the two leaves a deadline behind rather than none.

Every process runs `Timers.run`: it claims due deadlines (Store.claim_deadlines, which pushes
each one a lease ahead, so a claimer that dies is covered by another once the lease ends),
re-derives from the match's log what is really due (the stored time is only an alarm), and
appends the timeout through the same expected-version append as a move
(engine/early_endings.apply_due): a move that lands first wins, a second process finds nothing due,
and nothing is applied twice. Then it records the match's next deadline, or none.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

import structlog

from kozyr.actors.seatbots import SeatBots
from kozyr.engine.early_endings import apply_due
from kozyr.engine.matches import Engine
from kozyr.match import clock
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.record import NO_TERMS

log = structlog.get_logger("kozyr.timers")

GONE = 2**31  # the version that removes the deadline of a match that does not exist
SOON_KEPT = 10_000  # alarms the loop keeps in mind (see run)


class Timers:
    """Keeps the store's deadlines of this process's matches and applies due ones."""

    def __init__(
        self,
        engine: Engine,
        seatbots: SeatBots,
        *,
        interval_s: float = 0.02,
        idle_interval_s: float = 0.25,
        lease_ms: int = 5_000,
        batch: int = 256,
        concurrency: int = 64,
    ) -> None:
        self.engine = engine
        self.seatbots = seatbots
        self.interval_s = interval_s
        self.idle_interval_s = max(idle_interval_s, interval_s)
        self.lease_ms = lease_ms
        self.batch = batch
        self._gate = asyncio.Semaphore(concurrency)
        self._pending: set[asyncio.Task[None]] = set()
        self.applied = 0  # entries this process appended for due decisions (tests, metrics)
        # The alarm this process last stored per match, None for none (see keep).
        self._alarms: OrderedDict[str, int | None] = OrderedDict()
        # The alarms this process stored, soonest first, with their matches (one a later
        # store replaced is skipped, see next_alarm), and the loop's bell: an idle loop sleeps
        # until the next one (see run).
        self._soon: list[tuple[int, str]] = []
        self._bell = asyncio.Event()
        # The alarm the engine stored before an append, and the version it was for: that
        # append's keep has nothing to write (see stored_before).
        self._before: OrderedDict[str, tuple[int, int]] = OrderedDict()
        engine.listeners.append(self.keep)
        engine.alarm_listeners.append(self.stored_before)

    def stored_before(self, match_id: str, at: int, version: int) -> None:
        """The engine stored alarm `at` for the entry at `version` before appending it
        (deadlines.before_append: a created match with bots or a clock, a decision made due)."""
        self._before[match_id] = (at, version)
        self._before.move_to_end(match_id)
        while len(self._before) > SOON_KEPT:
            self._before.popitem(last=False)

    def keep(self, step: Step) -> None:
        """After an append: record the match's next deadline (in the background).

        The stored deadline is only an alarm (what is due is derived from the log when it
        fires), so a write that would not change what this process stored last is left out:
        no write per move for a match with no deadline, and a run of bot decisions rewrites
        the alarm of its first one about twice per BOT_SLACK_MS, not once per move. Another
        replica's write in between costs at most an alarm that fires and finds nothing due."""
        record = step.record
        due = clock.deadline(record)
        if due is None and not record.finished and record.terms == NO_TERMS:
            return  # a match without clock, bots or expiry never had a deadline
        at = None if due is None else clock.alarm_ms(due)
        match_id = record.match_id
        stored = self._before.get(match_id)
        if stored is not None and stored[1] <= record.version:  # (a run's is its last entry's)
            del self._before[match_id]
            if stored == (at, record.version):
                self._expect(match_id, at)  # stored before the append: nothing to write
                return
        earlier = self._alarms.get(match_id, 0)
        if at is None and earlier is None and match_id in self._alarms:
            return
        if (
            due is not None
            and due.kind == "BOT"
            and earlier
            and clock.BOT_SLACK_MS // 2 < earlier - self.engine.now_ms() <= clock.BOT_SLACK_MS
        ):
            return  # the alarm of an earlier bot decision, still ahead: it covers this one
        self._spawn(self._set(match_id, at, record.version))
        self._expect(match_id, at)

    def _expect(self, match_id: str, at: int | None) -> None:
        """Remember the match's stored alarm, and wake the loop for it when it comes."""
        self._remember(match_id, at)
        if at is not None:
            heapq.heappush(self._soon, (at, match_id))
            if len(self._soon) > 2 * SOON_KEPT:  # the farthest are found by the idle polls
                self._soon = heapq.nsmallest(SOON_KEPT, self._soon)
            self._bell.set()

    def _remember(self, match_id: str, at: int | None) -> None:
        self._alarms[match_id] = at
        self._alarms.move_to_end(match_id)
        while len(self._alarms) > 10_000:
            self._alarms.popitem(last=False)

    async def _set(self, match_id: str, at: int | None, version: int) -> None:
        try:
            await self.engine.store.set_deadline(match_id, at, version)
        except MatchError as e:  # the store is away: the deadline before it stays and fires
            log.warning("deadline_not_set", match_id=match_id, code=e.code)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def run(self) -> None:
        """Claim and apply due deadlines until cancelled.

        While claims come back empty the polls space out (interval_s doubling up to
        idle_interval_s), but the loop wakes for every alarm this process stored that still
        stands (next_alarm), so its own deadlines are met as promptly as at the shortest
        interval; another process's are found within idle_interval_s (an idle replica costs
        a few scripts a second, not 400)."""
        idle = self.interval_s
        while True:
            polled = self.engine.now_ms()
            try:
                claimed = await self.engine.store.claim_deadlines(polled, self.lease_ms, self.batch)
            except MatchError as e:
                log.warning("deadlines_unavailable", code=e.code)
                claimed = []
            for match_id, _ in claimed:
                await self._gate.acquire()
                self._spawn(self._handle(match_id))
            if len(claimed) < self.batch:
                idle = self.interval_s if claimed else min(idle * 2, self.idle_interval_s)
                await self._sleep(polled, idle)

    async def _sleep(self, polled: int, idle: float) -> None:
        """Until `idle` after the poll at `polled`, or this process's next alarm if sooner."""
        step_ms = self.interval_s * 1000
        while True:
            wake = polled + idle * 1000
            alarm = self.next_alarm(polled)
            if alarm is not None:
                wake = min(wake, max(alarm, polled + step_ms))
            wait = (wake - self.engine.now_ms()) / 1000
            if wait <= 0:
                return
            self._bell.clear()
            try:
                await asyncio.wait_for(self._bell.wait(), min(wait, idle))
            except TimeoutError:
                return

    def next_alarm(self, after_ms: int) -> int | None:
        """The soonest alarm this process stored after `after_ms` that still stands, None for
        none. One it replaced since (another alarm, or none: a bot match that ended within
        its slack) is dropped, or every such match would wake the loop to poll every shard
        for nothing; one it no longer remembers (past the bound of _alarms) still stands."""
        soon, alarms = self._soon, self._alarms
        while soon and (soon[0][0] <= after_ms or alarms.get(soon[0][1], soon[0][0]) != soon[0][0]):
            heapq.heappop(soon)
        return soon[0][0] if soon else None

    async def tick(self) -> int:
        """One pass: claim what is due now and apply it, waiting for the results (tests)."""
        claimed = await self.engine.store.claim_deadlines(
            self.engine.now_ms(), self.lease_ms, self.batch
        )
        for match_id, _ in claimed:
            await self._gate.acquire()
            await self._handle(match_id)
        return len(claimed)

    async def _handle(self, match_id: str) -> None:
        try:
            await self.apply(match_id)
        except MatchError as e:  # the store is away, or the log is damaged: the lease will end
            log.warning("deadline_failed", match_id=match_id, code=e.code)
        except Exception:
            log.exception("deadline_crashed", match_id=match_id)
        finally:
            self._gate.release()

    async def apply(self, match_id: str) -> None:
        """Apply what is due in the match now, then record its next deadline."""
        if self.seatbots.playing(match_id):
            return  # this process's bot run plays what is due; the claim's lease covers it
        try:
            # The timeout first: it re-derives what is due from the caught-up log itself.
            if await apply_due(self.engine, match_id, self.seatbots.choose) is not None:
                self.applied += 1
                return  # the append records the next deadline (keep); should that write fail,
                # this claim's lease ends and the deadline is derived again then
            record = await self.engine.record(match_id)
        except MatchError as e:
            if e.kind is Kind.NOT_FOUND:  # its creation failed after the deadline was set
                await self.engine.store.set_deadline(match_id, None, GONE)
                return
            raise
        due = clock.deadline(record)
        if due is not None and due.kind == "BOT" and due.at_ms <= self.engine.now_ms():
            await self.seatbots.play(match_id)
            return  # each bot move's append records the next deadline (keep)
        at = None if due is None else clock.alarm_ms(due)
        self._remember(match_id, at)
        await self.engine.store.set_deadline(match_id, at, record.version)

    async def close(self) -> None:
        """Wait briefly for deadline writes in flight, then cancel the rest."""
        pending = list(self._pending)
        if pending:
            _, late = await asyncio.wait(pending, timeout=2)
            for task in late:
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.gather(*late, return_exceptions=True)
