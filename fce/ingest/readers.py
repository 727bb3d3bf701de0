"""Input files → records: WARC / WARC.gz, JSON lines, folders of HTML files.

An **input** is one file, or one folder of HTML files; it becomes one task and one output file. A **record** is
what gets exactly one output row:

* **WARC** (``.warc``, ``.warc.gz``): every ``response`` and ``resource`` record, in file order. Records of the
  other types (``warcinfo``, ``request``, ``metadata``, ``revisit``, ``conversion``, ``continuation``) hold no
  captured page: they get no row, and are counted per type in :attr:`InputReader.other_records` (the manifest's
  ``other_records``), so rows + other records = the WARC records of the file. Read with FastWARC; warcio when
  FastWARC is not installed (same records, slower).
* **JSON lines** (``.jsonl``, ``.ndjson``, optionally ``.gz``): every non-blank line, an object with ``"url"``
  and ``"html"`` (a string).
* **Folders**: every ``*.html`` / ``*.htm`` file below the folder, sorted by path, hidden files skipped; a page's
  URL comes from a sibling ``<stem>.json`` with a ``"url"`` key (the layout of the evaluation data and of the tests'
  site generator, ``tests/sitegen.py``).

Reading decides what it can without parsing: a record that is not HTML (by its HTTP ``Content-Type``, else
WARC-Identified-Payload-Type, else a look at its first bytes) is ``skipped_non_html``; one over the size cap is
``too_large`` (its body is not read); a body that cannot be decoded (bad ``Content-Encoding``, a truncated
record, a JSON line that is not an object with ``html``) is ``decode_error``. The rest is a page for
:func:`fce.parse_page`, with the HTTP charset passed along. An archive that becomes unreadable part-way ends
with one ``decode_error`` record naming the offset (what follows cannot be counted); a non-empty file with no
readable record at all gives one such record too.

Each record carries a ``ref`` (byte offset, or path within the folder) with which :meth:`InputReader.read_refs`
reads it again, which is how the learn phase fetches its sampled pages.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import zlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, NamedTuple

from fce.errors import SourceError
from fce.extras import require
from fce.parse import MAX_PAGE_BYTES
from fce.sources import HTML_SUFFIXES

__all__ = [
    "HTML_CONTENT_TYPES",
    "InputKind",
    "InputReader",
    "InputSource",
    "RawRecord",
    "WarcPage",
    "expand_inputs",
    "open_input",
    "warc_backend",
    "write_warc",
]

InputKind = Literal["warc", "jsonl", "html-dir"]

WARC_SUFFIXES = (".warc", ".warc.gz")
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")

#: Media types read as HTML. Anything else (images, PDFs, JSON, CSS, ``text/plain``) is ``skipped_non_html``.
HTML_CONTENT_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"})

#: WARC record types that hold a captured page and get a row; the others are only counted.
PAGE_RECORD_TYPES = ("response", "resource")

#: Bytes looked at to tell HTML from other data when a record declares no media type at all.
SNIFF_BYTES = 1024
_LOOKS_LIKE_HTML = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b",
                              re.IGNORECASE | re.DOTALL)

#: A JSON line may be longer than the page it holds (escapes): lines over ``JSONL_OVERHEAD`` times the size cap
#: (plus 64 KiB for the other keys) are ``too_large`` without being parsed. ``\\uXXXX`` escapes of 2-byte UTF-8
#: characters triple the size; that is the worst case of common pages.
JSONL_OVERHEAD = 3
_JSONL_SLACK = 64 * 1024
_DRAIN_CHUNK = 1024 * 1024


# --- inputs -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputSource:
    """One input of a run: an absolute path and how to read it."""

    path: str
    kind: InputKind

    @property
    def name(self) -> str:
        return os.path.basename(self.path.rstrip(os.sep)) or self.path


def _kind_of_file(path: Path) -> InputKind | None:
    name = path.name.lower()
    if name.endswith(WARC_SUFFIXES):
        return "warc"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    return None


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def expand_inputs(args: Iterable[str | os.PathLike[str]]) -> list[InputSource]:
    """Resolve the command line's ``INPUT...`` into inputs, without reading them.

    A file must be a WARC or JSON lines file (by suffix). A directory contributes every WARC and JSON lines file
    below it (each an input of its own), and itself as one folder input when HTML files are below it. Raises
    :class:`~fce.errors.SourceError` for a missing path, a file of another kind, or a directory with nothing
    to read; an input named twice is read once.
    """
    found: dict[str, InputSource] = {}
    for arg in args:
        path = Path(arg).expanduser()
        if not path.exists():
            raise SourceError("no such file or directory", source=str(arg))
        path = path.resolve()
        if path.is_file():
            kind = _kind_of_file(path)
            if kind is None:
                raise SourceError(
                    "not an input fce ingest reads (WARC: .warc, .warc.gz; JSON lines: .jsonl, .ndjson, "
                    "optionally .gz; or a directory of HTML files)", source=str(arg))
            found.setdefault(str(path), InputSource(str(path), kind))
            continue
        if not path.is_dir():
            raise SourceError("not a file or directory", source=str(arg))
        files = sorted(p for p in path.rglob("*") if p.is_file() and _visible(p, path))
        before = len(found)
        for file in files:
            kind = _kind_of_file(file)
            if kind is not None:
                found.setdefault(str(file), InputSource(str(file), kind))
        if any(f.suffix.lower() in HTML_SUFFIXES for f in files):
            found.setdefault(str(path), InputSource(str(path), "html-dir"))
        elif len(found) == before:
            raise SourceError("directory holds no WARC, JSON lines or HTML files", source=str(arg))
    if not found:
        raise SourceError("no inputs given")
    return list(found.values())


# --- records ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record as read, before parsing.

    ``status`` is ``None`` for a page to parse (``data`` holds its bytes, or text for JSON lines), otherwise the
    verdict reached while reading (``skipped_non_html``, ``too_large``, ``decode_error``), with ``error`` saying
    why. ``index`` counts records from 0 in input order (-1 when read by reference); ``ref`` finds the record
    again (:meth:`InputReader.read_refs`). ``size`` is the body's length in bytes (as declared, when not read).
    """

    index: int
    ref: int | str
    url: str | None
    status: str | None = None
    data: bytes | str | None = None
    charset: str | None = None
    size: int = 0
    http_status: int | None = None
    error: str | None = None
    record_id: str | None = None  # a WARC record's WARC-Record-ID
    date: str | None = None  # a WARC record's WARC-Date (capture time)


