"""Six Dozens: card order and trump categories, and the precomputed SIX-6 legality tables."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from kozyr.core.cards import ALL_CARDS, Card, Rank, deck, mask_of
from kozyr.games.six_dozens.model import (
    HAND_SIZE,
    MAX_PLAYERS,
    CardPlayed,
    Config,
    Passed,
    Play,
    TurnSkipped,
)

# --------------------------------------------------------------------------------------------
# Card tables (SIX-1, SIX-4, SIX-6)

# SIX-1: A=0, 10=1, K=2, Q=3, J=4, 9=5, 8=6, 7=7, 6=8 (the 6 is the most senior).
IDX: dict[int, int] = {14: 0, 10: 1, 13: 2, 12: 3, 11: 4, 9: 5, 8: 6, 7: 7, 6: 8}
_RANK_AT: dict[int, int] = {i: r for r, i in IDX.items()}
_PLAYS: tuple[Play, ...] = tuple(Play(c) for c in ALL_CARDS)
# Per suit, per pattern of its nine ranks 6 … A (bits 4 … 12 of the suit's 13, the only ones
# a Six Dozens deck has): the Play commands of those cards, by index.
SUIT_PLAYS: Final = tuple(
    tuple(
        tuple(_PLAYS[s * 13 + 4 + b] for b in range(9) if pattern >> b & 1)
        for pattern in range(512)
    )
    for s in range(4)
)
# The events of a turn, made once (they are frozen values): by seat, and by seat and card index.
PLAYED: Final = tuple(tuple(CardPlayed(p, c) for c in ALL_CARDS) for p in range(MAX_PLAYERS))
PASSED: Final = tuple(Passed(p) for p in range(MAX_PLAYERS))
SKIPPED: Final = tuple(TurnSkipped(p) for p in range(MAX_PLAYERS))
SHARES: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((2, 3), (1, 3)),
    3: ((1, 2), (1, 3), (1, 6)),
}
PLACES = ("", "1st", "2nd", "3rd", "4th")
# The decks of SIX-2 in canonical order, and as bitmasks (made once, not per hand).
DECKS: Final = {size: deck(size) for size in HAND_SIZE}
DECK_MASKS: Final = {size: mask_of(cards) for size, cards in DECKS.items()}


def category(config: Config, seat: int, card: Card) -> int:
    """SIX-4: the trump category of `card` for `seat` (0 plain, 1 trump/junior, 2 senior)."""
    mode = config.trumps
    suits = config.trump_suits
    if mode == "NONE":
        return 0
    if mode == "PERSONAL":
        return 1 if seat < len(suits) and card.suit == suits[seat] else 0
    if mode == "SENIOR_JUNIOR":
        if card.suit == suits[0]:
            return 2
        return 1 if card.suit == suits[1] else 0
    return 1 if card.suit in suits else 0


def _clauses(config: Config, seat: int, card: Card, bank: Card) -> bool:
    """SIX-6 (a)–(e) as written."""
    if card.suit == bank.suit and IDX[card.rank] == IDX[bank.rank] + 1:  # (a)
        return True
    if card.rank == bank.rank:  # (b)
        return True
    if card.rank == Rank.SIX and card.suit == bank.suit:  # (c)
        return True
    cat_c = category(config, seat, card)
    cat_b = category(config, seat, bank)
    if card.rank == Rank.EIGHT and (config.eight_on_trumps or cat_b <= cat_c):  # (d)
        return True
    return cat_c > cat_b  # (e)


def may_play(config: Config, seat: int, card: Card, bank: Card) -> bool:
    """SIX-6: may `seat` put `card` on `bank` (on its own turn)?"""
    if (
        card.rank == Rank.EIGHT
        and not config.eight_on_trumps
        and category(config, seat, bank) > category(config, seat, card)
    ):
        return False  # the option's "only": no clause puts such an 8 on a higher category
    return _clauses(config, seat, card, bank)


def legal_table(config: Config, n: int) -> tuple[tuple[int, ...], ...]:
    """SIX-6 as bitmasks: table[p][b.index] = the cards seat p may put on bank b.

    Categories depend only on the suit, so each clause is a union of suit and rank masks
    (`may_play` is the same rule card by card; the tests check they agree).
    """
    # Made once per combination of the options SIX-6 reads, not per match and fold (it was
    # 7% of a Six Dozens playout); the key leaves out the other options, so the cache stays small.
    return _legal_rows(
        Config(
            deck=config.deck,
            trumps=config.trumps,
            trump_suits=config.trump_suits,
            eight_on_trumps=config.eight_on_trumps,
        ),
        n,
    )


@lru_cache(maxsize=256)
def _legal_rows(config: Config, n: int) -> tuple[tuple[int, ...], ...]:
    cards = DECKS[config.deck]
    suit_mask = [0, 0, 0, 0]
    rank_mask = dict.fromkeys(IDX, 0)
    for c in cards:
        bit = 1 << c.index
        suit_mask[c.index // 13] |= bit
        rank_mask[c.rank] |= bit
    eights_all = rank_mask[8]
    tables: list[tuple[int, ...]] = []
    for seat in range(n):
        if seat and config.trumps != "PERSONAL":
            tables.append(tables[0])  # the categories do not depend on the seat
            continue
        cat = [category(config, seat, ALL_CARDS[s * 13]) for s in range(4)]
        higher = [0, 0, 0, 0]  # (e): every card of a suit of higher category
        eights = [eights_all] * 4  # (d)
        for bs in range(4):
            for s in range(4):
                if cat[s] > cat[bs]:
                    higher[bs] |= suit_mask[s]
                elif cat[s] < cat[bs] and not config.eight_on_trumps:
                    eights[bs] &= ~suit_mask[s]
        row = [0] * 53
        for b in cards:
            bs = b.index // 13
            mask = rank_mask[b.rank] | higher[bs] | eights[bs]  # (b), (e), (d)
            mask |= rank_mask[6] & suit_mask[bs]  # (c)
            place = IDX[b.rank] + 1
            if place <= 8:  # (a): the next card towards the 6, if the deck has it
                mask |= (1 << (bs * 13 + _RANK_AT[place] - 2)) & suit_mask[bs]
            if not config.eight_on_trumps:
                mask &= ~eights_all | eights[bs]  # the option keeps lower 8s off, whatever clause
            row[b.index] = mask & ~(1 << b.index)
        tables.append(tuple(row))
    return tuple(tables)


def next_holder(hands: tuple[int, ...], seat: int) -> int:
    """The next seat clockwise after `seat` that still holds cards (`seat` itself if none)."""
    n = len(hands)
    for k in range(1, n + 1):
        p = (seat + k) % n
        if hands[p]:
            return p
    return seat
