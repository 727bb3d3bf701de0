"""The registry of single-page extraction methods (``fce detect --method NAME``, ``fce methods``).

A method is a function ``(page: Page) -> Sequence[ExtractedBlock]`` registered with :func:`register`, in one module
per method in this package (modules are discovered automatically). Methods take the parsed page — never bytes —
and may use the shared block tree (:func:`fce.blocks.blocks_of`), so a page is parsed and segmented once.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fce.errors import UnknownMethodError
from fce.extraction import ExtractedBlock, Extraction
from fce.parse import Page

__all__ = ["MethodInfo", "available_methods", "get_method", "register", "run_method"]

MethodFunc = Callable[[Page], Sequence[ExtractedBlock]]


@dataclass(frozen=True)
class MethodInfo:
    """A registered method: its name, the function, the paper it comes from and its published parameters."""

    name: str
    func: MethodFunc
    paper: str
    params: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    #: The path style of the block tree the method reads (:func:`fce.blocks.blocks_of`) when that tree is all it
    #: reads of the page; None when it reads the lxml tree. A caller that knows the method parses pages with
    #: ``parse_page(blocks=…)``, which makes that tree while parsing and builds no lxml tree.
    blocks: str | None = None

    def __call__(self, page: Page) -> Extraction:
        found = self.func(page)
        info = getattr(found, "info", None)  # what a method learned of the page beyond its blocks (mainblock's kind)
        return Extraction.from_blocks(tuple(found), method=self.name, info=dict(info) if info else {})


_REGISTRY: dict[str, MethodInfo] = {}
_loaded = False

def register(
    name: str, *, paper: str, params: Mapping[str, Any] | None = None, description: str = "",
    blocks: str | None = None,
) -> Callable[[MethodFunc], MethodFunc]:
    """Decorator: register ``func`` as method ``name``. Registering a name twice is an error. ``blocks``: see
    :attr:`MethodInfo.blocks`."""

    def decorate(func: MethodFunc) -> MethodFunc:
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"method {name!r} is already registered")
        doc = (func.__doc__ or "").strip().splitlines()
        _REGISTRY[name] = MethodInfo(name, func, paper, dict(params or {}), description or (doc[0] if doc else ""),
                                     blocks)
        return func

    return decorate


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
        importlib.import_module(f"{__name__}.{module}")
    _loaded = True


def available_methods() -> list[MethodInfo]:
    """Every registered method, sorted by name."""
    _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_method(name: str) -> MethodInfo:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownMethodError(f"unknown method {name!r}; known: {known}") from None


def run_method(name: str, page: Page) -> Extraction:
    """Run one registered method on a parsed page."""
    return get_method(name)(page)
