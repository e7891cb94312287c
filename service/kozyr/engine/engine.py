"""The application shell: matches on a Store, with a per-process state cache.

Every decision is the pure lifecycle's (kozyr.match.lifecycle); this module only orders the
I/O around it. A move reads: lock -> record -> decide -> append -> on conflict catch up and
retry. The per-match lock serializes commands inside this process; the append checks the
expected version in the store, so another process writing first shows up as CONFLICT and the
command is decided again on the caught-up record, a bounded number of times.

A move is decided on the cached record *before* reading the store: in the usual case (this
process is the match's only writer) the append is the move's only round trip. A stale cache
shows up as CONFLICT, or as a refusal that we double-check on a caught-up record, so a second
process can never make us wrong, only slower.
"""

from __future__ import annotations

import asyncio
import hmac
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

import structlog

from kozyr.core.cards import Card
from kozyr.core.receipts import Receipt
from kozyr.engine.deadlines import before_append
from kozyr.engine.engine_parts import (
    STARTS,
    Created,
    Joined,
    Viewer,
    behind,
    check_expected,
    commitment_of,
    fingerprint_of,
    fold_stored,
    not_found,
    text_bytes,
)
from kozyr.engine.snapshots import Snapshots
from kozyr.engine.wakeups import Feeds
from kozyr.games import Game, get_game
from kozyr.games.contract import Setup
from kozyr.match import clock, lifecycle, limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry, MatchTerms, command_key, decode_events
from kozyr.match.phases import phase
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.platform.publisher import PHASE, Platform, appended, creating
from kozyr.secrets.seedbox import SeedBox
from kozyr.secrets.seeds import Seeds
from kozyr.secrets.signing import EntryReceipts, Signer
from kozyr.secrets.tokens import (
    SeatToken,
    new_token,
    read_record,
    request_match_id,
    seal,
    token_hash,
    unseal,
)
from kozyr.store.port import AppendStatus, Store, StoredEntry, store_full

log = structlog.get_logger("kozyr.engine")


class _Writing:
    """Engine.writing's context (a class: every move enters one, and a generator-based
    context manager cost ~4 % of a served move's CPU)."""

    __slots__ = ("engine", "fresh", "lock", "match_id")

    def __init__(self, engine: Engine, match_id: str, fresh: bool) -> None:
        self.engine, self.match_id, self.fresh = engine, match_id, fresh
        self.lock = engine._lock(match_id)

    async def __aenter__(self) -> MatchRecord:
        await self.lock.acquire()
        try:
            engine = self.engine
            cached = None if self.fresh else engine._cache.get(self.match_id)
            return await engine._writable(cached or await engine.record(self.match_id))
        except BaseException:
            self.lock.release()
            raise

    async def __aexit__(self, *_: object) -> None:
        self.lock.release()


