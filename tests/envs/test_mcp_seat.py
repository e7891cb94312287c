"""A scripted MCP client plays a whole match through the MCP seat server, against a real
Kozyr server, behind a seat token and behind a platform's seat ticket; the other seat moves
through kozyr_client."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.cli import main
from kozyr.envs.mcp_seat import seat_server
from kozyr_client import KozyrClient
from tests.api.platforms import ACME_KEY, PlatformServer, bearer, open_match, tenancy_of, ticket
from tests.conftest import ServerThread


def payload(result: Any) -> Any:
    """A tool result's data (its JSON text)."""
    assert not result.is_error, result.content
    structured = result.structured_content
    if structured is not None:
        return structured.get("result", structured)
    return json.loads(result.content[0].text)


async def play_match(address: str, match_id: str, token: str, other: Any) -> dict[str, Any]:
    rng = random.Random(5)
    async with Client(seat_server(address, match_id, token)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"view", "legal_moves", "play", "resign"}
        turns = 0
        while True:
            view = payload(await client.call_tool("view", {}))
            if view["finished"]:
                return {"view": view, "turns": turns}
            legal = payload(await client.call_tool("legal_moves", {}))
            if view["my_turn"]:
                assert legal
                played = payload(await client.call_tool("play", {"move": rng.choice(legal)}))
                assert played["played"] in legal
                turns += 1
            else:
                assert legal == []
                refused = await client.call_tool("play", {"move": "play 2S"})
                assert refused.is_error
                other.move(rng.choice(other.legal_moves()))


def test_an_mcp_client_plays_a_whole_match(server: ServerThread) -> None:
    kozyr = KozyrClient(server.address)
    created = kozyr.create_match("dix", ["agent", "other"], {"single_hand": "true"})
    other = kozyr.seat(created.match_id, created.tokens[1])
    result = asyncio.run(play_match(server.address, created.match_id, created.tokens[0], other))
    assert result["turns"] == 26
    final = other.view()
    assert final.status == pb.MATCH_STATUS_FINISHED
    assert result["view"]["status"] == "MATCH_STATUS_FINISHED"


async def resign(address: str, match_id: str, token: str) -> Any:
    async with Client(seat_server(address, match_id, token)) as client:
        payload(await client.call_tool("resign", {}))
        return payload(await client.call_tool("view", {}))


def test_an_mcp_client_resigns(server: ServerThread) -> None:
    kozyr = KozyrClient(server.address)
    created = kozyr.create_match("durak-dice", ["agent", "b", "c"])
    view = asyncio.run(resign(server.address, created.match_id, created.tokens[0]))
    assert view["finished"] is True
    assert view["outcome"]["termination"] == "TERMINATION_RESIGNED"


async def play_over_stdio(address: str, match_id: str, token: str, other: Any) -> int:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kozyr.cli", "mcp", "--server", address, "--match", match_id],
        env={**os.environ, "KOZYR_SEAT_TOKEN": token},
    )
    turns = 0
    async with Client(params) as client:
        while not payload(await client.call_tool("view", {}))["finished"]:
            legal = payload(await client.call_tool("legal_moves", {}))
            if legal:
                payload(await client.call_tool("play", {"move": legal[0]}))
                turns += 1
            else:
                other.move(other.legal_moves()[0])
    return turns


@pytest.mark.slow
def test_kozyr_mcp_serves_a_seat_over_stdio(server: ServerThread) -> None:
    kozyr = KozyrClient(server.address)
    created = kozyr.create_match("dix", ["agent", "other"], {"single_hand": "true"})
    other = kozyr.seat(created.match_id, created.tokens[1])
    turns = asyncio.run(play_over_stdio(server.address, created.match_id, created.tokens[0], other))
    assert turns == 26
    assert other.view().status == pb.MATCH_STATUS_FINISHED


def test_kozyr_mcp_needs_the_token_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KOZYR_SEAT_TOKEN", raising=False)
    assert main(["mcp", "--match", "m1"]) == 2


def test_an_mcp_client_plays_a_whole_match_behind_a_platform_ticket(
    redis_url: str, tmp_path: Path
) -> None:
    """A platform's users play with seat tickets, not seat tokens: the MCP seat serves the
    seat a play ticket names (the ticket as its bearer), from joining to the end."""
    server = PlatformServer(redis_url, tenancy_of(tmp_path))
    try:
        stub = server.stub()
        match_id = open_match(stub, ACME_KEY, seats=2)
        tickets = [ticket("acme", match_id, user=f"u{seat}", seat=seat) for seat in (0, 1)]
        for seat, held in enumerate(tickets):
            stub.JoinMatch(
                pb.JoinMatchRequest(match_id=match_id, name=f"user {seat}"),
                metadata=bearer(held),
            )
        other = KozyrClient(server.address).seat(match_id, tickets[1])
        result = asyncio.run(play_match(server.address, match_id, tickets[0], other))
        assert result["turns"] == 26
        assert result["view"]["status"] == "MATCH_STATUS_FINISHED"
        assert other.view().status == pb.MATCH_STATUS_FINISHED
    finally:
        server.stop()
