"""A one-line live progress bar: matches done, matches/s and time left (hand-written: it needs
no more than this, so no dependency).

On a terminal the line is redrawn in place at most ten times a second; written to a file or a
pipe (a run under nohup), a plain line is printed every `every` seconds instead, so the file
stays readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 24


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Progress of `total` matches, drawn on `stream` (stderr by default)."""

    def __init__(self, total: int, stream: TextIO | None = None, *, enabled: bool = True,
                 every: float = 10.0) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.start = time.monotonic()
        self.done = 0
        self._last = 0.0
        self._width = 0  # of the line drawn last on a terminal, to blank what is left of it

    def line(self, done: int, elapsed: float) -> str:
        """The progress text for `done` matches after `elapsed` seconds."""
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else None
        filled = WIDTH * done // self.total if self.total else WIDTH
        bar = "#" * filled + "." * (WIDTH - filled)
        eta = _clock(left) if left is not None else "?"
        return (f"[{bar}] {done}/{self.total} matches  {rate:,.1f} matches/s  "
                f"elapsed {_clock(elapsed)}  left {eta}")

    def update(self, done: int) -> None:
        """Report that `done` matches are finished (redraws when due)."""
        self.done = done
        if not self.enabled:
            return
        now = time.monotonic()
        due = 0.1 if self.tty else self.every
        if now - self._last < due and done < self.total:
            return
        if not self.tty and done >= self.total:
            return  # close() writes the last line
        self._last = now
        text = self.line(done, now - self.start)
        if self.tty:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self, note: str = "") -> None:
        """Finish the line (and add a note such as "interrupted")."""
        if not self.enabled:
            return
        text = self.line(self.done, time.monotonic() - self.start)
        end = f"  {note}" if note else ""
        if self.tty:
            self.stream.write("\r" + (text + end).ljust(self._width) + "\n")
        else:
            self.stream.write(text + end + "\n")
        self.stream.flush()
