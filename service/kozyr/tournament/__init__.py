"""Headless bot tournaments: schedules, in-process and served runners, ratings and reports.

`kozyr tournament` (kozyr.cli.tournament_command) is the command; `run(Tournament(...))` the API.
"""

from __future__ import annotations

from kozyr.tournament.ratings import Standing, standings, wilson
from kozyr.tournament.runner import Run, run
from kozyr.tournament.spec import MatchResult, Tournament

__all__ = ["MatchResult", "Run", "Standing", "Tournament", "run", "standings", "wilson"]
