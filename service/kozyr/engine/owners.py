"""Which tenant owns a match: written in its meta with entry 1, never changed, so cached."""

from __future__ import annotations

from kozyr.engine.store import Store


class Owners:
    """The owning tenant of each match ("" for none: in-process tools, engine tests)."""

    def __init__(self, store: Store, size: int = 10_000) -> None:
        self.store = store
        self.size = size
        self._owners: dict[str, str] = {}

    async def of(self, match_id: str) -> str:
        """The match's tenant (the store answers once per match, then the cache)."""
        tenant = self._owners.get(match_id)
        if tenant is None:
            tenant = await self.store.meta(match_id, "tenant") or ""
            if len(self._owners) >= self.size:
                self._owners.clear()  # a bounded cache; the store still knows
            self._owners[match_id] = tenant
        return tenant
