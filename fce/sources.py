"""What the user names on the command line (``SOURCE...``) → page bytes to parse.

A source is one of

* an ``http://`` or ``https://`` URL: fetched (:mod:`fce.fetch`);
* an HTML file (any file that is not a URL list);
* a directory: every ``*.html`` / ``*.htm`` file below it, recursively, sorted by path (hidden files and
  directories, whose names start with ``.``, are skipped);
* a URL list: a text file with one URL or path per line, ``#`` comments and blank lines ignored;
  relative paths are relative to the list file's directory; an entry may name a directory (expanded as
  above). A file is taken for a URL list when it has no ``.html``/``.htm``/``.xhtml``/``.shtml`` suffix,
  contains no ``<`` and every entry line is an http(s) URL, ends in an HTML suffix or ``/``, or names an
  existing path (see :func:`is_url_list`); anything else is read as a page, so a stray JSON or text file is
  reported as not HTML;
* ``-``: the standard input (``fce detect`` only).

A path that is not a regular file — a pipe (``fce detect <(curl …)``), a named pipe (FIFO), a device — can be read
only once: its first bytes are read to tell a URL list from a page, and the rest of a page is read when its batch
is, up to the size limit, so that nothing is read twice or past the cap. A named pipe that no process has open
for writing is waited for :data:`FIFO_WRITER_WAIT` seconds, then reported, instead of blocking forever.

A local page's URL (which names its site) comes from a sibling ``<stem>.json`` metadata file with a ``"url"``
key when there is one, the layout of the evaluation data and of the tests' site generator (``tests/sitegen.py``).

:func:`expand_sources` resolves the arguments without reading pages; :func:`read_sources` reads them in
batches, fetching the URLs of a batch concurrently. Neither raises for one bad input: a missing file or a
failed download is a :class:`PageInput` carrying its error, so a caller can report it and go on.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from fce.errors import FceError, FetchError, PageTooLargeError, SourceError
from fce.fetch import FetchOptions, fetch_many, is_url
from fce.parse import MAX_PAGE_BYTES, Page, parse_page

__all__ = [
    "HTML_SUFFIXES",
    "READ_BATCH",
    "STDIN",
    "PageInput",
    "PageSource",
    "expand_sources",
    "is_url_list",
    "read_pages",
    "read_sources",
]

STDIN = "-"

#: Files a directory contributes. Other suffixes (``.txt`` gold files, ``.json`` metadata) sit next to pages
#: in the evaluation data and must not be read as pages.
HTML_SUFFIXES = (".html", ".htm")

#: Files never taken for a URL list, whatever their content.
_PAGE_SUFFIXES = (*HTML_SUFFIXES, ".xhtml", ".shtml")

#: How much of a file is looked at to decide whether it is a URL list; URL lists beyond this size are still
#: read whole once recognised (64 KiB holds ~1,000 URLs, plenty to tell a list from a page).
LIST_SNIFF_BYTES = 64 * 1024

#: Largest URL list read (a list of a million URLs is ~100 MB; anything bigger is not a list we can hold).
LIST_MAX_BYTES = 256 * 1024 * 1024

#: Seconds a named pipe (FIFO) with no writer is waited for before it is reported as an error. A writer already
#: blocked in opening the pipe is woken the moment fce opens it for reading; the wait covers a writer started
#: just after fce (``mkfifo p; fce detect p & producer > p``). Without it, reading such a pipe blocks forever.
FIFO_WRITER_WAIT = 3.0
#: Seconds between two looks at a named pipe while waiting for its writer: short against the wait, long enough
#: not to spin.
FIFO_POLL_INTERVAL = 0.02
#: Bytes read from a pipe in one system call while waiting for its writer (the size of a Linux pipe's buffer).
PIPE_CHUNK = 64 * 1024

#: Pages read (and fetched concurrently) per batch by :func:`read_sources`: bounds memory for long inputs
#: while keeping the fetch pool busy (8× the default fetch concurrency).
READ_BATCH = 64


@dataclass(frozen=True, slots=True)
class PageSource:
    """One page to read, resolved from the arguments but not read yet.

    ``source`` is the name used in messages and output: the URL, the path as written (joined to the list
    file's or directory's path for entries of those), or ``-``. ``kind`` ``"error"`` carries a
    :class:`SourceError`.
    """

    source: str
    kind: Literal["url", "file", "stdin", "error"]
    error: SourceError | None = None
    #: A file that is not a regular file, opened to tell a list from a page: its bytes so far and the rest.
    opened: _OpenedStream | None = field(default=None, compare=False, repr=False)


class _OpenedStream:
    """A pipe, FIFO or device opened while resolving the arguments, with the bytes read from it so far; the
    rest is read once, by :func:`read_sources`, and the stream closed."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head = head
        self.stream: BinaryIO | None = stream

    def read(self, limit: int, name: str) -> bytes:
        """The whole content, at most ``limit`` bytes of it; a second call is a :class:`SourceError` (what a pipe
        held is gone once read, and is not kept: a page may be large)."""
        stream, self.stream = self.stream, None
        if stream is None:
            raise SourceError("already read (a pipe can be read only once)", source=name)
        try:
            rest = stream.read(limit - len(self.head)) if limit > len(self.head) else b""
        finally:
            stream.close()
        head, self.head = self.head, b""
        return (head + rest)[:limit]


