"""Making Redis clients from a URL: one server, or a Redis Cluster (redis-py's cluster client).

- ``redis://[:password@]host:port/db``, ``rediss://…`` (TLS), ``unix:///path.sock``: one server.
- ``redis+cluster://[user:password@]host:port[,host:port…]`` (``rediss+cluster://`` for TLS):
  a Redis Cluster; the hosts are startup nodes (any of them is enough, more survive one being
  down), the client learns the rest of the cluster and follows MOVED/ASK and failovers.

Every place that connects (the service, `kozyr repair`, `kozyr tokens revoke`, the tests) goes
through here, so a cluster URL works everywhere a Redis URL does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypeAlias

import redis
import redis.asyncio as aioredis
import redis.asyncio.cluster as aiocluster
import redis.cluster
import redis.exceptions

from kozyr.match.errors import Kind, MatchError
from kozyr.store.port import store_full
from kozyr.store.redis.command_stats import TimedRedis

CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}

AsyncClient: TypeAlias = "aioredis.Redis | aiocluster.RedisCluster"
SyncClient: TypeAlias = "redis.Redis | redis.cluster.RedisCluster"


@dataclass(frozen=True, slots=True)
class ClusterUrl:
    """A parsed ``redis+cluster://`` URL."""

    nodes: tuple[tuple[str, int], ...]
    username: str | None
    password: str | None
    tls: bool


def is_cluster(url: str) -> bool:
    """Whether `url` names a Redis Cluster."""
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def parse_cluster_url(url: str) -> ClusterUrl:
    """The startup nodes and credentials of a cluster URL (ValueError if it is malformed)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in CLUSTER_SCHEMES:
        raise ValueError(f"not a Redis Cluster URL: {url!r} (write redis+cluster://host:port)")
    rest = rest.split("/", 1)[0].split("?", 1)[0]
    auth, _, hosts = rest.rpartition("@")
    user, _, password = auth.partition(":") if auth else ("", "", "")
    nodes: list[tuple[str, int]] = []
    for item in filter(None, hosts.split(",")):
        host, colon, port = item.rpartition(":")
        if not colon or not port.isdigit():
            raise ValueError(f"a cluster node is host:port, not {item!r}")
        nodes.append((host.strip("[]"), int(port)))
    if not nodes:
        raise ValueError(f"a Redis Cluster URL names at least one node: {url!r}")
    return ClusterUrl(tuple(nodes), user or None, password or None, CLUSTER_SCHEMES[scheme.lower()])


def connect(url: str, *, max_connections: int = 64, **kwargs: Any) -> AsyncClient:
    """An asyncio client on `url` (lazy: nothing connects before the first command).

    For a cluster, `max_connections` bounds the pool of each node."""
    if not is_cluster(url):
        return TimedRedis.from_url(
            url, max_connections=max_connections, decode_responses=True, **kwargs
        )
    parsed = parse_cluster_url(url)
    return aiocluster.RedisCluster(
        startup_nodes=[aiocluster.ClusterNode(h, p) for h, p in parsed.nodes],
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        max_connections=max_connections,
        decode_responses=True,
        **kwargs,
    )


def connect_sync(url: str, **kwargs: Any) -> SyncClient:
    """A synchronous client on `url` (for the command-line tools and the tests)."""
    if not is_cluster(url):
        return redis.Redis.from_url(url, decode_responses=True, **kwargs)
    parsed = parse_cluster_url(url)
    return redis.cluster.RedisCluster(
        startup_nodes=[
            redis.cluster.ClusterNode(h, p)  # type: ignore[no-untyped-call]
            for h, p in parsed.nodes
        ],
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        decode_responses=True,
        **kwargs,
    )


async def server_version(client: AsyncClient) -> tuple[int, ...]:
    """The Redis version of the server (of the lowest node, for a cluster)."""
    info: Any = await client.info("server")
    # A cluster answers {node name: info} from every node; one server answers its info.
    infos = (
        list(info.values()) if isinstance(info, dict) and "redis_version" not in info else [info]
    )
    versions = [
        tuple(int(p) for p in str(i["redis_version"]).split(".")[:3])
        for i in infos
        if isinstance(i, dict) and "redis_version" in i
    ]
    return min(versions) if versions else (0,)


class _Translated:
    """`translated`'s context: a class, not a generator, as it wraps every append."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: object
    ) -> None:
        if error is not None and (made := store_error(error)) is not None:
            raise made from error


