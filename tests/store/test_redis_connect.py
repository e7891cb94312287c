"""redis-py's errors as the engine sees them: a torn write is a lost store, our bugs stay bugs.

During a cluster failover a watcher's read failed inside redis-py with AttributeError
("'NoneType' object has no attribute 'writelines'": the connection was closed under the
write, redis-py #4287) and reached the client as INTERNAL, ending its watch. Such an error,
raised inside redis-py's connection write path, is now UNAVAILABLE, which clients retry.
"""

from __future__ import annotations

from typing import Any

import pytest

from kozyr.match.errors import Kind, MatchError
from kozyr.store.redis.connect import store_error, torn_write, translated


def raised_in(path: str, error: BaseException, via: str | None = None) -> BaseException:
    """`error` raised by a function compiled as if from `path` (called from one compiled as if
    from `via`, when given)."""
    inner: dict[str, Any] = {}
    exec(compile("def fail(e):\n    raise e\n", path, "exec"), inner)
    outer: dict[str, Any] = {}
    exec(compile("def call(f, e):\n    f(e)\n", via or path, "exec"), outer)
    try:
        if via is None:
            inner["fail"](error)
        outer["call"](inner["fail"], error)
    except BaseException as e:  # handed back to look at
        return e
    raise AssertionError("nothing raised")


SITE = "/venv/lib/python3.11/site-packages/"


def test_a_write_on_a_connection_closed_under_it_is_a_lost_store() -> None:
    for error in (
        AttributeError("'NoneType' object has no attribute 'writelines'"),
        TypeError("'NoneType' object is not callable"),
    ):
        inside = raised_in(SITE + "redis/asyncio/connection.py", error)
        deeper = raised_in(
            "/usr/lib/python3.11/asyncio/selector_events.py",
            error,
            via=SITE + "redis/asyncio/connection.py",
        )
        for e in (inside, deeper):
            assert torn_write(e)
            made = store_error(e)
            assert made is not None
            assert (made.kind, made.code) == (Kind.UNAVAILABLE, "STORE_UNAVAILABLE")
        with pytest.raises(MatchError) as caught, translated():
            raise inside
        assert caught.value.kind is Kind.UNAVAILABLE


def test_the_same_errors_from_elsewhere_stay_what_they_are() -> None:
    ours = raised_in(
        "/work/service/kozyr/store/redis/streams.py",
        AttributeError("'NoneType' object has no attribute 'writelines'"),
    )
    streams_alone = raised_in("/usr/lib/python3.11/asyncio/streams.py", TypeError("bad"))
    other_in_redis = raised_in(SITE + "redis/asyncio/connection.py", ValueError("bad"))
    for e in (ours, streams_alone, other_in_redis, AttributeError("never raised")):
        assert not torn_write(e) and store_error(e) is None
    with pytest.raises(AttributeError), translated():
        raise ours
