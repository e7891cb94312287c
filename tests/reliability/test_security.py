"""Security at the edge (issue 13, finding 8): TLS with optional client certificates, the
arbiter token never on the command line, revocable tokens, reflection that can be turned off."""

from __future__ import annotations

import datetime
from pathlib import Path

import grpc
import pytest
import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.api.auth.arbiter import Arbiter, ArbiterTokenError, revoke
from kozyr.server.tls import Tls
from tests.api.edge_server import EdgeServer, details
from tests.api.helpers import auth, create


def certificate(
    name: str, issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None = None
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey, bytes, bytes]:
    """A certificate for `name` (self-signed, or signed by `issuer`), with PEM cert and key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    signer_cert, signer_key = issuer if issuer else (None, key)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(signer_cert.subject if signer_cert else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
        .sign(signer_key, hashes.SHA256())
    )
    pem_key = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert, key, cert.public_bytes(serialization.Encoding.PEM), pem_key


def tls_stub(
    port: int, root: bytes, client: tuple[bytes, bytes] | None = None
) -> kozyr_pb2_grpc.KozyrServiceStub:
    creds = grpc.ssl_channel_credentials(
        root_certificates=root,
        private_key=client[1] if client else None,
        certificate_chain=client[0] if client else None,
    )
    channel = grpc.secure_channel(
        f"localhost:{port}", creds, options=[("grpc.use_local_subchannel_pool", 1)]
    )
    return kozyr_pb2_grpc.KozyrServiceStub(channel)


def test_the_server_speaks_tls_and_refuses_plain_text(redis_url: str) -> None:
    _, _, cert, key = certificate("localhost")
    srv = EdgeServer(redis_url, tls=Tls(cert, key))
    try:
        games = tls_stub(srv.running.port, cert).ListGames(pb.ListGamesRequest(), timeout=30)
        assert {g.name for g in games.games} == {"dix", "six-dozens", "durak-dice"}
        with pytest.raises(grpc.RpcError) as error:
            srv.stub().ListGames(pb.ListGamesRequest(), timeout=30)
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    finally:
        srv.stop()


def test_client_certificates_are_required_with_a_client_ca(redis_url: str) -> None:
    ca_cert, ca_key, ca_pem, _ = certificate("kozyr test CA")
    _, _, server_pem, server_key = certificate("localhost", (ca_cert, ca_key))
    _, _, client_pem, client_key = certificate("player", (ca_cert, ca_key))
    _, _, stranger_pem, stranger_key = certificate("stranger")  # signed by nobody we trust
    srv = EdgeServer(redis_url, tls=Tls(server_pem, server_key, client_ca=ca_pem))
    try:
        port = srv.running.port
        assert (
            tls_stub(port, ca_pem, (client_pem, client_key))
            .ListGames(pb.ListGamesRequest(), timeout=30)
            .games
        )
        for client in (None, (stranger_pem, stranger_key)):
            with pytest.raises(grpc.RpcError) as error:
                tls_stub(port, ca_pem, client).ListGames(pb.ListGamesRequest(), timeout=30)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    finally:
        srv.stop()


def test_reflection_can_be_turned_off(redis_url: str) -> None:
    def services(srv: EdgeServer) -> grpc.StatusCode | list[str]:
        stub = reflection_pb2_grpc.ServerReflectionStub(srv.channel())
        try:
            answers = list(
                stub.ServerReflectionInfo(
                    iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=30
                )
            )
        except grpc.RpcError as e:
            return e.code()  # type: ignore[attr-defined,no-any-return]
        return [s.name for s in answers[0].list_services_response.service]

    on, off = EdgeServer(redis_url), EdgeServer(redis_url, reflection_on=False)
    try:
        assert "kozyr.v1.KozyrService" in services(on)  # type: ignore[operator]
        assert services(off) == grpc.StatusCode.UNIMPLEMENTED
    finally:
        on.stop()
        off.stop()


def test_a_revoked_seat_token_is_unauthenticated_everywhere(
    redis_url: str, redis_client: redis.Redis
) -> None:
    first, second = EdgeServer(redis_url), EdgeServer(redis_url)
    try:
        match_id, tokens = create(first.stub(), "dix")
        request = pb.ListLegalMovesRequest(match_id=match_id)
        for srv in (first, second):  # both servers have the token in their caches now
            srv.stub().ListLegalMoves(request, metadata=auth(tokens[0]))
        assert revoke(redis_client, match_id, seat=0) == 1
        for srv in (first, second):
            got = None
            for _ in range(200):  # the announcement reaches each server's listener
                try:
                    srv.stub().ListLegalMoves(request, metadata=auth(tokens[0]))
                except grpc.RpcError as e:
                    got = details(e)
                    break
            assert got is not None and got["reason"] == "BAD_TOKEN"
            assert got["code"] == grpc.StatusCode.UNAUTHENTICATED
            srv.stub().ListLegalMoves(request, metadata=auth(tokens[1]))  # the other seat plays on
        assert revoke(redis_client, match_id, token=tokens[0]) == 0
        assert revoke(redis_client, match_id, token=tokens[1]) == 1
    finally:
        first.stop()
        second.stop()


def test_the_arbiter_token_comes_from_a_file_and_a_reload_revokes_it(tmp_path: Path) -> None:
    path = tmp_path / "arbiter"
    path.write_text("old-arbiter-token-0123456789\n")
    arbiter = Arbiter.from_sources(str(path), env={})
    assert arbiter is not None and arbiter.matches("old-arbiter-token-0123456789")
    path.write_text("new-arbiter-token-0123456789\n")
    arbiter.reload()  # what SIGHUP does
    assert not arbiter.matches("old-arbiter-token-0123456789")
    assert arbiter.matches("new-arbiter-token-0123456789")
    path.write_text("short")
    with pytest.raises(ArbiterTokenError):
        arbiter.reload()
    assert not arbiter.matches("new-arbiter-token-0123456789")  # no arbiter rather than a stale one
    env = Arbiter.from_sources(None, env={"KOZYR_ARBITER_TOKEN": "env-arbiter-token-0123"})
    assert env is not None and env.matches("env-arbiter-token-0123")
    assert Arbiter.from_sources(None, env={}) is None


def test_the_arbiter_token_is_no_longer_a_command_line_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kozyr.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--arbiter-token", "visible-in-ps-0123456789"])
    assert "unrecognized arguments" in capsys.readouterr().err


def test_the_arbiter_of_a_server_reads_any_log(redis_url: str) -> None:
    srv = EdgeServer(redis_url, arbiter=Arbiter("served-arbiter-token-0123"))
    try:
        stub = srv.stub()
        match_id, _ = create(stub, "dix")
        log = stub.GetMatchLog(
            pb.GetMatchLogRequest(match_id=match_id), metadata=auth("served-arbiter-token-0123")
        )
        assert log.entries[0].version == 1
        with pytest.raises(grpc.RpcError) as error:
            stub.GetMatchLog(
                pb.GetMatchLogRequest(match_id=match_id), metadata=auth("someone-elses-token-0123")
            )
        assert details(error.value)["code"] in (
            grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.PERMISSION_DENIED,
        )
    finally:
        srv.stop()
