"""The parts of the Game contract every game shares: setup checks, option ranges, rule IDs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kozyr.core.cards import deck
from kozyr.games import GAMES, IllegalMove, InvalidOptions, Setup
from tests.games.conftest import RULE_IDS, unknown_rules

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
DECK = {"dix": 53, "six-dozens": 36, "durak-dice": 36}


def test_rule_ids_are_those_of_the_rules_text() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in (root / "docs" / "rules.md", root.parent / "shared" / "RULES.md"):
        if path.exists():
            # RULES.md writes **DIX-4**, docs/rules.md a heading "### DIX-4 — …".
            found = set(
                re.findall(
                    r"(?:\*\*|^### )((?:R|DIX|SIX|DUR)-\d+)\b", path.read_text(), re.MULTILINE
                )
            )
            assert found == RULE_IDS, path
            return
    pytest.skip("no rules text in reach")


def test_the_refusal_check_sees_refusals_and_flags_a_missing_rule(
    refusals_name_their_rule: list[IllegalMove | InvalidOptions],
) -> None:
    game = GAMES["dix"]
    state = None
    for event in game.start(game.make_config({}, 2), ["a", "b"], b"s"):
        state = game.evolve(state, event)
    idle = 1 - game.to_act(state)
    with pytest.raises(IllegalMove):
        game.decide(state, idle, game.legal_commands(state, 1 - idle)[0])
    assert [r.rule for r in refusals_name_their_rule] == ["DIX-4"]
    ruleless = IllegalMove("X", "no rule")
    refusals_name_their_rule.clear()  # this one is built on purpose
    assert unknown_rules([ruleless]) == ["IllegalMove('X', rule='')"]


def _refusals(name: str, players: int, setup: Setup, **options: object) -> tuple[str, str]:
    """The (code, rule) of the setup refused by check_setup, which start must refuse alike."""
    game = GAMES[name]
    config = game.make_config(options, PLAYERS[name])
    with pytest.raises(InvalidOptions) as checked:
        game.check_setup(config, players, setup)
    with pytest.raises(InvalidOptions) as started:
        game.start(config, [f"p{i}" for i in range(players)], b"\0" * 32, setup)
    got = (checked.value.code, checked.value.rule)
    assert (started.value.code, started.value.rule) == got
    return got


@pytest.mark.parametrize("name", sorted(GAMES))
def test_check_setup_refuses_what_start_refuses_with_a_precise_code(name: str) -> None:
    game = GAMES[name]
    n, cards = PLAYERS[name], deck(DECK[name])
    assert _refusals(name, game.MAX_PLAYERS + 1, Setup()) == ("BAD_PLAYER_COUNT", "R-6")
    assert _refusals(name, game.MIN_PLAYERS - 1, Setup()) == ("BAD_PLAYER_COUNT", "R-6")
    assert _refusals(name, n, Setup(first_dealer=n)) == ("BAD_FIRST_DEALER", "R-2")
    assert _refusals(name, n, Setup(first_dealer=-1)) == ("BAD_FIRST_DEALER", "R-2")
    other = deck(52 if len(cards) != 52 else 36)  # a whole deck, but not this game's
    for bad in (cards[:-1], (*cards[:-1], cards[0]), (*cards, cards[0]), other):
        assert _refusals(name, n, Setup(decks=(cards, bad))) == ("BAD_DECK", "R-3")
    if name == "durak-dice":
        assert _refusals(name, n, Setup(dice=((1, 7),))) == ("BAD_DICE", "R-3")
        assert _refusals(name, n, Setup(dice=((0,),))) == ("BAD_DICE", "R-3")
    else:
        assert _refusals(name, n, Setup(dice=((1, 2),))) == ("BAD_SETUP", "R-3")
    # A good setup passes and changes nothing.
    config = game.make_config({}, n)
    good = Setup(first_dealer=n - 1, decks=(cards,))
    assert game.check_setup(config, n, good) is None


def test_six_dozens_personal_trumps_need_one_suit_per_player() -> None:
    game = GAMES["six-dozens"]
    config = game.make_config({}, 3)  # PERSONAL: three suits
    with pytest.raises(InvalidOptions) as info:
        game.check_setup(config, 4, Setup())
    assert (info.value.code, info.value.rule) == ("BAD_OPTION_VALUE", "SIX-4")


@pytest.mark.parametrize(
    ("name", "option", "top", "rule"),
    [
        ("dix", "target", 10_000, "DIX-9"),
        ("dix", "max_hands", 1_000, "R-5"),
        ("six-dozens", "max_hands", 10_000, "R-5"),
        ("durak-dice", "games", 1_000, "DUR-10"),
        ("durak-dice", "max_bouts", 100_000, "R-5"),
        ("durak-dice", "max_attacks", 52, "DUR-7"),
    ],
)
def test_int_options_are_range_checked(name: str, option: str, top: int, rule: str) -> None:
    game = GAMES[name]
    n = PLAYERS[name]
    assert getattr(game.make_config({option: top}, n), option) == top
    assert getattr(game.make_config({option: str(top)}, n), option) == top
    for bad in (top + 1, 10**30, 3 * 10**9, str(10**30)):
        with pytest.raises(InvalidOptions) as info:
            game.make_config({option: bad}, n)
        assert (info.value.code, info.value.rule) == ("BAD_OPTION_VALUE", rule)
        assert f"at most {top}" in info.value.message
    spec = next(s for s in game.OPTIONS if s.name == option)
    assert spec.maximum == top and spec.rule == rule


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_int_option_has_a_maximum_inside_int32(name: str) -> None:
    for spec in GAMES[name].OPTIONS:
        if spec.kind == "int" and not spec.choices:
            assert spec.maximum is not None and spec.maximum < 2**31, spec.name
        assert spec.rule in RULE_IDS, spec.name
