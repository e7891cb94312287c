"""Clocks, deadlines and early endings in the pure lifecycle (docs/rules.md R-7 … R-9)."""

from __future__ import annotations

import pytest

from kozyr.games import get_game
from kozyr.games.codec import encode
from kozyr.games.contract import Setup
from kozyr.match import clock, endings, lifecycle
from kozyr.match.errors import Kind, MatchError
from kozyr.match.lifecycle import Step
from kozyr.match.log import MatchTerms
from kozyr.match.record import MatchRecord, fold_entries

SEED = bytes(range(32))
T0 = 1_000_000


def start(game: str = "dix", terms: MatchTerms | None = None, open_seats: int = 0) -> Step:
    g = get_game(game)
    n = g.MIN_PLAYERS
    seats = [("" if i < open_seats else f"p{i}", b"") for i in range(n)]
    created = lifecycle.created_event(g, {}, seats, Setup(), match_id="m1", server_seed=SEED)
    return lifecycle.create(g, created, server_seed=SEED, time_ms=T0, terms=terms)


def move(record: MatchRecord, time_ms: int, index: int = 0) -> Step:
    seat = record.game.to_act(record.state)
    clock.check_in_time(record, seat, time_ms)
    command = record.game.legal_commands(record.state, seat)[index]
    decision = lifecycle.decide(record, seat, command)
    return lifecycle.play(record, decision, f"c{record.version}", server_seed=SEED, time_ms=time_ms)


def check_fold(steps: list[Step]) -> None:
    """The records the steps carry are the fold of their entries: the log alone gives them."""
    assert fold_entries([s.entry for s in steps], server_seed=SEED) == steps[-1].record


def test_R_8_no_clock_by_default_and_no_deadline() -> None:
    step = start()
    assert step.record.terms == MatchTerms() and clock.deadline(step.record) is None
    assert not any(isinstance(e, MatchTerms) for e in step.events)  # defaults: not recorded


def test_R_8_a_decision_is_due_its_limit_after_the_entry_before_it() -> None:
    terms = clock.make_terms(clock="DECISION", limit_ms=500)
    first = start(terms=terms)
    due = clock.deadline(first.record)
    assert due is not None and (due.at_ms, due.kind) == (T0 + 500, "TIMEOUT")
    second = move(first.record, T0 + 500)  # at the deadline: still in time
    assert clock.deadline(second.record).at_ms == T0 + 1000
    with pytest.raises(MatchError) as info:
        move(second.record, T0 + 1001)
    assert (info.value.code, info.value.rule) == ("OUT_OF_TIME", "R-8")
    check_fold([first, second])


def test_R_8_fischer_banks_run_down_and_gain_the_increment() -> None:
    terms = clock.make_terms(clock="FISCHER", bank_ms=1000, increment_ms=100)
    first = start(terms=terms)
    mover = first.record.game.to_act(first.record.state)
    second = move(first.record, T0 + 300)
    assert second.record.clock.banks[mover] == 1000 - 300 + 100
    assert clock.remaining(second.record, T0 + 400)[1 - mover] == 900
    check_fold([first, second])


def test_R_8_correspondence_counts_days() -> None:
    terms = clock.make_terms(clock="CORRESPONDENCE", days=3)
    assert clock.deadline(start(terms=terms).record).at_ms == T0 + 3 * clock.DAY_MS


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"clock": "SOMETIMES"}, "BAD_TIME_CONTROL"),
        ({"clock": "DECISION"}, "BAD_TIME_CONTROL"),
        ({"clock": "FISCHER", "bank_ms": -1}, "BAD_TIME_CONTROL"),
        ({"clock": "CORRESPONDENCE", "days": 0}, "BAD_TIME_CONTROL"),
        ({"policy": "PANIC"}, "BAD_TIMEOUT_POLICY"),
        ({"policy": "BOT"}, "BAD_TIMEOUT_POLICY"),
    ],
)
def test_R_8_R_9_bad_terms_are_refused_with_their_reason(
    kwargs: dict[str, object], code: str
) -> None:
    with pytest.raises(MatchError) as info:
        clock.make_terms(**kwargs)  # type: ignore[arg-type]
    assert info.value.kind is Kind.BAD_REQUEST and info.value.code == code


@pytest.mark.parametrize("game", ["dix", "six-dozens", "durak-dice"])
def test_R_9_forfeit_ends_the_match_timed_out_with_the_seat(game: str) -> None:
    first = start(game, clock.make_terms(clock="DECISION", limit_ms=100))
    due = clock.deadline(first.record)
    assert due is not None
    with pytest.raises(MatchError):
        endings.time_out(first.record, due, None, server_seed=SEED, time_ms=T0 + 99)
    step = endings.time_out(first.record, due, None, server_seed=SEED, time_ms=T0 + 100)
    outcome = step.record.outcome
    assert outcome is not None and outcome.termination == "TIMED_OUT"
    assert outcome.seats == (due.seat,) and due.seat not in outcome.winners
    assert step.record.revealed_seed == SEED.hex()
    check_fold([first, step])


