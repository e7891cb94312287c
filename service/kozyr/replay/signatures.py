"""Verification against the operator: the server's signatures on a replay file's entries, and a
player's receipts against the log (docs/fairness.md §6). Pure: needs `cryptography` only.

Without a key, a replay file can only agree with itself: anyone can write a file whose hashes,
commitment and deals all check. With the operator's public key, every entry must be vouched
for by the operator's signature: its own, or, inside a run of the server's bots appended as one
(the moves of seats MatchTerms gives to bots carry none), the run's last entry's, which covers
the run through the hash chain; the log's last entry must carry one. So a file edited and
re-hashed by anyone without the key fails at the first edited entry, or, inside a bot run,
at the run's last entry, naming the entries it vouches for. A player's receipt is the
operator's signature on one entry, handed out when it was appended: a log that lacks that
entry, or holds another one at its version, was rewritten after the operator signed it — and
the receipt proves it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kozyr.core.receipts import KeyRing, Receipt
from kozyr.replay.archive import RECEIPT_KEY
from kozyr.replay.report import Bad, Problem, short


@dataclass
class Signatures:
    """Checks each entry's signature as the walk reaches it (nothing without keys)."""

    keys: KeyRing
    match_id: str = ""
    commitment: str = ""
    checked: int = 0
    key_ids: set[str] = field(default_factory=set)
    unsigned: int = 0  # entries since the last signed one: a bot run's, until its last
    bot_seats: frozenset[int] = frozenset()  # MatchTerms.bots: only their moves may run

    def check(self, i: int, line: dict[str, Any]) -> None:
        """Entry i's receipt must be the operator's signature on this very entry; an entry
        without one waits for the next signed entry to vouch for it (`finish`: the last)."""
        if not self.keys:
            return
        if i == 1:
            first = line["events"][0] if line["events"] else {}
            self.match_id = str(first.get("match_id", ""))
            self.commitment = str(first.get("commitment", ""))
            self.bot_seats = _bot_seats(line["events"])
        if i > 1 and RECEIPT_KEY not in line and line.get("seat") in self.bot_seats:
            self.unsigned += 1  # a move of a bot run: the run's last signature vouches for it
            return
        receipt = _receipt_of(i, line)
        self._check_claims(i, line, receipt)
        self._check_key(i, line, receipt)
        if receipt.time_ms is not None and receipt.time_ms != line.get("time_ms"):
            raise Bad(
                Problem(
                    f"entry {i}",
                    "the operator signed this entry with another time of append than the "
                    "entry holds: the entry's time was changed after it was signed",
                    expected=str(receipt.time_ms),
                    found=str(line.get("time_ms")),
                    entry=i,
                )
            )
        self.checked += 1
        self.key_ids.add(receipt.key_id)
        self.unsigned = 0

    def finish(self, last: int) -> None:
        """The log's last entry must carry a signature: nothing vouches for unsigned ones
        after the last signed entry."""
        if self.keys and self.unsigned:
            raise Bad(
                Problem(
                    f"entry {last}",
                    f"the last {self.unsigned} entries carry no signature of the operator's "
                    "and no later entry vouches for them, so nothing shows the operator "
                    "wrote them",
                    expected="a receipt signed with the key given on the last entry",
                    found="no receipt",
                    entry=last,
                )
            )

    def _covered(self, i: int) -> str:
        """How entry i's signature reaches back (for a problem's text)."""
        if not self.unsigned:
            return ""
        return (
            f" (its signature vouches for entries {i - self.unsigned}-{i} through the "
            "chain: one of them was changed)"
        )

    def _check_claims(self, i: int, line: dict[str, Any], receipt: Receipt) -> None:
        """The receipt must name this very entry (match, version, hash, commitment)."""
        where = f"entry {i}"
        claims = (
            ("match id", receipt.match_id, self.match_id),
            ("version", receipt.version, i),
            ("entry hash", receipt.entry_hash, line["hash"]),
            ("commitment", receipt.commitment, self.commitment),
        )
        for what, signed, actual in claims:
            if signed != actual:
                raise Bad(
                    Problem(
                        where,
                        f"the operator's signature is on another {what}: this "
                        f"entry is not the one the operator signed{self._covered(i)}",
                        expected=str(signed),
                        found=str(actual),
                        entry=i,
                    )
                )

    def _check_key(self, i: int, line: dict[str, Any], receipt: Receipt) -> None:
        """The signature must verify with a key given, valid at the entry's time."""
        where = f"entry {i}"
        problem = self.keys.problem(receipt)
        if problem is not None:
            raise Bad(
                Problem(
                    where,
                    "the entry's signature does not verify with the key "
                    f"given: {problem}; whoever wrote this entry did not "
                    f"hold the operator's key{self._covered(i)}",
                    entry=i,
                )
            )
        at = line.get("time_ms")
        outside = self.keys.outside(receipt, at) if type(at) is int else None
        if outside is not None:
            raise Bad(
                Problem(
                    where,
                    f"the entry is signed with a key outside its validity: {outside}",
                    entry=i,
                )
            )


