"""Server seeds are sealed at rest under the service's key, and still revealed at the end."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest

from kozyr.core.fairness import commitment
from kozyr.engine import Engine
from kozyr.match.errors import MatchError
from kozyr.match.log import SeedRevealed
from kozyr.secrets.seedbox import SeedBox, load_or_create
from kozyr.store.memory import MemoryStore


def test_a_match_with_a_sealed_seed_still_reveals_the_committed_one() -> None:
    async def body() -> None:
        store = MemoryStore()
        engine = Engine(store, seed_box=SeedBox(os.urandom(32)))
        match_id = (
            await engine.create("dix", {"single_hand": "true"}, [("a", b""), ("b", b"")])
        ).match_id
        meta = store._logs[match_id].meta
        assert "server_seed" not in meta and meta["sealed_seed"].startswith("v1:")
        rng = random.Random(2)
        for n in range(500):
            record = await engine.record(match_id)
            seat = record.game.to_act(record.state)
            if seat is None:
                break
            step = await engine.submit(
                match_id, seat, rng.choice(record.game.legal_commands(record.state, seat)), f"c{n}"
            )
        revealed = [e for e in step.events if isinstance(e, SeedRevealed)]
        assert (
            revealed
            and commitment(bytes.fromhex(revealed[0].server_seed)) == record.created.commitment
        )
        assert revealed[0].server_seed not in meta["sealed_seed"]
        # Another key (a replica misconfigured) cannot open it, and says so.
        other = Engine(store, seed_box=SeedBox(os.urandom(32)))
        with pytest.raises(MatchError) as refused:
            await other.server_seed(match_id)
        assert refused.value.code == "SEED_SEALED_ELSEWHERE"

    asyncio.run(body())


def test_the_key_file_is_made_once_and_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "seed.key"
    box = load_or_create(path)
    assert path.stat().st_mode & 0o777 == 0o600 and len(path.read_bytes()) == 32
    sealed = box.seal("m1", b"\x01" * 32)
    assert load_or_create(path).open("m1", sealed) == b"\x01" * 32  # the same key again
    with pytest.raises(MatchError):
        box.open("m2", sealed)  # bound to its match
