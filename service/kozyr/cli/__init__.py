"""The `kozyr` command: one module per subcommand (`<name>_command.py`), each with
`register(subparsers)`; `commands.py` builds the parser and runs `main`."""

from kozyr.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
