"""Six Dozens' cards (SIX-1 … SIX-5): ranks, deck and hand sizes, the capital and the kitty, the
trump categories and who they beat, the deal.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import deck, parse_card, parse_cards
from kozyr.games import six_dozens as sd
from kozyr.games.contract import InvalidOptions, Setup, fold
from tests.games.six_dozens.scenarios import BLOCKED_2, NONE, legal, new, of

# ------------------------------------------------------------------------------ SIX-1 … 5


def test_SIX_1_ace_is_lowest_and_six_highest() -> None:
    config = sd.make_config(NONE, 2)
    ok = sd.may_play
    ace, ten, king, six, seven = parse_cards("AS 10S KS 6S 7S")
    assert ok(config, 0, ten, ace)  # 10 is one step more senior than A
    assert ok(config, 0, king, ten)
    assert not ok(config, 0, king, ace)  # two steps
    assert not ok(config, 0, ace, ten)  # never back down
    assert ok(config, 0, six, seven)  # 7 → 6
    for bank in parse_cards("AS 10S KS QS JS 9S 8S 7S"):
        assert ok(config, 0, six, bank)  # the 6 beats every card of its suit
    for card in parse_cards("AS 10S KS QS JS 9S 7S"):
        assert not ok(config, 0, card, six)  # nothing but a 6 or an 8 goes on a 6


@pytest.mark.parametrize(("size", "per"), [(36, 8), (32, 7), (28, 6)])
def test_SIX_2_deck_sizes_and_hand_sizes(size: int, per: int) -> None:
    for players, stock in [(2, 5), (3, 4), (4, 3)]:
        _, events = new(players, seed=b"d%d" % size, deck=size, trumps="NONE")
        dealt = of(events, sd.Dealt)[0]
        turned = of(events, sd.BankTurned)[0]
        assert turned.hand_size == per
        assert all(len(h) == per for h in dealt.hands)
        assert len(fold(sd, events[:4]).stock) == turned.stock_count == stock
        assert sorted(dealt.deck) == sorted(deck(size))
        zones = sd.zones(fold(sd, events[:4]))
        assert len(zones["aside"]) == size - players * per - 1 - stock


def test_SIX_2_absent_ranks_do_not_apply() -> None:
    config = sd.make_config({"deck": 28, "trumps": "NONE"}, 2)
    eight = parse_card("8H")
    # With 28 cards nothing lies beyond the 8: only another 8 goes on an 8.
    playable = [c.code for c in deck(28) if c is not eight and sd.may_play(config, 0, c, eight)]
    assert playable == ["8S", "8D", "8C"]


def test_SIX_3_capital_and_kitty_at_the_start() -> None:
    state, _ = new(4, seed=b"c")
    v = sd.view(state, 0)
    assert v.capitals == (72, 72, 72, 72)
    assert v.kitty == 0


def test_SIX_3_each_card_left_costs_6() -> None:
    _, events = new(2, *BLOCKED_2, first_dealer=1, max_hands=1, trumps="NONE")
    settled = of(events, sd.HandSettled)[0]
    assert settled.cards_left == (8, 8)
    assert settled.paid == (48, 48)


def test_SIX_4_categories_for_each_mode() -> None:
    spade, heart, diamond, club = parse_cards("9S 9H 9D 9C")
    cards = (spade, heart, diamond, club)

    def cats(options: dict[str, object], seat: int, players: int = 4) -> list[int]:
        config = sd.make_config(options, players)
        return [sd.category(config, seat, c) for c in cards]

    assert cats({"trumps": "NONE"}, 0) == [0, 0, 0, 0]
    assert cats({"trumps": "ONE"}, 0) == [1, 0, 0, 0]
    assert cats({"trumps": "ONE", "trump_suits": "C"}, 2) == [0, 0, 0, 1]
    assert cats({"trumps": "TWO"}, 1) == [1, 0, 1, 0]
    assert cats({"trumps": "TWO", "trump_suits": "HC"}, 1) == [0, 1, 0, 1]
    assert cats({"trumps": "SENIOR_JUNIOR"}, 3) == [2, 0, 1, 0]
    assert cats({"trumps": "SENIOR_JUNIOR", "trump_suits": "CH"}, 3) == [0, 1, 0, 2]
    # PERSONAL: seat i's own suit only; another player's trump is a plain card.
    assert [cats({}, seat) for seat in range(4)] == [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 1],
    ]
    assert cats({"trump_suits": "DCS"}, 0, 3) == [0, 0, 1, 0]


@pytest.mark.parametrize(
    ("trumps", "suits", "players"),
    [
        ("NONE", "S", 2),
        ("ONE", "SH", 2),
        ("ONE", "", 2),
        ("TWO", "S", 2),
        ("TWO", "SHD", 2),
        ("SENIOR_JUNIOR", "S", 2),
        ("PERSONAL", "SH", 3),
        ("PERSONAL", "SHD", 2),
    ],
)
def test_SIX_4_trump_suits_count_is_checked(trumps: str, suits: str, players: int) -> None:
    with pytest.raises(InvalidOptions) as info:
        sd.make_config({"trumps": trumps, "trump_suits": suits}, players)
    assert info.value.code == "BAD_OPTION_VALUE"
    assert "trump_suits" in info.value.message


def test_SIX_4_trump_suit_defaults() -> None:
    def suits(trumps: str, players: int = 2) -> str:
        return "".join(s.letter for s in sd.make_config({"trumps": trumps}, players).trump_suits)

    assert (
        suits("PERSONAL", 4),
        suits("PERSONAL", 2),
        suits("NONE"),
        suits("ONE"),
        suits("TWO"),
        suits("SENIOR_JUNIOR"),
    ) == ("SHDC", "SH", "", "S", "SD", "SD")
    assert sd.make_config({"trumps": "NONE", "trump_suits": ""}, 2).trump_suits == ()


def test_SIX_4_personal_trump_beats_plain_cards_for_its_owner_only() -> None:
    # Seat 0's trump is ♠, seat 1's ♥. Bank 10H: seat 0 may put any spade on it; seat 1 none.
    state, _ = new(
        2,
        ["KS 9S 9C JC AD 9D QD KH", "QS JS 10S AS QC KC 10C AC"],
        "10H",
        "JD 10D 7D 7H 7C",
        first_dealer=1,
    )
    assert sd.to_act(state) == 0  # KH is the only heart dealt
    assert legal(state) == "9S KS KH"
    config = state.match.config
    bank = parse_card("10H")
    assert [c.code for c in parse_cards("QS JS 10S AS") if sd.may_play(config, 1, c, bank)] == [
        "10S"
    ]  # only by rank (SIX-6 b): spades are plain to seat 1
    # And on a spade bank the hearts are seat 1's trumps, any of them (SIX-6 e).
    assert sd.may_play(config, 1, parse_card("AH"), parse_card("9S"))
    assert not sd.may_play(config, 0, parse_card("AH"), parse_card("9S"))


def test_SIX_4_senior_trump_beats_junior_not_the_other_way() -> None:
    config = sd.make_config({"trumps": "SENIOR_JUNIOR"}, 2)
    ok = sd.may_play
    assert ok(config, 0, parse_card("AS"), parse_card("KD"))  # senior on junior
    assert ok(config, 0, parse_card("AS"), parse_card("KH"))  # senior on plain
    assert ok(config, 0, parse_card("AD"), parse_card("KC"))  # junior on plain
    assert not ok(config, 0, parse_card("AD"), parse_card("KS"))  # junior on senior
    assert not ok(config, 0, parse_card("AH"), parse_card("KD"))  # plain on junior
    assert ok(config, 0, parse_card("KH"), parse_card("KS"))  # same rank, any category
    two = sd.make_config({"trumps": "TWO"}, 2)
    assert ok(two, 0, parse_card("AD"), parse_card("KH"))
    assert not ok(two, 0, parse_card("AD"), parse_card("KS"))  # trumps are one category
    one = sd.make_config({"trumps": "ONE"}, 2)
    assert ok(one, 1, parse_card("AS"), parse_card("QD"))
    assert not ok(one, 1, parse_card("AD"), parse_card("QS"))


def test_SIX_5_deal_one_at_a_time_from_the_dealers_left() -> None:
    canonical = deck(36)
    config = sd.make_config(NONE, 3)
    events = sd.start(config, ["a", "b", "c"], b"x", Setup(first_dealer=1, decks=(canonical,)))
    dealt = of(list(events), sd.Dealt)[0]
    assert dealt.dealer == 1
    assert dealt.hands[2] == tuple(canonical[0:24:3])
    assert dealt.hands[0] == tuple(canonical[1:24:3])
    assert dealt.hands[1] == tuple(canonical[2:24:3])
    assert of(list(events), sd.BankTurned)[0].bank == canonical[24]
    assert fold(sd, events[:4]).stock == canonical[25:29]
    assert dealt.deck == canonical
