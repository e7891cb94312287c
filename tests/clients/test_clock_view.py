"""kozyr_client.clock: the time left per seat and the clock line `kozyr play` shows."""

from __future__ import annotations

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.terminal.screen import render
from kozyr_client.clock import clock_line, seconds, time_left


def view() -> pb.MatchView:
    v = pb.MatchView(
        match_id="m",
        game="dix",
        version=3,
        status=pb.MATCH_STATUS_PLAYING,
        players=[
            pb.Player(seat=0, name="ann", joined=True),
            pb.Player(seat=1, name="bob", joined=True, botted=True),
        ],
        to_act=1,
        remaining_ms=[30_000, 20_000],
        deadline_ms=1_000_020_000,
        clock_since_ms=1_000_000_000,
        time_control=pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=30_000),
    )
    v.dix.CopyFrom(
        pb.DixView(
            hand_sizes=[3, 3], totals=[0, 0], tricks=[0, 0], tens=[0, 0], target=50, hand_number=1
        )
    )
    return v


def test_the_seat_to_act_counts_down_to_the_deadline_the_others_keep_their_time() -> None:
    assert time_left(view(), now_ms=1_000_005_000) == [30_000, 15_000]
    assert time_left(view(), now_ms=1_000_030_000) == [30_000, 0]
    assert time_left(pb.MatchView()) == []


def test_the_clock_line_marks_the_seat_to_act_and_a_seat_the_bot_plays() -> None:
    line = clock_line(view(), now_ms=1_000_005_000)
    assert line == "Clock (per decision): ann 30.0s · >bob 15.0s · bot plays bob"
    assert [seconds(ms) for ms in (12_345, 245_000, 3_900_000)] == ["12.3s", "4:05", "1:05:00"]


def test_kozyr_play_shows_the_clock_on_the_table() -> None:
    assert any(line.startswith("Clock (per decision)") for line in render(view()))
