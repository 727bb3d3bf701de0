"""Bytes → text → lxml tree, in one place.

:func:`parse_page` is the only function in fce that decodes and parses; everything downstream takes the
:class:`Page` it returns (parse once, pass the tree).

Encoding is chosen in this order (issue #2): the caller's declared charset (an HTTP ``Content-Type``), a byte-order
mark, ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in the first :data:`META_SCAN_BYTES` bytes, then the
detector charset-normalizer, then UTF-8. Decoding never fails: undecodable bytes become U+FFFD.

Before parsing, the bytes are checked: empty input, a binary signature (PNG, PDF, gzip, …), NUL-heavy data, or text
with no markup at all are refused with an :class:`~fce.errors.InputError` subclass naming the input.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from fce.errors import EmptyPageError, NotHTMLError, PageTooLargeError

__all__ = ["MAX_PAGE_BYTES", "Page", "decode_html", "parse_page"]

#: Pages larger than this are refused (``PageTooLargeError``). 64 MiB holds every real page we have seen; the
#: largest pages of the evaluation sets are under 2 MiB. Overridable per call (``max_bytes``) and on the CLI.
MAX_PAGE_BYTES = 64 * 1024 * 1024

#: How far into the document a ``<meta charset>`` declaration is looked for. The HTML standard's prescan reads
#: 1024 bytes; real pages put long ``<script>`` blocks first, so we read further.
META_SCAN_BYTES = 8192

#: How many bytes the charset detector sees. Detection cost grows with input; 64 KiB decides every page we tried.
DETECT_BYTES = 64 * 1024

#: Share of NUL bytes (in the first :data:`SNIFF_BYTES`) above which the data is binary (or UTF-16 without BOM).
BINARY_NUL_SHARE = 0.10
#: Share of control characters other than tab/newline/CR/FF/ESC above which decoded text is binary.
BINARY_CONTROL_SHARE = 0.05
SNIFF_BYTES = 4096

_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"\x1f\x8b", "gzip data"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"(\xb5/\xfd", "zstd data"),
    (b"7z\xbc\xaf'\x1c", "7z archive"),
    (b"RIFF", "RIFF media"),
    (b"\x00\x00\x01\x00", "icon"),
    (b"wOFF", "web font"),
    (b"wOF2", "web font"),
    (b"\x7fELF", "executable"),
    (b"MZ", "executable"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"WARC/", "WARC file (use `fce ingest`)"),
)

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)""",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"<\s*(?:[A-Za-z!?/])")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*>", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")

#: libxml2's HTML parser with plain ``etree`` elements: ``lxml.html``'s element classes are looked up by a Python
#: callback for every element proxy, which cost a third of segmentation time. fce needs none of their methods.
_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, default_doctype=False)


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

    @property
    def body(self) -> Any:
        """The ``<body>`` element (lxml always creates one for HTML input)."""
        body = self.root.find("body")
        return body if body is not None else self.root


def _codec(name: str | None) -> str | None:
    """The Python codec for a charset label, or None if unknown. ``iso-8859-1`` means windows-1252 on the web."""
    if not name:
        return None
    label = name.strip().strip("\"'").lower()
    if label in {"iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii", "iso8859-1", "l1"}:
        label = "windows-1252"  # WHATWG Encoding Standard: these labels decode as windows-1252
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _sniff_binary(data: bytes, source: str | None) -> None:
    head = data[:SNIFF_BYTES]
    for signature, kind in _BINARY_SIGNATURES:
        if head.startswith(signature):
            raise NotHTMLError(f"not HTML: looks like {kind}", source=source)


