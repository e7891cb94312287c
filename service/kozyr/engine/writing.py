"""The engine's one write path: every entry of a match goes to the store through here.

`write` is the primitive: hold the match's lock (one appender per match in this process),
decide on the record (the cached one, or with `fresh` the one caught up from the store),
record the deadline the entry makes due, append with the record's version as the expected
one, and on the store's refusal act on it: DUPLICATE answers the recorded step, CONFLICT
catches up and decides again (a bounded number of times), FULL, BEHIND and GAP raise. What
differs between a move, a join, an ending, a timeout and a bot run is only how the entry is
decided: a *build* (record, now) -> steps that the caller hands in.

A match's first entry is the one exception (`append_first`): there is no record to decide on
or lock to hold (its id is fresh), and a CONFLICT there means the request id was used before,
which only creation knows how to answer (engine/creation.py).

Every append is signed here, just before it is made (`sealed`), and the signature goes into
the store with it: receipts are made when an entry is written, never when it is read. A move's
entry carries its own; a bot run's last entry carries the one that vouches for the whole run.

Only this module calls the store's `append` / `append_many` (tests/engine/test_write_path.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

import structlog

from kozyr.core.receipts import Receipt
from kozyr.engine.folding import fold_stored
from kozyr.engine.refusals import behind
from kozyr.engine.writer_state import WriterState
from kozyr.match import clock
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry, command_key, decode_events
from kozyr.match.phases import phase
from kozyr.match.record import MatchRecord
from kozyr.store.port import PHASE, AppendStatus, store_full

log = structlog.get_logger("kozyr.engine")

# Decide the entries to append on a record at a time (ms): one step, a bot run's several, or
# none (nothing to append); MatchError to refuse.
Build = Callable[[MatchRecord, int], Awaitable[Sequence[Step]]]
# Told the record a refusal was decided on, after no recorded answer was found: may raise a
# more precise refusal (a move's expected version ahead of the match).
Refused = Callable[[MatchRecord], None]

BUSY = "too many concurrent writers on this match; try again"


async def write(
    engine: WriterState,
    match_id: str,
    key: str,
    build: Build,
    *,
    fresh: bool = False,
    run: bool = False,
    meta: Mapping[str, str] | None = None,
    refused: Refused | None = None,
    busy: str = BUSY,
    seat: int | None = None,
) -> list[Step]:
    """Append what `build` decides on the match's record; the steps appended (or, for a
    repeated `key`, the recorded one).

    A refusal decided on a cache that may be stale is decided again on the store's record;
    then a repeated `key` answers what was recorded for it, and otherwise the refusal stands.
    With `run` (a bot run, engine/runs.py) the steps go in one `append_many` and there is one
    attempt: another writer first (CONFLICT, DUPLICATE) answers []. `meta` is written with the
    entry (read when the store is called: a build may fill it in). `busy` and `seat` word the
    error when every attempt met another writer.
    """
    async with Writing(engine, match_id, fresh) as record:
        caught_up = fresh or run
        for _ in range(1 if run else engine.max_retries):
            try:
                steps = await build(record, engine.now_ms())
            except MatchError as refusal:
                if refusal.kind is not Kind.BAD_REQUEST and not caught_up:
                    # Refused on a cache that may be stale: check again on the store's.
                    record, caught_up = await engine.catch_up(record), True
                    continue
                if key and (answer := await repeated(engine, match_id, key)) is not None:
                    return [answer]
                if refused is not None:
                    refused(record)
                raise
            if not steps:
                return []
            steps = sealed(engine, steps)
            await deadline_before(engine, record, steps[-1])
            status, version = await _store(engine, record, key, steps, meta, run)
            if status == "OK":
                await committed(engine, record, steps)
                return list(steps)
            if run and status in ("CONFLICT", "DUPLICATE"):
                return []
            if status == "DUPLICATE":
                return [await answer_at(engine, match_id, version)]
            record, caught_up = await after_refusal(engine, record, status, version), True
    raise MatchError(Kind.CONFLICT, "TOO_MANY_CONFLICTS", busy, match_id, seat)


async def _store(
    engine: WriterState,
    before: MatchRecord,
    key: str,
    steps: Sequence[Step],
    meta: Mapping[str, str] | None,
    run: bool,
) -> tuple[AppendStatus, int]:
    last = steps[-1].record
    # A lifecycle entry (a join, an ending) writes the match's phase into its meta with it, so
    # a sweep sees in one read whether the owner's feed is behind (platform/publisher.py).
    if not same_phase(before, last):
        meta = {**(meta or {}), PHASE: str(phase(last))}
    elif meta is not None:
        meta = dict(meta)
    match_id = before.match_id
    if not run:
        step = steps[0]
        return await engine.store.append(
            match_id,
            before.version,
            key,
            step.text,
            step.digest,
            meta,
            prev=step.entry.prev,
            seal=seal_of(step),
        )
    entries = [(command_key(s.entry.seat, s.entry.command_id), s.text, s.digest) for s in steps]
    prev = steps[0].entry.prev
    seals = [seal_of(s) for s in steps]
    return await engine.store.append_many(
        match_id, before.version, entries, meta, prev=prev, seals=seals
    )


async def append_first(
    engine: WriterState, step: Step, meta: dict[str, str]
) -> tuple[AppendStatus, Step]:
    """Append a match's entry 1 (at version 0), signed; the caller commits the step answered
    (the one with its receipt) when the store took it."""
    (step,) = sealed(engine, [step])
    await deadline_before(engine, None, step)
    match_id = step.record.match_id
    status, _ = await engine.store.append(
        match_id, 0, "", step.text, step.digest, meta, prev=step.entry.prev, seal=seal_of(step)
    )
    return status, step


def sealed(engine: WriterState, steps: Sequence[Step]) -> Sequence[Step]:
    """The steps, the last with the server's receipt of its entry signed now, before its
    append: the signature is stored with the entry and served as stored (docs/fairness.md
    §6). A run's earlier entries (engine/runs.py) carry none: the run's last signature
    vouches for them through the hash chain, one signature a run instead of one an entry."""
    receipts = engine.receipts
    if receipts.signer is None:
        return steps
    s = steps[-1]
    receipt = receipts.sign(
        s.record.match_id, s.entry.version, s.digest, s.record.created.commitment, s.entry.time_ms
    )
    # Built positionally (Step's quick constructor): dataclasses.replace costs more per move.
    return [*steps[:-1], Step(s.entry, s.events, s.record, s.text, s.digest, receipt)]


def seal_of(step: Step) -> str:
    """What the store keeps of a step's receipt ("" for none)."""
    return "" if step.receipt is None else step.receipt.seal


