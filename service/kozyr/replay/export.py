"""Export a match from a running server into a replay file (the imperative shell).

It asks the server for the full log (GetMatchLog: with the arbiter token, or any token — or
none — once the match has ended) and writes the header, the entries exactly as the server holds
them (canonical content and recorded hash) and the footer. It checks nothing: a replay is
evidence, and judging it is `kozyr replay verify`'s job.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kozyr.core.receipts import Receipt
from kozyr.replay import archive


class ExportError(Exception):
    """The server refused or could not be reached; the message says why."""

    @property
    def reason(self) -> str:
        """The first word of the message: the gRPC code (and reason) of the refusal."""
        return str(self).split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class Exported:
    """What was written."""

    match_id: str
    game: str
    entries: int
    finished: bool
    text: str


def fetch_log(
    address: str, match_id: str, token: str | None, *, tls: bool = False, timeout: float = 30.0
) -> list[archive.RawEntry]:
    """The match's log entries from the server at `address`."""
    import grpc  # the offline tools (verify, show) must not need grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    channel = (
        grpc.secure_channel(address, grpc.ssl_channel_credentials())
        if tls
        else grpc.insecure_channel(address)
    )
    try:
        stub = kozyr_pb2_grpc.KozyrServiceStub(channel)
        response = stub.GetMatchLog(
            pb.GetMatchLogRequest(match_id=match_id), metadata=metadata, timeout=timeout
        )
    except grpc.RpcError as e:
        raise ExportError(_rpc_error_text(e)) from None
    finally:
        channel.close()
    return [
        archive.RawEntry(
            e.version,
            e.canonical_json,
            e.hash,
            receipt_of(e.receipt) if e.HasField("receipt") else None,
        )
        for e in response.entries
    ]


def receipt_of(message: Any) -> Receipt:
    """The receipt a `Receipt` message carries (the log's, a watch's or a move's answer)."""
    return Receipt(
        message.match_id,
        message.version,
        message.entry_hash,
        message.commitment,
        message.key_id,
        message.signature.hex(),
        message.time_ms or None,
    )


def _rpc_error_text(error: Any) -> str:
    from kozyr_client.errors import KozyrError  # a refusal's reason, from its ErrorInfo

    refused = KozyrError.from_rpc_error(error)
    reason = "" if refused.transport else f" {refused.reason}"
    return f"{refused.code.name}{reason}: {refused.message}"


def export(address: str, match_id: str, token: str | None, *, tls: bool = False) -> Exported:
    """Fetch a match's log and build its replay file text."""
    entries = fetch_log(address, match_id, token, tls=tls)
    if not entries:
        raise ExportError(f"the server returned no entries for match {match_id!r}")
    try:
        lines = archive.build(entries)
    except (KeyError, TypeError, ValueError) as e:
        raise ExportError(f"the server's log cannot be read: {e}") from None
    header, footer = lines[0], lines[-1]
    return Exported(
        match_id, str(header["game"]), len(entries), bool(footer["finished"]), archive.dumps(lines)
    )


def write_text(path: str, text: str) -> None:
    """Write a file atomically (a half-written replay would read as tampered); ``-`` is
    stdout."""
    if path == "-":
        import sys

        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
