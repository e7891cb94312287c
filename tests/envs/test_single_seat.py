"""The Gymnasium wrapper passes gymnasium's env checker and plays a seat against a bot."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from kozyr.envs.single_seat import SeatEnv


@pytest.mark.parametrize(
    ("game", "players", "options", "opponent"),
    [
        ("dix", 2, {"single_hand": True}, "heuristic"),
        ("six-dozens", 3, {"max_hands": 2}, "random"),
        ("durak-dice", 3, {}, "heuristic"),
    ],
)
def test_env_checker_passes(
    game: str, players: int, options: dict[str, object], opponent: str
) -> None:
    check_env(SeatEnv(game, players, options, opponent=opponent, seat=1), skip_render_check=True)


def test_an_episode_plays_to_the_end_against_the_bot() -> None:
    env = SeatEnv("durak-dice", 3, opponent="heuristic", seat=2)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=11)
    done, reward, steps = False, 0.0, 0
    while not done:
        assert (obs["action_mask"] == info["action_mask"]).all()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, done, truncated, info = env.step(action)
        reward, steps = float(r), steps + 1
        assert not truncated
    outcome = env.table.outcome
    assert outcome is not None and steps > 0
    winners = set(outcome.winners)
    assert reward == (0.0 if len(winners) == 3 else 1.0 if 2 in winners else -1.0)


def test_an_illegal_action_loses_without_changing_the_match() -> None:
    env = SeatEnv("dix", 2, {"single_hand": True})
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    events = list(env.table.events)
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal"]) == (-1.0, True, True)
    assert env.table.events == events
