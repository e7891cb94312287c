"""The application shell: create and join matches, handle a move, serve views and the log.

The flow of one move (DESIGN.md): the per-match lock serializes commands inside this process;
the game decides on the cached record; the entry is appended by one Lua call that checks the
expected version; on CONFLICT (another process wrote first) the record catches up from the stream
and the command is decided again, a bounded number of times.

A move is decided on the cached record *before* reading the stream: in the usual case (this
process is the match's only writer) the append is the move's only Redis round trip. A stale cache
shows up as CONFLICT, or as an IllegalMove that we double-check on a caught-up record, so a
second process can never make us wrong, only slower.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import redis.exceptions
import structlog

from kozyr.cards import Card
from kozyr.engine.errors import EngineError, Kind, bad_request
from kozyr.engine.log import (
    GENESIS_HASH,
    SYSTEM_SEAT,
    Entry,
    MatchCreated,
    MatchRecord,
    SeatJoined,
    SeedRevealed,
    apply_entry,
    command_key,
    decode_events,
    encode_events,
    entry_hash,
    match_seed,
)
from kozyr.engine.store import EventStore, StoredEntry
from kozyr.fairness import commitment
from kozyr.games import Game, IllegalMove, InvalidOptions, get_game
from kozyr.games.base import Setup
from kozyr.games.codec import encode

log = structlog.get_logger("kozyr.engine")
T = TypeVar("T")
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
COMMAND_ID = re.compile(r"^[\x21-\x7e]{1,64}$")
MAX_NAME = 64
MAX_CONTRIBUTION = 64
MAX_REQUEST_ID = 128
TOKEN_BYTES = 32


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat's secret bearer token, returned once."""

    seat: int
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class Created:
    """The result of creating a match."""

    match_id: str
    tokens: tuple[SeatToken, ...]
    version: int


@dataclass(frozen=True, slots=True)
class Joined:
    """The result of joining a match."""

    seat: int
    token: str
    version: int
    started: bool


