"""Tests of fce.fetch against a real HTTP server on 127.0.0.1 (stdlib http.server in a thread)."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from fce import fetch
from fce.errors import FetchError
from fce.fetch import MAX_REDIRECTS, USER_AGENT, FetchResult, RefusedURLError, fetch_many, is_public_address
from fce.parse import parse_page

pytestmark = pytest.mark.network

PAGE = b"<html><body><p>A page.</p></body></html>"
LATIN = "<html><body><p>Caf\u00e9 cr\u00e8me \u00e0 la cr\u00e9merie</p></body></html>".encode("iso-8859-1")


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
              length: bool = True) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: C901 -- a route table
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.server.hits[parts.path] += 1
        self.server.agents.append(self.headers.get("User-Agent", ""))
        route = parts.path
        if route == "/page":
            self._send(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})
        elif route == "/latin":
            self._send(200, LATIN, {"Content-Type": "text/html; charset=ISO-8859-1"})
        elif route == "/nocharset":
            self._send(200, PAGE, {"Content-Type": "text/html"})
        elif route == "/gzip":
            self._send(200, gzip.compress(PAGE), {"Content-Type": "text/html", "Content-Encoding": "gzip"})
        elif route == "/missing":
            self._send(404, b"not found")
        elif route == "/flaky":  # 500 on the first request, 200 afterwards
            if self.server.hits[route] == 1:
                self._send(500, b"oops")
            else:
                self._send(200, PAGE, {"Content-Type": "text/html"})
        elif route == "/down":
            self._send(503, b"down", {"Retry-After": "0"})
        elif route == "/redirect":
            self._send(302, headers={"Location": query.get("to", ["/page"])[0]})
        elif route == "/loop":
            self._send(302, headers={"Location": "/loop"})
        elif route == "/slow":  # no response for a long time
            self.server.stop.wait(float(query.get("s", ["5"])[0]))
            self._send(200, PAGE)
        elif route == "/trickle":  # headers at once, then one byte every 0.1 s for ~5 s
            self._send(200, headers={"Content-Type": "text/html"}, length=False)
            for _ in range(50):
                if self.server.stop.wait(0.1):
                    break
                self.wfile.write(b"x")
                self.wfile.flush()
        elif route == "/big":  # declared length
            self._send(200, b"<p>" + b"x" * 200_000, {"Content-Type": "text/html"})
        elif route == "/bigstream":  # no Content-Length: the cap must hold while streaming
            self._send(200, headers={"Content-Type": "text/html"}, length=False)
            for _ in range(100):
                self.wfile.write(b"y" * 10_000)
        elif route == "/delay":
            self.server.stop.wait(float(query["ms"][0]) / 1000)
            self._send(200, f"<p>{query['ms'][0]}</p>".encode(), {"Content-Type": "text/html"})
        else:
            self._send(404)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    server_address: tuple[str, int]  # bound to an IPv4 host given as a str

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), _Handler)
        self.hits: Counter[str] = Counter()
        self.agents: list[str] = []
        self.stop = threading.Event()

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that gave up (timeout, size cap) closes its socket mid-response: expected here


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries wait 0.05 s, 0.1 s, ... instead of 0.5 s, 1 s, ...: same logic, faster tests."""
    monkeypatch.setattr(fetch, "BACKOFF_START", 0.05)


def _serving(host: str = "127.0.0.1") -> Iterator[_Server]:
    srv = _Server(host)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.stop.set()
    srv.shutdown()
    srv.server_close()
    thread.join(5)


@pytest.fixture
def server() -> Iterator[_Server]:
    yield from _serving()


@pytest.fixture
def other() -> Iterator[_Server]:
    """A second server, on 127.0.0.2 (all of 127.0.0.0/8 is loopback): the host a policy lets through."""
    yield from _serving("127.0.0.2")


def _url(server: _Server, path: str) -> str:
    return f"http://{server.server_address[0]}:{server.server_address[1]}{path}"


def _ok(result: FetchResult | FetchError) -> FetchResult:
    assert isinstance(result, FetchResult), result
    return result


def test_page_body_charset_and_user_agent(server: _Server) -> None:
    (result,) = fetch_many([_url(server, "/page")])
    result = _ok(result)
    assert result.data == PAGE and result.charset == "utf-8" and result.status == 200
    assert result.final_url == result.url == _url(server, "/page")
    assert server.agents == [USER_AGENT]


def test_declared_charset_decodes_the_page(server: _Server) -> None:
    latin, plain = (_ok(r) for r in fetch_many([_url(server, "/latin"), _url(server, "/nocharset")]))
    assert latin.charset == "iso-8859-1" and plain.charset is None
    page = parse_page(latin.data, url=latin.final_url, declared_charset=latin.charset)
    assert "Café crème à la crémerie" in "".join(page.body.itertext())
    # declared as UTF-8, the bytes that are not UTF-8 are read as windows-1252 (fce.parse.UTF8_FALLBACK)
    assert "Café crème" in "".join(parse_page(latin.data, declared_charset="utf-8").body.itertext())
    # declared as something else entirely, the header is obeyed
    assert "Café" not in "".join(parse_page(latin.data, declared_charset="koi8-r").body.itertext())


