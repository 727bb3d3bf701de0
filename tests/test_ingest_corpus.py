"""The crawl the ingest tests run on, written by the tests (no downloads), and checks of the corpus itself.

Other ``test_ingest_*`` modules import :func:`build_crawl`, :func:`rows_of` and :func:`check_rows` from here.

Two WARC files (one gzipped per record, one plain) hold the pages of three generated sites, split across both:
``news.alpha.co.uk`` (25 pages, registered domain ``alpha.co.uk``), ``beta.org`` (25 pages, table layout,
windows-1252) and ``gamma.net`` (3 pages: too few to learn). The first file adds the records a crawl also holds:
an image, a ``request`` and a ``metadata`` record, a binary body declared as HTML, a page over the size cap, a
gzip-encoded page, a body with a broken gzip encoding, an empty body and a 404 page.

What counts as a record (a row): every ``response`` / ``resource`` record; ``warcinfo``, ``request`` and
``metadata`` records get no row and are counted in the manifest's ``other_records``.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fce.ingest import WarcPage, write_warc
from fce.ingest.readers import InputSource, WarcReader
from tests.sitegen import SiteStyle, generate_site

#: Size cap of the test runs: the oversize record is above it, every generated page far below.
MAX_BYTES = 200_000

LEARNED = ("alpha.co.uk", "beta.org")
SMALL = "gamma.net"


@dataclass
class Crawl:
    """The files written and what a run over them must produce."""

    files: list[Path]
    #: url -> the status its row must have; None: a generated page of a learned domain (ok or fallback)
    expected: dict[str, str | None] = field(default_factory=dict)
    #: WARC records per file that get no row, by type
    other: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def records(self) -> int:
        return len(self.expected)


def _page(p: Any) -> WarcPage:
    return WarcPage(p.url, p.html, content_type=f"text/html; charset={p.charset}")


def build_crawl(directory: Path) -> Crawl:
    directory.mkdir(parents=True, exist_ok=True)
    alpha = generate_site("news.alpha.co.uk", 25)
    beta = generate_site("beta.org", 25, style=SiteStyle(layout="table", charset="windows-1252"))
    gamma = generate_site(SMALL, 3)
    expected: dict[str, str | None] = {p.url: None for p in alpha + beta}
    expected.update({p.url: "fallback" for p in gamma})
    specials = [
        (WarcPage("https://beta.org/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png"),
         "skipped_non_html"),
        (WarcPage("https://beta.org/style.css", b"body { color: red }", content_type="text/css"),
         "skipped_non_html"),
        (WarcPage("https://gamma.net/broken.html", bytes(range(256)) * 20, content_type="text/html"), "not_html"),
        (WarcPage("https://gamma.net/huge.html", b"<html><body>" + b"<p>word word</p>" * 20_000 + b"</body></html>"),
         "too_large"),
        (WarcPage("https://www.alpha.co.uk/gzip.html", gzip.compress(alpha[3].html),
                  headers=(("Content-Encoding", "gzip"),)), None),
        (WarcPage("https://alpha.co.uk/bad-gzip.html", b"\x1f\x8b\x08\x00 not gzip at all",
                  headers=(("Content-Encoding", "gzip"),)), "decode_error"),
        (WarcPage("https://alpha.co.uk/empty.html", b""), "empty"),
        (WarcPage("https://beta.org/missing.html", b"<html><body><h1>Not found</h1></body></html>",
                  status="404 Not Found"), "fallback"),
    ]
    others = [
        WarcPage("https://beta.org/", b"GET / HTTP/1.1\r\nHost: beta.org\r\n\r\n",
                 content_type="application/http; msgtype=request", record_type="request"),
        WarcPage("https://beta.org/", b"fetchTimeMs: 12\r\n", content_type="application/warc-fields",
                 record_type="metadata"),
    ]
    first = [_page(p) for p in alpha[:12] + beta[:13] + gamma[:2]] + [page for page, _ in specials] + others
    second = [_page(p) for p in alpha[12:] + beta[13:] + gamma[2:]]
    for page, status in specials:
        expected[page.url] = status
    files = [write_warc(directory / "crawl-1.warc.gz", first), write_warc(directory / "crawl-2.warc", second)]
    other = {files[0].name: {"warcinfo": 1, "request": 1, "metadata": 1}, files[1].name: {"warcinfo": 1}}
    return Crawl(files, expected, other)


def rows_of(out_dir: Path) -> list[dict[str, Any]]:
    """Every row of every output file in ``out_dir``."""
    rows: list[dict[str, Any]] = []
    for path in sorted(out_dir.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f)
    return rows


def check_rows(crawl: Crawl, rows: list[dict[str, Any]]) -> None:
    """One row per record with the expected status; most pages of learned domains extracted by template."""
    assert sorted(r["url"] for r in rows) == sorted(crawl.expected), "rows out != records in"
    by_url = {r["url"]: r for r in rows}
    for url, status in crawl.expected.items():
        row = by_url[url]
        if status is None:
            assert row["status"] in ("ok", "fallback"), row
            assert row["domain"] in LEARNED and row["text"], row
        else:
            assert row["status"] == status, (url, row)
    pages = [by_url[url] for url, status in crawl.expected.items() if status is None]
    assert sum(r["status"] == "ok" for r in pages) >= 0.8 * len(pages)
    for row in rows:
        if row["domain"] == SMALL and row["status"] == "fallback":
            assert row["fallback_reason"] == "no-template"


# --- the corpus itself ------------------------------------------------------------------------------------


def test_crawl_has_the_records_it_claims(tmp_path: Path) -> None:
    crawl = build_crawl(tmp_path)
    seen: list[str] = []
    for file in crawl.files:
        reader = WarcReader(InputSource(str(file), "warc"), max_bytes=MAX_BYTES)
        for record in reader.records():
            assert record.url is not None
            seen.append(record.url)
        assert dict(reader.other_records) == crawl.other[file.name]
    assert sorted(seen) == sorted(crawl.expected)
    assert crawl.files[0].read_bytes()[:2] == b"\x1f\x8b" and crawl.files[1].read_bytes()[:5] == b"WARC/"


def test_crawl_is_deterministic(tmp_path: Path) -> None:
    first = build_crawl(tmp_path / "a")
    second = build_crawl(tmp_path / "b")
    assert first.expected == second.expected
    assert first.files[1].read_bytes().count(b"WARC/1") == second.files[1].read_bytes().count(b"WARC/1")
