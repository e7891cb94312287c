"""The replay file (docs/replay-format.md): JSON Lines with a header, one line per log entry and
a footer. Reading and writing only — pure, no Redis, no gRPC.

An entry line is the entry's canonical object (the fields the hash chain covers) plus ``kind``
and ``hash``; the verifier re-serializes it canonically and re-hashes it, so the line's own
spacing and key order do not matter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kozyr.core.receipts import Receipt
from kozyr.games import GAMES
from kozyr.games.codec import encode
from kozyr.games.contract import Outcome
from kozyr.match.log import Entry, canonical_json
from kozyr.match.record import MatchRecord, apply_entry

FORMAT = "kozyr-replay"
FORMAT_VERSION = 2  # 2: an entry line may carry the server's signed receipt of it

# The members of an entry's canonical object, in the order a line shows them (the hash is taken
# over the canonical form with sorted keys, docs/replay-format.md §3).
ENTRY_FIELDS = ("version", "seat", "command_id", "command", "time_ms", "events", "prev", "schema")
ENTRY_KEYS = frozenset(("kind", "hash", *ENTRY_FIELDS))
RECEIPT_KEY = "receipt"  # not covered by the hash: the server's signature over it
# Members an entry has only when they are set (the user id behind a seat ticket).
OPTIONAL_FIELDS = ("actor",)


class Unreadable(Exception):
    """The file is not a replay this version can read (exit status 2 of `kozyr replay`)."""


@dataclass(frozen=True, slots=True)
class RawEntry:
    """A log entry as a server (or the in-process recorder) holds it: canonical text and hash."""

    version: int
    canonical: str
    hash: str
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class ReplayFile:
    """A parsed replay file; entry lines and footer stay plain data so tampering stays visible."""

    header: dict[str, Any]
    entries: tuple[dict[str, Any], ...]
    footer: dict[str, Any] | None


# ---------------------------------------------------------------------------- reading


def parse(text: str) -> ReplayFile:
    """Split a replay file's text into header, entry lines and footer; Unreadable if it is not
    JSON Lines in this format (bad entries are the verifier's business, not the reader's)."""
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    footer: dict[str, Any] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise Unreadable(f"line {number} is not JSON: {e.msg}") from None
        if not isinstance(data, dict):
            raise Unreadable(f"line {number} is not a JSON object")
        kind = data.get("kind")
        if header is None:
            if kind != "header":
                raise Unreadable("the first line is not a replay header")
            _check_header(data)
            header = data
        elif footer is not None:
            raise Unreadable(f"line {number} follows the footer")
        elif kind == "entry":
            entries.append(data)
        elif kind == "footer":
            footer = data
        else:
            raise Unreadable(f"line {number} has an unknown kind {kind!r}")
    if header is None:
        raise Unreadable("the file is empty")
    return ReplayFile(header, tuple(entries), footer)


def _check_header(header: dict[str, Any]) -> None:
    if header.get("format") != FORMAT:
        raise Unreadable(f"not a {FORMAT} file (format {header.get('format')!r})")
    version = header.get("format_version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise Unreadable(
            f"format version {version!r} is not supported (this reader knows 1..{FORMAT_VERSION})"
        )
    if header.get("game") not in GAMES:
        raise Unreadable(
            f"unknown game {header.get('game')!r} (this reader knows {', '.join(GAMES)})"
        )


def read(path: str | Path) -> ReplayFile:
    """Read and parse a replay file; Unreadable when it cannot be opened or parsed."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise Unreadable(f"cannot read {path}: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable(f"{path} is not UTF-8 text") from None
    return parse(text)


def hashed_text(line: dict[str, Any]) -> str:
    """The canonical text an entry line's hash covers: the line without ``kind`` and ``hash``."""
    return canonical_json({k: line[k] for k in (*ENTRY_FIELDS, *OPTIONAL_FIELDS) if k in line})


def entry_of(line: dict[str, Any]) -> Entry:
    """The engine Entry an (already checked) entry line holds."""
    return Entry(
        version=line["version"],
        seat=line["seat"],
        command_id=line["command_id"],
        command=line["command"],
        events=tuple(line["events"]),
        time_ms=line["time_ms"],
        prev=line["prev"],
        schema=line["schema"],
        actor=line.get("actor", ""),
    )


# ---------------------------------------------------------------------------- writing


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """An outcome as the footer holds it: winners, scores, reason, details."""
    data: dict[str, Any] = encode(outcome)
    del data["type"]
    if outcome.termination == "NORMAL" and not outcome.seats:  # files from before R-7 agree
        del data["termination"], data["seats"]
    return data


def entry_line(raw: RawEntry) -> dict[str, Any]:
    """The file line of one log entry."""
    data = json.loads(raw.canonical)
    line: dict[str, Any] = {"kind": "entry"}
    line.update((k, data[k]) for k in (*ENTRY_FIELDS, *OPTIONAL_FIELDS) if k in data)
    line.update((k, v) for k, v in data.items() if k not in line)  # keep anything unexpected
    line["hash"] = raw.hash
    if raw.receipt is not None:
        receipt = raw.receipt.to_json()
        del receipt["kind"]
        line[RECEIPT_KEY] = receipt
    return line


def header_of(record: MatchRecord) -> dict[str, Any]:
    """The header line for a match (from its folded log)."""
    created = record.created
    return {
        "kind": "header",
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "match_id": created.match_id,
        "game": created.game,
        "rules_version": created.rules_version,
        "options": dict(created.options),
        "seats": [
            {"seat": i, "name": name, "contribution": contribution}
            for i, (name, contribution) in enumerate(
                zip(record.names, record.contributions, strict=True)
            )
        ],
        "commitment": created.commitment,
        "prearranged": created.prearranged,
        "first_dealer": created.first_dealer,
    }


def footer_of(record: MatchRecord) -> dict[str, Any]:
    """The footer line for a match (from its folded log)."""
    outcome = record.outcome
    return {
        "kind": "footer",
        "entries": record.version,
        "head": record.head,
        "finished": outcome is not None,
        "outcome": None if outcome is None else outcome_json(outcome),
        "revealed_seed": record.revealed_seed,
    }


def build(entries: Sequence[RawEntry]) -> list[dict[str, Any]]:
    """Every line of the replay file of a log (header, entries, footer), as JSON objects."""
    if not entries:
        raise ValueError("an empty log has no replay")
    record: MatchRecord | None = None
    for raw in entries:
        record = apply_entry(record, Entry.from_canonical(raw.canonical), raw.hash)
    assert record is not None
    return [header_of(record), *(entry_line(r) for r in entries), footer_of(record)]


def dumps(lines: Iterable[dict[str, Any]]) -> str:
    """JSON Lines text: one compact object per line, UTF-8 kept, a final newline."""
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )
