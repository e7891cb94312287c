"""The offline verifier: every game verifies, and each tampering fails at the right entry.

Each tampering is tried twice where it matters: with the hashes left stale (the chain catches
it at the edited entry) and with every hash, link and the footer recomputed, as a careful
tamperer would (then the commitment, the fairness recipe or the rules must still catch it).
"""

from __future__ import annotations

import copy
import secrets
from typing import Any

import pytest

from kozyr.core.cards import deck, parse_card
from kozyr.core.fairness import RandomStream, commitment
from kozyr.match.log import entry_hash
from kozyr.replay import archive
from kozyr.replay.steps import frames
from tests.replay.helpers import (
    Lines,
    check,
    entries,
    event_of,
    find_entry,
    has_event,
    recorded,
    tampered,
)

# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def dix() -> Lines:
    """A whole Dix match (several hands), the second seat joining later with a contribution."""
    return recorded("dix", 2, b"tamper-dix", contributions=[b"alice", b"bob"], open_seats=(1,))


@pytest.fixture(scope="module")
def durak() -> Lines:
    """A two-game Durak match with dice."""
    return recorded(
        "durak-dice", 3, b"tamper-durak", options={"games": "2"}, contributions=[b"x", b"", b"zz"]
    )


def last(lines: Lines) -> int:
    return len(entries(lines))


def state_before(lines: Lines, version: int) -> Any:
    """The folded record right before entry `version`."""
    return frames(archive.parse(archive.dumps(lines)))[version - 2].record


# ---------------------------------------------------------------------------- every game


CASES = [
    ("dix", 2, {}, ()),
    ("dix", 2, {"first_lead": "DEALER", "tiebreak_tens": "MATCH", "target": "30"}, (0,)),
    ("dix", 2, {"single_hand": "true"}, ()),
    ("six-dozens", 2, {}, ()),
    ("six-dozens", 3, {"trumps": "ONE", "deck": "32"}, (2,)),
    ("six-dozens", 4, {"trumps": "NONE", "deck": "28", "dealer": "LOSER"}, ()),
    ("durak-dice", 2, {}, ()),
    ("durak-dice", 4, {"deck": "52", "games": "2"}, (1, 3)),
    ("durak-dice", 6, {"next_first": "FROM_UNDER_FOOL", "games": "3"}, ()),
]


@pytest.mark.parametrize(("game", "players", "options", "open_seats"), CASES)
def test_a_log_of_every_game_verifies(
    game: str, players: int, options: dict[str, str], open_seats: tuple[int, ...]
) -> None:
    contributions = [secrets.token_bytes(i % 3 * 8) for i in range(players)]
    lines = recorded(
        game,
        players,
        f"every-{game}-{players}".encode(),
        options=options,
        contributions=contributions,
        open_seats=open_seats,
    )
    report = check(lines)
    assert report.status == "VERIFIED", report.text()
    assert report.exit_code == 0 and report.finished
    # Fair only where a seat contributed after the commitment: a seat that joined with bytes
    # (named seats' contributions sit in entry 1, where the server saw them first).
    witnessed = any(contributions[seat] for seat in open_seats)
    assert (report.fair, report.server_alone) == (witnessed, not witnessed), report.text()
    assert report.entries == last(lines)
    assert report.deals >= 1 and report.lots == 1
    assert report.commands == last(lines) - 1 - len(open_seats)
    if game == "durak-dice":
        assert report.rolls > 0
    assert ("VERIFIED — a fair deal" in report.text()) == witnessed


def test_R_3_a_prearranged_match_verifies_but_is_never_called_fair() -> None:
    deck1 = RandomStream(b"puzzle", "any order").shuffle(deck(53))
    lines = recorded("dix", 2, b"prearranged", decks=[deck1], first_dealer=1)
    assert lines[0]["prearranged"] is True
    report = check(lines)
    assert report.status == "VERIFIED" and report.exit_code == 0, report.text()
    assert report.prearranged and not report.fair
    assert report.prearranged_deals == 1 and report.lots == 0
    assert "prearranged: not a fair random deal" in report.text()
    assert "a fair deal" not in report.text()


