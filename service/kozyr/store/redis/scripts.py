"""The store's Lua scripts: each in a `<name>.lua` file beside this module (package data, so a
wheel ships them), read once at import."""

from __future__ import annotations

from importlib.resources import files


def lua_script(name: str) -> str:
    """The text of the script `<name>.lua` of this package."""
    return files(__package__).joinpath(f"{name}.lua").read_text(encoding="utf-8")
