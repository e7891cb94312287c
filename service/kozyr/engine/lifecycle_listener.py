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
