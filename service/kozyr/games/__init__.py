"""The games' pure rules and the registry that names them (`dix`, `six-dozens`, `durak-dice`)."""

from __future__ import annotations

from kozyr.games import dix, durak_dice, six_dozens
from kozyr.games.base import Game, IllegalMove, InvalidOptions, Outcome, Setup, fold

GAMES: dict[str, Game] = {
    dix.NAME: dix,
    six_dozens.NAME: six_dozens,
    durak_dice.NAME: durak_dice,
}


def get_game(name: str) -> Game:
    """The game registered under `name`; KeyError with the known names otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


__all__ = ["GAMES", "Game", "IllegalMove", "InvalidOptions", "Outcome", "Setup", "fold", "get_game"]
