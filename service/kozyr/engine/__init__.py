"""The application service: matches on a Store (kozyr.store), the state cache and the write
path around the pure lifecycle (kozyr.match).

The names below load lazily, so importing the package pulls in no asyncio machinery until a
name that needs it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kozyr.engine.answers import Created, Joined, Viewer
    from kozyr.engine.matches import Engine

_HOMES = {
    "Created": "kozyr.engine.answers",
    "Engine": "kozyr.engine.matches",
    "Joined": "kozyr.engine.answers",
    "Viewer": "kozyr.engine.answers",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kozyr.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = ["Created", "Engine", "Joined", "Viewer"]
