"""The tournament's progress display and standings table: rich on a terminal, plain otherwise."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from kozyr.tournament.progress import Progress
from kozyr.tournament.runner import Run
from kozyr.tournament.scoreboard import print_table, table
from kozyr.tournament.spec import MatchResult, Tournament

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG = "ismcts:iters=200,c=0.7"  # a long spec as the command line names it


@pytest.fixture(autouse=True)
def _no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich treats any output as a terminal under FORCE_COLOR or TTY_COMPATIBLE=1 (some CI
    runners set them); these tests choose the terminal themselves."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)


class Clock:
    """A monotonic clock the test moves by hand; it starts at 0.0, as on a machine just booted."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def terminal(width: int = 80) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=width, color_system="standard"), out


def screen_lines(text: str) -> list[str]:
    """What a terminal shows: escapes removed, each carriage return starting the line over."""
    return [line.rsplit("\r", 1)[-1] for line in ANSI.sub("", text).split("\n")]


# ---------------------------------------------------------------------------- progress


def test_progress_line_shows_done_rate_and_time_left() -> None:
    p = Progress(200, io.StringIO())
    text = p.line(50, 10.0)
    assert "50/200 matches" in text and "5.0 matches/s" in text and "left 0:30" in text
    assert text.startswith("[" + "#" * 6 + "." * 18 + "]")
    assert "left ?" in p.line(0, 0.0)


@pytest.mark.parametrize("boot", [0.0, 0.5, 1e6])
def test_progress_in_a_file_writes_plain_lines_now_and_then(boot: float) -> None:
    """Whatever the clock reads at the start (near zero just after boot), the first update
    writes a line, the next ones only once `every` seconds passed, close() the last."""
    out, clock = io.StringIO(), Clock(boot)
    p = Progress(1000, out, every=3600, clock=clock)
    for done in range(1, 501):
        clock.now += 1.0
        p.update(done)
    assert len(out.getvalue().splitlines()) == 1, "one line at the start, none until due"
    clock.now += 3600
    for done in range(501, 1001):
        p.update(done)
    p.close("interrupted")
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # the first update, the one an hour later, then the closing line
    assert lines[0].startswith("[") and " 1/1000 matches" in lines[0]
    assert " 501/1000 matches" in lines[1]
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert lines[-1].endswith("interrupted") and "1000/1000" in lines[-1]


def test_disabled_progress_writes_nothing() -> None:
    quiet = io.StringIO()
    p = Progress(10, quiet, enabled=False)
    p.update(5)
    p.close("interrupted")
    assert quiet.getvalue() == ""


def test_progress_on_a_terminal_is_a_rich_bar_within_80_columns() -> None:
    console, out = terminal()
    clock = Clock()
    p = Progress(100_000, console=console, clock=clock)
    assert p.tty
    for done in range(0, 100_001, 1000):
        clock.now += 1.0
        p.update(done)
    clock.now = 3600.0 * 2  # hours on the clock: the longest line the bar draws
    p.update(99_999)
    p.close("interrupted")
    raw = out.getvalue()
    assert "\x1b[" in raw, "a terminal gets rich's escapes"
    shown = [line for line in screen_lines(raw) if line.strip()]
    assert all(len(line) <= 80 for line in shown), shown
    last_bar = shown[-2]
    assert "99999/100000" in last_bar and "matches/s" in last_bar
    assert "2:00:00 elapsed" in last_bar and "0:00 left" in last_bar
    assert shown[-1] == "interrupted"


# ---------------------------------------------------------------------------- standings


def a_run(players: tuple[str, ...], interrupted: bool = False) -> Run:
    t = Tournament("dix", players, (("single_hand", "true"),), "duplicate", 2, 5)
    fixtures = t.fixtures()
    results = tuple(
        MatchResult(
            index=f.index,
            deal=f.deal,
            lineup=f.lineup,
            winners=(0,),
            scores=(123, 45),
            moves=60,
            reason="target",
        )
        for f in fixtures
    )
    return Run(t, fixtures, results, interrupted, 12.5, 2, None)


def test_the_plain_table_has_one_line_per_player_within_80_columns() -> None:
    run = a_run((LONG, "heuristic"), interrupted=True)
    text = table(run)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    assert "\x1b" not in text and "─" not in text
    assert lines[0].startswith("dix  duplicate  seed 5  2/2 matches")
    assert "(interrupted: standings over the matches played)" in text
    rows = [line for line in lines if line.startswith((LONG, "heuristic"))]
    assert len(rows) == 2, text  # the long name did not fold: each player on one line
    assert all("50.0%" in row and "± " in row for row in rows), text
    header = next(line for line in lines if line.startswith("player"))
    assert "95% CI" in header and "ordinal" in header


def test_the_standings_on_a_terminal_are_a_rich_table_within_80_columns() -> None:
    console, out = terminal(width=200)  # a wide terminal still gets the 80-column table
    print_table(a_run((LONG, "heuristic")), console=console)
    raw = out.getvalue()
    assert "\x1b[" in raw and "─" in raw
    shown = [line.rstrip() for line in screen_lines(raw)]
    assert max(len(line) for line in shown) <= 80
    assert any(line.startswith(LONG) for line in shown), shown


def test_the_standings_to_a_file_are_the_plain_table() -> None:
    out = io.StringIO()
    run = a_run((LONG, "heuristic"))
    print_table(run, console=Console(file=out))
    assert out.getvalue() == table(run) + "\n"
