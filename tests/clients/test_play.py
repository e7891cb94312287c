"""`kozyr play` driven through a pseudo-terminal of 80×24 to the end of a match of each game."""

from __future__ import annotations

import fcntl
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.screen import CLEAR, render, visible
from kozyr_client import KozyrClient
from tests.conftest import ServerThread

PROMPT = re.compile(r"Your move \[1-(\d+), q quits\]: $")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Tty:
    """A program on the slave side of a pty of 80×24, read and typed into from the master."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        close_fds=True, start_new_session=True)
        os.close(slave)
        self.output = ""

    def read_until_prompt(self, limit: float = 120.0) -> re.Match[str] | None:
        """Read until the move prompt (its match) or the end of the program (None)."""
        while True:
            match = PROMPT.search(self.output[-200:])
            if match:
                return match
            ready, _, _ = select.select([self.master], [], [], limit)
            assert ready, "kozyr play printed nothing for a long time:\n" + self.output[-2000:]
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                return None
            if not chunk:
                return None
            self.output += chunk.decode("utf-8", "replace")

    def type(self, text: str) -> None:
        """Type a line."""
        self.output += "\x00"  # a marker: the prompt above is answered
        os.write(self.master, (text + "\n").encode())

    def close(self) -> int:
        """Wait for the program; its exit code."""
        code = self.process.wait(60)
        os.close(self.master)
        return code


def frames(output: str) -> list[list[str]]:
    """Each screen drawn (split at the clear-screen code), as lines without colours."""
    screens = [visible(f).replace("\r", "").split("\n") for f in output.split(CLEAR)[1:]]
    # The newline after the last line (or after the typed answer) starts no line of the screen.
    return [s[:-1] if s and s[-1] == "" else s for s in screens]


def kozyr_play(*args: str, no_color: bool = False) -> Tty:
    """Start `kozyr play` on a pty."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(TERM="xterm-256color", COLUMNS="80", LINES="24", USER="tester")
    if no_color:
        env["NO_COLOR"] = "1"
    return Tty([sys.executable, "-m", "kozyr.cli", "play", *args], env)


def drive(tty: Tty, rng: random.Random, limit: int = 3000) -> int:
    """Answer every prompt with a random move number (and a few other inputs); the prompts."""
    prompts = 0
    while (match := tty.read_until_prompt()) is not None:
        prompts += 1
        assert prompts < limit, "the match does not end"
        if prompts == 2:
            tty.type("nonsense")  # refused on the screen, then asked again
        else:
            tty.type(str(rng.randint(1, int(match.group(1)))))
    return prompts


