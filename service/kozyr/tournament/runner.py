"""Running a tournament: fixtures to worker processes, results back, progress, Ctrl-C.

In-process (no server) every match runs in a worker process (concurrent.futures
ProcessPoolExecutor, one per core by default; ``workers=1`` plays in this process). With a
server address each worker process plays its matches through the server instead
(kozyr.tournament.served), a window of them at once (they mostly wait on the network);
``workers=1`` plays its window in this process. With the server's
own bots on every seat (`server_bots`) nothing is played here at all: this process keeps
`workers` x 64 matches in play on the server and hears their ends on the results feed
(kozyr.tournament.serverbots); a spawned worker process would spend more CPU importing gRPC
than on all its matches' requests.

Results are kept by fixture number and everything derived from them (standings, ratings,
files) is computed in schedule order, so the outcome does not depend on the worker count or on
which match finished first.

Ctrl-C: workers ignore SIGINT; the first Ctrl-C stops handing out matches, lets the ones being
played finish, and the run returns what was played (marked interrupted). A second Ctrl-C while
waiting abandons the matches in play.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass
from typing import Any

from kozyr.bots import parse_spec
from kozyr.tournament.local import play_local
from kozyr.tournament.schedule import Fixture
from kozyr.tournament.spec import MatchResult, Tournament


@dataclass(frozen=True, slots=True)
class Run:
    """A finished (or interrupted) tournament run: every result, in fixture order."""

    tournament: Tournament
    fixtures: tuple[Fixture, ...]
    results: tuple[MatchResult, ...]
    interrupted: bool
    elapsed: float
    workers: int
    server: str | None

    @property
    def matches_per_second(self) -> float:
        """Matches played per wall-clock second."""
        return len(self.results) / self.elapsed if self.elapsed > 0 else 0.0


def play_chunk(
    t: Tournament,
    fixtures: Sequence[Fixture],
    server: str | None,
    lane: tuple[int, int] = (0, 1),
) -> list[MatchResult]:
    """Play some fixtures in this process (the unit of work a worker receives); through a
    server, once the run is stopping (Ctrl-C), only those already in play, on the server
    processes of `lane` (this chunk's number among the run's workers: see served.py)."""
    if server is None:
        return [play_local(t, f) for f in fixtures]
    # grpc only where it is needed
    from kozyr.tournament.remote import play_remote
    from kozyr.tournament.served import play_served
    from kozyr.tournament.serverbots import play_server_bots

    if t.server_bots:
        return play_server_bots(t, fixtures, server)

    if t.keep:  # each seat keeps the receipts of its own answers: the unary path
        with ThreadPoolExecutor(len(fixtures)) as threads:
            return list(threads.map(lambda f: play_remote(t, f, server), fixtures))
    # Served matches wait on the network most of the time: a window of the chunk's matches
    # plays at once, every seat of them over PlaySession streams.
    return play_served(
        t,
        fixtures,
        server,
        stopping=lambda: _STOP is not None and _STOP.is_set(),
        heard=lambda r: _DONE is not None and _DONE.put(r.index),
        lane=lane,
    )


# A worker's copies of the run's stop event (set on the first Ctrl-C) and of the queue it
# tells each served match's end on, as it ends (a served chunk is long: see chunk_size).
_STOP: Any = None
_DONE: Any = None


def _quiet_worker(stop: Any = None, done: Any = None) -> None:
    """Workers leave Ctrl-C to the parent, which stops them cleanly (and sets `stop`)."""
    global _STOP, _DONE
    _STOP, _DONE = stop, done
    signal.signal(signal.SIGINT, signal.SIG_IGN)


SERVED_CHUNK = 512  # at most this many fixtures per task through a server


def chunk_size(t: Tournament, fixtures: int, workers: int, served: bool = False) -> int:
    """Fixtures per task: through a server, as many as keep a worker's sessions full to the
    end (served.py plays a chunk with a window of matches in play), the same for every worker;
    else one for searching bots (slow matches), more for fast ones so that process hand-offs
    stay cheap, yet small enough to keep every worker busy to the end."""
    if served:
        chunks = workers * -(-fixtures // (workers * SERVED_CHUNK))
        return max(1, -(-fixtures // chunks))
    if any(parse_spec(p).kind == "ismcts" for p in t.players):
        return 1
    return max(1, min(16, fixtures // (workers * 32)))


def run(
    t: Tournament,
    *,
    workers: int | None = None,
    server: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Run:
    """Play every fixture of `t`; Ctrl-C returns what was played so far (see module doc)."""
    fixtures = t.fixtures()
    workers = max(1, workers or os.cpu_count() or 1)
    results: dict[int, MatchResult] = {}
    interrupted = False
    start = time.perf_counter()
    report = on_progress or (lambda done: None)
    if server is not None and t.server_bots:
        interrupted = _run_server_bots(t, fixtures, workers, server, results, report)
    elif workers == 1 and server is not None and not t.keep:
        interrupted = _run_served_here(t, fixtures, server, results, report)
    elif workers == 1:
        try:
            for f in fixtures:
                results[f.index] = play_chunk(t, [f], server)[0]
                report(len(results))
        except KeyboardInterrupt:
            interrupted = True
    else:
        interrupted = _run_pool(t, fixtures, workers, server, results, report)
    elapsed = time.perf_counter() - start
    return Run(
        t,
        tuple(fixtures),
        tuple(results[i] for i in sorted(results)),
        interrupted,
        elapsed,
        workers,
        server,
    )


def _served_context() -> Any:
    """Where workers that play through a server come from: forked from a fork server that
    imported the served path once and never touched gRPC (a gRPC client must not be forked
    from a process that has used gRPC, so not from this one). Spawned workers each imported
    it again, ~0.6 s of CPU apiece on this machine; the fork server stays for this process's
    later runs."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["kozyr.tournament.served", "kozyr.tournament.runner"])
    return context


