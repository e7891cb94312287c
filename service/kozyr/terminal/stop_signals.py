"""`kozyr play`'s stop signals: SIGTERM, SIGHUP and SIGINT noticed where the program can
unwind."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
from typing import Any


class Stopped(Exception):
    """A stop was requested by a signal (its number is `signum`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """SIGTERM, SIGHUP and SIGINT as a request to stop, noticed where the program can unwind.

    The handler only records the signal and writes a byte to a pipe. It raises nothing: an
    exception raised into whatever the main thread was running (a lock held inside gRPC or a
    future, a `finally` half done) is what once left `kozyr play` hanging after a SIGTERM. The
    pipe stays readable once written, so the prompt (which waits on it beside stdin) and a
    helper thread that closes the match's watch both see it; the main thread then leaves its
    `with` blocks normally, which stops the embedded server and its redis-server.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

    def __init__(self) -> None:
        self.read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        self.received: list[int] = []

    def install(self) -> StopSignals:
        """Handle the stop signals from now on (main thread only)."""
        for sig in self.SIGNALS:
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: object) -> None:
        self.received.append(signum)  # no lock taken: the handler may run inside any code
        with contextlib.suppress(OSError):  # the pipe is full: it is readable already
            os.write(self._write_fd, b"\0")

    @property
    def requested(self) -> bool:
        """True once a stop signal arrived."""
        return bool(self.received)

    def close_on_request(self, watch: Any, done: threading.Event) -> None:
        """Thread body: on a stop request close `watch` (again until `done`, in case the watch
        was reconnecting), so a main thread waiting for an update wakes up."""
        select.select([self.read_fd], [], [])
        while not done.is_set():
            watch.close()
            done.wait(0.5)
