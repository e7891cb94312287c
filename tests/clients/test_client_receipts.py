"""kozyr_client keeps the receipt of an early ending (issue 30): `SeatClient.resign()` and
`SeatClient.end()` keep the receipt EndMatch returns, as a move keeps its own, so the seat's last
kept receipt is the one of the match's final entry, the head an arbiter checks the export
against (docs/fairness.md §6). Against a real server, on the test Redis."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.cli.commands import main as kozyr_main
from kozyr.core.receipts import GivenKey, KeyRing, read_receipts
from kozyr.replay import archive
from kozyr.replay.export import export, receipt_of
from kozyr.replay.verify import verify
from kozyr_client import KozyrClient, SeatClient
from tests.conftest import ServerThread

Ending = Callable[[SeatClient], pb.EndMatchResponse]


def _keys(client: KozyrClient) -> KeyRing:
    return KeyRing(
        GivenKey(k.public_key, k.valid_from_ms, k.valid_until_ms or None)
        for k in client.signing_keys()
    )


@pytest.mark.parametrize(
    ("ending", "moves"),
    [
        pytest.param(lambda seat: seat.resign(), 6, id="resign"),
        pytest.param(lambda seat: seat.end(pb.END_REASON_ABORT), 0, id="end-abort"),
    ],
)
def test_an_early_ending_keeps_the_final_entrys_receipt(
    server: ServerThread, tmp_path: Path, ending: Ending, moves: int
) -> None:
    rng = random.Random(30)
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["ann", "bob"])
        seats = [
            client.seat(created.match_id, created.tokens[i], [created.receipt]) for i in (0, 1)
        ]
        view = seats[0].view()
        for _ in range(moves):
            player = seats[view.to_act]
            view = player.move(rng.choice(player.legal_moves())).view
        ann = seats[0]
        before = ann.receipts.last
        assert before is not None

        ended = ending(ann)

        assert ended.view.status == pb.MATCH_STATUS_FINISHED
        assert ended.HasField("receipt") and ended.receipt.version == ended.version
        log = ann.log().entries
        last = ann.receipts.last
        assert last is not None and last.version > before.version
        # The kept last receipt is the final entry's: its version, its hash, its signature.
        assert last.version == ended.version == log[-1].version
        assert last.entry_hash == log[-1].hash
        assert last.signature == log[-1].receipt.signature.hex()
        assert "SeedRevealed" in log[-1].canonical_json
        keys = _keys(client)
        assert keys.problem(last) is None

    # An arbiter checks the export against the kept receipts: the last one pins its head.
    exported = export(server.address, created.match_id, None)
    head = json.loads(exported.text.splitlines()[-1])["head"]
    assert head == last.entry_hash
    kept = tmp_path / "ann.receipts.jsonl"
    ann.receipts.save(kept)
    held = read_receipts(kept)
    assert held[-1] == last and len(held) == len(ann.receipts)
    report = verify(archive.parse(exported.text), keys=keys, receipts=held)
    assert report.verified and report.receipts == len(held), report.text()


def test_the_kept_last_receipt_shows_a_log_cut_short_at_its_end(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log cut before its final entry still carries a signature on every entry left: only
    the receipt of a later entry shows the cut, and after a resignation the seat holds the
    final entry's (`verify --receipts` prints the proof)."""
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["ann", "bob"])
        ann = client.seat(created.match_id, created.tokens[0], [created.receipt])
        first = ann.resign("bye")
        again = ann.resign("bye")  # a repeat (an answer lost) is answered as recorded
        assert again.version == first.version and again.receipt == first.receipt
        key = next(k for k in client.signing_keys() if k.current).public_key.hex()
        log = ann.log().entries
    cut = tmp_path / "cut.jsonl"
    cut.write_text(
        archive.dumps(
            archive.build(
                [
                    archive.RawEntry(e.version, e.canonical_json, e.hash, receipt_of(e.receipt))
                    for e in log[:-1]  # the final entry dropped, every signature kept
                ]
            )
        ),
        encoding="utf-8",
    )
    kept = tmp_path / "ann.receipts.jsonl"
    ann.receipts.save(kept)
    assert read_receipts(kept)[-1].version == log[-1].version
    capsys.readouterr()
    code = kozyr_main(["replay", "verify", str(cut), "--key", key, "--receipts", str(kept)])
    out = capsys.readouterr().out
    assert code == 1 and "PROOF THAT THE LOG WAS REWRITTEN" in out, out
    assert f"entry {log[-1].version}" in out, out
