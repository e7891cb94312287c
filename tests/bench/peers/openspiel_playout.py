"""Random playouts of OpenSpiel's hearts, run by tests/bench/anchors.py in the anchors' own
virtualenv (.anchors/venv): python openspiel_playout.py <seconds>  ->  {"actions_per_s": …}.

Actions are the players' decisions (the three-card pass and the 52 plays). Chance nodes (the
deal) are picked as a move is, one draw of the seeded Random each (peers/chance.py, the same
draw Kozyr's side deals its prearranged deck with), and not counted, as Kozyr's playouts count
moves, not deals. (Sampling them through `random.choices` over the outcome list was ~68 % of
this loop: the anchor then measured Python's sampling, not OpenSpiel.)"""

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chance import draw


def one_match(game: Any, rng: random.Random) -> tuple[int, int]:
    """Play one hand at random: (actions, chance outcomes drawn). Hearts' chance outcomes
    (the pass direction, each card of the deal) are uniform, so one draw among them samples
    them exactly."""
    state = game.new_initial_state()
    actions = chances = 0
    while not state.is_terminal():
        chance = state.is_chance_node()
        legal = state.legal_actions()
        state.apply_action(legal[draw(rng, len(legal))])
        if chance:
            chances += 1
        else:
            actions += 1
    return actions, chances


def main() -> None:
    import pyspiel

    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    actions = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        acted, _ = one_match(game, rng)
        actions += acted
        matches += 1
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "game": "hearts",
                "matches_per_s": matches / elapsed,
                "actions_per_s": actions / elapsed,
            }
        )
    )


if __name__ == "__main__":
    main()
