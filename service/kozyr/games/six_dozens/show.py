"""Six Dozens: queries (legal commands, view, redaction, outcome, zones) and the text forms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from kozyr.core.cards import Card, cards_of
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
from kozyr.games.six_dozens.model import (
    BankCovered,
    BankTurned,
    CardPlayed,
    Event,
    HandSettled,
    MatchEnded,
    Passed,
    Play,
    PlayerOut,
    State,
    Table,
    TurnSkipped,
    View,
)
from kozyr.games.six_dozens.tables import PLACES, SUIT_PLAYS

# The copies of a state and its table that the bots' sampled tables make, by the fields they
# change (a bot's every ISMCTS iteration places the cards it cannot see: core.fast.replacer,
# called by keyword).
_with_stock: Final = replacer(Table, "stock", "aside")
_with_cards: Final = replacer(State, "table", "hands", "bank", "pile")

# --------------------------------------------------------------------------------------------
# Queries


def legal_commands(state: State, seat: int) -> tuple[Play, ...]:
    """SIX-6, SIX-8: the cards `seat` may play now, by Card.index; () when not its turn."""
    if seat != state.turn or state.table.result is not None or state.bank is None:
        return ()
    mask = state.hands[seat] & state.match.legal[seat][state.bank.index]
    s0, s1, s2, s3 = SUIT_PLAYS
    return s0[mask >> 4 & 511] + s1[mask >> 17 & 511] + s2[mask >> 30 & 511] + s3[mask >> 43 & 511]


def to_act(state: State) -> int | None:
    """The seat whose card the match waits for; None once it is over."""
    return None if state.table.result is not None else state.turn


def view(state: State, viewer: int | None) -> View:
    """What `viewer` (a seat, or None for a spectator) may see: own hand, counts, the table."""
    m = state.match
    seat = viewer if viewer is not None and 0 <= viewer < m.n else None
    return View(
        seat=seat,
        players=m.players,
        to_act=to_act(state),
        hand=cards_of(state.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        hand_number=state.hand_number,
        dealer=state.dealer,
        finished=state.result is not None,
        bank=state.bank,
        stock_count=len(state.stock),
        kitty=state.kitty,
        capitals=state.capitals,
        out_order=state.out_order,
        trump_mode=m.config.trumps,
        trump_suits=m.config.trump_suits,
        first_mover=state.first_mover,
        skip_next=state.skip_next,
        last_play=describe(state.last) if state.last is not None else "",
    )


def redact(event: Event, viewer: int | None) -> Event | None:
    """The event as `viewer` may see it: seed, deck orders and others' hands removed."""
    if type(event) is Dealt:
        return redact_dealt(event, viewer)
    if type(event) is MatchStarted:
        return redact_started(event)
    return event


def outcome(state: State) -> Outcome | None:
    """SIX-12: winners (highest capital), final capitals and what happened to the kitty."""
    r = state.result
    if r is None:
        return None
    return Outcome(
        winners=r.winners,
        scores=r.capitals,
        reason=r.reason,
        details=(
            ("hands_played", str(r.hands_played)),
            ("kitty_discarded", str(r.kitty_discarded)),
            ("kitty_shares", " ".join(map(str, r.kitty_shares))),
        ),
    )


def zones(state: State) -> dict[str, tuple[Card, ...]]:
    """Where every card of the deck is: hands, bank, the pile under it, stock (top first), aside."""
    out = {f"hand/{p}": cards_of(h) for p, h in enumerate(state.hands)}
    out["bank"] = (state.bank,) if state.bank is not None else ()
    out["pile"] = cards_of(state.pile)
    out["stock"] = state.stock
    out["aside"] = cards_of(state.aside)
    return out


def hidden_zones(state: State, viewer: int | None) -> tuple[str, ...]:
    """The zones `viewer` may not see: the other hands, the stock and the set-aside cards."""
    hands = tuple(f"hand/{p}" for p in range(state.match.n) if p != viewer)
    return (*hands, "stock", "aside")


def with_zones(state: State, new: Mapping[str, Sequence[Card]]) -> State:
    """The state with its zones replaced (a zone left out keeps its cards)."""
    s = state
    t = s.table
    hands = tuple(zone_mask(new, f"hand/{p}", h) for p, h in enumerate(s.hands))
    bank = s.bank if (cards := new.get("bank")) is None else (cards[0] if cards else None)
    stock = t.stock if (rest := new.get("stock")) is None else tuple(rest)
    table = _with_stock(t, stock=stock, aside=zone_mask(new, "aside", t.aside))
    pile = zone_mask(new, "pile", s.pile)
    return _with_cards(s, table=table, hands=hands, bank=bank, pile=pile)


