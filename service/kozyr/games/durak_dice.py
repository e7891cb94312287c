"""Durak with dice («Дурак с костями»): 2–6 players shed cards; the last holding any is the fool.

RULES.md "Durak with dice" (DUR-1 … DUR-10) and R-1 … R-6. The whole deck is dealt by die
rolls (DUR-3); there is no stock. A bout is one attacker against the next player holding cards;
at most one unbeaten card lies on the table; after each beat the others may throw in a card of a
rank on the table, attacker first (DUR-7). A match is `games` games; fewest fools wins (DUR-10).

Decisions where RULES.md is silent (the seed text does not decide them either):

- Taking (DUR-6, DUR-8) is only possible while a card waits to be beaten. "Even with nothing to
  beat" is read as R-4 words it: "a take when nothing can beat" — with no card able to beat, the
  defender still sends Take himself. Once everything on the table is beaten the defender has
  nothing to do until the next throw-in or the end of the bout.
- Rolls past the prearranged ones of a game (`Setup.dice`) come from the stream ``dice/k`` read
  from its start: the first missing roll is that stream's first die.
- A roll is recorded as thrown, also when it is larger than the cards left (DUR-3 takes
  ``min(roll, cards left)``).
- Every card is dealt (DUR-3), so somebody always holds a trump and the "lowest card" fallback of
  DUR-4 cannot happen with real deals; it is implemented anyway (lowest rank, ties to the first
  seat clockwise from the dealer's left).
- A player is out the moment his hand empties; `out` lists seats in that order (within one card
  play: the player of the card). A player without cards is skipped everywhere (throw order, next
  attacker, next defender) but the game's end is only checked when a bout ends (DUR-9).
- A pass (DUR-7) holds only until the next beat: after a beat the order restarts at the attacker
  and everyone holding cards is asked again. Nothing but `max_attacks` limits the number of
  throw-ins (the defender beats them one at a time).
- The attacker may open a bout with his last card; a thrower may throw his last card.
- `max_bouts` (R-5) counts the bouts of one game; when the bout numbered `max_bouts` ends and the
  end check has not ended the game, the game is a draw. After any draw the same dealer deals and
  the next game opens as the first (lowest trump).
- The discard pile is face down, but its cards were seen on the table, so the event that moves a
  bout there lists them; a taken pile is listed likewise (public). Cards everybody has seen in a
  hand — the turned-up trump card (dealt last, to the last roller) and taken cards, until played —
  are public: the view lists them per seat (`known`), and `zones` keeps them apart from the unseen
  part of each hand.
- Automatic throw-in passes are events of their own (`Passed(automatic=True)`), so the log shows
  who could not throw.
- `Setup.decks`/`Setup.dice` entries beyond `games` are checked and ignored.
- The view's `trump`/`trump_card` are None only in the instant before the first deal (the events
  of `start` are always folded together, so nobody sees that state).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from kozyr.cards import ALL_CARDS, Card, Suit, cards_of, deck, mask_of
from kozyr.fairness import RandomStream, deal_label, dice_label
from kozyr.games.base import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    FirstDealerChosen,
    IllegalMove,
    MatchStarted,
    OptionSpec,
    Outcome,
    Setup,
    check_deal_setup,
    check_players,
    redact_dealt,
    redact_started,
    resolve_options,
    start_events,
)

NAME: str = "durak-dice"
TITLE: str = "Durak with dice"
MIN_PLAYERS: int = 2
MAX_PLAYERS: int = 6
RULES_VERSION: str = "2026.11"

UNDER_FOOL: Final = "UNDER_FOOL"
FROM_UNDER_FOOL: Final = "FROM_UNDER_FOOL"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("deck", "int", 36, "DUR-1: 36 cards (6..A) or 52 (2..A)", choices=(36, 52),
               rule="DUR-1"),
    OptionSpec(
        "next_first",
        "enum",
        UNDER_FOOL,
        "DUR-4: who attacks first in later games: the fool's right (UNDER_FOOL) or left "
        "(FROM_UNDER_FOOL) neighbour",
        choices=(UNDER_FOOL, FROM_UNDER_FOOL),
        rule="DUR-4",
    ),
    OptionSpec(
        "max_attacks", "int", 0, "DUR-7: attack cards per bout, opening included (0 = no cap)",
        minimum=0, maximum=52, rule="DUR-7",
    ),
    OptionSpec("games", "int", 1, "DUR-10: games in the match", minimum=1, maximum=1_000,
               rule="DUR-10"),
    OptionSpec("max_bouts", "int", 1000, "R-5, DUR-9: a game with this many bouts is a draw",
               minimum=1, maximum=100_000, rule="R-5"),
)

# Reason codes of this game (the shared ones come from base).
CANNOT_BEAT: Final = "CANNOT_BEAT"
CANNOT_THROW_IN: Final = "CANNOT_THROW_IN"
NOTHING_TO_BEAT: Final = "NOTHING_TO_BEAT"
NOTHING_TO_TAKE: Final = "NOTHING_TO_TAKE"
MUST_ATTACK: Final = "MUST_ATTACK"
MUST_BEAT_OR_TAKE: Final = "MUST_BEAT_OR_TAKE"

# Why a bout's attacker attacks (BoutStarted.reason).
LOWEST_TRUMP: Final = "LOWEST_TRUMP"
LOWEST_CARD: Final = "LOWEST_CARD"
DEFENDED: Final = "DEFENDED"
TOOK: Final = "TOOK"

# How a game ended (GameEnded.reason).
FOOL: Final = "FOOL"
DRAW: Final = "DRAW"
MAX_BOUTS: Final = "MAX_BOUTS"


# --------------------------------------------------------------------------------------------
# Config, commands, events


@dataclass(frozen=True, slots=True)
class Config:
    """The options of a match (DUR options, R-6)."""

    deck: int = 36
    next_first: str = UNDER_FOOL
    max_attacks: int = 0
    games: int = 1
    max_bouts: int = 1000


@dataclass(frozen=True, slots=True)
class Attack:
    """DUR-5, DUR-7: open a bout with any card, or throw in a card of a rank on the table."""

    card: Card


@dataclass(frozen=True, slots=True)
class Beat:
    """DUR-6: the defender beats the pending card with this card."""

    card: Card


@dataclass(frozen=True, slots=True)
class Take:
    """DUR-6, DUR-8: the defender picks up every card on the table."""


@dataclass(frozen=True, slots=True)
class Pass:
    """DUR-7: decline to throw in when it is your turn to throw."""


@dataclass(frozen=True, slots=True)
class TrumpTurned:
    """DUR-2, DUR-3: right after `Dealt`, the turned-up trump card (dealt last, so the last
    roller holds it) and every hand's size, which a viewer's `Dealt` does not show."""

    card: Card
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoutStarted:
    """DUR-4, DUR-8: bout number, attacker, defender and why this attacker attacks."""

    bout: int
    attacker: int
    defender: int
    reason: str


@dataclass(frozen=True, slots=True)
class Attacked:
    """DUR-5: the attacker opens the bout with a card."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class ThrownIn:
    """DUR-7: a player throws in a card of a rank on the table."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Beaten:
    """DUR-6: the defender beats the pending attack card."""

    seat: int
    attack: Card
    card: Card


@dataclass(frozen=True, slots=True)
class Passed:
    """DUR-7: a player does not throw in (automatic when he holds no card he may throw, R-4)."""

    seat: int
    automatic: bool


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """DUR-9: a player's hand is empty; he is out of this game."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """DUR-8: the defence succeeded; the table's cards go to the discard pile."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Took:
    """DUR-8: the defender picks up every card on the table (public: they were on the table)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """DUR-9: the game's fool, or None for a draw (reason FOOL, DRAW or MAX_BOUTS)."""

    game: int
    fool: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """DUR-10: every seat's fool count and the winners (fewest fools)."""

    fools: tuple[int, ...]
    winners: tuple[int, ...]


