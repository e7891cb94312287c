"""`make bench-anchors`: Kozyr's random playouts beside OpenSpiel's and boardgame.io's, runs
interleaved in one sitting so every figure sees the same machine load; prints the medians and
the ratios, which are what another machine can compare (never part of `make test`).

The anchors live in their own folders: OpenSpiel (pip `open-spiel`, pinned in the Makefile) in
.anchors/venv, boardgame.io (npm, pinned with its lock file) in .anchors/bgio. The boardgame.io
games are small ports of Dix's and Six Dozens' shapes (tests/bench/peers/bgio_playout.mjs);
OpenSpiel's is its own hearts, the trick-taking game closest to Dix.

Both sides get the same work: one hand (or one Durak game) each, as the peers play one; chance
costs each side one draw of a seeded `random.Random` per outcome, as a move does
(tests/bench/peers/chance.py): OpenSpiel's chance nodes are picked like moves, and Kozyr's deck
order and die rolls are drawn by the harness and given as a prearranged Setup, instead of the
HMAC-SHA256 stream the service deals from (the cryptographic deal is the service's price for
fairness, not the rules' speed). tests/bench/test_anchors.py checks both sides draw that way.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kozyr.envs.table import full_deck as table_deck  # noqa: E402
from kozyr.games import GAMES, Game, fold  # noqa: E402
from kozyr.games.contract import Setup  # noqa: E402
from tests.bench.bench_games import PLAYERS  # noqa: E402
from tests.bench.peers.chance import draw, rolls, shuffled  # noqa: E402

HERE = Path(__file__).resolve().parent / "peers"
ANCHORS = ROOT / ".anchors"
RUNS = 5
# Which anchor each Kozyr game is set beside.
BGIO_OF = {"dix": "trick", "six-dozens": "shed", "durak-dice": "trick"}
# One hand (one game of Durak), as hearts and the boardgame.io ports play one.
ONE_HAND = {"dix": {"single_hand": "true"}, "six-dozens": {"max_hands": "1"}, "durak-dice": {}}


def full_deck(name: str) -> tuple[Any, ...]:
    """Every card of the game's one-hand deck, in a fixed order (kozyr.envs.table's, which
    OpenSpiel's chance nodes deal from too)."""
    return table_deck(name, PLAYERS[name], ONE_HAND[name])


def anchor_start(name: str, rng: random.Random) -> tuple[Game, list[Any], int]:
    """The opening events of one hand whose chance the harness drew, and how many draws that
    took: the first dealer, Fisher-Yates' n - 1 picks, the die rolls."""
    game, players = GAMES[name], PLAYERS[name]
    config = game.make_config(ONE_HAND[name], players)
    deck = shuffled(rng, full_deck(name))
    dice = rolls(rng, len(deck)) if name == "durak-dice" else []
    setup = Setup(draw(rng, players), (tuple(deck),), (tuple(dice),) if dice else ())
    events = list(game.start(config, [f"p{i}" for i in range(players)], b"anchor", setup))
    return game, events, 1 + (len(deck) - 1) + len(dice)


def anchor_playout(name: str, rng: random.Random) -> tuple[int, int]:
    """One hand of a Kozyr game at random, its chance drawn like its moves: (moves, chance
    outcomes drawn). The full rules decide every move."""
    game, events, chance = anchor_start(name, rng)
    state = fold(game, events)
    moves = 0
    to_act, legal_commands, decide, evolve = (
        game.to_act,
        game.legal_commands,
        game.decide,
        game.evolve,
    )
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        for event in decide(state, seat, legal[draw(rng, len(legal))]):
            state = evolve(state, event)
        moves += 1
    return moves, chance


def kozyr_rate(name: str, seconds: float, run: int) -> float:
    """Moves/s of random one-hand playouts of one Kozyr game (the full rules)."""
    rng = random.Random(run)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        moves += anchor_playout(name, rng)[0]
    return moves / (time.perf_counter() - start)


def openspiel_rate(seconds: float) -> float:
    """Hearts actions/s in OpenSpiel (its C++ core through pyspiel)."""
    out = subprocess.run(
        [
            str(ANCHORS / "venv" / "bin" / "python"),
            str(HERE / "openspiel_playout.py"),
            str(seconds),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds * 10 + 60,
    )
    return float(json.loads(out.stdout.splitlines()[-1])["actions_per_s"])


def bgio_rate(which: str, seconds: float) -> float:
    """Actions/s of a boardgame.io port (its game reducer, as its master runs it)."""
    env = {**os.environ, "BGIO_DIR": str(ANCHORS / "bgio"), "NODE_ENV": "production"}
    out = subprocess.run(
        ["node", str(HERE / "bgio_playout.mjs"), which, str(seconds)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=seconds * 10 + 60,
    )
    return float(json.loads(out.stdout.splitlines()[-1])["actions_per_s"])


def main() -> int:
    """Run the interleaved rounds and print medians and ratios."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    samples: dict[str, list[float]] = {}
    for run in range(args.runs):  # one round of everything, then the next: same load for all
        for name in GAMES:
            samples.setdefault(f"kozyr {name}", []).append(kozyr_rate(name, args.seconds, run))
        samples.setdefault("openspiel hearts", []).append(openspiel_rate(args.seconds))
        for which in sorted(set(BGIO_OF.values())):
            samples.setdefault(f"boardgame.io {which}", []).append(bgio_rate(which, args.seconds))
        print(f"  round {run + 1}/{args.runs} done", flush=True)
    medians = {k: statistics.median(v) for k, v in samples.items()}
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "runs": args.runs,
        "seconds": args.seconds,
        "actions_per_s": {k: round(v) for k, v in medians.items()},
    }
    ratios = {"dix_to_openspiel_hearts": medians["kozyr dix"] / medians["openspiel hearts"]}
    for name, which in BGIO_OF.items():
        ratios[f"{name}_to_boardgame.io_{which}"] = (
            medians[f"kozyr {name}"] / medians[f"boardgame.io {which}"]
        )
    result["ratios"] = {k: round(v, 2) for k, v in ratios.items()}
    for k, v in result["actions_per_s"].items():
        print(f"  {k:26} {v:>10,} actions/s (median of {args.runs})")
    for k, v in result["ratios"].items():
        print(f"  {k:36} {v}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
