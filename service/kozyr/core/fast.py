"""A faster constructor for the games' frozen slotted dataclasses (their states, above all).

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__`` (its own
``__setattr__`` refuses), about 0.25 µs a field on this project's machines: a Durak state of 19
fields cost ~5 µs, and a playout builds one or two states a move. `constructor(cls)` gives a
function with the same parameters (by position or by name, none optional) that fills the slots
through their descriptors, about 2.5x faster. What it makes is an ordinary instance of `cls`,
equal and hashable as one, frozen to every caller, encoded by the codec like any other: only
the way it is filled differs, and only here.

The games call it by keyword, every value named (`_state(match=…, hands=…, turn=…)`). Not the
class itself by keyword (with `quick_init`): CPython 3.11 builds a dict of the keywords for every
call of a class, and Dix playouts ran about a fifth slower that way, side by side (issue 29).
`replacer(cls)` is a fast `dataclasses.replace` (`_changed(state, phase=…, actor=…)`): for a
class as wide as Durak's state (19 fields), whose every-field keyword call is past CPython's
limit for a direct call (more than 15 keywords: the compiler builds a dict), and which a move
changes in a few fields. `replacer(cls, "phase", "actor", …)` takes exactly the fields named,
for a handler that changes the same ones every time: it tests no field for whether it was
given (Durak's move and bout handlers: a playout 7 % -> 1 % dearer in instructions than the
positional calls this replaced, callgrind).

`quick_init(cls)` does the same to the class itself, for the records the engine builds on every
move (`MatchRecord`, `Entry`, `Step`, …): an `__init__` of the same signature (defaults and
fields left out of `__init__` included) that fills the slots through their descriptors, so
every `cls(...)` call is about twice as fast and nothing else changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def _filling(cls: Any, target: str, scope: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The parameters and the body lines that fill `target`'s slots through their descriptors
    (one call a field; the helpers they need go into `scope`), after checking that `cls` is a
    frozen, slotted dataclass this can build exactly as its own `__init__` would."""
    if not (
        isinstance(cls, type)
        and dataclasses.is_dataclass(cls)
        and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        and "__slots__" in cls.__dict__
        and not hasattr(cls, "__post_init__")
    ):
        raise TypeError(f"{cls!r} is not a frozen slotted dataclass without __post_init__")
    params, body = [], []
    for f in dataclasses.fields(cls):
        name = f.name
        # The helpers' names cannot clash with a field's, which never starts with two
        # underscores in these modules (checked).
        if name.startswith("__") or f.kw_only or f.default_factory is not dataclasses.MISSING:
            raise TypeError(
                f"{cls.__name__}.{name}: only positional fields with plain "
                "defaults (and no leading double underscore) are supported"
            )
        scope[f"__set_{name}"] = cls.__dict__[name].__set__
        value = name
        if not f.init:
            if f.default is dataclasses.MISSING:
                raise TypeError(
                    f"{cls.__name__}.{name}: a field left out of __init__ needs a default"
                )
            value = f"__value_{name}"
            scope[value] = f.default
        elif f.default is dataclasses.MISSING:
            params.append(name)
        else:
            scope[f"__default_{name}"] = f.default
            params.append(f"{name}=__default_{name}")
        body.append(f"    __set_{name}({target}, {value})")
    return params, body


def constructor(cls: Callable[P, T]) -> Callable[P, T]:
    """A fast constructor of frozen, slotted dataclass `cls` (no defaults, no __post_init__)."""
    fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    if any(f.default is not dataclasses.MISSING or not f.init for f in fields):
        raise TypeError(f"{cls!r} has fields with defaults or outside __init__")
    env: dict[str, Any] = {"__new": object.__new__, "__cls": cls}
    params, body = _filling(cls, "o", env)
    # The source is made from field names only.
    exec(
        "\n".join(
            [f"def make({', '.join(params)}):", "    o = __new(__cls)", *body, "    return o"]
        ),
        env,
    )
    make: Callable[P, T] = env["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    make.__doc__ = f"A {cls.__name__}, made as {cls.__name__}(...) would make it, faster."
    return make


def replacer(cls: type[T], *changing: str) -> Callable[..., T]:
    """A fast `dataclasses.replace` for frozen, slotted dataclass `cls` (no defaults, no
    __post_init__): `make(old, name=value, ...)` is a `cls` with `old`'s fields but those named,
    which take the values given (by keyword only; an unknown name is a TypeError). With
    `changing`, the function takes exactly those fields, every one of them (a handler that
    always changes the same fields says which: no test per field of whether it was given)."""
    fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    if any(f.default is not dataclasses.MISSING or not f.init for f in fields):
        raise TypeError(f"{cls!r} has fields with defaults or outside __init__")
    unknown = set(changing) - {f.name for f in fields}
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    env: dict[str, Any] = {"__new": object.__new__, "__cls": cls, "__keep": _KEEP}
    params, body = _filling(cls, "o", env)
    # Each line sets one field: the value given, else the old instance's own (a slot read).
    if changing:
        kept = [
            line if name in changing else line.replace(f"(o, {name})", f"(o, __old.{name})")
            for name, line in zip(params, body, strict=True)
        ]
        signature = f"def make(__old, *, {', '.join(changing)}):"
    else:
        kept = [
            line.replace(f"(o, {name})", f"(o, __old.{name} if {name} is __keep else {name})")
            for name, line in zip(params, body, strict=True)
        ]
        signature = f"def make(__old, {', '.join(f'{name}=__keep' for name in params)}):"
    # The source is made from field names only.
    exec("\n".join([signature, "    o = __new(__cls)", *kept, "    return o"]), env)
    make: Callable[..., T] = env["make"]
    make.__qualname__ = make.__name__ = f"replace_{cls.__name__}"
    make.__doc__ = f"`old`, a {cls.__name__}, with the fields named changed, as a new one."
    return make


_KEEP: Any = object()  # a field not named in a replacer's call: the old value stays


def quick_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass `cls` the faster `__init__` (see the module)."""
    scope: dict[str, Any] = {}
    params, body = _filling(cls, "self", scope)
    # The source is made from field names only; every value comes from `scope`.
    exec(
        f"def __init__({', '.join(['self', *params])}):\n" + "\n".join(body or ["    pass"]), scope
    )
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)  # the same signature to read
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
