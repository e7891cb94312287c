"""The server's configuration: every limit with its default, from a TOML file and flags.

`kozyr serve --config FILE` reads a TOML file whose top-level keys are the field names of
ServerConfig (``max_message_bytes = 4194304``); a flag given on the command line wins over the
file, the file over the default. An unknown key or a value of the wrong type is refused with
its name, before anything starts. The same file's `[tenants.<id>]` tables and `require_auth`
are the platforms' section, read by `load_tenancy` (docs/platforms.md). Secrets are never
here: the arbiter token comes from a file or the environment, the seed key, ticket secrets and
webhook secrets from files of their own (docs/security.md).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """The configuration file or a value in it is unusable (the message names it)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Limits and transport settings of `kozyr serve` (all have sensible defaults)."""

    # Messages: gRPC's own default, so a 2 MiB field still reaches our checks and is refused
    # with its reason code rather than by the transport.
    max_message_bytes: int = 4 * 1024 * 1024
    # Watching: WatchMatch streams per match, per connection (peer address and port), in all.
    # One client process (a gateway, `kozyr loadgen`) may watch thousands of matches over one
    # connection, so the per-connection caps are generous; they stop a runaway, not a user.
    watchers_per_match: int = 10_000
    watchers_per_peer: int = 10_000
    max_watchers: int = 50_000
    # HTTP/2 streams one connection may have open at once (the SETTINGS frame the client obeys:
    # a call over it waits at the client for a free stream, it is not refused). A half-open
    # stream costs ~17 KB before any handler sees it, so this bounds one connection's memory
    # (2048: ~35 MB); `kozyr loadgen` keeps ~100 matches, a few hundred streams, per channel.
    max_concurrent_streams: int = 2048
    # Calls that reached gRPC's core but no handler yet, in a burst (its "pending requests"):
    # past its own default (1,000, then at random up to 3,000) the core cancels them, CANCELLED
    # with no ErrorInfo, before any check of ours runs (~10 % of 2,000 watchers opened at
    # once, issue 31). Up to this many wait their turn (twice as many before the core refuses
    # at all); every limit of ours (watchers, rates, connections) answers with a reason first.
    max_pending_calls: int = 20_000
    # gRPC connections one client host may have calls in flight on at once (api/guard.py: a
    # call on one more connection is refused TOO_MANY_CONNECTIONS). grpc.aio accepts in C and
    # tells us of a connection only through its calls: see docs/security.md.
    grpc_connections_per_peer: int = 256
    # The web port's edge (web/gate.py): connections in all and from one client host (past
    # either, a new one is closed at once, before a byte is read), the seconds a request's
    # headers and then its body may take to arrive, and the seconds an idle keep-alive
    # connection stays open. The web port's connections stay well below a process's file
    # descriptors (commonly 20,000), so the gRPC port and Redis always have some.
    web_max_connections: int = 8192
    web_connections_per_peer: int = 512
    web_header_timeout_s: float = 10.0
    web_body_timeout_s: float = 30.0
    web_keepalive_s: float = 5.0
    # How often the edge logs what it refused (each refusal and failed accept is counted in
    # the metrics at once; the log says so once an interval, however many there were).
    edge_log_interval_s: float = 10.0
    # Metrics: how often the gauges read from Redis (matches in play, the webhook backlog and
    # dead letters of each tenant) and the webhook sender's counts are brought up to date.
    metrics_interval_s: float = 5.0
    # Requests: token buckets (sustained rate per second, and the burst allowed above it). A
    # token is one player, or a bot playing as fast as the server answers; a client host may
    # be a gateway in front of many players.
    rate_per_token: float = 500.0
    burst_per_token: int = 1000
    rate_per_peer: float = 20_000.0
    burst_per_peer: int = 40_000
    matches_per_minute: int = 6000  # per client host, burst included
    # The store: Redis socket timeouts (a call never waits redis-py's default forever).
    redis_socket_timeout_s: float = 2.0
    redis_connect_timeout_s: float = 2.0
    redis_max_connections: int = 64
    redis_watch_connections: int = 8
    # Health: how often the store is pinged, and how long a ping may take.
    health_interval_s: float = 1.0
    health_timeout_s: float = 0.5
    # Connections: keepalive pings and a maximum age (then a graceful GOAWAY).
    keepalive_time_s: float = 60.0
    keepalive_timeout_s: float = 20.0
    max_connection_idle_s: float = 600.0
    max_connection_age_s: float = 3600.0
    max_connection_age_grace_s: float = 30.0
    # Platforms (docs/platforms.md): how late a seat ticket's expiry may be accepted (clock
    # skew between the platform and us), how often the feed and lobby catch up with match logs
    # a process died while writing, and the webhook sender's timeouts and retries.
    ticket_leeway_s: float = 30.0
    feed_sweep_interval_s: float = 5.0
    webhook_timeout_s: float = 5.0
    webhook_retry_for_s: float = 24 * 3600.0
    webhook_backoff_s: float = 1.0
    webhook_backoff_max_s: float = 3600.0
    # Speed: the `moves` summary line's interval (each move's own line is at DEBUG, see
    # api/movelog.py), the moves one play session may have in flight at once, and its moves'
    # token bucket (a session is one bot process: it may play for thousands of seats, so its
    # rate is well above a token's, yet bounded).
    move_log_interval_s: float = 10.0
    session_moves_in_flight: int = 256
    session_moves_per_s: float = 5_000.0
    session_moves_burst: int = 10_000
    # Clocks (docs/rules.md R-7): the defaults of a match that does not set them, and the timer
    # loop every process runs (how often it looks for due deadlines, how long a claim lasts
    # before another process may take it over).
    abandon_grace_s: float = 300.0
    open_match_expiry_s: float = 86_400.0
    # docs/fairness.md §1: how long a match whose request leaves contribution_window_ms unset
    # waits for its named seats' contributions (0: it does not wait; clients ask for a window).
    contribution_window_s: float = 0.0
    timer_interval_s: float = 0.02
    timer_idle_interval_s: float = 0.25
    timer_lease_s: float = 5.0
    # Memory: allocations between two young-generation collections of Python's cycle
    # collector (CPython's default is 700). A match in play lives for many of those, so at
    # 700 its records and bots' knowledge are promoted and scanned again and again by full
    # collections: a fifth of a busy server's CPU (kozyr.server.process_tuning.tune_gc).
    gc_young_threshold: int = 50_000
    # Server bots: the folder a seat's `policy:path=NAME` is read from (a bare file name in it;
    # docs/agents.md). Empty: this server plays no policy bots, so no request can make it
    # open a file of its choosing.
    policy_dir: str = ""

    def grpc_options(self) -> list[tuple[str, int]]:
        """The grpc server options these settings stand for."""
        ms = 1000
        return [
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", self.max_message_bytes),
            ("grpc.max_concurrent_streams", self.max_concurrent_streams),
            ("grpc.server.max_pending_requests", self.max_pending_calls),
            ("grpc.server.max_pending_requests_hard_limit", 2 * self.max_pending_calls),
            ("grpc.keepalive_time_ms", int(self.keepalive_time_s * ms)),
            ("grpc.keepalive_timeout_ms", int(self.keepalive_timeout_s * ms)),
            ("grpc.keepalive_permit_without_calls", 1),
            # Clients may ping as often as we do; more often is answered with GOAWAY.
            ("grpc.http2.min_ping_interval_without_data_ms", int(self.keepalive_time_s * ms)),
            ("grpc.max_connection_idle_ms", int(self.max_connection_idle_s * ms)),
            ("grpc.max_connection_age_ms", int(self.max_connection_age_s * ms)),
            ("grpc.max_connection_age_grace_ms", int(self.max_connection_age_grace_s * ms)),
        ]

    def with_values(self, values: dict[str, Any]) -> ServerConfig:
        """A copy with `values` (names as the fields) checked and applied."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for name, value in values.items():
            field = known.get(name)
            if field is None:
                raise ConfigError(f"unknown setting {name!r}; known: {', '.join(known)}")
            default = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{name} must be a number, not {value!r}")
            if isinstance(default, int) and not isinstance(value, int):
                raise ConfigError(f"{name} must be a whole number, not {value!r}")
            if value <= 0 or value > 2**31 - 1:
                raise ConfigError(f"{name} must be above 0 and below 2^31, not {value!r}")
            changes[name] = type(default)(value)
        return replace(self, **changes)


