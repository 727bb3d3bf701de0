"""Option parsers shared by the CLI commands (``fce/cli.py`` and the commands it registers from other modules)."""

from __future__ import annotations

import re

import typer

__all__ = ["parse_size"]

_SIZE = re.compile(r"\s*(\d+)\s*([KMG]?)i?B?\s*", re.IGNORECASE)


def parse_size(value: str | int) -> int:
    """``65536``, ``64K``, ``16M``, ``1G`` (binary units) → bytes, for ``--max-bytes``."""
    if isinstance(value, int):  # the default
        return value
    match = _SIZE.fullmatch(value)
    if not match or int(match.group(1)) == 0:
        raise typer.BadParameter(f"{value!r} is not a positive size (such as 65536, 512K, 16M)")
    return int(match.group(1)) * 1024 ** " KMG".index((match.group(2) or " ").upper())
