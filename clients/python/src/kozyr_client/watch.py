"""Following one match: a WatchMatch stream that survives drops.

`SeatClient.watch()` reconnects after a dropped stream and resumes after the last version it
delivered, so its updates have consecutive versions with no gap and no duplicate; progress earns
a fresh retry budget, and it gives up (WATCH_LOST) only when the backoff runs out without any.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr_client.errors import KozyrError
from kozyr_client.receipts import receipt_of
from kozyr_client.transport import Backoff, bearer, dropped

if TYPE_CHECKING:
    from kozyr_client.seat import SeatClient


class Watch(Iterator[pb.MatchUpdate]):
    """An iterator of MatchUpdates that reconnects after a drop and resumes where it was.

    `version` is the last version delivered; `reconnects` counts the resumed streams. Close it
    (or use it as a context manager) to stop early; `close()` may be called from another thread.
    """

    def __init__(self, seat: SeatClient, from_version: int, backoff: Backoff) -> None:
        self.seat = seat
        self.version = from_version
        self.backoff = backoff
        self.reconnects = 0
        self.finished = False
        self._closed = False
        self._call: Any = None
        self._updates = self._run()

    def __iter__(self) -> Watch:
        return self

    def __next__(self) -> pb.MatchUpdate:
        return next(self._updates)

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._closed

    def close(self) -> None:
        """Stop watching; the iteration ends."""
        self._closed = True
        call = self._call
        if call is not None:
            call.cancel()

    def _connect(self) -> Any:
        client = self.seat.client
        return client.stub.WatchMatch(
            pb.WatchMatchRequest(match_id=self.seat.match_id, from_version=self.version),
            metadata=bearer(self.seat.token),
        )

    def _run(self) -> Iterator[pb.MatchUpdate]:
        delays = self.backoff.delays()
        while not self._closed:
            call = self._call = self._connect()
            progressed = False
            try:
                for update in call:
                    if update.version <= self.version:
                        continue  # already delivered before the reconnect: never a duplicate
                    if update.version != self.version + 1:
                        break  # a gap would be a server bug; resume after what we have
                    self.version = update.version
                    self.seat.receipts.keep(receipt_of(update))
                    progressed = True
                    delays = self.backoff.delays()  # progress earns a fresh retry budget
                    if update.view.status == pb.MATCH_STATUS_FINISHED:
                        self.finished = True
                    yield update
                    if self.finished:
                        return
            except grpc.RpcError as e:
                if self._closed:
                    return
                error = KozyrError.from_rpc_error(e)
                if not dropped(error):
                    raise error from None
            else:
                # The stream ended without the final update: the server is shutting down, or the
                # match was already over at our version. Ask which.
                if not progressed and self._over():
                    self.finished = True
                    return
            finally:
                call.cancel()
            if self._closed:
                return
            delay = next(delays, None)
            if delay is None:
                raise KozyrError(
                    grpc.StatusCode.UNAVAILABLE,
                    "WATCH_LOST",
                    f"the watch of {self.seat.match_id} could not be resumed "
                    f"after version {self.version}",
                    transport=True,
                )
            time.sleep(delay)
            self.reconnects += 1

    def _over(self) -> bool:
        try:
            view = self.seat.view()
        except KozyrError as e:
            if e.code == grpc.StatusCode.UNAVAILABLE:
                return False
            raise
        return view.status == pb.MATCH_STATUS_FINISHED and view.version <= self.version
