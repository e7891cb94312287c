"""Kozyr benchmarks (`make bench`): figures for README, medians of repeated runs in one process.

Sections (all by default, or pick with --only):
- games:   random-playout matches/s and moves/s per game, and events folded/s;
- service: moves/s through the whole service (gRPC → rules → Redis → reply) with many concurrent
           matches, health Check calls/s with the same client harness (the no-op ceiling), their
           ratio, and a move's median latency at version ~10 against version ~1,000;
- verify:  offline replay verification (`kozyr replay verify`: parse, chain, seed, deals,
           every move re-decided, outcome) in entries/s over an archive of 1,000 matches
           recorded in-process in the engine's log format, beside the chain check alone and a
           plain fold of the same entries (what replaying without verifying costs);
- scale, replicas, ray: `kozyr serve --workers 1|2|4`, Redis Cluster against one Redis, the
           watch delay across replicas, tournaments on Ray (see tests/bench/scale.py);
- receipts: the cost of signing: moves/s through the engine (on its in-memory store, each
           entry signed in the write path and its signature stored with it, as served) with
           and without a signing key,
           interleaved in one run, their ratio, and Ed25519 receipts signed and checked per
           second;
- tlog:    moves/s with the transparency log on and off, with and without write-time signing,
           interleaved in one run (tests/bench/bench_tlog.py);
- tournament: `kozyr tournament` matches/s (Dix, one hand, heuristic against random) in-process
           with one and two worker processes, and through `kozyr serve --workers 2` (a process
           per core) where every bot is a gRPC client over PlaySession, and with
           `--server-bots` (every seat the server's own bot, SeatRequest.bot), 2 workers each,
           the same 400 matches on every side, side by side, and both again against a
           one-process server;
- web:     GetMatch and ListLegalMoves latency over gRPC, Connect (binary, JSON) and gRPC-Web
           on the web port of one process, side by side (tests/bench/bench_web.py);
- cold:    a fresh engine's first read of a 1,000-entry match (snapshot + tail, and the full
           fold without a snapshot) beside the raw XRANGE of its stream.
The service section also runs the same matches over PlaySession, interleaved with the unary
moves and the health checks, and times the v10 and v1000 latency bands alternately.
- clocks:  deadline lateness (deadline to the appended timeout, from the log) p50 and p99 with
           100 and with 1,000 running clocks (tests/bench/bench_clocks.py).
- bots:    the server's CPU per match of a served `--server-bots` tournament, and its matches/s
           (tests/bench/bench_bots.py).
- edge:    moves/s over gRPC and Connect with the edge's limits at their defaults and opened
           wide, interleaved in one run, and the limits' bookkeeping per call
           (tests/bench/bench_edge.py).

The machine is shared and noisy: compare ratios measured side by side, not absolute numbers
across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kozyr.core.cards import deck  # noqa: E402
from kozyr.core.fairness import RandomStream, deal_label  # noqa: E402
from kozyr.games import GAMES, Game, fold  # noqa: E402
from kozyr.games.contract import Setup  # noqa: E402
from tests.bench import speed  # noqa: E402
from tests.bench.bounded import proc_stat  # noqa: E402

PLAYERS = {"dix": 2, "six-dozens": 3, "durak-dice": 4}
RUNS = 5
# `kozyr serve --workers` of the tournament section: a process per core of this 2-core host,
# as the in-process side has a worker per core.
SERVER_PROCESSES = 2


def median_of(runs: int, measure: Callable[[], float]) -> float:
    """The median of `runs` measurements."""
    return statistics.median(measure() for _ in range(runs))


# ---------------------------------------------------------------------------- games


def playout(game: Game, players: int, seed: bytes) -> tuple[int, list[Any]]:
    """One random-playout match: the number of moves and every event.

    The deals come from the seed as the rules say (the HMAC stream of docs/fairness.md); the
    playout's own choice of move is Python's `random`, seeded, as the anchors choose theirs
    (OpenSpiel's script: random.Random; boardgame.io's: mulberry32), so the ratios compare
    rules with rules and not a harness's cryptographic choice with a cheap one.
    """
    config = game.make_config({}, players)
    events = list(game.start(config, [f"p{i}" for i in range(players)], seed))
    state = fold(game, events)
    choose = random.Random(seed).randrange
    moves = 0
    to_act, legal_commands, decide, evolve = (
        game.to_act,
        game.legal_commands,
        game.decide,
        game.evolve,
    )
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        new = decide(state, seat, legal[choose(len(legal))])
        for event in new:
            state = evolve(state, event)
        events.extend(new)
        moves += 1
    return moves, events


def bench_games(seconds: float) -> dict[str, Any]:
    """Random-playout throughput and fold speed per game."""
    out: dict[str, Any] = {}
    for name, game in GAMES.items():
        players = PLAYERS[name]
        samples = []
        for run in range(RUNS):
            matches = moves = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                n, _ = playout(game, players, f"{run}-{matches}".encode())
                matches += 1
                moves += n
            elapsed = time.perf_counter() - start
            samples.append((matches / elapsed, moves / elapsed))
        logs = [playout(game, players, f"fold-{i}".encode())[1] for i in range(20)]
        total = sum(len(log) for log in logs)

        def fold_rate(logs: list[list[Any]] = logs, total: int = total, game: Game = game) -> float:
            start = time.perf_counter()
            for log in logs:
                fold(game, log)
            return total / (time.perf_counter() - start)

        out[name] = {
            "players": players,
            "matches_per_s": round(statistics.median(s[0] for s in samples), 1),
            "moves_per_s": round(statistics.median(s[1] for s in samples)),
            "events_folded_per_s": round(median_of(RUNS, fold_rate)),
        }
        print(
            f"  {name:11} {players}p  {out[name]['matches_per_s']:>9,.1f} matches/s "
            f"{out[name]['moves_per_s']:>10,} moves/s "
            f"{out[name]['events_folded_per_s']:>11,} events folded/s",
            flush=True,
        )
    return out


# ---------------------------------------------------------------------------- service


def dix_script(seed: bytes, hands: int) -> tuple[list[str], list[tuple[int, str]]]:
    """A Dix match decided in advance: prearranged decks and a legal move sequence.

    The harness then spends exactly one RPC per move, like a client that knows its legal moves.
    """
    game = GAMES["dix"]
    decks = [RandomStream(seed, deal_label(h + 1)).shuffle(deck(53)) for h in range(hands)]
    options = {"target": 10_000, "max_hands": hands}
    config = game.make_config(options, 2)
    setup = Setup(first_dealer=0, decks=tuple(decks))
    state = fold(game, game.start(config, ["a", "b"], b"\x00" * 32, setup))
    stream = RandomStream(seed, "moves")
    moves = []
    while (seat := game.to_act(state)) is not None:
        legal = game.legal_commands(state, seat)
        command = legal[stream.randbelow(len(legal))]
        moves.append((seat, command.card.code))
        state = fold(game, game.decide(state, seat, command), state)
    return [" ".join(c.code for c in d) for d in decks], moves


def dix_request(decks: list[str]) -> Any:
    """The CreateMatch request of a `dix_script` match: its decks prearranged, seat 0 dealing,
    a target no hand reaches (the match ends after its decks)."""
    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb

    return pb.CreateMatchRequest(
        game="dix",
        options={"target": "10000", "max_hands": str(len(decks))},
        seats=[pb.SeatRequest(name="a"), pb.SeatRequest(name="b")],
        first_dealer=0,
        prearranged_decks=decks,
    )


def start_service(
    tmp: str, workers: int = 1, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[str], str]:
    """`kozyr serve` (`workers` processes on one port, `extra` flags) with an embedded Redis in
    its own process; its address."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kozyr.cli",
            "serve",
            "--address",
            "127.0.0.1:0",
            "--data-dir",
            tmp,
            "--json-logs",
            "--workers",
            str(workers),
            *extra,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    # Every worker says "serving" itself: wait for all of them, or the first connections
    # (remote.spread_connections) all reach the one that is up and the figures measure one.
    serving = 0
    for line in proc.stderr:
        if line.startswith("{") and json.loads(line).get("event") == "serving":
            address = json.loads(line)["address"]
            serving += 1
            if serving == workers:
                break
    else:
        raise RuntimeError("the service did not start")
    # Keep draining the log so the server never blocks on a full pipe.
    import threading

    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    return proc, address