def decode_html(data: bytes, declared: str | None = None, *, source: str | None = None) -> tuple[str, str]:
    """Decode page bytes to text; return ``(text, encoding)``. Never raises on undecodable bytes."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            # A BOM beats everything but is checked after the caller's label only when they agree on the family;
            # browsers let the BOM win over HTTP, and so do we.
            return data[len(bom):].decode(name, errors="replace"), name
    codec = _codec(declared)
    if codec is None:
        match = _META_CHARSET.search(data[:META_SCAN_BYTES])
        if match:
            codec = _codec(match.group(1).decode("ascii", "replace"))
            if codec in {"utf-16", "utf-16-le", "utf-16-be", "utf-32"}:
                codec = "utf-8"  # a meta tag readable as ASCII cannot be UTF-16 (HTML standard, prescan)
    if codec is None:
        try:
            return data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
        codec = _detect(data)
    return data.decode(codec, errors="replace"), codec


def _detect(data: bytes) -> str:
    from charset_normalizer import from_bytes

    best = from_bytes(data[:DETECT_BYTES]).best()
    return _codec(best.encoding if best is not None else None) or "utf-8"


def parse_page(
    data: bytes | str,
    *,
    url: str | None = None,
    declared_charset: str | None = None,
    source: str | None = None,
    max_bytes: int = MAX_PAGE_BYTES,
    meta: dict[str, Any] | None = None,
) -> Page:
    """Decode and parse one page. ``source`` names the input in error messages (a path or a URL).

    Raises :class:`~fce.errors.EmptyPageError`, :class:`~fce.errors.NotHTMLError` or
    :class:`~fce.errors.PageTooLargeError`; nothing else for any byte string.
    """
    name = source or url
    size = len(data)
    if size > max_bytes:
        raise PageTooLargeError(f"page is {size} bytes, over the {max_bytes}-byte limit", source=name)
    if isinstance(data, bytes):
        if not data.strip():
            raise EmptyPageError("empty page", source=name)
        _sniff_binary(data, name)
        head = data[:SNIFF_BYTES]
        if head.count(0) > BINARY_NUL_SHARE * len(head) and not head.startswith(
            (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
        ):
            data = _maybe_utf16(data, name)
        text, encoding = decode_html(data, declared_charset, source=name)
    else:
        text, encoding = data, "unicode"
    return _parse_text(text, encoding=encoding, url=url, source=source, size=size, meta=meta or {})


def _maybe_utf16(data: bytes, name: str | None) -> bytes:
    """UTF-16 without a BOM shows as every other byte NUL; anything else NUL-heavy is binary."""
    head = data[:SNIFF_BYTES]
    even_nuls, odd_nuls = head[0::2].count(0), head[1::2].count(0)
    half = len(head) / 2
    for nuls, codec in ((odd_nuls, "utf-16-le"), (even_nuls, "utf-16-be")):
        if nuls > 0.9 * half:
            decoded = data.decode(codec, errors="replace")
            if _MARKUP.search(decoded[:SNIFF_BYTES]):
                return decoded.encode("utf-8")
    raise NotHTMLError("not HTML: binary data (NUL bytes)", source=name)


def _parse_text(text: str, *, encoding: str, url: str | None, source: str | None, size: int,
                meta: dict[str, Any]) -> Page:
    name = source or url
    sample = text[:SNIFF_BYTES]
    if not sample.strip():
        raise EmptyPageError("empty page (only whitespace)", source=name)
    if len(_CONTROL.findall(sample)) > BINARY_CONTROL_SHARE * len(sample):
        raise NotHTMLError("not HTML: binary data (control characters)", source=name)
    if not _MARKUP.search(text, 0, 1_000_000):
        first = sample.lstrip()[:1]
        kind = "JSON" if first in "{[" else "plain text"
        raise NotHTMLError(f"not HTML: no markup found (looks like {kind})", source=name)
    text = _XML_DECL.sub("", text, count=1)
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        root = etree.fromstring(text.encode("utf-8", errors="replace"), parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:  # "Document is empty" and the like
        raise EmptyPageError(f"no HTML document could be parsed ({exc})", source=name) from None
    if root is None or not isinstance(root.tag, str):
        raise EmptyPageError("no HTML document could be parsed", source=name)
    return Page(root=root, url=url, encoding=encoding, source=source, size=size, meta=meta)
