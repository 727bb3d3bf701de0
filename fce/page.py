"""The parsed page, the value every stage reads (made by :func:`fce.parse.parse_page`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["HEAD_TAGS", "Page"]

#: What the HTML standard lets stay in ``<head>`` ("in head" insertion mode); any other element ends the head.
HEAD_TAGS = frozenset({"title", "meta", "link", "style", "script", "base", "noscript", "template", "basefont",
                       "bgsound", "object"})


@dataclass(frozen=True, eq=False, slots=True)
class Page:
    """A parsed page: the lxml tree plus what was learned while decoding it. Never mutated by fce."""

    root: Any  # the lxml element of <html>
    url: str | None = None
    encoding: str = "utf-8"
    source: str | None = None  # what the user named: a path, a URL, "-"
    size: int = 0  # bytes of the raw page
    meta: dict[str, Any] = field(default_factory=dict)
    #: Derived views of the page computed once and shared by every stage (e.g. the block tree). Not part of the
    #: page's identity; see :func:`fce.blocks.blocks_of`.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)
    #: What was parsed: the decoded text, or its UTF-8 encoding (:attr:`html`); None for a page made from a tree.
    markup: str | bytes | None = field(default=None, repr=False)

    @property
    def html(self) -> str | None:
        """The page's HTML as it was parsed (decoded), for what reads the markup itself rather than the tree
        (:mod:`fce.metadata`); None for a page made from a tree."""
        markup = self.markup
        return markup.decode("utf-8", errors="replace") if isinstance(markup, bytes) else markup

    @property
    def body(self) -> Any:
        """The ``<body>`` element (lxml always creates one for HTML input)."""
        body = self.root.find("body")
        return body if body is not None else self.root
