"""The embedded Redis's data folder is its owner's alone: the append-only file holds every
match's log (the current hand's stock order included), so the folder is 0700 and every file in
it 0600 after a start, whatever modes it had before (docs/security.md)."""

from __future__ import annotations

import stat
from pathlib import Path

import redis

from kozyr.store.redis.embedded import EmbeddedRedis


def modes(folder: Path) -> dict[str, int]:
    return {
        p.name: stat.S_IMODE(p.stat().st_mode)
        for p in [folder, *folder.rglob("*")]
        if not p.is_socket()
    }


def test_the_data_folder_and_every_file_in_it_are_owner_only_after_a_start(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    stale = folder / "redis.log"
    stale.write_text("a log from an earlier start\n")
    stale.chmod(0o644)
    with EmbeddedRedis(folder) as server:
        client = redis.Redis.from_url(server.url)
        client.set("a", "b")  # something in the append-only file
        client.close()
        found = modes(folder)
    assert {"appendonly.aof", "redis.conf", "redis.log", "kozyr.lock"} <= set(found), found
    assert found.pop("data") == 0o700
    assert all(mode in (0o600, 0o700) for mode in found.values()), {
        name: oct(mode) for name, mode in found.items()
    }
    assert not any(mode & 0o077 for mode in found.values())
