"""Benchmark of ``fce serve``: requests/s and latency of ``POST /extract`` with a template, against the in-process
detection time of the same pages.

    python -m bench.serve_bench [--rounds 3] [--concurrency 4] [--requests 400] [--example]

Pages: msv-big9 (``/work/shared/data`` or ``$FCE_BENCH_DATA``), each site split as in the speed section
(:func:`bench.common.split_learn_detect`: 30 pages learned, the rest detected); ``--example`` (or no data) uses the
bundled example site (30 learned, 5 detected). Templates are learned in this process and written to a SQLite
store; the server is ``fce --store … serve`` in its own process on a free loopback port (one core), the load
generator runs here (the other core): 2 processes in all.

What is measured, in one run:

* **in-process** — per page, ``parse_page`` + ``fce.pipeline.extract`` with the site's compiled template: what the
  server does for a request, without HTTP and JSON;
* **sequential** — one keep-alive connection, one request at a time, each right after the same page's
  in-process detection (so both see the same load from other jobs): the latency of each page's request, and the
  *overhead* = latency − in-process time of the same page (median over ``--rounds`` per page; the table gives
  its median and p99 over pages). The target is overhead ≤ 1 ms at p50;
* **HTTP overhead** — the latency of each sequential request minus the server's own time on the page (reading
  the JSON body excluded; parsing, extracting, encoding the answer included), which the server reports in a
  ``Server-Timing`` header: measured in the same process at the same moment, so other jobs on the machine move it
  least;
* **floor** — ``GET /healthz`` on the same connection: HTTP + framework with no body and no extraction;
* **CPU** — the server process's CPU time (``/proc``) over the sequential passes per request, against this
  process's CPU time per in-process detection: unlike latency, hardly moved by other jobs on a shared machine;
* **wrk** (where installed: ``apt-get install wrk``) — a load generator in C, so that the client's own cost
  (httpx takes ~1 ms of CPU per request) is not counted: one connection (latency p50 / p99; overhead = its p50 −
  the p50 of the server's own time on the same requests, read from their ``Server-Timing`` headers), then
  ``--concurrency`` connections (requests/s), each for ``--wrk-seconds``, cycling through the pages;
* **concurrent** — ``--concurrency`` client threads, ``--requests`` requests drawn round-robin from the pages:
  requests/s, p50 and p99 latency.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests._serving import running_serve

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "site"

#: ``GET /healthz`` requests per round for the HTTP floor (enough for 1 s of server CPU at ~2 ms each).
HEALTHZ_PER_ROUND = 200



def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def _pages(example: bool) -> tuple[dict[str, list[bytes]], list[tuple[str, bytes]], str]:
    """``(learning pages per site, [(site, page) to detect], description)``."""
    from bench.common import load_specs, split_learn_detect

    specs = [] if example else load_specs("msv-big9")
    if not specs:
        learn = {"news.example.com": [p.read_bytes() for p in sorted((EXAMPLE / "learn").glob("*.html"))]}
        detect = [("news.example.com", p.read_bytes()) for p in sorted((EXAMPLE / "new").glob("*.html"))]
        return learn, detect, "examples/site (30 learned, 5 detected)"
    by_site: dict[str, list] = {}
    for spec in specs:
        by_site.setdefault(spec.site, []).append(spec)
    learn, detect = {}, []
    for site, pages in sorted(by_site.items()):
        lrn, det = split_learn_detect(pages, seed=0)
        learn[site] = [s.read() for s in lrn]
        detect += [(site, s.read()) for s in det]
    return learn, detect, f"msv-big9 ({len(learn)} sites, {len(detect)} held-out pages)"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``; clock ticks of 10 ms)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: wrk's script: each connection cycles through the request bodies of the file ``$FCE_BENCH_BODIES`` (one JSON
#: document per line).
WRK_SCRIPT = """
local bodies = {}
for line in io.lines(os.getenv("FCE_BENCH_BODIES")) do bodies[#bodies + 1] = line end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local i = math.random(#bodies) - 1
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, "/extract", nil, bodies[i])
end
own = {}
response = function(status, headers, body)
  local timing = headers["Server-Timing"] or headers["server-timing"]
  if timing then own[#own + 1] = tonumber(string.match(timing, "dur=([%d.]+)")) end
end
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
done = function(summary, latency, requests)
  local all = {}
  for _, thread in ipairs(threads) do
    for _, v in ipairs(thread:get("own")) do all[#all + 1] = v end
  end
  table.sort(all)
  if #all > 0 then print(string.format("SERVER_OWN_P50 %.3f", all[math.floor((#all + 1) / 2)])) end
end
"""

_WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk(base: str, bodies: list[bytes], connections: int, seconds: int, tmp: str) -> dict[str, float] | None:
    """Latency percentiles (ms) and requests/s of ``wrk`` (one thread, ``connections`` connections) over the
    bodies; None when wrk is not installed."""
    import re
    import shutil

    exe = shutil.which("wrk")
    if exe is None:
        return None
    lines = Path(tmp) / "bodies.jsonl"
    lines.write_bytes(b"\n".join(bodies) + b"\n")
    script = Path(tmp) / "post.lua"
    script.write_text(WRK_SCRIPT)
    out = subprocess.run([exe, "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script),
                          f"{base}/extract"], capture_output=True, text=True, check=True,
                         env={**os.environ, "FCE_BENCH_BODIES": str(lines)}).stdout
    found = {f"p{q}": float(v) * _WRK_UNITS[u]
             for q, v, u in re.findall(r"^\s+(50|90|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)}
    for key, pattern in (("requests_per_s", r"Requests/sec:\s+([\d.]+)"),
                         ("server_own_p50", r"SERVER_OWN_P50 ([\d.]+)")):
        match = re.search(pattern, out)
        if match is None:
            raise RuntimeError(f"wrk printed no {key} (its output: {out[-300:]!r})")
        found[key] = float(match.group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise SystemExit(f"wrk: {errors.group(1)} failed requests:\n{out}")
    return found


def _server_ms(response: httpx.Response) -> float:
    """The server's own time on the page, from its ``Server-Timing: extract;dur=MS`` header."""
    return float(response.headers["server-timing"].split("dur=", 1)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over the pages (per-page medians)")
    parser.add_argument("--concurrency", type=int, default=4, help="client threads of the concurrent pass")
    parser.add_argument("--requests", type=int, default=400, help="requests of the concurrent pass")
    parser.add_argument("--wrk-seconds", type=int, default=15, help="duration of each wrk run")
    parser.add_argument("--example", action="store_true", help="use the bundled example site")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)

    from fce.detect import Detector
    from fce.parse import parse_page
    from fce.pipeline import extract, learn_template
    from templates_store import open_store

    learn, detect, described = _pages(args.example)
    bodies = [json.dumps({"html": page.decode("utf-8", "replace"), "site": site}).encode() for site, page in detect]
    with tempfile.TemporaryDirectory(prefix="fce-serve-bench-") as tmp:
        store_url = f"sqlite:///{tmp}/t.db"
        detectors = {}
        with open_store(store_url) as store:
            for site, pages in learn.items():
                template = learn_template([parse_page(p) for p in pages], site)
                store.put(site, template.to_json())
                detectors[site] = Detector(template)
        with running_serve(Path(tmp), "--log-level", "warning", store=store_url) as server:
            process, base = server.process, server.base
            inproc: list[list[float]] = [[] for _ in detect]
            seq: list[list[float]] = [[] for _ in detect]
            in_server: list[float] = []  # latency − the server's own time on the page (Server-Timing), per request
            server_own: list[float] = []  # the server's own time on the page (Server-Timing), per request
            floor: list[float] = []
            cpu = {"inproc": 0.0, "server": 0.0, "healthz": 0.0}
            with httpx.Client(timeout=60, headers={"content-type": "application/json"}) as client:
                for i, body in enumerate(bodies):  # warm-up: the server compiles each site's template once
                    assert client.post(f"{base}/extract", content=body).status_code == 200, i
                for site, page in detect:  # and this process its caches (the first pass is 2-3x slower)
                    extract(parse_page(page), detectors[site], site=site)
                for _ in range(args.rounds):
                    # wall clock: each page in process, then its request at once, so that both see the same load
                    for i, ((site, page), body) in enumerate(zip(detect, bodies, strict=True)):
                        t0 = time.perf_counter()
                        extract(parse_page(page), detectors[site], site=site)
                        t1 = time.perf_counter()
                        r = client.post(f"{base}/extract", content=body)
                        t2 = time.perf_counter()
                        assert r.status_code == 200, r.text
                        inproc[i].append(t1 - t0)
                        seq[i].append(t2 - t1)
                        in_server.append((t2 - t1) * 1000 - _server_ms(r))
                        server_own.append(_server_ms(r))
                    # CPU: whole passes, this process's own CPU time against the server's
                    c0 = time.process_time()
                    for site, page in detect:
                        extract(parse_page(page), detectors[site], site=site)
                    cpu["inproc"] += time.process_time() - c0
                    c0 = _cpu_seconds(process.pid)
                    for body in bodies:
                        assert client.post(f"{base}/extract", content=body).status_code == 200
                    cpu["server"] += _cpu_seconds(process.pid) - c0
                    c0 = _cpu_seconds(process.pid)
                    for _ in range(HEALTHZ_PER_ROUND):
                        t0 = time.perf_counter()
                        client.get(f"{base}/healthz")
                        floor.append(time.perf_counter() - t0)
                    cpu["healthz"] += _cpu_seconds(process.pid) - c0
            in_ms = [statistics.median(v) * 1000 for v in inproc]
            seq_ms = [statistics.median(v) * 1000 for v in seq]
            over_ms = [statistics.median(r - d for r, d in zip(rs, ds, strict=True)) * 1000  # paired, per round
                       for rs, ds in zip(seq, inproc, strict=True)]

            latencies: list[float] = []
            lock = threading.Lock()

            def worker(indices: list[int]) -> None:
                with httpx.Client(timeout=60, headers={"content-type": "application/json"}) as client:
                    for i in indices:
                        t0 = time.perf_counter()
                        r = client.post(f"{base}/extract", content=bodies[i])
                        elapsed = time.perf_counter() - t0
                        assert r.status_code == 200, r.text
                        with lock:
                            latencies.append(elapsed * 1000)

            order = [i % len(bodies) for i in range(args.requests)]
            shares = [order[k::args.concurrency] for k in range(args.concurrency)]
            t0 = time.perf_counter()
            with ThreadPoolExecutor(args.concurrency) as pool:
                list(pool.map(worker, shares))
            wall = time.perf_counter() - t0
            wrk1 = _wrk(base, bodies, 1, args.wrk_seconds, tmp)
            wrkc = _wrk(base, bodies, args.concurrency, args.wrk_seconds, tmp)

    sizes = sorted(len(p) for _, p in detect)
    n_seq = args.rounds * len(detect)
    cpu_in = cpu["inproc"] / n_seq * 1000
    cpu_srv = cpu["server"] / n_seq * 1000
    cpu_floor = cpu["healthz"] / (args.rounds * HEALTHZ_PER_ROUND) * 1000
    figures = {
        "pages": described,
        "median_page_kb": round(statistics.median(sizes) / 1024, 1),
        "inprocess_ms_p50": round(_pct(in_ms, 50), 2),
        "sequential_ms_p50": round(_pct(seq_ms, 50), 2),
        "sequential_ms_p99": round(_pct(seq_ms, 99), 2),
        "overhead_ms_p50": round(_pct(over_ms, 50), 2),
        "overhead_ms_p99": round(_pct(over_ms, 99), 2),
        "http_overhead_ms_p50": round(_pct(in_server, 50), 2),
        "http_overhead_ms_p99": round(_pct(in_server, 99), 2),
        "healthz_ms_p50": round(_pct([f * 1000 for f in floor], 50), 2),
        "cpu_ms_inprocess": round(cpu_in, 2),
        "cpu_ms_server_extract": round(cpu_srv, 2),
        "cpu_ms_overhead": round(cpu_srv - cpu_in, 2),
        "cpu_ms_server_healthz": round(cpu_floor, 2),
        "concurrency": args.concurrency,
        "requests": args.requests,
        "requests_per_s": round(args.requests / wall, 1),
        "concurrent_ms_p50": round(_pct(latencies, 50), 2),
        "concurrent_ms_p99": round(_pct(latencies, 99), 2),
    }
    print(f"pages: {described}, median {figures['median_page_kb']} KB; {args.rounds} rounds")
    print("| measure | p50 ms | p99 ms |\n|---|---|---|")
    print(f"| in-process parse + extract (template) | {figures['inprocess_ms_p50']} | {_pct(in_ms, 99):.2f} |")
    print(f"| POST /extract, sequential | {figures['sequential_ms_p50']} | {figures['sequential_ms_p99']} |")
    print(f"| overhead per request (sequential − in-process, per page) | {figures['overhead_ms_p50']} | "
          f"{figures['overhead_ms_p99']} |")
    print(f"| overhead per request (latency − the server's own time on the page, Server-Timing) | "
          f"{figures['http_overhead_ms_p50']} | {figures['http_overhead_ms_p99']} |")
    print(f"| GET /healthz (HTTP floor) | {figures['healthz_ms_p50']} | – |")
    print(f"| POST /extract, {args.concurrency} clients | {figures['concurrent_ms_p50']} | "
          f"{figures['concurrent_ms_p99']} |")
    print(f"CPU ms per page (mean): in-process {cpu_in:.2f}, server per POST /extract {cpu_srv:.2f}, "
          f"overhead {cpu_srv - cpu_in:.2f} ({(cpu_srv / cpu_in - 1) * 100:.0f}%); server per GET /healthz "
          f"{cpu_floor:.2f}")
    print(f"requests/s with {args.concurrency} clients: {figures['requests_per_s']} "
          f"({args.requests} requests; server: 1 process)")
    if wrk1 is not None and wrkc is not None:
        figures["wrk"] = {"sequential": wrk1, f"{args.concurrency}_connections": wrkc}
        print(f"wrk (a C load generator), 1 connection: p50 {wrk1['p50']:.2f} ms, p99 {wrk1['p99']:.2f} ms, "
              f"{wrk1['requests_per_s']:.1f} requests/s; the server's own time on the page (Server-Timing, "
              f"same requests) p50 {wrk1['server_own_p50']:.2f} ms: overhead at p50 "
              f"{wrk1['p50'] - wrk1['server_own_p50']:.2f} ms")
        print(f"wrk, {args.concurrency} connections: p50 {wrkc['p50']:.2f} ms, p99 {wrkc['p99']:.2f} ms, "
              f"{wrkc['requests_per_s']:.1f} requests/s")
    else:
        print("wrk not installed (apt-get install wrk): no C load generator figures")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
