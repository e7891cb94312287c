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
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

import structlog

from kozyr.core.cards import Card
from kozyr.core.receipts import Receipt
from kozyr.engine import writing
from kozyr.engine.answers import Created, Joined, Viewer
from kozyr.engine.creation import created_earlier, fingerprint_of, first_meta, seat_tokens
from kozyr.engine.folding import fold_stored, starts, text_bytes
from kozyr.engine.lifecycle_listener import LifecycleListener
from kozyr.engine.refusals import behind, check_expected, not_found, rolled_back
from kozyr.engine.snapshots import Snapshots
from kozyr.engine.wakeups import Feeds
from kozyr.games import Game, get_game
from kozyr.games.contract import Setup
from kozyr.match import clock, lifecycle, limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.match.lifecycle import Step
from kozyr.match.log import Entry, MatchTerms, command_key, decode_events
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.secrets.seedbox import SeedBox
from kozyr.secrets.seeds import Seeds
from kozyr.secrets.signing import EntryReceipts, Signer
from kozyr.secrets.tlog import TransparencyLog
from kozyr.secrets.tokens import (
    new_token,
    request_match_id,
    seal,
    token_hash,
)
from kozyr.store.port import Store, StoredEntry, store_full

log = structlog.get_logger("kozyr.engine")