async def bench_service_async(
    address: str, matches: int, hands: int, server_pid: int
) -> dict[str, Any]:
    """Moves/s over many concurrent matches, health checks/s, the server's CPU per call of
    each (from /proc: the process's own CPU, Redis apart), and latency by version."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
    from kozyr._proto.kozyr.v1 import kozyr_pb2_grpc

    channels = [grpc.aio.insecure_channel(address) for _ in range(4)]
    stubs = [kozyr_pb2_grpc.KozyrServiceStub(c) for c in channels]
    moves_cpu: list[float] = []
    health_cpu: list[float] = []

    def server_cpu() -> float:
        stat = proc_stat(server_pid)
        return stat[3] if stat is not None else float("nan")

    health_stubs = [health_pb2_grpc.HealthStub(c) for c in channels]

    async def new_match(stub: Any, decks: list[str]) -> tuple[str, list[str]]:
        r = await stub.CreateMatch(dix_request(decks))
        return r.match_id, [t.token for t in sorted(r.tokens, key=lambda t: t.seat)]

    def move(match_id: str, card: str) -> pb.SubmitMoveRequest:
        return pb.SubmitMoveRequest(
            match_id=match_id,
            command_id=uuid.uuid4().hex,
            move=pb.Move(dix=pb.DixMove(play=pb.PlayCard(card=card))),
        )

    async def moves_rate() -> float:
        scripts = [dix_script(f"m{i}".encode(), 1) for i in range(matches)]
        created = await asyncio.gather(
            *(new_match(stubs[i % 4], s[0]) for i, s in enumerate(scripts))
        )

        async def play(i: int) -> int:
            match_id, tokens = created[i]
            stub = stubs[i % 4]
            for seat, card in scripts[i][1]:
                await stub.SubmitMove(
                    move(match_id, card), metadata=[("authorization", f"Bearer {tokens[seat]}")]
                )
            return len(scripts[i][1])

        start, cpu = time.perf_counter(), server_cpu()
        total = sum(await asyncio.gather(*(play(i) for i in range(matches))))
        moves_cpu.append((server_cpu() - cpu) / total)
        return total / (time.perf_counter() - start)

    async def health_rate() -> float:
        per_task = 52  # the same shape as the move harness: one task per "match"
        request = health_pb2.HealthCheckRequest(service="")

        async def run(i: int) -> None:
            for _ in range(per_task):
                await health_stubs[i % 4].Check(request)

        start, cpu = time.perf_counter(), server_cpu()
        await asyncio.gather(*(run(i) for i in range(matches)))
        health_cpu.append((server_cpu() - cpu) / (matches * per_task))
        return matches * per_task / (time.perf_counter() - start)

    async def session_moves_rate() -> float:
        scripts = [dix_script(f"s{i}-{uuid.uuid4().hex}".encode(), 1) for i in range(matches)]
        created = await asyncio.gather(
            *(new_match(stubs[i % 4], s[0]) for i, s in enumerate(scripts))
        )
        return await speed.session_rate(stubs[0], list(created), scripts)

    moves_samples, health_samples, session_samples = [], [], []
    for _ in range(RUNS):  # interleaved, so all three see the same machine load
        moves_samples.append(await moves_rate())
        health_samples.append(await health_rate())
        session_samples.append(await session_moves_rate())

    bands = await speed.alternating_latency(stubs[0], new_match, dix_script, move, hands)
    for c in channels:
        await c.close()
    moves_per_s, checks_per_s, session_per_s = (
        statistics.median(x) for x in (moves_samples, health_samples, session_samples)
    )
    return {
        "concurrent_matches": matches,
        "moves_per_s": round(moves_per_s),
        "session_moves_per_s": round(session_per_s),
        "health_checks_per_s": round(checks_per_s),
        "moves_to_noop_ratio": round(moves_per_s / checks_per_s, 2),
        "server_cpu_us_per_unary_move": round(statistics.median(moves_cpu) * 1e6),
        "server_cpu_us_per_health_check": round(statistics.median(health_cpu) * 1e6),
        "session_moves_to_noop_ratio": round(session_per_s / checks_per_s, 2),
        "latency_ms_at_v10": round(bands["early"] * 1e3, 3),
        f"latency_ms_at_v{int(bands['late_version'])}": round(bands["late"] * 1e3, 3),
        "latency_ratio_late_to_early": round(bands["late"] / bands["early"], 2),
    }


def bench_service(matches: int) -> dict[str, Any]:
    """Run the service benchmark against a fresh `kozyr serve` process."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, address = start_service(tmp)
        try:
            result = asyncio.run(
                bench_service_async(address, matches, hands=25, server_pid=proc.pid)
            )
        finally:
            proc.terminate()
            proc.wait(30)
    for k, v in result.items():
        print(f"  {k:32} {v}", flush=True)
    return result


