"""The `kozyr` command: serve the API (more subcommands join as they are built)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_ADDRESS = "127.0.0.1:50051"

# Modules with a `register(subparsers)` function adding their subcommand(s).
SUBCOMMANDS: list[str] = [
    "kozyr.cli.replay_command",
    "kozyr.terminal.play",
    "kozyr.cli.tournament_command",
    "kozyr.cli.rules_command",
    "kozyr.cli.repair_command",
    "kozyr.cli.tokens_command",
    "kozyr.tools.loadgen",
    "kozyr.cli.keys_command",
    "kozyr.cli.health_command",
    "kozyr.cli.webhooks_command",
    "kozyr.cli.export_command",
    "kozyr.cli.mcp_command",
]


class ServeError(RuntimeError):
    """A setting of `kozyr serve` is unusable (one line, status 1)."""


def _read(path: str | None, what: str) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise ServeError(f"cannot read the {what} {path}: {e.strerror}") from None


def _settings(args: argparse.Namespace) -> tuple[Any, Any, Any, Any, Any, Any]:
    """The config, TLS, arbiter, seed box, signer and tenants a `kozyr serve` asks for
    (ServeError if not)."""
    from kozyr.api.auth.arbiter import Arbiter, ArbiterTokenError
    from kozyr.api.auth.tickets import TicketVerifier
    from kozyr.config.settings import ConfigError, field_names, load, load_tenancy
    from kozyr.secrets.seedbox import load_or_create

    try:
        config = load(args.config, {name: getattr(args, name) for name in field_names()})
        tenancy = load_tenancy(args.config, True if args.require_auth else None)
        TicketVerifier(tenancy)  # an unusable ticket key is refused before anything starts
        arbiter = Arbiter.from_sources(args.arbiter_token_file)
    except (ConfigError, ArbiterTokenError) as e:
        raise ServeError(str(e)) from None
    tls = None
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise ServeError("TLS needs both --tls-cert and --tls-key")
        from kozyr.server.bootstrap import Tls

        tls = Tls(
            _read(args.tls_cert, "certificate") or b"",
            _read(args.tls_key, "key") or b"",
            _read(args.tls_client_ca, "client CA"),
        )
    elif args.tls_client_ca:
        raise ServeError("--tls-client-ca needs --tls-cert and --tls-key")
    key_file = (
        args.seed_key_file
        or os.environ.get("KOZYR_SEED_KEY_FILE")
        or str(Path(args.data_dir) / "seed.key")
    )
    try:
        seed_box = load_or_create(Path(key_file))
    except (OSError, ValueError) as e:
        raise ServeError(f"cannot use the seed key {key_file}: {e}") from None
    from kozyr.cli.keys_command import signing_dir
    from kozyr.secrets.signing import load_file
    from kozyr.secrets.signing import load_or_create as load_signer

    given = args.signing_key_file or os.environ.get("KOZYR_SIGNING_KEY_FILE")
    folder = Path(given) if given else signing_dir(args)
    try:
        signer = load_file(folder) if given else load_signer(folder)
    except (OSError, ValueError) as e:
        raise ServeError(f"cannot use the signing key {folder}: {e}") from None
    return config, tls, arbiter, seed_box, signer, tenancy


def _serve(args: argparse.Namespace) -> int:
    """`kozyr serve`: refuse at once (one line, status 1) a taken data folder or port."""
    from kozyr.server.listen import CannotListen, check_address
    from kozyr.store.redis.embedded import EmbeddedRedis, FolderInUse, FolderLock, FolderUnusable

    if args.workers > 1:  # a supervisor of N worker processes on one port
        from kozyr.server.workers import serve_workers

        return serve_workers(args, args.argv)
    url: str = args.redis_url or os.environ.get("REDIS_URL") or ""
    lock: FolderLock | None = None
    embedded: EmbeddedRedis | None = None
    try:
        if not url:  # the folder first: its lock names the running server's pid and address
            lock = FolderLock(args.data_dir).acquire(args.address)
        worker = args.worker_index is not None
        if not worker:  # a worker's siblings listen on its port already (SO_REUSEPORT)
            check_address(args.address)
            if args.web_port:  # 0 picks a free port
                check_address(f"{args.address.rsplit(':', 1)[0]}:{args.web_port}")
        if args.metrics_port is not None:
            args.metrics_port += args.worker_index or 0  # one metrics port per worker
            check_address(f"{args.address.rsplit(':', 1)[0]}:{args.metrics_port}")
        config, tls, arbiter, seed_box, signer, tenancy = _settings(args)
        from kozyr.server.bootstrap import configure_logging, serve  # gRPC: only once we may serve

        configure_logging(json_logs=args.json_logs, level=getattr(logging, args.log_level.upper()))
        if lock is not None:
            embedded = EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync, lock=lock).start(
                supervise=True
            )
            url = embedded.url
            print(
                f"kozyr: embedded Redis on {url} (append-only file in {embedded.data_dir})",
                file=sys.stderr,
            )
        asyncio.run(
            serve(
                url,
                args.address,
                arbiter=arbiter,
                seed_box=seed_box,
                signer=signer,
                config=config,
                tls=tls,
                reflection_on=args.reflection,
                metrics_port=args.metrics_port,
                on_serving=lock.note if lock is not None else None,
                supervised=embedded,
                reuse_port=worker,
                web_port=args.web_port,
                tenancy=tenancy,
            )
        )
    except (FolderInUse, FolderUnusable, CannotListen, ServeError) as e:
        print(f"kozyr serve: {e}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
        if lock is not None:
            lock.release()
    return 0


def _serve_flags(serve: argparse.ArgumentParser) -> None:
    from kozyr.config.settings import ServerConfig

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
    limits = serve.add_argument_group("limits (also in --config; a flag wins over the file)")
    for name, default in ((n, getattr(ServerConfig(), n)) for n in ServerConfig.__slots__):
        limits.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(default),
            default=None,
            metavar=type(default).__name__.upper(),
            dest=name,
            help=f"default {default}",
        )


def build_parser(serve_only: bool = False) -> argparse.ArgumentParser:
    """The argument parser of every subcommand (of `serve` alone when `serve_only`)."""
    parser = argparse.ArgumentParser(prog="kozyr", description="Kozyr card-game engine")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the gRPC service", allow_abbrev=False)
    _serve_flags(serve)
    serve.set_defaults(func=_serve)

    # Each further subcommand lives beside the code it drives and registers itself here.
    for module in [] if serve_only else SUBCOMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kozyr` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # `kozyr serve` needs none of the others (the games, the bots, rich): not importing them
    # lets a refused start (data folder or port taken) answer in a fraction of a second.
    args = build_parser(serve_only=argv[:1] == ["serve"]).parse_args(argv)
    args.argv = argv  # `serve --workers` starts its workers with the same flags
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
