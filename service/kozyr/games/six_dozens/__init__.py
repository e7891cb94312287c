"""Six Dozens («Шесть дюжин»): a shedding game for 2–4 players (docs/rules.md SIX-1 … SIX-13).

Each player starts with a capital of 72 points. A hand is dealt, one card is turned up as the
*bank*, and players in turn cover the bank with a card SIX-6 allows (the next card of its suit
towards the 6, a card of the same rank, the 6 of its suit, an 8, or a card of a higher trump
category). Whoever cannot play passes. Cards left in hand at the end cost 6 points each; the
penalties go into a kitty that the players who went out share. The match ends when a capital
reaches 0 or below; the highest capital wins.

Model. Hands are bitmasks over `Card.index`; the legal cards of seat p on bank b are the
precomputed mask ``legal[p][b.index]`` (built once per match from the options), so a legality
check is one AND. The seat to act (`turn`) is derived by `evolve` from the events: after a card
the next seat holding cards clockwise; after a pass or a skip the next such seat after the one
passed; after a cover the seat that played last (SIX-10); after a deal the first mover (SIX-7).
What rarely changes (hand frame, stock, scores) sits in a shared `Table`, so a card played
builds one small State. `zones`, `hidden_zones` and `with_zones` expose where every card is, for
the cross-game property tests (conservation, views that do not leak).

Decisions where docs/rules.md is silent (or leaves the form open):
- `trump_suits` left unset (None) takes the SIX-4 defaults; the Config stores the effective
  suits (PERSONAL: one per seat). An empty value is accepted only for NONE. `start` refuses a
  PERSONAL config whose suit count differs from the number of players.
- A 7's skip, a pass and a cover are events of their own (`TurnSkipped`, `Passed`,
  `BankCovered`); going out is `PlayerOut` right after the card that emptied the hand. A skip
  consumes the skipped seat's turn even if that seat could not have played (SIX-8), and it is
  applied only after the SIX-10 checks, so a hand that ends on a 7 skips nobody.
- After a cover the last mover "moves again": it is his turn; if he has no legal card on the new
  bank he passes automatically like anyone else (R-4, SIX-8).
- Every hand, including one that ends in its opening check, counts towards `max_hands`.
- Kitty shares are computed with integer division and any remainder goes to the first
  finisher. (The kitty is always a multiple of 6, so every SIX-11 share is exact in practice.)
- With `final_kitty` SPLIT_SOLVENT the final kitty shares are added to the capitals before the
  winners are chosen; the outcome's details report the shares and the discarded amount.
- `eight_on_trumps` false: "an 8 only goes on a bank of the same or lower category for its
  player" is read literally, whatever clause would allow it — so it also keeps an 8 off an 8 of
  a higher category (b). (Clauses (a) and (e) never put an 8 on a higher category anyway.)
- Cards left in hand are not revealed at the end of a hand; `HandSettled` gives their counts.
- Redaction: `MatchStarted` loses its seed (``b""``) and the prearranged deck orders (each
  becomes ``()``, so their number stays visible); the shared `Dealt` keeps only the viewer's
  own hand (others ``()``) and loses the deck order, so the stock order and the set-aside cards
  go with it. The bank, hand size, stock size and first mover are in `BankTurned`, emitted
  right after `Dealt` because a viewer's `Dealt` has no deck to derive them from. Every other
  event is public. The cards under the bank (`zones` "pile") are public: they were played or
  turned face up.
- After the match ends the view's kitty is 0: what was left was discarded or shared out
  (`MatchEnded` and the outcome's details say which).
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
    InvalidOptions,
    MatchStarted,
    OptionSpec,
    Outcome,
    Setup,
)
from kozyr.games.six_dozens.ending import default_decision, forfeit, guarded
from kozyr.games.six_dozens.evolve import evolve
from kozyr.games.six_dozens.model import (
    CAPITAL,
    CARD_COST,
    CARD_NOT_PLAYABLE,
    COMMAND_TYPES,
    EVENT_TYPES,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    OPTIONS,
    RULES_VERSION,
    STOCK_SIZE,
    TITLE,
    TRUMP_MODES,
    BankCovered,
    BankTurned,
    CardPlayed,
    Config,
    Event,
    HandSettled,
    Match,
    MatchEnded,
    Passed,
    Play,
    PlayerOut,
    State,
    Table,
    TurnSkipped,
    View,
)
from kozyr.games.six_dozens.rules import check_setup, deal_order, decide, make_config, start
from kozyr.games.six_dozens.show import (
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
from kozyr.games.six_dozens.tables import category, legal_table, may_play

__all__ = [
    "CAPITAL",
    "CARD_COST",
    "CARD_NOT_IN_HAND",
    "CARD_NOT_PLAYABLE",
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "HAND_SIZE",
    "MATCH_OVER",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "NOT_A_SEAT",
    "NOT_YOUR_TURN",
    "OPTIONS",
    "RULES_VERSION",
    "STOCK_SIZE",
    "TITLE",
    "TRUMP_MODES",
    "UNKNOWN_COMMAND",
    "BankCovered",
    "BankTurned",
    "CardPlayed",
    "Config",
    "Dealt",
    "Event",
    "FirstDealerChosen",
    "HandSettled",
    "IllegalMove",
    "InvalidOptions",
    "Match",
    "MatchEnded",
    "MatchStarted",
    "OptionSpec",
    "Outcome",
    "Passed",
    "Play",
    "PlayerOut",
    "Setup",
    "State",
    "Table",
    "TurnSkipped",
    "View",
    "category",
    "check_setup",
    "deal_order",
    "decide",
    "default_decision",
    "describe",
    "evolve",
    "forfeit",
    "guarded",
    "hidden_zones",
    "legal_commands",
    "legal_table",
    "make_config",
    "may_play",
    "outcome",
    "redact",
    "render",
    "start",
    "to_act",
    "view",
    "with_zones",
    "zones",
]