# ---------------------------------------------------------------------------- verify

# The archive's mix: a third of the matches of each game, at the playout player counts.
VERIFY_MIX = tuple(PLAYERS.items())


def build_archive(matches: int) -> list[str]:
    """Replay files (as text) of `matches` random matches, recorded as the engine logs them."""
    from kozyr.replay import archive
    from kozyr.replay.recorder import record_match

    texts = []
    for i in range(matches):
        name, players = VERIFY_MIX[i % len(VERIFY_MIX)]
        raw = record_match(
            GAMES[name],
            [f"p{j}" for j in range(players)],
            f"archive-{i}".encode(),
            contributions=[f"c{i}/{j}".encode() for j in range(players)],
            match_id=f"bench-{i}",
        )
        texts.append(archive.dumps(archive.build(raw)))
    return texts


def bench_verify(matches: int) -> dict[str, Any]:
    """Entries/s of full offline verification, of the chain check alone and of a plain fold."""
    from kozyr.match.log import GENESIS_HASH, entry_hash
    from kozyr.match.record import apply_entry
    from kozyr.replay.archive import entry_of, hashed_text, parse
    from kozyr.replay.verify import verify

    start = time.perf_counter()
    texts = build_archive(matches)
    generated = time.perf_counter() - start
    entries = sum(len(parse(t).entries) for t in texts)

    def verify_rate() -> float:
        start = time.perf_counter()
        for text in texts:
            report = verify(parse(text))
            assert report.verified, report.text()
        return entries / (time.perf_counter() - start)

    def chain_rate() -> float:
        start = time.perf_counter()
        for text in texts:
            prev = GENESIS_HASH
            for line in parse(text).entries:
                digest = entry_hash(hashed_text(line))
                assert digest == line["hash"] and line["prev"] == prev
                prev = digest
        return entries / (time.perf_counter() - start)

    def fold_rate() -> float:
        start = time.perf_counter()
        for text in texts:
            record = None
            for line in parse(text).entries:
                record = apply_entry(record, entry_of(line), line["hash"])
        return entries / (time.perf_counter() - start)

    verify_samples, chain_samples, fold_samples = [], [], []
    for _ in range(RUNS):  # interleaved, so all three see the same machine load
        verify_samples.append(verify_rate())
        chain_samples.append(chain_rate())
        fold_samples.append(fold_rate())
    verified, chain, folded = (
        statistics.median(s) for s in (verify_samples, chain_samples, fold_samples)
    )
    result = {
        "matches": matches,
        "entries": entries,
        "archive_mb": round(sum(len(t.encode()) for t in texts) / 1e6, 1),
        "archive_generated_s": round(generated, 1),
        "verify_entries_per_s": round(verified),
        "verify_matches_per_s": round(verified * matches / entries, 1),
        "chain_only_entries_per_s": round(chain),
        "fold_only_entries_per_s": round(folded),
        "verify_to_fold_ratio": round(verified / folded, 2),
    }
    for k, v in result.items():
        print(f"  {k:32} {v}", flush=True)
    return result


