"""Seat tickets: short-lived JWTs a platform mints for one of its users, verified here locally.

A ticket names its tenant (`iss`), the platform's user (`sub`), the match, the seat (for
`play`), the scope (`play`, `spectate` or `arbitrate`) and its expiry (`exp`); its audience is
"kozyr". It is signed with the tenant's HS256 secret, or its EdDSA / RS256 private key (we hold
the public key, or a JWKS file whose keys are chosen by the header's `kid`). Nothing calls back
to the platform: the signature and the claims are all there is.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from kozyr.config.settings import ConfigError, Tenancy, TenantConfig
from kozyr.match import limits
from kozyr.match.errors import Kind, MatchError

AUDIENCE = "kozyr"
SCOPES = ("play", "spectate", "arbitrate")
MAX_TICKET = 4096  # characters: an RS256 ticket with room to spare
MAX_USER = 128
USER = limits.USER  # the user ids the log may hold
REQUIRED = ["exp", "iss", "sub", "aud", "match", "scope"]


@dataclass(frozen=True, slots=True)
class Ticket:
    """A verified seat ticket."""

    tenant: str
    user: str
    match_id: str
    scope: str
    seat: int | None
    expires: int
    ticket_id: str | None = None  # `jti`: what `kozyr tickets revoke --jti` names
    issued: int | None = None  # `iat`: what `kozyr tickets revoke --user` compares


def looks_like_ticket(token: str) -> bool:
    """A JWT has three dot-separated parts; seat tokens and the arbiter's have no dots."""
    return token.count(".") == 2


def _refused(code: str, message: str, kind: Kind = Kind.UNAUTHENTICATED) -> MatchError:
    return MatchError(kind, code, message)


class TicketVerifier:
    """Verifies tickets against each tenant's keys (parsed once, at start)."""

    def __init__(
        self, tenancy: Tenancy, leeway_s: float = 30.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.tenancy = tenancy
        self.leeway_s = leeway_s
        self.clock = clock
        self._keys: dict[str, list[tuple[Any, list[str], str | None]]] = {
            tid: _keys_of(t) for tid, t in tenancy.tenants.items()
        }

    def verify(self, token: str) -> Ticket:
        """The ticket's claims, or UNAUTHENTICATED with the precise reason."""
        if len(token) > MAX_TICKET:
            raise _refused("MALFORMED_TICKET", f"a ticket has at most {MAX_TICKET} characters")
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise _refused("MALFORMED_TICKET", "the ticket is not a JWT") from None
        issuer = unverified.get("iss")
        tenant = issuer if isinstance(issuer, str) else ""
        keys = self._keys.get(tenant)
        if not keys:
            raise _refused(
                "UNKNOWN_TENANT",
                "the ticket's issuer (iss) is no tenant of this server, or it has no ticket key",
            )
        alg, kid = header.get("alg"), header.get("kid")
        candidates = [
            (k, algs)
            for k, algs, key_id in keys
            if alg in algs and (kid is None or key_id in (None, kid))
        ]
        if not candidates:
            raise _refused(
                "BAD_TICKET_SIGNATURE",
                f"tenant {tenant} signs tickets with {_algs(keys)}, not {alg!r}",
            )
        claims: dict[str, Any] | None = None
        for key, algs in candidates:
            try:
                claims = jwt.decode(
                    token,
                    key,
                    algorithms=algs,
                    audience=AUDIENCE,
                    issuer=tenant,
                    leeway=self.leeway_s,
                    options={"require": REQUIRED},
                )
                break
            except jwt.ExpiredSignatureError:
                raise _refused(
                    "TICKET_EXPIRED", "the ticket has expired; ask the platform for a new one"
                ) from None
            except jwt.InvalidSignatureError:
                continue
            except jwt.PyJWTError as e:
                raise _refused("BAD_TICKET", f"the ticket's claims are refused: {e}") from None
        if claims is None:
            raise _refused(
                "BAD_TICKET_SIGNATURE",
                f"the ticket's signature does not verify with tenant {tenant}'s key",
            )
        self._check_lifetime(tenant, int(claims["exp"]))
        return _ticket(tenant, claims)

    def _check_lifetime(self, tenant: str, expires: int) -> None:
        most = self.tenancy.tenants[tenant].ticket_max_lifetime_s
        if expires > self.clock() + most + self.leeway_s:
            raise _refused(
                "TICKET_LIFETIME_TOO_LONG",
                f"the ticket expires more than {most} s from now (tenant {tenant}'s "
                "ticket_max_lifetime_s); mint tickets that live less",
            )


def _ticket(tenant: str, claims: dict[str, Any]) -> Ticket:
    user, match_id, scope, seat = (
        claims.get("sub"),
        claims.get("match"),
        claims.get("scope"),
        claims.get("seat"),
    )
    if not isinstance(user, str) or not USER.fullmatch(user):
        raise _refused(
            "BAD_TICKET",
            f"sub (the user id) is 1-{MAX_USER} printable ASCII characters without spaces",
        )
    if not isinstance(match_id, str) or not limits.MATCH_ID.fullmatch(match_id):
        raise _refused("BAD_TICKET", "match is not a match id")
    if scope not in SCOPES:
        raise _refused("BAD_TICKET", f"scope must be one of {', '.join(SCOPES)}")
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 64
    ):
        raise _refused("BAD_TICKET", "seat must be a seat number")
    if scope == "play" and seat is None:
        raise _refused("BAD_TICKET", "a play ticket names its seat")
    ticket_id, issued = claims.get("jti"), claims.get("iat")
    if ticket_id is not None and (not isinstance(ticket_id, str) or not USER.fullmatch(ticket_id)):
        raise _refused("BAD_TICKET", "jti (the ticket id) is printable ASCII without spaces")
    return Ticket(
        tenant,
        user,
        match_id,
        scope,
        seat,
        int(claims["exp"]),
        ticket_id,
        int(issued) if isinstance(issued, int | float) and not isinstance(issued, bool) else None,
    )


