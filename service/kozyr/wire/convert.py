"""Protobuf ⇄ domain conversion: moves in, views and events out.

A game's View dataclass and its proto message share field names, so one generic converter fills
any table message: cards become their codes, suits the Suit enum, tuples repeated fields (a
tuple inside a repeated message field fills that message's fields in order), None leaves an
optional field unset.
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core import jsontext
from kozyr.core.cards import Card, Suit, parse_card
from kozyr.games import Game
from kozyr.games.codec import encode
from kozyr.games.contract import OptionSpec
from kozyr.match import clock
from kozyr.match.errors import bad_request
from kozyr.match.limits import MAX_CARD_TEXT
from kozyr.match.log import (
    LIFECYCLE_EVENTS,
    ContributionsClosed,
    MatchCreated,
    SeatJoined,
    SeedContributed,
    SeedRevealed,
)
from kozyr.match.record import MatchRecord
from kozyr.wire import clockview, event_messages

# Which oneof field of MatchView / Move belongs to which game.
TABLE_FIELD = {"dix": "dix", "six-dozens": "six_dozens", "durak-dice": "durak_dice"}


def game_info(game: Game) -> pb.GameInfo:
    """ListGames' description of one game."""
    info = pb.GameInfo(
        name=game.NAME,
        title=game.TITLE,
        min_players=game.MIN_PLAYERS,
        max_players=game.MAX_PLAYERS,
        options=[_option(s) for s in game.OPTIONS],
        rules_version=game.RULES_VERSION,
    )
    clockview.game_clock_info(info)
    return info


def _option(spec: OptionSpec) -> pb.OptionSpec:
    msg = pb.OptionSpec(
        name=spec.name,
        kind=spec.kind,
        default_value=option_text(spec.default),
        help=spec.help,
        choices=[option_text(c) for c in spec.choices],
    )
    if spec.minimum is not None:
        msg.minimum = spec.minimum
    if spec.maximum is not None:
        msg.maximum = spec.maximum
    return msg


def option_text(value: object) -> str:
    """An option value as the text the API uses (R-6)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "".join(s.letter if isinstance(s, Suit) else str(s) for s in value)
    return str(value)


# ---------------------------------------------------------------------------- moves


def parse_card_text(text: str) -> Card:
    """A card from a request; INVALID_ARGUMENT with a hint otherwise."""
    if len(text) > MAX_CARD_TEXT:
        raise bad_request("FIELD_TOO_LONG", "a card code has at most 3 characters, e.g. 10H")
    try:
        return parse_card(text)
    except ValueError as e:
        raise bad_request("BAD_CARD", str(e)) from None


# Commands by their Move's bytes and Move messages by command, per game: a game has a few
# hundred commands, and every decision converts each of its legal moves (2-3 % of a served
# move's CPU). Bounded, since a Move's bytes may carry unknown fields.
_COMMANDS: dict[tuple[str, bytes], Any] = {}
_MOVES: dict[tuple[str, Any], pb.Move] = {}
KNOWN_MOVES = 4096


def command_from_move(game: Game, move: pb.Move) -> Any:
    """The game's command for a Move message; INVALID_ARGUMENT if it is malformed."""
    key = (game.NAME, move.SerializeToString())
    command = _COMMANDS.get(key)
    if command is None:
        command = _command_from_move(game, move)
        if len(_COMMANDS) < KNOWN_MOVES:
            _COMMANDS[key] = command
    return command


