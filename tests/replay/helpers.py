"""Replay test helpers: record matches in-process, tamper with their lines, verify them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kozyr.games import GAMES
from kozyr.match.log import GENESIS_HASH, entry_hash
from kozyr.replay import archive
from kozyr.replay.archive import hashed_text
from kozyr.replay.recorder import record_match
from kozyr.replay.verify import Report, verify

Lines = list[dict[str, Any]]


def recorded(game: str, players: int, seed: bytes, **kwargs: Any) -> Lines:
    """The lines (header, entries, footer) of a match played in-process with random moves."""
    names = [f"p{i}" for i in range(players)]
    return archive.build(record_match(GAMES[game], names, seed, **kwargs))


def check(lines: Lines, **kwargs: Any) -> Report:
    """Verify lines exactly as `kozyr replay verify` reads a file (through the text form)."""
    return verify(archive.parse(archive.dumps(lines)), **kwargs)


def entries(lines: Lines) -> Lines:
    """The entry lines (shared with `lines`, so edits show)."""
    return [line for line in lines if line["kind"] == "entry"]


def rehash(lines: Lines, renumber: bool = False) -> Lines:
    """What a careful tamperer does after editing: recompute every hash and prev link (and the
    versions, and the footer's head and count), so the chain alone looks intact."""
    prev = GENESIS_HASH
    body = entries(lines)
    for i, line in enumerate(body, 1):
        if renumber:
            line["version"] = i
        line["prev"] = prev
        for event in line["events"]:
            if event.get("type") == "SeedRevealed" and event.get("head"):
                event["head"] = prev
        line["hash"] = entry_hash(hashed_text(line))
        prev = line["hash"]
    footer = lines[-1]
    if footer["kind"] == "footer":
        footer["head"] = prev
        footer["entries"] = len(body)
    return lines


def tampered(
    lines: Lines, edit: Callable[[Lines], None], *, recompute: bool, renumber: bool = False
) -> Lines:
    """A deep copy of `lines` with `edit` applied; hashes left stale or recomputed."""
    out = copy.deepcopy(lines)
    edit(out)
    return rehash(out, renumber) if recompute else out


def find_entry(lines: Lines, predicate: Callable[[dict[str, Any]], bool], start: int = 1) -> int:
    """The version of the first entry from `start` whose line satisfies `predicate`."""
    for line in entries(lines)[start - 1 :]:
        if predicate(line):
            return int(line["version"])
    raise AssertionError("no such entry")


def has_event(kind: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate: the entry holds an event of this type."""
    return lambda line: any(e.get("type") == kind for e in line["events"])


def event_of(line: dict[str, Any], kind: str) -> dict[str, Any]:
    """The first event of this type in an entry line."""
    return next(e for e in line["events"] if e.get("type") == kind)