def bench_tournament(matches: int) -> dict[str, Any]:
    """Tournament matches/s in-process (1 and 2 workers) and through a served engine, the
    server run as deployed on this host (one process per core, like the in-process workers)
    and, beside it, as one process: the same `matches`-match tournament on every side, so the
    workers' start-up weighs alike."""
    from kozyr.tournament import Tournament, run

    def dix(matches: int, server_bots: bool = False) -> Tournament:
        return Tournament(
            "dix",
            ("heuristic", "random"),
            (("single_hand", "true"),),
            "duplicate",
            matches,
            1,
            server_bots=server_bots,
        )

    t_local, t_bots = dix(matches), dix(matches, True)
    figures: dict[str, list[float]] = {
        k: [] for k in ("one", "two", "served", "moves", "bots", "served_1", "bots_1")
    }
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp_1:
        proc, address = start_service(tmp, workers=SERVER_PROCESSES)
        proc_1, address_1 = start_service(tmp_1, workers=1)
        try:
            for _ in range(RUNS):  # interleaved, so all of them see the same machine load
                figures["one"].append(run(t_local, workers=1).matches_per_second)
                figures["two"].append(run(t_local, workers=2).matches_per_second)
                result = run(t_local, workers=2, server=address)
                figures["served"].append(result.matches_per_second)
                figures["moves"].append(sum(r.moves for r in result.results) / result.elapsed)
                figures["bots"].append(run(t_bots, workers=2, server=address).matches_per_second)
                figures["served_1"].append(
                    run(t_local, workers=2, server=address_1).matches_per_second
                )
                figures["bots_1"].append(
                    run(t_bots, workers=2, server=address_1).matches_per_second
                )
        finally:
            for p in (proc, proc_1):
                p.terminate()
                p.wait(30)
    m = {k: statistics.median(v) for k, v in figures.items()}
    out = {
        "tournament": "dix single_hand=true, heuristic vs random, duplicate",
        "server_processes": SERVER_PROCESSES,
        "in_process_matches_per_s_1_worker": round(m["one"], 1),
        "in_process_matches_per_s_2_workers": round(m["two"], 1),
        "workers_speedup_2_to_1": round(m["two"] / m["one"], 2),
        "served_matches_per_s_2_workers": round(m["served"], 2),
        "served_moves_per_s_2_workers": round(m["moves"]),
        "served_to_in_process_ratio": round(m["served"] / m["two"], 4),
        "server_bots_matches_per_s": round(m["bots"], 2),
        "server_bots_to_in_process_ratio": round(m["bots"] / m["two"], 4),
        "one_server_process_served_ratio": round(m["served_1"] / m["two"], 4),
        "one_server_process_bots_ratio": round(m["bots_1"] / m["two"], 4),
    }
    for k, v in out.items():
        print(f"  {k:36} {v}", flush=True)
    return out


