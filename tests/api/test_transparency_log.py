"""The transparency log (issue 30; docs/fairness.md §9) on a served match, with the real
embedded Redis: the log's RPCs and files, `kozyr log head | prove | monitor`,
`kozyr replay verify --tree-head`, and the refusal of a match the store holds behind the log
after a restart on a Redis restored from an older copy."""

from __future__ import annotations

import contextlib
import io
import json
import stat
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis

from kozyr import cli
from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import KeyRing
from kozyr.core.tree_heads import TreeHead, head_problem
from kozyr.secrets.signing import Signer
from kozyr.wire.status import error_info
from kozyr_client import KozyrClient, KozyrError
from tests.conftest import ServerThread


def kozyr(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(list(argv))
    return code, out.getvalue()


def resigned_match(address: str) -> str:
    """A match created and ended (seat 0 resigns): two leaves."""
    with KozyrClient(address) as client:
        created = client.create_match("dix", ["ann", "bob"])
        client.seat(created.match_id, created.tokens[0]).resign()
        return created.match_id


@pytest.fixture
def logged(redis_url: str, tmp_path: Path) -> Iterator[tuple[ServerThread, Path]]:
    """A server with a transparency log in tmp_path/data/tlog."""
    folder = tmp_path / "data" / "tlog"
    server = ServerThread(redis_url, tlog_dir=folder)
    yield server, folder
    server.stop()


def test_the_log_is_owner_only_and_its_head_verifies_with_the_key_ring(
    logged: tuple[ServerThread, Path],
) -> None:
    server, folder = logged
    resigned_match(server.address)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "leaves.jsonl").stat().st_mode) == 0o600
    with KozyrClient(server.address) as client:
        message = client.tree_head()
        assert client.kept_tree_head == message
    head = TreeHead(
        message.size,
        message.root_hash.hex(),
        message.time_ms,
        message.key_id,
        message.signature.hex(),
    )
    assert head.size >= 2
    keys = [
        k
        for k in server.signer.keys  # the ring as `kozyr keys show` lists it
    ]
    ring = KeyRing()
    from kozyr.core.receipts import GivenKey

    for k in keys:
        ring.add(GivenKey(k.public_key, k.valid_from, k.valid_until))
    assert head_problem(head, ring) is None
    forged = TreeHead(head.size, "00" * 32, head.time_ms, head.key_id, head.signature)
    assert head_problem(forged, ring) is not None


def test_proofs_and_verify_tree_head_pass_for_an_honest_export_and_fail_for_a_match_not_logged(
    logged: tuple[ServerThread, Path], redis_url: str, tmp_path: Path
) -> None:
    server, _ = logged
    match_id = resigned_match(server.address)
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"{k.public_key.hex()}  key {k.key_id}\n" for k in server.signer.keys))
    code, text = kozyr("log", "head", "--server", server.address)
    assert code == 0
    head_file = tmp_path / "head.json"
    head_file.write_text(text)
    proof = tmp_path / "proof.json"
    assert kozyr(
        "log", "prove", match_id, "--server", server.address,
        "--tree-head", str(head_file), "--out", str(proof),
    )[0] == 0  # fmt: skip
    assert [leaf["leaf"]["kind"] for leaf in json.loads(proof.read_text())["leaves"]] == [
        "created",
        "ended",
    ]
    exported = tmp_path / "m.jsonl"
    assert (
        kozyr("replay", "export", match_id, "-o", str(exported), "--server", server.address)[0] == 0
    )
    verify = ["replay", "verify", "--key", str(keys), "--tree-head", str(head_file)]
    code, text = kozyr(*verify, "--inclusion-proof", str(proof), str(exported))
    assert code == 0, text
    assert "transparency log: the commitment and final head included" in text

    # A match the log never held (played on a server without one), with that proof: refused.
    plain = ServerThread(redis_url, signer=server.signer)
    try:
        other = resigned_match(plain.address)
        other_file = tmp_path / "other.jsonl"
        kozyr("replay", "export", other, "-o", str(other_file), "--server", plain.address)
    finally:
        plain.stop()
    code, text = kozyr(*verify, "--inclusion-proof", str(proof), str(other_file))
    assert code == 1 and "NOT VERIFIED" in text and "transparency log" in text, text
    code, _ = kozyr("log", "prove", other, "--server", server.address, "--out", "-")
    assert code == 1  # NOT_IN_TRANSPARENCY_LOG


def test_the_rpcs_refuse_sizes_the_log_does_not_have(logged: tuple[ServerThread, Path]) -> None:
    server, _ = logged
    resigned_match(server.address)
    stub = server.stub()
    size = stub.GetTreeHead(pb.GetTreeHeadRequest()).tree_head.size
    inclusion, consistency = stub.GetInclusionProof, stub.GetConsistencyProof
    for call, request, reason in (
        (consistency, pb.GetConsistencyProofRequest(first_size=size + 1), "BAD_TREE_SIZE"),
        (inclusion, pb.GetInclusionProofRequest(leaf_index=0, tree_size=size + 5), "BAD_TREE_SIZE"),
        (inclusion, pb.GetInclusionProofRequest(leaf_index=size), "BAD_LEAF_INDEX"),
        (inclusion, pb.GetInclusionProofRequest(match_id="nosuch"), "NOT_IN_TRANSPARENCY_LOG"),
    ):
        with pytest.raises(grpc.RpcError) as e:
            call(request)
        assert error_info(e.value).reason == reason
    one = stub.GetInclusionProof(pb.GetInclusionProofRequest(leaf_index=0))
    assert one.tree_size == size and one.leaves[0].index == 0


