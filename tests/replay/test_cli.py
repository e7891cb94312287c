"""`kozyr replay verify | show` in-process (the parser and exit codes of the real command)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kozyr.cli import main
from kozyr.games import GAMES
from kozyr.replay import archive
from kozyr.replay.steps import frames, parse_steps
from tests.replay.helpers import Lines, entries, event_of, recorded, tampered


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "six.jsonl"
    path.write_text(archive.dumps(recorded("six-dozens", 3, b"cli-six")), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def dix_lines() -> Lines:
    return recorded("dix", 2, b"cli-dix")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------------------- verify


def test_verify_exit_0_for_a_good_file(six: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", str(six))
    # The file's seats were all named at creation with no window: the verdict says the deal
    # was the server's alone (tests/actors/test_contributions.py has the fair one).
    assert code == 0 and out.rstrip().endswith(
        "VERIFIED — the server's deal alone: no seat contributed after the commitment, "
        "so the operator could have chosen it (docs/fairness.md §8)"
    )


def test_verify_exit_1_names_the_first_bad_entry(
    dix_lines: Lines, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(ls: Lines) -> None:
        event_of(entries(ls)[9], "CardPlayed")["card"] = "JK"

    path = tmp_path / "bad.jsonl"
    path.write_text(archive.dumps(tampered(dix_lines, edit, recompute=False)))
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 1
    assert "NOT VERIFIED\nentry 10: the hash does not match" in out
    assert "  expected: " in out and "  found:    " in out
    code, out, _ = run(capsys, "verify", "--json", str(path))
    report = json.loads(out)
    assert code == 1 and report["first_bad_entry"] == 10 and report["verified"] is False


@pytest.mark.parametrize("content", [b"", b"\xff\xfe garbage", b'{"kind":"entry"}\n', b"[1,2]\n"])
def test_verify_exit_2_when_the_file_cannot_be_read(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 2 and out.startswith("UNREADABLE")
    code, out, _ = run(capsys, "verify", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in out


def test_verify_exit_2_for_an_unknown_game(
    dix_lines: Lines, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(archive.dumps([dict(dix_lines[0], game="poker"), *dix_lines[1:]]))
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 2 and "unknown game 'poker'" in out


# ---------------------------------------------------------------------------- show


def test_show_the_full_table_at_a_step(six: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = archive.read(six)
    record = frames(replay)[4].record  # step 5
    game = record.game
    code, out, _ = run(capsys, "show", str(six), "--step", "5")
    assert code == 0
    assert out.startswith("── step 5 of ")
    for seat in range(3):
        hand = " ".join(c.code for c in game.view(record.state, seat).hand) or "-"
        assert f"(seat {seat}) holds: {hand}" in out
    stock = " ".join(c.code for c in game.zones(record.state)["stock"])
    assert f"stock: {stock}" in out
    assert all(len(line) <= 78 for line in out.splitlines())


def test_show_as_a_seat_hides_the_others(six: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = frames(archive.read(six))[4].record
    game = record.game
    code, out, _ = run(capsys, "show", str(six), "--step", "5", "--as", "1")
    assert code == 0 and "seat 1's view" in out and "holds:" not in out
    assert game.render(game.view(record.state, 1)) in out
    own = game.view(record.state, 1).hand
    assert own and all(c.pretty in out for c in own)
    for seat in (0, 2):  # another seat's cards in hand never show, in any notation
        for card in game.view(record.state, seat).hand:
            assert card.code not in out and card.pretty not in out, card


def test_show_steps_through_ranges(six: Path, capsys: pytest.CaptureFixture[str]) -> None:
    total = len(archive.read(six).entries)
    code, out, _ = run(
        capsys, "show", str(six), "--step", "2-4,-1", "--as", "spectator", "--no-events"
    )
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("── step")]
    assert [h.split()[2] for h in headers] == ["2", "3", "4", str(total)]
    assert parse_steps("all", 3) == [1, 2, 3] and parse_steps("2-", 4) == [2, 3, 4]
    with pytest.raises(ValueError, match="outside"):
        parse_steps("9", 3)
    code, _, err = run(capsys, "show", str(six), "--step", "x")
    assert code == 2 and "--step takes" in err
    code, _, err = run(capsys, "show", str(six), "--as", "7")
    assert code == 2 and "no seat 7" in err


def test_show_interactive_mode_reads_commands(
    six: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\nn\n\np\na 2\nq\n"))
    code, out, _ = run(capsys, "show", str(six), "-i")
    headers = [
        line.split(" · ")[0].split()[2] + line.split(" · ")[-1].split(" ─")[0]
        for line in out.splitlines()
        if line.startswith("── step")
    ]
    total = len(archive.read(six).entries)
    assert code == 0
    # -i steps through from the start (an arbiter reads a match from its beginning)
    assert headers == [
        "1the full table",
        "1the full table",
        "2the full table",
        "3the full table",
        "2the full table",
        "2seat 2's view",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, _ = run(capsys, "show", str(six), "-i", "--step", "-1")
    assert code == 0 and f"── step {total}" in out  # --step still says where to start


def test_show_before_the_match_starts() -> None:
    from kozyr.replay.steps import table_text

    lines = recorded("durak-dice", 3, b"waiting", open_seats=(1, 2))
    record = frames(archive.parse(archive.dumps(lines)))[0].record
    text = table_text(record, "full")
    assert (
        text == f"{GAMES['durak-dice'].TITLE}: waiting for players (p0 (seat 0), "
        "seat 1 open, seat 2 open)"
    )
