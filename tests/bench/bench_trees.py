"""Two commits' hot paths side by side in one run (issue 29: "the hot path no slower").

    .venv/bin/python tests/bench/bench_trees.py REF_A REF_B [--rounds 5]

Both refs are checked out as detached git worktrees in a temporary folder (removed at the end),
and each is measured with its own code, rounds interleaved (A then B, the next round B then A,
so neither side always runs second), the first round dropped as a warm-up, medians of the rest
and their ratio B/A:

- playouts: random-playout matches/s per game, in a fresh process per tree and round
  (PYTHONPATH=<tree>/service, so `import kozyr` is that tree's), the same fixed matches (seeds
  s0, s1, ...) and move choice (`random.Random(seed)`) on both sides through the game
  protocol both trees share (`kozyr.games.GAMES`, `fold`); the moves played are compared as a
  check that both did the same work. Also matches per CPU second of that process, which other
  load on a shared machine disturbs less than the wall clock does.
- served: moves/s through `python -m kozyr.cli serve` (one process, its embedded Redis, the
  tree's defaults) started from each tree, both up at once, the same client load against each
  in turn: `served_rate` of this tree's tests/bench/bench_tlog.py (64 Dix matches of one hand
  at once, prearranged decks, CreateMatch then one SubmitMove per move). Also the server
  process's own CPU per move (from /proc, its Redis apart).

Everything is bounded: a timeout per playout process, per served round and for each server's
start; the servers listen on loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_tlog import served_rate  # noqa: E402
from tests.bench.bounded import proc_stat  # noqa: E402
from tests.bench.harness import dix_script, serve_argv  # noqa: E402

GAMES = ("dix", "six-dozens", "durak-dice")
SERVED_MATCHES = 64
PLAYOUT_TIMEOUT_S = 120
SERVED_TIMEOUT_S = 120
START_TIMEOUT_S = 60

# Run with `python -c` in each tree: only what both trees have (the game protocol and `fold`
# of kozyr.games), the loop of tests/bench/bench_games.py's `playout`, identical in both.
PLAYOUTS = r"""
import json, random, sys, time
from kozyr.games import GAMES, fold

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}


def playout(game, players, seed):
    config = game.make_config({}, players)
    state = fold(game, list(game.start(config, [f"p{i}" for i in range(players)], seed)))
    choose = random.Random(seed).randrange
    moves = 0
    to_act, legal_commands, decide, evolve = (
        game.to_act, game.legal_commands, game.decide, game.evolve)
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        for event in decide(state, seat, legal[choose(len(legal))]):
            state = evolve(state, event)
        moves += 1
    return moves


matches, warm = int(sys.argv[1]), int(sys.argv[2])
out = {"kozyr": __import__("kozyr").__file__}
for name in sys.argv[3:]:
    game, players = GAMES[name], PLAYERS[name]
    for i in range(warm):
        playout(game, players, f"w{i}".encode())
    moves = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(matches):
        moves += playout(game, players, f"s{i}".encode())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out[name] = {"per_s": matches / wall, "per_cpu_s": matches / cpu, "moves": moves}
print(json.dumps(out))
"""


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes `import kozyr` resolve to `tree`'s service folder."""
    return {**os.environ, "PYTHONPATH": str(tree / "service"), "PYTHONDONTWRITEBYTECODE": "1"}


def playouts(tree: Path, matches: int, warm: int) -> dict[str, Any]:
    """One round of playouts with `tree`'s code, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PLAYOUTS, str(matches), str(warm), *GAMES],
        cwd=tree,
        env=tree_env(tree),
        capture_output=True,
        text=True,
        timeout=PLAYOUT_TIMEOUT_S,
        check=True,
    )
    out: dict[str, Any] = json.loads(done.stdout)
    assert out["kozyr"].startswith(str(tree)), out["kozyr"]  # that tree's code, not this one's
    return out


def start_server(tree: Path, data: Path) -> tuple[subprocess.Popen[str], str]:
    """`kozyr serve` from `tree` on a loopback port, its data in `data`; its address once its
    json log says "serving" (both trees log that event with the bound address)."""
    proc = subprocess.Popen(
        serve_argv(str(data)),
        cwd=tree,
        env=tree_env(tree),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:  # keeps reading so the server never blocks on a full pipe
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        if line.startswith("{") and json.loads(line).get("event") == "serving":
            address = str(json.loads(line)["address"])
            assert address.startswith("127.0.0.1:"), address
            return proc, address
    stop(proc)
    raise RuntimeError(f"kozyr serve from {tree} did not say it was serving")


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop a server this bench started (SIGTERM, then SIGKILL after 30 s)."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def served(pid: int, address: str, moves: int) -> tuple[float, float]:
    """One served round: moves/s, and the server process's CPU µs per move."""
    before = proc_stat(pid)
    rate = asyncio.run(asyncio.wait_for(served_rate(address, SERVED_MATCHES), SERVED_TIMEOUT_S))
    after = proc_stat(pid)
    if before is None or after is None:
        raise RuntimeError(f"the server {pid} is gone")
    return rate, (after[3] - before[3]) / moves * 1e6