def test_without_a_log_the_rpcs_say_so(server: ServerThread) -> None:
    with pytest.raises(grpc.RpcError) as e:
        server.stub().GetTreeHead(pb.GetTreeHeadRequest())
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(e.value).reason == "TRANSPARENCY_LOG_OFF"


def test_kozyr_log_monitor_reports_two_heads_of_one_size_with_different_roots(
    redis_url: str, tmp_path: Path
) -> None:
    signer = Signer.generate()
    state = str(tmp_path / "heads.json")
    first = ServerThread(redis_url, signer=signer, tlog_dir=tmp_path / "a")
    try:
        resigned_match(first.address)
        assert kozyr("log", "monitor", "--state", state, "--server", first.address)[0] == 0
        resigned_match(first.address)  # the log grows: still consistent
        code, text = kozyr("log", "monitor", "--state", state, "--server", first.address)
        assert code == 0 and "consistent" in text, text
    finally:
        first.stop()
    # The same operator's key shows a second log of the same size: a fork.
    second = ServerThread(redis_url, signer=signer, tlog_dir=tmp_path / "b")
    try:
        resigned_match(second.address)
        resigned_match(second.address)
        code, text = kozyr("log", "monitor", "--state", state, "--server", second.address)
    finally:
        second.stop()
    assert code == 1, text
    assert "FORK: two heads of size 4 with different roots" in text
    shown = json.loads(text[text.index("{") :])
    assert shown["kept"]["size"] == shown["served"]["size"] == 4
    assert shown["kept"]["root_hash"] != shown["served"]["root_hash"]


def test_a_store_restored_behind_the_log_is_refused_after_a_restart(
    redis_url: str, redis_client: redis.Redis, tmp_path: Path
) -> None:
    signer, folder = Signer.generate(), tmp_path / "data" / "tlog"
    server = ServerThread(redis_url, signer=signer, tlog_dir=folder)
    try:
        with KozyrClient(server.address) as client:
            created = client.create_match("dix", ["ann", "bob"])
            match_id = created.match_id
            raw = redis.Redis.from_url(redis_url)
            older = {k: raw.dump(k) for k in raw.scan_iter(f"kozyr:{{{match_id}}}:*")}
            client.seat(match_id, created.tokens[0]).resign()
    finally:
        server.stop()
    # Restarted on the same store and log: the match reads as it ended.
    server = ServerThread(redis_url, signer=signer, tlog_dir=folder)
    try:
        with KozyrClient(server.address) as client:
            assert (
                client.seat(match_id, created.tokens[1]).view().status == pb.MATCH_STATUS_FINISHED
            )
    finally:
        server.stop()
    # The Redis restored from the copy taken before the resignation, the same data folder.
    for key in list(raw.scan_iter(f"kozyr:{{{match_id}}}:*")):
        raw.delete(key)
    for key, value in older.items():
        raw.restore(key, 0, value, replace=True)
    server = ServerThread(redis_url, signer=signer, tlog_dir=folder)
    try:
        with KozyrClient(server.address) as client:
            seat = client.seat(match_id, created.tokens[1])
            for act in (seat.view, seat.resign, seat.log):
                with pytest.raises(KozyrError) as e:
                    act()
                assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION
                assert e.value.reason == "MATCH_ROLLED_BACK"
                # created (and contributed to, by create_match) at `created.version`: resigned
                assert f"ended at version {created.version + 1}" in e.value.message
    finally:
        server.stop()
        raw.close()


def test_kozyr_plays_keeper_saves_the_tree_head_and_proof_that_verify_offline(
    logged: tuple[ServerThread, Path], tmp_path: Path
) -> None:
    from kozyr.terminal.keep import Keeper

    server, _ = logged
    folder = tmp_path / "kept"
    with KozyrClient(server.address) as client:
        created = client.create_match("dix", ["ann", "bob"])
        seat = client.seat(created.match_id, created.tokens[0], [created.receipt])
        keeper = Keeper(folder, server.address)
        keeper.started(client, created.match_id, seat)
        seat.resign()
        lines = keeper.save()
    name = created.match_id
    assert any("--tree-head" in line for line in lines), lines
    code, text = kozyr(
        "replay", "verify", str(folder / f"{name}.jsonl"),
        "--key", str(folder / f"{name}.key"),
        "--receipts", str(folder / f"{name}.receipts.jsonl"),
        "--tree-head", str(folder / f"{name}.tree-head.json"),
        "--inclusion-proof", str(folder / f"{name}.proof.json"),
    )  # fmt: skip
    assert code == 0 and "transparency log: the commitment and final head" in text, text
