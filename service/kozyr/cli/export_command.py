"""`kozyr export`: finished matches as one row per decision, Parquet or JSON Lines.

Rows are what each seat saw (docs/agents.md "Export"): its view's encoding and JSON, its legal
mask, its action and its reward at the end. The matches come from an in-process tournament
(the same fixtures, deals and bot seeds as `kozyr tournament`), or from a server's logs with
``--server ADDR --match ID`` (a finished match's log is open to anyone; a running one's needs
the arbiter token). Rows are written a batch at a time: memory stays bounded whatever the
number of matches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from kozyr.bots import BadBotSpec, parse_players
from kozyr.games import GAMES, InvalidOptions

EPILOG = """examples:
  kozyr export --game dix --players heuristic,random --matches 200 --out dix.parquet
  kozyr export --server 127.0.0.1:50051 --match 01J… --match 01K… --out served.jsonl
"""


def _option(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"write options as key=value, not {text!r}")
    return key.strip(), value.strip()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the `export` subcommand."""
    p = sub.add_parser(
        "export",
        help="write finished matches as one row per decision (Parquet or JSONL)",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, required=True, help="the file to write")
    p.add_argument(
        "--format",
        choices=("parquet", "jsonl"),
        default=None,
        help="default: from the file name (.jsonl, else parquet)",
    )
    p.add_argument("--game", choices=sorted(GAMES), help="in-process: the game")
    p.add_argument("--players", help="in-process: comma-separated bot specs")
    p.add_argument("--matches", type=int, default=100, help="in-process: matches (default 100)")
    p.add_argument("--seed", default="0", help="in-process: the master seed")
    p.add_argument("--option", action="append", type=_option, default=[], metavar="KEY=VALUE")
    p.add_argument("--server", metavar="ADDR", help="read finished matches from this server")
    p.add_argument("--match", action="append", default=[], help="a match id (repeatable)")
    p.add_argument("--token", default=None, help="bearer token for the logs (arbiter)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Write the export the arguments describe; 2 on a bad request."""
    from kozyr.envs.decisions import Decision, log_rows, tournament_rows, write_rows
    from kozyr.replay.export import ExportError, fetch_log
    from kozyr.tournament.progress import Progress
    from kozyr.tournament.spec import Tournament

    fmt = args.format or ("jsonl" if args.out.suffix == ".jsonl" else "parquet")
    matches: Iterator[list[Decision]]
    if args.server:
        if not args.match:
            print("kozyr export: --server needs at least one --match", file=sys.stderr)
            return 2
        server, token = args.server, args.token

        total = len(args.match)

        def fetched() -> Iterator[list[Decision]]:
            for match_id in args.match:
                entries = fetch_log(server, match_id, token)
                first = entries[0].canonical if entries else "{}"
                yield log_rows(_game_of(first), match_id, (e.canonical for e in entries))

        matches = fetched()
    else:
        if not (args.game and args.players):
            print("kozyr export: give --game and --players, or --server", file=sys.stderr)
            return 2
        try:
            seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
            specs = parse_players(args.players)
            t = Tournament(
                game=args.game,
                players=tuple(s.text for s in specs),
                options=tuple(args.option),
                matches=args.matches,
                seed=seed,
            )
        except (BadBotSpec, InvalidOptions, ValueError) as e:
            print(f"kozyr export: {e}", file=sys.stderr)
            return 2
        total = len(t.fixtures())
        matches = tournament_rows(t)
    progress = Progress(total, enabled=not args.no_progress)
    try:
        rows = write_rows(matches, args.out, fmt, on_match=progress.update)
    except ExportError as e:
        progress.close()
        print(f"kozyr export: {e}", file=sys.stderr)
        return 2
    progress.close(f"{rows} decisions")
    print(f"wrote {rows} decisions of {total} matches to {args.out}")
    return 0


def _game_of(canonical: str) -> str:
    """The game named by a log's first entry (MatchCreated)."""
    from kozyr.core.jsontext import loads

    for event in loads(canonical).get("events", ()):
        if event.get("type") == "MatchCreated":
            return str(event["game"])
    raise ValueError("the log does not start with MatchCreated")
