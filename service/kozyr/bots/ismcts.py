"""`ismcts`: single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse, 2012), simulated with the rules core.

Each iteration draws a determinization — a full state consistent with what the seat saw
(kozyr.bots.info: its hand, the public cards, every hand size, voids and passes) — and walks one
shared tree of moves with it: at each node only the moves legal in this determinization are
candidates, chosen by UCB1 over *availability* counts (how often a move was legal when its
parent was visited), with each node scoring the rewards of the seat that made its move. A new
node is added, then a playout runs to the end of the hand (Dix, Six Dozens) or game
(Durak) and the rewards go back up the path.

Playouts follow a cheap policy that reads only the legal commands (Durak: cheapest beater,
cheap plain throw-ins; Six Dozens: the card with the least reach first), with a 20 % chance of
a random move; Dix playouts are uniformly random (`rollout=random` makes them all random).
The move played is the root move visited most.

Rewards in [0, 1] per seat, at the end of the hand or game (or the match, if it ends there):
- Dix: 1 to the match winner; otherwise the logistic of the totals' difference (/6 points);
- Six Dozens: the match winners share 1; otherwise the logistic of each seat's gain in the
  settlement against the mean gain (/18 points, three cards);
- Durak: 0 to the fool, 1 to the others; a draw 0.5 each.

Budget: `iters` iterations (repeatable: same seed, same choice) or `ms` milliseconds of wall
time per decision (not repeatable). A decision with one legal command is played at once.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from kozyr.bots.info import seat_info
from kozyr.bots.info.seat_info import State
from kozyr.bots.info.six_dozens import reach_table
from kozyr.bots.protocol import Command, Event, Seat
from kozyr.core.cards import ALL_CARDS
from kozyr.games import dix, durak_dice, six_dozens
from kozyr.games.contract import AnyGame

Rewards = tuple[float, ...]


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _shares(winners: Sequence[int], players: int) -> Rewards:
    """The match winners share 1; the others get 0."""
    share = 1.0 / len(winners)
    return tuple(share if p in winners else 0.0 for p in range(players))


def dix_rewards(events: Sequence[Event], players: int) -> Rewards | None:
    """Dix: the rewards once a hand has ended in these events, else None."""
    ended = None
    for e in events:
        t = type(e)
        if t is dix.HandEnded:
            ended = e
        elif t is dix.MatchEnded:
            return _shares((e.winner,), players)
    if ended is None:
        return None
    r0 = _logistic((ended.totals[0] - ended.totals[1]) / 6)
    return (r0, 1.0 - r0)


def six_dozens_rewards(events: Sequence[Event], players: int) -> Rewards | None:
    """Six Dozens: the rewards once a hand is settled in these events, else None."""
    settled = None
    for e in events:
        t = type(e)
        if t is six_dozens.HandSettled:
            settled = e
        elif t is six_dozens.MatchEnded:
            return _shares(e.winners, players)
    if settled is None:
        return None
    gains = [r - p for r, p in zip(settled.received, settled.paid, strict=True)]
    mean = sum(gains) / players
    return tuple(_logistic((g - mean) / 18) for g in gains)


def durak_dice_rewards(events: Sequence[Event], players: int) -> Rewards | None:
    """Durak: the rewards once a game has ended in these events, else None."""
    for e in events:
        if type(e) is durak_dice.GameEnded:
            if e.fool is None:
                return (0.5,) * players
            return tuple(0.0 if p == e.fool else 1.0 for p in range(players))
    return None


REWARDS: dict[str, Callable[[Sequence[Event], int], Rewards | None]] = {
    "dix": dix_rewards,
    "six-dozens": six_dozens_rewards,
    "durak-dice": durak_dice_rewards,
}

# ---------------------------------------------------------------------------- playout policies
# A playout policy picks a move from the legal commands alone (plus constants of the hand or
# game that every seat sees), so it costs little more than a random pick. With probability
# EPSILON it picks at random anyway, so playouts still explore.

Policy = Callable[[int, tuple[Any, ...], random.Random], Any]
EPSILON = 0.2


def random_policy(seat: int, legal: tuple[Any, ...], rng: random.Random) -> Any:
    """A uniformly random legal command."""
    return legal[rng.randrange(len(legal))]


def durak_dice_policy(trump: int) -> Policy:
    """Durak playouts: beat with the cheapest card (take if none), throw in the cheapest plain
    card (else pass), attack with the cheapest card; a trump is worth 20 more."""
    worth = [c.rank + (20 if c.suit == trump else 0) for c in ALL_CARDS[:52]]

    def key(m: Any) -> int:
        return worth[int(m.card.index)]

    def policy(seat: int, legal: tuple[Any, ...], rng: random.Random) -> Any:
        if rng.random() < EPSILON:
            return legal[rng.randrange(len(legal))]
        last = legal[-1]
        kind = type(last)
        if kind is durak_dice.Take:
            return min(legal[:-1], key=key) if len(legal) > 1 else last
        if kind is durak_dice.Pass:
            plain = [m for m in legal[:-1] if m.card.suit != trump]
            return min(plain, key=key) if plain else last
        return min(legal, key=key)

    return policy


def six_dozens_policy(config: six_dozens.Config, players: int) -> Policy:
    """Six Dozens playouts: play the legal card with the least reach (the number of banks it
    may go on, kozyr.bots.heuristic.six_dozens), so 8s and 6s are kept for when stuck."""
    reach = reach_table(config, players)

    def policy(seat: int, legal: tuple[Any, ...], rng: random.Random) -> Any:
        if rng.random() < EPSILON:
            return legal[rng.randrange(len(legal))]
        mine = reach[seat]
        return min(legal, key=lambda m: mine[m.card.index])

    return policy


def playout_policy(game: AnyGame, obs: Seat) -> Policy:
    """The game's playout policy for the hand or game `obs` is in."""
    view = obs.view
    if game.NAME == "durak-dice" and view.trump is not None:
        return durak_dice_policy(int(view.trump))
    if game.NAME == "six-dozens":
        start = obs.history[0]
        return six_dozens_policy(start.config, len(start.players))
    return random_policy


