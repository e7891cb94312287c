"""The ErrorReason enum is the contract of error reasons: the code sends exactly its reasons
(with the statuses each value's comment names), docs/api.md's reason table is the enum's, and
the wire carries each reason as the value's bare name."""

from __future__ import annotations

import re

from kozyr._proto.kozyr.v1 import errors_pb2
from kozyr.match.errors import Kind, MatchError
from kozyr.wire import status
from tests.conftest import repo_root
from tests.wire.reasons_scan import Scan, scan

PROTO = repo_root() / "protos" / "kozyr" / "v1" / "errors.proto"
API_MD = repo_root() / "docs" / "api.md"
VALUE = re.compile(r"((?:  //.*\n)+)  ERROR_REASON_([A-Z0-9_]+) = \d+;")
ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| ([A-Z_, ]+) \| (.*) \|$", re.M)

_SCAN: list[Scan] = []


def _scanned() -> Scan:
    if not _SCAN:
        _SCAN.append(scan())
    return _SCAN[0]


def documented() -> dict[str, tuple[set[str], str]]:
    """Each enum value's reason: the statuses its comment names, and when it is sent."""
    out = {}
    for comment, name in VALUE.findall(PROTO.read_text("utf-8")):
        text = " ".join(line.strip().removeprefix("//").strip() for line in comment.splitlines())
        if name == "UNSPECIFIED":
            continue
        statuses, _, when = text.partition(": ")
        out[name] = ({s.strip() for s in statuses.split(",")}, when)
    return out


def reason_table() -> str:
    """docs/api.md's table of reasons, as the enum's comments make it."""
    rows = ["| reason | status | sent when |", "| --- | --- | --- |"]
    for name, (statuses, when) in sorted(documented().items()):
        order = [code.name for code in status.STATUS.values()]
        codes = ", ".join(sorted(statuses, key=order.index))
        rows.append(f"| `{name}` | {codes} | {when} |")
    return "\n".join(rows)


def test_the_scan_reads_every_producer_and_finds_reasons_of_each_kind() -> None:
    found = _scanned()
    assert found.unreadable == [], "reasons the scan cannot read: make them literals or constants"
    # A game's declared code, a limits table's, an auth helper's, an edge limit's.
    assert {"MUST_FOLLOW_SUIT", "CANNOT_BEAT", "TOO_MANY_IN_BATCH", "OTHER_TENANT"} <= set(
        found.statuses
    )
    assert found.statuses["RATE_LIMITED"] == {"RESOURCE_EXHAUSTED"}
    assert found.statuses["TICKET_EXPIRED"] == {"UNAUTHENTICATED"}


def test_every_reason_the_code_sends_is_in_the_enum_and_no_other() -> None:
    sent = set(_scanned().statuses)
    assert sent - status.REASONS == set(), "reasons sent but missing from ErrorReason"
    assert status.REASONS - sent == set(), "ErrorReason values the code never sends"


def test_each_values_comment_names_the_statuses_the_code_sends_it_with() -> None:
    values = documented()
    assert set(values) == status.REASONS
    wrong = {
        name: (sorted(values[name][0]), sorted(codes))
        for name, codes in _scanned().statuses.items()
        if codes and values[name][0] != codes
    }
    assert wrong == {}, "the comment's statuses (first) differ from the code's (second)"
    known = {code.name for code in status.STATUS.values()}
    assert all(statuses <= known and when for statuses, when in values.values())


def test_docs_api_md_lists_exactly_the_enums_reasons() -> None:
    text = API_MD.read_text("utf-8")
    assert reason_table() in text, f"docs/api.md's reason table must read:\n{reason_table()}"
    assert {name for name, _, _ in ROW.findall(text)} == status.REASONS


def test_the_wire_reason_is_the_values_bare_name() -> None:
    for name in errors_pb2.ErrorReason.keys()[1:]:
        bare = name.removeprefix("ERROR_REASON_")
        info = status.refusal(MatchError(Kind.RULES, bare, "no", "m-1", 1, "DIX-4"))
        assert info.reason == bare
    assert status.reason_name("NOT_A_REASON_AT_ALL") == "INTERNAL"


def test_metadata_keys_are_lower_camel_case() -> None:
    refused = status.refusal(MatchError(Kind.RULES, "NOT_YOUR_TURN", "wait", "m-1", 1, "DIX-4"))
    assert dict(refused.metadata) == {"matchId": "m-1", "seat": "1", "rule": "DIX-4"}
    lower_camel = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)*$")
    assert all(lower_camel.fullmatch(key) for key in refused.metadata)
