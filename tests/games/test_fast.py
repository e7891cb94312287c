"""kozyr.games.fast: the fast constructor makes the very values the dataclass would make."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kozyr.fairness import RandomStream
from kozyr.games import GAMES
from kozyr.games.fast import constructor
from tests.games.helpers import new_match, random_playout

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def _values(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_states_made_fast_equal_those_made_by_the_class(name: str) -> None:
    game = GAMES[name]
    state, _ = new_match(game, PLAYERS[name], b"fast-" + name.encode())
    make = constructor(type(state))
    seen = 0
    for before, *_ in random_playout(game, state, RandomStream(b"fast", "moves"), 3000):
        fast, slow = make(*_values(before)), type(before)(*_values(before))
        assert type(fast) is type(before)
        assert fast == slow == before and hash(fast) == hash(slow) and repr(fast) == repr(slow)
        seen += 1
    assert seen > 10


def test_what_it_makes_stays_frozen_and_takes_names_too() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Pair:
        left: int
        right: tuple[int, ...]

    make = constructor(Pair)
    pair = make(right=(2,), left=1)
    assert pair == Pair(1, (2,)) and make(1, (2,)) == pair
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.left = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        make(1)  # type: ignore[call-arg]


def test_it_refuses_what_it_could_not_make_the_same() -> None:
    @dataclasses.dataclass(slots=True)
    class Mutable:
        x: int

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Defaulted:
        x: int = 0

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x >= 0

    for cls in (Mutable, Unslotted, Defaulted, Checked):
        with pytest.raises(TypeError):
            constructor(cls)
