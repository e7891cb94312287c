"""A loopback TCP proxy that breaks gRPC connections on purpose, for the clients' retry tests.

It forwards bytes both ways between a client and the real server and reads the server's HTTP/2
frames as they pass. Armed with `cut_next_response()`, it closes the connection at the first
HEADERS or DATA frame of a call (stream id > 0) instead of forwarding it: the server has then
done the work (a unary answer is sent only once the handler returned), but the client never
hears of it — exactly the case where a careless retry would move twice. `cut_all()` drops every
open connection (a network blip under a watch stream).
"""

from __future__ import annotations

import contextlib
import socket
import threading

FRAME_HEADER = 9
DATA, HEADERS = 0, 1


class Proxy:
    """Forwards 127.0.0.1:<port> to an upstream address; see the module docstring."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self.cuts = 0
        self._armed = threading.Event()
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut_next_response(self) -> None:
        """Drop the connection at the next call's response instead of delivering it."""
        self._armed.set()

    def cut_all(self) -> None:
        """Close every open connection now."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            self._close(pair)
        self.cuts += len(pairs)

    def close(self) -> None:
        """Stop listening and drop every connection."""
        self._closed = True
        self.listener.close()
        self.cut_all()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            pair = (client, server)
            with self._lock:
                self._pairs.append(pair)
            threading.Thread(target=self._upstream, args=(pair,), daemon=True).start()
            threading.Thread(target=self._downstream, args=(pair,), daemon=True).start()

    def _upstream(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, server = pair
        try:
            while data := client.recv(65536):
                server.sendall(data)
        except OSError:
            pass
        self._close(pair)

    def _downstream(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, server = pair
        buffer = b""
        try:
            while data := server.recv(65536):
                buffer += data
                # Forward whole frames only, so the cut falls between two of them.
                while len(buffer) >= FRAME_HEADER:
                    length = int.from_bytes(buffer[:3], "big")
                    if len(buffer) < FRAME_HEADER + length:
                        break
                    kind = buffer[3]
                    stream = int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
                    if kind in (DATA, HEADERS) and stream > 0 and self._armed.is_set():
                        self._armed.clear()
                        self.cuts += 1
                        self._close(pair)
                        return
                    client.sendall(buffer[: FRAME_HEADER + length])
                    buffer = buffer[FRAME_HEADER + length :]
        except OSError:
            pass
        self._close(pair)

    def _close(self, pair: tuple[socket.socket, socket.socket]) -> None:
        for sock in pair:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        with self._lock:
            if pair in self._pairs:
                self._pairs.remove(pair)
