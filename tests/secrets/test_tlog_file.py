"""The transparency log's file (kozyr.secrets.tlog): owner-only, shared by the processes of one
host under a lock (`kozyr serve --workers N`), each leaf logged once, a torn last line cut,
and the contradictions a restored store shows."""

from __future__ import annotations

import asyncio
import multiprocessing
import stat
from pathlib import Path

from kozyr.core.merkle import MerkleTree, leaf_hash
from kozyr.core.tree_heads import CREATED, ENDED, Leaf
from kozyr.secrets.signing import Signer
from kozyr.secrets.tlog import LEAVES, TransparencyLog

KEY = bytes(range(32))


def leaf(i: int, kind: str = CREATED) -> Leaf:
    return Leaf(kind, f"m{i}", 1 if kind == CREATED else 9, f"{i:064x}", "ab" * 32)


def writer(folder: str, first: int, count: int) -> None:
    """One server process: adds its leaves one by one, and leaf 0 (which every process adds)."""
    tlog = TransparencyLog(Path(folder), Signer(KEY), fsync=False)

    async def body() -> None:
        for i in range(first, first + count):
            await asyncio.gather(tlog.add(leaf(i)), tlog.add(leaf(0)))

    asyncio.run(body())
    tlog.close()


def test_processes_sharing_the_file_log_every_leaf_once(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=writer, args=(str(tmp_path), 1 + 50 * k, 50)) for k in range(3)
    ]
    for p in processes:
        p.start()
    for p in processes:
        p.join(120)
        assert p.exitcode == 0
    tlog = TransparencyLog(tmp_path, Signer(KEY))
    lines = (tmp_path / LEAVES).read_bytes().split(b"\n")[:-1]
    assert sorted(Leaf.parse(line).match_id for line in lines) == sorted(
        f"m{i}" for i in range(151)
    )
    assert tlog.tree.size == 151
    assert tlog.tree.root() == MerkleTree([leaf_hash(line) for line in lines]).root()
    tlog.close()


def test_the_folder_and_file_are_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "tlog"
    tlog = TransparencyLog(folder, Signer(KEY))
    tlog.append_now([leaf(1)])
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / LEAVES).stat().st_mode) == 0o600
    tlog.close()


def test_a_torn_last_line_is_cut_by_the_next_writer(tmp_path: Path) -> None:
    tlog = TransparencyLog(tmp_path, Signer(KEY))
    tlog.append_now([leaf(1)])
    with (tmp_path / LEAVES).open("ab") as f:
        f.write(leaf(2).data()[:20])  # a writer died mid-line: never acknowledged
    tlog.append_now([leaf(3)])
    again = TransparencyLog(tmp_path, Signer(KEY))
    assert again.tree.size == tlog.tree.size == 2
    assert [again.leaf_data(i) for i in range(2)] == [leaf(1).data(), leaf(3).data()]
    assert again.tree.root() == tlog.tree.root()
    tlog.close()
    again.close()


def test_a_store_behind_the_log_contradicts_it(tmp_path: Path) -> None:
    tlog = TransparencyLog(tmp_path, Signer(KEY))
    ended = Leaf(ENDED, "m1", 9, "ee" * 32, "ab" * 32)
    tlog.append_now([leaf(1), ended, leaf(2)])
    assert tlog.contradiction("m1", 9, "ee" * 32, "ab" * 32) is None
    assert tlog.contradiction("m2", 5, "cc" * 32, "ab" * 32) is None  # running: only created
    assert tlog.contradiction("m3", 0, "") is None  # never logged
    behind = tlog.contradiction("m1", 7, "dd" * 32)
    assert behind is not None and "ended at version 9" in behind and "version 7" in behind
    assert tlog.contradiction("m1", 9, "dd" * 32) is not None  # another head at that version
    missing = tlog.contradiction("m2", 0, "")
    assert missing is not None and "no entry of it" in missing
    assert tlog.contradiction("m2", 3, "cc" * 32, "cd" * 32) is not None  # another commitment
    tlog.close()


def test_a_head_is_signed_once_per_size(tmp_path: Path) -> None:
    times = iter(range(1000, 2000))
    tlog = TransparencyLog(tmp_path, Signer(KEY), clock=lambda: next(times))
    first = tlog.head()
    assert first.size == 0 and tlog.head() is first
    tlog.append_now([leaf(1)])
    second = tlog.head()
    assert second.size == 1 and second.root_hash == leaf(1).hash().hex()
    tlog.close()
