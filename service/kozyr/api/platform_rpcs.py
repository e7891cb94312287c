"""The platform RPCs: a tenant's lobby and its results feed (docs/platforms.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api import lobby
from kozyr.api.auth import tenants
from kozyr.api.lobby import FEED_CURSOR_HEADER
from kozyr.api.rpc_calls import Context, next_update, rpc, stream_rpc
from kozyr.config.settings import Tenancy
from kozyr.engine import Engine
from kozyr.match.errors import Kind, MatchError
from kozyr.platform.publisher import Platform


class PlatformRpcs:
    """KozyrService's platform RPCs (a part of KozyrService: api/servicer.py)."""

    platform: Platform | None
    tenancy: Tenancy
    engine: Engine
    closing: asyncio.Event

    def _platform(self) -> Platform:
        if self.platform is None:
            raise MatchError(
                Kind.UNAVAILABLE,
                "NO_PLATFORM",
                "this server keeps no tenant feed or lobby (it has no Redis)",
            )
        return self.platform

    @rpc
    async def ListMatches(
        self, request: pb.ListMatchesRequest, context: Context
    ) -> pb.ListMatchesResponse:
        """One page of the caller's tenant's lobby."""
        return await lobby.list_matches(
            self._platform(), self.tenancy, tenants.current().tenant, request, self.engine.now_ms()
        )

    @stream_rpc
    async def WatchEvents(
        self, request: pb.WatchEventsRequest, context: Context
    ) -> AsyncGenerator[pb.TenantEvent, None]:
        """The caller's tenant's feed after from_cursor, until the caller or the server stops."""
        lobby.check_cursor(request.from_cursor)
        types = lobby.check_types(request.types)
        platform = self._platform()
        tenant = tenants.current().tenant
        cursor = request.from_cursor
        if cursor == "$":
            cursor = await platform.data.feed_top(tenant)
        # The start on the wire before any event: a client that has it misses nothing later.
        await context.send_initial_metadata(((FEED_CURSOR_HEADER, cursor or "0-0"),))
        async with contextlib.aclosing(platform.events(tenant, cursor, types=types)) as items:
            while (item := await next_update(items, self.closing)) is not None:
                data = json.loads(item.text)
                if not types or data["type"] in types:
                    yield lobby.tenant_event(item, data)
