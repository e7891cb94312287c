"""What a Six Dozens seat knows: its hand, the bank and the pile under it, every hand size, the
stock size, and which cards each other player cannot hold.

Nobody draws in Six Dozens, so what a player showed he lacked stays lacking:
- a pass (SIX-8) shows that he held no card legal on the bank of that moment;
- a cover from the stock (SIX-10) shows that no player holding cards had a legal card.
Each adds the cards SIX-6 allows on that bank (for that player, `six_dozens.may_play`) to the
player's forbidden set. The first mover (SIX-7) tells something too: he holds the card of the
bank's suit nearest the 6. So if this seat moves first, nobody was dealt a card of that suit
nearer the 6 than its own best; if another seat does (and this seat holds some of the suit, so
it was not the fallback to the dealer's left), that seat was dealt such a card — if he has not
played it yet, every sample gives him one.

Sampling: a first mover's required card is placed first; then the most constrained player's
hand is drawn, uniformly from the unseen cards he
may hold; then the next; the stock is drawn from what is left and the rest is set aside.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache

from kozyr.bots.info.seat_info import SeatInfo, Zones, pick
from kozyr.core.cards import Card, Rank, cards_of, deck, mask_of
from kozyr.games import six_dozens
from kozyr.games.contract import Dealt

# SIX-1: a card's place from the ace (0) to the 6 (8).
IDX: dict[int, int] = {
    Rank.ACE: 0,
    Rank.TEN: 1,
    Rank.KING: 2,
    Rank.QUEEN: 3,
    Rank.JACK: 4,
    Rank.NINE: 5,
    Rank.EIGHT: 6,
    Rank.SEVEN: 7,
    Rank.SIX: 8,
}


@cache
def reach_table(config: six_dozens.Config, players: int) -> tuple[tuple[int, ...], ...]:
    """Per seat and card index: on how many bank cards of the deck SIX-6 lets that seat play
    that card (the cards hardest to shed have the least reach)."""
    masks = legal_masks(config, players)
    cards = deck(config.deck)
    return tuple(
        tuple(sum(masks[p][b.index] >> i & 1 for b in cards) for i in range(53))
        for p in range(players)
    )


@cache
def legal_masks(config: six_dozens.Config, players: int) -> tuple[tuple[int, ...], ...]:
    """SIX-6 per seat and bank card index: the mask of the cards that seat may put on it."""
    cards = deck(config.deck)
    table = []
    for seat in range(players):
        row = [0] * 53
        for bank in cards:
            row[bank.index] = mask_of(
                [c for c in cards if c is not bank and six_dozens.may_play(config, seat, c, bank)]
            )
        table.append(tuple(row))
    return tuple(table)


class SixDozensInfo(SeatInfo):
    """A Six Dozens seat's knowledge of the hand in play."""

    game = six_dozens
    deal_type = Dealt

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.config: six_dozens.Config | None = None
        self.n = 0
        self.cards: tuple[Card, ...] = ()
        self.deck_mask = 0
        self.legal: tuple[tuple[int, ...], ...] = ()
        self.hand = 0
        self.bank: Card | None = None
        self.first_bank: Card | None = None  # the bank turned up by the deal
        self.pile = 0
        self.sizes: list[int] = []
        self.played: list[int] = []
        self.forbidden: list[int] = []
        self.covers: list[Card] = []
        self.stock_left = 0
        self.first_mover = 0
        self.required = 0  # SIX-7: the first mover was dealt one of these (0: nothing known)

    def _absorb(self, event: object) -> None:
        if isinstance(event, six_dozens.MatchStarted):
            self.config = event.config
            self.n = len(event.players)
            self.cards = deck(event.config.deck)
            self.deck_mask = mask_of(self.cards)
            self.legal = legal_masks(event.config, self.n)
        super()._absorb(event)

    # ------------------------------------------------------------------ facts

    def _on_deal(self, event: object) -> None:
        assert isinstance(event, Dealt)
        n = self.n
        self.hand = mask_of(event.hands[self.seat])
        self.pile = 0
        self.played = [0] * n
        self.forbidden = [0] * n
        self.covers = []

    def _on_bank(self, event: six_dozens.BankTurned) -> None:
        self.bank = self.first_bank = event.bank
        self.sizes = [event.hand_size] * self.n
        self.stock_left = event.stock_count
        self._first_mover_facts(event)

    def _first_mover_facts(self, turned: six_dozens.BankTurned) -> None:
        """SIX-7: what the choice of first mover says about the others' hands."""
        suit = turned.bank.suit
        mine = [IDX[c.rank] for c in cards_of(self.hand) if c.suit == suit]
        best = max(mine, default=-1)
        nearer = mask_of([c for c in self.cards if c.suit == suit and IDX[c.rank] > best])
        self.first_mover = turned.first_mover
        self.required = 0
        if turned.first_mover == self.seat:
            for p in range(self.n):
                if p != self.seat:
                    self.forbidden[p] |= nearer
        elif mine:
            self.required = nearer

    def _on_event(self, event: object) -> None:
        t = type(event)
        if t is six_dozens.BankTurned:
            assert isinstance(event, six_dozens.BankTurned)
            self._on_bank(event)
        elif t is six_dozens.CardPlayed:
            assert isinstance(event, six_dozens.CardPlayed) and self.bank is not None
            seat, bit = event.seat, 1 << event.card.index
            if seat == self.first_mover and self.required & bit:
                self.required = 0  # he has shown it
            self.pile |= 1 << self.bank.index
            self.bank = event.card
            self.sizes[seat] -= 1
            if seat == self.seat:
                self.hand &= ~bit
            else:
                self.played[seat] |= bit
        elif t is six_dozens.Passed:
            assert isinstance(event, six_dozens.Passed) and self.bank is not None
            self.forbidden[event.seat] |= self.legal[event.seat][self.bank.index]
        elif t is six_dozens.BankCovered:
            assert isinstance(event, six_dozens.BankCovered) and self.bank is not None
            for p in range(self.n):  # SIX-10: nobody holding cards could play
                if self.sizes[p]:
                    self.forbidden[p] |= self.legal[p][self.bank.index]
            self.pile |= 1 << self.bank.index
            self.bank = event.card
            self.covers.append(event.card)
            self.stock_left -= 1

    @property
    def unseen(self) -> int:
        """The cards this seat has not seen (other hands, stock, set-aside cards), as a mask."""
        bank = 0 if self.bank is None else 1 << self.bank.index
        return self.deck_mask & ~(self.hand | self.pile | bank)

    # ------------------------------------------------------------------ determinizations

    def _draw(self, rng: random.Random | None) -> Zones:
        unseen = self.unseen
        pool = [c for c in self.cards if unseen >> c.index & 1]
        others = [p for p in range(self.n) if p != self.seat]
        # The most constrained player first, so the others' choices leave him enough.
        others.sort(key=lambda p: (unseen & ~self.forbidden[p]).bit_count())
        zones: Zones = {}
        forced: dict[int, list[Card]] = {}
        fm = self.first_mover
        if self.required and self.sizes[fm]:
            forced[fm] = pick(rng, pool, 1, ~self.required | self.forbidden[fm])
        for p in others:
            have = forced.get(p, [])
            zones[f"hand/{p}"] = tuple(
                have + pick(rng, pool, self.sizes[p] - len(have), self.forbidden[p])
            )
        stock = pick(rng, pool, self.stock_left, 0)
        zones["stock"] = tuple(stock)
        zones["aside"] = tuple(pool)
        return zones

    def _complete_deal(self, hidden: Mapping[str, tuple[Card, ...]]) -> object:
        deal = self._hand[0]
        assert isinstance(deal, Dealt) and self.first_bank is not None
        # No draws in Six Dozens: the hand dealt = what he holds + what he played. The deck
        # deals those hands, then the bank, the stock (covers first) and the set-aside cards.
        hands = self._dealt_hands(deal.hands, hidden, self.played)
        rest = (self.first_bank, *self.covers, *hidden["stock"], *hidden["aside"])
        return Dealt(
            deal.number, deal.dealer, six_dozens.deal_order(deal.dealer, hands, rest), (), hands
        )
