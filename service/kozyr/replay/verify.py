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
from dataclasses import replace
from typing import Any

from kozyr.core.fairness import commitment
from kozyr.core.receipts import KeyRing, Receipt
from kozyr.games import GAMES, Game, InvalidOptions
from kozyr.games.codec import encode
from kozyr.games.contract import MatchStarted
from kozyr.match import lifecycle, limits
from kozyr.match.errors import MatchError
from kozyr.match.limits import MAX_CONTRIBUTION
from kozyr.match.log import (
    GENESIS_HASH,
    READABLE_SCHEMAS,
    SYSTEM_SEAT,
    WITHHELD_SEED_SCHEMA,
    MatchCreated,
    SeatJoined,
    canonical_json,
    entry_hash,
    registry_for,
)
from kozyr.match.record import MatchRecord, advance, new_record
from kozyr.replay import archive, verify_clock
from kozyr.replay.archive import ENTRY_FIELDS, ENTRY_KEYS, RECEIPT_KEY, ReplayFile
from kozyr.replay.draws import Draws
from kozyr.replay.envelope import (
    check_envelope,
    command_text,
    describe,
    header_seats,
    outcome_text,
    prescan_revealed,
)
from kozyr.replay.report import (
    NOT_VERIFIED,
    UNREADABLE,
    VERIFIED,
    Bad,
    Problem,
    Report,
    first_diff,
    is_hex,
    short,
)
from kozyr.replay.signatures import Signatures, check_receipts


