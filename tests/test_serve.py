"""Tests of :mod:`fce.serve`: the HTTP API through a real ``fce serve`` (uvicorn) on a free loopback port.

One server process per module (``server``), started by the command line as a user would, with a SQLite store in
a temporary directory, a 4 MiB body limit and a 1 s page time limit. The store-down case runs the app in
process against a real redis-server that the test stops. Schemathesis checks the API against its own OpenAPI
schema with a bounded number of generated requests.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from fce.detect import DETECTION_MODES
from fce.errors import LearnError, NotHTMLError, PageTimeoutError, PageTooLargeError, StoreFailure
from fce.learn import RULES
from fce.parse import parse_page
from fce.pipeline import extract, learn_template
from fce.serve import DEFAULT_HOST, HTTP_STATUS, ExtractRequest, LearnRequest, create_app, http_status
from fce.service import DetectResult

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "site"
SITE = "news.example.com"
MAX_BODY = 16 * 1024 * 1024
PAGE_TIMEOUT = 0.5  # seconds; an example page takes ~10 ms, the slow page below ~1.5 s (measured 2026-11-22)
STARTUP_TIMEOUT = 60.0  # seconds for the server to answer /healthz (imports take ~3 s on the shared machine)
JSON_KEYS = ["source", "site", "method", "fit", "layout", "match", "fallback_reason", "text", "blocks"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _learn_pages() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((EXAMPLE / "learn").glob("*.html"))]


def _new_pages() -> list[Path]:
    return sorted((EXAMPLE / "new").glob("*.html"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running ``fce serve``; the process is stopped after the module."""
    workdir = tmp_path_factory.mktemp("serve")
    port = _free_port()
    log = (workdir / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "fce", "--store", f"sqlite:///{workdir}/t.db", "serve", "--port", str(port),
         "--max-body", str(MAX_BODY), "--page-timeout", str(PAGE_TIMEOUT), "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    try:
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"fce serve did not start:\n{(workdir / 'serve.log').read_text()[-3000:]}")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def learned(server: str) -> dict:
    r = httpx.post(f"{server}/learn", json={"site": SITE, "html": _learn_pages()}, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


def _extract(server: str, **body) -> httpx.Response:
    return httpx.post(f"{server}/extract", json=body, timeout=60)


# --- the endpoints ------------------------------------------------------------------------------------------


def test_health_and_schema(server):
    r = httpx.get(f"{server}/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok" and r.json()["store"].startswith("sqlite:///")
    paths = httpx.get(f"{server}/openapi.json").json()["paths"]
    assert {"/extract", "/learn", "/sites", "/healthz"} <= set(paths)
    assert {"200", "400", "413", "422", "504"} <= set(paths["/extract"]["post"]["responses"])


def test_learn_then_sites(server, learned):
    assert learned["site"] == SITE and learned["pages_used"] == 30 and learned["version"] >= 1
    assert learned["content_paths"] > 0 and learned["skipped"] == []
    rows = httpx.get(f"{server}/sites").json()
    assert [r["site"] for r in rows] == [SITE] and rows[0]["n_pages"] == 30


def test_extract_is_the_json_of_detect(server, learned):
    template = learn_template([parse_page(h.encode()) for h in _learn_pages()], SITE)
    for path in _new_pages()[:3]:
        r = _extract(server, html=path.read_text(encoding="utf-8"), site=SITE)
        assert r.status_code == 200, r.text
        body = r.json()
        assert list(body) == JSON_KEYS
        expected = DetectResult("html", extraction=extract(parse_page(path.read_bytes()), template, site=SITE))
        assert body == json.loads(json.dumps(expected.to_dict()))
        assert body["method"] == "template" and body["fit"] == 1.0


def test_site_from_the_page_and_mode(server, learned):
    html = _new_pages()[0].read_text(encoding="utf-8")  # its canonical link names the site
    guided = _extract(server, html=html).json()
    rules = _extract(server, html=html, mode="rules").json()
    assert guided["site"] == rules["site"] == SITE
    assert guided["method"] == rules["method"] == "template"
    assert _extract(server, html=html, mode="other").status_code == 422


def test_unknown_site_falls_back(server, learned):
    r = _extract(server, html=_new_pages()[0].read_text(encoding="utf-8"), site="unknown.example")
    assert r.status_code == 200
    assert r.json()["method"] == "mainblock" and r.json()["fallback_reason"] == "no-template"
    r = _extract(server, html=_new_pages()[0].read_text(encoding="utf-8"), site="unknown.example", fallback=None)
    assert r.status_code == 404 and r.json()["status"] == "no-template"


def test_method(server):
    r = _extract(server, html=_new_pages()[1].read_text(encoding="utf-8"), method="lqf")
    assert r.status_code == 200 and r.json()["method"] == "lqf"
    r = _extract(server, html="<p>x</p>", method="nope")
    assert r.status_code == 400 and r.json()["code"] == 12


@pytest.mark.parametrize(("html", "status"), [("", "empty"), ("just words, no markup at all", "not-html"),
                                              ("\x00\x01\x02\x03binary\x00", "not-html")])
def test_bad_html(server, html, status):
    r = _extract(server, html=html)
    assert r.status_code == 400
    assert r.json()["status"] == status and r.json()["error"].startswith("html: ")


@pytest.mark.parametrize("body", [{}, {"url": "ftp://x"}, {"html": "<p>x</p>", "extra": 1}, {"html": 3},
                                  {"html": "<p>x</p>", "min_fit": 2}])
def test_validation(server, body):
    r = _extract(server, **body)
    assert r.status_code == 422 and r.json()["status"] == "validation"
    r = httpx.post(f"{server}/extract", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_oversized_body(server):
    big = "<p>" + "x" * (MAX_BODY + 10) + "</p>"
    r = _extract(server, html=big)
    assert r.status_code == 413 and r.json()["status"] == "too-large"

    def chunks():  # no Content-Length: the limit is counted as the body arrives
        yield b'{"html": "<p>'
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"x" * 65536
        yield b'</p>"}'

    r = httpx.post(f"{server}/extract", content=chunks(), headers={"content-type": "application/json"},
                   timeout=60)
    assert r.status_code == 413 and r.json()["code"] == PageTooLargeError.exit_code
    assert httpx.get(f"{server}/healthz").status_code == 200  # the server is still there


def test_timeout(server):
    slow = "<html><body><div>" + "<p>w</p>" * 1_800_000 + "</div></body></html>"  # 14.4 MB (MAX_BODY: 16 MB)
    started = time.monotonic()
    r = _extract(server, html=slow, site="slow.example")
    assert r.status_code == 504 and r.json()["status"] == "timeout"
    assert time.monotonic() - started < 30 * PAGE_TIMEOUT


def test_learn_errors(server):
    r = httpx.post(f"{server}/learn", json={"site": "few.example", "html": ["<p>one page</p>", "binary\x00\x00"]})
    assert r.status_code == 422 and r.json()["status"] == "learn" and "could not be used" in r.json()["error"]
    assert httpx.post(f"{server}/learn", json={"site": "x.example"}).status_code == 422
    assert httpx.post(f"{server}/learn", json={"site": "x.example", "urls": ["not a url"]}).status_code == 422


def test_unknown_route_is_json(server):
    r = httpx.get(f"{server}/nope")
    assert r.status_code == 404 and r.json()["status"] == "http"
    assert httpx.get(f"{server}/extract").status_code == 405


def test_concurrent_requests(server, learned):
    pages = [p.read_text(encoding="utf-8") for p in _new_pages()]
    expected = [_extract(server, html=h, site=SITE).json() for h in pages]
    jobs = [(i % len(pages), site) for i in range(40) for site in ([SITE] if i % 4 else ["unknown.example"])]
    with httpx.Client(timeout=60) as client, ThreadPoolExecutor(8) as pool:
        results = list(pool.map(
            lambda job: (job, client.post(f"{server}/extract", json={"html": pages[job[0]], "site": job[1]})),
            jobs))
    for (i, site), r in results:
        assert r.status_code == 200
        if site == SITE:
            assert r.json() == expected[i]
        else:
            assert r.json()["fallback_reason"] == "no-template"


def test_url_is_fetched(server, learned, tmp_path):
    """A URL in the request is fetched by the server (fce.fetch) from a loopback HTTP server."""
    import http.server

    page = _new_pages()[2].read_bytes()
    learn = sorted((EXAMPLE / "learn").glob("*.html"))[:3]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 -- the stdlib's name
            if self.path == "/missing":
                self.send_error(404)
                return
            body = learn[int(self.path.rsplit("/", 1)[1])].read_bytes() if self.path.startswith("/learn/") else page
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        r = _extract(server, url=f"{url}/article", site=SITE)
        assert r.status_code == 200 and r.json()["method"] == "template" and r.json()["source"] == f"{url}/article"
        r = _extract(server, url=f"{url}/missing")
        assert r.status_code == 502 and r.json()["status"] == "fetch" and "404" in r.json()["error"]
        r = httpx.post(f"{server}/learn", json={"site": "urls.example", "urls": [f"{url}/learn/{i}" for i in range(3)]
                                                + [f"{url}/missing"]}, timeout=60)
        assert r.status_code == 200, r.text
        assert r.json()["pages_used"] == 3 and len(r.json()["skipped"]) == 1 and "404" in r.json()["skipped"][0]
        assert any("recommended" in w for w in r.json()["warnings"])
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- in process ---------------------------------------------------------------------------------------------


def test_loopback_by_default():
    assert DEFAULT_HOST == "127.0.0.1"


def test_status_table():
    assert http_status(NotHTMLError("x")) == 400
    assert http_status(PageTooLargeError("x")) == 413
    assert http_status(LearnError("x")) == 422
    assert http_status(StoreFailure("x")) == 503
    assert http_status(PageTimeoutError("x")) == 504
    assert set(HTTP_STATUS.values()) <= {400, 404, 413, 422, 500, 502, 503, 504}
    assert set(LearnRequest.model_fields["rules"].annotation.__args__) == set(RULES)
    assert set(ExtractRequest.model_fields["mode"].annotation.__args__) == set(DETECTION_MODES)


@contextmanager
def _in_thread(app) -> Iterator[str]:
    """``app`` served by uvicorn in a thread of this process, on a free loopback port; yields its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=_free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.redis
def test_store_down_is_503(stoppable_redis):
    with _in_thread(create_app(stoppable_redis.url + "?retries=0&socket_timeout=0.5")) as base:
        assert httpx.get(f"{base}/healthz").status_code == 200
        stoppable_redis.stop()
        for r in (httpx.get(f"{base}/healthz"), httpx.get(f"{base}/sites"),
                  httpx.post(f"{base}/extract", json={"html": "<p>words</p>", "site": "a.example"})):
            assert r.status_code == 503 and r.json()["status"] == "store", r.text
            assert r.json()["code"] == StoreFailure.exit_code


def test_corrupt_template_is_500_json():
    from templates_store import open_store

    store = open_store("memory://")
    store.put("bad.example", "{not a template")
    with _in_thread(create_app(store)) as base:
        r = httpx.post(f"{base}/extract", json={"html": "<p>words</p>", "site": "bad.example"})
        assert r.status_code == 500 and r.json()["status"] == "template" and "not valid JSON" in r.json()["error"]
        assert httpx.get(f"{base}/sites").json()[0]["error"]  # still listed, with what is wrong


# --- the schema ---------------------------------------------------------------------------------------------


#: Generated requests per operation: bounded so that the schema test takes seconds, not minutes.
SCHEMA_EXAMPLES = 15


def test_schema(server):
    """Every response to generated requests is one the schema documents (status, content type, body), and none
    is a server error. (Driven through hypothesis directly: schemathesis' pytest plugin does not run on pytest 9.)"""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    schema = schemathesis.openapi.from_url(f"{server}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {op.path for op in operations} == {"/extract", "/learn", "/sites", "/healthz"}
    statuses: set[int] = set()
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=SCHEMA_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                  derandomize=True, database=None)
        def check(case) -> None:
            response = case.call_and_validate(
                checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                        response_schema_conformance], timeout=30)
            statuses.add(response.status_code)

        check()
    assert {200, 422} <= statuses  # valid and invalid requests were both generated


# --- layouts and drift counters (in-process app) ------------------------------------------------------------


class _InProcess:
    """The app in this process with its lifespan (start-up, shutdown flush), through httpx's ASGI transport."""

    def __init__(self, app):
        self.app = app

    def run(self, script):
        import asyncio

        async def main():
            async with self.app.router.lifespan_context(self.app):
                transport = httpx.ASGITransport(app=self.app)
                async with httpx.AsyncClient(transport=transport, base_url="http://fce.test", timeout=120) as c:
                    return await script(c)

        return asyncio.run(main())


def test_detections_through_the_api_count_for_drift_and_flush_at_shutdown():
    from templates_store import MemoryStore

    store = MemoryStore()
    pages = [p.read_text(encoding="utf-8") for p in _new_pages()]
    off_layout = "<html><body><div><p>" + "A page of another layout entirely. " * 40 + "</p></div></body></html>"

    async def script(client):
        learned = await client.post("/learn", json={"site": SITE, "html": _learn_pages()})
        assert learned.status_code == 200, learned.text
        assert learned.json()["layouts"] >= 1
        for html in pages:
            assert (await client.post("/extract", json={"html": html, "site": SITE})).json()["method"] == "template"
        r = await client.post("/extract", json={"html": off_layout, "site": SITE})
        assert r.json()["method"] != "template"
        await client.post("/extract", json={"html": pages[0], "method": "plain"})  # a chosen method is not counted
        assert store.counters([SITE])[SITE].fits == 0  # batched, not one store write per request

    _InProcess(create_app(store)).run(script)
    counted = store.counters([SITE])[SITE]  # the app's shutdown flushed the batch
    assert (counted.fits, counted.fallbacks) == (len(pages), 1)

    async def sites(client):
        return (await client.get("/sites")).json()

    row = next(r for r in _InProcess(create_app(store)).run(sites) if r["site"] == SITE)
    assert row["fits"] == len(pages) and row["fallbacks"] == 1 and row["stale"] is False
    assert row["layouts"] and row["layouts"][0]["n_pages"] >= 1


def test_learn_does_not_overwrite_a_template_stored_meanwhile(monkeypatch):
    import fce.serve
    from templates_store import MemoryStore

    store = MemoryStore()
    real = fce.serve.learn_site

    def slow_learner(pages, site, **kwargs):  # another writer stores the site while this request learns
        record = real(pages, site, **kwargs)
        store.put(site, record.to_json())
        return record

    monkeypatch.setattr(fce.serve, "learn_site", slow_learner)

    async def script(client):
        return await client.post("/learn", json={"site": SITE, "html": _learn_pages()})

    r = _InProcess(create_app(store)).run(script)
    assert r.status_code == 409 and r.json()["status"] == "conflict"
    assert store.get(SITE).version == 1  # the other writer's template stays


# --- several worker processes ---------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found.extend(int(c) for c in children)
    return found


def test_workers_share_the_store_and_flush_their_counts(tmp_path: Path) -> None:
    from templates_store import open_store

    port = _free_port()
    db = tmp_path / "w.db"
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "fce", "--store", f"sqlite:///{db}", "serve", "--port", str(port), "--workers", "2",
         "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    pages = [p.read_text(encoding="utf-8") for p in _new_pages()] * 4
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200 and len(_children(process.pid)) >= 2:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
        assert len([c for c in _children(process.pid) if Path(f"/proc/{c}/cmdline").exists()]) >= 2
        r = httpx.post(f"{base}/learn", json={"site": SITE, "html": _learn_pages()}, timeout=120)
        assert r.status_code == 200, r.text
        with httpx.Client(timeout=60) as client, ThreadPoolExecutor(4) as pool:
            methods = list(pool.map(
                lambda html: client.post(f"{base}/extract", json={"html": html, "site": SITE}).json()["method"],
                pages))
        assert methods == ["template"] * len(pages)  # every worker reads the template learned by one of them
    finally:
        process.terminate()  # uvicorn's supervisor stops its workers gracefully: their shutdown flushes the counts
        process.wait(timeout=30)
        log.close()
    counted = open_store(f"sqlite:///{db}").counters([SITE])[SITE]
    assert (counted.fits, counted.fallbacks) == (len(pages), 0)


def test_workers_refuse_an_in_process_store() -> None:
    result = subprocess.run([sys.executable, "-m", "fce", "--store", "memory://", "serve", "--workers", "2"],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "memory://" in result.stderr
