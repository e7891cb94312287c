"""Dix: queries (legal commands, view, redaction, outcome, zones) and the text forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from kozyr.core.cards import Card, Suit, cards_of
from kozyr.core.fast import replacer
from kozyr.games.contract import (
    Dealt,
    FirstDealerChosen,
    MatchStarted,
    Outcome,
    redact_dealt,
    redact_started,
    zone_mask,
)
from kozyr.games.dix.model import (
    DECK,
    CardPlayed,
    Config,
    Event,
    HandEnded,
    HandInfo,
    MatchEnded,
    Play,
    State,
    TrickWon,
    TurnedUp,
    View,
)
from kozyr.games.dix.tables import C0, C1, C2, C3, CJ

# The copies redaction and the bots' sampled tables make, by the fields they change (a bot's
# every ISMCTS iteration places the cards it cannot see: core.fast.replacer, called by keyword).
_redacted_trick: Final = replacer(TrickWon, "drawn")
_with_stock: Final = replacer(HandInfo, "deck")
_with_cards: Final = replacer(State, "info", "hands", "won", "trick")


def legal_commands(state: State, seat: int) -> tuple[Play, ...]:
    """DIX-4/DIX-5: any card to lead; to follow, the led effective suit if held, else any."""
    if seat != state.turn:
        return ()
    hand = state.hands[seat]
    trick = state.trick
    if trick:
        same = hand & state.info.follow[trick[0].index]
        if same:
            hand = same
    # The Play tuples of the four 13-bit suit patterns and the joker, ordered by card index.
    return (
        C0[hand & 8191]
        + C1[(hand >> 13) & 8191]
        + C2[(hand >> 26) & 8191]
        + C3[(hand >> 39) & 8191]
        + CJ[hand >> 52]
    )


def to_act(state: State) -> int | None:
    """The seat to play, None once the match is over."""
    return state.turn


def view(state: State, viewer: int | None) -> View:
    """What `viewer` sees: own hand, counts, the table, the turn-up, scores (never the stock)."""
    s = state
    info = s.info
    seat = viewer if viewer in (0, 1) else None
    turn_up = info.turn_up
    return View(
        seat=seat,
        players=s.match.players,
        to_act=s.turn,
        hand=() if seat is None else cards_of(s.hands[seat]),
        hand_sizes=(s.hands[0].bit_count(), s.hands[1].bit_count()),
        hand_number=info.number,
        dealer=info.dealer,
        finished=s.result is not None,
        turn_up=turn_up,
        trump=None if info.trump < 0 else Suit(info.trump),
        stock_count=53 - s.pos,
        trick=s.trick,
        leader=s.leader,
        totals=s.totals,
        tricks=s.tricks,
        tens=s.tens,
        last_trick=s.last_trick,
        last_trick_winner=s.last_winner,
        target=s.match.config.target,
    )


def redact(event: Event, viewer: int | None) -> Event | None:
    """The event as `viewer` sees it: no seed or deck order, no other seat's cards."""
    t = type(event)
    if t is TrickWon:
        e = cast(TrickWon, event)
        if not e.drawn:
            return e
        d0, d1 = e.drawn
        drawn = (d0 if viewer == 0 else None, d1 if viewer == 1 else None)
        return _redacted_trick(e, drawn=drawn)
    if t is Dealt:
        return redact_dealt(cast(Dealt, event), viewer)
    if t is MatchStarted:
        return redact_started(cast(MatchStarted[Config], event))
    return event


def outcome(state: State) -> Outcome | None:
    """DIX-9: the winner and the final totals once the match is over."""
    return state.result


# --------------------------------------------------------------------------- text


def _seat_name(players: tuple[str, ...], seat: int) -> str:
    name = players[seat] if seat < len(players) else ""
    return f"{name[:16]} (seat {seat})" if name else f"seat {seat}"


def render(v: View) -> str:
    """A plain-text table of a view: scores, turn-up, stock, the trick, the hands."""
    trump = "none" if v.trump is None else v.trump.letter
    turn_up = v.turn_up.code if v.turn_up is not None else "-"
    lines = [
        f"Dix  hand {v.hand_number}  dealer {_seat_name(v.players, v.dealer)}  target {v.target}",
        f"Turn-up {turn_up}  trump {trump}  stock {v.stock_count}",
    ]
    for seat in (0, 1):
        you = " (you)" if seat == v.seat else ""
        lines.append(
            f"{_seat_name(v.players, seat)}{you}: total {v.totals[seat]}, "
            f"tricks {v.tricks[seat]}, ten-tricks {v.tens[seat]}, "
            f"{v.hand_sizes[seat]} cards"
        )
    if v.trick:
        lines.append(f"Trick: {' '.join(c.code for c in v.trick)}  (led by seat {v.leader})")
    elif not v.finished:
        lines.append(f"Trick: -  (seat {v.leader} leads)")
    if v.last_trick:
        lines.append(
            f"Last trick: {' '.join(c.code for c in v.last_trick)}  "
            f"won by seat {v.last_trick_winner}"
        )
    if v.seat is not None:
        lines.append(f"Your hand: {' '.join(c.code for c in v.hand) or '-'}")
    if v.finished:
        lines.append("The match is over.")
    elif v.to_act is not None:
        lines.append(
            f"To play: {_seat_name(v.players, v.to_act)}" + (" - you" if v.to_act == v.seat else "")
        )
    return "\n".join(line[:78] for line in lines)


