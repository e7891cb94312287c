"""Play a match in-process and record it exactly as the engine logs it (no Redis, no server).

The entries are the ones `kozyr.engine.Engine` would append, because both go through the same
lifecycle (kozyr.match.lifecycle): version 1 holds `MatchCreated` (and the game's opening events
when every seat is named), each open seat's `SeatJoined` is an entry of its own (the last one
starts the match), every move is an entry with the events it caused, and the move that ends the
match also carries `SeedRevealed`. Used by the benchmark's archive, by tests, and by anyone who
wants a verifiable replay of an in-process match.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kozyr.core.cards import Card
from kozyr.core.fairness import RandomStream
from kozyr.games import Game
from kozyr.games.contract import Setup
from kozyr.match import lifecycle
from kozyr.match.lifecycle import Step
from kozyr.replay.archive import RawEntry

# Picks one of the legal commands (a bot, a script, or the default seeded random choice).
Picker = Callable[[Any, int, tuple[Any, ...]], Any]


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
    with their `contributions`; the others contribute at creation. Entry k is stamped
    `start_ms + 1000 k`: a readable, deterministic clock.
    """
    contributions = tuple(contributions) or (b"",) * len(names)
    setup = Setup(
        first_dealer=first_dealer,
        decks=tuple(tuple(d) for d in decks),
        dice=tuple(tuple(r) for r in dice),
    )
    pick = pick or random_picker(server_seed)
    clock = itertools.count(start_ms + 1000, 1000)
    seats = [
        ("", b"") if i in open_seats else (name, contributions[i]) for i, name in enumerate(names)
    ]
    created = lifecycle.created_event(
        game, dict(options or {}), seats, setup, match_id=match_id, server_seed=server_seed
    )
    step = lifecycle.create(game, created, server_seed=server_seed, time_ms=next(clock))
    entries = [_raw(step)]
    for seat in open_seats:
        step = lifecycle.join(
            step.record,
            seat,
            names[seat],
            contributions[seat],
            server_seed=server_seed,
            time_ms=next(clock),
        )
        entries.append(_raw(step))
    for move in range(max_moves):
        record = step.record
        actor = game.to_act(record.state)
        if actor is None:
            return entries
        command = pick(record.state, actor, game.legal_commands(record.state, actor))
        decision = lifecycle.decide(record, actor, command)
        step = lifecycle.play(
            record, decision, f"m{move + 1}", server_seed=server_seed, time_ms=next(clock)
        )
        entries.append(_raw(step))
    raise RuntimeError(f"the match did not end within {max_moves} moves")


def _raw(step: Step) -> RawEntry:
    return RawEntry(step.entry.version, step.text, step.digest)