# --------------------------------------------------------------------------------------------
# Text


def _suits_text(v: View) -> str:
    if v.trump_mode == "NONE":
        return "no trumps"
    if v.trump_mode == "PERSONAL":
        return "personal trumps " + " ".join(f"{p}:{s.symbol}" for p, s in enumerate(v.trump_suits))
    if v.trump_mode == "SENIOR_JUNIOR":
        return f"trumps {v.trump_suits[0].symbol} senior, {v.trump_suits[1].symbol} junior"
    return "trumps " + " ".join(s.symbol for s in v.trump_suits)


def render(v: View) -> str:
    """A plain-text table of the view (at most 78 columns)."""
    lines = [
        f"Six Dozens · hand {v.hand_number} · {_suits_text(v)}"[:78],
        (
            f"Bank: {v.bank.pretty if v.bank else '--'}   stock: {v.stock_count}   "
            f"kitty: {v.kitty}" + ("   (a 7 skips the next player)" if v.skip_next else "")
        )[:78],
    ]
    for p, name in enumerate(v.players):
        mark = ">" if v.to_act == p else " "
        notes = []
        if p == v.dealer:
            notes.append("dealer")
        if p == v.first_mover:
            notes.append("first mover")
        if p in v.out_order:
            notes.append(f"out {PLACES[v.out_order.index(p) + 1]}")
        if p == v.seat:
            notes.append("you")
        cards_text = f"{v.hand_sizes[p]} card" + ("" if v.hand_sizes[p] == 1 else "s")
        lines.append(
            f"{mark} {p} {name[:16]:<16} {v.capitals[p]:>5} pts  {cards_text:<8} "
            f"{', '.join(notes)}"[:78].rstrip()
        )
    if v.seat is not None:
        lines.append(("Your hand: " + " ".join(c.pretty for c in v.hand))[:78])
    if v.last_play:
        lines.append(f"Last: {v.last_play}"[:78])
    if v.finished:
        best = max(v.capitals)
        won = [v.players[p][:16] for p, c in enumerate(v.capitals) if c == best]
        lines.append(
            f"The match is over: {' and '.join(won)} "
            f"{'wins' if len(won) == 1 else 'share the win'} with {best}."[:78]
        )
    return "\n".join(lines)


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(f"seat {p}" for p in seats)


def describe(event: Event) -> str:
    """One readable line for an event (public parts only)."""
    e = event
    if isinstance(e, CardPlayed):
        return f"seat {e.seat} plays {e.card.code}"
    if isinstance(e, Passed):
        return f"seat {e.seat} passes (no legal card)"
    if isinstance(e, TurnSkipped):
        return f"seat {e.seat} loses a turn to the 7"
    if isinstance(e, PlayerOut):
        return f"seat {e.seat} is out ({PLACES[e.place]})"
    if isinstance(e, BankCovered):
        return f"the stock covers the bank with {e.card.code}"
    if isinstance(e, Dealt):
        return f"hand {e.number}: seat {e.dealer} deals"
    if isinstance(e, BankTurned):
        return (
            f"{e.hand_size} cards each; bank {e.bank.code}, stock {e.stock_count}; "
            f"seat {e.first_mover} moves first"
        )
    if isinstance(e, HandSettled):
        parts = [f"seat {p} pays {x}" for p, x in enumerate(e.paid) if x]
        parts += [f"seat {p} gets {x}" for p, x in enumerate(e.received) if x]
        return (
            f"hand {e.hand_number} ends (condition {e.condition}): "
            + ("; ".join(parts) or "nobody pays")
            + f"; kitty {e.kitty}"
        )
    if isinstance(e, MatchEnded):
        who = _seats(e.winners)
        best = max(e.capitals)
        return f"match ends: {who} {'wins' if len(e.winners) == 1 else 'share the win'} with {best}"
    if isinstance(e, FirstDealerChosen):
        return f"seat {e.seat} deals first" + (" (by lot)" if e.by_lot else "")
    if isinstance(e, MatchStarted):
        c = e.config
        return f"Six Dozens for {len(e.players)} players: deck {c.deck}, trumps {c.trumps}" + (
            " (prearranged decks)" if e.prearranged else ""
        )
    return repr(e)