class InputReader(ABC):
    """Reads the records of one input. ``other_records`` counts the WARC records that get no row, by type."""

    def __init__(self, source: InputSource, *, max_bytes: int = MAX_PAGE_BYTES) -> None:
        self.source = source
        self.max_bytes = max_bytes
        self.other_records: Counter[str] = Counter()

    @abstractmethod
    def records(self, *, payload: bool = True) -> Iterator[RawRecord]:
        """Every record in input order. ``payload=False`` skips reading page bodies (``data`` is ``None``):
        enough to sample URLs."""

    @abstractmethod
    def read_refs(self, refs: Iterable[int | str]) -> Iterator[RawRecord]:
        """The records at ``refs`` (from :attr:`RawRecord.ref`), in the order of their position in the input."""


def open_input(source: InputSource, *, max_bytes: int = MAX_PAGE_BYTES) -> InputReader:
    """The reader for ``source``'s kind."""
    readers: dict[str, type[InputReader]] = {"warc": WarcReader, "jsonl": JsonLinesReader, "html-dir": FolderReader}
    return readers[source.kind](source, max_bytes=max_bytes)


def _media_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


_CHARSET_PARAM = re.compile(r""";\s*charset\s*=\s*["']?([^"';\s]+)""", re.IGNORECASE)


def _charset(content_type: str | None) -> str | None:
    match = _CHARSET_PARAM.search(content_type or "")
    return match.group(1) if match else None