@pytest.mark.parametrize("game", ["dix", "six-dozens", "durak-dice"])
def test_R_9_auto_move_plays_the_default_decision_and_play_goes_on(game: str) -> None:
    first = start(
        game, clock.make_terms(clock="FISCHER", bank_ms=100, increment_ms=10, policy="AUTO_MOVE")
    )
    due = clock.deadline(first.record)
    assert due is not None and due.seat is not None
    step = endings.time_out(first.record, due, None, server_seed=SEED, time_ms=T0 + 150)
    expected = first.record.game.default_decision(first.record.state, due.seat)
    assert step.entry.command == encode(expected)
    assert not step.record.finished and step.record.clock.banks[due.seat] == 10
    check_fold([first, step])


def test_R_9_the_bot_policy_keeps_the_seat_until_its_player_moves_again() -> None:
    first = start(
        "dix",
        clock.make_terms(clock="DECISION", limit_ms=10_000, policy="BOT", policy_bot="heuristic"),
    )
    record = first.record
    due = clock.deadline(record)
    assert due is not None and due.seat is not None
    bot_move = record.game.legal_commands(record.state, due.seat)[0]
    step = endings.time_out(record, due, bot_move, server_seed=SEED, time_ms=T0 + 10_000)
    assert step.record.clock.botted == (due.seat,)
    steps = [first, step]
    while step.record.game.to_act(step.record.state) != due.seat:
        step = move(step.record, step.entry.time_ms + 1)
        steps.append(step)
    again = clock.deadline(step.record)
    assert again is not None and again.kind == "BOT_POLICY"
    assert again.at_ms == step.entry.time_ms + clock.bot_window_ms(record.terms)
    back = move(step.record, again.at_ms)  # the player takes the seat back in the window
    assert back.record.clock.botted == ()
    check_fold([*steps, back])


@pytest.mark.parametrize("game", ["dix", "six-dozens", "durak-dice"])
def test_R_7_a_resignation_is_the_games_forfeit(game: str) -> None:
    first = start(game)
    step = endings.resign(first.record, 1, "r1", server_seed=SEED, time_ms=T0 + 5)
    outcome = step.record.outcome
    forfeit = first.record.game.forfeit(first.record.state, 1)
    assert outcome is not None and outcome.termination == "RESIGNED" and outcome.seats == (1,)
    assert (outcome.winners, outcome.scores) == (forfeit.winners, forfeit.scores)
    with pytest.raises(MatchError) as info:
        move(step.record, T0 + 6)
    assert info.value.code == "MATCH_OVER"
    check_fold([first, step])


def test_R_7_abort_only_before_every_seat_has_decided() -> None:
    first = start()
    step = endings.abort(first.record, 0, "a", server_seed=SEED, time_ms=T0 + 1)
    assert step.record.outcome is not None and step.record.outcome.winners == ()
    assert step.record.outcome.termination == "ABORTED"
    record = first.record
    for _ in range(4):
        record = move(record, T0 + 2).record
    assert len(record.clock.decided) == 2
    with pytest.raises(MatchError) as info:
        endings.abort(record, 0, "a", server_seed=SEED, time_ms=T0 + 3)
    assert info.value.code == "TOO_LATE_TO_ABORT"


def test_R_7_an_open_match_expires_and_takes_no_join_after() -> None:
    first = start(terms=clock.make_terms(expire_ms=1000), open_seats=1)
    with pytest.raises(MatchError):
        endings.expire(first.record, server_seed=SEED, time_ms=T0 + 999)
    step = endings.expire(first.record, server_seed=SEED, time_ms=T0 + 1000)
    assert step.record.outcome is not None and step.record.outcome.termination == "EXPIRED"
    assert step.record.outcome.seats == (0,)
    with pytest.raises(MatchError) as info:
        lifecycle.choose_seat(step.record, None)
    assert info.value.code == "MATCH_OVER"


def test_R_7_an_abandoned_seat_lets_another_claim_the_win_after_the_grace() -> None:
    first = start(terms=clock.make_terms(grace_ms=1000))
    seat = first.record.game.to_act(first.record.state)
    claimant = 1 - seat
    for watched, at in ((False, T0 + 999), (True, T0 + 5000)):
        with pytest.raises(MatchError) as info:
            endings.claim(
                first.record, claimant, "c", watched=watched, server_seed=SEED, time_ms=at
            )
        assert info.value.code == "NOT_ABANDONED"
    step = endings.claim(
        first.record, claimant, "c", watched=False, server_seed=SEED, time_ms=T0 + 1000
    )
    outcome = step.record.outcome
    assert outcome is not None and outcome.termination == "ABANDONED"
    assert outcome.seats == (seat,) and outcome.winners == (claimant,)
    check_fold([first, step])