@dataclass(frozen=True, slots=True)
class Applied:
    """An entry, its decoded events and the record right after it (a move's answer, or one
    watched update)."""

    entry: Entry
    events: tuple[Any, ...]
    record: MatchRecord


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is calling: a seat, a spectator (seat None) or the arbiter."""

    seat: int | None
    arbiter: bool = False


class Engine:
    """Matches on an event store, with a per-process state cache and per-match serialization."""

    def __init__(
        self,
        store: EventStore,
        *,
        cache_size: int = 10_000,
        max_retries: int = 16,
        arbiter_token: str | None = None,
        clock: Callable[[], float] = time.time,
        random_bytes: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.store = store
        self.cache_size = cache_size
        self.max_retries = max_retries
        self._arbiter = arbiter_token
        self._clock = clock
        self._random = random_bytes
        self._cache: OrderedDict[str, MatchRecord] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._tokens: dict[tuple[str, str], int] = {}
        self._feeds: dict[str, _Feed] = {}

    # ------------------------------------------------------------------ creation and joining

    async def create(
        self,
        game_name: str,
        options: Mapping[str, str],
        seats: Sequence[tuple[str, bytes]],
        *,
        request_id: str = "",
        first_dealer: int | None = None,
        decks: Sequence[Sequence[Card]] = (),
        dice: Sequence[Sequence[int]] = (),
    ) -> Created:
        """Create a match; start it at once when every seat is named."""
        try:
            game = get_game(game_name)
        except KeyError as e:
            raise bad_request("UNKNOWN_GAME", str(e.args[0])) from None
        players = len(seats)
        if not game.MIN_PLAYERS <= players <= game.MAX_PLAYERS:
            raise bad_request(
                "BAD_PLAYER_COUNT",
                f"{game.TITLE} takes {game.MIN_PLAYERS}–{game.MAX_PLAYERS} seats, not {players}",
            )
        for name, contribution in seats:
            _check_name(name, allow_empty=True)
            _check_contribution(contribution)
        if len(request_id) > MAX_REQUEST_ID:
            raise bad_request("FIELD_TOO_LONG", f"request_id is over {MAX_REQUEST_ID} characters")
        setup = Setup(first_dealer=first_dealer, decks=tuple(tuple(d) for d in decks),
                      dice=tuple(tuple(r) for r in dice))
        try:
            config = game.make_config(dict(options), players)
            # A dry start refuses bad setups (first dealer, deck contents) at creation.
            game.start(config, [n or f"seat {i}" for i, (n, _) in enumerate(seats)],
                       b"\x00" * 32, setup)
        except InvalidOptions as e:
            raise EngineError(Kind.BAD_REQUEST, e.code, e.message, rule=e.rule) from None
        except (IndexError, ValueError) as e:
            raise bad_request("BAD_SETUP", f"the match setup is invalid: {e}") from None

        match_id = secrets.token_hex(8)
        tokens = tuple(SeatToken(i, name, _new_token(self._random))
                       for i, (name, _) in enumerate(seats) if name)
        if request_id:
            sealed = _seal(request_id, match_id, tokens)
            earlier = await self._guard(self.store.claim_request(request_id, sealed))
            if earlier is not None:
                return await self._created_earlier(request_id, earlier)

        server_seed = self._random(32)
        created = MatchCreated(
            match_id=match_id,
            game=game.NAME,
            rules_version=game.RULES_VERSION,
            options=tuple(sorted((k, str(v)) for k, v in options.items())),
            seats=tuple(name for name, _ in seats),
            contributions=tuple(c.hex() for _, c in seats),
            commitment=commitment(server_seed),
            prearranged=setup.prearranged,
            first_dealer=first_dealer,
            decks=setup.decks,
            dice=setup.dice,
        )
        waiting = MatchRecord(match_id, game, created, created.seats, created.contributions)
        events = [created, *self._start_events(waiting, server_seed)]
        entry = self._entry(1, SYSTEM_SEAT, "", None, events, GENESIS_HASH)
        meta = {"game": game.NAME, "server_seed": server_seed.hex()}
        meta.update({f"tok:{_token_hash(t.token)}": str(t.seat) for t in tokens})
        text = entry.canonical()
        digest = entry_hash(text)
        status, _ = await self._guard(self.store.append(match_id, 0, "", text, digest, meta))
        if status != "OK":  # pragma: no cover - a fresh random id cannot collide in practice
            raise EngineError(Kind.INTERNAL, "ID_COLLISION", "match id collision, retry")
        self._remember(apply_entry(None, entry, digest))
        return Created(match_id, tokens, 1)

    async def _created_earlier(self, request_id: str, sealed: str) -> Created:
        match_id, tokens = _unseal(request_id, sealed)
        for _ in range(50):  # the first creator may still be writing the match
            if await self._guard(self.store.version(match_id)):
                break
            await asyncio.sleep(0.02)
        return Created(match_id, tokens, 1)

    async def join(
        self, match_id: str, name: str, seat: int | None = None, contribution: bytes = b""
    ) -> Joined:
        """Claim an open seat (the first open one when `seat` is None)."""
        _check_name(name, allow_empty=False)
        _check_contribution(contribution)
        token = _new_token(self._random)
        async with self._lock(match_id):
            record = await self.record(match_id)
            for _ in range(self.max_retries):
                open_seats = record.open_seats
                if seat is not None and not 0 <= seat < record.players:
                    raise EngineError(Kind.BAD_REQUEST, "NOT_A_SEAT",
                                      f"there is no seat {seat} in this match", match_id)
                if not open_seats or (seat is not None and seat not in open_seats):
                    raise EngineError(
                        Kind.RULES, "SEAT_TAKEN",
                        "every seat is taken" if not open_seats else f"seat {seat} is taken",
                        match_id,
                    )
                chosen = open_seats[0] if seat is None else seat
                events: list[Any] = [SeatJoined(chosen, name, contribution.hex())]
                trial = apply_entry(
                    record, self._entry(record.version + 1, chosen, "", None, events, record.head)
                )
                if not trial.open_seats:
                    server_seed = await self._server_seed(match_id)
                    events += self._start_events(trial, server_seed)
                entry = self._entry(record.version + 1, chosen, "", None, events, record.head)
                text = entry.canonical()
                digest = entry_hash(text)
                status, version = await self._guard(self.store.append(
                    match_id, record.version, "", text, digest,
                    {f"tok:{_token_hash(token)}": str(chosen)},
                ))
                if status == "OK":
                    record = self._remember(apply_entry(record, entry, digest))
                    self._wake(match_id, record.version)
                    return Joined(chosen, token, record.version, record.started)
                if status == "GAP":
                    raise self._gap(record)
                record = await self._conflict(record, version)
        raise EngineError(Kind.CONFLICT, "TOO_MANY_CONFLICTS",
                          "the match is busy; try joining again", match_id)

    def _start_events(self, record: MatchRecord, server_seed: bytes) -> list[Any]:
        if record.open_seats:
            return []
        game = record.game
        config = game.make_config(record.options, record.players)
        seed = match_seed(server_seed, [bytes.fromhex(c) for c in record.contributions])
        return list(game.start(config, list(record.names), seed, record.setup()))

    # ------------------------------------------------------------------ reading

    async def record(self, match_id: str) -> MatchRecord:
        """The match caught up with its stream; NOT_FOUND if there is no such match."""
        _check_match_id(match_id)
        cached = self._cache.get(match_id)
        if cached is not None:
            self._cache.move_to_end(match_id)
            return await self._catch_up(cached)
        return await self._load(match_id)

    async def _load(self, match_id: str) -> MatchRecord:
        stored = await self._guard(self.store.read_after(match_id, 0))
        if not stored:
            raise EngineError(Kind.NOT_FOUND, "MATCH_NOT_FOUND",
                              f"there is no match {match_id!r}", match_id)
        return self._remember(_fold_stored(None, stored))

    async def _catch_up(self, record: MatchRecord) -> MatchRecord:
        stored = await self._guard(self.store.read_after(record.match_id, record.version))
        if not stored:
            return record
        return self._remember(_fold_stored(record, stored))

    async def game_of(self, match_id: str) -> Game:
        """The match's game (it never changes, so the cache answers without reading Redis)."""
        _check_match_id(match_id)
        cached = self._cache.get(match_id)
        return cached.game if cached is not None else (await self._load(match_id)).game

    async def record_at(self, match_id: str, version: int) -> MatchRecord | None:
        """The record right after `version` (None for version 0); replays from the start."""
        _check_match_id(match_id)
        if version <= 0:
            return None
        stored = await self._guard(self.store.read_after(match_id, 0, upto=version))
        if not stored:
            raise EngineError(Kind.NOT_FOUND, "MATCH_NOT_FOUND",
                              f"there is no match {match_id!r}", match_id)
        if stored[-1].version != version:
            raise EngineError(Kind.BAD_REQUEST, "NO_SUCH_VERSION",
                              f"the match has no version {version} yet", match_id)
        return _fold_stored(None, stored)

    async def log(self, match_id: str) -> list[StoredEntry]:
        """Every entry of the match, as stored."""
        _check_match_id(match_id)
        stored = await self._guard(self.store.read_after(match_id, 0))
        if not stored:
            raise EngineError(Kind.NOT_FOUND, "MATCH_NOT_FOUND",
                              f"there is no match {match_id!r}", match_id)
        return stored

    async def authenticate(self, match_id: str, token: str | None) -> Viewer:
        """The viewer a bearer token stands for in this match (None: a spectator)."""
        if token is None:
            return Viewer(None)
        if self._arbiter and hmac.compare_digest(token, self._arbiter):
            return Viewer(None, arbiter=True)
        if not re.fullmatch(r"[A-Za-z0-9_-]{16,128}", token):
            raise EngineError(Kind.UNAUTHENTICATED, "MALFORMED_TOKEN",
                              "the bearer token is malformed", match_id)
        digest = _token_hash(token)
        seat = self._tokens.get((match_id, digest))
        if seat is None:
            value = await self._guard(self.store.meta(match_id, f"tok:{digest}"))
            if value is None:
                await self.record(match_id)  # NOT_FOUND beats a token error for unknown matches
                raise EngineError(Kind.UNAUTHENTICATED, "BAD_TOKEN",
                                  "this token belongs to no seat of this match", match_id)
            seat = int(value)
            self._tokens[(match_id, digest)] = seat
        return Viewer(seat)

    # ------------------------------------------------------------------ moves

    async def submit(
        self,
        match_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None = None,
    ) -> Applied:
        """Decide and append one command; the same (seat, command_id) again answers the same."""
        if not COMMAND_ID.match(command_id):
            raise bad_request("BAD_COMMAND_ID",
                              "command_id must be 1–64 printable ASCII characters without spaces")
        key = command_key(seat, command_id)
        async with self._lock(match_id):
            record = self._cache.get(match_id) or await self.record(match_id)
            fresh = False
            for _ in range(self.max_retries):
                if expected_version is not None and expected_version != record.version:
                    if not fresh:
                        record, fresh = await self._catch_up(record), True
                        continue
                    if (answer := await self._repeated(match_id, key)) is not None:
                        return answer
                    raise EngineError(
                        Kind.CONFLICT, "STALE_VERSION",
                        f"the match is at version {record.version}, not {expected_version}",
                        match_id, seat)
                try:
                    events = self._decide(record, seat, command)
                except EngineError:
                    if not fresh:
                        record, fresh = await self._catch_up(record), True
                        continue
                    if (answer := await self._repeated(match_id, key)) is not None:
                        return answer
                    raise
                state = _fold_game(record, events)
                revealed = ""
                if record.game.outcome(state) is not None:
                    revealed = (await self._server_seed(match_id)).hex()
                    events = (*events, SeedRevealed(revealed, record.head))
                entry = self._entry(record.version + 1, seat, command_id, encode(command),
                                    events, record.head)
                text = entry.canonical()
                digest = entry_hash(text)
                status, version = await self._guard(
                    self.store.append(match_id, record.version, key, text, digest))
                if status == "OK":
                    # The events are already folded: build the next record directly rather than
                    # decoding the entry we just encoded.
                    record = self._remember(replace(
                        record, state=state, version=entry.version, head=digest,
                        revealed_seed=revealed or record.revealed_seed))
                    self._wake(match_id, record.version)
                    return Applied(entry, events, record)
                if status == "DUPLICATE":
                    return await self._answer_at(match_id, version)
                if status == "GAP":
                    raise self._gap(record)
                record, fresh = await self._conflict(record, version), True
        raise EngineError(Kind.CONFLICT, "TOO_MANY_CONFLICTS",
                          "too many concurrent writers on this match; try again", match_id, seat)

    def _decide(self, record: MatchRecord, seat: int, command: Any) -> tuple[Any, ...]:
        if not record.started:
            raise EngineError(Kind.RULES, "NOT_STARTED",
                              "the match waits for players to join", record.match_id, seat)
        try:
            return tuple(record.game.decide(record.state, seat, command))
        except IllegalMove as e:
            raise EngineError(Kind.RULES, e.code, e.message, record.match_id, seat,
                              rule=e.rule) from None

    async def _repeated(self, match_id: str, key: str) -> Applied | None:
        """The recorded answer if this command was already appended (a retry), else None."""
        earlier = await self._guard(self.store.command_version(match_id, key))
        return None if earlier is None else await self._answer_at(match_id, earlier)

    async def _answer_at(self, match_id: str, version: int) -> Applied:
        """The recorded answer of the entry at `version` (for a repeated command)."""
        cached = self._cache.get(match_id)
        if cached is not None and cached.version == version:
            record = cached
            stored = await self._guard(self.store.read_after(match_id, version - 1, upto=version))
        else:  # one read serves both the replay and the entry itself
            stored = await self._guard(self.store.read_after(match_id, 0, upto=version))
            record = _fold_stored(None, stored)
        entry = Entry.from_canonical(stored[-1].text)
        return Applied(entry, tuple(decode_events(record.game, entry)), record)

    def _gap(self, record: MatchRecord) -> EngineError:
        self._cache.pop(record.match_id, None)
        log.error("stream_gap", match_id=record.match_id, version=record.version)
        return EngineError(Kind.UNAVAILABLE, "STREAM_DAMAGED",
                           "the match's event stream had entries deleted; an operator must "
                           "repair it before play can go on", record.match_id)

    async def _conflict(self, record: MatchRecord, current: int) -> MatchRecord:
        if current < record.version:
            # The stream lost entries we had seen (e.g. a failover dropped its tail): never write
            # over it. Forget the cache so the next request reloads what the store really holds.
            self._cache.pop(record.match_id, None)
            log.error("stream_behind", match_id=record.match_id, stream_version=current,
                      cached_version=record.version)
            raise EngineError(
                Kind.UNAVAILABLE, "STREAM_BEHIND",
                f"the event store is behind this server (at {current}, saw {record.version}); "
                "retry shortly", record.match_id)
        return await self._catch_up(record)

    # ------------------------------------------------------------------ watching

    async def updates(self, match_id: str, from_version: int) -> AsyncGenerator[Applied, None]:
        """Every entry after `from_version` with the record after it, waiting for new ones;
        ends after the entry that finishes the match."""
        current = await self.record(match_id)
        if from_version < 0 or from_version > current.version:
            raise EngineError(Kind.BAD_REQUEST, "NO_SUCH_VERSION",
                              f"from_version must be 0..{current.version}", match_id)
        record = await self.record_at(match_id, from_version)
        version = from_version
        if record is not None and record.finished:
            return
        while True:
            stored = await self._guard(self.store.read_after(match_id, version))
            for item in stored:
                entry = Entry.from_canonical(item.text)
                record = apply_entry(record, entry, item.hash)
                version = item.version
                yield Applied(entry, tuple(decode_events(record.game, entry)), record)
                if record.finished:
                    return
            await self._wait(match_id, version)

    async def _wait(self, match_id: str, version: int, timeout: float = 5.0) -> None:
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = _Feed()
            feed.task = asyncio.create_task(self._read_feed(match_id, feed))
        feed.watchers += 1
        try:
            async with feed.cond:
                await asyncio.wait_for(feed.cond.wait_for(lambda: feed.top > version), timeout)
        except TimeoutError:
            pass
        finally:
            feed.watchers -= 1

    async def _read_feed(self, match_id: str, feed: _Feed) -> None:
        """One blocking reader per watched match per process; wakes that match's watchers."""
        try:
            feed.top = max(feed.top, await self.store.version(match_id))
            async with feed.cond:
                feed.cond.notify_all()
            while feed.watchers > 0:
                top = await self.store.wait_after(match_id, feed.top, block_ms=1000)
                if top > feed.top:
                    feed.top = top
                    async with feed.cond:
                        feed.cond.notify_all()
        except (redis.exceptions.RedisError, OSError):
            await asyncio.sleep(0.5)  # watchers fall back to their timeout and re-read
        finally:
            if self._feeds.get(match_id) is feed:
                del self._feeds[match_id]

    def _wake(self, match_id: str, version: int) -> None:
        feed = self._feeds.get(match_id)
        if feed is not None and version > feed.top:
            feed.top = version

            async def notify() -> None:
                async with feed.cond:
                    feed.cond.notify_all()

            asyncio.get_running_loop().create_task(notify())

    async def close(self) -> None:
        """Stop the feed readers."""
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
        self._feeds.clear()

    # ------------------------------------------------------------------ helpers

    def _entry(self, version: int, seat: int, command_id: str, command: Any,
               events: Sequence[Any], prev: str) -> Entry:
        return Entry(
            version=version,
            seat=seat,
            command_id=command_id,
            command=command,
            events=encode_events(events),
            time_ms=int(self._clock() * 1000),
            prev=prev,
        )

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > 2 * self.cache_size:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[match_id] = asyncio.Lock()
        return lock

    def _remember(self, record: MatchRecord) -> MatchRecord:
        self._cache[record.match_id] = record
        self._cache.move_to_end(record.match_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return record

    async def _server_seed(self, match_id: str) -> bytes:
        value = await self._guard(self.store.meta(match_id, "server_seed"))
        if value is None:
            raise EngineError(Kind.INTERNAL, "SEED_MISSING", "the match's seed is missing",
                              match_id)
        return bytes.fromhex(value)

    async def _guard(self, awaitable: Awaitable[T]) -> T:
        """Await a store call, turning a lost Redis into UNAVAILABLE."""
        try:
            return await awaitable
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as e:
            raise EngineError(Kind.UNAVAILABLE, "STORE_UNAVAILABLE",
                              "the event store is unreachable; retry shortly") from e
        except redis.exceptions.BusyLoadingError as e:
            raise EngineError(Kind.UNAVAILABLE, "STORE_LOADING",
                              "the event store is loading its data; retry shortly") from e


class _Feed:
    """The watchers of one match in this process and the highest version seen."""

    def __init__(self) -> None:
        self.cond = asyncio.Condition()
        self.top = 0
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None


def _fold_stored(record: MatchRecord | None, stored: Sequence[StoredEntry]) -> MatchRecord:
    for item in stored:
        record = apply_entry(record, Entry.from_canonical(item.text), item.hash)
    assert record is not None
    return record


def _fold_game(record: MatchRecord, events: Sequence[Any]) -> Any:
    state = record.state
    for event in events:
        state = record.game.evolve(state, event)
    return state


def _check_match_id(match_id: str) -> None:
    if not MATCH_ID.match(match_id):
        raise bad_request("BAD_MATCH_ID", "match_id must be 1–64 letters, digits, '-' or '_'")


def _check_name(name: str, *, allow_empty: bool) -> None:
    if not name and not allow_empty:
        raise bad_request("EMPTY_NAME", "a player needs a name")
    if len(name) > MAX_NAME:
        raise bad_request("FIELD_TOO_LONG", f"a name may have at most {MAX_NAME} characters")
    if any(not ch.isprintable() for ch in name):
        raise bad_request("BAD_NAME", "a name may not hold control characters")


def _check_contribution(contribution: bytes) -> None:
    if len(contribution) > MAX_CONTRIBUTION:
        raise bad_request("FIELD_TOO_LONG",
                          f"a seed contribution may have at most {MAX_CONTRIBUTION} bytes")


def _new_token(random_bytes: Callable[[int], bytes]) -> str:
    token = base64.urlsafe_b64encode(random_bytes(TOKEN_BYTES)).rstrip(b"=").decode()
    # A token starting with '-' would read as an option on command lines (`--token -x…`).
    return "A" + token[1:] if token.startswith("-") else token


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _pad(request_id: str, match_id: str, seat: int) -> bytes:
    key = hashlib.sha256(b"seal:" + request_id.encode()).digest()
    return hmac.new(key, f"{match_id}/{seat}".encode(), hashlib.sha256).digest()


def _seal(request_id: str, match_id: str, tokens: Sequence[SeatToken]) -> str:
    """The idempotency record of a creation. Tokens are XORed with a pad derived from the
    request id, which Redis never stores, so Redis still holds no usable token."""
    sealed = [
        {"seat": t.seat, "name": t.name,
         "token": _xor(_token_raw(t.token), _pad(request_id, match_id, t.seat)).hex()}
        for t in tokens
    ]
    return json.dumps({"match_id": match_id, "tokens": sealed})


def _unseal(request_id: str, sealed: str) -> tuple[str, tuple[SeatToken, ...]]:
    data = json.loads(sealed)
    match_id = data["match_id"]
    tokens = tuple(
        SeatToken(t["seat"], t["name"], base64.urlsafe_b64encode(
            _xor(bytes.fromhex(t["token"]), _pad(request_id, match_id, t["seat"]))
        ).rstrip(b"=").decode())
        for t in data["tokens"]
    )
    return match_id, tokens


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def _token_raw(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
