"""Folding stored entries into a record."""

from __future__ import annotations

from collections.abc import Sequence

from kozyr.games.contract import MatchStarted
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.store.port import StoredEntry

STARTED = MatchStarted.__name__  # the type of the event that starts a match


def starts(entry: Entry) -> bool:
    """Whether the entry starts its match (and so its fold needs the server seed back: the log
    withholds the match seed, docs/fairness.md §1)."""
    return any(event.get("type") == STARTED for event in entry.events)


def fold_stored(
    record: MatchRecord | None, stored: Sequence[StoredEntry], server_seed: bytes | None = None
) -> MatchRecord:
    """`record` with the stored entries applied (from the start when None)."""
    for item in stored:
        record = apply_entry(record, Entry.from_canonical(item.text), item.hash, server_seed)
    assert record is not None
    return record


def text_bytes(stored: Sequence[StoredEntry]) -> int:
    """The bytes of log text the entries hold (what the record cache is bounded by)."""
    return sum(len(item.text) for item in stored)
