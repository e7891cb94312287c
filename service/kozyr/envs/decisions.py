"""Decisions in bulk: one row per decision of finished matches, as its seat saw it.

A row (docs/agents.md "Export"): ``match`` (id), ``deal``, ``seat``, ``player`` (bot spec or
seat name), ``step`` (the decision's number in the match, from 0), ``observation`` (the view's
encoding, kozyr.bots.encodings), ``mask`` (the legal-action mask), ``action``, ``reward`` (the
seat's reward at the end: +1 win, -1 loss, 0 shared or no result) and ``view`` (the view as
JSON). Only the seat's view enters a row: never the state, another seat's cards or the seed.

Sources: an in-process tournament (`tournament_rows`: the fixtures of kozyr.tournament, same
deals and bot seeds as `kozyr tournament`) or finished matches read from a server's logs
(`log_rows`: GetMatchLog entries folded into the match record, whose outcome, an early
ending's included, gives the rewards). Rows are produced a match at a time and written in
batches (`write_rows`), so memory stays bounded by one match and one batch whatever the number
of matches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kozyr.bots import make_bot, parse_spec
from kozyr.bots.encodings import Encoding
from kozyr.core.jsontext import dumps, loads
from kozyr.envs.table import Table, rewards_of
from kozyr.games import get_game
from kozyr.games.codec import encode
from kozyr.match.log import registry_for
from kozyr.match.record import MatchRecord, apply_entry, revealed_in
from kozyr.replay.archive import entry_of
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr.tournament.spec import Tournament

FORMATS = ("parquet", "jsonl")


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat, as that seat saw it."""

    match: str
    deal: int
    seat: int
    player: str
    step: int
    observation: list[float]
    mask: list[int]
    action: int
    reward: float
    view: str

    def as_dict(self) -> dict[str, Any]:
        """The row as plain data (the JSONL line, the Parquet record)."""
        return {
            "match": self.match,
            "deal": self.deal,
            "seat": self.seat,
            "player": self.player,
            "step": self.step,
            "observation": self.observation,
            "mask": self.mask,
            "action": self.action,
            "reward": self.reward,
            "view": self.view,
        }


def _with_rewards(rows: list[Decision], rewards: Sequence[float]) -> list[Decision]:
    return [
        Decision(
            r.match,
            r.deal,
            r.seat,
            r.player,
            r.step,
            r.observation,
            r.mask,
            r.action,
            rewards[r.seat],
            r.view,
        )
        for r in rows
    ]


def fixture_rows(t: Tournament, fixture: Fixture) -> list[Decision]:
    """Play one tournament fixture in process (as kozyr.tournament.local does) and return its
    decisions."""
    names = t.names
    lineup = [names[p] for p in fixture.lineup]
    table = Table(t.game, len(lineup), dict(t.options), deal_seed(t.master, fixture.deal), lineup)
    game, code = table.game, table.code
    bots = [
        make_bot(parse_spec(t.players[p]), game, s, bot_seed(t.master, fixture.index, s))
        for s, p in enumerate(fixture.lineup)
    ]
    rows: list[Decision] = []
    match = f"t{t.seed}-m{fixture.index}"
    while (seat := table.to_act) is not None:
        obs = table.seat_obs(seat)
        command = bots[seat].choose(obs)
        rows.append(
            Decision(
                match,
                fixture.deal,
                seat,
                t.players[fixture.lineup[seat]],
                len(rows),
                code.observe(obs.view),
                code.mask(obs.legal),
                code.action_of(command),
                0.0,
                dumps(encode(obs.view)),
            )
        )
        table.play(seat, command)
    return _with_rewards(rows, table.rewards())


def tournament_rows(t: Tournament) -> Iterator[list[Decision]]:
    """Each fixture's decisions, a match at a time."""
    for fixture in t.fixtures():
        yield fixture_rows(t, fixture)


# A served match's deal is the server's (its seed and the seats' contributions), not one of a
# tournament's numbered deals: its rows say so with a deal no tournament has.
SERVED_DEAL = -1


