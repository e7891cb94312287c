"""The randomness an arbiter re-derives (docs/fairness.md): every deck a deal shows is the
shuffle of ``deal/K`` (or the deck given at creation for a prearranged hand), every die roll is
the next die of ``dice/K`` (after the rolls given at creation), and a first dealer chosen by lot
is ``randbelow(players)`` of ``first-dealer`` - all from the match seed.

It reads the events the three games share (games/contract.py: `Dealt`, `FirstDealerChosen`), so it
knows no game by name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kozyr.core.cards import deck
from kozyr.core.fairness import FIRST_DEALER, RandomStream, deal_label, dice_label
from kozyr.match.log import MatchCreated
from kozyr.replay.report import Bad, Problem, short

_DECK_SIZES = (28, 32, 36, 52, 53)


class Draws:
    """Checks the draws of one match's entries in order, counting what it re-derived."""

    def __init__(self, created: MatchCreated, players: int, seed: bytes) -> None:
        self.created = created
        self.players = players
        self.seed = seed
        self.deals = self.prearranged_deals = self.rolls = self.prearranged_rolls = 0
        self.lots = 0

    def check(self, i: int, recorded: Sequence[dict[str, Any]]) -> None:
        """The draws of entry i's recorded events; Bad at the first that is not re-derived."""
        for event in recorded:
            kind = event.get("type")
            if kind == "Dealt":
                number = event.get("number")
                if type(number) is not int or number < 1:
                    raise Bad(
                        Problem(
                            f"entry {i}",
                            "Dealt: the deal has no hand number",
                            found=short(event),
                            entry=i,
                        )
                    )
                self._deck(i, number, event.get("deck"))
                if event.get("rolls"):
                    self._rolls(i, number, event["rolls"])
            elif kind == "FirstDealerChosen" and event.get("by_lot") is True:
                self._lot(i, event.get("seat"))

    def _deck(self, i: int, number: int, found: Any) -> None:
        where = f"entry {i}"
        if not isinstance(found, list):
            raise Bad(Problem(where, "Dealt: the deal has no deck", found=short(found), entry=i))
        if number <= len(self.created.decks):
            expected = [c.code for c in self.created.decks[number - 1]]
            self.prearranged_deals += 1
            source = "the deck given at creation (prearranged)"
        else:
            sizes = [s for s in _DECK_SIZES if s == len(found)]
            if not sizes or sorted(map(str, found)) != sorted(c.code for c in deck(sizes[0])):
                raise Bad(
                    Problem(
                        where,
                        f"deal of hand {number}: the deck is not a whole deck, each card once",
                        found=short(found),
                        entry=i,
                    )
                )
            shuffled = RandomStream(self.seed, deal_label(number)).shuffle(deck(sizes[0]))
            expected = [c.code for c in shuffled]
            self.deals += 1
            source = f"the shuffle of {deal_label(number)} from the match seed"
        if found != expected:
            j = next(
                (k for k, (a, b) in enumerate(zip(expected, found, strict=False)) if a != b),
                min(len(expected), len(found)),
            )
            raise Bad(
                Problem(
                    where,
                    f"deal of hand {number}: card {j + 1} of the deck is not {source} "
                    "(docs/fairness.md)",
                    expected=expected[j] if j < len(expected) else "(end of deck)",
                    found=str(found[j]) if j < len(found) else "(end of deck)",
                    entry=i,
                )
            )

    def _rolls(self, i: int, number: int, rolls: Any) -> None:
        if not isinstance(rolls, list) or not all(
            isinstance(r, list) and len(r) == 2 for r in rolls
        ):
            raise Bad(
                Problem(
                    f"entry {i}", "Dealt: the rolls cannot be read", found=short(rolls), entry=i
                )
            )
        dice = self.created.dice  # rolls given at creation, then the stream
        given = dice[number - 1] if number <= len(dice) else ()
        stream = RandomStream(self.seed, dice_label(number))
        for j, (_, value) in enumerate(rolls):
            expected = given[j] if j < len(given) else stream.die()
            if value != expected:
                source = (
                    f"roll {j + 1} given at creation for game {number}"
                    if j < len(given)
                    else f"the next die of {dice_label(number)} from the match seed"
                )
                raise Bad(
                    Problem(
                        f"entry {i}",
                        f"game {number}: die roll {j + 1} is not {source} (docs/fairness.md)",
                        expected=str(expected),
                        found=short(value),
                        entry=i,
                    )
                )
            if j < len(given):
                self.prearranged_rolls += 1
            else:
                self.rolls += 1

    def _lot(self, i: int, value: Any) -> None:
        expected = RandomStream(self.seed, FIRST_DEALER).randbelow(self.players)
        if value != expected:
            raise Bad(
                Problem(
                    f"entry {i}",
                    "the first dealer is not the lot of first-dealer "
                    "from the match seed (docs/fairness.md)",
                    expected=str(expected),
                    found=short(value),
                    entry=i,
                )
            )
        self.lots += 1
