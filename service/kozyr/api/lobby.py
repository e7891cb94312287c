"""The lobby (ListMatches), join links and the results feed (WatchEvents) on the wire."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.config.settings import DEFAULT_JOIN_LINK, Tenancy
from kozyr.games import GAMES
from kozyr.match import limits, phases
from kozyr.match.errors import bad_request
from kozyr.platform.publisher import Platform
from kozyr.platform.tenant_store import FeedItem
from kozyr.wire import clockview
from kozyr.wire.status import bounded

DEFAULT_PAGE, MAX_PAGE = 50, 500
MAX_ROUNDS = 40  # chunks one page may scan before it answers what it has (with a token)
FEED_CURSOR_HEADER = "kozyr-feed-cursor"  # WatchEvents' initial metadata: where it starts
CURSOR = re.compile(r"\d{1,20}-\d{1,20}")
STATUS = {
    pb.MATCH_STATUS_WAITING: "waiting",
    pb.MATCH_STATUS_PLAYING: "playing",
    pb.MATCH_STATUS_FINISHED: "finished",
}
STATUS_PB = {v: k for k, v in STATUS.items()}
GENERIC_LINK = re.compile(r"(?:^|/)join/([A-Za-z0-9_-]{1,64})/?(?:[?#].*)?$")


def join_link(template: str, match_id: str) -> str:
    """A match's join link from its tenant's template."""
    return template.replace("{match_id}", match_id)


def match_of_link(template: str, link: str) -> str:
    """The match id a join link carries (INVALID_ARGUMENT if it carries none)."""
    if len(link) > 512:
        raise bad_request("BAD_LINK", "a join link has at most 512 characters")
    head, _, tail = template.partition("{match_id}")
    pattern = re.escape(head) + r"([A-Za-z0-9_-]{1,64})" + re.escape(tail)
    found = re.fullmatch(pattern, link) or GENERIC_LINK.search(link)
    if found is None:
        raise bad_request("BAD_LINK", "the link carries no match id (…/join/<match id>)")
    return found.group(1)


def _token(name: str, position: int) -> str:
    return base64.urlsafe_b64encode(json.dumps([name, position]).encode()).decode()


def _position(name: str, token: str) -> int | None:
    if not token:
        return None
    try:
        listed, position = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, TypeError):
        raise bad_request("BAD_PAGE_TOKEN", "the page token is not one ListMatches gave") from None
    if listed != name or not isinstance(position, int):
        raise bad_request("BAD_PAGE_TOKEN", "the page token belongs to other filters")
    return position


def joinable(entry: dict[str, Any], now_ms: int) -> bool:
    """Someone can still take a seat: the match waits, has an open seat and has not expired
    (an entry written before `expires_ms` existed has none)."""
    expires = int(entry.get("expires_ms", 0))
    return (
        entry["status"] == "waiting"
        and bool(entry["open_seats"])
        and (not expires or now_ms < expires)
    )


def _filter(
    request: pb.ListMatchesRequest, now_ms: int
) -> tuple[str, Callable[[dict[str, Any]], bool]]:
    """The lobby list to scan and the test each entry on it must pass."""
    if request.game and request.game not in GAMES:
        raise bad_request("UNKNOWN_GAME", f"no game {request.game[:32]!r}: " + ", ".join(GAMES))
    if request.status and request.status not in STATUS:
        raise bad_request("BAD_STATUS", "status must be WAITING, PLAYING or FINISHED")
    limits.check_user(request.user)
    status = STATUS.get(request.status, "")

    def wanted(entry: dict[str, Any]) -> bool:
        return (
            (not request.game or entry["game"] == request.game)
            and (not status or entry["status"] == status)
            and (not request.open_seats or joinable(entry, now_ms))
            and (not request.user or request.user in entry["users"])
        )

    name = (
        f"user:{request.user}"
        if request.user
        else "open"
        if request.open_seats
        else f"status:{status}"
        if status
        else f"game:{request.game}"
        if request.game
        else "all"
    )
    return name, wanted


async def list_matches(
    platform: Platform,
    tenancy: Tenancy,
    tenant: str,
    request: pb.ListMatchesRequest,
    now_ms: int,
) -> pb.ListMatchesResponse:
    """One page of the tenant's lobby, newest first; every entry checked against its log."""
    size = request.page_size or DEFAULT_PAGE
    if not 1 <= size <= MAX_PAGE:
        raise bad_request("BAD_PAGE_SIZE", f"page_size must be 1..{MAX_PAGE}")
    name, wanted = _filter(request, now_ms)
    below = _position(name, request.page_token)
    config = tenancy.get(tenant)
    template = config.join_link if config is not None else DEFAULT_JOIN_LINK
    found: list[dict[str, Any]] = []
    more = True
    for _ in range(MAX_ROUNDS):
        rows = await platform.data.lobby_scan(tenant, name, below, max(2 * size, 100))
        if not rows:
            more = False
            break
        entries = await platform.summaries(tenant, [m for m, _ in rows])
        for (_, position), entry in zip(rows, entries, strict=True):
            below = position
            if entry is not None and wanted(entry):
                found.append(entry)
                if len(found) == size:
                    break
        if len(found) == size:
            break
    return pb.ListMatchesResponse(
        matches=[_summary(e, template) for e in found],
        next_page_token=_token(name, below) if more and below is not None else "",
    )


def _summary(entry: dict[str, Any], template: str) -> pb.MatchSummary:
    return pb.MatchSummary(
        match_id=entry["match_id"],
        game=entry["game"],
        status=STATUS_PB[entry["status"]],
        names=entry["names"],
        users=entry["users"],
        open_seats=entry["open_seats"],
        created_ms=entry["created_ms"],
        join_link=join_link(template, entry["match_id"]),
    )


def check_cursor(cursor: str) -> None:
    """A feed cursor is empty, "$" (from now) or a stream entry ID `<ms>-<seq>`."""
    if cursor and cursor != "$" and not CURSOR.fullmatch(cursor):
        raise bad_request("BAD_CURSOR", 'from_cursor is empty, "$" or a cursor the feed gave')


def check_types(types: Sequence[str]) -> frozenset[str]:
    """The event types a feed watcher asked for (empty: all); INVALID_ARGUMENT for others."""
    unknown = [t for t in types if t not in phases.TYPES]
    if unknown:
        raise bad_request(
            "UNKNOWN_EVENT_TYPE",
            f"no event type {bounded(unknown[0])!r}; the types are {', '.join(phases.TYPES)}",
        )
    return frozenset(types)


def tenant_event(item: FeedItem, data: dict[str, Any] | None = None) -> pb.TenantEvent:
    """A feed item on the wire (its JSON text, with its cursor, as the webhook body); `data`
    is the item's JSON read already."""
    data = json.loads(item.text) if data is None else data
    event = pb.TenantEvent(
        cursor=item.cursor,
        type=data["type"],
        match_id=data["match_id"],
        version=data["version"],
        game=data["game"],
        time_ms=data["time_ms"],
        json=item.body(data),
    )
    if "seat" in data:
        event.seat = data["seat"]
        event.user, event.name = data["user"], data["name"]
    ending = data.get("termination", "")
    if data.get("outcome"):
        outcome = data["outcome"]
        event.outcome.CopyFrom(
            pb.Outcome(
                winners=outcome["winners"], scores=outcome["scores"], reason=outcome["reason"]
            )
        )
        # The enum is the contract (outcome.termination); the string is kept one cycle.
        event.outcome.termination = clockview.TERMINATIONS.get(ending, pb.TERMINATION_UNSPECIFIED)
    event.termination = ending
    event.head_hash = data.get("head_hash", "")
    return event
