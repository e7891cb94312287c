"""`kozyr play` driven through a pseudo-terminal of 80×24 to the end of a match of each game."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.terminal.screen import CLEAR, SYMBOL, render, visible
from kozyr_client import KozyrClient, KozyrError, moves
from tests.conftest import ServerThread

PROMPT = re.compile(r"Your move \[1-(\d+), q quits\]: $")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Tty:
    """A program on the slave side of a pty of 80×24, read and typed into from the master."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
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

    def drain(self) -> str:
        """The rest of the output of a program that has ended."""
        self.output += "\x00"  # past any prompt already read
        assert self.read_until_prompt(5.0) is None
        return self.output

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
    """Each screen drawn (split at the clear-screen code), as lines without colours; what
    `kozyr play` says after the last screen (from its first "kozyr play: " line) is not part of
    it (see `epilogue`)."""
    screens = [visible(f).replace("\r", "").split("\n") for f in output.split(CLEAR)[1:]]
    if screens:
        last = screens[-1]
        cut = next((i for i, line in enumerate(last) if line.startswith("kozyr play: ")), len(last))
        screens[-1] = last[:cut] + ([""] if cut < len(last) else [])
    # The newline after the last line (or after the typed answer) starts no line of the screen.
    return [s[:-1] if s and s[-1] == "" else s for s in screens]


def epilogue(output: str) -> list[str]:
    """The lines `kozyr play` prints after its last screen (what it kept, how to verify)."""
    last = visible(output.split(CLEAR)[-1]).replace("\r", "").split("\n")
    cut = next((i for i, line in enumerate(last) if line.startswith("kozyr play: ")), len(last))
    return [line for line in last[cut:] if line.strip()]


