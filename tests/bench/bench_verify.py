"""Offline replay verification (`bench.py --only verify`): `kozyr replay verify` (parse, chain,
seed, deals, every move re-decided, outcome) in entries/s over an archive of matches recorded
in-process in the engine's log format, beside the chain check alone and a plain fold of the same
entries (what replaying without verifying costs).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from kozyr.games import GAMES
from tests.bench.bench_games import PLAYERS
from tests.bench.harness import RUNS

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
