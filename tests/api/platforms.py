"""Helpers of the platform tests: tenants written as a real --config file, tickets minted the
way a platform mints them, and a real server on loopback running with those tenants."""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.config.settings import ServerConfig, Tenancy, load_tenancy

ACME_KEY = "acme-api-key-0123456789abcdef"
GLOBEX_KEY = "globex-api-key-0123456789abcdef"
ACME_SECRET = "acme-ticket-secret-0123456789abcdef0123"
GLOBEX_PRIVATE = ed25519.Ed25519PrivateKey.generate()
WEBHOOK_SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def write_config(
    folder: Path,
    *,
    require_auth: bool = False,
    webhook_url: str | None = None,
    globex_webhook_url: str | None = None,
) -> Path:
    """A --config file with two tenants: acme (HS256 tickets) and globex (EdDSA tickets), each
    with a webhook endpoint when its URL is given."""
    (folder / "acme.secret").write_text(ACME_SECRET + "\n")
    (folder / "globex.pem").write_bytes(
        GLOBEX_PRIVATE.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    (folder / "acme.whsec").write_text(WEBHOOK_SECRET)
    hook, globex_hook = (
        (f'webhooks = [{{name = "main", url = "{url}", secret_file = "acme.whsec"}}]\n')
        if url
        else ""
        for url in (webhook_url, globex_webhook_url)
    )
    path = folder / "kozyr.toml"
    path.write_text(f"""require_auth = {str(require_auth).lower()}
max_message_bytes = 4194304

[tenants.acme]
api_key_sha256 = ["{hashlib.sha256(ACME_KEY.encode()).hexdigest()}"]
ticket_secret_file = "acme.secret"
join_link = "https://play.acme.example/join/{{match_id}}"
{hook}
[tenants.globex]
api_key_sha256 = ["{hashlib.sha256(GLOBEX_KEY.encode()).hexdigest()}"]
ticket_public_key_file = "globex.pem"
matches_per_minute = 100000
{globex_hook}""")
    return path


def ticket(
    tenant: str,
    match_id: str,
    *,
    user: str = "u1",
    seat: int | None = 0,
    scope: str = "play",
    expires_in: float = 300.0,
    key: Any = None,
    **extra: Any,
) -> str:
    """A seat ticket as the platform mints it (`extra`: more claims, jti or iat)."""
    claims: dict[str, Any] = {
        "iss": tenant,
        "sub": user,
        "aud": "kozyr",
        "match": match_id,
        "scope": scope,
        "exp": int(time.time() + expires_in),
    }
    if seat is not None:
        claims["seat"] = seat
    claims.update(extra)
    if tenant == "globex":
        return jwt.encode(claims, key or GLOBEX_PRIVATE, algorithm="EdDSA")
    return jwt.encode(claims, key or ACME_SECRET, algorithm="HS256")


def key(api_key: str) -> list[tuple[str, str]]:
    """Call metadata carrying a tenant's API key."""
    return [("x-api-key", api_key)]


def bearer(token: str) -> list[tuple[str, str]]:
    """Call metadata carrying a ticket or a seat token."""
    return [("authorization", f"Bearer {token}")]


class PlatformServer:
    """A real server with tenants, its loop in a thread (like tests.conftest.ServerThread)."""

    def __init__(
        self,
        redis_url: str,
        tenancy: Tenancy,
        config: ServerConfig | None = None,
        feed: bool = True,
    ) -> None:
        from kozyr.server.background import BackgroundServer
        from kozyr.server.bootstrap import Wiring, redis_store

        self.background = BackgroundServer(
            Wiring(
                store=redis_store(redis_url),
                tenancy=tenancy,
                config=config or ServerConfig(feed_sweep_interval_s=0.2),
            ),
            timeout_s=120.0,
        )
        self.loop = self.background.loop
        self.running: Any = self.background.start()
        self.engine = self.running.engine
        self.address = f"127.0.0.1:{self.running.port}"
        self.channels: list[grpc.Channel] = []

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return self.background.run(coro)

    def stub(self) -> kozyr_pb2_grpc.KozyrServiceStub:
        """A client stub on a new channel."""
        channel = grpc.insecure_channel(self.address)
        self.channels.append(channel)
        return kozyr_pb2_grpc.KozyrServiceStub(channel)

    def play_out(self, match_id: str, seed: int = 0) -> None:
        """Play random legal moves to the end, in the server's own engine (fast)."""
        self.run(play_out(self.engine, match_id, seed))

    def stop(self) -> None:
        """Stop gracefully and end the loop thread."""
        for channel in self.channels:
            channel.close()
        self.background.close(2.0)


async def play_out(engine: Any, match_id: str, seed: int = 0, limit: int = 5000) -> None:
    """Random legal moves until the match ends (bounded)."""
    rng = random.Random(seed)
    for _ in range(limit):
        record = await engine.record(match_id)
        if record.finished:
            return
        game = record.game
        for seat in range(record.players):
            legal = list(game.legal_commands(record.state, seat))
            if legal:
                await engine.submit(match_id, seat, rng.choice(legal), uuid.uuid4().hex)
                break
    raise AssertionError("the match did not end")


def tenancy_of(folder: Path, **kwargs: Any) -> Tenancy:
    """The tenants of a freshly written config file."""
    return load_tenancy(write_config(folder, **kwargs))


SHORT_DIX = {"single_hand": "true"}


def open_match(
    stub: kozyr_pb2_grpc.KozyrServiceStub,
    api_key: str,
    seats: int = 2,
    named: int = 0,
    game: str = "dix",
) -> str:
    """A match of the key's tenant with `named` seats named and the rest open."""
    names = [f"p{i}" if i < named else "" for i in range(seats)]
    options = SHORT_DIX if game == "dix" else {}
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game, options=options, seats=[pb.SeatRequest(name=n) for n in names]
        ),
        metadata=key(api_key),
    )
    return str(response.match_id)
