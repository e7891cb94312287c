"""The server and the `kozyr` command import none of the learning packages: they load only
when an environment, an export, a policy or the MCP seat is used."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "pyspiel", "pettingzoo", "gymnasium", "pyarrow", "mcp")


def test_the_server_and_the_command_line_import_no_learning_package() -> None:
    code = (
        "import sys\n"
        "import kozyr.server.bootstrap, kozyr.bots\n"
        "from kozyr.cli import build_parser\n"
        "build_parser()\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
