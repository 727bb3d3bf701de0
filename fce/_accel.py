"""The switch that turns fce's compiled parts off (the segmentation walk, the byte scans of the parse, ``mainblock``):
every place that loads one asks :func:`switched_off` instead of reading the environment itself."""

from __future__ import annotations

import os

#: Set this environment variable (to anything but empty or ``0``) to run the Python code even where the compiled
#: parts are installed (to compare them, or to rule them out when hunting a bug).
NO_ACCEL_ENV = "FCE_NO_ACCEL"


def switched_off() -> bool:
    """Whether :data:`NO_ACCEL_ENV` asks for the Python code."""
    return os.environ.get(NO_ACCEL_ENV, "") not in ("", "0")
