"""`kozyr repair MATCH_ID`: an operator accepts a match's log as the store now holds it.

A log that lost entries it had acknowledged (a restored backup, a failover that lost its tail)
takes no writes: the service answers STREAM_BEHIND rather than write new moves over versions
players were told were accepted. After looking at what was lost (`kozyr replay export` of the
match, the players' own records), the operator runs this command to lower the match's fence to
what the log holds; play then goes on from there. See docs/operations.md.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from kozyr.cli.store_flags import add_store_flags, store_url


def _repair(args: argparse.Namespace) -> int:
    from kozyr.match import limits
    from kozyr.match.errors import MatchError
    from kozyr.store.redis.streams import RedisStore

    try:
        limits.check_match_id(args.match_id)
    except MatchError as e:
        print(f"kozyr repair: {e.message}")
        return 2
    url = store_url(args)

    async def run() -> tuple[int, int]:
        store = RedisStore.from_url(url)
        try:
            if not await store.version(args.match_id) and not args.force:
                raise LookupError(args.match_id)
            return await store.repair(args.match_id)
        finally:
            await store.close()

    try:
        fence, kept = asyncio.run(run())
    except LookupError:
        print(f"kozyr repair: the store holds no entry of match {args.match_id}")
        return 1
    except MatchError as e:
        print(f"kozyr repair: {e.message} ({url})")
        return 1
    if fence > kept:
        print(
            f"match {args.match_id}: versions {kept + 1}..{fence} were acknowledged and are "
            f"lost; the log goes on from version {kept}"
        )
    else:
        print(f"match {args.match_id}: nothing was lost (at version {kept}); the fence is set")
    return 0


def register(sub: Any) -> None:
    """Add `kozyr repair` to the command line."""
    parser = sub.add_parser("repair", help="accept a match's log after the store lost entries")
    parser.add_argument("match_id")
    add_store_flags(parser)
    parser.add_argument(
        "--force",
        action="store_true",
        help="set the fence even when the store holds no entry of the match",
    )
    parser.set_defaults(func=_repair)
