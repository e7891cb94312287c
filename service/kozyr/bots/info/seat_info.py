"""What one seat knows, and full game states consistent with it (determinizations).

A `SeatInfo` reads a seat's history (redacted events only) and keeps the public facts of the
hand in play: where the seen cards are, how many cards each hidden zone holds, and what the
others revealed by their play (a Dix player who did not follow suit is void in it; a Six Dozens
pass or a cover shows that a player held no legal card; a Durak automatic pass shows no card of
the ranks on the table). From these it builds full game states a search can simulate with the
rules core:

1. `_draw(rng)` places the unseen cards into the hidden zones at random, respecting the sizes
   and the facts above;
2. the redacted deal event of the hand in play is completed with that placement (hidden hands,
   deck or stock order) and the hand's events are folded by the game's own `evolve`, so every
   derived field (whose turn, throw-in order, …) is exactly what the rules make of a possible
   world — this is the *skeleton*, built once per decision;
3. each further sample is `game.with_zones(skeleton, zones)` with a fresh placement.

Nothing here reads a true state: the inputs are the seat number and its redacted events. Events
before the hand in play are folded as they are (their hidden parts do not matter once the next
deal replaces every hand). The opening `MatchStarted` is given canonical decks for the hands after
the one in play (see `_for_simulation`): a search never plays them.

Because a view depends only on what its seat may see, `view()` (the view of the skeleton) equals
the seat's true view; tests/bots check this at every decision of many matches.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from kozyr.core.cards import Card, cards_of, deck, mask_of
from kozyr.games.contract import AnyGame, Dealt, MatchStarted, fold

Zones = dict[str, tuple[Card, ...]]
# A game's own event, state and view types: a SeatInfo serves every game through the contract.
Event = Any
State = Any
View = Any


class SeatInfo(ABC):
    """A seat's knowledge of a match, updated from its growing history (see module docstring)."""

    game: AnyGame
    deal_type: type = Dealt  # the shared event that starts a hand or a Durak game
    simulated_dice: bool = False  # whether simulated deals need die rolls (Durak)
    # Whether a skeleton may go on from the last one: True where the rules derive no public
    # field from hidden cards (Dix), so folding the new events on the last skeleton, whatever
    # its placement of the hidden cards, gives what folding the hand from its deal gives (a
    # fresh placement is put in after them either way). Six Dozens and Durak pass the turn by
    # what the hands hold (to the next seat still holding cards), and a card a hidden hand
    # played may sit elsewhere in the last placement: their skeletons are folded from the deal.
    exact_steps: bool = False

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.seen = 0  # history events absorbed
        self._prefix: State | None = None  # fold of the events before the deal in play
        self._hand: list[Event] = []  # the deal in play and the events after it
        self._skeleton: State | None = None
        self._skeleton_at = -1
        self._skeleton_len = 0  # events of the hand in play folded into the skeleton
        self._skeleton_hand = -1  # the hand (count of deals) the skeleton belongs to
        self._exact = False  # the skeleton is what folding the hand from its deal gives
        self._hands = 0  # deals seen

    # ------------------------------------------------------------------ reading the history

    def update(self, history: Sequence[Event]) -> None:
        """Absorb the events not seen yet (the history of one match only grows)."""
        if len(history) < self.seen:
            raise ValueError("the history shrank: a SeatInfo follows one match")
        for event in history[self.seen :]:
            self._absorb(event)
        self.seen = len(history)

    def _absorb(self, event: Event) -> None:
        evolve = self.game.evolve
        if self._prefix is None:
            assert isinstance(event, MatchStarted), "a match starts with MatchStarted"
            self._prefix = evolve(None, _for_simulation(event, self.simulated_dice))
            return
        if type(event) is self.deal_type:
            # The previous hand's redacted events are folded as they are: harmless, since the
            # new deal replaces every hand (see module docstring).
            self._prefix = fold(self.game, self._hand, self._prefix)
            self._hand = [event]
            self._hands += 1
            self._on_deal(event)
        elif self._hand:
            self._hand.append(event)
            self._on_event(event)
        else:  # before the first deal (the first dealer's lot)
            self._prefix = evolve(self._prefix, event)

    @abstractmethod
    def _on_deal(self, event: Event) -> None:
        """Reset the hand's facts from its (redacted) deal event."""

    @abstractmethod
    def _on_event(self, event: Event) -> None:
        """Update the hand's facts with one event after the deal."""

    # ------------------------------------------------------------------ determinizations

    @abstractmethod
    def _draw(self, rng: random.Random | None) -> Zones:
        """A random placement of the unseen cards: the hidden zones' contents by name (with
        no `rng`, the first that fits, in card order)."""

    @abstractmethod
    def _complete_deal(self, hidden: Mapping[str, tuple[Card, ...]]) -> Event:
        """The deal event in play with its hidden parts filled consistently with `hidden`."""

    def _dealt_hands(
        self,
        dealt: Sequence[tuple[Card, ...]],
        hidden: Mapping[str, tuple[Card, ...]],
        played: Sequence[int],
    ) -> tuple[tuple[Card, ...], ...]:
        """The hands as dealt, consistent with `hidden`: the seat's own as it saw them; another
        seat's = what `hidden` gives him now + the dealt cards he played since (`played[p]`)."""
        return tuple(
            dealt[p] if p == self.seat else cards_of(mask_of(hidden[f"hand/{p}"]) | played[p])
            for p in range(len(dealt))
        )

    def state(self, *, quick: bool = False) -> State:
        """A full state consistent with everything the seat saw (the skeleton; cached).

        A skeleton of the hand in play goes on from the last one, folding only the events
        since, where that is exact (`exact_steps`); otherwise it is folded from the deal in
        play. `quick` goes on from the last skeleton in every game: its public fields are then
        wrong at a fraction of a percent of decisions (see `exact_steps`), so it is only for a
        caller that checks the view it gives and asks again without `quick` when it disagrees
        (served play checks it against the server's view)."""
        cached = self._skeleton
        if cached is not None and self._skeleton_at == self.seen and (quick or self._exact):
            return cached
        if not self._hand or self._prefix is None:
            raise ValueError("nothing has been dealt yet")
        # Any consistent placement will do for the skeleton: the first that fits (a random one,
        # seeded by the position, cost a served bot ~8 % of its CPU in seeding and shuffling).
        hidden = self._draw(None)
        go_on = (
            cached is not None
            and self._skeleton_hand == self._hands
            and (quick or (self.exact_steps and self._exact))
        )
        if go_on:
            state = fold(self.game, self._hand[self._skeleton_len :], cached)
        else:
            state = self.game.evolve(self._prefix, self._complete_deal(hidden))
            state = fold(self.game, self._hand[1:], state)
        self._exact = not go_on or (self.exact_steps and self._exact)
        self._skeleton = self.game.with_zones(state, hidden)  # the seen zones stay as folded
        self._skeleton_at, self._skeleton_len = self.seen, len(self._hand)
        self._skeleton_hand = self._hands
        return self._skeleton

    def sample(self, rng: random.Random) -> State:
        """A random full state consistent with what the seat saw (a determinization)."""
        return self.game.with_zones(self.state(), self._draw(rng))

    def view(self, *, quick: bool = False) -> View:
        """The seat's view, rebuilt from its history alone (`quick`: see `state`)."""
        return self.game.view(self.state(quick=quick), self.seat)


