"""The written fillers of api.convert (one per message type) fill every game's table exactly
as the general field-by-field path does, for every seat and a spectator, at every decision of
random matches."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.games import GAMES
from kozyr.wire import convert
from tests.bots.helpers import random_decisions

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def by_plan(msg: Message, obj: Any) -> Message:
    """The general path: each field of the message's plan set by `set_field`."""
    for name, repeated, nested, text in convert.field_plan(msg.DESCRIPTOR):
        value = getattr(obj, name, None)
        if value is not None:
            convert.set_field(msg, name, repeated, nested, text, value)
    return msg


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_a_written_filler_fills_what_the_general_path_fills(name: str) -> None:
    game = GAMES[name]
    table = type(getattr(pb.MatchView(), convert.TABLE_FIELD[name]))
    checked = 0
    for seed in range(2):
        for state_table, _ in random_decisions(game, PLAYERS[name], seed):
            for viewer in [*range(PLAYERS[name]), None]:
                view = game.view(state_table.state, viewer)
                written = convert.fill(table(), view)
                assert written == by_plan(table(), view)
                assert written.SerializeToString() == by_plan(table(), view).SerializeToString()
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_a_decisions_moves_from_their_wire_form_are_its_legal_moves(name: str) -> None:
    """decision_moves (bytes merged into a Decision) gives the moves extending the field
    with each Move message gives, in order, next to the decision's other fields."""
    game = GAMES[name]
    checked = 0
    for state_table, seat in random_decisions(game, PLAYERS[name], 3):
        legal = game.legal_commands(state_table.state, seat)
        merged = pb.Decision(match_id="m", seat=seat, version=checked + 1)
        merged.MergeFromString(convert.decision_moves(game, legal))
        extended = pb.Decision(match_id="m", seat=seat, version=checked + 1)
        extended.moves.extend([convert.move_from_command(game, c) for c in legal])
        assert merged == extended and len(merged.moves) == len(legal)
        assert [convert.command_from_move(game, m) for m in merged.moves] == list(legal)
        checked += 1
    assert checked > 10
