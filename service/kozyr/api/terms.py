"""CreateMatch's terms beyond the game's options: the seats' bots (and, with them, the clock)."""

from __future__ import annotations

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.engine.seatbots import check_bot
from kozyr.match.errors import bad_request
from kozyr.match.limits import MAX_NAME
from kozyr.match.log import MatchTerms

MAX_BOT_SPEC = 64


def seat_bots(request: pb.CreateMatchRequest) -> tuple[str, ...]:
    """Each seat's bot spec ("" for a person), checked; () when no seat names a bot."""
    bots = []
    for seat in request.seats:
        if len(seat.bot) > MAX_BOT_SPEC:
            raise bad_request("FIELD_TOO_LONG", f"a bot spec has at most {MAX_BOT_SPEC} "
                                                "characters")
        bots.append(check_bot(seat.bot.strip()) if seat.bot.strip() else "")
    return tuple(bots) if any(bots) else ()


def seat_names(request: pb.CreateMatchRequest, bots: tuple[str, ...]) -> list[str]:
    """The seats' names: a bot's seat left unnamed is called after its bot."""
    names = []
    for i, seat in enumerate(request.seats):
        name = seat.name
        if bots and bots[i] and not name:
            name = f"{bots[i]} (bot)"[:MAX_NAME]
        names.append(name)
    return names


def terms_of(request: pb.CreateMatchRequest) -> tuple[MatchTerms, list[str]]:
    """The match's terms and the seats' names from a CreateMatch request."""
    bots = seat_bots(request)
    return MatchTerms(bots=bots), seat_names(request, bots)
