"""The switch that turns fce's compiled parts off (the segmentation walk, the byte scans of the parse, the modules
written in Cython's pure Python mode): every place that loads one asks :func:`switched_off` (or loads it with
:func:`compiled`) instead of reading the environment itself.

The modules of :data:`PURE_PYTHON_MODULES` are plain Python that ``setup.py`` also compiles with Cython where the
install has a C compiler; Python then imports the compiled module (same code, same results; tests compare the two).
With the switch on, :class:`_SourceFirst` makes Python import their ``.py`` source instead."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

#: Set this environment variable (to anything but empty or ``0``) to run the Python code even where the compiled
#: parts are installed (to compare them, or to rule them out when hunting a bug).
NO_ACCEL_ENV = "FCE_NO_ACCEL"

#: The modules written in Cython's pure Python mode (``setup.py`` reads this tuple from the source). Compiled,
#: ``mainblock`` scores pages about twice as fast; the metadata and the structured output run 15–25% faster; the
#: loops over a tree's columns (``fce.kernels``) run at C speed.
PURE_PYTHON_MODULES = ("fce.kernels", "fce.fingerprint", "fce.methods.mainblock", "fce.metadata",
                       "fce.render.document", "fce.render.markdown", "fce.render.html", "fce.render.links")


def switched_off() -> bool:
    """Whether :data:`NO_ACCEL_ENV` asks for the Python code."""
    return os.environ.get(NO_ACCEL_ENV, "") not in ("", "0")


def compiled(name: str) -> ModuleType | None:
    """The extension module ``fce.<name>`` (``fce/<name>.pyx``), or None where it was not built (no C compiler at
    install time) or :data:`NO_ACCEL_ENV` switches it off: its caller then runs its Python version."""
    if switched_off():
        return None
    try:
        return importlib.import_module(f"fce.{name}")
    except ImportError:
        return None


def runs_compiled(name: str) -> bool:
    """Whether the module ``name`` of :data:`PURE_PYTHON_MODULES` runs compiled (imported from its extension)."""
    return not (getattr(importlib.import_module(name), "__file__", None) or ".py").endswith(".py")


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of the :data:`PURE_PYTHON_MODULES` where a compiled module stands beside it."""

    names = frozenset(PURE_PYTHON_MODULES)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names or not path:
            return None
        source = os.path.join(next(iter(path)), fullname.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(fullname, source) if os.path.isfile(source) else None


if switched_off() and not any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
    sys.meta_path.insert(0, _SourceFirst())