def log_rows(game_name: str, match_id: str, canonical: Iterable[str]) -> list[Decision]:
    """A finished match's decisions from its log entries (canonical JSON, in order).

    The entries are folded into the match record as the server folds them
    (kozyr.match.record): each entry of a seat's game command is a decision, and its row holds
    the seat's view of the state before it. The rewards come from the record's outcome, the
    one the server and `kozyr verify` give: an early ending's (a resignation, a forfeit on
    time, an abandonment claim, an abort, an expiry; R-7) when the log ends with one, else the
    rules'.
    """
    game = get_game(game_name)
    code = Table.encoding_of(game_name)
    reg = registry_for(game)
    entries = [entry_of(loads(text)) for text in canonical]
    # A finished log reveals the server seed: it restores a withheld match seed, as
    # fold_entries does.
    server_seed = revealed_in(entries)
    record: MatchRecord | None = None
    rows: list[Decision] = []
    for entry in entries:
        command = reg.decode(entry.command) if entry.command else None
        if (
            record is not None
            and record.state is not None
            and entry.seat >= 0
            and isinstance(command, game.COMMAND_TYPES)
        ):
            rows.append(_logged_decision(record, code, match_id, len(rows), entry.seat, command))
        record = apply_entry(record, entry, server_seed=server_seed)
    if record is None:
        return rows
    return _with_rewards(rows, rewards_of(record.outcome, record.players))


def _logged_decision(
    record: MatchRecord, code: Encoding, match_id: str, step: int, seat: int, command: Any
) -> Decision:
    game, state = record.game, record.state
    view = game.view(state, seat)
    return Decision(
        match_id,
        SERVED_DEAL,
        seat,
        record.names[seat] if seat < record.players else "",
        step,
        code.observe(view),
        code.mask(game.legal_commands(state, seat)),
        code.action_of(command),
        0.0,
        dumps(encode(view)),
    )


def write_rows(
    matches: Iterable[list[Decision]],
    path: Path,
    fmt: str,
    on_match: Callable[[int], None] = lambda done: None,
    batch: int = 4096,
) -> int:
    """Write rows a batch at a time as Parquet or JSON Lines; the number of rows written.

    The file appears only once complete (written beside it, then renamed): a failed export
    leaves nothing that looks like one."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    partial = path.with_name(path.name + ".partial")
    try:
        if fmt == "jsonl":
            count = _write_jsonl(matches, partial, on_match)
        else:
            count = _write_parquet(matches, partial, on_match, batch)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)
    return count


def _write_jsonl(
    matches: Iterable[list[Decision]], path: Path, on_match: Callable[[int], None]
) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for done, rows in enumerate(matches, 1):
            for row in rows:
                out.write(dumps(row.as_dict()) + "\n")
            count += len(rows)
            on_match(done)
    return count


def parquet_schema() -> Any:
    """The Parquet schema of a row."""
    import pyarrow as pa

    return pa.schema(
        [
            ("match", pa.string()),
            ("deal", pa.int64()),
            ("seat", pa.int32()),
            ("player", pa.string()),
            ("step", pa.int32()),
            ("observation", pa.list_(pa.float32())),
            ("mask", pa.list_(pa.int8())),
            ("action", pa.int32()),
            ("reward", pa.float32()),
            ("view", pa.string()),
        ]
    )


def _write_parquet(
    matches: Iterable[list[Decision]], path: Path, on_match: Callable[[int], None], batch: int
) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_schema()
    count = 0
    pending: list[dict[str, Any]] = []
    with pq.ParquetWriter(str(path), schema) as writer:
        for done, rows in enumerate(matches, 1):
            pending.extend(r.as_dict() for r in rows)
            if len(pending) >= batch:
                writer.write_table(pa.Table.from_pylist(pending, schema=schema))
                count += len(pending)
                pending = []
            on_match(done)
        if pending or not count:
            writer.write_table(pa.Table.from_pylist(pending, schema=schema))
            count += len(pending)
    return count


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Every row of an export (Parquet or JSONL by the file name), for tests and training."""
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as f:
            return [loads(line) for line in f if line.strip()]
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(str(path)).to_pylist()
    return rows