@dataclass(frozen=True, slots=True)
class PageInput:
    """One page's raw input: bytes, URL and declared charset, or the error that prevented reading it."""

    source: str
    url: str | None = None
    data: bytes | None = None
    charset: str | None = None
    error: FceError | None = None

    def parse(self, *, max_bytes: int = MAX_PAGE_BYTES, blocks: str | None = None) -> Page:
        """The parsed page; raises the reading error, or what :func:`fce.parse.parse_page` raises (``blocks``: see
        there)."""
        if self.error is not None:
            raise self.error
        assert self.data is not None
        return parse_page(self.data, url=self.url, declared_charset=self.charset, source=self.source,
                          max_bytes=max_bytes, blocks=blocks)


# --- resolving arguments ------------------------------------------------------------------------------------


def expand_sources(args: Iterable[str], *, allow_stdin: bool = False) -> list[PageSource]:
    """Resolve command-line sources to pages, in order. A missing or unreadable path becomes an ``"error"``
    source; ``-`` without ``allow_stdin``, or given twice, raises :class:`SourceError` (a usage mistake)."""
    out: list[PageSource] = []
    seen_stdin = False
    for arg in args:
        if arg == STDIN:
            if not allow_stdin:
                raise SourceError("standard input (-) can only be read by `fce detect`", source=STDIN)
            if seen_stdin:
                raise SourceError("standard input (-) given twice", source=STDIN)
            seen_stdin = True
            out.append(PageSource(STDIN, "stdin"))
        elif is_url(arg):
            out.append(PageSource(arg, "url"))
        else:
            out.extend(_expand_path(Path(arg).expanduser(), arg, lists=True))
    return out


def _expand_path(path: Path, name: str, *, lists: bool) -> list[PageSource]:
    try:
        if path.is_dir():
            return _expand_dir(path, name)
        if not path.exists():
            return [_error("no such file or directory", name)]
        if not path.is_file():  # a pipe, a FIFO, a device: it can be read only once
            return _expand_stream(path, name) if lists else [PageSource(name, "file")]
        if lists and is_url_list(path):
            return _expand_list(path, name)
    except SourceError as exc:  # (an OSError too)
        return [PageSource(name, "error", exc)]
    except OSError as exc:
        return [_error(f"cannot read ({exc.strerror or exc})", name)]
    return [PageSource(name, "file")]


def _expand_stream(path: Path, name: str) -> list[PageSource]:
    """A pipe, FIFO or device named as an argument: its first bytes tell a URL list (read whole, then expanded)
    from a page (kept open, read when its batch is)."""
    head, stream, anonymous = _open_stream(path, name)
    try:
        if path.suffix.lower() not in _PAGE_SUFFIXES and len(head) < LIST_SNIFF_BYTES:
            head += stream.read(LIST_SNIFF_BYTES - len(head))
        # (entries of a list read from an anonymous pipe, ``<(…)``, are relative to the working directory)
        base = Path() if anonymous else path.parent
        if path.suffix.lower() not in _PAGE_SUFFIXES and _lists_urls(head, base):
            data = head + stream.read(LIST_MAX_BYTES + 1 - len(head))
            stream.close()
            if len(data) > LIST_MAX_BYTES:
                return [_error(f"URL list is larger than {LIST_MAX_BYTES} bytes", name)]
            return _list_sources(data, name, base)
    except BaseException:
        stream.close()
        raise
    return [PageSource(name, "file", opened=_OpenedStream(head, stream))]


