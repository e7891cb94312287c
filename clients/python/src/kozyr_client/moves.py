"""Building and reading kozyr.v1.Move messages without spelling out the oneofs."""

from __future__ import annotations

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

# Which Move / MatchView oneof field belongs to which game.
GAME_FIELD = {"dix": "dix", "six-dozens": "six_dozens", "durak-dice": "durak_dice"}
# The actions each game's move has, and whether they name a card.
ACTIONS: dict[str, dict[str, bool]] = {
    "dix": {"play": True},
    "six-dozens": {"play": True},
    "durak-dice": {"attack": True, "beat": True, "take": False, "pass": False},
}


def make_move(game: str, action: str, card: str | None = None) -> pb.Move:
    """A Move of `game`: make_move("dix", "play", "10H"), make_move("durak-dice", "take")."""
    try:
        field = GAME_FIELD[game]
        needs_card = ACTIONS[game][action]
    except KeyError:
        raise ValueError(f"{game!r} has no {action!r} move") from None
    if needs_card != (card is not None):
        raise ValueError(f"{action!r} {'needs' if needs_card else 'takes no'} card")
    move = pb.Move()
    target = getattr(getattr(move, field), action)
    if card is not None:
        target.card = card
    else:
        target.SetInParent()
    return move


def play(game: str, card: str) -> pb.Move:
    """Play a card (Dix, Six Dozens)."""
    return make_move(game, "play", card)


def attack(card: str) -> pb.Move:
    """Durak: open a bout or throw in a card."""
    return make_move("durak-dice", "attack", card)


def beat(card: str) -> pb.Move:
    """Durak: beat the pending card."""
    return make_move("durak-dice", "beat", card)


def take() -> pb.Move:
    """Durak: the defender picks up the table."""
    return make_move("durak-dice", "take")


def pass_() -> pb.Move:
    """Durak: decline to throw in."""
    return make_move("durak-dice", "pass")


def action_of(move: pb.Move) -> tuple[str, str | None]:
    """A move's (action, card code or None): ("play", "10H"), ("take", None)."""
    which = move.WhichOneof("game")
    if which is None:
        raise ValueError("empty move")
    inner = getattr(move, which)
    action = inner.WhichOneof("action")
    if action is None:
        raise ValueError("move without an action")
    payload = getattr(inner, action)
    card = getattr(payload, "card", None)
    return action, (card or None)


def describe(move: pb.Move) -> str:
    """A move in a few words: "play 10H", "beat QS", "take"."""
    action, card = action_of(move)
    return action if card is None else f"{action} {card}"
