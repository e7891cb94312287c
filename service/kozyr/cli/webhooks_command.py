"""`kozyr webhooks dead TENANT` lists a tenant's dead letters; `kozyr webhooks redeliver
TENANT [--id ID ...]` makes them due again (all of them without --id), with a fresh retry
window. The running servers' senders pick them up on their next round (docs/platforms.md)."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from kozyr.cli.store_flags import add_store_flags, store_url


async def _run(args: argparse.Namespace) -> int:
    from kozyr.platform.webhooks.deliveries import Deliveries
    from kozyr.store.redis.connect import connect

    client = connect(store_url(args), socket_timeout=5, socket_connect_timeout=5)
    deliveries = Deliveries(client)
    try:
        if args.action == "dead":
            for dead in await deliveries.dead(args.tenant):
                print(f"{dead.id}\tdied {dead.died_ms}\t{dead.why}")
            return 0
        moved = await deliveries.redeliver(args.tenant, args.id or None, int(time.time() * 1000))
        print(f"tenant {args.tenant}: {moved} dead letter(s) due again")
        return 0 if moved or not args.id else 1
    finally:
        await client.aclose()


def _main(args: argparse.Namespace) -> int:
    import redis

    try:
        return asyncio.run(_run(args))
    except redis.exceptions.RedisError as e:
        print(
            f"kozyr webhooks: the store at {store_url(args)} does not answer ({type(e).__name__})"
        )
        return 1


def register(sub: Any) -> None:
    """Add `kozyr webhooks dead|redeliver` to the command line."""
    webhooks = sub.add_parser("webhooks", help="webhook dead letters")
    actions = webhooks.add_subparsers(dest="action", required=True)
    for name, text in (
        ("dead", "list a tenant's dead letters"),
        ("redeliver", "deliver a tenant's dead letters again"),
    ):
        parser = actions.add_parser(name, help=text)
        parser.add_argument("tenant")
        if name == "redeliver":
            parser.add_argument(
                "--id",
                action="append",
                default=[],
                help="one dead letter (as `dead` lists it); repeatable; none: all of them",
            )
        add_store_flags(parser)
        parser.set_defaults(func=_main)