class _Walk:
    """The verifier's state while it walks the entries."""

    def __init__(self, replay: ReplayFile, expect_commitment: str | None, keys: KeyRing) -> None:
        self.replay = replay
        self.signatures = Signatures(keys)
        self.expect_commitment = expect_commitment
        self.game: Game | None = None
        self.created: MatchCreated | None = None
        self.record: MatchRecord | None = None  # seats, contributions and the game state
        self.shadow: MatchRecord | None = None  # the full fold, clock included (verify_clock)
        self.draws: Draws | None = None
        self.seed: bytes | None = None
        self.trusted_seed: bytes | None = None
        self.prev = GENESIS_HASH
        self.fields: dict[str, Any] = {}
        self.text = ""  # the canonical text of the entry being checked
        self.finished_at = 0
        self.revealed = ""
        self.notes: list[str] = []
        self.divergent = False  # another rules version: collect divergences, follow the record
        self.divergences: list[Problem] = []
        self.commands = 0
        self.revealed_in_log = prescan_revealed(replay.entries)
        self.schema = min(READABLE_SCHEMAS)
        # A running log of schema 3 withholds the match seed: its chain (and signatures) can be
        # checked, its deals and moves not until the reveal.
        self.blind = False

    @property
    def state(self) -> Any:
        """The game state after the entries checked so far (None before the match starts)."""
        return None if self.record is None else self.record.state

    def _set_state(self, i: int, state: Any) -> None:
        assert self.record is not None
        self.record = replace(self.record, state=state, version=i, head=self.prev)

    # ------------------------------------------------------------------ the walk

    def run(self) -> None:
        if not self.replay.entries:
            raise Bad(Problem("file", "the replay holds no entries"))
        for i, line in enumerate(self.replay.entries, 1):
            self._chain(i, line)
            self.signatures.check(i, line)
            try:
                self._content(i, line)
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

    def _chain(self, i: int, line: dict[str, Any]) -> None:
        """Version, link and hash of entry i (docs/replay-format.md §3)."""
        where = f"entry {i}"
        skipped = {RECEIPT_KEY, *archive.OPTIONAL_FIELDS}
        if set(line) - skipped != ENTRY_KEYS:
            missing = sorted(ENTRY_KEYS - set(line))
            extra = sorted(set(line) - ENTRY_KEYS - skipped)
            raise Bad(
                Problem(
                    where,
                    "the entry line does not have the entry's fields",
                    expected=", ".join(sorted(ENTRY_KEYS)),
                    found=f"missing {missing or 'none'}, extra {extra or 'none'}",
                    entry=i,
                )
            )
        kinds = {
            "version": int,
            "seat": int,
            "command_id": str,
            "time_ms": int,
            "prev": str,
            "schema": int,
            "hash": str,
            "events": list,
        }
        for name, kind in kinds.items():
            if type(line[name]) is not kind:
                raise Bad(
                    Problem(
                        where,
                        f"field {name!r} is not a JSON {kind.__name__}",
                        found=short(line[name]),
                        entry=i,
                    )
                )
        if "actor" in line and (type(line["actor"]) is not str or not line["actor"]):
            raise Bad(Problem(where, "field 'actor' is no user id", found=short(line), entry=i))
        if line["command"] is not None and not isinstance(line["command"], dict):
            raise Bad(Problem(where, "the command is neither null nor an object", entry=i))
        if not all(isinstance(e, dict) for e in line["events"]):
            raise Bad(Problem(where, "an event is not a JSON object", entry=i))
        if line["version"] != i:
            raise Bad(
                Problem(
                    where,
                    "wrong version: an entry is missing, repeated or out of order",
                    expected=str(i),
                    found=str(line["version"]),
                    entry=i,
                )
            )
        if line["prev"] != self.prev:
            raise Bad(
                Problem(
                    where,
                    "the link to the previous entry is broken (prev is not "
                    "the previous entry's hash)",
                    expected=self.prev,
                    found=line["prev"],
                    entry=i,
                )
            )
        fields = {k: line[k] for k in (*ENTRY_FIELDS, *archive.OPTIONAL_FIELDS) if k in line}
        text = canonical_json(fields)
        digest = entry_hash(text)
        if digest != line["hash"]:
            raise Bad(
                Problem(
                    where,
                    "the hash does not match the entry's content: it was "
                    "changed after it was written",
                    expected=digest,
                    found=line["hash"],
                    entry=i,
                )
            )
        if line["schema"] not in READABLE_SCHEMAS or line["schema"] < self.schema:
            raise Bad(
                Problem(
                    where,
                    "unknown entry schema (or older than the entry before)",
                    expected=" or ".join(map(str, READABLE_SCHEMAS)),
                    found=str(line["schema"]),
                    entry=i,
                )
            )
        self.schema = line["schema"]
        self.prev = line["hash"]
        self.fields, self.text = fields, text

    def _content(self, i: int, line: dict[str, Any]) -> None:
        if self.blind:
            if any(e.get("type") == "SeedRevealed" for e in line["events"]):
                assert self.created is not None
                self._reveal(i, line["events"][-1], line["prev"])  # it does not match
            return
        if self.finished_at:
            raise Bad(
                Problem(
                    f"entry {i}",
                    f"the match ended at entry {self.finished_at} (its "
                    "server seed was revealed); no entry may follow",
                    expected="no entry",
                    found=f"entry {i}",
                    entry=i,
                )
            )
        if i == 1:
            self._creation(i, line)
        elif not verify_clock.ending(self, i, line):
            verify_clock.in_time(self, i, line)
            (self._join if self.state is None else self._move)(i, line)
        verify_clock.track(self, i, line)

    # ------------------------------------------------------------------ creation and joins

    def _creation(self, i: int, line: dict[str, Any]) -> None:
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
        self.game = game
        try:
            created = registry_for(game).decode(events[0])
        except (ValueError, TypeError, KeyError) as e:
            raise Bad(Problem(where, f"MatchCreated cannot be read: {e}", entry=i)) from None
        if not isinstance(created, MatchCreated):  # pragma: no cover - checked by type above
            raise Bad(Problem(where, "MatchCreated cannot be read", entry=i))
        self._exact(i, created, events[0])
        self.created = created
        if not is_hex(created.commitment, 64):
            raise Bad(
                Problem(
                    where,
                    "the commitment is not a SHA-256 in hex",
                    found=created.commitment,
                    entry=i,
                )
            )
        if self.expect_commitment is not None and created.commitment != self.expect_commitment:
            raise Bad(
                Problem(
                    where,
                    "the commitment is not the one you noted for this match",
                    expected=self.expect_commitment,
                    found=created.commitment,
                    entry=i,
                )
            )
        for seat, contribution in enumerate(created.contributions):
            self._check_contribution(i, seat, contribution)
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
        if created.rules_version != game.RULES_VERSION:
            self.divergent = True
            self.notes.append(
                f"recorded under rules {created.rules_version}, but these are the rules "
                f"{game.RULES_VERSION}: re-run under the current rules; diverging entries are "
                "listed"
            )
        if created.prearranged:
            given = " and ".join(
                w for w, g in (("decks", created.decks), ("die rolls", created.dice)) if g
            )
            self.notes.append(
                f"prearranged: not a fair random deal ({given} given at "
                "creation, docs/rules.md R-3)"
            )
        self.record = new_record(game, created)
        offset = verify_clock.terms(self, i, events)
        if not self.record.open_seats:
            self._start(i, events, offset)
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

    def _exact(self, i: int, decoded: Any, raw: dict[str, Any]) -> None:
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

    def _check_contribution(self, i: int, seat: int, contribution: str) -> None:
        if not is_hex(contribution) or len(contribution) > 2 * MAX_CONTRIBUTION:
            raise Bad(
                Problem(
                    f"entry {i}",
                    f"seat {seat}'s seed contribution is not hex of at "
                    f"most {MAX_CONTRIBUTION} bytes",
                    found=short(contribution),
                    entry=i,
                )
            )

    def _join(self, i: int, line: dict[str, Any]) -> None:
        where = f"entry {i}"
        assert self.game is not None
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
            joined = registry_for(self.game).decode(events[0])
        except (ValueError, TypeError, KeyError) as e:
            raise Bad(Problem(where, f"SeatJoined cannot be read: {e}", entry=i)) from None
        assert isinstance(joined, SeatJoined)
        self._exact(i, joined, events[0])
        record = self.record
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
        self._check_contribution(i, joined.seat, joined.contribution)
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
        self.record = advance(record, [joined], i, line["hash"])
        if not self.record.open_seats:
            self._start(i, events, 1)
        elif len(events) != 1:
            raise Bad(
                Problem(
                    where,
                    "seats are still open, so the match cannot start yet",
                    expected="SeatJoined only",
                    found=", ".join(str(e.get("type")) for e in events),
                    entry=i,
                )
            )

    def _start(self, i: int, events: list[dict[str, Any]], offset: int) -> None:
        """The last seat is taken: the seed and the game's opening events (from `offset`)."""
        recorded = events[offset:]
        where = f"entry {i}"
        game, created = self.game, self.created
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
        record = self.record
        assert record is not None
        revealed = self.revealed_in_log
        if revealed and commitment(bytes.fromhex(revealed)) == created.commitment:
            self.trusted_seed = lifecycle.seed_of(record, bytes.fromhex(revealed))
        if self.schema >= WITHHELD_SEED_SCHEMA:
            seed = self._withheld_seed(i, first)
            if seed is None:
                return
        else:  # schema 2 logged the match seed; it must be the one the reveal gives
            seed = bytes.fromhex(first["seed"])
            if self.trusted_seed is not None and self.trusted_seed != seed:
                raise Bad(
                    Problem(
                        where,
                        "the match seed is not the one the revealed server seed and the "
                        "seats' contributions give (docs/fairness.md §1): the deals were "
                        "not drawn from the committed seed",
                        expected=self.trusted_seed.hex(),
                        found=seed.hex(),
                        entry=i,
                    )
                )
        self.seed = seed
        self.draws = Draws(created, record.players, seed)
        self.draws.check(i, recorded)
        try:
            expected = lifecycle.opening(record, seed)
        except InvalidOptions as e:
            raise Bad(
                Problem(where, f"the rules refuse this setup: {e.code}: {e.message}", entry=i)
            ) from None
        after = None
        for event in expected:
            after = game.evolve(after, event)
        logged = lifecycle.withheld(expected) if self.schema >= WITHHELD_SEED_SCHEMA else expected
        self._set_state(i, self._compare(i, None, logged, offset, len(events), after))

    def _withheld_seed(self, i: int, started: dict[str, Any]) -> bytes | None:
        """Schema 3: MatchStarted holds no seed; the match seed comes from the revealed server
        seed. None (and only the chain checked from here) while the match runs."""
        if started.get("seed") != "":
            raise Bad(
                Problem(
                    f"entry {i}",
                    "MatchStarted holds a match seed, which a log of "
                    f"schema {self.schema} withholds until the end",
                    expected='""',
                    found=short(started.get("seed")),
                    entry=i,
                )
            )
        if self.trusted_seed is not None:
            return self.trusted_seed
        self.blind = True
        if self.revealed_in_log:  # blamed on the entry that reveals it, once the chain is there
            return None
        self.blind = True
        self.notes.append(
            "the match is still running: its log withholds the match seed, so "
            "only the chain (and signatures) were checked; deals and moves can be "
            "checked once the final entry reveals the server seed"
        )
        return None

    # ------------------------------------------------------------------ moves

    def _move(self, i: int, line: dict[str, Any]) -> None:
        where = f"entry {i}"
        game = self.game
        assert game is not None and self.created is not None
        seat, raw = line["seat"], line["command"]
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
        self._exact(i, command, raw)
        self.commands += 1
        recorded = line["events"]
        assert self.draws is not None and self.record is not None
        self.draws.check(i, recorded)
        state = self.state
        try:  # the very decision the server makes (kozyr.match.lifecycle)
            decision = lifecycle.decide(self.record, seat, command)
        except MatchError as e:
            problem = Problem(
                where,
                f"the rules refuse seat {seat}'s command {command_text(raw)}"
                f": {e.code}: {e.message}",
                expected="a legal command",
                found=short(raw),
                entry=i,
            )
            self._diverge(problem)
            self._set_state(i, self._follow(i, state, recorded))
            self._maybe_reveal(i, line, recorded)
            return
        produced, after, finished = decision.events, decision.state, decision.finishes
        reveals = bool(recorded) and recorded[-1].get("type") == "SeedRevealed"
        if finished != reveals:
            self._diverge(
                Problem(
                    where,
                    "this move ends the match, so the entry must end by revealing the server seed"
                    if finished
                    else "the match is not over after this move, yet the "
                    "entry reveals the server seed",
                    expected="SeedRevealed last" if finished else "no SeedRevealed",
                    found=str(recorded[-1].get("type")) if recorded else "no event",
                    entry=i,
                )
            )
            self._set_state(i, self._follow(i, state, recorded))
            self._maybe_reveal(i, line, recorded)
            return
        self._set_state(
            i,
            self._compare(
                i, state, produced, 0, len(recorded) - 1 if reveals else len(recorded), after
            ),
        )
        if reveals:
            self._reveal(i, recorded[-1], line["prev"])

    def _maybe_reveal(self, i: int, line: dict[str, Any], recorded: list[dict[str, Any]]) -> None:
        """Following a diverging record: the recorded reveal still ends the match."""
        if recorded and recorded[-1].get("type") == "SeedRevealed":
            self._reveal(i, recorded[-1], line["prev"])

    def _reveal(self, i: int, event: dict[str, Any], prev: str) -> None:
        where = f"entry {i}"
        assert self.created is not None
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
        if digest != self.created.commitment:
            raise Bad(
                Problem(
                    where,
                    "the revealed server seed does not match the commitment "
                    "published in entry 1: SHA-256(revealed seed) differs",
                    expected=self.created.commitment,
                    found=digest,
                    entry=i,
                )
            )
        assert self.record is not None
        derived = lifecycle.seed_of(self.record, bytes.fromhex(server_seed))
        if derived != self.seed:
            raise Bad(
                Problem(
                    where,
                    "the revealed server seed does not give the match seed "
                    "the deals came from (docs/fairness.md §1)",
                    expected=derived.hex(),
                    found=self.seed.hex() if self.seed else "none",
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
            self.notes.append(
                "the final event carries no head hash (a log written before "
                "SeedRevealed.head existed); the chain itself was checked"
            )
        self.revealed = server_seed
        self.finished_at = i

    # ------------------------------------------------------------------ rules

    def _compare(
        self, i: int, state: Any, produced: Sequence[Any], start: int, end: int, after: Any = None
    ) -> Any:
        """Compare what the rules produce with the entry's events[start:end] (the rest are the
        engine's own, checked apart); the state after the entry."""
        game = self.game
        assert game is not None
        expected = [encode(e) for e in produced]
        events = self.fields["events"]
        # One serialization: the entry rebuilt with the produced events must be the very text
        # that was hashed (stricter than ==, which would take true for 1).
        if (
            canonical_json(dict(self.fields, events=[*events[:start], *expected, *events[end:]]))
            == self.text
        ):
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
                    f"event {j + 1}: the rules give "
                    f"{expected[j]['type']} here, the log has no event",
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
        self._diverge(problem)
        return self._follow(i, state, recorded)

    def _diverge(self, problem: Problem) -> None:
        if not self.divergent:
            raise Bad(problem)
        self.divergences.append(problem)

    def _follow(self, i: int, state: Any, recorded: Sequence[dict[str, Any]]) -> Any:
        """Another rules version: continue from the recorded events."""
        game = self.game
        assert game is not None
        reg = registry_for(game)
        try:
            for data in recorded:
                event = reg.decode(data)
                if isinstance(event, MatchStarted) and not event.seed and self.seed:
                    event = replace(event, seed=self.seed)  # withheld from the log (schema 3)
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

    # ------------------------------------------------------------------ end

    def finish(self, expect_head: str | None) -> None:
        """The outcome, then the header and footer against the log."""
        game, created, record = self.game, self.created, self.record
        assert game is not None and created is not None and record is not None
        n = len(self.replay.entries)
        if self.divergences:
            return
        if not self.finished_at or self.blind:
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
        outcome = verify_clock.outcome(self)
        if outcome is None:  # pragma: no cover - the reveal comes only with an outcome
            raise Bad(Problem("end", "the seed was revealed but the match has no outcome"))
        if expect_head is not None and self.prev != expect_head:
            raise Bad(
                Problem(
                    "end",
                    "the head hash is not the one you noted for this match",
                    expected=expect_head,
                    found=self.prev,
                )
            )
        check_envelope(self.replay, record, self.prev, outcome, self.revealed)


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
    walk = _Walk(replay, expect_commitment, keys)
    problem: Problem | None = None
    try:
        walk.run()
        walk.finish(expect_head)
    except Bad as bad:
        problem = bad.problem
    held = check_receipts(replay.entries, receipts, keys) if receipts is not None else None
    game, created, draws = walk.game, walk.created, walk.draws
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
        finished=bool(walk.finished_at),
        outcome=outcome_text(game, walk.state, walk.record.names if walk.record else ())
        if game and walk.state is not None
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
