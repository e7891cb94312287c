"""The games in OpenSpiel: random and ISMCTS bots play whole matches through pyspiel's
evaluate_bots, and the deal and actions of a pyspiel match give the same outcome when folded
by Kozyr's own rules."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots import uniform_random

from kozyr.bots.encodings import encoding
from kozyr.core.jsontext import dumps, loads
from kozyr.envs.spiel import GAMES, ismcts_bot
from kozyr.envs.table import full_deck, match_seed, rewards_of
from kozyr.games import fold, get_game
from kozyr.games.contract import Setup

TABLES = [
    ("kozyr_dix", {"options": dumps({"single_hand": True})}),
    ("kozyr_six_dozens", {"players": 3, "options": dumps({"max_hands": 1})}),
    ("kozyr_durak_dice", {"players": 3}),
]


def kozyr_fold(short: str, params: dict[str, object], history: list[int]) -> list[float]:
    """The returns Kozyr's rules give the pyspiel history: the chance outcomes (the seed, the
    first dealer, each card of the deck in turn, Durak's die rolls) as the first hand's
    prearranged setup, then the seats' actions."""
    name = GAMES[short]
    game = get_game(name)
    players = int(params.get("players", game.MIN_PLAYERS))  # type: ignore[call-overload]
    options = loads(str(params.get("options", "{}")))
    config = game.make_config(options, players)
    cards = list(full_deck(name, players, options))
    seed, dealer, rest = history[0], history[1], iter(history[2:])
    deck = [cards.pop(next(rest)) for _ in range(len(cards))]
    rolls: list[int] = []
    while name == "durak-dice" and sum(rolls) < len(deck):
        rolls.append(next(rest) + 1)
    setup = Setup(dealer, (tuple(deck),), (tuple(rolls),) if rolls else ())
    names = [f"seat{s}" for s in range(players)]
    events = list(game.start(config, names, match_seed(0, seed), setup))
    code = encoding(name)
    state = fold(game, events)
    for action in rest:
        seat = game.to_act(state)
        new = game.decide(state, seat, code.command_of(action))
        events.extend(new)
        state = fold(game, new, state)
    final = fold(game, events)  # from scratch: the log alone decides
    assert events[0].decks[0] == tuple(deck)  # the deal is the chance nodes'
    return rewards_of(game.outcome(final), players)


@pytest.mark.parametrize(("short", "params"), TABLES)
def test_random_bots_play_and_kozyr_folds_the_same_outcome(
    short: str, params: dict[str, object]
) -> None:
    game = pyspiel.load_game(short, params)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    for seed in range(3):
        rng = np.random.RandomState(seed)
        bots = [uniform_random.UniformRandomBot(p, rng) for p in range(game.num_players())]
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, rng)
        assert state.is_terminal()
        assert list(returns) == kozyr_fold(short, params, state.history())


@pytest.mark.parametrize(("short", "params"), TABLES)
def test_ismcts_plays_a_match(short: str, params: dict[str, object]) -> None:
    game = pyspiel.load_game(short, params)
    rng = np.random.RandomState(4)
    bots = [uniform_random.UniformRandomBot(p, rng) for p in range(game.num_players())]
    bots[0] = ismcts_bot(game, 4, seed=4)
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rng)
    assert list(returns) == kozyr_fold(short, params, state.history())


def test_information_states_hold_only_what_the_seat_saw() -> None:
    game = pyspiel.load_game("kozyr_dix", {"options": dumps({"single_hand": True})})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 1000
    state.apply_action(17)
    counts = []
    while state.is_chance_node():  # the dealer, then each card of the 53 in turn
        counts.append(len(state.chance_outcomes()))
        state.apply_action(len(counts) % counts[-1])
    assert counts == [2, *range(53, 0, -1)]
    seat = state.current_player()
    other = 1 - seat
    hidden = {c.code for c in get_game("dix").zones(state.table.state)[f"hand{other}"]}
    text = state.information_state_string(seat)
    assert not any(f'"{code}"' in text for code in hidden)
    tensor = state.information_state_tensor(seat)
    assert len(tensor) == encoding("dix").size == game.information_state_tensor_size()
    # A resampled world keeps the seat's information state and hand, and may change the rest.
    sample = state.resample_from_infostate(seat, lambda: 0.25)
    assert sample.information_state_string(seat) == text
    assert sample.information_state_tensor(seat) == tensor
    assert sample.legal_actions() == state.legal_actions()
