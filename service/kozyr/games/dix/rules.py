"""Dix: options, setup, the opening and deciding a play (DIX-2 … DIX-9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, cast

from kozyr.core.cards import Card
from kozyr.core.fairness import RandomStream, deal_label
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
from kozyr.games.dix.model import (
    DEALER,
    DECK,
    INDEX,
    MATCH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MUST_FOLLOW_SUIT,
    OPTIONS,
    TITLE,
    TRICKS_PER_HAND,
    TURN_UP_POS,
    Config,
    Event,
    HandEnded,
    MatchEnded,
    MatchInfo,
    Play,
    State,
    TrickWon,
    TurnedUp,
)
from kozyr.games.dix.tables import BIT, PIP, PLAYED, SUITS

# One a trick: the fast constructor (kozyr.core.fast).
_trick_won: Final = constructor(TrickWon)

# --------------------------------------------------------------------------- the contract


def make_config(options: Mapping[str, object], players: int) -> Config:
    """R-6: validate the options of docs/rules.md "DIX options" for exactly two players."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    values = resolve_options(OPTIONS, options)
    return Config(
        target=cast(int, values["target"]),
        first_lead=cast(str, values["first_lead"]),
        tiebreak_tens=cast(str, values["tiebreak_tens"]),
        single_hand=cast(bool, values["single_hand"]),
        max_hands=cast(int, values["max_hands"]),
    )


def check_setup(config: Config, players: int, setup: Setup) -> None:
    """R-2, R-3: two players, a first dealer who is a seat, prearranged decks of the 53 cards."""
    check_players(TITLE, MIN_PLAYERS, MAX_PLAYERS, players)
    check_deal_setup(setup, players, DECK, dice=False)


def start(
    config: Config,
    players: Sequence[str],
    seed: bytes,
    setup: Setup = Setup(),  # noqa: B008
) -> tuple[Event, ...]:
    """R-1 … R-3, DIX-2: record the match, draw the first dealer by lot and deal hand 1."""
    check_setup(config, len(players), setup)
    started, chosen = start_events(config, players, seed, setup)
    match = MatchInfo(
        config=config,
        players=started.players,
        seed=seed,
        decks=started.decks,
        prearranged=setup.prearranged,
    )
    return (started, chosen, *_deal(match, 1, chosen.seat))


def _deal(match: MatchInfo, number: int, dealer: int) -> tuple[Dealt, TurnedUp]:
    """DIX-2: deal hand `number` from its deck (prearranged or shuffled from the seed, R-1)."""
    if number <= len(match.decks):
        order = match.decks[number - 1]
    else:
        order = RandomStream(match.seed, deal_label(number)).shuffle(DECK)
    other = 1 - dealer
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[other] = tuple(sorted(order[0:TURN_UP_POS:2], key=INDEX))
    hands[dealer] = tuple(sorted(order[1:TURN_UP_POS:2], key=INDEX))
    turn_up = order[TURN_UP_POS]
    leader = dealer if match.config.first_lead == DEALER else other
    return (
        Dealt(
            number=number, dealer=dealer, deck=tuple(order), rolls=(), hands=(hands[0], hands[1])
        ),
        TurnedUp(turn_up, turn_up.suit, leader),
    )


