"""The tenants' results feed and lobby, kept up to date from the match logs.

The engine (through its LifecycleListener, which `Platform` implements) calls `creating` before
a match's first append (a write-ahead: the match is noted *live* in its tenant's keys) and
`appended` after each lifecycle append (creation, a join, the finishing move); `appended`
commits the entry's feed events and lobby entry in one script, idempotent by (match, phase)
(kozyr.match.phases). A process that dies between the match append and the feed commit leaves
the match live with its log ahead of its feed: the `sweep` every process runs (and any later
lifecycle append, which finds the feed BEHIND) reads the log and commits what is missing, in
order. So the feed has every event exactly once, in order per match, whoever wrote and whoever
died; its cursor is the stream entry ID.

Each lifecycle append also writes the match's phase into its meta hash (atomically with the
entry), so a sweep or a lobby read sees in one cheap read whether the feed is behind a match.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, Callable, Collection, Sequence
from typing import Any

import structlog

from kozyr.engine.writing import same_phase
from kozyr.match import phases
from kozyr.match.errors import MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry, decode_events, entry_hash
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.platform.tenant_store import FeedItem, PlatformStore
from kozyr.store.port import PHASE, Store, StoredEntry

log = structlog.get_logger("kozyr.platform")
SWEEP_BATCH = 200
READ_BATCH = 8  # concurrent meta reads of one lobby page


class Owners:
    """The owning tenant of each match ("" for none: in-process tools, engine tests)."""

    def __init__(self, store: Store, size: int = 10_000) -> None:
        self.store = store
        self.size = size
        self._owners: dict[str, str] = {}

    def note(self, match_id: str, tenant: str) -> None:
        """The tenant of a match this process creates (its ending then reads no meta)."""
        if len(self._owners) >= self.size:
            self._owners.clear()
        self._owners[match_id] = tenant

    async def of(self, match_id: str) -> str:
        """The match's tenant (the store answers once per match, then the cache)."""
        tenant = self._owners.get(match_id)
        if tenant is None:
            tenant = await self.store.meta(match_id, "tenant") or ""
            if len(self._owners) >= self.size:
                self._owners.clear()  # a bounded cache; the store still knows
            self._owners[match_id] = tenant
        return tenant