class _Node:
    """A tree node: the seat that moved into it, visits, reward sum, availability, children."""

    __slots__ = ("avail", "children", "n", "seat", "w")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.n = 0
        self.w = 0.0
        self.avail = 1
        self.children: dict[Any, _Node] = {}


class ISMCTSBot:
    """SO-ISMCTS for one seat of one match (see the module docstring)."""

    def __init__(
        self,
        game: AnyGame,
        seat: int,
        rng: random.Random,
        *,
        iters: int | None = None,
        ms: float | None = None,
        c: float = 0.7,
        rollout: str = "policy",
    ) -> None:
        if (iters is None) == (ms is None):
            raise ValueError("give ismcts exactly one budget: iters=N or ms=N")
        if (iters is not None and iters < 1) or (ms is not None and ms <= 0):
            raise ValueError("an ismcts budget must be positive")
        if rollout not in ("policy", "random"):
            raise ValueError("ismcts rollout is 'policy' or 'random'")
        self.game = game
        self.seat = seat
        self.rng = rng
        self.iters = iters
        self.ms = ms
        self.c = c
        self.rollout = rollout
        self.policy: Policy = random_policy  # set per decision (it may depend on the trump)
        self.info = seat_info(game, seat)
        self.rewards = REWARDS[game.NAME]
        self.iterations = 0  # total over the match, for reports and profiling

    def choose(self, obs: Seat) -> Command:
        """The root move visited most after the budget is spent."""
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        info = self.info
        info.update(obs.history)
        players = len(obs.view.players)
        root = _Node(-1)
        self.policy = playout_policy(self.game, obs) if self.rollout == "policy" else random_policy
        sample = info.sample
        rng = self.rng
        if self.iters is not None:
            for _ in range(self.iters):
                self._iterate(root, sample(rng), players)
            self.iterations += self.iters
        else:
            assert self.ms is not None
            deadline = time.perf_counter() + self.ms / 1000
            done = 0
            while True:
                self._iterate(root, sample(rng), players)
                done += 1
                if time.perf_counter() >= deadline:
                    break
            self.iterations += done
        children = root.children
        return max(legal, key=lambda m: children[m].n if m in children else -1)

    def _iterate(self, root: _Node, state: State, players: int) -> None:
        """One iteration on one determinization: select and expand, play out, back up."""
        path, state, rewards = self._select(root, state, players)
        if rewards is None:
            rewards = self._simulate(state, players)
        for n in path:
            n.n += 1
            n.w += rewards[n.seat]

    def _select(
        self, root: _Node, state: State, players: int
    ) -> tuple[list[_Node], State, Rewards | None]:
        """Walk the tree with this determinization (UCB among the moves legal in it) until a
        node is added or the hand ends: the path, the state there and the rewards if ended."""
        game = self.game
        to_act, legal_commands, decide, evolve = (
            game.to_act,
            game.legal_commands,
            game.decide,
            game.evolve,
        )
        rewards_of, rng, c = self.rewards, self.rng, self.c
        log, sqrt = math.log, math.sqrt
        node = root
        path: list[_Node] = []
        rewards: Rewards | None = None
        while True:
            seat = to_act(state)
            if seat is None:
                break
            legal = legal_commands(state, seat)
            children = node.children
            untried = [m for m in legal if m not in children]
            child: _Node | None
            if untried:
                move = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = children[move] = _Node(seat)
            else:
                child = None
                best = -1.0
                for m in legal:
                    ch = children[m]
                    ch.avail += 1
                    value = ch.w / ch.n + c * sqrt(log(ch.avail) / ch.n)
                    if value > best:
                        best, move, child = value, m, ch
                assert child is not None
            events = decide(state, seat, move)
            for e in events:
                state = evolve(state, e)
            path.append(child)
            node = child
            rewards = rewards_of(events, players)
            if rewards is not None or untried:
                break
        return path, state, rewards

    def _simulate(self, state: State, players: int) -> Rewards:
        """The playout policy from `state` to the end of the hand or game: the rewards."""
        game, policy, rng, rewards_of = self.game, self.policy, self.rng, self.rewards
        to_act, legal_commands, decide, evolve = (
            game.to_act,
            game.legal_commands,
            game.decide,
            game.evolve,
        )
        while True:
            seat = to_act(state)
            if seat is None:
                return self._final(state, players)
            legal = legal_commands(state, seat)
            move = policy(seat, legal, rng) if len(legal) > 1 else legal[0]
            events = decide(state, seat, move)
            for e in events:
                state = evolve(state, e)
            rewards = rewards_of(events, players)
            if rewards is not None:
                return rewards

    def _final(self, state: State, players: int) -> Rewards:
        outcome = self.game.outcome(state)
        if outcome is None:  # pragma: no cover - to_act is None only once the match is over
            return (0.5,) * players
        return _shares(outcome.winners, players)
