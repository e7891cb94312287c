"""No leak: every byte sent to a seat or a spectator through a whole match of each game.

The test folds the finished match's public log itself, so at every version it knows where each
card lay (the rules' `zones`) and which of those places each viewer may not see. A card that
was hidden from a viewer both before and after an entry, and never on the table up to then,
must not appear in any response or watched update of that version — neither as a JSON string
in an event (`"QS"`) nor as a protobuf string field (length byte + code). The seeds must not
appear in anything sent before the final entry.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict

import pytest
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import PLAYERS, Watcher, auth, create, forbidden_by_version
from tests.conftest import ServerThread

Sent = dict[int | None, list[tuple[int, bytes]]]  # viewer -> (version, bytes)


def patterns(code: str) -> tuple[bytes, bytes]:
    raw = code.encode()
    return b'"' + raw + b'"', bytes([len(raw)]) + raw


def scanned(message: Message) -> bytes:
    """The message's bytes with every receipt's signature emptied: 64 random bytes that never
    hold a card but may hold a length byte and a card code by chance (once in a suite run,
    b"\\x02JC" inside a signature)."""
    copy = type(message)()
    copy.CopyFrom(message)
    _clear_signatures(copy)
    return copy.SerializeToString()


def _clear_signatures(message: Message) -> None:
    for field, value in message.ListFields():
        if field.name == "signature" and field.type == field.TYPE_BYTES:
            message.ClearField(field.name)
        elif field.type == field.TYPE_MESSAGE and not field.message_type.GetOptions().map_entry:
            for item in value if field.is_repeated else [value]:
                _clear_signatures(item)


def play_and_record(server: ServerThread, game: str, seed: int) -> tuple[str, Sent, list[str]]:
    stub = server.stub()
    match_id, tokens = create(stub, game)
    watchers = {
        s: Watcher(server.stub(), match_id, t) for s, t in [*enumerate(tokens), (None, None)]
    }
    sent: Sent = defaultdict(list)
    rng = random.Random(seed)
    while True:
        for seat, token in [*enumerate(tokens), (None, None)]:
            view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(token))
            sent[seat].append((view.view.version, scanned(view)))
        if view.view.status == pb.MATCH_STATUS_FINISHED:
            break
        mover = view.view.to_act
        legal = stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(tokens[mover])
        )
        sent[mover].append((legal.version, scanned(legal)))
        move = legal.moves[rng.randrange(len(legal.moves))]
        answer = stub.SubmitMove(
            pb.SubmitMoveRequest(match_id=match_id, move=move, command_id=uuid.uuid4().hex),
            metadata=auth(tokens[mover]),
        )
        sent[mover].append((answer.version, scanned(answer)))
    for seat, w in watchers.items():
        w.join(30)
        assert w.error is None and w.updates
        assert len(w.updates) == len(w.raw)
        sent[seat] += [(u.version, scanned(u)) for u in w.updates]
    return match_id, sent, tokens


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_no_hidden_card_or_seed_reaches_a_viewer(server: ServerThread, game: str) -> None:
    match_id, sent, tokens = play_and_record(server, game, seed=7)
    log = server.stub().GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
    viewers: list[int | None] = [*range(len(tokens)), None]

    forbidden, secrets, final = forbidden_by_version(log, viewers)

    checked = 0
    for viewer, messages in sent.items():
        for version, raw in messages:
            for code in forbidden.get((viewer, version), ()):
                for pattern in patterns(code):
                    assert pattern not in raw, f"{code} leaked to {viewer} at version {version}"
                checked += 1
            if version < final:
                for secret in secrets:
                    assert secret not in raw, f"a seed leaked to {viewer} at version {version}"
    assert checked > 100, "the check must actually have looked at hidden cards"
