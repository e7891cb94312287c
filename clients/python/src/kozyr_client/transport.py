"""How a client's calls travel: the channel's options, a token as call metadata, the retry
schedule, and which failures are a dropped stream rather than an answer.

A call that fails with UNAVAILABLE (server restarting, Redis briefly away) is retried with
exponential backoff (`Backoff`) when repeating it cannot do anything twice; a stream that drops
(`dropped`) is opened again and resumed where it was (`Watch`, `PlaySession`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from kozyr_client.errors import KozyrError

# Transport failures a watch recovers from by reconnecting: the server went away (UNAVAILABLE),
# the stream was cut (CANCELLED that we did not ask for, or an RST_STREAM that grpc reports as
# INTERNAL/UNKNOWN). Errors carrying the service's ErrorInfo are answers, not drops — except
# UNAVAILABLE, which the service sends while its event store is unreachable.
DROPPED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    }
)

# grpc waits 1 s and more before reconnecting a channel whose connection failed; a player waiting
# on a restarted server wants it back within our own retry schedule.
CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Retry schedule: `attempts` retries after the first try, sleeping first, first*2, … ≤ cap."""

    attempts: int = 6
    first: float = 0.1
    cap: float = 2.0

    def delays(self) -> Iterator[float]:
        """The sleeps between tries."""
        delay = self.first
        for _ in range(self.attempts):
            yield delay
            delay = min(delay * 2, self.cap)


def bearer(token: str | None) -> tuple[tuple[str, str], ...]:
    """Call metadata for a token (none for a spectator)."""
    return () if token is None else (("authorization", f"Bearer {token}"),)


def dropped(error: KozyrError) -> bool:
    """Whether a stream's failure is a drop to resume after (not the service's answer)."""
    return error.code in DROPPED and (error.transport or error.code == grpc.StatusCode.UNAVAILABLE)
