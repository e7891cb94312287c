"""The web port speaks Connect (binary and JSON) and gRPC-Web for the same service: the same
answers, the same refusals with the same ErrorInfo, and WatchMatch streaming, as over gRPC."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import threading
import urllib.error
import urllib.request

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2
from pyqwest import SyncClient

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1.kozyr_connect import KozyrServiceClientSync
from tests.api.helpers import auth, create, play_out
from tests.api.test_serve import SERVE, env
from tests.web.conftest import Web

SERVICE = "/kozyr.v1.KozyrService/"


def _client(web: Web, **kwargs: object) -> KozyrServiceClientSync:
    return KozyrServiceClientSync(web.url, http_client=SyncClient(), **kwargs)  # type: ignore[arg-type]


def _info(error: ConnectError) -> error_details_pb2.ErrorInfo:
    infos = [d for d in error.details if d.type_name == "google.rpc.ErrorInfo"]
    assert len(infos) == 1, error.details
    return error_details_pb2.ErrorInfo.FromString(infos[0].message_bytes)


def _post_json(
    web: Web, method: str, body: dict[str, object], token: str | None = None
) -> tuple[int, dict[str, object]]:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(web.url + SERVICE + method, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_connect_json_and_binary_answer_as_grpc(web: Web) -> None:
    status, games = _post_json(web, "ListGames", {})
    assert status == 200
    names = {g["name"] for g in games["games"]}  # type: ignore[union-attr]
    assert names == {"dix", "six-dozens", "durak-dice"}
    with _client(web) as client:
        created = client.create_match(
            pb.CreateMatchRequest(
                game="dix", seats=[pb.SeatRequest(name="ann"), pb.SeatRequest(name="")]
            )
        )
        view = client.get_match(pb.GetMatchRequest(match_id=created.match_id)).view
    grpc_view = web.server.stub().GetMatch(pb.GetMatchRequest(match_id=created.match_id)).view
    assert view == grpc_view
    assert view.status == pb.MATCH_STATUS_WAITING


def test_refusals_carry_the_same_error_info(web: Web) -> None:
    match_id, tokens = create(web.server.stub(), "dix")
    with _client(web) as client:
        with pytest.raises(ConnectError) as bad_token:
            client.get_match(
                pb.GetMatchRequest(match_id=match_id),
                headers={"authorization": "Bearer nope-not-a-token"},
            )
        assert bad_token.value.code == Code.UNAUTHENTICATED
        view = client.get_match(
            pb.GetMatchRequest(match_id=match_id), headers={"authorization": f"Bearer {tokens[0]}"}
        ).view
        waiting = 1 - view.to_act
        card = view.dix.hand[0]
        with pytest.raises(ConnectError) as refused:
            client.submit_move(
                pb.SubmitMoveRequest(
                    match_id=match_id,
                    command_id="c1",
                    move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card="2C"))),
                ),
                headers={"authorization": f"Bearer {tokens[waiting]}"},
            )
    assert refused.value.code == Code.FAILED_PRECONDITION
    info = _info(refused.value)
    assert info.reason == "NOT_YOUR_TURN" and info.metadata["rule"]
    assert info.metadata["matchId"] == match_id and info.metadata["seat"] == str(waiting)
    status, body = _post_json(web, "GetMatch", {"matchId": "../etc"})
    assert status == 400 and body["code"] == "invalid_argument"
    # No card of the hand in the refusal's text or its ErrorInfo (read from its base64, where
    # two letters of a card code can turn up by chance).
    details = body["details"]
    assert isinstance(details, list) and details
    infos = [
        error_details_pb2.ErrorInfo.FromString(base64.b64decode(d["value"] + "=="))
        for d in details
        if d["type"] == "google.rpc.ErrorInfo"
    ]
    assert len(infos) == 1 and infos[0].reason
    # The JSON also carries it decoded (Connect's `debug`): readable without base64.
    (readable,) = [d["debug"] for d in details if d["type"] == "google.rpc.ErrorInfo"]
    assert readable["reason"] == infos[0].reason == "BAD_MATCH_ID"
    assert readable["metadata"] == dict(infos[0].metadata)
    shown = [str(body["message"]), infos[0].reason, infos[0].domain, *infos[0].metadata.values()]
    assert not [text for text in shown if card in text]


def test_watch_streams_each_move_as_the_watcher_may_see_it(web: Web) -> None:
    stub = web.server.stub()
    match_id, tokens = create(stub, "dix")
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    mover = view.to_act
    with _client(web) as client:
        hand = client.get_match(
            pb.GetMatchRequest(match_id=match_id),
            headers={"authorization": f"Bearer {tokens[mover]}"},
        ).view.dix.hand
        legal = client.list_legal_moves(
            pb.ListLegalMovesRequest(match_id=match_id),
            headers={"authorization": f"Bearer {tokens[mover]}"},
        ).moves
        client.submit_move(
            pb.SubmitMoveRequest(match_id=match_id, move=legal[0], command_id="w1"),
            headers={"authorization": f"Bearer {tokens[mover]}"},
        )
        other = 1 - mover
        seen = []
        stream = client.watch_match(
            pb.WatchMatchRequest(match_id=match_id, from_version=0),
            headers={"authorization": f"Bearer {tokens[other]}"},
        )
        for update in stream:
            seen.append(update)
            if update.version == view.version + 1:
                break
    assert [u.version for u in seen] == list(range(1, view.version + 2))
    last = seen[-1].view
    assert last.seat == other and not set(last.dix.hand) & (set(hand) - set(last.dix.trick))


def test_the_results_feed_streams_by_type_as_over_grpc(web: Web) -> None:
    created = web.server.stub().CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            options={"single_hand": "true"},
            seats=[pb.SeatRequest(bot="random:seed=1"), pb.SeatRequest(bot="random:seed=2")],
        )
    )
    with _client(web) as client:
        for event in client.watch_events(
            pb.WatchEventsRequest(types=["match.ended"]), timeout_ms=30_000
        ):
            assert event.type == "match.ended"
            if event.match_id == created.match_id:
                break
    final = web.server.stub().GetMatch(pb.GetMatchRequest(match_id=created.match_id)).view
    assert (event.version, list(event.outcome.winners)) == (
        final.version,
        list(final.outcome.winners),
    )


def test_the_page_is_served_with_a_strict_policy(web: Web) -> None:
    with urllib.request.urlopen(web.url + "/", timeout=30) as answer:
        assert answer.status == 200
        assert "default-src 'self'" in answer.headers["content-security-policy"]
        assert b"<html" in answer.read().lower()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(web.url + "/no-such-file", timeout=30)
    assert missing.value.code == 404


def test_grpc_web_answers_the_same_with_the_same_refusals(web: Web) -> None:
    match_id, tokens = create(web.server.stub(), "durak-dice")
    with _client(web, protocol=ProtocolType.GRPC_WEB) as client:
        view = client.get_match(
            pb.GetMatchRequest(match_id=match_id), headers={"authorization": f"Bearer {tokens[0]}"}
        ).view
        assert view.seat == 0 and view.durak_dice.hand
        assert (
            view
            == web.server.stub()
            .GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(tokens[0]))
            .view
        )
        with pytest.raises(ConnectError) as unknown:
            client.get_match(pb.GetMatchRequest(match_id="nosuchmatch"))
    assert unknown.value.code == Code.NOT_FOUND
    assert _info(unknown.value).reason == "MATCH_NOT_FOUND"


def test_inspect_replay_verifies_a_stored_match_and_a_file(web: Web) -> None:
    stub = web.server.stub()
    match_id, tokens = create(stub, "dix", options={"single_hand": "true"})
    with _client(web) as client:
        with pytest.raises(ConnectError) as early:
            client.inspect_replay(pb.InspectReplayRequest(match_id=match_id))
        assert early.value.code == Code.PERMISSION_DENIED
        play_out(stub, match_id, tokens)
        last = client.inspect_replay(pb.InspectReplayRequest(match_id=match_id))
        assert last.status == "VERIFIED" and last.version == last.versions > 10
        assert "VERIFIED" in last.report and last.view.status == pb.MATCH_STATUS_FINISHED
        step = client.inspect_replay(
            pb.InspectReplayRequest(match_id=match_id, version=5, as_seat=1)
        )
        assert step.view.seat == 1 and len(step.view.dix.hand) > 0 and step.events
        spectator = client.inspect_replay(
            pb.InspectReplayRequest(match_id=match_id, version=5, spectator=True)
        )
        assert not spectator.view.dix.hand
        assert not set(step.view.dix.hand) & set(spectator.text.split())
        lines = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
        from kozyr.replay import archive

        text = archive.dumps(
            archive.build([archive.RawEntry(e.version, e.canonical_json, e.hash) for e in lines])
        )
        same = client.inspect_replay(
            pb.InspectReplayRequest(replay_file=text, version=5, as_seat=1)
        )
        assert same.view == step.view and same.status == "VERIFIED"
        tampered = client.inspect_replay(
            pb.InspectReplayRequest(replay_file=text.replace('"seat":1', '"seat":0', 1), version=1)
        )
        assert tampered.status == "NOT_VERIFIED"
        junk = client.inspect_replay(pb.InspectReplayRequest(replay_file="not json"))
        assert junk.status == "UNREADABLE" and not junk.HasField("view")
        with pytest.raises(ConnectError) as no_step:
            client.inspect_replay(pb.InspectReplayRequest(match_id=match_id, version=9999))
        assert _info(no_step.value).reason == "NO_SUCH_VERSION"


def test_kozyr_serve_web_port_prints_its_address_and_stops_with_open_watches(
    tmp_path: object,
) -> None:
    proc = subprocess.Popen(
        [*SERVE, "--data-dir", str(tmp_path), "--address", "127.0.0.1:0", "--web-port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert proc.stderr is not None
    url = ""
    try:
        for _ in range(200):  # bounded: the lines before "serving"
            line = proc.stderr.readline()
            if line.startswith("kozyr: web table on "):
                url = line.split(" on ", 1)[1].strip().rstrip("/")
            if not line or '"serving"' in line:
                break
        assert url.startswith("http://127.0.0.1:"), url
        threading.Thread(target=lambda: list(proc.stderr or ()), daemon=True).start()
        with urllib.request.urlopen(url + "/app.js", timeout=30) as answer:
            assert answer.headers["content-type"].startswith("text/javascript")
        client = KozyrServiceClientSync(url, http_client=SyncClient())
        created = client.create_match(
            pb.CreateMatchRequest(
                game="dix", seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="")]
            )
        )
        watching = threading.Event()

        def watch() -> None:
            for _ in client.watch_match(
                pb.WatchMatchRequest(match_id=created.match_id),
                headers=dict(auth(created.tokens[0].token)),
            ):
                watching.set()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert watching.wait(30)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
    assert code == 0


def test_the_web_port_socket_is_tcp_so_answers_go_out_without_delay(web: Web) -> None:
    # asyncio turns TCP_NODELAY on only for sockets that name IPPROTO_TCP; with proto 0 every
    # answer written in two parts waited for the client's delayed ACK (~40 ms a call).
    import socket

    listening = [s for server in web.port.server.servers for s in server.sockets]
    assert listening and all(s.proto == socket.IPPROTO_TCP for s in listening)


def test_undecodable_bodies_are_refused_as_on_the_grpc_port(web: Web) -> None:
    for body, kind in (
        (b"{nope", "application/json"),
        (b'{"matchId": 5}', "application/json"),
        (b"\xff\xff\xff", "application/proto"),
    ):
        request = urllib.request.Request(
            web.url + SERVICE + "GetMatch", body, {"content-type": kind}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 400
        text = refused.value.read()
        if kind == "application/json":
            error = json.loads(text)
            assert error["code"] == "invalid_argument"
            assert "GetMatch request" in error["message"] and "nope" not in error["message"]
            assert error["details"][0]["type"] == "google.rpc.ErrorInfo"