def _algs(keys: list[tuple[Any, list[str], str | None]]) -> str:
    return ", ".join(sorted({a for _, algs, _ in keys for a in algs}))


def _keys_of(tenant: TenantConfig) -> list[tuple[Any, list[str], str | None]]:
    """(key, the algorithms it verifies, its kid) for each of a tenant's ticket keys."""
    keys: list[tuple[Any, list[str], str | None]] = []
    if tenant.ticket_secret is not None:
        keys.append((tenant.ticket_secret, ["HS256"], None))
    if tenant.ticket_public_key is not None:
        try:
            public = load_pem_public_key(tenant.ticket_public_key.encode())
        except ValueError:
            raise ConfigError(f"tenant {tenant.id}: the ticket key is no PEM public key") from None
        if isinstance(public, ed25519.Ed25519PublicKey):
            keys.append((public, ["EdDSA"], None))
        elif isinstance(public, rsa.RSAPublicKey):
            keys.append((public, ["RS256"], None))
        else:
            raise ConfigError(f"tenant {tenant.id}: the ticket key is neither Ed25519 nor RSA")
    if tenant.ticket_jwks is not None:
        try:
            jwks = jwt.PyJWKSet.from_dict(json.loads(tenant.ticket_jwks)).keys
        except (ValueError, jwt.PyJWTError) as e:
            raise ConfigError(f"tenant {tenant.id}: the JWKS file is unusable: {e}") from None
        for jwk in jwks:
            alg = (
                jwk.algorithm_name
                if jwk.algorithm_name in ("EdDSA", "RS256")
                else ("EdDSA" if jwk.key_type == "OKP" else "RS256")
            )
            keys.append((jwk.key, [alg], jwk.key_id))
    return keys
