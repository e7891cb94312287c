"""Connections spread evenly over the processes behind one server address.

`kozyr serve --workers N` runs N processes on one port, and the kernel hands each new
connection to one of them at random: a client's few connections often all reach one process
while the others idle. A match's record is cached by the process that created it, so a client
that plays many matches (a tournament worker, a bot serving many seats) does best with its
matches spread over connections that reach every process:

    clients = spread_connections("127.0.0.1:50051", 4)   # taken from each process in turn

Each connection asks which process answers it (`KozyrClient.server_process`, the
`ListGamesResponse.process` tag).
"""

from __future__ import annotations

import itertools

from kozyr_client.client import KozyrClient

# A connection of its own: gRPC gives all of a process's channels to one address a single TCP
# connection unless each has a subchannel pool of its own.
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)


def spread_connections(address: str, count: int, probes: int | None = None) -> list[KozyrClient]:
    """`count` connections to `address`, spread evenly over the server processes behind it
    and taken from each in turn: at least half of `probes` (default 4 × `count`) connections
    are opened (to see every process), more up to `probes` until each process seen has its
    share; the extra ones are closed. A failing probe closes them all and raises."""
    probes = 4 * count if probes is None else probes
    by_process: dict[str, list[KozyrClient]] = {}
    opened = 0
    while opened < probes and (opened < probes // 2 or not _even(by_process, count)):
        client = KozyrClient(address, options=[OWN_CONNECTION])
        opened += 1
        try:
            tag = client.server_process()
        except BaseException:  # the server is away: close what was opened, say so
            for c in [client, *itertools.chain.from_iterable(by_process.values())]:
                c.close()
            raise
        by_process.setdefault(tag, []).append(client)
    groups = list(by_process.values())
    turns = itertools.chain.from_iterable(itertools.zip_longest(*groups))
    kept = [c for c in turns if c is not None][:count]
    for group in groups:
        for client in group:
            if client not in kept:
                client.close()
    return kept


def _even(by_process: dict[str, list[KozyrClient]], count: int) -> bool:
    share = -(-count // max(1, len(by_process)))
    return all(len(group) >= share for group in by_process.values())
