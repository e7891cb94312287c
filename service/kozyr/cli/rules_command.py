"""`kozyr rules [GAME [RULE-ID]]`: the rules as Kozyr plays them, as plain text in a terminal.

The text is docs/rules.md, shipped inside the package as ``kozyr/docs/rules.md`` (package data,
so an installed wheel has it; tests/test_docs.py keeps the copy identical to docs/rules.md). Its
sections are marked ``<!-- game: NAME -->`` under their ``##`` heading and every rule is a
``### ID — title`` heading, so the page can be looked up by game and by rule ID without a
Markdown library. Output is wrapped to 79 columns.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from importlib import resources

WIDTH = 79  # as kozyr.terminal.screen: one column spare for terminals that wrap on the last one
COMMON = "common"
RULE_ID = re.compile(r"\b(?:R|DIX|SIX|DUR)-\d+\b")
_RULE_HEADING = re.compile(r"^### ((?:R|DIX|SIX|DUR)-\d+)\b")
_GAME_MARK = re.compile(r"^<!-- game: ([a-z-]+) -->$")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_ITEM = re.compile(r"^(- |\d+\. )")
_EMPHASIS = re.compile(r"\*([^*\s][^*]*)\*")


class RulesError(Exception):
    """A game or rule the page does not have; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class Section:
    """One `##` section of the page: a game (or the common rules) with its rules by ID."""

    key: str
    title: str
    lines: tuple[str, ...]
    rules: dict[str, tuple[str, ...]]


def text() -> str:
    """The Markdown of the rules page, as shipped in the package."""
    return resources.files("kozyr").joinpath("docs/rules.md").read_text("utf-8")


def sections(markdown: str | None = None) -> dict[str, Section]:
    """The marked sections of the page by key (``common``, ``dix``, ``six-dozens`` …)."""
    found: dict[str, Section] = {}
    for chunk in re.split(r"^(?=## )", markdown if markdown is not None else text(), flags=re.M):
        lines = chunk.rstrip("\n").split("\n")
        mark = _GAME_MARK.match(lines[1].strip()) if len(lines) > 1 else None
        if not lines[0].startswith("## ") or mark is None:
            continue
        rules: dict[str, list[str]] = {}
        current: list[str] | None = None
        for line in lines[2:]:
            if line.startswith("### "):
                heading = _RULE_HEADING.match(line)
                current = rules.setdefault(heading.group(1), []) if heading else None
            if current is not None:
                current.append(line)
        found[mark.group(1)] = Section(
            mark.group(1),
            lines[0][3:].strip(),
            tuple(lines),
            {k: tuple(v) for k, v in rules.items()},
        )
    return found


def rule_ids(markdown: str | None = None) -> list[str]:
    """Every rule ID that has an entry (a `###` heading) on the page, in page order."""
    return [rid for s in sections(markdown).values() for rid in s.rules]


# ---------------------------------------------------------------------------- plain text


def _inline(line: str) -> str:
    """Markdown emphasis, code spans and links as plain text."""
    return _EMPHASIS.sub(r"\1", _LINK.sub(r"\1", line).replace("**", "").replace("`", ""))