Command = Attack | Beat | Take | Pass
Event = (
    MatchStarted[Config] | FirstDealerChosen | Dealt | TrumpTurned | BoutStarted | Attacked
    | ThrownIn | Beaten | Passed | PlayerOut | Discarded | Took | GameEnded | MatchEnded
)

COMMAND_TYPES: tuple[type, ...] = (Attack, Beat, Take, Pass)
EVENT_TYPES: tuple[type, ...] = (
    MatchStarted[Config], FirstDealerChosen, Dealt, TrumpTurned, BoutStarted, Attacked, ThrownIn,
    Beaten, Passed, PlayerOut, Discarded, Took, GameEnded, MatchEnded,
)


# --------------------------------------------------------------------------------------------
# State and view

# Phases of the state: whose decision is awaited and of which kind.
_IDLE: Final = 0  # between events of one decision (never the resting state of a running match)
_ATTACK: Final = 1  # the attacker opens the bout
_DEFEND: Final = 2  # the defender beats or takes
_THROW: Final = 3  # the seat at the throw offset may throw in or pass
_OVER: Final = 4  # the match is over
_PHASE_NAMES: Final = ("IDLE", "ATTACK", "DEFEND", "THROW", "OVER")
# The rule each phase's decision follows (named when a move is refused).
_PHASE_RULES: Final = ("DUR-8", "DUR-5", "DUR-6", "DUR-7", "DUR-10")


