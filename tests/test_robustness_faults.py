"""Faults around a page: the template store (Redis, SQLite, the stored templates) and the network.

Each fault gives a clear one-line message naming what failed and its own exit code; in batch mode every input still
gets a row (``--format json``); a failed learn or put leaves the stored template as it was. Redis faults run against
a real ``redis-server`` that the test stops, pauses and restarts; network faults against a loopback HTTP server.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import redis
from typer.testing import CliRunner

import fce
import fce.limits
import fce.service
from fce import cli, fetch
from fce.errors import FetchError, PageTimeoutError, StoreFailure, TemplateError
from fce.template import Template
from templates_store import SQLiteStore, open_store
from tests._serving import free_port
from tests.sitegen import GeneratedPage, generate_site

if TYPE_CHECKING:
    from tests.conftest import RedisServer

SITE = "faults.example"
OTHER = "other.example"
#: Tight Redis timeouts: a fault is reported within about a second, not after redis-py's defaults.
FAST = "socket_timeout=0.3&socket_connect_timeout=0.3&retries=1"
GIB = 1024**3


# --- shared material ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site() -> list[GeneratedPage]:
    """20 pages to learn from and 6 new ones."""
    return generate_site(SITE, 26, seed=5)


@pytest.fixture(scope="module")
def template(site: list[GeneratedPage]) -> Template:
    return fce.learn_template([fce.parse_page(p.html, url=p.url) for p in site[:20]], SITE)


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FCE_STORE", raising=False)
    monkeypatch.delenv("FCE_DEBUG", raising=False)
    monkeypatch.setenv("FCE_DATA_DIR", str(tmp_path / "data"))


def write_page(directory: Path, name: str, page: GeneratedPage, url: str | None = None) -> str:
    """The page as ``name.html`` with its URL in the sibling ``name.json`` (how fce finds a file's site)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.html").write_bytes(page.html)
    (directory / f"{name}.json").write_text(json.dumps({"url": url or page.url}))
    return str(directory / f"{name}.html")


def run(*args: str) -> Any:  # typer.testing.Result
    return CliRunner().invoke(cli.app, list(args))


def error_lines(stderr: str) -> list[str]:
    """stderr's lines, each checked to be a one-line fce error (no traceback, no progress bar)."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert all(line.startswith("fce: error: ") for line in lines), stderr
    return lines


def json_rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def assert_unchanged(store_url: str, site: str, payload: str, version: int) -> None:
    with open_store(store_url) as store:
        record = store.get(site)
    assert record is not None and (record.payload, record.version) == (payload, version)


# --- Redis --------------------------------------------------------------------------------------------------


def test_redis_unreachable_at_start(site: list[GeneratedPage], tmp_path: Path) -> None:
    """Nothing listens: learn (and detect --strict) stop naming the store, exit 13; detect extracts every page by
    the fallback, warns once and still exits 13."""
    page = write_page(tmp_path, "new", site[-1])
    store = f"redis://127.0.0.1:{free_port()}/0?{FAST}"
    env = {k: v for k, v in os.environ.items() if k != "FCE_DEBUG"}
    for args in (["detect", "--strict", page], ["learn", "--site", SITE, page], ["detect", page]):
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "fce", "--store", store, *args], capture_output=True,
                                text=True, env=env, timeout=60)
        assert result.returncode == StoreFailure.exit_code, result.stderr
        if "--strict" in args or args[0] == "learn":
            (line,) = error_lines(result.stderr)
            assert result.stdout == ""
        else:
            (line,) = result.stderr.splitlines()
            assert line.startswith("fce: warning: ") and line.endswith("(store-error)")
            assert result.stdout.strip()  # the page's text, by the fallback
        assert f"template store {store}" in line and "unreachable" in line
        assert time.monotonic() - started < 15


def _two_batches(site: list[GeneratedPage], directory: Path) -> list[str]:
    """64 pages of SITE (the first batch that `fce detect` reads), then 16 pages of 8 sites with no template, whose
    batch has to ask the store again."""
    paths = [write_page(directory, f"a{i:02d}", site[20 + i % 6]) for i in range(64)]
    for i in range(16):
        url = site[20 + i % 6].url.replace(SITE, f"site{i % 8}.example")
        paths.append(write_page(directory, f"b{i:02d}", site[20 + i % 6], url))
    return paths


@pytest.mark.redis
@pytest.mark.parametrize("fault", ["stopped", "paused", "restarted"])
def test_redis_fault_mid_run_keeps_every_record(
    fault: str, stoppable_redis: RedisServer, site: list[GeneratedPage], template: Template, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store goes away between two batches of `fce detect`: every page still gets its row; the rows after the
    fault say the store failed (exit 13) — or, after a restart, the run goes on as if nothing happened."""
    store = f"{stoppable_redis.url}?{FAST}"
    fce.service.save_template(open_store(store), template)
    paths = _two_batches(site, tmp_path / "pages")
    real_read = fce.service.read_sources

    def read_with_fault(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for number, batch in enumerate(real_read(*args, **kwargs)):
            if number == 1:
                if fault == "paused":  # a server that accepts connections but does not answer in time
                    with redis.Redis(port=stoppable_redis.port) as raw:
                        raw.client_pause(3000)
                else:
                    stoppable_redis.stop()
                    if fault == "restarted":
                        stoppable_redis.start()
            yield batch

    monkeypatch.setattr(fce.service, "read_sources", read_with_fault)
    started = time.monotonic()
    strict = fault == "paused"  # (both ways are checked: --strict on one fault, the default on the others)
    result = run("detect", "--store", store, "--format", "json", *(["--strict"] if strict else []), *paths)
    assert time.monotonic() - started < 20
    rows = json_rows(result.stdout)
    assert [row["source"] for row in rows] == paths  # no record lost
    assert all(row["method"] == "template" for row in rows[:64])
    if fault == "restarted":
        assert result.exit_code == 0, result.output
        assert all(row["fallback_reason"] == "no-template" for row in rows[64:])
        return
    assert result.exit_code == StoreFailure.exit_code
    if strict:
        assert all(row["status"] == "store" for row in rows[64:])
        assert all(f"template store {store}" in row["error"] for row in rows[64:])
        lines = error_lines(result.stderr)
        assert len(lines) == 16 and all("unreachable" in line for line in lines)
        return
    assert all(row["fallback_reason"] == "store-error" and row["text"] for row in rows[64:])
    (line,) = result.stderr.splitlines()  # one warning
    assert line.startswith(f"fce: warning: template store {store}") and "unreachable" in line


@pytest.mark.redis
def test_redis_slow_is_a_timeout_not_a_hang(stoppable_redis: RedisServer, site: list[GeneratedPage],
                                            tmp_path: Path) -> None:
    """A server that stops answering (CLIENT PAUSE) is reported after the socket timeout and the retries."""
    page = write_page(tmp_path, "new", site[-1])
    store = f"{stoppable_redis.url}?{FAST}"
    with redis.Redis(port=stoppable_redis.port) as raw:
        raw.client_pause(5000)
    started = time.monotonic()
    result = run("detect", "--strict", "--store", store, page)
    assert time.monotonic() - started < 4
    assert result.exit_code == StoreFailure.exit_code
    (line,) = error_lines(result.stderr)
    assert f"template store {store}" in line and "Timeout" in line


@pytest.mark.redis
def test_learn_when_redis_dies_before_the_put(stoppable_redis: RedisServer, site: list[GeneratedPage],
                                              template: Template, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Learning succeeded but the store is gone when the template is written: exit 13 naming the store and the
    site; the previous template is still the stored one once the server is back."""
    store = f"{stoppable_redis.url}?{FAST}"
    with open_store(store) as target:
        target.put(SITE, template.to_json())
    real_learn = fce.service.learn_sources

    def learn_then_stop(*args: Any, **kwargs: Any) -> Any:
        result = real_learn(*args, **kwargs)
        stoppable_redis.stop()
        return result

    monkeypatch.setattr(fce.service, "learn_sources", learn_then_stop)
    paths = [write_page(tmp_path, f"p{i}", page) for i, page in enumerate(site[:20])]
    result = run("learn", "--site", SITE, "--store", store, *paths)
    assert result.exit_code == StoreFailure.exit_code
    (line,) = error_lines(result.stderr)
    assert f"template store {store} (site '{SITE}')" in line
    stoppable_redis.start()  # no persistence: an empty server; nothing half-written either way
    with open_store(store) as target:
        assert target.get(SITE) is None


# --- stored templates ---------------------------------------------------------------------------------------


def _bad_payloads(template: Template) -> dict[str, tuple[str, str]]:
    data = template.to_dict()
    return {
        "corrupt": ('{"schema": 1, "site": "faults.exa', "stored template is not valid JSON"),
        "truncated-fields": (json.dumps({"schema": 1, "site": SITE}), "stored template is corrupt (KeyError"),
        "older-schema": (json.dumps({**data, "schema": 0}), "template schema 0 is not supported"),
        "newer-schema": (json.dumps({**data, "schema": 99}), "template schema 99 is not supported"),
        "another-site": (json.dumps({**data, "site": OTHER}), f"stored template was learned for site '{OTHER}'"),
    }


@pytest.mark.parametrize("kind", ["corrupt", "truncated-fields", "older-schema", "newer-schema", "another-site"])
def test_unusable_stored_template(kind: str, site: list[GeneratedPage], template: Template, tmp_path: Path) -> None:
    """A bad template: its own site's pages are extracted by the fallback, with one warning naming the site and
    what is wrong (exit 0); with --strict they fail (exit 11). The pages of other sites in the same run are
    extracted by their template either way."""
    payload, reason = _bad_payloads(template)[kind]
    store = f"sqlite://{tmp_path / 't.db'}"
    with open_store(store) as target:
        target.put(SITE, payload)
        target.put(OTHER, template.to_json().replace(f'"site":"{SITE}"', f'"site":"{OTHER}"'))
    bad = write_page(tmp_path / "pages", "bad", site[-1])
    good = write_page(tmp_path / "pages", "good", site[-2], site[-2].url.replace(SITE, OTHER))
    result = run("detect", "--store", store, "--format", "json", bad, good, bad)
    assert result.exit_code == 0
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"fce: warning: {SITE}: {reason}") and line.endswith("(template-error)"), line
    rows = json_rows(result.stdout)
    assert [row["source"] for row in rows] == [bad, good, bad]
    assert [row["fallback_reason"] for row in rows] == ["template-error", None, "template-error"]
    assert rows[0]["text"] and rows[1]["method"] == "template"
    result = run("detect", "--strict", "--store", store, "--format", "json", bad, good)
    assert result.exit_code == TemplateError.exit_code
    (line,) = error_lines(result.stderr)
    assert line.startswith(f"fce: error: {SITE}: {reason}"), line
    rows = json_rows(result.stdout)
    assert [row["source"] for row in rows] == [bad, good]
    assert rows[0]["status"] == "template" and rows[1]["method"] == "template"
    listed = run("sites", "--store", store, "--format", "json")  # still listed, so that it can be deleted
    assert listed.exit_code == 0 and {r["site"] for r in json_rows(listed.stdout)} == {SITE, OTHER}
    assert run("sites", "delete", SITE, "--store", store).exit_code == 0


# --- store files --------------------------------------------------------------------------------------------


def _drop_privileges() -> None:
    os.setgid(65534)
    os.setuid(65534)


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli.app, args)
    return result.exit_code, result.stderr


@pytest.fixture
def as_user() -> Iterator[tuple[Path, Callable[[list[str]], tuple[int, str]]]]:
    """A world-writable scratch directory and a CLI runner without root's powers (root ignores file modes):
    as root, the CLI runs in a forked child that switched to ``nobody``."""
    with tempfile.TemporaryDirectory(prefix="fce-robust-") as scratch:
        os.chmod(scratch, 0o777)
        if os.geteuid() != 0:
            yield Path(scratch), _invoke
            return
        if "fork" not in multiprocessing.get_all_start_methods():
            pytest.skip("running as root, and no fork to drop privileges")
        with multiprocessing.get_context("fork").Pool(1, initializer=_drop_privileges) as pool:
            yield Path(scratch), lambda args: pool.apply(_invoke, (args,))


def test_read_only_store_file(as_user: tuple[Path, Callable[[list[str]], tuple[int, str]]],
                              site: list[GeneratedPage], template: Template) -> None:
    scratch, invoke = as_user
    db = scratch / "ro" / "t.db"
    store = f"sqlite://{db}"
    with open_store(store) as target:
        version = target.put(SITE, template.to_json())
    paths = [write_page(scratch / "pages", f"p{i}", page) for i, page in enumerate(site[:20])]
    for path in (scratch / "pages").iterdir():
        path.chmod(0o644)
    (scratch / "pages").chmod(0o755)
    for file in db.parent.iterdir():
        file.chmod(0o444)
    db.parent.chmod(0o555)
    try:
        code, stderr = invoke(["learn", "--site", SITE, "--store", store, *paths])
        assert code == StoreFailure.exit_code, stderr
        (line,) = error_lines(stderr)
        assert str(db) in line and "read-only" in line, line
        # a store deployed read-only is opened immutable: detection reads its templates
        code, stderr = invoke(["detect", "--store", store, paths[0]])
        assert code == 0, stderr
        assert not error_lines(stderr)
    finally:
        db.parent.chmod(0o755)
    assert_unchanged(store, SITE, template.to_json(), version)


def test_locked_store_file(site: list[GeneratedPage], template: Template, tmp_path: Path) -> None:
    """Another process holds the write lock: learn gives up after the busy timeout (exit 13, "locked"); detect,
    which only reads, is not held up."""
    db = tmp_path / "t.db"
    store = f"sqlite://{db}?timeout=0.2"
    with SQLiteStore(db) as target:
        version = target.put(SITE, template.to_json())
    paths = [write_page(tmp_path / "pages", f"p{i}", page) for i, page in enumerate(site[:20])]
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        result = run("learn", "--site", SITE, "--store", store, *paths)
        assert result.exit_code == StoreFailure.exit_code
        (line,) = error_lines(result.stderr)
        assert "locked" in line and str(db) in line and SITE in line, line
        assert run("detect", "--store", store, paths[0]).exit_code == 0
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert_unchanged(store, SITE, template.to_json(), version)


def test_store_file_that_is_not_a_database(site: list[GeneratedPage], tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    db.write_bytes(b"this is not an SQLite file\n" * 100)
    page = write_page(tmp_path / "pages", "new", site[-1])
    result = run("detect", "--strict", "--store", f"sqlite://{db}", page)
    assert result.exit_code == StoreFailure.exit_code
    (line,) = error_lines(result.stderr)
    assert str(db) in line


def test_learning_past_the_time_limit_stores_nothing(site: list[GeneratedPage], template: Template,
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A learn cut short by the time limit leaves the stored template as it was."""
    # learning 20 pages takes ~15 ms: an interruption dropped in a GC callback (dask.distributed's, left by earlier
    # tests) must come again well within that
    monkeypatch.setattr(fce.limits, "REFIRE_INTERVAL", 0.001)
    store = f"sqlite://{tmp_path / 't.db'}"
    with open_store(store) as target:
        version = target.put(SITE, template.to_json())
    pages = [fce.parse_page(p.html, url=p.url) for p in site[:20]]
    with pytest.raises(PageTimeoutError) as caught:
        fce.learn_template(pages, SITE, timeout=1e-5)
    assert str(caught.value).startswith(f"{SITE}: learning from 20 pages took longer than the ")
    paths = [write_page(tmp_path / "pages", f"p{i}", page) for i, page in enumerate(site[:20])]
    result = run("learn", "--site", SITE, "--store", store, "--page-timeout", "0.00001", *paths)
    assert result.exit_code in (PageTimeoutError.exit_code, fce.LearnError.exit_code)  # learning, or every parse
    (line,) = error_lines(result.stderr)
    assert "time limit" in line
    assert_unchanged(store, SITE, template.to_json(), version)


# --- URLs ---------------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, page: bytes) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.page = page
        self.stop = threading.Event()
        self.sent: dict[str, int] = {}  # bytes written per streaming route, to show the download was cut short

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up mid-body is what these tests do


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _head(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def _send(self, status: int, body: bytes, **headers: str) -> None:
        self._head(status, {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(len(body)),
                            **headers})
        self.wfile.write(body)

    def _stream(self, chunks: Iterator[bytes], headers: dict[str, str]) -> None:
        """Up to 1 GiB, chunked, until the client hangs up (bounded: the test never waits for all of it)."""
        self._head(200, {"Content-Type": "text/html", "Transfer-Encoding": "chunked", **headers})
        sent = 0
        try:
            for chunk in chunks:
                if self.server.stop.is_set():
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass
        finally:
            self.server.sent[self.path] = sent
            self.close_connection = True

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, self.server.page)
        elif self.path == "/slow":
            self.server.stop.wait(10)
            self._send(200, self.server.page)
        elif self.path == "/loop":
            self._send(302, b"", Location="/loop")
        elif self.path == "/missing":
            self._send(404, b"not found")
        elif self.path == "/error":
            self._send(500, b"oops")
        elif self.path == "/gigabyte":
            block = b"<p>" + b"x" * (64 * 1024 - 7) + b"</p>"
            self._stream((block for _ in range(GIB // len(block))), {})
        elif self.path == "/gigabyte-declared":
            self._head(200, {"Content-Type": "text/html", "Content-Length": str(GIB)})
            self.close_connection = True
        elif self.path == "/gzip-bomb":  # 1 GiB of zeros, gzip-compressed on the fly (~1 MB on the wire)
            self._stream(_gzip_zeros(GIB), {"Content-Encoding": "gzip"})
        else:
            self._send(404, b"")


def _gzip_zeros(total: int) -> Iterator[bytes]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1024 * 1024)
    for _ in range(total // len(block)):
        out = compressor.compress(block)
        if out:
            yield out
    yield compressor.flush()


@pytest.fixture(scope="module")
def server(site: list[GeneratedPage]) -> Iterator[_Server]:
    srv = _Server(site[-1].html)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.stop.set()
    srv.shutdown()
    srv.server_close()
    thread.join(5)


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch, "BACKOFF_START", 0.01)


URL_FAULTS = {
    "/slow": "timed out after 0.5 s",
    "/loop": "more than 10 redirects",
    "/missing": "HTTP 404 Not Found",
    "/error": "HTTP 500 Internal Server Error",
    "/gigabyte": "body is over the 1048576-byte limit",
    "/gigabyte-declared": f"body of {GIB} bytes is over the 1048576-byte limit",
    "/gzip-bomb": "body is over the 1048576-byte limit",
}


@pytest.mark.network
@pytest.mark.parametrize("path", list(URL_FAULTS))
def test_url_fault(path: str, server: _Server, quick_backoff: None, tmp_path: Path) -> None:
    """Each failing URL: exit 7, one line naming the URL and the reason, within a bounded time."""
    url = server.url(path)
    started = time.monotonic()
    result = run("detect", "--store", "memory://", "--timeout", "0.5", "--max-bytes", "1M", url)
    assert time.monotonic() - started < 10
    assert result.exit_code == FetchError.exit_code, result.output
    (line,) = error_lines(result.stderr)
    assert line == f"fce: error: {url}: {URL_FAULTS[path]}", line
    if path in ("/gigabyte", "/gzip-bomb"):
        assert server.sent.get(path, 0) < 256 * 1024 * 1024  # the download was cut short, not read to the end


@pytest.mark.network
def test_gigabyte_is_cut_at_the_default_size_cap(server: _Server) -> None:
    url = server.url("/gigabyte")
    result = run("detect", "--store", "memory://", url)
    assert result.exit_code == FetchError.exit_code
    (line,) = error_lines(result.stderr)
    assert line == f"fce: error: {url}: body is over the {fce.parse.MAX_PAGE_BYTES}-byte limit"


@pytest.mark.network
def test_url_faults_in_one_batch_keep_every_record(server: _Server, quick_backoff: None) -> None:
    urls = [server.url("/page"), *(server.url(p) for p in URL_FAULTS), server.url("/page")]
    result = run("detect", "--store", "memory://", "--format", "json", "--timeout", "0.5", "--max-bytes", "1M",
                 *urls)
    assert result.exit_code == FetchError.exit_code
    rows = json_rows(result.stdout)
    assert [row["source"] for row in rows] == urls
    assert rows[0]["text"] and rows[-1]["text"]
    assert all(row["status"] == "fetch" for row in rows[1:-1])
    assert len(error_lines(result.stderr)) == len(URL_FAULTS)


@pytest.mark.network
def test_learn_skips_failing_urls_with_a_warning(server: _Server, site: list[GeneratedPage], quick_backoff: None,
                                                 tmp_path: Path) -> None:
    """Learning goes on without the pages it cannot fetch, and says which."""
    paths = [write_page(tmp_path / "pages", f"p{i}", page) for i, page in enumerate(site[:20])]
    store = f"sqlite://{tmp_path / 't.db'}"
    result = run("learn", "--site", SITE, "--store", store, "--timeout", "0.5", "--max-bytes", "1M",
                 *paths, server.url("/missing"), server.url("/gzip-bomb"))
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()
    assert "Traceback" not in result.stderr
    assert [w for w in warnings if w.startswith("fce: warning: skipped ")] == [
        f"fce: warning: skipped {server.url('/missing')}: HTTP 404 Not Found",
        f"fce: warning: skipped {server.url('/gzip-bomb')}: body is over the 1048576-byte limit",
    ]


def test_gzip_helper_really_is_a_gigabyte() -> None:
    """The bomb decompresses to what it claims (checked on a 4 MiB version)."""
    assert gzip.decompress(b"".join(_gzip_zeros(4 * 1024 * 1024))) == bytes(4 * 1024 * 1024)