def _pool(workers: int, served: bool) -> tuple[ProcessPoolExecutor, Any, Any]:
    """A worker pool, the event telling its served chunks to stop, the queue of ended fixtures."""
    context = _served_context() if served else multiprocessing.get_context(None)
    stop = context.Event()  # a served chunk creates no more matches once it is set
    ended = context.SimpleQueue()  # the fixtures a served chunk finished, as they end
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_quiet_worker, initargs=(stop, ended)
    )
    return pool, stop, ended


class _Harvest:
    """What the pool's chunks bring in: the results of finished chunks, and the matches heard
    to have ended (a served chunk reports each as it ends, before the chunk is done)."""

    def __init__(self, results: dict[int, MatchResult], ended: Any) -> None:
        self.results, self.ended = results, ended
        self.heard: set[int] = set()

    def collect(self, done: set[Future[list[MatchResult]]]) -> bool:
        """Keep the finished chunks' results; whether any match ended since last time."""
        before = len(self.heard)
        while not self.ended.empty():
            self.heard.add(self.ended.get())
        for future in done:
            for r in future.result():
                self.results[r.index] = r
                self.heard.add(r.index)
        return len(self.heard) > before


def _run_pool(
    t: Tournament,
    fixtures: list[Fixture],
    workers: int,
    server: str | None,
    results: dict[int, MatchResult],
    report: Callable[[int], None],
) -> bool:
    """Play the fixtures on a process pool; True if Ctrl-C stopped it.

    At most two chunks per worker are in flight (one playing, one queued), and Ctrl-C only sets
    a flag that the loop reads between short waits: a KeyboardInterrupt raised inside
    concurrent.futures' own locking could leave it deadlocked at shutdown.
    """
    size = chunk_size(t, len(fixtures), workers, served=server is not None)
    chunks = deque(enumerate(fixtures[i : i + size] for i in range(0, len(fixtures), size)))
    pool, stop, ended = _pool(workers, served=server is not None)
    stops = [0]

    def on_sigint(signum: int, frame: object) -> None:
        stops[0] += 1

    previous = _catch_sigint(on_sigint)
    running: set[Future[list[MatchResult]]] = set()
    harvest = _Harvest(results, ended)
    collect = harvest.collect

    try:
        try:
            while (chunks or running) and not stops[0]:
                while chunks and len(running) < 2 * workers:
                    k, chunk = chunks.popleft()
                    running.add(pool.submit(play_chunk, t, chunk, server, (k % workers, workers)))
                done, running = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
                if collect(done):
                    report(len(harvest.heard))
        except KeyboardInterrupt:  # raised by on_progress, or where no handler could be set
            stops[0] += 1
        if stops[0]:
            stop.set()
            try:  # let the matches in play finish and keep them, unless Ctrl-C comes again
                while running and stops[0] < 2:
                    done, running = wait(running, timeout=0.25)
                    collect(done)
            except KeyboardInterrupt:
                stops[0] += 1
            with contextlib.suppress(KeyboardInterrupt):  # a progress callback may raise it
                report(len(results))
            if running:  # a second Ctrl-C: abandon the matches in play
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.terminate()
    finally:
        _restore_sigint(previous)
        pool.shutdown(wait=not running, cancel_futures=True)
    return stops[0] > 0


