"""Six Dozens' turns (SIX-6 … SIX-8): what may be played on what, who moves first, passes and
sevens.
"""

from __future__ import annotations

import pytest

from kozyr.core.cards import deck, mask_of, parse_card, parse_cards
from kozyr.games import six_dozens as sd
from kozyr.games.contract import fold
from tests.games.six_dozens.scenarios import NONE, legal, names, new, of, play

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
