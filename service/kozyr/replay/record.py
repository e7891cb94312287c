"""Play a match in-process and record it exactly as the engine logs it (no Redis, no server).

The entries are the ones `kozyr.engine.Engine` would append: version 1 holds `MatchCreated` (and
the game's opening events when every seat is named), each open seat's `SeatJoined` is an entry of
its own (the last one starts the match), every move is an entry with the events it caused, and
the move that ends the match also carries `SeedRevealed`. The commit–reveal seed is derived as
docs/fairness.md §1 says. Used by the benchmark's archive, by tests, and by anyone who wants a
verifiable replay of an in-process match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kozyr.cards import Card
from kozyr.engine.log import (
    GENESIS_HASH,
    SYSTEM_SEAT,
    Entry,
    MatchCreated,
    MatchRecord,
    SeatJoined,
    SeedRevealed,
    apply_entry,
    encode_events,
    entry_hash,
    match_seed,
)
from kozyr.fairness import RandomStream, commitment
from kozyr.games import Game
from kozyr.games.base import Setup
from kozyr.games.codec import encode
from kozyr.replay.archive import RawEntry

# Picks one of the legal commands (a bot, a script, or the default seeded random choice).
Picker = Callable[[Any, int, tuple[Any, ...]], Any]


class _Recorder:
    """Appends entries the way the engine does: version, prev link and hash."""

    def __init__(self, start_ms: int) -> None:
        self.entries: list[RawEntry] = []
        self.record: MatchRecord | None = None
        self.time_ms = start_ms

    @property
    def head(self) -> str:
        return self.entries[-1].hash if self.entries else GENESIS_HASH

    def entry(self, seat: int, command_id: str, command: Any, events: Sequence[Any]) -> Entry:
        # A second per entry: a readable, deterministic clock.
        return Entry(len(self.entries) + 1, seat, command_id, command, encode_events(events),
                     self.time_ms + 1000 * (len(self.entries) + 1), self.head)

    def append(self, entry: Entry) -> MatchRecord:
        text = entry.canonical()
        digest = entry_hash(text)
        self.entries.append(RawEntry(entry.version, text, digest))
        self.record = apply_entry(self.record, entry, digest)
        return self.record


def random_picker(seed: bytes) -> Picker:
    """A deterministic random choice among the legal commands (its own labelled stream)."""
    stream = RandomStream(seed, "record/moves")
    return lambda state, seat, legal: legal[stream.randbelow(len(legal))]


def record_match(
    game: Game,
    names: Sequence[str],
    server_seed: bytes,
    *,
    options: Mapping[str, str] | None = None,
    contributions: Sequence[bytes] = (),
    open_seats: Sequence[int] = (),
    first_dealer: int | None = None,
    decks: Sequence[Sequence[Card]] = (),
    dice: Sequence[Sequence[int]] = (),
    pick: Picker | None = None,
    match_id: str = "local",
    start_ms: int = 1_767_225_600_000,
    max_moves: int = 100_000,
) -> list[RawEntry]:
    """Play a whole match and return its log entries as the engine would have written them.

    `open_seats` are left empty at creation and join one entry each afterwards (in that order)
    with their `contributions`; the others contribute at creation.
    """
    n = len(names)
    contributions = tuple(contributions) or (b"",) * n
    options = dict(options or {})
    setup = Setup(first_dealer=first_dealer, decks=tuple(tuple(d) for d in decks),
                  dice=tuple(tuple(r) for r in dice))
    pick = pick or random_picker(server_seed)
    rec = _Recorder(start_ms)
    created = MatchCreated(
        match_id=match_id,
        game=game.NAME,
        rules_version=game.RULES_VERSION,
        options=tuple(sorted(options.items())),
        seats=tuple("" if i in open_seats else name for i, name in enumerate(names)),
        contributions=tuple("" if i in open_seats else c.hex()
                            for i, c in enumerate(contributions)),
        commitment=commitment(server_seed),
        prearranged=setup.prearranged,
        first_dealer=first_dealer,
        decks=setup.decks,
        dice=setup.dice,
    )

    def start_events(record: MatchRecord) -> list[Any]:
        """The game's opening events once the last seat is named (the engine's rule)."""
        config = game.make_config(record.options, record.players)
        seed = match_seed(server_seed, [bytes.fromhex(c) for c in record.contributions])
        return list(game.start(config, list(record.names), seed, record.setup()))

    events: list[Any] = [created]
    if not open_seats:
        events += start_events(apply_entry(None, rec.entry(SYSTEM_SEAT, "", None, events)))
    record = rec.append(rec.entry(SYSTEM_SEAT, "", None, events))
    for k, seat in enumerate(open_seats, 1):
        events = [SeatJoined(seat, names[seat], contributions[seat].hex())]
        if k == len(open_seats):
            events += start_events(apply_entry(record, rec.entry(seat, "", None, events)))
        record = rec.append(rec.entry(seat, "", None, events))

    for move in range(max_moves):
        state = record.state
        actor = game.to_act(state)
        if actor is None:
            return rec.entries
        command = pick(state, actor, game.legal_commands(state, actor))
        produced = list(game.decide(state, actor, command))
        after = state
        for event in produced:
            after = game.evolve(after, event)
        if game.outcome(after) is not None:
            produced.append(SeedRevealed(server_seed.hex(), rec.head))
        record = rec.append(rec.entry(actor, f"m{move + 1}", encode(command), produced))
    raise RuntimeError(f"the match did not end within {max_moves} moves")