def _open_stream(path: Path, name: str) -> tuple[bytes, BinaryIO, bool]:
    """Open a file that is not a regular file: ``(bytes read so far, the stream, whether it is an anonymous
    pipe)``. A named pipe that no process holds open for writing is waited for :data:`FIFO_WRITER_WAIT` seconds,
    then a :class:`SourceError` (``open`` would block until a writer came, if ever)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        anonymous = _is_anonymous_pipe(fd)
        head = b""
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and not anonymous:
            head = _await_writer(fd, name)
        os.set_blocking(fd, True)
        stream = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return head, stream, anonymous


def _await_writer(fd: int, name: str) -> bytes:
    """Wait for a writer on the named pipe ``fd`` (opened non-blocking); return what it wrote so far. Reading a
    pipe without a writer gives end of file at once, and one whose writer has written nothing yet gives EAGAIN."""
    deadline = time.monotonic() + FIFO_WRITER_WAIT
    while True:
        try:
            chunk = os.read(fd, PIPE_CHUNK)
        except BlockingIOError:
            return b""  # a writer holds it open: read on, blocking
        if chunk:
            return chunk
        if time.monotonic() >= deadline:
            raise SourceError(f"named pipe has no writer (waited {FIFO_WRITER_WAIT:g} s)", source=name)
        time.sleep(FIFO_POLL_INTERVAL)


def _is_anonymous_pipe(fd: int) -> bool:
    """Whether ``fd`` is a pipe with no name (``<(…)``, ``/dev/stdin`` in a pipeline): its writer, if any, holds it
    already, and none can come later. Linux names it ``pipe:[inode]`` under ``/proc``; elsewhere False."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
    except OSError:
        return False


def _expand_dir(root: Path, name: str) -> list[PageSource]:
    found: list[Path] = []
    errors: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        found.extend(Path(dirpath, f) for f in filenames
                     if not f.startswith(".") and f.lower().endswith(HTML_SUFFIXES))
    if errors and not found:
        return [_error(f"cannot read directory ({errors[0].strerror or errors[0]})", name)]
    if not found:
        return [_error(f"no {' or '.join(HTML_SUFFIXES)} files in directory", name)]
    shown = Path(name)
    return [PageSource(str(shown / p.relative_to(root)), "file") for p in sorted(found)]


def _expand_list(path: Path, name: str) -> list[PageSource]:
    if path.stat().st_size > LIST_MAX_BYTES:
        return [_error(f"URL list is larger than {LIST_MAX_BYTES} bytes", name)]
    return _list_sources(path.read_bytes(), name, Path(name).parent)


def _list_sources(data: bytes, name: str, base: Path) -> list[PageSource]:
    """The sources a URL list names (``data``; relative paths are relative to ``base``)."""
    out: list[PageSource] = []
    for line in _list_entries(data.decode("utf-8", errors="replace")):
        if is_url(line):
            out.append(PageSource(line, "url"))
        else:
            entry = Path(line).expanduser()
            shown = entry if entry.is_absolute() else base / entry
            out.extend(_expand_path(shown, str(shown), lists=False))  # no lists inside lists: no cycles
    if not out:
        return [_error("URL list has no entries", name)]
    return out


def _list_entries(text: str) -> Iterator[str]:
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            yield line


def is_url_list(path: Path) -> bool:
    """True when ``path`` reads as a URL list rather than a page (rules in the module docstring).

    A file with only ``#`` comments is an (empty) list; an empty file is an empty page."""
    if path.suffix.lower() in _PAGE_SUFFIXES:
        return False
    with path.open("rb") as f:
        head = f.read(LIST_SNIFF_BYTES)
    return _lists_urls(head, path.parent)


def _lists_urls(head: bytes, base: Path) -> bool:
    """Whether the first :data:`LIST_SNIFF_BYTES` bytes of a file are those of a URL list (:func:`is_url_list`;
    paths relative to ``base``)."""
    if not head.strip() or b"<" in head or b"\x00" in head:
        return False
    if len(head) == LIST_SNIFF_BYTES:
        head = head[: head.rfind(b"\n") + 1]  # only whole lines
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    entries = list(_list_entries(text))
    return all(_entry_like(e, base) for e in entries)


def _entry_like(line: str, base: Path) -> bool:
    if is_url(line):
        return not any(c.isspace() for c in line)
    if line.lower().endswith((*_PAGE_SUFFIXES, "/")):
        return True
    try:
        return (base / Path(line).expanduser()).exists()
    except (OSError, ValueError):  # a name too long for the OS, an embedded NUL: not a path
        return False


def _error(message: str, name: str) -> PageSource:
    return PageSource(name, "error", SourceError(message, source=name))


# --- reading ------------------------------------------------------------------------------------------------


