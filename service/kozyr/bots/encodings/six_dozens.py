"""Six Dozens: the seat's view as 162 numbers; an action is the index of the card played (53)."""

from __future__ import annotations

from kozyr.bots.encodings.layout import CARD_SLOTS, Features, rel_seat, relative
from kozyr.core.cards import ALL_CARDS
from kozyr.games import six_dozens

SEATS = 4
ACTIONS = CARD_SLOTS
_BANKROLL = six_dozens.CAPITAL * SEATS  # every capital and the kitty stay within this


def encode(view: six_dozens.View) -> Features:
    """The encoding of a seated view (docs/agents.md "Six Dozens")."""
    seat = view.seat if view.seat is not None else 0
    n = len(view.players)
    f = Features()
    f.cards("hand", view.hand)
    f.cards("bank", (view.bank,))
    f.numbers("present", relative([1.0] * n, seat, SEATS))
    f.numbers("hand_sizes", relative(view.hand_sizes, seat, SEATS), 8)
    f.numbers("capitals", relative(view.capitals, seat, SEATS), _BANKROLL)
    out = [0.0] * n
    for place, p in enumerate(view.out_order):
        out[p] = (place + 1) / n
    f.numbers("out_place", relative(out, seat, SEATS))
    f.numbers("kitty", (view.kitty,), _BANKROLL)
    f.numbers("stock_count", (view.stock_count,), 5)
    f.one_hot("trump_mode", six_dozens.TRUMP_MODES.index(view.trump_mode), 5)
    suits = [int(s) for s in view.trump_suits]
    f.numbers("trump_suits", [float(s in suits) for s in range(4)])
    personal = view.trump_mode == "PERSONAL"
    for k in range(SEATS):
        p = (seat + k) % n
        mine = suits[p] if personal and k < n and p < len(suits) else None
        f.one_hot(f"personal_trump_{k}", mine, 4)
    f.one_hot("to_act", rel_seat(view.to_act, seat, n), SEATS)
    f.one_hot("dealer", rel_seat(view.dealer, seat, n), SEATS)
    f.one_hot("first_mover", rel_seat(view.first_mover, seat, n), SEATS)
    f.numbers("skip_next", (float(view.skip_next),))
    return f


def action_of(command: six_dozens.Play) -> int:
    """The action index of a command."""
    return command.card.index


def command_of(action: int) -> six_dozens.Play:
    """The command of an action index."""
    return six_dozens.Play(ALL_CARDS[action])
