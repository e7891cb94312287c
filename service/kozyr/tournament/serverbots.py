"""`kozyr tournament --server ADDR --server-bots`: the server's own bots play every seat.

No client plays: the matches are created in CreateMatches batches with a bot named for every
seat (SeatRequest.bot; kozyr.actors.seatbots plays them inside the server, in runs appended as
one), and each result is the match's match.ended event on the tenant's feed (WatchEvents): no
call per match. A window of `at_once` matches is kept in play: as each one ends, the next batch
is created, so the server never waits for the slowest match of a chunk.

The batches go round robin over one connection to each process of `kozyr serve --workers N`
(remote.every_process), and each match is played by the process that created it, so every
process plays. One feed is read per server process, opened before the first match: a process
rings its own watchers the moment it commits an ending, so each end is heard at once on the feed
of the process that played it (another process's commits reach a feed only at its next poll).
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.match.phases import ENDED
from kozyr.tournament.remote import every_process
from kozyr.tournament.schedule import Fixture, bot_seed
from kozyr.tournament.served import create_all, request_of, seeded
from kozyr.tournament.spec import MatchResult, Tournament
from kozyr_client import Backoff, Feed, KozyrClient, KozyrError

BATCH = 16  # matches per CreateMatches call: the window refills in steps of this many
AT_ONCE = 64  # matches in play per worker (`--workers N`: N times as many)
POLL_S = 0.25  # how often the wait for an ending looks at `stops`


def play_server_bots(
    t: Tournament,
    fixtures: Sequence[Fixture],
    address: str,
    *,
    at_once: int = AT_ONCE,
    heard: Callable[[MatchResult], None] | None = None,
    stops: Callable[[], int] = lambda: 0,
) -> list[MatchResult]:
    """Play `fixtures` on the server at `address` with its own bots on every seat, `at_once`
    in play; each result goes to `heard` as it comes. Once `stops()` is 1 no match is
    created any more and those in play are waited for; at 2 the rest are left. The results
    heard, in the fixtures' order."""
    clients = every_process(address)
    ended: queue.Queue[Heard] = queue.Queue()
    feeds = [ResultsFeed(c, ended) for c in clients]
    results: dict[int, MatchResult] = {}

    def done(result: MatchResult) -> None:
        results[result.index] = result
        if heard is not None:
            heard(result)

    try:
        _play(t, deque(fixtures), clients, ended, max(1, at_once), done, stops)
    finally:
        for feed in feeds:
            feed.close()
    return [results[f.index] for f in fixtures if f.index in results]


# The matches this process had created on each server process (by its tag), which plays them.
PLAYED_BY: Counter[str] = Counter()
Heard = pb.TenantEvent | BaseException | dict[str, Fixture]  # an end, an error, a batch made
EARLY = 100_000  # ends kept of matches not known yet (a batch's answer not read yet)


def _play(
    t: Tournament,
    pending: deque[Fixture],
    clients: list[KozyrClient],
    heard: queue.Queue[Heard],
    at_once: int,
    done: Callable[[MatchResult], None],
    stops: Callable[[], int],
) -> None:
    """Keep `at_once` matches in play, their batches created on the connections in turn, each
    call in a thread (a call answers once its matches are made, and the server plays the first
    ones meanwhile), until every fixture is done or `stops` says otherwise."""
    playing: dict[str, Fixture] = {}
    early: OrderedDict[str, pb.TenantEvent] = OrderedDict()
    making = 0  # matches of batches asked for and not answered yet
    turn = itertools.cycle([(c, c.server_process()) for c in clients])

    def make(client: KozyrClient, process: str, batch: list[Fixture]) -> None:
        try:
            made = create_with_bots(client, t, batch)
            PLAYED_BY[process] += len(made)
            heard.put(made)
        except BaseException as e:  # handed to the loop, which raises it there
            heard.put(e)

    with ThreadPoolExecutor(len(clients)) as threads:
        while (pending and not stops()) or ((playing or making) and stops() < 2):
            room = at_once - len(playing) - making
            while pending and not stops() and room >= min(BATCH, at_once, len(pending)):
                batch = [pending.popleft() for _ in range(min(BATCH, room, len(pending)))]
                making += len(batch)
                room -= len(batch)
                threads.submit(make, *next(turn), batch)
            try:
                item = heard.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, dict):
                making -= len(item)
                for match_id, fixture in item.items():
                    if match_id in early:
                        done(_result(fixture, early.pop(match_id)))
                    else:
                        playing[match_id] = fixture
                continue
            mine = playing.pop(item.match_id, None)
            if mine is not None:
                done(_result(mine, item))
            elif making:  # perhaps a match of a batch whose answer is on its way
                early[item.match_id] = item
                while len(early) > EARLY:
                    early.popitem(last=False)


