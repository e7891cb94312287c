"""The generic-tool examples of docs/api.md really work: protodial (a gRPC command line like
grpcurl) lists, describes and calls the running server through server reflection alone."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.conftest import ServerThread

pytestmark = pytest.mark.slow  # a separate command line per call


def protodial(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the protodial command line (a dev dependency)."""
    return subprocess.run(
        [sys.executable, "-m", "protodial", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def call(
    server: ServerThread, method: str, data: dict[str, object], token: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Call one KozyrService method with a JSON request, as docs/api.md shows."""
    header = ["-H", f"authorization: Bearer {token}"] if token else []
    return protodial(
        "--plaintext",
        *header,
        "--format-error",
        "-d",
        json.dumps(data),
        f"grpc://{server.address}/kozyr.v1.KozyrService/{method}",
    )


def test_reflection_lists_the_services_and_methods(server: ServerThread) -> None:
    services = protodial("list", "--plaintext", server.address)
    assert services.returncode == 0, services.stderr
    assert {"kozyr.v1.KozyrService", "grpc.health.v1.Health"} <= set(services.stdout.split())
    methods = protodial("list", "--plaintext", server.address, "kozyr.v1.KozyrService")
    assert methods.returncode == 0, methods.stderr
    service = pb.DESCRIPTOR.services_by_name["KozyrService"]
    listed = set(methods.stdout.split())
    assert {f"kozyr.v1.KozyrService/{m.name}" for m in service.methods} == listed
    assert {"kozyr.v1.KozyrService/CreateMatch", "kozyr.v1.KozyrService/WatchMatch"} <= listed
    described = protodial(
        "describe", "--plaintext", server.address, "kozyr.v1.KozyrService.SubmitMove"
    )
    assert "returns (.kozyr.v1.SubmitMoveResponse)" in described.stdout, described.stderr


def test_a_match_is_created_read_and_refused_through_reflection_alone(server: ServerThread) -> None:
    games = call(server, "ListGames", {})
    assert games.returncode == 0, games.stderr
    assert [g["name"] for g in json.loads(games.stdout)["games"]] == [
        "dix",
        "six-dozens",
        "durak-dice",
    ]
    created = call(
        server,
        "CreateMatch",
        {"game": "dix", "options": {"target": "10"}, "seats": [{"name": "ann"}, {"name": "bob"}]},
    )
    assert created.returncode == 0, created.stderr
    answer = json.loads(created.stdout)
    match_id = answer["matchId"]
    tokens = {t.get("seat", 0): t["token"] for t in answer["tokens"]}
    view = json.loads(call(server, "GetMatch", {"matchId": match_id}, tokens[0]).stdout)["view"]
    assert view["status"] == "MATCH_STATUS_PLAYING" and len(view["dix"]["hand"]) == 13
    idle = 1 - view["toAct"]
    card = json.loads(call(server, "GetMatch", {"matchId": match_id}, tokens[idle]).stdout)["view"][
        "dix"
    ]["hand"][0]
    refused = call(
        server,
        "SubmitMove",
        {"matchId": match_id, "commandId": "c1", "move": {"dix": {"play": {"card": card}}}},
        tokens[idle],
    )
    assert refused.returncode != 0
    assert "FAILED_PRECONDITION" in refused.stderr and "NOT_YOUR_TURN" in refused.stderr
