"""The arbiter token (from a file or the environment, never the command line) and revoking
tokens.

A seat token lives in its match's meta hash as ``tok:<sha256>`` -> seat; revoking it deletes
that field and announces the hash on the ``kozyr:revoked`` channel, so every server drops it
from its token cache at once (a server that lost its Redis connection drops its whole cache
when it comes back, having maybe missed announcements). The arbiter token is revoked by
replacing its file and sending SIGHUP (or restarting): the old one stops working at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

import structlog

from kozyr.engine import Engine, Viewer
from kozyr.match import limits
from kozyr.secrets.tokens import token_hash
from kozyr.store.redis.connect import SyncClient
from kozyr.store.redis.names import REVOKED_CHANNEL, meta_key

MIN_ARBITER_TOKEN = 16

log = structlog.get_logger("kozyr.auth")


class ArbiterTokenError(ValueError):
    """The arbiter token file is missing, unreadable or holds too short a token."""


class Arbiter:
    """The arbiter's token, kept as its SHA-256 and compared in constant time."""

    def __init__(self, token: str | None = None, path: Path | None = None) -> None:
        self.path = path
        self._digest: bytes | None = None
        if path is not None:
            self.reload()
        elif token is not None:
            self._digest = _checked(token)

    @classmethod
    def from_sources(cls, path: str | None, env: dict[str, str] | None = None) -> Arbiter | None:
        """From the file `path`, else $KOZYR_ARBITER_TOKEN_FILE, else $KOZYR_ARBITER_TOKEN."""
        env = dict(os.environ) if env is None else env
        path = path or env.get("KOZYR_ARBITER_TOKEN_FILE")
        if path:
            return cls(path=Path(path))
        token = env.get("KOZYR_ARBITER_TOKEN")
        return cls(token) if token else None

    def reload(self) -> None:
        """Read the token file again (SIGHUP); on a bad file keep refusing everything."""
        if self.path is None:
            return
        try:
            self._digest = _checked(self.path.read_text().strip())
        except (OSError, ArbiterTokenError) as e:
            self._digest = None  # better no arbiter than a revoked one
            if isinstance(e, OSError):
                raise ArbiterTokenError(f"cannot read {self.path}: {e.strerror}") from None
            raise

    def matches(self, token: str) -> bool:
        """Whether `token` is the arbiter's."""
        if self._digest is None:
            return False
        return hmac.compare_digest(hashlib.sha256(token.encode()).digest(), self._digest)


async def viewer_of(
    engine: Engine, arbiter: Arbiter | None, match_id: str, token: str | None
) -> Viewer:
    """Who a bearer token stands for in a match: the arbiter (checked here, the one place it
    is), else what the engine's seat tokens say (a seat, or None for a spectator)."""
    if token is not None and arbiter is not None and arbiter.matches(token):
        limits.check_match_id(match_id)
        return Viewer(None, arbiter=True)
    return await engine.authenticate(match_id, token)


def _checked(token: str) -> bytes:
    if len(token) < MIN_ARBITER_TOKEN or not token.isascii() or not token.isprintable():
        raise ArbiterTokenError(
            f"an arbiter token is at least {MIN_ARBITER_TOKEN} printable ASCII characters"
        )
    return hashlib.sha256(token.encode()).digest()


def revoke(
    client: SyncClient, match_id: str, *, token: str | None = None, seat: int | None = None
) -> int:
    """Revoke a seat token of a match (the token itself, or every token of `seat`); the count.

    Store-independent on purpose: it only needs the meta hash's layout (store/redis/streams.py).
    """
    limits.check_match_id(match_id)
    key = meta_key(match_id)
    if token is not None:
        digests = [token_hash(token)]
    else:
        fields: dict[Any, Any] = client.hgetall(key)
        digests = [
            _text(f)[4:]
            for f, v in fields.items()
            if _text(f).startswith("tok:") and _text(v) == str(seat)
        ]
    removed = 0
    for digest in digests:
        removed += int(client.hdel(key, f"tok:{digest}"))
        client.publish(REVOKED_CHANNEL, f"{match_id} {digest}")
    return removed


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def forget(engine: Engine, match_id: str | None = None, digest: str | None = None) -> None:
    """Drop a token (or, with no arguments, every token) from the engine's cache."""
    engine.forget_tokens(match_id, digest)


async def listen_for_revocations(store: Any, engine: Engine, retry_s: float = 1.0) -> None:
    """Drop revoked tokens from the engine's cache as they are announced, until cancelled.

    A cancellation redis-py swallows (it can, while it reconnects) still ends the loop: the
    task's own cancelling() count says it was asked to stop."""
    me = asyncio.current_task()
    while me is None or not me.cancelling():
        pubsub = store.redis.pubsub()  # the moves' pool: the watchers' is sized for them alone
        try:
            await pubsub.subscribe(REVOKED_CHANNEL)
            forget(engine)  # announcements may have been missed while we were away
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                match_id, _, digest = str(message["data"]).partition(" ")
                forget(engine, match_id, digest)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the store is away: listen again once it is back
            log.warning("revocations_lost", error=type(e).__name__)
            await asyncio.sleep(retry_s)
        finally:
            with contextlib.suppress(Exception):  # closing a dead connection may fail
                await asyncio.wait_for(pubsub.aclose(), 1.0)