def _run_served_here(
    t: Tournament,
    fixtures: list[Fixture],
    server: str,
    results: dict[int, MatchResult],
    report: Callable[[int], None],
) -> bool:
    """Play every fixture through the server from this process, as one worker would play its
    chunk: windows of matches in play (kozyr.tournament.served), not one match after another
    (each match alone on its session left it idle between a move and the next push: 384
    matches took 21-26 s against 4.3 s with two workers). True if Ctrl-C stopped it: the
    first stops creating matches and keeps those in play."""
    from kozyr.tournament.served import play_served

    stopping = threading.Event()
    lock = threading.Lock()

    def on_sigint(signum: int, frame: object) -> None:
        stopping.set()

    def heard(result: MatchResult) -> None:  # from the windows' threads
        with lock:
            results[result.index] = result
            try:
                report(len(results))
            except KeyboardInterrupt:  # raised by on_progress
                stopping.set()

    previous = _catch_sigint(on_sigint)
    try:
        play_served(t, fixtures, server, stopping.is_set, heard)
    except KeyboardInterrupt:  # where no handler could be set
        stopping.set()
    finally:
        _restore_sigint(previous)
    return stopping.is_set()


def _run_server_bots(
    t: Tournament,
    fixtures: list[Fixture],
    workers: int,
    server: str,
    results: dict[int, MatchResult],
    report: Callable[[int], None],
) -> bool:
    """The server's bots play every fixture, `workers` times serverbots.AT_ONCE in play at
    once (kozyr.tournament.serverbots); True if Ctrl-C stopped it. Ctrl-C stops creating
    matches and keeps those in play as they end; a second one leaves them."""
    from kozyr.tournament.serverbots import AT_ONCE, play_server_bots

    stops = [0]

    def on_sigint(signum: int, frame: object) -> None:
        stops[0] += 1

    def heard(result: MatchResult) -> None:
        results[result.index] = result
        try:
            report(len(results))
        except KeyboardInterrupt:  # raised by on_progress, or where no handler could be set
            stops[0] += 1

    previous = _catch_sigint(on_sigint)
    try:
        play_server_bots(
            t, fixtures, server, at_once=workers * AT_ONCE, heard=heard, stops=lambda: stops[0]
        )
    except KeyboardInterrupt:
        stops[0] += 1
    finally:
        _restore_sigint(previous)
    return stops[0] > 0


def _catch_sigint(handler: Callable[[int, object], None]) -> object:
    """Install a SIGINT handler (main thread only); the previous one, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, handler)


def _restore_sigint(previous: object) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]
