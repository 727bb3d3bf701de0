"""fce.sites: one site identity for every command, and the one check of the site names users give.

The cross-command tests run the real ``fce`` console script (``fce learn``, ``fce detect``, ``fce ingest``,
``fce serve``) against one SQLite store in a temporary directory: a template learned by one command must be found
by the others, for pages whose URLs name other hosts of the same site.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce.errors import InputError
from fce.parse import parse_page
from fce.sites import (
    MAX_SITE_CHARS,
    normalize_site,
    printable_site,
    site_from_host,
    site_from_name,
    site_from_url,
    site_of,
    stored_site_names,
)
from tests._serving import running_serve
from tests.sitegen import GeneratedPage, generate_site, write_site

FCE = str(Path(sys.executable).with_name("fce"))
DOMAIN = "example.co.uk"  # the site; its pages are served from the hosts below
LEARN_HOST = f"news.{DOMAIN}"
OTHER_HOST = f"www.{DOMAIN}"
N_PAGES = 14  # pages learned from (10) and detected (4); learning warns below 20 pages but learns
N_LEARN = 10
COMMAND_TIMEOUT = 120  # seconds for one fce command (they take 1-3 s; the machine may be shared)
TOKEN = "sites-test-token-0123456789"  # fce serve's writes (POST /learn) need a bearer token of 16+ characters
AUTH = {"Authorization": f"Bearer {TOKEN}"}


# --- the rule -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "site"), [
    ("https://WWW.Example.com:8080/x", "example.com"),
    ("https://news.example.com/a", "example.com"),  # a subdomain is a part of its registered domain
    ("http://News.BBC.co.uk./x?y=1", "bbc.co.uk"),
    ("https://www.bbc.co.uk/", "bbc.co.uk"),
    ("https://m.example.com/a", "example.com"),  # mobile and AMP hosts: the same site
    ("https://amp.example.com/a", "example.com"),
    ("https://alice.blogspot.com/post", "alice.blogspot.com"),  # a private suffix of the list: each blog a site
    ("https://www.alice.blogspot.com/post", "alice.blogspot.com"),
    ("https://bob.github.io/", "bob.github.io"),
    ("https://carol.substack.com/p/x", "carol.substack.com"),  # fce.sites.PLATFORM_SUFFIXES
    ("https://www.substack.com/", "substack.com"),  # the platform's own site
    ("https://blogspot.com/", "blogspot.com"),
    ("https://user:pw@shop.example.de/", "example.de"),
    ("https://例え.jp/ページ", "例え.jp"),
    ("https://xn--r8jz45g.jp/", "xn--r8jz45g.jp"),
    ("http://127.0.0.1:8000/", "127.0.0.1"),
    ("http://[::1]/", "::1"),
    ("http://localhost/x", "localhost"),
    ("https://www.news.test/a", "news.test"),  # no public suffix: the host without www.
    ("http://co.uk/", "co.uk"),
    ("news.bbc.co.uk", "bbc.co.uk"),  # a bare host
    ("cnn.com/path", "cnn.com"),
    ("mysite", "mysite"),
    ("ftp://example.com/file", None),
    ("file:///etc/passwd", None),
    ("http://[unclosed/", None),
    ("https://exa\x1bmple.com/", None),  # a host no site name can be
    ("", None),
    (None, None),
])
def test_site_from_name(name: str | None, site: str | None) -> None:
    assert site_from_name(name) == site


def test_site_from_url_takes_only_http_urls() -> None:
    assert site_from_url("file:///tmp/x.html") is None and site_from_url("-") is None
    assert site_from_url("page.html") is None and site_from_url("example.com") is None
    assert site_from_url("https://www.example.com/") == "example.com"


@pytest.mark.parametrize(
    "head",
    ['<link rel="canonical" href="https://www.news.test/a">', '<meta property="og:url" content="http://news.test/">'],
)
def test_site_from_canonical_or_og_url(head: str) -> None:
    page = parse_page(f"<html><head>{head}</head><body><p>x</p></body></html>".encode())
    assert site_of(page) == "news.test"


def test_explicit_and_url_win() -> None:
    page = parse_page(b'<html><head><link rel="canonical" href="https://a.test/"></head><body>x</body></html>',
                      url="https://b.test/page")
    assert site_of(page) == "b.test"
    assert site_of(page, "C.test") == "c.test"
    assert site_of(page, "https://news.example.com/") == "example.com"


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"(https?://)?([a-z0-9-]{1,8}\.){0,4}[a-z]{2,6}(:\d{1,5})?(/\w*)?",
                                            fullmatch=True))
def test_a_site_is_its_own_site_and_a_bad_name_is_an_input_error(name: str) -> None:
    try:
        site = normalize_site(name)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).isprintable()
        return
    assert normalize_site(site) == site == site_from_name(site)
    assert site.isprintable() and not any(c.isspace() for c in site) and len(site) <= MAX_SITE_CHARS


# --- names users give -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "why", "shown"), [
    ("news\x1b[31m.example.com", "control characters", "news\\x1b[31m.example.com"),
    ("exa\x00mple.com", "control characters", "exa\\x00mple.com"),
    ("example.com\u202e", "control characters", "example.com\\u202e"),  # a right-to-left override
    ("exa mple.com", "whitespace", "exa\\x20mple.com"),
    ("exa\tmple.com", "whitespace", "exa\\x09mple.com"),
    ("a" * (MAX_SITE_CHARS + 1), f"longer than {MAX_SITE_CHARS} characters", "a" * 80 + "…"),
    ("", "empty", '""'),
    ("ftp://example.com/", "not an http(s) URL", "ftp://example.com/"),
    ("https:///path", "not an http(s) URL", "https:///path"),
])
def test_unusable_site_names_are_one_line_input_errors_naming_them_escaped(name: str, why: str, shown: str) -> None:
    with pytest.raises(InputError) as info:
        normalize_site(name)
    message = str(info.value)
    assert message.startswith(f"{shown}: not a usable site name (") and why in message
    assert message.isprintable() and info.value.exit_code == 14


def test_a_long_url_names_its_short_site() -> None:
    assert normalize_site("https://news.example.com/" + "x" * 1000) == "example.com"


def test_printable_site_escapes_what_a_terminal_would_act_on() -> None:
    assert printable_site("example.com") == "example.com"
    assert printable_site("a\x1b[2Jb\u202ec\\d e\x00") == "a\\x1b[2Jb\\u202ec\\x5cd\\x20e\\x00"


def test_stored_site_names_find_a_record_stored_under_its_host() -> None:
    assert stored_site_names("news.example.com") == ("example.com", "news.example.com")
    assert stored_site_names("https://www.news.example.com/x") == ("example.com", "news.example.com")
    assert stored_site_names("www.example.com") == ("example.com",)
    assert stored_site_names("mysite") == ("mysite",)


def test_host_rule_lowercases_and_drops_the_root_dot() -> None:
    assert site_from_host("WWW.Example.COM.") == "example.com"
    assert site_from_host("") is None and site_from_host(None) is None
    assert site_from_host("x" * (MAX_SITE_CHARS + 1)) is None


# --- every command finds what another learned -----------------------------------------------------------------


def _fce(*args: str, cwd: Path, timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FCE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "FCE_STORE": ""})


def _on_host(page: GeneratedPage, host: str) -> GeneratedPage:
    parts = urlsplit(page.url)
    return GeneratedPage(urlunsplit(parts._replace(netloc=host)), page.html, page.gold, page.charset)


@pytest.fixture(scope="module")
def pages() -> list[GeneratedPage]:
    """Pages of one site: the first ones on ``news.``, the rest on ``www.``, as a crawl finds them."""
    generated = generate_site(LEARN_HOST, N_PAGES, seed=7)
    return [_on_host(p, LEARN_HOST if i < N_LEARN else OTHER_HOST) for i, p in enumerate(generated)]


def _jsonl(pages: list[GeneratedPage], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for p in pages:
            f.write(json.dumps({"url": p.url, "html": p.html.decode(p.charset)}) + "\n")
    return path


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for f in sorted(out.glob("*.jsonl")) for line in f.read_text().splitlines()]


def _detected(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    assert result.returncode == 0, result.stderr
    return [(row["site"], row["method"]) for row in map(json.loads, result.stdout.splitlines())]


def test_learn_command_then_ingest_detect_only(pages: list[GeneratedPage], tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path}/t.db"
    write_site(pages[:N_LEARN], tmp_path / "learn")
    learned = _fce("--store", store, "learn", "--site", LEARN_HOST, "learn", cwd=tmp_path)
    assert learned.returncode == 0, learned.stderr
    assert f"site:           {DOMAIN}\n" in learned.stdout
    crawl = _jsonl(pages[N_LEARN:], tmp_path / "crawl" / "new.jsonl")
    ingested = _fce("ingest", "--store", store, "--out", "out", "--detect-only", "--workers", "0",
                    "--no-progress", str(crawl), cwd=tmp_path)
    assert ingested.returncode == 0, ingested.stderr
    rows = _rows(tmp_path / "out")
    assert [(r["domain"], r["status"], r["method"]) for r in rows] == [(DOMAIN, "ok", "template")] * len(rows)
    assert len(rows) == N_PAGES - N_LEARN


def test_ingest_learn_then_detect_command(pages: list[GeneratedPage], tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path}/t.db"
    crawl = _jsonl(pages[:N_LEARN], tmp_path / "crawl" / "learn.jsonl")
    ingested = _fce("ingest", "--store", store, "--out", "out", "--learn-only", "--min-pages", "5",
                    "--workers", "0", "--no-progress", str(crawl), cwd=tmp_path)
    assert ingested.returncode == 0, ingested.stderr
    files = write_site(pages[N_LEARN:], tmp_path / "new")  # each page's URL (www.) in its sidecar .json
    detected = _fce("--store", store, "detect", "--format", "json", *map(str, files), cwd=tmp_path)
    assert _detected(detected) == [(DOMAIN, "template")] * len(files)
    listed = _fce("--store", store, "sites", "--format", "json", cwd=tmp_path)
    assert [json.loads(line)["site"] for line in listed.stdout.splitlines()] == [DOMAIN]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``(base URL, store URL)`` of a running ``fce serve`` on a SQLite store in ``tmp_path``."""
    store = f"sqlite:///{tmp_path}/t.db"
    with running_serve(tmp_path, "--log-level", "warning", store=store, env={"FCE_SERVE_TOKEN": TOKEN}) as running:
        yield running.base, store


