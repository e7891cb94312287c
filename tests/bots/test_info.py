"""What a seat knows (kozyr.bots.info): rebuilt from its redacted history alone, it must agree
with the true state on everything the seat may see, its inferences must be true of the real
hidden cards, and its determinizations must be possible worlds."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from kozyr.bots.info import DixInfo, DurakDiceInfo, SeatInfo, SixDozensInfo, seat_info
from kozyr.games import GAMES, Game
from tests.bots.helpers import random_decisions

CASES = [
    ("dix", 2, {}),
    ("dix", 2, {"first_lead": "DEALER", "target": "20"}),
    ("six-dozens", 2, {}),
    ("six-dozens", 3, {"trumps": "SENIOR_JUNIOR", "deck": "32"}),
    ("six-dozens", 4, {"seven": "NONE", "trumps": "NONE", "deck": "28"}),
    ("durak-dice", 2, {}),
    ("durak-dice", 4, {"games": "2", "max_attacks": "4"}),
    ("durak-dice", 6, {"deck": "52"}),
]


def _facts_hold(info: SeatInfo, game: Game, state: Any) -> None:
    """The seat's inferences are true of the real hidden cards (they are sound)."""
    zones = game.zones(state)
    if isinstance(info, DixInfo):
        opp = zones[f"hand{info.opp}"]
        held = Counter(info.esuit[c.index] for c in opp)
        for suit, cap in info.caps().items():
            assert held[suit] <= cap
        assert len(opp) == info.unseen.bit_count() - info.stock_count
    elif isinstance(info, SixDozensInfo):
        for p in range(info.n):
            cards = zones[f"hand/{p}"]
            assert len(cards) == info.sizes[p]
            if p != info.seat:
                assert not any(info.forbidden[p] >> c.index & 1 for c in cards)
        if info.required:  # SIX-7: the first mover still holds a card nearer the 6
            assert any(info.required >> c.index & 1 for c in zones[f"hand/{info.first_mover}"])
    elif isinstance(info, DurakDiceInfo):
        for p in range(info.n):
            unseen = zones[f"hand/{p}"]
            assert {c.code for c in zones[f"known/{p}"]} == {
                c.code for c in game.view(state, info.seat).known[p]
            }
            if p != info.seat:
                assert len(unseen) == info.hidden_count[p]
                assert not any(info.forbidden[p] >> c.index & 1 for c in unseen)


@pytest.mark.parametrize(("name", "players", "options"), CASES)
def test_seat_knowledge_matches_the_truth_at_every_decision(
    name: str, players: int, options: dict[str, str]
) -> None:
    game = GAMES[name]
    rng = random.Random(7)
    for seed in range(3):
        infos = [seat_info(game, s) for s in range(players)]
        for step, (table, seat) in enumerate(random_decisions(game, players, seed, options)):
            info = infos[seat]
            info.update(table.histories[seat])
            truth = table.state
            # The view and the legal moves, rebuilt from the redacted history alone.
            assert info.view() == game.view(truth, seat)
            assert game.legal_commands(info.state(), seat) == game.legal_commands(truth, seat)
            _facts_hold(info, game, truth)
            if step % 3:
                continue
            # A determinization: the same public table, the same sizes, every card once.
            sample = info.sample(rng)
            assert game.view(sample, seat) == game.view(truth, seat)
            hidden = set(game.hidden_zones(truth, seat))
            real, drawn = game.zones(truth), game.zones(sample)
            assert real.keys() == drawn.keys()
            for zone, cards in real.items():
                assert len(drawn[zone]) == len(cards)
                if zone not in hidden:
                    assert sorted(drawn[zone]) == sorted(cards), zone
            assert sorted(c for z in drawn.values() for c in z) == sorted(
                c for z in real.values() for c in z
            )


def test_samples_respect_what_the_opponent_revealed() -> None:
    # Play Six Dozens until somebody has passed, then check that no sample ever gives a
    # passing player a card he could have played on that bank.
    game = GAMES["six-dozens"]
    rng = random.Random(1)
    for seed in range(20):
        info = SixDozensInfo(0)
        for table, seat in random_decisions(game, 3, seed):
            if seat != 0:
                continue
            info.update(table.histories[0])
            if any(info.forbidden[p] for p in (1, 2)):
                for _ in range(20):
                    zones = game.zones(info.sample(rng))
                    for p in (1, 2):
                        assert not any(info.forbidden[p] >> c.index & 1 for c in zones[f"hand/{p}"])
                return
    pytest.fail("no pass in 20 matches")


def test_dix_void_caps_the_opponents_suit() -> None:
    game = GAMES["dix"]
    rng = random.Random(3)
    for seed in range(30):
        info = DixInfo(0)
        for table, seat in random_decisions(game, 2, seed):
            if seat != 0:
                continue
            info.update(table.histories[0])
            caps = info.caps()
            if caps and min(caps.values()) == 0:
                suit = min(caps, key=lambda s: caps[s])
                for _ in range(20):
                    opp = game.zones(info.sample(rng))["hand1"]
                    assert all(info.esuit[c.index] != suit for c in opp)
                return
    pytest.fail("no final void in 30 matches")


def test_history_must_belong_to_one_match() -> None:
    game = GAMES["dix"]
    table = next(random_decisions(game, 2, 0))[0]
    info = seat_info(game, 0)
    info.update(table.histories[0])
    with pytest.raises(ValueError, match="shrank"):
        info.update(table.histories[0][:2])
    with pytest.raises(ValueError, match="dealt"):
        seat_info(game, 0).state()


@pytest.mark.parametrize(("name", "players", "options"), CASES)
def test_a_quick_view_goes_on_from_the_last_and_an_exact_one_is_always_true(
    name: str, players: int, options: dict[str, str]
) -> None:
    # `quick` folds only the new events on the last skeleton: exact in Dix (exact_steps), and
    # in the others an exact view asked after a quick one is folded from the deal again.
    game = GAMES[name]
    for seed in range(2):
        infos = [seat_info(game, s) for s in range(players)]
        for table, seat in random_decisions(game, players, seed, options):
            info = infos[seat]
            info.update(table.histories[seat])
            truth = game.view(table.state, seat)
            quick = info.view(quick=True)
            if info.exact_steps:
                assert quick == truth
            assert info.view() == truth
