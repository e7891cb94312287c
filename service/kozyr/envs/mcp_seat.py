"""One seat of a match as an MCP server, so any MCP-capable agent can play it (docs/agents.md
"MCP").

The server is a client of the public API (kozyr_client): it holds one seat's token or platform
ticket, sent as the bearer of every call, and offers four tools:

- ``view``: the match as the seat sees it (the MatchView as JSON, plus ``my_turn``);
- ``legal_moves``: the seat's legal moves now, each as its words (``play 10H``, ``take``);
- ``play(move)``: play one of those moves, named by its words;
- ``resign``: give the match up (the game's forfeit, docs/rules.md R-7).

A refused call comes back as the tool's error with the server's reason (NOT_YOUR_TURN, …).
`kozyr mcp --server ADDR --match ID` serves it over stdio, the token read from the
``KOZYR_SEAT_TOKEN`` environment variable (not the command line, where others could read it).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict
from mcp.server.mcpserver import MCPServer

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr_client import KozyrClient, KozyrError, SeatClient
from kozyr_client.moves import describe


class SeatTools:
    """The tools' logic over one SeatClient (kept apart from MCP so it reads plainly)."""

    def __init__(self, seat: SeatClient) -> None:
        self.seat = seat

    def view(self) -> dict[str, Any]:
        """The seat's view, with whether it is the seat's turn."""
        view = self.seat.view()
        data: dict[str, Any] = MessageToDict(view, preserving_proto_field_name=True)
        data["finished"] = view.status == pb.MATCH_STATUS_FINISHED
        data["my_turn"] = bool(self.seat.legal_moves()) and not data["finished"]
        return data

    def legal_moves(self) -> list[str]:
        """The legal moves' words."""
        return [describe(m) for m in self.seat.legal_moves()]

    def play(self, move: str) -> dict[str, Any]:
        """Play the legal move with these words; the new version and whether the match ended."""
        wanted = " ".join(move.split()).lower()
        for m in self.seat.legal_moves():
            if describe(m).lower() == wanted:
                response = self.seat.move(m)
                return {
                    "played": describe(m),
                    "version": response.view.version,
                    "finished": response.view.status == pb.MATCH_STATUS_FINISHED,
                }
        raise ValueError(f"{move!r} is not a legal move now (legal: {self.legal_moves()})")

    def resign(self) -> dict[str, Any]:
        """Resign the match."""
        response = self.seat.resign()
        return {"resigned": True, "version": response.view.version}


def seat_server(address: str, match_id: str, token: str) -> MCPServer:
    """An MCP server for the seat `token` holds in `match_id` on the Kozyr server `address`."""
    tools = SeatTools(KozyrClient(address).seat(match_id, token))
    server = MCPServer(
        "kozyr-seat",
        instructions=(
            f"You hold one seat of Kozyr match {match_id}. Call view to see the table, "
            "legal_moves when it is your turn, then play with one of those moves' words."
        ),
    )

    def guarded(call: Any) -> Any:
        try:
            return call()
        except KozyrError as e:
            raise ValueError(f"{e.reason or e.code}: {e.message}") from None

    @server.tool()
    def view() -> dict[str, Any]:
        """The match as your seat sees it: your hand, the table, scores, whose turn it is."""
        return guarded(tools.view)  # type: ignore[no-any-return]

    @server.tool()
    def legal_moves() -> list[str]:
        """Your legal moves now (empty when it is not your turn), e.g. "play 10H", "take"."""
        return guarded(tools.legal_moves)  # type: ignore[no-any-return]

    @server.tool()
    def play(move: str) -> dict[str, Any]:
        """Play one of your legal moves, named exactly as legal_moves lists it."""
        return guarded(lambda: tools.play(move))  # type: ignore[no-any-return]

    @server.tool()
    def resign() -> dict[str, Any]:
        """Give the match up (it ends as your forfeit)."""
        return guarded(tools.resign)  # type: ignore[no-any-return]

    return server
