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


def played(seats: list[Any], moves: int, rng: random.Random) -> pb.MatchView:
    """Random legal moves by the seats to act, `moves` of them; the view after."""
    view = seats[0].view()
    for _ in range(moves):
        seat = seats[view.to_act]
        view = seat.move(rng.choice(seat.legal_moves())).view
    assert view.status == pb.MATCH_STATUS_PLAYING
    return view


def test_a_resigned_match_exports_the_servers_outcome(server: ServerThread, tmp_path: Path) -> None:
    """R-7: the resignation, not the rules' unfinished state, ends the match; its rows carry
    the server's outcome (read from the rules' state alone, every reward was 0)."""
    client = KozyrClient(server.address)
    created = client.create_match("durak-dice", ["a", "b", "c"])
    seats = [client.seat(created.match_id, created.tokens[s]) for s in range(3)]
    played(seats, 7, random.Random(5))
    seats[0].resign()
    outcome = seats[1].view().outcome
    assert outcome.termination == pb.TERMINATION_RESIGNED and list(outcome.seats) == [0]
    winners = set(outcome.winners)
    assert winners and 0 not in winners
    out = tmp_path / "resigned.jsonl"
    argv = ["export", "--server", server.address, "--match", created.match_id, "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    rows = read_rows(out)
    assert len(rows) == 7 and {r["seat"] for r in rows} == {0, 1, 2}
    expected = [1.0 if s in winners else -1.0 for s in range(3)]
    assert [r["reward"] for r in rows] == [expected[r["seat"]] for r in rows]


def test_an_aborted_match_exports_no_result(server: ServerThread) -> None:
    """R-7: an abort before every seat decided has no winner: every reward is 0 (not -1)."""
    client = KozyrClient(server.address)
    created = client.create_match("durak-dice", ["a", "b"])
    seats = [client.seat(created.match_id, created.tokens[s]) for s in range(2)]
    mover = seats[0].view().to_act
    played(seats, 1, random.Random(2))
    seats[1 - mover].end(pb.END_REASON_ABORT)  # the seat that has not decided yet
    outcome = seats[0].view().outcome
    assert outcome.termination == pb.TERMINATION_ABORTED and not outcome.winners
    entries = fetch_log(server.address, created.match_id, None)
    rows = log_rows("durak-dice", created.match_id, [e.canonical for e in entries])
    assert [(r.seat, r.reward) for r in rows] == [(mover, 0.0)]


def test_a_failed_export_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "none.jsonl"
    argv = ["export", "--server", "127.0.0.1:1", "--match", "m", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 2
    assert list(tmp_path.iterdir()) == []
