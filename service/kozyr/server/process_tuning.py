"""How a server process logs and collects garbage."""

from __future__ import annotations

import gc
import logging
import sys

import structlog

GC_OLDER = (20, 10)  # young collections per middle one, middle ones per full one


def configure_logging(json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """structlog: console lines in a terminal, JSON lines otherwise."""
    if json_logs is None:
        json_logs = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


def tune_gc(young_threshold: int) -> None:
    """Set the cycle collector for a long-running server (ServerConfig.gc_young_threshold)
    and freeze what start-up made (modules, handlers), which no full collection need scan."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(young_threshold, *GC_OLDER)
