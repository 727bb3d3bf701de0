"""Bytes → text → lxml tree, in one place.

:func:`parse_page` is the only function in fce that decodes and parses; everything downstream takes the
:class:`Page` it returns (parse once, pass the tree). A caller that reads only the page's block tree asks for it
with ``blocks=``: it is then made while parsing, from the parser's events, and the lxml tree is built only if
``page.root`` is read (``fce/_segment.pyx``, :func:`segment_from_bytes`).

Encoding is chosen in this order: a byte-order mark, the caller's declared charset (an HTTP ``Content-Type``),
``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in the first :data:`META_SCAN_BYTES` bytes, an XML
declaration's ``encoding``, then the detector charset-normalizer, then UTF-8. A label counts only if it is one of
the WHATWG Encoding Standard's (:data:`_WHATWG_LABELS`): any other (``base64``, ``rot13``, ``punycode``, a typo)
is treated as absent. Decoding never fails. Text read as
UTF-8 (declared, or undeclared and mostly valid UTF-8) may mix in bytes of windows-1252, the usual legacy encoding
pasted into a UTF-8 page: each byte that is not part of a valid UTF-8 sequence is read as windows-1252
(:data:`UTF8_FALLBACK`, as ftfy and Beautiful Soup's ``detwingle`` do); other undecodable bytes become U+FFFD.

Before parsing, the bytes are checked: empty input, a binary signature (PNG, PDF, gzip, …), NUL-heavy data, JSON, or
text with no markup at all are refused with an :class:`~fce.errors.InputError` subclass naming the input.

Limits of the parse (README, "Limits"): pages over :data:`MAX_PAGE_BYTES` are refused; libxml2's own limits on the
depth of the tree (256) and the size of one text node (10 MB) are lifted (``huge_tree``), since hitting them
silently dropped the rest of the page; nesting deeper than libxml2's hard limit is flattened at
:data:`MAX_DEPTH` levels, as browsers do; a start tag with more than :data:`MAX_ATTRIBUTES` attributes keeps the
first ones (libxml2 takes quadratic time in their number, and parsing cannot be interrupted by the time limit).
"""

from __future__ import annotations

import codecs
import json
import re
import threading
from collections import Counter
from typing import Any

from lxml import etree

from fce._accel import compiled
from fce.errors import EmptyPageError, NotHTMLError, PageTooLargeError
from fce.kinds import PathStyle
from fce.page import HEAD_TAGS, Page

__all__ = ["LINKED_DATA_KEY", "MAX_ATTRIBUTES", "MAX_DEPTH", "MAX_PAGE_BYTES", "WEB_CODECS", "Page", "decode_html",
           "parse_page"]

#: Pages larger than this are refused (``PageTooLargeError``). 64 MiB holds every real page we have seen; the
#: largest pages of the evaluation sets are under 2 MiB. Overridable per call (``max_bytes``) and on the CLI.
MAX_PAGE_BYTES = 64 * 1024 * 1024

#: How far into the document a ``<meta charset>`` declaration is looked for. The HTML standard's prescan reads
#: 1024 bytes; real pages put long ``<script>`` blocks first, so we read further.
META_SCAN_BYTES = 8192

#: A page labelled with another encoding whose bytes are valid UTF-8, with at least this many bytes beyond its
#: characters (one non-ASCII character: 2–4 bytes), is read as UTF-8. Pages converted to UTF-8 keep their old
#: ``<meta charset>``, and servers send a default label (readability's qq.com page: ``gb2312`` on UTF-8 bytes, 0.01
#: word F1 read as labelled, 0.92 as UTF-8). Text of a legacy single-byte encoding is valid UTF-8 only where every
#: byte from 0x80 up pairs as lead and continuation (an upper-case accented letter followed by a quotation mark, a
#: dash or a no-break space), so a page of it with any accented letter before a letter or a space is not; trafilatura
#: reads every valid UTF-8 page as UTF-8 whatever its label (``trafilatura.utils.detect_encoding``). Browsers follow
#: the label. One character is enough: of the 113 pages of ``../shared/data`` labelled legacy whose bytes are valid
#: UTF-8 with 1–15 extra bytes (curly quotes, ``£``, archives' ``U+FFFD``), reading them as UTF-8 raised word F1 on
#: 27 and lowered it on 2, whose gold text was itself copied as mojibake (``StarÂ®``). Not 0: ISO-2022-JP pages
#: are all 7-bit bytes, valid UTF-8 that only their label decodes.
MISLABELLED_UTF8_EXTRA_BYTES = 1

#: How many bytes the charset detector sees. Detection cost grows with input; 64 KiB decides every page we tried.
DETECT_BYTES = 64 * 1024

#: Share of NUL bytes (in the first :data:`SNIFF_BYTES`) above which the data is binary (or UTF-16 without BOM).
BINARY_NUL_SHARE = 0.10
#: Share of control characters other than NUL/tab/newline/CR/FF/ESC above which decoded text is binary. NUL is
#: left to :data:`BINARY_NUL_SHARE`: a few stray NULs in a page are common and harmless (they become U+FFFD).
BINARY_CONTROL_SHARE = 0.05
SNIFF_BYTES = 4096
#: Where a page parsed from events keeps its JSON-LD scripts' text (``Page.cache``; see BlockTree.linked_data).
LINKED_DATA_KEY = "linked_data"

#: Nesting depth at which a tree deeper than libxml2 accepts (2048 levels with ``huge_tree``; parsing stops there
#: and the rest of the page was lost) is flattened: deeper start tags are dropped and their content joins the
#: element at this depth. Chromium's HTML parser flattens at 512 levels (``kMaximumHTMLParserDOMTreeDepth``);
#: real pages nest fewer than 100 levels, except runs of unclosed ``<font>``/``<div>`` tags.
MAX_DEPTH = 512

