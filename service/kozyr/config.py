"""The server's configuration: every limit with its default, from a TOML file and flags.

`kozyr serve --config FILE` reads a TOML file whose top-level keys are the field names of
ServerConfig (``max_message_bytes = 4194304``); a flag given on the command line wins over the
file, the file over the default. An unknown key or a value of the wrong type is refused with
its name, before anything starts. Secrets are never here: the arbiter token comes from a file
or the environment, the seed key from its own file (docs/security.md).
"""

from __future__ import annotations

import tomllib
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
    # a call over it waits at the client for a free stream, it is not refused).
    max_concurrent_streams: int = 10_000
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
    # Clocks (docs/rules.md R-7): the defaults of a match that does not set them, and the timer
    # loop every process runs (how often it looks for due deadlines, how long a claim lasts
    # before another process may take it over).
    abandon_grace_s: float = 300.0
    open_match_expiry_s: float = 86_400.0
    timer_interval_s: float = 0.02
    timer_lease_s: float = 5.0

    def grpc_options(self) -> list[tuple[str, int]]:
        """The grpc server options these settings stand for."""
        ms = 1000
        return [
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", self.max_message_bytes),
            ("grpc.max_concurrent_streams", self.max_concurrent_streams),
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


def load(path: str | Path | None, overrides: dict[str, Any] | None = None) -> ServerConfig:
    """The defaults, then the TOML file at `path` (if any), then `overrides` (flags given)."""
    config = ServerConfig()
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text())
        except OSError as e:
            raise ConfigError(f"cannot read {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path} is not TOML: {e}") from None
        config = config.with_values(data)
    return config.with_values({k: v for k, v in (overrides or {}).items() if v is not None})


def field_names() -> list[str]:
    """The settings' names (a `--name-with-dashes` flag each)."""
    return [f.name for f in fields(ServerConfig)]
