"""`kozyr tickets revoke TENANT --jti ID | --user USER`: refuse a platform's seat tickets
(docs/platforms.md).

`--jti` revokes the one ticket with that id; `--user` every ticket of that user issued (`iat`)
before now, so the platform's next ticket for them works. The revocation is kept in Redis and
announced to every running server, which refuses the ticket from then on (UNAUTHENTICATED,
TICKET_REVOKED), a server started later as well.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from kozyr.cli.store_flags import add_store_flags, store_url


def _revoke(args: argparse.Namespace) -> int:
    import redis

    from kozyr.api.auth.revocations import revoke_tickets
    from kozyr.config.settings import TENANT_ID
    from kozyr.store.redis.connect import connect_sync

    if not TENANT_ID.fullmatch(args.tenant):
        print(f"kozyr tickets revoke: {args.tenant!r} is not a tenant id")
        return 2
    kind, name = ("jti", args.jti) if args.jti is not None else ("user", args.user)
    if not name or not name.isascii() or not name.isprintable() or " " in name:
        print(f"kozyr tickets revoke: the {kind} is printable ASCII without spaces")
        return 2
    url = store_url(args)
    client = connect_sync(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        revoke_tickets(client, args.tenant, kind, name, int(time.time()))
    except redis.exceptions.RedisError as e:
        print(f"kozyr tickets revoke: the store at {url} does not answer ({type(e).__name__})")
        return 1
    finally:
        client.close()
    what = f"ticket {name}" if kind == "jti" else f"tickets of user {name} issued until now"
    print(f"tenant {args.tenant}: {what} revoked")
    return 0


def register(sub: Any) -> None:
    """Add `kozyr tickets revoke` to the command line."""
    tickets = sub.add_parser("tickets", help="manage a platform's seat tickets")
    actions = tickets.add_subparsers(dest="action", required=True)
    parser = actions.add_parser("revoke", help="refuse a ticket, or a user's tickets so far")
    parser.add_argument("tenant", help="the tenant whose tickets these are")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--jti", help="revoke the ticket with this id (its jti claim)")
    which.add_argument("--user", help="revoke every ticket of this user issued before now")
    add_store_flags(parser)
    parser.set_defaults(func=_revoke)
