"""The games' pure rules and the registry that names them (`dix`, `six-dozens`, `durak-dice`)."""

from __future__ import annotations

from kozyr.games import dix, durak_dice, six_dozens
from kozyr.games.contract import (
    AnyGame,
    Dealt,
    FirstDealerChosen,
    IllegalMove,
    InvalidOptions,
    MatchStarted,
    Outcome,
    Setup,
    fold,
)
from kozyr.games.contract import Game as GameContract

# The contract with its types erased, as the engine, the API and the tools hold a game; the
# generic form (one rules module's own types) is base.Game, here GameContract.
Game = AnyGame

# Each rules module is checked against the contract with its own types (mypy --strict).
_DIX: GameContract[dix.Config, dix.State, dix.Play, dix.Event, dix.View] = dix
_SIX_DOZENS: GameContract[
    six_dozens.Config, six_dozens.State, six_dozens.Play, six_dozens.Event, six_dozens.View
] = six_dozens
_DURAK_DICE: GameContract[
    durak_dice.Config, durak_dice.State, durak_dice.Command, durak_dice.Event, durak_dice.View
] = durak_dice

GAMES: dict[str, AnyGame] = {
    dix.NAME: dix,
    six_dozens.NAME: six_dozens,
    durak_dice.NAME: durak_dice,
}


def get_game(name: str) -> AnyGame:
    """The game registered under `name`; KeyError with the known names otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


__all__ = [
    "GAMES",
    "AnyGame",
    "Dealt",
    "FirstDealerChosen",
    "Game",
    "GameContract",
    "IllegalMove",
    "InvalidOptions",
    "MatchStarted",
    "Outcome",
    "Setup",
    "fold",
    "get_game",
]
