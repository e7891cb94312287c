"""Log entries, the hash chain and the events of the match lifecycle (pure).

One log entry = one accepted command and every event it caused. Its canonical form (sorted keys,
no spaces, UTF-8 JSON; see docs/replay-format.md) is what the hash chain covers:
``hash = SHA-256(canonical)``, and each entry carries the previous entry's hash (``prev``),
the first one 64 zeros.

Lifecycle events wrap the game's events: `MatchCreated` (version 1), `SeatJoined`, and
`SeedRevealed` (in the entry that finishes the match). The game's own events (dealt cards,
tricks, bouts…) come from its rules module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kozyr.core import jsontext
from kozyr.core.cards import Card
from kozyr.core.fast import quick_init
from kozyr.games import Game
from kozyr.games.codec import OMIT_DEFAULT, Registry, encode

# 2: the games' shared MatchStarted/FirstDealerChosen/Dealt; 3: MatchStarted in the log holds no
# match seed (it is withheld until SeedRevealed, docs/fairness.md §1), so nothing in a running
# match's log predicts a later deal. Schema-2 logs still read and verify.
SCHEMA_VERSION = 3
READABLE_SCHEMAS = (2, 3)
WITHHELD_SEED_SCHEMA = 3
GENESIS_HASH = "0" * 64
SYSTEM_SEAT = -1


@dataclass(frozen=True, slots=True)
class MatchCreated:
    """The first event of every match: what was asked for and the seed commitment."""

    match_id: str
    game: str
    rules_version: str
    options: tuple[tuple[str, str], ...]
    seats: tuple[str, ...]
    contributions: tuple[str, ...]
    commitment: str
    prearranged: bool = False
    first_dealer: int | None = None
    decks: tuple[tuple[Card, ...], ...] = ()
    dice: tuple[tuple[int, ...], ...] = ()
    # The platform's user id of each named seat ("" for none); left out when nobody has one.
    users: tuple[str, ...] = field(default=(), metadata=OMIT_DEFAULT)


@dataclass(frozen=True, slots=True)
class SeedContributed:
    """docs/fairness.md §1: a seat named at creation gives its contribution (hex), after the
    commitment of entry 1 was public: in a match with a contribution window only."""

    seat: int
    contribution: str


@dataclass(frozen=True, slots=True)
class ContributionsClosed:
    """docs/fairness.md §1: the contribution window ended with `seats` silent; their
    contributions are empty, said so in the log."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatJoined:
    """A player claimed an open seat, with an optional seed contribution (hex) and the
    platform's user id when a seat ticket took it (left out of the log when there is none)."""

    seat: int
    name: str
    contribution: str = ""
    user: str = field(default="", metadata=OMIT_DEFAULT)


@dataclass(frozen=True, slots=True)
class SeedRevealed:
    """The match is over: the server seed is made public so anyone can check the deals.

    `head` is the hash of the entry before the final one (the chain's head when the match
    ended; an entry cannot hold its own hash). Logs written before it existed decode with "".
    """

    server_seed: str
    head: str = ""


@dataclass(frozen=True, slots=True)
class MatchTerms:
    """How the match is run beyond the game's options (docs/rules.md R-7 … R-9), recorded in
    entry 1 right after MatchCreated, only when anything differs from the defaults.

    `bots` names the bot (a kozyr.bots spec such as ``heuristic``) that plays each seat, "" for
    a person. `clock` is NONE, DECISION (`limit_ms` per decision), FISCHER (a bank of
    `bank_ms` per seat, `increment_ms` added after each of its decisions) or CORRESPONDENCE
    (`limit_ms` is a number of days in ms). `policy` (FORFEIT, AUTO_MOVE, BOT) says what a
    timeout does; `policy_bot` is the bot of BOT. `grace_ms` is the abandonment grace,
    `expire_ms` how long an open match waits for its seats. `spectator_delay_ms` is how far
    behind the live table a spectator is served (left out of the log when 0).
    `contribute_ms` is the contribution window (docs/fairness.md §1): with it, every seat named
    at creation (a person's, not a bot's) gives its seed contribution after entry 1, and the
    match starts once they all have, or when the window ends (left out of the log when 0).
    """

    bots: tuple[str, ...] = ()
    clock: str = "NONE"
    limit_ms: int = 0
    bank_ms: int = 0
    increment_ms: int = 0
    policy: str = "FORFEIT"
    policy_bot: str = ""
    grace_ms: int = 0
    expire_ms: int = 0
    spectator_delay_ms: int = field(default=0, metadata=OMIT_DEFAULT)
    contribute_ms: int = field(default=0, metadata=OMIT_DEFAULT)


