"""Players that see only their seat: `random`, `heuristic` (one per game) and `ismcts`.

A bot is made for one seat of one match with `make_bot(spec, game, seat, seed)` and answers
`choose(Seat)` — the observation of kozyr.bots.protocol: view, own redacted history and legal
commands, never the state. Specs are written ``kind`` or ``kind:key=value,...``:

- ``random``                           a uniformly random legal command;
- ``heuristic``                        the game's rules of thumb (kozyr.bots.heuristic);
- ``ismcts:iters=200`` / ``ismcts:ms=50``  information-set MCTS with that budget per decision
  (options: ``c`` the UCB exploration constant, default 0.7; ``rollout=random`` for uniformly
  random playouts instead of the game's cheap playout policy);
- ``policy:path=FILE``                 a trained policy (kozyr.bots.policy, docs/agents.md;
  option ``sample=true`` samples from it instead of playing its best legal action).

Every kind takes ``seed=N`` too: the bot's random choices then come from N instead of the seed
its maker passes (a served tournament gives the server's bots the seeds its in-process bots
would have, so both play the same matches).
"""

from __future__ import annotations

import random

from kozyr.bots.heuristic import HeuristicBot
from kozyr.bots.ismcts import ISMCTSBot
from kozyr.bots.policy import PolicyBot, load_policy
from kozyr.bots.protocol import (
    BadBotSpec,
    Bot,
    BotSpec,
    Seat,
    check_options,
    parse_players,
    parse_spec,
)
from kozyr.bots.random_bot import RandomBot
from kozyr.games.contract import AnyGame

KINDS: dict[str, dict[str, type]] = {
    "random": {"seed": int},
    "heuristic": {"seed": int},
    "ismcts": {"iters": int, "ms": float, "c": float, "rollout": str, "seed": int},
    "policy": {"path": str, "sample": str, "seed": int},
}


def check_spec(spec: BotSpec) -> None:
    """Raise BadBotSpec unless the spec names a known bot with valid options."""
    if spec.kind not in KINDS:
        raise BadBotSpec(f"unknown bot {spec.kind!r} (known: {', '.join(KINDS)})")
    options = check_options(spec, KINDS[spec.kind])
    if spec.kind == "ismcts":
        if ("iters" in options) == ("ms" in options):
            raise BadBotSpec("ismcts needs exactly one budget: ismcts:iters=N or ismcts:ms=N")
        if options.get("iters", 1) < 1 or options.get("ms", 1.0) <= 0:
            raise BadBotSpec("an ismcts budget must be positive")
        if options.get("rollout", "policy") not in ("policy", "random"):
            raise BadBotSpec("ismcts rollout is 'policy' (default) or 'random'")
    if spec.kind == "policy":
        if "path" not in options:
            raise BadBotSpec("policy needs its file: policy:path=FILE")
        if options.get("sample", "false") not in ("true", "false"):
            raise BadBotSpec("policy sample is 'true' or 'false'")
        load_policy(options["path"])  # a missing or foreign file is refused when named


def make_bot(spec: BotSpec | str, game: AnyGame, seat: int, seed: int) -> Bot:
    """A bot for one seat of one match; `seed` drives all its random choices."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    check_spec(spec)
    options = check_options(spec, KINDS[spec.kind])
    rng = random.Random(options.get("seed", seed))
    if spec.kind == "random":
        return RandomBot(rng)
    if spec.kind == "heuristic":
        return HeuristicBot(game, seat)
    if spec.kind == "policy":
        return PolicyBot(game, options["path"], rng, options.get("sample") == "true")
    return ISMCTSBot(
        game,
        seat,
        rng,
        iters=options.get("iters"),
        ms=options.get("ms"),
        c=options.get("c", 0.7),
        rollout=options.get("rollout", "policy"),
    )


__all__ = [
    "KINDS",
    "BadBotSpec",
    "Bot",
    "BotSpec",
    "Seat",
    "check_spec",
    "make_bot",
    "parse_players",
    "parse_spec",
]
