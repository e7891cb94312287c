"""Whole matches through the real server: random clients, one per seat, and watchers."""

from __future__ import annotations

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import PLAYERS, Watcher, auth, create, play_out
from tests.conftest import ServerThread


def test_list_games_describes_every_game_and_option(stub: object) -> None:
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}  # type: ignore[attr-defined]
    assert set(games) == {"dix", "six-dozens", "durak-dice"}
    dix = games["dix"]
    assert (dix.min_players, dix.max_players) == (2, 2)
    target = next(o for o in dix.options if o.name == "target")
    assert (target.kind, target.default_value, target.minimum, target.maximum) == (
        "int",
        "50",
        1,
        10_000,
    )
    assert [o.name for o in games["durak-dice"].options][:1] == ["deck"]


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_random_clients_play_each_game_to_its_outcome(server: ServerThread, game: str) -> None:
    stub = server.stub()
    match_id, tokens = create(stub, game)
    watchers = [Watcher(server.stub(), match_id, t) for t in [*tokens, None]]
    moves = play_out(stub, match_id, tokens, seed=len(game))
    assert moves > 0
    for w in watchers:
        w.join(30)
        assert not w.is_alive() and w.error is None, w.error
    final = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert final.status == pb.MATCH_STATUS_FINISHED and final.outcome.winners
    for token, w in zip([*tokens, None], watchers, strict=True):
        versions = [u.version for u in w.updates]
        assert versions == list(range(1, final.version + 1)), "a gap or a duplicate"
        mine = stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(token)).view
        assert w.updates[-1].view == mine
        # Every watcher ends in the same public state.
        assert w.updates[-1].view.outcome == final.outcome
    assert final.revealed_server_seed
