"""Fuzzing every RPC on a real server (issue 13): random messages built field by field from the
protobuf descriptors, and raw random bytes. Every answer is OK or a precise status with an
ErrorInfo (never UNKNOWN, never INTERNAL), the server stays SERVING, and its memory stays
bounded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.wire.status import error_info
from tests.api.edge_server import EdgeServer
from tests.api.helpers import create

pytestmark = pytest.mark.slow

SERVICE = pb.DESCRIPTOR.services_by_name["KozyrService"]
METHODS = {m.name: m for m in SERVICE.methods}
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# The server lives in this process: its RSS is ours. Generous: a leak per call shows far above.
RSS_BOUND = 200 * 1024 * 1024

INTS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
}


def rss() -> int:
    """This process's resident set size, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class Shared:
    """The server, a real match and its tokens: texts the fuzzer mixes in so that calls get
    past the first checks."""

    def __init__(self, srv: EdgeServer) -> None:
        self.srv = srv
        self.match_id, self.tokens = create(srv.stub(), "dix")
        self.texts = [
            self.match_id,
            "",
            "dix",
            "durak-dice",
            "AH",
            "10S",
            "x" * 70,
            "target",
            "1 2 3",
            "\x00",
            "名前",
        ]


def scalar(field: FieldDescriptor, shared: Shared) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in INTS:
        low, high = INTS[kind]
        return st.one_of(st.integers(low, high), st.sampled_from([low, high, -1, 0, 1, 2]))
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=100)
    if kind == FieldDescriptor.TYPE_STRING:
        return st.one_of(st.sampled_from(shared.texts), st.text(max_size=80))
    return st.floats(allow_nan=False)


@st.composite
def message(draw: st.DrawFn, descriptor: Descriptor, shared: Shared, depth: int = 0) -> Message:
    """A random message of `descriptor`'s type, field by field (oneofs keep the last set)."""
    msg = _class(descriptor)()
    for field in descriptor.fields:
        if not draw(st.booleans()):
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entries = draw(st.dictionaries(st.text(max_size=20), st.text(max_size=20), max_size=4))
            getattr(msg, field.name).update(entries)
        elif field.message_type is not None:
            if depth >= 3:
                continue
            items = (
                draw(st.lists(message(field.message_type, shared, depth + 1), max_size=3))
                if field.is_repeated
                else [draw(message(field.message_type, shared, depth + 1))]
            )
            target = getattr(msg, field.name)
            for item in items:
                (target.add() if field.is_repeated else target).CopyFrom(item)
        elif field.is_repeated:
            getattr(msg, field.name).extend(draw(st.lists(scalar(field, shared), max_size=4)))
        else:
            setattr(msg, field.name, draw(scalar(field, shared)))
    return msg


def _class(descriptor: Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def metadata(draw: st.DrawFn, shared: Shared) -> list[tuple[str, str]]:
    choice = draw(st.sampled_from(["none", "seat", "junk", "two"]))
    if choice == "none":
        return []
    if choice == "seat":
        return [("authorization", f"Bearer {draw(st.sampled_from(shared.tokens))}")]
    junk = draw(
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
    )
    headers = [("authorization", junk.strip() or "Bearer")]
    return headers * 2 if choice == "two" else headers


def check(error: grpc.RpcError) -> None:
    code = error.code()  # type: ignore[attr-defined]
    assert code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), error
    assert error_info(error) is not None, f"no ErrorInfo: {code} {error.details()}"  # type: ignore[arg-type,attr-defined]


def call(shared: Shared, name: str, request: bytes, headers: list[tuple[str, str]]) -> None:
    """One call with serialized `request`: OK, or a precise error (checked)."""
    with shared.srv.channel() as channel:
        streaming = METHODS[name].server_streaming
        method = (channel.unary_stream if streaming else channel.unary_unary)(
            f"/{SERVICE.full_name}/{name}"
        )
        try:
            answer = method(request, metadata=headers, timeout=30)
            if streaming:  # the first update is enough; a live stream would wait for moves
                next(iter(answer), None)
                answer.cancel()
        except grpc.RpcError as e:
            check(e)


@pytest.fixture(scope="module")
def shared(redis_url: str) -> Iterator[Shared]:
    srv = EdgeServer(redis_url)
    yield Shared(srv)
    srv.stop()


@pytest.fixture(scope="module")
def memory(shared: Shared) -> Iterator[None]:
    before = rss()
    yield
    grown = rss() - before
    print(f"\nfuzz: server process RSS grew by {grown / 2**20:.1f} MiB")
    assert grown < RSS_BOUND
    assert shared.srv.health() == 1  # SERVING after all of it


@pytest.mark.parametrize("name", list(METHODS))
def test_random_messages_get_ok_or_a_precise_status(
    shared: Shared, memory: None, name: str
) -> None:
    descriptor = METHODS[name].input_type

    @FUZZ
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        request = data.draw(message(descriptor, shared))
        headers = metadata(data.draw, shared)
        call(shared, name, request.SerializeToString(), headers)

    fuzz()


@pytest.mark.parametrize("name", list(METHODS))
def test_random_bytes_get_ok_or_a_precise_status(shared: Shared, memory: None, name: str) -> None:
    @FUZZ
    @given(st.binary(max_size=300))
    def fuzz(raw: bytes) -> None:
        call(shared, name, raw, [])

    fuzz()
