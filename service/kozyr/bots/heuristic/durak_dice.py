"""A rule-based Durak-with-dice player: attack low, beat with the cheapest sufficient card,
keep trumps, throw in cheap cards.

A card's worth is its rank, plus 20 for a trump. Every card is dealt and nobody draws (DUR-3),
so each card that leaves the hand is progress, and taking is costly:
- attacking: the cheapest card, preferring a rank held twice (it can be thrown in again);
- defending: beat with the cheapest card that beats; take instead only when the cheapest beater
  is a high trump (queen or better) spent on a plain card below a ten while many cards remain;
- throwing in: any plain card (cheapest first: beaten cards leave the game); a trump only with
  at most two cards left; else pass.
"""

from __future__ import annotations

from collections import Counter

from kozyr.bots.protocol import Seat
from kozyr.core.cards import Rank, Suit
from kozyr.games import durak_dice


def worth(card_rank: int, suit: Suit | None, trump: Suit | None) -> int:
    """A card's worth: its rank, plus 20 for a trump."""
    return card_rank + (20 if suit is not None and suit == trump else 0)


class DurakDiceHeuristic:
    """The Durak rules of thumb above; deterministic."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def choose(self, obs: Seat) -> durak_dice.Command:
        """The move by the rules of thumb."""
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]  # type: ignore[no-any-return]
        view = obs.view
        assert isinstance(view, durak_dice.View)
        trump = view.trump
        cards = [m for m in legal if isinstance(m, durak_dice.Attack | durak_dice.Beat)]

        def w(m: durak_dice.Attack | durak_dice.Beat) -> int:
            return worth(m.card.rank, m.card.suit, trump)

        if view.phase == "ATTACK":
            count = Counter(c.rank for c in view.hand)
            return min(cards, key=lambda m: w(m) - 2 * (count[m.card.rank] - 1))
        if view.phase == "DEFEND":
            if not cards:
                return durak_dice.Take()
            best = min(cards, key=w)
            attack = view.table[-1][0]
            if (
                best.card.suit == trump
                and best.card.rank >= Rank.QUEEN
                and attack.suit != trump
                and attack.rank < Rank.TEN
                and len(view.hand) > 4
            ):
                return durak_dice.Take()
            return best
        # Throwing in.
        plain = [m for m in cards if m.card.suit != trump]
        if plain:
            return min(plain, key=w)
        if cards and len(view.hand) <= 2:
            return min(cards, key=w)
        return durak_dice.Pass()
