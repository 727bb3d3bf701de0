"""Benchmark of ``fce serve`` under hostile load: the server's memory, ``/healthz`` latency, requests answered.

    python -m bench.serve_hardening [--page-mb 30] [--big 8] [--requests 1000] [--learns 40] [--slowloris 50]

Each scenario starts its own ``fce serve`` (default settings; ``--allow-private-urls`` where it fetches from a
loopback port) on a free loopback port. A separate process polls ``GET /healthz`` every 0.1 s throughout, on its
own keep-alive connection (measured from this process, the latency would count this process's own client threads
waiting for its GIL); the load comes from this process. Scenarios:

* **big pages** — ``--big`` concurrent ``POST /extract`` of a ``--page-mb`` page of real-looking article markup
  (the generated site's pages, repeated), half as JSON, half as ``text/html``: wall time, the server's peak
  resident memory (the kernel's high-water mark, ``VmHWM``), ``/healthz`` at its slowest;
* **hanging learns** — ``--learns`` concurrent ``POST /learn`` whose one URL never answers (a loopback port that
  accepts and stays silent; fetch timeout 2 s, so each learn takes ~7 s with its retries): how many are refused
  at once (503 with ``Retry-After``) and how quickly, ``/healthz`` at its slowest;
* **mixed clients** — ``--requests`` requests, 96 at a time, from fast clients (httpx: extract as HTML or JSON,
  ``/sites``, ``/healthz``) and slow ones (a socket sending the request in four pieces 0.4 s apart): answered
  (200, or 503 with ``Retry-After``) and lost (anything else: a reset, a timeout, another status);
* **slowloris** — ``--slowloris`` connections trickling their request head one byte every 0.5 s: seconds until
  the server cut each one (``fce.serve.HEAD_TIMEOUT``), ``/healthz`` at its slowest.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests._serving import Served, running_serve

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "site"

#: A token for the servers that take writes (the hanging learns).
TOKEN = "bench-token-0123456789abcdef"

#: Client threads of the mixed scenario: about three times the requests the extraction pool admits, so that the
#: server both serves and refuses.
MIXED_CONCURRENCY = 96

#: The /healthz poller, in a process of its own (see the module docstring); prints its latencies as JSON once its
#: standard input is closed.
_WATCHER = """
import json, sys, threading, time, httpx
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
latencies, failures = [], 0
with httpx.Client(timeout=60) as client:
    while not stop.is_set():
        started = time.perf_counter()
        try:
            failures += client.get(sys.argv[1] + "/healthz").status_code != 200
        except httpx.HTTPError:
            failures += 1
        latencies.append(time.perf_counter() - started)
        stop.wait(0.1)