class Engine:
    """Matches on an event store, with a per-process state cache and per-match serialization."""

    def __init__(
        self,
        store: Store,
        *,
        cache_size: int = 10_000,
        cache_bytes: int = 512 * 2**20,
        max_retries: int = 16,
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
        self._clock = clock
        self._random = random_bytes
        self._cache: OrderedDict[str, MatchRecord] = OrderedDict()
        self.locks: dict[str, asyncio.Lock] = {}  # one per match (engine/writing.py)
        self._tokens: dict[tuple[str, str], int] = {}
        # The highest version this process saw acknowledged, for matches whose log fell behind
        # it: their writes stay refused until an operator repairs the log (never written over).
        self.fences: dict[str, int] = {}
        self.feeds = Feeds(store, writing=self._writing)
        self.snapshots = Snapshots(store, self.forget, self.seeds.of)  # see snapshots.py
        # Called after every append this process made, with its step (a run's last: see
        # writing.committed), by the seat bots and the timers: never blocks.
        self.listeners: list[Callable[[Step], None]] = []
        # Told (match id, alarm, version) when an alarm is stored before its append (the timers:
        # the same alarm is not written again after it).
        self.alarm_listeners: list[Callable[[str, int, int], None]] = []
        # Hears of creations and appends: the tenants' feed and lobby (kozyr.platform), wired
        # by the composition root (server/bootstrap.py); None: nobody keeps such a view.
        self.lifecycle: LifecycleListener | None = None
        # The transparency log of this host (wired by the composition root; None: none): a
        # match the store holds behind what it says is refused (MATCH_ROLLED_BACK).
        self.tlog: TransparencyLog | None = None

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
        tokens = seat_tokens(step.record, seats, self._random)
        meta = first_meta(step.record, tenant, tokens, self.seeds.meta(match_id, server_seed))
        body = fingerprint_of(created) if request_id else ""  # only a retry compares it
        if request_id:
            meta["request"] = seal(request_id, match_id, tokens, body, now)
        if self.lifecycle is not None:
            await self.lifecycle.creating(tenant, match_id)
        status, step = await writing.append_first(self, step, meta)
        if status == "CONFLICT" and request_id:
            return await created_earlier(self, request_id, match_id, body, now)
        if status == "FULL":
            raise store_full()
        if status == "BEHIND":
            raise behind(match_id, 0, "the store had acknowledged entries of it")
        if status != "OK":  # pragma: no cover - a fresh random id cannot collide in practice
            raise MatchError(Kind.INTERNAL, "ID_COLLISION", "match id collision, retry")
        self.remember(step.record, len(step.text), fresh=True)
        self.seeds.keep(match_id, server_seed)
        self.tell(step)
        await self.appended(None, step, tenant)
        return Created(match_id, tokens, 1, created.commitment, self.receipt(step))

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
        meta: dict[str, str] = {}
        chosen = -1

        async def build(record: MatchRecord, now: int) -> list[Step]:
            nonlocal chosen
            chosen = lifecycle.choose_seat(record, seat)
            seed = await self.seeds.of(match_id) if lifecycle.join_starts(record) else None
            meta.clear()
            meta[f"tok:{token_hash(token)}"] = str(chosen)
            step = lifecycle.join(
                record, chosen, name, contribution, server_seed=seed, time_ms=now, user=user
            )
            return [step]

        busy = "the match is busy; try joining again"
        (step,) = await writing.write(self, match_id, "", build, fresh=True, meta=meta, busy=busy)
        return Joined(
            chosen,
            token,
            step.record.version,
            step.record.started,
            step.record.created.commitment,
            self.receipt(step),
        )

    async def contribute(self, match_id: str, seat: int, contribution: bytes) -> Step:
        """A seat named at creation gives its seed contribution, after the commitment
        (docs/fairness.md §1); the last one the match waits for starts it."""
        limits.check_contribution(contribution)

        async def build(record: MatchRecord, now: int) -> list[Step]:
            starts = lifecycle.contribution_starts(record) and seat in record.awaiting
            seed = await self.seeds.of(match_id) if starts else None
            return [lifecycle.contribute(record, seat, contribution, server_seed=seed, time_ms=now)]

        busy = "the match is busy; try contributing again"
        (step,) = await writing.write(self, match_id, "", build, fresh=True, busy=busy)
        return step

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

        async def build(record: MatchRecord, now: int) -> list[Step]:
            check_expected(record, expected_version, seat)
            decision = lifecycle.decide(record, seat, command)
            clock.check_in_time(record, seat, now)
            seed = await self.seeds.of(match_id) if decision.finishes else None
            return [
                lifecycle.play(
                    record, decision, command_id, server_seed=seed, time_ms=now, actor=actor
                )
            ]

        def refused(record: MatchRecord) -> None:
            if expected_version is not None and expected_version > record.version:
                raise MatchError(
                    Kind.BAD_REQUEST,
                    "BAD_EXPECTED_VERSION",
                    f"the match is only at version {record.version}, not {expected_version}",
                    match_id,
                    seat,
                ) from None

        key = command_key(seat, command_id)
        return (await writing.write(self, match_id, key, build, refused=refused, seat=seat))[-1]

    async def server_seed(self, match_id: str) -> bytes:
        """The match's server seed (for an entry that finishes the match or deals)."""
        return await self.seeds.of(match_id)

    # ------------------------------------------------------------------ reading

    async def record(self, match_id: str) -> MatchRecord:
        """The match caught up with its log; NOT_FOUND if there is no such match."""
        limits.check_match_id(match_id)
        cached = self._cache.get(match_id)
        if cached is not None:
            self._cache.move_to_end(match_id)
            if cached.finished:
                return cached  # final: every append after the last entry refuses (MATCH_OVER)
            return await self.catch_up(cached)
        if (loaded := await self.snapshots.cold_load(match_id)) is not None:  # snapshot + tail
            return self.remember(self.against_log(loaded[0]), loaded[1], fresh=True)
        stored = await self.log(match_id)
        record = self.against_log(await self._fold(match_id, None, stored))
        return self.remember(record, text_bytes(stored), fresh=True)

    def against_log(self, record: MatchRecord) -> MatchRecord:
        """The record loaded from the store, unless the transparency log contradicts it."""
        if self.tlog is not None:
            why = self.tlog.contradiction(
                record.match_id, record.version, record.head, record.created.commitment
            )
            if why is not None:
                raise rolled_back(record.match_id, why)
        return record

    def stored_against_log(self, match_id: str, stored: Sequence[StoredEntry]) -> None:
        """Refuse entries read from the store that the transparency log contradicts (none
        at all: NOT_FOUND, or MATCH_ROLLED_BACK for a match the log holds)."""
        if self.tlog is not None:
            last = stored[-1] if stored else StoredEntry(0, "", "")
            why = self.tlog.contradiction(match_id, last.version, last.hash)
            if why is not None:
                raise rolled_back(match_id, why)
        if not stored:
            raise not_found(match_id)

    async def current(self, match_id: str) -> MatchRecord:
        """The record, with no read of the log when the cache is the newest version heard."""
        if (cached := self._cache.get(match_id)) and self.feeds.current(match_id, cached.version):
            return cached
        return await self.record(match_id)

    async def catch_up(self, record: MatchRecord) -> MatchRecord:
        """The record with the entries the store has after it."""
        stored = await self.store.read_after(record.match_id, record.version)
        if not stored:
            return record
        return self.remember(await self._fold(record.match_id, record, stored), text_bytes(stored))

    async def _fold(
        self, match_id: str, record: MatchRecord | None, stored: Sequence[StoredEntry]
    ) -> MatchRecord:
        """Fold entries into a record this process may decide on: the log withholds the match
        seed (docs/fairness.md §1), so the fold that crosses the start gets it back from the
        sealed server seed."""
        entries = [(Entry.from_canonical(item.text), item.hash) for item in stored]
        seed = None
        if (record is None or not record.started) and any(starts(e) for e, _ in entries):
            seed = await self.seeds.of(match_id)
        for entry, digest in entries:
            record = apply_entry(record, entry, digest, seed)
        assert record is not None
        return record

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
        self.stored_against_log(match_id, stored)
        return stored

    async def authenticate(self, match_id: str, token: str | None) -> Viewer:
        """The seat a bearer token stands for in this match (None: a spectator). The arbiter's
        token is the api's to check (api/auth/arbiter.viewer_of), not a seat's."""
        if token is None:
            return Viewer(None)
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
        self.stored_against_log(match_id, stored)
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
                receipt = Receipt.from_seal(
                    match_id, item.version, item.hash, record.created.commitment, item.seal
                )
                yield Step(entry, tuple(decode_events(record.game, entry)), record, receipt=receipt)
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
        """The receipt signed when the step's entry was appended (None without a signer, or
        for an entry stored without one): every answer that appends, and every watched update,
        carries it as it was stored - nothing is signed on a read (docs/fairness.md §6)."""
        return step.receipt

    # ------------------------------------------------------------------ helpers

    def _writing(self, match_id: str) -> bool:
        """Whether an append to the match is under way here (its lock is held)."""
        lock = self.locks.get(match_id)
        return lock is not None and lock.locked()

    def now_ms(self) -> int:
        """The server's clock, in ms: the only clock a match's times come from."""
        return int(self._clock() * 1000)

    def remember(self, record: MatchRecord, added: int = 0, *, fresh: bool = False) -> MatchRecord:
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

    def cached(self, match_id: str) -> MatchRecord | None:
        """The cached record of the match (None: not cached), as it is."""
        return self._cache.get(match_id)

    def forget(self, match_id: str) -> None:
        """Drop the match from the record cache."""
        self._cache.pop(match_id, None)
        self._cached_bytes -= self._sizes.pop(match_id, 0)

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """After an append: the lifecycle listener hears of it."""
        if self.lifecycle is not None:
            await self.lifecycle.appended(before, step, tenant)

    def tell(self, step: Step) -> None:
        """Tell the listeners of an appended step (a listener's bug never fails it)."""
        for listener in self.listeners:
            try:
                listener(step)
            except Exception:  # a listener's bug must not fail the move that was appended
                log.exception("listener_failed", match_id=step.record.match_id)
