"""`kozyr play GAME --vs BOT[,BOT…]`: its flags, and the run that wires them to the terminal
client of kozyr.terminal.play.

Without --server an embedded server (kozyr.terminal.embedded_server: a private Redis in a
temporary folder, the gRPC service on a free loopback port) runs in this process for the match;
with --server ADDR the match is played there. The match and your receipts are kept by
kozyr.terminal.keep unless --no-save. Exit status: 0 played (or left), 1 the server refused or a
bot failed, 2 bad flags, 128 + the signal when interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kozyr.terminal.play import DEFAULT_NAME, LineReader, Terminal, play_match, use_colour
from kozyr.terminal.stop_signals import Stopped, StopSignals

if TYPE_CHECKING:
    from kozyr.terminal.keep import Keeper


def _say(text: str, stream: TextIO) -> None:
    """Print a line; a terminal that went away (SIGHUP) is not an error any more."""
    with contextlib.suppress(OSError, ValueError):
        print(text, file=stream, flush=True)


def _choices(args: argparse.Namespace) -> tuple[dict[str, str], list[str], bytes | None]:
    """The match's options, the opponents' bot specs and your seed contribution the flags ask
    for (ValueError saying what is wrong)."""
    from kozyr.bots import BadBotSpec, check_spec, parse_players, parse_spec
    from kozyr.terminal.keep import parse_contribution

    options: dict[str, str] = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--option wants key=value, not {item!r}")
        options[key.strip()] = value.strip()
    try:
        vs = [spec.text for spec in parse_players(args.vs)]
        for spec in vs:
            check_spec(parse_spec(spec))
    except BadBotSpec as e:
        raise ValueError(str(e)) from None
    given = args.contribution
    return options, vs, None if given is None else parse_contribution(given)


def _run(args: argparse.Namespace) -> int:
    from kozyr.terminal.keep import Keeper, default_folder
    from kozyr_client import KozyrClient, KozyrError

    stop = StopSignals().install()
    try:
        options, vs, contribution = _choices(args)
    except ValueError as e:
        print(f"kozyr play: {e}", file=sys.stderr)
        return 2
    term = Terminal(
        sys.stdout,
        LineReader(sys.stdin.fileno(), sys.stdout, stop),
        use_colour(args.color, sys.stdout),
        clear=sys.stdout.isatty(),
    )
    keeper = Keeper(None if args.no_save else Path(args.save_dir or default_folder()))
    try:
        with _server(args.server, keeper) as address, KozyrClient(address) as client:
            try:
                client.wait_ready(10)
                final = play_match(
                    client,
                    args.game,
                    vs,
                    term,
                    name=args.name,
                    seat=args.seat,
                    options=options,
                    seed=args.seed,
                    stop=stop,
                    contribution=contribution,
                    keeper=keeper,
                )
            except (Stopped, KeyboardInterrupt):
                raise
            except KozyrError as e:
                if stop.requested:
                    raise Stopped(stop.received[0]) from None
                _say(f"kozyr play: {e.reason}: {e.message}", sys.stderr)
                return 1
            except Exception as e:  # a bot that failed: say which error, not a traceback
                if stop.requested:  # e.g. the terminal went away with the SIGHUP
                    raise Stopped(stop.received[0]) from None
                _say(f"kozyr play: a bot failed: {type(e).__name__}: {e}", sys.stderr)
                return 1
            finally:
                for line in _kept(keeper):
                    _say(line, sys.stderr)
    except (Stopped, KeyboardInterrupt) as e:
        _say(f"\nkozyr play: interrupted ({e})", sys.stderr)
        return 128 + (e.signum if isinstance(e, Stopped) else signal.SIGINT)
    if final is None:
        _say("You left the match.", sys.stdout)
    return 0


def _kept(keeper: Keeper) -> list[str]:
    """Save the match and the receipts (while the server still runs); what to tell."""
    try:
        return keeper.save()
    except Exception as e:  # never lose the game's own outcome to a full disk
        return [f"kozyr play: could not save the match: {type(e).__name__}: {e}"]


@contextlib.contextmanager
def _server(address: str | None, keeper: Keeper) -> Iterator[str]:
    if address:
        keeper.address = address
        yield address
        return
    from kozyr.terminal.embedded_server import EmbeddedServer

    with EmbeddedServer() as server:
        keeper.address, keeper.token = server.address, server.arbiter_token
        yield server.address


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `kozyr play`."""
    p = sub.add_parser(
        "play",
        help="play a match in the terminal against bots",
        description="Play GAME in the terminal against bots through the Kozyr API. Without "
        "--server an embedded server (private Redis in a temporary folder) runs in "
        "this process for the match.",
    )
    p.add_argument("game", choices=["dix", "six-dozens", "durak-dice"])
    p.add_argument(
        "--vs",
        default="heuristic",
        help="opponents, comma-separated bot specs (e.g. heuristic,random)",
    )
    p.add_argument("--server", default=None, help="host:port of a running server")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a match option (repeatable), e.g. --option target=20",
    )
    p.add_argument("--name", default=DEFAULT_NAME, help="your name at the table")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the bots' random choices")
    p.add_argument(
        "--contribution",
        default=None,
        help="your seat's part of the match seed (text, or 0x… hex; at most 64 "
        "bytes; default 32 random bytes), sent after the server's commitment: "
        "neither the server nor you alone steers a deal",
    )
    p.add_argument(
        "--save-dir",
        default=None,
        help="where the match log and your receipts are kept (default: "
        "$XDG_DATA_HOME/kozyr/matches, else ~/.local/share/kozyr/matches)",
    )
    p.add_argument(
        "--no-save",
        action="store_true",
        help="keep nothing (without --server the match is then lost at the end)",
    )
    p.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="suit colours (auto: on a terminal unless NO_COLOR is set)",
    )
    p.set_defaults(func=_run)
