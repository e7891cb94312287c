"""Playing one tournament match through a Kozyr server: every bot is a real gRPC client.

The organiser creates a real, stored match (CreateMatch with one named seat per player). Then
each seat runs in its own thread with its own client channel and its own seat token, and sees
only what the server sends that token:
- the events of WatchMatch (already redacted for the seat; JSON decoded back into the game's
  event classes with kozyr.games.codec; the service's own events are skipped);
- its legal moves from ListLegalMoves, converted back into the game's commands.
The seat's view is rebuilt from those events (kozyr.bots.info: the same code the search uses)
and checked field by field against the table the server sent in the same update, so the bot's
observation is exactly the in-process one, and a divergence stops the tournament loudly. (A
PlaySession seat can be sent the rules' view itself instead: see served.py.)

Duplicate deals through a server: the server draws its own seed, so the fixture's deal is
passed as prearranged decks (docs/rules.md R-3) — the decks the rules derive from the deal's match
seed (kozyr.core.fairness, checked against the rules' own first deal) for the first
`MAX_PREARRANGED` hands or games — with Durak's die rolls (`prearranged_dice`) and its first
dealer (the lot). Served matches are then the very matches played in-process. With
``deals="seeded"`` the server deals from its own committed seed and one contribution per seat
instead: fair random deals, which a duplicate format then no longer repeats.
"""

from __future__ import annotations

import threading
import typing
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots import Bot, Seat, make_bot, parse_spec
from kozyr.bots.info import seat_info
from kozyr.core import jsontext
from kozyr.core.cards import deck
from kozyr.core.fairness import RandomStream, deal_label, dice_label
from kozyr.games import get_game
from kozyr.games.codec import Registry, class_of, decode_as
from kozyr.games.contract import AnyGame, Dealt, FirstDealerChosen
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr.tournament.spec import MatchResult, Tournament
from kozyr.wire import convert
from kozyr_client import KozyrClient, SeatClient, Watch
from kozyr_client.moves import GAME_FIELD

MAX_PREARRANGED = 64  # hands/games whose decks are sent; later ones come from the server seed

# One client (channel) per address and seat position, per process, reused across matches.
_CLIENTS: dict[tuple[str, int], KozyrClient] = {}
_LOCK = threading.Lock()
# One connection to each server process behind an address (`kozyr serve --workers N` has N on
# one port, and the kernel hands each new connection to one of them at random): probes go on
# until `QUIET` × the processes found (at least `QUIET_MIN`) in a row found no new one, at most
# `PROBES`. With N processes the chance that one is still unseen is about N·e^(-QUIET): 16
# processes and QUIET 5 miss one about one time in ten; the sessions then skip it.
QUIET, QUIET_MIN, PROBES = 5, 16, 256
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)  # a channel's own TCP connection
_PROCESSES: dict[str, list[KozyrClient]] = {}


def client_for(address: str, slot: int) -> KozyrClient:
    """This process's client for `address`: one per seat position (slot -1: the organiser)."""
    with _LOCK:
        client = _CLIENTS.get((address, slot))
        if client is None:
            client = _CLIENTS[(address, slot)] = KozyrClient(address)
        return client


def every_process(address: str) -> list[KozyrClient]:
    """This process's connections to `address`, one to each server process behind it found,
    ordered by the process's tag (ListGamesResponse.process), which every client process sees
    alike: lane k of W can then take its own share of them (served.py)."""
    with _LOCK:
        found = _PROCESSES.get(address)
        if found is None:
            found = _PROCESSES[address] = _probe(address)
        return found


def _probe(address: str) -> list[KozyrClient]:
    by_process: dict[str, KozyrClient] = {}
    quiet = probes = 0
    while probes < PROBES and quiet < max(QUIET_MIN, QUIET * len(by_process)):
        client = KozyrClient(address, options=[OWN_CONNECTION])
        probes += 1
        try:
            tag = client.server_process()
        except BaseException:  # the server is away: close what was opened, say so
            for c in [client, *by_process.values()]:
                c.close()
            raise
        if tag in by_process:
            client.close()
            quiet += 1
        else:
            by_process[tag], quiet = client, 0
    return [by_process[tag] for tag in sorted(by_process)]


