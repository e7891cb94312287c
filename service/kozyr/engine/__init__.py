"""The application shell: the event store on Redis, the state cache and the move handler.

The names below load lazily, so the pure parts of this package (`kozyr.engine.log`: entries,
the hash chain, the fold) import neither redis nor asyncio machinery — the offline replay
verifier (`kozyr replay verify`) runs where neither Redis nor its client library exists.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kozyr.engine.engine import Applied, Created, Engine, Joined, Viewer
    from kozyr.engine.errors import EngineError, Kind
    from kozyr.engine.store import EventStore

_HOMES = {
    "Applied": "kozyr.engine.engine",
    "Created": "kozyr.engine.engine",
    "Engine": "kozyr.engine.engine",
    "Joined": "kozyr.engine.engine",
    "Viewer": "kozyr.engine.engine",
    "EngineError": "kozyr.engine.errors",
    "Kind": "kozyr.engine.errors",
    "EventStore": "kozyr.engine.store",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kozyr.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = ["Applied", "Created", "Engine", "EngineError", "EventStore", "Joined", "Kind", "Viewer"]
