"""Events encoded once for all of an entry's viewers (api.convert.events_for with `shown`, as
a play session does for its seats of a match): every viewer still gets exactly what it may
see, whoever asked first."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from kozyr.games import GAMES
from kozyr.wire.convert import events_for
from tests.bots.helpers import Table

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def entries(name: str, seed: int) -> list[tuple[Any, ...]]:
    """The events of each decision of a random match (its opening first)."""
    game, rng = GAMES[name], random.Random(seed)
    config = game.make_config({}, PLAYERS[name])
    opening = game.start(config, [f"p{i}" for i in range(PLAYERS[name])], f"s{seed}".encode())
    table = Table.start(game, PLAYERS[name], f"s{seed}".encode())
    out = [tuple(opening)]
    while (seat := table.to_act) is not None:
        legal = game.legal_commands(table.state, seat)
        events = game.decide(table.state, seat, legal[rng.randrange(len(legal))])
        out.append(tuple(events))
        for event in events:
            table.state = game.evolve(table.state, event)
    return out


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_events_made_once_for_all_viewers_are_each_viewers_own(name: str) -> None:
    game = GAMES[name]
    viewers: list[int | None] = [*range(PLAYERS[name]), None]
    shared = 0
    for seed in range(3):
        for version, events in enumerate(entries(name, seed), 1):
            alone = {v: events_for(game, version, events, v) for v in viewers}
            for order in (viewers, viewers[::-1]):  # the first to ask must not matter
                shown: dict[int, Any] = {}
                for viewer in order:
                    assert (
                        events_for(game, version, events, viewer, shown=shown) == alone[viewer]
                    ), (name, version, viewer)
                shared += len(shown)
    assert shared  # some events are public, and made once


@dataclass(frozen=True, slots=True)
class Drew:
    """A card drawn: whole for the seat that drew it, without the card for everybody else."""

    seat: int
    card: str


class OwnEventsWhole:
    """The part of the Game contract events_for uses, for a game whose redaction hands a
    seat its own event unchanged (none of the three games does today; a fourth may)."""

    NAME = "own-events-whole"

    @staticmethod
    def redact(event: Drew, viewer: int | None) -> Drew:
        return event if viewer == event.seat else Drew(event.seat, "")

    @staticmethod
    def describe(event: Drew) -> str:
        return f"seat {event.seat} draws"


def test_an_event_whole_for_its_own_seat_only_is_not_shared() -> None:
    game: Any = OwnEventsWhole()
    events = (Drew(0, "QS"),)
    shown: dict[int, Any] = {}
    mine = events_for(game, 5, events, 0, shown=shown)
    assert '"QS"' in mine[0].data_json
    assert not shown  # seat 0 saw it whole, a spectator would not: made again for each
    assert '"QS"' not in events_for(game, 5, events, 1, shown=shown)[0].data_json
