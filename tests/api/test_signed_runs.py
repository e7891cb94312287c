"""A run of the server's bots is signed once, on its last entry (docs/fairness.md §6).

The server's bots play a match alone, in runs appended as one; only each run's last entry
carries a signature, and it vouches for the run's earlier entries through the hash chain. The
log still verifies with the operator's key; a bot's move edited inside a run, in Redis by
someone without the key, fails at the run's signed entry, which names the entries it vouches
for; a log cut inside a run fails for its unsigned tail; a person's entry may not go unsigned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.secrets.signing import Signer
from tests.api.helpers import Watcher
from tests.api.test_signed_at_write import (
    Entries,
    restore,
    stream_of,
    verify_export,
    verify_rewritten,
)
from tests.conftest import ARBITER, ServerThread

Stored = list[tuple[str, dict[str, str]]]


@pytest.fixture(scope="module")
def bots_match(redis_url: str) -> Iterator[tuple[str, Signer, Stored]]:
    """A finished Durak match of bots alone, its signer and its stream as stored."""
    signer = Signer.generate()
    server = ServerThread(redis_url, signer=signer)
    try:
        stub = server.stub()
        seats = [pb.SeatRequest(bot=b) for b in ("heuristic", "random", "random")]
        match_id = stub.CreateMatch(pb.CreateMatchRequest(game="durak-dice", seats=seats)).match_id
        watcher = Watcher(stub, match_id, None, from_version=1)
        watcher.join(60)
        assert watcher.error is None
        assert watcher.updates[-1].view.status == pb.MATCH_STATUS_FINISHED
    finally:
        server.stop()
    yield match_id, signer, stream_of(redis_url, match_id)


def _signed(stored: Stored) -> list[bool]:
    return [bool(fields.get("s")) for _, fields in stored]


def _first_unsigned(stored: Stored) -> int:
    """The index (0-based) of the first entry without a signature (one inside a run)."""
    return _signed(stored).index(False)


def test_only_a_runs_last_entry_is_signed_and_the_log_verifies(
    bots_match: tuple[str, Signer, Stored], redis_url: str, tmp_path: Path
) -> None:
    match_id, signer, stored = bots_match
    signed = _signed(stored)
    assert signed[0] and signed[-1] and not all(signed)  # entry 1, the end, and runs between
    for (_, fields), has in zip(stored, signed, strict=True):
        entry = json.loads(fields["e"])
        if not has:  # only a bot's move goes unsigned
            assert entry["seat"] >= 0 and entry["command_id"].startswith("bot-"), entry
    code, text = verify_export(redis_url, signer, match_id, tmp_path)
    unsigned = signed.count(False)
    assert code == 0 and f"other {unsigned} in runs of the server's bots" in text, text


def test_a_bot_move_edited_inside_a_run_fails_at_the_runs_signed_entry(
    bots_match: tuple[str, Signer, Stored],
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
) -> None:
    stored = bots_match[2]
    inside = _first_unsigned(stored)
    end = _signed(stored).index(True, inside)  # the run's signed last entry

    def other_command_id(entries: Entries) -> None:
        entries[inside]["command_id"] += "x"  # an edit the rules cannot see

    code, text = verify_rewritten(redis_client, redis_url, bots_match, other_command_id, tmp_path)
    assert code == 1, text
    assert f"entry {end + 1}:" in text and f"-{end + 1} through the chain" in text, text


def test_a_log_cut_inside_a_run_fails_for_its_unsigned_tail(
    bots_match: tuple[str, Signer, Stored],
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
) -> None:
    inside = _first_unsigned(bots_match[2])

    def cut(entries: Entries) -> None:
        del entries[inside + 1 :]

    code, text = verify_rewritten(redis_client, redis_url, bots_match, cut, tmp_path, ARBITER)
    assert code == 1 and f"entry {inside + 1}:" in text, text
    assert "no later entry vouches for them" in text, text


def test_the_creation_entry_without_its_signature_fails_at_entry_1(
    bots_match: tuple[str, Signer, Stored],
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
) -> None:
    """Only a bot's move may go unsigned: entry 1, the system's, fails at once when its
    signature is gone, though every later signature still holds."""
    match_id, signer, stored = bots_match
    stripped = [(stored[0][0], {**stored[0][1], "s": ""}), *stored[1:]]
    try:
        restore(redis_client, match_id, stripped)
        code, text = verify_export(redis_url, signer, match_id, tmp_path)
    finally:
        restore(redis_client, match_id, stored)
    assert code == 1 and "entry 1:" in text and "carries no signature" in text, text
