"""Durak with dice: options, setup, the dice deal and deciding a move (DUR-2 … DUR-10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from kozyr.core.cards import Card, Suit, mask_of
from kozyr.core.fairness import RandomStream, deal_label, dice_label
from kozyr.core.fast import constructor
from kozyr.games.contract import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    IllegalMove,
    Setup,
    check_deal_setup,
    check_players,
    resolve_options,
    start_events,
)
from kozyr.games.durak_dice.model import (
    CANNOT_BEAT,
    CANNOT_THROW_IN,
    DEFENDED,
    DRAW,
    FOOL,
    FROM_UNDER_FOOL,
    LOWEST_CARD,
    LOWEST_TRUMP,
    MAX_BOUTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MUST_ATTACK,
    MUST_BEAT_OR_TAKE,
    NOTHING_TO_BEAT,
    NOTHING_TO_TAKE,
    OPTIONS,
    PHASE_ATTACK,
    PHASE_DEFEND,
    PHASE_OVER,
    PHASE_RULES,
    PHASE_THROW,
    TITLE,
    TOOK,
    UNDER_FOOL,
    Attack,
    Beat,
    Beaten,
    BoutStarted,
    Command,
    Config,
    Discarded,
    Event,
    GameEnded,
    MatchEnded,
    MatchInfo,
    Pass,
    State,
    Take,
    Took,
    TrumpTurned,
)
from kozyr.games.durak_dice.tables import (
    ATTACKED,
    AUTO_PASS,
    DECKS,
    OUT,
    PASSED,
    RANK_MASK,
    THROWN,
)

# Events with too many values to make in advance: the fast constructor (kozyr.core.fast).
_beaten: Final = constructor(Beaten)
_bout_started: Final = constructor(BoutStarted)

# --------------------------------------------------------------------------------------------
# Options and start


_NO_SETUP: Final = Setup()


def make_config(options: Mapping[str, object], players: int) -> Config:
    """R-6: check the options (DUR options) and the player count (2–6)."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    raw = resolve_options(OPTIONS, options)
    deck_size = raw["deck"]
    next_first = raw["next_first"]
    max_attacks = raw["max_attacks"]
    games = raw["games"]
    max_bouts = raw["max_bouts"]
    assert isinstance(deck_size, int) and isinstance(next_first, str)
    assert isinstance(max_attacks, int) and isinstance(games, int)
    assert isinstance(max_bouts, int)
    return Config(
        deck=deck_size,
        next_first=next_first,
        max_attacks=max_attacks,
        games=games,
        max_bouts=max_bouts,
    )


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """R-2, R-3: 2 to 6 players, a first dealer who is a seat, prearranged decks of the
    configured deck and prearranged rolls 1..6 (more rolls than a deal needs are ignored)."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    check_deal_setup(setup, players, DECKS[config.deck], dice=True)


def start(
    config: Config, players: Sequence[str], seed: bytes, setup: Setup = _NO_SETUP
) -> tuple[Event, ...]:
    """R-1 … R-3, DUR-2 … DUR-4: record the match, choose the first dealer, deal game 1."""
    check_setup(config, len(players), setup)
    started, chosen = start_events(config, players, seed, setup)
    m = MatchInfo(
        config=config,
        players=started.players,
        n=len(players),
        seed=seed,
        decks=started.decks,
        dice=started.dice,
        prearranged=started.prearranged,
    )
    return (started, chosen, *_deal(m, 1, chosen.seat, None))


def _deal(
    m: MatchInfo, game: int, dealer: int, fool: int | None
) -> tuple[Dealt, TrumpTurned, BoutStarted]:
    """DUR-2 … DUR-4: shuffle (or take the prearranged order), roll and deal, pick the attacker."""
    if game <= len(m.decks):
        order = m.decks[game - 1]
    else:
        order = RandomStream(m.seed, deal_label(game)).shuffle(DECKS[m.config.deck])
    # DUR-2: the top card is turned up and put under the deck, so it is dealt last.
    seq = order[1:] + order[:1]
    given = m.dice[game - 1] if game <= len(m.dice) else ()
    stream: RandomStream | None = None
    n = m.n
    hands: list[list[Card]] = [[] for _ in range(n)]
    rolls: list[tuple[int, int]] = []
    pos, total, seat = 0, len(seq), (dealer + 1) % n
    while pos < total:
        i = len(rolls)
        if i < len(given):
            roll = given[i]
        else:
            if stream is None:
                stream = RandomStream(m.seed, dice_label(game))
            roll = stream.die()
        take = min(roll, total - pos)
        hands[seat].extend(seq[pos : pos + take])
        pos += take
        rolls.append((seat, roll))
        seat = (seat + 1) % n
    sorted_hands = tuple(tuple(sorted(h)) for h in hands)
    trump_card = order[0]
    assert trump_card.suit is not None
    if fool is None:
        attacker, reason = first_attacker(sorted_hands, trump_card.suit, dealer)
    elif m.config.next_first == UNDER_FOOL:
        attacker, reason = (fool - 1) % n, UNDER_FOOL
    else:
        attacker, reason = (fool + 1) % n, FROM_UNDER_FOOL
    # Every seat holds cards after a deal (even six players get ≥ 1 card in the first round).
    defender = next_holder(tuple(len(h) for h in hands), attacker, n)
    assert defender is not None
    return (
        Dealt(
            number=game, dealer=dealer, deck=tuple(order), rolls=tuple(rolls), hands=sorted_hands
        ),
        TrumpTurned(trump_card, tuple(len(h) for h in hands)),
        _bout_started(bout=1, attacker=attacker, defender=defender, reason=reason),
    )


def first_attacker(hands: Sequence[Sequence[Card]], trump: Suit, dealer: int) -> tuple[int, str]:
    """DUR-4: the holder of the lowest trump; else of the lowest card (ties clockwise)."""
    n = len(hands)
    best: tuple[int, int] | None = None
    for seat, hand in enumerate(hands):
        for c in hand:
            if c.suit == trump and (best is None or c.rank < best[0]):
                best = (c.rank, seat)
    if best is not None:
        return best[1], LOWEST_TRUMP
    low = min(c.rank for h in hands for c in h)
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        if any(c.rank == low for c in hands[seat]):
            return seat, LOWEST_CARD
    raise AssertionError("nobody holds a card")  # pragma: no cover - every card is dealt


def next_holder(hands: Sequence[int], seat: int, n: int) -> int | None:
    """The first seat clockwise after `seat` (not `seat` itself) that holds cards."""
    for i in range(1, n):
        s = (seat + i) % n
        if hands[s]:
            return s
    return None


# --------------------------------------------------------------------------------------------
# decide


def decide(state: State, seat: int, command: Command) -> tuple[Event, ...]:
    """The events a command causes (DUR-5 … DUR-10), automatic consequences included (R-4)."""
    phase = state.phase
    if seat != state.actor or phase == PHASE_OVER or not 0 <= seat < state.m.n:
        raise _refused(state, seat)
    ct = type(command)
    if ct is Attack or ct is Beat:  # an attack, a throw-in or a beat: most moves (DUR-5 … 7)
        assert isinstance(command, (Attack, Beat))
        card = command.card
        if type(card) is not Card or not state.hands[seat] >> card.index & 1:
            raise IllegalMove(
                CARD_NOT_IN_HAND,
                f"you do not hold {card}: play a card you hold",
                rule=PHASE_RULES[phase],
            )
        if ct is Attack:
            if phase == PHASE_ATTACK:
                return _play(state, seat, card, ATTACKED[seat][card.index])
            if phase == PHASE_THROW:
                if not state.ranks >> card.index & 1:
                    raise IllegalMove(
                        CANNOT_THROW_IN,
                        f"you may only throw in a rank already on the table: "
                        f"{_ranks_text(state.table)}",
                        rule="DUR-7",
                    )
                return _play(state, seat, card, THROWN[seat][card.index])
            raise IllegalMove(MUST_BEAT_OR_TAKE, "you defend: beat the card or take", rule="DUR-6")
        if phase != PHASE_DEFEND:
            raise IllegalMove(NOTHING_TO_BEAT, "there is no card for you to beat", rule="DUR-6")
        return _beat(state, seat, card)
    if ct is Take:
        return _take(state, seat)
    if ct is Pass:
        return _pass(state, seat)
    raise IllegalMove(
        UNKNOWN_COMMAND,
        f"Durak with dice has no move {ct.__name__}: attack, beat, take or pass",
        rule=PHASE_RULES[phase],
    )


def _refused(state: State, seat: int) -> IllegalMove:
    """Why `seat` may make no move now: no such seat, the match is over, or it is not its turn."""
    n = state.m.n
    if not 0 <= seat < n:
        return IllegalMove(
            NOT_A_SEAT, f"there is no seat {seat}: seats are 0 to {n - 1}", rule="DUR-5"
        )
    if state.phase == PHASE_OVER:
        return IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="DUR-10")
    return IllegalMove(
        NOT_YOUR_TURN,
        f"it is not your turn: waiting for seat {state.actor}",
        rule=PHASE_RULES[state.phase],
    )


def _take(state: State, seat: int) -> tuple[Event, ...]:
    """The defender takes every card on the table; the bout ends (DUR-6)."""
    if state.phase != PHASE_DEFEND:
        raise IllegalMove(
            NOTHING_TO_TAKE,
            "only the defender takes, while a card waits to be beaten",
            rule="DUR-6",
        )
    cards = tuple(c for pair in state.table for c in pair if c is not None)
    events: list[Event] = [Took(seat, cards)]
    hands = list(state.hands)
    hands[seat] |= mask_of(cards)
    _end_bout(state, hands, seat, True, events)
    return tuple(events)


def _pass(state: State, seat: int) -> tuple[Event, ...]:
    """A seat that may throw in passes; the next seat is asked (DUR-7)."""
    if state.phase == PHASE_ATTACK:
        raise IllegalMove(MUST_ATTACK, "you open the bout: play any card", rule="DUR-5")
    if state.phase == PHASE_DEFEND:
        raise IllegalMove(MUST_BEAT_OR_TAKE, "you defend: beat the card or take", rule="DUR-6")
    events: list[Event] = [PASSED[seat]]
    _scan(state, state.hands, state.ranks, state.table, state.k + 1, events)
    return tuple(events)


def _ranks_text(table: tuple[tuple[Card, Card | None], ...]) -> str:
    ranks = sorted({c.rank for pair in table for c in pair if c is not None})
    return ", ".join(r.code for r in ranks)


def _play(state: State, seat: int, card: Card, event: Event) -> tuple[Event, ...]:
    """DUR-5, DUR-7: an opening card or a throw-in; the player may go out (DUR-9)."""
    if state.hands[seat] == 1 << card.index:
        return (event, OUT[seat])
    return (event,)


def _beat(state: State, seat: int, card: Card) -> tuple[Event, ...]:
    """DUR-6, DUR-7: beat the pending card, then run the throw-in order until someone can throw."""
    attack = state.table[-1][0]
    if not state.g.beats[attack.index] >> card.index & 1:
        raise IllegalMove(CANNOT_BEAT, _cannot_beat_text(card, attack, state.g.trump), rule="DUR-6")
    events: list[Event] = [_beaten(seat=seat, attack=attack, card=card)]
    hands = list(state.hands)
    left = hands[seat] & ~(1 << card.index)
    hands[seat] = left
    if not left:
        events.append(OUT[seat])
    ranks = state.ranks | RANK_MASK[card.index]
    table = (*state.table[:-1], (attack, card))
    cap = state.m.config.max_attacks
    if left and not (cap and state.attacks >= cap):
        _scan(state, hands, ranks, table, 0, events)
    else:
        _defended(state, hands, table, events)
    return tuple(events)


def _cannot_beat_text(card: Card, attack: Card, trump: Suit | None) -> str:
    assert attack.suit is not None and trump is not None
    if attack.suit == trump:
        return f"{card} cannot beat {attack}: play a higher trump ({trump.symbol})"
    return (
        f"{card} cannot beat {attack}: play a higher {attack.suit.symbol} or a trump "
        f"({trump.symbol})"
    )


def _scan(
    state: State,
    hands: Sequence[int],
    ranks: int,
    table: tuple[tuple[Card, Card | None], ...],
    k: int,
    events: list[Event],
) -> None:
    """DUR-7, R-4: from throw offset k, pass for who cannot throw; end the bout if all pass."""
    n = state.m.n
    attacker = state.attacker
    defender = state.defender
    assert attacker is not None
    while k < n:
        s = (attacker + k) % n
        if s != defender:
            h = hands[s]
            if h:
                if h & ranks:
                    return  # this seat decides (evolve puts the turn there)
                events.append(AUTO_PASS[s])
        k += 1
    _defended(state, hands, table, events)


def _defended(
    state: State,
    hands: Sequence[int],
    table: tuple[tuple[Card, Card | None], ...],
    events: list[Event],
) -> None:
    """DUR-8: the defence succeeded; the table goes to the discard pile."""
    defender = state.defender
    assert defender is not None
    events.append(Discarded(defender, tuple(c for pair in table for c in pair if c is not None)))
    _end_bout(state, hands, defender, False, events)


def _end_bout(
    state: State, hands: Sequence[int], defender: int, took: bool, events: list[Event]
) -> None:
    """DUR-8, DUR-9, R-5: check the game's end, else start the next bout."""
    m = state.m
    n = m.n
    holders = [s for s in range(n) if hands[s]]
    if len(holders) <= 1:
        fool = holders[0] if holders else None
        events.append(GameEnded(state.g.number, fool, FOOL if fool is not None else DRAW))
        _end_game(state, fool, events)
        return
    if state.bout >= m.config.max_bouts:
        events.append(GameEnded(state.g.number, None, MAX_BOUTS))
        _end_game(state, None, events)
        return
    # DUR-8: after a defence the defender attacks (if he still holds cards), after a take the
    # next player holding cards clockwise from him.
    attacker = next_holder(hands, defender, n) if took or not hands[defender] else defender
    assert attacker is not None
    nxt = next_holder(hands, attacker, n)
    assert nxt is not None
    events.append(
        _bout_started(
            bout=state.bout + 1, attacker=attacker, defender=nxt, reason=TOOK if took else DEFENDED
        )
    )


def _end_game(state: State, fool: int | None, events: list[Event]) -> None:
    """DUR-4, DUR-10: deal the next game (the fool deals) or end the match."""
    m = state.m
    fools = state.fools
    if fool is not None:
        fools = (*fools[:fool], fools[fool] + 1, *fools[fool + 1 :])
    if state.g.number < m.config.games:
        dealer = state.g.dealer if fool is None else fool
        events.extend(_deal(m, state.g.number + 1, dealer, fool))
        return
    least = min(fools)
    events.append(MatchEnded(fools, tuple(s for s in range(m.n) if fools[s] == least)))
