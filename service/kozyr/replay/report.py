"""The verifier's verdict: problems, the report for people and for `--json`, and the small
helpers that format values in it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kozyr.match.log import canonical_json

VERIFIED = "VERIFIED"
NOT_VERIFIED = "NOT_VERIFIED"
UNREADABLE = "UNREADABLE"
EXIT_CODES = {VERIFIED: 0, NOT_VERIFIED: 1, UNREADABLE: 2}

_HEX = frozenset("0123456789abcdef")

NO_KEY = (
    "no key given (--key): only the file's own consistency was checked — anyone can "
    "write a file that agrees with itself; give the operator's public key to check "
    "that the operator wrote it"
)


@dataclass(frozen=True, slots=True)
class Problem:
    """What failed, where: an entry number (None for the file, header, footer or end)."""

    where: str
    message: str
    expected: str = ""
    found: str = ""
    entry: int | None = None

    def text(self) -> str:
        """The problem as a few lines for people."""
        lines = [f"{self.where}: {self.message}"]
        if self.expected or self.found:
            lines.append(f"  expected: {self.expected}")
            lines.append(f"  found:    {self.found}")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Report:
    """The verdict and what was checked."""

    status: str
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()
    match_id: str = ""
    game: str = ""
    rules_version: str = ""
    current_rules_version: str = ""
    seats: int = 0
    entries: int = 0
    commands: int = 0
    deals: int = 0
    prearranged_deals: int = 0
    rolls: int = 0
    prearranged_rolls: int = 0
    lots: int = 0
    prearranged: bool = False
    server_alone: bool = False  # no seat contributed after the commitment (fairness.md §8)
    finished: bool = False
    outcome: str = ""
    head: str = ""
    divergences: tuple[Problem, ...] = field(default=())
    keyed: bool = False  # the operator's public key was given: signatures were checked
    signatures: int = 0
    key_ids: tuple[str, ...] = ()
    receipts: int = 0  # a player's receipts checked against the log
    proofs: int = 0  # receipts that prove the log was rewritten
    logged: str = ""  # what the transparency log showed of the match (--tree-head)

    @property
    def verified(self) -> bool:
        """True when the match verified (chain, seed, deals, rules, outcome)."""
        return self.status == VERIFIED

    @property
    def fair(self) -> bool:
        """True when the match verified, every deal came from the committed seed, and some
        seat's contribution after the commitment kept the operator from choosing it."""
        return self.verified and not self.prearranged and not self.server_alone

    @property
    def exit_code(self) -> int:
        """0 verified, 1 not verified, 2 unreadable."""
        return EXIT_CODES[self.status]

    @property
    def first_bad_entry(self) -> int | None:
        """The number of the first bad entry, if an entry is to blame."""
        return self.problems[0].entry if self.problems else None

    def text(self) -> str:
        """The verdict for people: what was checked, then VERIFIED or the first problem."""
        if self.status == UNREADABLE:
            return "\n".join(["UNREADABLE", *(p.text() for p in self.problems)])
        out = []
        if self.match_id or self.game:
            out.append(
                f"match {self.match_id or '?'} · {self.game} · rules "
                f"{self.rules_version or '?'} · {self.seats} seats · "
                f"{self.entries} entries"
            )
        out += [f"note: {n}" for n in self.notes]
        if self.status == VERIFIED:
            out += self._verified_lines()
            return "\n".join(out)
        if self.divergences:
            out.append(
                f"diverging entries under rules {self.current_rules_version}: "
                + ", ".join(str(p.entry) for p in self.divergences)
            )
            out += [p.text() for p in self.divergences]
        out.append("NOT VERIFIED")
        if self.problems and (self.proofs or not self.divergences):
            out.append(self.problems[0].text())
        if self.proofs > 1:
            out.append(
                f"  … and {plural(self.proofs - 1, 'later receipt')} the log disagrees "
                "with too (every entry after a rewritten one changes with it; --json "
                "lists them)"
            )
        if self.proofs and len(self.problems) > self.proofs:
            out.append(self.problems[self.proofs].text())
        if not self.keyed:
            out.append(NO_KEY)
        return "\n".join(out)

    def _verified_lines(self) -> list[str]:
        out = [
            f"chain: {self.entries} entries, every version, link and hash checked; head {self.head}"
        ]
        if self.keyed:
            signed = (
                f"all {self.entries} entries signed"
                if self.signatures == self.entries
                else f"all {self.entries} entries vouched for ({self.signatures} signed, the "
                f"other {self.entries - self.signatures} in runs of the server's bots, each "
                "vouched for by its run's last signature through the chain)"
            )
            out.append(
                f"signatures: {signed} by the operator's key {', '.join(self.key_ids)}: "
                "this is the operator's log"
            )
        if self.receipts:
            out.append(
                f"receipts: {plural(self.receipts, 'receipt')} a player kept, each "
                "matching the log's entry at its version"
            )
        out.append(
            "seed: the revealed server seed matches the commitment; the match seed "
            "re-derived (docs/fairness.md §1)"
        )
        given = [
            plural(n, what)
            for n, what in ((self.prearranged_deals, "deck"), (self.prearranged_rolls, "die roll"))
            if n
        ]
        out.append(
            f"deals: {plural(self.deals, 'shuffle')}, {plural(self.rolls, 'die roll')} "
            f"and {plural(self.lots, 'lot')} re-derived from the match seed"
            + (f"; {' and '.join(given)} as given at creation" if given else "")
        )
        out.append(
            f"rules: {self.commands} commands re-decided under rules "
            f"{self.current_rules_version}; every event as recorded"
        )
        out.append(f"outcome: {self.outcome}")
        if self.logged:
            out.append(self.logged)
        if not self.keyed:
            out.append(NO_KEY)
        if self.prearranged:
            out.append("VERIFIED — prearranged: not a fair random deal")
        elif self.server_alone:
            out.append(
                "VERIFIED — the server's deal alone: no seat contributed after the commitment, "
                "so the operator could have chosen it (docs/fairness.md §8)"
            )
        else:
            out.append(
                "VERIFIED — a fair deal: every shuffle and roll came from the committed seed"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (for `--json`)."""
        data = asdict(self)
        data.update(
            verified=self.verified,
            fair=self.fair,
            exit_code=self.exit_code,
            first_bad_entry=self.first_bad_entry,
        )
        return data


class Bad(Exception):
    """Stops the walk at the first problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def plural(n: int, word: str) -> str:
    """`n word` with the plural where it needs one."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def short(value: Any, limit: int = 160) -> str:
    """A JSON value cut to `limit` characters for a report line."""
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_hex(text: Any, length: int | None = None) -> bool:
    """Lowercase hex of whole bytes (of `length` characters when given)."""
    return (
        isinstance(text, str)
        and len(text) % 2 == 0
        and set(text) <= _HEX
        and (length is None or len(text) == length)
    )


def first_diff(expected: Any, found: Any, path: str = "") -> tuple[str, str, str]:
    """The first place two JSON values differ: (path, expected, found)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in sorted(set(expected) | set(found)):
            sub = f"{path}.{key}" if path else key
            if key not in found:
                return sub, short(expected[key]), "(missing)"
            if key not in expected:
                return sub, "(no such field)", short(found[key])
            if canonical_json(expected[key]) != canonical_json(found[key]):
                return first_diff(expected[key], found[key], sub)
    if isinstance(expected, list) and isinstance(found, list):
        for i, (a, b) in enumerate(zip(expected, found, strict=False)):
            if canonical_json(a) != canonical_json(b):
                return first_diff(a, b, f"{path}[{i}]")
        if len(expected) != len(found):
            return path, f"{len(expected)} items", f"{len(found)} items"
    return path, short(expected), short(found)