def _is_html(media_type: str | None, head: Callable[[], bytes]) -> bool:
    if media_type is not None:
        return media_type in HTML_CONTENT_TYPES
    return bool(_LOOKS_LIKE_HTML.match(head()))


# --- WARC ---------------------------------------------------------------------------------------------------


class _WarcItem(NamedTuple):
    """A WARC record as either backend sees it, before its body is read."""

    type: str
    offset: int
    url: str | None
    http_status: int | None
    content_type: str | None  # the HTTP Content-Type (response), else the WARC Content-Type
    identified_type: str | None  # WARC-Identified-Payload-Type (added by Common Crawl and others)
    content_encoding: str | None
    transfer_encoding: str | None
    length: int | None  # declared payload bytes, when the backend knows them
    read: Callable[[int], bytes]
    record_id: str | None = None  # WARC-Record-ID, ``<urn:uuid:…>``
    date: str | None = None  # WARC-Date: when the page was captured (ISO 8601, UTC)


class _Undecodable(Exception):
    """A body whose transfer or content coding cannot be undone (private: becomes a ``decode_error`` record)."""


class _TooLarge(Exception):
    """A body over the size cap once decompressed (private: becomes a ``too_large`` record)."""


def warc_backend() -> str:
    """``"fastwarc"`` when FastWARC is importable, else ``"warcio"``."""
    try:
        import fastwarc.warc  # noqa: F401
    except ImportError:
        return "warcio"
    return "fastwarc"


def _fastwarc_items(stream: BinaryIO | str) -> Iterator[_WarcItem]:
    from fastwarc.warc import ArchiveIterator

    # auto_decode stays "none": FastWARC's decoder raises for one bad gzip body and ends the whole iteration;
    # we undo the codings per record (_decode_body) so that one bad record is one decode_error row.
    for record in ArchiveIterator(stream, parse_http=True, auto_decode="none"):
        headers = record.headers
        http = record.http_headers if record.is_http else None
        yield _WarcItem(
            type=str(record.record_type),
            offset=record.stream_pos,
            url=headers.get("WARC-Target-URI"),
            http_status=http.status_code if http is not None else None,
            content_type=http.get("Content-Type") if http is not None else headers.get("Content-Type"),
            identified_type=headers.get("WARC-Identified-Payload-Type"),
            content_encoding=http.get("Content-Encoding") if http is not None else None,
            transfer_encoding=http.get("Transfer-Encoding") if http is not None else None,
            length=record.content_length,
            read=record.reader.read,
            record_id=headers.get("WARC-Record-ID"),
            date=headers.get("WARC-Date"),
        )


def _warcio_items(stream: BinaryIO, max_bytes: int) -> Iterator[_WarcItem]:
    require("warcio", "ingest", "reading WARC files (FastWARC, or else warcio)")
    from warcio.archiveiterator import ArchiveIterator

    iterator = ArchiveIterator(stream)
    for record in iterator:
        headers = record.rec_headers
        # warcio knows a record's offset only once its body was read (get_record_offset reads to the end), so
        # the body of a page record is read first, up to the size cap.
        body = record.raw_stream.read(max_bytes + 1) if record.rec_type in PAGE_RECORD_TYPES else b""
        offset = iterator.get_record_offset()
        http = record.http_headers if record.rec_type in ("response", "request", "revisit") else None
        status: int | None = None
        if http is not None and record.rec_type == "response":
            try:
                status = int(http.get_statuscode())
            except (TypeError, ValueError):
                status = None
        length = record.payload_length if record.payload_length is not None and record.payload_length >= 0 else None
        yield _WarcItem(
            type=record.rec_type,
            offset=offset,
            url=headers.get_header("WARC-Target-URI"),
            http_status=status,
            content_type=(http.get_header("Content-Type") if http is not None
                          else headers.get_header("Content-Type")),
            identified_type=headers.get_header("WARC-Identified-Payload-Type"),
            content_encoding=http.get_header("Content-Encoding") if http is not None else None,
            transfer_encoding=http.get_header("Transfer-Encoding") if http is not None else None,
            length=length,
            read=io.BytesIO(body).read,
            record_id=headers.get_header("WARC-Record-ID"),
            date=headers.get_header("WARC-Date"),
        )


