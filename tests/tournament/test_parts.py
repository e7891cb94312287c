"""Small parts: the conversions a served bot relies on."""

from __future__ import annotations

import random

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.fairness import RandomStream
from kozyr.games import GAMES
from kozyr.tournament.remote import EventReader, table_message
from kozyr.wire import convert
from kozyr.wire.convert import TABLE_FIELD, command_from_move, fill, move_from_command
from kozyr_client.moves import make_move
from tests.bots.helpers import random_decisions
from tests.games.helpers import all_commands, new_match, random_playout


@pytest.mark.parametrize("name", sorted(GAMES))
def test_moves_convert_both_ways_like_the_service(name: str) -> None:
    game = GAMES[name]
    commands = [
        c for c in all_commands(game) if getattr(c, "card", None) is None or c.card.suit is not None
    ]
    for command in commands:
        card = getattr(command, "card", None)
        move = make_move(name, type(command).__name__.lower(), card and card.code)
        assert move == move_from_command(game, command)
        assert command_from_move(game, move) == command


@pytest.mark.parametrize(("name", "players"), [("dix", 2), ("six-dozens", 3), ("durak-dice", 4)])
def test_a_rebuilt_view_fills_the_table_message_exactly_as_the_service(
    name: str, players: int
) -> None:
    game = GAMES[name]
    rng = random.Random(2)
    for step, (table, seat) in enumerate(random_decisions(game, players, 8)):
        if step % 9:
            continue
        view = game.view(table.state, seat)
        template = getattr(pb.MatchView(), TABLE_FIELD[name])
        server_side = fill(type(template)(), view)
        assert table_message(template, view) == server_side
        # and a different table gives a different message (the check can fail)
        other = game.view(table.state, (seat + 1 + rng.randrange(players - 1)) % players)
        assert table_message(template, other) != server_side


@pytest.mark.parametrize("name", sorted(GAMES))
def test_seats_of_one_process_share_the_events_they_were_both_sent(name: str) -> None:
    game = GAMES[name]
    state, opening = new_match(game, 2, b"reader-seed")
    moves = RandomStream(b"r", "moves")
    events = opening + [e for *_, made in random_playout(game, state, moves, 2000) for e in made]
    reader, alone = EventReader(game), EventReader(game)
    sent = [convert.events_for(game, 1, events, seat) for seat in (0, 1)]
    read = [reader.read(sent[0]), reader.read(sent[1])]
    for seat in (0, 1):
        assert (
            read[seat]
            == alone.read(sent[seat])
            == [e for e in (game.redact(event, seat) for event in events) if e is not None]
        )
    shared = [a for a, b in zip(read[0], read[1], strict=True) if a is b]
    private = [a for a, b in zip(read[0], read[1], strict=True) if a != b]
    assert shared and private  # the deal differs by seat; the rest is one object for both


def test_an_event_reader_forgets_when_full() -> None:
    game = GAMES["dix"]
    _, opening = new_match(game, 2, b"reader-seed")
    reader = EventReader(game)
    reader.KEEP = 2
    sent = convert.events_for(game, 1, opening, 0)
    assert len(sent) > 2 and reader.read(sent) == reader.read(sent)
    assert len(reader._known) <= 2
