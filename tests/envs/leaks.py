"""What a seat may not see at a decision, and byte-level checks that a row or an observation
holds none of it (the same patterns as tests/api/test_no_leak.py: a card as a JSON string)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kozyr.bots.encodings import fields_of
from kozyr.core.cards import Card
from kozyr.core.jsontext import dumps
from kozyr.games.codec import encode
from kozyr.games.contract import AnyGame


def forbidden(game: AnyGame, state: Any, seat: int, history: Sequence[Any]) -> set[Card]:
    """Cards in the zones hidden from `seat` that its history never showed it."""
    zones = game.zones(state)
    hidden = {c for z in game.hidden_zones(state, seat) for c in zones[z]}
    shown = dumps([encode(e) for e in history]).encode()
    return {c for c in hidden if b'"' + c.code.encode() + b'"' not in shown}


def check_observation(
    game: AnyGame, observation: Sequence[float], view_json: str, cards: set[Card]
) -> None:
    """No forbidden card in any card block of the encoding nor in the view's JSON bytes."""
    raw = view_json.encode()
    for c in cards:
        assert b'"' + c.code.encode() + b'"' not in raw, f"{c} leaked into the view"
    at = 0
    for name, size in fields_of(game.NAME):
        if size == 53:
            for c in cards:
                assert observation[at + c.index] == 0, f"{c} leaked into {name}"
        at += size