def describe(event: Event) -> str:
    """One readable line for an event."""
    if isinstance(event, CardPlayed):
        return f"seat {event.seat} plays {event.card.code}"
    if isinstance(event, TrickWon):
        cards = " ".join(c.code for c in event.cards)
        kind = ", a ten-trick" if event.ten else ""
        text = f"seat {event.seat} wins the trick {cards} ({event.points:+d}{kind})"
        if event.drawn:
            first = event.seat
            draws = ", ".join(
                f"seat {s} draws {'a card' if event.drawn[s] is None else event.drawn[s]}"
                for s in (first, 1 - first)
            )
            text += f"; {draws}"
        return text
    if isinstance(event, Dealt):
        return f"hand {event.number}: seat {event.dealer} deals"
    if isinstance(event, TurnedUp):
        trump = "no trump" if event.trump is None else f"trump {event.trump.letter}"
        return f"turn-up {event.card.code} ({trump}); seat {event.leader} leads"
    if isinstance(event, HandEnded):
        return (
            f"hand {event.hand_number} ends: tricks {event.tricks[0]}-{event.tricks[1]}, "
            f"ten-tricks {event.tens[0]}-{event.tens[1]}, points "
            f"{event.points[0]:+d} {event.points[1]:+d}; totals "
            f"{event.totals[0]}-{event.totals[1]}"
        )
    if isinstance(event, MatchEnded):
        return (
            f"seat {event.winner} wins the match "
            f"{event.totals[0]}-{event.totals[1]}: {event.reason}"
        )
    if isinstance(event, FirstDealerChosen):
        how = "by lot" if event.by_lot else "as set up"
        return f"seat {event.seat} deals first ({how})"
    if isinstance(event, MatchStarted):
        c = event.config
        mark = ", prearranged decks" if event.prearranged else ""
        return (
            f"Dix match starts: {' vs '.join(event.players)}; target {c.target}, "
            f"first lead {c.first_lead}, tiebreak {c.tiebreak_tens}, single hand "
            f"{str(c.single_hand).lower()}, max hands {c.max_hands}{mark}"
        )
    return repr(event)


# --------------------------------------------------------------------------- test support


def zones(state: State) -> dict[str, tuple[Card, ...]]:
    """Where every card of the hand is: hands, stock (top first), turn-up, trick, won piles."""
    info = state.info
    if info.turn_up is None:
        return {"undealt": DECK}
    return {
        "hand0": cards_of(state.hands[0]),
        "hand1": cards_of(state.hands[1]),
        "stock": info.deck[state.pos :],
        "turn_up": (info.turn_up,),
        "trick": state.trick,
        "won0": cards_of(state.won[0]),
        "won1": cards_of(state.won[1]),
    }


def hidden_zones(state: State, viewer: int | None) -> tuple[str, ...]:
    """The zones `viewer` may not see: the other hand(s) and the stock."""
    if viewer == 0:
        return ("hand1", "stock")
    if viewer == 1:
        return ("hand0", "stock")
    return ("hand0", "hand1", "stock", "undealt")


def with_zones(state: State, new: Mapping[str, tuple[Card, ...]]) -> State:
    """The state with its cards placed as `new` says (zones of `zones`; one left out keeps its
    cards: a seat's rebuilt table places only what it cannot see)."""
    info = state.info
    if info.turn_up is None:
        return state
    if new.get("turn_up", (info.turn_up,)) != (info.turn_up,):
        raise ValueError("the turn-up cannot move: it fixes the hand's trump")
    s = state
    if (stock := new.get("stock")) is not None:
        info = _with_stock(info, deck=(*info.deck[: s.pos], *stock))
    trick = s.trick if (cards := new.get("trick")) is None else tuple(cards)
    hands = (zone_mask(new, "hand0", s.hands[0]), zone_mask(new, "hand1", s.hands[1]))
    won = (zone_mask(new, "won0", s.won[0]), zone_mask(new, "won1", s.won[1]))
    return _with_cards(s, info=info, hands=hands, won=won, trick=trick)