@dataclass(frozen=True, slots=True)
class _Match:
    """What does not change during a match."""

    config: Config
    players: tuple[str, ...]
    n: int
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    dice: tuple[tuple[int, ...], ...]
    prearranged: bool


@dataclass(frozen=True, slots=True)
class _Game:
    """What does not change during one game."""

    number: int
    dealer: int
    trump: Suit | None
    trump_card: Card | None
    rolls: tuple[tuple[int, int], ...]
    beats: tuple[int, ...]  # card index -> bit mask of the cards that beat it (DUR-6)


@dataclass(frozen=True, slots=True)
class State:
    """The whole match (hidden parts included); hands are bit masks over Card.index."""

    m: _Match
    g: _Game
    hands: tuple[int, ...]
    phase: int
    attacker: int | None
    defender: int | None
    actor: int | None
    k: int  # offset from the attacker of the seat whose throw-in turn it is (DUR-7)
    table: tuple[tuple[Card, Card | None], ...]
    ranks: int  # mask of every card whose rank lies on the table (DUR-7)
    attacks: int
    discard: int  # mask of the discard pile
    out: tuple[int, ...]
    fools: tuple[int, ...]
    draws: int
    bout: int
    last_bout: tuple[tuple[Card, Card | None], ...]
    last_taker: int | None
    # Per seat, the cards of its hand everybody has seen: the turned-up trump card (dealt last,
    # the rolls show to whom) and taken cards (they lay on the table), until played.
    known: tuple[int, ...]

    @property
    def config(self) -> Config:
        """The match's options."""
        return self.m.config


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may see (a seat, or None for a spectator)."""

    seat: int | None
    players: tuple[str, ...]
    to_act: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    hand_number: int
    dealer: int
    finished: bool
    trump: Suit | None
    trump_card: Card | None
    attacker: int | None
    defender: int | None
    table: tuple[tuple[Card, Card | None], ...]
    discard_count: int
    out: tuple[int, ...]
    fools: tuple[int, ...]
    game_number: int
    games: int
    bout_number: int
    rolls: tuple[tuple[int, int], ...]
    phase: str
    last_bout: tuple[tuple[Card, Card | None], ...]
    last_bout_taken_by: int | None
    draws: int
    prearranged: bool
    known: tuple[tuple[Card, ...], ...]  # per seat: held cards everybody saw (trump card, taken)


# --------------------------------------------------------------------------------------------
# Precomputed tables (constant)

_CARDS: Final = ALL_CARDS[:52]
_DECKS: Final = {36: deck(36), 52: deck(52)}
_DECK_MASKS: Final = {size: mask_of(cards) for size, cards in _DECKS.items()}
# Card index -> mask of the four cards of its rank.
_RANK_MASK: Final = tuple(
    sum(1 << (s * 13 + c.rank - 2) for s in range(4)) for c in _CARDS
)


def _beat_table(trump: int) -> tuple[int, ...]:
    """DUR-6: per card index, the mask of cards that beat it with `trump` as trump suit."""
    out = []
    trump_mask = sum(1 << (trump * 13 + r) for r in range(13))
    for c in _CARDS:
        s, r = c.index // 13, c.index % 13
        mask = sum(1 << (s * 13 + h) for h in range(r + 1, 13))
        if s != trump:
            mask |= trump_mask
        out.append(mask)
    return tuple(out)


_BEATS: Final = tuple(_beat_table(s) for s in range(4))
_ATTACKS: Final = tuple(Attack(c) for c in _CARDS)
_BEATS_CMD: Final = tuple(Beat(c) for c in _CARDS)
_TAKE: Final = Take()
_PASS: Final = Pass()
_AUTO_PASS: Final = tuple(Passed(s, True) for s in range(MAX_PLAYERS))
_OUT: Final = tuple(PlayerOut(s) for s in range(MAX_PLAYERS))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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
    return Config(deck_size, next_first, max_attacks, games, max_bouts)


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """R-2, R-3: 2 to 6 players, a first dealer who is a seat, prearranged decks of the
    configured deck and prearranged rolls 1..6 (more rolls than a deal needs are ignored)."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    check_deal_setup(setup, players, _DECKS[config.deck], dice=True)


def start(
    config: Config, players: Sequence[str], seed: bytes, setup: Setup = _NO_SETUP
) -> tuple[Event, ...]:
    """R-1 … R-3, DUR-2 … DUR-4: record the match, choose the first dealer, deal game 1."""
    check_setup(config, len(players), setup)
    started, chosen = start_events(config, players, seed, setup)
    m = _Match(config, started.players, len(players), seed, started.decks, started.dice,
               started.prearranged)
    return (started, chosen, *_deal(m, 1, chosen.seat, None))


