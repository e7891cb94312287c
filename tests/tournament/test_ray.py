"""Tournaments on a local Ray instance (one for the module: Ray starts slowly): the same
results as the local runner for the same master seed, and a worker killed mid-run costs only
its batch (Ray runs it again; the matches are deterministic, so the standings are unchanged)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kozyr.tournament.runner import run
from kozyr.tournament.schedule import Fixture
from kozyr.tournament.spec import Tournament

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.slow, pytest.mark.solo]  # Ray waits a fixed 30 s for its raylet


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray with two CPUs, shared by the tests of this module."""
    # Ray gives its raylet a fixed 30 s to register (and waits as long for the GCS to write
    # its port file); a busy 2-core machine can take longer, so a start that timed out either
    # way is tried again (its own processes stopped first).
    for attempt in range(3):
        try:
            ray.init(
                num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING"
            )
            break
        except Exception as e:
            ray.shutdown()
            if attempt == 2 or "timed out" not in str(e).lower():
                raise
    try:
        yield
    finally:
        ray.shutdown()


def outcomes(results: tuple[object, ...]) -> list[object]:
    return [(r.index, r.lineup, r.winners, r.scores, r.moves) for r in results]  # type: ignore[attr-defined]


def test_ray_gives_the_local_runners_results_for_the_same_seed(local_ray: None) -> None:
    from kozyr.tournament.ray_runner import run_on_ray

    t = Tournament(
        game="six-dozens",
        players=("heuristic", "random", "random"),
        matches=24,
        seed="ray-vs-local",
    )
    seen: list[int] = []
    on_ray = run_on_ray(t, "auto", on_progress=seen.append)
    local = run(t, workers=1)
    assert not on_ray.interrupted and len(on_ray.results) == len(t.fixtures())
    assert outcomes(on_ray.results) == outcomes(local.results)
    assert seen and seen[-1] == len(t.fixtures()), "progress counts finished matches"


def batch_workers() -> list[int]:
    """Pids of Ray workers playing a batch now (Ray titles them after the task)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if (proc / "cmdline").read_bytes().startswith(b"ray::_play_batch"):
                    pids.append(int(proc.name))
    return pids


def test_a_worker_killed_mid_run_costs_only_its_batch(local_ray: None) -> None:
    from kozyr.tournament.ray_runner import run_on_ray

    # Searching bots: one match per batch, slow enough to be caught in the middle.
    t = Tournament(
        game="dix",
        players=("ismcts:iters=30", "heuristic"),
        matches=16,
        seed=14,
        options=(("single_hand", "true"),),
    )
    killed: list[int] = []
    first = threading.Event()

    def progress(done: int) -> None:
        first.set()

    def killer() -> None:
        if not first.wait(120):
            return
        for _ in range(200):  # bounded: until a worker is caught playing
            pids = batch_workers()
            if pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])
                return
            threading.Event().wait(0.02)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    on_ray = run_on_ray(t, "auto", on_progress=progress)
    thread.join(30)
    assert killed, "a worker was killed mid-run"
    local = run(t, workers=1)
    assert outcomes(on_ray.results) == outcomes(local.results), "standings unchanged"
    assert [r.index for r in on_ray.results] == [f.index for f in t.fixtures()]


def test_fixture_numbers_alone_fix_a_match(local_ray: None) -> None:
    """Why a re-run batch changes nothing: a fixture played twice gives one result."""
    from kozyr.tournament.runner import play_chunk

    t = Tournament(game="dix", players=("random", "random"), matches=2, seed=3)
    fixtures: list[Fixture] = t.fixtures()
    assert play_chunk(t, fixtures, None) == play_chunk(t, fixtures, None)


def test_ctrl_c_keeps_the_batches_in_flight_and_returns_what_was_played(local_ray: None) -> None:
    """As the local runner: the first Ctrl-C stops handing out batches; what was played is
    returned (marked interrupted), each result the one the local runner gives."""
    from kozyr.tournament.ray_runner import run_on_ray

    t = Tournament(
        game="dix",
        players=("heuristic", "random"),
        matches=400,
        seed=5,
        options=(("single_hand", "true"),),
    )
    asked = [0]

    def progress(done: int) -> None:
        if not asked[0]:
            asked[0] = 1
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, delivered to this (main) thread

    on_ray = run_on_ray(t, "auto", on_progress=progress)
    assert on_ray.interrupted
    assert 0 < len(on_ray.results) < len(t.fixtures())
    local = {r.index: r for r in run(t, workers=1).results}
    assert outcomes(on_ray.results) == outcomes(tuple(local[r.index] for r in on_ray.results))
