"""`kozyr health`: ask a server's gRPC health service whether it serves (exit 0) or not (1).

The container image's HEALTHCHECK runs it; Kubernetes asks the same service itself (a `grpc`
probe). It imports gRPC only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(args.address) as channel:
        try:
            stub: Any = health_pb2_grpc.HealthStub(channel)
            answer = stub.Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as e:
            print(f"kozyr health: {args.address}: {e.code().name}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
    print(f"{args.address}: {status}")
    return 0 if answer.status == health_pb2.HealthCheckResponse.SERVING else 1


def register(sub: Any) -> None:
    """Add `kozyr health` to the command line."""
    parser = sub.add_parser("health", help="check a server's gRPC health (exit 0: serving)")
    parser.add_argument("--address", default="127.0.0.1:50051", help="host:port of the server")
    parser.add_argument("--service", default="", help="the service name ('' the whole server)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait")
    parser.set_defaults(func=_health)
