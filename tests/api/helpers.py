"""Small client-side helpers for the API tests (they use the generated stubs only)."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import grpc

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc
from kozyr.games.codec import class_of
from kozyr.match.log import Entry, SeedRevealed, decode_events
from kozyr.match.record import MatchRecord, apply_entry
from kozyr.wire.status import error_info

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
Stub = kozyr_pb2_grpc.KozyrServiceStub


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a bearer token (none for a spectator)."""
    return [] if token is None else [("authorization", f"Bearer {token}")]


def create(
    stub: Stub,
    game: str,
    players: int | None = None,
    options: dict[str, str] | None = None,
    **kwargs: Any,
) -> tuple[str, list[str]]:
    """Create a match with every seat named; its id and the tokens in seat order."""
    n = players or PLAYERS[game]
    response = stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game,
            options=options or {},
            seats=[pb.SeatRequest(name=f"p{i}") for i in range(n)],
            **kwargs,
        )
    )
    tokens = sorted(response.tokens, key=lambda t: t.seat)
    return response.match_id, [t.token for t in tokens]


def play_one(
    stub: Stub, match_id: str, tokens: Sequence[str], rng: random.Random
) -> pb.SubmitMoveResponse | None:
    """The seat to act plays a random legal move; None when the match is over."""
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    if view.status == pb.MATCH_STATUS_FINISHED:
        return None
    seat = view.to_act
    legal = stub.ListLegalMoves(
        pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[seat])
    ).moves
    if not legal:  # another client of this seat moved in between
        return pb.SubmitMoveResponse(version=view.version)
    move = legal[rng.randrange(len(legal))]
    return stub.SubmitMove(
        pb.SubmitMoveRequest(match_id=match_id, move=move, command_id=uuid.uuid4().hex),
        metadata=auth(tokens[seat]),
    )


def play_out(
    stub: Stub, match_id: str, tokens: Sequence[str], seed: int = 0, limit: int = 20_000
) -> int:
    """Play random legal moves to the end; the number of moves."""
    rng = random.Random(seed)
    for n in range(limit):
        if play_one(stub, match_id, tokens, rng) is None:
            return n
    raise AssertionError("the match did not end")


def reason(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call."""
    info = error_info(error)  # type: ignore[arg-type]
    assert info is not None, "every error must carry an ErrorInfo"
    return str(info.reason)


class Watcher(threading.Thread):
    """Collects a WatchMatch stream in the background."""

    def __init__(self, stub: Stub, match_id: str, token: str | None, from_version: int = 0):
        super().__init__(daemon=True)
        self.stub, self.match_id, self.token, self.from_version = (
            stub,
            match_id,
            token,
            from_version,
        )
        self.updates: list[pb.MatchUpdate] = []
        self.raw: list[bytes] = []
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        try:
            for update in self.stub.WatchMatch(
                pb.WatchMatchRequest(match_id=self.match_id, from_version=self.from_version),
                metadata=auth(self.token),
            ):
                self.updates.append(update)
                self.raw.append(update.SerializeToString())
        except Exception as e:  # reported by the test
            self.error = e


def forbidden_by_version(
    log: Sequence[pb.LogEntry], viewers: Sequence[int | None]
) -> tuple[dict[tuple[int | None, int], set[str]], list[bytes], int]:
    """Fold a finished match's public log: for each (viewer, version), the cards that viewer
    may not know then (hidden from it before and after the entry, and never face up so far);
    with the seeds (secret until the final entry) and the final version."""
    forbidden: dict[tuple[int | None, int], set[str]] = {}
    record: MatchRecord | None = None
    ever_public: set[str] = set()
    hidden_before: dict[int | None, set[str]] = {v: set() for v in viewers}
    secrets: list[bytes] = []
    for item in log:
        entry = Entry.from_canonical(item.canonical_json)
        state = None if record is None else record.state
        record = apply_entry(record, entry)
        game_rules = record.game
        for event in decode_events(game_rules, entry):
            seed = getattr(event, "seed", b"")
            if isinstance(seed, bytes) and seed:
                secrets += [seed.hex().encode(), seed]
            if isinstance(event, SeedRevealed):
                secrets.append(event.server_seed.encode())
            if type(event) in {class_of(t) for t in game_rules.EVENT_TYPES}:
                # Step through the entry event by event: a card that lay face up at any moment
                # (a trick taken and a new hand dealt in one entry) is public from then on.
                state = game_rules.evolve(state, event)
                zones = game_rules.zones(state)  # type: ignore[attr-defined]
                secret = set(game_rules.hidden_zones(state, None))  # type: ignore[attr-defined]
                ever_public |= {
                    c.code for name, cs in zones.items() if name not in secret for c in cs
                }
        if not record.started:
            continue
        state = record.state
        zones = game_rules.zones(state)  # type: ignore[attr-defined]
        for viewer in viewers:
            hidden_names = set(game_rules.hidden_zones(state, viewer))  # type: ignore[attr-defined]
            hidden = {c.code for name in hidden_names for c in zones.get(name, ())}
            forbidden[(viewer, item.version)] = (hidden & hidden_before[viewer]) - ever_public
            hidden_before[viewer] = hidden
    assert record is not None and record.finished and secrets
    return forbidden, secrets, record.version
