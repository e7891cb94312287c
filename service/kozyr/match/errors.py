"""Refusals: a kind (which the API maps to a gRPC status), a stable reason code, a sentence a
player can act on and, for a refusal by the rules, the rule's ID (docs/rules.md).

Transport-independent, so the pure lifecycle, the engine and the API share one error type.
"""

from __future__ import annotations

from enum import Enum


class Kind(Enum):
    """What went wrong, independent of transport."""

    BAD_REQUEST = "bad_request"
    RULES = "rules"
    NOT_FOUND = "not_found"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    CONFLICT = "conflict"
    PRECONDITION = "precondition"  # the state of the service, not the rules, forbids it
    UNAVAILABLE = "unavailable"
    EXHAUSTED = "exhausted"
    EXISTS = "exists"
    UNIMPLEMENTED = "unimplemented"  # the transport does not serve it (PlaySession on the web)
    INTERNAL = "internal"


class MatchError(Exception):
    """A refused request: nothing was changed."""

    def __init__(
        self,
        kind: Kind,
        code: str,
        message: str,
        match_id: str = "",
        seat: int | None = None,
        rule: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.match_id = match_id
        self.seat = seat
        self.rule = rule

    def __repr__(self) -> str:
        return f"MatchError({self.kind.name}, {self.code!r}, {self.message!r})"


def bad_request(code: str, message: str, match_id: str = "") -> MatchError:
    """A malformed request."""
    return MatchError(Kind.BAD_REQUEST, code, message, match_id)
