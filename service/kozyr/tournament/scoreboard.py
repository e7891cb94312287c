"""The standings table and the JSON and CSV result files of a tournament run.

Table: rich renders it in 80 columns, with colour and a header rule on a terminal and as plain
aligned lines otherwise (a file, a pipe).

JSON: the settings, the standings, and one record per match (fixture, deal, who sat where,
winners and scores by seat, moves, the server's match id in --server mode), plus the run's
timing under "run". Everything but "run" depends only on the settings, so two runs with the
same master seed write the same JSON apart from "run" (whatever the worker count).

CSV: one row per player per match (match, deal, seat, player, win share, score, winners,
moves, match id): the long format spreadsheets and data frames read directly.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from kozyr.tournament.ratings import Standing, standings
from kozyr.tournament.runner import Run

MAX_COLUMNS = 80
CSV_FIELDS = (
    "match",
    "deal",
    "seat",
    "player",
    "win_share",
    "score",
    "winners",
    "moves",
    "match_id",
)


def standings_table(
    run: Run, rows: list[Standing] | None = None, box_style: box.Box | None = None
) -> Group:
    """The standings as a rich renderable: a header about the run, then one row per player."""
    t = run.tournament
    rows = rows if rows is not None else standings(t.names, run.results)
    head = [
        f"{t.game}  {t.format}  seed {t.seed}  {len(run.results)}/{len(run.fixtures)} matches",
        f"{run.elapsed:,.1f} s  {run.matches_per_second:,.2f} matches/s  "
        f"{run.workers} worker{'s' if run.workers != 1 else ''}"
        + (f"  via {run.server}" if run.server else ""),
    ]
    if run.interrupted:
        head.append("(interrupted: standings over the matches played)")
    # One space between columns and two-line headers over narrow numbers: with every number
    # at its widest, a player name of 22 characters still fits 80 columns on one line.
    # (a box draws its own space between columns; without one, padding makes it)
    grid = Table(
        box=box_style,
        show_edge=False,
        pad_edge=False,
        padding=(0, 0) if box_style else (0, 1),
        collapse_padding=True,
        header_style="bold",
    )
    # Only the player column may wrap: a long bot spec folds, the numbers never do.
    grid.add_column("player", style="cyan", overflow="fold", min_width=8)
    for name in ("matches", "wins", "win\nrate", "95% CI", "avg\nscore", "mu ± sigma", "ordinal"):
        grid.add_column(name, justify="right", no_wrap=True)
    for r in rows:
        grid.add_row(
            r.player,
            str(r.matches),
            _num(r.wins),
            f"{r.win_rate:.1%}",
            f"{r.ci_low * 100:.1f}–{r.ci_high:.1%}",
            f"{r.avg_score:.2f}",
            f"{r.mu:.1f} ± {r.sigma:.1f}",
            f"{r.ordinal:.2f}",
        )
    return Group(*(Text(line) for line in head), grid)


def table(run: Run, rows: list[Standing] | None = None, width: int = MAX_COLUMNS) -> str:
    """The standings as plain text lines (no colour, no box), at most `width` columns."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        force_terminal=False,
        color_system=None,
        highlight=False,
        markup=False,
        emoji=False,
    )
    console.print(standings_table(run, rows))
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def print_table(
    run: Run, rows: list[Standing] | None = None, console: Console | None = None
) -> None:
    """Print the standings: a rich table on a terminal, the plain lines otherwise."""
    console = console if console is not None else Console()
    if not console.is_terminal:
        console.file.write(table(run, rows) + "\n")
        return
    if console.width > MAX_COLUMNS:
        console.width = MAX_COLUMNS
    console.print(standings_table(run, rows, box.SIMPLE_HEAD))


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:.1f}"


def to_json(run: Run, rows: list[Standing] | None = None) -> dict[str, Any]:
    """The run as JSON-ready data (see the module docstring)."""
    t = run.tournament
    rows = rows if rows is not None else standings(t.names, run.results)
    return {
        "tournament": {
            "game": t.game,
            "players": list(t.names),
            "specs": list(t.players),
            "options": dict(t.options),
            "format": t.format,
            "matches_requested": t.matches,
            "matches_scheduled": len(run.fixtures),
            "seats": t.table_size,
            "seed": t.seed,
            "server": run.server is not None,
        },
        "complete": not run.interrupted and len(run.results) == len(run.fixtures),
        "matches_played": len(run.results),
        "standings": [
            {
                "player": r.player,
                "matches": r.matches,
                "wins": r.wins,
                "win_rate": round(r.win_rate, 6),
                "ci95": [round(r.ci_low, 6), round(r.ci_high, 6)],
                "avg_score": round(r.avg_score, 6),
                "mu": round(r.mu, 6),
                "sigma": round(r.sigma, 6),
                "ordinal": round(r.ordinal, 6),
            }
            for r in rows
        ],
        "matches": [
            {
                "match": r.index,
                "deal": r.deal,
                "players": [t.names[p] for p in r.lineup],
                "winners": list(r.winners),
                "scores": list(r.scores),
                "moves": r.moves,
                "reason": r.reason,
                **({"match_id": r.match_id} if r.match_id else {}),
            }
            for r in run.results
        ],
        "run": {
            "elapsed_s": round(run.elapsed, 3),
            "matches_per_s": round(run.matches_per_second, 3),
            "workers": run.workers,
            "server": run.server,
            "interrupted": run.interrupted,
        },
    }


def write_json(run: Run, path: Path, rows: list[Standing] | None = None) -> None:
    """Write the JSON result file."""
    path.write_text(
        json.dumps(to_json(run, rows), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def write_csv(run: Run, path: Path) -> None:
    """Write the CSV result file (one row per player per match)."""
    names = run.tournament.names
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_FIELDS)
        for r in run.results:
            winners = " ".join(str(w) for w in r.winners)
            for seat, p in enumerate(r.lineup):
                writer.writerow(
                    [
                        r.index,
                        r.deal,
                        seat,
                        names[p],
                        f"{r.share(seat):.4g}",
                        r.scores[seat],
                        winners,
                        r.moves,
                        r.match_id,
                    ]
                )