def _command_from_move(game: Game, move: pb.Move) -> Any:
    which = move.WhichOneof("game")
    if which is None:
        raise bad_request("EMPTY_MOVE", "the move is empty: set the game's move")
    if which != TABLE_FIELD[game.NAME]:
        raise bad_request(
            "WRONG_GAME", f"this match plays {game.NAME}; send Move.{TABLE_FIELD[game.NAME]}"
        )
    inner = getattr(move, which)
    action = inner.WhichOneof("action")
    if action is None:
        raise bad_request("EMPTY_MOVE", "the move has no action")
    types = {cls.__name__.lower(): cls for cls in game.COMMAND_TYPES}
    cls = types.get(action)
    if cls is None:  # "play" in Dix / Six Dozens, "attack"/"beat"/"take"/"pass" in Durak
        raise bad_request("UNKNOWN_ACTION", f"{action!r} is not a {game.TITLE} move")
    payload = getattr(inner, action)
    if "card" in payload.DESCRIPTOR.fields_by_name:
        if not payload.card:
            raise bad_request("EMPTY_CARD", "the move names no card")
        return cls(card=parse_card_text(payload.card))
    return cls()


def move_from_command(game: Game, command: Any) -> pb.Move:
    """The Move message for one of the game's commands: one message per command, shared by
    every caller (copied where it is put into another message), so never change it."""
    key = (game.NAME, command)
    move = _MOVES.get(key)
    if move is None:
        move = _move_from_command(game, command)
        if len(_MOVES) < KNOWN_MOVES:
            _MOVES[key] = move
    return move


def decision_moves(game: Game, commands: Sequence[Any]) -> bytes:
    """The wire form of a Decision's `moves` field holding these commands, for
    `Decision.MergeFromString`: each move's bytes are made once, and one parse puts them all
    in place (extending the field copied every Move message, ~3x the time)."""
    parts = []
    for command in commands:
        key = (game.NAME, command)
        raw = _RAW_MOVES.get(key)
        if raw is None:  # the field's tag, length and move, as protobuf writes them
            raw = pb.Decision(moves=[move_from_command(game, command)]).SerializeToString()
            if len(_RAW_MOVES) < KNOWN_MOVES:
                _RAW_MOVES[key] = raw
        parts.append(raw)
    return b"".join(parts)


_RAW_MOVES: dict[tuple[str, Any], bytes] = {}


def _move_from_command(game: Game, command: Any) -> pb.Move:
    move = pb.Move()
    inner = getattr(move, TABLE_FIELD[game.NAME])
    action = getattr(inner, type(command).__name__.lower())
    card = getattr(command, "card", None)
    if card is not None:
        action.card = card.code
    else:
        action.SetInParent()
    return move


# ---------------------------------------------------------------------------- views


def match_view(
    record: MatchRecord,
    viewer: int | None,
    game_view: Any | None = None,
    *,
    lean: bool = False,
    into: pb.MatchView | None = None,
    table: bool = True,
) -> pb.MatchView:
    """The MatchView of a record for a seat (or spectator/arbiter when viewer is None),
    filled into `into` when given (an empty view inside the message that carries it).

    `lean` (a started match) leaves out what no move changes: players, options, prearranged
    and the seed commitment, which the caller has from an earlier view. `table=False` leaves
    out the game's table (a session seat that takes game views)."""
    game = record.game
    msg = pb.MatchView() if into is None else into
    msg.match_id, msg.game, msg.version = record.match_id, game.NAME, record.version
    msg.revealed_server_seed = record.revealed_seed
    if not (lean and record.started):
        msg.options.update(record.options)
        msg.prearranged = record.created.prearranged
        msg.seed_commitment = record.created.commitment
        msg.players.extend(
            pb.Player(seat=i, name=name, joined=bool(name), seed_contribution=contribution)
            for i, (name, contribution) in enumerate(
                zip(record.names, record.contributions, strict=True)
            )
        )
    if viewer is not None:
        msg.seat = viewer
    clockview.fill_clock(msg, record)
    outcome = record.outcome
    if not record.started and outcome is None:
        msg.status = pb.MATCH_STATUS_WAITING
        return msg
    if outcome is None:
        msg.status = pb.MATCH_STATUS_PLAYING
        to_act = game.to_act(record.state)
        if to_act is not None:
            msg.to_act = to_act
    else:
        msg.status = pb.MATCH_STATUS_FINISHED
        msg.outcome.CopyFrom(
            pb.Outcome(winners=outcome.winners, scores=outcome.scores, reason=outcome.reason)
        )
        clockview.outcome_fields(msg.outcome, outcome.termination, outcome.seats)
        if not record.started:  # an expired or aborted match that never started
            return msg
    if not table:
        return msg
    view = game_view if game_view is not None else game.view(record.state, viewer)
    fill(getattr(msg, TABLE_FIELD[game.NAME]), view)
    return msg