def decide(state: State, seat: int, command: object) -> tuple[Event, ...]:
    """DIX-4 … DIX-9: the events of a play and its automatic consequences, or IllegalMove."""
    if seat != 0 and seat != 1:
        raise IllegalMove(
            NOT_A_SEAT, f"there is no seat {seat}: Dix seats are 0 and 1", rule="DIX-4"
        )
    if state.result is not None:
        raise IllegalMove(MATCH_OVER, "the match is over: no move can be made", rule="DIX-9")
    if seat != state.turn:
        raise IllegalMove(NOT_YOUR_TURN, _not_your_turn(state), rule="DIX-4")
    if type(command) is not Play and not isinstance(command, Play):
        raise IllegalMove(
            UNKNOWN_COMMAND, f"Dix has no move {type(command).__name__}: play a card", rule="DIX-4"
        )
    card = command.card
    if not isinstance(card, Card):
        raise IllegalMove(
            CARD_NOT_IN_HAND, f"{card!r} is not a card: play a card you hold", rule="DIX-4"
        )
    i = card.index
    bit = BIT[i]
    hand = state.hands[seat]
    if not hand & bit:
        raise IllegalMove(
            CARD_NOT_IN_HAND, f"you do not hold {card.code}: play a card you hold", rule="DIX-4"
        )
    trick = state.trick
    if not trick:
        return (PLAYED[seat][i],)
    # DIX-5: follow the led card's effective suit if you can (the joker counts as trump).
    lead = trick[0]
    li = lead.index
    info = state.info
    need = info.follow[li]
    if not need & bit and hand & need:
        raise IllegalMove(
            MUST_FOLLOW_SUIT,
            f"you must follow suit: you hold {SUITS[info.esuit[li]].symbol} ({lead.code} was led)",
            rule="DIX-5",
        )
    # DIX-6: the follower wins with a higher card of the led suit or a trump on a plain lead.
    es = info.esuit
    if es[i] == es[li]:
        winner = seat if info.erank[i] > info.erank[li] else 1 - seat
    else:
        winner = seat if es[i] == info.trump else 1 - seat
    ten = PIP[li] + PIP[i] == 10
    pos = state.pos
    if pos < 53:  # DIX-7: the winner draws first, then the loser
        top = info.deck[pos]
        second = info.deck[pos + 1]
        drawn: tuple[Card | None, ...] = (top, second) if winner == 0 else (second, top)
    else:
        drawn = ()
    won = _trick_won(seat=winner, cards=(lead, card), points=-3 if ten else 1, ten=ten, drawn=drawn)
    tricks = state.tricks
    if tricks[0] + tricks[1] < TRICKS_PER_HAND - 1:
        return (PLAYED[seat][i], won)
    return (PLAYED[seat][i], won, *_end_hand(state, winner, ten))


def _not_your_turn(state: State) -> str:
    if state.turn is None:
        return "it is not your turn: nobody is to play now"
    return f"it is not your turn: seat {state.turn} is to play"


def _end_hand(state: State, last: int, ten: bool) -> tuple[Event, ...]:
    """DIX-8/DIX-9: score the hand after its last trick, then end the match or deal again."""
    t0, t1 = state.tricks
    n0, n1 = state.tens
    if last == 0:
        t0 += 1
        n0 += ten
    else:
        t1 += 1
        n1 += ten
    points = (t0 - 4 * n0, t1 - 4 * n1)  # +1 per trick, −3 instead for a ten-trick
    totals = (state.totals[0] + points[0], state.totals[1] + points[1])
    info = state.info
    ended = HandEnded(
        hand_number=info.number,
        tricks=(t0, t1),
        tens=(n0, n1),
        points=points,
        last_trick_winner=last,
        totals=totals,
    )
    config = state.match.config
    if max(totals) >= config.target:
        cause = f"a total reached the target of {config.target}"
    elif config.single_hand:
        cause = "the single hand has been played"
    elif info.number >= config.max_hands:
        cause = f"the guard of {config.max_hands} hands was reached"
    else:
        return (ended, *_deal(state.match, info.number + 1, 1 - info.dealer))
    if config.tiebreak_tens == MATCH:
        tens = (state.match_tens[0] + n0, state.match_tens[1] + n1)
        where = "in the match"
    else:
        tens = (n0, n1)
        where = "in the last hand"
    winner, why = _compare(totals, tens, where, last)
    return ended, MatchEnded(winner, totals, f"{cause}; {why}.")


def _compare(
    totals: tuple[int, int], tens: tuple[int, int], where: str, last: int
) -> tuple[int, str]:
    """DIX-9: higher total, then fewer ten-tricks, then the winner of the last trick."""
    if totals[0] != totals[1]:
        w = 0 if totals[0] > totals[1] else 1
        return w, f"seat {w} has the higher total, {totals[w]} to {totals[1 - w]}"
    if tens[0] != tens[1]:
        w = 0 if tens[0] < tens[1] else 1
        return w, (
            f"totals are equal at {totals[0]}; seat {w} took fewer ten-tricks {where}, "
            f"{tens[w]} to {tens[1 - w]}"
        )
    return last, (
        f"totals ({totals[0]}) and ten-tricks {where} ({tens[0]}) are equal; "
        f"seat {last} won the last trick"
    )
