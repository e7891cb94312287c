"""Every Redis key and channel name Kozyr uses, in one place, designed for Redis Cluster.

Two kinds of name, and nothing else (tests/cluster/test_keys.py checks every name here):

- *match keys* ``kozyr:{<match id>}:<part>``: the hash tag ``{<match id>}`` puts every key of one
  match in one hash slot, so the append script (which touches the log, the command ids, the
  meta hash and the fence at once) runs on one node, and the tick channel lives on that node's
  shard (sharded pub/sub, SPUBLISH, on Redis >= 7).
- *shared keys* that span matches (a deadline index, a tenant's feed, a lobby, revocations):
  they are never touched by a script together with a match key, so a script stays in one slot.
  Either one well-known name whose slot is fixed (``kozyr:{<name>}``: a lobby index, the
  revocation channel), or, where one key would make a hot slot, ``shard_key(name, n)`` spreads
  the name over `n` shards ``kozyr:{<name>:<shard>}`` that a reader scans in turn (deadlines);
  the shard of an item is ``shard_of(item, n)``, stable across processes.

A new key is added here as a function, never written as a literal elsewhere.
"""

from __future__ import annotations

import zlib

PREFIX = "kozyr"


def match_key(match_id: str, part: str) -> str:
    """A key of one match: all of a match's keys share the slot of `{match_id}`."""
    return f"{PREFIX}:{{{match_id}}}:{part}"


def log_key(match_id: str) -> str:
    """The stream of a match: the only source of truth."""
    return match_key(match_id, "log")


def meta_key(match_id: str) -> str:
    """The secrets hash of a match (server seed, token hashes, sealed request answers)."""
    return match_key(match_id, "meta")


def cmds_key(match_id: str) -> str:
    """The command-id hash of a match (`<seat>:<command id>` -> version)."""
    return match_key(match_id, "cmds")


def fence_key(match_id: str) -> str:
    """The highest version the match ever acknowledged (kept apart from the stream)."""
    return match_key(match_id, "fence")


def snapshot_key(match_id: str) -> str:
    """A snapshot of a match's record (kozyr.engine.snapshots): fields v (version) and s."""
    return match_key(match_id, "snap")


def tick_channel(match_id: str) -> str:
    """The pub/sub channel rung with each new version of a match (in the match's slot)."""
    return match_key(match_id, "tick")


def match_of(name: str) -> str:
    """The match id inside a match key or channel name."""
    return name[name.index("{") + 1 : name.rindex("}")]


def shared_key(name: str) -> str:
    """A key or channel shared by all matches, in the fixed slot of `{name}`."""
    return f"{PREFIX}:{{{name}}}"


def shard_of(item: str, shards: int) -> int:
    """The shard (0..shards-1) of `item`: CRC32, the same in every process and run."""
    return zlib.crc32(item.encode()) % max(1, shards)


def shard_key(name: str, shard: int) -> str:
    """Shard `shard` of a cross-match index: each shard its own slot, so no slot runs hot."""
    return f"{PREFIX}:{{{name}:{shard}}}"


def seen_key(match_id: str) -> str:
    """Until when each seat of a match is watched, by any process (abandonment, R-7)."""
    return match_key(match_id, "seen")


# --- clocks: the deadline index, spread over shards (actors/timers.py) ---
DEADLINE_SHARDS = 8


def deadline_shard(match_id: str) -> int:
    """The deadline shard of a match."""
    return shard_of(match_id, DEADLINE_SHARDS)


def deadlines_key(shard: int) -> str:
    """One deadline shard: a sorted set, match id -> when its current decision is due (ms)."""
    return shard_key("deadlines", shard)


def deadline_versions_key(shard: int) -> str:
    """The versions the deadlines of one shard were derived from, in the shard's slot."""
    return deadlines_key(shard) + ":v"


# The channel announcing revoked seat tokens to every server. Classic (not sharded) pub/sub on
# purpose: every server must hear it, and a Redis Cluster forwards a classic PUBLISH to every
# node, while a shard channel reaches only the clients of its own shard.
REVOKED_CHANNEL = "kozyr:revoked"


# The channel announcing revoked seat tickets (api/auth/revocations.py), classic for the same
# reason, and each tenant's hash of them, in the tenant's slot: ``jti:<ticket id>`` -> when it
# was revoked, ``user:<user id>`` -> the time before which that user's tickets are refused.
TICKETS_REVOKED_CHANNEL = "kozyr:revoked:tickets"


def revoked_tickets_key(tenant: str) -> str:
    """A tenant's revoked ticket ids and per-user "not before" times (seconds)."""
    return f"{PREFIX}:{{t:{tenant}}}:revoked"
