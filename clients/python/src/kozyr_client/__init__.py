"""kozyr_client: a typed synchronous Python client of the Kozyr gRPC service (kozyr.v1).

The messages it takes and returns are the generated classes of `kozyr._proto.kozyr.v1.kozyr_pb2`
(re-exported here as `pb`); the error reasons are `kozyr._proto.kozyr.v1.errors_pb2.ErrorReason`
(re-exported here as `ErrorReason`).
"""

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1.errors_pb2 import ErrorReason
from kozyr_client import clock, moves
from kozyr_client.client import KozyrClient
from kozyr_client.errors import KozyrError, error_info
from kozyr_client.feed import Feed
from kozyr_client.matches import Created, Joined, match_request
from kozyr_client.receipts import Receipts
from kozyr_client.seat import SeatClient
from kozyr_client.session import PlaySession, SessionSeat
from kozyr_client.spread import spread_connections
from kozyr_client.transport import Backoff, bearer
from kozyr_client.watch import Watch

__all__ = [
    "Backoff",
    "Created",
    "ErrorReason",
    "Feed",
    "Joined",
    "KozyrClient",
    "KozyrError",
    "PlaySession",
    "Receipts",
    "SeatClient",
    "SessionSeat",
    "Watch",
    "bearer",
    "clock",
    "error_info",
    "match_request",
    "moves",
    "pb",
    "spread_connections",
]