_TRANSLATED = _Translated()


def translated() -> _Translated:
    """A lost or loading Redis becomes UNAVAILABLE; the engine never sees redis-py's errors."""
    return _TRANSLATED


def store_error(e: BaseException) -> MatchError | None:
    """The MatchError a redis-py error stands for (see `translated`); None for any other."""
    if isinstance(e, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | OSError):
        return MatchError(
            Kind.UNAVAILABLE, "STORE_UNAVAILABLE", "the event store is unreachable; retry shortly"
        )
    if isinstance(
        e,
        redis.exceptions.ClusterError
        | redis.exceptions.TryAgainError
        | redis.exceptions.RedisClusterException,
    ):
        # A Redis Cluster between a master's loss and its replica's promotion (or a slot on
        # the move): the client retried already; the caller may retry shortly.
        return MatchError(
            Kind.UNAVAILABLE, "STORE_FAILING_OVER", "the event store is failing over; retry shortly"
        )
    if isinstance(e, redis.exceptions.BusyLoadingError):
        return MatchError(
            Kind.UNAVAILABLE, "STORE_LOADING", "the event store is loading its data; retry shortly"
        )
    if out_of_memory(e):
        return store_full()
    if torn_write(e):
        return MatchError(
            Kind.UNAVAILABLE, "STORE_UNAVAILABLE", "the event store is unreachable; retry shortly"
        )
    return None


def out_of_memory(e: BaseException) -> bool:
    """Whether `e` is Redis refusing a write at its maxmemory, in each form it reaches us:
    redis-py's OutOfMemoryError (its text has lost the "OOM" prefix), a script's error that
    wraps the refused call ("Error running script ... -OOM command not allowed ..."), and a
    lane's reply error, which keeps the prefix."""
    if isinstance(e, redis.exceptions.OutOfMemoryError):
        return True
    return isinstance(e, redis.exceptions.ResponseError) and (
        str(e).startswith("OOM") or "-OOM command not allowed" in str(e)
    )


# Where a write on a connection closed under it fails: redis-py's asyncio connection and the
# asyncio stream and transport it writes through.
_WRITE_PATH = ("redis/asyncio/connection.py", "asyncio/streams.py", "asyncio/selector_events.py")


def torn_write(e: BaseException) -> bool:
    """Whether `e` is redis-py writing to a connection closed under it (redis-py #4287, #3546:
    the transport's own AttributeError or TypeError, not a ConnectionError; seen during a
    cluster failover). Only an error raised inside that write path counts: the same error
    from our own code stays the bug it is."""
    if not isinstance(e, AttributeError | TypeError):
        return False
    files = []
    tb = e.__traceback__
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename.replace("\\", "/"))
        tb = tb.tb_next
    return (
        bool(files)
        and files[-1].endswith(_WRITE_PATH)
        and any(f.endswith(_WRITE_PATH[0]) for f in files)
    )


class Gate:
    """A turn at a semaphore with redis-py's errors translated (`translated`), as an async
    context manager: the store's every call goes through one, and the generator-based form
    cost ~3 % of a server's CPU. It keeps no state of its own, so one serves every caller."""

    __slots__ = ("_turns",)

    def __init__(self, turns: int) -> None:
        self._turns = asyncio.Semaphore(turns)

    async def __aenter__(self) -> None:
        await self._turns.acquire()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: object
    ) -> None:
        self._turns.release()
        _TRANSLATED.__exit__(kind, error, tb)
