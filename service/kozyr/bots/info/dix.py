"""What a Dix seat knows: its hand, the cards out (turn-up, won tricks, the trick), the stock
size, and the suits the opponent showed void in.

Voids (DIX-5): an opponent who did not follow the led effective suit held none of it then. He
may have drawn such cards since, so the opponent's hand may hold at most
``draws since the void − cards of that suit he played since`` of that suit (those had to come
from the draws too). Once the stock is empty a void is final.

Sampling: the unseen cards are shuffled and the opponent's hand is filled in that order,
skipping a card whose suit is at its cap; the rest, in the shuffled order, is the stock. (A
placement always exists: the caps are sound, so the true hand satisfies them.)
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from kozyr.bots.info.seat_info import SeatInfo, Zones
from kozyr.core.cards import ALL_CARDS, Card, Suit, cards_of, deck, mask_of
from kozyr.games import dix
from kozyr.games.contract import Dealt

_ALL: int = (1 << 53) - 1
_PLACEHOLDER_DECK = deck(53)


def pip(card: Card) -> int:
    """DIX-1: pip value for the ten-rule (A 1, 2..10 face value, courts and the joker 0)."""
    if card.suit is None or 11 <= card.rank <= 13:
        return 0
    return 1 if card.rank == 14 else int(card.rank)


PIPS: tuple[int, ...] = tuple(pip(c) for c in ALL_CARDS)


class DixInfo(SeatInfo):
    """A Dix seat's knowledge of the hand in play."""

    game = dix
    deal_type = Dealt
    exact_steps = True  # Dix derives nothing public from hidden cards (see SeatInfo)

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.opp = 1 - seat
        self.turn_up: Card | None = None
        self.trump: Suit | None = None
        self.hand = 0  # my cards (mask)
        self.out = 0  # turn-up and won tricks (mask)
        self.trick: list[Card] = []
        self.pos = 53  # deck position of the stock's top; 53 = empty
        self.opp_draws = 0
        # effective suit -> [opponent draws when the void showed, his cards of it played since]
        self.voids: dict[int, list[int]] = {}
        self.esuit: list[int] = [-1] * 53

    # ------------------------------------------------------------------ facts

    def _on_deal(self, event: object) -> None:
        assert isinstance(event, Dealt)
        self.hand = mask_of(event.hands[self.seat])
        self.trick = []
        self.pos = 27
        self.opp_draws = 0
        self.voids = {}

    def _on_turned_up(self, event: dix.TurnedUp) -> None:
        self.turn_up = event.card
        self.trump = event.trump
        self.out = 1 << event.card.index
        self.esuit = [-1 if c.suit is None else int(c.suit) for c in ALL_CARDS]
        if event.trump is not None:  # DIX-3: the joker plays as a trump
            self.esuit[52] = int(event.trump)

    def _on_event(self, event: object) -> None:
        t = type(event)
        if t is dix.TurnedUp:
            assert isinstance(event, dix.TurnedUp)
            self._on_turned_up(event)
        elif t is dix.CardPlayed:
            assert isinstance(event, dix.CardPlayed)
            card = event.card
            if event.seat == self.seat:
                self.hand &= ~(1 << card.index)
            else:
                suit = self.esuit[card.index]
                for s, fact in self.voids.items():
                    if s == suit:
                        fact[1] += 1
                if self.trick:
                    led = self.esuit[self.trick[0].index]
                    if suit != led:
                        self.voids[led] = [self.opp_draws, 0]
            self.trick.append(card)
        elif t is dix.TrickWon:
            assert isinstance(event, dix.TrickWon)
            self.out |= mask_of(event.cards)
            self.trick = []
            if event.drawn:
                self.pos += 2
                self.opp_draws += 1
                mine = event.drawn[self.seat]
                if mine is not None:
                    self.hand |= 1 << mine.index

    @property
    def unseen(self) -> int:
        """The cards this seat has not seen (the opponent's hand and the stock), as a mask."""
        return _ALL & ~(self.hand | self.out | mask_of(self.trick))

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return 53 - self.pos

    def caps(self) -> dict[int, int]:
        """Per effective suit shown void: the most cards of it the opponent can hold now."""
        return {s: max(0, self.opp_draws - at - played) for s, (at, played) in self.voids.items()}

    # ------------------------------------------------------------------ determinizations

    def _draw(self, rng: random.Random | None) -> Zones:
        unseen = self.unseen
        pool = list(cards_of(unseen))
        if rng is not None:
            rng.shuffle(pool)
        need = len(pool) - self.stock_count
        if not self.voids:  # no suit capped: the first `need` cards (what the loop would pick)
            k = max(need, 0)
            return {f"hand{self.opp}": tuple(pool[:k]), "stock": tuple(pool[k:])}
        caps = self.caps()
        esuit = self.esuit
        hand: list[Card] = []
        rest: list[Card] = []
        for c in pool:
            if len(hand) < need:
                s = esuit[c.index]
                cap = caps.get(s)
                if cap is None:
                    hand.append(c)
                    continue
                if cap > 0:
                    caps[s] = cap - 1
                    hand.append(c)
                    continue
            rest.append(c)
        if len(hand) < need:  # only an inconsistent history gets here
            missing = need - len(hand)
            hand += rest[:missing]
            rest = rest[missing:]
        return {f"hand{self.opp}": tuple(hand), "stock": tuple(rest)}

    def _complete_deal(self, hidden: Mapping[str, tuple[Card, ...]]) -> object:
        # The deck's dealt part is never read again and with_zones places the stock, so any
        # 53-card order stands in for it.
        deal = self._hand[0]
        assert isinstance(deal, Dealt)
        return Dealt(deal.number, deal.dealer, _PLACEHOLDER_DECK, (), deal.hands)