class Engine:
    """Matches on an event store, with a per-process state cache and per-match serialization."""

    def __init__(
        self,
        store: Store,
        *,
        cache_size: int = 10_000,
        cache_bytes: int = 512 * 2**20,
        max_retries: int = 16,
        arbiter_token: str | None = None,
        clock: Callable[[], float] = time.time,
        random_bytes: Callable[[int], bytes] = os.urandom,
        request_ttl_s: float = 24 * 3600,
        seed_box: SeedBox | None = None,
        signer: Signer | None = None,
    ) -> None:
        self.store = store
        self.signer = signer  # None: answers carry no receipts (tests, in-process tools)
        self.receipts = EntryReceipts(signer)
        self.seeds = Seeds(store, seed_box, cache_size)  # see secrets/seeds.py
        self.request_ttl_ms = int(request_ttl_s * 1000)
        self.cache_size = cache_size
        # The cache is bounded by matches and by the bytes of log text its records were folded
        # from (an upper bound on what a fold keeps, measured without touching the state).
        self.cache_bytes = cache_bytes
        self._sizes: dict[str, int] = {}
        self._cached_bytes = 0
        self.max_retries = max_retries
        self._arbiter = arbiter_token
        self._clock = clock
        self._random = random_bytes
        self._cache: OrderedDict[str, MatchRecord] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._tokens: dict[tuple[str, str], int] = {}
        # The highest version this process saw acknowledged, for matches whose log fell behind
        # it: their writes stay refused until an operator repairs the log (never written over).
        self._fences: dict[str, int] = {}
        self.feeds = Feeds(store)
        self.snapshots = Snapshots(store, self._forget, self.seeds.of)  # see snapshots.py
        # Called after every append this process made, with its step (a run's last: see
        # committed_run), by the seat bots and the timers: never blocks.
        self.listeners: list[Callable[[Step], None]] = []
        # Told (match id, alarm, version) when an alarm is stored before its append (the timers:
        # the same alarm is not written again after it).
        self.alarm_listeners: list[Callable[[str, int, int], None]] = []
        self.platform: Platform | None = (
            None  # tenants' feed and lobby (set by server/bootstrap.py)
        )

    # ------------------------------------------------------------------ creation and joining

    async def create(
        self,
        game_name: str,
        options: Mapping[str, str],
        seats: Sequence[tuple[str, bytes]],
        *,
        request_id: str = "",
        scope: str = "",
        first_dealer: int | None = None,
        decks: Sequence[Sequence[Card]] = (),
        dice: Sequence[Sequence[int]] = (),
        terms: MatchTerms | None = None,
        tenant: str = "",
        users: Sequence[str] = (),
    ) -> Created:
        """Create a match; start it at once when every seat is named.

        With a `request_id` (unique within the caller's `scope`), the same request again
        answers the same match and tokens, and another request under that id is refused.
        """
        try:
            game = get_game(game_name)
        except KeyError as e:
            raise bad_request("UNKNOWN_GAME", str(e.args[0])) from None
        limits.check_request_id(request_id)
        setup = Setup(
            first_dealer=first_dealer,
            decks=tuple(tuple(d) for d in decks),
            dice=tuple(tuple(r) for r in dice),
        )
        match_id = request_match_id(scope, request_id) if request_id else secrets.token_hex(8)
        server_seed, now = self._random(32), self.now_ms()
        created = lifecycle.created_event(
            game, options, seats, setup, match_id=match_id, server_seed=server_seed, users=users
        )
        step = lifecycle.create(game, created, server_seed=server_seed, time_ms=now, terms=terms)
        bots = step.record.terms.bots or ("",) * len(seats)
        tokens = tuple(
            SeatToken(i, name, new_token(self._random))
            for i, (name, _) in enumerate(seats)
            if name and not bots[i]
        )
        meta = {
            "game": game.NAME,
            "tenant": tenant,
            PHASE: str(phase(step.record)),
            **self.seeds.meta(match_id, server_seed),
        }
        meta.update({f"tok:{token_hash(t.token)}": str(t.seat) for t in tokens})
        body = fingerprint_of(created) if request_id else ""  # only a retry compares it
        if request_id:
            meta["request"] = seal(request_id, match_id, tokens, body, now)
        await creating(self.platform, tenant, match_id)
        await self.deadline_before(None, step)
        status, _ = await self.store.append(match_id, 0, "", step.text, step.digest, meta)
        if status == "CONFLICT" and request_id:
            return await self._created_earlier(request_id, match_id, body, now)
        if status == "FULL":
            raise store_full()
        if status == "BEHIND":
            raise behind(match_id, 0, "the store had acknowledged entries of it")
        if status != "OK":  # pragma: no cover - a fresh random id cannot collide in practice
            raise MatchError(Kind.INTERNAL, "ID_COLLISION", "match id collision, retry")
        self._remember(step.record, len(step.text), fresh=True)
        self.seeds.keep(match_id, server_seed)
        self._tell(step)
        await appended(self.platform, None, step, tenant)
        return Created(match_id, tokens, 1, created.commitment, self.receipt(step))

    async def _created_earlier(
        self, request_id: str, match_id: str, body: str, now: int
    ) -> Created:
        stored = await self.store.meta(match_id, "request")
        record = read_record(stored) if stored is not None else None
        if record is None or record.fingerprint != body:
            raise MatchError(
                Kind.EXISTS,
                "REQUEST_ID_REUSED",
                f"request_id {request_id!r} was used for another CreateMatch "
                "request; use a new request id for a new match",
                match_id,
            )
        if now - record.time_ms > self.request_ttl_ms:
            raise MatchError(
                Kind.EXISTS,
                "REQUEST_ID_EXPIRED",
                f"request_id {request_id!r} created match {match_id} more than "
                f"{self.request_ttl_ms // 3_600_000} h ago; its tokens are no "
                "longer handed out again",
                match_id,
            )
        first = (await self.store.read_after(match_id, 0, upto=1))[0]
        promised = commitment_of(first.text)
        return Created(
            match_id,
            unseal(request_id, match_id, record),
            1,
            promised,
            self.receipts.sign(match_id, 1, first.hash, promised),
        )

    async def join(
        self,
        match_id: str,
        name: str,
        seat: int | None = None,
        contribution: bytes = b"",
        user: str = "",
    ) -> Joined:
        """Claim an open seat (the first open one when `seat` is None) for a platform `user`."""
        limits.check_name(name, allow_empty=False)
        limits.check_contribution(contribution)
        token = new_token(self._random)
        async with self.writing(match_id, fresh=True) as record:
            for _ in range(self.max_retries):
                chosen = lifecycle.choose_seat(record, seat)
                seed = await self.seeds.of(match_id) if lifecycle.join_starts(record) else None
                step = lifecycle.join(
                    record,
                    chosen,
                    name,
                    contribution,
                    server_seed=seed,
                    time_ms=self.now_ms(),
                    user=user,
                )
                meta = {f"tok:{token_hash(token)}": str(chosen), PHASE: str(phase(step.record))}
                await self.deadline_before(record, step)
                status, version = await self.store.append(
                    match_id, record.version, "", step.text, step.digest, meta
                )
                if status == "OK":
                    await self.committed(record, step)
                    return Joined(
                        chosen,
                        token,
                        step.record.version,
                        step.record.started,
                        step.record.created.commitment,
                        self.receipt(step),
                    )
                record = await self.after_refusal(record, status, version)
        raise MatchError(
            Kind.CONFLICT, "TOO_MANY_CONFLICTS", "the match is busy; try joining again", match_id
        )

    # ------------------------------------------------------------------ moves

    async def submit(
        self,
        match_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None = None,
        actor: str = "",
    ) -> Step:
        """Decide and append one command; the same (seat, command_id) again answers the same."""
        limits.check_command_id(command_id)
        key = command_key(seat, command_id)
        async with self.writing(match_id) as record:
            caught_up = False
            for _ in range(self.max_retries):
                now = self.now_ms()
                try:
                    check_expected(record, expected_version, seat)
                    decision = lifecycle.decide(record, seat, command)
                    clock.check_in_time(record, seat, now)
                except MatchError as refusal:
                    if refusal.kind is not Kind.BAD_REQUEST and not caught_up:
                        # Refused on a cache that may be stale: check again on the store's.
                        record, caught_up = await self._catch_up(record), True
                        continue
                    if (answer := await self.repeated(match_id, key)) is not None:
                        return answer
                    if expected_version is not None and expected_version > record.version:
                        raise MatchError(
                            Kind.BAD_REQUEST,
                            "BAD_EXPECTED_VERSION",
                            f"the match is only at version {record.version}, not "
                            f"{expected_version}",
                            match_id,
                            seat,
                        ) from None
                    raise
                seed = await self.seeds.of(match_id) if decision.finishes else None
                step = lifecycle.play(
                    record, decision, command_id, server_seed=seed, time_ms=now, actor=actor
                )
                meta = {PHASE: str(phase(step.record))} if decision.finishes else None
                await self.deadline_before(record, step)
                status, version = await self.store.append(
                    match_id, record.version, key, step.text, step.digest, meta
                )
                if status == "OK":
                    await self.committed(record, step)
                    return step
                if status == "DUPLICATE":
                    return await self.answer_at(match_id, version)
                record, caught_up = await self.after_refusal(record, status, version), True
        raise MatchError(
            Kind.CONFLICT,
            "TOO_MANY_CONFLICTS",
            "too many concurrent writers on this match; try again",
            match_id,
            seat,
        )

    async def server_seed(self, match_id: str) -> bytes:
        """The match's server seed (for an entry that finishes the match or deals)."""
        return await self.seeds.of(match_id)

    async def repeated(self, match_id: str, key: str) -> Step | None:
        """The recorded answer if this command was already appended (a retry), else None."""
        earlier = await self.store.command_version(match_id, key)
        return None if earlier is None else await self.answer_at(match_id, earlier)

    async def answer_at(self, match_id: str, version: int) -> Step:
        """The recorded answer of the entry at `version` (for a repeated command)."""
        cached = self._cache.get(match_id)
        if cached is not None and cached.version == version:
            record = cached
            stored = await self.store.read_after(match_id, version - 1, upto=version)
        else:  # one read serves both the replay and the entry itself
            stored = await self.store.read_after(match_id, 0, upto=version)
            record = fold_stored(None, stored)
        entry = Entry.from_canonical(stored[-1].text)
        return Step(entry, tuple(decode_events(record.game, entry)), record)

    async def after_refusal(
        self, record: MatchRecord, status: AppendStatus, current: int
    ) -> MatchRecord:
        """The record to decide on again after the store refused an append (CONFLICT: caught
        up); MatchError for a full, damaged or rolled-back store."""
        match_id = record.match_id
        if status == "FULL":
            raise store_full()
        if status == "BEHIND":
            # The store's fence is past its stream: refuse every later command here too, so a
            # player is told the log is damaged, not "not your turn" on the rolled-back state.
            self._forget(match_id)
            self._fences[match_id] = max(self._fences.get(match_id, 0), current + 1)
            raise behind(match_id, current, "the event store lost entries it had acknowledged")
        if status == "GAP":
            self._forget(match_id)
            log.error("stream_gap", match_id=match_id, version=record.version)
            raise MatchError(
                Kind.UNAVAILABLE,
                "STREAM_DAMAGED",
                "the match's event stream had entries deleted; an operator must "
                "repair it before play can go on",
                match_id,
            )
        if current < record.version:
            # The store lost entries this process saw (a restored backup, a failover that lost
            # its tail, its fence key too): never write over them - remember, and refuse.
            self._forget(match_id)
            self._fences[match_id] = max(self._fences.get(match_id, 0), record.version)
            log.error(
                "stream_behind",
                match_id=match_id,
                stream_version=current,
                cached_version=record.version,
            )
            raise behind(match_id, current, f"this server saw version {record.version}")
        return await self._catch_up(record)

    def writing(self, match_id: str, *, fresh: bool = False) -> _Writing:
        """Hold the match's lock (one appender per match in this process) and give the record
        to append on: the cached one (a stale cache shows up as the append's CONFLICT), or with
        `fresh` the record caught up from the store. MatchError if the log is fenced (behind
        what this process saw acknowledged). Every append after a match's first entry (a move,
        a join, an ending, a timeout, a bot run) is made inside it."""
        return _Writing(self, match_id, fresh)

    async def _writable(self, record: MatchRecord) -> MatchRecord:
        """The record, unless its log is behind what this process saw acknowledged and an
        operator has not repaired it since."""
        fence = self._fences.get(record.match_id)
        if fence is None or record.version >= fence:
            return record
        repaired = await self.store.meta(record.match_id, "repaired")
        # A repair below what this process saw, that the log has reached: the operator
        # accepted the loss (another server may have played on from it since).
        if repaired is not None and int(repaired) < fence and int(repaired) <= record.version:
            del self._fences[record.match_id]
            return record
        raise behind(record.match_id, record.version, f"this server saw version {fence}")

    # ------------------------------------------------------------------ reading

    async def record(self, match_id: str) -> MatchRecord:
        """The match caught up with its log; NOT_FOUND if there is no such match."""
        limits.check_match_id(match_id)
        cached = self._cache.get(match_id)
        if cached is not None:
            self._cache.move_to_end(match_id)
            if cached.finished:
                return cached  # final: every append after the last entry refuses (MATCH_OVER)
            return await self._catch_up(cached)
        if (loaded := await self.snapshots.cold_load(match_id)) is not None:  # snapshot + tail
            return self._remember(loaded[0], loaded[1], fresh=True)
        stored = await self.log(match_id)
        return self._remember(
            await self._fold(match_id, None, stored), text_bytes(stored), fresh=True
        )

    async def current(self, match_id: str) -> MatchRecord:
        """The record, with no read of the log when the cache is the newest version heard."""
        if (cached := self._cache.get(match_id)) and self.feeds.current(match_id, cached.version):
            return cached
        return await self.record(match_id)

    async def _catch_up(self, record: MatchRecord) -> MatchRecord:
        stored = await self.store.read_after(record.match_id, record.version)
        if not stored:
            return record
        return self._remember(await self._fold(record.match_id, record, stored), text_bytes(stored))

    async def _fold(
        self, match_id: str, record: MatchRecord | None, stored: Sequence[StoredEntry]
    ) -> MatchRecord:
        """Fold entries into a record this process may decide on: the log withholds the match
        seed (docs/fairness.md §1), so the fold that crosses the start gets it back from the
        sealed server seed."""
        seed = None
        if (record is None or not record.started) and any(STARTS in s.text for s in stored):
            seed = await self.seeds.of(match_id)
        return fold_stored(record, stored, seed)

    async def game_of(self, match_id: str) -> Game:
        """The match's game (it never changes, so the cache answers without reading the log)."""
        limits.check_match_id(match_id)
        cached = self._cache.get(match_id)
        return cached.game if cached is not None else (await self.record(match_id)).game

    async def record_at(self, match_id: str, version: int) -> MatchRecord | None:
        """The record right after `version` (None for version 0); replays from the start."""
        limits.check_match_id(match_id)
        if version <= 0:
            return None
        stored = await self.store.read_after(match_id, 0, upto=version)
        if not stored:
            raise not_found(match_id)
        if stored[-1].version != version:
            raise MatchError(
                Kind.BAD_REQUEST,
                "NO_SUCH_VERSION",
                f"the match has no version {version} yet",
                match_id,
            )
        return fold_stored(None, stored)

    async def log(self, match_id: str) -> list[StoredEntry]:
        """Every entry of the match, as stored."""
        limits.check_match_id(match_id)
        stored = await self.store.read_after(match_id, 0)
        if not stored:
            raise not_found(match_id)
        return stored

    async def authenticate(self, match_id: str, token: str | None) -> Viewer:
        """The viewer a bearer token stands for in this match (None: a spectator)."""
        if token is None:
            return Viewer(None)
        if self._arbiter and hmac.compare_digest(token.encode(), self._arbiter.encode()):
            return Viewer(None, arbiter=True)
        if not limits.TOKEN.fullmatch(token):
            raise MatchError(
                Kind.UNAUTHENTICATED, "MALFORMED_TOKEN", "the bearer token is malformed", match_id
            )
        digest = token_hash(token)
        seat = self._tokens.get((match_id, digest))
        if seat is None:
            value = await self.store.meta(match_id, f"tok:{digest}")
            if value is None:
                await self.record(match_id)  # NOT_FOUND beats a token error for unknown matches
                raise MatchError(
                    Kind.UNAUTHENTICATED,
                    "BAD_TOKEN",
                    "this token belongs to no seat of this match",
                    match_id,
                )
            seat = int(value)
            self._tokens[(match_id, digest)] = seat
        return Viewer(seat)

    # ------------------------------------------------------------------ watching

    async def updates(
        self, match_id: str, from_version: int, sink: Callable[[Step], object] | None = None
    ) -> AsyncGenerator[Step, None]:
        """Every entry after `from_version` with the record after it, waiting for new ones;
        ends after the entry that finishes the match. Reads go through the watchers' own
        connections, so any number of watchers never starves moves. With `sink`, the steps
        this process appends are handed to it from within their appends (Feeds.follow), in
        order with the ones yielded: no task is woken for them (a PlaySession's follower)."""
        limits.check_match_id(match_id)
        stored = await self.store.read_watched(match_id, 0)
        if not stored:
            raise not_found(match_id)
        if not 0 <= from_version <= stored[-1].version:
            raise MatchError(
                Kind.BAD_REQUEST,
                "NO_SUCH_VERSION",
                f"from_version must be 0..{stored[-1].version}",
                match_id,
            )
        record = fold_stored(None, stored[:from_version]) if from_version else None
        if record is not None and record.finished:
            return
        version, pending = from_version, stored[from_version:]
        while True:
            for item in pending:
                entry = Entry.from_canonical(item.text)
                record = apply_entry(record, entry, item.hash)
                version = item.version
                yield Step(entry, tuple(decode_events(record.game, entry)), record)
                if record.finished:
                    return
            if sink is not None:
                last = await self.feeds.follow(match_id, version, sink)
                if last is not None:  # the last step the sink was handed
                    record, version = last.record, last.record.version
                for step in self.feeds.steps_after(match_id, version) or []:
                    sink(step)  # kept while the follow was not on (no read, no fold)
                    record, version = step.record, step.record.version
                if record is not None and record.finished:
                    return
            else:
                await self.feeds.wait(match_id, version)
                async for step in self.feeds.own_steps(match_id, version):  # no read, no fold
                    record, version = step.record, step.record.version
                    yield step
                    if record.finished:
                        return
            pending = await self.store.read_watched(match_id, version)

    def forget_tokens(self, match_id: str | None = None, digest: str | None = None) -> None:
        """Drop a revoked token hash of a match (no arguments: every one) from the cache."""
        for key in [k for k in self._tokens if match_id is None or k == (match_id, digest)]:
            del self._tokens[key]

    async def close(self) -> None:
        """Stop the feed readers; let the snapshot writes in flight finish."""
        self.feeds.close()
        await self.snapshots.settle()

    # ------------------------------------------------------------------ receipts

    def receipt(self, step: Step) -> Receipt | None:
        """The signed receipt of a step's entry (None without a signer): every answer that
        appends, and every watched update, carries one (docs/fairness.md §6)."""
        record = step.record
        return self.receipts.sign(
            record.match_id, step.entry.version, record.head, record.created.commitment
        )

    # ------------------------------------------------------------------ helpers

    def now_ms(self) -> int:
        """The server's clock, in ms: the only clock a match's times come from."""
        return int(self._clock() * 1000)

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > 2 * self.cache_size:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[match_id] = asyncio.Lock()
        return lock

    def _remember(self, record: MatchRecord, added: int = 0, *, fresh: bool = False) -> MatchRecord:
        """Cache `record`, whose fold took `added` more bytes of log text (all of it when
        `fresh`), evicting the least recently used matches past either bound."""
        match_id = record.match_id
        self._cache[match_id] = record
        self._cache.move_to_end(match_id)
        before = 0 if fresh else self._sizes.get(match_id, 0)
        self._cached_bytes += before + added - self._sizes.get(match_id, 0)
        self._sizes[match_id] = before + added
        while len(self._cache) > 1 and (
            len(self._cache) > self.cache_size or self._cached_bytes > self.cache_bytes
        ):
            evicted, _ = self._cache.popitem(last=False)
            self._cached_bytes -= self._sizes.pop(evicted, 0)
        return record

    def _forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)
        self._cached_bytes -= self._sizes.pop(match_id, 0)

    async def committed(self, before: MatchRecord | None, step: Step) -> None:
        """After the store took `step` (appended on `before`): the cache, the watchers, the
        snapshots and the listeners hear of it, then the owner's feed (platform/publisher.py).
        Every append of a move, a join, an ending or a bot run goes through here."""
        self._appended(step)
        await appended(self.platform, before, step)

    async def committed_run(self, before: MatchRecord, steps: list[Step]) -> None:
        """After the store took a run of steps as one append (engine/runs.py): the watchers
        and the snapshots hear of every step; the cache, the listeners and the owner's feed
        hear of the run's end, as of one append (a run's phase changes at its end only: a
        finishing step ends it)."""
        for step in steps:
            self.feeds.appended(step)
            self.snapshots.maybe_take(step.record)
        last = steps[-1]
        self._remember(last.record, sum(len(s.text) for s in steps))
        self._tell(last)
        await appended(self.platform, steps[-2].record if len(steps) > 1 else before, last)

    def _appended(self, step: Step) -> None:
        self._remember(step.record, len(step.text))
        self.feeds.appended(step)
        self.snapshots.maybe_take(step.record)
        self._tell(step)

    async def deadline_before(self, before: MatchRecord | None, step: Step) -> None:
        """Before appending `step` on `before`: store the deadline it makes due, if it makes one
        due that was not (engine/deadlines.py), and tell the alarm listeners."""
        at = await before_append(self.store, before, step)
        if at is not None:
            for listener in self.alarm_listeners:
                listener(step.record.match_id, at, step.record.version)

    def _tell(self, step: Step) -> None:
        for listener in self.listeners:
            try:
                listener(step)
            except Exception:  # a listener's bug must not fail the move that was appended
                log.exception("listener_failed", match_id=step.record.match_id)