def test_serve_learn_then_detect_command(pages: list[GeneratedPage], served: tuple[str, str],
                                         tmp_path: Path) -> None:
    base, store = served
    html = [p.html.decode(p.charset) for p in pages[:N_LEARN]]
    r = httpx.post(f"{base}/learn", json={"site": f"https://{LEARN_HOST}/", "html": html}, headers=AUTH,
                   timeout=COMMAND_TIMEOUT)
    assert r.status_code == 200, r.text
    assert r.json()["site"] == DOMAIN
    files = write_site(pages[N_LEARN:], tmp_path / "new")
    detected = _fce("--store", store, "detect", "--format", "json", *map(str, files), cwd=tmp_path)
    assert _detected(detected) == [(DOMAIN, "template")] * len(files)


def test_learn_command_then_serve_extract(pages: list[GeneratedPage], served: tuple[str, str],
                                          tmp_path: Path) -> None:
    base, store = served
    write_site(pages[:N_LEARN], tmp_path / "learn")
    learned = _fce("--store", store, "learn", "learn", cwd=tmp_path)  # the site from the pages' URLs
    assert learned.returncode == 0, learned.stderr
    for page in pages[N_LEARN:]:
        r = httpx.post(f"{base}/extract", json={"html": page.html.decode(page.charset), "url": page.url},
                       timeout=COMMAND_TIMEOUT)
        assert r.status_code == 200, r.text
        assert (r.json()["site"], r.json()["method"]) == (DOMAIN, "template")