def _deal(
    m: _Match, game: int, dealer: int, fool: int | None
) -> tuple[Dealt, TrumpTurned, BoutStarted]:
    """DUR-2 … DUR-4: shuffle (or take the prearranged order), roll and deal, pick the attacker."""
    if game <= len(m.decks):
        order = m.decks[game - 1]
    else:
        order = RandomStream(m.seed, deal_label(game)).shuffle(_DECKS[m.config.deck])
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
        attacker, reason = _first_attacker(sorted_hands, trump_card.suit, dealer)
    elif m.config.next_first == UNDER_FOOL:
        attacker, reason = (fool - 1) % n, UNDER_FOOL
    else:
        attacker, reason = (fool + 1) % n, FROM_UNDER_FOOL
    # Every seat holds cards after a deal (even six players get ≥ 1 card in the first round).
    defender = _next_holder(tuple(len(h) for h in hands), attacker, n)
    assert defender is not None
    return (
        Dealt(game, dealer, tuple(order), tuple(rolls), sorted_hands),
        TrumpTurned(trump_card, tuple(len(h) for h in hands)),
        BoutStarted(1, attacker, defender, reason),
    )


def _first_attacker(
    hands: Sequence[Sequence[Card]], trump: Suit, dealer: int
) -> tuple[int, str]:
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


def _next_holder(hands: Sequence[int], seat: int, n: int) -> int | None:
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
    m = state.m
    if not 0 <= seat < m.n:
        raise IllegalMove(NOT_A_SEAT, f"there is no seat {seat}: seats are 0 to {m.n - 1}",
                          rule="DUR-5")
    phase = state.phase
    if phase == _OVER:
        raise IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="DUR-10")
    if seat != state.actor:
        raise IllegalMove(NOT_YOUR_TURN, f"it is not your turn: waiting for seat {state.actor}",
                          rule=_PHASE_RULES[phase])
    ct = type(command)
    if ct is Attack or ct is Beat:
        assert isinstance(command, (Attack, Beat))
        card = command.card
        if type(card) is not Card or not state.hands[seat] >> card.index & 1:
            raise IllegalMove(CARD_NOT_IN_HAND, f"you do not hold {card}: play a card you hold",
                              rule=_PHASE_RULES[phase])
        if ct is Attack:
            if phase == _ATTACK:
                return _play(state, seat, card, Attacked(seat, card))
            if phase == _THROW:
                if not state.ranks >> card.index & 1:
                    raise IllegalMove(
                        CANNOT_THROW_IN,
                        f"you may only throw in a rank already on the table: "
                        f"{_ranks_text(state.table)}",
                        rule="DUR-7",
                    )
                return _play(state, seat, card, ThrownIn(seat, card))
            raise IllegalMove(MUST_BEAT_OR_TAKE, "you defend: beat the card or take",
                              rule="DUR-6")
        if phase != _DEFEND:
            raise IllegalMove(NOTHING_TO_BEAT, "there is no card for you to beat", rule="DUR-6")
        return _beat(state, seat, card)
    if ct is Take:
        if phase != _DEFEND:
            raise IllegalMove(
                NOTHING_TO_TAKE, "only the defender takes, while a card waits to be beaten",
                rule="DUR-6",
            )
        cards = tuple(c for pair in state.table for c in pair if c is not None)
        events: list[Event] = [Took(seat, cards)]
        hands = list(state.hands)
        hands[seat] |= mask_of(cards)
        _end_bout(state, hands, seat, True, events)
        return tuple(events)
    if ct is Pass:
        if phase == _ATTACK:
            raise IllegalMove(MUST_ATTACK, "you open the bout: play any card", rule="DUR-5")
        if phase == _DEFEND:
            raise IllegalMove(MUST_BEAT_OR_TAKE, "you defend: beat the card or take",
                              rule="DUR-6")
        events = [Passed(seat, False)]
        _scan(state, state.hands, state.ranks, state.table, state.k + 1, events)
        return tuple(events)
    raise IllegalMove(UNKNOWN_COMMAND,
                      f"Durak with dice has no move {ct.__name__}: attack, beat, take or pass",
                      rule=_PHASE_RULES[phase])


def _ranks_text(table: tuple[tuple[Card, Card | None], ...]) -> str:
    ranks = sorted({c.rank for pair in table for c in pair if c is not None})
    return ", ".join(r.code for r in ranks)


def _play(state: State, seat: int, card: Card, event: Event) -> tuple[Event, ...]:
    """DUR-5, DUR-7: an opening card or a throw-in; the player may go out (DUR-9)."""
    if state.hands[seat] == 1 << card.index:
        return (event, _OUT[seat])
    return (event,)


