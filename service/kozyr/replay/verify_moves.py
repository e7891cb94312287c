"""The verifier's checks of a seat's move: the command re-decided under the current rules, and
the reveal of the server seed against the commitment when the match ends.

Pure, like kozyr.replay.verify: no server, no Redis, no gRPC.
"""

from __future__ import annotations

from typing import Any

from kozyr.core.fairness import commitment
from kozyr.match import lifecycle
from kozyr.match.errors import MatchError
from kozyr.match.log import registry_for
from kozyr.replay.envelope import command_text
from kozyr.replay.report import Bad, Problem, is_hex, short
from kozyr.replay.verify_rules import compare, diverge, exact, follow
from kozyr.replay.walk import Walk


def check_move(w: Walk, i: int, line: dict[str, Any]) -> None:
    """Entry i of a running match: a seat's command, re-decided on the state before it; its
    events must be what the rules give, and the entry that ends the match reveals the seed."""
    where = f"entry {i}"
    seat, raw = line["seat"], line["command"]
    command = _command(w, i, raw)
    w.commands += 1
    recorded = line["events"]
    assert w.draws is not None and w.record is not None
    w.draws.check(i, recorded)
    state = w.state
    try:  # the very decision the server makes (kozyr.match.lifecycle)
        decision = lifecycle.decide(w.record, seat, command)
    except MatchError as e:
        problem = Problem(
            where,
            f"the rules refuse seat {seat}'s command {command_text(raw)}: {e.code}: {e.message}",
            expected="a legal command",
            found=short(raw),
            entry=i,
        )
        diverge(w, problem)
        w.set_state(i, follow(w, i, state, recorded))
        _maybe_reveal(w, i, line, recorded)
        return
    produced, after, finished = decision.events, decision.state, decision.finishes
    reveals = bool(recorded) and recorded[-1].get("type") == "SeedRevealed"
    if finished != reveals:
        diverge(
            w,
            Problem(
                where,
                "this move ends the match, so the entry must end by revealing the server seed"
                if finished
                else "the match is not over after this move, yet the entry reveals the server seed",
                expected="SeedRevealed last" if finished else "no SeedRevealed",
                found=str(recorded[-1].get("type")) if recorded else "no event",
                entry=i,
            ),
        )
        w.set_state(i, follow(w, i, state, recorded))
        _maybe_reveal(w, i, line, recorded)
        return
    w.set_state(
        i,
        compare(w, i, state, produced, 0, len(recorded) - 1 if reveals else len(recorded), after),
    )
    if reveals:
        reveal(w, i, recorded[-1], line["prev"])


def _command(w: Walk, i: int, raw: Any) -> Any:
    """Entry i's command, read exactly as one of the game's commands."""
    where = f"entry {i}"
    game = w.game
    assert game is not None and w.created is not None
    if raw is None:
        raise Bad(
            Problem(
                where,
                "the match is running, so each entry must be a seat's command",
                found="an entry without a command",
                entry=i,
            )
        )
    try:
        command = registry_for(game).decode(raw)
    except (ValueError, TypeError, KeyError) as e:
        raise Bad(
            Problem(where, f"the command cannot be read: {e}", found=short(raw), entry=i)
        ) from None
    if not isinstance(command, game.COMMAND_TYPES):
        raise Bad(
            Problem(
                where,
                f"{type(command).__name__} is not a {game.TITLE} command",
                found=short(raw),
                entry=i,
            )
        )
    exact(w, i, command, raw)
    return command


def _maybe_reveal(w: Walk, i: int, line: dict[str, Any], recorded: list[dict[str, Any]]) -> None:
    """Following a diverging record: the recorded reveal still ends the match."""
    if recorded and recorded[-1].get("type") == "SeedRevealed":
        reveal(w, i, recorded[-1], line["prev"])


def reveal(w: Walk, i: int, event: dict[str, Any], prev: str) -> None:
    """The server seed revealed in entry i: its SHA-256 is the commitment of entry 1, and the
    match seed it gives is the one the deals were checked against."""
    where = f"entry {i}"
    assert w.created is not None
    server_seed = event.get("server_seed")
    if set(event) - {"type", "server_seed", "head"} or not is_hex(server_seed):
        raise Bad(
            Problem(
                where,
                "SeedRevealed must hold the server seed in hex (and the head hash)",
                found=short(event),
                entry=i,
            )
        )
    assert isinstance(server_seed, str)
    digest = commitment(bytes.fromhex(server_seed))
    if digest != w.created.commitment:
        raise Bad(
            Problem(
                where,
                "the revealed server seed does not match the commitment "
                "published in entry 1: SHA-256(revealed seed) differs",
                expected=w.created.commitment,
                found=digest,
                entry=i,
            )
        )
    assert w.record is not None
    derived = lifecycle.seed_of(w.record, bytes.fromhex(server_seed))
    # A match aborted before it started dealt nothing: no match seed to compare.
    if (w.record.started or w.seed is not None) and derived != w.seed:
        raise Bad(
            Problem(
                where,
                "the revealed server seed does not give the match seed "
                "the deals came from (docs/fairness.md §1)",
                expected=derived.hex(),
                found=w.seed.hex() if w.seed else "none",
                entry=i,
            )
        )
    head = event.get("head", "")
    if head and head != prev:
        raise Bad(
            Problem(
                where,
                "the final event's head hash is not the hash of the entry before it",
                expected=prev,
                found=str(head),
                entry=i,
            )
        )
    if not head:
        w.notes.append(
            "the final event carries no head hash (a log written before "
            "SeedRevealed.head existed); the chain itself was checked"
        )
    w.revealed = server_seed
    w.finished_at = i
