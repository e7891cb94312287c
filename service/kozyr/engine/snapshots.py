"""Snapshots of match records, so a cold load is a snapshot plus the tail of the stream.

Folding a long match from its first entry costs 32-64 µs an entry (issue 15: a 1,000-entry
match rebuilt in 8-9x the time of reading it). Every `every` entries the engine stores the
record it holds beside the stream (`kozyr:{<id>}:snap`, the match's hash tag, so one slot), and
a cold load reads that snapshot and only the entries after it.

The stream stays the source of truth. A snapshot names its version and the hash of the entry
at that version, and carries the SHA-256 of its own body; a cold load reads the stream from
that entry, so a snapshot is used only if its body is intact, it decodes, and its head is the
stream's own hash at its version. Anything else is discarded (deleted) and reported (log line
`snapshot_discarded`, and the `discarded` count), and the match is folded from the start.
A sampled audit (`audit_every`: one cold load in that many) also folds the full stream in
the background and discards a snapshot whose record differs. The log withholds the match seed
(schema 3), and so does a snapshot: the seed is cut out of the state it keeps (the paths are
noted) and put back at load from the sealed server seed, as the fold itself does. `kozyr replay
verify` and the offline verifier never read snapshots.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import structlog

from kozyr.core import jsontext
from kozyr.core.fairness import match_seed
from kozyr.games import get_game
from kozyr.games.codec import decode_as, encode
from kozyr.games.contract import Outcome
from kozyr.match.clock import Clock
from kozyr.match.errors import MatchError
from kozyr.match.log import Entry, MatchTerms, registry_for
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.store.port import Store

log = structlog.get_logger("kozyr.snapshots")
FORMAT = 2  # 2: users, the clock and an early ending (older snapshots are discarded)


class SnapshotError(ValueError):
    """A snapshot that cannot be used (damaged, undecodable, or not the stream's)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A decoded snapshot: the record at `record.version` (its head is the entry's hash)."""

    record: MatchRecord


def dump(record: MatchRecord) -> str:
    """The snapshot text of a record (JSON with a checksum), the match seed cut out."""
    state = encode(record.state) if record.state is not None else None
    withheld: list[list[str | int]] = []
    _cut_seeds(state, [], withheld)
    body = json.dumps(
        {
            "format": FORMAT,
            "game": record.game.NAME,
            "version": record.version,
            "head": record.head,
            "created": encode(record.created),
            "names": list(record.names),
            "contributions": list(record.contributions),
            "revealed_seed": record.revealed_seed,
            "terms": encode(record.terms),
            "seedless": record.seedless,
            "state": state,
            "users": list(record.users),
            "clock": encode(record.clock),
            "awaiting": list(record.awaiting),
            "ended": None if record.ended is None else encode(record.ended),
            "withheld": withheld,
        },
        separators=(",", ":"),
        sort_keys=True,
    )
    return f"{_digest(body)}:{body}"


def _cut_seeds(data: Any, path: list[str | int], found: list[list[str | int]]) -> None:
    """Blank every non-empty "seed" field of encoded data in place, noting where."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "seed" and isinstance(value, str) and value:
                data[key] = ""
                found.append([*path, key])
            else:
                _cut_seeds(value, [*path, key], found)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            _cut_seeds(value, [*path, i], found)


def _put_seeds(data: Any, paths: list[list[str | int]], seed: str) -> None:
    for path in paths:
        node = data
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = seed


def load(match_id: str, text: str, server_seed: bytes | None = None) -> Snapshot:
    """The snapshot in `text`, the match seed put back from `server_seed` (without it the
    record is seedless, as a fold without it is); SnapshotError unless intact and decodable."""
    digest, _, body = text.partition(":")
    if not body or _digest(body) != digest:
        raise SnapshotError("the checksum does not match the body")
    try:
        data = jsontext.loads(body)
        if data["format"] != FORMAT:
            raise SnapshotError(f"unknown format {data['format']!r}")
        game = get_game(data["game"])
        created = registry_for(game).decode(data["created"])
        contributions = tuple(data["contributions"])
        seedless = bool(data["seedless"])
        if data["withheld"]:
            if server_seed is None:
                seedless = True
            else:
                seed = match_seed(server_seed, [bytes.fromhex(c) for c in contributions])
                _put_seeds(data["state"], data["withheld"], seed.hex())
        state: Any = None
        if data["state"] is not None:  # every game's state is its package's State
            state = decode_as(game.State, data["state"])  # type: ignore[attr-defined]
        record = MatchRecord(
            match_id,
            game,
            created,
            tuple(data["names"]),
            contributions,
            state,
            int(data["version"]),
            str(data["head"]),
            str(data["revealed_seed"]),
            decode_as(MatchTerms, data["terms"]),
            seedless,
            tuple(data["users"]),
            decode_as(Clock, data["clock"]),
            None if data["ended"] is None else decode_as(Outcome, data["ended"]),
            tuple(data.get("awaiting", ())),
        )
    except SnapshotError:
        raise
    except Exception as e:  # any damage below the checksum: unusable, never fatal
        raise SnapshotError(f"undecodable: {type(e).__name__}: {e}") from None
    if created.match_id != match_id:
        raise SnapshotError("the snapshot is another match's")
    return Snapshot(record)


