"""Invariants every game keeps, checked over random seeds, options and player counts.

- random legal play always reaches an outcome within a stated bound (R-5);
- decide accepts a command exactly when it is among legal_commands;
- an illegal command raises IllegalMove and changes nothing;
- every card is in exactly one place at every step;
- folding all (serialized and read back) events from the start equals the state reached step by
  step;
- a seat's view does not change when cards it cannot see are swapped; a spectator sees no hand.
"""

from __future__ import annotations

import json
import pickle
import typing
from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kozyr.core import jsontext
from kozyr.core.cards import deck
from kozyr.core.fairness import RandomStream
from kozyr.games import GAMES, Game, IllegalMove, InvalidOptions, fold
from kozyr.games.codec import Registry, decode_as, encode
from kozyr.games.contract import OptionSpec
from tests.games.helpers import all_commands, new_match, random_playout

GAME_NAMES = sorted(GAMES)

# Guard options drawn small so that hypothesis also reaches the guard endings.
SMALL_INTS = {
    "target": (1, 60),
    "max_hands": (1, 4),
    "games": (1, 3),
    "max_attacks": (0, 6),
    "max_bouts": (1, 60),
}


def option_values(spec: OptionSpec) -> st.SearchStrategy[object]:
    """Values of one option: its choices, a small range for numbers, or the default."""
    if spec.choices:
        return st.sampled_from(spec.choices)
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "int":
        low, high = SMALL_INTS.get(spec.name, (spec.minimum or 0, (spec.minimum or 0) + 5))
        return st.one_of(st.just(spec.default), st.integers(low, high))
    if spec.kind == "suits":
        return st.one_of(
            st.none(),
            st.permutations("SHDC").flatmap(
                lambda p: st.integers(1, 4).map(lambda n: "".join(p[:n]))
            ),
        )
    raise AssertionError(spec.kind)


@st.composite
def matches(draw: st.DrawFn, name: str) -> tuple[Game, int, dict[str, object], bytes]:
    """A game, a player count, valid options and a seed."""
    game = GAMES[name]
    players = draw(st.integers(game.MIN_PLAYERS, game.MAX_PLAYERS))
    options = {s.name: v for s in game.OPTIONS if (v := draw(option_values(s))) is not None}
    try:
        game.make_config(options, players)
    except InvalidOptions:
        assume(False)
    return game, players, options, draw(st.binary(min_size=1, max_size=16))


def step_bound(game: Game, config: Any) -> int:
    """The most seat decisions a match can take, from its guard options (R-5)."""
    if game.NAME == "dix":
        return int(config.max_hands) * 26 * 2
    if game.NAME == "six-dozens":
        return int(config.max_hands) * int(config.deck)
    # Durak: a bout holds at most deck attack+beat cards plus a take or a pass per thrower.
    return int(config.games) * int(config.max_bouts) * (2 * int(config.deck) + 8)


def hidden_cards_ok(game: Game, state: Any) -> None:
    zones = game.zones(state)
    seen = Counter(c for cards in zones.values() for c in cards)
    size = state_deck_size(game, state)
    assert sorted(seen) == sorted(deck(size)), "cards are not conserved"
    assert all(n == 1 for n in seen.values()), "a card is in two places"


def state_deck_size(game: Game, state: Any) -> int:
    return sum(len(cards) for cards in game.zones(state).values())


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_play_ends_and_keeps_invariants(name: str) -> None:
    @settings(max_examples=25)
    @given(matches(name))
    def run(match: tuple[Game, int, dict[str, object], bytes]) -> None:
        game, players, options, seed = match
        state, events = new_match(game, players, seed, options)
        size = len(Counter(c for cs in game.zones(state).values() for c in cs))
        assert sorted(c for cs in game.zones(state).values() for c in cs) == sorted(deck(size))
        bound = step_bound(game, state.config)
        for before, _seat, _command, new in random_playout(
            game, state, RandomStream(seed, "moves"), bound
        ):
            events.extend(new)
            state = fold(game, new, before)
            hidden_cards_ok(game, state)
        outcome = game.outcome(state)
        assert outcome is not None and outcome.winners
        assert game.to_act(state) is None
        for seat in range(players):
            assert game.legal_commands(state, seat) == ()
        # The whole log, serialized to JSON and read back, folds to the same state.
        registry = Registry(game.EVENT_TYPES)
        decoded = [registry.decode(json.loads(json.dumps(encode(e)))) for e in events]
        assert decoded == events
        assert fold(game, decoded) == state

    run()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_decide_accepts_exactly_the_legal_commands(name: str) -> None:
    """Every command of every type from every seat: legal ones decide, the rest raise."""

    @settings(max_examples=8)
    @given(matches(name))
    def run(match: tuple[Game, int, dict[str, object], bytes]) -> None:
        game, players, options, seed = match
        state, _ = new_match(game, players, seed, options)
        universe = all_commands(game)
        stream = RandomStream(seed, "probe")
        for before, *_ in random_playout(
            game, state, RandomStream(seed, "moves"), step_bound(game, before_config(game, state))
        ):
            if stream.randbelow(4):  # probe a quarter of the steps: the check is costly
                continue
            frozen = pickle.dumps(before)
            for seat in range(players):
                legal = set(game.legal_commands(before, seat))
                for command in universe:
                    if command in legal:
                        game.decide(before, seat, command)
                    else:
                        with pytest.raises(IllegalMove) as info:
                            game.decide(before, seat, command)
                        assert info.value.code and info.value.message
            assert pickle.dumps(before) == frozen, "a refused command changed the state"

    run()


