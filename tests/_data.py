"""Where the shared evaluation data is, for the tests that read real pages (the quality gate, golden files of
real pages, the metadata floors): ``FCE_DATA``, else ``../shared/data`` beside the project, else
``/work/shared/data``. The project never copies it; tests that need it skip where it is absent."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA"]


def _data_root() -> Path | None:
    here = Path(__file__).resolve().parents[1]
    for candidate in (os.environ.get("FCE_DATA"), here.parent / "shared" / "data", "/work/shared/data"):
        if candidate and (Path(candidate) / "msv-big9").is_dir():
            return Path(candidate)
    return None


#: The data root, or None where it is not on this machine.
DATA = _data_root()
