"""The PlatformStore in process, with the Redis one's behaviour (a second implementation for
the fast tests and in-process tools; tests/platform/test_tenant_store.py runs both)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from kozyr.platform.tenant_store import CommitStatus, FeedItem


@dataclass
class _Tenant:
    feed: list[FeedItem] = field(default_factory=list)
    fed: dict[str, int] = field(default_factory=dict)
    lobby: dict[str, str] = field(default_factory=dict)
    created: dict[str, int] = field(default_factory=dict)
    seq: dict[str, int] = field(default_factory=dict)
    lists: dict[str, dict[str, int]] = field(default_factory=dict)
    live: dict[str, int] = field(default_factory=dict)


def _cursor_key(cursor: str) -> tuple[int, int]:
    ms, _, seq = cursor.partition("-")
    return int(ms), int(seq or 0)


class MemoryPlatformStore:
    """Tenants' feeds, lobbies and live sets in dicts; each call is atomic (it never awaits)."""

    def __init__(self) -> None:
        self._tenants: dict[str, _Tenant] = {}
        self._ids = itertools.count(1)

    def _t(self, tenant: str) -> _Tenant:
        return self._tenants.setdefault(tenant, _Tenant())

    async def commit(
        self,
        tenant: str,
        match_id: str,
        before: int,
        after: int,
        events: Sequence[str],
        summary: str,
        drop: Sequence[str],
        lists: Sequence[str],
        created_ms: int,
        ended: bool,
        now_ms: int,
    ) -> tuple[CommitStatus, int]:
        """See PlatformStore.commit."""
        t = self._t(tenant)
        fed = t.fed.get(match_id, 0)
        if fed >= after:
            return "DUPLICATE", fed
        if fed != before:
            return "BEHIND", fed
        for text in events:
            t.feed.append(FeedItem(f"{next(self._ids)}-0", text))
        t.fed[match_id] = after
        t.lobby[match_id] = summary
        t.created.setdefault(match_id, created_ms)
        seq = t.seq.setdefault(match_id, len(t.seq) + 1)
        for name in drop:
            t.lists.get(name, {}).pop(match_id, None)
        for name in lists:
            t.lists.setdefault(name, {})[match_id] = seq
        if ended:
            t.live.pop(match_id, None)
        else:
            t.live[match_id] = now_ms
        return "OK", after

    async def fed(self, tenant: str, match_id: str) -> int:
        """See PlatformStore.fed."""
        return self._t(tenant).fed.get(match_id, 0)

    async def read_feed(self, tenant: str, after: str, count: int) -> list[FeedItem]:
        """See PlatformStore.read_feed."""
        low = _cursor_key(after) if after else (0, 0)
        return [i for i in self._t(tenant).feed if _cursor_key(i.cursor) > low][:count]

    async def feed_top(self, tenant: str) -> str:
        """See PlatformStore.feed_top."""
        feed = self._t(tenant).feed
        return feed[-1].cursor if feed else "0-0"

    async def live(self, tenant: str, match_id: str, now_ms: int) -> None:
        """See PlatformStore.live."""
        self._t(tenant).live[match_id] = now_ms

    async def due(self, tenant: str, before_ms: int, count: int) -> list[str]:
        """See PlatformStore.due."""
        live = self._t(tenant).live
        return sorted((m for m, ms in live.items() if ms <= before_ms), key=lambda m: (live[m], m))[
            :count
        ]

    async def drop_live(self, tenant: str, match_id: str) -> None:
        """See PlatformStore.drop_live."""
        self._t(tenant).live.pop(match_id, None)

    async def lobby_scan(
        self, tenant: str, name: str, below: int | None, count: int
    ) -> list[tuple[str, int]]:
        """See PlatformStore.lobby_scan."""
        members = self._t(tenant).lists.get(name, {})
        rows = sorted(
            ((m, s) for m, s in members.items() if below is None or s < below),
            key=lambda row: row[1],
            reverse=True,
        )
        return rows[:count]

    async def summaries(
        self, tenant: str, match_ids: Sequence[str]
    ) -> list[tuple[str | None, int]]:
        """See PlatformStore.summaries."""
        t = self._t(tenant)
        return [(t.lobby.get(m), t.created.get(m, 0)) for m in match_ids]
