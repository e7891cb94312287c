"""Making matches: the CreateMatch request, and what creating or joining a match answers.

`match_request` builds the request `KozyrClient.create_match` sends (and `create_matches` sends
in batches), always with a request id so a retry answers the same match; `Created` and `Joined`
are the answers a player keeps (tokens, version, the signed commitment and its first receipt).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import Receipt
from kozyr_client.errors import KozyrError, status_of
from kozyr_client.receipts import receipt_of


@dataclass(frozen=True, slots=True)
class Created:
    """A new match: its id, the named seats' tokens by seat, the version after creation."""

    match_id: str
    tokens: dict[int, str]
    version: int = 0
    commitment: str = ""
    receipt: Receipt | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """A claimed seat: the seat, its token, the version after joining, whether play began."""

    seat: int
    token: str
    version: int = 0
    started: bool = False
    commitment: str = ""
    receipt: Receipt | None = None


def match_request(
    game: str,
    seats: Sequence[str],
    options: Mapping[str, str] | None = None,
    request_id: str | None = None,
    first_dealer: int | None = None,
    prearranged_decks: Sequence[str] | None = None,
    prearranged_dice: Sequence[str] | None = None,
    seed_contributions: Sequence[bytes] | None = None,
    time_control: pb.TimeControl | None = None,
    timeout_policy: pb.TimeoutPolicy.ValueType = pb.TIMEOUT_POLICY_UNSPECIFIED,
    policy_bot: str = "",
    bots: Sequence[str] | None = None,
    contribution_window_ms: int | None = None,
) -> pb.CreateMatchRequest:
    """A CreateMatch request (see KozyrClient.create_match), always with a request id."""
    request = pb.CreateMatchRequest(
        game=game,
        options=dict(options or {}),
        seats=[
            pb.SeatRequest(name=name, seed_contribution=contribution, bot=bot)
            for name, contribution, bot in zip(
                seats,
                seed_contributions or [b""] * len(seats),
                bots or [""] * len(seats),
                strict=True,
            )
        ],
        timeout_policy=timeout_policy,
        policy_bot=policy_bot,
        # Always an id, so a retry after UNAVAILABLE returns the same match, not a second one.
        request_id=request_id or uuid.uuid4().hex,
        prearranged_decks=list(prearranged_decks or []),
        prearranged_dice=list(prearranged_dice or []),
    )
    if first_dealer is not None:
        request.first_dealer = first_dealer
    if contribution_window_ms is not None:
        request.contribution_window_ms = contribution_window_ms
    if time_control is not None:
        request.time_control.CopyFrom(time_control)
    return request


def created_of(response: pb.CreateMatchResponse) -> Created:
    """The Created of a CreateMatch answer."""
    return Created(
        response.match_id,
        {t.seat: t.token for t in response.tokens},
        response.version,
        response.seed_commitment,
        receipt_of(response),
    )


def joined_of(response: pb.JoinMatchResponse) -> Joined:
    """The Joined of a JoinMatch answer."""
    return Joined(
        response.seat,
        response.token,
        response.version,
        response.started,
        response.seed_commitment,
        receipt_of(response),
    )


def refused(refusal: pb.Refusal) -> KozyrError:
    """The KozyrError of one refused item of a batch."""
    return KozyrError(
        status_of(refusal.code), refusal.reason, refusal.message, dict(refusal.metadata)
    )
