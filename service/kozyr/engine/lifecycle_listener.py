"""What the engine tells of a match's lifecycle, to whoever keeps a view of it (the tenants'
feed and lobby: kozyr.platform implements it; the composition root wires it)."""

from __future__ import annotations

from typing import Protocol

from kozyr.match.lifecycle import Step
from kozyr.match.record import MatchRecord


class LifecycleListener(Protocol):
    """Hears of every match this engine creates, and of every append it makes."""

    async def creating(self, tenant: str, match_id: str) -> None:
        """Before a match's first append (a write-ahead: a crash right after it is caught up)."""

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """After an append of `step` on `before` (a run's last step, on the one before it);
        `tenant` is the owner when the caller knows it (a creation), else "" (look it up).
        Must not raise for a failure of its own: the append stands."""


class Listeners:
    """Several lifecycle listeners, each told in turn (the composition root joins them: the
    transparency log's, then the tenants' feed and lobby)."""

    def __init__(self, *listeners: LifecycleListener) -> None:
        self.listeners = listeners

    async def creating(self, tenant: str, match_id: str) -> None:
        """Tell each of a creation."""
        for listener in self.listeners:
            await listener.creating(tenant, match_id)

    async def appended(self, before: MatchRecord | None, step: Step, tenant: str = "") -> None:
        """Tell each of an append."""
        for listener in self.listeners:
            await listener.appended(before, step, tenant)


def joined(current: LifecycleListener | None, more: LifecycleListener) -> LifecycleListener:
    """`more` heard after `current` (or alone)."""
    return more if current is None else Listeners(current, more)