def game_view_json(record: MatchRecord, seat: int) -> str:
    """The seat's view as the rules give it to a bot, in the games' JSON form (that of the
    events' data_json): Decision.game_view_json."""
    return jsontext.dumps(encode(record.game.view(record.state, seat)))


def fill(msg: Message, obj: Any) -> Message:
    """Copy the same-named attributes of a dataclass into a message (see module docstring)."""
    filler = _FILLERS.get(msg.DESCRIPTOR)
    if filler is None:
        filler = _FILLERS[msg.DESCRIPTOR] = _filler(msg.DESCRIPTOR)
    filler(msg, obj)
    return msg


# A filler per message type, written for its fields (as the codec's encoders are): the
# generic loop over a plan spent 14.5 µs of a Dix table (every decision's view on the server,
# and the bot's check of it on the client), the written one about a third of that. What each
# line does is what `set_field` does for that kind of field.
_FILLERS: dict[Any, Any] = {}


def _filler(descriptor: Any) -> Any:
    lines, env = ["def fill(msg, obj):"], {"Card": Card, "_scalar": _scalar, "set_field": set_field}
    for k, (name, repeated, nested, text) in enumerate(field_plan(descriptor)):
        lines += [f"    v = getattr(obj, {name!r}, None)", "    if v is not None:"]
        if nested and repeated and not keyword.iskeyword(name):
            # Items are tuples filling the item message's fields in order (or dataclasses).
            env[f"_item{k}"] = _item_filler(descriptor.fields_by_name[name].message_type)
            lines += [
                f"        add = msg.{name}.add",
                "        for item in v:",
                f"            _item{k}(add(), item)",
            ]
        else:
            lines.append("        " + _assign(name, repeated, nested, text, "v"))
    lines.append("    return msg")
    exec("\n".join(lines), env)  # the source is made above from the descriptor's field names
    return env["fill"]


def _item_filler(descriptor: Any) -> Any:
    """A filler of one repeated item: from a tuple by position, else by name (`fill`)."""
    lines = [
        "def item(msg, value):",
        "    if type(value) is not tuple:",
        "        return _fill(msg, value)",
        "    n = len(value)",
    ]
    for k, (name, repeated, nested, text) in enumerate(field_plan(descriptor)):
        lines += [
            f"    if n > {k} and value[{k}] is not None:",
            "        " + _assign(name, repeated, nested, text, f"value[{k}]"),
        ]
    env = {"Card": Card, "_scalar": _scalar, "set_field": set_field, "_fill": fill}
    exec("\n".join(lines), env)  # the source is made above from the descriptor's field names
    return env["item"]


def _assign(name: str, repeated: bool, nested: bool, text: bool, v: str) -> str:
    """The statement that sets field `name` from the expression `v`, as `set_field` would."""
    if nested or keyword.iskeyword(name):  # a message, or no attribute syntax: in general
        return f"set_field(msg, {name!r}, {repeated}, {nested}, {text}, {v})"
    if repeated and text:
        return f"msg.{name}.extend([c.code if type(c) is Card else _scalar(True, c) for c in {v}])"
    if repeated:
        return f"msg.{name}.extend([c if type(c) is int else _scalar(False, c) for c in {v}])"
    if text:
        return f"msg.{name} = {v} if type({v}) is str else _scalar(True, {v})"
    return f"msg.{name} = {v} if type({v}) is int else _scalar(False, {v})"


_PLANS: dict[Any, tuple[tuple[str, bool, bool, bool], ...]] = {}


