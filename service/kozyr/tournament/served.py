"""Playing tournament matches through a Kozyr server over PlaySession streams.

`kozyr tournament --server ADDR`: each worker plays its chunk over `SESSIONS` connections or
more (remote.lane_connections: the run's workers share out every process of `kozyr serve
--workers N` among them, each process at least one session), one PlaySession each, with a window
of `AT_ONCE` matches in play on it: the matches are created in CreateMatches batches of `BATCH`
on the connection that plays them (the process that created a match holds its record for every
move), their seats added to the running session, and each batch that ends makes room for the
next. A session carrying many matches gets many decisions per message, and a message costs both
sides far more than a decision in it: 16 matches per session pushed ~4.5 decisions a message,
128 ~14, with about half the CPU per move on both sides (/tmp harness, 2026-12-03).

Each match is a real, stored match with the fixture's deal prearranged (or dealt by the server
with `deals="seeded"`, see kozyr.tournament.remote). The server pushes each decision (the seat's
view, its legal moves and the events it was sent since its last decision), the seat's bot
answers. Each seat still sees only what its own token is sent: its view is the one the server
sends it (`game_views`: the rules' view of the seat, the value an in-process bot is given;
rebuilding it from the events and checking it against the table, as over unary calls, was about
a quarter of a client's CPU per decision), its history its own events. With `--save-dir` (a
seat's receipts are kept) the matches are played as in remote.py.

With `--server-bots` no client plays: see kozyr.tournament.serverbots.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots import make_bot, parse_spec
from kozyr.games import get_game
from kozyr.tournament.remote import EventReader, SeatMind, lane_connections, prearranged
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr.tournament.spec import MatchResult, Tournament
from kozyr_client import Created, KozyrClient, KozyrError, PlaySession, match_request
from kozyr_client.client import CONTRIBUTION_WINDOW_MS

SESSIONS = 2  # sessions (connections) a worker plays its chunk over, each in a thread
AT_ONCE = 128  # matches in play on one session (128 used ~6 % less CPU a move than 64)
BATCH = 16  # matches per CreateMatches call: the window refills in steps of this many


@dataclass
class WindowGauge:
    """What this process's windows did, counted (tests and benches read it): each match in
    play holds one decision in flight (its seat to act, waiting on the server or on us).

    `windows` opened, `matches` created, `peak` the most in play on one window, `starved`
    how often a window's last match in play ended while it still had fixtures to create (its
    session then had no decision in flight at all: the stall a window exists to avoid), and
    `by_process` the matches created on each server process (by its tag), which plays them."""

    windows: int = 0
    matches: int = 0
    peak: int = 0
    starved: int = 0
    by_process: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def opened(self) -> None:
        """A window started playing."""
        with self._lock:
            self.windows += 1

    def created(self, count: int, in_play: int, process: str) -> None:
        """`count` matches were created on a window on server process `process`, which now
        has `in_play`."""
        with self._lock:
            self.matches += count
            self.by_process[process] += count
            self.peak = max(self.peak, in_play)

    def ended(self, in_play: int, pending: int) -> None:
        """A match ended on a window, leaving `in_play` there and `pending` to create."""
        if not in_play and pending:
            with self._lock:
                self.starved += 1

    def reset(self) -> None:
        """Start counting afresh."""
        with self._lock:
            self.windows = self.matches = self.peak = self.starved = 0
            self.by_process.clear()


GAUGE = WindowGauge()  # this process's windows, all of them


def play_served(
    t: Tournament,
    fixtures: Sequence[Fixture],
    address: str,
    stopping: Callable[[], bool] = lambda: False,
    heard: Callable[[MatchResult], object] = lambda r: None,
    lane: tuple[int, int] = (0, 1),
) -> list[MatchResult]:
    """Play `fixtures` as real matches on the server at `address`: dealt round robin over
    this worker's sessions, each group played by a windowed session of its own; each result
    goes to `heard` as its match ends. Once `stopping()` is true no more matches are created:
    those in play finish, and the results are the fixtures played.

    `lane` is (this worker's number, the run's workers): the worker plays `SESSIONS`
    sessions, or more where the server has more processes than the run's workers have
    sessions, on its own share of the server's processes (remote.lane_connections), so that
    every process of `kozyr serve --workers N` plays."""
    clients = lane_connections(address, *lane, SESSIONS)
    dealt = [g for k in range(len(clients)) if (g := list(fixtures[k :: len(clients)]))]

    def play(client: KozyrClient, group: list[Fixture]) -> list[MatchResult]:
        return _Window(t, client).play(group, stopping, heard)

    with ThreadPoolExecutor(max(1, len(dealt))) as threads:
        by_index = {r.index: r for rs in threads.map(play, clients, dealt) for r in rs}
    return [by_index[f.index] for f in fixtures if f.index in by_index]


def create_all(client: KozyrClient, requests: Sequence[pb.CreateMatchRequest]) -> list[Created]:
    """Create every request in CreateMatches calls; one refused with UNAVAILABLE alone
    (STORE_UNAVAILABLE under load: the call answered, that match's append did not) is sent
    again after a pause (the client's backoff) with its own request id, which answers the
    same match if it was made after all. Any other refusal is raised."""
    made: list[Created | KozyrError] = list(client.create_matches(requests))
    delays = client.backoff.delays()
    while again := [k for k, m in enumerate(made) if _unavailable(m)]:
        delay = next(delays, None)
        if delay is None:
            break
        time.sleep(delay)  # backing off, in the thread that creates
        for k, m in zip(again, client.create_matches([requests[k] for k in again]), strict=True):
            made[k] = m
    for m in made:
        if isinstance(m, KozyrError):
            raise m
    return [m for m in made if not isinstance(m, KozyrError)]


def _unavailable(made: Created | KozyrError) -> bool:
    return isinstance(made, KozyrError) and made.code == grpc.StatusCode.UNAVAILABLE


def request_of(t: Tournament, fixture: Fixture, bots: Sequence[str] = ()) -> pb.CreateMatchRequest:
    """The CreateMatch request of the fixture: its deal prearranged (the in-process deal), or
    with `deals="seeded"` the server's seed and each seat's contribution, given after the
    commitment (KozyrClient.contribute_seats): a fair deal."""
    game = get_game(t.game)
    names = [t.seat_names[p] for p in fixture.lineup]
    if t.deals == "seeded":
        return match_request(
            game.NAME,
            names,
            dict(t.options),
            bots=list(bots) or None,
            contribution_window_ms=CONTRIBUTION_WINDOW_MS,
        )
    config = game.make_config(dict(t.options), len(names))
    first, decks, dice = prearranged(game, config, names, deal_seed(t.master, fixture.deal))
    return match_request(
        game.NAME,
        names,
        dict(t.options),
        first_dealer=first,
        prearranged_decks=decks,
        prearranged_dice=dice,
        bots=list(bots) or None,
    )


class _Window:
    """One connection's session: `AT_ONCE` matches in play, refilled in batches as they end.

    The session runs in a thread of its own; this thread creates the batches and waits for
    endings, which the session hands over on `ended` (with any error that stopped it)."""

    def __init__(self, t: Tournament, client: KozyrClient) -> None:
        self.t = t
        self.game = get_game(t.game)
        self.client = client
        self.process = client.server_process()  # the server process that plays its matches
        self.minds: dict[tuple[str, int], SeatMind] = {}
        self.reader = EventReader(self.game)  # shared by the window's seats
        self.fixtures: dict[str, Fixture] = {}
        self.open: dict[str, int] = {}  # match id -> seats not finished yet
        self.finals: dict[str, pb.MatchView] = {}
        self.ended: queue.SimpleQueue[str | BaseException] = queue.SimpleQueue()
        # None is kept without --save-dir; each seat's final push still carries one.
        self.session = PlaySession(
            client, self._choose, on_event=self._heard, receipts=False, game_views=True
        )

    def play(
        self,
        fixtures: Sequence[Fixture],
        stopping: Callable[[], bool],
        heard: Callable[[MatchResult], object],
    ) -> list[MatchResult]:
        """Play the fixtures (no more once `stopping()`); the results in the order the
        matches ended."""
        pending, results = deque(fixtures), []
        runner = threading.Thread(target=self._run, daemon=True)
        runner.start()
        GAUGE.opened()
        try:
            playing = 0
            while (pending and not stopping()) or playing:
                while pending and not stopping() and playing + min(BATCH, len(pending)) <= AT_ONCE:
                    batch = [pending.popleft() for _ in range(min(BATCH, len(pending)))]
                    self._create(batch)
                    playing += len(batch)
                    GAUGE.created(len(batch), playing, self.process)
                item = self.ended.get()
                if isinstance(item, BaseException):
                    raise item
                playing -= 1
                GAUGE.ended(playing, len(pending))
                results.append(self._result(item))
                heard(results[-1])
        finally:
            self.session.close()
            runner.join()
        return results

    def _run(self) -> None:
        try:
            self.session.run(until_closed=True)
        except BaseException as e:  # handed to the creating thread, which raises it there
            self.ended.put(e)

    def _create(self, batch: list[Fixture]) -> None:
        t, game = self.t, self.game
        made = create_all(self.client, [request_of(t, f) for f in batch])
        if t.deals == "seeded":  # after the commitment: a deal the server could not choose
            for created in made:
                self.client.contribute_seats(created)
        seats = []
        for fixture, created in zip(batch, made, strict=True):
            match_id = created.match_id
            self.fixtures[match_id] = fixture
            self.open[match_id] = len(fixture.lineup)
            for s, p in enumerate(fixture.lineup):
                bot = make_bot(
                    parse_spec(t.players[p]), game, s, bot_seed(t.master, fixture.index, s)
                )
                self.minds[(match_id, s)] = SeatMind(game, s, bot, self.reader)
                seats.append((match_id, s, created.tokens[s], 0))
        self.session.add_many(seats)

    def _choose(self, decision: pb.Decision) -> pb.Move:
        mind = self.minds[(decision.match_id, decision.seat)]
        mind.heard(decision.events)
        return mind.choose(decision.view, decision.moves, decision.game_view_json)

    def _heard(self, push: pb.Decision | pb.SeatFinished) -> None:
        """From the session's thread: a seat finished; its match ended once all of them did."""
        if not isinstance(push, pb.SeatFinished):
            return
        match_id = push.match_id
        self.finals.setdefault(match_id, push.view)
        self.open[match_id] -= 1
        if not self.open[match_id]:
            self.ended.put(match_id)

    def _result(self, match_id: str) -> MatchResult:
        fixture, final = self.fixtures.pop(match_id), self.finals.pop(match_id)
        del self.open[match_id]
        minds = [self.minds.pop((match_id, s)) for s in range(len(fixture.lineup))]
        return MatchResult(
            fixture.index,
            fixture.deal,
            fixture.lineup,
            tuple(final.outcome.winners),
            tuple(final.outcome.scores),
            sum(m.moves for m in minds),
            final.outcome.reason,
            match_id=match_id,
        )


def seeded(spec: str, seed: int) -> str:
    """The bot spec with the seed the in-process tournament would give that bot."""
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"
