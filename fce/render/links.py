# cython: annotation_typing=False
"""Links in structured output: written or not, their hrefs resolved against the page's URL."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

__all__ = ["LINK_SCHEMES", "Links"]


class Links:
    """Whether links are written, and their hrefs resolved against the page's URL; hrefs of other schemes than
    :data:`LINK_SCHEMES` (``javascript:``) are not links."""

    __slots__ = ("known", "on", "origin", "split", "url")

    def __init__(self, on: bool, url: str | None) -> None:
        self.on = on
        self.url = url or None
        self.known: dict[str, str | None] = {}  # (a page links to the same few places many times)
        self.origin: str | None = None  # scheme://host of the page's URL, for root-relative hrefs
        self.split = False  # whether the URL was split for its origin (at the first relative href: most outputs
        # have none, or write no links)

    def href(self, href: str | None) -> str | None:
        """The href to write for a link's ``href``, or None: links are not written, or not this one."""
        if not self.on or not href:
            return None
        known = self.known.get(href, _UNKNOWN)
        if known is _UNKNOWN:
            known = self.known[href] = self._resolved(href.strip())
        return known  # type: ignore[return-value]

    def _resolved(self, href: str) -> str | None:
        if not href:
            return None
        scheme = _SCHEME.match(href)
        if scheme is not None:  # absolute: as it is (where its scheme is one of a link)
            return href if scheme[1].lower() in LINK_SCHEMES else None
        if not self.split:
            self._split()
        if self.url is None:
            return href
        if self.origin is not None and href[0] == "/" and href[1:2] != "/" and "/." not in href:
            return self.origin + href  # (root-relative, most relative hrefs: urljoin's result, without its cost)
        try:
            return urljoin(self.url, href)
        except ValueError:  # a malformed href (an unclosed IPv6 bracket)
            return None

    def _split(self) -> None:
        """Find :attr:`origin`; a URL that does not parse is none (hrefs stay as they are)."""
        self.split = True
        if self.url:
            try:
                parts = urlsplit(self.url)
            except ValueError:
                self.url = None
            else:
                if parts.scheme and parts.netloc:
                    self.origin = f"{parts.scheme}://{parts.netloc}"


#: An absolute URL's scheme (RFC 3986: a letter, then letters, digits, ``+``, ``-``, ``.``).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
#: The schemes of hrefs that are written as links (relative ones are, resolved against the page's URL when given).
LINK_SCHEMES = frozenset({"http", "https", "mailto", "ftp", "tel"})

#: What :meth:`Links.href` keeps for an href not resolved yet.
_UNKNOWN = object()