def test_serve_refuses_unusable_site_names(served: tuple[str, str]) -> None:
    base, _ = served
    r = httpx.post(f"{base}/extract", json={"html": "<p>words here</p>", "site": "a\x1b[31mb.com"})
    assert r.status_code == 400 and "control characters" in r.json()["error"]
    r = httpx.post(f"{base}/learn", json={"site": "a b.com", "html": ["<p>x</p>"] * 3}, headers=AUTH)
    assert r.status_code == 422 and "whitespace" in r.text


# --- the CLI: --site checked before anything is read; stored names escaped --------------------------------------


@pytest.mark.parametrize("command", ["learn", "detect"])
def test_cli_refuses_an_unusable_site_before_reading(command: str, tmp_path: Path) -> None:
    result = _fce("--store", f"sqlite:///{tmp_path}/t.db", command, "--site", "news\x1b[31m.example",
                  "missing.html", cwd=tmp_path)
    assert result.returncode == InputError.exit_code  # 14, not 3: missing.html was not looked at
    assert result.stderr == ("fce: error: news\\x1b[31m.example: not a usable site name (control characters)\n")
    assert result.stdout == ""


def test_sites_escapes_stored_names_and_finds_records_stored_under_a_host(tmp_path: Path) -> None:
    from templates_store import open_store

    store = f"sqlite:///{tmp_path}/t.db"
    with open_store(store) as raw:  # records another program (or an older fce) stored
        raw.put("bad\x1b[2Jname", '{"schema": 1}')
        raw.put("news.example.com", '{"schema": 1}')
    listed = _fce("--store", store, "sites", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "\x1b" not in listed.stdout and "bad\\x1b[2Jname" in listed.stdout
    shown = _fce("--store", store, "sites", "show", "https://news.example.com/", cwd=tmp_path)
    assert shown.returncode == 0 and json.loads(shown.stdout) == {"schema": 1}
    deleted = _fce("--store", store, "sites", "delete", "news.example.com", cwd=tmp_path)
    assert deleted.returncode == 0 and deleted.stdout.startswith("deleted news.example.com from sqlite:")
    refused = _fce("--store", store, "sites", "delete", "bad\x1b[2Jname", cwd=tmp_path)
    assert refused.returncode == InputError.exit_code and "\x1b" not in refused.stderr