class WarcReader(InputReader):
    """WARC and WARC.gz files (per-record gzip members, as crawlers write them)."""

    def __init__(self, source: InputSource, *, max_bytes: int = MAX_PAGE_BYTES, backend: str | None = None) -> None:
        super().__init__(source, max_bytes=max_bytes)
        self.backend = backend or warc_backend()

    def _items(self, stream: BinaryIO) -> Iterator[_WarcItem]:
        return (_fastwarc_items(stream) if self.backend == "fastwarc"
                else _warcio_items(stream, self.max_bytes))

    def records(self, *, payload: bool = True) -> Iterator[RawRecord]:
        self.other_records.clear()
        index = 0
        last_offset = 0
        try:
            with open(self.source.path, "rb") as stream:
                for item in self._items(stream):
                    last_offset = item.offset
                    if item.type not in PAGE_RECORD_TYPES:
                        self.other_records[item.type] += 1
                        continue
                    yield self._record(item, index, payload)
                    index += 1
        except Exception as exc:  # noqa: BLE001 -- either backend's error for a damaged archive: report, not crash
            yield RawRecord(index, -1, None, status="decode_error",
                            error=f"archive unreadable after offset {last_offset}: {type(exc).__name__}: {exc}")
            return
        if index == 0 and not self.other_records and os.path.getsize(self.source.path) > 0:
            yield RawRecord(0, -1, None, status="decode_error", error="no WARC record could be read")

    def read_refs(self, refs: Iterable[int | str]) -> Iterator[RawRecord]:
        with open(self.source.path, "rb") as stream:
            for ref in sorted({int(r) for r in refs}):
                stream.seek(ref)
                item = next(self._items(stream), None)
                if item is None or item.type not in PAGE_RECORD_TYPES:
                    yield RawRecord(-1, ref, None, status="decode_error", error=f"no page record at offset {ref}")
                    continue
                yield self._record(item._replace(offset=ref), -1, True)

    def _record(self, item: _WarcItem, index: int, payload: bool) -> RawRecord:
        base = RawRecord(index, item.offset, item.url, http_status=item.http_status, size=item.length or 0,
                         record_id=item.record_id, date=item.date)
        media_type = _media_type(item.content_type) or _media_type(item.identified_type)
        head: list[bytes] = []

        def first_bytes() -> bytes:
            head.append(item.read(SNIFF_BYTES))
            return head[0]

        if item.type == "response" and item.http_status is None and media_type is None:
            return replace(base, status="decode_error", error="response record without HTTP headers (truncated?)")
        if not _is_html(media_type, first_bytes):
            return replace(base, status="skipped_non_html", error=f"content type {media_type or 'unknown'}")
        if item.length is not None and item.length > self.max_bytes:
            return replace(base, status="too_large",
                            error=f"body is {item.length} bytes, over the {self.max_bytes}-byte limit")
        if not payload:
            return base
        # One byte over what is expected tells a body over the cap (or longer than declared). Never ask for the
        # whole cap when the length is known: a read of n bytes allocates n bytes first (measured: +0.09 ms a
        # record at the default 64 MiB cap, a third of reading a 70 KB page from a WARC.gz).
        limit = self.max_bytes + 1 if item.length is None else min(self.max_bytes, item.length) + 1
        raw = (head[0] if head else b"") + item.read(limit - (len(head[0]) if head else 0))
        if len(raw) > self.max_bytes:
            return replace(base, status="too_large", size=max(len(raw), item.length or 0),
                            error=f"body is over the {self.max_bytes}-byte limit")
        if item.length is not None and len(raw) < item.length:
            return replace(base, status="decode_error", size=len(raw),
                            error=f"record truncated: {len(raw)} of {item.length} bytes")
        try:
            body = _decode_body(raw, item.transfer_encoding, item.content_encoding, self.max_bytes)
        except _TooLarge as exc:
            return replace(base, status="too_large", error=str(exc))
        except _Undecodable as exc:
            return replace(base, status="decode_error", size=len(raw), error=str(exc))
        return replace(base, data=body, size=len(body), charset=_charset(item.content_type))


