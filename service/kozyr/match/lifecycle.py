"""The match lifecycle as a pure decider: create, join, start on the last seat, play, finish
and reveal. The engine (on a store), `replay.record` (in memory) and `replay.verify` (offline)
all go through these functions, so how a match begins and ends is written once.

Nothing here reads a clock, a store or global randomness: the server seed, the match id and the
time of an entry come in as data. Each function returns a `Step` - the next entry sealed (its
canonical text and hash) with the record right after it - or raises MatchError and changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kozyr.core.fairness import commitment, match_seed
from kozyr.core.fast import quick_init
from kozyr.core.receipts import Receipt
from kozyr.games import Game, IllegalMove, InvalidOptions
from kozyr.games.codec import encode
from kozyr.games.contract import MatchStarted, Setup
from kozyr.match import limits
from kozyr.match.errors import Kind, MatchError, bad_request
from kozyr.match.log import (
    SYSTEM_SEAT,
    Entry,
    MatchCreated,
    MatchTerms,
    SeatJoined,
    SeedContributed,
    SeedRevealed,
    encode_events,
    entry_hash,
)
from kozyr.match.record import MatchRecord, advance, finish_entry, new_record


@quick_init
@dataclass(frozen=True, slots=True)
class Step:
    """One entry of a match: the entry, its decoded events, the record right after it, (for
    an entry about to be appended) its canonical text and hash, and the server's receipt of it
    (signed when it was appended; None without a signer or a seal)."""

    entry: Entry
    events: tuple[Any, ...]
    record: MatchRecord
    text: str = ""
    digest: str = ""
    receipt: Receipt | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class Decision:
    """What a seat's command does: the game's events and the state after them."""

    seat: int
    command: Any
    events: tuple[Any, ...]
    state: Any
    finishes: bool


# ---------------------------------------------------------------------- creation


def created_event(
    game: Game,
    options: Mapping[str, str],
    seats: Sequence[tuple[str, bytes]],
    setup: Setup,
    *,
    match_id: str,
    server_seed: bytes,
    users: Sequence[str] = (),
) -> MatchCreated:
    """The MatchCreated of a new match (seats: name, or "" for an open seat, and contribution;
    `users`: the platform's user id of each seat, all "" or none for anonymous play)."""
    return MatchCreated(
        match_id=match_id,
        game=game.NAME,
        rules_version=game.RULES_VERSION,
        options=tuple(sorted((k, str(v)) for k, v in options.items())),
        seats=tuple(name for name, _ in seats),
        contributions=tuple(c.hex() for _, c in seats),
        commitment=commitment(server_seed),
        prearranged=setup.prearranged,
        first_dealer=setup.first_dealer,
        decks=setup.decks,
        dice=setup.dice,
        users=tuple(users) if any(users) else (),
    )


def check_created(game: Game, created: MatchCreated) -> None:
    """Refuse a creation the rules or the limits do not allow (BAD_REQUEST with its code)."""
    players = len(created.seats)
    if not game.MIN_PLAYERS <= players <= game.MAX_PLAYERS:
        raise bad_request(
            "BAD_PLAYER_COUNT",
            f"{game.TITLE} takes {game.MIN_PLAYERS}–{game.MAX_PLAYERS} seats, not {players}",
        )
    if len(created.contributions) != players:
        raise bad_request("BAD_CONTRIBUTION", "every seat needs a (possibly empty) contribution")
    if created.users and (
        len(created.users) != players
        or any(u and not n for u, n in zip(created.users, created.seats, strict=True))
    ):
        raise bad_request("BAD_USER", "a user id belongs to a named seat, one list per seat")
    for user in created.users:
        limits.check_user(user)
    for name, contribution in zip(created.seats, created.contributions, strict=True):
        limits.check_name(name, allow_empty=True)
        limits.check_contribution(_unhex(contribution))
    if len(created.decks) > limits.MAX_PREARRANGED or len(created.dice) > limits.MAX_PREARRANGED:
        raise bad_request(
            "TOO_MANY_PREARRANGED",
            f"at most {limits.MAX_PREARRANGED} prearranged decks and dice lists",
        )
    setup = Setup(first_dealer=created.first_dealer, decks=created.decks, dice=created.dice)
    try:
        game.check_setup(game.make_config(dict(created.options), players), players, setup)
    except InvalidOptions as e:
        raise MatchError(Kind.BAD_REQUEST, e.code, e.message, rule=e.rule) from None


def create(
    game: Game,
    created: MatchCreated,
    *,
    server_seed: bytes,
    time_ms: int,
    terms: MatchTerms | None = None,
) -> Step:
    """Entry 1: MatchCreated (with its MatchTerms unless they are the defaults), and the game's
    opening when every seat is named."""
    check_created(game, created)
    record = new_record(game, created)
    events: list[Any] = [created]
    if terms is not None and terms != MatchTerms():
        check_terms(created, terms)
        events.append(terms)
        record = advance(record, [terms], 0, record.head)
    if not record.open_seats and not record.awaiting:
        events += opening(record, seed_of(record, server_seed))
    return _seal(record, SYSTEM_SEAT, "", None, events, time_ms)


def check_named_contributions(seats: Sequence[tuple[str, bytes]]) -> None:
    """Refuse a contribution too long, or given with a named seat at creation (docs/fairness.md
    §1): the server would see it before it commits, so it could grind its seed against it.
    Old logs hold such contributions; only new requests are refused."""
    for _, contribution in seats:
        limits.check_contribution(contribution)
    if any(contribution for name, contribution in seats if name):
        raise bad_request(
            "CONTRIBUTION_BEFORE_COMMITMENT",
            "a named seat contributes after the commitment, with Contribute (a match with a "
            "contribution window), not with CreateMatch: the server would see it first",
        )


def check_terms(created: MatchCreated, terms: MatchTerms) -> None:
    """Refuse terms that do not fit the match (the bots' names are the engine's to check)."""
    if terms.bots and len(terms.bots) != len(created.seats):
        raise bad_request("BAD_BOTS", "name a bot (or none) for every seat")
    for seat, bot in enumerate(terms.bots):
        if bot and not created.seats[seat]:
            raise bad_request("BOT_SEAT_OPEN", f"seat {seat} is a bot's, so it needs a name")
    if not 0 <= terms.contribute_ms <= limits.MAX_CONTRIBUTION_WINDOW_MS:
        raise bad_request(
            "BAD_CONTRIBUTION_WINDOW",
            f"the contribution window is 0 (none) to {limits.MAX_CONTRIBUTION_WINDOW_MS} ms",
        )


# ---------------------------------------------------------------------- joining and starting


def choose_seat(record: MatchRecord, seat: int | None) -> int:
    """The seat a join takes: `seat`, or the first open one; refused if taken or absent."""
    if seat is not None and not 0 <= seat < record.players:
        raise MatchError(
            Kind.BAD_REQUEST,
            "NOT_A_SEAT",
            f"there is no seat {seat} in this match",
            record.match_id,
        )
    if record.ended is not None:
        raise MatchError(
            Kind.RULES, "MATCH_OVER", f"the match is over ({record.ended.reason})", record.match_id
        )
    open_seats = record.open_seats
    if not open_seats or (seat is not None and seat not in open_seats):
        raise MatchError(
            Kind.RULES,
            "SEAT_TAKEN",
            "every seat is taken" if not open_seats else f"seat {seat} is taken",
            record.match_id,
        )
    return open_seats[0] if seat is None else seat


def join_starts(record: MatchRecord) -> bool:
    """True when the next join takes the last open seat (and so needs the server seed)."""
    return len(record.open_seats) == 1 and not record.awaiting


def contribution_starts(record: MatchRecord) -> bool:
    """True when the next contribution is the last the match waits for (so it starts)."""
    return len(record.awaiting) == 1 and not record.open_seats


def contribute(
    record: MatchRecord,
    seat: int,
    contribution: bytes,
    *,
    server_seed: bytes | None,
    time_ms: int,
) -> Step:
    """A seat named at creation gives its contribution after the commitment (docs/fairness.md
    §1); the last one the match waits for starts it when no seat is open."""
    limits.check_contribution(contribution)
    if record.ended is not None:
        raise MatchError(
            Kind.RULES, "MATCH_OVER", f"the match is over ({record.ended.reason})", record.match_id
        )
    if seat not in record.awaiting:
        why = (
            "this match takes no contribution after creation (no contribution window)"
            if not record.terms.contribute_ms
            else "this seat's contribution is in the log already, or its window has ended"
        )
        raise MatchError(Kind.RULES, "NOT_AWAITING_CONTRIBUTION", why, record.match_id, seat)
    events: list[Any] = [SeedContributed(seat, contribution.hex())]
    if contribution_starts(record):
        if server_seed is None:
            raise AssertionError("the last contribution needs the server seed")
        given = advance(record, events, record.version, record.head)
        events += opening(given, seed_of(given, server_seed))
    return _seal(record, seat, "", None, events, time_ms)


def join(
    record: MatchRecord,
    seat: int,
    name: str,
    contribution: bytes,
    *,
    server_seed: bytes | None,
    time_ms: int,
    user: str = "",
) -> Step:
    """A player takes open `seat` (see choose_seat); the last one starts the match. `user` is
    the platform's user id behind a seat ticket, recorded in the event and as the actor."""
    limits.check_name(name, allow_empty=False)
    limits.check_contribution(contribution)
    limits.check_user(user)
    if choose_seat(record, seat) != seat:  # pragma: no cover - choose_seat returns `seat`
        raise AssertionError(seat)
    joined = SeatJoined(seat, name, contribution.hex(), user)
    events: list[Any] = [joined]
    if join_starts(record):
        if server_seed is None:
            raise AssertionError("the last join needs the server seed")
        seated = advance(record, events, record.version, record.head)
        events += opening(seated, seed_of(seated, server_seed))
    return _seal(record, seat, "", None, events, time_ms, user)


def seed_of(record: MatchRecord, server_seed: bytes) -> bytes:
    """The match seed (docs/fairness.md §1) once every seat has made its contribution."""
    return match_seed(server_seed, [bytes.fromhex(c) for c in record.contributions])


def opening(record: MatchRecord, seed: bytes) -> tuple[Any, ...]:
    """The game's opening events once every seat is named, dealt from the match seed."""
    game = record.game
    config = game.make_config(record.options, record.players)
    return tuple(game.start(config, list(record.names), seed, record.setup()))


# ---------------------------------------------------------------------- play and finish


def decide(record: MatchRecord, seat: int, command: Any) -> Decision:
    """What `seat`'s command does in this record; MatchError (RULES) if the rules refuse it."""
    if record.ended is not None:
        raise MatchError(
            Kind.RULES,
            "MATCH_OVER",
            f"the match is over ({record.ended.reason})",
            record.match_id,
            seat,
        )
    if not record.started:
        raise MatchError(
            Kind.RULES, "NOT_STARTED", "the match waits for players to join", record.match_id, seat
        )
    if record.seedless:  # a programming error: the engine folds with the server seed
        raise MatchError(
            Kind.INTERNAL,
            "SEED_WITHHELD",
            "the match seed is not known here",
            record.match_id,
            seat,
        )
    game = record.game
    try:
        events = tuple(game.decide(record.state, seat, command))
    except IllegalMove as e:
        raise MatchError(
            Kind.RULES, e.code, e.message, record.match_id, seat, rule=e.rule
        ) from None
    state = record.state
    for event in events:
        state = game.evolve(state, event)
    return Decision(seat, command, events, state, game.outcome(state) is not None)


def play(
    record: MatchRecord,
    decision: Decision,
    command_id: str,
    *,
    server_seed: bytes | None,
    time_ms: int,
    actor: str = "",
) -> Step:
    """The entry of a decided command; the one that finishes the match reveals the server seed
    (with the head hash it was committed under) so anyone can check the deals. `actor` is the
    platform's user id behind the seat ticket that sent it ("" for a seat token)."""
    limits.check_user(actor)
    limits.check_command_id(command_id)
    events = decision.events
    revealed = ""
    if decision.finishes:
        if server_seed is None:
            raise AssertionError("the finishing move needs the server seed")
        revealed = server_seed.hex()
        events = (*events, SeedRevealed(revealed, record.head))
    entry = _entry(
        record, decision.seat, command_id, encode(decision.command), events, time_ms, actor
    )
    text = entry.canonical()
    digest = entry_hash(text)
    # The game's events are folded already: build the record from the decided state.
    after = finish_entry(
        record, decision.state, events, entry.version, digest, time_ms, decision.seat, True
    )
    if revealed:
        after = replace(after, revealed_seed=revealed)
    return Step(entry, events, after, text, digest)


# ---------------------------------------------------------------------- sealing


def withheld(events: Sequence[Any]) -> tuple[Any, ...]:
    """The events as the log holds them: MatchStarted without the match seed, which would
    predict every later deal (docs/fairness.md §1); SeedRevealed makes it public at the end."""
    return tuple(replace(e, seed=b"") if isinstance(e, MatchStarted) else e for e in events)


def _entry(
    record: MatchRecord,
    seat: int,
    command_id: str,
    command: Any,
    events: Sequence[Any],
    time_ms: int,
    actor: str = "",
) -> Entry:
    return Entry(
        version=record.version + 1,
        seat=seat,
        command_id=command_id,
        command=command,
        events=encode_events(events),
        time_ms=time_ms,
        prev=record.head,
        actor=actor,
    )


def _seal(
    record: MatchRecord,
    seat: int,
    command_id: str,
    command: Any,
    events: Sequence[Any],
    time_ms: int,
    actor: str = "",
) -> Step:
    return seal(record, seat, command_id, command, events, time_ms, actor)


def seal(
    record: MatchRecord,
    seat: int,
    command_id: str,
    command: Any,
    events: Sequence[Any],
    time_ms: int,
    actor: str = "",
) -> Step:
    """The next entry with these events (lifecycle or game events, folded here), sealed. The
    entry logs the withheld events; the record keeps the seed to deal later hands."""
    logged = withheld(events)
    entry = _entry(record, seat, command_id, command, logged, time_ms, actor)
    text = entry.canonical()
    digest = entry_hash(text)
    after = advance(record, events, entry.version, digest, time_ms=time_ms, seat=seat)
    return Step(entry, logged, after, text, digest)


def _unhex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise bad_request("BAD_CONTRIBUTION", "a seed contribution must be hex") from None
