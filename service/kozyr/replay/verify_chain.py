"""The verifier's check of the hash chain: versions, links and hashes (docs/replay-format.md §3).

Pure, like kozyr.replay.verify: no server, no Redis, no gRPC.
"""

from __future__ import annotations

from typing import Any

from kozyr.match.log import READABLE_SCHEMAS, canonical_json, entry_hash
from kozyr.replay import archive
from kozyr.replay.archive import ENTRY_FIELDS, ENTRY_KEYS, RECEIPT_KEY
from kozyr.replay.report import Bad, Problem, short
from kozyr.replay.walk import Walk


def check_chain(w: Walk, i: int, line: dict[str, Any]) -> None:
    """Version, link and hash of entry i (docs/replay-format.md §3), once its line has the
    shape of an entry."""
    where = f"entry {i}"
    _check_shape(i, line)
    if line["version"] != i:
        raise Bad(
            Problem(
                where,
                "wrong version: an entry is missing, repeated or out of order",
                expected=str(i),
                found=str(line["version"]),
                entry=i,
            )
        )
    if line["prev"] != w.prev:
        raise Bad(
            Problem(
                where,
                "the link to the previous entry is broken (prev is not the previous entry's hash)",
                expected=w.prev,
                found=line["prev"],
                entry=i,
            )
        )
    fields = {k: line[k] for k in (*ENTRY_FIELDS, *archive.OPTIONAL_FIELDS) if k in line}
    text = canonical_json(fields)
    digest = entry_hash(text)
    if digest != line["hash"]:
        raise Bad(
            Problem(
                where,
                "the hash does not match the entry's content: it was changed after it was written",
                expected=digest,
                found=line["hash"],
                entry=i,
            )
        )
    if line["schema"] not in READABLE_SCHEMAS or line["schema"] < w.schema:
        raise Bad(
            Problem(
                where,
                "unknown entry schema (or older than the entry before)",
                expected=" or ".join(map(str, READABLE_SCHEMAS)),
                found=str(line["schema"]),
                entry=i,
            )
        )
    w.schema = line["schema"]
    w.prev = line["hash"]
    w.fields, w.text = fields, text


def _check_shape(i: int, line: dict[str, Any]) -> None:
    """Entry i's line has exactly an entry's fields, each of its JSON type."""
    where = f"entry {i}"
    skipped = {RECEIPT_KEY, *archive.OPTIONAL_FIELDS}
    if set(line) - skipped != ENTRY_KEYS:
        missing = sorted(ENTRY_KEYS - set(line))
        extra = sorted(set(line) - ENTRY_KEYS - skipped)
        raise Bad(
            Problem(
                where,
                "the entry line does not have the entry's fields",
                expected=", ".join(sorted(ENTRY_KEYS)),
                found=f"missing {missing or 'none'}, extra {extra or 'none'}",
                entry=i,
            )
        )
    kinds = {
        "version": int,
        "seat": int,
        "command_id": str,
        "time_ms": int,
        "prev": str,
        "schema": int,
        "hash": str,
        "events": list,
    }
    for name, kind in kinds.items():
        if type(line[name]) is not kind:
            raise Bad(
                Problem(
                    where,
                    f"field {name!r} is not a JSON {kind.__name__}",
                    found=short(line[name]),
                    entry=i,
                )
            )
    if "actor" in line and (type(line["actor"]) is not str or not line["actor"]):
        raise Bad(Problem(where, "field 'actor' is no user id", found=short(line), entry=i))
    if line["command"] is not None and not isinstance(line["command"], dict):
        raise Bad(Problem(where, "the command is neither null nor an object", entry=i))
    if not all(isinstance(e, dict) for e in line["events"]):
        raise Bad(Problem(where, "an event is not a JSON object", entry=i))
