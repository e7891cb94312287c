"""Scheduling: every rotation or permutation is played the right number of times."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from kozyr.games import GAMES, fold
from kozyr.tournament.schedule import bot_seed, deal_seed, master_key, schedule


@pytest.mark.parametrize("players", [2, 3, 4])
def test_duplicate_plays_each_deal_once_per_rotation(players: int) -> None:
    fixtures = schedule("duplicate", players, players, 10 * players)
    assert len(fixtures) == 10 * players
    assert [f.index for f in fixtures] == list(range(len(fixtures)))
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for f in fixtures:
        by_deal.setdefault(f.deal, []).append(f.lineup)
    assert sorted(by_deal) == list(range(10))
    for lineups in by_deal.values():
        assert len(lineups) == players
        # Each player sits in each seat exactly once per deal: a Latin square.
        for seat in range(players):
            assert sorted(lineup[seat] for lineup in lineups) == list(range(players))
        assert lineups[0] == tuple(range(players))


def test_duplicate_rounds_up_to_whole_deals() -> None:
    fixtures = schedule("duplicate", 3, 3, 10)
    assert len(fixtures) == 12
    assert Counter(f.deal for f in fixtures) == {0: 3, 1: 3, 2: 3, 3: 3}


def test_duplicate_with_fewer_seats_cycles_through_every_group() -> None:
    fixtures = schedule("duplicate", 4, 2, 20)
    groups = list(itertools.combinations(range(4), 2))
    assert len(fixtures) == 24  # 6 groups x 2 rotations, two rounds
    seen = Counter(tuple(sorted(f.lineup)) for f in fixtures)
    assert seen == dict.fromkeys(groups, 4)
    seats = Counter((f.lineup[0], f.lineup[1]) for f in fixtures)
    assert set(seats.values()) == {2}  # every ordered pair equally often


@pytest.mark.parametrize(("players", "seats"), [(2, 2), (3, 3), (4, 2), (4, 3)])
def test_round_robin_plays_every_seat_permutation_equally_often(players: int, seats: int) -> None:
    perms = list(itertools.permutations(range(players), seats))
    fixtures = schedule("round-robin", players, seats, 2 * len(perms) - 1)
    assert len(fixtures) == 2 * len(perms)
    assert Counter(f.lineup for f in fixtures) == dict.fromkeys(perms, 2)
    assert len({f.deal for f in fixtures}) == len(fixtures)  # a new deal every match


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("swiss", 2, 2, 10), "unknown format"),
        (("duplicate", 2, 3, 10), "cannot seat"),
        (("duplicate", 2, 2, 0), "at least one"),
    ],
)
def test_bad_schedules_are_refused(args: tuple[str, int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schedule(*args)


def test_a_duplicate_deal_is_the_same_cards_and_dice_in_every_seating() -> None:
    # Same match seed => the same first dealer, decks and die rolls by seat; only the players
    # move. (Checked on Durak, where the dice are dealt from the seed too.)
    game = GAMES["durak-dice"]
    master = master_key(7)
    fixtures = [f for f in schedule("duplicate", 3, 3, 6) if f.deal == 1]
    deals = []
    for f in fixtures:
        names = [f"p{p}" for p in f.lineup]
        state = fold(game, game.start(game.make_config({}, 3), names, deal_seed(master, f.deal)))
        deals.append((game.zones(state), game.view(state, None).rolls))
    assert deals[0] == deals[1] == deals[2]
    assert deal_seed(master, 1) != deal_seed(master, 2)
    assert deal_seed(master, 1) != deal_seed(master_key(8), 1)


def test_bot_seeds_differ_by_match_and_seat() -> None:
    master = master_key("x")
    seeds = {bot_seed(master, i, s) for i in range(20) for s in range(4)}
    assert len(seeds) == 80
    assert bot_seed(master, 3, 1) == bot_seed(master_key("x"), 3, 1)
