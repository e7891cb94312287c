"""What the bench sections share: the number of runs and their median, a Dix match decided in
advance (its decks and moves) with its CreateMatch request, and a `kozyr serve` to measure.

A scripted match costs the harness one RPC per move, like a client that knows its legal moves,
so the figures measure the service and not the harness's choice of move.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
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


async def scripted_rate(
    matches: int,
    label: str,
    create: Callable[[int, Any], Awaitable[Any]],
    submit: Callable[[int, Any, str], Awaitable[Any]],
) -> float:
    """Moves/s of `matches` Dix matches of one hand played at once, each created and played out
    (its moves decided in advance, `dix_script`) inside the timing: `create(i, request)` answers
    match i's CreateMatch, `submit(i, request, token)` sends one of its moves as that seat."""
    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

    scripts = [dix_script(f"{label}{i}".encode(), 1) for i in range(matches)]

    async def one(i: int) -> int:
        decks, script = scripts[i]
        created = await create(i, dix_request(decks))
        tokens = [t.token for t in sorted(created.tokens, key=lambda t: t.seat)]
        for n, (seat, card) in enumerate(script):
            move = pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card)))
            request = pb.SubmitMoveRequest(match_id=created.match_id, command_id=f"c{n}", move=move)
            await submit(i, request, tokens[seat])
        return len(script)

    start = time.perf_counter()
    total = sum(await asyncio.gather(*(one(i) for i in range(matches))))
    return total / (time.perf_counter() - start)


def serve_argv(data_dir: str, *flags: str) -> list[str]:
    """The command of `kozyr serve` on a loopback port the kernel picks, its data in `data_dir`
    and its log in JSON (the benches read the bound address from its "serving" line)."""
    return [
        sys.executable,
        *("-m", "kozyr.cli", "serve", "--address", "127.0.0.1:0"),
        *("--data-dir", data_dir, "--json-logs", *flags),
    ]


def start_service(
    tmp: str,
    workers: int = 1,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """`kozyr serve` (`workers` processes on one port, `extra` flags, `env` for its
    environment) with an embedded Redis in its own process; its address."""
    proc = subprocess.Popen(
        serve_argv(tmp, "--workers", str(workers), *extra),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
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
