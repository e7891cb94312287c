"""Server-side seat bots: a named bot of kozyr.bots plays a seat through the engine directly.

A seat is a bot's when CreateMatch named one for it (MatchTerms.bots). After every append this
process makes, the engine tells `SeatBots`; when a bot's seat is to act, one task per match
plays that seat's decisions (and any bot seat after it) until a person is to act or the match
is over. The bot sees only what the seat may see (kozyr.bots.protocol.Seat: its view, its own
redacted history, its legal commands), exactly as a remote bot would.

Consecutive bot decisions are decided in memory and appended as one run (kozyr.engine.runs),
each with a command id derived from its version (``bot-<version>``) and the run with the
expected version, so a second process playing the same decisions at the same time gets
DUPLICATE or CONFLICT and nothing is played twice. The timer loop
(kozyr.actors.timers) plays a bot's decision too when the process that should have played it
died first: the bot's decision is due at once.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import structlog

from kozyr.bots import Bot, Seat, check_spec, make_bot
from kozyr.bots.protocol import BadBotSpec, BotSpec, parse_spec
from kozyr.engine.matches import Engine
from kozyr.engine.runs import play_run
from kozyr.match.errors import MatchError, bad_request
from kozyr.match.lifecycle import Step
from kozyr.match.log import LIFECYCLE_EVENTS, Entry, decode_events
from kozyr.match.record import MatchRecord, apply_entry

log = structlog.get_logger("kozyr.seatbots")

MAX_MOVES_PER_RUN = 2_000  # a bot run stops there and leaves the rest to the next poke
QUICK_BOTS = frozenset({"random", "heuristic"})  # bots that answer in microseconds: no thread


def check_bot(spec: str, policy_dir: str = "") -> str:
    """The bot spec if kozyr.bots knows it and this server may play it; BAD_REQUEST (BAD_BOT)
    otherwise."""
    try:
        check_spec(parse_spec(served_spec(spec, policy_dir)))
    except BadBotSpec as e:
        raise bad_request("BAD_BOT", str(e)) from None
    return spec


def served_spec(spec: str, policy_dir: str) -> str:
    """The spec as this server plays it: a policy's file is a bare name inside the operator's
    policy folder (`policy_dir`), never a path a request chose, so no client can make the
    server open, or probe for, a file of its choosing (BadBotSpec otherwise)."""
    parsed = parse_spec(spec)
    if parsed.kind != "policy":
        return spec
    options = dict(parsed.options)
    name = options.get("path", "")
    if not policy_dir:
        raise BadBotSpec("this server plays no policy bots (its operator names none)")
    if not name or name != Path(name).name or name.startswith("."):
        raise BadBotSpec("a server's policy is named by its file name alone: policy:path=NAME")
    options["path"] = str(Path(policy_dir) / name)
    return BotSpec(parsed.kind, tuple(options.items())).text


@functools.lru_cache(maxsize=256)
def quick(spec: str) -> bool:
    """Whether the spec's bot answers at once (played on the event loop, not in a thread)."""
    return parse_spec(spec).kind in QUICK_BOTS


def bot_to_act(record: MatchRecord) -> tuple[int, str] | None:
    """The seat to act and its bot when a bot named at creation plays it; else None."""
    bots = record.terms.bots
    if not bots or not record.started or record.finished:
        return None
    seat = record.game.to_act(record.state)
    if seat is None or not bots[seat]:
        return None
    return seat, bots[seat]


def bot_seed(match_id: str, seat: int) -> int:
    """The seed of a seat's bot: fixed per match and seat, so any process makes the same bot."""
    return int.from_bytes(hashlib.sha256(f"{match_id}:{seat}".encode()).digest()[:8], "big")


