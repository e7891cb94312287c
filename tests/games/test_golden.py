"""Golden playthroughs: one full match per game from a fixed seed, written as readable text.

The moves are picked by a deterministic stream (not Python's `random`), so the file is stable
across Python versions. Any change to the rules, events or their text shows up as a diff.
Regenerate deliberately with ``KOZYR_REGOLD=1 make test`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kozyr.core.fairness import RandomStream
from kozyr.games import GAMES, fold
from kozyr.games.codec import encode
from tests.games.helpers import new_match, random_playout

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

CASES = {
    "dix": (2, {}, b"golden-dix"),
    "six-dozens": (3, {}, b"golden-six-dozens"),
    "durak-dice": (4, {"games": 2}, b"golden-durak-dice"),
}


def _line(event: object) -> str:
    return json.dumps(encode(event), ensure_ascii=False, separators=(",", ":"))


def playthrough(name: str) -> str:
    """The full text of the golden match of `name`."""
    game = GAMES[name]
    players, options, seed = CASES[name]
    state, opening = new_match(game, players, seed, options)
    out = [
        f"# Kozyr golden playthrough: {name}",
        f"# players {players}, options {json.dumps(options)}, seed {seed.hex()}",
        "== start",
    ]
    for event in opening:
        out += [f"  {game.describe(event)}", f"    {_line(event)}"]
    for step, (before, seat, command, events) in enumerate(
        random_playout(game, state, RandomStream(seed, "golden-moves"), 100_000), start=1
    ):
        out.append(f"== {step}. seat {seat}: {_line(command)}")
        for event in events:
            out += [f"  {game.describe(event)}", f"    {_line(event)}"]
        state = fold(game, events, before)
    outcome = game.outcome(state)
    assert outcome is not None
    out.append(f"== outcome: winners {list(outcome.winners)}, scores {list(outcome.scores)}")
    out.append(f"   {outcome.reason}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough_replays_exactly(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    text = playthrough(name)
    if os.environ.get("KOZYR_REGOLD") or not path.exists():
        path.write_text(text, encoding="utf-8")
        if not os.environ.get("KOZYR_REGOLD"):
            pytest.fail(f"{path.name} was missing and has been written: review and commit it")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs from the rules' play"
