"""The Game contract every rules module implements, and what the games share.

A game is a *decider* (docs/architecture.md): a module with frozen dataclasses for its
config, state, commands and events, and pure functions. The engine, the API, the bots and the
replay tools only ever talk to a game through this contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from kozyr.core.cards import Card, Suit, mask_of
from kozyr.core.fairness import FIRST_DEALER, RandomStream

# A game's own frozen dataclasses: each rules module binds these to its own types.
ConfigT = TypeVar("ConfigT")
StateT = TypeVar("StateT")
CommandT = TypeVar("CommandT")
EventT = TypeVar("EventT")
ViewT = TypeVar("ViewT")


class IllegalMove(Exception):
    """A command the rules refuse in this state: a stable reason code, a sentence for people and
    the ID of the rule that refuses it (docs/rules.md), "" where no single rule applies."""

    def __init__(self, code: str, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def __repr__(self) -> str:
        return f"IllegalMove({self.code!r}, {self.message!r}, rule={self.rule!r})"


class InvalidOptions(ValueError):
    """Options refused when a match is created (R-6, or the rule of the option concerned)."""

    def __init__(self, code: str, message: str, rule: str = "R-6") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule


# Reason codes shared by all games (each game adds its own).
NOT_YOUR_TURN = "NOT_YOUR_TURN"
CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
MATCH_OVER = "MATCH_OVER"
UNKNOWN_COMMAND = "UNKNOWN_COMMAND"
NOT_A_SEAT = "NOT_A_SEAT"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One named match option (docs/rules.md R-6): its type, allowed values, default and help.

    `kind` is ``int``, ``bool``, ``enum`` or ``suits`` (a string of distinct suit letters such as
    ``SD``). `default` None means "decided by the rules from the other options" (documented in
    `help`). `choices` lists the allowed values when they are enumerable; `minimum`/`maximum`
    bound an int (the maxima keep every number inside the API's int32 fields). `rule` is the
    rule the option belongs to, named when a value is refused.
    """

    name: str
    kind: str
    default: object
    help: str
    choices: tuple[object, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    rule: str = "R-6"


@dataclass(frozen=True, slots=True)
class Setup:
    """How a match is set up apart from its options (docs/rules.md R-2, R-3).

    `first_dealer` fixes the first dealer instead of drawing lots. `decks` prearranges the deck
    order (top card first, as a shuffle would leave it) of hands/games 1, 2, …; `dice` likewise
    prearranges the die rolls of Durak games 1, 2, …. Hands or games past the given ones are
    drawn from the seed.
    """

    first_dealer: int | None = None
    decks: tuple[tuple[Card, ...], ...] = ()
    dice: tuple[tuple[int, ...], ...] = ()

    @property
    def prearranged(self) -> bool:
        """True when any deck order or roll was given rather than drawn from the seed (R-3)."""
        return bool(self.decks or self.dice)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished match ended.

    `winners` are seats (several when they share the win); `scores` are per seat in the game's
    own unit (Dix totals, Six Dozens capitals, Durak fool counts); `reason` is one sentence.
    `termination` is how it ended (docs/rules.md R-7: NORMAL, GUARD, RESIGNED, TIMED_OUT,
    ABORTED, ABANDONED, EXPIRED) and `seats` the seats that ending concerns.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    details: tuple[tuple[str, str], ...] = field(default=())
    termination: str = "NORMAL"
    seats: tuple[int, ...] = ()


# --------------------------------------------------------------------------- shared events


@dataclass(frozen=True, slots=True)
class MatchStarted(Generic[ConfigT]):
    """R-1 … R-3: the first event of every game: config, players, seed and the setup.

    `decks`/`dice` are the prearranged deck orders and die rolls (() where the game has none);
    `prearranged` marks a match whose deals were given rather than drawn from the seed.
    """

    config: ConfigT
    players: tuple[str, ...]
    seed: bytes
    first_dealer: int | None
    decks: tuple[tuple[Card, ...], ...]
    dice: tuple[tuple[int, ...], ...]
    prearranged: bool


@dataclass(frozen=True, slots=True)
class FirstDealerChosen:
    """R-2: the dealer of hand/game 1, by lot from the seed or fixed by the setup."""

    seat: int
    by_lot: bool


@dataclass(frozen=True, slots=True)
class Dealt:
    """R-1, R-3: hand/game `number` (the K of docs/fairness.md's ``deal/K``) is dealt.

    `deck` is the full order, top first; `rolls` the die rolls as thrown, ``(seat, value)``
    (Durak with dice; () elsewhere); `hands` the cards dealt, by seat. What else a game shows
    of its deal (a turn-up, a bank, a trump card) follows in a public event of its own.
    """

    number: int
    dealer: int
    deck: tuple[Card, ...]
    rolls: tuple[tuple[int, int], ...]
    hands: tuple[tuple[Card, ...], ...]


def start_events(
    config: ConfigT, players: Sequence[str], seed: bytes, setup: Setup
) -> tuple[MatchStarted[ConfigT], FirstDealerChosen]:
    """R-1 … R-3: the two events that open every match (the lot of R-2 drawn from the seed)."""
    started = MatchStarted(
        config=config,
        players=tuple(players),
        seed=seed,
        first_dealer=setup.first_dealer,
        decks=tuple(tuple(d) for d in setup.decks),
        dice=tuple(tuple(r) for r in setup.dice),
        prearranged=setup.prearranged,
    )
    return started, FirstDealerChosen(*first_dealer(seed, setup, len(players)))


def redact_started(event: MatchStarted[ConfigT]) -> MatchStarted[ConfigT]:
    """MatchStarted without the seed and the prearranged orders (their number stays shown)."""
    return MatchStarted(
        config=event.config,
        players=event.players,
        seed=b"",
        first_dealer=event.first_dealer,
        decks=tuple(() for _ in event.decks),
        dice=tuple(() for _ in event.dice),
        prearranged=event.prearranged,
    )


def redact_dealt(event: Dealt, viewer: int | None) -> Dealt:
    """Dealt as `viewer` sees it: no deck order, only the viewer's own hand (the rolls are
    thrown in the open)."""
    hands = tuple(h if p == viewer else () for p, h in enumerate(event.hands))
    return Dealt(number=event.number, dealer=event.dealer, deck=(), rolls=event.rolls, hands=hands)


class Game(Protocol[ConfigT, StateT, CommandT, EventT, ViewT]):
    """What a rules module provides (each of `kozyr.games.dix`, `six_dozens`, `durak_dice`)."""

    NAME: str
    TITLE: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    OPTIONS: tuple[OptionSpec, ...]
    COMMAND_TYPES: tuple[type, ...]
    EVENT_TYPES: tuple[type, ...]
    RULES_VERSION: str

    def make_config(self, options: Mapping[str, object], players: int) -> ConfigT:
        """Validate raw options (named as in docs/rules.md) for a player count, or raise
        InvalidOptions."""
        ...

    def check_setup(self, config: ConfigT, players: int, setup: Setup) -> None:
        """Refuse a setup `start` could not open for `players` seats: InvalidOptions with a
        precise code (BAD_PLAYER_COUNT, BAD_FIRST_DEALER, BAD_DECK, BAD_DICE, BAD_SETUP, …)."""
        ...

    def start(
        self, config: ConfigT, players: Sequence[str], seed: bytes, setup: Setup = ...
    ) -> tuple[EventT, ...]:
        """The events that open a match: MatchStarted, FirstDealerChosen, the first Dealt…"""
        ...

    def decide(self, state: StateT, seat: int, command: CommandT) -> tuple[EventT, ...]:
        """The events a seat's command causes, automatic consequences included; or IllegalMove."""
        ...

    def evolve(self, state: StateT | None, event: EventT) -> StateT:
        """Apply one event (state None only for the first event of a match)."""
        ...

    def legal_commands(self, state: StateT, seat: int) -> tuple[CommandT, ...]:
        """Every command `seat` may send now (empty when it is not that seat's turn)."""
        ...

    def to_act(self, state: StateT) -> int | None:
        """The seat whose decision the match waits for; None once the match is over."""
        ...

    def view(self, state: StateT, viewer: int | None) -> ViewT:
        """What `viewer` may see (None = spectator); the seed and stock only after the end."""
        ...

    def redact(self, event: EventT, viewer: int | None) -> EventT | None:
        """The event as `viewer` may see it (hidden cards removed), or None if it shows nothing."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """The final outcome, or None while the match runs."""
        ...

    def zones(self, state: StateT) -> Mapping[str, tuple[Card, ...]]:
        """Where every card is (hands, stock, table, piles…): each card in exactly one zone."""
        ...

    def hidden_zones(self, state: StateT, viewer: int | None) -> tuple[str, ...]:
        """The zones whose cards `viewer` may not see (its view must not depend on them)."""
        ...

    def with_zones(self, state: StateT, zones: Mapping[str, tuple[Card, ...]]) -> StateT:
        """The state with its cards placed as `zones` says (names and sizes of `zones`; a zone
        left out keeps its cards).

        Used to swap hidden cards in tests and to sample what a seat cannot see (bots).
        """
        ...

    def render(self, view: ViewT) -> str:
        """The table as plain text (≤ 78 columns) as a person would see it from that view."""
        ...

    def describe(self, event: EventT) -> str:
        """One readable line for an event."""
        ...

    def default_decision(self, state: StateT, seat: int) -> CommandT:
        """The rules' default decision for `seat`, whose decision it is (R-9 AUTO_MOVE)."""
        ...

    def forfeit(self, state: StateT, seat: int) -> Outcome:
        """The outcome when `seat` forfeits a running match (R-7; each game's own rule)."""
        ...

    def guarded(self, state: StateT) -> bool:
        """True when the guard of R-5 ended the finished match."""
        ...


# The contract with its types erased: what the engine, the API and the tools hold.
AnyGame = Game[Any, Any, Any, Any, Any]


def zone_mask(new: Mapping[str, Sequence[Card]], zone: str, kept: int) -> int:
    """For `with_zones`: the mask of a zone's new cards, or `kept` when `new` leaves it out."""
    cards = new.get(zone)
    return kept if cards is None else mask_of(cards)


def fold(
    game: Game[Any, StateT, Any, EventT, Any],
    events: Iterable[EventT],
    state: StateT | None = None,
) -> StateT:
    """Apply events in order to a state (None: from the start of the match)."""
    evolve = game.evolve
    out = state
    for event in events:
        out = evolve(out, event)
    if out is None:
        raise ValueError("no events to fold from the start of a match")
    return out


def resolve_options(specs: Sequence[OptionSpec], raw: Mapping[str, object]) -> dict[str, object]:
    """Check raw options against specs and fill defaults (R-6); raise InvalidOptions.

    Values may be typed (int, bool, str) or strings as they arrive over the wire.
    """
    by_name = {s.name: s for s in specs}
    unknown = sorted(set(raw) - set(by_name))
    if unknown:
        known = ", ".join(by_name) or "none"
        raise InvalidOptions("UNKNOWN_OPTION", f"unknown option {unknown[0]!r} (known: {known})")
    out: dict[str, object] = {}
    for spec in specs:
        out[spec.name] = _coerce(spec, raw[spec.name]) if spec.name in raw else spec.default
    return out


def _coerce(spec: OptionSpec, value: object) -> object:
    rule = spec.rule
    bad = InvalidOptions(
        "BAD_OPTION_VALUE",
        f"option {spec.name!r} cannot be {value!r}"
        + (f" (allowed: {', '.join(map(str, spec.choices))})" if spec.choices else ""),
        rule=rule,
    )
    if spec.kind == "int":
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise bad from None
        if not isinstance(value, int):
            raise bad
        low, high = spec.minimum, spec.maximum
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidOptions(
                "BAD_OPTION_VALUE",
                f"option {spec.name!r} must be {_range_text(low, high)}, not {value}",
                rule=rule,
            )
    elif spec.kind == "bool":
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered not in ("true", "false"):
                raise bad
            value = lowered == "true"
        if not isinstance(value, bool):
            raise bad
    elif spec.kind == "enum":
        # enumerated values are written exactly as docs/rules.md writes them (UPPER_SNAKE).
        if not isinstance(value, str):
            raise bad
        if value not in spec.choices and value.strip().upper() in spec.choices:
            raise InvalidOptions(
                "BAD_OPTION_VALUE",
                f"option {spec.name!r} cannot be {value!r}: write {value.strip().upper()!r}",
                rule="R-6",
            )
    elif spec.kind == "suits":
        return _suits(spec, value, bad)
    else:  # pragma: no cover - a programming error in a game's spec
        raise AssertionError(spec.kind)
    if spec.choices and value not in spec.choices:
        raise bad
    return value


def _suits(spec: OptionSpec, value: object, bad: InvalidOptions) -> tuple[Suit, ...]:
    if isinstance(value, str):
        letters = value.replace(",", "").replace(" ", "")
    elif isinstance(value, (list, tuple)):
        letters = "".join(s.letter if isinstance(s, Suit) else str(s) for s in value)
    else:
        raise bad
    try:
        suits = tuple(Suit.parse(ch) for ch in letters)
    except ValueError:
        raise bad from None
    if len(set(suits)) != len(suits):
        raise InvalidOptions(
            "BAD_OPTION_VALUE",
            f"option {spec.name!r}: the suits given must be different",
            rule=spec.rule,
        )
    return suits


def _range_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"at least {low} and at most {high}"
    return f"at least {low}" if low is not None else f"at most {high}"


def check_players(title: str, low: int, high: int, players: int) -> None:
    """Refuse a player count outside low..high (the game's heading in docs/rules.md)."""
    if not low <= players <= high:
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        raise InvalidOptions("BAD_PLAYER_COUNT", f"{title} is for {allowed} players, not {players}")


def check_deal_setup(setup: Setup, players: int, cards: Sequence[Card], *, dice: bool) -> None:
    """R-2, R-3: refuse a first dealer who is not a seat, a prearranged deck that is not the
    game's deck in some order, and rolls where the game has no dice or outside 1..6."""
    if setup.first_dealer is not None and not 0 <= setup.first_dealer < players:
        raise InvalidOptions(
            "BAD_FIRST_DEALER",
            f"there is no seat {setup.first_dealer} to deal first (seats are 0 to {players - 1})",
            rule="R-2",
        )
    expected = sorted(cards)
    for k, order in enumerate(setup.decks, 1):
        if len(order) != len(expected) or sorted(order) != expected:
            raise InvalidOptions(
                "BAD_DECK",
                f"prearranged deck {k} must hold each card of the {len(expected)}-card deck once",
                rule="R-3",
            )
    if setup.dice and not dice:
        raise InvalidOptions("BAD_SETUP", "this game uses no dice", rule="R-3")
    for k, rolls in enumerate(setup.dice, 1):
        if any(type(r) is not int or not 1 <= r <= 6 for r in rolls):
            raise InvalidOptions(
                "BAD_DICE", f"the rolls of game {k} must be numbers 1 to 6", rule="R-3"
            )


def first_dealer(seed: bytes, setup: Setup, players: int) -> tuple[int, bool]:
    """R-2: the setup's first dealer, else one drawn by lot from the seed; and whether by lot."""
    if setup.first_dealer is not None:
        return setup.first_dealer, False
    return RandomStream(seed, FIRST_DEALER).randbelow(players), True
