"""`kozyr loadgen`: play many concurrent, watched matches through the public API, then check them.

Every match has a random legal client (it holds every seat's token and plays whoever is to
act) and a watcher (WatchMatch from version 0) open while it plays. A SubmitMove whose outcome
is unknown (UNAVAILABLE, a missed deadline, the store full) is retried with the SAME command id,
so the server answers a repeat with the recorded result: what was acknowledged once stays
acknowledged. The run is bounded by count (matches, moves per match) and by time (--seconds, and
each match gives up after --give-up seconds without progress: it is then *stuck*).
The command's flags and its run are kozyr.cli.loadgen_command.

At the end every match's log is read back (GetMatchLog: the arbiter token, or finished matches)
and checked by `check_log`: versions 1..n with no gap, the hash chain, a fresh fold whose version
equals the highest version any client saw, and every acknowledged (command id, version) present.

An UNAVAILABLE that carries the service's ErrorInfo (the server answered: the store is away) is
*false* when the store was healthy; with no store probe the store is assumed healthy throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.tools.log_check import LogCheck, check_log
from kozyr.wire.errorinfo import error_info

if TYPE_CHECKING:  # the async stub type exists only in the .pyi
    from kozyr._proto.kozyr.v1.kozyr_pb2_grpc import KozyrServiceAsyncStub as Stub

StoreProbe = Callable[[], Awaitable[bool]]

# Codes after which the outcome of a call is unknown or the refusal is temporary: repeat it.
# (CANCELLED here is never ours - ours raises asyncio.CancelledError - but a dropped stream.)
RETRIED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.CANCELLED,
    }
)
# A restarted server should be found again within our own backoff, not grpc's 1 s and more.
CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.use_local_subchannel_pool", 1),  # each channel its own connection
)
MATCHES_PER_CHANNEL = 100


@dataclass
class LoadConfig:
    """What one run plays and how long it may take."""

    server: str
    matches: int = 100
    concurrency: int = 50
    game: str = "dix"
    moves_per_match: int = 5
    seconds: float = 60.0
    seed: int = 0
    arbiter_token: str | None = None
    deadline: float = 5.0
    give_up: float = 20.0
    ramp: float = 30.0
    channels: int = 0

    def __post_init__(self) -> None:
        for name in ("matches", "concurrency", "moves_per_match"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
        if not (self.seconds > 0 and self.deadline > 0 and self.give_up > 0):
            raise ValueError("--seconds, the deadline and --give-up must be positive")


@dataclass
class MatchTrack:
    """What the clients of one match did and saw."""

    slot: int
    match_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    acked: dict[str, tuple[int, int]] = field(default_factory=dict)  # command id -> seat, version
    seen: int = 0
    watched: int = 0
    watch_gaps: int = 0
    view: Any = None  # the watcher's latest view: where the client starts playing
    stuck: bool = False
    finished: bool = False


@dataclass
class Stats:
    """Counters of a run, readable while it goes on (the fault drills watch `acked`)."""

    requests: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)  # the first details of each error
    latencies: list[float] = field(default_factory=list)
    acks: list[tuple[float, float]] = field(default_factory=list)  # (sent, answered), monotonic
    false_unavailable: int = 0
    watching: int = 0
    peak_watching: int = 0

    @property
    def acked(self) -> int:
        """Moves acknowledged so far."""
        return len(self.acks)


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost (with a port), or a unix socket."""
    if address.startswith("unix:"):
        return True
    host = address.rsplit(":", 1)[0] if address.count(":") == 1 or "]" in address else address
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _code_reason(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    info = error_info(error)
    return error.code(), (info.reason if info is not None else "")


class LoadGen:
    """One run: `await run()` plays, checks and returns the report; `stop_soon` may end it early
    (safe from another thread)."""

    def __init__(self, config: LoadConfig, store_healthy: StoreProbe | None = None) -> None:
        self.config = config
        self.store_healthy = store_healthy
        self.stats = Stats()
        self.tracks = [MatchTrack(slot) for slot in range(config.matches)]
        self.rng = random.Random(config.seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = 0
        self._all_ready: asyncio.Event | None = None
        self._started = 0.0
        self._players = 2
        self._run_id = uuid.uuid4().hex[:8]  # request ids of two runs never meet

    def stop_soon(self) -> None:
        """Ask the run to stop starting moves (thread-safe); the checks still run."""
        loop = self._loop
        if loop is not None and self._stop is not None and not loop.is_closed():
            # The run may end (and close its loop) between the check and the call: then
            # there is nothing left to stop.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._stop.set)

    @property
    def stopping(self) -> bool:
        """True once the time is up or a stop was asked for."""
        return self._stop is not None and self._stop.is_set()

    async def run(self) -> dict[str, Any]:
        """Play every match, check every log, and return the report."""
        cfg = self.config
        self._loop = asyncio.get_running_loop()
        self._stop, self._all_ready = asyncio.Event(), asyncio.Event()
        self._started = time.monotonic()
        count = cfg.channels or min(
            32, -(-min(cfg.concurrency, cfg.matches) // MATCHES_PER_CHANNEL)
        )
        channels = [
            grpc.aio.insecure_channel(cfg.server, options=CHANNEL_OPTIONS) for _ in range(count)
        ]
        stubs: list[Stub] = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in channels]
        timer = self._loop.call_later(cfg.seconds, self._stop.set)
        gate = asyncio.Semaphore(cfg.concurrency)
        try:
            await self._learn_players(stubs[0])
            drivers = [
                asyncio.create_task(self._drive(stubs[t.slot % count], t, gate))
                for t in self.tracks
            ]
            # Drivers end by themselves within seconds + give-up; the cap is a second bound.
            _, late = await asyncio.wait(drivers, timeout=cfg.seconds + 2 * cfg.give_up + 30)
            for task in late:
                task.cancel()
            await asyncio.gather(*drivers, return_exceptions=True)
            played = time.monotonic() - self._started
            checks = await self._check_all(stubs[0])
        finally:
            timer.cancel()
            for channel in channels:
                await channel.close()
        return self._report(played, checks)

    # ------------------------------------------------------------------ calls

    async def _call(
        self,
        track: MatchTrack,
        method: Callable[..., Awaitable[Any]],
        request: Any,
        auth: Sequence[tuple[str, str]] = (),
        *,
        playing: bool = True,
        timeout: float | None = None,
    ) -> Any:
        """One call, repeated while its failure is temporary; None when it could not be made.

        A repeat sends the same request (same command id), so it cannot act twice. A client
        that tries for `give_up` seconds without an answer marks its match stuck.
        """
        rpc = type(request).__name__.removesuffix("Request")
        cfg = self.config
        began, pause = time.monotonic(), 0.05
        while True:
            self.stats.requests[rpc] += 1
            sent = time.monotonic()
            try:
                answer = await method(
                    request, metadata=tuple(auth), timeout=timeout or cfg.deadline
                )
            except grpc.aio.AioRpcError as e:
                code, reason = _code_reason(e)
                self._count(f"{rpc} {code.name} {reason or '-'}", e)
                if code == grpc.StatusCode.UNAVAILABLE and reason:
                    await self._judge_unavailable()
                if code not in RETRIED:
                    return None
            else:
                if rpc == "SubmitMove":
                    done = time.monotonic()
                    self.stats.latencies.append(done - sent)
                    self.stats.acks.append((sent, done))
                return answer
            waited = time.monotonic() - began
            if waited >= cfg.give_up or (self.stopping and waited >= cfg.deadline):
                track.stuck = track.stuck or (playing and not self.stopping)
                return None
            await asyncio.sleep(pause * (0.5 + self.rng.random()))
            pause = min(1.0, pause * 2)

    def _count(self, key: str, error: grpc.aio.AioRpcError) -> None:
        self.stats.errors[key] += 1
        self.stats.samples.setdefault(key, str(error.details())[:200])

    async def _judge_unavailable(self) -> None:
        healthy = True if self.store_healthy is None else await self.store_healthy()
        if healthy:
            self.stats.false_unavailable += 1

    # ------------------------------------------------------------------ one match

    async def _learn_players(self, stub: Stub) -> None:
        """The game's fewest seats, from ListGames (an unknown game is refused by CreateMatch)."""
        games = await self._call(
            MatchTrack(-1), stub.ListGames, pb.ListGamesRequest(), playing=False
        )
        for game in games.games if games is not None else ():
            if game.name == self.config.game:
                self._players = game.min_players

    async def _drive(self, stub: Stub, track: MatchTrack, gate: asyncio.Semaphore) -> None:
        async with gate:
            if self.stopping or not await self._create(stub, track):
                return
            watcher = asyncio.create_task(self._watch(stub, track))
            try:
                await self._ramp(track)
                await self._play(stub, track)
                await self._settle(track)
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)

    async def _create(self, stub: Stub, track: MatchTrack) -> bool:
        cfg = self.config
        names = [pb.SeatRequest(name=f"p{i}") for i in range(self._players)]
        request = pb.CreateMatchRequest(
            game=cfg.game, seats=names, request_id=f"loadgen-{self._run_id}-{track.slot}"
        )
        created = await self._call(track, stub.CreateMatch, request, playing=False)
        if created is None:
            return False
        track.match_id = created.match_id
        track.tokens = {t.seat: t.token for t in created.tokens}
        track.seen = max(track.seen, created.version)
        return True

    async def _ramp(self, track: MatchTrack) -> None:
        """The first wave waits until all its matches are watched, so they are watched at once."""
        assert self._all_ready is not None
        deadline = time.monotonic() + self.config.ramp
        while track.watched < 1 and time.monotonic() < deadline and not self.stopping:
            await asyncio.sleep(0.05)
        self._ready += 1
        if self._ready >= min(self.config.concurrency, self.config.matches):
            self._all_ready.set()
        left = deadline - time.monotonic()
        if left > 0 and not self.stopping:
            try:
                await asyncio.wait_for(self._all_ready.wait(), left)
            except TimeoutError:
                self._all_ready.set()  # one slow match does not hold the whole run

    async def _play(self, stub: Stub, track: MatchTrack) -> None:
        cfg = self.config
        view = track.view or await self._view(stub, track)
        moves = 0
        while view is not None and moves < cfg.moves_per_match and not self.stopping:
            if view.status == pb.MATCH_STATUS_FINISHED or not view.HasField("to_act"):
                track.finished = view.status == pb.MATCH_STATUS_FINISHED
                return
            seat = view.to_act
            auth = (("authorization", f"Bearer {track.tokens[seat]}"),)
            legal = await self._call(
                track, stub.ListLegalMoves, pb.ListLegalMovesRequest(match_id=track.match_id), auth
            )
            if legal is None:
                return
            if not legal.moves:  # the view was stale: look again
                view = await self._view(stub, track)
                continue
            command_id = f"lg{cfg.seed}-{track.slot}-{moves}-{self.rng.getrandbits(32):08x}"
            request = pb.SubmitMoveRequest(
                match_id=track.match_id,
                command_id=command_id,
                move=self.rng.choice(list(legal.moves)),
            )
            answer = await self._call(track, stub.SubmitMove, request, auth)
            moves += 1
            if answer is None:
                view = None if track.stuck else await self._view(stub, track)
                continue
            track.acked[command_id] = (seat, answer.version)
            track.seen = max(track.seen, answer.version)
            view = answer.view

    async def _view(self, stub: Stub, track: MatchTrack) -> pb.MatchView | None:
        answer = await self._call(track, stub.GetMatch, pb.GetMatchRequest(match_id=track.match_id))
        if answer is None:
            return None
        track.seen = max(track.seen, answer.view.version)
        view: pb.MatchView = answer.view
        return view

    async def _settle(self, track: MatchTrack) -> None:
        """Let the watcher catch up with what the client saw (bounded)."""
        for _ in range(int(self.config.give_up / 0.05)):
            if track.watched >= track.seen or (self.stopping and track.watched == 0):
                return
            await asyncio.sleep(0.05)

    async def _watch(self, stub: Stub, track: MatchTrack) -> None:
        """Watch from version 0, resuming after the last version after a dropped stream."""
        auth = (("authorization", f"Bearer {track.tokens[0]}"),) if 0 in track.tokens else ()
        counted = over = False
        try:
            while True:  # ends when the driver cancels it
                self.stats.requests["WatchMatch"] += 1
                try:
                    async for update in stub.WatchMatch(
                        pb.WatchMatchRequest(match_id=track.match_id, from_version=track.watched),
                        metadata=auth,
                    ):
                        if update.version != track.watched + 1:
                            track.watch_gaps += 1
                        track.watched = max(track.watched, update.version)
                        track.seen = max(track.seen, update.version)
                        over = update.view.status == pb.MATCH_STATUS_FINISHED
                        track.view = update.view
                        if not counted:
                            counted = True
                            self.stats.watching += 1
                            self.stats.peak_watching = max(
                                self.stats.peak_watching, self.stats.watching
                            )
                    if over:
                        await asyncio.sleep(3600)  # the stream ended with the match
                except grpc.aio.AioRpcError as e:
                    code, reason = _code_reason(e)
                    self._count(f"WatchMatch {code.name} {reason or '-'}", e)
                await asyncio.sleep(0.1 + 0.2 * self.rng.random())
        finally:
            if counted:
                self.stats.watching -= 1

    # ------------------------------------------------------------------ the checks

    async def _check_all(self, stub: Stub) -> dict[str, LogCheck | None]:
        gate = asyncio.Semaphore(32)
        created = [t for t in self.tracks if t.match_id]

        async def one(track: MatchTrack) -> tuple[str, LogCheck | None]:
            async with gate:
                return track.match_id, await self._check_one(stub, track)

        return dict(await asyncio.gather(*(one(t) for t in created)))

    async def _check_one(self, stub: Stub, track: MatchTrack) -> LogCheck | None:
        token = self.config.arbiter_token
        if token is None and not track.finished:
            return None  # only the arbiter may read an unfinished match's log
        auth = (("authorization", f"Bearer {token}"),) if token else ()
        answer = await self._call(
            track,
            stub.GetMatchLog,
            pb.GetMatchLogRequest(match_id=track.match_id),
            auth,
            playing=False,
            timeout=max(self.config.deadline, 10.0),
        )
        if answer is None:
            return LogCheck(0, len(track.acked), ("the log could not be read",))
        rows = [(e.version, e.canonical_json, e.hash) for e in answer.entries]
        return check_log(rows, track.acked, track.seen)

    def _report(self, played: float, checks: Mapping[str, LogCheck | None]) -> dict[str, Any]:
        stats, done = self.stats, [c for c in checks.values() if c is not None]
        lat = sorted(stats.latencies)

        def pct(p: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else None

        problems = {m: list(c.problems) for m, c in checks.items() if c and c.problems}
        return {
            "matches": len(checks),
            "matches_checked": len(done),
            "matches_finished": sum(t.finished for t in self.tracks),
            "moves_acknowledged": stats.acked,
            "seconds": round(played, 2),
            "moves_per_second": round(stats.acked / played, 1) if played > 0 else 0.0,
            "submit_latency_ms": {"p50": pct(0.50), "p90": pct(0.90), "p99": pct(0.99)},
            "requests": dict(stats.requests),
            "errors": dict(stats.errors),
            "error_samples": dict(stats.samples),
            "false_unavailable": stats.false_unavailable,
            "peak_watched_matches": stats.peak_watching,
            "watch_gaps": sum(t.watch_gaps for t in self.tracks),
            "acknowledged_lost": sum(c.lost for c in done),
            "matches_corrupted": sum(c.corrupted for c in done),
            "matches_stuck": sum(t.stuck for t in self.tracks),
            "problems": dict(list(problems.items())[:20]),
        }


async def redis_probe(url: str, timeout: float = 0.5) -> StoreProbe:
    """A store probe that PINGs the Redis at `url` (unhealthy when it does not answer soon)."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)

    async def healthy() -> bool:
        try:
            return bool(await asyncio.wait_for(client.ping(), timeout))
        except Exception:  # any failure to answer means "not healthy" here
            return False

    return healthy
