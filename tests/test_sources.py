"""Tests of fce.sources: resolving SOURCE arguments (URL lists, directories, files, stdin), reading them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fce.errors import EmptyPageError, NotHTMLError, PageTooLargeError, SourceError
from fce.sources import PageInput, expand_sources, is_url_list, read_pages, read_sources

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
