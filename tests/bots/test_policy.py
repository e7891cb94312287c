"""The `policy:path=FILE` bot: a policy trained for seconds loads, plays only legal moves in a
tournament and as a server's bot, and a bad file or spec is refused with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots import BadBotSpec, check_spec, make_bot, parse_spec
from kozyr.config.settings import ServerConfig
from kozyr.core.jsontext import loads
from kozyr.envs.train import fit, save, teacher_samples
from kozyr.games import get_game
from kozyr.tournament.local import play_local
from kozyr.tournament.remote import play_remote
from kozyr.tournament.spec import Tournament
from kozyr_client import KozyrClient, KozyrError
from tests.conftest import ServerThread


@pytest.fixture(scope="module")
def dix_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    samples = teacher_samples("dix", 2, [("single_hand", "true")])
    params, agree = fit(samples, hidden=16, epochs=2)
    assert 0.0 <= agree <= 1.0 and len(samples.action) > 0
    path = tmp_path_factory.mktemp("policy") / "dix.npz"
    save(path, "dix", params)
    return path


def test_the_policy_plays_a_duplicate_tournament(dix_policy: Path) -> None:
    for spec in (f"policy:path={dix_policy}", f"policy:path={dix_policy},sample=true"):
        t = Tournament("dix", (spec, "random"), (("single_hand", "true"),), matches=4)
        for fixture in t.fixtures():
            result = play_local(t, fixture)  # IllegalMove would end the test
            assert result.moves == 52


def test_the_same_observation_gives_the_same_choice(dix_policy: Path) -> None:
    from kozyr.envs.table import Table

    table = Table("dix", 2, {"single_hand": True})
    seat = table.to_act
    assert seat is not None
    a = make_bot(f"policy:path={dix_policy}", get_game("dix"), seat, 1)
    b = make_bot(f"policy:path={dix_policy}", get_game("dix"), seat, 2)
    obs = table.seat_obs(seat)
    assert a.choose(obs) == b.choose(obs) and a.choose(obs) in obs.legal


def test_bad_policies_are_refused(dix_policy: Path, tmp_path: Path) -> None:
    with pytest.raises(BadBotSpec, match="policy needs its file"):
        check_spec(parse_spec("policy"))
    with pytest.raises(BadBotSpec, match="sample"):
        check_spec(parse_spec(f"policy:path={dix_policy},sample=maybe"))
    with pytest.raises(BadBotSpec, match="plays dix, not durak-dice"):
        make_bot(f"policy:path={dix_policy}", get_game("durak-dice"), 0, 0)
    with pytest.raises(BadBotSpec, match="cannot read"):
        check_spec(parse_spec(f"policy:path={tmp_path / 'none.npz'}"))
    junk = tmp_path / "junk.npz"
    np.savez(junk, format=np.array("other/1"), game=np.array("dix"))
    with pytest.raises(BadBotSpec, match="not a kozyr-policy/1 file"):
        make_bot(f"policy:path={junk}", get_game("dix"), 0, 0)


@pytest.fixture(scope="module")
def policy_server(redis_url: str, dix_policy: Path) -> Iterator[ServerThread]:
    """A server whose operator keeps its policies in the folder of the trained one."""
    server = ServerThread(redis_url, config=ServerConfig(policy_dir=str(dix_policy.parent)))
    yield server
    server.stop()


def test_a_server_refuses_a_missing_policy_when_the_match_is_created(
    policy_server: ServerThread,
) -> None:
    client = KozyrClient(policy_server.address)
    with pytest.raises(KozyrError) as refused:
        client.create_match("dix", ["me", "bot"], bots=["", "policy:path=no-such-policy.npz"])
    assert refused.value.reason == "BAD_BOT"


def test_no_request_makes_a_server_open_a_file_of_its_choosing(
    server: ServerThread, policy_server: ServerThread, dix_policy: Path
) -> None:
    """A policy is a bare file name inside the operator's policy folder: a path is refused
    before anything is opened, with the same words whether the file exists or not, and a
    server with no policy folder plays no policy bot at all."""
    client = KozyrClient(policy_server.address)
    said = set()
    for path in ("/etc/passwd", "/no/such/file.npz", "../dix.npz", ".hidden", "/tmp"):
        with pytest.raises(KozyrError) as refused:
            client.create_match("dix", ["me", "bot"], bots=["", f"policy:path={path}"])
        assert refused.value.reason == "BAD_BOT"
        said.add(refused.value.message)
    assert len(said) == 1, said
    with pytest.raises(KozyrError) as refused:
        KozyrClient(server.address).create_match(
            "dix", ["me", "bot"], bots=["", f"policy:path={dix_policy.name}"]
        )
    assert refused.value.reason == "BAD_BOT" and "no policy bots" in refused.value.message


def test_the_policy_plays_as_a_server_bot(policy_server: ServerThread, dix_policy: Path) -> None:
    client = KozyrClient(policy_server.address)
    created = client.create_match(
        "dix",
        ["me", "policy"],
        {"single_hand": "true"},
        bots=["", f"policy:path={dix_policy.name}"],
    )
    me = client.seat(created.match_id, created.tokens[0])
    final = me.play(lambda view, moves: moves[0])
    assert final.status == pb.MATCH_STATUS_FINISHED
    log = me.log()
    by_bot = [e for e in log.entries if loads(e.canonical_json)["seat"] == 1]
    assert len(by_bot) == 26


def test_the_policy_plays_through_the_clients_as_in_process(
    server: ServerThread, dix_policy: Path
) -> None:
    """A served tournament match (each bot a gRPC client, the deal prearranged) ends as the
    same fixture played in process."""
    t = Tournament("dix", (f"policy:path={dix_policy}", "random"), (("single_hand", "true"),))
    for fixture in t.fixtures()[:2]:
        served = play_remote(t, fixture, server.address)
        local = play_local(t, fixture)
        assert (served.winners, served.scores, served.moves) == (
            local.winners,
            local.scores,
            local.moves,
        )
