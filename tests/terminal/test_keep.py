"""`kozyr play --contribution` and where it keeps matches (kozyr.terminal.keep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kozyr.terminal.keep import default_folder, parse_contribution


def test_a_contribution_is_text_or_0x_hex_of_at_most_64_bytes() -> None:
    assert parse_contribution("my luck") == b"my luck"
    assert parse_contribution("0x0102ff") == b"\x01\x02\xff"
    assert parse_contribution("") == b""
    with pytest.raises(ValueError, match="not hex"):
        parse_contribution("0xzz")
    with pytest.raises(ValueError, match="at most 64"):
        parse_contribution("x" * 65)


def test_matches_are_kept_under_xdg_data_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_folder() == tmp_path / "kozyr" / "matches"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_folder() == Path.home() / ".local" / "share" / "kozyr" / "matches"
