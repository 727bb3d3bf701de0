"""fce's optional parts: the distribution's name on the package index, its extras, and the one error a missing
extra raises.

The import package and the command are ``fce``; the distribution is :data:`DISTRIBUTION` (the name ``fce`` on the
package index belongs to an unrelated project). Every install hint fce prints comes from :func:`install_hint`, so
that it names this distribution and the extra that brings the missing module.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from fce.errors import MissingExtraError

__all__ = ["DISTRIBUTION", "EXTRAS", "install_hint", "require"]

#: The distribution's name on the package index (``pip install fastcontentextractor``).
DISTRIBUTION = "fastcontentextractor"

#: The optional extras of ``pyproject.toml`` and what each brings.
EXTRAS = {
    "ingest": "fce ingest: Dask, FastWARC and warcio",
    "serve": "fce serve: FastAPI and uvicorn",
    "peers": "fce eval --peer: trafilatura, readability-lxml, Resiliparse, jusText, boilerpy3",
    "plots": "fce eval --plots: matplotlib",
}


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'fastcontentextractor[serve]'``."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import ``module``, which ``what`` (``"fce serve"``, ``"--plots"``) needs and the extra ``extra`` installs;
    :class:`~fce.errors.MissingExtraError` naming the command that installs it when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # the module that failed may be a dependency of ``module`` (pydantic_core under fastapi): both are named
        missing = exc.name or module
        named = missing if missing.split(".")[0] == module.split(".")[0] else f"{module} ({missing})"
        raise MissingExtraError(f"{what} needs {named}, which is not installed: {install_hint(extra)}",
                                extra=extra) from None
