"""The three games as OpenSpiel Python games: ``kozyr_dix``, ``kozyr_six_dozens`` and
``kozyr_durak_dice`` (docs/agents.md "OpenSpiel"), registered by importing this module.

Parameters: ``players`` (default the game's minimum), ``options`` (the match options as JSON,
e.g. ``{"single_hand": true}``), ``master`` (the master seed) and ``deals`` (how many seeds the
first chance node chooses among).

Chance nodes, all uniform, in this order: the *seed* (outcome d: deal d of kozyr.envs.table
under the master seed), the first *dealer* (one outcome a seat, R-2), each *card* of the first
hand's deck order in turn (outcome k: the k-th of the cards not dealt yet, in the deck's fixed
order by code), and in Durak each *die roll* of the first game's dice deal (outcome r: a roll
of r + 1, until the rolls cover the deck, DUR-3). They become the match's prearranged setup
for its first hand; the hands (or Durak games) after it are dealt by the rules from the seed,
so a multi-hand match has its later deals decided by the first chance node. Chance outcomes
reach no player: information states hold only what a seat was shown.

Information state of a player: the string is the player's own redacted history (its events as
the service would show them, as canonical JSON); the tensor is the fixed-size encoding of its
view (kozyr.bots.encodings), the same as its observation tensor. Returns: +1 winner, -1 the
others, 0 a shared result, at the end only.

`resample_from_infostate` (for ISMCTS) places the cards the player cannot see at random,
consistently with its history (kozyr.bots.info); the other seats keep the histories they had,
extended with what they see of the sampled world from there on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from kozyr.bots.encodings import encoding
from kozyr.bots.info import seat_info
from kozyr.core.jsontext import dumps, loads
from kozyr.envs.table import Table, full_deck, match_seed
from kozyr.games import get_game
from kozyr.games.codec import encode
from kozyr.games.contract import Setup

GAMES = {"kozyr_dix": "dix", "kozyr_six_dozens": "six-dozens", "kozyr_durak_dice": "durak-dice"}
DEFAULT_DEALS = 1000


def max_length(name: str, config: Any) -> int:
    """An upper bound on the decisions of a match with this config (the GameInfo needs one):
    every card of every hand played (Dix 52 a hand, Six Dozens at most 36), or in Durak every
    bout at most every card attacked and beaten plus a take or a pass per seat."""
    if name == "dix":
        return int(config.max_hands) * 52
    if name == "six-dozens":
        return int(config.max_hands) * 36
    return int(config.games) * int(config.max_bouts) * (2 * 52 + 6)


def _game_type(short: str) -> pyspiel.GameType:
    game = get_game(GAMES[short])
    return pyspiel.GameType(
        short_name=short,
        long_name=f"Kozyr {game.TITLE}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.MAX_PLAYERS,
        min_num_players=game.MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": game.MIN_PLAYERS,
            "options": "{}",
            "master": 0,
            "deals": DEFAULT_DEALS,
        },
    )


class KozyrSpielGame(pyspiel.Game):  # type: ignore[misc]
    """A Kozyr game as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None, short: str = "kozyr_dix") -> None:
        params = dict(params or {})
        name = GAMES[short]
        game = get_game(name)
        self.kozyr_game = name
        self.players = int(params.get("players", game.MIN_PLAYERS))
        self.options: dict[str, object] = loads(str(params.get("options", "{}")) or "{}")
        self.master = int(params.get("master", 0))
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        config = game.make_config(self.options, self.players)  # InvalidOptions names a bad one
        code = encoding(name)
        deck = len(full_deck(name, self.players, self.options))
        info = pyspiel.GameInfo(
            num_distinct_actions=code.actions,
            max_chance_outcomes=max(self.deals, self.players, deck, 6),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=max_length(name, config),
        )
        super().__init__(_game_type(short), info, params)

    def new_initial_state(self) -> KozyrSpielState:
        """The state before the deal (a chance node)."""
        return KozyrSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SeatObserver:
        """The observer: perfect recall gives the information state, else the observation."""
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SeatObserver(self.kozyr_game, recall)


@dataclass(frozen=True, slots=True)
class Spec:
    """What a state needs of its game (plain data: OpenSpiel deep-copies states to clone)."""

    kozyr_game: str
    players: int
    options: dict[str, object]
    master: int
    deals: int


