"""Dix: the seat's view as 228 numbers; an action is the index of the card played (53)."""

from __future__ import annotations

from kozyr.bots.encodings.layout import CARD_SLOTS, Features, relative
from kozyr.core.cards import ALL_CARDS
from kozyr.games import dix

SEATS = 2
ACTIONS = CARD_SLOTS


def encode(view: dix.View) -> Features:
    """The encoding of a seated view (docs/agents.md "Dix")."""
    seat = view.seat if view.seat is not None else 0
    f = Features()
    f.cards("hand", view.hand)
    f.cards("trick", view.trick)
    f.cards("last_trick", view.last_trick)
    f.cards("turn_up", (view.turn_up,))
    f.one_hot("trump", None if view.trump is None else int(view.trump), 4)
    f.numbers("my_turn", (float(view.to_act == seat),))
    f.numbers("i_lead", (float(view.leader == seat),))
    f.numbers("i_deal", (float(view.dealer == seat),))
    f.numbers("stock_count", (view.stock_count,), 27)
    f.numbers("hand_sizes", relative(view.hand_sizes, seat, SEATS), dix.HAND_SIZE)
    f.numbers("totals", relative(view.totals, seat, SEATS), max(1, view.target))
    f.numbers("tricks", relative(view.tricks, seat, SEATS), dix.TRICKS_PER_HAND)
    f.numbers("tens", relative(view.tens, seat, SEATS), 4)
    return f


def action_of(command: dix.Play) -> int:
    """The action index of a command."""
    return command.card.index


def command_of(action: int) -> dix.Play:
    """The command of an action index."""
    return dix.Play(ALL_CARDS[action])