def before_config(game: Game, state: Any) -> Any:
    return state.config


@pytest.mark.parametrize("name", GAME_NAMES)
def test_views_hide_what_a_seat_cannot_see(name: str) -> None:
    """Swapping two cards a viewer cannot see leaves its view unchanged; spectators see no hand."""

    @settings(max_examples=10)
    @given(matches(name))
    def run(match: tuple[Game, int, dict[str, object], bytes]) -> None:
        game, players, options, seed = match
        stream = RandomStream(seed, "swap")
        for s in sampled_states(game, players, options, seed):
            for viewer in [*range(players), None]:
                swapped = swap_hidden(game, s, viewer, stream)
                if swapped is not None:
                    assert game.view(swapped, viewer) == game.view(s, viewer)
            spectator = game.view(s, None)
            assert spectator.hand == ()
            visible = public_cards(game, s)
            assert cards_in(encode(spectator)) <= visible

    run()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_zones_left_out_of_with_zones_keep_their_cards(name: str) -> None:
    """Placing only some zones is placing all of them with the others as they were."""

    @settings(max_examples=10)
    @given(matches(name))
    def run(match: tuple[Game, int, dict[str, object], bytes]) -> None:
        game, players, options, seed = match
        stream = RandomStream(seed, "swap")
        for s in sampled_states(game, players, options, seed):
            assert game.with_zones(s, {}) == s
            for viewer in range(players):
                swapped = swap_hidden(game, s, viewer, stream)
                if swapped is None:
                    continue
                whole = game.zones(swapped)
                some = {k: whole[k] for k in game.hidden_zones(s, viewer) if k in whole}
                assert game.with_zones(s, some) == swapped

    run()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_views_decode_back_from_their_json(name: str) -> None:
    """A seat's view read back from the JSON a PlaySession sends (game_view_json) is the
    view itself, for every seat and spectator; the decoder refuses a view with a field
    missing or a pair of the wrong length."""

    @settings(max_examples=10)
    @given(matches(name))
    def run(match: tuple[Game, int, dict[str, object], bytes]) -> None:
        game, players, options, seed = match
        view_type = typing.get_type_hints(game.view)["return"]
        for s in sampled_states(game, players, options, seed):
            for viewer in [*range(players), None]:
                view = game.view(s, viewer)
                data = json.loads(jsontext.dumps(encode(view)))
                assert decode_as(view_type, data) == view
        with pytest.raises(ValueError, match="missing field 'hand'"):
            decode_as(view_type, {k: v for k, v in data.items() if k != "hand"})
        pairs = [
            k for k, hint in typing.get_type_hints(view_type).items() if hint == tuple[int, int]
        ]
        for k in pairs:
            with pytest.raises(ValueError, match="expected 2 values"):
                decode_as(view_type, {**data, k: [*data[k], 0]})

    run()


def sampled_states(game: Game, players: int, options: dict[str, object], seed: bytes) -> list[Any]:
    """About a dozen states spread over a random playout of a new match, its start first."""
    state, _ = new_match(game, players, seed, options)
    states = [state] + [
        s
        for s, *_ in random_playout(
            game, state, RandomStream(seed, "moves"), step_bound(game, state.config)
        )
    ]
    return states[:: max(1, len(states) // 12)]


def swap_hidden(game: Game, state: Any, viewer: int | None, stream: RandomStream) -> Any:
    """The state with two hidden cards (from different hidden zones) exchanged, or None."""
    zones = {k: list(v) for k, v in game.zones(state).items()}
    hidden = [k for k in game.hidden_zones(state, viewer) if zones.get(k)]
    if len(hidden) < 2:
        return None
    a = hidden[stream.randbelow(len(hidden))]
    b = hidden[stream.randbelow(len(hidden))]
    if a == b:
        b = hidden[(hidden.index(a) + 1) % len(hidden)]
    i, j = stream.randbelow(len(zones[a])), stream.randbelow(len(zones[b]))
    zones[a][i], zones[b][j] = zones[b][j], zones[a][i]
    return game.with_zones(state, {k: tuple(v) for k, v in zones.items()})


def public_cards(game: Game, state: Any) -> set[str]:
    hidden = set(game.hidden_zones(state, None))
    return {c.code for k, cs in game.zones(state).items() if k not in hidden for c in cs}


def cards_in(data: Any) -> set[str]:
    """Every card code that appears anywhere in encoded data."""
    codes = {c.code for c in deck(53)}
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x in codes:
                found.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data)
    return found


def test_every_game_is_registered_with_its_contract() -> None:
    assert set(GAMES) == {"dix", "six-dozens", "durak-dice"}
    for game in GAMES.values():
        assert game.MIN_PLAYERS <= game.MAX_PLAYERS
        assert all(isinstance(s, OptionSpec) for s in game.OPTIONS)
        assert game.COMMAND_TYPES and game.EVENT_TYPES
        assert {"max_hands", "max_bouts"} & {s.name for s in game.OPTIONS}  # a guard
