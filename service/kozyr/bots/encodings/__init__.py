"""Fixed-size encodings of a seat's view and integer actions, per game (see layout.py).

`encoding(game_name)` gives an `Encoding`: `size` numbers per observation, `actions` action
indices, `observe(view)`, `action_of(command)`, `command_of(action)` and `mask(legal)`.
Pure Python (lists of floats): the learning packages stay out of the bots' imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from kozyr.bots.encodings import dix, durak_dice, six_dozens
from kozyr.bots.encodings.layout import CARD_SLOTS, Features
from kozyr.games import fold, get_game


@dataclass(frozen=True, slots=True)
class Encoding:
    """One game's observation encoding and action indices."""

    game: str
    seats: int
    actions: int
    encode: Callable[[Any], Features]
    action_of: Callable[[Any], int]
    command_of: Callable[[int], Any]

    def observe(self, view: Any) -> list[float]:
        """The fixed-size encoding of a seat's view."""
        return self.encode(view).values

    @property
    def size(self) -> int:
        """Numbers per observation."""
        return sum(n for _, n in self.fields())

    def fields(self) -> list[tuple[str, int]]:
        """The encoding's fields, (name, size) in order (docs/agents.md)."""
        return fields_of(self.game)

    def mask(self, legal: Sequence[Any]) -> list[int]:
        """1 at the index of each legal command, 0 elsewhere."""
        out = [0] * self.actions
        for command in legal:
            out[self.action_of(command)] = 1
        return out


ENCODINGS: dict[str, Encoding] = {
    "dix": Encoding("dix", dix.SEATS, dix.ACTIONS, dix.encode, dix.action_of, dix.command_of),
    "six-dozens": Encoding(
        "six-dozens",
        six_dozens.SEATS,
        six_dozens.ACTIONS,
        six_dozens.encode,
        six_dozens.action_of,
        six_dozens.command_of,
    ),
    "durak-dice": Encoding(
        "durak-dice",
        durak_dice.SEATS,
        durak_dice.ACTIONS,
        durak_dice.encode,
        durak_dice.action_of,
        durak_dice.command_of,
    ),
}


def encoding(game: str) -> Encoding:
    """The encoding of a game by name; KeyError naming the known ones."""
    try:
        return ENCODINGS[game]
    except KeyError:
        raise KeyError(f"no encoding for game {game!r} (known: {', '.join(ENCODINGS)})") from None


@cache
def fields_of(name: str) -> list[tuple[str, int]]:
    """A game's encoding fields, read off the encoding of its opening view (fixed per game)."""
    game = get_game(name)
    config = game.make_config({}, game.MIN_PLAYERS)
    players = [f"p{i}" for i in range(game.MIN_PLAYERS)]
    state = fold(game, game.start(config, players, b"layout"))
    return encoding(name).encode(game.view(state, 0)).fields


__all__ = ["CARD_SLOTS", "ENCODINGS", "Encoding", "Features", "encoding", "fields_of"]
