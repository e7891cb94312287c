"""The server's cycle-collector policy (docs/operations.md, "The cycle collector")."""

from __future__ import annotations

import gc

from kozyr.config.settings import ServerConfig
from kozyr.server.process_tuning import GC_OLDER, tune_gc


def test_tune_gc_freezes_start_up_and_sets_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_gc(ServerConfig().gc_young_threshold)
        assert gc.get_threshold() == (50_000, *GC_OLDER)
        assert gc.get_freeze_count() > 0  # what start-up made is out of every collection
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
