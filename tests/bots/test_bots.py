"""The bots: specs, legal play to the end of every game, repeatable search, rules of thumb."""

from __future__ import annotations

from typing import Any

import pytest

from kozyr.bots import BadBotSpec, BotSpec, make_bot, parse_players, parse_spec
from kozyr.bots.heuristic.durak_dice import worth
from kozyr.bots.ismcts import ISMCTSBot
from kozyr.core.cards import Rank, parse_cards
from kozyr.games import GAMES, dix, durak_dice, six_dozens
from kozyr.games.contract import Setup
from tests.bots.helpers import Table, random_decisions

# ---------------------------------------------------------------------------- specs


def test_player_list_splits_on_commas_but_keeps_options_together() -> None:
    assert [s.text for s in parse_players("ismcts:iters=50,ismcts:iters=200")] == [
        "ismcts:iters=50",
        "ismcts:iters=200",
    ]
    specs = parse_players(" heuristic , ismcts:iters=50,c=0.5,random")
    assert specs == [
        BotSpec("heuristic"),
        BotSpec("ismcts", (("iters", "50"), ("c", "0.5"))),
        BotSpec("random"),
    ]
    assert parse_spec("ISMCTS:ms=50").text == "ismcts:ms=50"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("minimax", "unknown bot"),
        ("ismcts", "exactly one budget"),
        ("ismcts:iters=10,ms=5", "exactly one budget"),
        ("ismcts:iters=0", "positive"),
        ("ismcts:iters=ten", "not a int"),
        ("ismcts:depth=3", "no option 'depth'"),
        ("ismcts:iters=10,rollout=smart", "rollout"),
        ("random:x", "key=value"),
        ("heuristic:speed=1", "no option"),
    ],
)
def test_bad_specs_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BadBotSpec, match=message):
        make_bot(text, GAMES["dix"], 0, seed=1)


def test_an_empty_player_list_is_refused() -> None:
    with pytest.raises(BadBotSpec):
        parse_players(" , ")


# ---------------------------------------------------------------------------- legal play


@pytest.mark.parametrize(
    ("name", "specs", "options"),
    [
        ("dix", ["heuristic", "ismcts:iters=8"], {"single_hand": "true"}),
        ("dix", ["heuristic", "random"], {"target": "15"}),
        ("six-dozens", ["heuristic", "ismcts:iters=8", "random"], {}),
        (
            "six-dozens",
            ["heuristic", "heuristic", "ismcts:iters=5,rollout=random", "random"],
            {"trumps": "TWO", "max_hands": "2"},
        ),
        ("durak-dice", ["heuristic", "ismcts:iters=8"], {}),
        (
            "durak-dice",
            ["heuristic", "random", "ismcts:iters=5", "heuristic", "random"],
            {"games": "2", "max_attacks": "3"},
        ),
    ],
)
def test_bots_play_legal_moves_to_the_end(
    name: str, specs: list[str], options: dict[str, str]
) -> None:
    game = GAMES[name]
    bots = [make_bot(spec, game, seat, seed=seat) for seat, spec in enumerate(specs)]

    def choose(table: Table, seat: int) -> Any:
        obs = table.observe(seat)
        command = bots[seat].choose(obs)
        assert command in obs.legal
        return command

    steps = sum(1 for _ in random_decisions(game, len(specs), 3, options, choose))
    assert steps > 10


def test_ismcts_with_an_iteration_budget_repeats_itself() -> None:
    game = GAMES["dix"]
    for step, (table, seat) in enumerate(random_decisions(game, 2, 4)):
        obs = table.observe(seat)
        if step < 6 or len(obs.legal) < 3:
            continue
        choices = {make_bot("ismcts:iters=40", game, seat, seed=9).choose(obs) for _ in range(3)}
        assert len(choices) == 1
        return
    pytest.fail("no decision with three options")


def test_ismcts_with_a_time_budget_searches_and_answers() -> None:
    game = GAMES["durak-dice"]
    table, seat = next(random_decisions(game, 2, 5))
    obs = table.observe(seat)
    bot = make_bot("ismcts:ms=20", game, seat, seed=1)
    assert isinstance(bot, ISMCTSBot)
    assert bot.choose(obs) in obs.legal
    assert bot.iterations >= 1


