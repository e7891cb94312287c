"""The match record and the one fold from log entries to it (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kozyr.core.fairness import match_seed
from kozyr.core.fast import quick_init
from kozyr.games import Game, get_game
from kozyr.games.contract import MatchStarted, Outcome, Setup
from kozyr.match.log import (
    GENESIS_HASH,
    LIFECYCLE_EVENTS,
    SYSTEM_SEAT,
    ContributionsClosed,
    Entry,
    MatchCreated,
    MatchTerms,
    SeatJoined,
    SeedContributed,
    SeedRevealed,
    decode_events,
    entry_hash,
    registry_for,
)
from kozyr.match.outcomes import ending_of, normal_outcome
from kozyr.match.timing import NO_CLOCK, Clock, after_entry

NO_TERMS = MatchTerms()  # the defaults: no bots, no clock (a log without MatchTerms)
_UNKNOWN: Any = object()  # an outcome not computed yet


@quick_init
@dataclass(frozen=True, slots=True)
class MatchRecord:
    """Everything the log says about a match at one version (a pure fold of its entries)."""

    match_id: str
    game: Game
    created: MatchCreated
    names: tuple[str, ...]
    contributions: tuple[str, ...]
    state: Any = None
    version: int = 0
    head: str = GENESIS_HASH
    revealed_seed: str = ""
    terms: MatchTerms = NO_TERMS
    # True when the state was folded from a log that withholds the match seed (schema 3) and
    # no server seed was given: it can be shown, but no later hand can be dealt from it.
    seedless: bool = False
    users: tuple[str, ...] = ()  # the platform's user id per seat ("" for none)
    clock: Clock = NO_CLOCK
    ended: Outcome | None = None  # the outcome of an early ending
    # Seats named at creation whose contribution the match still waits for (its window).
    awaiting: tuple[int, ...] = ()
    # `outcome`, once asked: a move asks it many times (finished? a deadline? the feed?).
    _outcome: Any = field(default=_UNKNOWN, init=False, repr=False, compare=False)

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.names)

    @property
    def open_seats(self) -> tuple[int, ...]:
        """Seats nobody has taken yet."""
        return tuple(i for i, n in enumerate(self.names) if not n)

    @property
    def started(self) -> bool:
        """True once every seat is taken and the game's first events are in."""
        return self.state is not None

    @property
    def outcome(self) -> Outcome | None:
        """The outcome (an early ending's, else the game's), None while running or waiting."""
        known: Outcome | None = self._outcome
        if known is _UNKNOWN:
            known = self.ended
            if known is None and self.state is not None:
                outcome = self.game.outcome(self.state)
                known = None if outcome is None else normal_outcome(self.game, self.state, outcome)
            object.__setattr__(self, "_outcome", known)  # the fields it reads never change
        return known

    @property
    def finished(self) -> bool:
        """True once the match has its outcome."""
        return self.outcome is not None

    @property
    def options(self) -> dict[str, str]:
        """The options as created (text values)."""
        return dict(self.created.options)

    def setup(self) -> Setup:
        """The game setup recorded at creation (first dealer, prearranged decks and dice)."""
        return Setup(
            first_dealer=self.created.first_dealer, decks=self.created.decks, dice=self.created.dice
        )


def new_record(game: Game, created: MatchCreated) -> MatchRecord:
    """The record of a match that is created but has no entry yet (version 0)."""
    users = created.users or ("",) * len(created.seats)
    return MatchRecord(
        created.match_id, game, created, created.seats, created.contributions, users=tuple(users)
    )


def advance(
    record: MatchRecord,
    events: Sequence[Any],
    version: int,
    head: str,
    server_seed: bytes | None = None,
    *,
    time_ms: int | None = None,
    seat: int = SYSTEM_SEAT,
    own: bool = False,
) -> MatchRecord:
    """The record after one entry's decoded events (MatchCreated itself excluded). Pure.

    A MatchStarted whose seed was withheld from the log gets the match seed back from
    `server_seed` and the contributions (docs/fairness.md §1); without it the record is
    `seedless`. With the entry's `time_ms` (and its `seat`, `own` when it is that seat's game
    command) the clock advances too; without, it stays (a partial fold, e.g. of the terms).
    """
    names, contributions = list(record.names), list(record.contributions)
    users = list(record.users)
    state, revealed = record.state, record.revealed_seed
    terms, seedless, awaiting = record.terms, record.seedless, record.awaiting
    evolve = record.game.evolve
    for event in events:
        if isinstance(event, MatchTerms):
            terms = event
            awaiting = awaited(record.created, event)
        elif isinstance(event, SEATING):
            awaiting = _seat(event, names, contributions, users, awaiting)
        elif isinstance(event, SeedRevealed):
            revealed = event.server_seed
        elif not isinstance(event, LIFECYCLE_EVENTS):
            if isinstance(event, MatchStarted) and not event.seed:
                if server_seed is None:
                    seedless = True
                else:
                    event = replace(
                        event,
                        seed=match_seed(server_seed, [bytes.fromhex(c) for c in contributions]),
                    )
            state = evolve(state, event)
    seated = MatchRecord(
        record.match_id,
        record.game,
        record.created,
        tuple(names),
        tuple(contributions),
        record.state,
        record.version,
        record.head,
        revealed,
        terms,
        seedless,
        tuple(users),
        record.clock,
        record.ended,
        awaiting,
    )
    return finish_entry(seated, state, events, version, head, time_ms, seat, own)


