"""`kozyr tokens revoke MATCH_ID`: take a seat token away (docs/security.md).

Give the seat (every token of it goes) or a file holding the token itself. Every running server
drops the token from its cache as soon as the revocation is announced; the next call with it is
UNAUTHENTICATED (BAD_TOKEN). The seat stays taken: its player can no longer act, the match goes
on for the others once their turn comes. The arbiter token is revoked by replacing its file
and sending SIGHUP to each server (or restarting it).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kozyr.cli.store_flags import add_store_flags, store_url


def _revoke(args: argparse.Namespace) -> int:
    import redis

    from kozyr.api.auth.arbiter import revoke
    from kozyr.match.errors import MatchError

    url = store_url(args)
    token = None
    if args.token_file is not None:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as e:
            print(f"kozyr tokens revoke: cannot read {args.token_file}: {e.strerror}")
            return 1
    from kozyr.store.redis.connect import connect_sync

    client = connect_sync(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        removed = revoke(client, args.match_id, token=token, seat=args.seat)
    except MatchError as e:
        print(f"kozyr tokens revoke: {e.message}")
        return 2
    except redis.exceptions.RedisError as e:
        print(f"kozyr tokens revoke: the store at {url} does not answer ({type(e).__name__})")
        return 1
    finally:
        client.close()
    if not removed:
        print(f"match {args.match_id}: no such token (nothing revoked)")
        return 1
    print(f"match {args.match_id}: {removed} token(s) revoked")
    return 0


def register(sub: Any) -> None:
    """Add `kozyr tokens revoke` to the command line."""
    tokens = sub.add_parser("tokens", help="manage seat tokens")
    actions = tokens.add_subparsers(dest="action", required=True)
    parser = actions.add_parser("revoke", help="revoke a seat token of a match")
    parser.add_argument("match_id")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--seat", type=int, help="revoke every token of this seat")
    which.add_argument(
        "--token-file",
        help="revoke the token in this file (never on the "
        "command line, where the process list shows it)",
    )
    add_store_flags(parser)
    parser.set_defaults(func=_revoke)