def kozyr_play(*args: str, no_color: bool = False, data: str | None = None) -> Tty:
    """Start `kozyr play` on a pty (what it keeps goes to `data`, a fresh folder if None)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(
        TERM="xterm-256color",
        COLUMNS="80",
        LINES="24",
        USER="tester",
        XDG_DATA_HOME=data or tempfile.mkdtemp(prefix="kozyr-play-test-"),
    )
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
    server: ServerThread, game: str, extra: list[str]
) -> None:
    tty = kozyr_play(game, "--server", server.address, "--seed", "3", *extra)
    prompts = drive(tty, random.Random(len(game)))
    code = tty.close()
    assert code == 0, tty.output[-3000:]
    assert prompts > 2
    screens = frames(tty.output)
    assert len(screens) >= prompts
    for screen in screens:
        # The typed answer aside, and the closing report (paths and a verify command to copy,
        # which no width can bound).
        lines = [
            line
            for line in screen[:-1]
            if "\x00" not in line and not line.startswith("kozyr play:")
        ]
        assert len(screen) <= 24, "\n".join(screen)
        assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    last = "\n".join(screens[-1])
    assert "Match over:" in last, last
    kept = epilogue(tty.output)
    assert kept and all(len(line) <= 80 for line in kept), kept
    assert any("receipts kept in" in line for line in kept)
    assert any("? 'nonsense'" in "\n".join(s) for s in screens), "a bad answer is explained"
    played = "\n".join("\n".join(s) for s in screens)
    assert "Your hand:" in played and "Moves: 1)" in played
    assert "\x1b[31m" in tty.output, "hearts and diamonds are red on a colour terminal"
    match_id = re.findall(r"match ([0-9a-f]{16})", last)[-1]
    with KozyrClient(server.address) as client:
        view = client.spectate(match_id).view()
    assert view.status == pb.MATCH_STATUS_FINISHED
    mine = int(extra[extra.index("--seat") + 1]) if "--seat" in extra else 0
    assert view.players[mine].name == "tester"
    # Your seat joins after the commitment is public, contributing 32 random bytes by default.
    log = server.run(server.running.engine.log(match_id))
    created = json.loads(log[0].text)["events"][0]
    firsts = [json.loads(entry.text)["events"][0] for entry in log[1:]]
    joined = next(e for e in firsts if e["type"] == "SeatJoined")
    assert created["seats"][mine] == "" and created["contributions"][mine] == ""
    assert (joined["seat"], len(joined["contribution"])) == (mine, 64)
    # The bots' seats, named at creation, contributed after the commitment too.
    given = {e["seat"]: e["contribution"] for e in firsts if e["type"] == "SeedContributed"}
    others = set(range(len(created["seats"]))) - {mine}
    assert set(given) == others and all(len(c) == 64 for c in given.values())


def test_no_color_and_quitting_leave_the_match_unfinished(server: ServerThread) -> None:
    tty = kozyr_play(
        "durak-dice", "--server", server.address, "--vs", "heuristic,random", no_color=True
    )
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
def test_kozyr_play_starts_its_own_server_when_none_is_given(tmp_path: Path) -> None:
    tty = kozyr_play(
        "dix",
        "--vs",
        "random",
        "--option",
        "target=3",
        "--seed",
        "1",
        "--contribution",
        "my own luck",
        data=str(tmp_path),
    )
    prompts = drive(tty, random.Random(0))
    assert tty.close() == 0, tty.output[-3000:]
    last = "\n".join(frames(tty.output)[-1])
    assert prompts > 2 and "Match over:" in last
    assert "seed commitment " in last and "signed by key " in last
    # The embedded server is gone, but the match was exported at the end, with the receipts.
    kept = tmp_path / "kozyr" / "matches"
    (replay,) = kept.glob("*[0-9a-f].jsonl")
    receipts = replay.with_name(replay.stem + ".receipts.jsonl")
    key = replay.with_suffix(".key").read_text().strip()
    assert b"my own luck".hex() in replay.read_text()  # the seat's contribution
    verified = subprocess.run(
        [
            sys.executable,
            "-m",
            "kozyr.cli",
            "replay",
            "verify",
            str(replay),
            "--key",
            key,
            "--receipts",
            str(receipts),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "signatures: all" in verified.stdout and "receipts: " in verified.stdout


def test_the_screen_of_every_game_fits_80_by_24_even_with_big_hands() -> None:
    view = pb.MatchView(
        game="durak-dice",
        status=pb.MATCH_STATUS_PLAYING,
        seat=0,
        to_act=0,
        players=[pb.Player(seat=i, name="a-very-long-player-name-indeed") for i in range(6)],
    )
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
    from kozyr.terminal.play import parse_choice

    legal = [moves.attack("10H"), moves.attack("QS"), moves.take(), moves.pass_()]
    assert parse_choice("2", legal) == legal[1]
    assert parse_choice(" th ", legal) == legal[0] and parse_choice("10h", legal) == legal[0]
    assert parse_choice("10♥", legal) == legal[0]
    assert parse_choice("attack qs", legal) == legal[1]
    assert parse_choice("take", legal) == legal[2] and parse_choice("PASS", legal) == legal[3]
    assert parse_choice("5", legal) is None and parse_choice("KD", legal) is None
    assert parse_choice("attack", legal) is None  # two moves: ambiguous


def test_any_card_or_word_of_the_game_is_a_move_for_the_server_to_judge() -> None:
    from kozyr.terminal.play import parse_choice

    legal = [moves.play("dix", "10H")]
    assert parse_choice("kd", legal, "dix") == moves.play("dix", "KD")
    assert parse_choice("play jk", legal, "dix") == moves.play("dix", "JK")
    assert parse_choice("take", legal, "dix") is None  # Dix has no take
    assert parse_choice("1H", legal, "dix") is None and parse_choice("x y 2S", legal, "dix") is None
    durak = [moves.take()]
    assert parse_choice("9c", durak, "durak-dice", defending=True) == moves.beat("9C")
    assert parse_choice("9c", durak, "durak-dice") == moves.attack("9C")
    assert parse_choice("attack 9c", durak, "durak-dice", defending=True) == moves.attack("9C")
    assert parse_choice("pass", durak, "durak-dice") == moves.pass_()
    assert parse_choice("nonsense", durak, "durak-dice") is None


def test_a_refusal_names_its_rule_only_when_the_server_gives_one() -> None:
    import grpc

    from kozyr.terminal.play import refusal

    def error(message: str, rule: str | None) -> KozyrError:
        meta = {"matchId": "m", "seat": "0", **({"rule": rule} if rule else {})}
        return KozyrError(grpc.StatusCode.FAILED_PRECONDITION, "MUST_FOLLOW_SUIT", message, meta)

    said = "You must follow suit: you hold ♠ (2S was led)."
    assert refusal(error(said, "DIX-5")) == "You must follow suit (DIX-5): you hold ♠ (2S was led)."
    assert refusal(error(said, None)) == said
    assert refusal(error("The match is over.", "R-5")) == "The match is over (R-5)"


# The deck of a Dix hand dealt by seat 0: seat 1 (the non-dealer, who leads) holds clubs 2-8 and
# diamonds 2-7, seat 0 clubs 9-A and hearts 2-8; the turn-up is 2S (DIX-2).
_SEAT1 = [f"{r}C" for r in "2345678"] + [f"{r}D" for r in "234567"]
_SEAT0 = [f"{r}C" for r in ("9", "10", "J", "Q", "K", "A")] + [f"{r}H" for r in "2345678"]
_STOCK = (
    [f"{r}H" for r in ("9", "10", "J", "Q", "K", "A")]
    + [f"{r}D" for r in ("8", "9", "10", "J", "Q", "K", "A")]
    + [f"{r}S" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    + ["JK"]
)
MUST_FOLLOW_DECK = " ".join(
    [c for pair in zip(_SEAT1, _SEAT0, strict=True) for c in pair] + ["2S", *_STOCK]
)


def _must_follow_refusal(address: str) -> KozyrError:
    """The server's own refusal of a discard while holding the led suit (for the pty test)."""
    with KozyrClient(address) as client:
        created = client.create_match(
            "dix", ["ann", "bob"], first_dealer=0, prearranged_decks=[MUST_FOLLOW_DECK]
        )
        client.seat(created.match_id, created.tokens[1]).move(moves.play("dix", "2C"))
        with pytest.raises(KozyrError) as refused:
            client.seat(created.match_id, created.tokens[0]).move(moves.play("dix", "2H"))
    return refused.value