def _for_simulation(event: MatchStarted[Any], dice: bool) -> MatchStarted[Any]:
    """MatchStarted as the search simulates it: every deal after the one in play comes from a
    canonical deck order (and Durak dice of 6), not from the seed.

    The seat's copy lost the seed and any prearranged decks anyway; a playout stops at the end
    of the hand in play, so the next deal, which `decide` makes in the same call, is never
    played — a canonical order spares the costly shuffle. The `prearranged` flag stays as seen,
    so views do not change.
    """
    config = event.config
    # Config fields differ by game: Dix and Six Dozens count hands, Durak games.
    count = max(getattr(config, "max_hands", 1), getattr(config, "games", 1))
    size = int(getattr(config, "deck", 53))
    rolls = ((6,) * 9,) * count if dice else ()  # 54 cards' worth of rolls: a whole deal
    return dataclasses.replace(event, decks=(deck(size),) * count, dice=rolls)


def pick(rng: random.Random | None, pool: list[Card], count: int, forbidden: int) -> list[Card]:
    """`count` cards taken at random from `pool` (removed from it; with no `rng`, the first
    ones), avoiding `forbidden` ones while the rest suffice (only an inconsistent history could
    need them)."""
    allowed = [c for c in pool if not forbidden >> c.index & 1]
    if len(allowed) >= count:
        chosen = rng.sample(allowed, count) if rng is not None else allowed[:count]
    else:
        others = [c for c in pool if forbidden >> c.index & 1]
        more = count - len(allowed)
        chosen = allowed + (rng.sample(others, more) if rng is not None else others[:more])
    taken = mask_of(chosen)
    pool[:] = [c for c in pool if not taken >> c.index & 1]
    return chosen
