"""Six Dozens' early endings: the forfeit (SIX-14) and the default decision (SIX-15). Pure."""

from __future__ import annotations

from kozyr.core.cards import Card
from kozyr.games.contract import Outcome
from kozyr.games.six_dozens.model import Play, State
from kozyr.games.six_dozens.show import legal_commands


def card_order(card: Card) -> tuple[int, int]:
    """SIX-15: lowest rank first, equal ranks in the suit order S H D C."""
    return int(card.rank), -1 if card.suit is None else int(card.suit)


def default_decision(state: State, seat: int) -> Play:
    """SIX-15: the lowest legal card of `seat` (whose decision it must be)."""
    return min(legal_commands(state, seat), key=lambda c: card_order(c.card))


def forfeit(state: State, seat: int) -> Outcome:
    """SIX-14: the seat is ruined (capital at most 0); the highest other capital wins."""
    capitals = list(state.table.capitals)
    capitals[seat] = min(capitals[seat], 0)
    others = [s for s in range(len(capitals)) if s != seat]
    best = max(capitals[s] for s in others)
    winners = tuple(s for s in others if capitals[s] == best)
    who = ", ".join(map(str, winners))
    return Outcome(
        winners,
        tuple(capitals),
        f"seat {seat} forfeits and is ruined: highest capital, seat {who} (SIX-14)",
    )


def guarded(state: State) -> bool:
    """True when the guard of R-5 ended the match (max_hands)."""
    result = state.table.result
    return result is not None and "limit" in result.reason
