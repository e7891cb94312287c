"""The verifier's checks of a match's creation and joins: the entry's shape, the seed
commitment and the seats' contributions, and the opening the game's rules give once every seat
is taken (its deals from the match seed, docs/fairness.md).

Pure, like kozyr.replay.verify: no server, no Redis, no gRPC.
"""

from __future__ import annotations

from typing import Any

from kozyr.core.fairness import commitment
from kozyr.games import GAMES, Game, InvalidOptions
from kozyr.match import clock, lifecycle, limits
from kozyr.match.errors import MatchError
from kozyr.match.limits import MAX_CONTRIBUTION
from kozyr.match.log import (
    SYSTEM_SEAT,
    WITHHELD_SEED_SCHEMA,
    MatchCreated,
    SeatJoined,
    SeedContributed,
    registry_for,
)
from kozyr.match.record import MatchRecord, advance, new_record
from kozyr.replay import verify_clock
from kozyr.replay.draws import Draws
from kozyr.replay.report import Bad, Problem, is_hex, short
from kozyr.replay.verify_rules import compare, exact
from kozyr.replay.walk import Walk


def check_creation(w: Walk, i: int, line: dict[str, Any]) -> None:
    """Entry 1: the match's creation (its game, commitment, contributions and options, as the
    server would accept them), its terms, and its opening when no seat is left open."""
    where = "entry 1"
    events = line["events"]
    w.game = game = _game_created(i, line)
    w.created = created = _created(w, i, game, events[0])
    _note_rules(w, game, created)
    w.record = new_record(game, created)
    offset = verify_clock.terms(w, i, events)
    _note_contributions(w)
    if not w.record.open_seats and not w.record.awaiting:
        _start(w, i, events, offset)
    elif len(events) != offset:
        raise Bad(
            Problem(
                where,
                "seats are open, so the match cannot start yet",
                expected="MatchCreated only",
                found=", ".join(str(e.get("type")) for e in events),
                entry=i,
            )
        )


def _game_created(i: int, line: dict[str, Any]) -> Game:
    """Entry 1 is the creation of a match of a game these rules know: that game."""
    where = "entry 1"
    events = line["events"]
    if (
        line["seat"] != SYSTEM_SEAT
        or line["command"] is not None
        or not events
        or events[0].get("type") != "MatchCreated"
    ):
        raise Bad(
            Problem(
                where,
                "the first entry must be the creation of the match "
                "(seat -1, no command, MatchCreated first)",
                found=short(
                    {
                        "seat": line["seat"],
                        "command": line["command"],
                        "first": events[0].get("type") if events else None,
                    }
                ),
                entry=i,
            )
        )
    name = events[0].get("game")
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise Bad(
            Problem(
                where,
                f"unknown game {name!r}",
                expected=", ".join(GAMES),
                found=str(name),
                entry=i,
            )
        )
    return game


def _created(w: Walk, i: int, game: Game, raw: dict[str, Any]) -> MatchCreated:
    """MatchCreated read exactly, its commitment the one noted (if any), its contributions and
    options what the server accepts."""
    where = "entry 1"
    try:
        created = registry_for(game).decode(raw)
    except (ValueError, TypeError, KeyError) as e:
        raise Bad(Problem(where, f"MatchCreated cannot be read: {e}", entry=i)) from None
    if not isinstance(created, MatchCreated):  # pragma: no cover - checked by type above
        raise Bad(Problem(where, "MatchCreated cannot be read", entry=i))
    exact(w, i, created, raw)
    if not is_hex(created.commitment, 64):
        raise Bad(
            Problem(
                where,
                "the commitment is not a SHA-256 in hex",
                found=created.commitment,
                entry=i,
            )
        )
    if w.expect_commitment is not None and created.commitment != w.expect_commitment:
        raise Bad(
            Problem(
                where,
                "the commitment is not the one you noted for this match",
                expected=w.expect_commitment,
                found=created.commitment,
                entry=i,
            )
        )
    for seat, contribution in enumerate(created.contributions):
        _check_contribution(w, i, seat, contribution)
    try:  # the very check the server makes before it creates a match
        lifecycle.check_created(game, created)
    except MatchError as e:
        raise Bad(
            Problem(
                where,
                f"the server would refuse this creation: {e.code}: {e.message}",
                found=short(dict(created.options)),
                entry=i,
            )
        ) from None
    return created


