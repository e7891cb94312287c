"""Six Dozens: options, setup, the deal, deciding a card and the automatic consequences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Final

from kozyr.core import fairness
from kozyr.core.cards import Card, Rank, Suit, deck
from kozyr.games.contract import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    IllegalMove,
    InvalidOptions,
    Setup,
    check_deal_setup,
    check_players,
    resolve_options,
    start_events,
)
from kozyr.games.six_dozens.evolve import (
    on_bank,
    on_covered,
    on_dealer,
    on_dealt,
    on_out,
    on_played,
    on_settled,
    on_started,
)
from kozyr.games.six_dozens.model import (
    CARD_COST,
    CARD_NOT_PLAYABLE,
    DEFAULT_SUITS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS,
    STOCK_SIZE,
    SUIT_COUNT,
    TITLE,
    BankCovered,
    BankTurned,
    Config,
    Event,
    HandSettled,
    Match,
    MatchEnded,
    Play,
    PlayerOut,
    State,
)
from kozyr.games.six_dozens.tables import (
    DECKS,
    IDX,
    PASSED,
    PLAYED,
    SHARES,
    SKIPPED,
    category,
    next_holder,
)

_INDEX: Final = attrgetter("index")

# --------------------------------------------------------------------------------------------
# Options and start


def make_config(options: Mapping[str, object], players: int) -> Config:
    """R-6, SIX options: validate the options for `players` seats and fill SIX-4 defaults."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    o = resolve_options(OPTIONS, options)
    mode = str(o["trumps"])
    raw = o["trump_suits"]
    suits: tuple[Suit, ...]
    if raw is None:
        suits = (
            (Suit.S, Suit.H, Suit.D, Suit.C)[:players]
            if mode == "PERSONAL"
            else (DEFAULT_SUITS[mode])
        )
    else:
        assert isinstance(raw, tuple)
        suits = tuple(raw)
        want = players if mode == "PERSONAL" else SUIT_COUNT[mode]
        if len(suits) != want:
            what = {
                "PERSONAL": f"one suit per player ({players})",
                "NONE": "no suits",
                "ONE": "one suit",
                "TWO": "two suits",
                "SENIOR_JUNIOR": "two suits (senior, then junior)",
            }[mode]
            raise InvalidOptions(
                "BAD_OPTION_VALUE",
                f"option 'trump_suits' for trumps {mode} takes {what}, not {len(suits)}",
                rule="SIX-4",
            )
    max_hands = o["max_hands"]
    deck_size = o["deck"]
    eight = o["eight_on_trumps"]
    assert isinstance(max_hands, int) and isinstance(deck_size, int) and isinstance(eight, bool)
    return Config(
        deck=deck_size,
        trumps=mode,
        trump_suits=suits,
        seven=str(o["seven"]),
        dealer=str(o["dealer"]),
        max_hands=max_hands,
        final_kitty=str(o["final_kitty"]),
        eight_on_trumps=eight,
    )