def field_plan(descriptor: Any) -> tuple[tuple[str, bool, bool, bool], ...]:
    """Per message type: each field's name, whether repeated, a message, a string (cached:
    reading descriptors costs more than filling the fields)."""
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = _PLANS[descriptor] = tuple(
            (
                f.name,
                f.is_repeated,
                f.type == FieldDescriptor.TYPE_MESSAGE,
                f.type == FieldDescriptor.TYPE_STRING,
            )
            for f in descriptor.fields
        )
    return plan


def set_field(
    msg: Message, name: str, repeated: bool, nested: bool, text: bool, value: Any
) -> None:
    """Set one field of a message from a view's value, the general way (a plan's entry)."""
    if repeated:
        target = getattr(msg, name)
        if nested:
            for item in value:
                _fill_positional(target.add(), item)
        else:
            target.extend([_scalar(text, v) for v in value])
    elif nested:
        _fill_positional(getattr(msg, name), value)
    else:
        setattr(msg, name, _scalar(text, value))


def _fill_positional(msg: Message, value: Any) -> None:
    if isinstance(value, tuple):
        for (name, repeated, nested, text), item in zip(
            field_plan(msg.DESCRIPTOR), value, strict=False
        ):
            if item is not None:
                set_field(msg, name, repeated, nested, text, item)
    else:
        fill(msg, value)


def _scalar(text: bool, value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Suit):
        return int(value) + 1  # kozyr.v1.Suit: SUIT_S = 1 … SUIT_C = 4
    if text and not isinstance(value, str):
        return str(value)
    return value


def events_for(
    game: Game,
    version: int,
    events: Sequence[Any],
    viewer: int | None,
    arbiter: bool = False,
    shown: dict[int, pb.Event] | None = None,
) -> list[pb.Event]:
    """The entry's events as the viewer may see them (the arbiter sees all but the secrets
    the engine itself keeps out of events). `shown` keeps, by position, the messages of the
    events that are the same for every viewer, for the entry's other viewers."""
    out = []
    for k, event in enumerate(events):
        if shown is not None and (kept := shown.get(k)) is not None:
            out.append(kept)
            continue
        visible = event if arbiter else _redact(game, event, viewer)
        if visible is None:
            continue
        data = encode(visible)
        message = pb.Event(
            version=version,
            type=type(visible).__name__,
            data_json=jsontext.dumps(data),
            text=_describe(game, visible),
        )
        # The typed event from the same redacted data as data_json: never more than it.
        event_messages.fill_event(message, TABLE_FIELD.get(game.NAME, ""), visible, data)
        if (
            shown is not None
            and not arbiter
            and visible is event
            and (_redact(game, event, None) is event)
        ):
            shown[k] = message  # a spectator sees it whole: so does every viewer
        out.append(message)
    return out


def _redact(game: Game, event: Any, viewer: int | None) -> Any | None:
    if isinstance(event, MatchCreated):
        if event.decks or event.dice:  # a prearranged deal is hidden like any deck
            return replace(event, decks=(), dice=())
        return event
    if isinstance(event, LIFECYCLE_EVENTS):
        return event
    return game.redact(event, viewer)


def _describe(game: Game, event: Any) -> str:
    if isinstance(event, MatchCreated):
        return f"match created: {event.game}, {len(event.seats)} seats"
    if isinstance(event, SeatJoined):
        return f"{event.name} takes seat {event.seat}"
    if isinstance(event, SeedContributed):
        return f"seat {event.seat} contributes to the match seed"
    if isinstance(event, ContributionsClosed):
        seats = ", ".join(str(s) for s in event.seats)
        return f"the contribution window ends; seat {seats} gave none"
    if isinstance(event, SeedRevealed):
        return "the match is over; the server seed is revealed"
    if (text := clock.describe(event)) is not None:
        return text
    describe = getattr(game, "describe", None)
    return str(describe(event)) if describe is not None else type(event).__name__