def _note_rules(w: Walk, game: Game, created: MatchCreated) -> None:
    """The notes a creation gives the report: another rules version, a prearranged deal."""
    if created.rules_version != game.RULES_VERSION:
        w.divergent = True
        w.notes.append(
            f"recorded under rules {created.rules_version}, but these are the rules "
            f"{game.RULES_VERSION}: re-run under the current rules; diverging entries are "
            "listed"
        )
    if created.prearranged:
        given = " and ".join(
            what for what, g in (("decks", created.decks), ("die rolls", created.dice)) if g
        )
        w.notes.append(
            f"prearranged: not a fair random deal ({given} given at creation, docs/rules.md R-3)"
        )


def _check_contribution(w: Walk, i: int, seat: int, contribution: str) -> None:
    """A seat's seed contribution is hex of at most MAX_CONTRIBUTION bytes."""
    if not is_hex(contribution) or len(contribution) > 2 * MAX_CONTRIBUTION:
        raise Bad(
            Problem(
                f"entry {i}",
                f"seat {seat}'s seed contribution is not hex of at most {MAX_CONTRIBUTION} bytes",
                found=short(contribution),
                entry=i,
            )
        )


def check_before_start(w: Walk, i: int, line: dict[str, Any]) -> None:
    """Entry i before the match starts: a seat joining, or a named seat's contribution (or the
    contribution window's end); the opening once nothing is open or awaited."""
    events = line["events"]
    if events and events[0].get("type") in ("SeedContributed", "ContributionsClosed"):
        _check_contributed(w, i, line)
    else:
        _check_joined(w, i, line)


def _check_joined(w: Walk, i: int, line: dict[str, Any]) -> None:
    """A seat taken (its name and contribution), and the opening once the last seat is."""
    where = f"entry {i}"
    assert w.game is not None
    events = line["events"]
    if line["command"] is not None or not events or events[0].get("type") != "SeatJoined":
        raise Bad(
            Problem(
                where,
                "the match has open seats, so this entry must be a "
                "seat joining (SeatJoined, no command)",
                found=short(line["command"] or (events[0].get("type") if events else None)),
                entry=i,
            )
        )
    try:
        joined = registry_for(w.game).decode(events[0])
    except (ValueError, TypeError, KeyError) as e:
        raise Bad(Problem(where, f"SeatJoined cannot be read: {e}", entry=i)) from None
    assert isinstance(joined, SeatJoined)
    exact(w, i, joined, events[0])
    record = w.record
    assert record is not None
    if joined.seat != line["seat"]:
        raise Bad(
            Problem(
                where,
                "the joining seat is not the entry's seat",
                expected=str(line["seat"]),
                found=str(joined.seat),
                entry=i,
            )
        )
    _check_contribution(w, i, joined.seat, joined.contribution)
    try:  # the very checks the server makes before a seat is taken
        lifecycle.choose_seat(record, joined.seat)
        limits.check_name(joined.name, allow_empty=False)
    except MatchError as e:
        raise Bad(
            Problem(
                where,
                f"the server would refuse this join: {e.message}",
                found=short(events[0]),
                entry=i,
            )
        ) from None
    w.record = advance(record, [joined], i, line["hash"])
    _start_when_ready(w, i, events)


def _note_contributions(w: Walk) -> None:
    """The named seats that will give nothing after the commitment (no contribution window):
    the report says so (and, when no other seat contributes either, that the operator could
    have chosen the deal: `Walk.server_alone`)."""
    record, created = w.record, w.created
    assert record is not None and created is not None
    people = [
        seat
        for seat, name in enumerate(created.seats)
        if name and not (record.terms.bots and record.terms.bots[seat])
    ]
    if people and not created.prearranged and not record.awaiting:
        w.notes.append(
            f"seat {', '.join(map(str, people))} named at creation gave no contribution after "
            "the commitment (no contribution window; docs/fairness.md §8)"
        )


def _check_contributed(w: Walk, i: int, line: dict[str, Any]) -> None:
    """Entry i before the start: a named seat's contribution after the commitment, or the
    contribution window's end naming the silent seats; the opening once no seat is awaited
    or open (docs/fairness.md §1)."""
    where = f"entry {i}"
    events, record = line["events"], w.record
    assert w.game is not None and record is not None
    try:
        event = registry_for(w.game).decode(events[0])
    except (ValueError, TypeError, KeyError) as e:
        raise Bad(Problem(where, f"{events[0].get('type')} cannot be read: {e}", entry=i)) from None
    exact(w, i, event, events[0])
    if isinstance(event, SeedContributed):
        if event.seat != line["seat"] or event.seat not in record.awaiting:
            raise Bad(
                Problem(
                    where,
                    "a contribution from a seat the match does not wait for",
                    expected=", ".join(map(str, record.awaiting)) or "none",
                    found=str(event.seat),
                    entry=i,
                )
            )
        _check_contribution(w, i, event.seat, event.contribution)
    else:
        # The full fold before this entry knows entry 1's time, which the window runs from.
        due = clock.deadline(w.shadow if w.shadow is not None else record)
        early = due is None or due.kind != "CONTRIBUTIONS" or line["time_ms"] < due.at_ms
        if early or line["seat"] != SYSTEM_SEAT or tuple(event.seats) != record.awaiting:
            raise Bad(
                Problem(
                    where,
                    "the contribution window was closed before its end, or on other seats "
                    "than the silent ones",
                    expected=f"seats {list(record.awaiting)} at {due.at_ms if due else '-'}",
                    found=f"seats {list(event.seats)} at {line['time_ms']}",
                    entry=i,
                )
            )
    w.record = advance(record, [event], i, line["hash"])
    _start_when_ready(w, i, events)