def test_a_single_legal_move_is_played_without_search() -> None:
    game = GAMES["dix"]
    for table, seat in random_decisions(game, 2, 6):
        obs = table.observe(seat)
        if len(obs.legal) == 1:
            bot = make_bot("ismcts:iters=1000", game, seat, seed=0)
            assert bot.choose(obs) == obs.legal[0]
            assert isinstance(bot, ISMCTSBot) and bot.iterations == 0
            return
    pytest.fail("no forced move")


# ---------------------------------------------------------------------------- rules of thumb


def dix_deal(non_dealer: str, dealer: str, turn_up: str) -> tuple[Any, ...]:
    """A Dix deck order giving these hands (13 each) and turn-up; the rest in canonical order."""
    a, b, t = parse_cards(non_dealer), parse_cards(dealer), parse_cards(turn_up)
    used = set(a) | set(b) | set(t)
    rest = [c for c in dix.DECK if c not in used]
    order: list[Any] = []
    for x, y in zip(a, b, strict=True):
        order += [x, y]
    return (*order, *t, *rest)


@pytest.mark.parametrize(
    ("leader", "mine", "best"),
    [
        # Seat 1 (non-dealer) leads 6H; seat 0 holds 4H (loses, 6+4 = ten: -3 for the leader) and
        # 9H (wins +1): the rule of thumb dumps the ten on the leader.
        (
            "6H 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS",
            "4H 9H 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC",
            "4H",
        ),
        # Seat 1 leads 5S; seat 0 may win with 7S, 10S or KS (5+5 would be a ten: no 5S here);
        # 7S is the cheapest winner and makes no ten.
        (
            "5S 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
            "7S 10S KS 2C 3C 4C 5C 6C 7C 8C 9C 10C JC",
            "7S",
        ),
    ],
    ids=["hands_the_leader_a_ten_trick", "wins_cheaply_without_a_ten"],
)
def test_dix_heuristic_answers_the_lead(leader: str, mine: str, best: str) -> None:
    deck = dix_deal(leader, mine, "AD")
    table = Table.start(GAMES["dix"], 2, b"x", setup=Setup(first_dealer=0, decks=(deck,)))
    table.play(dix.Play(parse_cards(leader)[0]))
    assert make_bot("heuristic", GAMES["dix"], 0, 0).choose(table.observe(0)) == dix.Play(
        parse_cards(best)[0]
    )


def test_durak_heuristic_beats_with_the_cheapest_plain_card() -> None:
    game = GAMES["durak-dice"]
    seen = 0
    for seed in range(6):
        for table, seat in random_decisions(game, 3, seed):
            obs = table.observe(seat)
            view = obs.view
            beats = [m for m in obs.legal if isinstance(m, durak_dice.Beat)]
            plain = [m for m in beats if m.card.suit != view.trump]
            if view.phase != "DEFEND" or not plain:
                continue
            choice = make_bot("heuristic", game, seat, 0).choose(obs)
            assert choice == min(plain, key=lambda m: worth(m.card.rank, m.card.suit, view.trump))
            seen += 1
    assert seen > 20


def test_six_dozens_heuristic_keeps_its_eights_while_it_has_another_card() -> None:
    game = GAMES["six-dozens"]
    seen = 0
    for seed in range(6):
        for table, seat in random_decisions(game, 2, seed):
            obs = table.observe(seat)
            cards = [m.card for m in obs.legal]
            if (
                len(cards) < 2
                or not any(c.rank == Rank.EIGHT for c in cards)
                or all(c.rank == Rank.EIGHT for c in cards)
            ):
                continue
            choice = make_bot("heuristic", game, seat, 0).choose(obs)
            assert isinstance(choice, six_dozens.Play) and choice.card.rank != Rank.EIGHT
            seen += 1
    assert seen > 5


def test_heuristics_beat_random_players() -> None:
    # A sanity check of strength on a few matches (the README figures use thousands).
    rng_seeds = range(6)
    for name, options in (("dix", {"single_hand": "true"}), ("durak-dice", {})):
        game = GAMES[name]
        wins = 0.0
        for seed in rng_seeds:
            for heuristic_seat in (0, 1):
                bots = [
                    make_bot("heuristic" if s == heuristic_seat else "random", game, s, seed)
                    for s in (0, 1)
                ]
                table = Table.start(game, 2, f"h{seed}".encode(), options)
                while (seat := table.to_act) is not None:
                    table.play(bots[seat].choose(table.observe(seat)))
                outcome = game.outcome(table.state)
                assert outcome is not None
                if heuristic_seat in outcome.winners:
                    wins += 1 / len(outcome.winners)
        assert wins >= 9, name
