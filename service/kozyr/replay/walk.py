"""The state of the offline verifier while it walks a replay's entries, entry by entry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kozyr.core.receipts import KeyRing
from kozyr.games import Game
from kozyr.match.log import GENESIS_HASH, READABLE_SCHEMAS, MatchCreated
from kozyr.match.record import MatchRecord
from kozyr.replay.archive import ReplayFile
from kozyr.replay.draws import Draws
from kozyr.replay.envelope import prescan_revealed
from kozyr.replay.report import Problem
from kozyr.replay.signatures import Signatures


class Walk:
    """The verifier's state while it walks the entries (kozyr.replay.verify)."""

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
        # No seat gave a contribution after the commitment: the deal is the server's alone.
        self.server_alone = False
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

    def set_state(self, i: int, state: Any) -> None:
        """The record with the game state after entry i."""
        assert self.record is not None
        self.record = replace(self.record, state=state, version=i, head=self.prev)
