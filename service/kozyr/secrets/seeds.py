"""The server seed of each match: stored in the match's meta hash (plain, or sealed with the
operator's seed key, kozyr.secrets.seedbox) and read back when an entry needs it (the move that
finishes the match reveals it; a join that starts the match and each later hand deal from it).

A seed never changes, so the seeds of recent matches stay in memory: a process that created a
match, or read its seed once, does not ask the store again.
"""

from __future__ import annotations

from collections import OrderedDict

from kozyr.match.errors import Kind, MatchError
from kozyr.secrets.seedbox import SeedBox
from kozyr.store.port import Store


class Seeds:
    """Store and read server seeds, keeping the `size` most recent in memory."""

    def __init__(self, store: Store, box: SeedBox | None, size: int) -> None:
        self.store = store
        self.box = box  # None: seeds stored in plain text (tests, in-process tools)
        self.size = size
        self._kept: OrderedDict[str, bytes] = OrderedDict()

    def meta(self, match_id: str, seed: bytes) -> dict[str, str]:
        """The meta field that stores a new match's seed (appended with its first entry)."""
        if self.box is None:
            return {"server_seed": seed.hex()}
        return {"sealed_seed": self.box.seal(match_id, seed)}

    def keep(self, match_id: str, seed: bytes) -> None:
        """Remember the seed of a match whose first entry this process appended."""
        self._kept[match_id] = seed
        self._kept.move_to_end(match_id)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    async def of(self, match_id: str) -> bytes:
        """The match's server seed; MatchError (INTERNAL) if it is missing or sealed with a key
        this server does not have."""
        seed = self._kept.get(match_id)
        if seed is None:
            seed = await self._stored(match_id)
            self.keep(match_id, seed)
        return seed

    async def _stored(self, match_id: str) -> bytes:
        sealed = await self.store.meta(match_id, "sealed_seed")
        if sealed is not None:
            if self.box is None:
                raise MatchError(
                    Kind.INTERNAL,
                    "SEED_SEALED_ELSEWHERE",
                    "the match's seed is sealed and this server has no seed key",
                    match_id,
                )
            return self.box.open(match_id, sealed)
        value = await self.store.meta(match_id, "server_seed")
        if value is None:
            raise MatchError(Kind.INTERNAL, "SEED_MISSING", "the match's seed is missing", match_id)
        return bytes.fromhex(value)