# Top-level keys of the file that are not ServerConfig numbers: the tenant section.
TENANT_KEYS = ("tenants", "require_auth")


def read_toml(path: str | Path) -> dict[str, Any]:
    """The TOML file at `path` as data (ConfigError naming the file if unusable)."""
    try:
        return tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not TOML: {e}") from None


def load(path: str | Path | None, overrides: dict[str, Any] | None = None) -> ServerConfig:
    """The defaults, then the TOML file at `path` (if any), then `overrides` (flags given)."""
    config = ServerConfig()
    if path is not None:
        data = read_toml(path)
        config = config.with_values({k: v for k, v in data.items() if k not in TENANT_KEYS})
    return config.with_values({k: v for k, v in (overrides or {}).items() if v is not None})


def field_names() -> list[str]:
    """The settings' names (a `--name-with-dashes` flag each)."""
    return [f.name for f in fields(ServerConfig)]


# ---------------------------------------------------------------------- the tenant section

LOCAL_TENANT = "local"  # anonymous callers in open mode (`make run` with no file)
TENANT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
DEFAULT_JOIN_LINK = "kozyr://join/{match_id}"


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    """One URL a tenant's events are POSTed to, with its Standard Webhooks secret."""

    name: str
    url: str
    secret: str  # "whsec_<base64>", from a file


