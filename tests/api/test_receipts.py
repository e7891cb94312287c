"""Receipts settle disputes a third party can decide (docs/fairness.md §6).

A served match is played through kozyr_client, whose seats keep every receipt they are handed;
its log is exported like an arbiter would. With the operator's public key the export verifies
and every receipt matches it; a log edited and re-hashed by someone without the key fails at
the first edited entry; a log that drops or rewrites an entry a player holds a receipt for is
caught, the receipt named, with exit status 1.
"""

from __future__ import annotations

import contextlib
import copy
import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr import cli
from kozyr.core.receipts import KeyRing, dumps_receipts
from kozyr.replay import archive
from kozyr.replay.export import export
from kozyr.replay.verify import verify
from kozyr_client import KozyrClient, SeatClient
from tests.conftest import ServerThread
from tests.replay.helpers import entries, rehash

Lines = list[dict[str, Any]]


def play(client: KozyrClient) -> tuple[str, SeatClient, SeatClient]:
    created = client.create_match("dix", ["ann", ""])
    joined = client.join(created.match_id, "bob")
    assert created.receipt is not None and joined.receipt is not None
    assert created.commitment == joined.commitment == joined.receipt.commitment
    ann = client.seat(created.match_id, created.tokens[0], [created.receipt])
    bob = client.seat(created.match_id, joined.token, [joined.receipt])
    rng = random.Random(5)
    for _ in range(2_000):
        view = ann.view()
        if not view.HasField("to_act"):
            break
        mover = ann if view.to_act == 0 else bob
        legal = mover.legal_moves()
        mover.move(legal[rng.randrange(len(legal))])
    for seat in (ann, bob):  # a finished match's watch streams every entry, with its receipt
        with seat.watch() as updates:
            for _ in updates:
                pass
    return created.match_id, ann, bob


@pytest.fixture(scope="module")
def played(redis_url: str) -> Iterator[tuple[Lines, SeatClient, SeatClient, str]]:
    """One match served and exported for the module: every test only reads it (a whole
    match played again per test cost ~5 s each)."""
    server = ServerThread(redis_url)
    try:
        with KozyrClient(server.address) as client:
            match_id, ann, bob = play(client)
            key = client.signing_keys()[0].public_key.hex()
            text = export(server.address, match_id, None).text
    finally:
        server.stop()
    parsed = archive.parse(text)
    assert parsed.footer is not None
    yield [parsed.header, *parsed.entries, parsed.footer], ann, bob, key


@pytest.fixture
def served(
    played: tuple[Lines, SeatClient, SeatClient, str],
) -> tuple[Lines, SeatClient, SeatClient, str]:
    """The module's match, its lines a copy of the test's own (rehash edits in place)."""
    lines, ann, bob, key = played
    return copy.deepcopy(lines), ann, bob, key


def run_verify(tmp: Path, lines: Lines, *args: str) -> tuple[int, str]:
    path = tmp / "match.jsonl"
    path.write_text(archive.dumps(lines))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["replay", "verify", str(path), *args])
    return code, out.getvalue()


def test_a_served_matchs_receipts_verify_against_its_export(
    served: tuple[Lines, SeatClient, SeatClient, str], tmp_path: Path
) -> None:
    lines, ann, bob, key = served
    n = len(entries(lines))
    keys = KeyRing([bytes.fromhex(key)])
    assert len(ann.receipts) == n and all(keys.problem(r) is None for r in ann.receipts.all())
    assert ann.receipts.commitment == lines[0]["commitment"]
    report = verify(
        archive.parse(archive.dumps(lines)),
        keys=keys,
        receipts=ann.receipts.all() + bob.receipts.all(),
    )
    assert report.verified and report.signatures == n and report.receipts == 2 * n
    held = tmp_path / "ann.receipts"
    ann.receipts.save(held)
    code, text = run_verify(tmp_path, lines, "--key", key, "--receipts", str(held))
    assert code == 0, text
    assert f"signatures: all {n} entries signed" in text and "no key given" not in text


def test_without_a_key_the_report_says_it_checked_only_the_files_consistency(
    served: tuple[Lines, SeatClient, SeatClient, str], tmp_path: Path
) -> None:
    lines, _, _, _ = served
    forged = copy.deepcopy(lines)
    entries(forged)[4]["time_ms"] += 1  # an edit the rules cannot see, re-hashed
    code, text = run_verify(tmp_path, rehash(forged))
    assert code == 0 and "no key given (--key): only the file's own consistency" in text


@pytest.mark.parametrize("strip", [False, True])
def test_a_log_edited_and_rehashed_without_the_key_fails_at_the_first_edited_entry(
    served: tuple[Lines, SeatClient, SeatClient, str], strip: bool, tmp_path: Path
) -> None:
    lines, _, _, key = served
    forged = copy.deepcopy(lines)
    entries(forged)[4]["time_ms"] += 1
    if strip:  # the forger drops the signatures it cannot make
        for line in entries(forged)[4:]:
            line.pop("receipt")
    code, text = run_verify(tmp_path, rehash(forged), "--key", key)
    assert code == 1 and "entry 5:" in text, text
    assert ("no signature" if strip else "not the one the operator signed") in text


def test_a_dropped_entry_a_player_holds_a_receipt_for_is_proved(
    served: tuple[Lines, SeatClient, SeatClient, str], tmp_path: Path
) -> None:
    lines, ann, _, key = served
    n = len(entries(lines))
    cut = [*lines[: n - 2], lines[-1]]  # header, entries 1..n-3, footer: the end is gone
    held = tmp_path / "ann.receipts"
    held.write_text(dumps_receipts(ann.receipts.all()))
    code, text = run_verify(tmp_path, rehash(cut), "--key", key, "--receipts", str(held))
    assert code == 1, text
    assert f"receipt for entry {n - 2} (key " in text and "PROOF THAT THE LOG WAS REWRITTEN" in text
    assert "and 2 later receipts" in text
    assert f"this log ends at entry {n - 3}" in text


def test_a_rewritten_entry_a_player_holds_a_receipt_for_is_proved(
    served: tuple[Lines, SeatClient, SeatClient, str], tmp_path: Path
) -> None:
    lines, _, bob, key = served
    forged = copy.deepcopy(lines)
    entries(forged)[6]["command_id"] = "rewritten"
    held = tmp_path / "bob.receipts"
    bob.receipts.save(held)
    code, text = run_verify(tmp_path, rehash(forged), "--key", key, "--receipts", str(held))
    assert code == 1 and "receipt for entry 7 (key " in text, text
    assert "entry 7 is a different entry" in text


def test_receipts_without_a_key_are_refused(
    served: tuple[Lines, SeatClient, SeatClient, str], tmp_path: Path
) -> None:
    lines, ann, _, _ = served
    held = tmp_path / "ann.receipts"
    ann.receipts.save(held)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = run_verify(tmp_path, lines, "--receipts", str(held))
    assert code == 2 and "--receipts needs the operator's key" in err.getvalue()