print(json.dumps({"latencies": latencies, "failures": failures}))
"""


@contextmanager
def _serve(*args: str) -> Iterator[Served]:
    """``fce serve *args`` on a SQLite store in a temporary directory, taking writes with :data:`TOKEN`."""
    with tempfile.TemporaryDirectory() as tmp, running_serve(Path(tmp), "--log-level", "warning", *args,
                                                             env={"FCE_SERVE_TOKEN": TOKEN}) as server:
        yield server


class _Health:
    """``/healthz`` latencies seen by a poller process while the block runs."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.latencies: list[float] = []
        self.failures = 0

    def __enter__(self) -> _Health:
        self._process = subprocess.Popen([sys.executable, "-c", _WATCHER, self.base], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc: object) -> None:
        found = json.loads(self._process.communicate("", timeout=120)[0])
        self.latencies, self.failures = found["latencies"], found["failures"]

    def summary(self) -> str:
        ordered = sorted(self.latencies)
        p50 = ordered[len(ordered) // 2] if ordered else float("nan")
        worst = ordered[-1] if ordered else float("nan")
        return f"/healthz max {worst * 1000:.0f} ms, p50 {p50 * 1000:.1f} ms over {len(ordered)} polls, " \
               f"{self.failures} failed"


def big_page(size: int) -> bytes:
    """About ``size`` bytes of real-looking article markup: the generated site's pages, repeated."""
    from tests.sitegen import generate_site

    pages = generate_site("news.example.com", 20, seed=11)
    bodies = [p.html.split(b"<body", 1)[1].split(b">", 1)[1].rsplit(b"</body>", 1)[0] for p in pages]
    unit = b"".join(b"<div class='copy'>" + body + b"</div>" for body in bodies)
    return b"<html><head><title>big</title></head><body>" + unit * max(1, size // len(unit)) + b"</body></html>"


def _request(path: str, body: bytes, content_type: str) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}"
    return head.encode() + b"\r\n\r\n" + body


def _status_of_response(sock: socket.socket) -> tuple[int, str | None]:
    """Status and Retry-After of the response on ``sock`` (read to its end)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    while len(body) < int(headers.get("content-length", "0")):
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        body += chunk
    return int(lines[0].split()[1]), headers.get("retry-after")


def big_pages(page_mb: float, count: int) -> None:
    page = big_page(int(page_mb * 1_000_000))
    as_json = json.dumps({"html": page.decode(), "site": "big.example"}).encode()
    with _serve() as server, _Health(server.base) as health:

        def post(i: int) -> int:
            body, kind = (as_json, "application/json") if i % 2 else (page, "text/html")
            return httpx.post(f"{server.base}/extract", params={} if i % 2 else {"site": "big.example"},
                              content=body, headers={"content-type": kind}, timeout=900).status_code

        started = time.perf_counter()
        with ThreadPoolExecutor(count) as pool:
            statuses = Counter(pool.map(post, range(count)))
        wall = time.perf_counter() - started
        peak = server.peak_rss() / 2**20
    print(f"big pages: {count} × {len(page) / 1e6:.1f} MB at once: {dict(statuses)} in {wall:.1f} s; "
          f"server peak RSS {peak:.0f} MB; {health.summary()}")


def hanging_learns(count: int) -> None:
    with socket.socket() as silent, _serve("--allow-private-urls", "--timeout", "2") as server:
        silent.bind(("127.0.0.1", 0))
        silent.listen(count * 4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/page"
        with _Health(server.base) as health:

            def post(_: int) -> tuple[int, str | None, float]:
                started = time.perf_counter()
                r = httpx.post(f"{server.base}/learn", json={"site": "hang.example", "urls": [url]},
                               headers={"Authorization": f"Bearer {TOKEN}"}, timeout=600)
                return r.status_code, r.headers.get("retry-after"), time.perf_counter() - started

            with ThreadPoolExecutor(count) as pool:
                results = list(pool.map(post, range(count)))
    refused = [took for status, retry, took in results if status == 503 and retry]
    others = Counter(status for status, retry, _ in results if not (status == 503 and retry))
    print(f"hanging learns: {count} at once: {len(refused)} refused (503, Retry-After) within "
          f"{max(refused, default=0):.2f} s, the others {dict(others)} after up to "
          f"{max(took for *_, took in results):.1f} s; {health.summary()}")


def mixed_clients(requests: int) -> None:
    page = (EXAMPLE / "new").glob("*.html").__next__().read_bytes()
    kinds = ["slow", "fast-extract", "fast-json", "fast-read", "slow", "fast-extract", "fast-read", "fast-extract"]
    with _serve() as server, _Health(server.base) as health:

        def one(i: int) -> tuple[str, int, str | None]:
            kind = kinds[i % len(kinds)]
            try:
                if kind == "slow":
                    request = _request("/extract?site=slow.example", page, "text/html")
                    cut = [len(request) * k // 4 for k in range(5)]
                    with socket.create_connection(("127.0.0.1", int(server.base.rsplit(":", 1)[1])), 120) as sock:
                        for start, end in zip(cut, cut[1:], strict=False):
                            sock.sendall(request[start:end])
                            time.sleep(0.4)
                        return (kind, *_status_of_response(sock))
                if kind == "fast-extract":
                    r = httpx.post(f"{server.base}/extract", content=page, headers={"content-type": "text/html"},
                                   timeout=120)
                elif kind == "fast-json":
                    r = httpx.post(f"{server.base}/extract", json={"html": page.decode()}, timeout=120)
                else:
                    r = httpx.get(f"{server.base}/sites" if i % 2 else f"{server.base}/healthz", timeout=120)
                return kind, r.status_code, r.headers.get("retry-after")
            except (OSError, EOFError, httpx.HTTPError):
                return kind, 0, None

        started = time.perf_counter()
        with ThreadPoolExecutor(MIXED_CONCURRENCY) as pool:
            results = list(pool.map(one, range(requests)))
        wall = time.perf_counter() - started
    answered = [r for r in results if r[1] == 200 or (r[1] == 503 and r[2])]
    print(f"mixed clients: {requests} requests ({sum(r[0] == 'slow' for r in results)} slow), "
          f"{MIXED_CONCURRENCY} at a time, in {wall:.1f} s: {len(answered)} answered "
          f"({sum(r[1] == 200 for r in results)} × 200, {sum(r[1] == 503 for r in answered)} × 503 with Retry-After),"
          f" {requests - len(answered)} lost; {health.summary()}")


def slowloris(count: int) -> None:
    with _serve() as server, _Health(server.base) as health:
        port = int(server.base.rsplit(":", 1)[1])

        def trickle(_: int) -> tuple[float, bool]:
            started = time.monotonic()
            with socket.create_connection(("127.0.0.1", port), 60) as sock:
                sock.sendall(b"POST /extract HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                sock.settimeout(0.5)
                try:
                    while True:
                        sock.sendall(b"a")
                        try:
                            answer = sock.recv(65536)
                        except TimeoutError:
                            continue
                        return time.monotonic() - started, answer.startswith(b"HTTP/1.1 408")
                except OSError:
                    return time.monotonic() - started, False

        with ThreadPoolExecutor(count) as pool:
            cut = list(pool.map(trickle, range(count)))
    print(f"slowloris: {count} connections trickling their head: cut after {min(c for c, _ in cut):.1f}-"
          f"{max(c for c, _ in cut):.1f} s ({sum(ok for _, ok in cut)} with a 408); {health.summary()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page-mb", type=float, default=30.0, help="size of each big page (MB)")
    parser.add_argument("--big", type=int, default=8, help="big pages sent at once")
    parser.add_argument("--learns", type=int, default=40, help="hanging learns sent at once")
    parser.add_argument("--requests", type=int, default=1000, help="requests of the mixed scenario")
    parser.add_argument("--slowloris", type=int, default=50, help="connections trickling their request head")
    args = parser.parse_args(argv)
    print(f"fce serve hardening, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    big_pages(args.page_mb, args.big)
    hanging_learns(args.learns)
    mixed_clients(args.requests)
    slowloris(args.slowloris)


if __name__ == "__main__":
    main()
