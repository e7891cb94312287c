"""Headless bot tournaments: schedules, in-process and served runners, ratings and reports.

`kozyr tournament` (kozyr.tournament.cli) is the command; `run(Tournament(...))` the API.
"""

from __future__ import annotations

from kozyr.tournament.model import MatchResult, Tournament
from kozyr.tournament.ratings import Standing, standings, wilson
from kozyr.tournament.runner import Run, run

__all__ = ["MatchResult", "Run", "Standing", "Tournament", "run", "standings", "wilson"]
