"""One seat of a Kozyr game as a Gymnasium environment, the other seats played by a bot.

``SeatEnv(game, opponent="random", seat=0)``: ``reset(seed=N)`` deals deal N (as
kozyr.envs.table names deals) and lets the bots play until the learner's turn. Observation and
action indices are those of the AEC environment (kozyr.envs.aec); the mask is also in
``info["action_mask"]``. Reward at the end: +1 win, -1 loss, 0 shared. An action the mask
forbids ends the episode as a loss (reward -1, ``info["illegal"]`` True), so a random agent
can explore without raising.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from kozyr.bots import Bot, make_bot
from kozyr.envs.table import Table, match_seed

Obs = dict[str, np.ndarray[Any, Any]]


class SeatEnv(gym.Env[Obs, int]):
    """A single-agent Kozyr environment: the learner holds `seat`, bots hold the others."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        game: str = "dix",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        opponent: str = "random",
        seat: int = 0,
        master: int | str = 0,
        render_mode: str | None = None,
    ) -> None:
        self.table = Table(game, players, dict(options or {}), match_seed(master, 0))
        self.opponent = opponent
        self.seat = seat
        self.master = master
        self.render_mode = render_mode
        code = self.table.code
        observations = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (code.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (code.actions,), np.int8),
            }
        )
        self.observation_space = cast(spaces.Space[Obs], observations)
        self.action_space = cast(spaces.Space[int], spaces.Discrete(code.actions))
        self.bots: list[Bot | None] = []
        self.deal = 0

    def _obs(self) -> Obs:
        return {
            "observation": np.asarray(self.table.observe(self.seat), dtype=np.float32),
            "action_mask": np.asarray(self.table.mask(self.seat), dtype=np.int8),
        }

    def _info(self) -> dict[str, Any]:
        obs_mask = np.asarray(self.table.mask(self.seat), dtype=np.int8)
        return {"action_mask": obs_mask, "view": self.table.view_json(self.seat), "deal": self.deal}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal deal `seed` (or the next one) and play the bots up to the learner's turn."""
        super().reset(seed=seed)
        self.deal = seed if seed is not None else self.deal + 1
        self.table.restart(match_seed(self.master, self.deal))
        game = self.table.game
        self.bots = [
            None if s == self.seat else make_bot(self.opponent, game, s, self.deal * 97 + s)
            for s in range(self.table.players)
        ]
        self._bots_play()
        return self._obs(), self._info()

    def _bots_play(self) -> None:
        while (seat := self.table.to_act) is not None and seat != self.seat:
            bot = self.bots[seat]
            assert bot is not None
            self.table.play(seat, bot.choose(self.table.seat_obs(seat)))

    def step(self, action: int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots' until the learner's turn or the end."""
        if self.table.to_act != self.seat:
            raise RuntimeError("the episode is over: call reset()")
        if not self.table.mask(self.seat)[int(action)]:
            info = self._info() | {"illegal": True}
            return self._obs(), -1.0, True, False, info
        self.table.step(int(action))
        self._bots_play()
        done = self.table.to_act is None
        reward = self.table.rewards()[self.seat] if done else 0.0
        return self._obs(), reward, done, False, self._info()

    def render(self) -> str | None:
        """The table as the learner's seat sees it (text)."""
        if self.render_mode != "ansi":
            return None
        game = self.table.game
        return game.render(game.view(self.table.state, self.seat))