def _bot_seats(events: Sequence[Any]) -> frozenset[int]:
    """The seats entry 1's MatchTerms gives to the server's bots."""
    for event in events:
        if isinstance(event, dict) and event.get("type") == "MatchTerms":
            bots = event.get("bots")
            if isinstance(bots, list):
                return frozenset(seat for seat, bot in enumerate(bots) if bot)
    return frozenset()


def _receipt_of(i: int, line: dict[str, Any]) -> Receipt:
    """The entry's receipt; Bad when it carries none or an unreadable one."""
    where = f"entry {i}"
    raw = line.get(RECEIPT_KEY)
    if not isinstance(raw, dict):
        raise Bad(
            Problem(
                where,
                "the entry carries no signature of the operator's (only a move of the "
                "server's own bot, inside a run, may go without), so nothing shows the "
                "operator wrote it",
                expected="a receipt signed with the key given",
                found="no receipt",
                entry=i,
            )
        )
    try:
        receipt = Receipt.from_json(raw)
    except ValueError as e:
        raise Bad(
            Problem(where, f"the entry's receipt cannot be read: {e}", found=short(raw), entry=i)
        ) from None
    return receipt


@dataclass(frozen=True, slots=True)
class ReceiptCheck:
    """What a player's receipts showed: the proofs of a rewritten log, and the notes."""

    checked: int
    proofs: tuple[Problem, ...]
    notes: tuple[str, ...]


def check_receipts(
    entries: Sequence[dict[str, Any]], receipts: Sequence[Receipt], keys: KeyRing
) -> ReceiptCheck:
    """Every receipt a player kept, against the log's entries (lines of the replay file)."""
    first = entries[0]["events"][0] if entries and entries[0].get("events") else {}
    match_id = str(first.get("match_id", "")) if isinstance(first, dict) else ""
    commitment = str(first.get("commitment", "")) if isinstance(first, dict) else ""
    by_version = {line.get("version"): line for line in entries}
    proofs: list[Problem] = []
    notes: list[str] = []
    checked = 0
    for receipt in receipts:
        name = f"receipt for entry {receipt.version} (key {receipt.key_id})"
        problem = keys.problem(receipt)
        if problem is not None:
            notes.append(f"{name} ignored: {problem}; it proves nothing either way")
            continue
        if receipt.match_id != match_id:
            notes.append(f"{name} ignored: it is for match {receipt.match_id}, not {match_id}")
            continue
        checked += 1
        line = by_version.get(receipt.version)
        proof = _proof(name, receipt, line, len(entries), match_id, commitment)
        if proof is not None:
            proofs.append(proof)
    return ReceiptCheck(checked, tuple(proofs), tuple(notes))


def _proof(
    name: str, receipt: Receipt, line: dict[str, Any] | None, n: int, match_id: str, commitment: str
) -> Problem | None:
    signed = (
        f"the operator signed (key {receipt.key_id}) that entry {receipt.version} of "
        f"match {match_id} has hash {receipt.entry_hash}"
    )
    if line is None:
        return Problem(
            name,
            f"PROOF THAT THE LOG WAS REWRITTEN: {signed}, but this log ends "
            f"at entry {n}: the entry was dropped after it was signed",
            expected=f"entry {receipt.version} with hash {receipt.entry_hash}",
            found=f"no entry {receipt.version}",
            entry=receipt.version,
        )
    if line.get("hash") != receipt.entry_hash:
        also = ""
        served = line.get(RECEIPT_KEY)
        if isinstance(served, dict) and served.get("entry_hash") == line.get("hash"):
            also = (
                " The file carries a signature on its own entry too: if that one verifies "
                "with the same key, the operator signed two different histories."
            )
        return Problem(
            name,
            f"PROOF THAT THE LOG WAS REWRITTEN: {signed}, but this log's "
            f"entry {receipt.version} is a different entry: the log was "
            f"changed after the operator signed it.{also}",
            expected=receipt.entry_hash,
            found=str(line.get("hash")),
            entry=receipt.version,
        )
    if receipt.commitment != commitment:
        return Problem(
            name,
            "PROOF THAT THE LOG WAS REWRITTEN: the operator signed "
            f"commitment {receipt.commitment} for this match, but the log's "
            "entry 1 commits to another server seed",
            expected=receipt.commitment,
            found=commitment,
            entry=1,
        )
    return None