#: Attributes kept per start tag. libxml2's tree builder checks each new attribute against the previous ones
#: (quadratic: 40,000 attributes take 15 s, inside C code that the time limit cannot interrupt); real tags have
#: fewer than 50. Only tags longer than :data:`LONG_TAG_CHARS` are examined, so normal pages pay a few ``find``
#: calls. A start tag runs to the next ``>`` whatever ``<`` it holds: libxml2 skips ``<!x``, ``<a`` or ``</x``
#: inside a tag as a bogus attribute and reads on (a ``<`` every few thousand characters kept 40,000 attributes
#: of one tag out of the count, and its page took 15 s to parse).
MAX_ATTRIBUTES = 1000
LONG_TAG_CHARS = 32 * 1024

#: How a byte that is not valid UTF-8 is read in text decoded as UTF-8 (see the module docstring).
UTF8_FALLBACK = "windows-1252"

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

_SIGNATURE_PREFIXES = tuple(signature for signature, _ in _BINARY_SIGNATURES)

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_BOM_PREFIXES = tuple(bom for bom, _ in _BOMS)

#: The charset labels honoured: those of the WHATWG Encoding Standard (section 4.2, "Names and labels"; the list
#: browsers honour), by the Python codec that decodes them. Any other label is no label at all, and the page is
#: decoded as if it had none: Python's codecs that are not text encodings of web pages (``base64``, ``zlib``,
#: ``hex``, ``rot13``, ``uu``, ``punycode``, ``idna``, ``utf-7``, ``unicode_escape``, ``undefined``), other Python
#: aliases, misspellings, a label with a NUL in it. Where Python has no codec for a WHATWG decoder, its nearest
#: superset: GBK is decoded by the gb18030 decoder (as the standard does: the 7 evaluation pages labelled gb2312
#: decode to 24,196 U+FFFD with Python's gb2312, 197 with gb18030), Big5 by big5hkscs (the standard's index
#: includes HKSCS), Shift_JIS and EUC-KR by Microsoft's cp932 and cp949 (the standard's windows-31j and
#: windows-949).
#: Left out, so read as no label: the "replacement" labels (ISO-2022-KR, ISO-2022-CN, HZ: a browser shows the page
#: as one U+FFFD; read as unlabelled, its ASCII text is kept) and x-user-defined (no Python codec).
_WHATWG_LABELS: dict[str, str] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    "iso8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    "iso8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    "iso8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988",
    "iso8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e "
                 "iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    "iso8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 "
                 "iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 "
                 "iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical",  # (8-I: the same bytes)
    "iso8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "mac-roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
              "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 "
              "windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
             "windows-949",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}
_LABELS = {label: codec for codec, labels in _WHATWG_LABELS.items() for label in labels.split()}
#: The codecs web pages are decoded with (also the only ones the charset detector may choose).
WEB_CODECS = frozenset(_WHATWG_LABELS)
_UTF16 = frozenset({"utf-16-le", "utf-16-be"})
#: What the WHATWG Encoding Standard strips from a label before looking it up (ASCII whitespace), and quotes,
#: which ``<meta content="text/html; charset='utf-8'">`` and some servers leave on.
_LABEL_STRIP = "\t\n\x0c\r \"'"

_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)""",
    re.IGNORECASE,
)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_:.\-]+)""", re.IGNORECASE)
#: Something only markup has: a start tag, an end tag, a comment, a doctype or a processing instruction. A ``<``
#: followed by a space (``a < b``) is text in HTML, not a tag.
_MARKUP = re.compile(r"<[A-Za-z!?/]")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*>", re.IGNORECASE)
#: The control characters that mark binary data (:data:`BINARY_CONTROL_SHARE`), as bytes (deleted by
#: ``bytes.translate`` on the byte-level path: a tenth of a regex scan's time) and as a pattern (on the text).
_CONTROL_BYTES = bytes([*range(0x01, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_CONTROL = re.compile("[" + re.escape(_CONTROL_BYTES.decode("ascii")) + "]")
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
#: A tag (possessive: a ``<`` and a name with no ``>`` after them fail in one pass, not by backtracking).
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*+)[^>]*+>")
#: One attribute of a start tag, tokenised as HTML5 (and libxml2 2.14) does: a name runs to whitespace, ``/``, ``>``
#: or ``=`` (its first character may be ``=``; ``<`` and quotes belong to it), a quote opens a value only right
#: after ``=``, a quoted value is read whole, an unquoted one runs to whitespace or ``>``. Possessive: no
#: backtracking on a tag that never ends. Attributes are separated by whitespace and ``/``.
_ATTRIBUTE_SOURCE = r"""[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"?|'[^']*+'?|[^\s>]*+))?"""
_ATTRIBUTE = re.compile(_ATTRIBUTE_SOURCE)
#: A start tag's ``<`` and name: what its attributes follow (the name is no attribute: ``<div =a="x">`` has one).
_TAG_NAME_SOURCE = r"<[A-Za-z][^\s/>]*"
_TAG_NAME = re.compile(_TAG_NAME_SOURCE)
#: A start tag up to its ``>`` (a ``>`` inside a quoted value does not end it), its attributes as :data:`_ATTRIBUTE`.
_QUOTED_TAG = re.compile(_TAG_NAME_SOURCE + r"(?:[\s/]++|" + _ATTRIBUTE_SOURCE + ")*+")
_END_TAG_AT_END = re.compile(r"</[A-Za-z][^\s/<>]*\s*$")
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
                        "source", "track", "wbr", "frame", "keygen", "basefont", "isindex"})