class SeatBots:
    """Plays the bots' seats of matches this process appends to (see the module docstring)."""

    def __init__(self, engine: Engine, *, cache_size: int = 10_000, policy_dir: str = "") -> None:
        self.engine = engine
        self.policy_dir = policy_dir  # where policy bots are read from (served_spec)
        self.cache_size = cache_size
        self._bots: OrderedDict[tuple[str, int, str], Bot] = OrderedDict()
        # Each bot seat's history so far (its version and events), so a decision reads only
        # the entries since that seat's last one.
        self._seen: OrderedDict[str, dict[int, tuple[int, list[Any]]]] = OrderedDict()
        self._running: dict[str, asyncio.Task[int]] = {}
        # Matches poked while their run was ending: that run may have read the record just
        # before the move that made a bot's turn, so it runs again (a client answering at once,
        # over PlaySession, left the bot's seat unplayed for good).
        self._again: set[str] = set()
        engine.listeners.append(self.poke)

    def poke(self, step: Step) -> None:
        """After an append: keep the bot seats' histories, and start playing the match's bot
        seat if a bot is to act and nobody plays it yet."""
        record = step.record
        if record.terms.bots:
            if record.finished:  # nobody decides any more: let its bots and histories go
                self._forget(record)
                return
            self._heard(step)
        if bot_to_act(record) is None:
            return
        if record.match_id in self._running:
            self._again.add(record.match_id)
            return
        self._start(record.match_id)

    def keeps(self, match_id: str) -> bool:
        """Whether this process keeps a bot or a seat's history of the match (memory)."""
        return match_id in self._seen or any(key[0] == match_id for key in self._bots)

    def playing(self, match_id: str) -> bool:
        """Whether a bot run of the match is in progress in this process."""
        return match_id in self._running

    def _start(self, match_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self.play(match_id))
        self._running[match_id] = task
        task.add_done_callback(lambda _: self._ended(match_id))

    def _ended(self, match_id: str) -> None:
        self._running.pop(match_id, None)
        if match_id in self._again:
            self._again.discard(match_id)
            self._start(match_id)

    async def play(self, match_id: str) -> int:
        """Play bot decisions of the match until a person is to act; the number played."""
        played = 0
        while played < MAX_MOVES_PER_RUN:
            # This pass reads the record afresh: what the pokes so far (its own run's end
            # among them) asked for is played by it, without a run started after this one.
            self._again.discard(match_id)
            primed = False

            async def next_move(record: MatchRecord) -> tuple[int, Any, str] | None:
                nonlocal primed
                turn = bot_to_act(record)
                if turn is None:
                    return None
                if not primed:  # every bot seat's history up to the run's first record
                    primed = True
                    for seat, bot in enumerate(record.terms.bots):
                        if bot:
                            await self.history(match_id, seat, record.version)
                seat, spec = turn
                return seat, await self.choose(record, seat, spec), f"bot-{record.version}"

            try:
                steps = await play_run(self.engine, match_id, next_move, self._heard)
            except MatchError as e:  # the store is away, or the log is damaged
                log.info("seat_bot_refused", match_id=match_id, code=e.code)
                steps = []
            if not steps:  # nothing to play, or another writer came first (its append pokes)
                self._forget_history(match_id)  # it may hold the moves of a run not appended
                break
            played += len(steps)
        return played

    def _heard(self, step: Step) -> None:
        """Extend the kept histories of the match's bot seats by a step (of a run, or one this
        process appended); the creation starts them."""
        record = step.record
        version = record.version
        if version == 1:
            self._seen[record.match_id] = {
                s: (0, []) for s, bot in enumerate(record.terms.bots) if bot
            }
            while len(self._seen) > self.cache_size:
                self._seen.popitem(last=False)
        seats = self._seen.get(record.match_id)
        if not seats:
            return
        previous, events = version - 1, None
        redact = record.game.redact
        for seat, (since, shown) in seats.items():
            if since != previous:
                continue  # heard already (a run's step, told again once appended)
            if events is None:
                events = [e for e in step.events if not isinstance(e, LIFECYCLE_EVENTS)]
            for event in events:
                if (shown_event := redact(event, seat)) is not None:
                    shown.append(shown_event)
            seats[seat] = (version, shown)

    def _forget_history(self, match_id: str) -> None:
        self._seen.pop(match_id, None)

    def _forget(self, record: MatchRecord) -> None:
        self._forget_history(record.match_id)
        for seat, spec in enumerate(record.terms.bots):
            self._bots.pop((record.match_id, seat, spec), None)

    async def wait(self) -> None:
        """Wait for every bot run in progress (tests, shutdown)."""
        while self._running:
            await asyncio.wait(list(self._running.values()))

    async def close(self) -> None:
        """Stop every bot run in progress."""
        self._again.clear()  # a cancelled run starts no other
        for task in list(self._running.values()):
            task.cancel()
        if self._running:
            await asyncio.wait(list(self._running.values()))

    async def choose(self, record: MatchRecord, seat: int, spec: str) -> Any:
        """The bot's command for `seat` from what that seat may see (its Seat observation)."""
        game = record.game
        history = await self.history(record.match_id, seat, record.version)
        observation = Seat(
            game,
            seat,
            game.view(record.state, seat),
            history,
            game.legal_commands(record.state, seat),
        )
        bot = self._bot(record, seat, spec)
        if quick(spec):
            return bot.choose(observation)
        # A searching bot computes for its whole budget: off the event loop.
        return await asyncio.to_thread(bot.choose, observation)

    async def history(self, match_id: str, seat: int, upto: int) -> tuple[Any, ...]:
        """The game's events up to `upto` as `seat` may see them, in order."""
        kept = self._seen.get(match_id)
        if kept is not None and (known := kept.get(seat)) is not None and known[0] == upto:
            self._seen.move_to_end(match_id)  # kept up to date by `_heard`: most decisions
            return tuple(known[1])
        seats = self._seen.pop(match_id, {})
        since, shown = seats.get(seat, (0, []))
        if since > upto:  # asked for an earlier point (a timer re-deriving): from the start
            since, shown = 0, []
        if since < upto:
            stored = await self.engine.store.read_after(match_id, since, upto=upto)
            game = (await self.engine.game_of(match_id)) if since else None
            for item in stored:
                entry = Entry.from_canonical(item.text)
                if game is None:
                    game = apply_entry(None, entry, item.hash).game
                for event in decode_events(game, entry):
                    if not isinstance(event, LIFECYCLE_EVENTS):
                        redacted = game.redact(event, seat)
                        if redacted is not None:
                            shown.append(redacted)
        seats[seat] = (upto, shown)
        self._seen[match_id] = seats
        while len(self._seen) > self.cache_size:
            self._seen.popitem(last=False)
        return tuple(shown)

    def _bot(self, record: MatchRecord, seat: int, spec: str) -> Bot:
        key = (record.match_id, seat, spec)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = make_bot(
                served_spec(spec, self.policy_dir),
                record.game,
                seat,
                bot_seed(record.match_id, seat),
            )
            while len(self._bots) > self.cache_size:
                self._bots.popitem(last=False)
        self._bots.move_to_end(key)
        return bot
