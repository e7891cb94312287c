"""Bots see only their seat: a bot's choice does not change when the cards it cannot see are
swapped in the true state and its observation is rebuilt."""

from __future__ import annotations

import dataclasses
import random

import pytest

from kozyr.bots import Seat, make_bot
from kozyr.games import GAMES
from tests.bots.helpers import random_decisions, swap_hidden

SPECS = ["random", "heuristic", "ismcts:iters=25"]
GAME_PLAYERS = [("dix", 2), ("six-dozens", 3), ("durak-dice", 3)]


@pytest.mark.parametrize(("name", "players"), GAME_PLAYERS)
@pytest.mark.parametrize("spec", SPECS)
def test_choice_is_unchanged_when_hidden_cards_are_swapped(
    name: str, players: int, spec: str
) -> None:
    game = GAMES[name]
    rng = random.Random(5)
    checked = 0
    for step, (table, seat) in enumerate(random_decisions(game, players, 11)):
        obs = table.observe(seat)
        if step % 5 or len(obs.legal) < 2:
            continue
        other = swap_hidden(game, table.state, seat, rng)
        if game.zones(other) == game.zones(table.state):
            continue  # e.g. Dix once the stock is out: one hidden zone, nothing to swap
        obs2 = table.observe(seat, other)
        assert obs2 == obs  # nothing the seat sees depends on the hidden cards
        a = make_bot(spec, game, seat, seed=step).choose(obs)
        b = make_bot(spec, game, seat, seed=step).choose(obs2)
        assert a == b
        assert a in obs.legal
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_the_observation_holds_no_state() -> None:
    game = GAMES["durak-dice"]
    table, seat = next(random_decisions(game, 3, 2))
    obs = table.observe(seat)
    state_type = type(table.state)
    assert [f.name for f in dataclasses.fields(Seat)] == [
        "game",
        "seat",
        "view",
        "history",
        "legal",
    ]
    assert isinstance(obs.view, game.View)  # type: ignore[attr-defined]
    for value in (obs.view, *obs.history, *obs.legal):
        assert not isinstance(value, state_type)
    # The other seats' cards appear nowhere in the observation.
    hidden = {c for z in game.hidden_zones(table.state, seat) for c in game.zones(table.state)[z]}
    assert hidden
    assert not hidden & set(obs.view.hand)
    for event in obs.history:
        hands = getattr(event, "hands", ())
        for s, cards in enumerate(hands):
            if s != seat:
                assert cards == ()