def _beat(state: State, seat: int, card: Card) -> tuple[Event, ...]:
    """DUR-6, DUR-7: beat the pending card, then run the throw-in order until someone can throw."""
    attack = state.table[-1][0]
    if not state.g.beats[attack.index] >> card.index & 1:
        raise IllegalMove(CANNOT_BEAT, _cannot_beat_text(card, attack, state.g.trump),
                          rule="DUR-6")
    events: list[Event] = [Beaten(seat, attack, card)]
    hands = list(state.hands)
    left = hands[seat] & ~(1 << card.index)
    hands[seat] = left
    if not left:
        events.append(_OUT[seat])
    ranks = state.ranks | _RANK_MASK[card.index]
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
                events.append(_AUTO_PASS[s])
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
    attacker = _next_holder(hands, defender, n) if took or not hands[defender] else defender
    assert attacker is not None
    nxt = _next_holder(hands, attacker, n)
    assert nxt is not None
    events.append(BoutStarted(state.bout + 1, attacker, nxt, TOOK if took else DEFENDED))


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


# --------------------------------------------------------------------------------------------
# evolve


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (pure)."""
    if state is None:
        if not isinstance(event, MatchStarted):
            raise ValueError("a match starts with MatchStarted")
        return _start_state(event)
    return _EVOLVERS[type(event)](state, event)


def _start_state(e: MatchStarted[Config]) -> State:
    n = len(e.players)
    m = _Match(e.config, e.players, n, e.seed, e.decks, e.dice, e.prearranged)
    g = _Game(0, 0, None, None, (), _BEATS[0])
    zeros = (0,) * n
    return State(
        m, g, zeros, _IDLE, None, None, None, 0, (), 0, 0, 0, (), zeros, 0, 0, (), None, zeros
    )


def _ev_dealer(s: State, e: FirstDealerChosen) -> State:
    g = _Game(0, e.seat, None, None, (), s.g.beats)
    return State(
        s.m, g, s.hands, s.phase, None, None, None, 0, (), 0, 0, 0, (), s.fools, s.draws, 0, (),
        None, s.known,
    )


def _ev_dealt(s: State, e: Dealt) -> State:
    g = _Game(e.number, e.dealer, None, None, e.rolls, _BEATS[0])
    hands = tuple(mask_of(h) for h in e.hands)
    zeros = (0,) * s.m.n
    return State(
        s.m, g, hands, _IDLE, None, None, None, 0, (), 0, 0, 0, (), s.fools, s.draws, 0, (), None,
        zeros,
    )


def _ev_trump(s: State, e: TrumpTurned) -> State:
    trump_card = e.card
    trump = trump_card.suit
    assert trump is not None
    g0 = s.g
    g = _Game(g0.number, g0.dealer, trump, trump_card, g0.rolls, _BEATS[trump])
    bit = 1 << trump_card.index
    known = tuple(bit if h & bit else 0 for h in s.hands)
    return State(
        s.m, g, s.hands, _IDLE, None, None, None, 0, (), 0, 0, 0, (), s.fools, s.draws, 0, (), None,
        known,
    )


def _ev_bout(s: State, e: BoutStarted) -> State:
    return State(
        s.m, s.g, s.hands, _ATTACK, e.attacker, e.defender, e.attacker, 0, (), 0, 0, s.discard,
        s.out, s.fools, s.draws, e.bout, s.last_bout, s.last_taker, s.known,
    )


def _unknown(known: tuple[int, ...], seat: int, bit: int) -> tuple[int, ...]:
    """`known` without a card that `seat` just played (most plays were never known)."""
    if not known[seat] & bit:
        return known
    out = list(known)
    out[seat] &= ~bit
    return tuple(out)


def _ev_card(s: State, e: Attacked | ThrownIn) -> State:
    seat, card = e.seat, e.card
    i = card.index
    bit = 1 << i
    hands = list(s.hands)
    hands[seat] &= ~bit
    return State(
        s.m, s.g, tuple(hands), _DEFEND, s.attacker, s.defender, s.defender, s.k,
        (*s.table, (card, None)), s.ranks | _RANK_MASK[i], s.attacks + 1, s.discard, s.out,
        s.fools, s.draws, s.bout, s.last_bout, s.last_taker, _unknown(s.known, seat, bit),
    )


def _first_thrower(hands: Sequence[int], attacker: int, defender: int, n: int, k: int) -> int:
    """DUR-7: the first throw offset ≥ k whose seat holds cards and is not the defender."""
    while k < n:
        t = (attacker + k) % n
        if t != defender and hands[t]:
            return k
        k += 1
    return n


def _ev_beaten(s: State, e: Beaten) -> State:
    i = e.card.index
    bit = 1 << i
    hands = list(s.hands)
    left = hands[e.seat] & ~bit
    hands[e.seat] = left
    attacker, defender = s.attacker, s.defender
    assert attacker is not None and defender is not None
    n = s.m.n
    cap = s.m.config.max_attacks
    phase, actor, k = _IDLE, None, n
    if left and not (cap and s.attacks >= cap):
        k = _first_thrower(hands, attacker, defender, n, 0)
        if k < n:
            phase, actor = _THROW, (attacker + k) % n
    return State(
        s.m, s.g, tuple(hands), phase, attacker, defender, actor, k,
        (*s.table[:-1], (e.attack, e.card)), s.ranks | _RANK_MASK[i], s.attacks, s.discard,
        s.out, s.fools, s.draws, s.bout, s.last_bout, s.last_taker, _unknown(s.known, e.seat, bit),
    )


def _ev_passed(s: State, e: Passed) -> State:
    attacker, defender = s.attacker, s.defender
    assert attacker is not None and defender is not None
    n = s.m.n
    k = _first_thrower(s.hands, attacker, defender, n, s.k + 1)
    if k < n:
        phase, actor = _THROW, (attacker + k) % n
    else:
        phase, actor = _IDLE, None
    return State(
        s.m, s.g, s.hands, phase, attacker, defender, actor, k, s.table, s.ranks, s.attacks,
        s.discard, s.out, s.fools, s.draws, s.bout, s.last_bout, s.last_taker, s.known,
    )


def _ev_out(s: State, e: PlayerOut) -> State:
    return State(
        s.m, s.g, s.hands, s.phase, s.attacker, s.defender, s.actor, s.k, s.table, s.ranks,
        s.attacks, s.discard, (*s.out, e.seat), s.fools, s.draws, s.bout, s.last_bout,
        s.last_taker, s.known,
    )


def _ev_discarded(s: State, e: Discarded) -> State:
    return State(
        s.m, s.g, s.hands, _IDLE, s.attacker, s.defender, None, 0, (), 0, s.attacks,
        s.discard | mask_of(e.cards), s.out, s.fools, s.draws, s.bout, s.table, None, s.known,
    )


def _ev_took(s: State, e: Took) -> State:
    taken = mask_of(e.cards)
    hands = list(s.hands)
    hands[e.seat] |= taken
    known = list(s.known)
    known[e.seat] |= taken
    return State(
        s.m, s.g, tuple(hands), _IDLE, s.attacker, s.defender, None, 0, (), 0, s.attacks,
        s.discard, s.out, s.fools, s.draws, s.bout, s.table, e.seat, tuple(known),
    )


def _ev_game_ended(s: State, e: GameEnded) -> State:
    fools, draws = s.fools, s.draws
    if e.fool is None:
        draws += 1
    else:
        fools = (*fools[: e.fool], fools[e.fool] + 1, *fools[e.fool + 1 :])
    return State(
        s.m, s.g, s.hands, _IDLE, None, None, None, 0, s.table, s.ranks, s.attacks, s.discard,
        s.out, fools, draws, s.bout, s.last_bout, s.last_taker, s.known,
    )


def _ev_match_ended(s: State, e: MatchEnded) -> State:
    return State(
        s.m, s.g, s.hands, _OVER, None, None, None, 0, s.table, s.ranks, s.attacks, s.discard,
        s.out, s.fools, s.draws, s.bout, s.last_bout, s.last_taker, s.known,
    )


def _ev_started_again(s: State, e: MatchStarted) -> State:
    raise ValueError("MatchStarted only opens a match")


_EVOLVERS: Final[dict[type, Callable[..., State]]] = {
    MatchStarted: _ev_started_again,
    FirstDealerChosen: _ev_dealer,
    Dealt: _ev_dealt,
    TrumpTurned: _ev_trump,
    BoutStarted: _ev_bout,
    Attacked: _ev_card,
    ThrownIn: _ev_card,
    Beaten: _ev_beaten,
    Passed: _ev_passed,
    PlayerOut: _ev_out,
    Discarded: _ev_discarded,
    Took: _ev_took,
    GameEnded: _ev_game_ended,
    MatchEnded: _ev_match_ended,
}


# --------------------------------------------------------------------------------------------
# Queries


def legal_commands(state: State, seat: int) -> tuple[Command, ...]:
    """Every command `seat` may send now, cards by index (DUR-5 … DUR-7)."""
    if seat != state.actor:
        return ()
    phase = state.phase
    hand = state.hands[seat]
    out: list[Command] = []
    if phase == _ATTACK:
        table: tuple[Attack, ...] | tuple[Beat, ...] = _ATTACKS
    elif phase == _DEFEND:
        hand &= state.g.beats[state.table[-1][0].index]
        table = _BEATS_CMD
    else:
        hand &= state.ranks
        table = _ATTACKS
    while hand:
        low = hand & -hand
        out.append(table[low.bit_length() - 1])
        hand ^= low
    if phase == _DEFEND:
        out.append(_TAKE)
    elif phase == _THROW:
        out.append(_PASS)
    return tuple(out)


def to_act(state: State) -> int | None:
    """The seat whose decision is awaited; None once the match is over."""
    return state.actor


def outcome(state: State) -> Outcome | None:
    """DUR-10: fool counts per seat; the fewest fools win, equal counts share."""
    if state.phase != _OVER:
        return None
    fools = state.fools
    least = min(fools)
    winners = tuple(s for s in range(state.m.n) if fools[s] == least)
    games = state.m.config.games
    who = ", ".join(str(s) for s in winners)
    reason = (
        f"fewest fools ({least} in {_plural(games, 'game')}): "
        f"seat{'s' if len(winners) > 1 else ''} {who}"
    )
    details = (("games", str(games)), ("draws", str(state.draws)))
    return Outcome(winners, fools, reason, details)


def view(state: State, viewer: int | None) -> View:
    """What `viewer` may see: own hand, everyone's counts, the table, dice and trump."""
    g = state.g
    hands = state.hands
    own = cards_of(hands[viewer]) if viewer is not None and 0 <= viewer < state.m.n else ()
    return View(
        seat=viewer,
        players=state.m.players,
        to_act=state.actor,
        hand=own,
        hand_sizes=tuple(h.bit_count() for h in hands),
        hand_number=g.number,
        dealer=g.dealer,
        finished=state.phase == _OVER,
        trump=g.trump,
        trump_card=g.trump_card,
        attacker=state.attacker,
        defender=state.defender,
        table=state.table,
        discard_count=state.discard.bit_count(),
        out=state.out,
        fools=state.fools,
        game_number=g.number,
        games=state.m.config.games,
        bout_number=state.bout,
        rolls=g.rolls,
        phase=_PHASE_NAMES[state.phase],
        last_bout=state.last_bout,
        last_bout_taken_by=state.last_taker,
        draws=state.draws,
        prearranged=state.m.prearranged,
        known=tuple(cards_of(k) for k in state.known),
    )


