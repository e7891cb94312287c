"""The committed page is what web/ builds: with web/'s pinned toolchain (installed by make,
never here: `npm ci` deletes node_modules under the tests reading it beside this one), the
stubs generated from protos/ by the pinned protoc-gen-es, a strict type check, and the bundle
into a scratch folder, compared byte for byte with service/kozyr/web/static."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import repo_root

WEB = repo_root() / "web"
STATIC = repo_root() / "service" / "kozyr" / "web" / "static"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("npm") is None, reason="npm is not installed: the page is not rebuilt"
    ),
]


def _run(args: list[str], env: dict[str, str] | None = None) -> None:
    result = subprocess.run(
        args,
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    if result.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def test_the_committed_page_is_what_web_builds(tmp_path: Path) -> None:
    installed = WEB / "node_modules" / ".kozyr-installed"
    if not installed.exists() or installed.stat().st_mtime < _lock_time():
        pytest.fail("web/'s toolchain is missing or older than its lock: run `make lint`")
    _run(["npm", "run", "generate"])
    _run(["npm", "run", "check"])
    _run(["npm", "run", "bundle"], env={**os.environ, "KOZYR_WEB_OUT": str(tmp_path)})
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in STATIC.iterdir())
    stale = [
        name for name in built if (tmp_path / name).read_bytes() != (STATIC / name).read_bytes()
    ]
    assert not stale, f"rebuild the page (make web) and commit: {stale} differ"


def _lock_time() -> float:
    return max((WEB / name).stat().st_mtime for name in ("package.json", "package-lock.json"))
