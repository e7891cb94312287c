"""quick_init: the same construction as a frozen dataclass's own __init__, and still frozen."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from kozyr.games.frozen import quick_init
from kozyr.match.clock import Clock, Due
from kozyr.match.lifecycle import Decision, Step
from kozyr.match.log import Entry
from kozyr.match.record import MatchRecord

_UNSET = object()


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


@pytest.mark.parametrize(("args", "kwargs"), [((1,), {}), ((1, 5), {}), ((1,), {"tags": ("a",)}),
                                              ((), {"x": 3, "y": 4, "tags": ()})])
def test_it_builds_what_the_dataclass_builds(args: tuple[int, ...],
                                              kwargs: dict[str, object]) -> None:
    plain, quick = _pair()
    a, b = plain(*args, **kwargs), quick(*args, **kwargs)
    names = [f.name for f in dataclasses.fields(plain)]
    assert [getattr(a, n) for n in names] == [getattr(b, n) for n in names]
    assert repr(a).replace("Point", "") == repr(b).replace("Point", "")
    assert b.cached is _UNSET  # a field left out of __init__ takes its default
    assert hash(b) == hash(quick(*args, **kwargs)) and b == quick(*args, **kwargs)
    assert dataclasses.replace(b, y=9).y == 9


def test_it_refuses_what_the_dataclass_refuses() -> None:
    plain, quick = _pair()
    for cls in (plain, quick):
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, 2, (), 4)
        with pytest.raises(TypeError):
            cls(1, z=3)
    assert inspect.signature(vars(plain)["__init__"]) == inspect.signature(vars(quick)["__init__"])


def test_the_instances_stay_frozen() -> None:
    _, quick = _pair()
    point = quick(1)
    with pytest.raises(FrozenInstanceError):
        point.x = 2
    with pytest.raises(FrozenInstanceError):
        del point.y


def test_only_frozen_slotted_dataclasses_with_plain_fields_are_taken() -> None:
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
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        for f in fields]
    assert vars(cls)["__init__"].__qualname__ == f"{cls.__qualname__}.__init__"
