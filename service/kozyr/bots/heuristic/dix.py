"""A rule-based Dix player: win tricks cheaply, never take a ten-trick, hand them to the
opponent, keep trumps and high cards, and lead what the opponent cannot turn into a ten.

Following (the opponent led L), each legal card c is one of:
1. c loses and L + c make ten: the opponent takes −3 — best (lowest card first);
2. c wins without making ten: +1 — with the cheapest winner, a trump only when no plain card
   wins;
3. c loses without ten: the opponent +1 — shed the least useful card (low, not a trump);
4. c wins and makes ten: −3 for us — only when nothing else is legal.

Leading: a lead is risky when the opponent may still hold a card that makes ten with it and
loses to it (he then follows with it and we take −3). Count those among the unseen cards (a
card of the led suit counts fully, another suit's at a third: he can only play it when void),
weigh a likely win (no unseen card of the suit is higher) and prefer low plain cards otherwise.
"""

from __future__ import annotations

from kozyr.bots.info.dix import PIPS, DixInfo
from kozyr.bots.protocol import Seat
from kozyr.core.cards import ALL_CARDS, Card
from kozyr.games import dix


class DixHeuristic:
    """The Dix rules of thumb above; deterministic."""

    def __init__(self, seat: int) -> None:
        self.info = DixInfo(seat)

    def choose(self, obs: Seat) -> dix.Play:
        """The play by the rules of thumb."""
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]  # type: ignore[no-any-return]
        info = self.info
        info.update(obs.history)
        view = obs.view
        assert isinstance(view, dix.View)
        trump = -1 if view.trump is None else int(view.trump)
        rank = self._ranks(view)
        plays: tuple[dix.Play, ...] = legal
        if view.trick:
            lead = view.trick[0]
            return max(plays, key=lambda p: self._follow_score(p.card, lead, trump, rank, info))
        return max(plays, key=lambda p: self._lead_score(p.card, trump, rank, info))

    @staticmethod
    def _ranks(view: dix.View) -> list[int]:
        ranks = [int(c.rank) for c in ALL_CARDS]
        if view.turn_up is not None and view.trump is not None:
            ranks[52] = int(view.turn_up.rank)  # DIX-3: the joker plays as the turn-up
        return ranks

    @staticmethod
    def _value(card: Card, trump: int, rank: list[int], esuit: list[int]) -> float:
        """How much a card is worth keeping: its rank, more for a trump."""
        return rank[card.index] + (20 if esuit[card.index] == trump >= 0 else 0)

    def _follow_score(
        self, card: Card, lead: Card, trump: int, rank: list[int], info: DixInfo
    ) -> float:
        esuit = info.esuit
        i, li = card.index, lead.index
        wins = (esuit[i] == esuit[li] and rank[i] > rank[li]) or (
            esuit[i] == trump >= 0 and esuit[li] != trump
        )
        ten = PIPS[i] + PIPS[li] == 10
        value = self._value(card, trump, rank, esuit)
        if ten and not wins:
            return 300 - value
        if wins and not ten:
            return 200 - value
        if not wins:
            return 100 - value
        return -value

    def _lead_score(self, card: Card, trump: int, rank: list[int], info: DixInfo) -> float:
        esuit = info.esuit
        i = card.index
        suit = esuit[i]
        unseen = info.unseen
        pool = unseen.bit_count()
        in_hand = max(0, pool - info.stock_count) / pool if pool else 0.0
        danger = 0.0
        higher = 0
        for c in ALL_CARDS:
            j = c.index
            if not unseen >> j & 1:
                continue
            if esuit[j] == suit:
                if rank[j] > rank[i]:
                    higher += 1
                elif PIPS[i] + PIPS[j] == 10:
                    danger += 1.0
            elif PIPS[i] + PIPS[j] == 10 and not (esuit[j] == trump >= 0):
                danger += 1 / 3
        score = -3.0 * danger * in_hand
        if higher == 0:
            score += 1.5  # likely to win the trick
            return score + rank[i] / 100
        # Otherwise lead low and keep trumps.
        return score - self._value(card, trump, rank, esuit) / 20