def same_phase(before: MatchRecord | None, after: MatchRecord) -> bool:
    """Whether an append leaves the match's phase (kozyr.match.phases) as it was."""
    # A phase counts the seats joined and the ending: with the very same names (nobody joined,
    # most appends) only the ending can differ, so no seat is counted.
    if before is not None and before.names is after.names:
        return before.finished == after.finished
    return phase(before) == phase(after)


class Writing:
    """The match's lock held, and the record to append on (a class: every move enters one,
    and a generator-based context manager cost ~4 % of a served move's CPU).

    The record is the cached one (a stale cache shows up as the append's CONFLICT), or with
    `fresh` the one caught up from the store. MatchError if the log is fenced (behind what this
    process saw acknowledged)."""

    __slots__ = ("engine", "fresh", "lock", "match_id")

    def __init__(self, engine: WriterState, match_id: str, fresh: bool) -> None:
        self.engine, self.match_id, self.fresh = engine, match_id, fresh
        self.lock = lock_of(engine, match_id)

    async def __aenter__(self) -> MatchRecord:
        await self.lock.acquire()
        try:
            engine = self.engine
            cached = None if self.fresh else engine.cached(self.match_id)
            return await writable(engine, cached or await engine.record(self.match_id))
        except BaseException:
            await self.__aexit__()
            raise

    async def __aexit__(self, *_: object) -> None:
        self.lock.release()
        self.engine.feeds.released(self.match_id)


def lock_of(engine: WriterState, match_id: str) -> asyncio.Lock:
    """The match's lock (unheld locks are dropped past twice the cache's matches)."""
    locks = engine.locks
    lock = locks.get(match_id)
    if lock is None:
        if len(locks) > 2 * engine.cache_size:
            for key in [k for k, v in locks.items() if not v.locked()]:
                del locks[key]
        lock = locks[match_id] = asyncio.Lock()
    return lock


async def writable(engine: WriterState, record: MatchRecord) -> MatchRecord:
    """The record, unless its log is behind what this process saw acknowledged and an
    operator has not repaired it since."""
    fence = engine.fences.get(record.match_id)
    if fence is None or record.version >= fence:
        return record
    repaired = await engine.store.meta(record.match_id, "repaired")
    # A repair below what this process saw, that the log has reached: the operator accepted
    # the loss (another server may have played on from it since).
    if repaired is not None and int(repaired) < fence and int(repaired) <= record.version:
        del engine.fences[record.match_id]
        return record
    raise behind(record.match_id, record.version, f"this server saw version {fence}")


