"""Random playouts of OpenSpiel's hearts, run by tests/bench/anchors.py in the anchors' own
virtualenv (.anchors/venv): python openspiel_playout.py <seconds>  ->  {"actions_per_s": …}.

Actions are the players' decisions (the three-card pass and the 52 plays); chance nodes (the
deal) are sampled and applied but not counted, as Kozyr's playouts count moves, not deals."""

import json
import random
import sys
import time

import pyspiel


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    actions = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                actions += 1
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