def read_sources(
    sources: Sequence[PageSource],
    *,
    max_bytes: int = MAX_PAGE_BYTES,
    fetch: FetchOptions = FetchOptions(),  # noqa: B008 -- frozen, so a shared default is safe
    stdin: BinaryIO | None = None,
    progress: Callable[[str], None] | None = None,
    batch_size: int = READ_BATCH,
) -> Iterator[list[PageInput]]:
    """Read ``sources`` in batches of ``batch_size`` (each batch in input order; the URLs of a batch are
    fetched concurrently). ``progress`` is called with a source's name as each one is read. ``stdin`` defaults
    to ``sys.stdin.buffer``."""
    for start in range(0, len(sources), batch_size):
        batch = sources[start:start + batch_size]
        urls = [s.source for s in batch if s.kind == "url"]
        fetched = iter(fetch_many(
            urls, concurrency=fetch.concurrency, timeout=fetch.timeout, retries=fetch.retries,
            max_bytes=max_bytes, user_agent=fetch.user_agent,
            progress=None if progress is None else (
                lambda r: progress(str(getattr(r, "url", None) or getattr(r, "source", None) or ""))),
        ))
        out: list[PageInput] = []
        for src in batch:
            if src.kind == "url":
                result = next(fetched)
                if isinstance(result, FetchError):
                    item = PageInput(src.source, url=src.source, error=result)
                else:
                    item = PageInput(src.source, url=result.final_url, data=result.data,
                                     charset=result.charset)
            else:
                item = _read_local(src, max_bytes, stdin)
                if progress is not None:
                    progress(src.source)
            out.append(item)
        yield out


def read_pages(args: Iterable[str], *, allow_stdin: bool = False, **options: object) -> Iterator[PageInput]:
    """:func:`expand_sources` then :func:`read_sources`, one :class:`PageInput` at a time (``options`` go to
    :func:`read_sources`)."""
    for batch in read_sources(expand_sources(args, allow_stdin=allow_stdin), **options):  # type: ignore[arg-type]
        yield from batch


def _read_local(src: PageSource, max_bytes: int, stdin: BinaryIO | None) -> PageInput:
    if src.error is not None:
        return PageInput(src.source, error=src.error)
    if src.kind == "stdin":
        return _read_stdin(src.source, max_bytes, stdin)
    path = Path(src.source)
    try:
        if src.opened is not None:
            data = src.opened.read(max_bytes + 1, src.source)
        elif not path.is_file() and path.exists():  # a pipe, a FIFO or a device named in a list or directory
            head, stream, _ = _open_stream(path, src.source)
            with stream:
                data = head + stream.read(max(0, max_bytes + 1 - len(head)))
        else:
            size = path.stat().st_size
            if size > max_bytes:
                return PageInput(src.source, error=PageTooLargeError(
                    f"file is {size} bytes, over the {max_bytes}-byte limit", source=src.source))
            with path.open("rb") as f:
                data = f.read(max_bytes + 1)
    except SourceError as exc:  # (an OSError too)
        return PageInput(src.source, error=exc)
    except OSError as exc:
        error = SourceError(f"cannot read ({exc.strerror or exc})", source=src.source)
        return PageInput(src.source, error=error)
    return _sized(src.source, data, _sidecar_url(path), max_bytes)


def _read_stdin(name: str, max_bytes: int, stdin: BinaryIO | None) -> PageInput:
    """The standard input, at most ``max_bytes + 1`` bytes of it. A closed one (``fce detect - <&-``: Python then
    has no ``sys.stdin``) or one that cannot be read is a :class:`SourceError`."""
    stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", None)
    if stream is None:
        return PageInput(name, error=SourceError("standard input is closed", source=name))
    try:
        data = stream.read(max_bytes + 1)
    except (OSError, ValueError) as exc:  # ValueError: a closed file object
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return PageInput(name, error=SourceError(f"cannot read standard input ({message})", source=name))
    return _sized(name, data, None, max_bytes)


def _sized(source: str, data: bytes, url: str | None, max_bytes: int) -> PageInput:
    if len(data) > max_bytes:
        return PageInput(source, url=url,
                         error=PageTooLargeError(f"input is over the {max_bytes}-byte limit", source=source))
    return PageInput(source, url=url, data=data)


def _sidecar_url(path: Path) -> str | None:
    """``"url"`` of the sibling ``<stem>.json`` metadata file, if there is one with an http(s) URL."""
    meta = path.with_suffix(".json")
    if meta == path:
        return None
    try:
        with meta.open("rb") as f:
            data = json.loads(f.read(1024 * 1024))
    except (OSError, ValueError):  # no metadata, or unreadable: the page is still usable, just without a URL
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) and is_url(url) else None
