"""Typed events say exactly what data_json says: for every event of random matches of every
game, as each seat, a spectator and the arbiter see it, and for every lifecycle event; every
event class of the games and the log has its typed message."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.cards import parse_card
from kozyr.games import GAMES
from kozyr.match import log
from kozyr.wire.convert import TABLE_FIELD, events_for
from kozyr.wire.event_messages import SUIT_LETTERS, oneof_field
from tests.wire.test_convert_events import PLAYERS, entries


def _item(msg: Message) -> list[Any]:
    fields = msg.DESCRIPTOR.fields
    if len(fields) == 1 and fields[0].is_repeated:
        return list(getattr(msg, fields[0].name))
    return [getattr(msg, f.name) for f in fields]


def as_data(msg: Message) -> dict[str, Any]:
    """A typed event message back in the JSON form (the test's reading of the mapping)."""
    out: dict[str, Any] = {}
    for f in msg.DESCRIPTOR.fields:
        if f.containing_oneof is not None and f.containing_oneof.name == "config":
            continue
        value = getattr(msg, f.name)
        if f.is_repeated and f.type == FieldDescriptor.TYPE_MESSAGE:
            out[f.name] = [_item(item) for item in value]
        elif f.is_repeated and f.type == FieldDescriptor.TYPE_ENUM:
            out[f.name] = [SUIT_LETTERS[v - 1] for v in value]
        elif f.is_repeated:
            out[f.name] = list(value)
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            out[f.name] = as_data(value)
        elif f.has_presence and not msg.HasField(f.name):
            out[f.name] = None
        elif f.type == FieldDescriptor.TYPE_ENUM:
            out[f.name] = SUIT_LETTERS[value - 1] if value else None
        else:
            out[f.name] = value
    if "config" in msg.DESCRIPTOR.oneofs_by_name:
        which = msg.WhichOneof("config")
        out["config"] = as_data(getattr(msg, which)) if which else None
    return out


def _plain(value: Any, in_list: bool = False) -> Any:
    """data_json as the typed form reads it: no "type" tags, a null card in a list is ""."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "type"}
    if isinstance(value, list):
        return [_plain(v, True) for v in value]
    return "" if value is None and in_list else value


def assert_typed_is_data_json(event: pb.Event) -> None:
    which = event.WhichOneof("event")
    assert which is not None, f"{event.type} has no typed message"
    typed = as_data(getattr(event, which))
    data = _plain(json.loads(event.data_json))
    assert {k: typed[k] for k in data} == data, event.type
    # Fields the JSON leaves out while default (SeatJoined.user, MatchCreated.users,
    # MatchTerms.spectator_delay_ms).
    assert all(typed[k] in ("", [], None, 0) for k in set(typed) - set(data)), event.type


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_every_event_of_random_matches_is_typed_as_its_data_json(name: str) -> None:
    game = GAMES[name]
    kinds: set[str] = set()
    for seed in range(4):
        for version, events in enumerate(entries(name, seed), 1):
            for viewer in [*range(PLAYERS[name]), None]:
                for event in events_for(game, version, events, viewer):
                    assert_typed_is_data_json(event)
                    kinds.add(event.type)
            for event in events_for(game, version, events, None, arbiter=True):
                assert_typed_is_data_json(event)
    assert {"MatchStarted", "Dealt", "MatchEnded"} <= kinds


def test_a_seat_sees_its_own_hand_typed_and_no_other() -> None:
    game = GAMES["dix"]
    opening = entries("dix", 7)[0]
    for seat in (0, 1):
        dealt = next(e for e in events_for(game, 2, opening, seat) if e.type == "Dealt")
        hands = [list(h.cards) for h in dealt.dealt.hands]
        assert hands[seat] and not hands[1 - seat] and not dealt.dealt.deck
    started = next(e for e in events_for(game, 2, opening, 0) if e.type == "MatchStarted")
    assert started.match_started.seed == "" and started.match_started.dix.target == 50


def _lifecycle_events() -> list[Any]:
    deck = tuple(parse_card(c) for c in ("AS", "10H", "2C"))
    return [
        log.MatchCreated(
            "m-1",
            "durak-dice",
            "1",
            (("games", "2"),),
            ("ann", ""),
            ("aa", ""),
            "c0",
            prearranged=True,
            first_dealer=1,
            decks=(deck,),
            dice=((1, 6),),
            users=("u1", ""),
        ),
        log.SeatJoined(1, "bob", "bb", user="u2"),
        log.SeatJoined(1, "bob"),
        log.SeedRevealed("ff", "ab"),
        log.MatchTerms(("", "heuristic"), "FISCHER", 0, 60_000, 1_000, "BOT", "random", 9, 99),
        log.Resigned(0),
        log.Aborted(1),
        log.TimedOut(0, 1_700_000_000_000, "FORFEIT"),
        log.Abandoned(1, 0),
        log.Expired((0, 2)),
    ]


@pytest.mark.parametrize("arbiter", [False, True])
def test_every_lifecycle_event_is_typed_as_its_data_json(arbiter: bool) -> None:
    game = GAMES["durak-dice"]
    events = _lifecycle_events()
    shown = events_for(game, 1, events, None, arbiter=arbiter)
    assert len(shown) == len(events)
    for event in shown:
        assert_typed_is_data_json(event)
    created = shown[0].match_created
    assert [list(d.cards) for d in created.decks] == ([["AS", "10H", "2C"]] if arbiter else [])


def test_every_event_class_has_a_typed_message() -> None:
    missing = [
        (name, cls.__name__)
        for name, game in GAMES.items()
        for cls in (*log.LIFECYCLE_EVENTS, *game.EVENT_TYPES)
        if oneof_field(TABLE_FIELD[name], getattr(cls, "__origin__", cls)) is None
    ]
    assert missing == []
