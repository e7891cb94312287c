"""Typed events: the `Event.event` oneof, filled from the same redacted event (in the games'
JSON form) that Event.data_json is written from, so the two always say the same.

Each event class has one oneof field: the shared events (match/log.py, games/contract.py) by
their snake_case name (`match_created`, `dealt`), a game's own prefixed by the game's field
(`dix_trick_won`, `durak_dice_took`). The message has the dataclass's field names; in the JSON
form cards are codes, suits letters, tuples lists. Mapping: a null card in a list becomes ""
(DixTrickWon.drawn), other nulls leave the field unset, a suit letter becomes the Suit enum, a
list of lists fills a repeated message (whole into its one repeated field, as Cards or DieRolls,
or by position, as Roll), MatchStarted.config fills the game's member of its `config` oneof.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

SHARED_MODULES = frozenset({"kozyr.match.log", "kozyr.games.contract"})
SUIT_LETTERS = "SHDC"  # kozyr.v1.Suit: SUIT_S = 1 … SUIT_C = 4
_EVENT_FIELDS = pb.Event.DESCRIPTOR.fields_by_name
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")

# How a field is set: a scalar, a Suit, a nested message, or repeated of each.
SCALAR, SUIT, MESSAGE = 0, 1, 2
_PLANS: dict[Any, tuple[tuple[str, bool, int], ...]] = {}
_FIELD_OF: dict[tuple[str, type], str | None] = {}


def oneof_field(game_field: str, cls: type) -> str | None:
    """The Event oneof field of an event class in the game whose table field is `game_field`
    ("dix", "six_dozens", "durak_dice"); None when the contract has no message for it."""
    key = (game_field, cls)
    if key not in _FIELD_OF:
        name = _CAMEL.sub("_", cls.__name__).lower()
        if cls.__module__ not in SHARED_MODULES:
            name = f"{game_field}_{name}"
        field = _EVENT_FIELDS.get(name)
        _FIELD_OF[key] = name if field is not None and field.containing_oneof else None
    return _FIELD_OF[key]


def fill_event(message: pb.Event, game_field: str, event: Any, data: dict[str, Any]) -> None:
    """Set the typed member of `message` for `event`, from `data`, its JSON form."""
    name = oneof_field(game_field, type(event))
    if name is not None:
        _fill(getattr(message, name), data, game_field)


def _plan(descriptor: Any) -> tuple[tuple[str, bool, int], ...]:
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = _PLANS[descriptor] = tuple(
            (
                f.name,
                f.is_repeated,
                MESSAGE
                if f.type == FieldDescriptor.TYPE_MESSAGE
                else SUIT
                if f.type == FieldDescriptor.TYPE_ENUM
                else SCALAR,
            )
            for f in descriptor.fields
            if f.containing_oneof is None or f.containing_oneof.name != "config"
        )
    return plan


def _fill(msg: Message, data: dict[str, Any], game_field: str) -> None:
    filler = _FILLERS.get(msg.DESCRIPTOR)
    if filler is None:
        filler = _FILLERS[msg.DESCRIPTOR] = _filler(msg.DESCRIPTOR)
    filler(msg, data, game_field)


# A filler per message type, written for its fields (as convert's table fillers are): every
# event of every entry is typed for each viewer, and the loop over a plan cost twice as much.
# Each line does what `_set` does for that kind of field.
_FILLERS: dict[Any, Any] = {}


def _filler(descriptor: Any) -> Any:
    lines = ["def fill(msg, data, game_field):"]
    for name, repeated, kind in _plan(descriptor):
        plain = kind == SCALAR and not keyword.iskeyword(name)
        if plain and repeated:
            statement = f"msg.{name}.extend(v if None not in v else _blanks(v))"
        elif plain:
            statement = f"msg.{name} = v"
        else:
            statement = f"_set(msg, {name!r}, {repeated}, {kind}, v, game_field)"
        lines += [f"    v = data.get({name!r})", "    if v is not None:", f"        {statement}"]
    if "config" in descriptor.oneofs_by_name:
        lines += [
            "    v = data.get('config')",
            "    if v is not None:",
            "        _fill(getattr(msg, game_field), v, game_field)",
        ]
    lines.append("    return msg")
    env = {"_set": _set, "_blanks": _blanks, "_fill": _fill}
    exec("\n".join(lines), env)  # the source is made above from the descriptor's field names
    return env["fill"]


def _blanks(values: list[Any]) -> list[Any]:
    return ["" if v is None else v for v in values]


def _set(msg: Message, name: str, repeated: bool, kind: int, value: Any, game_field: str) -> None:
    if repeated:
        _extend(msg, name, kind, value, game_field)
    elif kind == MESSAGE:
        _fill(getattr(msg, name), value, game_field)
    else:
        setattr(msg, name, _suit(value) if kind == SUIT else value)


def _extend(msg: Message, name: str, kind: int, values: list[Any], game_field: str) -> None:
    target = getattr(msg, name)
    if kind == SCALAR:
        target.extend(_blanks(values))
    elif kind == SUIT:
        target.extend([_suit(v) for v in values])
    else:
        for item in values:
            _item(target.add(), item, game_field)


def _item(msg: Message, item: Any, game_field: str) -> None:
    """One item of a repeated message field: an object by name, a list whole into the
    message's one repeated field, or by position into its fields."""
    if isinstance(item, dict):
        _fill(msg, item, game_field)
        return
    plan = _plan(msg.DESCRIPTOR)
    if len(plan) == 1 and plan[0][1]:
        getattr(msg, plan[0][0]).extend(item)
        return
    for (name, _repeated, kind), value in zip(plan, item, strict=False):
        if value is not None:
            setattr(msg, name, _suit(value) if kind == SUIT else value)


def _suit(letter: str) -> int:
    return SUIT_LETTERS.index(letter) + 1
