"""What the bench sections share: the number of runs and their median, a Dix match decided in
advance (its decks and moves) with its CreateMatch request, and a `kozyr serve` to measure.

A scripted match costs the harness one RPC per move, like a client that knows its legal moves,
so the figures measure the service and not the harness's choice of move.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from kozyr.core.cards import deck
from kozyr.core.fairness import RandomStream, deal_label
from kozyr.games import GAMES, fold
from kozyr.games.contract import Setup

RUNS = 5


def median_of(runs: int, measure: Callable[[], float]) -> float:
    """The median of `runs` measurements."""
    return statistics.median(measure() for _ in range(runs))


def dix_script(seed: bytes, hands: int) -> tuple[list[str], list[tuple[int, str]]]:
    """A Dix match decided in advance: prearranged decks and a legal move sequence.

    The harness then spends exactly one RPC per move, like a client that knows its legal moves.
    """
    game = GAMES["dix"]
    decks = [RandomStream(seed, deal_label(h + 1)).shuffle(deck(53)) for h in range(hands)]
    options = {"target": 10_000, "max_hands": hands}
    config = game.make_config(options, 2)
    setup = Setup(first_dealer=0, decks=tuple(decks))
    state = fold(game, game.start(config, ["a", "b"], b"\x00" * 32, setup))
    stream = RandomStream(seed, "moves")
    moves = []
    while (seat := game.to_act(state)) is not None:
        legal = game.legal_commands(state, seat)
        command = legal[stream.randbelow(len(legal))]
        moves.append((seat, command.card.code))
        state = fold(game, game.decide(state, seat, command), state)
    return [" ".join(c.code for c in d) for d in decks], moves


def dix_request(decks: list[str]) -> Any:
    """The CreateMatch request of a `dix_script` match: its decks prearranged, seat 0 dealing,
    a target no hand reaches (the match ends after its decks)."""
    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

    return pb.CreateMatchRequest(
        game="dix",
        options={"target": "10000", "max_hands": str(len(decks))},
        seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
        first_dealer=0,
        prearranged_decks=decks,
    )


def start_service(
    tmp: str, workers: int = 1, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[str], str]:
    """`kozyr serve` (`workers` processes on one port, `extra` flags) with an embedded Redis in
    its own process; its address."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kozyr.cli",
            "serve",
            "--address",
            "127.0.0.1:0",
            "--data-dir",
            tmp,
            "--json-logs",
            "--workers",
            str(workers),
            *extra,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    # Every worker says "serving" itself: wait for all of them, or the first connections
    # (remote.spread_connections) all reach the one that is up and the figures measure one.
    serving = 0
    for line in proc.stderr:
        if line.startswith("{") and json.loads(line).get("event") == "serving":
            address = json.loads(line)["address"]
            serving += 1
            if serving == workers:
                break
    else:
        raise RuntimeError("the service did not start")
    # Keep draining the log so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    return proc, address
