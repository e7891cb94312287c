"""Shared test settings: hypothesis profiles (CI keeps the suite fast and deterministic), the
test lanes, and the real components the tests run against."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

pytest_plugins = ["tests.parallel"]  # how `make test` spreads the suite over two workers


# ---------------------------------------------------------------------------- real components

from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import grpc  # noqa: E402
import pytest  # noqa: E402
import redis  # noqa: E402

from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc  # noqa: E402
from kozyr.api.status_audit import AUDIT  # noqa: E402
from kozyr.store.redis.embedded import EmbeddedRedis  # noqa: E402

ARBITER = "arbiter-token-for-tests-0123456789"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Redis: $REDIS_URL if set, else an embedded redis-server for the session."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server.url


def refusals_without_error_info(before: Counter[tuple[str, str, str]]) -> str:
    """What the servers of this process refused without exactly one ErrorInfo since `before`
    (kozyr.api.status_audit), one line each; "" when nothing."""
    grew = AUDIT.missing - before
    return "; ".join(f"{m} {code}: {why} (x{n})" for (m, code, why), n in sorted(grew.items()))


@pytest.fixture(autouse=True)
def every_refusal_carries_error_info() -> Iterator[None]:
    """Suite-wide (issue 31): every non-OK status an in-process server of this test sent
    carried exactly one ErrorInfo of a known reason; the test fails naming the RPC if not."""
    before = Counter(AUDIT.missing)
    yield
    missing = refusals_without_error_info(before)
    if missing:
        pytest.fail(f"the server refused without its ErrorInfo: {missing}", pytrace=False)


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A synchronous client on the test Redis, for checking what the store holds."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()


class ServerThread:
    """A real Kozyr gRPC server on a loopback port, built by the composition root
    (kozyr.server.bootstrap, as `kozyr serve` builds one), its asyncio loop in a background
    thread."""

    def __init__(
        self,
        redis_url: str,
        arbiter_token: str | None = ARBITER,
        store: Callable[[str], Any] | None = None,
        config: Any = None,
        **wiring: Any,
    ) -> None:
        """`store` builds the server's store from the URL (default: RedisStore.from_url);
        `config` is its ServerConfig (default: the defaults); `wiring` sets other fields of
        the bootstrap's Wiring (tenancy, tls, web_port...)."""
        from kozyr.api.auth.arbiter import Arbiter
        from kozyr.config.settings import ServerConfig
        from kozyr.secrets.signing import Signer
        from kozyr.server.background import BackgroundServer
        from kozyr.server.bootstrap import Wiring, redis_store

        # Every append is signed (a given `signer`: a server restarted with the same key).
        self.signer = wiring.pop("signer", None) or Signer.generate()
        self.background = BackgroundServer(
            Wiring(
                store=(lambda: store(redis_url)) if store else redis_store(redis_url),
                config=config or ServerConfig(),
                arbiter=Arbiter(arbiter_token) if arbiter_token else None,
                signer=self.signer,
                **wiring,
            )
        )
        self.loop = self.background.loop
        self.running = self.background.start()
        self.port = self.running.port
        self.address = f"127.0.0.1:{self.port}"

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return self.background.run(coro)

    def stub(self) -> kozyr_pb2_grpc.KozyrServiceStub:
        """A client stub on a new channel to this server."""
        return kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(self.address))

    def stop(self, grace: float = 5.0) -> None:
        """Stop gracefully and end the loop thread."""
        self.background.close(grace)


@pytest.fixture
def server(redis_url: str) -> Iterator[ServerThread]:
    """A running server on the test Redis."""
    srv = ServerThread(redis_url)
    yield srv
    srv.stop()


@pytest.fixture
def stub(server: ServerThread) -> kozyr_pb2_grpc.KozyrServiceStub:
    """A client stub on the running server."""
    return server.stub()


# ---------------------------------------------------------------------------- lanes

# `make test-fast` (pytest -m fast): the rules, the match lifecycle, the engine on its in-memory
# store, replay and the bots' reasoning, with no Redis, no server and no other process. A test
# is in it when it lives in one of these folders (or is a tests/test_*.py) and neither asks for
# a real component through a fixture below nor is marked slow; so a test that starts using
# Redis leaves the lane by itself, and a new test in these folders joins it.
FAST_FOLDERS = frozenset(
    {
        "core",
        "games",
        "match",
        "replay",
        "bots",
        "store",
        "secrets",
        "engine",
        "actors",
        "platform",
        "wire",
        "terminal",
    }
)
REAL_COMPONENTS = frozenset({"redis_url", "redis_client", "server", "stub"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the fast lane (see FAST_FOLDERS)."""
    root = Path(__file__).resolve().parent
    for item in items:
        try:
            parts = item.path.resolve().relative_to(root).parts
        except ValueError:
            continue
        in_folder = parts[0] in FAST_FOLDERS or (len(parts) == 1 and parts[0].startswith("test_"))
        uses_real = REAL_COMPONENTS & set(getattr(item, "fixturenames", ()))
        if in_folder and not uses_real and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.fast)


def repo_root() -> Path:
    """The project's root folder."""
    return Path(__file__).resolve().parent.parent