_NO_SETUP = Setup()


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """SIX-4, R-2, R-3: 2 to 4 players, one personal trump per player, a first dealer who is a
    seat and prearranged decks of the configured deck."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    if config.trumps == "PERSONAL" and len(config.trump_suits) != players:
        raise InvalidOptions(
            "BAD_OPTION_VALUE",
            f"trumps PERSONAL needs one trump suit per player ({players})",
            rule="SIX-4",
        )
    check_deal_setup(setup, players, deck(config.deck), dice=False)


def start(
    config: Config, players: Sequence[str], seed: bytes, setup: Setup = _NO_SETUP
) -> tuple[Event, ...]:
    """R-1, R-2, SIX-5, SIX-10: open the match, draw the first dealer, deal hand 1, run the
    opening checks (covers, passes) until the first real decision."""
    check_setup(config, len(players), setup)
    first, chosen = start_events(config, players, seed, setup)
    state = on_dealer(on_started(None, first), chosen)
    dealt, turned = _deal(state.match, 1, chosen.seat)
    state = on_bank(on_dealt(state, dealt), turned)
    events: list[Event] = [first, chosen, dealt, turned]
    _auto(state, events)
    return tuple(events)


def _deal(m: Match, hand_number: int, dealer: int) -> tuple[Dealt, BankTurned]:
    """SIX-5, SIX-7: the deal of hand `hand_number` (deck from setup or the seed, R-1, R-3)."""
    if hand_number <= len(m.decks):
        order = m.decks[hand_number - 1]
    else:
        order = fairness.RandomStream(m.seed, fairness.deal_label(hand_number)).shuffle(
            DECKS[m.config.deck]
        )
    n = m.n
    size = HAND_SIZE[m.config.deck]
    # One card at a time from the dealer's left: seat (dealer + 1 + k) % n gets every n-th card
    # from position k. Hands are sorted by index (as Card orders itself), by a C-level key.
    dealt: list[tuple[Card, ...]] = [()] * n
    for k in range(n):
        dealt[(dealer + 1 + k) % n] = tuple(sorted(order[k : n * size : n], key=_INDEX))
    bank = order[n * size]
    hands = tuple(dealt)
    # SIX-7: the holder of the bank's suit card with the highest idx; else the dealer's left.
    first_mover = (dealer + 1) % n
    best = -1
    for seat, h in enumerate(hands):
        for c in h:
            if c.suit == bank.suit and IDX[c.rank] > best:
                best = IDX[c.rank]
                first_mover = seat
    return (
        Dealt(number=hand_number, dealer=dealer, deck=tuple(order), rolls=(), hands=hands),
        BankTurned(bank=bank, hand_size=size, stock_count=STOCK_SIZE[n], first_mover=first_mover),
    )


def deal_order(
    dealer: int, hands: Sequence[Sequence[Card]], rest: Sequence[Card]
) -> tuple[Card, ...]:
    """SIX-5 backwards: a deck order that deals `hands` (equal sizes, by seat) from `dealer`'s
    left and then leaves `rest` (bank, stock top first, set-aside cards) in that order."""
    n = len(hands)
    return (*(hands[(dealer + 1 + j) % n][j // n] for j in range(n * len(hands[0]))), *rest)


# --------------------------------------------------------------------------------------------
# Deciding


def decide(state: State, seat: int, command: object) -> tuple[Event, ...]:
    """SIX-6, SIX-8: play a card; emits its automatic consequences (R-4, SIX-8 … SIX-13)."""
    m = state.match
    if not 0 <= seat < m.n:
        raise IllegalMove(
            NOT_A_SEAT, f"there is no seat {seat}: seats are 0 to {m.n - 1}", rule="SIX-8"
        )
    if state.table.result is not None:
        raise IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="SIX-12")
    if seat != state.turn:
        raise IllegalMove(
            NOT_YOUR_TURN, f"it is not your turn: seat {state.turn} is to play", rule="SIX-8"
        )
    if type(command) is not Play:
        raise IllegalMove(
            UNKNOWN_COMMAND,
            f"Six Dozens has no move {type(command).__name__}: play a card",
            rule="SIX-8",
        )
    card = command.card
    if not isinstance(card, Card) or not (state.hands[seat] >> card.index) & 1:
        raise IllegalMove(
            CARD_NOT_IN_HAND, f"you do not hold {card}: play a card you hold", rule="SIX-8"
        )
    bank = state.bank
    assert bank is not None
    if not (m.legal[seat][bank.index] >> card.index) & 1:
        raise IllegalMove(
            CARD_NOT_PLAYABLE, _not_playable(m.config, seat, card, bank), rule="SIX-6"
        )
    played = PLAYED[seat][card.index]
    events: list[Event] = [played]
    hands = list(state.hands)
    hands[seat] &= ~(1 << card.index)
    if hands[seat]:
        # The usual play: follow the turn on the hands alone (the state after the card is
        # built only when the hand must cover, settle or deal, below).
        new_hands = tuple(hands)
        if _turns(
            m,
            new_hands,
            state.table.out_order,
            card.index,
            next_holder(new_hands, seat),
            m.skip_on_seven and card.rank == 7,
            events,
        ):
            return tuple(events)
    s = on_played(state, played)
    if not s.hands[seat]:
        out = PlayerOut(seat, len(s.table.out_order) + 1)
        events.append(out)
        s = on_out(s, out)
    _auto(s, events)
    return tuple(events)


def _not_playable(config: Config, seat: int, card: Card, bank: Card) -> str:
    idx = IDX[bank.rank]
    options = []
    nxt = [r for r, i in IDX.items() if i == idx + 1]
    if nxt and bank.suit is not None:
        options.append(f"{Rank(nxt[0]).code}{bank.suit.letter}")
    options.append(f"a {bank.rank.code}")
    if bank.rank != Rank.SIX and bank.suit is not None:
        options.append(f"6{bank.suit.letter}")
    options.append("an 8")
    if category(config, seat, bank) < 2 and config.trumps != "NONE":
        options.append("a card of a higher trump category")
    return (
        f"{card.code} cannot go on the bank {bank.code}: "
        f"play {', '.join(options[:-1])} or {options[-1]}"
    )


def _turns(
    m: Match,
    hands: tuple[int, ...],
    out_order: tuple[int, ...],
    bank: int,
    turn: int,
    skip: bool,
    events: list[Event],
) -> bool:
    """SIX-8: if the hand goes on (SIX-10: more than one holder, or nobody out yet, and some
    holder can play on bank index `bank`), append the skip and the passes up to the seat that
    must decide and say True; else append nothing and say False (a cover or a settlement)."""
    if out_order:
        holders = 0
        for h in hands:
            if h:
                holders += 1
        if holders == 1:
            return False
    legal = m.legal
    for p in range(m.n):
        if hands[p] & legal[p][bank]:
            break
    else:
        return False
    # Skips and passes only move the turn, so follow it here without new states; this
    # terminates because some holder has a legal card and passes change nothing.
    if skip:
        events.append(SKIPPED[turn])
        turn = next_holder(hands, turn)
    while not hands[turn] & legal[turn][bank]:
        events.append(PASSED[turn])
        turn = next_holder(hands, turn)
    return True


def _auto(s: State, events: list[Event]) -> None:
    """R-4: the automatic consequences — SIX-10 checks and covers, SIX-8 skips and passes,
    SIX-11 settlement, SIX-12 match end, SIX-13 next deal — appended to `events` until a seat
    must decide or the match is over."""
    m = s.match
    while True:
        t = s.table
        assert s.bank is not None and s.turn is not None
        if _turns(m, s.hands, t.out_order, s.bank.index, s.turn, s.skip_next, events):
            return
        if t.out_order and sum(1 for h in s.hands if h) == 1:
            condition = 1
        elif t.out_order:
            condition = 2
        elif t.stock:
            covered = BankCovered(t.stock[0])
            events.append(covered)
            s = on_covered(s, covered)
            continue
        else:
            condition = 3
        settled = _settle(s, condition)
        events.append(settled)
        s = on_settled(s, settled)
        t = s.table
        if min(t.capitals) <= 0 or t.hand_number >= m.config.max_hands:
            events.append(_match_end(s))
            return
        dealt, turned = _deal(m, t.hand_number + 1, _next_dealer(s, settled))
        events += (dealt, turned)
        s = on_bank(on_dealt(s, dealt), turned)


def _split(kitty: int, order: Sequence[int], n: int) -> list[int]:
    """SIX-11 proportions of `kitty` by finishing `order` (at most three share)."""
    received = [0] * n
    takers = list(order[:3])
    if not takers or kitty <= 0:
        return received
    given = 0
    for p, (num, den) in zip(takers, SHARES[len(takers)], strict=True):
        share = kitty * num // den
        received[p] = share
        given += share
    received[takers[0]] += kitty - given
    return received


def _settle(s: State, condition: int) -> HandSettled:
    """SIX-11: penalties into the kitty; the finishers share it, or it carries over."""
    n = s.match.n
    cards_left = tuple(h.bit_count() for h in s.hands)
    paid = tuple(CARD_COST * c for c in cards_left)
    kitty = s.kitty + sum(paid)
    if s.out_order:
        received = _split(kitty, s.out_order, n)
        kitty = 0
    else:
        received = [0] * n
    capitals = tuple(s.capitals[p] - paid[p] + received[p] for p in range(n))
    return HandSettled(
        hand_number=s.hand_number,
        condition=condition,
        out_order=s.out_order,
        cards_left=cards_left,
        paid=paid,
        received=tuple(received),
        capitals=capitals,
        kitty=kitty,
    )


def _first_clockwise(n: int, start: int, candidates: Sequence[int]) -> int:
    for k in range(n):
        p = (start + k) % n
        if p in candidates:
            return p
    return start


def _next_dealer(s: State, settled: HandSettled) -> int:
    """SIX-13: the dealer of the next hand; ties clockwise from the previous dealer's left."""
    n = s.match.n
    rule = s.match.config.dealer
    left = (s.dealer + 1) % n
    if rule == "FIRST_MOVER":
        return s.first_mover
    if rule == "FIRST_OUT":
        return s.out_order[0] if s.out_order else left
    if rule == "LOSER":
        values = settled.cards_left
        target = max(values)
    else:
        values = settled.capitals
        target = max(values) if rule == "MOST_POINTS" else min(values)
    return _first_clockwise(n, left, [p for p in range(n) if values[p] == target])


