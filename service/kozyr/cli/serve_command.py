"""`kozyr serve`: read the flags into the composition root's Wiring, take the data folder (or
use the given Redis), and serve until a signal (server/bootstrap.serve).

A taken data folder or port, or an unusable setting, is refused at once with one line and
status 1, before anything heavy (gRPC) is imported."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from kozyr.cli.serve_flags import add_serve_flags


class ServeError(RuntimeError):
    """A setting of `kozyr serve` is unusable (one line, status 1)."""


def register(sub: Any) -> None:
    """Add `kozyr serve`."""
    serve = sub.add_parser("serve", help="run the gRPC service", allow_abbrev=False)
    add_serve_flags(serve)
    serve.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """`kozyr serve`: refuse at once (one line, status 1) a taken data folder or port."""
    from kozyr.server.listen import CannotListen
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
        _check_ports(args)
        settings = _settings(args)
        from kozyr.server.process_tuning import configure_logging  # gRPC: once we may serve

        configure_logging(json_logs=args.json_logs, level=getattr(logging, args.log_level.upper()))
        if lock is not None:
            embedded = EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync, lock=lock)
            url = embedded.start(supervise=True).url
            print(
                f"kozyr: embedded Redis on {url} (append-only file in {embedded.data_dir})",
                file=sys.stderr,
            )
        _serve(args, url, settings, lock, embedded)
    except (FolderInUse, FolderUnusable, CannotListen, ServeError) as e:
        print(f"kozyr serve: {e}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
        if lock is not None:
            lock.release()
    return 0


def _check_ports(args: argparse.Namespace) -> None:
    """Refuse ports another process holds (CannotListen naming it) before starting anything."""
    from kozyr.server.listen import check_address

    host = args.address.rsplit(":", 1)[0]
    if args.worker_index is None:  # a worker's siblings listen on its port already
        check_address(args.address)
        if args.web_port:  # 0 picks a free port
            check_address(f"{host}:{args.web_port}")
    if args.metrics_port is not None:
        args.metrics_port += args.worker_index or 0  # one metrics port per worker
        check_address(f"{host}:{args.metrics_port}")


def _serve(
    args: argparse.Namespace, url: str, settings: dict[str, Any], lock: Any, embedded: Any
) -> None:
    """Build the Wiring and serve it until a signal."""
    from kozyr.server.bootstrap import Wiring, redis_store, serve

    wiring = Wiring(
        store=redis_store(url, settings["config"]),
        address=args.address,
        reflection_on=args.reflection,
        reuse_port=args.worker_index is not None,
        web_port=args.web_port,
        **settings,
    )
    asyncio.run(
        serve(
            wiring,
            metrics_port=args.metrics_port,
            on_serving=lock.note if lock is not None else None,
            supervised=embedded,
        )
    )


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The config, tenants, arbiter, TLS, seed box and signer a `kozyr serve` asks for, as
    the Wiring's fields (ServeError if one is unusable)."""
    from kozyr.api.auth.arbiter import Arbiter, ArbiterTokenError
    from kozyr.api.auth.tickets import TicketVerifier
    from kozyr.config.settings import ConfigError, field_names, load, load_tenancy

    try:
        config = load(args.config, {name: getattr(args, name) for name in field_names()})
        tenancy = load_tenancy(args.config, True if args.require_auth else None)
        TicketVerifier(tenancy)  # an unusable ticket key is refused before anything starts
        arbiter = Arbiter.from_sources(args.arbiter_token_file)
    except (ConfigError, ArbiterTokenError) as e:
        raise ServeError(str(e)) from None
    return {
        "config": config,
        "tenancy": tenancy,
        "arbiter": arbiter,
        "tls": _tls(args),
        "seed_box": _seed_box(args),
        "signer": _signer(args),
        **_tlog(args),
    }


def _read(path: str | None, what: str) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise ServeError(f"cannot read the {what} {path}: {e.strerror}") from None


def _tls(args: argparse.Namespace) -> Any:
    """The TLS asked for (None: plain text)."""
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise ServeError("TLS needs both --tls-cert and --tls-key")
        from kozyr.server.tls import Tls

        return Tls(
            _read(args.tls_cert, "certificate") or b"",
            _read(args.tls_key, "key") or b"",
            _read(args.tls_client_ca, "client CA"),
        )
    if args.tls_client_ca:
        raise ServeError("--tls-client-ca needs --tls-cert and --tls-key")
    return None


def _seed_box(args: argparse.Namespace) -> Any:
    """The key sealing server seeds (made on first start in the data folder)."""
    from kozyr.secrets.seedbox import load_or_create

    key_file = (
        args.seed_key_file
        or os.environ.get("KOZYR_SEED_KEY_FILE")
        or str(Path(args.data_dir) / "seed.key")
    )
    try:
        return load_or_create(Path(key_file))
    except (OSError, ValueError) as e:
        raise ServeError(f"cannot use the seed key {key_file}: {e}") from None


def _tlog(args: argparse.Namespace) -> dict[str, Any]:
    """The transparency log's folder and fsync policy (none with --no-tlog)."""
    if not args.tlog:
        return {}
    given = args.tlog_dir or os.environ.get("KOZYR_TLOG_DIR")
    folder = Path(given) if given else Path(args.data_dir) / "tlog"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.access(folder, os.W_OK):
            raise PermissionError("not writable")
    except OSError as e:
        raise ServeError(
            f"cannot keep the transparency log in {folder} ({e.strerror or e}): give "
            "--tlog-dir a writable, persistent folder, or --no-tlog"
        ) from None
    return {"tlog_dir": folder, "tlog_fsync": args.tlog_fsync}


def _signer(args: argparse.Namespace) -> Any:
    """The key receipts are signed with (a given file, else the folder's, made on first start)."""
    from kozyr.cli.keys_command import signing_dir
    from kozyr.secrets.signing import load_file
    from kozyr.secrets.signing import load_or_create as load_signer

    given = args.signing_key_file or os.environ.get("KOZYR_SIGNING_KEY_FILE")
    folder = Path(given) if given else signing_dir(args)
    try:
        return load_file(folder) if given else load_signer(folder)
    except (OSError, ValueError) as e:
        raise ServeError(f"cannot use the signing key {folder}: {e}") from None
