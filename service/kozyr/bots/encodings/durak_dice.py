"""Durak with dice: the seat's view as 637 numbers; 108 actions.

Actions: 0..52 attack or throw in the card of that index, 53..105 beat with card (index - 53),
106 take, 107 pass.
"""

from __future__ import annotations

from kozyr.bots.encodings.layout import CARD_SLOTS, Features, rel_seat, relative
from kozyr.core.cards import ALL_CARDS
from kozyr.games import durak_dice

SEATS = 6
ACTIONS = 2 * CARD_SLOTS + 2
TAKE = 2 * CARD_SLOTS
PASS = TAKE + 1
PHASES = ("IDLE", "ATTACK", "DEFEND", "THROW", "OVER")


def encode(view: durak_dice.View) -> Features:
    """The encoding of a seated view (docs/agents.md "Durak with dice")."""
    seat = view.seat if view.seat is not None else 0
    n = len(view.players)
    f = Features()
    f.cards("hand", view.hand)
    f.cards("table_attacks", (a for a, _ in view.table))
    f.cards("table_defences", (d for _, d in view.table))
    f.cards("unbeaten", (a for a, d in view.table if d is None))
    f.cards("trump_card", (view.trump_card,))
    f.cards("last_bout", (c for pair in view.last_bout for c in pair))
    for k in range(1, SEATS):
        known = view.known[(seat + k) % n] if k < n else ()
        f.cards(f"known_{k}", known)
    f.one_hot("trump", None if view.trump is None else int(view.trump), 4)
    f.numbers("present", relative([1.0] * n, seat, SEATS))
    f.numbers("hand_sizes", relative(view.hand_sizes, seat, SEATS), 36)
    f.numbers("out", relative([float(p in view.out) for p in range(n)], seat, SEATS))
    f.numbers("fools", relative(view.fools, seat, SEATS), max(1, view.games))
    f.one_hot("attacker", rel_seat(view.attacker, seat, n), SEATS)
    f.one_hot("defender", rel_seat(view.defender, seat, n), SEATS)
    f.one_hot("to_act", rel_seat(view.to_act, seat, n), SEATS)
    f.one_hot("phase", PHASES.index(view.phase) if view.phase in PHASES else None, len(PHASES))
    f.numbers("discard_count", (view.discard_count,), 52)
    f.numbers("game", (view.game_number, view.games), 1000)
    return f


def action_of(command: durak_dice.Command) -> int:
    """The action index of a command."""
    if isinstance(command, durak_dice.Attack):
        return command.card.index
    if isinstance(command, durak_dice.Beat):
        return CARD_SLOTS + command.card.index
    return TAKE if isinstance(command, durak_dice.Take) else PASS


def command_of(action: int) -> durak_dice.Command:
    """The command of an action index."""
    if action < CARD_SLOTS:
        return durak_dice.Attack(ALL_CARDS[action])
    if action < TAKE:
        return durak_dice.Beat(ALL_CARDS[action - CARD_SLOTS])
    return durak_dice.Take() if action == TAKE else durak_dice.Pass()