def checkout(ref: str, folder: Path) -> str:
    """A detached worktree of `ref` at `folder`; the commit's short hash."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(folder), ref],
        check=True,
        timeout=120,
    )
    return subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.strip()


def remove(folder: Path) -> None:
    """Remove a worktree this bench added."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
        check=False,
        timeout=120,
    )


def measure(trees: dict[str, Path], rounds: int, matches: int, warm: int) -> dict[str, Any]:
    """Interleaved rounds over both trees; every round's figures, the first one dropped."""
    rows: dict[str, dict[str, list[float]]] = {side: {} for side in trees}
    moves: dict[str, dict[str, set[int]]] = {side: {g: set() for g in GAMES} for side in trees}
    served_moves = sum(len(dix_script(f"s{i}".encode(), 1)[1]) for i in range(SERVED_MATCHES))
    with tempfile.TemporaryDirectory(prefix="bench-trees-data-") as data:
        servers = {}
        try:
            for side, tree in trees.items():
                servers[side] = start_server(tree, Path(data) / side)
            for n in range(rounds + 1):  # round 0 warms both up and is dropped
                order = list(trees) if n % 2 == 0 else list(reversed(trees))
                for side in order:
                    out = playouts(trees[side], matches, warm)
                    for g in GAMES:
                        if n:
                            rows[side].setdefault(f"{g} matches/s", []).append(out[g]["per_s"])
                            rows[side].setdefault(f"{g} matches/CPU s", []).append(
                                out[g]["per_cpu_s"]
                            )
                        moves[side][g].add(out[g]["moves"])
                for side in order:
                    proc, address = servers[side]
                    rate, cpu = served(proc.pid, address, served_moves)
                    if n:
                        rows[side].setdefault("served moves/s", []).append(rate)
                        rows[side].setdefault("server CPU µs/move", []).append(cpu)
                if n == 0:
                    print("  round 0 (warm-up, dropped) done", flush=True)
                    continue
                print(
                    f"  round {n}: "
                    + "; ".join(
                        f"{side} dix {rows[side]['dix matches/s'][-1]:,.0f} matches/s, "
                        f"served {rows[side]['served moves/s'][-1]:,.0f} moves/s"
                        for side in order
                    ),
                    flush=True,
                )
        finally:
            for proc, _ in servers.values():
                stop(proc)
    return {"rows": rows, "moves": moves, "served_moves": served_moves}


def table(result: dict[str, Any], labels: dict[str, str]) -> str:
    """The medians, B/A, and the spread of B/A over the rounds (each round's pair)."""
    a, b = result["rows"]["A"], result["rows"]["B"]
    lines = [
        f"| measure | A {labels['A']} | B {labels['B']} | B/A | B/A per round (min–max) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for key in a:
        ma, mb = statistics.median(a[key]), statistics.median(b[key])
        pairs = [y / x for x, y in zip(a[key], b[key], strict=True)]
        digits = 0 if "served" in key or "µs" in key else 1
        lines.append(
            f"| {key} | {ma:,.{digits}f} | {mb:,.{digits}f} | {mb / ma:.3f} "
            f"| {min(pairs):.2f}–{max(pairs):.2f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref_a", help="the 'before' commit (any git ref)")
    parser.add_argument("ref_b", help="the 'after' commit (any git ref)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds kept (one more is run)")
    parser.add_argument("--matches", type=int, default=600, help="playouts per game and round")
    parser.add_argument("--warm", type=int, default=20, help="untimed playouts first, per game")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="tree-"))
    trees = {"A": folder / "a", "B": folder / "b"}
    labels: dict[str, str] = {}
    try:
        for side, ref in (("A", args.ref_a), ("B", args.ref_b)):
            short = checkout(ref, trees[side])
            labels[side] = short if short.startswith(ref) else f"{ref} ({short})"
        print(
            f"trees: A {labels['A']}, B {labels['B']}; {args.rounds} rounds kept of "
            f"{args.rounds + 1}, interleaved; {args.matches} playouts per game and round; "
            f"{SERVED_MATCHES} served Dix matches per round",
            flush=True,
        )
        result = measure(trees, args.rounds, args.matches, args.warm)
    finally:
        for tree in trees.values():
            if tree.exists():
                remove(tree)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], check=False, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
    print()
    print(table(result, labels))
    print()
    same = all(len(result["moves"]["A"][g] | result["moves"]["B"][g]) == 1 for g in GAMES)
    print(
        "moves played per game and round, A | B: "
        + ", ".join(
            f"{g} {sorted(result['moves']['A'][g])} | {sorted(result['moves']['B'][g])}"
            for g in GAMES
        )
        + (" (the same work on both sides)" if same else " (DIFFERENT work: compare with care)")
    )
    print(f"served: {result['served_moves']:,} moves per round and side")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
