"""A play session's pushes are built in place in the message that carries them."""

from __future__ import annotations

import asyncio

import pytest

from kozyr.api.session import MAX_PUSHES_PER_MESSAGE, Session
from kozyr.engine import Engine
from kozyr.store.memory import MemoryStore


def test_a_push_whose_making_fails_leaves_nothing_behind() -> None:
    async def go() -> None:
        session = Session(Engine(MemoryStore()), asyncio.Event())
        with session._push() as push:
            push.refusal.reason = "FIRST"
        with pytest.raises(ValueError), session._push() as push:
            push.refusal.reason = "HALF"
            raise ValueError("the view could not be made")
        assert [[p.refusal.reason for p in m.pushes] for m in session._out] == [["FIRST"]]
        for _ in range(MAX_PUSHES_PER_MESSAGE - 1):
            with session._push() as push:
                push.refusal.reason = "MORE"
        with pytest.raises(ValueError), session._push():  # would open a second message
            raise ValueError("no")
        assert [len(m.pushes) for m in session._out] == [MAX_PUSHES_PER_MESSAGE]

    asyncio.run(go())
