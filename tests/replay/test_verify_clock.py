"""The arbiter re-derives the clock: a timeout appended before its deadline, or a move accepted
after it, fails verification at that entry (docs/rules.md R-8)."""

from __future__ import annotations

from typing import Any

from kozyr.games import get_game
from kozyr.games.contract import Setup
from kozyr.match import clock, endings, lifecycle
from kozyr.match.lifecycle import Step
from kozyr.replay import archive
from kozyr.replay.archive import RawEntry
from tests.replay.helpers import Lines, check, entries, tampered

SEED = bytes(range(32))
T0 = 1_767_225_600_000
LIMIT = 1_000


def timed_log(moves: int, *, then_timeout: bool) -> Lines:
    """A Dix match with 1 s per decision: `moves` moves 10 ms apart, then (optionally) a
    forfeit at the next deadline."""
    game = get_game("dix")
    created = lifecycle.created_event(
        game, {}, [("a", b""), ("b", b"")], Setup(), match_id="m1", server_seed=SEED
    )
    terms = clock.make_terms(clock="DECISION", limit_ms=LIMIT)
    steps: list[Step] = [lifecycle.create(game, created, server_seed=SEED, time_ms=T0, terms=terms)]
    for k in range(moves):
        record = steps[-1].record
        seat = game.to_act(record.state)
        decision = lifecycle.decide(record, seat, game.legal_commands(record.state, seat)[0])
        steps.append(
            lifecycle.play(record, decision, f"c{k}", server_seed=SEED, time_ms=T0 + 10 * (k + 1))
        )
    if then_timeout:
        record = steps[-1].record
        due = clock.deadline(record)
        assert due is not None
        steps.append(endings.time_out(record, due, None, server_seed=SEED, time_ms=due.at_ms))
    return archive.build([RawEntry(s.entry.version, s.text, s.digest) for s in steps])


def test_R_8_a_match_ended_by_a_timeout_verifies() -> None:
    report = check(timed_log(5, then_timeout=True))
    assert report.status == "VERIFIED", report.problems


def test_R_8_a_timeout_forged_before_its_deadline_fails_at_that_entry() -> None:
    lines = timed_log(5, then_timeout=True)
    last = len(entries(lines))

    def forge(ls: Lines) -> None:
        entries(ls)[-1]["time_ms"] -= 1  # one ms before the deadline

    report = check(tampered(lines, forge, recompute=True))
    problem = report.problems[0]
    assert report.status == "NOT_VERIFIED" and problem.entry == last
    assert "NOT_DUE" in problem.message


def test_R_8_a_move_accepted_after_its_deadline_fails_at_that_entry() -> None:
    lines = timed_log(6, then_timeout=True)

    def late(ls: Lines) -> None:
        body = entries(ls)
        body[4]["time_ms"] = body[3]["time_ms"] + LIMIT + 1  # entry 5, 1 ms late
        for later in body[5:]:
            later["time_ms"] = body[4]["time_ms"] + 1

    report = check(tampered(lines, late, recompute=True))
    problem = report.problems[0]
    assert report.status == "NOT_VERIFIED" and problem.entry == 5
    assert "after its deadline" in problem.message


def test_R_8_a_timeout_with_a_false_deadline_fails() -> None:
    lines = timed_log(3, then_timeout=True)

    def shift(ls: Lines) -> None:
        event: dict[str, Any] = entries(ls)[-1]["events"][0]
        event["deadline_ms"] += 5

    report = check(tampered(lines, shift, recompute=True))
    assert report.status == "NOT_VERIFIED" and report.problems[0].entry == len(entries(lines))
