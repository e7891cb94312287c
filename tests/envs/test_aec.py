"""The PettingZoo AEC environments pass pettingzoo's api_test across games and options, play
whole matches to the rules' outcome, and repeat deals seat-rotated in duplicate mode."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from kozyr.core.jsontext import loads
from kozyr.envs.aec import KozyrAEC
from kozyr.envs.table import match_seed
from kozyr.games import fold, get_game

# Every option of every game is set in at least one case (service/kozyr/games/*/model.py
# OPTIONS). The hand and bout limits are small so that the random play of api_test's 200 cycles
# reaches the options that act between hands and at the end (the next dealer, the final kitty,
# a drawn Durak game, R-5's guard).
OPTIONS = [
    ("dix", 2, {}),
    ("dix", 2, {"single_hand": True, "first_lead": "DEALER"}),
    ("dix", 2, {"target": 10, "tiebreak_tens": "MATCH"}),
    ("dix", 2, {"target": 10_000, "max_hands": 2}),
    ("six-dozens", 2, {}),
    ("six-dozens", 3, {"trumps": "TWO", "seven": "NONE", "deck": 32}),
    ("six-dozens", 4, {"trumps": "SENIOR_JUNIOR", "dealer": "LOSER", "max_hands": 3}),
    (
        "six-dozens",
        2,
        {
            "deck": 28,
            "trumps": "ONE",
            "trump_suits": "H",
            "dealer": "MOST_POINTS",
            "final_kitty": "SPLIT_SOLVENT",
            "max_hands": 3,
        },
    ),
    ("six-dozens", 3, {"trumps": "NONE", "dealer": "FIRST_OUT", "max_hands": 3}),
    (
        "six-dozens",
        4,
        {
            "trump_suits": "DCSH",
            "eight_on_trumps": False,
            "dealer": "FEWEST_POINTS",
            "max_hands": 3,
        },
    ),
    ("durak-dice", 2, {}),
    ("durak-dice", 3, {"games": 3, "max_bouts": 4}),
    ("durak-dice", 4, {"deck": 52, "max_attacks": 6}),
    ("durak-dice", 5, {}),
    ("durak-dice", 6, {"games": 2, "next_first": "FROM_UNDER_FOOL"}),
]


@pytest.mark.parametrize(("game", "players", "options"), OPTIONS)
def test_api_test_passes(game: str, players: int, options: dict[str, object]) -> None:
    api_test(KozyrAEC(game=game, players=players, options=options), num_cycles=200)


@pytest.mark.parametrize("game", ["dix", "six-dozens", "durak-dice"])
def test_the_cases_set_every_option_value_and_player_count(game: str) -> None:
    """Each option is set in some case; each choice (a bool's both values) is played, the
    default by a case that leaves the option out; every player count is played."""
    rules = get_game(game)
    cases = [(n, o) for g, n, o in OPTIONS if g == game]
    assert {n for n, _ in cases} == set(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))
    for spec in rules.OPTIONS:
        assert any(spec.name in o for _, o in cases), spec.name
        choices = (True, False) if spec.kind == "bool" else spec.choices
        played = {o.get(spec.name, spec.default) for _, o in cases}
        assert set(choices) <= played, (spec.name, set(choices) - played)


def play(env: KozyrAEC, seed: int | None, rng: np.random.Generator) -> dict[str, float]:
    """Random legal actions to the end; each agent's total reward."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)  # type: ignore[arg-type]
            continue
        assert loads(info["view"])["seat"] == info["seat"] == env.seat_of(agent)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize(("game", "players", "options"), [OPTIONS[1], OPTIONS[5], OPTIONS[12]])
def test_whole_matches_end_with_the_rules_outcome(
    game: str, players: int, options: dict[str, object]
) -> None:
    env = KozyrAEC(game=game, players=players, options=options)
    totals = play(env, 5, np.random.default_rng(0))
    outcome = env.table.outcome
    assert outcome is not None
    # The table's events folded from scratch give the same outcome (nothing but the rules).
    assert get_game(game).outcome(fold(get_game(game), env.table.events)) == outcome
    for agent, total in totals.items():
        winner = env.seat_of(agent) in outcome.winners
        assert total == (0.0 if len(set(outcome.winners)) == players else 1.0 if winner else -1.0)


def test_duplicate_mode_rotates_the_seats_over_the_same_deal() -> None:
    env = KozyrAEC(game="six-dozens", players=3, options={"max_hands": 1}, duplicate=True)
    seen = []
    for _ in range(4):
        env.reset()
        seen.append((env.deal, env.rotation, env.table.seed, env.seat_of("player_0")))
    assert [(d, r) for d, r, _, _ in seen] == [(0, 0), (0, 1), (0, 2), (1, 0)]
    assert seen[0][2] == seen[1][2] == seen[2][2] == match_seed(0, 0) != seen[3][2]
    assert [s for *_, s in seen] == [0, 1, 2, 0]
    env.reset(seed=9)
    assert (env.deal, env.rotation) == (9, 0)
    env.reset()
    assert (env.deal, env.rotation) == (9, 1)


def test_seeded_resets_repeat_the_deal() -> None:
    a, b = KozyrAEC(game="dix"), KozyrAEC(game="dix")
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.table.events == b.table.events
    b.reset(seed=4)
    assert a.table.events != b.table.events
