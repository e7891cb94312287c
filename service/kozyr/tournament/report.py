"""The standings table and the JSON and CSV result files of a tournament run.

JSON: the settings, the standings, and one record per match (fixture, deal, who sat where,
winners and scores by seat, moves, the server's match id in --server mode), plus the run's
timing under "run". Everything but "run" depends only on the settings, so two runs with the
same master seed write the same JSON apart from "run" (whatever the worker count).

CSV: one row per player per match (match, deal, seat, player, win share, score, winners,
moves, match id): the long format spreadsheets and data frames read directly.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from kozyr.tournament.ratings import Standing, standings
from kozyr.tournament.runner import Run

CSV_FIELDS = ("match", "deal", "seat", "player", "win_share", "score", "winners", "moves",
              "match_id")


def table(run: Run, rows: list[Standing] | None = None) -> str:
    """The standings as a plain-text table (with a header line about the run)."""
    t = run.tournament
    rows = rows if rows is not None else standings(t.names, run.results)
    planned = len(run.fixtures)
    head = (f"{t.game}  {t.format}  seed {t.seed}  {len(run.results)}/{planned} matches  "
            f"{run.elapsed:,.1f} s  {run.matches_per_second:,.2f} matches/s  "
            f"{run.workers} worker{'s' if run.workers != 1 else ''}"
            + (f"  via {run.server}" if run.server else ""))
    if run.interrupted:
        head += "  (interrupted: standings over the matches played)"
    width = max([len("player"), *(len(r.player) for r in rows)])
    lines = [head,
             f"{'player':<{width}}  {'matches':>7}  {'wins':>7}  {'win rate':>8}  "
             f"{'95% CI':>15}  {'avg score':>9}  {'rating (mu ± sigma)':>19}  {'ordinal':>7}"]
    for r in rows:
        lines.append(
            f"{r.player:<{width}}  {r.matches:>7}  {_num(r.wins):>7}  {r.win_rate:>8.1%}  "
            f"{f'{r.ci_low:.1%} – {r.ci_high:.1%}':>15}  {r.avg_score:>9.2f}  "
            f"{f'{r.mu:.2f} ± {r.sigma:.2f}':>19}  {r.ordinal:>7.2f}")
    return "\n".join(lines)


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
            {"player": r.player, "matches": r.matches, "wins": r.wins,
             "win_rate": round(r.win_rate, 6), "ci95": [round(r.ci_low, 6), round(r.ci_high, 6)],
             "avg_score": round(r.avg_score, 6), "mu": round(r.mu, 6),
             "sigma": round(r.sigma, 6), "ordinal": round(r.ordinal, 6)}
            for r in rows
        ],
        "matches": [
            {"match": r.index, "deal": r.deal, "players": [t.names[p] for p in r.lineup],
             "winners": list(r.winners), "scores": list(r.scores), "moves": r.moves,
             "reason": r.reason, **({"match_id": r.match_id} if r.match_id else {})}
            for r in run.results
        ],
        "run": {"elapsed_s": round(run.elapsed, 3),
                "matches_per_s": round(run.matches_per_second, 3),
                "workers": run.workers, "server": run.server, "interrupted": run.interrupted},
    }


def write_json(run: Run, path: Path, rows: list[Standing] | None = None) -> None:
    """Write the JSON result file."""
    path.write_text(json.dumps(to_json(run, rows), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def write_csv(run: Run, path: Path) -> None:
    """Write the CSV result file (one row per player per match)."""
    names = run.tournament.names
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_FIELDS)
        for r in run.results:
            winners = " ".join(str(w) for w in r.winners)
            for seat, p in enumerate(r.lineup):
                writer.writerow([r.index, r.deal, seat, names[p], f"{r.share(seat):.4g}",
                                 r.scores[seat], winners, r.moves, r.match_id])