SEATING = (SeatJoined, SeedContributed, ContributionsClosed)


def _seat(
    event: Any,
    names: list[str],
    contributions: list[str],
    users: list[str],
    awaiting: tuple[int, ...],
) -> tuple[int, ...]:
    """Apply a seating event (a seat taken, a contribution given, the window closed) to the
    seats' lists; the contributions still awaited after it."""
    if isinstance(event, SeatJoined):
        names[event.seat] = event.name
        contributions[event.seat] = event.contribution
        users[event.seat] = event.user
        return awaiting
    if isinstance(event, SeedContributed):
        contributions[event.seat] = event.contribution
        return tuple(s for s in awaiting if s != event.seat)
    return tuple(s for s in awaiting if s not in event.seats)


def awaited(created: MatchCreated, terms: MatchTerms) -> tuple[int, ...]:
    """The seats whose contribution a match with these terms waits for: with a contribution
    window, every seat named at creation that is not a bot's (a prearranged match uses no
    seed, so it waits for none)."""
    if terms.contribute_ms <= 0 or created.prearranged:
        return ()
    return tuple(
        i for i, name in enumerate(created.seats) if name and not (terms.bots and terms.bots[i])
    )


def finish_entry(
    record: MatchRecord,
    state: Any,
    events: Sequence[Any],
    version: int,
    head: str,
    time_ms: int | None,
    seat: int,
    own: bool,
) -> MatchRecord:
    """`record` (the one before the entry, names and terms already applied) with the entry's
    game state, clock and any early ending."""
    ticked = (
        record.clock
        if time_ms is None
        else after_entry(
            record.clock,
            record.terms,
            len(record.names),
            record.version == 0,
            events,
            time_ms,
            seat,
            own,
        )
    )
    ended = record.ended or ending_of(record.game, len(record.names), state, events)
    return MatchRecord(
        record.match_id,
        record.game,
        record.created,
        record.names,
        record.contributions,
        state,
        version,
        head,
        record.revealed_seed,
        record.terms,
        record.seedless,
        record.users,
        ticked,
        ended,
        record.awaiting,
    )


def apply_entry(
    record: MatchRecord | None, entry: Entry, digest: str = "", server_seed: bytes | None = None
) -> MatchRecord:
    """Fold one entry into the record (None before the first entry). Pure.

    `digest` is the entry's hash when the caller has it already (saves re-serializing);
    `server_seed` restores the withheld match seed (see `advance`).
    """
    if record is None:
        first = entry.events[0]
        if first.get("type") != "MatchCreated":
            raise ValueError("a match log must start with MatchCreated")
        game = get_game(str(first["game"]))
        created = registry_for(game).decode(first)
        record = new_record(game, created)
        events: Sequence[Any] = decode_events(game, entry)[1:]
    else:
        events = decode_events(record.game, entry)
    return advance(
        record,
        events,
        entry.version,
        digest or entry_hash(entry.canonical()),
        server_seed,
        time_ms=entry.time_ms,
        seat=entry.seat,
        own=entry.seat >= 0 and entry.command is not None,
    )


def fold_entries(
    entries: Iterable[Entry], record: MatchRecord | None = None, server_seed: bytes | None = None
) -> MatchRecord:
    """Apply entries in order; a finished log's own revealed seed restores the match seed."""
    entries = list(entries)
    if server_seed is None:
        server_seed = revealed_in(entries)
    for entry in entries:
        record = apply_entry(record, entry, server_seed=server_seed)
    if record is None:
        raise ValueError("an empty log")
    return record


def revealed_in(entries: Sequence[Entry]) -> bytes | None:
    """The server seed a finished log reveals in its last entry (None while it runs). Not
    checked against the commitment: that is the verifier's job."""
    if not entries:
        return None
    for event in entries[-1].events:
        if event.get("type") == "SeedRevealed":
            try:
                return bytes.fromhex(str(event.get("server_seed", "")))
            except ValueError:
                return None
    return None
