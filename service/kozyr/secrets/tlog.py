"""The transparency log (docs/fairness.md §9): an append-only Merkle log of every match's
commitment (its entry 1) and final head (its last entry), with signed tree heads, kept in a
file of its own beside the signing keys - never only in Redis, so a Redis restored from an
older snapshot cannot take it back with it.

The folder (default ``<data-dir>/tlog``, owner-only 0700) holds ``leaves.jsonl``: one leaf a
line, its canonical JSON (`kozyr.core.tree_heads.Leaf`), in the order of the tree (0600). Every
process of one host (`kozyr serve --workers N`) appends to it under an exclusive `flock`, reads
what the others appended before it writes, and never logs the same (match, kind) twice.
Appends are grouped: leaves that arrive while a write is in flight go in the next one, one
`write` and, with `fsync` on (the default), one `fsync` for all. Only a creation and an ending
append a leaf; a move costs nothing here.

The tree (kozyr.core.merkle) is rebuilt in memory from the file at start (32 bytes a leaf, and
the leaves' index by match). A reader compares a match the store holds against the log
(`contradiction`): the engine refuses a match the store holds behind what the log says it
ended at (MATCH_ROLLED_BACK).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import structlog

from kozyr.core.merkle import MerkleTree, leaf_hash
from kozyr.core.tree_heads import CREATED, ENDED, Leaf, TreeHead, head_bytes
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.record import MatchRecord
from kozyr.secrets.signing import Signer

log = structlog.get_logger("kozyr.tlog")

LEAVES = "leaves.jsonl"


class TransparencyLog:
    """The log of one host: its file, its tree in memory, and its signed heads."""

    def __init__(
        self,
        folder: Path,
        signer: Signer,
        *,
        fsync: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):  # a folder given that is not ours stays as it is
            folder.chmod(0o700)
        self.path = folder / LEAVES
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        self.signer, self.fsync, self._clock = signer, fsync, clock
        self.tree = MerkleTree()
        self.index: dict[str, dict[str, tuple[int, Leaf]]] = {}
        self._starts: list[int] = []  # each leaf's offset in the file, and where the next starts
        self._offset = 0
        self._writing = threading.Lock()  # one writer thread of this process at a time
        self._pending: list[tuple[Leaf, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._head: TreeHead | None = None
        self.ingest()

    def close(self) -> None:
        """Close the file (after a write in flight: its number is never reused under one)."""
        with self._writing:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    # ------------------------------------------------------------------ reading

    def ingest(self) -> None:
        """Take in the leaves appended to the file since last read (by any process)."""
        size = os.fstat(self._fd).st_size
        if size <= self._offset:
            return
        data = os.pread(self._fd, size - self._offset, self._offset)
        end = data.rfind(b"\n") + 1  # a line being written is taken once it is whole
        at = self._offset
        for line in data[:end].split(b"\n")[:-1]:
            self._take(line, at)
            at += len(line) + 1
        self._offset += end

    def _take(self, line: bytes, at: int) -> None:
        index = self.tree.append(leaf_hash(line))
        self._starts.append(at)
        try:
            leaf = Leaf.parse(line)
        except ValueError:
            log.error("tlog_unreadable_leaf", index=index, path=str(self.path))
            return
        self.index.setdefault(leaf.match_id, {}).setdefault(leaf.kind, (index, leaf))

    def logged(self, leaf: Leaf) -> bool:
        """Whether the log holds a leaf of this match and kind already."""
        return leaf.kind in self.index.get(leaf.match_id, {})

    def leaf_data(self, index: int) -> bytes:
        """The bytes of leaf `index` as the file holds them."""
        start = self._starts[index]
        end = self._starts[index + 1] if index + 1 < len(self._starts) else self._offset
        return os.pread(self._fd, end - start - 1, start)

    def contradiction(
        self, match_id: str, version: int, head: str, commitment: str | None = None
    ) -> str | None:
        """What the log holds of a match that the store's copy (at `version` with `head`, 0
        for no entry at all) contradicts, or None: the store was rolled back behind it."""
        self.ingest()
        logged = self.index.get(match_id)
        if not logged:
            return None
        created, ended = logged.get(CREATED), logged.get(ENDED)
        if ended is not None:
            index, leaf = ended
            if version != leaf.version or head != leaf.entry_hash:
                held = f"version {version} (head {head})" if version else "no entry of it"
                return (
                    f"the transparency log holds match {match_id} ended at version "
                    f"{leaf.version} with head {leaf.entry_hash} (leaf {index}), but the store "
                    f"holds {held}"
                )
        if created is not None:
            index, leaf = created
            if version == 0:
                return (
                    f"the transparency log holds match {match_id} created with commitment "
                    f"{leaf.commitment} (leaf {index}), but the store holds no entry of it"
                )
            if commitment is not None and commitment != leaf.commitment:
                return (
                    f"the transparency log holds match {match_id} committed to "
                    f"{leaf.commitment} (leaf {index}), but the store's entry 1 commits to "
                    f"{commitment}"
                )
        return None

    # ------------------------------------------------------------------ heads and proofs

    def head(self) -> TreeHead:
        """The signed head of the log as it is now (the same head while the log does not grow)."""
        self.ingest()
        size = self.tree.size
        if self._head is not None and self._head.size == size:
            return self._head
        root, now = self.tree.root(size).hex(), int(self._clock() * 1000)
        key = self.signer.key_id
        self._head = TreeHead(
            size, root, now, key, self.signer.sign(head_bytes(size, root, now, key))
        )
        return self._head

    def checked_size(self, size: int) -> int:
        """`size` (0: the current size) if the log has that many leaves; else BAD_TREE_SIZE."""
        self.ingest()
        if size == 0:
            return self.tree.size
        if not 0 < size <= self.tree.size:
            raise MatchError(
                Kind.BAD_REQUEST,
                "BAD_TREE_SIZE",
                f"the transparency log has {self.tree.size} leaves; a tree size is "
                f"1..{self.tree.size} (0: the current one)",
            )
        return size

    def leaves_of(self, match_id: str, size: int) -> list[tuple[int, Leaf]]:
        """The match's leaves under the tree of `size` leaves; NOT_IN_TRANSPARENCY_LOG if none."""
        self.ingest()
        found = [item for item in self.index.get(match_id, {}).values() if item[0] < size]
        if not found:
            raise MatchError(
                Kind.NOT_FOUND,
                "NOT_IN_TRANSPARENCY_LOG",
                f"match {match_id} has no leaf among the transparency log's first {size}",
                match_id,
            )
        return sorted(found, key=lambda item: item[0])

    def consistency(self, first: int, second: int) -> list[bytes]:
        """The consistency proof between two sizes (BAD_TREE_SIZE unless 1 <= first <= second
        <= the log's size)."""
        second = self.checked_size(second)
        if not 0 < first <= second:
            raise MatchError(
                Kind.BAD_REQUEST,
                "BAD_TREE_SIZE",
                f"a consistency proof is between sizes 1 <= first <= second ({second})",
            )
        return self.tree.consistency_proof(first, second)

    # ------------------------------------------------------------------ appending

    async def add(self, leaf: Leaf) -> None:
        """Append a leaf (unless the log holds one of its match and kind), durable on return;
        leaves arriving while a write is in flight go together in the next."""
        if self.logged(leaf):
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((leaf, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await asyncio.to_thread(self._write, [leaf for leaf, _ in batch], self._offset)
                self.ingest()
            except OSError as e:
                for _, done in batch:
                    if not done.done():
                        done.set_exception(e)
                continue
            for _, done in batch:
                if not done.done():
                    done.set_result(None)

    def append_now(self, leaves: Sequence[Leaf]) -> None:
        """Append leaves at once, durable on return (tools and tests; the server uses add)."""
        self._write([leaf for leaf in leaves if not self.logged(leaf)], self._offset)
        self.ingest()

    def _write(self, leaves: Sequence[Leaf], read: int) -> None:
        """Under the file's lock: drop a torn last line, skip the leaves another process logged
        since `read`, append the rest in one write (and fsync)."""
        with self._writing:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                size = os.fstat(self._fd).st_size
                tail = os.pread(self._fd, max(0, size - read), read)
                whole = tail.rfind(b"\n") + 1
                if whole < len(tail):  # a writer died mid-line: that leaf was never acknowledged
                    os.ftruncate(self._fd, read + whole)
                seen = set()
                for line in tail[:whole].split(b"\n")[:-1]:
                    with contextlib.suppress(ValueError):
                        other = Leaf.parse(line)
                        seen.add((other.match_id, other.kind))
                lines = []
                for leaf in leaves:
                    if (leaf.match_id, leaf.kind) not in seen:
                        seen.add((leaf.match_id, leaf.kind))
                        lines.append(leaf.data() + b"\n")
                if lines:
                    os.write(self._fd, b"".join(lines))
                    if self.fsync:
                        os.fsync(self._fd)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)


def created_leaf(step: Step) -> Leaf:
    """The leaf of a match's entry 1."""
    record = step.record
    return Leaf(CREATED, record.match_id, record.version, step.digest, record.created.commitment)


def ended_leaf(record: MatchRecord) -> Leaf:
    """The leaf of a finished match's last entry (its final head)."""
    return Leaf(ENDED, record.match_id, record.version, record.head, record.created.commitment)


class LogListener:
    """The engine's lifecycle listener that appends a match's leaves: at its creation and at its
    end (wired by the composition root, server/bootstrap.py). Any other append costs one test."""

    def __init__(self, tlog: TransparencyLog) -> None:
        self.tlog = tlog

    async def creating(self, tenant: str, match_id: str) -> None:
        """Nothing before the first append: the leaf needs the entry's hash."""

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """Append the created leaf (entry 1) and the ended leaf (the finishing entry)."""
        record = step.record
        if before is not None and (before.finished or not record.finished):
            return
        try:
            if before is None:
                await self.tlog.add(created_leaf(step))
            if record.finished:
                await self.tlog.add(ended_leaf(record))
        except OSError as e:  # the append stands; the log misses this leaf (and says so)
            log.error("tlog_append_failed", match_id=record.match_id, error=str(e))
