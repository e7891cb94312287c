"""The pure match lifecycle: create, join, start on the last seat, decide, play and reveal."""

from __future__ import annotations

import pytest

from kozyr.core.cards import deck
from kozyr.core.fairness import commitment, match_seed
from kozyr.games import get_game
from kozyr.games.contract import Setup
from kozyr.match import lifecycle
from kozyr.match.errors import Kind, MatchError
from kozyr.match.log import GENESIS_HASH, SYSTEM_SEAT, MatchCreated, SeedRevealed
from kozyr.match.record import MatchRecord, fold_entries

SEED = bytes(range(32))


def created(game: str, seats: list[tuple[str, bytes]], **setup: object) -> MatchCreated:
    return lifecycle.created_event(
        get_game(game),
        {},
        seats,
        Setup(**setup),  # type: ignore[arg-type]
        match_id="m1",
        server_seed=SEED,
    )


def state_seed(state: object) -> bytes:
    """The match seed a game's state deals from (each game keeps it in its match part)."""
    for name in ("match", "m"):
        part = getattr(state, name, None)
        if part is not None and hasattr(part, "seed"):
            return bytes(part.seed)
    raise AssertionError(f"no match seed in {type(state).__name__}")


def test_creation_with_every_seat_named_starts_the_match_in_entry_one() -> None:
    game = get_game("dix")
    step = lifecycle.create(
        game, created("dix", [("ann", b"a"), ("bob", b"")]), server_seed=SEED, time_ms=5
    )
    entry = step.entry
    assert (entry.version, entry.seat, entry.prev, entry.time_ms) == (
        1,
        SYSTEM_SEAT,
        GENESIS_HASH,
        5,
    )
    assert step.record.started and step.record.version == 1 and step.record.head == step.digest
    assert step.events[0].commitment == commitment(SEED)
    start = step.events[1]
    assert start.seed == b"" and '"seed":""' in step.text  # withheld from the log (§1)
    # ... but the record deals from the match seed of the contributions, in seat order
    assert state_seed(step.record.state) == match_seed(SEED, [b"a", b""])
    assert not step.record.seedless
    # the sealed record is the fold of the entry with the server seed; without it, seedless
    assert fold_entries([entry], server_seed=SEED) == step.record
    assert fold_entries([entry]).seedless


def test_a_seedless_record_refuses_to_decide() -> None:
    game = get_game("dix")
    step = lifecycle.create(
        game, created("dix", [("ann", b""), ("bob", b"")]), server_seed=SEED, time_ms=5
    )
    record = fold_entries([step.entry])
    seat = game.to_act(record.state)
    assert seat is not None
    with pytest.raises(MatchError) as refused:
        lifecycle.decide(record, seat, game.legal_commands(record.state, seat)[0])
    assert refused.value.code == "SEED_WITHHELD"


def test_the_same_inputs_give_the_same_entry_byte_for_byte() -> None:
    game = get_game("six-dozens")
    seats = [("a", b""), ("b", b"\x01"), ("c", b"")]
    one = lifecycle.create(game, created("six-dozens", seats), server_seed=SEED, time_ms=9)
    two = lifecycle.create(game, created("six-dozens", seats), server_seed=SEED, time_ms=9)
    assert one.text == two.text and one.digest == two.digest


@pytest.mark.parametrize(
    ("seats", "setup", "code"),
    [
        ([("a", b"")], {}, "BAD_PLAYER_COUNT"),
        ([("a", b""), ("x" * 65, b"")], {}, "FIELD_TOO_LONG"),
        ([("a", b""), ("b\n", b"")], {}, "BAD_NAME"),
        ([("a", b""), ("b", b"\0" * 65)], {}, "FIELD_TOO_LONG"),
        ([("a", b""), ("b", b"")], {"first_dealer": 2}, "BAD_FIRST_DEALER"),
        ([("a", b""), ("b", b"")], {"decks": ((),)}, "BAD_DECK"),
        ([("a", b""), ("b", b"")], {"decks": (deck(53),) * 65}, "TOO_MANY_PREARRANGED"),
    ],
)
def test_a_bad_creation_is_refused_with_its_code(
    seats: list[tuple[str, bytes]], setup: dict[str, object], code: str
) -> None:
    with pytest.raises(MatchError) as refused:
        lifecycle.create(
            get_game("dix"), created("dix", seats, **setup), server_seed=SEED, time_ms=0
        )
    assert (refused.value.kind, refused.value.code) == (Kind.BAD_REQUEST, code)


def waiting_record() -> MatchRecord:
    game = get_game("durak-dice")
    return lifecycle.create(
        game, created("durak-dice", [("a", b""), ("", b""), ("", b"")]), server_seed=SEED, time_ms=0
    ).record


def test_joins_fill_open_seats_and_the_last_one_deals_from_the_match_seed() -> None:
    record = waiting_record()
    assert record.open_seats == (1, 2) and not record.started
    assert lifecycle.choose_seat(record, None) == 1
    assert not lifecycle.join_starts(record)
    first = lifecycle.join(record, 2, "cid", b"\x07", server_seed=None, time_ms=1)
    assert first.record.open_seats == (1,) and lifecycle.join_starts(first.record)
    last = lifecycle.join(first.record, 1, "bob", b"", server_seed=SEED, time_ms=2)
    assert last.record.started and last.record.names == ("a", "bob", "cid")
    assert last.events[1].seed == b""  # withheld from the log
    assert state_seed(last.record.state) == match_seed(SEED, [b"", b"", b"\x07"])


def test_a_taken_or_missing_seat_is_refused() -> None:
    record = waiting_record()
    for seat, kind, code in ((0, Kind.RULES, "SEAT_TAKEN"), (3, Kind.BAD_REQUEST, "NOT_A_SEAT")):
        with pytest.raises(MatchError) as refused:
            lifecycle.choose_seat(record, seat)
        assert (refused.value.kind, refused.value.code) == (kind, code)


def test_a_move_before_the_start_is_refused() -> None:
    with pytest.raises(MatchError) as refused:
        lifecycle.decide(waiting_record(), 0, object())
    assert refused.value.code == "NOT_STARTED"


def test_the_finishing_move_reveals_the_server_seed_with_the_head_it_follows() -> None:
    game = get_game("dix")
    step = lifecycle.create(
        game, created("dix", [("a", b""), ("b", b"")]), server_seed=SEED, time_ms=0
    )
    for n in range(2_000):
        record = step.record
        seat = game.to_act(record.state)
        assert seat is not None
        decision = lifecycle.decide(record, seat, game.legal_commands(record.state, seat)[0])
        step = lifecycle.play(record, decision, f"c{n}", server_seed=SEED, time_ms=n)
        revealed = [e for e in step.events if isinstance(e, SeedRevealed)]
        if decision.finishes:
            assert revealed == [SeedRevealed(SEED.hex(), record.head)]
            assert step.record.finished and step.record.revealed_seed == SEED.hex()
            return
        assert not revealed
    raise AssertionError("the match did not end")