class KozyrSpielState(pyspiel.State):  # type: ignore[misc]
    """A Kozyr match in OpenSpiel: the chance nodes of its deal, then the seats' decisions."""

    def __init__(self, game: KozyrSpielGame) -> None:
        super().__init__(game)
        self.spec = Spec(game.kozyr_game, game.players, game.options, game.master, game.deals)
        self.table: Table | None = None
        self.deal: int | None = None
        self.dealer: int | None = None
        self.deck: list[Any] = []  # the first hand's deck order, as drawn so far
        self.rolls: list[int] = []  # Durak: the first game's die rolls, as drawn so far

    def _chance_count(self) -> int:
        """How many outcomes the chance node to draw now has (0: chance is done)."""
        spec = self.spec
        cards = full_deck(spec.kozyr_game, spec.players, spec.options)
        if self.deal is None:
            return spec.deals
        if self.dealer is None:
            return spec.players
        if len(self.deck) < len(cards):
            return len(cards) - len(self.deck)
        if spec.kozyr_game == "durak-dice" and sum(self.rolls) < len(cards):
            return 6
        return 0

    def current_player(self) -> int:
        """The chance player while the deal is drawn, the seat to act, or terminal."""
        if self.table is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.table.to_act
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None
        code = self.table.code
        return sorted(code.action_of(c) for c in self.table.legal(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node to draw now, uniformly."""
        count = self._chance_count()
        return [(k, 1.0 / count) for k in range(count)]

    def _apply_action(self, action: int) -> None:
        if self.table is not None:
            self.table.step(int(action))
            return
        spec, k = self.spec, int(action)
        if self.deal is None:
            self.deal = k
        elif self.dealer is None:
            self.dealer = k
        elif len(self.deck) < len(cards := full_deck(spec.kozyr_game, spec.players, spec.options)):
            self.deck.append([c for c in cards if c not in self.deck][k])
        else:
            self.rolls.append(k + 1)
        if self._chance_count() == 0:
            setup = Setup(
                self.dealer, (tuple(self.deck),), (tuple(self.rolls),) if self.rolls else ()
            )
            seed = match_seed(spec.master, self.deal or 0)
            self.table = Table(spec.kozyr_game, spec.players, spec.options, seed, setup=setup)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Chance:{action}"
        command = encoding(self.spec.kozyr_game).command_of(action)
        return dumps(encode(command))

    def is_terminal(self) -> bool:
        """True once the match is over."""
        return self.table is not None and self.table.to_act is None

    def returns(self) -> list[float]:
        """+1 winner, -1 the others, 0 a shared result (0s until the end)."""
        if self.table is None:
            return [0.0] * self.spec.players
        return self.table.rewards()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state the player cannot tell from this one (its unseen cards placed at random)."""
        assert self.table is not None
        rng = random.Random(int(probability_sampler() * 2**32))
        info = seat_info(self.table.game, player_id)
        info.update(self.table.histories[player_id])
        out = self.clone()
        out.table.state = info.sample(rng)
        return out

    def __str__(self) -> str:
        if self.table is None:
            return f"(dealing: {len(self.deck)} cards, {len(self.rolls)} rolls drawn)"
        return f"deal {self.deal}, {len(self.table.events)} events"


class SeatObserver:
    """OpenSpiel's PyObserver: the view encoding as the tensor; the history or view as text."""

    def __init__(self, game: str, recall: bool) -> None:
        self.recall = recall
        self.code = encoding(game)
        self.tensor = np.zeros(self.code.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KozyrSpielState, player: int) -> None:
        """Fill the tensor from the player's view."""
        if state.table is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = state.table.observe(player)

    def string_from(self, state: KozyrSpielState, player: int) -> str:
        """The player's redacted history (information state) or its view (observation)."""
        if state.table is None:
            return f"seat {player}: before the deal"
        if self.recall:
            return f"seat {player}: " + dumps([encode(e) for e in state.table.histories[player]])
        return f"seat {player}: " + state.table.view_json(player)


def ismcts_bot(game: KozyrSpielGame, simulations: int, seed: int) -> Any:
    """OpenSpiel's Python ISMCTS bot for a Kozyr game, ready for `evaluate_bots`.

    Legal actions differ between sampled worlds (other hands), hence inconsistent action sets;
    `restart_at` starts a fresh search tree (the bot keeps nothing between decisions anyway).
    """
    from open_spiel.python.algorithms import ismcts, mcts

    class KozyrISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
        def restart_at(self, state: Any) -> None:
            self.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    return KozyrISMCTS(
        game,
        evaluator,
        1.4,
        simulations,
        random_state=rng,
        allow_inconsistent_action_sets=True,
    )


class KozyrDix(KozyrSpielGame):
    """``kozyr_dix``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, "kozyr_dix")


class KozyrSixDozens(KozyrSpielGame):
    """``kozyr_six_dozens``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, "kozyr_six_dozens")


class KozyrDurakDice(KozyrSpielGame):
    """``kozyr_durak_dice``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, "kozyr_durak_dice")


# Registered as classes, like OpenSpiel's own Python games: the registry keeps them until exit.
for _short, _cls in (
    ("kozyr_dix", KozyrDix),
    ("kozyr_six_dozens", KozyrSixDozens),
    ("kozyr_durak_dice", KozyrDurakDice),
):
    pyspiel.register_game(_game_type(_short), _cls)