def test_gzip_content_encoding_is_removed(server: _Server) -> None:
    assert _ok(fetch_many([_url(server, "/gzip")])[0]).data == PAGE


def test_redirect_followed_and_final_url_reported(server: _Server) -> None:
    result = _ok(fetch_many([_url(server, "/redirect")])[0])
    assert result.final_url == _url(server, "/page") and result.data == PAGE


def test_redirect_loop_is_a_fetch_error(server: _Server) -> None:
    (error,) = fetch_many([_url(server, "/loop")], retries=0)
    assert isinstance(error, FetchError) and f"more than {MAX_REDIRECTS} redirects" in str(error)
    assert server.hits["/loop"] == MAX_REDIRECTS + 1


def test_404_fails_at_once_naming_the_url(server: _Server) -> None:
    (error,) = fetch_many([_url(server, "/missing")], retries=2)
    assert isinstance(error, FetchError)
    assert str(error) == f"{_url(server, '/missing')}: HTTP 404 Not Found"
    assert error.exit_code == 7
    assert server.hits["/missing"] == 1  # a 4xx is not retried


def test_500_then_200_is_retried(server: _Server) -> None:
    result = _ok(fetch_many([_url(server, "/flaky")], retries=1)[0])
    assert result.data == PAGE and server.hits["/flaky"] == 2


def test_persistent_5xx_gives_up_after_the_retries(server: _Server) -> None:
    (error,) = fetch_many([_url(server, "/down")], retries=2)
    assert isinstance(error, FetchError) and "HTTP 503" in str(error)
    assert server.hits["/down"] == 3


@pytest.mark.parametrize("path", ["/slow?s=5", "/trickle"])
def test_timeout_is_a_fetch_error_within_the_bound(server: _Server, path: str) -> None:
    started = time.monotonic()
    (error,) = fetch_many([_url(server, path)], timeout=0.3, retries=1)
    elapsed = time.monotonic() - started
    assert isinstance(error, FetchError) and "timed out after 0.3 s" in str(error)
    # two attempts of 0.3 s and one 0.05 s backoff; generous slack for a loaded machine, far below the 5 s
    # the server would take
    assert elapsed < 2.0


@pytest.mark.parametrize("path", ["/big", "/bigstream"])
def test_body_over_max_bytes_is_a_fetch_error(server: _Server, path: str) -> None:
    (error,) = fetch_many([_url(server, path)], max_bytes=50_000)
    assert isinstance(error, FetchError)
    assert "50000-byte limit" in str(error) and _url(server, path) in str(error)


def test_refused_connection_and_bad_urls(server: _Server) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    refused, not_http, invalid = fetch_many([closed, "ftp://example.com/x", "http://exa mple.com:99999/"],
                                            retries=0)
    assert isinstance(refused, FetchError) and "connection failed" in str(refused)
    assert isinstance(not_http, FetchError) and "not an http(s) URL" in str(not_http)
    assert isinstance(invalid, FetchError)


def test_results_keep_input_order_under_concurrency(server: _Server) -> None:
    delays = [300, 10, 200, 0, 100, 50]
    urls = [_url(server, f"/delay?ms={ms}") for ms in delays] + [_url(server, "/missing")]
    done: list[str] = []
    started = time.monotonic()
    results = fetch_many(urls, concurrency=4, progress=lambda r: done.append(getattr(r, "url", "error")))
    assert time.monotonic() - started < 0.6  # concurrent: the 660 ms of delays overlap
    assert [_ok(r).data for r in results[:-1]] == [f"<p>{ms}</p>".encode() for ms in delays]
    assert isinstance(results[-1], FetchError)
    assert len(done) == len(urls) and done != [*urls[:-1], "error"]  # progress in completion order


def test_argument_checks() -> None:
    assert fetch_many([]) == []
    with pytest.raises(ValueError):
        fetch_many(["http://x/"], concurrency=0)
    with pytest.raises(ValueError):
        fetch_many(["http://x/"], timeout=0)


# --- the address policy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("address", "public"), [
    ("8.8.8.8", True), ("2001:4860:4860::8888", True), ("::ffff:8.8.8.8", True), ("2002:808:808::", True),
    ("127.0.0.1", False), ("127.255.0.1", False), ("10.1.2.3", False), ("172.16.0.1", False), ("192.168.1.1", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("0.0.0.0", False), ("255.255.255.255", False),
    ("224.0.0.1", False), ("192.0.2.1", False), ("::1", False), ("::", False), ("fe80::1%eth0", False),
    ("fc00::1", False), ("ff02::1", False), ("::ffff:127.0.0.1", False), ("::ffff:10.0.0.1", False),
    ("::127.0.0.1", False), ("64:ff9b::7f00:1", False), ("2002:7f00:1::", False), ("2001:db8::1", False),
    ("localhost", False), ("", False),
])
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