def _table(rows: list[str]) -> list[str]:
    """A table as one wrapped item per row (an option table reads name: values, default)."""
    cells = [[_inline(c.strip()) for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [c for c in cells[2:] if len(c) == len(cells[0])]
    out: list[str] = []
    for row in body:
        if [h.lower() for h in head] == ["option", "values", "default", "meaning"]:
            item = f"{row[0]}: {row[1]} (default {row[2]}). {row[3]}"
        else:
            item = " · ".join(row)
        out += textwrap.wrap(item, WIDTH, initial_indent="- ", subsequent_indent="    ")
    return out


def plain(lines: tuple[str, ...] | list[str]) -> list[str]:
    """Markdown lines (headings, paragraphs, lists, tables) as text lines of at most 79 columns."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        first = block[0]
        if first.startswith("|"):
            out.extend(_table(block))
        else:
            words = " ".join(_inline(b.strip()) for b in block)
            bullet = _ITEM.match(first)
            hang = " " * (len(bullet.group(1)) if bullet else 0)
            out.extend(textwrap.wrap(words, WIDTH, subsequent_indent=hang, break_on_hyphens=False))
        block.clear()

    for line in lines:
        stripped = line.strip()
        if stripped.startswith("<!--"):
            continue
        if (
            not stripped
            or line.startswith("#")
            or (_ITEM.match(line) and block)
            or (block and block[0].startswith("|") != stripped.startswith("|"))
        ):
            flush()
        if line.startswith("#"):
            title = _inline(line.lstrip("#").strip())
            level = len(line) - len(line.lstrip("#"))
            out += ([""] if out and out[-1] else []) + [title]
            out += ["=" * len(title)] if level <= 2 else []
        elif not stripped:
            if out and out[-1]:
                out.append("")
        else:
            block.append(line)
    flush()
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


# ---------------------------------------------------------------------------- lookups


def listing(found: dict[str, Section]) -> list[str]:
    """The games the page describes, one line each, and how to read them."""
    lines = ["The rules as Kozyr plays them (docs/rules.md). Read one game or one rule:", ""]
    for key, s in found.items():
        ids = list(s.rules)
        span = f"{ids[0]} … {ids[-1]}" if ids else ""
        lines.append(f"  {key:<12} {s.title:<30} {span}")
    lines += [
        "",
        "  kozyr rules dix           the rules of Dix (and the common ones)",
        "  kozyr rules dix DIX-5     one rule",
    ]
    return lines


def game_text(found: dict[str, Section], game: str) -> list[str]:
    """A game's section followed by the common rules every game shares."""
    if game not in found:
        raise RulesError(f"unknown game {game!r} (known: {', '.join(found)})")
    lines = plain(found[game].lines)
    if game != COMMON and COMMON in found:
        lines += ["", *plain(found[COMMON].lines)]
    return lines


def rule_text(found: dict[str, Section], game: str, rule: str) -> list[str]:
    """One rule: of `game`, or one of the common R- rules, which belong to every game."""
    if game not in found:
        raise RulesError(f"unknown game {game!r} (known: {', '.join(found)})")
    wanted = rule.strip().upper().replace("_", "-")
    for key in (game, COMMON):
        if key in found and wanted in found[key].rules:
            return plain(found[key].rules[wanted])
    owner = next((k for k, s in found.items() if wanted in s.rules), None)
    if owner is not None:
        raise RulesError(f"{wanted} is a rule of {owner}, not {game}: kozyr rules {owner} {wanted}")
    ids = list(found[game].rules)
    span = f" ({ids[0]} … {ids[-1]}, R-1 … R-6)" if ids and game != COMMON else ""
    raise RulesError(f"{game} has no rule {rule.strip()!r}{span}")


def _run(args: argparse.Namespace) -> int:
    found = sections()
    try:
        if args.game is None:
            lines = listing(found)
        elif args.rule is None:
            lines = game_text(found, args.game)
        else:
            lines = rule_text(found, args.game, args.rule)
    except RulesError as e:
        print(f"kozyr rules: {e}", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `kozyr rules`."""
    p = sub.add_parser(
        "rules",
        help="print the rules of a game, or one rule",
        description="Print the rules as Kozyr plays them (docs/rules.md): with no GAME the "
        "list of games, with GAME its rules, with RULE-ID (e.g. DIX-5) one rule.",
    )
    p.add_argument("game", nargs="?", default=None, help="dix, six-dozens, durak-dice or common")
    p.add_argument(
        "rule",
        nargs="?",
        default=None,
        metavar="RULE-ID",
        help="a rule ID such as DIX-5, SIX-10 or R-4",
    )
    p.set_defaults(func=_run)
