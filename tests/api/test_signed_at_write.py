"""Signatures made when an entry is written (issue 30, part b; docs/fairness.md §6).

A served match is played, then someone who can write Redis but lacks the signing key edits its
stream directly - re-hashing and re-chaining every entry, keeping the signatures stored with
them (they cannot make new ones) - and a server restarted on that Redis exports it. With the
operator's key, `kozyr replay verify` fails at the first changed entry, with no player receipts
at all: the server serves the signatures it stored at the append and never signs on a read.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from kozyr import cli
from kozyr.match.log import GENESIS_HASH, canonical_json, entry_hash
from kozyr.replay.export import export
from kozyr.secrets.signing import Signer
from kozyr.store.redis.names import log_key, snapshot_key
from kozyr_client import KozyrClient
from tests.conftest import ServerThread

Entries = list[dict[str, Any]]


def play_to_the_end(address: str) -> str:
    with KozyrClient(address) as client:
        created = client.create_match("dix", ["ann", "bob"], options={"max_hands": "1"})
        seats = [client.seat(created.match_id, created.tokens[k]) for k in (0, 1)]
        rng = random.Random(3)
        for _ in range(500):
            view = seats[0].view()
            if not view.HasField("to_act"):
                break
            legal = seats[view.to_act].legal_moves()
            seats[view.to_act].move(legal[rng.randrange(len(legal))])
        return created.match_id


@pytest.fixture(scope="module")
def match(redis_url: str) -> Iterator[tuple[str, Signer, list[tuple[str, dict[str, str]]]]]:
    """A finished served match, its signer and its stream as stored (restored per test)."""
    signer = Signer.generate()
    server = ServerThread(redis_url, signer=signer)
    try:
        match_id = play_to_the_end(server.address)
    finally:
        server.stop()
    yield match_id, signer, stream_of(redis_url, match_id)


def stream_of(redis_url: str, match_id: str) -> list[tuple[str, dict[str, str]]]:
    """The match's stream as stored: (entry id, fields) per entry."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return list(client.xrange(log_key(match_id)))
    finally:
        client.close()


def rewrite(client: redis.Redis, match_id: str, edit: Callable[[Entries], None]) -> None:
    """What a careful writer of Redis without the key does: edit the entries, re-number,
    re-chain and re-hash them all, keep each position's stored signature, drop the snapshot."""
    key = log_key(match_id)
    stored = client.xrange(key)
    seals = [fields.get("s", "") for _, fields in stored]
    entries = [json.loads(fields["e"]) for _, fields in stored]
    edit(entries)
    prev = GENESIS_HASH
    pipe = client.pipeline()
    pipe.delete(key, snapshot_key(match_id))
    for version, (entry, seal) in enumerate(zip(entries, seals, strict=False), 1):
        entry["version"], entry["prev"] = version, prev
        for event in entry["events"]:
            if event.get("type") == "SeedRevealed" and event.get("head"):
                event["head"] = prev
        text = canonical_json(entry)
        prev = entry_hash(text)
        pipe.xadd(key, {"e": text, "h": prev, "s": seal}, id=f"{version}-0")
    pipe.execute()


def restore(client: redis.Redis, match_id: str, stored: list[tuple[str, dict[str, str]]]) -> None:
    pipe = client.pipeline()
    pipe.delete(log_key(match_id), snapshot_key(match_id))
    for entry_id, fields in stored:
        pipe.xadd(log_key(match_id), fields, id=entry_id)
    pipe.execute()


def verify_export(
    redis_url: str, signer: Signer, match_id: str, tmp: Path, token: str | None = None
) -> tuple[int, str]:
    """Export the match from a restarted server (nothing cached; `token` for an unfinished
    match's log) and verify the file with the signer's public key."""
    server = ServerThread(redis_url, signer=signer)
    try:
        text = export(server.address, match_id, token).text
    finally:
        server.stop()
    path = tmp / "match.jsonl"
    path.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["replay", "verify", str(path), "--key", signer.public_key.hex()])
    return code, out.getvalue()


def verify_rewritten(
    client: redis.Redis,
    redis_url: str,
    match: tuple[str, Signer, list[tuple[str, dict[str, str]]]],
    edit: Callable[[Entries], None],
    tmp: Path,
    token: str | None = None,
) -> tuple[int, str]:
    """Rewrite the match's stream with `edit` (then put it back) and verify its export."""
    match_id, signer, stored = match
    try:
        rewrite(client, match_id, edit)
        return verify_export(redis_url, signer, match_id, tmp, token)
    finally:
        restore(client, match_id, stored)


def later_time(entries: Entries) -> None:
    entries[4]["time_ms"] += 1  # an edit the rules cannot see


def dropped(entries: Entries) -> None:
    del entries[4]


def swapped(entries: Entries) -> None:
    entries[4], entries[5] = entries[5], entries[4]


def replaced_seed(entries: Entries) -> None:
    """Another server seed, chosen after the fact: entry 1's commitment and the reveal."""
    import hashlib

    seed = "ab" * 32
    entries[0]["events"][0]["commitment"] = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    for event in entries[-1]["events"]:
        if event.get("type") == "SeedRevealed":
            event["server_seed"] = seed


@pytest.mark.parametrize(
    ("edit", "first"),
    [(later_time, 5), (dropped, 5), (swapped, 5), (replaced_seed, 1)],
    ids=["edited", "truncated-inside", "reordered", "replaced-seed"],
)
def test_a_log_rewritten_in_redis_without_the_key_fails_verify_at_the_first_change(
    match: tuple[str, Signer, list[tuple[str, dict[str, str]]]],
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
    edit: Callable[[Entries], None],
    first: int,
) -> None:
    code, text = verify_rewritten(redis_client, redis_url, match, edit, tmp_path)
    assert code == 1, text
    assert f"entry {first}:" in text and "did not hold the operator's key" in text, text


def test_the_untouched_log_verifies_and_its_signatures_are_the_stored_ones(
    match: tuple[str, Signer, list[tuple[str, dict[str, str]]]],
    redis_url: str,
    tmp_path: Path,
) -> None:
    match_id, signer, stored = match
    assert all(fields.get("s", "").startswith(signer.key_id + ":") for _, fields in stored)
    code, text = verify_export(redis_url, signer, match_id, tmp_path)
    assert code == 0 and f"signatures: all {len(stored)} entries signed" in text, text


def test_a_server_with_another_key_serves_the_stored_signatures_it_did_not_make(
    match: tuple[str, Signer, list[tuple[str, dict[str, str]]]],
    redis_url: str,
    tmp_path: Path,
) -> None:
    match_id, signer, _ = match
    other = Signer.generate()
    server = ServerThread(redis_url, signer=other)
    try:
        text = export(server.address, match_id, None).text
    finally:
        server.stop()
    lines = [json.loads(line) for line in text.splitlines()]
    kids = {line["receipt"]["key_id"] for line in lines if line.get("kind") == "entry"}
    assert kids == {signer.key_id}  # signed at the append; nothing re-signed on the read
