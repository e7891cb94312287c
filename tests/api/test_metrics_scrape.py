"""The metrics of a real server, scraped over HTTP as Prometheus does (issue 31): the process,
the store's command latency, matches in play, the webhook backlog, the web port's edge."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import start_http_server
from prometheus_client.parser import text_string_to_metric_families

from kozyr.api.metrics import METRICS
from kozyr.config.settings import ServerConfig
from tests.api.platforms import ACME_KEY, PlatformServer, open_match, tenancy_of


def scrape(port: int) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """Every sample of /metrics: name -> labels -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
        text = answer.read().decode()
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = tuple(sorted(sample.labels.items()))
            samples.setdefault(sample.name, {})[labels] = sample.value
    return samples


@pytest.fixture
def hooked(redis_url: str, tmp_path: Path) -> Iterator[PlatformServer]:
    """A server whose tenant acme has a webhook endpoint nobody answers on."""
    tenancy = tenancy_of(tmp_path, require_auth=True, webhook_url="http://127.0.0.1:9/hook")
    server = PlatformServer(redis_url, tenancy, ServerConfig(feed_sweep_interval_s=0.2))
    yield server
    server.stop()


def test_a_scrape_shows_the_process_the_store_the_matches_and_the_webhooks(
    hooked: PlatformServer,
) -> None:
    httpd, thread = start_http_server(0, addr="127.0.0.1", registry=METRICS.registry)
    try:
        stub = hooked.stub()
        playing = [open_match(stub, ACME_KEY, named=2) for _ in range(3)]
        assert len(playing) == 3
        hooked.run(hooked.running.observed.observe())
        samples = scrape(httpd.server_port)
        # The process and the interpreter, as prometheus_client's default registry has them.
        assert samples["process_resident_memory_bytes"][()] > 0
        assert samples["process_open_fds"][()] > 0
        assert "python_info" in samples and "python_gc_objects_collected_total" in samples
        # The store's commands: creating matches ran some.
        assert samples["kozyr_redis_command_seconds_count"][()] > 0
        assert "kozyr_redis_command_seconds_bucket" in samples
        # Matches in play and the webhook gauges, per tenant.
        acme = (("tenant", "acme"),)
        assert samples["kozyr_matches_in_play"][acme] >= 3
        assert samples["kozyr_webhook_backlog"][acme] >= 0
        assert samples["kozyr_webhook_dead_letters"][acme] == 0
        assert "kozyr_web_connections" in samples and "kozyr_open_watchers" in samples
    finally:
        httpd.shutdown()
        thread.join(timeout=30)
