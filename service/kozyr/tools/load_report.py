"""The loadgen's report: whether the run passed, and the report as text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def passed(report: Mapping[str, Any]) -> bool:
    """True when nothing was lost, corrupted, stuck or falsely unavailable."""
    return not any(
        report[k]
        for k in (
            "acknowledged_lost",
            "matches_corrupted",
            "matches_stuck",
            "false_unavailable",
            "watch_gaps",
        )
    )


def render(report: Mapping[str, Any], terminal: bool) -> str:
    """The report as a rich table on a terminal, plain `key: value` lines otherwise."""
    rows = [
        (k, json.dumps(v) if isinstance(v, dict) else str(v))
        for k, v in report.items()
        if k != "problems"
    ]
    rows += [(f"problem {m}", "; ".join(p)) for m, p in report["problems"].items()]
    if not terminal:
        return "\n".join(f"{k}: {v}" for k, v in rows)
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    table = Table(title="kozyr loadgen", show_header=True)
    table.add_column("measure")
    table.add_column("value")
    for key, value in rows:
        table.add_row(key, value)
    out = StringIO()
    Console(file=out, force_terminal=True).print(table)
    return out.getvalue().rstrip("\n")
