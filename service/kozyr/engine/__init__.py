"""The application shell: the event store on Redis, the state cache and the move handler."""

from kozyr.engine.engine import Applied, Created, Engine, Joined, Viewer
from kozyr.engine.errors import EngineError, Kind
from kozyr.engine.store import EventStore

__all__ = ["Applied", "Created", "Engine", "EngineError", "EventStore", "Joined", "Kind", "Viewer"]
