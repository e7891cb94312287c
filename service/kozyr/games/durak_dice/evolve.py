"""Durak with dice: applying one event to the state."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from kozyr.core.cards import mask_of
from kozyr.core.fast import constructor
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
)
from kozyr.games.durak_dice.model import (
    _ATTACK,
    _DEFEND,
    _IDLE,
    _OVER,
    _THROW,
    Attacked,
    Beaten,
    BoutStarted,
    Config,
    Discarded,
    Event,
    GameEnded,
    MatchEnded,
    Passed,
    PlayerOut,
    State,
    ThrownIn,
    Took,
    TrumpTurned,
    _Game,
    _Match,
)
from kozyr.games.durak_dice.tables import _BEATS, _RANK_MASK

# --------------------------------------------------------------------------------------------
# evolve

# A state or two a move: made by the fast constructor (kozyr.core.fast).
_state: Final = constructor(State)
_game: Final = constructor(_Game)


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
    g = _game(0, 0, None, None, (), _BEATS[0])
    zeros = (0,) * n
    return _state(
        m, g, zeros, _IDLE, None, None, None, 0, (), 0, 0, 0, (), zeros, 0, 0, (), None, zeros
    )


def _ev_dealer(s: State, e: FirstDealerChosen) -> State:
    g = _game(0, e.seat, None, None, (), s.g.beats)
    return _state(
        s.m,
        g,
        s.hands,
        s.phase,
        None,
        None,
        None,
        0,
        (),
        0,
        0,
        0,
        (),
        s.fools,
        s.draws,
        0,
        (),
        None,
        s.known,
    )


def _ev_dealt(s: State, e: Dealt) -> State:
    g = _game(e.number, e.dealer, None, None, e.rolls, _BEATS[0])
    hands = tuple(mask_of(h) for h in e.hands)
    zeros = (0,) * s.m.n
    return _state(
        s.m,
        g,
        hands,
        _IDLE,
        None,
        None,
        None,
        0,
        (),
        0,
        0,
        0,
        (),
        s.fools,
        s.draws,
        0,
        (),
        None,
        zeros,
    )


def _ev_trump(s: State, e: TrumpTurned) -> State:
    trump_card = e.card
    trump = trump_card.suit
    assert trump is not None
    g0 = s.g
    g = _game(g0.number, g0.dealer, trump, trump_card, g0.rolls, _BEATS[trump])
    bit = 1 << trump_card.index
    known = tuple(bit if h & bit else 0 for h in s.hands)
    return _state(
        s.m,
        g,
        s.hands,
        _IDLE,
        None,
        None,
        None,
        0,
        (),
        0,
        0,
        0,
        (),
        s.fools,
        s.draws,
        0,
        (),
        None,
        known,
    )


def _ev_bout(s: State, e: BoutStarted) -> State:
    return _state(
        s.m,
        s.g,
        s.hands,
        _ATTACK,
        e.attacker,
        e.defender,
        e.attacker,
        0,
        (),
        0,
        0,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        e.bout,
        s.last_bout,
        s.last_taker,
        s.known,
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
    return _state(
        s.m,
        s.g,
        tuple(hands),
        _DEFEND,
        s.attacker,
        s.defender,
        s.defender,
        s.k,
        (*s.table, (card, None)),
        s.ranks | _RANK_MASK[i],
        s.attacks + 1,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        _unknown(s.known, seat, bit),
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
    return _state(
        s.m,
        s.g,
        tuple(hands),
        phase,
        attacker,
        defender,
        actor,
        k,
        (*s.table[:-1], (e.attack, e.card)),
        s.ranks | _RANK_MASK[i],
        s.attacks,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        _unknown(s.known, e.seat, bit),
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
    return _state(
        s.m,
        s.g,
        s.hands,
        phase,
        attacker,
        defender,
        actor,
        k,
        s.table,
        s.ranks,
        s.attacks,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        s.known,
    )


def _ev_out(s: State, e: PlayerOut) -> State:
    return _state(
        s.m,
        s.g,
        s.hands,
        s.phase,
        s.attacker,
        s.defender,
        s.actor,
        s.k,
        s.table,
        s.ranks,
        s.attacks,
        s.discard,
        (*s.out, e.seat),
        s.fools,
        s.draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        s.known,
    )


def _ev_discarded(s: State, e: Discarded) -> State:
    return _state(
        s.m,
        s.g,
        s.hands,
        _IDLE,
        s.attacker,
        s.defender,
        None,
        0,
        (),
        0,
        s.attacks,
        s.discard | mask_of(e.cards),
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.table,
        None,
        s.known,
    )


def _ev_took(s: State, e: Took) -> State:
    taken = mask_of(e.cards)
    hands = list(s.hands)
    hands[e.seat] |= taken
    known = list(s.known)
    known[e.seat] |= taken
    return _state(
        s.m,
        s.g,
        tuple(hands),
        _IDLE,
        s.attacker,
        s.defender,
        None,
        0,
        (),
        0,
        s.attacks,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.table,
        e.seat,
        tuple(known),
    )


def _ev_game_ended(s: State, e: GameEnded) -> State:
    fools, draws = s.fools, s.draws
    if e.fool is None:
        draws += 1
    else:
        fools = (*fools[: e.fool], fools[e.fool] + 1, *fools[e.fool + 1 :])
    return _state(
        s.m,
        s.g,
        s.hands,
        _IDLE,
        None,
        None,
        None,
        0,
        s.table,
        s.ranks,
        s.attacks,
        s.discard,
        s.out,
        fools,
        draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        s.known,
    )


def _ev_match_ended(s: State, e: MatchEnded) -> State:
    return _state(
        s.m,
        s.g,
        s.hands,
        _OVER,
        None,
        None,
        None,
        0,
        s.table,
        s.ranks,
        s.attacks,
        s.discard,
        s.out,
        s.fools,
        s.draws,
        s.bout,
        s.last_bout,
        s.last_taker,
        s.known,
    )


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