def _match_end(s: State) -> MatchEnded:
    """SIX-12: final kitty (discard or split among the solvent), then the highest capital."""
    m = s.match
    n = m.n
    capitals = list(s.capitals)
    shares = [0] * n
    discarded = s.kitty
    if s.kitty and m.config.final_kitty == "SPLIT_SOLVENT":
        left = (s.dealer + 1) % n
        clockwise = [(left + k) % n for k in range(n)]
        solvent = [p for p in clockwise if capitals[p] > 0]
        # Highest capital first; sorted() is stable, so ties stay clockwise from the left.
        solvent.sort(key=lambda p: -capitals[p])
        if solvent:
            shares = _split(s.kitty, solvent, n)
            discarded = 0
            capitals = [capitals[p] + shares[p] for p in range(n)]
    best = max(capitals)
    winners = tuple(p for p in range(n) if capitals[p] == best)
    ruined = [p for p in range(n) if s.capitals[p] <= 0]
    if ruined:
        reason = f"after hand {s.hand_number} " + ", ".join(
            f"seat {p} is ruined (capital {s.capitals[p]})" for p in ruined
        )
    else:
        reason = f"the hand limit ({m.config.max_hands}) was reached"
    return MatchEnded(
        winners=winners,
        capitals=tuple(capitals),
        kitty_shares=tuple(shares),
        kitty_discarded=discarded,
        hands_played=s.hand_number,
        reason=reason,
    )
