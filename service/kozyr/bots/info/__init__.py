"""What a seat knows of a match, per game, and determinizations built from it (see base.py)."""

from __future__ import annotations

from kozyr.bots.info.dix import DixInfo
from kozyr.bots.info.durak_dice import DurakDiceInfo
from kozyr.bots.info.seat_info import SeatInfo
from kozyr.bots.info.six_dozens import SixDozensInfo
from kozyr.games.contract import AnyGame

INFOS: dict[str, type[SeatInfo]] = {
    "dix": DixInfo,
    "six-dozens": SixDozensInfo,
    "durak-dice": DurakDiceInfo,
}


def seat_info(game: AnyGame, seat: int) -> SeatInfo:
    """A fresh SeatInfo of `game` for `seat`."""
    try:
        return INFOS[game.NAME](seat)
    except KeyError:
        raise KeyError(f"no seat knowledge for game {game.NAME!r}") from None


__all__ = ["INFOS", "DixInfo", "DurakDiceInfo", "SeatInfo", "SixDozensInfo", "seat_info"]
