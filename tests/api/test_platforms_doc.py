"""docs/platforms.md tells the truth: its TOML is the server's configuration, and its Python
blocks run in order against a real server started with it (the webhook endpoint pointed at a
real receiver on 127.0.0.1, whose deliveries the doc's own verify_webhook accepts)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from kozyr.config.settings import ServerConfig, load_tenancy
from tests.api.platforms import PlatformServer
from tests.conftest import repo_root
from tests.platform.test_webhooks import Receiver

DOC = repo_root() / "docs" / "platforms.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text("utf-8")) if lang == kind]


def delivered(receiver: Receiver) -> set[str]:
    """The types of the events the receiver has taken."""
    with receiver.lock:
        bodies = [body for _, body in receiver.received.values()]
    return {json.loads(body)["type"] for body in bodies}


def test_the_platform_guide_runs(redis_url: str, tmp_path: Path) -> None:
    receiver = Receiver()
    try:
        python = blocks("python")
        names: dict[str, Any] = {}
        exec(compile(python[0], "platforms.md#1", "exec"), names)  # the keys and secrets
        (tmp_path / "acme-ticket.secret").write_text(names["ticket_secret"])
        (tmp_path / "acme-webhook.secret").write_text(names["webhook_secret"])
        [toml] = blocks("toml")
        url = f"http://127.0.0.1:{receiver.port}/kozyr"
        (tmp_path / "kozyr.toml").write_text(toml.replace("https://hooks.acme.example/kozyr", url))
        tenancy = load_tenancy(tmp_path / "kozyr.toml")
        assert tenancy.require_auth and tenancy.ids() == ["acme"]
        server = PlatformServer(
            redis_url,
            tenancy,
            config=ServerConfig(webhook_backoff_s=0.05, feed_sweep_interval_s=0.2),
        )
        try:
            names["play_to_the_end"] = server.play_out
            for i, block in enumerate(python[1:], start=2):
                code = block.replace("127.0.0.1:50051", server.address)
                exec(compile(code, f"platforms.md#{i}", "exec"), names)
            # Until every kind of event the doc's match makes has been delivered (it makes
            # five events: waiting for a sixth only ran out the 30 s).
            wanted = {"match.created", "seat.joined", "match.started", "match.ended"}
            deadline = time.monotonic() + 30
            while not wanted <= delivered(receiver) and time.monotonic() < deadline:
                time.sleep(0.05)
            events = []
            for headers, body in receiver.received.values():
                event = names["verify_webhook"](body, {k.lower(): v for k, v in headers.items()})
                assert event is not None
                events.append(event)
                assert names["verify_webhook"](body + b" ", dict(headers)) is None
            assert {e["type"] for e in events} >= wanted
        finally:
            server.stop()
    finally:
        receiver.down()
