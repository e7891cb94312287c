"""The games' early endings: each forfeit rule and each default decision (docs/rules.md)."""

from __future__ import annotations

from typing import Any

import pytest

from kozyr.core.fairness import RandomStream
from kozyr.games import GAMES, Game, fold
from kozyr.games import durak_dice as D
from kozyr.games import six_dozens as S
from tests.games.helpers import new_match


def midgame(game: Game, players: int, seed: int, steps: int) -> Any:
    """A running state after up to `steps` random legal commands."""
    state, _ = new_match(game, players, seed.to_bytes(4, "big"))
    stream = RandomStream(b"x" * 4, f"p{seed}")
    for _ in range(steps):
        seat = game.to_act(state)
        legal = game.legal_commands(state, seat)
        after = fold(game, game.decide(state, seat, legal[stream.randbelow(len(legal))]), state)
        if game.to_act(after) is None:
            break
        state = after
    assert game.to_act(state) is not None
    return state


@pytest.mark.parametrize("seat", [0, 1])
def test_DIX_10_the_seat_that_forfeits_loses_and_the_totals_stand(seat: int) -> None:
    game = GAMES["dix"]
    state = midgame(game, 2, 3, 150)
    outcome = game.forfeit(state, seat)
    assert outcome.winners == (1 - seat,)
    assert outcome.scores == state.totals
    assert "DIX-10" in outcome.reason


@pytest.mark.parametrize("players", [2, 3, 4])
def test_SIX_14_the_seat_that_forfeits_is_ruined_and_the_highest_other_capital_wins(
    players: int,
) -> None:
    state = midgame(S, players, players, 60)
    for seat in range(players):
        outcome = S.forfeit(state, seat)
        capitals = outcome.scores
        assert capitals[seat] <= 0 and seat not in outcome.winners
        best = max(c for s, c in enumerate(capitals) if s != seat)
        assert outcome.winners == tuple(
            s for s, c in enumerate(capitals) if s != seat and c == best
        )
        assert [c for s, c in enumerate(capitals) if s != seat] == [
            c for s, c in enumerate(state.table.capitals) if s != seat
        ]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_DUR_11_the_seat_that_forfeits_is_the_fool_and_the_fewest_other_fools_win(
    players: int,
) -> None:
    state = midgame(D, players, players, 20)
    for seat in range(players):
        outcome = D.forfeit(state, seat)
        assert outcome.scores[seat] == state.fools[seat] + 1
        assert seat not in outcome.winners
        least = min(f for s, f in enumerate(outcome.scores) if s != seat)
        assert outcome.winners == tuple(
            s for s, f in enumerate(outcome.scores) if s != seat and f == least
        )


def order(command: Any) -> tuple[int, int]:
    card = command.card
    return int(card.rank), -1 if card.suit is None else int(card.suit)


@pytest.mark.parametrize("name", ["dix", "six-dozens"])
def test_DIX_11_SIX_15_the_default_decision_is_the_lowest_legal_card(name: str) -> None:
    game = GAMES[name]
    for seed in range(6):
        state = midgame(game, 2 if name == "dix" else 4, seed, 7 * seed)
        seat = game.to_act(state)
        chosen = game.default_decision(state, seat)
        legal = game.legal_commands(state, seat)
        assert chosen in legal
        assert order(chosen) == min(order(c) for c in legal)


def test_DUR_12_a_defender_takes_a_throw_in_passes_an_opening_attack_plays_low() -> None:
    seen = set()
    for seed in range(40):
        state = midgame(D, 3, seed, seed % 13)
        seat = D.to_act(state)
        legal = D.legal_commands(state, seat)
        chosen = D.default_decision(state, seat)
        assert chosen in legal
        if any(isinstance(c, D.Take) for c in legal):
            assert isinstance(chosen, D.Take)
            seen.add("take")
        elif any(isinstance(c, D.Pass) for c in legal):
            assert isinstance(chosen, D.Pass)
            seen.add("pass")
        else:
            trump = state.g.trump
            non_trumps = [c for c in legal if c.card.suit != trump]
            pool = non_trumps or legal
            assert chosen.card.rank == min(c.card.rank for c in pool)
            assert (chosen.card.suit == trump) == (not non_trumps)
            seen.add("open")
    assert seen == {"take", "pass", "open"}
