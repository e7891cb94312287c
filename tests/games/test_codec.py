"""The codec's generated encoders write exactly the plain-data form its docstring defines.

The encoders are written per class and per field hint (a tuple of cards or numbers in one C
call), so they are checked here against a plain recursive reading of the form, over every
game's events (as each seat sees them too), views, commands and configs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from enum import Enum
from typing import Any

import pytest

from kozyr.core.cards import Card, Suit
from kozyr.core.fairness import RandomStream
from kozyr.games import GAMES, get_game
from kozyr.games.codec import encode
from tests.games.helpers import new_match, random_playout

PLAYERS = {"dix": (2,), "six-dozens": (2, 3, 4), "durak-dice": (2, 4, 6)}


# The form of each kind of value, as the codec's docstring states it (Suit before Enum: a suit
# is an enum written as its letter).
FORMS: list[tuple[type, Callable[[Any], Any]]] = [
    (Card, lambda c: c.code),
    (Suit, lambda s: s.letter),
    (Enum, lambda e: e.name),
    (bytes, bytes.hex),
    (tuple, lambda t: [reference(v) for v in t]),
    (list, lambda t: [reference(v) for v in t]),
]


def reference(value: Any) -> Any:
    """The plain-data form of a value, read one value at a time from the stated form."""
    form = next((write for kind, write in FORMS if isinstance(value, kind)), None)
    if form is not None:
        return form(value)
    if not (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        assert value is None or isinstance(value, bool | int | str), value
        return value
    out = {"type": type(value).__name__}
    for f in dataclasses.fields(value):
        v = getattr(value, f.name)
        if not (f.metadata.get("omit_default") and v == f.default):
            out[f.name] = reference(v)
    return out


def test_plain_games_cover_the_registry() -> None:
    assert set(PLAYERS) == set(GAMES)


@pytest.mark.parametrize(("name", "players"), [(g, n) for g, ns in PLAYERS.items() for n in ns])
def test_every_value_a_match_writes_is_encoded_as_the_form_says(name: str, players: int) -> None:
    game = get_game(name)
    for seed in (b"codec-1", b"codec-2"):
        state, opening = new_match(game, players, seed)
        values: list[Any] = [state.config, *opening]
        for before, seat, command, events in random_playout(
            game, state, RandomStream(seed, "moves"), 5_000
        ):
            values += [command, *events, game.view(before, seat), game.view(before, None)]
            values += [game.redact(e, s) for e in events for s in range(players)]
        for value in values:
            if value is not None:
                assert encode(value) == reference(value), value
