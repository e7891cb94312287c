"""The terminal table of `kozyr play`: a kozyr.v1.MatchView drawn in at most 80×24.

Pure: a view, the numbered legal moves, recent event lines and a notice go in; lines of text come
out. It reads only the MatchView a seat's token returns (hand, counts, the public table), so it
draws exactly what any other frontend could. Layout first in plain text with suit symbols (every
card keeps its width), then ♥ ♦ are painted red and the joker magenta when colour is on; NO_COLOR
and non-terminals get no escape codes (play.py decides).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr_client.clock import clock_line

WIDTH = 79  # one column spare: some terminals wrap when the last column is written
HEIGHT = 24
SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_ENUM = {pb.SUIT_S: "♠", pb.SUIT_H: "♥", pb.SUIT_D: "♦", pb.SUIT_C: "♣"}
RED, MAGENTA, BOLD, DIM, RESET = "\x1b[31m", "\x1b[35m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
CLEAR = "\x1b[H\x1b[2J"
_CODE = re.compile(r"\b(10|[2-9JQKA])([SHDC])\b")
_PRETTY = re.compile(r"(?:10|[2-9JQKA])?[♥♦]|\bJK\b")
_SEAT = re.compile(r"\bseat (\d+)\b")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def pretty(code: str) -> str:
    """A card code with its suit symbol: "10H" -> "10♥" ("JK" stays)."""
    return code[:-1] + SYMBOL[code[-1]] if code[-1:] in SYMBOL and code != "JK" else code


def pretty_text(text: str) -> str:
    """Every card code inside a sentence written with suit symbols."""
    return _CODE.sub(lambda m: m.group(1) + SYMBOL[m.group(2)], text)


def paint(line: str) -> str:
    """Red hearts and diamonds, a magenta joker (ANSI colours)."""
    return _PRETTY.sub(
        lambda m: (MAGENTA if m.group(0) == "JK" else RED) + m.group(0) + RESET, line
    )


def visible(line: str) -> str:
    """The line without escape codes (what takes up columns)."""
    return _ANSI.sub("", line)


def cards(codes: Sequence[str], empty: str = "-") -> str:
    """Cards side by side."""
    return " ".join(pretty(c) for c in codes) or empty


def move_label(move: pb.Move, game: str) -> str:
    """A legal move as the player reads it: "10♥", "beat Q♠", "take"."""
    inner = getattr(move, move.WhichOneof("game") or "dix")
    action = inner.WhichOneof("action") or "?"
    card = getattr(getattr(inner, action, None), "card", "")
    if not card:
        return action
    return pretty(card) if game != "durak-dice" else f"{action} {pretty(card)}"


def wrap(head: str, items: Sequence[str], width: int = WIDTH) -> list[str]:
    """`head` then the items separated by two spaces, continued on indented lines."""
    lines, line = [], head
    for item in items:
        if len(line) + 2 + len(item) > width and line.strip():
            lines.append(line)
            line = " " * min(len(head), 8) + item
        else:
            line = f"{line}{'  ' if line != head else ' '}{item}" if line else item
    lines.append(line)
    return lines


class Table:
    """Names and markers shared by the three games' layouts."""

    def __init__(self, view: pb.MatchView) -> None:
        self.view = view
        self.names = [p.name or f"seat {p.seat}" for p in view.players]
        self.me = view.seat if view.HasField("seat") else None
        self.to_act = view.to_act if view.HasField("to_act") else None

    def name(self, seat: int) -> str:
        """A seat's name, "you" for the viewer."""
        if seat == self.me:
            return "you"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def mark(self, seat: int) -> str:
        """ ">" before the seat whose move the match waits for."""
        return ">" if seat == self.to_act else " "

    def label(self, seat: int) -> str:
        """The seat number and name, padded for a column."""
        you = " (you)" if seat == self.me and self.names[seat] != "you" else ""
        return f"{seat} {(self.names[seat][:14] + you):<20}"

    def sentence(self, text: str) -> str:
        """An event line with names for seats and symbols for cards."""
        return pretty_text(_SEAT.sub(lambda m: self._named(int(m.group(1))), text))

    def _named(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"


def _dix(t: Table) -> list[str]:
    d = t.view.dix
    trump = SUIT_ENUM.get(d.trump, "none (joker turned up)")
    lines = [
        f"Dix · hand {d.hand_number} · target {d.target} · dealer {t.name(d.dealer)}",
        f"Trump {trump} · turn-up {cards([d.turn_up] if d.turn_up else [])} · "
        f"stock {d.stock_count}",
    ]
    for s in range(len(t.names)):
        lines.append(
            f"{t.mark(s)} {t.label(s)} total {d.totals[s]:>3}  tricks {d.tricks[s]:>2}"
            f"  ten-tricks {d.tens[s]}  {d.hand_sizes[s]:>2} cards"
        )
    if d.trick:
        lines.append(f"Trick: {cards(d.trick)}   (led by {t.name(d.leader)})")
    elif t.view.status == pb.MATCH_STATUS_PLAYING:
        lines.append(f"Trick: -   ({t.name(d.leader)} to lead)")
    if d.last_trick:
        won = t.name(d.last_trick_winner) if d.HasField("last_trick_winner") else "?"
        lines.append(f"Last trick: {cards(d.last_trick)}   won by {won}")
    if t.me is not None:
        lines += wrap("Your hand:", [pretty(c) for c in d.hand] or ["-"])
    return lines


def _six_dozens(t: Table) -> list[str]:
    d = t.view.six_dozens
    personal = d.trump_mode == "PERSONAL"
    suits = " ".join(SUIT_ENUM.get(s, "?") for s in d.trump_suits) or "none"
    head = f"Six Dozens · hand {d.hand_number} · dealer {t.name(d.dealer)} · "
    head += "trumps: one per seat" if personal else f"trumps {d.trump_mode}: {suits}"
    bank = f"Bank: {pretty(d.bank) if d.bank else '-'} · stock {d.stock_count} · kitty {d.kitty}"
    if d.skip_next:
        bank += " · a 7 skips the next player"
    lines = [head, bank]
    places = {seat: i + 1 for i, seat in enumerate(d.out_order)}
    for s in range(len(t.names)):
        notes = []
        if personal and s < len(d.trump_suits):
            notes.append(f"trump {SUIT_ENUM.get(d.trump_suits[s], '?')}")
        if s in places:
            notes.append(f"out #{places[s]}")
        if s == d.first_mover:
            notes.append("first")
        lines.append(
            f"{t.mark(s)} {t.label(s)} capital {d.capitals[s]:>4}  "
            f"{d.hand_sizes[s]:>2} cards  {', '.join(notes)}".rstrip()
        )
    if d.last_play:
        lines.append(f"Last: {t.sentence(d.last_play)}")
    if t.me is not None:
        lines += wrap("Your hand:", [pretty(c) for c in d.hand] or ["-"])
    return lines


def _pair(p: pb.TablePair) -> str:
    return f"{pretty(p.attack)}/{pretty(p.defence) if p.defence else '?'}"


def _durak(t: Table) -> list[str]:
    d = t.view.durak_dice
    trump = SUIT_ENUM.get(d.trump, "-")
    lines = [
        f"Durak with dice · game {d.game_number}/{d.games} · bout {d.bout_number} · "
        f"dealer {t.name(d.dealer)}",
        f"Trump {trump} ({pretty(d.trump_card) if d.trump_card else '-'} turned up) · "
        f"discard {d.discard_count} · dice "
        + " ".join(f"{r.seat}:{r.value}" for r in d.rolls[:12]),
    ]
    places = {seat: i + 1 for i, seat in enumerate(d.out)}
    attacker = d.attacker if d.HasField("attacker") else None
    defender = d.defender if d.HasField("defender") else None
    for s in range(len(t.names)):
        role = (
            "attacker"
            if s == attacker
            else "defender"
            if s == defender
            else f"out #{places[s]}"
            if s in places
            else ""
        )
        lines.append(
            f"{t.mark(s)} {t.label(s)} {d.hand_sizes[s]:>2} cards  "
            f"fools {d.fools[s]}  {role}".rstrip()
        )
    lines += wrap("Table:", [_pair(p) for p in d.table] or ["(empty)"])[:2]
    if d.last_bout:
        how = (
            f"taken by {t.name(d.last_bout_taken_by)}"
            if d.HasField("last_bout_taken_by")
            else "beaten off"
        )
        lines += wrap(f"Last bout ({how}):", [_pair(p) for p in d.last_bout])[:1]
    if t.me is not None:
        lines += wrap("Your hand:", [pretty(c) for c in d.hand] or ["-"])[:3]
    return lines


LAYOUTS = {"dix": _dix, "six-dozens": _six_dozens, "durak-dice": _durak}


def render(
    view: pb.MatchView,
    moves: Sequence[str] = (),
    recent: Sequence[str] = (),
    notice: str = "",
    colour: bool = False,
    height: int = HEIGHT,
) -> list[str]:
    """The screen's lines (without the prompt line, which is the last of `height`)."""
    t = Table(view)
    if view.status == pb.MATCH_STATUS_WAITING:
        body = [f"{view.game}: waiting for players to join"]
    else:
        body = LAYOUTS[view.game](t)
    if line := clock_line(view, [t.name(p.seat) for p in view.players]):
        body.append(line)
    tail: list[str] = []
    if view.status == pb.MATCH_STATUS_FINISHED:
        o = view.outcome
        won = " and ".join(t.name(w) for w in o.winners) or "nobody"
        tail.append(
            f"Match over: {won} {'win' if won == 'you' or len(o.winners) > 1 else 'wins'}"
            f" · scores {' '.join(str(s) for s in o.scores)}"
        )
        if o.reason:
            tail.append(t.sentence(o.reason))
        if o.termination not in (pb.TERMINATION_UNSPECIFIED, pb.TERMINATION_NORMAL):
            tail.append(f"Ended: {pb.Termination.Name(o.termination)[12:].lower()}")
    if moves:
        tail += wrap("Moves:", [f"{i}) {m}" for i, m in enumerate(moves, 1)])
    if notice:  # a refusal can be long: its sentence wrapped, at most three lines
        tail += textwrap.wrap(pretty_text(notice), WIDTH, subsequent_indent="  ")[:3]
    room = max(0, height - 1 - len(body) - len(tail) - 1)
    shown = [t.sentence(line) for line in recent][-room:] if room else []
    lines = [*body, *(["-" * 24] if shown else []), *shown, *tail]
    lines = [line[:WIDTH] for line in lines][: height - 1]
    return [paint(line) for line in lines] if colour else lines
