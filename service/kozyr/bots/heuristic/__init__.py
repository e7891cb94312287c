"""Rule-based players, one per game (`heuristic`); each module says its rules of thumb."""

from __future__ import annotations

from collections.abc import Callable

from kozyr.bots.heuristic.dix import DixHeuristic
from kozyr.bots.heuristic.durak_dice import DurakDiceHeuristic
from kozyr.bots.heuristic.six_dozens import SixDozensHeuristic
from kozyr.bots.protocol import Bot, Command, Seat
from kozyr.games.contract import AnyGame

POLICIES: dict[str, Callable[[int], Bot]] = {
    "dix": DixHeuristic,
    "six-dozens": SixDozensHeuristic,
    "durak-dice": DurakDiceHeuristic,
}


class HeuristicBot:
    """The game's rule-based player for one seat."""

    def __init__(self, game: AnyGame, seat: int) -> None:
        try:
            self.policy = POLICIES[game.NAME](seat)
        except KeyError:
            raise KeyError(f"no heuristic player for {game.NAME!r}") from None

    def choose(self, seat: Seat) -> Command:
        """The rule-based choice."""
        return self.policy.choose(seat)


__all__ = ["POLICIES", "DixHeuristic", "DurakDiceHeuristic", "HeuristicBot", "SixDozensHeuristic"]
