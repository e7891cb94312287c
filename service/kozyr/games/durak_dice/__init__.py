"""Durak with dice («Дурак с костями»): 2–6 players shed cards; the last holding any is the fool.

docs/rules.md "Durak with dice" (DUR-1 … DUR-10) and R-1 … R-6. The whole deck is dealt by die
rolls (DUR-3); there is no stock. A bout is one attacker against the next player holding cards;
at most one unbeaten card lies on the table; after each beat the others may throw in a card of a
rank on the table, attacker first (DUR-7). A match is `games` games; fewest fools wins (DUR-10).

Decisions where docs/rules.md is silent (the seed text does not decide them either):

- Taking (DUR-6, DUR-8) is only possible while a card waits to be beaten. "Even with nothing to
  beat" is read as R-4 words it: "a take when nothing can beat" — with no card able to beat, the
  defender still sends Take himself. Once everything on the table is beaten the defender has
  nothing to do until the next throw-in or the end of the bout.
- Rolls past the prearranged ones of a game (`Setup.dice`) come from the stream ``dice/k`` read
  from its start: the first missing roll is that stream's first die.
- A roll is recorded as thrown, also when it is larger than the cards left (DUR-3 takes
  ``min(roll, cards left)``).
- Every card is dealt (DUR-3), so somebody always holds a trump and the "lowest card" fallback of
  DUR-4 cannot happen with real deals; it is implemented anyway (lowest rank, ties to the first
  seat clockwise from the dealer's left).
- A player is out the moment his hand empties; `out` lists seats in that order (within one card
  play: the player of the card). A player without cards is skipped everywhere (throw order, next
  attacker, next defender) but the game's end is only checked when a bout ends (DUR-9).
- A pass (DUR-7) holds only until the next beat: after a beat the order restarts at the attacker
  and everyone holding cards is asked again. Nothing but `max_attacks` limits the number of
  throw-ins (the defender beats them one at a time).
- The attacker may open a bout with his last card; a thrower may throw his last card.
- `max_bouts` (R-5) counts the bouts of one game; when the bout numbered `max_bouts` ends and the
  end check has not ended the game, the game is a draw. After any draw the same dealer deals and
  the next game opens as the first (lowest trump).
- The discard pile is face down, but its cards were seen on the table, so the event that moves a
  bout there lists them; a taken pile is listed likewise (public). Cards everybody has seen in a
  hand — the turned-up trump card (dealt last, to the last roller) and taken cards, until played —
  are public: the view lists them per seat (`known`), and `zones` keeps them apart from the unseen
  part of each hand.
- Automatic throw-in passes are events of their own (`Passed(automatic=True)`), so the log shows
  who could not throw.
- `Setup.decks`/`Setup.dice` entries beyond `games` are checked and ignored.
- The view's `trump`/`trump_card` are None only in the instant before the first deal (the events
  of `start` are always folded together, so nobody sees that state).
"""

from __future__ import annotations

from kozyr.games.contract import (
    CARD_NOT_IN_HAND,
    MATCH_OVER,
    NOT_A_SEAT,
    NOT_YOUR_TURN,
    UNKNOWN_COMMAND,
    Dealt,
    FirstDealerChosen,
    IllegalMove,
    MatchStarted,
    OptionSpec,
    Outcome,
    Setup,
)
from kozyr.games.durak_dice.ending import default_decision, forfeit, guarded
from kozyr.games.durak_dice.evolve import evolve
from kozyr.games.durak_dice.model import (
    CANNOT_BEAT,
    CANNOT_THROW_IN,
    COMMAND_TYPES,
    DEFENDED,
    DRAW,
    EVENT_TYPES,
    FOOL,
    FROM_UNDER_FOOL,
    LOWEST_CARD,
    LOWEST_TRUMP,
    MAX_BOUTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MUST_ATTACK,
    MUST_BEAT_OR_TAKE,
    NAME,
    NOTHING_TO_BEAT,
    NOTHING_TO_TAKE,
    OPTIONS,
    RULES_VERSION,
    TITLE,
    TOOK,
    UNDER_FOOL,
    Attack,
    Attacked,
    Beat,
    Beaten,
    BoutStarted,
    Command,
    Config,
    Discarded,
    Event,
    GameEnded,
    MatchEnded,
    Pass,
    Passed,
    PlayerOut,
    State,
    Take,
    ThrownIn,
    Took,
    TrumpTurned,
    View,
)
from kozyr.games.durak_dice.rules import check_setup, decide, first_attacker, make_config, start
from kozyr.games.durak_dice.show import (
    describe,
    hidden_zones,
    legal_commands,
    outcome,
    redact,
    render,
    to_act,
    view,
    with_zones,
    zones,
)

__all__ = [
    "CANNOT_BEAT",
    "CANNOT_THROW_IN",
    "CARD_NOT_IN_HAND",
    "COMMAND_TYPES",
    "DEFENDED",
    "DRAW",
    "EVENT_TYPES",
    "FOOL",
    "FROM_UNDER_FOOL",
    "LOWEST_CARD",
    "LOWEST_TRUMP",
    "MATCH_OVER",
    "MAX_BOUTS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MUST_ATTACK",
    "MUST_BEAT_OR_TAKE",
    "NAME",
    "NOTHING_TO_BEAT",
    "NOTHING_TO_TAKE",
    "NOT_A_SEAT",
    "NOT_YOUR_TURN",
    "OPTIONS",
    "RULES_VERSION",
    "TITLE",
    "TOOK",
    "UNDER_FOOL",
    "UNKNOWN_COMMAND",
    "Attack",
    "Attacked",
    "Beat",
    "Beaten",
    "BoutStarted",
    "Command",
    "Config",
    "Dealt",
    "Discarded",
    "Event",
    "FirstDealerChosen",
    "GameEnded",
    "IllegalMove",
    "MatchEnded",
    "MatchStarted",
    "OptionSpec",
    "Outcome",
    "Pass",
    "Passed",
    "PlayerOut",
    "Setup",
    "State",
    "Take",
    "ThrownIn",
    "Took",
    "TrumpTurned",
    "View",
    "check_setup",
    "decide",
    "default_decision",
    "describe",
    "evolve",
    "first_attacker",
    "forfeit",
    "guarded",
    "hidden_zones",
    "legal_commands",
    "make_config",
    "outcome",
    "redact",
    "render",
    "start",
    "to_act",
    "view",
    "with_zones",
    "zones",
]
