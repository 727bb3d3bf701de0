"""Tests of fce.sources: resolving SOURCE arguments (URL lists, directories, files, stdin), reading them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fce.errors import EmptyPageError, NotHTMLError, PageTooLargeError, SourceError
from fce.sources import FIFO_WRITER_WAIT, PageInput, expand_sources, is_url_list, read_pages, read_sources

HTML = b"<html><body><p>Hello world, this is a page.</p></body></html>"


def _kinds(sources):
    return [(s.kind, s.source) for s in sources]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path as the working directory, holding pages/ (nested, with non-HTML files) and lists/."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pages" / "sub").mkdir(parents=True)
    (tmp_path / "pages" / ".hidden").mkdir()
    for name in ("b.html", "a.htm", "sub/c.HTML", "notes.txt", "meta.json", ".hidden/x.html", ".y.html"):
        (tmp_path / "pages" / name).write_bytes(HTML)
    (tmp_path / "lists").mkdir()
    return tmp_path


def test_directory_is_expanded_recursively_sorted_html_only(tree: Path) -> None:
    assert _kinds(expand_sources(["pages"])) == [
        ("file", "pages/a.htm"), ("file", "pages/b.html"), ("file", "pages/sub/c.HTML")]


def test_url_list_with_comments_blank_lines_and_paths_relative_to_the_list(tree: Path) -> None:
    listing = tree / "lists" / "urls.txt"
    listing.write_text(
        "# learning pages\n"
        "\n"
        "https://example.com/a   \n"
        "  # indented comment\n"
        "../pages/b.html\n"
        "../pages/sub/\n"
        f"{tree / 'pages' / 'a.htm'}\n"
        "http://example.com/b?x=1#frag\n"
    )
    assert is_url_list(listing)
    assert _kinds(expand_sources(["lists/urls.txt"])) == [
        ("url", "https://example.com/a"),
        ("file", "lists/../pages/b.html"),
        ("file", "lists/../pages/sub/c.HTML"),
        ("file", str(tree / "pages" / "a.htm")),
        ("url", "http://example.com/b?x=1#frag"),
    ]


def test_missing_entries_and_arguments_are_error_sources_naming_them(tree: Path) -> None:
    (tree / "lists" / "urls.txt").write_text("gone.html\n../pages/b.html\n")
    got = expand_sources(["nothere.html", "lists/urls.txt", "empty_dir_missing/"])
    assert [s.kind for s in got] == ["error", "error", "file", "error"]
    assert [s.source for s in got if s.kind == "error"] == ["nothere.html", "lists/gone.html",
                                                             "empty_dir_missing/"]
    for src in got:
        if src.kind == "error":
            assert isinstance(src.error, SourceError) and src.source in str(src.error)
            assert src.error.exit_code == 3


def test_empty_directory_and_comment_only_list_are_errors(tree: Path) -> None:
    (tree / "void").mkdir()
    (tree / "lists" / "urls.txt").write_text("# nothing yet\n\n")
    got = expand_sources(["void", "lists/urls.txt"])
    assert [s.kind for s in got] == ["error", "error"]
    assert "no .html or .htm files" in str(got[0].error)
    assert "no entries" in str(got[1].error)


@pytest.mark.parametrize(
    ("name", "content", "is_list"),
    [
        ("urls.txt", b"https://a.example/1\nhttps://a.example/2\n", True),
        ("urls", b"# just urls\nhttp://a.example/\n", True),
        ("page.txt", b"<p>hello</p>", False),  # markup: a page
        ("page.html", b"https://a.example/1\n", False),  # an HTML suffix is never a list
        ("data.json", b'{"url": "https://a.example/"}', False),  # read as a page, reported as not HTML
        ("notes.txt", b"hello there\n", False),  # prose
        ("empty.txt", b"", False),  # an empty page, not an empty list
        ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00", False),
        ("latin.txt", b"caf\xe9.html\n", False),  # not UTF-8
    ],
)
def test_url_list_sniffing(tmp_path: Path, name: str, content: bytes, is_list: bool) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert is_url_list(path) is is_list


def test_stdin_only_when_allowed_and_only_once() -> None:
    with pytest.raises(SourceError, match="only be read by `fce detect`"):
        expand_sources(["-"])
    with pytest.raises(SourceError, match="twice"):
        expand_sources(["-", "-"], allow_stdin=True)
    assert _kinds(expand_sources(["-"], allow_stdin=True)) == [("stdin", "-")]


def test_reading_files_stdin_and_sidecar_url(tree: Path) -> None:
    (tree / "pages" / "b.json").write_text(json.dumps({"url": "https://www.news.example/b", "site": "x"}))
    (tree / "pages" / "a.json").write_text("{not json")  # a broken sidecar is ignored, not fatal
    items = list(read_pages(["pages/a.htm", "pages/b.html", "-", "missing.html"], allow_stdin=True,
                            stdin=io.BytesIO(b"<p>from stdin</p>")))
    assert [i.source for i in items] == ["pages/a.htm", "pages/b.html", "-", "missing.html"]
    assert items[0].url is None and items[0].data == HTML
    assert items[1].url == "https://www.news.example/b"
    assert items[2].data == b"<p>from stdin</p>"
    assert isinstance(items[3].error, SourceError)
    with pytest.raises(SourceError, match="missing.html: no such file"):
        items[3].parse()
    assert items[1].parse().url == "https://www.news.example/b"


def test_size_cap_applies_before_reading_whole_files_and_stdin(tmp_path: Path) -> None:
    big = tmp_path / "big.html"
    big.write_bytes(b"<p>" + b"x" * 5000 + b"</p>")
    (batch,) = read_sources(expand_sources([str(big), "-"], allow_stdin=True), max_bytes=1000,
                            stdin=io.BytesIO(b"<p>" + b"y" * 2000))
    assert all(isinstance(i.error, PageTooLargeError) for i in batch)
    assert str(big) in str(batch[0].error)


def test_batches_keep_input_order_and_report_progress(tree: Path) -> None:
    seen: list[str] = []
    batches = list(read_sources(expand_sources(["pages"]), batch_size=2, progress=seen.append))
    assert [len(b) for b in batches] == [2, 1]
    expected = ["pages/a.htm", "pages/b.html", "pages/sub/c.HTML"]
    assert [i.source for b in batches for i in b] == seen == expected


@pytest.mark.parametrize(
    ("data", "error"),
    [(b"", EmptyPageError), (b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, NotHTMLError), (b'{"a": 1}', NotHTMLError)],
)
def test_parse_errors_name_the_source(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error, match="^in.html: "):
        PageInput("in.html", data=data).parse()


# --- pipes, FIFOs and a closed standard input: every source read once, none waited for forever ---------------

FCE = str(Path(sys.executable).with_name("fce"))
PAGE = b"<html><body><p>" + b"A page that came through a pipe, read once. " * 20 + b"</p></body></html>"
PIPE_TIMEOUT = 60  # seconds for a test's writer thread or fce subprocess; each takes well under a second
needs_dev_fd = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /dev/fd and /proc (Linux)")


def _writer(target: str | Path | int, data: bytes, delay: float = 0.0) -> threading.Thread:
    """A thread that opens ``target`` for writing (a path: blocking until a reader opens it; an int: a pipe's write
    end, which the thread then owns), writes ``data`` and closes it; a reader that stops early (the size cap) is not
    an error."""

    def write() -> None:
        time.sleep(delay)
        try:
            with open(target, "wb") as f:
                f.write(data)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def pipe() -> Iterator[tuple[str, int]]:
    """``(/dev/fd/N of the read end, the write end)`` of an anonymous pipe, as ``<(…)`` hands it to fce. The
    test closes the write end (or hands it to a writer that does)."""
    read_end, write_end = os.pipe()
    try:
        yield f"/dev/fd/{read_end}", write_end
    finally:
        os.close(read_end)


@needs_dev_fd
def test_a_page_from_an_anonymous_pipe_is_read_once(pipe: tuple[str, int]) -> None:
    name, write_end = pipe
    thread = _writer(write_end, PAGE * 200)  # more than a pipe holds: the writer waits for the reader
    (item,) = read_pages([name])
    thread.join(PIPE_TIMEOUT)
    assert item.error is None and item.data == PAGE * 200  # the URL-list check did not eat the page
    assert "read once" in item.parse().body.xpath("string()")


@needs_dev_fd
def test_a_url_list_from_an_anonymous_pipe_is_expanded(pipe: tuple[str, int], tree: Path) -> None:
    name, write_end = pipe
    os.write(write_end, b"# pages\nhttps://example.com/a\npages/b.html\n")
    os.close(write_end)
    assert _kinds(expand_sources([name])) == [("url", "https://example.com/a"), ("file", "pages/b.html")]


@needs_dev_fd
def test_a_pipe_is_read_up_to_the_size_cap_only(pipe: tuple[str, int]) -> None:
    name, write_end = pipe
    _writer(write_end, b"<p>" + b"x" * 2_000_000)  # (blocked, once the pipe is full, until it is closed)
    (batch,) = read_sources(expand_sources([name]), max_bytes=1000)
    assert isinstance(batch[0].error, PageTooLargeError) and name in str(batch[0].error)


@pytest.mark.parametrize("delay", [0.0, 0.3])  # a writer waiting for fce, and one started after it
def test_a_fifo_is_read_once_its_writer_comes(tmp_path: Path, delay: float) -> None:
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    thread = _writer(fifo, PAGE, delay)
    (item,) = read_pages([str(fifo)])
    thread.join(PIPE_TIMEOUT)
    assert item.error is None and item.data == PAGE


def test_a_fifo_named_in_a_url_list_is_read(tree: Path) -> None:
    os.mkfifo(tree / "pages" / "live.html")
    (tree / "lists" / "urls.txt").write_text("../pages/live.html\n")
    thread = _writer(tree / "pages" / "live.html", PAGE)
    (item,) = read_pages(["lists/urls.txt"])
    thread.join(PIPE_TIMEOUT)
    assert item.source == "lists/../pages/live.html" and item.data == PAGE


def test_a_fifo_without_a_writer_is_an_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "nobody.fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    (src,) = expand_sources([str(fifo)])
    assert time.monotonic() - started < FIFO_WRITER_WAIT + PIPE_TIMEOUT / 10
    assert isinstance(src.error, SourceError)
    assert str(src.error) == f"{fifo}: named pipe has no writer (waited {FIFO_WRITER_WAIT:g} s)"


def test_a_closed_standard_input_is_a_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python sets when started with fd 0 closed
    (item,) = read_pages(["-"], allow_stdin=True)
    assert isinstance(item.error, SourceError) and str(item.error) == "-: standard input is closed"


def _fce(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([FCE, "--store", "memory://", *args], capture_output=True, timeout=PIPE_TIMEOUT,
                          **kwargs)  # type: ignore[call-overload]


@needs_dev_fd
def test_fce_detect_reads_a_process_substitution(pipe: tuple[str, int]) -> None:
    name, write_end = pipe
    os.write(write_end, PAGE)
    os.close(write_end)
    read_end = int(name.rsplit("/", 1)[1])
    result = _fce("detect", "--method", "mainblock", name, pass_fds=(read_end,))
    assert result.returncode == 0, result.stderr
    assert b"read once" in result.stdout


def test_fce_detect_on_a_fifo_without_a_writer_and_a_closed_stdin(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "nobody")
    result = _fce("detect", "nobody", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (SourceError.exit_code, b"")
    assert result.stderr == f"fce: error: nobody: named pipe has no writer (waited {FIFO_WRITER_WAIT:g} s)\n".encode()
    closed = subprocess.run(["sh", "-c", f'exec "{FCE}" --store memory:// detect --format json - <&-'],
                            capture_output=True, timeout=PIPE_TIMEOUT)
    assert closed.returncode == SourceError.exit_code
    assert closed.stderr == b"fce: error: -: standard input is closed\n"
    assert json.loads(closed.stdout) == {"source": "-", "error": "-: standard input is closed", "status": "source"}