def scale_out(sections: list[str], matches: int, results: dict[str, Any]) -> None:
    """The scale-out sections (tests/bench/scale.py)."""
    from tests.bench import scale

    if "scale" in sections:
        print(
            "scale: moves/s by service processes, cluster against single Redis, median of "
            f"{scale.RUNS} runs",
            flush=True,
        )
        results["scale"] = scale.bench_scale(matches)
    if "replicas" in sections:
        print("replicas: three kozyr serve on one Redis, a watcher on another replica", flush=True)
        results["replicas"] = scale.bench_replicas()
    if "ray" in sections:
        print(
            f"ray: tournament matches/s, local Ray against the local runner, median of "
            f"{scale.RUNS} runs",
            flush=True,
        )
        results["ray"] = scale.bench_ray(400)


# ---------------------------------------------------------------------------- receipts


def bench_receipts(matches: int) -> dict[str, Any]:
    """Moves/s with and without receipts, side by side (interleaved runs, the same matches)."""
    from kozyr.core.cards import parse_cards
    from kozyr.core.receipts import KeyRing
    from kozyr.engine import Engine
    from kozyr.match.log import registry_for
    from kozyr.secrets.signing import Signer
    from kozyr.store.memory import MemoryStore

    game = GAMES["dix"]
    registry = registry_for(game)
    scripts = [dix_script(f"r{i}".encode(), 1) for i in range(matches)]
    signer = Signer.generate()

    async def rate(signed: bool) -> float:
        engine = Engine(MemoryStore(), signer=signer if signed else None)
        ids = [
            (
                await engine.create(
                    "dix",
                    {"target": "10000", "max_hands": "1"},
                    [("a", b""), ("b", b"")],
                    first_dealer=0,
                    decks=[parse_cards(d) for d in decks],
                )
            ).match_id
            for decks, _ in scripts
        ]
        commands = [
            [(seat, registry.decode({"type": "Play", "card": card})) for seat, card in script]
            for _, script in scripts
        ]
        start = time.perf_counter()
        total = 0
        for match_id, moves in zip(ids, commands, strict=True):
            for n, (seat, command) in enumerate(moves):
                step = await engine.submit(match_id, seat, command, f"c{n}")
                assert signed == (engine.receipt(step) is not None)  # signed at the append
                total += 1
        return total / (time.perf_counter() - start)

    with_r, without = [], []
    for _ in range(RUNS):  # interleaved, so both see the same machine load
        without.append(asyncio.run(rate(False)))
        with_r.append(asyncio.run(rate(True)))
    ring = KeyRing([signer.public_key])
    receipt = signer.receipt("m", 1, "00" * 32, "11" * 32, 1)

    def per_second(action: Callable[[], object], n: int = 2000) -> float:
        start = time.perf_counter()
        for _ in range(n):
            action()
        return n / (time.perf_counter() - start)

    signs = median_of(
        RUNS, lambda: per_second(lambda: signer.receipt("m", 1, "00" * 32, "11" * 32, 1))
    )
    checks = median_of(RUNS, lambda: per_second(lambda: ring.problem(receipt)))
    a, b = statistics.median(with_r), statistics.median(without)
    result = {
        "engine_moves_per_s_without_receipts": round(b),
        "engine_moves_per_s_with_receipts": round(a),
        "with_to_without_ratio": round(a / b, 3),
        "signing_us_per_move": round((1 / a - 1 / b) * 1e6, 1),
        "receipts_signed_per_s": round(signs),
        "receipts_checked_per_s": round(checks),
    }
    for k, v in result.items():
        print(f"  {k:40} {v}", flush=True)
    return result


