"""A tournament's settings and one match's result (plain data, passed to worker processes)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from kozyr.bots import check_spec, parse_spec
from kozyr.games import get_game
from kozyr.match.limits import MAX_NAME
from kozyr.tournament.schedule import FORMATS, Fixture, master_key, schedule

DEALS = ("prearranged", "seeded")


@dataclass(frozen=True, slots=True)
class Tournament:
    """What to play: the game, its options, the players (bot specs), the format and the seeds."""

    game: str
    players: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    format: str = "duplicate"
    matches: int = 100
    seed: int | str = 0
    seats: int = 0  # 0: every player in every match
    # --server only: "prearranged" sends each fixture's deal (duplicate deals repeat exactly);
    # "seeded" lets the server draw them from its committed seed and each seat's contribution,
    # so every match is a fair random deal (and duplicate deals no longer repeat).
    deals: str = "prearranged"
    keep: str = ""  # --server only: a folder for each match's log and its seats' receipts
    # --server only: the server's own bots play every seat (SeatRequest.bot), no client per seat
    server_bots: bool = False

    def __post_init__(self) -> None:
        game = get_game(self.game)  # KeyError names the known games
        if self.deals not in DEALS:
            raise ValueError(f"unknown deals {self.deals!r} (known: {', '.join(DEALS)})")
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r} (known: {', '.join(FORMATS)})")
        for text in self.players:
            check_spec(parse_spec(text))
        seats = self.table_size
        if not game.MIN_PLAYERS <= seats <= game.MAX_PLAYERS:
            raise ValueError(
                f"{game.TITLE} is for {game.MIN_PLAYERS}–{game.MAX_PLAYERS} players, not {seats}"
            )
        if seats > len(self.players):
            raise ValueError(f"{seats} seats need at least {seats} players")
        game.make_config(dict(self.options), seats)  # InvalidOptions says what is wrong

    @property
    def table_size(self) -> int:
        """Seats per match."""
        return self.seats or len(self.players)

    @property
    def names(self) -> tuple[str, ...]:
        """Display names: the specs, with #2, #3… on repeats (``random,random``)."""
        out: list[str] = []
        for text in self.players:
            name = text
            k = 2
            while name in out:
                name = f"{text}#{k}"
                k += 1
            out.append(name)
        return tuple(out)

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The names the players' seats take on a server: the display names, each cut to the
        server's limit (a policy's path can be longer) and kept apart by the end of its
        digest, so two long specs never share a name."""
        return tuple(
            name
            if len(name) <= MAX_NAME
            else f"{name[: MAX_NAME - 9]}…{hashlib.sha256(name.encode()).hexdigest()[:8]}"
            for name in self.names
        )

    @property
    def master(self) -> bytes:
        """The master seed's key bytes."""
        return master_key(self.seed)

    def fixtures(self) -> list[Fixture]:
        """Every scheduled match."""
        return schedule(self.format, len(self.players), self.table_size, self.matches)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One played match: its fixture, winners and scores by seat, moves, and server match id."""

    index: int
    deal: int
    lineup: tuple[int, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    moves: int
    reason: str
    match_id: str = ""
    details: tuple[tuple[str, str], ...] = field(default=())

    def share(self, seat: int) -> float:
        """The seat's share of the win: 1/k for each of k winners, else 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0
