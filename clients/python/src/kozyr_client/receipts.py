"""The receipts a client keeps: the server's signature on each entry it was told about.

A receipt (docs/fairness.md §6) proves what the server's log held at one version; a player who
keeps them can later show an arbiter that a log was rewritten (`kozyr replay verify FILE --key
PUBKEY --receipts RECEIPTS`). Every receipt carries the match's seed commitment, so the first
one a seat gets (at creation or join) is the commitment in a signed form.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from kozyr.core.receipts import Receipt, dumps_receipts, short_fingerprint


def receipt_of(response: Any) -> Receipt | None:
    """The receipt in a response or update (None when the server sent none)."""
    if not response.HasField("receipt"):
        return None
    r = response.receipt
    signature = r.signature.hex()
    return Receipt(
        r.match_id, r.version, r.entry_hash, r.commitment, r.key_id, signature, r.time_ms or None
    )


class Receipts:
    """One match's receipts by version (a repeat of a version keeps the first)."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.by_version: dict[int, Receipt] = {}

    def keep(self, receipt: Receipt | None) -> None:
        """Keep a receipt of this match (None and other matches' receipts are ignored)."""
        if receipt is not None and receipt.match_id == self.match_id:
            self.by_version.setdefault(receipt.version, receipt)

    def __len__(self) -> int:
        return len(self.by_version)

    def all(self) -> list[Receipt]:
        """Every receipt, by version."""
        return [self.by_version[v] for v in sorted(self.by_version)]

    @property
    def last(self) -> Receipt | None:
        """The receipt of the highest version kept (None before any): each entry's hash covers
        the one before, so it vouches for the whole log up to its entry; once the match has
        ended, the final entry's (the match's head)."""
        return self.by_version[max(self.by_version)] if self.by_version else None

    @property
    def commitment(self) -> str:
        """The seed commitment the server signed for this match ("" before any receipt)."""
        first = self.all()
        return first[0].commitment if first else ""

    def fingerprint(self) -> str:
        """The signed commitment's first 16 hex digits in groups, for people to compare."""
        return short_fingerprint(self.commitment) if self.commitment else ""

    def save(self, path: str | Path) -> None:
        """Write the receipts file (JSON Lines) atomically."""
        target = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(dumps_receipts(self.all()))
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
