"""The live progress of a tournament: matches done, matches/s, time elapsed and left.

On a terminal, rich draws a bar redrawn in place (at most ten times a second, from its own
refresh thread) that fits 80 columns. Written to a file or a pipe (a run under nohup), a plain
line is printed now and then instead (every `every` seconds), so the file stays readable.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, Task
from rich.progress import Progress as RichProgress
from rich.text import Text

WIDTH = 24  # of the plain bar
BAR = 16  # of rich's bar: with the longest counts and times the line still fits 80 columns
MAX_COLUMNS = 80


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class _Times(ProgressColumn):
    """matches/s, elapsed and left, computed like the plain line (rich's own speed is windowed)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        done = int(task.completed)
        rate = done / elapsed if elapsed > 0 else 0.0
        left = _left(task.total, done, rate)
        return Text(f"{rate:,.1f} matches/s  {_clock(elapsed)} elapsed  {left} left")


def _left(total: float | None, done: int, rate: float) -> str:
    return _clock(((total or 0) - done) / rate) if rate > 0 else "?"


class Progress:
    """Progress of `total` matches, drawn on `stream` (stderr by default).

    `console` overrides the terminal detection (tests pass Console(force_terminal=True));
    `clock` is the monotonic clock the plain lines are paced by.
    """

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        *,
        enabled: bool = True,
        every: float = 10.0,
        console: Console | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.stream = (
            stream if stream is not None else (console.file if console is not None else sys.stderr)
        )
        self.enabled = enabled
        self.every = every
        self._clock = clock
        self.start = clock()
        # The first update is due at once; each plain line then puts the next one `every` later.
        self._due = self.start
        self.done = 0
        if console is None:
            console = Console(file=self.stream)
            if console.is_terminal:
                console = Console(file=self.stream, width=min(console.width, MAX_COLUMNS))
        self.tty = console.is_terminal
        self._bar: RichProgress | None = None
        if enabled and self.tty:
            self._bar = RichProgress(
                BarColumn(bar_width=BAR),
                MofNCompleteColumn(),
                _Times(),
                console=console,
                refresh_per_second=10,
                get_time=clock,
            )
            self._task = self._bar.add_task("matches", total=total)
            self._bar.start()

    def line(self, done: int, elapsed: float) -> str:
        """The plain progress text for `done` matches after `elapsed` seconds."""
        rate = done / elapsed if elapsed > 0 else 0.0
        filled = WIDTH * done // self.total if self.total else WIDTH
        bar = "#" * filled + "." * (WIDTH - filled)
        return (
            f"[{bar}] {done}/{self.total} matches  {rate:,.1f} matches/s  "
            f"elapsed {_clock(elapsed)}  left {_left(self.total, done, rate)}"
        )

    def update(self, done: int) -> None:
        """Report that `done` matches are finished (redrawn or written when due)."""
        self.done = done
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=done)
            return
        now = self._clock()
        if now < self._due or done >= self.total:
            return  # not due yet; or the last one, which close() writes
        self._due = now + self.every
        self.stream.write(self.line(done, now - self.start) + "\n")
        self.stream.flush()

    def close(self, note: str = "") -> None:
        """Finish the display (and add a note such as "interrupted")."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
            self._bar.stop()
            if note:
                self._bar.console.print(note)
            return
        text = self.line(self.done, self._clock() - self.start)
        self.stream.write(text + (f"  {note}" if note else "") + "\n")
        self.stream.flush()
