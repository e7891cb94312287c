"""Durak's early endings: the forfeit (DUR-11) and the default decision (DUR-12). Pure."""

from __future__ import annotations

from kozyr.core.cards import Card
from kozyr.games.contract import Outcome
from kozyr.games.durak_dice.model import Attack, Command, Pass, State, Take
from kozyr.games.durak_dice.show import legal_commands


def card_order(card: Card, trump: object) -> tuple[bool, int, int]:
    """DUR-12: a non-trump before any trump, then the lowest rank, then the suit order S H D C."""
    return card.suit == trump, int(card.rank), -1 if card.suit is None else int(card.suit)


def default_decision(state: State, seat: int) -> Command:
    """DUR-12: a defender takes, a throw-in passes, an opening attack plays the lowest card."""
    legal = legal_commands(state, seat)
    for kind in (Take, Pass):
        for command in legal:
            if isinstance(command, kind):
                return command
    attacks = [c for c in legal if isinstance(c, Attack)]
    trump = state.g.trump
    return min(attacks or legal, key=lambda c: card_order(c.card, trump))


def forfeit(state: State, seat: int) -> Outcome:
    """DUR-11: the seat is this game's fool; the fewest fools among the others win."""
    fools = list(state.fools)
    fools[seat] += 1
    others = [s for s in range(len(fools)) if s != seat]
    least = min(fools[s] for s in others)
    winners = tuple(s for s in others if fools[s] == least)
    who = ", ".join(map(str, winners))
    return Outcome(
        winners,
        tuple(fools),
        f"seat {seat} forfeits and is the fool: fewest fools, seat {who} (DUR-11)",
    )


def guarded(state: State) -> bool:
    """True when the guard of R-5 (max_bouts) drew the game that ended the match."""
    return state.bout >= state.config.max_bouts