def redact(event: Event, viewer: int | None) -> Event | None:
    """The event as `viewer` sees it: the seed, deck orders and other hands removed."""
    if type(event) is Dealt:
        return redact_dealt(event, viewer)
    if type(event) is MatchStarted:
        return redact_started(event)
    return event


def zones(state: State) -> dict[str, tuple[Card, ...]]:
    """Where every card is: unseen and seen part of each hand, the table, the discard pile."""
    if state.g.trump_card is None:
        return {"undealt": _DECKS[state.m.config.deck]}
    out = {}
    for seat, (hand, known) in enumerate(zip(state.hands, state.known, strict=True)):
        out[f"hand/{seat}"] = cards_of(hand & ~known)
        out[f"known/{seat}"] = cards_of(known)
    out["table"] = tuple(c for pair in state.table for c in pair if c is not None)
    out["discard"] = cards_of(state.discard)
    return out


def hidden_zones(state: State, viewer: int | None) -> tuple[str, ...]:
    """The zones `viewer` may not see: the unseen part of the other hands."""
    hidden = tuple(f"hand/{s}" for s in range(state.m.n) if s != viewer)
    return (*hidden, "undealt") if state.g.trump_card is None else hidden


def with_zones(state: State, new: Mapping[str, Sequence[Card]]) -> State:
    """The state with its cards placed as `new` says (the zones of `zones`; for tests)."""
    s = state
    if s.g.trump_card is None:
        return s
    n = s.m.n
    known = tuple(mask_of(new[f"known/{p}"]) for p in range(n))
    hands = tuple(mask_of(new[f"hand/{p}"]) | known[p] for p in range(n))
    flat = tuple(new["table"])
    table = tuple(
        (flat[i], flat[i + 1] if i + 1 < len(flat) else None) for i in range(0, len(flat), 2)
    )
    ranks = 0
    for c in flat:
        ranks |= _RANK_MASK[c.index]
    return State(
        s.m, s.g, hands, s.phase, s.attacker, s.defender, s.actor, s.k, table, ranks, s.attacks,
        mask_of(new["discard"]), s.out, s.fools, s.draws, s.bout, s.last_bout, s.last_taker, known,
    )


