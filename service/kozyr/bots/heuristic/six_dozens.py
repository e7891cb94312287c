"""A rule-based Six Dozens player: shed the cards that are hardest to play, keep the 8s and 6s
(and high trumps) for when stuck, and prefer plays that let it move again.

Every card left costs the same 6 points (SIX-3), so what makes a card expensive is how rarely
it can be played: its *reach* is the number of bank cards SIX-6 lets it go on. An 8 goes on
anything and a 6 on its whole suit, so they are kept for when nothing else is legal; an ace goes
almost nowhere, so it is shed at the first chance. Bonuses: a card after which we hold a legal
follow-up (we may play again when the others cannot), and a 7 when it skips the next player.
"""

from __future__ import annotations

from kozyr.bots.info.six_dozens import legal_masks
from kozyr.bots.protocol import Seat
from kozyr.core.cards import Rank, deck
from kozyr.games import six_dozens


class SixDozensHeuristic:
    """The Six Dozens rules of thumb above; deterministic."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.reach: list[int] | None = None
        self.legal: tuple[int, ...] = ()

    def _prepare(self, obs: Seat) -> None:
        start = obs.history[0]
        assert isinstance(start, six_dozens.MatchStarted)
        config = start.config
        self.legal = legal_masks(config, len(start.players))[self.seat]
        cards = deck(config.deck)
        self.reach = [0] * 53
        self.skip = config.seven == "SKIP"
        for c in cards:
            self.reach[c.index] = sum(self.legal[b.index] >> c.index & 1 for b in cards)

    def choose(self, obs: Seat) -> six_dozens.Play:
        """The play by the rules of thumb."""
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]  # type: ignore[no-any-return]
        if self.reach is None:
            self._prepare(obs)
        reach = self.reach
        assert reach is not None
        view = obs.view
        assert isinstance(view, six_dozens.View)
        hand = 0
        for c in view.hand:
            hand |= 1 << c.index
        others_holding = sum(1 for p, k in enumerate(view.hand_sizes) if k and p != self.seat)

        def score(play: six_dozens.Play) -> float:
            c = play.card
            rest = hand & ~(1 << c.index)
            s = -float(reach[c.index])
            if c.rank == Rank.EIGHT:
                s -= 100  # the joker of this game: only when nothing else is legal
            if rest & self.legal[c.index]:
                s += 6  # a follow-up if the others cannot play on it
            if self.skip and c.rank == Rank.SEVEN and others_holding:
                s += 8 if others_holding == 1 else 4
            return s

        return max(legal, key=score)  # type: ignore[no-any-return]