def _decode_body(raw: bytes, transfer_encoding: str | None, content_encoding: str | None, max_bytes: int) -> bytes:
    """Undo ``Transfer-Encoding: chunked`` and the ``Content-Encoding`` codings, within ``max_bytes``.

    Archivers disagree on whether they store bodies as sent or decoded (Common Crawl decodes and renames the
    header; others decode and keep it), so a body that does not look coded is taken as it is.
    """
    if transfer_encoding and "chunked" in transfer_encoding.lower():
        try:
            raw = _dechunk(raw)
        except ValueError:
            pass  # stored already de-chunked under the original header
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):
        if coding in ("identity", "none"):
            continue
        if coding in ("gzip", "x-gzip"):
            if not raw.startswith(b"\x1f\x8b"):
                continue  # stored decoded
            raw = _inflate(raw, zlib.decompressobj(16 + zlib.MAX_WBITS), max_bytes, coding)
        elif raw.lstrip()[:1] == b"<":
            continue  # markup: stored decoded
        elif coding == "deflate":
            try:
                raw = _inflate(raw, zlib.decompressobj(zlib.MAX_WBITS), max_bytes, coding)
            except _Undecodable:  # servers send raw deflate without the zlib header as often as with it
                raw = _inflate(raw, zlib.decompressobj(-zlib.MAX_WBITS), max_bytes, coding)
        elif coding == "br":
            raw = _unbrotli(raw, max_bytes)
        else:
            raise _Undecodable(f"unsupported Content-Encoding {coding!r}")
    return raw


def _inflate(raw: bytes, inflater: Any, max_bytes: int, coding: str) -> bytes:
    try:
        out = inflater.decompress(raw, max_bytes + 1)
    except zlib.error as exc:
        raise _Undecodable(f"Content-Encoding {coding}: {exc}") from None
    if len(out) > max_bytes:
        raise _TooLarge(f"body is over the {max_bytes}-byte limit once decompressed ({coding})")
    if not inflater.eof:
        raise _Undecodable(f"Content-Encoding {coding}: compressed data is truncated")
    return out


def _unbrotli(raw: bytes, max_bytes: int) -> bytes:
    try:
        import brotli
    except ImportError:
        raise _Undecodable("Content-Encoding br: the brotli module is not installed") from None
    decompressor = brotli.Decompressor()
    try:
        out = decompressor.process(raw, output_buffer_limit=max_bytes + 1)
    except TypeError:  # brotli < 1.2 has no output limit
        out = decompressor.process(raw)
    except brotli.error as exc:
        raise _Undecodable(f"Content-Encoding br: {exc}") from None
    if len(out) > max_bytes:
        raise _TooLarge(f"body is over the {max_bytes}-byte limit once decompressed (br)")
    return out


def _dechunk(raw: bytes) -> bytes:
    """Undo HTTP/1.1 chunked transfer coding; ``ValueError`` when ``raw`` is not chunked."""
    out = bytearray()
    pos = 0
    while True:
        end = raw.find(b"\r\n", pos)
        if end < 0:
            raise ValueError("chunk size line missing")
        size = int(raw[pos:end].split(b";", 1)[0].strip(), 16)  # ValueError when not hex
        pos = end + 2
        if size == 0:
            return bytes(out)
        if pos + size > len(raw):
            raise ValueError("chunk runs past the end")
        out += raw[pos:pos + size]
        pos += size + 2


# --- JSON lines ---------------------------------------------------------------------------------------------


