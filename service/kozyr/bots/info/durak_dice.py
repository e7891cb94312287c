"""What a Durak-with-dice seat knows: its hand, every hand size, the cards everybody saw in a
hand (the turned-up trump card, dealt last to the last roller, and taken cards until played),
the table, the discard pile, and the ranks a player showed he lacked.

Every card is dealt and nobody draws, so a player's unseen cards only get fewer: an automatic
throw-in pass (DUR-7, R-4) shows that he held no card of a rank on the table then, and that
stays true of his unseen cards. (A voluntary pass or a take shows nothing.)

Sampling: the most constrained player's unseen cards are drawn first, uniformly from the unseen
cards he may hold; then the next.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from kozyr.bots.info.seat_info import SeatInfo, Zones, pick
from kozyr.core.cards import ALL_CARDS, Card, cards_of, deck, mask_of
from kozyr.games import durak_dice
from kozyr.games.contract import Dealt

# Card index -> mask of the four cards of its rank.
RANK_MASK: tuple[int, ...] = tuple(
    sum(1 << (s * 13 + c.rank - 2) for s in range(4)) for c in ALL_CARDS[:52]
)


class DurakDiceInfo(SeatInfo):
    """A Durak seat's knowledge of the game in play."""

    game = durak_dice
    deal_type = Dealt
    simulated_dice = True

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.n = 0
        self.deck_mask = 0
        self.hand = 0
        self.known: list[int] = []  # per seat: held cards everybody saw
        self.hidden_count: list[int] = []  # per seat: held cards nobody else saw
        self.played_hidden: list[int] = []  # per seat: dealt cards he played (for the deal)
        self.forbidden: list[int] = []
        self.table: list[Card] = []
        self.ranks = 0
        self.discard = 0
        self.trump_holder = 0
        self.trump_card: Card | None = None

    def _absorb(self, event: object) -> None:
        if isinstance(event, durak_dice.MatchStarted):
            self.n = len(event.players)
            self.deck_mask = mask_of(deck(event.config.deck))
        super()._absorb(event)

    # ------------------------------------------------------------------ facts

    def _on_deal(self, event: object) -> None:
        assert isinstance(event, Dealt)
        n = self.n
        self.hand = mask_of(event.hands[self.seat])
        # DUR-2/DUR-3: the trump card is dealt last, to the seat of the last roll.
        self.trump_holder = event.rolls[-1][0]
        self.played_hidden = [0] * n
        self.forbidden = [0] * n
        self.table = []
        self.ranks = 0
        self.discard = 0

    def _played(self, seat: int, card: Card) -> None:
        bit = 1 << card.index
        if seat == self.seat:
            self.hand &= ~bit
        if self.known[seat] & bit:
            self.known[seat] &= ~bit
        else:
            self.hidden_count[seat] -= 1
            self.played_hidden[seat] |= bit
        self.table.append(card)
        self.ranks |= RANK_MASK[card.index]

    def _on_trump(self, event: durak_dice.TrumpTurned) -> None:
        self.trump_card = event.card
        self.known = [0] * self.n
        self.known[self.trump_holder] = 1 << event.card.index
        self.hidden_count = list(event.hand_sizes)
        self.hidden_count[self.trump_holder] -= 1

    def _on_event(self, event: object) -> None:
        t = type(event)
        if t is durak_dice.TrumpTurned:
            assert isinstance(event, durak_dice.TrumpTurned)
            self._on_trump(event)
        elif t is durak_dice.Attacked or t is durak_dice.ThrownIn or t is durak_dice.Beaten:
            assert isinstance(event, durak_dice.Attacked | durak_dice.ThrownIn | durak_dice.Beaten)
            self._played(event.seat, event.card)
        elif t is durak_dice.Passed:
            assert isinstance(event, durak_dice.Passed)
            if event.automatic:
                self.forbidden[event.seat] |= self.ranks
        elif t is durak_dice.Took:
            assert isinstance(event, durak_dice.Took)
            taken = mask_of(event.cards)
            self.known[event.seat] |= taken
            if event.seat == self.seat:
                self.hand |= taken
            self.table = []
            self.ranks = 0
        elif t is durak_dice.Discarded:
            assert isinstance(event, durak_dice.Discarded)
            self.discard |= mask_of(event.cards)
            self.table = []
            self.ranks = 0

    @property
    def unseen(self) -> int:
        """The cards of the other hands that nobody saw, as a mask."""
        seen = self.hand | self.discard | mask_of(self.table)
        for k in self.known:
            seen |= k
        return self.deck_mask & ~seen

    # ------------------------------------------------------------------ determinizations

    def _draw(self, rng: random.Random | None) -> Zones:
        unseen = self.unseen
        pool = list(cards_of(unseen))
        others = [p for p in range(self.n) if p != self.seat]
        others.sort(key=lambda p: (unseen & ~self.forbidden[p]).bit_count())
        zones: Zones = {}
        for p in others:
            zones[f"hand/{p}"] = tuple(pick(rng, pool, self.hidden_count[p], self.forbidden[p]))
        return zones

    def _complete_deal(self, hidden: Mapping[str, tuple[Card, ...]]) -> object:
        deal = self._hand[0]
        assert isinstance(deal, Dealt) and self.trump_card is not None
        # Dealt = unseen now + dealt cards he played since (+ the trump card if dealt last).
        played = list(self.played_hidden)
        played[self.trump_holder] |= 1 << self.trump_card.index
        hands = self._dealt_hands(deal.hands, hidden, played)
        return Dealt(deal.number, deal.dealer, (), deal.rolls, hands)
