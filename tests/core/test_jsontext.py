"""kozyr.core.jsontext writes exactly what `json` writes.

The entries' hashes chain a match's log, and arbiters recompute them offline: the canonical
text must not depend on which library wrote it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.core.fairness import RandomStream
from kozyr.core.jsontext import dumps, loads
from kozyr.games import GAMES
from kozyr.games.codec import encode
from tests.games.helpers import new_match, random_playout


def reference(data: Any, sort_keys: bool) -> str:
    return json.dumps(data, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


def test_every_event_and_command_of_played_matches_is_written_as_json_writes_it() -> None:
    seen = 0
    for name, game in GAMES.items():
        for k in range(12):
            state, opening = new_match(game, 2 if name == "dix" else 3, f"{name}/{k}".encode())
            values = [encode(e) for e in opening]
            for _, seat, command, events in random_playout(
                game, state, RandomStream(b"jsontext", str(k)), 2_000
            ):
                values.append(
                    {
                        "seat": seat,
                        "command": encode(command),
                        "events": [encode(e) for e in events],
                    }
                )
            for value in values:
                for sort_keys in (True, False):
                    text = dumps(value, sort_keys=sort_keys)
                    assert text == reference(value, sort_keys)
            seen += len(values)
    assert seen > 1_000


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(-5, 5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_any_plain_value_is_written_as_json_writes_it(value: Any) -> None:
    for sort_keys in (True, False):
        try:
            expected = reference(value, sort_keys)
        except TypeError:  # keys of mixed types cannot be sorted: json refuses them too
            continue
        text = dumps(value, sort_keys=sort_keys)
        assert text == expected
        assert _same(loads(text), json.loads(text))


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types throughout (1 == 1.0 == True would hide a float)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (a != a and b != b)  # NaN is NaN


def test_texts_are_read_as_json_reads_them() -> None:
    texts = [
        '{"n":18446744073709551616,"m":-9223372036854775809}',
        "[1e400, -1e400]",
        "[NaN, Infinity]",
        '"\\ud800"',
        '{"a":1,"a":2}',
        "[0.1, 2.5e-3, -0.0, 1E2]",
        '{"seed":"1234567890123456789abc","n":12}',
        " [ 1 , true , null ] ",
        '"Дурак🂡\\u2028"',
        "9223372036854775807",
        "18446744073709551615",
        '["\ud800"]',
        '{"n":-12345678901234567890123}',
    ]
    for text in texts:
        assert _same(loads(text), json.loads(text)), text
    for bad in ("", "[1,", "{'a': 1}", "[1] x"):
        with pytest.raises(json.JSONDecodeError):
            loads(bad)


def test_control_characters_quotes_and_non_ascii_are_escaped_as_json_escapes_them() -> None:
    value = {"s": "".join(map(chr, range(0x30))) + '"\\/\u007f\u00e9\u2028\u2029Дурак🂡'}
    assert dumps(value, sort_keys=True) == reference(value, True)
    assert dumps({"n": 2**64}) == '{"n":18446744073709551616}'  # past orjson: json writes it
    assert dumps({1: "a", "b": 2}) == '{"1":"a","b":2}'  # a key that is not a string, too
