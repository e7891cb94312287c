"""`make bench-scale`: how Kozyr's throughput grows with processes, as far as the cores go.

From the project's many-core kit (its scale.py; tests/bench/scale.py's `scale` section measures
unary moves/s through `kozyr serve --workers 1|2|4` within `make bench`; this one goes on to N
= 16 and to tournaments). One bounded run, offline (this checkout's service/ and client on
PYTHONPATH; the dependencies from .venv, or from the kit's wheels on PYTHONPATH):

  inproc   `kozyr tournament` in-process (dix single_hand, heuristic vs random), --workers N
  served   `kozyr serve --workers N` (embedded Redis), the same tournament played against it by
           N client workers (`--server`) and by the server's own bots (`--server-bots`), with
           the CPU of each server process and of Redis
  loadgen  `kozyr serve --workers N` and N `kozyr loadgen --concurrency C`: unary moves/s

N = 1, 2, 4, 8, 16 up to the machine's cores (A_WORKERS, B_SERVERS, C_SERVERS replace a list,
e.g. "4,8"; SCALE=small: tiny counts). Every command runs under `timeout`, each phase has a
deadline, nothing starts after HARD_END_S (default 300 s on <= 4 cores, else 450). Each figure
is a JSON line in $OUT/scale.jsonl (default /tmp/kozyr-bench-scale); the table comes last.

    python -m tests.bench.manycore      (from the repository root; `make bench-scale`)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from tests.bench.bounded import (
    CLI,
    GROUPS,
    OUT,
    PY,
    WORK,
    Server,
    cpu_delta,
    emit,
    group_alive,
    kill_group,
    log,
    machine_busy,
    now,
    run_cmd,
    stop_all,
    tail,
)

T0 = time.monotonic()
CORES = len(os.sched_getaffinity(0))
SMALL = os.environ.get("SCALE", "full") == "small"
GAME = [
    "--game",
    "dix",
    "--players",
    "heuristic,random",
    "--option",
    "single_hand=true",
    "--seed",
    "1",
    "--no-progress",
]
UP_TO = [n for n in (1, 2, 4, 8, 16) if n <= CORES] or [1]

if SMALL or CORES <= 4:
    CFG: dict[str, Any] = dict(
        a_workers=UP_TO,
        a_target_s=3.0 if SMALL else 8.0,
        a_rate=350.0,
        a_cap_s=40,
        b_servers=UP_TO,
        b_target_s=3.0 if SMALL else 12.0,
        b_client_rate=10.0,
        b_bots_rate=25.0,
        b_cap_s=40,
        c_servers=UP_TO,
        c_seconds=4.0 if SMALL else 8.0,
        c_concurrency=16 if SMALL else 32,
        phase_end={"inproc": 60, "served": 200, "loadgen": 290},
    )
else:
    CFG = dict(
        a_workers=UP_TO,
        a_target_s=16.0,
        a_rate=230.0,
        a_cap_s=70,
        b_servers=[n for n in UP_TO if n <= 8] if CORES < 32 else UP_TO,
        b_target_s=12.0,
        b_client_rate=40.0,
        b_bots_rate=90.0,
        b_cap_s=55,
        c_servers=[n for n in (1, 4, 8, 16) if n <= CORES],
        c_seconds=15.0,
        c_concurrency=64,
        # seconds from the start; a phase gets what an earlier one leaves
        phase_end={"inproc": 150, "served": 330, "loadgen": 440},
    )

for key, env in (
    ("a_workers", "A_WORKERS"),
    ("b_servers", "B_SERVERS"),
    ("c_servers", "C_SERVERS"),
):  # e.g. B_SERVERS=8 to measure only N=8
    if os.environ.get(env):
        CFG[key] = [int(x) for x in os.environ[env].split(",") if x.strip()]

# nothing is started after this (seconds from the start)
HARD_END = float(os.environ.get("HARD_END_S") or (300 if SMALL or CORES <= 4 else 450))
# connections each loadgen process opens (stock: one per 100 matches played at once, so one
# for --concurrency 64, and SO_REUSEPORT would leave some of N workers without a connection)
LOADGEN_CHANNELS = int(os.environ.get("LOADGEN_CHANNELS") or 8)  # 0: stock loadgen
RESULTS: dict[str, Any] = {"inproc": {}, "served": {}, "loadgen": {}}


def left(phase: str) -> float:
    """Seconds left to `phase` (its deadline, or the hard end)."""
    return min(CFG["phase_end"][phase], HARD_END) - (time.monotonic() - T0)


def hard_left() -> float:
    """Seconds left before nothing may start."""
    return HARD_END - (time.monotonic() - T0)


def even(n: float, lo: int = 2) -> int:
    """`n` rounded down to an even count, at least `lo`."""
    return max(lo, int(n) // 2 * 2)


def machine() -> dict[str, Any]:
    """Where this ran: cores, CPU model, date, the commit."""
    try:
        model = next(
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        )
    except (OSError, StopIteration):
        model = ""
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    commit = ""
    with contextlib.suppress(Exception):
        commit = subprocess.run(
            [
                "git",
                "-C",
                str(Path(__file__).resolve().parents[2]),
                "describe",
                "--always",
                "--dirty",
            ],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout.strip()
    return {
        "measure": "env",
        "nproc": nproc,
        "affinity": CORES,
        "cpu_model": model,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": sys.version.split()[0],
        "commit": commit,
        "loadavg": Path("/proc/loadavg").read_text().strip(),
        "plan": CFG,
    }


def tournament(
    name: str,
    matches: int,
    workers: int,
    limit: float,
    server: str | None = None,
    server_bots: bool = False,
) -> dict[str, Any]:
    """One `kozyr tournament` run; its figures from its --json."""
    js = WORK / f"{name}.json"
    argv = [
        *CLI,
        "tournament",
        *GAME,
        "--matches",
        str(matches),
        "--workers",
        str(workers),
        "--json",
        str(js),
    ]
    if server:
        argv += ["--server", server]
    if server_bots:
        argv.append("--server-bots")
    res = run_cmd(name, argv, limit)
    shown = [a for a in argv[3:] if a not in ("--json", str(js))]
    fig: dict[str, Any] = {
        "cmd": "kozyr " + " ".join(shown),
        "matches_requested": matches,
        "workers": workers,
        "rc": res["rc"],
        "wall_s": res["wall_s"],
        "client_cpu_s": res["client_cpu_s"],
        "machine_busy_cores": res["machine_busy_cores"],
    }
    if res["timed_out"]:
        fig["error"] = f"timed out after {limit:.0f} s"
    try:
        data = json.loads(js.read_text())
        run = data["run"]
        moves = sum(m["moves"] for m in data["matches"])
        fig.update(
            matches_played=data["matches_played"],
            complete=data["complete"],
            elapsed_s=run["elapsed_s"],
            matches_per_s=run["matches_per_s"],
            moves_per_s=round(moves / run["elapsed_s"]) if run["elapsed_s"] else None,
            moves_per_match=round(moves / max(1, data["matches_played"]), 1),
            heuristic_win_rate=next(
                (s["win_rate"] for s in data["standings"] if s["player"] == "heuristic"), None
            ),
        )
        js.unlink()  # large (every match); the figures are kept
    except (OSError, ValueError, KeyError, StopIteration) as e:
        fig.setdefault("error", f"no result: {e!r}")
        fig["output_tail"] = tail(res["output"], 5, 15)
    return fig


def phase_inproc() -> None:
    rate = CFG["a_rate"]  # matches/s per worker, updated from each run
    for w in CFG["a_workers"]:
        room = left("inproc")
        if room < 8:
            emit({"measure": "inproc", "workers": w, "skipped": "time budget"})
            continue
        target = min(CFG["a_target_s"], room / 2.5)
        matches = even(rate * w * target)
        # if this run scaled no better than half the last per-worker rate, it still fits
        matches = min(matches, even(rate * w * 0.5 * min(CFG["a_cap_s"], room)))
        fig = tournament(f"inproc-w{w}", matches, w, min(CFG["a_cap_s"], room))
        if fig.get("matches_per_s"):
            rate = fig["matches_per_s"] / w
            one = RESULTS["inproc"].get(1, {}).get("matches_per_s")
            if one:
                fig["speedup_vs_1"] = round(fig["matches_per_s"] / one, 2)
                fig["efficiency"] = round(fig["matches_per_s"] / one / w, 3)
        RESULTS["inproc"][w] = fig
        emit({"measure": "inproc", **fig})


def inproc_rate(workers: int) -> float | None:
    return RESULTS["inproc"].get(workers, {}).get("matches_per_s")


def with_ratios(fig: dict[str, Any], n: int, same_total: int) -> None:
    mps = fig.get("matches_per_s")
    if not mps:
        return
    a_same, a_total = inproc_rate(n), inproc_rate(same_total)
    fig["ratio_vs_inproc_same_workers"] = round(mps / a_same, 4) if a_same else None
    fig["inproc_workers_same_total"] = same_total
    fig["ratio_vs_inproc_same_total"] = round(mps / a_total, 4) if a_total else None


def served_run(srv: Server, n: int, mode: str, rate: float, room: float) -> dict[str, Any]:
    target = min(CFG["b_target_s"], room / 2.5)
    matches = even(rate * target)
    if mode == "server_bots":
        matches = max(matches, even(64 * n * 2))  # the driver keeps workers x 64 in play
    limit = min(CFG["b_cap_s"], room)
    before, t = srv.cpu(), time.monotonic()
    fig = tournament(
        f"served-n{n}-{mode}",
        matches,
        n,
        limit,
        server=srv.address,
        server_bots=mode == "server_bots",
    )
    fig.update(cpu_delta(before, srv.cpu(), time.monotonic() - t))
    fig.pop("client_cpu_s", None)  # forkserver workers are not reaped by us: not counted
    return fig


def phase_served() -> None:
    rates = {"client_bots": CFG["b_client_rate"], "server_bots": CFG["b_bots_rate"]}  # per N
    one = inproc_rate(1)
    if one:  # this CPU's speed: the project's bench saw ~0.1x in-process with client bots
        rates = {"client_bots": 0.1 * one, "server_bots": 0.3 * one}  # and ~0.35x with bots
    first = True
    for n in CFG["b_servers"]:
        room = left("served")
        if room < 15:
            emit({"measure": "served", "server_workers": n, "skipped": "time budget"})
            continue
        try:
            srv = Server(f"served-n{n}", n, room + 60)
            start_s = srv.wait(min(90, hard_left()))
        except Exception as e:
            emit({"measure": "served", "server_workers": n, "error": str(e)[-2000:]})
            stop_all()
            continue
        try:
            for mode in ("client_bots", "server_bots"):
                room = left("served")
                if room < 8:
                    emit(
                        {
                            "measure": "served",
                            "server_workers": n,
                            "mode": mode,
                            "skipped": "time budget",
                        }
                    )
                    continue
                # the first run of a mode is sized at half its target from a guess; later ones
                # from the last rate per server process (a little less: scaling is not linear)
                rate = rates[mode] * n * (0.6 if first else 0.85)
                fig = served_run(srv, n, mode, rate, room)
                if fig.get("matches_per_s"):
                    rates[mode] = fig["matches_per_s"] / n
                # client bots: N server workers + N client workers; server bots: N workers
                with_ratios(fig, n, 2 * n if mode == "client_bots" else n)
                RESULTS["served"][(n, mode)] = fig
                emit(
                    {
                        "measure": "served",
                        "mode": mode,
                        "server_workers": n,
                        "server_start_s": round(start_s, 1),
                        **fig,
                    }
                )
            first = False
        finally:
            srv.stop()


LOADGEN = (
    "import sys, kozyr.tools.loadgen as g; g.MATCHES_PER_CHANNEL = int(sys.argv.pop(1)); "
    "from kozyr.cli import main; sys.exit(main())"
)


def phase_loadgen() -> None:
    seconds, conc = CFG["c_seconds"], CFG["c_concurrency"]
    per_channel = max(1, conc // LOADGEN_CHANNELS) if LOADGEN_CHANNELS else 100
    for n in CFG["c_servers"]:
        room = left("loadgen")
        if room < seconds + 10:
            emit({"measure": "loadgen", "server_workers": n, "skipped": "time budget"})
            continue
        try:
            srv = Server(f"loadgen-n{n}", n, room + 60)
            start_s = srv.wait(min(90, hard_left()))
        except Exception as e:
            emit({"measure": "loadgen", "server_workers": n, "error": str(e)[-2000:]})
            stop_all()
            continue
        try:
            secs = max(3.0, min(seconds, left("loadgen") - 10))
            limit = max(10, min(secs + 45, hard_left()))
            before, busy0, t = srv.cpu(), machine_busy()[0], time.monotonic()
            log(
                f"loadgen-n{n}: {n} x `loadgen --concurrency {conc} --seconds {secs:.0f}` "
                f"({-(-conc // per_channel)} connections each), limit {limit:.0f} s"
            )
            procs = start_loadgens(srv.address, n, conc, per_channel, secs, limit)
            rcs = wait_loadgens(procs, limit, t)
            wall = time.monotonic() - t
            busy = (machine_busy()[0] - busy0) / wall
            cpu = cpu_delta(before, srv.cpu(), wall)
            print(tail(WORK / f"loadgen-n{n}-0.out", 40, 10), flush=True)
            reports = []
            for _, js, _ in procs:
                with contextlib.suppress(OSError, ValueError):
                    reports.append(json.loads(js.read_text()))
            fig: dict[str, Any] = {
                "measure": "loadgen",
                "server_workers": n,
                "loadgen_processes": n,
                "concurrency_each": conc,
                "connections_each": -(-conc // per_channel),
                "seconds_each": secs,
                "server_start_s": round(start_s, 1),
                "rcs": rcs,
                "reports": len(reports),
                "wall_s": round(wall, 1),
            }
            if reports:
                fig.update(loadgen_totals(reports))
            else:
                fig["error"] = "no loadgen report; " + tail(WORK / f"loadgen-n{n}-0.out", 5, 20)
            # CPU over the whole step (the play, and the checks of finished matches after it)
            fig.update(cpu)
            fig["machine_busy_cores"] = round(busy, 2)
            RESULTS["loadgen"][n] = fig
            emit(fig)
        finally:
            srv.stop()


def start_loadgens(
    address: str, n: int, conc: int, per_channel: int, secs: float, limit: float
) -> list[tuple[subprocess.Popen[bytes], Path, IO[str]]]:
    """`n` loadgen processes against `address`, each under `timeout`: (process, its JSON
    report's path, its output file)."""
    procs = []
    for i in range(n):
        js = WORK / f"loadgen-n{n}-{i}.json"
        head = [PY, "-c", LOADGEN, str(per_channel)] if LOADGEN_CHANNELS else CLI
        argv = [
            *head,
            "loadgen",
            "--server",
            address,
            "--matches",
            str(conc * 4),
            "--concurrency",
            str(conc),
            "--seconds",
            str(secs),
            "--seed",
            str(i),
            "--give-up",
            "10",
            "--json",
            str(js),
        ]
        out = (WORK / f"loadgen-n{n}-{i}.out").open("w")
        p = subprocess.Popen(
            ["timeout", "-k", "5", str(int(limit)), *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        GROUPS.add(p.pid)
        procs.append((p, js, out))
    return procs


def wait_loadgens(
    procs: list[tuple[subprocess.Popen[bytes], Path, IO[str]]], limit: float, t: float
) -> list[int]:
    """Each loadgen's exit status, its group killed if it outlives `limit` (from `t`)."""
    rcs = []
    for p, _, out in procs:
        try:
            rcs.append(p.wait(max(1, limit + 20 - (time.monotonic() - t))))
        except subprocess.TimeoutExpired:
            kill_group(p.pid)
            rcs.append(p.wait())
        out.close()
        if group_alive(p.pid):
            kill_group(p.pid)
        GROUPS.discard(p.pid)
    return rcs


def loadgen_totals(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The loadgens' reports summed (their latencies listed side by side)."""
    errors: Counter[str] = Counter()
    for r in reports:
        errors.update(r.get("errors", {}))
    acked = sum(r["moves_acknowledged"] for r in reports)
    played = max(r["seconds"] for r in reports)
    return dict(
        moves_per_s_total=round(sum(r["moves_per_second"] for r in reports), 1),
        moves_acknowledged=acked,
        played_s_max=played,
        moves_per_s_by_max_seconds=round(acked / played, 1) if played else None,
        requests_total=sum(sum(r["requests"].values()) for r in reports),
        errors_total=sum(errors.values()),
        errors=dict(errors.most_common(12)),
        submit_p50_ms=[r["submit_latency_ms"]["p50"] for r in reports],
        submit_p99_ms=[r["submit_latency_ms"]["p99"] for r in reports],
        matches_finished=sum(r["matches_finished"] for r in reports),
        matches_checked=sum(r["matches_checked"] for r in reports),
        acknowledged_lost=sum(r["acknowledged_lost"] for r in reports),
        matches_corrupted=sum(r["matches_corrupted"] for r in reports),
        matches_stuck=sum(r["matches_stuck"] for r in reports),
        false_unavailable=sum(r["false_unavailable"] for r in reports),
        watch_gaps=sum(r["watch_gaps"] for r in reports),
    )


def evenness(cores: list[float], n: int) -> float | None:
    """How evenly N server processes shared the work: the least busy over the busiest (1.0:
    alike; 0: one idle). `cores` is busiest first, processes under 0.01 core left out."""
    if not cores:
        return None
    top = (cores + [0.0] * n)[:n]
    return round(top[-1] / top[0], 2) if top[0] else None


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table() -> str:
    """The figures as one table, a row per N."""
    rows = [
        "| N | in-process m/s | N / 1 | client bots m/s | / in-process N | / in-process 2N "
        "| server bots m/s | / in-process N | loadgen moves/s | server CPU per process (cores): "
        "client bots | even | server bots | even | loadgen | even |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: "
        "| --- | ---: |",
    ]
    ns = sorted({*RESULTS["inproc"], *(n for n, _ in RESULTS["served"]), *RESULTS["loadgen"]})
    for n in ns:
        a = RESULTS["inproc"].get(n, {})
        c = RESULTS["served"].get((n, "client_bots"), {})
        b = RESULTS["served"].get((n, "server_bots"), {})
        g = RESULTS["loadgen"].get(n, {})
        rows.append(
            "| "
            + " | ".join(
                [
                    str(n),
                    _fmt(a.get("matches_per_s")),
                    _fmt(a.get("speedup_vs_1"), 2),
                    _fmt(c.get("matches_per_s")),
                    _fmt(c.get("ratio_vs_inproc_same_workers"), 3),
                    _fmt(c.get("ratio_vs_inproc_same_total"), 3),
                    _fmt(b.get("matches_per_s")),
                    _fmt(b.get("ratio_vs_inproc_same_workers"), 3),
                    _fmt(g.get("moves_per_s_total")),
                    " ".join(_fmt(x, 2) for x in c.get("server_process_cores", [])) or "-",
                    _fmt(evenness(c.get("server_process_cores", []), n), 2),
                    " ".join(_fmt(x, 2) for x in b.get("server_process_cores", [])) or "-",
                    _fmt(evenness(b.get("server_process_cores", []), n), 2),
                    " ".join(_fmt(x, 2) for x in g.get("server_process_cores", [])) or "-",
                    _fmt(evenness(g.get("server_process_cores", []), n), 2),
                ]
            )
            + " |"
        )
    return "\n".join(rows)


def summary() -> None:
    """The last JSON line (every figure) and the table."""
    emit(
        {
            "measure": "summary",
            "inproc": RESULTS["inproc"],
            "served": {f"{mode}_n{n}": f for (n, mode), f in RESULTS["served"].items()},
            "loadgen": RESULTS["loadgen"],
            "total_s": now(),
        }
    )
    print("\n" + table(), flush=True)


def main() -> int:
    """Every phase in turn, bounded; the table at the end, also when cut short."""

    def on_term(signum: int, frame: object) -> None:
        raise SystemExit(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    log(f"{CORES} cores; work folder {WORK}, out {OUT}; hard end {HARD_END:.0f} s")
    try:
        for name, step in (
            ("env", lambda: emit(machine())),
            ("inproc", phase_inproc),
            ("served", phase_served),
            ("loadgen", phase_loadgen),
        ):
            try:
                step()
            except Exception as e:
                log(f"phase {name} failed: {e!r}")
                emit({"measure": name, "error": repr(e)[-2000:]})
            finally:
                stop_all()
    finally:
        stop_all()
        summary()
        shutil.rmtree(WORK, ignore_errors=True)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