def test_R_3_prearranged_dice_verify_and_a_changed_given_roll_is_caught() -> None:
    lines = recorded("durak-dice", 2, b"prearranged dice", dice=[[6, 6, 6, 6, 6, 6]])
    assert lines[0]["prearranged"] is True
    report = check(lines)
    assert report.status == "VERIFIED", report.text()
    assert report.prearranged and not report.fair
    assert (report.prearranged_rolls, report.rolls) == (6, 0)  # given, not re-derived
    assert "6 die rolls as given at creation" in report.text()

    def edit(out: Lines) -> None:
        event_of(entries(out)[0], "Dealt")["rolls"][0][1] = 5

    bad = check(tampered(lines, edit, recompute=True))
    assert bad.status == "NOT_VERIFIED" and bad.first_bad_entry == 1, bad.text()


# ---------------------------------------------------------------------------- a card in a deal


def swap_deck_cards(lines: Lines, version: int) -> None:
    """Give the non-dealer the stock's top card instead of his first card (deck and hands)."""
    deal = event_of(entries(lines)[version - 1], "Dealt")
    order = deal["deck"]
    mine, theirs = order[0], order[27]
    order[0], order[27] = theirs, mine
    for hand in deal["hands"]:
        if mine in hand:
            hand[hand.index(mine)] = theirs
            hand.sort(key=lambda c: parse_card(c).index)


def test_a_card_changed_in_a_deal_breaks_the_chain_at_that_entry(dix: Lines) -> None:
    k = find_entry(dix, has_event("Dealt"), start=3)  # the deal of hand 2
    report = check(tampered(dix, lambda ls: swap_deck_cards(ls, k), recompute=False))
    assert report.exit_code == 1 and report.first_bad_entry == k
    assert "hash does not match" in report.problems[0].message


def test_a_card_changed_in_a_deal_with_hashes_recomputed_fails_the_seed(dix: Lines) -> None:
    k = find_entry(dix, has_event("Dealt"), start=3)
    original = event_of(entries(dix)[k - 1], "Dealt")["deck"]
    report = check(tampered(dix, lambda ls: swap_deck_cards(ls, k), recompute=True))
    problem = report.problems[0]
    assert report.exit_code == 1 and report.first_bad_entry == k, report.text()
    assert "deal of hand 2: card 1 of the deck is not the shuffle of deal/2" in problem.message
    assert (problem.expected, problem.found) == (original[0], original[27])
    assert f"entry {k}: deal of hand 2" in report.text()


def test_a_card_changed_in_the_first_deal_fails_at_entry_where_the_match_starts(dix: Lines) -> None:
    report = check(tampered(dix, lambda ls: swap_deck_cards(ls, 2), recompute=True))
    assert report.first_bad_entry == 2 and "deal of hand 1" in report.problems[0].message


