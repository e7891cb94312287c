"""Every size limit of a request, in one place, with the checks that enforce them.

The checks run before anything is logged, echoed or stored, so an oversized or malformed value
is refused with its own reason code and never reaches a log line or an error message whole.
"""

from __future__ import annotations

import re
from typing import Final

from kozyr.match.errors import bad_request

MATCH_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
COMMAND_ID: Final = re.compile(r"[\x21-\x7e]{1,64}")
TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{16,128}")
MAX_NAME: Final = 64
MAX_CONTRIBUTION: Final = 64  # bytes
# The longest contribution window (docs/fairness.md §1): a match waits at most this long for
# its named seats' contributions before it deals without the silent ones.
MAX_CONTRIBUTION_WINDOW_MS: Final = 600_000
MAX_REQUEST_ID: Final = 128
MAX_OPTIONS: Final = 32
MAX_OPTION_TEXT: Final = 64
MAX_CARD_TEXT: Final = 8
MAX_DECK_TEXT: Final = 53 * 4
MAX_PREARRANGED: Final = 64  # decks, and dice lists, given at creation
MAX_BATCH: Final = 100  # matches one CreateMatches call creates
TOKEN_BYTES: Final = 32


def check_match_id(match_id: str) -> None:
    """A match id is 1–64 letters, digits, '-' or '_'."""
    if not MATCH_ID.fullmatch(match_id):
        raise bad_request("BAD_MATCH_ID", "match_id must be 1–64 letters, digits, '-' or '_'")


def check_command_id(command_id: str) -> None:
    """A command id is 1–64 printable ASCII characters without spaces."""
    if not COMMAND_ID.fullmatch(command_id):
        raise bad_request(
            "BAD_COMMAND_ID", "command_id must be 1–64 printable ASCII characters without spaces"
        )


def check_name(name: str, *, allow_empty: bool) -> None:
    """A player's name: at most MAX_NAME printable characters (empty only for an open seat)."""
    if not name and not allow_empty:
        raise bad_request("EMPTY_NAME", "a player needs a name")
    if len(name) > MAX_NAME:
        raise bad_request("FIELD_TOO_LONG", f"a name may have at most {MAX_NAME} characters")
    if any(not ch.isprintable() for ch in name):
        raise bad_request("BAD_NAME", "a name may not hold control characters")


def check_contribution(contribution: bytes) -> None:
    """A seat's seed contribution: at most MAX_CONTRIBUTION bytes."""
    if len(contribution) > MAX_CONTRIBUTION:
        raise bad_request(
            "FIELD_TOO_LONG", f"a seed contribution may have at most {MAX_CONTRIBUTION} bytes"
        )


def check_request_id(request_id: str) -> None:
    """An idempotency key: at most MAX_REQUEST_ID characters."""
    if len(request_id) > MAX_REQUEST_ID:
        raise bad_request("FIELD_TOO_LONG", f"request_id is over {MAX_REQUEST_ID} characters")


USER: Final = re.compile(r"[\x21-\x7e]{1,128}")


def check_user(user: str) -> None:
    """A platform's user id: empty (none), or 1–128 printable ASCII characters without spaces."""
    if user and not USER.fullmatch(user):
        raise bad_request(
            "BAD_USER", "a user id is 1–128 printable ASCII characters without spaces"
        )
