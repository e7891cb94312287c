"""The encodings: a fixed size per game whatever the table, actions that round-trip, and no
card a seat may not see, at every decision of whole matches."""

from __future__ import annotations

import random

import pytest

from kozyr.bots import make_bot
from kozyr.bots.encodings import ENCODINGS, encoding
from kozyr.envs.table import Table, match_seed
from kozyr.games import get_game
from tests.envs.leaks import check_observation, forbidden

TABLES = [
    ("dix", 2, {"single_hand": True}),
    ("dix", 2, {"target": 20, "first_lead": "DEALER"}),
    ("six-dozens", 2, {"max_hands": 2}),
    ("six-dozens", 4, {"max_hands": 1, "trumps": "NONE", "deck": 28}),
    ("durak-dice", 2, {}),
    ("durak-dice", 6, {"deck": 52}),
]


@pytest.mark.parametrize(("name", "players", "options"), TABLES)
def test_whole_matches_fixed_size_legal_masks_and_no_leak(
    name: str, players: int, options: dict[str, object]
) -> None:
    code = encoding(name)
    for deal in range(2):
        table = Table(name, players, options, match_seed(7, deal))
        game = table.game
        bots = [make_bot("random", game, s, deal * 10 + s) for s in range(players)]
        decisions = hidden = 0
        while (seat := table.to_act) is not None:
            obs = table.observe(seat)
            assert len(obs) == code.size
            assert all(-1.0 <= x <= 1.0 for x in obs)
            mask = table.mask(seat)
            legal = table.legal(seat)
            assert sum(mask) == len(legal)
            assert [code.command_of(code.action_of(c)) for c in legal] == list(legal)
            cards = forbidden(game, table.state, seat, table.histories[seat])
            check_observation(game, obs, table.view_json(seat), cards)
            hidden += len(cards)
            table.play(seat, bots[seat].choose(table.seat_obs(seat)))
            decisions += 1
        assert decisions > 0 and hidden > 0
        assert table.outcome is not None
        winners = set(table.outcome.winners)
        rewards = table.rewards()
        if len(winners) == players:
            assert rewards == [0.0] * players
        else:
            assert [s for s, r in enumerate(rewards) if r == 1.0] == sorted(winners)
            assert sum(r == -1.0 for r in rewards) == players - len(winners)


def test_a_hidden_card_changes_nothing_in_the_observation() -> None:
    """Swapping the other seat's hand for other unseen cards leaves seat 0's encoding as is."""
    table = Table("dix", 2, {"single_hand": True}, match_seed(3, 0))
    game = get_game("dix")
    zones = game.zones(table.state)
    other, stock = zones["hand1"], zones["stock"]
    mixed = list(other + stock)
    random.Random(1).shuffle(mixed)
    swapped = game.with_zones(
        table.state, {"hand1": tuple(mixed[: len(other)]), "stock": tuple(mixed[len(other) :])}
    )
    assert game.view(swapped, 1) != game.view(table.state, 1)
    assert encoding("dix").observe(game.view(swapped, 0)) == table.observe(0)


def test_sizes_are_documented() -> None:
    with open("docs/agents.md", encoding="utf-8") as f:
        text = f.read()
    for name, code in ENCODINGS.items():
        assert f"`{name}`: {code.size} numbers, {code.actions} actions" in text
        for field, size in code.fields():
            assert f"| `{field}` | {size} |" in text, (name, field)