# --------------------------------------------------------------------------------------------
# Text


def _pair_text(pair: tuple[Card, Card | None]) -> str:
    a, d = pair
    return f"{a.pretty}/{d.pretty if d is not None else '--'}"


def _wrap(prefix: str, words: Sequence[str], width: int = 78) -> list[str]:
    lines: list[str] = []
    line = prefix + " "
    indent = " " * len(line)
    for w in words:
        if len(line) + len(w) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += w + " "
    lines.append(line.rstrip())
    return lines


def render(view: View) -> str:
    """A plain-text table as `view`'s viewer sees it (at most 78 columns)."""
    head = f"Durak with dice - game {view.game_number}/{view.games}, bout {view.bout_number}"
    head += f", dealer seat {view.dealer}"
    if view.prearranged:
        head += " [prearranged]"
    lines = [head[:78]]
    trump = (
        f"Trump {view.trump.symbol} ({view.trump_card.pretty} turned up)"
        if view.trump is not None and view.trump_card is not None
        else "Trump -"
    )
    fools = " ".join(str(f) for f in view.fools)
    lines.append(f"{trump}   discard {view.discard_count}   fools {fools}   draws {view.draws}")
    lines.extend(_wrap("Dice:", [f"s{s}:{r}" for s, r in view.rolls])[:2])
    for s, name in enumerate(view.players):
        mark = ">" if view.to_act == s else " "
        if s in view.out:
            status = f"out ({view.out.index(s) + 1})"
        else:
            status = _plural(view.hand_sizes[s], "card")
        role = "attacker" if s == view.attacker else "defender" if s == view.defender else ""
        lines.append(f"{mark} seat {s} {name[:20]:<20} {status:<10} {role}".rstrip())
    lines.extend(_wrap("Table:", [_pair_text(p) for p in view.table] or ["(empty)"]))
    if view.last_bout:
        how = (
            f"taken by seat {view.last_bout_taken_by}"
            if view.last_bout_taken_by is not None
            else "discarded"
        )
        lines.extend(_wrap(f"Last bout ({how}):", [_pair_text(p) for p in view.last_bout])[:1])
    if view.seat is not None:
        lines.extend(_wrap(f"Hand (seat {view.seat}):", [c.pretty for c in view.hand]))
    if view.finished:
        lines.append("Match over.")
    return "\n".join(line[:78] for line in lines)


