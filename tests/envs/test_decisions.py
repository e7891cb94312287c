"""`kozyr export`: one row per decision, as each seat saw it; the rows replay to the same
matches, hold no card their seat could not see, and served matches export from their logs."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots.encodings import encoding
from kozyr.cli import main
from kozyr.core.jsontext import loads
from kozyr.envs.decisions import log_rows, read_rows
from kozyr.envs.table import Table
from kozyr.games import get_game
from kozyr.match.log import LIFECYCLE_EVENTS, decode_events
from kozyr.replay.archive import entry_of
from kozyr.replay.export import fetch_log
from kozyr.tournament.local import play_local
from kozyr.tournament.schedule import deal_seed
from kozyr.tournament.spec import Tournament
from kozyr_client import KozyrClient
from tests.conftest import ServerThread
from tests.envs.leaks import check_observation, forbidden

PLAYERS = "heuristic,random,random"


def by_match(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["match"]].append(row)
    return {k: sorted(v, key=lambda r: r["step"]) for k, v in out.items()}


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_export_replays_to_the_same_matches_without_a_leak(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"six{suffix}"
    args = ["export", "--game", "six-dozens", "--players", PLAYERS, "--matches", "6"]
    assert main([*args, "--option", "max_hands=2", "--out", str(out), "--no-progress"]) == 0
    rows = read_rows(out)
    t = Tournament("six-dozens", tuple(PLAYERS.split(",")), (("max_hands", "2"),), matches=6)
    matches = by_match(rows)
    assert len(matches) == len(t.fixtures()) == 6
    game, code = get_game("six-dozens"), encoding("six-dozens")
    for fixture in t.fixtures():
        mine = matches[f"t0-m{fixture.index}"]
        names = [t.names[p] for p in fixture.lineup]
        table = Table("six-dozens", 3, {"max_hands": 2}, deal_seed(t.master, fixture.deal), names)
        for row in mine:
            seat = row["seat"]
            assert table.to_act == seat and row["player"] == t.players[fixture.lineup[seat]]
            assert list(row["mask"]) == table.mask(seat)
            assert [round(x, 5) for x in row["observation"]] == [
                round(x, 5) for x in table.observe(seat)
            ]
            assert row["view"] == table.view_json(seat)
            check_observation(
                game,
                row["observation"],
                row["view"],
                forbidden(game, table.state, seat, table.histories[seat]),
            )
            table.play(seat, code.command_of(row["action"]))
        assert table.to_act is None
        result = play_local(t, fixture)
        outcome = table.outcome
        assert outcome is not None and outcome.winners == result.winners
        assert outcome.scores == result.scores and len(mine) == result.moves
        assert all(row["reward"] == table.rewards()[row["seat"]] for row in mine)


def test_a_served_match_exports_from_its_log(server: ServerThread, tmp_path: Path) -> None:
    client = KozyrClient(server.address)
    created = client.create_match("durak-dice", ["a", "b", "c"])
    seats = [client.seat(created.match_id, created.tokens[s]) for s in range(3)]
    rng = random.Random(3)
    view = seats[0].view()
    moves = 0
    while view.status != pb.MATCH_STATUS_FINISHED:
        seat = seats[view.to_act]
        view = seat.move(rng.choice(seat.legal_moves())).view
        moves += 1
    entries = fetch_log(server.address, created.match_id, None)
    rows = log_rows("durak-dice", created.match_id, [e.canonical for e in entries])
    assert len(rows) == moves
    assert [r.player for r in rows[:3]] == [["a", "b", "c"][r.seat] for r in rows[:3]]
    assert {r.deal for r in rows} == {-1}  # the server's deal, no tournament's numbered one
    winners = set(view.outcome.winners)
    for row in rows:
        expected = 0.0 if len(winners) == 3 else 1.0 if row.seat in winners else -1.0
        assert row.reward == expected
        assert row.mask[row.action] == 1
    # Fold the log here too: at each decision, no card hidden from its seat is in its row.
    game = get_game("durak-dice")
    state: Any = None
    histories: list[list[Any]] = [[], [], []]
    decisions = iter(rows)
    hidden = 0
    for raw in entries:
        entry = entry_of(loads(raw.canonical))
        if entry.seat >= 0 and state is not None and game.to_act(state) == entry.seat:
            row = next(decisions)
            assert row.seat == entry.seat
            cards = forbidden(game, state, row.seat, histories[row.seat])
            hidden += len(cards)
            check_observation(game, row.observation, row.view, cards)
        events = [e for e in decode_events(game, entry) if not isinstance(e, LIFECYCLE_EVENTS)]
        for event in events:
            state = game.evolve(state, event)
            for s in range(3):
                shown = game.redact(event, s)
                if shown is not None:
                    histories[s].append(shown)
    assert next(decisions, None) is None
    assert hidden > 0
    out = tmp_path / "served.jsonl"
    argv = ["export", "--server", server.address, "--match", created.match_id, "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    assert [r["action"] for r in read_rows(out)] == [r.action for r in rows]


def test_a_failed_export_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "none.jsonl"
    argv = ["export", "--server", "127.0.0.1:1", "--match", "m", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 2
    assert list(tmp_path.iterdir()) == []
