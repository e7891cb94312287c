"""The flags of `kozyr serve`, grouped by what they set (importing nothing heavy: `kozyr serve
--help` and a refused start answer at once)."""

from __future__ import annotations

import argparse

from kozyr.cli.serve_limits import LIMIT_HELP

DEFAULT_ADDRESS = "127.0.0.1:50051"


def add_serve_flags(serve: argparse.ArgumentParser) -> None:
    """Every flag of `kozyr serve`."""
    _where_flags(serve)
    _secret_flags(serve)
    _transport_flags(serve)
    _log_flags(serve)
    _limit_flags(serve)


def _where_flags(serve: argparse.ArgumentParser) -> None:
    """Where it listens, which store it uses and how many processes it runs."""
    serve.add_argument("--address", default=DEFAULT_ADDRESS, help="host:port to listen on")
    serve.add_argument(
        "--redis-url",
        default=None,
        help="use this Redis (default: $REDIS_URL, else an embedded Redis)",
    )
    serve.add_argument("--data-dir", default="data", help="embedded Redis data folder")
    serve.add_argument(
        "--appendfsync",
        default="everysec",
        choices=["everysec", "always"],
        help="embedded Redis durability (see deploy/redis/README.md)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="service processes on the one port (SO_REUSEPORT), e.g. the "
        "cores of the host; a worker that dies is started again",
    )
    serve.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    serve.add_argument(
        "--config",
        default=None,
        help="a TOML file of limits (docs/security.md) and tenants (docs/platforms.md)",
    )


def _secret_flags(serve: argparse.ArgumentParser) -> None:
    """Who may do what, and the keys that seal seeds and sign receipts."""
    serve.add_argument(
        "--require-auth",
        action="store_true",
        default=False,
        help="refuse anonymous calls: every call needs a tenant API key, a seat "
        "ticket, or (on a match) a seat or arbiter token",
    )
    serve.add_argument(
        "--arbiter-token-file",
        default=None,
        help="file holding the token that may read any log (default: "
        "$KOZYR_ARBITER_TOKEN_FILE, else $KOZYR_ARBITER_TOKEN); SIGHUP "
        "reads it again",
    )
    serve.add_argument(
        "--seed-key-file",
        default=None,
        help="key sealing server seeds at rest (default: $KOZYR_SEED_KEY_FILE, "
        "else <data-dir>/seed.key, made on first start); replicas on one "
        "Redis must share it",
    )
    serve.add_argument(
        "--signing-key-dir",
        default=None,
        help="folder of the Ed25519 key receipts are signed with (default: "
        "$KOZYR_SIGNING_KEY_DIR, else <data-dir>/signing, made on first "
        "start); `kozyr keys show` prints its public keys",
    )
    serve.add_argument(
        "--signing-key-file",
        default=None,
        help="the Ed25519 private key (32 raw bytes) as a file, e.g. a mounted "
        "secret shared by every replica (default: $KOZYR_SIGNING_KEY_FILE, "
        "else the folder above); retired public keys in keys.txt beside it",
    )
    serve.add_argument(
        "--tlog",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="keep the transparency log of match heads (docs/fairness.md §9; default on)",
    )
    serve.add_argument(
        "--tlog-dir",
        default=None,
        help="the transparency log's folder (default: $KOZYR_TLOG_DIR, else "
        "<data-dir>/tlog); every process of the host shares it; back it up with the "
        "signing keys, never restore an older copy",
    )
    serve.add_argument(
        "--tlog-fsync",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fsync each (grouped) write of log leaves (default on)",
    )


def _transport_flags(serve: argparse.ArgumentParser) -> None:
    """TLS, reflection and the other ports (metrics, the web table)."""
    serve.add_argument("--tls-cert", default=None, help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", default=None, help="PEM private key of --tls-cert")
    serve.add_argument(
        "--tls-client-ca", default=None, help="PEM CA: require client certificates signed by it"
    )
    serve.add_argument(
        "--reflection",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="gRPC server reflection (--no-reflection turns it off)",
    )
    serve.add_argument(
        "--metrics-port", type=int, default=None, help="Prometheus port (no metrics without it)"
    )
    serve.add_argument(
        "--web-port",
        type=int,
        default=None,
        help="serve the web table and the Connect/gRPC-Web API on this port "
        "(same host as --address; `make run` uses 8080)",
    )


def _log_flags(serve: argparse.ArgumentParser) -> None:
    """How it logs."""
    serve.add_argument(
        "--json-logs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="JSON log lines (default: when stderr is not a terminal)",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning"],
        help="debug writes one line per command (info: a summary of moves)",
    )


def _limit_flags(serve: argparse.ArgumentParser) -> None:
    """One flag per limit of ServerConfig, saying what it limits and its default."""
    from kozyr.config.settings import ServerConfig

    limits = serve.add_argument_group("limits (also in --config; a flag wins over the file)")
    for name in ServerConfig.__slots__:
        default = getattr(ServerConfig(), name)
        limits.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(default),
            default=None,
            metavar=type(default).__name__.upper(),
            dest=name,
            help=f"{LIMIT_HELP[name]} (default {default})",
        )
