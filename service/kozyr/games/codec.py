"""Plain-data form of the games' frozen dataclasses (events, commands, configs).

`encode` turns a dataclass into JSON-ready data: ``{"type": ClassName, field: value, …}`` with
cards as their codes (``"10H"``), suits as letters, bytes as hex, enums by name and tuples as
lists. `decode` reverses it using the dataclass's type hints. The form is what the event store
and the replay files hold, so it must stay readable as games grow: a field added later needs a
default, and `decode` fills it for old data.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from functools import cache, partial
from typing import Any

from kozyr.core.cards import BY_CODE, Card, Suit, parse_card

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]
_MISSING = object()


def encode(obj: Any) -> Any:
    """JSON-ready data for a dataclass instance (or any supported value)."""
    return _encode_value(obj)


def _same(value: Any) -> Any:
    return value


def _listed(values: Any) -> list[Any]:
    # Most lists are of cards (a deck, a hand) or numbers (scores, sizes): those skip the call.
    return [
        v if (t := type(v)) is int or t is str else v.code if t is Card else _encode_value(v)
        for v in values
    ]


# Encoders by exact type: every entry of every move is encoded, and a dictionary lookup is
# several times cheaper than the chain of isinstance checks below, which stays for the rest
# (subclasses, other enums) and adds each dataclass it meets.
_BY_TYPE: dict[type, Encoder] = {
    int: _same,
    str: _same,
    bool: _same,
    type(None): _same,
    bytes: bytes.hex,
    Card: lambda c: c.code,
    Suit: lambda s: s.letter,
    tuple: _listed,
    list: _listed,
}


def _encode_value(value: Any) -> Any:
    encoder = _BY_TYPE.get(type(value))
    if encoder is not None:
        return encoder(value)
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Suit):
        return value.letter
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple | list):
        return _listed(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        encoder = _BY_TYPE[type(value)] = _dataclass_encoder(type(value))
        return encoder(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


OMIT_DEFAULT = {"omit_default": True}  # field metadata: leave the field out while default


_CODE = operator.attrgetter("code")
# Any value: plain ones as they are, the rest by type (the field's hint says nothing more).
_GENERAL = (
    "v if (t := type(v)) is int or t is str else v.code if t is Card"
    " else _listed(v) if t is tuple else v if t is bool or v is None"
    " else _encode_value(v)"
)


def _field_code(hint: Any) -> str:
    """The expression that encodes a field's value `v`, written for its type hint: a tuple of
    numbers, of strings or of cards is converted in one C call instead of a call per item. A
    value that is not the tuple its hint says goes the general way."""
    if typing.get_origin(hint) is tuple:
        args = typing.get_args(hint)
        items = set(args[:1] if len(args) == 2 and args[1] is Ellipsis else args)
        if items in ({int}, {str}):
            return "list(v) if type(v) is tuple else _encode_value(v)"
        if items == {Card}:
            return "list(map(_code, v)) if type(v) is tuple else _encode_value(v)"
    return _GENERAL


@cache
def _dataclass_encoder(cls: type) -> Encoder:
    """An encoder written for `cls`: one statement per field, so encoding an entry's events
    (every move, every match created) runs no loop over field names."""
    lines = ["def enc(obj):", f"    out = {{'type': {cls.__name__!r}}}"]
    defaults: dict[str, Any] = {
        "_encode_value": _encode_value,
        "Card": Card,
        "_listed": _listed,
        "_code": _CODE,
    }
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):  # a hint not resolvable here: each field the general way
        hints = {}
    for f in dataclasses.fields(cls):
        lines.append(f"    v = obj.{f.name}")
        # Plain values are the field's JSON as they are.
        value = _field_code(hints.get(f.name))
        if f.metadata.get("omit_default"):
            # A field added later with this marker keeps the encoding of old values (and so
            # the hash of every entry written before it) unchanged while it holds its default.
            defaults[f"default_{f.name}"] = f.default
            lines.append(f"    if v != default_{f.name}:")
            lines.append(f"        out[{f.name!r}] = {value}")
        else:
            lines.append(f"    out[{f.name!r}] = {value}")
    lines.append("    return out")
    exec("\n".join(lines), defaults)  # field names are identifiers: nothing else is written
    return typing.cast(Encoder, defaults["enc"])


class Registry:
    """Decodes data back into the dataclasses of one game, by their ``type`` name.

    A class may be given parametrized (``MatchStarted[Config]``): its type variables are then
    decoded as the given types, so one generic event serves every game.
    """

    def __init__(self, classes: Iterable[Any]) -> None:
        self._classes = {class_of(c).__name__: c for c in classes}

    def decode(self, data: Mapping[str, Any]) -> Any:
        """The dataclass instance the data describes; ValueError if its type is unknown."""
        name = data.get("type")
        cls = self._classes.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ValueError(f"unknown type {name!r}")
        return _dataclass_decoder(cls)(data)


def decode_as(cls: Any, data: Mapping[str, Any]) -> Any:
    """Decode data known to describe a `cls` instance (a dataclass, maybe parametrized)."""
    return _dataclass_decoder(cls)(data)


def class_of(tp: Any) -> type:
    """The class of a possibly parametrized dataclass (``MatchStarted[Config]`` → MatchStarted)."""
    origin = typing.get_origin(tp)
    return typing.cast(type, origin if origin is not None else tp)


@cache
def _dataclass_decoder(tp: Any) -> Decoder:
    cls = class_of(tp)
    # Generic dataclasses: bind their type variables to the arguments given (or Any).
    params = getattr(cls, "__parameters__", ())
    args = typing.get_args(tp) or (Any,) * len(params)
    bound = dict(zip(params, args, strict=True))
    hints = {name: _bind(hint, bound) for name, hint in typing.get_type_hints(cls).items()}
    # Written for `cls` like its encoder, one statement per field, and a plain value (int,
    # str, bool) taken as it is: a served bot decodes every event and view it is sent.
    lines = ["def dec(data):", "    get = data.get", "    kwargs = {}"]
    defaults: dict[str, Any] = {
        "cls": cls,
        "MISSING": _MISSING,
        "missing": partial(_missing, cls.__name__),
    }
    for k, f in enumerate(f for f in dataclasses.fields(cls) if f.init):
        decoder = _decoder_for(hints[f.name])
        value = "v" if decoder is _identity else f"d{k}(v)"
        defaults[f"d{k}"] = decoder
        lines.append(f"    v = get({f.name!r}, MISSING)")
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            lines.append(
                f"    kwargs[{f.name!r}] = missing({f.name!r}) if v is MISSING else {value}"
            )
        else:  # left out: the field's default
            lines.append(f"    if v is not MISSING: kwargs[{f.name!r}] = {value}")
    lines.append("    return cls(**kwargs)")
    exec("\n".join(lines), defaults)  # field names are identifiers: nothing else is written
    return typing.cast(Decoder, defaults["dec"])


def _missing(cls_name: str, name: str) -> Any:
    raise ValueError(f"{cls_name}: missing field {name!r}")


def _bind(tp: Any, bound: Mapping[Any, Any]) -> Any:
    """`tp` with the type variables of `bound` replaced (one level: a bare field type)."""
    if isinstance(tp, typing.TypeVar):
        return bound.get(tp, Any)
    return tp


def _decoder_for(tp: Any) -> Decoder:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Card:
        return _card
    if tp is Suit:
        return Suit.parse
    if tp in (int, str, bool, Any):
        return _identity
    if tp is bytes:
        return bytes.fromhex
    if isinstance(tp, type) and issubclass(tp, Enum):
        return lambda v: tp[v]
    if dataclasses.is_dataclass(class_of(tp)):
        return _dataclass_decoder(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) > 1 and all(dataclasses.is_dataclass(class_of(a)) for a in inner):
            # A union of dataclasses (a state's last event): the "type" field says which.
            by_name = {class_of(a).__name__: _dataclass_decoder(a) for a in inner}
            return lambda v: None if v is None else by_name[v["type"]](v)
        if len(inner) != 1:
            raise TypeError(f"unsupported union {tp}")
        sub = _decoder_for(inner[0])
        if sub is _identity:
            return _identity
        return lambda v: None if v is None else sub(v)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder_for(args[0])
            if item is _card:
                return _cards
            return tuple if item is _identity else lambda v: tuple(map(item, v))
        subs = [_decoder_for(a) for a in args]
        if all(d is _identity for d in subs):
            return partial(_plain_tuple, len(subs))
        return lambda v: tuple(d(x) for d, x in zip(subs, v, strict=True))
    raise TypeError(f"unsupported field type {tp}")


def _card(code: str) -> Card:
    # The codec writes canonical codes: a dictionary finds them; parse_card explains the rest.
    card = BY_CODE.get(code)
    return card if card is not None else parse_card(code)


def _cards(codes: list[str]) -> tuple[Card, ...]:
    try:
        return tuple(map(BY_CODE.__getitem__, codes))
    except (KeyError, TypeError):
        return tuple(map(parse_card, codes))


def _plain_tuple(size: int, value: Any) -> tuple[Any, ...]:
    if len(value) != size:
        raise ValueError(f"expected {size} values, got {len(value)}")
    return tuple(value)


def _identity(value: Any) -> Any:
    return value
