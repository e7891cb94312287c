"""The contract passes buf lint (STANDARD) and breaks nothing against the last released
contract (buf breaking, FILE), as `make lint` checks; skipped where web/'s pinned buf is not
installed (`make lint` installs it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import repo_root

ROOT = repo_root()
BUF = ROOT / "web" / "node_modules" / ".bin" / "buf"
RELEASED = "protos/released/kozyr-v1.binpb"

pytestmark = pytest.mark.skipif(
    not BUF.exists(), reason="buf is not installed (`make lint` installs it)"
)


def _buf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_buf_lint_passes() -> None:
    result = _buf("lint", "protos")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_breaks_nothing_released() -> None:
    result = _buf("breaking", "protos", "--against", RELEASED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_breaking_sees_a_renumbered_field(tmp_path: Path) -> None:
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    proto = protos / "kozyr" / "v1" / "kozyr.proto"
    proto.write_text(proto.read_text().replace("string cursor = 1;", "string cursor = 99;"))
    result = _buf("breaking", str(protos), "--against", RELEASED)
    assert result.returncode != 0 and "cursor" in result.stdout
