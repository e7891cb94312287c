"""What the engine answers: the results of creating and joining, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass

from kozyr.core.receipts import Receipt
from kozyr.secrets.tokens import SeatToken


@dataclass(frozen=True, slots=True)
class Created:
    """The result of creating a match."""

    match_id: str
    tokens: tuple[SeatToken, ...]
    version: int
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """The result of joining a match."""

    seat: int
    token: str
    version: int
    started: bool
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is calling: a seat, a spectator (seat None) or the arbiter."""

    seat: int | None
    arbiter: bool = False