def lane_connections(address: str, lane: int, lanes: int, least: int) -> list[KozyrClient]:
    """The connections lane `lane` of `lanes` (a client worker of a run) plays on: at least
    `least`, and enough that the run's lanes together reach every server process, lane k
    taking the processes after lane k-1's, so N processes are shared evenly by the lanes."""
    processes = every_process(address)
    count = max(least, -(-len(processes) // max(1, lanes)))
    return [processes[(lane * count + j) % len(processes)] for j in range(count)]


# ---------------------------------------------------------------------------- deals


def prearranged(
    game: AnyGame, config: Any, players: list[str], seed: bytes
) -> tuple[int, list[str], list[str]]:
    """The first dealer, the deck texts and (Durak) the die rolls the rules would derive from
    `seed` (see above)."""
    # The rules' own opening gives the first dealer and the first deal; later hands' decks
    # are derived as the rules would, after checking that derivation on the first one.
    opening = game.start(config, players, seed)
    lot = next(e for e in opening if isinstance(e, FirstDealerChosen))
    dealt = next(e for e in opening if isinstance(e, Dealt))
    size = len(dealt.deck)
    # Dix and Six Dozens count hands, Durak games (each game's own option).
    count = (
        1
        if getattr(config, "single_hand", False)
        else min(MAX_PREARRANGED, max(getattr(config, "max_hands", 1), getattr(config, "games", 1)))
    )
    decks = [dealt.deck]
    dice = [" ".join(str(int(r[1])) for r in dealt.rolls)] if dealt.rolls else []
    if count > 1:  # (for one hand the opening's deal is all the match needs)
        decks = [RandomStream(seed, deal_label(k)).shuffle(deck(size)) for k in range(1, count + 1)]
        if decks[0] != dealt.deck:
            raise AssertionError("the deal derivation disagrees with the rules module")
        if dealt.rolls:  # DUR-3: rolls until the deck is dealt, each recorded as thrown
            derived = [_rolls(seed, k, size) for k in range(1, count + 1)]
            if derived[0] != dice[0]:
                raise AssertionError("the dice derivation disagrees with the rules module")
            dice = derived
    return lot.seat, [" ".join(c.code for c in d) for d in decks], dice


def _rolls(seed: bytes, k: int, size: int) -> str:
    """The die rolls of game `k` as the rules derive them from `seed`, as text."""
    stream, rolls = RandomStream(seed, dice_label(k)), list[int]()
    while sum(rolls) < size:
        rolls.append(stream.die())
    return " ".join(map(str, rolls))


# ---------------------------------------------------------------------------- moves and views


def table_message(template: Message, view: Any) -> Message:
    """A fresh message of `template`'s type filled from a game View exactly as the service
    fills it (kozyr.wire.convert.fill), so the two can be compared field by field."""
    return convert.fill(type(template)(), view)


class ViewMismatch(RuntimeError):
    """The view rebuilt from a seat's events differs from the one the server sent."""


# ---------------------------------------------------------------------------- one seat


class EventReader:
    """A game's events decoded from the JSON the server sends, the last few thousand kept: the
    seats of a match played from one process are sent the same public events (a card played,
    a trick won), and each was decoded once per seat. Events are immutable, so seats share
    them; a seat only ever gets an event it was itself sent."""

    KEEP = 4096

    def __init__(self, game: AnyGame) -> None:
        self.registry = Registry(game.EVENT_TYPES)
        self.names = {class_of(cls).__name__ for cls in game.EVENT_TYPES}
        self.view_type = typing.get_type_hints(game.view)["return"]
        self._known: dict[str, Any] = {}

    def view(self, text: str) -> Any:
        """A game view sent in the games' JSON form (Decision.game_view_json)."""
        return decode_as(self.view_type, jsontext.loads(text))

    def read(self, events: Any) -> list[Any]:
        """The game's events among some Event messages (the service's own are skipped)."""
        out, known = [], self._known
        for event in events:
            if event.type in self.names:
                data = event.data_json
                decoded = known.get(data)
                if decoded is None:
                    decoded = self.registry.decode(jsontext.loads(data))
                    if len(known) >= self.KEEP:
                        known.clear()
                    known[data] = decoded
                out.append(decoded)
        return out


class SeatMind:
    """A bot's side of one seat: the seat's own history from the events it is sent, its view
    (the one the server sends with game views, else rebuilt from the events and checked
    against the server's table), and the bot's choice."""

    def __init__(
        self, game: AnyGame, seat: int, bot: Bot, reader: EventReader | None = None
    ) -> None:
        self.game = game
        self.seat = seat
        self.bot = bot
        self.reader = reader or EventReader(game)
        self.history: list[Any] = []
        self.info = seat_info(game, seat)
        self.moves = 0
        self.field = GAME_FIELD[game.NAME]

    def heard(self, events: Any) -> None:
        """Events the seat was sent (the service's own are skipped)."""
        self.history += self.reader.read(events)

    def choose(self, view: pb.MatchView, moves: Any, game_view_json: str = "") -> pb.Move:
        """The bot's move: on the game view the server sent (`game_view_json`), or else on
        the view rebuilt from the seat's events, once it agrees with the server's table."""
        seen = self.reader.view(game_view_json) if game_view_json else self._rebuilt(view)
        commands = tuple(convert.command_from_move(self.game, m) for m in moves)
        command = self.bot.choose(Seat(self.game, self.seat, seen, tuple(self.history), commands))
        self.moves += 1
        return convert.move_from_command(self.game, command)

    def _rebuilt(self, view: pb.MatchView) -> Any:
        self.info.update(self.history)
        sent = getattr(view, self.field)
        # The quick rebuild goes on from the last decision's; where it can be wrong (see
        # SeatInfo.state) a disagreement is looked at again with the hand folded from its deal.
        rebuilt = self.info.view(quick=True)
        if not _agrees(sent, rebuilt, view.to_act):
            rebuilt = self.info.view()
            if not _agrees(sent, rebuilt, view.to_act):
                raise ViewMismatch(
                    f"seat {self.seat} at version {view.version}: the view "
                    "rebuilt from its events differs from the server's"
                )
        return rebuilt


def _agrees(sent: Message, rebuilt: Any, to_act: int) -> bool:
    """Whether a rebuilt view is the table the server sent."""
    return rebuilt.to_act == to_act and table_message(sent, rebuilt) == sent


class RemoteSeat(SeatMind):
    """One bot at one seat of a served match over unary calls and a watch (`kozyr play`)."""

    def __init__(self, game: AnyGame, seat: int, client: SeatClient, bot: Bot) -> None:
        super().__init__(game, seat, bot)
        self.client = client
        self.final: pb.MatchView | None = None
        self.watch: Watch | None = None

    def run(self) -> None:
        """Watch the match from its start and move whenever it is this seat's turn."""
        with self.client.watch(0) as watch:
            self.watch = watch
            for update in watch:
                self.heard(update.events)
                view = update.view
                if view.status == pb.MATCH_STATUS_FINISHED:
                    self.final = view
                    return
                if not view.HasField("to_act") or view.to_act != self.seat:
                    continue
                legal = self.client.legal()
                if legal.version != update.version:  # pragma: no cover - only we may move now
                    raise RuntimeError("the match moved while it was this seat's turn")
                self.client.move(
                    self.choose(view, legal.moves),
                    command_id=f"seat{self.seat}-v{update.version}",
                    expected_version=update.version,
                )

    def stop(self) -> None:
        """End the watch (another seat failed)."""
        if self.watch is not None:
            self.watch.close()


def play_remote(t: Tournament, fixture: Fixture, address: str) -> MatchResult:
    """Play one fixture as a real match on the server at `address`."""
    game = get_game(t.game)
    names = [t.seat_names[p] for p in fixture.lineup]
    config = game.make_config(dict(t.options), len(names))
    organiser = client_for(address, -1)
    if t.deals == "seeded":  # the server's seed and each seat's own contribution: a fair deal
        # create_match gives each named seat 32 random bytes after the commitment.
        created = organiser.create_match(game.NAME, names, dict(t.options))
    else:
        first, decks, dice = prearranged(game, config, names, deal_seed(t.master, fixture.deal))
        created = organiser.create_match(
            game.NAME,
            names,
            dict(t.options),
            first_dealer=first,
            prearranged_decks=decks,
            prearranged_dice=dice,
        )
    seats = [
        RemoteSeat(
            game,
            s,
            client_for(address, s).seat(created.match_id, created.tokens[s], [created.receipt]),
            make_bot(parse_spec(t.players[p]), game, s, bot_seed(t.master, fixture.index, s)),
        )
        for s, p in enumerate(fixture.lineup)
    ]
    _run_all([s.run for s in seats], [s.stop for s in seats])
    if t.keep:
        keep_match(Path(t.keep), address, created.match_id, [s.client for s in seats])
    final = seats[0].final
    assert final is not None
    return MatchResult(
        fixture.index,
        fixture.deal,
        fixture.lineup,
        tuple(final.outcome.winners),
        tuple(final.outcome.scores),
        sum(s.moves for s in seats),
        final.outcome.reason,
        match_id=created.match_id,
    )


def keep_match(folder: Path, address: str, match_id: str, seats: list[SeatClient]) -> None:
    """Save a finished served match beside its receipts: ``<id>.jsonl`` (the log, which anyone
    may read once it is over) and ``<id>.seat<k>.receipts.jsonl`` (what seat k was handed)."""
    from kozyr.replay.export import export, write_text

    folder.mkdir(parents=True, exist_ok=True)
    for k, seat in enumerate(seats):
        seat.receipts.save(folder / f"{match_id}.seat{k}.receipts.jsonl")
    write_text(str(folder / f"{match_id}.jsonl"), export(address, match_id, None).text)


def _run_all(tasks: list[Callable[[], None]], stops: list[Callable[[], None]]) -> None:
    """Run the seats' loops in threads; if one fails, stop the others and raise its error."""
    with ThreadPoolExecutor(len(tasks)) as pool:
        futures = [pool.submit(task) for task in tasks]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = [f for f in done if f.exception() is not None]
        if failed:
            for stop in stops:
                stop()
            wait(futures)
            error = failed[0].exception()
            assert error is not None
            raise error
