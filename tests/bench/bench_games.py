"""Random playouts in one process (`bench.py --only games`): matches/s and moves/s per game,
and events folded/s.

The deals come from the seed as the rules say; the playout's own choice of move is Python's
`random`, seeded, as the anchors choose theirs (tests/bench/anchors.py), so the ratios compare
rules with rules.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from kozyr.games import GAMES, Game, fold
from tests.bench.harness import RUNS, median_of

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def playout(game: Game, players: int, seed: bytes) -> tuple[int, list[Any]]:
    """One random-playout match: the number of moves and every event.

    The deals come from the seed as the rules say (the HMAC stream of docs/fairness.md); the
    playout's own choice of move is Python's `random`, seeded, as the anchors choose theirs
    (OpenSpiel's script: random.Random; boardgame.io's: mulberry32), so the ratios compare
    rules with rules and not a harness's cryptographic choice with a cheap one.
    """
    config = game.make_config({}, players)
    events = list(game.start(config, [f"p{i}" for i in range(players)], seed))
    state = fold(game, events)
    choose = random.Random(seed).randrange
    moves = 0
    to_act, legal_commands, decide, evolve = (
        game.to_act,
        game.legal_commands,
        game.decide,
        game.evolve,
    )
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        new = decide(state, seat, legal[choose(len(legal))])
        for event in new:
            state = evolve(state, event)
        events.extend(new)
        moves += 1
    return moves, events


def bench_games(seconds: float) -> dict[str, Any]:
    """Random-playout throughput and fold speed per game."""
    out: dict[str, Any] = {}
    for name, game in GAMES.items():
        players = PLAYERS[name]
        samples = []
        for run in range(RUNS):
            matches = moves = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                n, _ = playout(game, players, f"{run}-{matches}".encode())
                matches += 1
                moves += n
            elapsed = time.perf_counter() - start
            samples.append((matches / elapsed, moves / elapsed))
        logs = [playout(game, players, f"fold-{i}".encode())[1] for i in range(20)]
        total = sum(len(log) for log in logs)

        def fold_rate(logs: list[list[Any]] = logs, total: int = total, game: Game = game) -> float:
            start = time.perf_counter()
            for log in logs:
                fold(game, log)
            return total / (time.perf_counter() - start)

        out[name] = {
            "players": players,
            "matches_per_s": round(statistics.median(s[0] for s in samples), 1),
            "moves_per_s": round(statistics.median(s[1] for s in samples)),
            "events_folded_per_s": round(median_of(RUNS, fold_rate)),
        }
        print(
            f"  {name:11} {players}p  {out[name]['matches_per_s']:>9,.1f} matches/s "
            f"{out[name]['moves_per_s']:>10,} moves/s "
            f"{out[name]['events_folded_per_s']:>11,} events folded/s",
            flush=True,
        )
    return out
