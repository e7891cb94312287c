"""The suite on two processes (`make test`: pytest-xdist, `-n 2 --dist loadgroup`): which
tests share a worker, and which run with the machine to themselves.

- A test that uses a module-scoped fixture runs on the worker of its module's other tests
  (the fixture, a served drill or a browser, is set up once, as in a serial run); one that
  uses a costly session fixture (the local Redis Cluster) runs on that fixture's worker.
  Every other test goes to whichever worker is free. (xdist's own loadgroup marks a group in
  the node id, which pytest 9.2 no longer lets it rewrite: the workers write their groups to
  a file and the scheduler here reads it.)
- A test marked `solo` (CPU-heavy, and what it asserts holds only with the CPU it needs:
  2,000 watched matches, 1,000 seats, three servers' clocks, Ray's fixed start-up wait) runs
  while no other test runs: it takes a file lock exclusively, every other test takes it
  shared. A second lock is a turnstile, so that the other worker's stream of shared holders
  cannot starve a waiting solo test.

Without xdist (`pytest` alone, `make test-fast`) none of this does anything.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

# Session fixtures cheap enough for each worker to have its own (an embedded redis-server).
PER_WORKER = frozenset({"redis_url", "tmp_path_factory", "monkeypatch", "worker_id", "testrun_uid"})
SHARED = "kozyr_shared"  # the workerinput key naming the folder the workers share
_folder = pytest.StashKey[str]()


def shared_setup(item: pytest.Item) -> str | None:
    """The group of a test whose fixtures must be set up once: its module's, or the name of
    the costly session fixture it uses; None for a test that may run anywhere."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name, defs in sorted(info.name2fixturedefs.items()):
        scope = defs[-1].scope
        if scope == "session" and name not in PER_WORKER:
            return name
        if scope in ("module", "class", "package"):
            return item.nodeid.split("::", 1)[0]
    return None


def _shared(config: pytest.Config) -> Path | None:
    """The folder the workers share (None outside a distributed run)."""
    folder = getattr(config, "workerinput", {}).get(SHARED)
    return None if folder is None else Path(folder)


def pytest_configure(config: pytest.Config) -> None:
    """On the controller of a distributed run: the folder the workers share."""
    if (
        config.pluginmanager.hasplugin("xdist")
        and not hasattr(config, "workerinput")
        and config.getoption("numprocesses", None)
    ):
        config.stash[_folder] = tempfile.mkdtemp(prefix="kozyr-pytest-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the shared folder (on the controller, after every worker has ended)."""
    folder = config.stash.get(_folder, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each worker where the shared folder is."""
    node.workerinput[SHARED] = node.config.stash[_folder]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """A worker writes its tests' groups (before it tells the controller it has collected,
    so the file is complete when the scheduler first reads it)."""
    folder = _shared(session.config)
    if folder is None:
        return
    groups = {
        item.nodeid: group for item in session.items if (group := shared_setup(item)) is not None
    }
    worker = session.config.workerinput["workerid"]  # type: ignore[attr-defined]
    scratch = folder / f".groups-{worker}.json"
    scratch.write_text(json.dumps(groups))
    os.replace(scratch, folder / f"groups-{worker}.json")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup`: whole groups to one worker, every other test one by one."""
    if config.getoption("dist") != "loadgroup" or _folder not in config.stash:
        return None
    from xdist.scheduler import LoadScopeScheduling

    folder = Path(config.stash[_folder])

    class Groups(LoadScopeScheduling):  # type: ignore[misc]
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = {}
                for path in sorted(folder.glob("groups-*.json")):
                    self.groups.update(json.loads(path.read_text()))
            return self.groups.get(nodeid, nodeid)

    return Groups(config, log)


@pytest.hookimpl(tryfirst=True, wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """Hold the machine lock across the test's setup, call and teardown (its fixtures'
    too): exclusively for a solo test, shared for any other."""
    folder = _shared(item.config)
    if folder is None:
        return (yield)
    solo = item.get_closest_marker("solo") is not None
    with (folder / "turnstile").open("a") as turn, (folder / "machine").open("a") as machine:
        fcntl.flock(turn, fcntl.LOCK_EX)
        try:
            # Whoever waits for the machine keeps the turnstile: no shared holder gets past
            # a solo test that is waiting.
            fcntl.flock(machine, fcntl.LOCK_EX if solo else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)
        try:
            return (yield)
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)
