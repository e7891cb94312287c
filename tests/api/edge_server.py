"""A real server with chosen edge settings (limits, TLS, reflection), for the edge tests."""

from __future__ import annotations

from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.wire.status import error_info


class EdgeServer:
    """The bootstrap's server with keyword settings (fields of its Wiring), its loop in a
    background thread."""

    def __init__(self, redis_url: str, **settings: Any) -> None:
        from kozyr.config.settings import ServerConfig
        from kozyr.server.background import BackgroundServer
        from kozyr.server.bootstrap import Running, Wiring, redis_store

        timeouts = settings.pop("store_timeouts", {})
        config = settings.pop("config", None) or ServerConfig()
        self.background = BackgroundServer(
            Wiring(store=redis_store(redis_url, config, **timeouts), config=config, **settings)
        )
        self.loop = self.background.loop
        self.running: Running = self.background.start()
        self.address = f"127.0.0.1:{self.running.port}"

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return self.background.run(coro)

    def channel(self) -> grpc.Channel:
        """A new insecure channel to the server, on a connection of its own (grpc shares
        connections between channels of a process unless told not to)."""
        return grpc.insecure_channel(self.address, options=[("grpc.use_local_subchannel_pool", 1)])

    def stub(self) -> kozyr_pb2_grpc.KozyrServiceStub:
        """A client stub on a new channel."""
        return kozyr_pb2_grpc.KozyrServiceStub(self.channel())

    def health(self) -> int:
        """The overall health status the server reports."""
        with self.channel() as channel:
            return int(
                health_pb2_grpc.HealthStub(channel)
                .Check(health_pb2.HealthCheckRequest(), timeout=30)
                .status
            )

    def stop(self) -> None:
        """Stop and end the loop thread."""
        self.background.close(2.0)


def details(error: grpc.RpcError) -> dict[str, Any]:
    """The code, ErrorInfo reason and every detail type name of a failed call."""
    from grpc_status import rpc_status

    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    info = error_info(error)  # type: ignore[arg-type]
    return {
        "code": error.code(),  # type: ignore[attr-defined]
        "reason": info.reason if info is not None else None,
        "types": [d.type_url.rsplit(".", 1)[-1] for d in status.details] if status else [],
        "message": error.details(),  # type: ignore[attr-defined]
        "trailers": sum(len(k) + len(v) for k, v in error.trailing_metadata() or ()),  # type: ignore[attr-defined]
    }