@dataclass(frozen=True, slots=True)
class TenantConfig:
    """A platform: its API key hashes, seat-ticket keys, limits and webhooks."""

    id: str
    api_key_sha256: tuple[str, ...] = ()
    ticket_secret: bytes | None = None  # HS256
    ticket_public_key: str | None = None  # PEM: EdDSA (Ed25519) or RS256
    ticket_jwks: str | None = None  # a JWKS document (JSON), keys chosen by `kid`
    matches_per_minute: int = 600
    join_link: str = DEFAULT_JOIN_LINK
    webhooks: tuple[WebhookEndpoint, ...] = ()
    # The furthest ahead a seat ticket's expiry may be (from now): a stolen ticket is
    # worth a day at most, whatever the platform minted.
    ticket_max_lifetime_s: int = 86_400


@dataclass(frozen=True, slots=True)
class Tenancy:
    """Who may call: the configured tenants, and whether anonymous calls are refused."""

    tenants: Mapping[str, TenantConfig]
    require_auth: bool = False

    def get(self, tenant: str) -> TenantConfig | None:
        """The tenant's settings (the local tenant's defaults for it in open mode)."""
        found = self.tenants.get(tenant)
        if found is None and tenant == LOCAL_TENANT and not self.require_auth:
            return TenantConfig(LOCAL_TENANT)
        return found

    def ids(self) -> list[str]:
        """Every tenant that may own matches here (the local one unless auth is required)."""
        return sorted({*self.tenants, *([] if self.require_auth else [LOCAL_TENANT])})


TENANT_FIELDS = {
    "api_key_sha256",
    "ticket_secret_file",
    "ticket_public_key_file",
    "ticket_jwks_file",
    "matches_per_minute",
    "join_link",
    "webhooks",
    "ticket_max_lifetime_s",
}


