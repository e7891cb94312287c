"""What an arbiter meets: old exports, running matches, the summary's counts and wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from kozyr.replay import archive
from kozyr.replay.verify import verify
from tests.replay.helpers import check, entries, recorded

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize("name", ["schema2-dix", "schema2-durak-dice"])
def test_files_exported_before_the_seed_was_withheld_still_verify(name: str) -> None:
    replay = archive.read(FIXTURES / f"{name}.jsonl")
    assert {line["schema"] for line in replay.entries} == {2}
    started = next(
        e for line in replay.entries for e in line["events"] if e["type"] == "MatchStarted"
    )
    assert started["seed"]  # schema 2 logged the match seed; its reader still knows it
    report = verify(replay)
    # Named seats' contributions came with the creation, where the server saw them: the Dix
    # file's deal was the server's alone; in the Durak file seat 2 joined with its own bytes.
    alone = name == "schema2-dix"
    assert report.verified and (report.server_alone, report.fair) == (alone, not alone), (
        report.text()
    )


def test_the_same_match_deals_the_same_cards_under_schema_3() -> None:
    """The schema-2 fixture re-recorded today: other bytes (no seed in MatchStarted), the very
    same decks, hands and rolls."""
    from kozyr.games import get_game
    from kozyr.replay.recorder import record_match

    old = archive.read(FIXTURES / "schema2-durak-dice.jsonl")
    new = archive.build(
        record_match(
            get_game("durak-dice"),
            ["ann", "bob", "cid"],
            bytes.fromhex("11" * 32),
            options={"games": "3"},
            contributions=[b"a", b"", b"\x01\x02"],
            open_seats=[2],
            match_id="v2durak",
        )
    )

    def dealt(lines: list[dict[str, object]]) -> list[object]:
        return [
            (e["deck"], e["hands"], e["rolls"])
            for line in lines
            for e in line["events"]
            if e["type"] == "Dealt"
        ]  # type: ignore[index, union-attr]

    assert dealt(list(old.entries)) == dealt(entries(new)) != []
    assert {line["schema"] for line in entries(new)} == {3}
    assert old.entries[1]["hash"] != entries(new)[1]["hash"]  # the start entry's bytes changed


def test_a_wrong_commitment_still_counts_the_seats_from_the_header() -> None:
    report = check(recorded("dix", 2, b"arbiter"), expect_commitment="00")
    assert not report.verified and report.seats == 2
    assert "· 2 seats ·" in report.text()


def test_the_outcome_names_seats_and_players() -> None:
    report = check(recorded("dix", 2, b"arbiter"))
    assert report.verified
    assert "(p0)" in report.outcome and "(p1)" in report.outcome
    assert report.outcome.split(" won;")[0].startswith("seat ")


def test_prearranged_dice_are_reported_as_given_not_re_derived() -> None:
    report = check(recorded("durak-dice", 2, b"dice", dice=[[6, 6, 6, 6, 6, 6]]))
    text = report.text()
    assert report.verified and "6 die rolls as given at creation" in text
    assert "die rolls given at creation" in text  # the prearranged note names the dice


def test_a_running_match_checks_its_chain_only_and_says_why() -> None:
    lines = recorded("dix", 2, b"running")
    cut = [*lines[:20], {**lines[-1], "finished": False}]
    report = check(cut)
    assert not report.verified and report.problems[0].where == "end"
    assert any("withholds the match seed" in n for n in report.notes)
