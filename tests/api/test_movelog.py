"""The per-move and per-match log lines: one each at DEBUG, counted in the INFO summary."""

from __future__ import annotations

import logging

import structlog
from structlog.testing import LogCapture, capture_logs

from kozyr.api.movelog import MoveLog


def test_new_matches_are_counted_in_the_summary_and_lined_at_debug() -> None:
    now = [100.0]
    moves = MoveLog(interval_s=10.0, clock=lambda: now[0])
    with capture_logs() as lines:
        for i in range(3):
            moves.created(match_id=f"m{i}", game="dix", seats=2)
        moves.record("OK", 1.5, match_id="m0", seat=0, version=2)
        assert [line["log_level"] for line in lines] == ["debug"] * 4
        now[0] += 10.0
        moves.created(match_id="m3", game="dix", seats=2)  # the interval is over: a summary
    summary = [line for line in lines if line["event"] == "moves"]
    assert len(summary) == 1 and summary[0]["log_level"] == "info"
    assert (summary[0]["matches_created"], summary[0]["moves"]) == (4, 1)
    assert summary[0]["results"] == {"OK": 1}
    created = [line for line in lines if line["event"] == "match_created"]
    assert [line["match_id"] for line in created] == ["m0", "m1", "m2", "m3"]


def test_a_summary_of_creations_alone_has_no_latencies() -> None:
    now = [0.0]
    moves = MoveLog(interval_s=1.0, clock=lambda: now[0])
    with capture_logs() as lines:
        moves.created(match_id="m0", game="dix", seats=2)
        moves.flush()
        moves.flush()  # nothing since: no line
    (summary,) = [line for line in lines if line["event"] == "moves"]
    assert (summary["matches_created"], summary["moves"]) == (1, 0)
    assert "median_latency_ms" not in summary


def test_at_info_a_move_has_no_line_and_a_new_level_counts_from_the_next_summary() -> None:
    now = [0.0]
    saved = structlog.get_config()
    captured = LogCapture()
    try:
        structlog.configure(
            processors=[captured],
            cache_logger_on_first_use=False,
            wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        )
        moves = MoveLog(interval_s=1.0, clock=lambda: now[0])
        moves.record("OK", 1.0, match_id="m0", seat=0, version=1)
        moves.record("NOT_YOUR_TURN", 1.0, match_id="m0", seat=1, version=1)
        assert [e["result"] for e in captured.entries if e["event"] == "move"] == [
            "NOT_YOUR_TURN"
        ]  # a refusal always has its line
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
        moves.record("OK", 1.0, match_id="m0", seat=0, version=2)  # still the old level
        now[0] += 1.0
        moves.record("OK", 1.0, match_id="m0", seat=1, version=3)  # the summary asks again
        moves.record("OK", 1.0, match_id="m0", seat=0, version=4)
        assert [e["version"] for e in captured.entries if e["event"] == "move"] == [1, 4]
    finally:
        structlog.configure(**saved)