class Platform:
    """Feed and lobby writer of one process (any number of processes may run one)."""

    def __init__(
        self,
        store: Store,
        platform_store: PlatformStore,
        *,
        clock: Callable[[], float] = time.time,
        grace_s: float = 5.0,
    ) -> None:
        self.store = store
        self.data = platform_store
        self.owners = Owners(store)
        self._clock = clock
        self.grace_ms = int(grace_s * 1000)
        # Each feed reader's bell and the event types it wants (none: all), by tenant.
        self._bells: dict[str, dict[asyncio.Event, frozenset[str]]] = {}

    async def close(self) -> None:
        """Release the platform store's connections."""
        close = getattr(self.data, "close", None)
        if close is not None:
            await close()

    def _now(self) -> int:
        return int(self._clock() * 1000)

    # ------------------------------------------------------------------ writing

    async def creating(self, tenant: str, match_id: str) -> None:
        """Before a match's first append (the engine's LifecycleListener): note it live in its
        tenant's keys, so a crash right after is caught up (nothing for a match of no tenant)."""
        if tenant:
            self.owners.note(match_id, tenant)
            await self.data.live(tenant, match_id, self._now())

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """After an append (the engine's LifecycleListener): a lifecycle entry goes to its
        owner's feed and lobby."""
        if same_phase(before, step.record):
            return  # a plain move: the feed has nothing to say (and no owner is looked up)
        owner = tenant or await self.owners.of(step.record.match_id)
        if owner:
            await self.commit_entry(owner, before, step)

    async def commit_entry(self, tenant: str, before: MatchRecord | None, step: Step) -> None:
        """Commit the entry's feed events and lobby entry (a failure is left to the sweep,
        never to the caller, whose append stands)."""
        try:
            await self._commit(tenant, before, step, step.digest or entry_hash(step.text))
        except MatchError as e:
            log.warning("feed_commit_deferred", match_id=step.record.match_id, error=e.code)

    async def _commit(self, tenant: str, before: MatchRecord | None, step: Step, head: str) -> bool:
        """Commit one entry; False if the feed was behind (caught up instead)."""
        after = step.record
        start, end = phases.phase(before), phases.phase(after)
        if end == start:
            return True
        lifecycle = phases.events_of(before, step, head)
        events = [json.dumps(e.data(), sort_keys=True, separators=(",", ":")) for e in lifecycle]
        entry = phases.summary(after)
        lists = phases.filters(entry)
        drop = sorted(phases.filters(phases.summary(before)) - lists) if before else []
        status, _ = await self.data.commit(
            tenant,
            after.match_id,
            start,
            end,
            events,
            json.dumps(entry, sort_keys=True),
            drop,
            sorted(lists),
            step.entry.time_ms if before is None else 0,
            after.finished,
            self._now(),
        )
        if status == "OK":
            self._ring(tenant, {e.type for e in lifecycle})
        if status == "BEHIND":
            await self.catch_up(tenant, after.match_id)
            return False
        return True

    async def catch_up(self, tenant: str, match_id: str) -> None:
        """Commit every lifecycle entry of the match the feed does not hold yet, in order."""
        stored = await self.store.read_after(match_id, 0)
        if not stored:
            await self.data.drop_live(tenant, match_id)  # its creation never landed
            return
        fed = await self.data.fed(tenant, match_id)
        for before, step, digest in _steps(stored):
            if phases.phase(step.record) > fed and not await self._commit(
                tenant, before, step, digest
            ):
                return  # another writer moved the feed on meanwhile; its catch-up goes on

    # ------------------------------------------------------------------ sweeping

    async def sweep(self, tenants: Sequence[str]) -> int:
        """Catch up every live match not looked at for a while; how many were behind."""
        behind = 0
        now = self._now()
        for tenant in tenants:
            for match_id in await self.data.due(tenant, now - self.grace_ms, SWEEP_BATCH):
                if await self.refresh(tenant, match_id):
                    behind += 1
                elif await self.store.version(match_id) > 0:
                    await self.data.live(tenant, match_id, now)  # looked at: not due again soon
        return behind

    async def refresh(self, tenant: str, match_id: str) -> bool:
        """Catch the match up if its log is ahead of the feed (one meta read when it is not)."""
        written = await self.store.meta(match_id, PHASE)
        if written is not None and int(written) <= await self.data.fed(tenant, match_id):
            return False
        await self.catch_up(tenant, match_id)
        return True

    async def sweep_forever(self, tenants: Callable[[], Sequence[str]], interval_s: float) -> None:
        """Sweep at once (a restarted process catches up what died with it), then every
        `interval_s` seconds, until cancelled; a store that is away is tried again."""
        grace, self.grace_ms = self.grace_ms, 0
        while True:
            try:
                await self.sweep(tenants())
                self.grace_ms = grace
            except MatchError as e:
                log.warning("feed_sweep_failed", error=e.code)
            except Exception:  # a bug must not end the sweeping for good: log it, go on
                log.exception("feed_sweep_crashed")
            await asyncio.sleep(interval_s)

    # ------------------------------------------------------------------ reading

    async def events(
        self, tenant: str, cursor: str, *, poll_s: float = 0.5, types: frozenset[str] = frozenset()
    ) -> AsyncGenerator[FeedItem, None]:
        """Every event after `cursor`, then each new one, until the caller stops. Commits of
        this process ring at once (with `types`, only commits of those types: the caller
        keeps no other, so it need not read for them); other processes' are seen within
        `poll_s`."""
        # A bell of this reader's own, cleared before each read: a commit that lands while the
        # read is on its way rings it and the wait after an empty read ends at once. (One bell
        # per tenant, cleared after an empty read, lost exactly those rings: under load a
        # feed reader heard its own process's commits half a second late.)
        bell = asyncio.Event()
        bells = self._bells.setdefault(tenant, {})
        bells[bell] = types
        try:
            while True:
                bell.clear()
                items = await self.data.read_feed(tenant, cursor, 500)
                for item in items:
                    cursor = item.cursor
                    yield item
                if not items:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(bell.wait(), poll_s)
        finally:
            bells.pop(bell, None)
            if not bells:
                self._bells.pop(tenant, None)

    def _ring(self, tenant: str, types: Collection[str]) -> None:
        for bell, wanted in self._bells.get(tenant, {}).items():
            if not wanted or not wanted.isdisjoint(types):
                bell.set()

    async def summaries(self, tenant: str, match_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The lobby entries of these matches, each caught up first if its log is ahead."""
        found = await self.data.summaries(tenant, match_ids)
        # A finished entry is final; any other may be behind its log: compare the phases.
        indexed = {
            m: -1 if text is None else json.loads(text)["phase"]
            for m, (text, _) in zip(match_ids, found, strict=True)
            if text is None or json.loads(text)["status"] != "finished"
        }
        stale = list(indexed)
        behind: list[str] = []
        for at in range(0, len(stale), READ_BATCH):  # a few of the moves' connections at once
            batch = stale[at : at + READ_BATCH]
            written = await asyncio.gather(*(self.store.meta(m, PHASE) for m in batch))
            behind += [
                m
                for m, w in zip(batch, written, strict=True)
                if w is not None and int(w) > indexed[m]
            ]
        for match_id in behind:
            await self.catch_up(tenant, match_id)
        if behind:
            found = await self.data.summaries(tenant, match_ids)
        out: list[dict[str, Any] | None] = []
        for text, created_ms in found:
            entry = None if text is None else json.loads(text)
            if entry is not None:
                entry["created_ms"] = created_ms
            out.append(entry)
        return out


def _steps(stored: Sequence[StoredEntry]) -> list[tuple[MatchRecord | None, Step, str]]:
    """(record before, the entry as a step, its hash) for every lifecycle entry of a log."""
    out: list[tuple[MatchRecord | None, Step, str]] = []
    record: MatchRecord | None = None
    for item in stored:
        entry = Entry.from_canonical(item.text)
        after = apply_entry(record, entry, item.hash)
        if phases.phase(after) != phases.phase(record):
            out.append(
                (record, Step(entry, tuple(decode_events(after.game, entry)), after), item.hash)
            )
        record = after
    return out
