"""One match driven action by action, as learning tools see it: the pure rules core holds the
state; each seat is given only its view, its encoding, its legal-action mask and its reward.

Deals: a match is named by an integer `deal` and a `master` seed: its match seed is
kozyr.tournament.schedule's ``deal_seed(master_key(master), deal)``, the seed a duplicate
tournament with that master gives deal `deal`. `rotation` r seats player p in seat
``(p + r) % n``, so playing one deal with every rotation is a duplicate deal.

Rewards (docs/agents.md): at the end of the match, +1 to each winner and -1 to each other
seat; 0 to everyone when every seat is a winner (a shared result). Nothing before the end.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kozyr.bots.encodings import Encoding, encoding
from kozyr.bots.protocol import Seat
from kozyr.core.jsontext import dumps, loads
from kozyr.games import Outcome, fold, get_game
from kozyr.games.codec import encode
from kozyr.games.contract import AnyGame, Setup
from kozyr.tournament.schedule import deal_seed, master_key


def match_seed(master: int | str, deal: int) -> bytes:
    """The match seed of deal `deal` under the master seed (as a duplicate tournament draws)."""
    return deal_seed(master_key(master), deal)


@functools.cache
def _deck(game_name: str, players: int, options: str) -> tuple[Any, ...]:
    game = get_game(game_name)
    config = game.make_config(loads(options), players)
    state = fold(game, game.start(config, [f"seat{s}" for s in range(players)], b"deck"))
    return tuple(sorted((c for zone in game.zones(state).values() for c in zone), key=str))


def full_deck(game_name: str, players: int, options: Mapping[str, object]) -> tuple[Any, ...]:
    """Every card of the configured deck in one fixed order (by code): the cards a chance
    node deals from (read once from a started match, whatever its seed)."""
    return _deck(game_name, players, dumps(dict(options)))


def rewards_of(outcome: Outcome | None, seats: int) -> list[float]:
    """+1 per winner, -1 per other seat; all 0 when every seat won, before the end, and for an
    outcome with no winner (an aborted or expired match: no result, R-7)."""
    if outcome is None or not outcome.winners or len(set(outcome.winners)) >= seats:
        return [0.0] * seats
    return [1.0 if s in outcome.winners else -1.0 for s in range(seats)]


@dataclass(slots=True)
class Table:
    """A running match of one game: `step` a seat's action, read each seat's observation."""

    game_name: str
    players: int
    options: Mapping[str, object] = field(default_factory=dict)
    seed: bytes = b"kozyr-envs"
    names: Sequence[str] = ()
    # The first hand's deal when chance was drawn outside (OpenSpiel's chance nodes): its
    # first dealer, deck order and die rolls; later hands come from `seed`.
    setup: Setup = field(default_factory=Setup)
    state: Any = field(init=False, repr=False)
    events: list[Any] = field(init=False, repr=False)
    histories: list[list[Any]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.restart(self.seed)

    @property
    def game(self) -> AnyGame:
        """The rules module."""
        return get_game(self.game_name)

    @property
    def code(self) -> Encoding:
        """The game's observation encoding and action indices."""
        return encoding(self.game_name)

    @staticmethod
    def encoding_of(game_name: str) -> Encoding:
        """A game's observation encoding and action indices."""
        return encoding(game_name)

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        # States and events are immutable: a copy shares them and copies only the lists.
        out = copy.copy(self)
        out.events = list(self.events)
        out.histories = [list(h) for h in self.histories]
        return out

    def restart(self, seed: bytes) -> None:
        """Deal a fresh match from `seed`."""
        game = self.game
        config = game.make_config(dict(self.options), self.players)
        names = list(self.names) or [f"seat{s}" for s in range(self.players)]
        self.seed = seed
        self.events = []
        self.histories = [[] for _ in range(self.players)]
        opening = game.start(config, names, seed, self.setup)
        self.state = fold(game, opening)
        self._record(opening)

    def _record(self, new: Sequence[Any]) -> None:
        self.events.extend(new)
        for event in new:
            for s in range(self.players):
                shown = self.game.redact(event, s)
                if shown is not None:
                    self.histories[s].append(shown)

    @property
    def to_act(self) -> int | None:
        """The seat to decide, None once the match is over."""
        return self.game.to_act(self.state)

    @property
    def outcome(self) -> Outcome | None:
        """The outcome once the match is over."""
        return self.game.outcome(self.state)

    def legal(self, seat: int) -> tuple[Any, ...]:
        """The seat's legal commands (empty when it is not its turn)."""
        return self.game.legal_commands(self.state, seat)

    def observe(self, seat: int) -> list[float]:
        """The fixed-size encoding of the seat's view."""
        return self.code.observe(self.game.view(self.state, seat))

    def mask(self, seat: int) -> list[int]:
        """The seat's legal-action mask."""
        return self.code.mask(self.legal(seat))

    def view_json(self, seat: int) -> str:
        """The seat's view as canonical JSON (kozyr.games.codec)."""
        return dumps(encode(self.game.view(self.state, seat)))

    def seat_obs(self, seat: int) -> Seat:
        """The bots' observation of a seat (kozyr.bots.protocol)."""
        view = self.game.view(self.state, seat)
        return Seat(self.game, seat, view, tuple(self.histories[seat]), self.legal(seat))

    def step(self, action: int) -> None:
        """The seat to act plays the command of `action` (IllegalMove when it is not legal)."""
        seat = self.to_act
        if seat is None:
            raise ValueError("the match is over")
        self.play(seat, self.code.command_of(action))

    def play(self, seat: int, command: Any) -> None:
        """A seat plays a command."""
        new = self.game.decide(self.state, seat, command)
        self.state = fold(self.game, new, self.state)
        self._record(new)

    def rewards(self) -> list[float]:
        """Each seat's reward (0s until the end)."""
        return rewards_of(self.outcome, self.players)