GAMES = [
    ("dix", ["--vs", "heuristic", "--option", "target=8"]),
    ("six-dozens", ["--vs", "random,random", "--option", "max_hands=2", "--option", "deck=28"]),
    ("durak-dice", ["--vs", "heuristic,random", "--seat", "1"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "extra"), GAMES, ids=[g for g, _ in GAMES])
def test_kozyr_play_through_a_pty_to_the_end_of_a_match(
        server: ServerThread, game: str, extra: list[str]) -> None:
    tty = kozyr_play(game, "--server", server.address, "--seed", "3", *extra)
    prompts = drive(tty, random.Random(len(game)))
    code = tty.close()
    assert code == 0, tty.output[-3000:]
    assert prompts > 2
    screens = frames(tty.output)
    assert len(screens) >= prompts
    for screen in screens:
        lines = [line for line in screen[:-1] if "\x00" not in line]  # the typed answer
        assert len(screen) <= 24, "\n".join(screen)
        assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    last = "\n".join(screens[-1])
    assert "Match over:" in last, last
    assert any("? 'nonsense'" in "\n".join(s) for s in screens), "a bad answer is explained"
    played = "\n".join("\n".join(s) for s in screens)
    assert "Your hand:" in played and "Moves: 1)" in played
    assert "\x1b[31m" in tty.output, "hearts and diamonds are red on a colour terminal"
    match_id = re.findall(r"match ([0-9a-f]{16})", last)[-1]
    with KozyrClient(server.address) as client:
        view = client.spectate(match_id).view()
    assert view.status == pb.MATCH_STATUS_FINISHED
    assert view.players[int(extra[extra.index("--seat") + 1]) if "--seat" in extra else 0
                        ].name == "tester"


def test_no_color_and_quitting_leave_the_match_unfinished(server: ServerThread) -> None:
    tty = kozyr_play("durak-dice", "--server", server.address, "--vs", "heuristic,random",
                     no_color=True)
    assert tty.read_until_prompt() is not None
    tty.type("q")
    assert tty.read_until_prompt() is None
    assert tty.close() == 0
    assert "You left the match." in tty.output
    assert "\x1b[31m" not in tty.output and "\x1b[35m" not in tty.output


def test_an_unknown_bot_is_refused_before_anything_starts(server: ServerThread) -> None:
    tty = kozyr_play("dix", "--server", server.address, "--vs", "grandmaster")
    assert tty.read_until_prompt() is None
    assert tty.close() == 2
    assert "unknown bot 'grandmaster'" in tty.output


@pytest.mark.slow
def test_kozyr_play_starts_its_own_server_when_none_is_given() -> None:
    tty = kozyr_play("dix", "--vs", "random", "--option", "target=3", "--seed", "1")
    prompts = drive(tty, random.Random(0))
    assert tty.close() == 0, tty.output[-3000:]
    assert prompts > 2 and "Match over:" in "\n".join(frames(tty.output)[-1])


def test_the_screen_of_every_game_fits_80_by_24_even_with_big_hands() -> None:
    view = pb.MatchView(game="durak-dice", status=pb.MATCH_STATUS_PLAYING, seat=0, to_act=0,
                        players=[pb.Player(seat=i, name="a-very-long-player-name-indeed")
                                 for i in range(6)])
    d = view.durak_dice
    d.hand.extend(["10H", "10S", "10D", "10C"] * 9)
    d.hand_sizes.extend([36, 0, 0, 0, 0, 0])
    d.fools.extend([0] * 6)
    d.table.extend([pb.TablePair(attack="10H", defence="10S")] * 6)
    d.last_bout.extend([pb.TablePair(attack="10D")] * 6)
    d.rolls.extend([pb.Roll(seat=i % 6, value=6) for i in range(30)])
    moves = [f"beat {c}" for c in d.hand]
    lines = render(view, moves, ["seat 1 plays 10H"] * 30, "notice", colour=True)
    assert len(lines) <= 23  # and the prompt makes 24
    assert all(len(visible(line)) <= 80 for line in lines)


def test_a_move_may_be_typed_as_its_number_card_or_action() -> None:
    from kozyr.play import parse_choice
    from kozyr_client import moves

    legal = [moves.attack("10H"), moves.attack("QS"), moves.take(), moves.pass_()]
    assert parse_choice("2", legal) == legal[1]
    assert parse_choice(" th ", legal) == legal[0] and parse_choice("10h", legal) == legal[0]
    assert parse_choice("attack qs", legal) == legal[1]
    assert parse_choice("take", legal) == legal[2] and parse_choice("PASS", legal) == legal[3]
    assert parse_choice("5", legal) is None and parse_choice("KD", legal) is None
    assert parse_choice("attack", legal) is None  # two moves: ambiguous


def _children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is `pid`, with their command lines."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append((int(stat.parent.name), cmdline))
        except (OSError, IndexError, ValueError):
            continue  # a process that ended while we looked
    return found


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "hang-up"])
def test_a_killed_or_hung_up_kozyr_play_cleans_up_its_embedded_server(how: str) -> None:
    tty = kozyr_play("dix", "--vs", "random")
    assert tty.read_until_prompt() is not None
    redis = [(pid, cmd) for pid, cmd in _children(tty.process.pid) if "redis-server" in cmd]
    assert len(redis) == 1, _children(tty.process.pid)
    pid, cmd = redis[0]
    folder = Path(re.findall(r"unixsocket:(\S+)/redis\.sock", cmd)[0])
    assert folder.exists()
    if how == "SIGTERM":
        tty.process.send_signal(signal.SIGTERM)
    else:
        os.close(tty.master)  # the terminal goes away: the kernel sends SIGHUP
        tty.master = os.open(os.devnull, os.O_RDONLY)
    tty.process.wait(60)
    tty.close()
    assert not Path(f"/proc/{pid}").exists(), "the embedded redis-server outlived kozyr play"
    assert not folder.exists()