def _only(*addresses: str):
    return lambda address: address in addresses


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]",
                                  "[::1]", "0.0.0.0"])
def test_public_only_refuses_every_spelling_of_loopback(server: _Server, host: str) -> None:
    url = f"http://{host}:{server.server_address[1]}/page"
    (error,) = fetch_many([url], allow_address=is_public_address)
    assert isinstance(error, RefusedURLError) and error.exit_code == 7
    assert str(error) == f"{url}: refused: the host is not a public internet address " \
                         "(see fce serve --allow-private-urls)"
    assert server.hits["/page"] == 0  # refused before connecting


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "2130706433", "0x7f.1", "127.1"])
def test_without_a_policy_anything_is_fetched(server: _Server, host: str) -> None:
    """The library's default, and the command line's: the user's own machine is the user's to read."""
    (result,) = fetch_many([f"http://{host}:{server.server_address[1]}/page"])
    assert _ok(result).data == PAGE


def test_refusal_does_not_tell_an_open_port_from_a_closed_one(server: _Server) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    open_, shut = fetch_many([f"http://127.0.0.1:{server.server_address[1]}/", f"http://127.0.0.1:{closed}/"],
                             allow_address=is_public_address, retries=0)
    assert isinstance(open_, RefusedURLError) and isinstance(shut, RefusedURLError)
    assert str(open_).split(": ", 1)[1] == str(shut).split(": ", 1)[1]


def test_a_redirect_to_a_refused_address_is_refused(server: _Server, other: _Server) -> None:
    target = _url(server, "/page")
    (error,) = fetch_many([_url(other, f"/redirect?to={target}")], allow_address=_only("127.0.0.2"))
    assert isinstance(error, RefusedURLError) and "not a public internet address" in str(error)
    assert other.hits["/redirect"] == 1 and server.hits["/page"] == 0
    (result,) = fetch_many([_url(other, f"/redirect?to={_url(other, '/page')}")], allow_address=_only("127.0.0.2"))
    assert _ok(result).data == PAGE  # a redirect to an allowed address is followed


def test_a_redirect_to_another_scheme_is_refused(server: _Server) -> None:
    (error,) = fetch_many([_url(server, "/redirect?to=file:///etc/passwd")], allow_address=_only("127.0.0.1"))
    assert isinstance(error, RefusedURLError) and "redirected to a URL that is not http(s)" in str(error)


class _Resolver:
    """A DNS stand-in: names under ``.test`` get the answers given, in turn (the last one repeated); any other
    name, and every address, goes to the system resolver. (No DNS server can be run here for a test, and a name
    whose answer changes from one query to the next is what DNS rebinding is.)"""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, answers: list[list[str]]) -> None:
        self.answers = answers
        self.queries = 0
        self.real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", self)

    def __call__(self, host: bytes | str | None, port: bytes | str | int | None, *args: int, **kwargs: int) -> list:
        if isinstance(host, str) and host.endswith(".test"):
            answer = self.answers[min(self.queries, len(self.answers) - 1)]
            self.queries += 1
            return [info for address in answer for info in self.real(address, port, *args, **kwargs)]
        return self.real(host, port, *args, **kwargs)


def test_every_address_of_a_name_must_pass(server: _Server, other: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    _Resolver(monkeypatch, [["127.0.0.2", "127.0.0.1"]])
    port = other.server_address[1]
    (error,) = fetch_many([f"http://two.test:{port}/page"], allow_address=_only("127.0.0.2"))
    assert isinstance(error, RefusedURLError)
    assert other.hits["/page"] == 0 and server.hits["/page"] == 0


def test_dns_rebinding_cannot_swap_the_checked_address(other: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The name's first answer passes the policy (127.0.0.2); every later answer points at another host
    (127.0.0.1), where another server listens on the same port. The connection goes to the address checked:
    nothing resolves the name again between the check and the connection."""
    port = other.server_address[1]
    try:
        swapped = _Server("127.0.0.1", port)
    except OSError:
        pytest.skip(f"port {port} is taken on 127.0.0.1")
    thread = threading.Thread(target=swapped.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        resolver = _Resolver(monkeypatch, [["127.0.0.2"], ["127.0.0.1"]])
        (result,) = fetch_many([f"http://rebind.test:{port}/page"], allow_address=_only("127.0.0.2"))
        assert _ok(result).data == PAGE and resolver.queries == 1
        assert other.hits["/page"] == 1 and swapped.hits["/page"] == 0
    finally:
        swapped.shutdown()
        swapped.server_close()
        thread.join(5)


def test_a_policy_bypasses_environment_proxies(server: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a proxy the address could not be checked: with a policy the connection is direct."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9/")  # the discard port: nothing answers there
    monkeypatch.setenv("NO_PROXY", "")
    (result,) = fetch_many([_url(server, "/page")], allow_address=_only("127.0.0.1"), retries=0)
    assert _ok(result).data == PAGE
