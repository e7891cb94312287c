"""In-process tournaments: repeatable whatever the worker count, standings, files, Ctrl-C."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kozyr.cli import main as kozyr_main
from kozyr.tournament import Tournament, run, standings, wilson
from kozyr.tournament.scoreboard import table, to_json, write_csv, write_json
from kozyr.tournament.spec import MatchResult

DIX = (("single_hand", "true"),)


def _no_timing(data: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if k != "run"}


def test_the_same_master_seed_gives_identical_results_whatever_the_workers() -> None:
    t = Tournament(
        "dix", ("heuristic", "random", "ismcts:iters=6"), DIX, "round-robin", 12, 5, seats=2
    )
    one = run(t, workers=1)
    two = run(t, workers=2)
    assert one.results == two.results
    assert _no_timing(to_json(one)) == _no_timing(to_json(two))
    other = run(Tournament("dix", t.players, DIX, "round-robin", 12, 6, seats=2), workers=2)
    assert [r.scores for r in other.results] != [r.scores for r in one.results]


def test_a_duplicate_durak_tournament_repeats_with_three_workers() -> None:
    t = Tournament("durak-dice", ("heuristic", "random", "random"), (), "duplicate", 9, "s")
    assert run(t, workers=3).results == run(t, workers=1).results


def test_the_same_bot_may_play_itself_with_other_settings() -> None:
    t = Tournament(
        "dix",
        ("ismcts:iters=4", "ismcts:iters=8", "random", "random"),
        DIX,
        "duplicate",
        12,
        1,
        seats=2,
    )
    assert t.names == ("ismcts:iters=4", "ismcts:iters=8", "random", "random#2")
    result = run(t, workers=1)
    rows = standings(t.names, result.results)
    assert sorted(r.player for r in rows) == sorted(t.names)
    assert sum(r.matches for r in rows) == 2 * len(result.results)
    assert math.isclose(sum(r.wins for r in rows), len(result.results))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"players": ("heuristic", "minimax")}, "unknown bot"),
        ({"players": ("random",) * 3}, "for 2–2 players"),
        ({"options": (("target", "0"),)}, "at least 1"),
        ({"format": "swiss"}, "unknown format"),
        ({"seats": 3}, "for 2–2 players"),
    ],
)
def test_bad_tournaments_are_refused(kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"game": "dix", "players": ("heuristic", "random")}
    settings.update(kwargs)
    with pytest.raises((KeyError, ValueError), match=message):
        Tournament(**settings)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- standings


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson(0, 0) == (0.0, 1.0)


def test_standings_count_shared_wins_and_rate_the_stronger_player_higher() -> None:
    names = ("a", "b", "c")
    results = [MatchResult(i, i, (0, 1, 2), (0,), (10, 5, 1), 20, "") for i in range(8)]
    results += [MatchResult(8, 8, (2, 1, 0), (0, 1), (3, 3, 2), 20, "")]  # b and c share
    rows = {r.player: r for r in standings(names, results)}
    assert rows["a"].wins == 8 and rows["b"].wins == 0.5 and rows["c"].wins == 0.5
    assert rows["a"].matches == 9
    assert rows["a"].avg_score == pytest.approx((80 + 2) / 9)
    assert rows["a"].mu > rows["b"].mu
    assert standings(names, results)[0].player == "a"
    assert rows["a"].ci_low < rows["a"].win_rate < rows["a"].ci_high


def test_report_files_hold_every_match(tmp_path: Path) -> None:
    t = Tournament(
        "six-dozens", ("heuristic", "random", "random"), (("max_hands", "2"),), "duplicate", 6, 3
    )
    result = run(t, workers=1)
    write_json(result, tmp_path / "r.json")
    write_csv(result, tmp_path / "r.csv")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["complete"] is True and data["matches_played"] == 6
    assert [m["match"] for m in data["matches"]] == list(range(6))
    assert {s["player"] for s in data["standings"]} == {"heuristic", "random", "random#2"}
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert len(rows) == 6 * 3
    shares = sum(float(r["win_share"]) for r in rows)
    assert shares == pytest.approx(6)
    text = table(result)
    assert "heuristic" in text and "95% CI" in text and "6/6 matches" in text


# ---------------------------------------------------------------------------- Ctrl-C


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_reports_what_was_played(workers: int) -> None:
    t = Tournament("dix", ("heuristic", "random"), DIX, "duplicate", 400, 1)

    def stop_early(done: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    result = run(t, workers=workers, on_progress=stop_early)
    assert result.interrupted
    assert 3 <= len(result.results) < 400
    assert [r.index for r in result.results] == sorted(r.index for r in result.results)
    assert "interrupted" in table(result)


@pytest.mark.slow
def test_ctrl_c_stops_the_command_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "partial.json"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kozyr.cli",
            "tournament",
            "--game",
            "dix",
            "--players",
            "heuristic,random",
            "--matches",
            "200000",
            "--seed",
            "1",
            "--workers",
            "2",
            "--json",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    for line in proc.stderr:  # wait for the first progress line: matches are being played
        if "matches/s" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout and "heuristic" in stdout
    assert "Traceback" not in stderr
    data = json.loads(out.read_text())
    assert data["complete"] is False and data["run"]["interrupted"] is True
    assert 0 < data["matches_played"] < 200000


# ---------------------------------------------------------------------------- the command


def test_the_command_prints_standings_and_writes_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = kozyr_main(
        [
            "tournament",
            "--game",
            "durak-dice",
            "--players",
            "heuristic,random",
            "--matches",
            "5",
            "--seed",
            "2",
            "--workers",
            "1",
            "--json",
            str(tmp_path / "t.json"),
            "--csv",
            str(tmp_path / "t.csv"),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert "6 matches (rounded up to whole rotations)" in captured.err
    assert "6/6 matches" in captured.out
    assert json.loads((tmp_path / "t.json").read_text())["tournament"]["seed"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "heuristic,minimax"], "unknown bot"),
        (["--players", "ismcts,random"], "exactly one budget"),
        (["--players", "heuristic,random", "--option", "target=x"], "target"),
    ],
)
def test_the_command_refuses_bad_settings(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert kozyr_main(["tournament", "--game", "dix", *args]) == 2
    assert message in capsys.readouterr().err