_FOREIGN_NAMESPACES = {"http://www.w3.org/2000/svg": "svg", "http://www.w3.org/1998/Math/MathML": "math"}
_FOREIGN_PREFIX = re.compile(
    r"""xmlns:([A-Za-z_][\w.-]*)\s*=\s*["'](""" + "|".join(map(re.escape, _FOREIGN_NAMESPACES)) + """)["']"""
)
_DEPTH_ERROR = "Excessive depth"


def _utf8_fallback(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: read the bytes that are not UTF-8 as :data:`UTF8_FALLBACK`."""
    assert isinstance(exc, UnicodeDecodeError)
    return exc.object[exc.start:exc.end].decode(UTF8_FALLBACK, errors="replace"), exc.end


codecs.register_error("fce-utf8-fallback", _utf8_fallback)

_local = threading.local()


def _parser() -> etree.HTMLParser:
    """This thread's parser. One per thread, so that its ``error_log`` (read to find a too-deep tree) is this
    parse's own. ``huge_tree`` lifts libxml2's 256-level depth and 10 MB text-node limits; the size cap bounds the
    input instead. Plain ``etree`` elements: ``lxml.html``'s element classes are looked up by a Python callback
    for every element proxy, which cost a third of segmentation time; fce needs none of their methods. No table of
    ``id`` attributes (``collect_ids=False``): fce never looks an element up by id, and building the table cost 5 %
    of a parse (same trees, measured on msv-big9)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, default_doctype=False,
                                  huge_tree=True, collect_ids=False)
        _local.parser = parser
    return parser


_ROOT = Page.__dict__["root"]  # the slot under Page.root (a member descriptor)


class _SegmentedPage(Page):
    """A page whose block tree was made from the parser's events (``parse_page(blocks=…)``): its lxml tree is
    parsed from the page's bytes the first time ``root`` is asked for (a fallback method that reads the tree,
    ``fce show``), on the same path it would have been parsed on at once."""

    __slots__ = ("_data", "_name")
    _data: bytes | None  # the page's bytes, until its tree is parsed
    _name: str | None  # what errors name it by

    @property  # type: ignore[override]
    def root(self) -> Any:
        root = _ROOT.__get__(self, Page)
        if root is None:
            root = _repaired(_parse_tree(None, self._name, self._data))
            _ROOT.__set__(self, root)
            object.__setattr__(self, "_data", None)  # (the bytes are no longer needed)
        return root

    @root.setter
    def root(self, value: Any) -> None:  # (the dataclass's __init__ sets it: None until asked for)
        _ROOT.__set__(self, value)


def _codec(label: str | None) -> str | None:
    """The Python codec of a charset label (:data:`_WHATWG_LABELS`), or None for any other string. As the WHATWG
    Encoding Standard looks labels up: ASCII whitespace trimmed, ASCII case ignored; and an underscore read as a
    hyphen, for the Python spellings pages carry (``iso8859_1``, ``euc_kr``: 5 of the evaluation pages)."""
    if not label:
        return None
    key = label.strip(_LABEL_STRIP).lower()
    return _LABELS.get(key) or _LABELS.get(key.replace("_", "-"))


def _sniff_binary(data: bytes, source: str | None) -> None:
    if not data.startswith(_SIGNATURE_PREFIXES):  # one C call for the common case
        return
    for signature, kind in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise NotHTMLError(f"not HTML: looks like {kind}", source=source)


def decode_html(data: bytes, declared: str | None = None, *, source: str | None = None) -> tuple[str, str]:
    """Decode page bytes to text; return ``(text, encoding)``. Never raises on undecodable bytes."""
    text, encoding, _ = _decode(data, declared)
    return text, encoding


