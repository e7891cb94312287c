"""Lua scripts for Redis: each in a `<name>.lua` file beside the module that runs it (package
data, so a wheel ships them), read once at import."""

from __future__ import annotations

from importlib.resources import files


def lua_script(name: str, package: str | None = __package__) -> str:
    """The text of the script `<name>.lua` of `package` (default: the store's)."""
    assert package is not None
    return files(package).joinpath(f"{name}.lua").read_text(encoding="utf-8")
