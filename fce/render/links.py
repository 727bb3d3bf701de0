# cython: annotation_typing=False
"""Links in structured output: written or not, their hrefs resolved against the page's URL."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then (fce._cython_shim)
    from fce import _cython_shim as cython

__all__ = ["LINK_SCHEMES", "Links"]


@cython.cclass
class Links:
    """Whether links are written, and their hrefs resolved against the page's URL; hrefs of other schemes than
    :data:`LINK_SCHEMES` (``javascript:``) are not links."""

    # (compiled, an extension type: its fields are read from C, without a lookup in the type; a link-dense page's
    # output reads them for every link)
    on: bool = cython.declare(cython.bint, visibility="readonly")
    url: str | None = cython.declare(object, visibility="readonly")
    known: dict[str, str | None] = cython.declare(dict)
    origin: str | None = cython.declare(object, visibility="readonly")
    split: bool = cython.declare(cython.bint, visibility="readonly")
    prefixes: list[object] = cython.declare(list)

    def __init__(self, on: bool, url: str | None) -> None:
        self.on = on
        self.url = url or None
        self.known: dict[str, str | None] = {}  # (a page links to the same few places many times)
        self.origin: str | None = None  # scheme://host of the page's URL, for root-relative hrefs
        self.split = False  # whether the URL was split for its origin (at the first relative href: most outputs
        # have none, or write no links)
        # per kind of :data:`_APPENDED`, what urljoin appends an href of the kind to (None: none; found at the kind's
        # first href)
        self.prefixes: list[object] = [_UNKNOWN] * len(_APPENDED)

    @cython.ccall
    def href(self, href: str | None) -> str | None:
        """The href to write for a link's ``href``, or None: links are not written, or not this one."""
        if not self.on or not href:
            return None
        known = self.known.get(href, _UNKNOWN)
        if known is _UNKNOWN:
            known = self.known[href] = self._resolved(href.strip())
        return known  # type: ignore[return-value]

    @cython.ccall
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
        kind = _FRAGMENT if href[0] == "#" else _QUERY if href[0] == "?" else _PATH
        pattern, sample = _APPENDED[kind]
        if "//" not in href and "/." not in href and pattern.fullmatch(href) is not None:
            prefix = self.prefixes[kind]
            if prefix is _UNKNOWN:
                prefix = self.prefixes[kind] = self._prefix(sample)
            if prefix is not None:
                return prefix + href  # type: ignore[operator]  # (urljoin's result, as well)
        try:
            return urljoin(self.url, href)
        except ValueError:  # a malformed href (an unclosed IPv6 bracket)
            return None

    def _prefix(self, sample: str) -> str | None:
        """What urljoin appends an href of the kind of ``sample`` (:data:`_APPENDED`) to: what it makes of
        ``sample`` but ``sample``, or None."""
        if self.url is None:
            return None
        try:
            joined = urljoin(self.url, sample)
        except ValueError:
            return None
        return joined[:-len(sample)] if joined.endswith(sample) else None

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
#: The relative hrefs that urljoin resolves by appending them as they are to a prefix that depends on the page's URL
#: alone, by kind: a path in the page's directory or below (no scheme, parameters, empty query or fragment), a query
#: (the prefix: the URL without its query and fragment), a fragment (without its fragment); none with ``//`` or a
#: segment that starts with ``.`` (tested apart), nor a character that urljoin's split of an URL removes. Each with
#: a sample href of the kind, which :meth:`Links._prefix` resolves to find the prefix.
_APPENDED = ((re.compile(r"[^/.;?#:\x00-\x20][^;?#:\t\r\n]*(?:\?[^#\t\r\n]+)?(?:#[^\t\r\n]+)?"), "x"),
             (re.compile(r"\?[^#\t\r\n]+(?:#[^\t\r\n]+)?"), "?x"),
             (re.compile(r"#[^\t\r\n]+"), "#x"))
_PATH, _QUERY, _FRAGMENT = range(len(_APPENDED))
#: The schemes of hrefs that are written as links (relative ones are, resolved against the page's URL when given).
LINK_SCHEMES = frozenset({"http", "https", "mailto", "ftp", "tel"})

#: What :meth:`Links.href` keeps for an href not resolved yet.
_UNKNOWN = object()
