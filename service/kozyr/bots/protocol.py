"""What a bot is given and what it answers: the `Seat` observation and the `Bot` protocol.

A bot never receives a game state. It receives a `Seat`: the game module, its seat number, the
seat's view (`game.view(state, seat)`), the match history as that seat may see it (every event
passed through `game.redact(event, seat)`, in order from `MatchStarted`) and its legal commands.
In-process the tournament runner builds it from the true state; over the network it is rebuilt
from what the server sent that seat's token (kozyr.tournament.remote). Both give the same object.

Bots are made per match and per seat (`make_bot`), so they may keep what they learned from the
history so far (the history only ever grows during a match).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kozyr.games.contract import AnyGame

# A bot serves any game through the contract, so it holds the game's types erased.
Command = Any
Event = Any
View = Any


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat's observation when it must decide: view, own history and legal commands."""

    game: AnyGame = field(repr=False)
    seat: int
    view: View
    history: tuple[Event, ...] = field(repr=False)
    legal: tuple[Command, ...]


class Bot(Protocol):
    """A player: picks one of the observation's legal commands."""

    def choose(self, seat: Seat) -> Command:
        """The command to play (one of `seat.legal`)."""
        ...


class BadBotSpec(ValueError):
    """A player spec the bots do not understand (unknown kind or option)."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot kind with its settings, e.g. ``ismcts:iters=200`` -> ("ismcts", {"iters": "200"})."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def text(self) -> str:
        """The spec as written on the command line (options in the given order)."""
        if not self.options:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    def option_map(self) -> dict[str, str]:
        """The options as a dict."""
        return dict(self.options)


def parse_spec(text: str) -> BotSpec:
    """Read one spec: ``kind`` or ``kind:key=value,key=value``."""
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if not kind:
        raise BadBotSpec(f"empty player spec in {text!r}")
    options: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise BadBotSpec(f"bad option {part!r} in {text!r}: write key=value")
        options.append((key.strip().lower(), value.strip()))
    return BotSpec(kind, tuple(options))


def parse_players(text: str) -> list[BotSpec]:
    """Read a comma-separated player list.

    A comma separates players, but a piece of the form ``key=value`` continues the options of
    the player before it: ``ismcts:iters=50,c=0.5,random`` is two players.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    if not specs:
        raise BadBotSpec("no players given")
    return [parse_spec(s) for s in specs]


def check_options(spec: BotSpec, allowed: Mapping[str, type]) -> dict[str, Any]:
    """The spec's options converted to the allowed types; BadBotSpec for the others."""
    out: dict[str, Any] = {}
    for key, value in spec.options:
        kind = allowed.get(key)
        if kind is None:
            known = ", ".join(allowed) or "none"
            raise BadBotSpec(f"{spec.kind} has no option {key!r} (known: {known})")
        try:
            out[key] = kind(value)
        except ValueError:
            raise BadBotSpec(f"{spec.kind}: {key}={value!r} is not a {kind.__name__}") from None
    return out
