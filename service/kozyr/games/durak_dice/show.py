"""Durak with dice: queries (legal commands, view, redaction, outcome, zones) and the text forms."""

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
from kozyr.games.durak_dice.model import (
    DEFENDED,
    FROM_UNDER_FOOL,
    LOWEST_CARD,
    LOWEST_TRUMP,
    MAX_BOUTS,
    PHASE_ATTACK,
    PHASE_DEFEND,
    PHASE_NAMES,
    PHASE_OVER,
    PHASE_THROW,
    TOOK,
    UNDER_FOOL,
    Attack,
    Attacked,
    Beat,
    Beaten,
    BoutStarted,
    Command,
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
    View,
)
from kozyr.games.durak_dice.tables import (
    ATTACKS,
    BEATS_CMD,
    DECKS,
    PASS,
    RANK_MASK,
    TAKE,
    plural,
)

# The copy of a state the bots' sampled tables make, by the fields it changes (a bot's every
# ISMCTS iteration places the cards it cannot see: core.fast.replacer, called by keyword).
_with_cards: Final = replacer(State, "hands", "table", "ranks", "discard", "known")

# --------------------------------------------------------------------------------------------
# Queries


def legal_commands(state: State, seat: int) -> tuple[Command, ...]:
    """Every command `seat` may send now, cards by index (DUR-5 … DUR-7)."""
    if seat != state.actor:
        return ()
    phase = state.phase
    hand = state.hands[seat]
    out: list[Command] = []
    if phase == PHASE_ATTACK:
        table: tuple[Attack, ...] | tuple[Beat, ...] = ATTACKS
    elif phase == PHASE_DEFEND:
        hand &= state.g.beats[state.table[-1][0].index]
        table = BEATS_CMD
    else:
        hand &= state.ranks
        table = ATTACKS
    while hand:
        low = hand & -hand
        out.append(table[low.bit_length() - 1])
        hand ^= low
    if phase == PHASE_DEFEND:
        out.append(TAKE)
    elif phase == PHASE_THROW:
        out.append(PASS)
    return tuple(out)


def to_act(state: State) -> int | None:
    """The seat whose decision is awaited; None once the match is over."""
    return state.actor


def outcome(state: State) -> Outcome | None:
    """DUR-10: fool counts per seat; the fewest fools win, equal counts share."""
    if state.phase != PHASE_OVER:
        return None
    fools = state.fools
    least = min(fools)
    winners = tuple(s for s in range(state.m.n) if fools[s] == least)
    games = state.m.config.games
    who = ", ".join(str(s) for s in winners)
    reason = (
        f"fewest fools ({least} in {plural(games, 'game')}): "
        f"seat{'s' if len(winners) > 1 else ''} {who}"
    )
    details = (("games", str(games)), ("draws", str(state.draws)))
    return Outcome(winners=winners, scores=fools, reason=reason, details=details)


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
        finished=state.phase == PHASE_OVER,
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
        phase=PHASE_NAMES[state.phase],
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
        return {"undealt": DECKS[state.m.config.deck]}
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
    """The state with its cards placed as `new` says (the zones of `zones`; a zone left out
    keeps its cards)."""
    s = state
    if s.g.trump_card is None:
        return s
    n = s.m.n
    known = tuple(zone_mask(new, f"known/{p}", s.known[p]) for p in range(n))
    hands = tuple(
        zone_mask(new, f"hand/{p}", s.hands[p] & ~s.known[p]) | known[p] for p in range(n)
    )
    table, ranks = s.table, s.ranks
    if (flat := new.get("table")) is not None:
        table = tuple(
            (flat[i], flat[i + 1] if i + 1 < len(flat) else None) for i in range(0, len(flat), 2)
        )
        ranks = 0
        for c in flat:
            ranks |= RANK_MASK[c.index]
    discard = zone_mask(new, "discard", s.discard)
    return _with_cards(s, hands=hands, table=table, ranks=ranks, discard=discard, known=known)


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
            status = plural(view.hand_sizes[s], "card")
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
            f"match of {plural(event.config.games, 'game')} for {len(event.players)} players "
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
        return f"seat {event.seat} defends; {plural(len(event.cards), 'card')} to the discard pile"
    if isinstance(event, Took):
        return f"seat {event.seat} takes {plural(len(event.cards), 'card')}: " + " ".join(
            c.code for c in event.cards
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
