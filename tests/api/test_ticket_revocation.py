"""Seat tickets have a maximum lifetime and can be revoked, by id or per user, on every server
(issue 31), on real servers and Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.cli.commands import main
from kozyr.wire.errorinfo import error_info
from tests.api.platforms import ACME_KEY, PlatformServer, bearer, open_match, tenancy_of, ticket


@pytest.fixture
def strict(redis_url: str, tmp_path: Path) -> Iterator[PlatformServer]:
    server = PlatformServer(redis_url, tenancy_of(tmp_path, require_auth=True))
    yield server
    server.stop()


def _reason(stub: object, match_id: str, token: str) -> str:
    """The reason GetMatch with this ticket is refused ("" when it is served)."""
    try:
        stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=bearer(token))  # type: ignore[attr-defined]
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
        info = error_info(e)  # type: ignore[arg-type]
        assert info is not None
        return info.reason
    return ""


def _heard(server: PlatformServer, tenant: str, jti: str) -> None:
    """Wait (bounded) until the server has heard the announcement of `jti`'s revocation."""
    revoked = server.running.servicer.access.revocations

    async def heard() -> None:
        while (tenant, jti) not in revoked.ids:
            await asyncio.sleep(0.01)

    server.run(asyncio.wait_for(heard(), 30))


def test_a_ticket_living_longer_than_the_tenants_maximum_is_refused(
    strict: PlatformServer,
) -> None:
    stub = strict.stub()
    match_id = open_match(stub, ACME_KEY)
    decade = 10 * 365 * 86_400.0
    assert _reason(stub, match_id, ticket("acme", match_id, expires_in=decade)) == (
        "TICKET_LIFETIME_TOO_LONG"
    )
    assert _reason(stub, match_id, ticket("acme", match_id, expires_in=3600)) == ""


def test_a_ticket_revoked_by_id_is_refused_by_running_and_new_servers(
    strict: PlatformServer, redis_url: str, tmp_path: Path
) -> None:
    stub = strict.stub()
    match_id = open_match(stub, ACME_KEY)
    doomed = ticket("acme", match_id, jti="t-1")
    kept = ticket("acme", match_id, jti="t-2")
    assert _reason(stub, match_id, doomed) == ""
    assert main(["tickets", "revoke", "acme", "--jti", "t-1", "--redis-url", redis_url]) == 0
    _heard(strict, "acme", "t-1")
    assert _reason(stub, match_id, doomed) == "TICKET_REVOKED"
    assert _reason(stub, match_id, kept) == ""
    (tmp_path / "later").mkdir()
    later = PlatformServer(redis_url, tenancy_of(tmp_path / "later", require_auth=True))
    try:  # a server started after the revocation reads it from Redis
        assert _reason(later.stub(), match_id, doomed) == "TICKET_REVOKED"
        assert _reason(later.stub(), match_id, kept) == ""
    finally:
        later.stop()


def test_a_users_tickets_issued_before_a_revocation_are_refused(
    strict: PlatformServer, redis_url: str
) -> None:
    stub = strict.stub()
    match_id = open_match(stub, ACME_KEY)
    now = int(time.time())
    old = ticket("acme", match_id, user="eve", iat=now - 60, jti="e-1")
    undated = ticket("acme", match_id, user="eve")
    other = ticket("acme", match_id, user="ann", iat=now - 60)
    assert main(["tickets", "revoke", "acme", "--user", "eve", "--redis-url", redis_url]) == 0
    revoked = strict.running.servicer.access.revocations

    async def heard() -> None:
        while ("acme", "eve") not in revoked.not_before:
            await asyncio.sleep(0.01)

    strict.run(asyncio.wait_for(heard(), 30))
    assert _reason(stub, match_id, old) == "TICKET_REVOKED"
    assert _reason(stub, match_id, undated) == "TICKET_REVOKED"  # its age cannot be shown
    assert _reason(stub, match_id, other) == ""
    fresh = ticket("acme", match_id, user="eve", iat=int(time.time()) + 5)  # after the cut
    assert _reason(stub, match_id, fresh) == ""


def test_the_cli_refuses_a_bad_tenant_id(redis_url: str) -> None:
    assert main(["tickets", "revoke", "Not A Tenant", "--jti", "x", "--redis-url", redis_url]) == 2