def load_tenancy(path: str | Path | None, require_auth: bool | None = None) -> Tenancy:
    """The tenant section of the file at `path` (none: the local tenant alone, open mode);
    `require_auth` (the flag) wins over the file's."""
    data = read_toml(path) if path is not None else {}
    base = Path(path).parent if path is not None else Path(".")
    file_require = data.get("require_auth", False)
    if not isinstance(file_require, bool):
        raise ConfigError(f"require_auth must be true or false, not {file_require!r}")
    tables = data.get("tenants", {})
    if not isinstance(tables, dict):
        raise ConfigError("tenants must be a table of [tenants.<id>] tables")
    tenants = {tid: _tenant(tid, table, base) for tid, table in tables.items()}
    return Tenancy(tenants, file_require if require_auth is None else require_auth)


def _tenant(tid: str, table: Any, base: Path) -> TenantConfig:
    where = f"[tenants.{tid}]"
    if not TENANT_ID.fullmatch(tid) or tid == LOCAL_TENANT:
        raise ConfigError(
            f"{where}: a tenant id is 1-32 of a-z, 0-9 and '-' (not "
            f"{LOCAL_TENANT!r}, the open mode's own)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(table) - TENANT_FIELDS
    if unknown:
        raise ConfigError(
            f"{where}: unknown keys {sorted(unknown)}; known: {sorted(TENANT_FIELDS)}"
        )
    hashes = table.get("api_key_sha256", [])
    if not isinstance(hashes, list) or not all(
        isinstance(h, str) and re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes
    ):
        raise ConfigError(f"{where}: api_key_sha256 is a list of SHA-256 hex digests")
    per_minute = table.get("matches_per_minute", 600)
    if isinstance(per_minute, bool) or not isinstance(per_minute, int) or per_minute <= 0:
        raise ConfigError(f"{where}: matches_per_minute must be a whole number above 0")
    lifetime = table.get("ticket_max_lifetime_s", 86_400)
    if isinstance(lifetime, bool) or not isinstance(lifetime, int) or lifetime <= 0:
        raise ConfigError(f"{where}: ticket_max_lifetime_s must be a whole number above 0")
    link = table.get("join_link", DEFAULT_JOIN_LINK)
    if not isinstance(link, str) or "{match_id}" not in link:
        raise ConfigError(f"{where}: join_link must contain {{match_id}}")
    secret = _file(base, table.get("ticket_secret_file"), where)
    if secret is not None and len(secret.strip().encode()) < 32:
        raise ConfigError(f"{where}: an HS256 ticket secret has at least 32 bytes (RFC 7518)")
    endpoints = table.get("webhooks", [])
    if not isinstance(endpoints, list):
        raise ConfigError(f"{where}: webhooks is a list of {{name, url, secret_file}} tables")
    return TenantConfig(
        id=tid,
        api_key_sha256=tuple(hashes),
        ticket_secret=secret.strip().encode() if secret is not None else None,
        ticket_public_key=_file(base, table.get("ticket_public_key_file"), where),
        ticket_jwks=_file(base, table.get("ticket_jwks_file"), where),
        matches_per_minute=per_minute,
        join_link=link,
        webhooks=tuple(_endpoint(e, base, where) for e in endpoints),
        ticket_max_lifetime_s=lifetime,
    )


def _endpoint(table: Any, base: Path, where: str) -> WebhookEndpoint:
    if not isinstance(table, dict) or set(table) != {"name", "url", "secret_file"}:
        raise ConfigError(f"{where}: each webhook is {{name, url, secret_file}}")
    name, url = table["name"], table["url"]
    if not isinstance(name, str) or not TENANT_ID.fullmatch(name):
        raise ConfigError(f"{where}: a webhook name is 1-32 of a-z, 0-9 and '-'")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: webhook {name}: the url must be http:// or https://")
    secret = (_file(base, table["secret_file"], where) or "").strip()
    if not secret.startswith("whsec_"):
        raise ConfigError(f"{where}: webhook {name}: the secret file must hold whsec_<base64>")
    return WebhookEndpoint(name, url, secret)


def _file(base: Path, name: Any, where: str) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str):
        raise ConfigError(f"{where}: a file name must be text, not {name!r}")
    path = base / name
    try:
        return path.read_text()
    except OSError as e:
        raise ConfigError(f"{where}: cannot read {path}: {e.strerror}") from None
