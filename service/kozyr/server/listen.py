"""Whether an address can be listened on, and who holds it if not (imports no gRPC: a refused
`kozyr serve` answers before loading the service)."""

from __future__ import annotations

import contextlib
import errno
import socket
from pathlib import Path


class CannotListen(RuntimeError):
    """The address cannot be bound (the message says why, and who holds it when we can tell)."""


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    try:
        return host.strip("[]") or "0.0.0.0", int(port)
    except ValueError:
        raise CannotListen(f"cannot listen on {address!r}: write host:port") from None


def check_address(address: str) -> None:
    """Raise CannotListen (naming the holder's pid when we can find it) if `address` is taken.

    A probe bind with SO_REUSEADDR, as gRPC binds: it fails only for a socket that listens.
    """
    host, port = _split(address)
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise CannotListen(f"cannot listen on {address}: {e.strerror}") from None
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(sockaddr)
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise CannotListen(f"cannot listen on {address}: {e.strerror}") from None
            holder = listening_pid(port)
            who = f"pid {holder}" if holder else "another process"
            raise CannotListen(f"cannot listen on {address}: the port is in use by {who}") from None


def listening_pid(port: int) -> int | None:
    """The pid of a process of ours listening on TCP `port` (Linux /proc), else None."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if fd.readlink().name in inodes or str(fd.readlink()) in inodes:
                        return int(proc.name)
    return None
