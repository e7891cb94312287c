"""Running a tournament on a Ray cluster: `kozyr tournament --ray ADDRESS` (`pip install
kozyr[ray]`).

The schedule is cut into batches of fixtures (as for the process pool); each batch is one Ray
task that plays its matches in-process (`runner.play_chunk`). Every match is deterministic
(its deal and its bots' seeds come from the master seed and the fixture number), and results
are kept by fixture number, so the standings are exactly the local runner's for the same
master seed, whatever the cluster's size or the order batches finish in.

A worker killed mid-run costs only its batch: Ray runs a task again when the process that
ran it dies (`max_retries`), and the batch plays the same matches again. Progress counts
finished matches; the first Ctrl-C stops handing out batches and keeps the ones in flight,
a second one cancels them (as the local runner).

`--ray auto` joins a Ray already running on this machine (`ray start --head`), else starts
a local one for the run; any other value is a Ray address (`ray://host:10001`, `host:6379`).
Every node needs this version of kozyr installed (`pip install kozyr[ray]`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from kozyr.tournament.runner import Run, chunk_size, play_chunk
from kozyr.tournament.schedule import Fixture
from kozyr.tournament.spec import MatchResult, Tournament

TASK_RETRIES = 5  # times a batch is run again after its worker died


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached (the message says which)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("Ray is not installed: pip install 'kozyr[ray]'") from None
    return ray


def connect(address: str) -> bool:
    """Join the Ray cluster at `address` ("auto": a local one, started if none runs); whether
    this call started Ray in this process (then the run shuts it down)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    try:
        if address == "auto":
            try:
                ray.init(address="auto", logging_level="WARNING", log_to_driver=False)
            except ConnectionError:  # no running local cluster: start one for this run
                ray.init(logging_level="WARNING", log_to_driver=False, include_dashboard=False)
        else:
            ray.init(address=address, logging_level="WARNING", log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {e}") from None
    return True


def _play_batch(t: Tournament, fixtures: Sequence[Fixture]) -> list[MatchResult]:
    """A Ray task: play a batch of fixtures in the worker's process."""
    return play_chunk(t, fixtures, None)


def run_on_ray(
    t: Tournament, address: str, *, on_progress: Callable[[int], None] | None = None
) -> Run:
    """Play every fixture of `t` on the Ray cluster at `address` (see the module doc)."""
    ray = _ray()
    started = connect(address)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_play_batch)
        fixtures = t.fixtures()
        results: dict[int, MatchResult] = {}
        begin = time.perf_counter()
        interrupted = _drive(ray, task, t, fixtures, cpus, results, on_progress or _nothing)
        elapsed = time.perf_counter() - begin
    finally:
        if started:
            ray.shutdown()
    return Run(
        t,
        tuple(fixtures),
        tuple(results[i] for i in sorted(results)),
        interrupted,
        elapsed,
        cpus,
        None,
    )


def _nothing(done: int) -> None:
    return None


def _drive(
    ray: Any,
    task: Any,
    t: Tournament,
    fixtures: list[Fixture],
    cpus: int,
    results: dict[int, MatchResult],
    report: Callable[[int], None],
) -> bool:
    """Hand out batches (two per CPU in flight), collect results; True if Ctrl-C stopped it."""
    size = chunk_size(t, len(fixtures), cpus)
    batches = deque(fixtures[i : i + size] for i in range(0, len(fixtures), size))
    stops = [0]

    def on_sigint(signum: int, frame: object) -> None:
        stops[0] += 1

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if main else None
    shared = ray.put(t)  # the tournament once into the object store, not with every batch
    running: list[Any] = []

    def collect(done: list[Any]) -> None:
        for batch in ray.get(done):
            for r in batch:
                results[r.index] = r

    try:
        while (batches or running) and not stops[0]:
            while batches and len(running) < 2 * cpus:
                running.append(task.remote(shared, batches.popleft()))
            done, running = ray.wait(running, num_returns=1, timeout=0.25)
            if done:
                collect(done)
                report(len(results))
        while running and stops[0] < 2:  # Ctrl-C: keep the batches in flight
            done, running = ray.wait(running, num_returns=len(running), timeout=0.25)
            collect(done)
        for ref in running:  # a second Ctrl-C: abandon them
            ray.cancel(ref, force=True)
        if stops[0]:
            report(len(results))
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return stops[0] > 0
