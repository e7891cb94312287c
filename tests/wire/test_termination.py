"""Termination is one enum everywhere: a match.ended feed event carries it in outcome.termination
(as MatchView.outcome does), with the deprecated string beside it for one cycle."""

from __future__ import annotations

import json

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.api.lobby import tenant_event
from kozyr.games.contract import Outcome
from kozyr.match import phases
from kozyr.platform.tenant_store import FeedItem
from kozyr.wire.clockview import TERMINATIONS


@pytest.mark.parametrize("ending", sorted(TERMINATIONS))
def test_a_match_ended_event_carries_the_termination_enum(ending: str) -> None:
    outcome = Outcome(winners=(1,), scores=(0, 1), reason="over", termination=ending, seats=(0,))
    event = phases.LifecycleEvent(
        phases.ENDED, "m-1", 9, "dix", 1_000, outcome=outcome, termination=ending, head="ab"
    )
    wire = tenant_event(FeedItem("1-0", json.dumps(event.data())))
    assert wire.outcome.termination == TERMINATIONS[ending]
    assert pb.Termination.Name(wire.outcome.termination) == f"TERMINATION_{ending}"
    assert wire.termination == ending  # the deprecated string, for one cycle


def test_an_event_recorded_without_a_termination_reads_unspecified() -> None:
    data = {
        "type": phases.ENDED,
        "match_id": "m-1",
        "version": 9,
        "game": "dix",
        "time_ms": 1,
        "outcome": {"winners": [0], "scores": [1, 0], "reason": "over"},
        "termination": "",
        "head_hash": "ab",
    }
    wire = tenant_event(FeedItem("1-0", json.dumps(data)))
    assert wire.outcome.termination == pb.TERMINATION_UNSPECIFIED
