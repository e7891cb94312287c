"""The offline verifier: is this replay the authentic, fair, rule-abiding record of a match?

Pure: it reads a parsed replay file and needs nothing but the rules core (no server, no Redis, no
gRPC). It walks the entries in order and stops at the first bad one, checking for each

1. the chain (docs/replay-format.md §3): versions 1..n, every ``prev`` link, every hash;
2. its shape: the creation entry, a join, or a seat's command;
3. the randomness (docs/fairness.md): every deck a deal shows is the shuffle of ``deal/K`` (or
   the deck given at creation for a prearranged hand), every die roll is the next die of
   ``dice/K``, a first dealer chosen by lot is ``randbelow(players)`` of ``first-dealer`` — all
   from the match seed, which must be the one the revealed server seed and the seats'
   contributions give;
4. the rules: the game's opening events are re-run (`start`), every command is re-decided on
   the state before it with the current rules, and what they produce must be exactly what was
   recorded; the entry that ends the match must reveal the server seed, whose SHA-256 must be
   the commitment published in entry 1;

then the outcome and the header and footer against the log; with the operator's key, every
entry's signature, and a player's receipts against the log (`kozyr.replay.signatures`). A match
recorded under another rules version is re-run under the current rules, and every entry where
they disagree is listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kozyr.core.receipts import KeyRing, Receipt
from kozyr.replay import verify_clock
from kozyr.replay.archive import ReplayFile
from kozyr.replay.envelope import check_envelope, header_seats, outcome_text
from kozyr.replay.report import NOT_VERIFIED, UNREADABLE, VERIFIED, Bad, Problem, Report
from kozyr.replay.signatures import check_receipts
from kozyr.replay.verify_chain import check_chain
from kozyr.replay.verify_creation import check_before_start, check_creation
from kozyr.replay.verify_moves import check_move, reveal
from kozyr.replay.walk import Walk


def _run(w: Walk) -> None:
    """Every entry in order: its chain link, its signature, then what it holds."""
    if not w.replay.entries:
        raise Bad(Problem("file", "the replay holds no entries"))
    for i, line in enumerate(w.replay.entries, 1):
        check_chain(w, i, line)
        w.signatures.check(i, line)
        try:
            _content(w, i, line)
        except Bad:
            raise
        except Exception as e:  # tampered data the rules choke on is still a bad entry
            raise Bad(
                Problem(
                    f"entry {i}",
                    f"the entry cannot be checked: {type(e).__name__}: {e}",
                    entry=i,
                )
            ) from None
    w.signatures.finish(len(w.replay.entries))


def _content(w: Walk, i: int, line: dict[str, Any]) -> None:
    """What entry i holds: the creation, a join, a move or an early ending, in time."""
    if w.blind:
        if any(e.get("type") == "SeedRevealed" for e in line["events"]):
            assert w.created is not None
            reveal(w, i, line["events"][-1], line["prev"])  # it does not match
        return
    if w.finished_at:
        raise Bad(
            Problem(
                f"entry {i}",
                f"the match ended at entry {w.finished_at} (its "
                "server seed was revealed); no entry may follow",
                expected="no entry",
                found=f"entry {i}",
                entry=i,
            )
        )
    if i == 1:
        check_creation(w, i, line)
    elif not verify_clock.ending(w, i, line):
        verify_clock.in_time(w, i, line)
        (check_before_start if w.state is None else check_move)(w, i, line)
    verify_clock.track(w, i, line)


def _finish(w: Walk, expect_head: str | None) -> None:
    """The outcome, then the header and footer against the log."""
    game, created, record = w.game, w.created, w.record
    assert game is not None and created is not None and record is not None
    n = len(w.replay.entries)
    if w.divergences:
        return
    if not w.finished_at or w.blind:
        raise Bad(
            Problem(
                "end",
                f"the match is not finished: the log ends at entry {n} "
                "and the server seed is not revealed, so the deals "
                "cannot be checked against the commitment",
                expected="a finished match",
                found=f"{n} entries",
            )
        )
    outcome = verify_clock.outcome(w)
    if outcome is None:  # pragma: no cover - the reveal comes only with an outcome
        raise Bad(Problem("end", "the seed was revealed but the match has no outcome"))
    if expect_head is not None and w.prev != expect_head:
        raise Bad(
            Problem(
                "end",
                "the head hash is not the one you noted for this match",
                expected=expect_head,
                found=w.prev,
            )
        )
    check_envelope(w.replay, record, w.prev, outcome, w.revealed)


def verify(
    replay: ReplayFile,
    *,
    expect_commitment: str | None = None,
    expect_head: str | None = None,
    keys: KeyRing | None = None,
    receipts: Sequence[Receipt] | None = None,
) -> Report:
    """Verify a parsed replay file (see the module docstring); never raises for bad content.

    `expect_commitment` / `expect_head`: values the caller noted independently (a player sees
    the commitment when the match is created), pinning the file to that match. `keys`: the
    operator's public keys: every entry must carry its signature. `receipts`: a player's
    receipts, each checked against the log (a missing or different entry is a proof).
    """
    keys = keys if keys is not None else KeyRing()
    walk = Walk(replay, expect_commitment, keys)
    problem: Problem | None = None
    try:
        _run(walk)
        _finish(walk, expect_head)
    except Bad as bad:
        problem = bad.problem
    held = check_receipts(replay.entries, receipts, keys) if receipts is not None else None
    game, created, draws, record = walk.game, walk.created, walk.draws, walk.record
    problems = (
        *(held.proofs if held else ()),
        *((problem,) if problem else tuple(walk.divergences)),
    )
    return Report(
        status=NOT_VERIFIED if problems else VERIFIED,
        problems=problems,
        notes=(*walk.notes, *(held.notes if held else ())),
        match_id=created.match_id if created else str(replay.header.get("match_id", "")),
        game=game.NAME if game else str(replay.header.get("game", "")),
        rules_version=created.rules_version if created else "",
        current_rules_version=game.RULES_VERSION if game else "",
        seats=walk.record.players if walk.record else header_seats(replay.header),
        entries=len(replay.entries),
        commands=walk.commands,
        deals=draws.deals if draws else 0,
        prearranged_deals=draws.prearranged_deals if draws else 0,
        rolls=draws.rolls if draws else 0,
        prearranged_rolls=draws.prearranged_rolls if draws else 0,
        lots=draws.lots if draws else 0,
        prearranged=bool(created and created.prearranged),
        server_alone=walk.server_alone,
        finished=bool(walk.finished_at),
        outcome=outcome_text(game, walk.state, record.names, record.outcome)
        if game and record is not None and (walk.state is not None or record.finished)
        else "",
        head=walk.prev,
        divergences=tuple(walk.divergences),
        keyed=bool(keys),
        signatures=walk.signatures.checked,
        key_ids=tuple(sorted(walk.signatures.key_ids)),
        receipts=held.checked if held else 0,
        proofs=len(held.proofs) if held else 0,
    )


def unreadable(message: str) -> Report:
    """The report for a file that cannot be read."""
    return Report(status=UNREADABLE, problems=(Problem("file", message),))