async def after_refusal(
    engine: WriterState, record: MatchRecord, status: AppendStatus, current: int
) -> MatchRecord:
    """The record to decide on again after the store refused an append (CONFLICT: caught
    up); MatchError for a full, damaged or rolled-back store."""
    match_id = record.match_id
    if status == "FULL":
        raise store_full()
    if status == "BEHIND":
        # The store's fence is past its stream: refuse every later command here too, so a
        # player is told the log is damaged, not "not your turn" on the rolled-back state.
        engine.forget(match_id)
        engine.fences[match_id] = max(engine.fences.get(match_id, 0), current + 1)
        raise behind(match_id, current, "the event store lost entries it had acknowledged")
    if status == "GAP":
        engine.forget(match_id)
        log.error("stream_gap", match_id=match_id, version=record.version)
        raise MatchError(
            Kind.UNAVAILABLE,
            "STREAM_DAMAGED",
            "the match's event stream had entries deleted; an operator must "
            "repair it before play can go on",
            match_id,
        )
    if current < record.version:
        # The store lost entries this process saw (a restored backup, a failover that lost its
        # tail, its fence key too): never write over them - remember, and refuse.
        engine.forget(match_id)
        engine.fences[match_id] = max(engine.fences.get(match_id, 0), record.version)
        log.error(
            "stream_behind",
            match_id=match_id,
            stream_version=current,
            cached_version=record.version,
        )
        raise behind(match_id, current, f"this server saw version {record.version}")
    return await engine.catch_up(record)


async def repeated(engine: WriterState, match_id: str, key: str) -> Step | None:
    """The recorded answer if this command was already appended (a retry), else None."""
    earlier = await engine.store.command_version(match_id, key)
    return None if earlier is None else await answer_at(engine, match_id, earlier)


async def answer_at(engine: WriterState, match_id: str, version: int) -> Step:
    """The recorded answer of the entry at `version` (for a repeated command)."""
    cached = engine.cached(match_id)
    if cached is not None and cached.version == version:
        record = cached
        stored = await engine.store.read_after(match_id, version - 1, upto=version)
    else:  # one read serves both the replay and the entry itself
        stored = await engine.store.read_after(match_id, 0, upto=version)
        record = fold_stored(None, stored)
    item = stored[-1]
    entry = Entry.from_canonical(item.text)
    commitment = record.created.commitment
    receipt = Receipt.from_seal(match_id, item.version, item.hash, commitment, item.seal)
    return Step(entry, tuple(decode_events(record.game, entry)), record, receipt=receipt)


async def deadline_before(engine: WriterState, before: MatchRecord | None, step: Step) -> None:
    """Before appending `step` on `before`: where it makes a decision due that was not due
    before, store its deadline, so a process that dies right after the append leaves the
    deadline behind and no match is forgotten (one whose append failed is dropped when due),
    and tell the alarm listeners. The deadlines of later decisions are set after their appends
    (actors/timers.py): the one they replace stays until then, and is re-derived from the log
    when it comes due."""
    if before is not None and clock.deadline(before) is not None:
        return
    due = clock.deadline(step.record)
    if due is None:
        return
    at = clock.alarm_ms(due)
    await engine.store.set_deadline(step.record.match_id, at, step.record.version)
    for listener in engine.alarm_listeners:
        listener(step.record.match_id, at, step.record.version)


async def committed(engine: WriterState, before: MatchRecord, steps: Sequence[Step]) -> None:
    """After the store took `steps` (appended on `before` as one): the watchers and the
    snapshots hear of every step; the cache, the listeners and the owner's feed hear of the
    last, as of one append (a run's phase changes at its end only: a finishing step ends it).
    The lifecycle listener hears first: a match's end is in the transparency log (and its
    feed) before any watcher or seat is told of it, so a tree head asked for after the end
    holds it (the store's tick for the append waits meanwhile: Feeds.heard). It returns at
    once for an entry that changes no phase, as most moves do."""
    last = steps[-1]
    engine.remember(last.record, sum(len(s.text) for s in steps))  # first: a watcher may read it
    await engine.appended(steps[-2].record if len(steps) > 1 else before, last)
    for step in steps:
        engine.feeds.appended(step)
        engine.snapshots.maybe_take(step.record)
    engine.tell(last)
