"""Durak with dice: applying one event to the state."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from kozyr.core.cards import mask_of
from kozyr.core.fast import constructor, replacer
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
)
from kozyr.games.durak_dice.model import (
    PHASE_ATTACK,
    PHASE_DEFEND,
    PHASE_IDLE,
    PHASE_OVER,
    PHASE_THROW,
    Attacked,
    Beaten,
    BoutStarted,
    Config,
    Discarded,
    Event,
    GameEnded,
    GameInfo,
    MatchEnded,
    MatchInfo,
    Passed,
    PlayerOut,
    State,
    ThrownIn,
    Took,
    TrumpTurned,
)
from kozyr.games.durak_dice.tables import BEATS, RANK_MASK

# A state or two a move: the fast constructor (kozyr.core.fast), called by keyword.
_state: Final = constructor(State)
_game: Final = constructor(GameInfo)
# A state with a few fields changed, every other one kept: a call with all 19 by keyword is
# past CPython's limit for a direct call (its compiler builds a dict of them), a fifth slower.
_changed: Final = replacer(State)
# The handlers of a move's or a bout's events change the same fields every time, and say which
# (core.fast: no test per field of whether it was given; a Durak playout ~4 % cheaper).
_on_bout: Final = replacer(
    State, "phase", "attacker", "defender", "actor", "k", "table", "ranks", "attacks", "bout"
)
_on_out: Final = replacer(State, "out")
_on_discarded: Final = replacer(
    State, "phase", "actor", "k", "table", "ranks", "discard", "last_bout", "last_taker"
)
_on_took: Final = replacer(
    State, "hands", "phase", "actor", "k", "table", "ranks", "last_bout", "last_taker", "known"
)
_on_card: Final = replacer(State, "hands", "phase", "actor", "table", "ranks", "attacks", "known")
_on_beaten: Final = replacer(
    State, "hands", "phase", "attacker", "defender", "actor", "k", "table", "ranks", "known"
)
_on_turn: Final = replacer(State, "phase", "attacker", "defender", "actor", "k")

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
    m = MatchInfo(
        config=e.config,
        players=e.players,
        n=n,
        seed=e.seed,
        decks=e.decks,
        dice=e.dice,
        prearranged=e.prearranged,
    )
    g = _game(number=0, dealer=0, trump=None, trump_card=None, rolls=(), beats=BEATS[0])
    zeros = (0,) * n
    return _state(
        m=m,
        g=g,
        hands=zeros,
        phase=PHASE_IDLE,
        attacker=None,
        defender=None,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        attacks=0,
        discard=0,
        out=(),
        fools=zeros,
        draws=0,
        bout=0,
        last_bout=(),
        last_taker=None,
        known=zeros,
    )


def _ev_dealer(s: State, e: FirstDealerChosen) -> State:
    g = _game(number=0, dealer=e.seat, trump=None, trump_card=None, rolls=(), beats=s.g.beats)
    return _changed(
        s,
        g=g,
        attacker=None,
        defender=None,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        attacks=0,
        discard=0,
        out=(),
        bout=0,
        last_bout=(),
        last_taker=None,
    )


def _ev_dealt(s: State, e: Dealt) -> State:
    g = _game(
        number=e.number,
        dealer=e.dealer,
        trump=None,
        trump_card=None,
        rolls=e.rolls,
        beats=BEATS[0],
    )
    hands = tuple(mask_of(h) for h in e.hands)
    zeros = (0,) * s.m.n
    return _changed(
        s,
        g=g,
        hands=hands,
        phase=PHASE_IDLE,
        attacker=None,
        defender=None,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        attacks=0,
        discard=0,
        out=(),
        bout=0,
        last_bout=(),
        last_taker=None,
        known=zeros,
    )


def _ev_trump(s: State, e: TrumpTurned) -> State:
    trump_card = e.card
    trump = trump_card.suit
    assert trump is not None
    g0 = s.g
    g = _game(
        number=g0.number,
        dealer=g0.dealer,
        trump=trump,
        trump_card=trump_card,
        rolls=g0.rolls,
        beats=BEATS[trump],
    )
    bit = 1 << trump_card.index
    known = tuple(bit if h & bit else 0 for h in s.hands)
    return _changed(
        s,
        g=g,
        phase=PHASE_IDLE,
        attacker=None,
        defender=None,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        attacks=0,
        discard=0,
        out=(),
        bout=0,
        last_bout=(),
        last_taker=None,
        known=known,
    )


def _ev_bout(s: State, e: BoutStarted) -> State:
    return _on_bout(
        s,
        phase=PHASE_ATTACK,
        attacker=e.attacker,
        defender=e.defender,
        actor=e.attacker,
        k=0,
        table=(),
        ranks=0,
        attacks=0,
        bout=e.bout,
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
    return _on_card(
        s,
        hands=tuple(hands),
        phase=PHASE_DEFEND,
        actor=s.defender,
        table=(*s.table, (card, None)),
        ranks=s.ranks | RANK_MASK[i],
        attacks=s.attacks + 1,
        known=_unknown(s.known, seat, bit),
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
    phase, actor, k = PHASE_IDLE, None, n
    if left and not (cap and s.attacks >= cap):
        k = _first_thrower(hands, attacker, defender, n, 0)
        if k < n:
            phase, actor = PHASE_THROW, (attacker + k) % n
    return _on_beaten(
        s,
        hands=tuple(hands),
        phase=phase,
        attacker=attacker,
        defender=defender,
        actor=actor,
        k=k,
        table=(*s.table[:-1], (e.attack, e.card)),
        ranks=s.ranks | RANK_MASK[i],
        known=_unknown(s.known, e.seat, bit),
    )


def _ev_passed(s: State, e: Passed) -> State:
    attacker, defender = s.attacker, s.defender
    assert attacker is not None and defender is not None
    n = s.m.n
    k = _first_thrower(s.hands, attacker, defender, n, s.k + 1)
    if k < n:
        phase, actor = PHASE_THROW, (attacker + k) % n
    else:
        phase, actor = PHASE_IDLE, None
    return _on_turn(s, phase=phase, attacker=attacker, defender=defender, actor=actor, k=k)


def _ev_out(s: State, e: PlayerOut) -> State:
    return _on_out(s, out=(*s.out, e.seat))


def _ev_discarded(s: State, e: Discarded) -> State:
    return _on_discarded(
        s,
        phase=PHASE_IDLE,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        discard=s.discard | mask_of(e.cards),
        last_bout=s.table,
        last_taker=None,
    )


def _ev_took(s: State, e: Took) -> State:
    taken = mask_of(e.cards)
    hands = list(s.hands)
    hands[e.seat] |= taken
    known = list(s.known)
    known[e.seat] |= taken
    return _on_took(
        s,
        hands=tuple(hands),
        phase=PHASE_IDLE,
        actor=None,
        k=0,
        table=(),
        ranks=0,
        last_bout=s.table,
        last_taker=e.seat,
        known=tuple(known),
    )


def _ev_game_ended(s: State, e: GameEnded) -> State:
    fools, draws = s.fools, s.draws
    if e.fool is None:
        draws += 1
    else:
        fools = (*fools[: e.fool], fools[e.fool] + 1, *fools[e.fool + 1 :])
    return _changed(
        s, phase=PHASE_IDLE, attacker=None, defender=None, actor=None, k=0, fools=fools, draws=draws
    )


def _ev_match_ended(s: State, e: MatchEnded) -> State:
    return _on_turn(s, phase=PHASE_OVER, attacker=None, defender=None, actor=None, k=0)


def _ev_started_again(s: State, e: MatchStarted[Config]) -> State:
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