def _start_when_ready(w: Walk, i: int, events: list[dict[str, Any]]) -> None:
    """After a seat joined or contributed: the opening once no seat is open or awaited, and
    nothing else in the entry while one is."""
    record = w.record
    assert record is not None
    if not record.open_seats and not record.awaiting:
        _start(w, i, events, 1)
    elif len(events) != 1:
        raise Bad(
            Problem(
                f"entry {i}",
                "seats are still open or awaited, so the match cannot start yet",
                expected=f"{events[0].get('type')} only",
                found=", ".join(str(e.get("type")) for e in events),
                entry=i,
            )
        )


def _start(w: Walk, i: int, events: list[dict[str, Any]], offset: int) -> None:
    """The last seat is taken: the seed and the game's opening events (from `offset`)."""
    recorded = events[offset:]
    where = f"entry {i}"
    game, created = w.game, w.created
    assert game is not None and created is not None
    first = recorded[0] if recorded else {}
    if first.get("type") != "MatchStarted" or not is_hex(first.get("seed")):
        raise Bad(
            Problem(
                where,
                "every seat is taken, so the game's MatchStarted must follow",
                found=short(first),
                entry=i,
            )
        )
    record = w.record
    assert record is not None
    revealed = w.revealed_in_log
    if revealed and commitment(bytes.fromhex(revealed)) == created.commitment:
        w.trusted_seed = lifecycle.seed_of(record, bytes.fromhex(revealed))
    if w.schema >= WITHHELD_SEED_SCHEMA:
        seed = _withheld_seed(w, i, first)
        if seed is None:
            return
    else:  # schema 2 logged the match seed; it must be the one the reveal gives
        seed = bytes.fromhex(first["seed"])
        if w.trusted_seed is not None and w.trusted_seed != seed:
            raise Bad(
                Problem(
                    where,
                    "the match seed is not the one the revealed server seed and the "
                    "seats' contributions give (docs/fairness.md §1): the deals were "
                    "not drawn from the committed seed",
                    expected=w.trusted_seed.hex(),
                    found=seed.hex(),
                    entry=i,
                )
            )
    w.seed = seed
    w.server_alone = not created.prearranged and not _contributed_after(record, created)
    w.draws = Draws(created, record.players, seed)
    w.draws.check(i, recorded)
    try:
        expected = lifecycle.opening(record, seed)
    except InvalidOptions as e:
        raise Bad(
            Problem(where, f"the rules refuse this setup: {e.code}: {e.message}", entry=i)
        ) from None
    after = None
    for event in expected:
        after = game.evolve(after, event)
    logged = lifecycle.withheld(expected) if w.schema >= WITHHELD_SEED_SCHEMA else expected
    w.set_state(i, compare(w, i, None, logged, offset, len(events), after))


def _contributed_after(record: MatchRecord, created: MatchCreated) -> list[int]:
    """The seats whose contribution, as the match starts, came after the commitment (entry 1
    held another, or none): only those keep the server from knowing every input of the deal."""
    return [
        seat
        for seat, given in enumerate(record.contributions)
        if given and given != created.contributions[seat]
    ]


def _withheld_seed(w: Walk, i: int, started: dict[str, Any]) -> bytes | None:
    """Schema 3: MatchStarted holds no seed; the match seed comes from the revealed server
    seed. None (and only the chain checked from here) while the match runs."""
    if started.get("seed") != "":
        raise Bad(
            Problem(
                f"entry {i}",
                "MatchStarted holds a match seed, which a log of "
                f"schema {w.schema} withholds until the end",
                expected='""',
                found=short(started.get("seed")),
                entry=i,
            )
        )
    if w.trusted_seed is not None:
        return w.trusted_seed
    w.blind = True
    if w.revealed_in_log:  # blamed on the entry that reveals it, once the chain is there
        return None
    w.blind = True
    w.notes.append(
        "the match is still running: its log withholds the match seed, so "
        "only the chain (and signatures) were checked; deals and moves can be "
        "checked once the final entry reveals the server seed"
    )
    return None