_LETTER = {symbol: letter for letter, symbol in SYMBOL.items()}


def _codes(text: str) -> list[str]:
    """The card codes of screen text written with suit symbols ("10♥ Q♠" -> 10H, QS)."""
    return [rank + _LETTER[suit] for rank, suit in re.findall(r"(10|[2-9JQKA])([♠♥♦♣])", text)]


def _discard_while_holding_the_led_suit(screen: list[str]) -> str | None:
    """A card of the hand DIX-5 forbids now (another suit while the led one is held), if any."""
    trick = next((line for line in screen if line.startswith("Trick: ")), "")
    led = _codes(trick.split("(")[0])
    start = next((i for i, line in enumerate(screen) if line.startswith("Your hand:")), None)
    if len(led) != 1 or start is None or "JK" in trick:
        return None  # not following, or the joker's suit would need the trump to be read
    hand_lines = [screen[start]] + [x for x in screen[start + 1 :] if x.startswith(" ")]
    hand = _codes(" ".join(hand_lines))
    suit = led[0][-1]
    others = [c for c in hand if c[-1] != suit]
    return others[0] if others and any(c[-1] == suit for c in hand) else None


def test_a_refused_move_shows_the_servers_reason_and_rule(server: ServerThread) -> None:
    expected = _must_follow_refusal(server.address)
    assert expected.reason == "MUST_FOLLOW_SUIT"
    tty = kozyr_play(
        "dix",
        "--server",
        server.address,
        "--vs",
        "random",
        "--seed",
        "5",
        "--option",
        "target=20",
        no_color=True,
    )
    rng, shown, tried = random.Random(1), "", None
    while (match := tty.read_until_prompt()) is not None:
        screen = frames(tty.output)[-1]
        if tried and not shown:
            shown = " ".join(" ".join(screen).split())
            break
        tried = tried or _discard_while_holding_the_led_suit(screen)
        tty.type(tried if tried and not shown else str(rng.randint(1, int(match.group(1)))))
    tty.type("q")
    assert tty.read_until_prompt() is None and tty.close() == 0
    assert tried, "no trick in the match let the player discard while holding the led suit"
    head = expected.message.split(":")[0]
    rule = expected.metadata.get("rule")
    assert f"refused: {head}" + (f" ({rule})" if rule else "") in shown, shown


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


def _embedded_redis(pid: int) -> list[tuple[int, str]]:
    """The redis-server child of `pid`, waiting (up to a minute) for it to be started."""
    for _ in range(600):
        # Its title names the socket once it runs (before that it shows the exec's arguments).
        redis = [
            (p, cmd) for p, cmd in _children(pid) if "redis-server" in cmd and "unixsocket:" in cmd
        ]
        if redis:
            return redis
        time.sleep(0.1)
    return []


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "hang-up", "SIGTERM while a bot thinks"])
def test_a_killed_or_hung_up_kozyr_play_cleans_up_its_embedded_server(how: str) -> None:
    if how.endswith("thinks"):
        # A bot that thinks for minutes: when it moves first (the lot of R-2 decides) the main
        # thread is waiting for an update, not at the prompt, when the signal comes.
        tty = kozyr_play("dix", "--vs", "ismcts:iters=2000000")
    else:
        tty = kozyr_play("dix", "--vs", "random")
        assert tty.read_until_prompt() is not None
    redis = _embedded_redis(tty.process.pid)
    assert len(redis) == 1, _children(tty.process.pid)
    pid, cmd = redis[0]
    folder = Path(re.findall(r"unixsocket:(\S+)/redis\.sock", cmd)[0])
    assert folder.exists()
    if how.startswith("SIGTERM"):
        tty.process.send_signal(signal.SIGTERM)
    else:
        os.close(tty.master)  # the terminal goes away: the kernel sends SIGHUP
        tty.master = os.open(os.devnull, os.O_RDONLY)
    code = tty.process.wait(60)
    if how.startswith("SIGTERM"):
        assert "kozyr play: interrupted (SIGTERM)" in tty.drain()
        assert code == 128 + signal.SIGTERM, tty.output[-2000:]
    tty.close()
    assert not Path(f"/proc/{pid}").exists(), "the embedded redis-server outlived kozyr play"
    assert not folder.exists()
