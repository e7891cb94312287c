"""Driving matches for the bot tests: the true state on one side, seat observations on the other."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kozyr.bots import Seat
from kozyr.games import Game, fold
from kozyr.games.contract import Setup


@dataclass
class Table:
    """A match in progress: the true state and every seat's redacted history."""

    game: Game
    state: Any
    histories: list[list[Any]] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        game: Game,
        players: int,
        seed: bytes,
        options: Mapping[str, object] | None = None,
        setup: Setup | None = None,
    ) -> Table:
        """A started match."""
        config = game.make_config(options or {}, players)
        events = game.start(config, [f"p{i}" for i in range(players)], seed, setup or Setup())
        table = cls(game, fold(game, events), [[] for _ in range(players)])
        table.record(events)
        return table

    def record(self, events: tuple[Any, ...]) -> None:
        """Add events to every seat's redacted history."""
        for event in events:
            for seat, history in enumerate(self.histories):
                shown = self.game.redact(event, seat)
                if shown is not None:
                    history.append(shown)

    def observe(self, seat: int, state: Any = None) -> Seat:
        """The seat's observation (of `state`, by default the true one)."""
        s = self.state if state is None else state
        return Seat(
            self.game,
            seat,
            self.game.view(s, seat),
            tuple(self.histories[seat]),
            self.game.legal_commands(s, seat),
        )

    def play(self, command: Any) -> None:
        """The seat to act plays `command`."""
        seat = self.game.to_act(self.state)
        assert seat is not None
        events = self.game.decide(self.state, seat, command)
        self.state = fold(self.game, events, self.state)
        self.record(events)

    @property
    def to_act(self) -> int | None:
        """The seat to act."""
        return self.game.to_act(self.state)


def random_decisions(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    chooser: Callable[[Table, int], Any] | None = None,
) -> Iterator[tuple[Table, int]]:
    """Play a match with random legal moves (or `chooser`), yielding (table, seat) before each
    decision."""
    rng = random.Random(seed)
    table = Table.start(game, players, f"seed-{seed}".encode(), options)
    while (seat := table.to_act) is not None:
        yield table, seat
        if chooser is not None:
            command = chooser(table, seat)
        else:
            legal = game.legal_commands(table.state, seat)
            command = legal[rng.randrange(len(legal))]
        table.play(command)


def swap_hidden(game: Game, state: Any, seat: int, rng: random.Random) -> Any:
    """The state with the cards `seat` cannot see shuffled among its hidden zones (same sizes)."""
    zones = dict(game.zones(state))
    hidden = [z for z in game.hidden_zones(state, seat) if z in zones]
    cards = [c for z in hidden for c in zones[z]]
    rng.shuffle(cards)
    for z in hidden:
        k = len(zones[z])
        zones[z], cards = tuple(cards[:k]), cards[k:]
    return game.with_zones(state, zones)