def _decode(data: bytes, declared: str | None) -> tuple[str, str, bool]:
    """:func:`decode_html`, and whether the text is exactly ``data`` read as UTF-8 (valid UTF-8 without a BOM):
    then ``data`` is what libxml2 is handed, instead of the text encoded again (:func:`_parse_text`)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            # A BOM beats everything but is checked after the caller's label only when they agree on the family;
            # browsers let the BOM win over HTTP, and so do we.
            text = data[len(bom):].decode(name, errors="fce-utf8-fallback" if name == "utf-8" else "replace")
            return text, name, False
    codec = _labelled_codec(data, declared)
    if codec is not None and codec != "utf-8" and codec not in _UTF16:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if len(data) - len(text) >= MISLABELLED_UTF8_EXTRA_BYTES:
                return text, "utf-8", True
    if codec is None:
        try:
            return data.decode("utf-8"), "utf-8", True
        except UnicodeDecodeError:
            pass
        codec = "utf-8" if _mostly_utf8(data) else _detect(data)
    if codec == "utf-8":
        try:  # the same text as the fallback handler gives when every byte is valid UTF-8
            return data.decode("utf-8"), codec, True
        except UnicodeDecodeError:
            return data.decode("utf-8", errors="fce-utf8-fallback"), codec, False
    return data.decode(codec, errors="replace"), codec, False


def _labelled_codec(data: bytes, declared: str | None) -> str | None:
    """The codec a page is labelled with: the caller's charset, else a ``<meta>`` charset or an XML declaration in
    its first :data:`META_SCAN_BYTES` bytes; None when unlabelled, or labelled with anything but a label of
    :data:`_WHATWG_LABELS`. A UTF-16 label is taken from the caller only when the bytes read in it show markup
    (a server's label, not the page's: bytes that reach here are not UTF-16 by their BOM or their NULs)."""
    codec = _codec(declared)
    if codec in _UTF16 and not _reads_as_markup(data, codec):
        codec = None
    if codec is None:
        name = _meta_charset(data, META_SCAN_BYTES)
        if name is None:
            match = _XML_ENCODING.match(data, 0, META_SCAN_BYTES)
            name = match.group(1) if match else None
        if name is not None:
            codec = _codec(name.decode("ascii", "replace"))
            if codec in _UTF16:
                codec = "utf-8"  # a declaration readable as ASCII cannot be UTF-16 (HTML standard, prescan)
    return codec


def _reads_as_markup(data: bytes, codec: str) -> bool:
    return _MARKUP.search(data[:2 * SNIFF_BYTES].decode(codec, errors="replace")) is not None


def _mostly_utf8(data: bytes) -> bool:
    """True when the valid UTF-8 sequences of ``data`` outnumber its other non-ASCII bytes: a UTF-8 page with
    some legacy bytes pasted in. In text of a single-byte encoding, valid UTF-8 sequences are rare accidents."""
    sample = data[:DETECT_BYTES]
    valid = _UTF8_SEQUENCE.findall(sample)
    if not valid:
        return False
    other = len(_HIGH_BYTE.findall(sample)) - sum(len(seq) for seq in valid)
    return len(valid) >= other


def _detect(data: bytes) -> str:
    """The detector's most likely encoding among those web pages are written in; on a tie, windows-1252.

    charset-normalizer ranks every codec Python has; on short Western text it often puts a DOS code page or a Mac
    regional encoding first (``mac_latin2`` for French), which no web page uses. Only :data:`WEB_CODECS` are
    taken, and of equally likely candidates windows-1252 wins, the WHATWG default for undeclared legacy pages.
    """
    from charset_normalizer import from_bytes

    ranked = []
    for rank, match in enumerate(from_bytes(data[:DETECT_BYTES])):
        codec = _web_codec(match.encoding)
        if codec is not None and (codec not in _UTF16 or _reads_as_markup(data, codec)):
            ranked.append((round(match.chaos, 3), codec != "cp1252", rank, codec))
    return min(ranked)[3] if ranked else "utf-8"


def _web_codec(name: str) -> str | None:
    """The codec of :data:`WEB_CODECS` a Python codec name (the detector's) stands for, or None: a WHATWG label
    (``shift_jis``, ``iso8859_7``), else a Python alias of a web codec (``mac_roman``, ``cp874``)."""
    codec = _codec(name)
    if codec is None:
        try:
            python = codecs.lookup(name).name
        except (LookupError, ValueError):  # (ValueError: a name with a NUL)
            return None
        codec = _LABELS.get(python, python)  # (Python's iso8859-1 is the label of windows-1252)
    return codec if codec in WEB_CODECS else None


def parse_page(
    data: bytes | str,
    *,
    url: str | None = None,
    declared_charset: str | None = None,
    source: str | None = None,
    max_bytes: int = MAX_PAGE_BYTES,
    meta: dict[str, Any] | None = None,
    blocks: str | None = None,
) -> Page:
    """Decode and parse one page. ``source`` names the input in error messages (a path or a URL).

    ``blocks``: a path style (``fce.blocks.PATH_STYLES``) for a caller that reads the page's block tree
    (:func:`fce.blocks.blocks_of` with that style) and most likely nothing else: detection with a template and a
    fallback method that reads only blocks, learning. The block tree is then made while parsing, from the
    parser's events (compiled: ``fce/_segment.pyx``, :func:`segment_from_bytes`), and the lxml tree is built only
    if ``page.root`` is asked for. The same block tree and the same ``root`` either way. Without ``blocks`` the
    page is walked so all the same, in the default path style: the walk is what checks each start tag's
    attributes before libxml2's tree builder, quadratic in them, sees the tag (:data:`MAX_ATTRIBUTES`).

    Raises :class:`~fce.errors.EmptyPageError`, :class:`~fce.errors.NotHTMLError` or
    :class:`~fce.errors.PageTooLargeError`; nothing else for any byte string.
    """
    name = source or url
    size = len(data)
    if size > max_bytes:
        raise PageTooLargeError(f"page is {size} bytes, over the {max_bytes}-byte limit", source=name)
    raw = None  # the bytes, when they are exactly the UTF-8 encoding of the decoded text
    if isinstance(data, bytes):
        if not data or data.isspace():  # bytes.isspace: the ASCII whitespace bytes.strip() removes
            raise EmptyPageError("empty page", source=name)
        _sniff_binary(data, name)
        # (``find``, a memchr, first: most pages have no NUL, and ``count`` reads a byte at a time; both in place,
        # as a copy of the first SNIFF_BYTES bytes cost as much as the count)
        if data.find(0, 0, SNIFF_BYTES) >= 0 and data.count(0, 0, SNIFF_BYTES) > BINARY_NUL_SHARE * min(
            size, SNIFF_BYTES
        ) and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            data = _maybe_utf16(data, name)
        page = _parse_from_bytes(data, declared_charset, url=url, source=source, meta=meta, blocks=blocks)
        if page is not None:
            return _with_blocks(page, blocks)
        text, encoding, exact = _decode(data, declared_charset)
        raw = data if exact else None
    else:
        text, encoding = data, "unicode"
    page = _parse_text(text, encoding=encoding, url=url, source=source, size=size, meta=meta or {}, raw=raw,
                       blocks=blocks)
    return _with_blocks(page, blocks)


def _with_blocks(page: Page, blocks: str | None) -> Page:
    """``page`` holding its block tree of style ``blocks`` (made from the tree where the parse made none)."""
    if blocks is not None and f"blocks:{blocks}" not in page.cache:
        from fce.blocks import blocks_of

        blocks_of(page, blocks)
    return page


def _is_utf8_decoding(data: bytes) -> bool:
    """Whether ``data`` is strict UTF-8, by decoding it."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _has_control_bytes(head: bytes) -> bool:
    return len(head.translate(None, _CONTROL_BYTES)) != len(head)


def _scan_decoding(data: bytes, control_stop: int) -> str | None:
    """``fce._scan.scan`` in Python (where it was not built): ``"ascii"`` when every byte of ``data`` is ASCII,
    ``"utf-8"`` when it is strict UTF-8 with non-ASCII characters, None when it is not UTF-8, holds a NUL, or holds
    one of :data:`_CONTROL_BYTES` in ``data[:control_stop]`` (``control_stop`` ≥ 0)."""
    if control_stop < 0:
        raise ValueError("control_stop must be >= 0")
    if _has_control_bytes(data[:control_stop]) or b"\x00" in data:
        return None
    if data.isascii():
        return "ascii"
    return "utf-8" if _is_utf8_decoding(data) else None


_FOREIGN_URIS = tuple(uri.encode("ascii") for uri in _FOREIGN_NAMESPACES)
#: What :func:`_binds_prefix` answers for :data:`_FOREIGN_URIS`: whether this matches the bytes. It matches wherever
#: :data:`_FOREIGN_PREFIX` matches the decoded text (and more): a prefix and the whitespace around ``=`` hold no
#: ``=`` and no quote, whatever characters they are. (``tests/test_parse.py`` checks both versions against it.)
_FOREIGN_PREFIX_LOOSE = re.compile(
    rb"""xmlns:[^=]*=[^"']*["'](""" + b"|".join(map(re.escape, _FOREIGN_URIS)) + rb""")["']"""
)


def _binds_prefix_matching(data: bytes, uris: tuple[bytes, ...]) -> bool:
    """``fce._scan.binds_prefix`` in Python: whether ``xmlns:[^=]*=[^"']*["'](uri|…)["']`` matches ``data``.

    Neither class of the pattern can hold the character after it, so at an ``xmlns:`` (found by ``bytes.find``: a
    regex search for it reads every byte in Python's regex engine, a tenth of a parse) its repeats end at the first
    ``=``, then the first quote after that; occurrences that reach the same ``=`` or quote as one that failed fail
    too and are passed over, so that no byte is scanned twice (a regex call per occurrence rescans to the next
    ``=``: quadratic time on ``xmlns:`` repeated)."""
    at, quote = data.find(b"xmlns:"), -1
    while at >= 0:
        eq = data.find(b"=", at + 6)
        if eq < 0:
            return False  # no "=" after this xmlns:, nor after a later one
        if eq > quote:  # (else the first quote after it is the one the previous try found, and failed at)
            found = _QUOTE.search(data, eq + 1)
            if found is None:
                return False  # no quote after this "=", nor after a later one
            quote = found.start()
            if any(data.startswith(uri, quote + 1) and data[quote + 1 + len(uri):quote + 2 + len(uri)] in _QUOTES
                   for uri in uris):
                return True
        at = data.find(b"xmlns:", eq + 1)  # an xmlns: before this "=" would reach it too
    return False


_QUOTES = (b'"', b"'")
_QUOTE = re.compile(rb"[\"']")


def _meta_charset_searching(data: bytes, stop: int) -> bytes | None:
    """``fce._scan.meta_charset`` in Python: the charset name :data:`_META_CHARSET` finds in ``data[:stop]``
    (``stop`` ≥ 0)."""
    if stop < 0:
        raise ValueError("stop must be >= 0")
    match = _META_CHARSET.search(data, 0, stop)
    return match.group(1) if match else None


#: The compiled byte scans (``fce/_scan.pyx``: one pass for UTF-8, ASCII, NUL and control bytes; the search for a
#: namespace prefix; the ``<meta>`` charset), or their Python versions where they were not built or are switched off
#: (:func:`fce._accel.compiled`). Both give the same answers (``tests/test_parse.py``).
_SCANS: Any = compiled("_scan")
_scan_bytes, _binds_prefix, _meta_charset = (
    (_scan_decoding, _binds_prefix_matching, _meta_charset_searching) if _SCANS is None
    else (_SCANS.scan, _SCANS.binds_prefix, _SCANS.meta_charset))
#: Whether the byte scans run compiled (``fce methods`` and the benchmarks report it).
SCANS_COMPILED = _scan_bytes is not _scan_decoding

#: The start of a page the byte-level path takes: ASCII whitespace, then a start tag, an end tag, a comment or a
#: doctype (not ``<?``: an XML declaration is removed before parsing, on the text).
_CLEAN_START = re.compile(rb"[ \t\n\r\x0b\x0c]*<[A-Za-z!/]")


#: Single-byte codecs of the WHATWG Encoding Standard that read every byte 0x00–0x7F as that ASCII character (each
#: checked here, at import), so that ASCII bytes labelled with them are their own text.
_ASCII_BYTES = bytes(range(128))
_SINGLE_BYTE_CODECS = (
    *(f"cp{n}" for n in range(1250, 1259)),
    *(f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
    "koi8-r", "koi8-u", "cp866", "cp874", "mac-roman", "mac-cyrillic",
)
_ASCII_COMPATIBLE = frozenset(
    name for name in _SINGLE_BYTE_CODECS if _ASCII_BYTES.decode(name) == _ASCII_BYTES.decode("ascii")
)


def _parse_from_bytes(data: bytes, declared: str | None, *, url: str | None, source: str | None,
                      meta: dict[str, Any] | None, blocks: str | None = None) -> Page | None:
    """The page parsed straight from its bytes, when :func:`_decode` would read them as exactly their UTF-8
    decoding (UTF-8, or ASCII labelled with an ASCII-compatible single-byte codec) and none of
    :func:`_parse_text`'s checks would change or refuse them; otherwise None (the caller
    takes the path through the decoded text). The same tree either way (``tests/test_parse.py`` compares them):
    decoding a page to a Python string only to check it cost a sixth of a parse (a two-byte-per-character copy of
    the page where it has one curly quote), and so did searching that string.

    Each test here is one that, passing on the bytes, implies the corresponding test on the text passes: the first
    :data:`SNIFF_BYTES` characters hold at most ``4 × SNIFF_BYTES`` bytes and at least the first SNIFF_BYTES bytes;
    a character U+0000–U+007F is that byte in UTF-8 and no other character's encoding holds such a byte. One scan
    (:func:`_scan_bytes`) tells whether the bytes are UTF-8, all ASCII, free of NUL and free of control characters in
    the first ``4 × SNIFF_BYTES`` bytes; the order of the tests changes no answer, only what is read first."""
    if data.startswith(_BOM_PREFIXES):
        return None
    codec = _labelled_codec(data, declared)
    encoding = "utf-8" if codec is None else codec
    if encoding != "utf-8" and encoding not in _ASCII_COMPATIBLE:
        return None
    kind = _scan_bytes(data, 4 * SNIFF_BYTES)  # None: not UTF-8, or a NUL, or control characters in the sample
    if kind is None or (encoding != "utf-8" and kind != "ascii"):
        return None  # (ASCII bytes read in a codec that reads them as ASCII: the text is the bytes)
    if (
        _CLEAN_START.match(data, 0, SNIFF_BYTES) is None  # markup in the sample: not empty, not JSON, no <?xml
        or _binds_prefix(data, _FOREIGN_URIS)  # renamed, found in the text
        # (a tag is at least as many bytes long as it is characters)
        or _has_long_tag(data)
    ):
        return None
    page = _segmented(data, blocks, url=url, encoding=encoding, source=source, size=len(data), meta=meta or {})
    if page is not None:
        return page
    if _quoted_long_tags(data.decode("utf-8")):
        return None  # (the text path cuts them)
    root = _repaired(_parse_tree(None, source or url, data))
    return Page(root=root, url=url, encoding=encoding, source=source, size=len(data), meta=meta or {}, markup=data)


def _segmented(data: bytes, blocks: str | None, *, url: str | None, encoding: str, source: str | None, size: int,
               meta: dict[str, Any]) -> Page | None:
    """The page whose UTF-8 bytes ``data`` are what :func:`_parse_tree` would parse, with its block tree made from
    the parser's events and its lxml tree parsed from ``data`` when asked for; None where the tree path must
    parse it (:func:`segment_from_bytes`). ``blocks`` None (a caller that reads the lxml tree) walks in the default
    path style all the same: the walk is what checks every start tag's attributes before the tree builder sees
    them. It costs about what the regex scan that checks them otherwise costs (0.58 and 0.48 of a parse on 178
    msv-big9 and wcxb-dev pages), and leaves the block tree that :func:`fce.extract` reads instead of segmenting
    the lxml tree."""
    from fce.blocks import DEFAULT_PATH_STYLE, LONG_TAG

    blocks = blocks or DEFAULT_PATH_STYLE

    tree = segment_from_bytes(data, blocks)
    if tree is LONG_TAG:
        # a start tag of more than MAX_ATTRIBUTES attributes that _long_tags did not see, its ">"s inside quoted
        # values: cut by the scan that follows quotes, which only such pages pay for
        data = _limit_attributes(data.decode("utf-8", "replace"), quoted=True).encode("utf-8", "replace")
        tree = segment_from_bytes(data, blocks)
    if tree is None or tree is LONG_TAG:
        return None
    page = _SegmentedPage(root=None, url=url, encoding=encoding, source=source, size=size, meta=meta, markup=data)
    object.__setattr__(page, "_data", data)
    object.__setattr__(page, "_name", source or url)
    page.cache[f"blocks:{blocks}"] = tree
    page.cache[LINKED_DATA_KEY] = tree.linked_data  # (read by the metadata: no search of the text for them)
    return page


def segment_from_bytes(data: bytes, path_style: str) -> Any:
    """The block tree (:class:`fce.blocks.BlockTree`) of a page's UTF-8 bytes in ``path_style``, made from
    libxml2's parse events by the compiled walk without building the lxml tree; None where it cannot be (not
    compiled, another libxml2 version, or a page that needs the tree: see ``fce/_segment.pyx``), or
    :data:`fce.blocks.LONG_TAG` where a start tag holds more than :data:`MAX_ATTRIBUTES` attributes. ``data`` must
    be what :func:`_parse_tree` would parse: the page's bytes where they passed :func:`_parse_from_bytes`'s checks,
    else its checked text in UTF-8 (:func:`_parse_text`)."""
    from fce.blocks import LONG_TAG, PATH_STYLES, BlockTree, sax_segmentation

    if path_style not in PATH_STYLES:
        raise ValueError(f"path_style must be one of {PATH_STYLES}, not {path_style!r}")
    seg = sax_segmentation(data, path_style == PathStyle.QUALIFIED, MAX_ATTRIBUTES)
    return seg if seg is None or seg is LONG_TAG else BlockTree._of_segmentation(seg)


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
                meta: dict[str, Any], raw: bytes | None = None, blocks: str | None = None) -> Page:
    """Check and parse ``text``; ``raw``, when given, is ``text`` encoded as UTF-8 (handed to libxml2 as long as
    the checks leave the text unchanged: encoding it again cost a twentieth of a parse)."""
    name = source or url
    sample = text[:SNIFF_BYTES]
    if not sample.strip():
        raise EmptyPageError("empty page (only whitespace)", source=name)
    if len(_CONTROL.findall(sample)) > BINARY_CONTROL_SHARE * len(sample):
        raise NotHTMLError("not HTML: binary data (control characters)", source=name)
    first = sample.lstrip()[:1]
    if first in ("{", "[") and _is_json(text):
        raise NotHTMLError("not HTML: looks like JSON", source=name)
    if not _MARKUP.search(text, 0, 1_000_000):
        kind = "JSON" if first in ("{", "[") else "plain text"
        raise NotHTMLError(f"not HTML: no markup found (looks like {kind})", source=name)
    if _XML_DECL.match(text):
        text, raw = _XML_DECL.sub("", text, count=1), None
    if "\x00" in text:
        text, raw = text.replace("\x00", "\ufffd"), None
    limited = _limit_attributes(text)
    if limited is not text:
        text, raw = limited, None
    # (a page binding a prefix to SVG or MathML has prefixed names renamed in its tree: the tree path)
    if "xmlns:" not in text or _FOREIGN_PREFIX.search(text) is None:
        data = raw if raw is not None else text.encode("utf-8", errors="replace")  # what _parse_tree parses
        page = _segmented(data, blocks, url=url, encoding=encoding, source=source, size=size, meta=meta)
        if page is not None:
            return page
    # the walk did not check every start tag's attributes (it gave the page back, or cannot run here): the scan
    # that follows quotes does, before libxml2's tree builder sees them
    limited = _limit_attributes(text, quoted=True)
    if limited is not text:
        text, raw = limited, None
    root = _parse_tree(text, name, raw)
    if "xmlns:" in text:
        _rename_foreign_prefixes(root, text)
    _repaired(root)
    return Page(root=root, url=url, encoding=encoding, source=source, size=size, meta=meta, markup=text)


def _repaired(root: Any) -> Any:
    """``root`` after the repairs every parsed tree gets, whichever path it was parsed on: a frameset page's
    ``<noframes>`` parsed, the body of a page without ``<body>`` taken out of ``<head>``."""
    _parse_noframes(root)
    _body_out_of_head(root)
    return root


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than Python's stack allows
        return False
    return True


def _parse_tree(text: str | None, name: str | None, raw: bytes | None = None) -> Any:
    """Parse with libxml2 (``raw``: ``text`` encoded as UTF-8, if the caller has it; ``text`` may then be None, and
    is decoded from ``raw`` only if needed); a tree deeper than libxml2's hard limit is flattened at
    :data:`MAX_DEPTH` and parsed again (once more at a tenth of it, should implied tags have kept it too deep)."""
    for depth in (None, MAX_DEPTH, MAX_DEPTH // 10):
        if depth is not None and text is None:
            assert raw is not None
            text = raw.decode("utf-8")
        parser = _parser()
        if depth is None and raw is not None:
            source = raw
        else:
            assert text is not None
            source = (text if depth is None else _flatten(text, depth)).encode("utf-8", errors="replace")
        try:
            root = etree.fromstring(source, parser=parser)
        except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:  # "Document is empty" and the like
            raise EmptyPageError(f"no HTML document could be parsed ({exc})", source=name) from None
        if root is None or not isinstance(root.tag, str):
            raise EmptyPageError("no HTML document could be parsed", source=name)
        if not any(_DEPTH_ERROR in error.message for error in parser.error_log):
            break
    return root  # still too deep after flattening twice: what libxml2 read before it stopped


def _flatten(text: str, max_depth: int) -> str:
    """``text`` without the start tags nested deeper than ``max_depth`` (their content stays, one level up).

    Nesting is counted from the tags alone: an end tag closes up to its open namesake, a stray one is kept for the
    parser to ignore. Elements the HTML parser closes implicitly (``<p><p>``) are counted as open, so the count
    errs on the deep side and the parser's tree is no deeper than ``max_depth`` plus the few elements it adds.
    """
    out: list[str] = []
    stack: list[str] = []
    open_names: Counter[str] = Counter()
    pos = 0
    # (no tag ends after the last ">": a start tried there would read on to the end of the text, and a tail of
    # many "<x" without one took seconds — a 383 KB page of 30,000 unclosed tags, 12 s)
    for match in _TAG.finditer(text, 0, text.rfind(">") + 1):
        closing, tag = match.group(1), match.group(2).lower()
        if closing:
            if open_names[tag]:
                while True:
                    top = stack.pop()
                    open_names[top] -= 1
                    if top == tag:
                        break
        elif tag not in _VOID_TAGS and not match.group(0).endswith("/>"):
            if len(stack) >= max_depth:
                out.append(text[pos:match.start()])
                pos = match.end()
                continue
            stack.append(tag)
            open_names[tag] += 1
    out.append(text[pos:])
    return "".join(out)


def _limit_attributes(text: str, *, quoted: bool = False) -> str:
    """``text`` with every start tag of more than :data:`MAX_ATTRIBUTES` attributes cut to the first ones (``text``
    itself when there is none). The tags are found by :func:`_long_tags`, or with ``quoted`` (a page known to hold
    such a tag that it does not find) by :func:`_quoted_long_tags`."""
    spans = _quoted_long_tags(text) if quoted else _long_tags(text)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(_cut_attributes(text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _has_long_tag(text: str | bytes) -> bool:
    """Whether ``text`` (str or its UTF-8 bytes) holds a long tag (:func:`_long_tags`)."""
    return bool(_long_tags(text, first=True))


def _long_tags(text: str | bytes, *, first: bool = False) -> list[tuple[int, int]]:
    """The start tags of ``text`` (str or its UTF-8 bytes) longer than :data:`LONG_TAG_CHARS`, as ``(start, end)``
    spans from their ``<`` to the ``>`` that ends them (or the end of the text); ``first``: the first one only.
    A long tag is ``<``, an ASCII letter and :data:`LONG_TAG_CHARS` characters that are not ``>``
    (``<[A-Za-z][^>]{LONG_TAG_CHARS,}``), found in a few C calls instead of a regex scan (which reads every
    character in Python's regex engine: a tenth of a parse, and most of it on pages with long scripts). Such a run
    holds a whole aligned window of ``LONG_TAG_CHARS // 2`` characters without ``>``, so only those windows are
    looked at: the run around one is measured with ``find``/``rfind``, and the first ``<`` and letter in it starts
    a long tag when the run is long enough after it (the rest of the run is that tag's)."""
    window = LONG_TAG_CHARS // 2
    find, rfind, size = text.find, text.rfind, len(text)
    lt, gt = ("<", ">") if isinstance(text, str) else (b"<", b">")
    spans: list[tuple[int, int]] = []
    start = 0
    while start < size:
        stop = start + window
        if find(gt, start, stop) >= 0:  # type: ignore[arg-type]
            start = stop
            continue
        left = rfind(gt, 0, start) + 1  # type: ignore[arg-type]
        right = find(gt, stop)  # type: ignore[arg-type]
        right = size if right < 0 else right
        last = right - LONG_TAG_CHARS - 1  # (one past the last "<" that leaves room for a long tag after it)
        at = find(lt, left, last) if last > left else -1  # type: ignore[arg-type]
        while at >= 0 and not _is_ascii_letter(text[at + 1:at + 2]):
            at = find(lt, at + 1, last)  # type: ignore[arg-type]
        if at >= 0:
            spans.append((at, right))
            if first:
                break
        start = right + 1  # the next run starts after this one's ">"
    return spans


def _quoted_long_tags(text: str) -> list[tuple[int, int]]:
    """The start tags of ``text`` that may hold more than :data:`MAX_ATTRIBUTES` attributes (at least two
    characters each), as ``(start, end)`` spans from their ``<`` to the ``>`` that ends them, quoted values read as
    libxml2 reads them: a ``>`` inside one does not end the tag. A regex scan of the whole page (a third of a
    parse), for the pages where the parse found such a tag that :func:`_long_tags` missed."""
    return [(match.start(), match.end()) for match in _QUOTED_TAG.finditer(text)
            if match.end() - match.start() > 2 * MAX_ATTRIBUTES and text.startswith(">", match.end())]


def _is_ascii_letter(char: str | bytes) -> bool:
    return len(char) == 1 and char.isascii() and char.isalpha()


def _cut_attributes(tag: str) -> str:
    """A long start tag (up to its ``>``) cut to its first :data:`MAX_ATTRIBUTES` attributes, counted as libxml2
    counts them (:data:`_ATTRIBUTE`: a stray ``<`` is one), so that the parse of the cut tag finds no more. An end
    tag's name that ends it is kept: in a script (raw text, where a ``<`` and a letter start no tag) that is what
    closes it. It counts as the two attributes it reads as (``<`` and the name), after a space, so that the cut
    tag is not over the limit when cut again (the tree path's check of a page the walk did not read)."""
    name = _TAG_NAME.match(tag)  # (every tag cut starts so: _long_tags, _QUOTED_TAG)
    cut = name.end() if name else 1
    closing = _END_TAG_AT_END.search(tag, cut)  # (its two attributes are the tag's last: after any cut)
    kept = MAX_ATTRIBUTES - (2 if closing is not None else 0)
    for count, attribute in enumerate(_ATTRIBUTE.finditer(tag, cut), 1):
        if count > MAX_ATTRIBUTES:  # (a tag within the limit is left as it is)
            return tag[:cut] + ("" if closing is None else " " + closing.group(0))
        if count <= kept:
            # cut where the last attribute kept ends: a "/" separating it from the next would close the tag
            cut = attribute.end()
    return tag


def _rename_foreign_prefixes(root: Any, text: str) -> None:
    """XHTML: ``<svg:svg>`` and ``<m:math>`` (prefixes bound to the SVG or MathML namespace) become ``<svg>`` and
    ``<math>``, the names fce skips as non-content. The HTML parser keeps prefixed names as they are written."""
    for prefix, uri in _FOREIGN_PREFIX.findall(text):
        local = _FOREIGN_NAMESPACES[uri]
        for el in list(root.iter(f"{prefix}:{local}")):
            el.tag = local


def _body_out_of_head(root: Any) -> None:
    """libxml2 keeps an unknown element met in ``<head>`` (``<mbox>``) there, and the rest of a page without a
    ``<body>`` tag after it; a browser ends the head at that element and puts it and what follows into the body.
    Only where the page has no ``<body>`` (nor ``<frameset>``): elsewhere the content already has a body to sit in,
    and what libxml2 left in the head is a stray element or two (measured: 24 of the 1,972 evaluation pages)."""
    if root.find("body") is not None or root.find("frameset") is not None:
        return
    head = root.find("head")
    if head is None:
        return
    start = next((i for i, el in enumerate(head) if el.tag.__class__ is str and el.tag not in HEAD_TAGS), None)
    if start is None:
        return
    body = etree.SubElement(root, "body")
    moved = list(head)[start:]
    body.extend(moved)  # lxml moves each element with its tail


def _parse_noframes(root: Any) -> None:
    """A frameset page's ``<noframes>`` is its only text; libxml2 keeps it as raw markup text. Parse it."""
    for el in list(root.iter("noframes")):
        if el.text and "<" in el.text and len(el) == 0:
            try:
                fragment = etree.fromstring(
                    f"<html><body>{el.text}</body></html>".encode("utf-8", errors="replace"), parser=_parser())
            except (etree.ParserError, etree.XMLSyntaxError, ValueError):
                continue  # keep it as text
            body = fragment.find("body") if fragment is not None else None
            if body is None:
                continue
            try:
                el.text = body.text  # lxml refuses control characters here, which libxml2 let into the tree
            except ValueError:
                continue
            el.extend(list(body))
