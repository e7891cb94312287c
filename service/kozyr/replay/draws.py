"""The randomness an arbiter re-derives (docs/fairness.md): every deck a deal shows is the
shuffle of ``deal/K`` (or the deck given at creation for a prearranged hand), every die roll is
the next die of ``dice/K`` (after the rolls given at creation), and a first dealer chosen by lot
is ``randbelow(players)`` of ``first-dealer`` - all from the match seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kozyr.cards import deck
from kozyr.fairness import FIRST_DEALER, RandomStream, deal_label, dice_label
from kozyr.match.log import MatchCreated
from kozyr.replay.report import Bad, Problem, short

_DECK_SIZES = (28, 32, 36, 52, 53)


class Draws:
    """Checks the draws of one match's entries in order, counting what it re-derived."""

    def __init__(self, created: MatchCreated, players: int, seed: bytes) -> None:
        self.created = created
        self.players = players
        self.seed = seed
        self.deals = self.prearranged_deals = self.rolls = self.lots = 0

    def check(self, i: int, recorded: Sequence[dict[str, Any]]) -> None:
        """docs/fairness.md: each deal, die roll and lot the events show, from the seed."""
        created, seed, where = self.created, self.seed, f"entry {i}"
        for event in recorded:
            kind = event.get("type")
            if isinstance(event.get("deck"), list):
                number = event.get("hand_number", event.get("game"))
                if type(number) is not int or number < 1:
                    raise Bad(Problem(where, f"{kind}: the deal has no hand number",
                                       found=short(event), entry=i))
                found = event["deck"]
                if number <= len(created.decks):
                    expected = [c.code for c in created.decks[number - 1]]
                    self.prearranged_deals += 1
                    source = "the deck given at creation (prearranged)"
                else:
                    sizes = [s for s in _DECK_SIZES if s == len(found)]
                    if not sizes or sorted(map(str, found)) != sorted(
                            c.code for c in deck(sizes[0])):
                        raise Bad(Problem(where, f"deal of hand {number}: the deck is not a "
                                                  "whole deck, each card once",
                                           found=short(found), entry=i))
                    expected = [c.code for c in RandomStream(seed, deal_label(number)).shuffle(
                        deck(sizes[0]))]
                    self.deals += 1
                    source = f"the shuffle of {deal_label(number)} from the match seed"
                if found != expected:
                    j = next((k for k, (a, b) in enumerate(zip(expected, found, strict=False))
                              if a != b), min(len(expected), len(found)))
                    raise Bad(Problem(
                        where, f"deal of hand {number}: card {j + 1} of the deck is not "
                               f"{source} (docs/fairness.md)",
                        expected=expected[j] if j < len(expected) else "(end of deck)",
                        found=str(found[j]) if j < len(found) else "(end of deck)", entry=i))
            if isinstance(event.get("rolls"), list):
                number = event.get("game", event.get("hand_number"))
                rolls = event["rolls"]
                if type(number) is not int or number < 1 or not all(
                        isinstance(r, list) and len(r) == 2 for r in rolls):
                    raise Bad(Problem(where, f"{kind}: the rolls cannot be read",
                                       found=short(rolls), entry=i))
                dice = created.dice  # rolls given at creation, then the stream
                given = dice[number - 1] if number <= len(dice) else ()
                stream = RandomStream(seed, dice_label(number))
                for j, (_, value) in enumerate(rolls):
                    expected_roll = given[j] if j < len(given) else stream.die()
                    if value != expected_roll:
                        raise Bad(Problem(
                            where, f"game {number}: die roll {j + 1} is not the next die of "
                                   f"{dice_label(number)} from the match seed "
                                   "(docs/fairness.md)",
                            expected=str(expected_roll), found=short(value), entry=i))
                    self.rolls += 1
            if isinstance(kind, str) and kind.endswith("DealerChosen") and \
                    event.get("by_lot") is True:
                value = event.get("dealer", event.get("seat"))
                expected_lot = RandomStream(seed, FIRST_DEALER).randbelow(self.players)
                if value != expected_lot:
                    raise Bad(Problem(where, "the first dealer is not the lot of first-dealer "
                                              "from the match seed (docs/fairness.md)",
                                       expected=str(expected_lot), found=short(value),
                                       entry=i))
                self.lots += 1
