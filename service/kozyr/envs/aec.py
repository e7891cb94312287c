"""The three games as PettingZoo AEC environments (docs/agents.md "PettingZoo").

Agents are *players* ``player_0`` … ``player_{n-1}``; `rotation` seats player p in seat
``(p + rotation) % n``. With ``duplicate=True`` successive resets without a seed play each deal
once per rotation before the next deal (deal ``k // n``, rotation ``k % n``), so card luck
cancels out as in a duplicate tournament. ``reset(seed=N)`` plays deal N (rotation 0, or the
next rotation of deal N under `duplicate`).

Observation: ``{"observation": float32[size], "action_mask": int8[actions]}`` from the seat's
view only (kozyr.bots.encodings); ``infos[agent]["view"]`` holds the same view as JSON and
``infos[agent]["seat"]`` the seat. Rewards: +1 winner, -1 the others, 0 a shared result, at
the end only (kozyr.envs.table).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from kozyr.envs.table import Table, match_seed

Obs = dict[str, np.ndarray[Any, Any]]


class KozyrAEC(AECEnv[str, Obs, int]):  # type: ignore[misc]
    """A Kozyr game as a PettingZoo AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "kozyr_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str = "dix",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        master: int | str = 0,
        duplicate: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.table = Table(game, players, dict(options or {}), match_seed(master, 0))
        self.master = master
        self.duplicate = duplicate
        self.render_mode = render_mode
        self.n = players
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = list(self.possible_agents)
        code = self.table.code
        # Numbers are clipped to [-1, 1] (kozyr.bots.encodings.layout); cards are 0/1.
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (code.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (code.actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(code.actions) for a in self.possible_agents}
        self.rotation = 0
        self.deal = 0
        self._episodes = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space."""
        return self.action_spaces[agent]

    def seat_of(self, agent: str) -> int:
        """The seat the agent holds this episode."""
        return (self.possible_agents.index(agent) + self.rotation) % self.n

    def agent_at(self, seat: int) -> str:
        """The agent holding `seat` this episode."""
        return self.possible_agents[(seat - self.rotation) % self.n]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal the next episode (see the module docstring for which deal and rotation)."""
        if seed is not None:
            self.deal, self.rotation = seed, 0
            self._episodes = seed * self.n if self.duplicate else seed
        elif self.duplicate:
            self.deal, self.rotation = divmod(self._episodes, self.n)
        else:
            self.deal, self.rotation = self._episodes, 0
        self._episodes += 1
        self.table.restart(match_seed(self.master, self.deal))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._refresh()

    def _refresh(self) -> None:
        seat = self.table.to_act
        over = seat is None
        self.agent_selection = self.agent_at(0 if seat is None else seat)
        for agent in self.agents:
            self.infos[agent] = {
                "seat": self.seat_of(agent),
                "deal": self.deal,
                "view": self.table.view_json(self.seat_of(agent)),
            }
        if over:
            for s, r in enumerate(self.table.rewards()):
                agent = self.agent_at(s)
                self.rewards[agent] = r
                self.terminations[agent] = True
            self._accumulate_rewards()
            self._selector = AgentSelector(list(self.agents))
            self.agent_selection = self._selector.reset()

    def observe(self, agent: str) -> Obs:
        """The agent's observation from its seat's view."""
        seat = self.seat_of(agent)
        return {
            "observation": np.asarray(self.table.observe(seat), dtype=np.float32),
            "action_mask": np.asarray(self.table.mask(seat), dtype=np.int8),
        }

    def step(self, action: int) -> None:
        """The selected agent plays `action` (one its action mask allows)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            if self.agents:
                self.agent_selection = self._selector.next()
            return
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self.table.step(int(action))
        self._refresh()

    def render(self) -> str | None:
        """The table as the selected agent's seat sees it (text)."""
        if self.render_mode != "ansi":
            return None
        game = self.table.game
        return game.render(game.view(self.table.state, self.seat_of(self.agent_selection)))

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> KozyrAEC:
    """A KozyrAEC with PettingZoo's usual wrappers left out (the mask is in the observation)."""
    return KozyrAEC(**kwargs)