def main() -> int:
    """Run the chosen sections and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[
            "games",
            "service",
            "verify",
            "receipts",
            "tlog",
            "tournament",
            "scale",
            "replicas",
            "ray",
            "web",
            "cold",
            "lane",
            "clocks",
            "bots",
            "edge",
        ],
        help="run only these sections",
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="per game-playout run")
    parser.add_argument("--matches", type=int, default=64, help="concurrent service matches")
    parser.add_argument(
        "--archive", type=int, default=1000, help="matches in the verify section's archive"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    sections = args.only or [
        "games",
        "service",
        "verify",
        "receipts",
        "tournament",
        "scale",
        "replicas",
        "ray",
        "cold",
        "lane",
        "clocks",
    ]
    results: dict[str, Any] = {}
    if "games" in sections:
        print(f"games: random playout, one process, median of {RUNS} runs", flush=True)
        results["games"] = bench_games(args.seconds)
    if "service" in sections:
        print(f"service: kozyr serve + embedded Redis, median of {RUNS} runs", flush=True)
        results["service"] = bench_service(args.matches)
    if "verify" in sections:
        print(
            f"verify: offline replay verification, {args.archive} matches, median of {RUNS} runs",
            flush=True,
        )
        results["verify"] = bench_verify(args.archive)
    if "receipts" in sections:
        print(
            f"receipts: engine moves/s with and without signing, median of {RUNS} interleaved runs",
            flush=True,
        )
        results["receipts"] = bench_receipts(args.matches)
    if "tlog" in sections:
        from tests.bench.bench_tlog import bench_tlog, bench_tlog_served

        print(f"tlog: engine moves/s, {args.matches} matches at once, median of {RUNS}", flush=True)
        results["tlog"] = {**bench_tlog(args.matches), **bench_tlog_served(args.matches)}
    if "tournament" in sections:
        print(f"tournament: kozyr tournament matches/s, median of {RUNS} runs", flush=True)
        results["tournament"] = bench_tournament(400)
    scale_out(sections, args.matches, results)
    if "web" in sections:
        from tests.bench.bench_web import CALLS, bench_web

        print(f"web: one call at a time over gRPC and the web port, median of {CALLS}", flush=True)
        results["web"] = bench_web()
    if "cold" in sections:
        print(
            f"cold: a fresh engine's rebuild of a 1,000-entry match, median of {RUNS * 4}",
            flush=True,
        )
        results["cold"] = speed.bench_cold()
    if "lane" in sections:
        print(f"lane: event-loop CPU per append-script call, median of {RUNS}", flush=True)
        results["lane"] = speed.bench_lane()
    if "clocks" in sections:
        from tests.bench.bench_clocks import bench_clocks

        print("clocks: deadline lateness, kozyr serve + embedded Redis", flush=True)
        results["clocks"] = bench_clocks()
    if "bots" in sections:
        from tests.bench.bench_bots import bench_bots

        print(f"bots: served --server-bots, server CPU per match, median of {RUNS}", flush=True)
        results["bots"] = bench_bots()
    if "edge" in sections:
        from tests.bench.bench_edge import bench_edge

        print(f"edge: moves/s, limits at defaults and wide, median of {RUNS}", flush=True)
        results["edge"] = bench_edge(args.matches)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
