"""Dix (Дикс): a two-player trick-taking game with 52 cards and a joker, first to 50 points.

Rules: docs/rules.md "Dix" (DIX-1 … DIX-9) and the common rules R-1 … R-6. Each hand deals 13 cards
to each player and turns up the next card; its suit is trump and the joker plays as that very
card (DIX-3). Followers must follow the effective suit (DIX-5); the winner of a trick draws first
from the stock (DIX-7). A trick is worth +1, or −3 when its two pip values sum to ten (DIX-8).

Decisions where docs/rules.md is silent (documented here, tested in tests/games/dix/):
- The lot of R-2 is ``RandomStream(seed, "first-dealer").randbelow(2)``: the seat it gives deals
  hand 1. It is recorded as `FirstDealerChosen` (``by_lot`` False when Setup fixed the dealer).
- Deck k: ``setup.decks[k-1]`` when given, else the shuffle of ``deal/k`` (R-1). Deal positions:
  the non-dealer gets cards 0, 2, …, 24 of the order, the dealer 1, 3, …, 25; card 26 is the
  turn-up; cards 27 … 52 are the stock, 27 on top.
- With `first_lead` DEALER the dealer leads trick 1 of *every* hand (DIX-4 changes only who leads
  trick 1; the dealer still alternates).
- The joker keeps pip value 0 even while it plays as the turn-up's card (DIX-1), so
  "10 + joker" is a ten-trick whatever the turn-up is.
- When the target is reached and the max_hands guard or single_hand also applies, the reason
  names the target; the winner is the same either way (one comparison, DIX-9).
- The comparison of DIX-9 always gives one winner: trick 26 always has a winner.
- View `totals` are the match totals before the hand in play; once a hand is scored (after the
  last trick of the match, in particular) they include it. `tricks`/`tens` stay those of the hand
  last played until the next deal.
- Before the first deal (a state that only exists between the opening events) the view shows
  hand 0, dealer 0 and no turn-up (`turn_up` is None then; always a card afterwards).
- While the events of one decision are being folded (after the follower's card and before
  `TrickWon`; between `HandEnded` and the next deal) nobody is to act: `to_act` is None though
  the match is not over, and `decide` answers NOT_YOUR_TURN.
- Events: a hand opens with the shared `Dealt` (base.py) and then `TurnedUp`, which makes the
  turn-up, trump and leader public: the viewer's copy of `Dealt` has no deck, so they cannot be
  derived from it. One `TrickWon` per trick carries both draws (`drawn`, by seat; empty once
  the stock is out) so a trick costs two card events and one result. Redaction hides the other
  seat's drawn card (None), the deck order and the other hand of `Dealt`, and the seed and
  decks of `MatchStarted`.

Speed: hands and won piles are 53-bit masks; effective suit and rank, follow masks and the
"Play" tuples per 13-bit suit pattern are precomputed, and the commands and card events are
interned (they are immutable), so a move allocates a state and at most one event.
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
from kozyr.games.dix.ending import default_decision, forfeit, guarded
from kozyr.games.dix.evolve import evolve
from kozyr.games.dix.model import (
    COMMAND_TYPES,
    DEALER,
    DECK,
    EVENT_TYPES,
    HAND_SIZE,
    LAST_HAND,
    MATCH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MUST_FOLLOW_SUIT,
    NAME,
    NON_DEALER,
    OPTIONS,
    RULES_VERSION,
    TITLE,
    TRICKS_PER_HAND,
    CardPlayed,
    Config,
    Event,
    HandEnded,
    HandInfo,
    MatchEnded,
    MatchInfo,
    Play,
    State,
    TrickWon,
    TurnedUp,
    View,
)
from kozyr.games.dix.rules import check_setup, decide, make_config, start
from kozyr.games.dix.show import (
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
    "CARD_NOT_IN_HAND",
    "COMMAND_TYPES",
    "DEALER",
    "DECK",
    "EVENT_TYPES",
    "HAND_SIZE",
    "LAST_HAND",
    "MATCH",
    "MATCH_OVER",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MUST_FOLLOW_SUIT",
    "NAME",
    "NON_DEALER",
    "NOT_A_SEAT",
    "NOT_YOUR_TURN",
    "OPTIONS",
    "RULES_VERSION",
    "TITLE",
    "TRICKS_PER_HAND",
    "UNKNOWN_COMMAND",
    "CardPlayed",
    "Config",
    "Dealt",
    "Event",
    "FirstDealerChosen",
    "HandEnded",
    "HandInfo",
    "IllegalMove",
    "MatchEnded",
    "MatchInfo",
    "MatchStarted",
    "OptionSpec",
    "Outcome",
    "Play",
    "Setup",
    "State",
    "TrickWon",
    "TurnedUp",
    "View",
    "check_setup",
    "decide",
    "default_decision",
    "describe",
    "evolve",
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