def create_with_bots(
    client: KozyrClient, t: Tournament, batch: list[Fixture]
) -> dict[str, Fixture]:
    """Create `batch` with the server's bots on every seat: its fixtures by match id."""
    requests = [
        request_of(
            t,
            f,
            [seeded(t.players[p], bot_seed(t.master, f.index, s)) for s, p in enumerate(f.lineup)],
        )
        for f in batch
    ]
    return {
        created.match_id: fixture
        for fixture, created in zip(batch, create_all(client, requests), strict=True)
    }


class ResultsFeed:
    """One server process's feed of match endings, read in a thread of its own into `into`
    (an error that ends it too). A feed that fails with UNAVAILABLE (STORE_UNAVAILABLE under
    load, a server restarting) or that the server ends is opened again after the cursor of
    its last event, after a pause (`backoff`, fresh after each event heard): no end is
    missed or heard twice. Opened before the first match, so no end comes before it."""

    def __init__(
        self, client: KozyrClient, into: queue.Queue[Heard], backoff: Backoff | None = None
    ) -> None:
        self.client = client
        self.into = into
        self.backoff = backoff or client.backoff
        self.feed: Feed | _Failed = client.feed("$", [ENDED])
        self.cursor = self.feed.start if isinstance(self.feed, Feed) else ""
        self.reopened = 0  # how often the feed was opened again
        self._closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def close(self) -> None:
        """Stop reading."""
        self._closed = True
        self.feed.close()

    def _read(self) -> None:
        delays = self.backoff.delays()
        while not self._closed:
            try:
                for event in self.feed:
                    self.cursor = event.cursor
                    self.into.put(event)
                    delays = self.backoff.delays()
                error = KozyrError(
                    grpc.StatusCode.UNAVAILABLE, "FEED_ENDED", "the server ended the feed"
                )
            except KozyrError as e:
                error = e
            except BaseException as e:  # handed to the loop, which raises it there
                self.into.put(e)
                return
            if self._closed:
                return
            delay = next(delays, None)
            if error.code != grpc.StatusCode.UNAVAILABLE or delay is None:
                self.into.put(error)
                return
            time.sleep(delay)  # backing off, in the feed's own thread
            self._reopen()

    def _reopen(self) -> None:
        """The feed again after the last event read (a failure is read like the feed's)."""
        try:
            self.feed = self.client.feed(self.cursor, [ENDED])
        except KozyrError as e:
            self.feed = _Failed(e)
        self.reopened += 1


class _Failed:
    """A feed that could not be opened: iterating it raises why."""

    def __init__(self, error: KozyrError) -> None:
        self.error = error

    def __iter__(self) -> Iterator[pb.TenantEvent]:
        raise self.error

    def close(self) -> None:
        """Nothing to end."""


def _result(fixture: Fixture, event: pb.TenantEvent) -> MatchResult:
    outcome = event.outcome
    return MatchResult(
        fixture.index,
        fixture.deal,
        fixture.lineup,
        tuple(outcome.winners),
        tuple(outcome.scores),
        event.version - 1,
        outcome.reason,
        match_id=event.match_id,
    )