@dataclass(frozen=True, slots=True)
class Resigned:
    """R-7: a seat gave the match up (the same ending as a forfeit)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Aborted:
    """R-7: a seat called the match off before every seat had made its first decision."""

    seat: int


@dataclass(frozen=True, slots=True)
class TimedOut:
    """R-8, R-9: the seat's time for its decision ran out at `deadline_ms`; `policy` is what
    followed (FORFEIT ends the match; AUTO_MOVE and BOT are followed by the game's events of
    the decision made for the seat)."""

    seat: int
    deadline_ms: int
    policy: str


@dataclass(frozen=True, slots=True)
class Abandoned:
    """R-7: `seat` left the table (no decision, no watcher for the grace period) and `claimant`
    claimed the win."""

    seat: int
    claimant: int


@dataclass(frozen=True, slots=True)
class Expired:
    """R-7: the open seats were never filled before the match's expiry."""

    seats: tuple[int, ...]


ENDING_EVENTS: tuple[type, ...] = (Resigned, Aborted, TimedOut, Abandoned, Expired)
LIFECYCLE_EVENTS: tuple[type, ...] = (
    MatchCreated,
    SeatJoined,
    SeedContributed,
    ContributionsClosed,
    SeedRevealed,
    MatchTerms,
    *ENDING_EVENTS,
)


@quick_init
@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry; `data` is its canonical JSON object, `hash` the SHA-256 of that text."""

    version: int
    seat: int
    command_id: str
    command: Mapping[str, Any] | None
    events: tuple[Mapping[str, Any], ...]
    time_ms: int
    prev: str
    schema: int = SCHEMA_VERSION
    # Who did it: the platform's user id behind a seat ticket ("" for a seat token, the system
    # or the CLI, and then absent from the canonical form, so older entries hash the same).
    actor: str = ""

    def canonical(self) -> str:
        """The canonical JSON text the chain hashes."""
        data = {
            "version": self.version,
            "seat": self.seat,
            "command_id": self.command_id,
            "command": self.command,
            "events": list(self.events),
            "time_ms": self.time_ms,
            "prev": self.prev,
            "schema": self.schema,
        }
        if self.actor:
            data["actor"] = self.actor
        return canonical_json(data)

    @classmethod
    def from_canonical(cls, text: str) -> Entry:
        """Read an entry back from its canonical JSON (older schemas are upcast here)."""
        d = jsontext.loads(text)
        return cls(
            version=int(d["version"]),
            seat=int(d["seat"]),
            command_id=str(d["command_id"]),
            command=d.get("command"),
            events=tuple(d["events"]),
            time_ms=int(d["time_ms"]),
            prev=str(d["prev"]),
            schema=int(d.get("schema", 1)),
            actor=str(d.get("actor", "")),
        )


def canonical_json(data: Any) -> str:
    """Sorted keys, no insignificant spaces, non-ASCII kept as UTF-8."""
    return jsontext.dumps(data, sort_keys=True)


def entry_hash(canonical: str) -> str:
    """SHA-256 of an entry's canonical text, hex."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_REGISTRIES: dict[str, Registry] = {}


def registry_for(game: Game) -> Registry:
    """A decoder for the engine's and this game's events and commands."""
    reg = _REGISTRIES.get(game.NAME)
    if reg is None:
        reg = Registry((*LIFECYCLE_EVENTS, *game.EVENT_TYPES, *game.COMMAND_TYPES))
        _REGISTRIES[game.NAME] = reg
    return reg


def decode_events(game: Game, entry: Entry) -> list[Any]:
    """The entry's events as dataclasses."""
    reg = registry_for(game)
    return [reg.decode(e) for e in entry.events]


def command_key(seat: int, command_id: str) -> str:
    """The idempotency key of a command: its id, scoped to the seat that sent it."""
    return f"{seat}:{command_id}"


def encode_events(events: Iterable[Any]) -> tuple[dict[str, Any], ...]:
    """The plain-data form of events for an entry."""
    return tuple(encode(e) for e in events)
