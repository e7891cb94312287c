"""kozyr.core.fast: the fast constructor, replacer and quick_init make the very values the
dataclass (or dataclasses.replace) would make, and what they make stays frozen."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest

from kozyr.core.fairness import RandomStream
from kozyr.core.fast import constructor, quick_init, replacer
from kozyr.games import GAMES
from kozyr.match.clock import Due
from kozyr.match.lifecycle import Decision, Step
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord
from kozyr.match.timing import Clock
from tests.games.helpers import new_match, random_playout

_UNSET = object()
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


@pytest.mark.parametrize("name", sorted(GAMES))
def test_replacer_makes_what_dataclasses_replace_makes(name: str) -> None:
    """Every state of a playout, with each field in turn given another state's value: the same
    value dataclasses.replace gives."""
    game = GAMES[name]
    state, _ = new_match(game, PLAYERS[name], b"replace-" + name.encode())
    replace = replacer(type(state))
    names = [f.name for f in dataclasses.fields(state)]
    seen, previous = 0, state
    for before, *_ in random_playout(game, state, RandomStream(b"replace", "moves"), 3000):
        for name_ in names:
            changed = {name_: getattr(previous, name_)}
            fast, slow = replace(before, **changed), dataclasses.replace(before, **changed)
            assert type(fast) is type(before) and fast == slow and hash(fast) == hash(slow)
        assert replace(before) == before and replace(before) is not before
        previous, seen = before, seen + 1
    assert seen > 10


def test_a_replacer_of_named_fields_takes_those_and_only_those() -> None:
    """`replacer(cls, *names)`: a handler that always changes the same fields; every one of
    them must be given, no other may be, and it makes what dataclasses.replace makes."""
    game = GAMES["durak-dice"]
    state, _ = new_match(game, PLAYERS["durak-dice"], b"named")
    turn = replacer(type(state), "phase", "actor", "k")
    changed = {"phase": "throw", "actor": 1, "k": 2}
    assert turn(state, **changed) == dataclasses.replace(state, **changed)
    with pytest.raises(TypeError):
        turn(state, phase="throw", actor=1)  # k missing
    with pytest.raises(TypeError):
        turn(state, phase="throw", actor=1, k=2, table=())  # not one of its fields
    with pytest.raises(TypeError):
        replacer(type(state), "no_such_field")


def test_replacer_refuses_unknown_names_and_classes_it_could_not_make() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Pair:
        left: int
        right: tuple[int, ...]

    replace = replacer(Pair)
    pair = replace(Pair(1, (2,)), right=(3,))
    assert pair == Pair(1, (3,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.left = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        replace(pair, middle=0)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Defaulted:
        x: int = 0

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        x: int

    for cls in (Defaulted, Unslotted):
        with pytest.raises(TypeError):
            replacer(cls)


def _pair() -> tuple[type, type]:
    """The same class twice: with the dataclass's __init__ and with quick_init's."""

    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Point:
            x: int
            y: int = 2
            tags: tuple[str, ...] = ()
            cached: object = field(default=_UNSET, init=False, repr=False, compare=False)

        return Point

    return make(), quick_init(make())


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((1,), {}), ((1, 5), {}), ((1,), {"tags": ("a",)}), ((), {"x": 3, "y": 4, "tags": ()})],
)
def test_quick_init_builds_what_the_dataclass_builds(
    args: tuple[int, ...], kwargs: dict[str, object]
) -> None:
    plain, quick = _pair()
    a, b = plain(*args, **kwargs), quick(*args, **kwargs)
    names = [f.name for f in dataclasses.fields(plain)]
    assert [getattr(a, n) for n in names] == [getattr(b, n) for n in names]
    assert repr(a).replace("Point", "") == repr(b).replace("Point", "")
    assert b.cached is _UNSET  # a field left out of __init__ takes its default
    assert hash(b) == hash(quick(*args, **kwargs)) and b == quick(*args, **kwargs)
    assert dataclasses.replace(b, y=9).y == 9


def test_quick_init_refuses_what_the_dataclass_refuses() -> None:
    plain, quick = _pair()
    for cls in (plain, quick):
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, 2, (), 4)
        with pytest.raises(TypeError):
            cls(1, z=3)
    assert inspect.signature(vars(plain)["__init__"]) == inspect.signature(vars(quick)["__init__"])


def test_quick_init_instances_stay_frozen() -> None:
    _, quick = _pair()
    point = quick(1)
    with pytest.raises(FrozenInstanceError):
        point.x = 2
    with pytest.raises(FrozenInstanceError):
        del point.y


def test_quick_init_takes_only_frozen_slotted_dataclasses_with_plain_fields() -> None:
    @dataclass(slots=True)
    class Loose:
        x: int

    @dataclass(frozen=True)
    class Unslotted:
        x: int

    @dataclass(frozen=True, slots=True)
    class Factory:
        x: list[int] = field(default_factory=list)

    @dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    for cls in (Loose, Unslotted, Factory, Checked, int):
        with pytest.raises(TypeError):
            quick_init(cls)


@pytest.mark.parametrize("cls", [MatchRecord, Clock, Due, Step, Decision, Entry])
def test_the_records_of_a_move_keep_their_signature(cls: type) -> None:
    """Each class given quick_init takes the arguments its dataclass declares."""
    fields = [f for f in dataclasses.fields(cls) if f.init]
    params = list(inspect.signature(vars(cls)["__init__"]).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default for f in fields
    ]
    assert vars(cls)["__init__"].__qualname__ == f"{cls.__qualname__}.__init__"
