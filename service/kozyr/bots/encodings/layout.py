"""Fixed-size numeric encodings of a seat's view, and action indices, for learning agents.

An encoding turns one seat's *view* (``game.view(state, seat)``, never the state) into a flat
list of floats whose length and field order are fixed per game (docs/agents.md lists every
field). Seats are written relative to the viewer: slot 0 is the viewer, slot 1 the next seat,
and so on up to the game's MAX_PLAYERS; slots of seats a smaller table lacks stay 0. Cards are
53-slot indicator blocks by `Card.index` (``suit * 13 + rank - 2``, the joker 52).

Actions are integers: a card play is the card's index; Durak adds a second card block for
beating and two last indices for taking and passing (see each game's module).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kozyr.core.cards import Card

CARD_SLOTS = 53


@dataclass(slots=True)
class Features:
    """Builds one encoding field by field; `fields` records (name, size) in order."""

    values: list[float] = field(default_factory=list)
    fields: list[tuple[str, int]] = field(default_factory=list)

    def cards(self, name: str, cards: Iterable[Card | None]) -> None:
        """A 53-slot block with 1 at each given card's index."""
        block = [0.0] * CARD_SLOTS
        for c in cards:
            if c is not None:
                block[c.index] = 1.0
        self._add(name, block)

    def one_hot(self, name: str, index: int | None, size: int) -> None:
        """`size` slots with 1 at `index` (all 0 for None)."""
        block = [0.0] * size
        if index is not None and 0 <= index < size:
            block[index] = 1.0
        self._add(name, block)

    def numbers(self, name: str, values: Sequence[float], scale: float = 1.0) -> None:
        """Numbers divided by `scale` (clipped to [-1, 1] so a long match stays in range)."""
        self._add(name, [max(-1.0, min(1.0, v / scale)) for v in values])

    def _add(self, name: str, block: list[float]) -> None:
        self.values.extend(block)
        self.fields.append((name, len(block)))


def relative(values: Sequence[float], seat: int, slots: int) -> list[float]:
    """Per-seat values reordered from the viewer (slot 0) round the table, padded to `slots`."""
    n = len(values)
    out = [float(values[(seat + k) % n]) for k in range(n)] if n else []
    return out + [0.0] * (slots - len(out))


def rel_seat(target: int | None, seat: int, players: int) -> int | None:
    """The slot of `target` seen from `seat` (None stays None)."""
    return None if target is None else (target - seat) % players