def discard_reason(snapshot: Snapshot, stream_hash: str | None) -> str | None:
    """Why the snapshot cannot stand for the stream (None: it can): `stream_hash` is the
    stream's own hash of the entry at the snapshot's version (None: no such entry)."""
    if stream_hash is None:
        return "the stream has no entry at the snapshot's version"
    if stream_hash != snapshot.record.head:
        return "the snapshot's head is not the stream's hash at its version"
    return None


def same_record(a: MatchRecord, b: MatchRecord) -> bool:
    """Whether two records agree on everything a fold determines."""
    return (
        a.version,
        a.head,
        a.names,
        a.contributions,
        a.revealed_seed,
        a.state,
        a.created,
        a.terms,
        a.seedless,
    ) == (
        b.version,
        b.head,
        b.names,
        b.contributions,
        b.revealed_seed,
        b.state,
        b.created,
        b.terms,
        b.seedless,
    )


def report(match_id: str, version: int, why: str) -> None:
    """Say a snapshot was discarded (the match is then folded from its first entry)."""
    log.warning("snapshot_discarded", match_id=match_id, version=version, reason=why)


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()


class Snapshots:
    """The engine's side of snapshots: take one every `every` entries, load cold matches from
    one, audit one cold load in `audit_every` against the full fold (0: never)."""

    def __init__(
        self,
        store: Store,
        on_disagreement: Callable[[str], None] | None = None,
        server_seed: Callable[[str], Awaitable[bytes]] | None = None,
        *,
        every: int = 64,
        audit_every: int = 16,
    ) -> None:
        self.store = store
        self.server_seed = server_seed  # the sealed seed, to put the match seed back
        self.every = every
        self.audit_every = audit_every
        self.on_disagreement = on_disagreement
        self.loads = 0
        self.discarded = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def maybe_take(self, record: MatchRecord) -> None:
        """Keep a snapshot of `record` if its version is a multiple of `every` (in the
        background: a failed write only costs a longer cold load later)."""
        if self.every <= 0 or record.version % self.every or not record.started:
            return
        self._spawn(self._put(record.match_id, record.version, dump(record)))

    async def _put(self, match_id: str, version: int, text: str) -> None:
        try:
            await self.store.put_snapshot(match_id, version, text)
        except MatchError as e:
            log.warning("snapshot_not_kept", match_id=match_id, version=version, reason=e.code)

    async def cold_load(self, match_id: str) -> tuple[MatchRecord, int] | None:
        """The record from the kept snapshot and the entries after it, with the bytes of text
        it was built from; None when there is no usable snapshot (it is discarded)."""
        kept = await self.store.snapshot(match_id)
        if kept is None:
            return None
        version, text = kept
        seed = await self.server_seed(match_id) if self.server_seed is not None else None
        try:
            snap = load(match_id, text, seed)
            if snap.record.version != version:
                raise SnapshotError("the snapshot's version is not the one it is kept under")
        except SnapshotError as e:
            await self._discard(match_id, version, str(e))
            return None
        tail = await self.store.read_after(match_id, version - 1)
        first = tail[0].hash if tail and tail[0].version == version else None
        why = discard_reason(snap, first)
        if why is not None:
            await self._discard(match_id, version, why)
            return None
        record = snap.record
        for item in tail[1:]:
            record = apply_entry(record, Entry.from_canonical(item.text), item.hash)
        self.loads += 1
        if self.audit_every > 0 and self.loads % self.audit_every == 0:
            self._spawn(self.audit(match_id, snap.record, seed))
        return record, len(text) + sum(len(item.text) for item in tail)

    async def audit(
        self, match_id: str, snapshot: MatchRecord, server_seed: bytes | None = None
    ) -> bool:
        """Fold the stream up to the snapshot's version and compare; a snapshot that differs
        is discarded, reported, and the engine told to forget the record (True: it agreed)."""
        stored = await self.store.read_after(match_id, 0, upto=snapshot.version)
        full: MatchRecord | None = None
        for item in stored:
            full = apply_entry(full, Entry.from_canonical(item.text), item.hash, server_seed)
        if full is not None and same_record(full, snapshot):
            return True
        await self._discard(match_id, snapshot.version, "the record differs from the fold")
        if self.on_disagreement is not None:
            self.on_disagreement(match_id)
        return False

    async def _discard(self, match_id: str, version: int, why: str) -> None:
        self.discarded += 1
        report(match_id, version, why)
        await self.store.drop_snapshot(match_id, version)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self) -> None:
        """Wait for the background writes and audits (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
