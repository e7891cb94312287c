"""Test helpers shared by the cross-game tests: driving random play and enumerating commands."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from kozyr.core.cards import ALL_CARDS
from kozyr.core.fairness import RandomStream
from kozyr.games import Game, fold
from kozyr.games.contract import Setup


def all_commands(game: Game) -> list[Any]:
    """Every command of the game's types: one per card for card commands, one for the others."""
    out: list[Any] = []
    for cls in game.COMMAND_TYPES:
        names = [f.name for f in dataclasses.fields(cls)]
        if names == ["card"]:
            out.extend(cls(card=c) for c in ALL_CARDS)
        elif not names:
            out.append(cls())
        else:  # pragma: no cover - a new command shape needs a line here
            raise AssertionError(f"cannot enumerate {cls.__name__}")
    return out


def new_match(
    game: Game,
    players: int,
    seed: bytes,
    options: Mapping[str, object] | None = None,
    setup: Setup | None = None,
) -> tuple[Any, list[Any]]:
    """A started match: its state and the opening events."""
    config = game.make_config(options or {}, players)
    names = [f"p{i}" for i in range(players)]
    events = list(game.start(config, names, seed, setup or Setup()))
    return fold(game, events), events


def random_playout(
    game: Game, state: Any, stream: RandomStream, max_steps: int
) -> Iterator[tuple[Any, int, Any, tuple[Any, ...]]]:
    """Play random legal commands; yield (state before, seat, command, events) per step."""
    for step in range(max_steps + 1):
        seat = game.to_act(state)
        if seat is None:
            return
        if step == max_steps:
            break
        legal = game.legal_commands(state, seat)
        command = legal[stream.randbelow(len(legal))]
        events = game.decide(state, seat, command)
        yield state, seat, command, events
        state = fold(game, events, state)
    raise AssertionError(f"no outcome within {max_steps} steps")
