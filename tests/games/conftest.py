"""Every refusal a games test provokes must name a rule of RULES.md (docs/rules.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kozyr.games.contract import IllegalMove, InvalidOptions

# The rule IDs of RULES.md: R-1 … R-6, DIX-1 … DIX-9, SIX-1 … SIX-13, DUR-1 … DUR-10.
RULE_IDS = frozenset(
    # R-7 … R-9 and the last two of each game: the early endings and clocks (match/clock.py)
    [f"R-{i}" for i in range(1, 10)]
    + [f"DIX-{i}" for i in range(1, 12)]
    + [f"SIX-{i}" for i in range(1, 16)]
    + [f"DUR-{i}" for i in range(1, 13)]
)


def unknown_rules(refusals: list[IllegalMove | InvalidOptions]) -> list[str]:
    """The refusals whose rule is not a rule ID, as readable lines."""
    return [
        f"{type(r).__name__}({r.code!r}, rule={r.rule!r})"
        for r in refusals
        if r.rule not in RULE_IDS
    ]


@pytest.fixture(autouse=True)
def refusals_name_their_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[list[IllegalMove | InvalidOptions]]:
    """Record every IllegalMove and InvalidOptions built during the test; fail the test if
    one names no rule ID (the rule is how a player looks the refusal up)."""
    seen: list[IllegalMove | InvalidOptions] = []
    for cls in (IllegalMove, InvalidOptions):
        original = cls.__init__

        def record(
            self: IllegalMove | InvalidOptions,
            *args: object,
            _o: object = original,
            **kwargs: object,
        ) -> None:
            _o(self, *args, **kwargs)  # type: ignore[operator]
            seen.append(self)

        monkeypatch.setattr(cls, "__init__", record)
    yield seen
    bad = unknown_rules(seen)
    assert not bad, f"refusals without a RULES.md rule ID: {bad}"