class JsonLinesReader(InputReader):
    """One JSON object per line: ``{"url": ..., "html": ...}``. ``ref`` is the line's byte offset (in the
    decompressed stream for ``.gz``, where reading by reference decompresses up to it)."""

    def _open(self) -> IO[bytes]:
        if self.source.path.lower().endswith(".gz"):
            return gzip.open(self.source.path, "rb")  # type: ignore[return-value]  # a GzipFile is a binary IO
        return open(self.source.path, "rb")

    @property
    def _line_limit(self) -> int:
        return JSONL_OVERHEAD * self.max_bytes + _JSONL_SLACK

    def records(self, *, payload: bool = True) -> Iterator[RawRecord]:
        index = 0
        offset = 0
        try:
            with self._open() as stream:
                while True:
                    line, length = _read_line(stream, self._line_limit)
                    if not length:
                        return
                    start, offset = offset, offset + length
                    if isinstance(line, bytes) and not line.strip():
                        continue
                    yield self._record(line, index, start, length, payload)
                    index += 1
        except (OSError, EOFError, zlib.error) as exc:
            yield RawRecord(index, -1, None, status="decode_error",
                            error=f"file unreadable after byte {offset}: {type(exc).__name__}: {exc}")

    def read_refs(self, refs: Iterable[int | str]) -> Iterator[RawRecord]:
        with self._open() as stream:
            for ref in sorted({int(r) for r in refs}):
                stream.seek(ref)
                line, length = _read_line(stream, self._line_limit)
                yield self._record(line, -1, ref, length, True)

    def _record(self, line: bytes | _LongLine, index: int, ref: int, length: int, payload: bool) -> RawRecord:
        if isinstance(line, _LongLine):
            return RawRecord(index, ref, _url_in_prefix(line.prefix), status="too_large", size=length,
                             error=f"line of {length} bytes, over the {self._line_limit}-byte line limit")
        try:
            obj = json.loads(line)
        except ValueError as exc:
            return RawRecord(index, ref, None, status="decode_error", size=length,
                             error=f"line is not JSON: {exc}")
        if not isinstance(obj, dict):
            return RawRecord(index, ref, None, status="decode_error", size=length,
                             error="line is not a JSON object")
        url = obj.get("url") if isinstance(obj.get("url"), str) else None
        html = obj.get("html")
        if not isinstance(html, str):
            return RawRecord(index, ref, url, status="decode_error", size=length,
                             error='no "html" string in the object')
        size = len(html)
        if size > self.max_bytes:
            return RawRecord(index, ref, url, status="too_large", size=size,
                             error=f"page is {size} characters, over the {self.max_bytes} limit")
        return RawRecord(index, ref, url, data=html if payload else None, size=size)


class _LongLine(NamedTuple):
    """A line over the limit: only its start is kept (to name its URL)."""

    prefix: bytes


def _read_line(stream: IO[bytes], limit: int) -> tuple[bytes | _LongLine, int]:
    """``(line, bytes consumed)``; a line longer than ``limit`` is drained and comes back as a :class:`_LongLine`."""
    line = stream.readline(limit)
    if len(line) < limit or line.endswith(b"\n"):
        return line, len(line)
    consumed = len(line)
    prefix = line[:4096]
    while True:
        chunk = stream.readline(_DRAIN_CHUNK)
        consumed += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return _LongLine(prefix), consumed


_URL_KEY = re.compile(rb'"url"\s*:\s*"((?:[^"\\]|\\.){1,4000})"')


def _url_in_prefix(prefix: bytes) -> str | None:
    """The ``url`` of an over-long line, when it comes before ``html`` (so that its row still names it)."""
    match = _URL_KEY.search(prefix)
    if not match:
        return None
    try:
        return json.loads(b'"' + match.group(1) + b'"')
    except ValueError:
        return None


# --- folders of HTML files ----------------------------------------------------------------------------------


