"""The web port's bench section (`make bench`, `--only web`): the same calls over gRPC and over
the web port (Connect binary, Connect JSON, gRPC-Web) against one `kozyr serve --web-port`
process, as median latencies side by side and their ratio to gRPC. Sequential calls from one
client, so the figure is the per-call cost of each transport, not the server's throughput."""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.bench.harness import serve_argv

CALLS = 300


def start_web_service(
    tmp: str, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[str], str, str]:
    """`kozyr serve --web-port` (`extra` flags; the request rates out of the way) with an
    embedded Redis; the process, its gRPC address and its web port's URL."""
    proc = subprocess.Popen(
        serve_argv(
            tmp,
            *("--web-port", "0", "--rate-per-peer", "100000", "--burst-per-peer", "100000"),
            *("--rate-per-token", "100000", "--burst-per-token", "100000", *extra),
        ),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    web = address = ""
    for line in proc.stderr:
        if line.startswith("kozyr: web table on "):
            web = line.split(" on ", 1)[1].strip().rstrip("/")
        if line.startswith("{") and json.loads(line).get("event") == "serving":
            address = json.loads(line)["address"]
            break
    if not (web and address):
        raise RuntimeError("the service did not start with its web port")
    threading.Thread(target=lambda: [None for _ in proc.stderr or ()], daemon=True).start()
    return proc, address, web


def _median_ms(call: Callable[[], Any], calls: int = CALLS) -> float:
    for _ in range(20):  # warm up connections and caches
        call()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1e3, 3)


def bench_web() -> dict[str, Any]:
    """GetMatch and ListLegalMoves median latency per transport, and the ratio to gRPC."""
    import grpc
    from connectrpc.compat import google_protobuf_json_codec
    from connectrpc.protocol import ProtocolType
    from pyqwest import SyncClient

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
    from kozyr._proto.kozyr.v1.kozyr_connect import KozyrServiceClientSync

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, address, web = start_web_service(tmp)
        try:
            stub = kozyr_pb2_grpc.KozyrServiceStub(grpc.insecure_channel(address))
            created = stub.CreateMatch(
                pb.CreateMatchRequest(
                    game="dix", seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")]
                )
            )
            token = created.tokens[0].token
            get = pb.GetMatchRequest(match_id=created.match_id)
            legal = pb.ListLegalMovesRequest(match_id=created.match_id)
            meta = [("authorization", f"Bearer {token}")]
            headers = {"authorization": f"Bearer {token}"}
            clients = {
                "connect_binary": KozyrServiceClientSync(web, http_client=SyncClient()),
                "connect_json": KozyrServiceClientSync(
                    web, http_client=SyncClient(), codec=google_protobuf_json_codec()
                ),
                "grpc_web": KozyrServiceClientSync(
                    web, http_client=SyncClient(), protocol=ProtocolType.GRPC_WEB
                ),
            }
            grpc_get = _median_ms(lambda: stub.GetMatch(get, metadata=meta))
            grpc_legal = _median_ms(lambda: stub.ListLegalMoves(legal, metadata=meta))
            out["grpc_get_match_ms"] = grpc_get
            out["grpc_list_legal_ms"] = grpc_legal
            for name, client in clients.items():
                g = _median_ms(lambda c=client: c.get_match(get, headers=headers))
                m = _median_ms(lambda c=client: c.list_legal_moves(legal, headers=headers))
                out[f"{name}_get_match_ms"] = g
                out[f"{name}_list_legal_ms"] = m
                out[f"{name}_vs_grpc_get_match"] = round(g / grpc_get, 2)
        finally:
            proc.terminate()
            proc.wait(30)
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out
