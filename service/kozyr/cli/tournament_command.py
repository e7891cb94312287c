"""`kozyr tournament`: headless bot tournaments with a live progress bar and standings."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kozyr.bots import BadBotSpec, parse_players
from kozyr.games import GAMES, InvalidOptions
from kozyr.tournament.progress import Progress
from kozyr.tournament.ratings import standings
from kozyr.tournament.runner import run
from kozyr.tournament.schedule import FORMATS
from kozyr.tournament.scoreboard import print_table, write_csv, write_json
from kozyr.tournament.spec import Tournament

EPILOG = """\
players: comma-separated bot specs, e.g. heuristic,random or ismcts:iters=50,ismcts:iters=200
  random | heuristic | ismcts:iters=N | ismcts:ms=N  (ismcts options: c=0.7, rollout=random)
  policy:path=FILE  a trained policy (docs/agents.md)
  the same bot may play twice with different settings; a repeated spec is named spec#2.

formats: duplicate (each deal again with the seats rotated: card luck cancels) or
  round-robin (every seat permutation in turn, a new deal each match).

examples:
  kozyr tournament --game dix --players heuristic,random --matches 1000 --seed 7 \\
      --option single_hand=true
  kozyr tournament --game durak-dice --players ismcts:iters=100,heuristic,random,random \\
      --format round-robin --matches 240 --json out.json --csv out.csv
"""


def _option(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"write options as key=value, not {text!r}")
    return key.strip(), value.strip()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the `tournament` subcommand."""
    p = sub.add_parser(
        "tournament",
        help="play bots against each other and rate them",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_what_to_play(p)
    _add_where_to_play(p)
    p.add_argument("--json", type=Path, default=None, help="write the results as JSON here")
    p.add_argument("--csv", type=Path, default=None, help="write one row per player per match")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def _add_what_to_play(p: argparse.ArgumentParser) -> None:
    """The game, the players, the schedule and the seed: what decides the results."""
    p.add_argument("--game", required=True, choices=sorted(GAMES))
    p.add_argument("--players", required=True, help="comma-separated bot specs (see below)")
    p.add_argument(
        "--matches",
        type=int,
        default=100,
        help="matches to play, rounded up to whole rotations (default 100)",
    )
    p.add_argument("--format", default="duplicate", choices=FORMATS)
    p.add_argument("--seed", default="0", help="master seed: the same seed, the same results")
    p.add_argument(
        "--option",
        action="append",
        type=_option,
        default=[],
        metavar="KEY=VALUE",
        help="a game option (repeatable), e.g. --option single_hand=true",
    )
    p.add_argument(
        "--seats",
        type=int,
        default=0,
        help="seats per match when fewer than the players (default: all players)",
    )


def _add_where_to_play(p: argparse.ArgumentParser) -> None:
    """In process, on a server or on a Ray cluster, and how the matches are dealt there."""
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"worker processes (default: the cores, {os.cpu_count()})",
    )
    p.add_argument(
        "--server",
        metavar="ADDR",
        default=None,
        help="play every match on this Kozyr server, each bot a gRPC client",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="spread the matches over a Ray cluster (auto: the local one, started "
        "if none runs); needs pip install 'kozyr[ray]'",
    )
    p.add_argument(
        "--deals",
        choices=("prearranged", "seeded"),
        default="prearranged",
        help="with --server: send each fixture's deal (prearranged, the default: "
        "duplicate deals repeat exactly), or let the server deal from its "
        "committed seed and each seat's contribution (seeded: fair random "
        "deals, so duplicate deals no longer repeat)",
    )
    p.add_argument(
        "--server-bots",
        action="store_true",
        help="with --server: the server's own bots play every seat, inside the "
        "server (no client per seat; the server seeds its bots, so random "
        "bots play other games than in-process)",
    )
    p.add_argument(
        "--save-dir",
        type=Path,
        default=None,
        help="with --server: keep each match's log and its seats' receipts here",
    )


def main(args: argparse.Namespace) -> int:
    """Run the tournament the arguments describe and print the standings."""
    try:
        t = _tournament(args)
    except (BadBotSpec, InvalidOptions, KeyError, ValueError) as e:
        print(f"kozyr tournament: {e}", file=sys.stderr)
        return 2
    scheduled = len(t.fixtures())
    if scheduled != t.matches:
        print(
            f"kozyr tournament: {scheduled} matches (rounded up to whole "
            f"{'rotations' if t.format == 'duplicate' else 'permutation cycles'})",
            file=sys.stderr,
        )
    if args.ray and args.server:
        print(
            "kozyr tournament: --ray plays in-process on the cluster; drop --server",
            file=sys.stderr,
        )
        return 2
    progress = Progress(scheduled, enabled=not args.no_progress)
    if args.ray:
        from kozyr.tournament.ray_runner import RayUnavailable, run_on_ray

        try:
            result = run_on_ray(t, args.ray, on_progress=progress.update)
        except RayUnavailable as e:
            progress.close("")
            print(f"kozyr tournament: {e}", file=sys.stderr)
            return 1
    else:
        result = run(t, workers=args.workers, server=args.server, on_progress=progress.update)
    progress.close("interrupted" if result.interrupted else "")
    rows = standings(t.names, result.results)
    print_table(result, rows)
    if args.json:
        write_json(result, args.json, rows)
    if args.csv:
        write_csv(result, args.csv)
    return 130 if result.interrupted else 0


def _tournament(args: argparse.Namespace) -> Tournament:
    """The tournament the arguments describe, checked (ValueError and the specs' own errors)."""
    specs = parse_players(args.players)
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    t = Tournament(
        game=args.game,
        players=tuple(s.text for s in specs),
        options=tuple(args.option),
        format=args.format,
        matches=args.matches,
        seed=seed,
        seats=args.seats,
        deals=args.deals,
        keep=str(args.save_dir) if args.save_dir else "",
        server_bots=args.server_bots,
    )
    if (args.deals != "prearranged" or args.save_dir or args.server_bots) and not args.server:
        raise ValueError(
            "--deals, --save-dir and --server-bots are for matches played on a --server"
        )
    if args.server_bots and args.save_dir:
        raise ValueError(
            "--save-dir keeps each seat's receipts, and the server's bots "
            "get none: drop one of them"
        )
    return t
