"""Every flag of `kozyr serve` says what it sets (cli/serve_flags.py)."""

from __future__ import annotations

import argparse
import re

from kozyr.cli.serve_flags import add_serve_flags
from kozyr.config.settings import ServerConfig


def test_every_serve_flag_has_a_help_that_says_more_than_its_default() -> None:
    parser = argparse.ArgumentParser()
    add_serve_flags(parser)
    flags = {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}
    assert set(ServerConfig.__slots__) <= set(flags)  # one flag per limit
    for dest, action in flags.items():
        if action.help == argparse.SUPPRESS:
            continue  # --worker-index: set by the supervisor, not by people
        meaning = re.sub(r"\s*\(default [^)]*\)$", "", action.help or "")
        assert len(meaning.split()) >= 3, f"--{dest}: {action.help!r}"


def test_a_limit_flags_help_names_its_default() -> None:
    parser = argparse.ArgumentParser()
    add_serve_flags(parser)
    text = " ".join(parser.format_help().split())  # however the terminal wraps it
    assert "--rate-per-token FLOAT requests a second one seat token may make" in text
    assert "sustained (default 500.0)" in text
