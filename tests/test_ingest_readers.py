"""fce.ingest.readers: inputs, WARC records with both backends, codings, JSON lines and folders."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path
from typing import Any

import brotli
import pytest

from fce.errors import SourceError
from fce.ingest.readers import (
    FolderReader,
    InputSource,
    JsonLinesReader,
    RawRecord,
    WarcPage,
    WarcReader,
    expand_inputs,
    write_warc,
)
from tests.sitegen import generate_site, write_site
from tests.test_ingest_corpus import MAX_BYTES, Crawl, build_crawl

HTML = b"<html><head><title>t</title></head><body><p>caf\xc3\xa9 page</p></body></html>"


def chunked(data: bytes, size: int = 10) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size]) for i in range(0, len(data), size)]
    return b"".join(parts) + b"0\r\n\r\n"


def warc_records(path: Path, backend: str, max_bytes: int = MAX_BYTES) -> tuple[list[RawRecord], dict[str, int]]:
    reader = WarcReader(InputSource(str(path), "warc"), max_bytes=max_bytes, backend=backend)
    return list(reader.records()), dict(reader.other_records)


BACKENDS = ["fastwarc", "warcio"]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    return build_crawl(tmp_path_factory.mktemp("crawl"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_both_backends_read_the_crawl_alike(backend: str, crawl: Crawl) -> None:
    for file in crawl.files:
        records, other = warc_records(file, backend)
        reference, _ = warc_records(file, "fastwarc")
        assert records == reference
        assert other == crawl.other[file.name]
        assert [r.index for r in records] == list(range(len(records)))
        by_url = {r.url: r for r in records}
        for url, status in crawl.expected.items():
            if url in by_url and status in ("skipped_non_html", "too_large", "decode_error"):
                assert by_url[url].status == status


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("body", "headers", "status", "data"), [
    (HTML, (), None, HTML),
    (gzip.compress(HTML), (("Content-Encoding", "gzip"),), None, HTML),
    (HTML, (("Content-Encoding", "gzip"),), None, HTML),  # stored decoded under the original header
    (zlib.compress(HTML), (("Content-Encoding", "deflate"),), None, HTML),
    (zlib.compress(HTML)[2:-4], (("Content-Encoding", "deflate"),), None, HTML),  # raw deflate
    (brotli.compress(HTML), (("Content-Encoding", "br"),), None, HTML),
    (chunked(HTML), (("Transfer-Encoding", "chunked"),), None, HTML),
    (chunked(gzip.compress(HTML)), (("Transfer-Encoding", "chunked"), ("Content-Encoding", "gzip")), None, HTML),
    (b"\x1f\x8b\x08\x00broken", (("Content-Encoding", "gzip"),), "decode_error", None),
    (gzip.compress(HTML)[:-12], (("Content-Encoding", "gzip"),), "decode_error", None),
    (b"\x00\x01compressed?", (("Content-Encoding", "zstd"),), "decode_error", None),
    (gzip.compress(b"<p>" + b"a" * 5000), (("Content-Encoding", "gzip"),), "too_large", None),  # a gzip bomb
])
def test_content_and_transfer_codings(backend: str, body: bytes, headers: tuple[tuple[str, str], ...],
                                      status: str | None, data: bytes | None, tmp_path: Path) -> None:
    path = write_warc(tmp_path / "c.warc.gz", [WarcPage("https://a.com/", body, headers=headers)])
    (record,), _ = warc_records(path, backend, max_bytes=4096)
    assert (record.status, record.data) == (status, data)
    if status is None:
        assert record.charset == "utf-8" and record.http_status == 200


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("content_type", "record_type", "body", "status"), [
    ("text/html", "response", HTML, None),
    ("application/xhtml+xml; charset=utf-8", "response", HTML, None),
    ("image/jpeg", "response", b"\xff\xd8\xff\xe0", "skipped_non_html"),
    ("application/json", "response", b"{}", "skipped_non_html"),
    (None, "response", b"<!DOCTYPE html><html><body>x</body></html>", None),  # no type: sniffed
    (None, "response", b"%PDF-1.4", "skipped_non_html"),
    ("text/html", "resource", HTML, None),
    ("application/pdf", "resource", b"%PDF-1.4", "skipped_non_html"),
])
def test_what_is_html(backend: str, content_type: str | None, record_type: str, body: bytes,
                      status: str | None, tmp_path: Path) -> None:
    page = WarcPage("https://a.com/x", body, content_type=content_type, record_type=record_type)
    (record,), _ = warc_records(write_warc(tmp_path / "t.warc", [page]), backend)
    assert record.status == status and record.url == "https://a.com/x"


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_refs_finds_records_again(backend: str, crawl: Crawl) -> None:
    for file in crawl.files:
        reader = WarcReader(InputSource(str(file), "warc"), max_bytes=MAX_BYTES, backend=backend)
        pages = [r for r in reader.records() if r.status is None]
        again = list(reader.read_refs([r.ref for r in reversed(pages)]))
        assert [(r.url, r.data) for r in again] == [(r.url, r.data) for r in pages]


def test_damaged_archives_end_with_one_decode_error_row(tmp_path: Path) -> None:
    (tmp_path / "text.warc").write_text("hello, not a WARC\n")
    (records,) = [list(WarcReader(InputSource(str(tmp_path / "text.warc"), "warc")).records())]
    assert [(r.status, r.url) for r in records] == [("decode_error", None)]
    (tmp_path / "junk.warc.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (record,) = WarcReader(InputSource(str(tmp_path / "junk.warc.gz"), "warc")).records()
    assert record.status == "decode_error" and "no WARC record" in (record.error or "")
    (tmp_path / "empty.warc").write_bytes(b"")
    assert list(WarcReader(InputSource(str(tmp_path / "empty.warc"), "warc")).records()) == []


def test_json_lines(tmp_path: Path) -> None:
    lines = [
        json.dumps({"url": "https://a.com/1", "html": "<p>é</p>"}),
        "",
        "{broken",
        json.dumps(["not", "an", "object"]),
        json.dumps({"url": "https://a.com/2"}),
        json.dumps({"html": "<p>no url</p>"}),
    ]
    for name in ("p.jsonl", "p.jsonl.gz"):
        path = tmp_path / name
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        reader = JsonLinesReader(InputSource(str(path), "jsonl"))
        records = list(reader.records())
        assert [(r.url, r.status) for r in records] == [
            ("https://a.com/1", None), (None, "decode_error"), (None, "decode_error"),
            ("https://a.com/2", "decode_error"), (None, None)]
        assert records[0].data == "<p>é</p>"
        assert [r.data for r in reader.read_refs([records[4].ref, records[0].ref])] == ["<p>é</p>", "<p>no url</p>"]


def test_folder_of_html_files(tmp_path: Path) -> None:
    pages = generate_site("folder.net", 3)
    write_site(pages, tmp_path / "site" / "a")
    (tmp_path / "site" / "b.htm").write_bytes(HTML)  # no .json: no URL
    (tmp_path / "site" / ".hidden.html").write_bytes(HTML)
    (tmp_path / "site" / "big.html").write_bytes(b"<p>" + b"x" * 5000)
    reader = FolderReader(InputSource(str(tmp_path / "site"), "html-dir"), max_bytes=4096)
    records = list(reader.records())
    assert [r.ref for r in records] == sorted(f"a/{p.page_id}.html" for p in pages) + ["b.htm", "big.html"]
    assert {r.url for r in records[:3]} == {p.url for p in pages}
    assert records[3].url is None and records[4].status == "too_large"
    assert [r.data for r in reader.read_refs(["b.htm"])] == [HTML]


def test_folder_file_that_grows_while_read_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "site" / "p.html"
    page.parent.mkdir()
    page.write_bytes(HTML)
    real_stat = Path.stat

    def stale_stat(self: Path, **kw: Any) -> Any:  # the size seen before the file was appended to
        result = real_stat(self, **kw)
        return os.stat_result((*result[:6], 10, *result[7:])) if self == page else result

    monkeypatch.setattr(Path, "stat", stale_stat)
    (record,) = FolderReader(InputSource(str(page.parent), "html-dir")).records()
    assert record.data == HTML


def test_expand_inputs(tmp_path: Path) -> None:
    crawl = build_crawl(tmp_path / "crawl")
    write_site(generate_site("folder.net", 2), tmp_path / "crawl" / "html")
    (tmp_path / "crawl" / "pages.jsonl").write_text("")
    found = expand_inputs([tmp_path / "crawl", crawl.files[0]])  # a file named twice is one input
    assert [(Path(s.path).name, s.kind) for s in found] == [
        ("crawl-1.warc.gz", "warc"), ("crawl-2.warc", "warc"), ("pages.jsonl", "jsonl"), ("crawl", "html-dir")]
    with pytest.raises(SourceError, match="no such file"):
        expand_inputs([tmp_path / "missing.warc"])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SourceError, match="not an input"):
        expand_inputs([tmp_path / "notes.txt"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no"):
        expand_inputs([tmp_path / "empty"])
