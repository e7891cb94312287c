"""Six Dozens (RULES.md SIX-1 … SIX-13, R-1 … R-6): scenario tests on prearranged decks.

Hands are written per seat; `order` turns them into the deck order the deal (SIX-5: one card at
a time clockwise from the dealer's left) needs, followed by the bank, the stock and the rest.
Most scenarios play without trumps so that only the rule under test decides what is legal.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Sequence
from typing import Any

import pytest

from kozyr.core import fairness
from kozyr.core.cards import Card, Suit, deck, mask_of, parse_card, parse_cards
from kozyr.games import six_dozens as sd
from kozyr.games.codec import Registry, class_of, decode_as, encode
from kozyr.games.contract import Game, IllegalMove, InvalidOptions, Setup, fold

GAME: Game = sd  # the module satisfies the Game contract


# ------------------------------------------------------------------------------------ helpers


def order(
    players: int, dealer: int, hands: Sequence[str], bank: str, stock: str, size: int = 36
) -> tuple[Card, ...]:
    """The deck order (top first) that deals `hands` by seat, then the bank and the stock."""
    dealt = [parse_cards(h) for h in hands]
    per = sd.HAND_SIZE[size]
    assert all(len(h) == per for h in dealt), [len(h) for h in dealt]
    out: list[Card] = []
    for r in range(per):
        for k in range(players):
            out.append(dealt[(dealer + 1 + k) % players][r])
    out.append(parse_card(bank))
    out.extend(parse_cards(stock))
    assert len(set(out)) == len(out)
    return (*out, *(c for c in deck(size) if c not in out))


def new(
    players: int,
    hands: Sequence[str] = (),
    bank: str = "",
    stock: str = "",
    first_dealer: int | None = None,
    more: Sequence[tuple[Card, ...]] = (),
    seed: bytes = b"six",
    **options: object,
) -> tuple[sd.State, list[Any]]:
    """A started match on the given first deal (and further prearranged decks).

    Without hands the deal comes from the seed, and the first dealer by lot unless given.
    """
    config = sd.make_config(options, players)
    decks: tuple[tuple[Card, ...], ...] = ()
    if hands:
        first_dealer = first_dealer or 0
        decks = (order(players, first_dealer, hands, bank, stock, config.deck), *more)
    events = list(
        sd.start(
            config,
            [f"p{i}" for i in range(players)],
            seed,
            Setup(first_dealer=first_dealer, decks=decks),
        )
    )
    return fold(sd, events), events


def play(state: sd.State, seat: int, code: str) -> tuple[sd.State, list[Any]]:
    """Seat plays a card; the new state and the events (automatic ones included)."""
    events = list(sd.decide(state, seat, sd.Play(parse_card(code))))
    return fold(sd, events, state), events


def legal(state: sd.State) -> str:
    """The cards the seat to act may play, as codes."""
    seat = sd.to_act(state)
    assert seat is not None
    return " ".join(c.card.code for c in sd.legal_commands(state, seat))


def names(events: Sequence[Any]) -> list[str]:
    return [sd.describe(e) for e in events]


def of(events: Sequence[Any], cls: type) -> list[Any]:
    return [e for e in events if type(e) is cls]


def hand(state: sd.State, seat: int) -> str:
    return " ".join(c.code for c in sd.view(state, seat).hand)


def illegal(state: sd.State, seat: int, command: object, code: str) -> None:
    """The command is refused with `code` and the state is unchanged."""
    before = pickle.dumps(state)
    with pytest.raises(IllegalMove) as info:
        sd.decide(state, seat, command)
    assert info.value.code == code
    assert info.value.message
    assert pickle.dumps(state) == before


NONE = {"trumps": "NONE"}

# Two players, dealer 1: seat 0 holds the 6s and 8s and sheds them all while seat 1 passes.
SHEDDER = (["6S 6H 6D 6C 8S 8H 8D 8C", "KH QH JH 9H KD QD JD 9D"], "AS", "KC QC JC 10C 9C")

# Two players, nobody can play on the bank or any stock card: the hand ends before a move.
BLOCKED_2 = (["10D 10C KS KH KD KC QS QH", "QD QC JS JH JD JC 9S 9H"], "8S", "8H 8D 8C AS AH")

# Three and four players, 28 cards: no 8s, 7s or 6s in any hand, 8s on the table.
BLOCKED_3 = (
    ["10H 10D 10C KS KH KD", "KC QS QH QD QC JS", "JH JD JC 9S 9H 9D"],
    "8S",
    "8H 8D 8C AS",
)
BLOCKED_4 = (
    ["AS AH AD AC 10S 10H", "10D 10C KS KH KD KC", "QS QH QD QC JS JH", "JD JC 9S 9H 9D 9C"],
    "8S",
    "8H 8D 8C",
)

# Three players, 28 cards, dealer 0 (checked by hand): seat 0 goes out, seats 1 and 2 are stuck.
STUCK_3 = (["8H 9H QH 9D 8C 9C", "10S JS AS AH QD JC", "10H 10D KD 10C KC AC"], "JH", "JD 8D KH AD")
STUCK_3_MOVES = [(0, "9H"), (0, "8C"), (0, "8H"), (0, "9D"), (0, "9C"), (0, "QH"), (1, "QD")]


# --------------------------------------------------------------------------------- contract


def test_module_constants() -> None:
    assert (sd.NAME, sd.TITLE, sd.MIN_PLAYERS, sd.MAX_PLAYERS) == ("six-dozens", "Six Dozens", 2, 4)
    assert sd.RULES_VERSION == "2026.11"
    assert (sd.Play,) == sd.COMMAND_TYPES
    assert [o.name for o in sd.OPTIONS] == [
        "deck",
        "trumps",
        "trump_suits",
        "seven",
        "dealer",
        "max_hands",
        "final_kitty",
        "eight_on_trumps",
    ]
    defaults = {o.name: o.default for o in sd.OPTIONS}
    assert defaults == {
        "deck": 36,
        "trumps": "PERSONAL",
        "trump_suits": None,
        "seven": "SKIP",
        "dealer": "FIRST_MOVER",
        "max_hands": 500,
        "final_kitty": "DISCARD",
        "eight_on_trumps": True,
    }


# ----------------------------------------------------------------------------- R-1 … R-3


def test_R_1_deals_come_from_the_seed() -> None:
    _, events = new(3, seed=b"abc")
    dealt = of(events, sd.Dealt)[0]
    turned = of(events, sd.BankTurned)[0]
    assert dealt.deck == fairness.RandomStream(b"abc", "deal/1").shuffle(deck(36))
    assert events[0].prearranged is False
    # Dealing takes from the top, one card at a time from the dealer's left (SIX-5).
    left = (dealt.dealer + 1) % 3
    assert dealt.deck[0] in dealt.hands[left]
    assert turned.bank == dealt.deck[24] and dealt.rolls == ()
    assert fold(sd, events[:4]).stock == dealt.deck[25:29]
    _, again = new(3, seed=b"abc")
    assert again == events


def test_R_1_later_hands_are_shuffled_from_their_own_stream() -> None:
    # Hand 1 is prearranged and ends at once; hand 2 comes from the stream deal/2.
    _, events = new(2, *BLOCKED_2, first_dealer=1, seed=b"s2", max_hands=2, trumps="NONE")
    deals = of(events, sd.Dealt)
    assert [d.number for d in deals] == [1, 2]
    assert deals[1].deck == fairness.RandomStream(b"s2", "deal/2").shuffle(deck(36))


def test_R_2_first_dealer_by_lot_or_as_given() -> None:
    _, events = new(4, seed=b"lot")
    lot = fairness.RandomStream(b"lot", fairness.FIRST_DEALER).randbelow(4)
    assert events[1] == sd.FirstDealerChosen(lot, True)
    assert of(events, sd.Dealt)[0].dealer == lot
    _, given = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert given[1] == sd.FirstDealerChosen(1, False)
    assert given[0].first_dealer == 1


def test_R_3_prearranged_match_is_marked_and_decks_are_checked() -> None:
    _, events = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert events[0].prearranged is True
    assert len(events[0].decks) == 1
    config = sd.make_config({}, 2)
    good = order(2, 0, *SHEDDER)
    bad_decks = [good[:-1], (*good[:-1], good[0]), (*good[:-1], parse_card("2S"))]
    for bad in bad_decks:
        with pytest.raises(InvalidOptions) as info:
            sd.start(config, ["a", "b"], b"x", Setup(decks=(bad,)))
        assert info.value.code == "BAD_DECK"
    with pytest.raises(InvalidOptions):
        sd.start(sd.make_config({"deck": 32}, 2), ["a", "b"], b"x", Setup(decks=(good,)))


# --------------------------------------------------------------------------------


def test_R_4_a_single_legal_card_is_still_the_seats_decision() -> None:
    state, events = new(
        2,
        ["AS 10S KS QS JS 9S 8S 7S", "7H 7D 6H 6D 6C KC QC JC"],
        "AH",
        "KD QD JD 10D 9D",
        first_dealer=1,
        trumps="NONE",
    )
    # Seat 1 holds the lowest-valued heart (6H) and has just that one legal card.
    assert sd.to_act(state) == 1
    assert legal(state) == "6H"
    assert not of(events, sd.CardPlayed)


def test_R_5_max_hands_guard_ends_match() -> None:
    state, events = new(2, *SHEDDER, first_dealer=1, max_hands=1, trumps="NONE")
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, _ = play(state, 0, code)
    state, events = play(state, 0, "8C")
    assert type(events[-1]) is sd.MatchEnded
    result = sd.outcome(state)
    assert result is not None
    assert result.winners == (0,)
    assert result.scores == (120, 24)
    assert "hand limit (1)" in result.reason
    assert sd.to_act(state) is None
    assert sd.legal_commands(state, 0) == sd.legal_commands(state, 1) == ()


# -------------------------------------------------------------------------------------


def test_R_6_options_are_read_by_name_and_value() -> None:
    config = sd.make_config(
        {
            "deck": "32",
            "trumps": "ONE",
            "trump_suits": "H",
            "seven": "NONE",
            "dealer": "LOSER",
            "max_hands": "7",
            "final_kitty": "SPLIT_SOLVENT",
            "eight_on_trumps": "false",
        },
        3,
    )
    assert config == sd.Config(32, "ONE", (Suit.H,), "NONE", "LOSER", 7, "SPLIT_SOLVENT", False)
    assert sd.make_config({}, 3) == sd.Config(
        36, "PERSONAL", (Suit.S, Suit.H, Suit.D), "SKIP", "FIRST_MOVER", 500, "DISCARD", True
    )


@pytest.mark.parametrize(
    ("options", "players", "code"),
    [
        ({"colour": "red"}, 2, "UNKNOWN_OPTION"),
        ({"deck": 52}, 2, "BAD_OPTION_VALUE"),
        ({"deck": "many"}, 2, "BAD_OPTION_VALUE"),
        ({"trumps": "THREE"}, 2, "BAD_OPTION_VALUE"),
        ({"seven": "DRAW"}, 2, "BAD_OPTION_VALUE"),
        ({"dealer": "YOUNGEST"}, 2, "BAD_OPTION_VALUE"),
        ({"final_kitty": "KEEP"}, 2, "BAD_OPTION_VALUE"),
        ({"eight_on_trumps": "maybe"}, 2, "BAD_OPTION_VALUE"),
        ({"max_hands": 0}, 2, "BAD_OPTION_VALUE"),
        ({"trump_suits": "SS"}, 2, "BAD_OPTION_VALUE"),
        ({"trump_suits": "SX"}, 2, "BAD_OPTION_VALUE"),
        ({}, 1, "BAD_PLAYER_COUNT"),
        ({}, 5, "BAD_PLAYER_COUNT"),
    ],
)
def test_R_6_bad_options_are_refused(options: dict[str, object], players: int, code: str) -> None:
    with pytest.raises(InvalidOptions) as info:
        sd.make_config(options, players)
    assert info.value.code == code


def test_R_6_start_refuses_what_the_config_does_not_fit() -> None:
    two = sd.make_config({}, 2)  # PERSONAL with two suits
    with pytest.raises(InvalidOptions) as info:
        sd.start(two, ["a", "b", "c"], b"x")
    assert info.value.code == "BAD_OPTION_VALUE"
    with pytest.raises(InvalidOptions) as info:
        sd.start(sd.make_config(NONE, 2), ["a"], b"x")
    assert info.value.code == "BAD_PLAYER_COUNT"
    with pytest.raises(InvalidOptions):
        sd.start(sd.make_config(NONE, 2), ["a", "b"], b"x", Setup(first_dealer=2))


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


# ---------------------------------------------------------------------------------- SIX-6


def test_SIX_6_each_clause_and_nothing_else() -> None:
    config = sd.make_config(NONE, 2)
    bank = parse_card("QH")
    allowed = {c.code for c in deck(36) if c is not bank and sd.may_play(config, 0, c, bank)}
    assert allowed == {
        "JH",  # (a) next in suit towards the 6
        "QS",
        "QD",
        "QC",  # (b) same rank
        "6H",  # (c) the 6 of the suit
        "8S",
        "8H",
        "8D",
        "8C",  # (d) any 8
    }


def test_SIX_6_legal_commands_offer_exactly_those_cards() -> None:
    state, _ = new(
        2,
        ["JH QS 6H 8C KH AH 10S 9D", "AS KS JS 9S 7S AD KD QD"],
        "QH",
        "JD 10D 7D AC KC",
        first_dealer=1,
        trumps="NONE",
    )
    assert sd.to_act(state) == 0
    assert legal(state) == "QS 6H JH 8C"


def test_SIX_6_higher_category_goes_on_anything_lower() -> None:
    config = sd.make_config({"trumps": "ONE"}, 2)
    bank = parse_card("QH")
    trumps_ok = [c.code for c in parse_cards("AS 10S KS 9S 7S") if sd.may_play(config, 0, c, bank)]
    assert trumps_ok == ["AS", "10S", "KS", "9S", "7S"]


def test_SIX_6_eight_on_trumps_switch() -> None:
    on = sd.make_config({"trumps": "ONE"}, 2)
    off = sd.make_config({"trumps": "ONE", "eight_on_trumps": False}, 2)
    plain_eight, trump_bank = parse_card("8H"), parse_card("KS")
    assert sd.may_play(on, 0, plain_eight, trump_bank)
    assert not sd.may_play(off, 0, plain_eight, trump_bank)
    # Still fine on the same or a lower category, on a plain 8 and on the 9 of its suit.
    assert sd.may_play(off, 0, plain_eight, parse_card("KD"))
    assert sd.may_play(off, 0, parse_card("8S"), parse_card("KD"))
    assert sd.may_play(off, 0, parse_card("8S"), plain_eight)
    assert sd.may_play(off, 0, plain_eight, parse_card("9H"))
    # "An 8 only goes on a bank of the same or lower category": not on a trump 8 either (b).
    assert sd.may_play(on, 0, plain_eight, parse_card("8S"))
    assert not sd.may_play(off, 0, plain_eight, parse_card("8S"))
    # In a match: seat 0 (first mover by 7S) holds 8H; only the 8 could go on the trump 9S.
    hands = ["8H 7S AD 10D KD QD JD AH", "AC 10C KC QC JC 7C 7D KH"]
    state, _ = new(2, hands, "9S", "QH JH 10H 9H 6H", first_dealer=1, trumps="ONE")
    assert sd.to_act(state) == 0 and legal(state) == "8H"
    state, events = new(
        2, hands, "9S", "QH JH 10H 9H 6H", first_dealer=1, trumps="ONE", eight_on_trumps=False
    )
    # Now nobody can play on 9S, so QH covers it; on a plain bank the 8 is fine again.
    assert events[4:] == [sd.BankCovered(parse_card("QH"))]
    assert sd.to_act(state) == 0 and legal(state) == "7S 8H QD"


def test_SIX_6_table_matches_the_rule_card_by_card() -> None:
    for options in [
        {"trumps": t, "eight_on_trumps": e, "deck": d}
        for t in sd.TRUMP_MODES
        for e in (True, False)
        for d in (36, 28)
    ]:
        config = sd.make_config(options, 4)
        table = sd.legal_table(config, 4)
        cards = deck(config.deck)
        for seat in range(4):
            for bank in cards:
                expected = mask_of(
                    [c for c in cards if c is not bank and sd.may_play(config, seat, c, bank)]
                )
                assert table[seat][bank.index] == expected


# ---------------------------------------------------------------------------------- SIX-7


def test_SIX_7_first_mover_holds_the_lowest_valued_card_of_the_bank_suit() -> None:
    state, events = new(
        3,
        ["10H 10D 10C KS KH KD", "KC QS QH QD QC JS", "JH JD JC 9S 8H 9D"],
        "AH",
        "8S 8D 8C AS",
        first_dealer=0,
        deck=28,
        trumps="NONE",
    )
    # Hearts held: 10H, KH (seat 0), QH (seat 1), JH, 8H (seat 2): 8H is nearest the 6.
    assert of(events, sd.BankTurned)[0].first_mover == 2
    assert sd.view(state, None).first_mover == 2


def test_SIX_7_nobody_holds_the_suit_so_the_dealers_left_moves() -> None:
    state, events = new(
        3,
        ["10D 10C KS KD QS QD", "KC QC JS JD JC 9S", "9D 9C 8S 8D 8C AS"],
        "AH",
        "KH QH JH 9H",
        first_dealer=1,
        deck=28,
        trumps="NONE",
    )
    assert of(events, sd.BankTurned)[0].first_mover == 2
    assert sd.to_act(state) == 2


def test_SIX_7_first_mover_is_not_recomputed_after_an_opening_cover() -> None:
    state, events = new(
        2,
        ["7S KD AC 10C JC AD 10D JD", "QH AH 10H JH QD 7C 7D 7H"],
        "9S",
        "KH 9D 9C 6C 6D",
        first_dealer=1,
        trumps="NONE",
    )
    # Nobody can play on 9S; KH covers it. Seat 1 now holds the lowest heart (7H), yet seat 0,
    # the first mover by the spade bank, moves first.
    assert names(events[4:]) == ["the stock covers the bank with KH"]
    assert sd.to_act(state) == 0
    assert state.first_mover == 0
    assert legal(state) == "KD"


# ---------------------------------------------------------------------------------- SIX-8


def test_SIX_8_pass_and_seven_skip() -> None:
    state, _ = new(
        2,
        ["AS 10S KS QS JS 9S 8S 7S", "7H 7D 6H 6D 6C KC QC JC"],
        "AH",
        "KD QD JD 10D 9D",
        first_dealer=1,
        trumps="NONE",
    )
    state, events = play(state, 1, "6H")
    assert sd.to_act(state) == 0 and legal(state) == "8S"
    state, events = play(state, 0, "8S")
    # Seat 1 holds no 7S, 8 or 6S: it passes by itself and draws nothing.
    assert events[1:] == [sd.Passed(1)]
    assert sd.view(state, 1).hand_sizes == (7, 7)
    assert legal(state) == "7S"
    state, events = play(state, 0, "7S")
    # The 7 costs seat 1 its turn although it could play a 7; seat 0 has nothing and passes.
    assert events[1:] == [sd.TurnSkipped(1), sd.Passed(0)]
    assert sd.to_act(state) == 1 and legal(state) == "7H 7D"
    assert not state.skip_next


def test_SIX_8_skip_is_pending_until_the_engine_applies_it() -> None:
    state, _ = new(
        2,
        ["AS 10S KS QS JS 9S 8S 7S", "7H 7D 6H 6D 6C KC QC JC"],
        "AH",
        "KD QD JD 10D 9D",
        first_dealer=1,
        trumps="NONE",
    )
    state, _ = play(state, 1, "6H")
    state, _ = play(state, 0, "8S")
    events = sd.decide(state, 0, sd.Play(parse_card("7S")))
    midway = sd.evolve(state, events[0])
    assert sd.view(midway, None).skip_next is True
    assert sd.view(fold(sd, events, state), None).skip_next is False


def test_SIX_8_seven_option_none_has_no_effect() -> None:
    state, _ = new(
        2,
        ["AS 10S KS QS JS 9S 8S 7S", "7H 7D 6H 6D 6C KC QC JC"],
        "AH",
        "KD QD JD 10D 9D",
        first_dealer=1,
        seven="NONE",
        trumps="NONE",
    )
    state, _ = play(state, 1, "6H")
    state, _ = play(state, 0, "8S")
    state, events = play(state, 0, "7S")
    assert events[1:] == []
    assert sd.to_act(state) == 1 and legal(state) == "7H 7D"


def test_SIX_8_cover_after_a_seven_cancels_the_skip_and_a_turned_seven_does_nothing() -> None:
    state, _ = new(
        2,
        ["7S 6H AC 10C KC QC JC 9C", "AD 10D KD QD JD 9D KH QH"],
        "8S",
        "7H 9H AH 10H JH",
        first_dealer=1,
        trumps="NONE",
    )
    assert sd.to_act(state) == 0 and legal(state) == "7S"
    state, events = play(state, 0, "7S")
    # Nobody holds 6S, a 7 or an 8: 7H covers, the skip is cancelled, seat 0 moves again.
    assert events[1:] == [sd.BankCovered(parse_card("7H"))]
    assert not state.skip_next
    assert sd.to_act(state) == 0 and legal(state) == "6H"
    state, events = play(state, 0, "6H")
    assert events[1:] == [sd.BankCovered(parse_card("9H"))]
    assert sd.to_act(state) == 0 and legal(state) == "9C"
    state, events = play(state, 0, "9C")
    assert sd.to_act(state) == 1 and legal(state) == "9D"


@pytest.mark.parametrize(("seven", "lost"), [("SKIP", sd.TurnSkipped(2)), ("NONE", sd.Passed(2))])
def test_SIX_8_the_skip_falls_on_the_next_holder_past_an_out_seat_even_if_it_could_not_play(
    seven: str, lost: object
) -> None:
    # Seat 1 sheds all eight cards (nobody else can play on them) and is out. Seat 0 then plays
    # 7C: the seat after it is seat 1 (out), so the 7 costs seat 2 its turn although seat 2
    # holds nothing for 7C; seat 0 (7H) moves again. Without the option seat 2 simply passes.
    hands = ["7C 7H KS QS JS 9S KH QH", "AH AD AC 6C 6H 6D 6S 8C", "JH 9H KD QD JD 9D KC QC"]
    state, _ = new(3, hands, "AS", "JC 9C 10S 10H", first_dealer=0, trumps="NONE", seven=seven)
    for code in ["AH", "AD", "AC", "6C", "6H", "6D", "6S", "8C"]:
        assert sd.to_act(state) == 1
        state, events = play(state, 1, code)
    assert events[1:] == [sd.PlayerOut(1, 1), sd.Passed(2)]
    assert sd.to_act(state) == 0 and legal(state) == "7C"
    state, events = play(state, 0, "7C")
    assert events[1:] == [lost]
    assert sd.to_act(state) == 0 and legal(state) == "7H"
    assert not state.skip_next


# ------------------------------------------------------------------------------- SIX-9, 10


def test_SIX_9_out_in_finishing_order_and_SIX_10_condition_2() -> None:
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    assert state.first_mover == 0  # 8H is the heart nearest the 6
    log: list[Any] = []
    for seat, code in STUCK_3_MOVES:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert names(log[:18]) == [
        "seat 0 plays 9H",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 8C",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 8H",
        "the stock covers the bank with JD",
        "seat 0 plays 9D",
        "seat 1 passes (no legal card)",
        "seat 2 passes (no legal card)",
        "seat 0 plays 9C",
        "the stock covers the bank with 8D",
        "the stock covers the bank with KH",
        "seat 0 plays QH",
        "seat 0 is out (1st)",
        "seat 1 plays QD",
        "hand 1 ends (condition 2): seat 1 pays 30; seat 2 pays 36; seat 0 gets 66; kitty 0",
    ]
    assert type(log[18]) is sd.Dealt and log[18].number == 2
    settled = of(log, sd.HandSettled)[0]
    assert settled == sd.HandSettled(
        1, 2, (0,), (0, 5, 6), (0, 30, 36), (66, 0, 0), (138, 42, 36), 0
    )
    assert of(log, sd.PlayerOut) == [sd.PlayerOut(0, 1)]


def test_SIX_9_out_order_is_public_during_the_hand() -> None:
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    for seat, code in STUCK_3_MOVES[:6]:
        state, _ = play(state, seat, code)
    v = sd.view(state, None)
    assert v.out_order == (0,)
    assert v.hand_sizes == (0, 6, 6)
    assert sd.to_act(state) == 1 and legal(state) == "QD"


def test_SIX_10_condition_1_last_player_holding_cards() -> None:
    state, _ = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    assert sd.to_act(state) == 0 and legal(state) == "6S 8S 8H 8D 8C"
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, events = play(state, 0, code)
        assert events[1:] == [sd.Passed(1)]
    state, events = play(state, 0, "8C")
    assert events[1] == sd.PlayerOut(0, 1)
    settled = events[2]
    assert settled == sd.HandSettled(1, 1, (0,), (0, 8), (0, 48), (48, 0), (120, 24), 0)
    assert type(events[3]) is sd.Dealt and type(events[4]) is sd.BankTurned


def test_SIX_10_condition_3_before_the_first_turn() -> None:
    _, events = new(2, *BLOCKED_2, first_dealer=1, max_hands=1, trumps="NONE")
    assert names(events[4:9]) == [
        f"the stock covers the bank with {c}" for c in ["8H", "8D", "8C", "AS", "AH"]
    ]
    settled = events[9]
    assert settled == sd.HandSettled(1, 3, (), (8, 8), (48, 48), (0, 0), (24, 24), 96)


def test_SIX_10_condition_3_after_play() -> None:
    state, events = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        trumps="NONE",
    )
    # Seat 1 (JH is the heart nearest the 6) has nothing for 9H and passes in the opening.
    assert events[-1] == sd.Passed(1)
    assert sd.to_act(state) == 0 and legal(state) == "9D"
    state, events = play(state, 0, "9D")
    assert [type(e) for e in events] == [
        sd.CardPlayed,
        *[sd.BankCovered] * 5,
        sd.HandSettled,
        sd.MatchEnded,
    ]
    assert events[6] == sd.HandSettled(1, 3, (), (5, 6), (30, 36), (0, 0), (42, 36), 66)


def test_SIX_10_an_eight_anywhere_prevents_the_cover() -> None:
    # Bank 9S: the first mover (7S) cannot play, but seat 1's 8 can, so there is no cover.
    state, events = new(
        2,
        ["7S KD AC 10C JC AD 10D JD", "QH AH 10H JH QD 7C 7D 8H"],
        "9S",
        "KH 9D 9C 6C 6D",
        first_dealer=1,
        trumps="NONE",
    )
    assert events[4:] == [sd.Passed(0)]
    assert sd.to_act(state) == 1 and legal(state) == "8H"
    assert state.bank == parse_card("9S") and len(state.stock) == 5


# --------------------------------------------------------------------------------- SIX-11


def test_SIX_11_two_out_share_two_thirds_and_one_third() -> None:
    state, _ = new(
        3,
        ["8S 9H 8D 9D JC QC", "10S AS QD KD 10C KC", "JS QS 8H JD 8C 9C"],
        "KH",
        "9S JH QH KS",
        first_dealer=0,
        deck=28,
        trumps="NONE",
    )
    moves = [
        (2, "8H"),
        (0, "8D"),
        (2, "8C"),
        (0, "8S"),
        (0, "9D"),
        (2, "9C"),
        (0, "9H"),
        (0, "JC"),
        (2, "JD"),
        (2, "JS"),
        (2, "QS"),
        (0, "QC"),
    ]
    log: list[Any] = []
    for seat, code in moves:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.PlayerOut) == [sd.PlayerOut(2, 1), sd.PlayerOut(0, 2)]
    assert of(log, sd.HandSettled)[0] == sd.HandSettled(
        1, 1, (2, 0), (0, 6, 0), (0, 36, 0), (12, 0, 24), (84, 36, 96), 0
    )


def test_SIX_11_three_out_share_half_third_sixth() -> None:
    state, _ = new(
        4,
        ["9S JS 8H 8D JD QC", "8S 10S KS 10H JH KD", "QH KH 9C 10C JC KC", "QS AS 9H 9D QD AD"],
        "AH",
        "10D AC 8C",
        first_dealer=0,
        deck=28,
        trumps="NONE",
    )
    moves = [
        (0, "8H"),
        (1, "8S"),
        (0, "8D"),
        (1, "10H"),
        (2, "10C"),
        (1, "10S"),
        (1, "KS"),
        (2, "KH"),
        (1, "KD"),
        (2, "KC"),
        (0, "QC"),
        (2, "QH"),
        (3, "QD"),
        (0, "JD"),
        (1, "JH"),
        (2, "JC"),
        (0, "JS"),
        (0, "9S"),
        (2, "9C"),
    ]
    log: list[Any] = []
    for seat, code in moves:
        assert sd.to_act(state) == seat
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.HandSettled)[0] == sd.HandSettled(
        1, 1, (1, 0, 2), (0, 0, 0, 5), (0, 0, 0, 30), (10, 15, 5, 0), (82, 87, 77, 42), 0
    )


def test_SIX_11_kitty_carries_over_then_goes_to_the_finisher_and_SIX_12_ruin() -> None:
    # Hand 1: nobody can move (condition 3), 96 stays in the kitty. Seat 1 was the first mover
    # (9S) and deals hand 2 (SIX-13 FIRST_MOVER), where seat 0 sheds everything.
    state, events = new(2, *BLOCKED_2, first_dealer=1, more=[order(2, 1, *SHEDDER)], trumps="NONE")
    deals = of(events, sd.Dealt)
    assert of(events, sd.BankTurned)[0].first_mover == 1 and deals[1].dealer == 1
    v = sd.view(state, 0)
    assert (v.hand_number, v.kitty, v.capitals) == (2, 96, (24, 24))
    for code in ["6S", "6H", "6D", "6C", "8S", "8H", "8D"]:
        state, _ = play(state, 0, code)
    state, events = play(state, 0, "8C")
    assert events[2] == sd.HandSettled(2, 1, (0,), (0, 8), (0, 48), (144, 0), (168, -24), 0)
    assert events[3] == sd.MatchEnded(
        (0,), (168, -24), (0, 0), 0, 2, "after hand 2 seat 1 is ruined (capital -24)"
    )
    assert sd.view(state, None).finished
    result = sd.outcome(state)
    assert result is not None and result.winners == (0,) and result.scores == (168, -24)


# --------------------------------------------------------------------------------- SIX-12


def test_SIX_12_equal_highest_capitals_share_and_the_kitty_is_discarded() -> None:
    blocked = order(2, 1, *BLOCKED_2)
    for final in ["DISCARD", "SPLIT_SOLVENT"]:
        state, events = new(
            2, *BLOCKED_2, first_dealer=1, more=[blocked], final_kitty=final, trumps="NONE"
        )
        assert events[-1] == sd.MatchEnded(
            (0, 1),
            (-24, -24),
            (0, 0),
            192,
            2,
            "after hand 2 seat 0 is ruined (capital -24), seat 1 is ruined (capital -24)",
        )
        result = sd.outcome(state)
        assert result is not None
        assert dict(result.details)["kitty_discarded"] == "192"
        assert "p0 and p1 share the win with -24" in sd.render(sd.view(state, None))
        with pytest.raises(IllegalMove) as info:
            sd.decide(state, 0, sd.Play(parse_card("KS")))
        assert info.value.code == "MATCH_OVER"


@pytest.mark.parametrize(("dealer", "capitals"), [(1, (88, 56)), (0, (56, 88))])
def test_SIX_12_split_solvent_highest_first_ties_from_dealers_left(
    dealer: int, capitals: tuple[int, int]
) -> None:
    _, events = new(
        2, *BLOCKED_2, first_dealer=dealer, max_hands=1, final_kitty="SPLIT_SOLVENT", trumps="NONE"
    )
    end = events[-1]
    assert end.capitals == capitals and end.kitty_discarded == 0
    assert end.winners == ((0,) if capitals[0] > capitals[1] else (1,))


def test_SIX_12_split_solvent_by_capital() -> None:
    _, events = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        final_kitty="SPLIT_SOLVENT",
        trumps="NONE",
    )
    state = fold(sd, events)
    state, events = play(state, 0, "9D")
    # Capitals 42 and 36, kitty 66: seat 0 (higher) takes 2/3.
    assert events[-1].kitty_shares == (44, 22)
    assert events[-1].capitals == (86, 58)
    discard_state, _ = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=0,
        deck=28,
        max_hands=1,
        trumps="NONE",
    )
    _, events = play(discard_state, 0, "9D")
    assert events[-1].capitals == (42, 36) and events[-1].kitty_discarded == 66


def test_SIX_12_four_solvent_the_fourth_gets_nothing() -> None:
    _, events = new(
        4,
        *BLOCKED_4,
        first_dealer=0,
        deck=28,
        max_hands=1,
        final_kitty="SPLIT_SOLVENT",
        trumps="NONE",
    )
    settled = of(events, sd.HandSettled)[0]
    assert settled.capitals == (36, 36, 36, 36) and settled.kitty == 144
    end = events[-1]
    assert end.kitty_shares == (0, 72, 48, 24)
    assert end.capitals == (36, 108, 84, 60)
    assert end.winners == (1,)


# --------------------------------------------------------------------------------- SIX-13


def second_dealer(events: Sequence[Any]) -> int:
    return int(of(events, sd.Dealt)[1].dealer)


@pytest.mark.parametrize(
    ("rule", "dealer"),
    [("FIRST_MOVER", 0), ("LOSER", 2), ("FIRST_OUT", 0), ("MOST_POINTS", 0), ("FEWEST_POINTS", 2)],
)
def test_SIX_13_next_dealer(rule: str, dealer: int) -> None:
    # After STUCK_3: cards left (0, 5, 6), seat 0 out first, capitals (138, 42, 36).
    state, _ = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE", dealer=rule)
    log: list[Any] = []
    for seat, code in STUCK_3_MOVES:
        state, events = play(state, seat, code)
        log.extend(events)
    assert of(log, sd.Dealt)[0].dealer == dealer


@pytest.mark.parametrize("rule", ["LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"])
def test_SIX_13_ties_and_no_candidate_go_clockwise_from_the_dealers_left(rule: str) -> None:
    # Everybody keeps 6 cards, nobody went out, capitals are equal: seat 2 (left of seat 1).
    _, events = new(3, *BLOCKED_3, first_dealer=1, deck=28, trumps="NONE", dealer=rule)
    assert second_dealer(events) == 2


def test_SIX_13_loser_with_most_cards_left() -> None:
    state, _ = new(
        2,
        ["KS AS QH AH 9D 10D", "JS 10H JH QD JC KC"],
        "9H",
        "8H 8C 8S 9C 9S",
        first_dealer=1,
        deck=28,
        trumps="NONE",
        dealer="LOSER",
    )
    _, events = play(state, 0, "9D")
    assert of(events, sd.Dealt)[0].dealer == 1  # 6 cards against 5


# ------------------------------------------------------------------------ illegal commands


def test_illegal_commands_each_reason_and_state_unchanged() -> None:
    state, _ = new(
        2,
        ["JH QS 6H 8C KH AH 10S 9D", "AS KS JS 9S 7S AD KD QD"],
        "QH",
        "JD 10D 7D AC KC",
        first_dealer=1,
        trumps="NONE",
    )
    illegal(state, 2, sd.Play(parse_card("JH")), "NOT_A_SEAT")
    illegal(state, -1, sd.Play(parse_card("JH")), "NOT_A_SEAT")
    illegal(state, 1, sd.Play(parse_card("KD")), "NOT_YOUR_TURN")
    illegal(state, 1, sd.Play(parse_card("JH")), "NOT_YOUR_TURN")  # turn before the card
    illegal(state, 0, "play JH", "UNKNOWN_COMMAND")
    illegal(state, 0, sd.Passed(0), "UNKNOWN_COMMAND")
    illegal(state, 0, sd.Play(parse_card("KD")), "CARD_NOT_IN_HAND")
    illegal(state, 0, sd.Play(parse_card("2S")), "CARD_NOT_IN_HAND")
    illegal(state, 0, sd.Play(parse_card("AH")), "CARD_NOT_PLAYABLE")
    with pytest.raises(IllegalMove) as info:
        sd.decide(state, 0, sd.Play(parse_card("KH")))
    assert info.value.message == "KH cannot go on the bank QH: play JH, a Q, 6H or an 8"
    assert info.value.rule == "SIX-6"
    over, _ = new(2, *BLOCKED_2, first_dealer=1, max_hands=1, trumps="NONE")
    illegal(over, 0, sd.Play(parse_card("KS")), "MATCH_OVER")
    illegal(over, 3, sd.Play(parse_card("KS")), "NOT_A_SEAT")


# ---------------------------------------------------------------------- views and events


def test_view_shows_own_hand_counts_and_the_public_table() -> None:
    state, _ = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    v = sd.view(state, 0)
    assert v.seat == 0 and v.players == ("p0", "p1")
    assert hand(state, 0) == "6S 8S 6H 8H 6D 8D 6C 8C"
    assert v.hand_sizes == (8, 8)
    assert (v.to_act, v.dealer, v.first_mover, v.hand_number) == (0, 1, 0, 1)
    assert (v.bank, v.stock_count, v.kitty) == (parse_card("AS"), 5, 0)
    assert (v.trump_mode, v.trump_suits, v.skip_next, v.finished) == ("NONE", (), False, False)
    assert v.last_play == "8 cards each; bank AS, stock 5; seat 0 moves first"
    spectator = sd.view(state, None)
    assert spectator.hand == () and spectator.seat is None
    encoded = json.dumps(encode(spectator))
    for code in ["6S", "KH", "KC"]:  # hands and stock stay hidden
        assert f'"{code}"' not in encoded
    assert decode_as(sd.View, json.loads(json.dumps(encode(v)))) == v


def test_view_personal_trumps() -> None:
    state, _ = new(3, seed=b"v")
    v = sd.view(state, 1)
    assert v.trump_mode == "PERSONAL" and v.trump_suits == (Suit.S, Suit.H, Suit.D)


def test_redact_hides_seed_decks_stock_and_other_hands() -> None:
    _, events = new(2, *SHEDDER, first_dealer=1, trumps="NONE")
    started = sd.redact(events[0], 1)
    assert isinstance(started, sd.MatchStarted)
    assert started.seed == b"" and started.decks == ((),) and started.prearranged
    dealt = events[2]
    mine = sd.redact(dealt, 1)
    assert isinstance(mine, sd.Dealt)
    assert mine.hands == ((), dealt.hands[1]) and mine.deck == ()
    turned = events[3]
    assert isinstance(turned, sd.BankTurned) and sd.redact(turned, 1) == turned
    assert turned.stock_count == 5
    seen = sd.redact(dealt, None)
    assert isinstance(seen, sd.Dealt) and seen.hands == ((), ())
    assert sd.redact(events[1], None) == events[1]
    played = sd.CardPlayed(0, parse_card("6S"))
    assert sd.redact(played, 1) is played


def test_events_survive_the_codec() -> None:
    state, events = new(3, *STUCK_3, first_dealer=0, deck=28, trumps="NONE")
    for seat, code in STUCK_3_MOVES:
        state, more = play(state, seat, code)
        events.extend(more)
    registry = Registry(sd.EVENT_TYPES)
    decoded = [registry.decode(json.loads(json.dumps(encode(e)))) for e in events]
    assert decoded == events
    assert fold(sd, decoded) == state
    for e in events:
        redacted = sd.redact(e, 1)
        assert type(redacted) in {class_of(t) for t in sd.EVENT_TYPES}
        assert registry.decode(encode(redacted)) == redacted


def test_render_and_describe() -> None:
    state, _ = new(4, seed=b"render-test-with-a-long-name")
    for viewer in [0, 3, None]:
        text = sd.render(sd.view(state, viewer))
        lines = text.splitlines()
        assert len(lines) <= 12
        assert all(len(line) <= 78 for line in lines)
        assert "Bank:" in text and "personal trumps" in text
    assert "Your hand:" in sd.render(sd.view(state, 0))
    assert "Your hand:" not in sd.render(sd.view(state, None))
    assert sd.describe(sd.CardPlayed(1, parse_card("QS"))) == "seat 1 plays QS"
    assert sd.describe(sd.TurnSkipped(2)) == "seat 2 loses a turn to the 7"
    assert sd.describe(sd.PlayerOut(3, 2)) == "seat 3 is out (2nd)"


# ---------------------------------------------------------------------------- random play


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_always_ends(players: int) -> None:
    """50 random matches per player count end within max_hands × n × hand size decisions."""
    rng = random.Random(players)
    for i in range(50):
        options: dict[str, object] = {
            "deck": rng.choice([36, 32, 28]),
            "trumps": rng.choice(sd.TRUMP_MODES),
            "seven": rng.choice(["SKIP", "NONE"]),
            "dealer": rng.choice(
                ["FIRST_MOVER", "LOSER", "FIRST_OUT", "MOST_POINTS", "FEWEST_POINTS"]
            ),
            "final_kitty": rng.choice(["DISCARD", "SPLIT_SOLVENT"]),
            "eight_on_trumps": rng.choice([True, False]),
        }
        if i % 10 == 0:
            options["max_hands"] = rng.randint(1, 3)
        config = sd.make_config(options, players)
        state = fold(sd, sd.start(config, [f"p{k}" for k in range(players)], b"r%d" % i))
        bound = config.max_hands * players * sd.HAND_SIZE[config.deck]
        checked = i < 3
        for _ in range(bound + 1):
            seat = sd.to_act(state)
            if seat is None:
                break
            commands = sd.legal_commands(state, seat)
            assert commands, "a seat to act always has a legal card (R-4)"
            if checked:  # decide refuses exactly the cards that are not offered
                for c in sd.view(state, seat).hand:
                    if sd.Play(c) not in commands:
                        with pytest.raises(IllegalMove):
                            sd.decide(state, seat, sd.Play(c))
            state = fold(sd, sd.decide(state, seat, rng.choice(commands)), state)
        result = sd.outcome(state)
        assert result is not None, "no outcome within the bound"
        assert result.winners
        assert state.hand_number <= config.max_hands
        assert sum(len(z) for z in sd.zones(state).values()) == config.deck


def test_R_3_six_dozens_refuses_prearranged_dice() -> None:
    config = sd.make_config({}, 2)
    with pytest.raises(InvalidOptions) as info:
        sd.start(config, ["a", "b"], b"s", Setup(dice=((3, 4),)))
    assert info.value.code == "BAD_SETUP"


def test_R_6_enumerated_values_are_written_upper_snake() -> None:
    with pytest.raises(InvalidOptions, match="write 'LOSER'") as info:
        sd.make_config({"dealer": "loser"}, 2)
    assert info.value.code == "BAD_OPTION_VALUE"
