"""The anchors bench gives both sides the same work for chance (issue 32): every chance outcome
on either side is one draw of the harness's seeded Random, as a move is, and Kozyr's deals
come from those draws, not from the HMAC stream the service deals with."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from kozyr.games import GAMES
from tests.bench.anchors import anchor_playout, anchor_start, full_deck

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))


class CountingRandom(random.Random):
    """A seeded Random that counts its draws (randrange: how chance and moves are drawn)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.draws = 0

    def randrange(self, *args: int) -> int:  # type: ignore[override]
        self.draws += 1
        return super().randrange(*args)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_kozyr_draws_its_deal_and_dice_like_its_moves(name: str) -> None:
    rng = CountingRandom(7)
    moves, chance = anchor_playout(name, rng)
    assert moves > 0 and chance > 0
    assert rng.draws == moves + chance, "every chance outcome and every move is one draw"
    deck_draws = len(full_deck(name)) - 1
    assert chance >= 1 + deck_draws  # the first dealer, the shuffle (and Durak's rolls)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_deal_is_the_harness_draws_not_the_services_seed(name: str) -> None:
    """The hand is dealt from the draws (a prearranged setup): the same draws deal the same
    deck order, other draws another one."""
    _, events, _ = anchor_start(name, random.Random(1))
    started = events[0]
    assert started.prearranged and started.decks
    _, again, _ = anchor_start(name, random.Random(1))
    assert again[0].decks == started.decks
    assert any(anchor_start(name, random.Random(s))[1][0].decks != started.decks for s in (2, 3))


def test_openspiel_draws_each_chance_outcome_like_a_move() -> None:
    import pyspiel  # the agents extra, which make test installs
    from openspiel_playout import one_match

    game = pyspiel.load_game("hearts")
    rng = CountingRandom(3)
    actions, chance = one_match(game, rng)
    assert rng.draws == actions + chance
    assert chance >= 52, "each card of hearts' deal is a chance outcome"
    state = game.new_initial_state()
    while state.is_chance_node():  # uniform outcomes: one draw among them samples them exactly
        probabilities = {p for _, p in state.chance_outcomes()}
        assert len(probabilities) == 1
        state.apply_action(state.legal_actions()[0])
