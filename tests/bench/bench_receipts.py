"""The cost of signing (`bench.py --only receipts`): moves/s through the engine (on its
in-memory store, each entry signed in the write path and its signature stored with it, as
served) with and without a signing key, interleaved in one run, their ratio, and Ed25519
receipts signed and checked per second.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from kozyr.games import GAMES
from tests.bench.harness import RUNS, dix_script, median_of

Script = tuple[list[str], list[tuple[int, str]]]


async def engine_rate(signer: Any, scripts: list[Script], signed: bool) -> float:
    """Moves/s of the scripted matches through a fresh engine, signing with `signer` or not."""
    from kozyr.core.cards import parse_cards
    from kozyr.engine import Engine
    from kozyr.match.log import registry_for
    from kozyr.store.memory import MemoryStore

    registry = registry_for(GAMES["dix"])
    engine = Engine(MemoryStore(), signer=signer if signed else None)
    ids = [
        (
            await engine.create(
                "dix",
                {"target": "10000", "max_hands": "1"},
                [("a", b""), ("b", b"")],
                first_dealer=0,
                decks=[parse_cards(d) for d in decks],
            )
        ).match_id
        for decks, _ in scripts
    ]
    commands = [
        [(seat, registry.decode({"type": "Play", "card": card})) for seat, card in script]
        for _, script in scripts
    ]
    start = time.perf_counter()
    total = 0
    for match_id, moves in zip(ids, commands, strict=True):
        for n, (seat, command) in enumerate(moves):
            step = await engine.submit(match_id, seat, command, f"c{n}")
            assert signed == (engine.receipt(step) is not None)  # signed at the append
            total += 1
    return total / (time.perf_counter() - start)


def per_second(action: Callable[[], object], n: int = 2000) -> float:
    """How many times a second `action` runs (over `n` runs)."""
    start = time.perf_counter()
    for _ in range(n):
        action()
    return n / (time.perf_counter() - start)


def bench_receipts(matches: int) -> dict[str, Any]:
    """Moves/s with and without receipts, side by side (interleaved runs, the same matches)."""
    from kozyr.core.receipts import KeyRing
    from kozyr.secrets.signing import Signer

    scripts = [dix_script(f"r{i}".encode(), 1) for i in range(matches)]
    signer = Signer.generate()
    with_r, without = [], []
    for _ in range(RUNS):  # interleaved, so both see the same machine load
        without.append(asyncio.run(engine_rate(signer, scripts, False)))
        with_r.append(asyncio.run(engine_rate(signer, scripts, True)))
    ring = KeyRing([signer.public_key])
    receipt = signer.receipt("m", 1, "00" * 32, "11" * 32, 1)
    signs = median_of(
        RUNS, lambda: per_second(lambda: signer.receipt("m", 1, "00" * 32, "11" * 32, 1))
    )
    checks = median_of(RUNS, lambda: per_second(lambda: ring.problem(receipt)))
    a, b = statistics.median(with_r), statistics.median(without)
    result = {
        "engine_moves_per_s_without_receipts": round(b),
        "engine_moves_per_s_with_receipts": round(a),
        "with_to_without_ratio": round(a / b, 3),
        "signing_us_per_move": round((1 / a - 1 / b) * 1e6, 1),
        "receipts_signed_per_s": round(signs),
        "receipts_checked_per_s": round(checks),
    }
    for k, v in result.items():
        print(f"  {k:40} {v}", flush=True)
    return result