class FolderReader(InputReader):
    """Every ``*.html`` / ``*.htm`` below a folder; ``ref`` is the path relative to the folder."""

    def _files(self) -> list[Path]:
        root = Path(self.source.path)
        return sorted(p for p in root.rglob("*")
                      if p.suffix.lower() in HTML_SUFFIXES and p.is_file() and _visible(p, root))

    def records(self, *, payload: bool = True) -> Iterator[RawRecord]:
        root = Path(self.source.path)
        for index, path in enumerate(self._files()):
            yield self._record(path, index, path.relative_to(root).as_posix(), payload)

    def read_refs(self, refs: Iterable[int | str]) -> Iterator[RawRecord]:
        root = Path(self.source.path)
        for ref in sorted({str(r) for r in refs}):
            yield self._record(root / ref, -1, ref, True)

    def _record(self, path: Path, index: int, ref: str, payload: bool) -> RawRecord:
        url = _sidecar_url(path)
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                return RawRecord(index, ref, url, status="too_large", size=size,
                                 error=f"file is {size} bytes, over the {self.max_bytes}-byte limit")
            if not payload:
                return RawRecord(index, ref, url, size=size)
            with path.open("rb") as f:  # one byte over the size seen (a read allocates its size first) ...
                data = f.read(min(self.max_bytes, size) + 1)
                if len(data) > size:  # ... and the rest, up to the cap, if the file grew meanwhile
                    data += f.read(self.max_bytes + 1 - len(data))
        except OSError as exc:
            return RawRecord(index, ref, url, status="error", error=f"cannot read: {exc.strerror or exc}")
        if len(data) > self.max_bytes:
            return RawRecord(index, ref, url, status="too_large", size=len(data),
                             error=f"file is over the {self.max_bytes}-byte limit")
        return RawRecord(index, ref, url, data=data, size=len(data))


def _sidecar_url(path: Path) -> str | None:
    """``"url"`` of the sibling ``<stem>.json``, when there is one naming an http(s) URL."""
    meta = path.with_suffix(".json")
    try:
        with meta.open("rb") as f:
            data = json.loads(f.read(1024 * 1024))
    except (OSError, ValueError):  # no metadata, or unreadable: the page is still read, without a URL
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) and url.lower().startswith(("http://", "https://")) else None


# --- writing WARC files (tests, benchmarks, examples) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WarcPage:
    """A record for :func:`write_warc`: an HTTP response, or another WARC record type with a raw block."""

    url: str
    body: bytes
    content_type: str | None = "text/html; charset=utf-8"
    status: str = "200 OK"
    headers: tuple[tuple[str, str], ...] = ()
    record_type: str = "response"


def write_warc(path: str | os.PathLike[str], pages: Sequence[WarcPage], *, gzip: bool | None = None,
               warcinfo: bool = True) -> Path:
    """Write ``pages`` as a WARC file with warcio (gzip per record when ``gzip`` or the name ends in ``.gz``).

    A ``response`` page becomes an HTTP response record; ``request``/``metadata``/``resource`` pages a record
    of that type with ``body`` as its block. Starts with a ``warcinfo`` record unless ``warcinfo=False``.
    """
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path = Path(path)
    compress = path.name.endswith(".gz") if gzip is None else gzip
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=compress)
        if warcinfo:
            writer.write_record(writer.create_warcinfo_record(path.name, {"software": "fce.ingest.write_warc"}))
        for page in pages:
            if page.record_type == "response":
                headers = [("Content-Type", page.content_type)] if page.content_type else []
                http = StatusAndHeaders(page.status, headers + list(page.headers), protocol="HTTP/1.1")
                # length given: warcio would otherwise buffer the body in a temporary file it never closes
                record = writer.create_warc_record(page.url, "response", payload=io.BytesIO(page.body),
                                                   length=len(page.body), http_headers=http)
            else:
                record = writer.create_warc_record(
                    page.url, page.record_type, payload=io.BytesIO(page.body), length=len(page.body),
                    warc_content_type=page.content_type or "application/octet-stream")
            writer.write_record(record)
    return path