def test_a_hand_changed_without_touching_the_deck_fails_the_rules(dix: Lines) -> None:
    k = find_entry(dix, has_event("Dealt"), start=3)

    def edit(ls: Lines) -> None:
        hands = event_of(entries(ls)[k - 1], "Dealt")["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    report = check(tampered(dix, edit, recompute=True))
    assert report.first_bad_entry == k, report.text()
    assert "(Dealt): hands[0][0] is not what the rules give" in report.problems[0].message


def test_a_die_roll_changed_fails_at_its_deal(durak: Lines) -> None:
    k = find_entry(durak, has_event("Dealt"), start=2)  # game 2's deal

    def edit(ls: Lines) -> None:
        rolls = event_of(entries(ls)[k - 1], "Dealt")["rolls"]
        rolls[0][1] = rolls[0][1] % 6 + 1

    report = check(tampered(durak, edit, recompute=True))
    assert report.first_bad_entry == k, report.text()
    assert "game 2: die roll 1 is not the next die of dice/2" in report.problems[0].message
    assert check(tampered(durak, edit, recompute=False)).first_bad_entry == k


# ---------------------------------------------------------------------------- a card in a move


def plays(lines: Lines) -> list[int]:
    return [
        line["version"]
        for line in entries(lines)
        if line["command"] and line["command"]["type"] == "Play"
    ]


def test_a_card_changed_in_a_move_fails_at_that_entry(dix: Lines) -> None:
    k = plays(dix)[20]
    line = entries(dix)[k - 1]
    record = state_before(dix, k)
    other = 1 - line["seat"]
    stolen = record.game.view(record.state, other).hand[0].code  # a card the other seat holds

    def edit(ls: Lines) -> None:
        target = entries(ls)[k - 1]
        target["command"]["card"] = stolen
        event_of(target, "CardPlayed")["card"] = stolen

    stale = check(tampered(dix, edit, recompute=False))
    assert stale.first_bad_entry == k and "hash does not match" in stale.problems[0].message
    report = check(tampered(dix, edit, recompute=True))
    assert report.first_bad_entry == k, report.text()
    message = report.problems[0].message
    assert f"the rules refuse seat {line['seat']}'s command Play {stolen}" in message
    assert "CARD_NOT_IN_HAND" in message


def test_a_played_card_changed_only_in_the_event_fails_the_rules(dix: Lines) -> None:
    k = plays(dix)[7]
    record = state_before(dix, k)
    seat = entries(dix)[k - 1]["seat"]
    held = [c.code for c in record.game.view(record.state, seat).hand]
    played = entries(dix)[k - 1]["command"]["card"]
    other = next(c for c in held if c != played)
    report = check(
        tampered(
            dix,
            lambda ls: event_of(entries(ls)[k - 1], "CardPlayed").update(card=other),
            recompute=True,
        )
    )
    problem = report.problems[0]
    assert report.first_bad_entry == k
    assert "event 1 (CardPlayed): card is not what the rules give" in problem.message
    assert (problem.expected, problem.found) == (played, other)


# ---------------------------------------------------------------------------- removed, swapped


def seat_changes(lines: Lines, after: int) -> int:
    """A command entry k >= after whose next entry is another seat's."""
    body = entries(lines)
    for k in range(after, len(body) - 1):
        if body[k - 1]["command"] and body[k]["seat"] != body[k - 1]["seat"]:
            return k
    raise AssertionError("no seat change")


def test_an_entry_removed_fails_at_its_place(dix: Lines) -> None:
    k = seat_changes(dix, 30)

    def remove(ls: Lines) -> None:
        ls.remove(entries(ls)[k - 1])

    stale = check(tampered(dix, remove, recompute=False))
    assert stale.first_bad_entry == k
    assert "wrong version" in stale.problems[0].message
    assert (stale.problems[0].expected, stale.problems[0].found) == (str(k), str(k + 1))
    renumbered = check(tampered(dix, remove, recompute=True, renumber=True))
    assert renumbered.first_bad_entry == k, renumbered.text()
    assert "NOT_YOUR_TURN" in renumbered.problems[0].message
    relinked = check(tampered(dix, remove, recompute=True))  # hashes fixed, versions kept
    assert relinked.first_bad_entry == k and "wrong version" in relinked.problems[0].message


def test_two_entries_swapped_fail_at_the_first_of_them(dix: Lines) -> None:
    k = seat_changes(dix, 40)

    def swap(ls: Lines) -> None:
        i = ls.index(entries(ls)[k - 1])
        ls[i], ls[i + 1] = ls[i + 1], ls[i]

    stale = check(tampered(dix, swap, recompute=False))
    assert stale.first_bad_entry == k and "wrong version" in stale.problems[0].message
    report = check(tampered(dix, swap, recompute=True, renumber=True))
    assert report.first_bad_entry == k, report.text()
    assert "NOT_YOUR_TURN" in report.problems[0].message


def test_an_entry_swapped_with_hashes_kept_but_links_stale(dix: Lines) -> None:
    k = seat_changes(dix, 40)

    def swap_versions(ls: Lines) -> None:
        body = entries(ls)
        a, b = body[k - 1], body[k]
        i = ls.index(a)
        ls[i], ls[i + 1] = b, a
        a["version"], b["version"] = b["version"], a["version"]

    report = check(tampered(dix, swap_versions, recompute=False))
    assert report.first_bad_entry == k
    assert "link to the previous entry is broken" in report.problems[0].message


# ---------------------------------------------------------------------------- after the end


def test_an_entry_appended_after_the_end_fails_at_that_entry(dix: Lines) -> None:
    n = last(dix)

    def append(ls: Lines) -> None:
        extra = copy.deepcopy(entries(ls)[n - 2])  # a plausible move
        extra["version"] = n + 1
        ls.insert(len(ls) - 1, extra)

    for recompute in (False, True):
        report = check(tampered(dix, append, recompute=recompute))
        assert report.first_bad_entry == n + 1, report.text()
    report = check(tampered(dix, append, recompute=True))
    assert f"the match ended at entry {n}" in report.problems[0].message


# ---------------------------------------------------------------------------- the seed


def forge_seed(lines: Lines) -> None:
    forged = secrets.token_hex(32)
    event_of(entries(lines)[-1], "SeedRevealed")["server_seed"] = forged
    lines[-1]["revealed_seed"] = forged


def test_a_forged_revealed_seed_fails_at_the_final_entry(dix: Lines) -> None:
    n = last(dix)
    stale = check(tampered(dix, forge_seed, recompute=False))
    assert stale.first_bad_entry == n and "hash does not match" in stale.problems[0].message
    report = check(tampered(dix, forge_seed, recompute=True))
    assert report.first_bad_entry == n, report.text()
    problem = report.problems[0]
    assert "revealed server seed does not match the commitment" in problem.message
    assert problem.expected == dix[0]["commitment"]


def test_a_forged_seed_with_a_forged_commitment_fails_where_the_deals_began(dix: Lines) -> None:
    def forge_both(ls: Lines) -> None:
        forged = secrets.token_bytes(32)
        event_of(entries(ls)[-1], "SeedRevealed")["server_seed"] = forged.hex()
        ls[-1]["revealed_seed"] = forged.hex()
        event_of(entries(ls)[0], "MatchCreated")["commitment"] = commitment(forged)
        ls[0]["commitment"] = commitment(forged)

    report = check(tampered(dix, forge_both, recompute=True))
    assert report.first_bad_entry == 2, report.text()  # the match started when seat 1 joined
    # The log holds no match seed (schema 3): the first draw the forged seed does not give
    # (the lot, or the deck) is the one named.
    assert "from the match seed" in report.problems[0].message


def test_a_commitment_noted_at_creation_pins_the_file(dix: Lines) -> None:
    report = check(dix, expect_commitment="0" * 64)
    assert report.first_bad_entry == 1
    assert "not the one you noted" in report.problems[0].message
    assert check(dix, expect_commitment=dix[0]["commitment"]).verified
    assert check(dix, expect_head=dix[-1]["head"]).verified
    assert not check(dix, expect_head="f" * 64).verified


# ---------------------------------------------------------------------------- the outcome


def test_an_edited_outcome_in_the_footer_fails(dix: Lines) -> None:
    def edit(ls: Lines) -> None:
        ls[-1]["outcome"]["winners"] = [1 - ls[-1]["outcome"]["winners"][0]]

    report = check(tampered(dix, edit, recompute=True))
    problem = report.problems[0]
    assert report.exit_code == 1 and problem.where == "footer" and problem.entry is None
    assert problem.message.startswith("outcome.winners[0] is not what the log says")


def test_an_edited_outcome_in_the_log_fails_at_the_final_entry(dix: Lines) -> None:
    n = last(dix)

    def edit(ls: Lines) -> None:
        ended = event_of(entries(ls)[-1], "MatchEnded")
        ended["winner"] = 1 - ended["winner"]
        ls[-1]["outcome"]["winners"] = [ended["winner"]]

    stale = check(tampered(dix, edit, recompute=False))
    assert stale.first_bad_entry == n and "hash does not match" in stale.problems[0].message
    report = check(tampered(dix, edit, recompute=True))
    assert report.first_bad_entry == n, report.text()
    assert "(MatchEnded): winner is not what the rules give" in report.problems[0].message


def test_the_header_must_agree_with_the_log(dix: Lines) -> None:
    report = check(
        tampered(dix, lambda ls: ls[0]["seats"][1].update(name="mallory"), recompute=False)
    )
    assert report.problems[0].where == "header" and "seats" in report.problems[0].message


def test_a_cut_short_file_is_not_verified(dix: Lines) -> None:
    no_footer = copy.deepcopy(dix)[:-1]
    report = check(no_footer)
    assert report.exit_code == 1 and report.problems[0].where == "footer"

    def cut(ls: Lines) -> None:
        del ls[60:-1]

    unfinished = check(tampered(dix, cut, recompute=True))
    assert unfinished.exit_code == 1 and unfinished.first_bad_entry is None
    assert "the match is not finished" in unfinished.problems[0].message


def test_an_old_log_without_a_head_hash_still_verifies(dix: Lines) -> None:
    def drop_head(ls: Lines) -> None:
        del event_of(entries(ls)[-1], "SeedRevealed")["head"]

    report = check(tampered(dix, drop_head, recompute=True))
    assert report.verified, report.text()
    assert any("no head hash" in note for note in report.notes)


def test_a_wrong_head_hash_in_the_final_event_fails() -> None:
    lines = recorded("six-dozens", 2, b"head")

    def edit(ls: Lines) -> None:
        event_of(entries(ls)[-1], "SeedRevealed")["head"] = "ab" * 32

    body = copy.deepcopy(lines)
    edit(body)
    # Recompute the chain by hand but keep the forged head (rehash would repair it).
    prev = "0" * 64
    for line in entries(body):
        line["prev"] = prev
        line["hash"] = entry_hash(archive.hashed_text(line))
        prev = line["hash"]
    body[-1]["head"] = prev
    report = check(body)
    assert report.first_bad_entry == last(lines)
    assert "head hash is not the hash of the entry before it" in report.problems[0].message


# ---------------------------------------------------------------------------- rules versions


def relabel(lines: Lines, version: str) -> None:
    event_of(entries(lines)[0], "MatchCreated")["rules_version"] = version
    lines[0]["rules_version"] = version


def test_another_rules_version_is_named_and_re_run(dix: Lines) -> None:
    report = check(tampered(dix, lambda ls: relabel(ls, "2025.01"), recompute=True))
    assert report.verified, report.text()
    assert report.rules_version == "2025.01" and report.current_rules_version == "2026.11"
    assert any("recorded under rules 2025.01" in n and "2026.11" in n for n in report.notes)


def test_another_rules_version_lists_every_diverging_entry(dix: Lines) -> None:
    tricks = [line["version"] for line in entries(dix) if has_event("TrickWon")(line)]
    k1, k2 = tricks[3], tricks[40]

    def edit(ls: Lines) -> None:
        relabel(ls, "2025.01")
        for k in (k1, k2):  # "the old rules scored these tricks differently"
            event_of(entries(ls)[k - 1], "TrickWon")["points"] += 1

    report = check(tampered(dix, edit, recompute=True))
    assert report.exit_code == 1
    listed = [p.entry for p in report.divergences]
    assert listed[0] == k1 and k2 in listed and len(listed) >= 2
    assert "diverging entries under rules 2026.11" in report.text()

    # Under the same rules version the first such entry is simply bad.
    def bump(ls: Lines) -> None:
        event_of(entries(ls)[k1 - 1], "TrickWon")["points"] += 1

    same = check(tampered(dix, bump, recompute=True))
    assert same.first_bad_entry == k1 and not same.divergences


# ---------------------------------------------------------------------------- unreadable


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("not json\n", "not JSON"),
        ('{"kind":"entry"}\n', "not a replay header"),
        (
            '{"kind":"header","format":"kozyr-replay","format_version":9,"game":"dix"}\n',
            "format version 9",
        ),
        ('{"kind":"header","format":"pgn","format_version":1,"game":"dix"}\n', "not a kozyr"),
    ],
)
def test_unreadable_files(text: str, why: str) -> None:
    with pytest.raises(archive.Unreadable, match=why):
        archive.parse(text)


def test_an_extra_field_smuggled_into_a_command_fails(dix: Lines) -> None:
    k = plays(dix)[3]
    report = check(
        tampered(dix, lambda ls: entries(ls)[k - 1]["command"].update(note="x"), recompute=True)
    )
    assert report.first_bad_entry == k
    assert "Play: field 'note' is not part of it" in report.problems[0].message
    joined = check(
        tampered(
            dix, lambda ls: event_of(entries(ls)[1], "SeatJoined").update(seat="1"), recompute=True
        )
    )
    assert joined.first_bad_entry == 2


def test_data_the_rules_choke_on_is_a_bad_entry_not_a_crash(dix: Lines) -> None:
    k = plays(dix)[5]
    report = check(
        tampered(dix, lambda ls: entries(ls)[k - 1]["command"].update(card=17), recompute=True)
    )
    assert report.exit_code == 1 and report.first_bad_entry == k, report.text()
