"""Re-deciding: what the current rules produce against what an entry recorded, field for field
and byte for byte; a log of another rules version is followed where they part.

Pure, like kozyr.replay.verify: no server, no Redis, no gRPC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from kozyr.games.codec import encode
from kozyr.games.contract import MatchStarted
from kozyr.match.log import MatchCreated, SeatJoined, canonical_json, registry_for
from kozyr.replay.envelope import describe
from kozyr.replay.report import Bad, Problem, first_diff, short
from kozyr.replay.walk import Walk


def exact(w: Walk, i: int, decoded: Any, raw: dict[str, Any]) -> None:
    """Every field of `raw` must be one `decoded` has, with the same value: decoding alone
    would silently drop an extra field (fields missing from old logs take defaults)."""
    encoded = encode(decoded)
    for key, value in raw.items():
        if key not in encoded or canonical_json(value) != canonical_json(encoded[key]):
            raise Bad(
                Problem(
                    f"entry {i}",
                    f"{raw.get('type')}: field {key!r} is not "
                    "part of it or not in its canonical form",
                    expected=short(encoded.get(key, "(no such field)")),
                    found=short(value),
                    entry=i,
                )
            )


def compare(
    w: Walk, i: int, state: Any, produced: Sequence[Any], start: int, end: int, after: Any = None
) -> Any:
    """Compare what the rules produce with the entry's events[start:end] (the rest are the
    engine's own, checked apart); the state after the entry."""
    game = w.game
    assert game is not None
    expected = [encode(e) for e in produced]
    events = w.fields["events"]
    # One serialization: the entry rebuilt with the produced events must be the very text
    # that was hashed (stricter than ==, which would take true for 1).
    if canonical_json(dict(w.fields, events=[*events[:start], *expected, *events[end:]])) == w.text:
        if after is not None:
            return after
        for event in produced:
            state = game.evolve(state, event)
        return state
    recorded = events[start:end]
    where = f"entry {i}"
    problem = Problem(where, "the events are not what the rules give", entry=i)
    for j in range(max(len(expected), len(recorded))):
        if j >= len(recorded):
            problem = Problem(
                where,
                f"event {j + 1}: the rules give {expected[j]['type']} here, the log has no event",
                expected=describe(game, produced[j]),
                found="nothing",
                entry=i,
            )
            break
        if j >= len(expected):
            problem = Problem(
                where,
                f"event {j + 1}: the log has "
                f"{recorded[j].get('type')}, which the rules do not "
                "give here",
                expected="nothing",
                found=short(recorded[j]),
                entry=i,
            )
            break
        if canonical_json(expected[j]) != canonical_json(recorded[j]):
            path, a, b = first_diff(expected[j], recorded[j])
            problem = Problem(
                where,
                f"event {j + 1} ({expected[j]['type']}): {path} is not "
                f"what the rules give — they give: "
                f"{describe(game, produced[j])}",
                expected=a,
                found=b,
                entry=i,
            )
            break
    diverge(w, problem)
    return follow(w, i, state, recorded)


def diverge(w: Walk, problem: Problem) -> None:
    if not w.divergent:
        raise Bad(problem)
    w.divergences.append(problem)


def follow(w: Walk, i: int, state: Any, recorded: Sequence[dict[str, Any]]) -> Any:
    """Another rules version: continue from the recorded events."""
    game = w.game
    assert game is not None
    reg = registry_for(game)
    try:
        for data in recorded:
            event = reg.decode(data)
            if isinstance(event, MatchStarted) and not event.seed and w.seed:
                event = replace(event, seed=w.seed)  # withheld from the log (schema 3)
            if (
                not isinstance(event, (MatchCreated, SeatJoined))
                and data.get("type") != "SeedRevealed"
            ):
                state = game.evolve(state, event)
    except Exception as e:  # an old event the current rules cannot even apply
        raise Bad(
            Problem(
                f"entry {i}",
                f"the current rules cannot follow the recorded events: {type(e).__name__}: {e}",
                entry=i,
            )
        ) from None
    return state