def describe(event: Event) -> str:
    """One readable line for an event."""
    if isinstance(event, MatchStarted):
        extra = ", prearranged" if event.prearranged else ""
        return (
            f"match of {_plural(event.config.games, 'game')} for {len(event.players)} players "
            f"({', '.join(event.players)}), {event.config.deck} cards{extra}"
        )
    if isinstance(event, FirstDealerChosen):
        return f"seat {event.seat} deals first" + (" (by lot)" if event.by_lot else "")
    if isinstance(event, Dealt):
        rolls = " ".join(f"s{s}:{r}" for s, r in event.rolls)
        return f"game {event.number}: seat {event.dealer} deals; rolls {rolls}"
    if isinstance(event, TrumpTurned):
        sizes = " ".join(str(k) for k in event.hand_sizes)
        return f"trump card {event.card}; cards {sizes}"
    if isinstance(event, BoutStarted):
        why = {
            LOWEST_TRUMP: "lowest trump",
            LOWEST_CARD: "lowest card",
            UNDER_FOOL: "under the fool",
            FROM_UNDER_FOOL: "from under the fool",
            DEFENDED: "after a defence",
            TOOK: "after a take",
        }.get(event.reason, event.reason)
        return f"bout {event.bout}: seat {event.attacker} attacks seat {event.defender} ({why})"
    if isinstance(event, Attacked):
        return f"seat {event.seat} attacks with {event.card}"
    if isinstance(event, ThrownIn):
        return f"seat {event.seat} throws in {event.card}"
    if isinstance(event, Beaten):
        return f"seat {event.seat} beats {event.attack} with {event.card}"
    if isinstance(event, Passed):
        return f"seat {event.seat} passes" + (" (nothing to throw)" if event.automatic else "")
    if isinstance(event, PlayerOut):
        return f"seat {event.seat} is out of cards"
    if isinstance(event, Discarded):
        return (
            f"seat {event.seat} defends; {_plural(len(event.cards), 'card')} to the discard pile"
        )
    if isinstance(event, Took):
        return (
            f"seat {event.seat} takes {_plural(len(event.cards), 'card')}: "
            + " ".join(c.code for c in event.cards)
        )
    if isinstance(event, GameEnded):
        if event.fool is not None:
            return f"game {event.game} ends: seat {event.fool} is the fool"
        if event.reason == MAX_BOUTS:
            return f"game {event.game} ends in a draw (bout limit)"
        return f"game {event.game} ends in a draw: nobody holds cards"
    if isinstance(event, MatchEnded):
        fools = " ".join(str(f) for f in event.fools)
        who = ", ".join(str(s) for s in event.winners)
        return f"match over: fools {fools}; winners: seat(s) {who}"
    raise TypeError(f"not an event of Durak with dice: {event!r}")
