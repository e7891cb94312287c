"""The loadgen's verdict on one match's log: a gap, a broken chain, a bad hash, a fold that
fails or disagrees with what the clients saw, and acknowledged moves it lacks (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kozyr.match.log import GENESIS_HASH, Entry, entry_hash
from kozyr.match.record import fold_entries


@dataclass(frozen=True)
class LogCheck:
    """The verdict on one match's log: its problems, and how many acknowledged moves it lacks."""

    version: int
    lost: int
    problems: tuple[str, ...]

    @property
    def corrupted(self) -> bool:
        """True when the log is damaged (gap, chain, hash, fold) or disagrees with its clients."""
        return bool(self.problems)


def check_log(
    rows: Sequence[tuple[int, str, str]], acked: Mapping[str, tuple[int, int]], seen: int
) -> LogCheck:
    """Check one log given as (version, canonical JSON, hash) rows against what clients saw.

    `acked` maps each acknowledged command id to (seat, version); `seen` is the highest version
    any client saw. Pure: the loadgen's verdict, testable on crafted logs.
    """
    problems: list[str] = []
    entries: list[Entry] = []
    prev = GENESIS_HASH
    for index, (version, text, digest) in enumerate(rows, start=1):
        if version != index:
            problems.append(f"gap: version {index} expected, {version} found")
            break
        if entry_hash(text) != digest:
            problems.append(f"version {version}: hash does not match its text")
        try:
            entry = Entry.from_canonical(text)
        except (ValueError, KeyError, TypeError) as e:
            problems.append(f"version {version}: unreadable entry ({e})")
            break
        if entry.version != version:
            problems.append(f"version {version}: the entry says {entry.version}")
        if entry.prev != prev:
            problems.append(f"version {version}: prev is not the hash of version {version - 1}")
        entries.append(entry)
        prev = digest
    top = len(entries)
    lost = sum(
        1
        for cid, (seat, version) in acked.items()
        if version > top
        or entries[version - 1].command_id != cid
        or entries[version - 1].seat != seat
    )
    if lost:
        problems.append(f"{lost} acknowledged move(s) missing from the log")
    if entries and not problems:
        try:
            folded = fold_entries(entries).version
        except Exception as e:  # any failure to fold is the verdict, not a crash of the checker
            problems.append(f"a fresh fold fails: {type(e).__name__}: {e}")
        else:
            if folded != seen:
                problems.append(f"the fold is at version {folded}, clients saw {seen}")
    elif not entries:
        problems.append("an empty log")
    return LogCheck(top, lost, tuple(problems))
