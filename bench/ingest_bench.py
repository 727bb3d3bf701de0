"""Benchmark of ``fce ingest``: end-to-end pages/s per core and worker memory on a WARC of real pages.

    python -m bench.ingest_bench [--workers N] [--files N] [--copies 1 4] [--out DIR]

The pages are every page of the evaluation data (``/work/shared/data``, or ``$FCE_BENCH_DATA``; the benchmark
says so and exits 0 when it is absent), written as HTTP response records into ``--files`` WARC.gz files (a
page without a known URL gets ``https://<site>/<id>``). Each configuration runs in a fresh process, the local
engine with ``--workers`` worker processes, in this order:

* ``fce learn+detect`` — the whole job on an empty store: sample, learn every domain with >= 20 pages, extract;
* ``fce detect (warm)`` — the same inputs again into a new output directory with the templates stored
  (``detect_only``): the steady state of a crawl that learned once;
* ``trafilatura`` — the same pipeline (readers, parse, workers, output rows) with ``trafilatura.extract`` on the
  parsed tree as the extractor instead of templates (``ingest(method=...)``);
* ``pipeline floor`` — the same pipeline with an extractor that returns nothing: reading, parsing, rows and
  workers alone, the most any extractor could run at;
* ``... sites of >= 20 pages`` — the warm run and trafilatura on the pages of the sites that have enough pages
  to be learned (the template path; most other pages are from one-page sites and go to the fallback);
* ``fce detect (warm) ×C`` — the warm run on the WARCs written C times over (URLs made distinct), to show that
  worker memory does not grow with the input.

pages/s counts every record (rows out) over the run's wall-clock time, sampling and learning included where the
run does them; per core divides by the workers; per CPU-s divides by the CPU time of the driver and its workers
(user + system), which a machine shared with other jobs distorts less. Per stage: the detect tasks' CPU time
(and wall-clock time) per page in each stage (``fce.ingest.detection.STAGES``: read, store, parse, extract,
release, write), from the manifests; on a busy machine wall-clock includes time waiting for a core, CPU time
much less so. Worker peak RSS is the largest
``VmHWM`` among the run's worker processes (and their forkserver), and their CPU time, polled from ``/proc``
while the run goes on: workers start from a forkserver, so ``RUSAGE_CHILDREN`` never sees them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``fce`` importable from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common  # noqa: E402
from bench.ingest_methods import NOTHING, TRAFILATURA  # noqa: E402 -- and registers them in this process
from fce.extras import install_hint  # noqa: E402
from fce.ingest import DEFAULT_MIN_PAGES  # noqa: E402

DATASETS = ("msv-big9", "cleanportaleval", "scrapinghub", "l3s-gn1", "cleaneval")


# --- the WARC --------------------------------------------------------------------------------------------


def build_warcs(directory: Path, files: int, copies: int, *,
                min_site_pages: int = 0) -> tuple[list[Path], int, int]:
    """``(paths, records, bytes of HTML)``: every page of the data (of the sites with at least ``min_site_pages``
    pages), round-robin over ``files`` WARC.gz files."""
    from collections import Counter

    from fce.ingest import WarcPage, write_warc

    specs = [spec for dataset in DATASETS for spec in common.load_specs(dataset)]
    per_site = Counter(spec.site for spec in specs)
    specs = [spec for spec in specs if per_site[spec.site] >= min_site_pages]
    buckets: list[list[WarcPage]] = [[] for _ in range(files)]
    size = 0
    for copy in range(copies):
        for i, spec in enumerate(specs):
            url = spec.url or f"https://{spec.site}/{spec.doc_id}"
            if copy:
                url += ("&" if "?" in url else "?") + f"copy={copy}"
            body = spec.read()
            size += len(body)
            buckets[i % files].append(WarcPage(url, body, content_type="text/html"))
    directory.mkdir(parents=True, exist_ok=True)
    paths = [write_warc(directory / f"bench-{n:02d}.warc.gz", bucket) for n, bucket in enumerate(buckets)]
    return paths, sum(map(len, buckets)), size


# --- one configuration, in its own process ---------------------------------------------------------------


class _Descendants(threading.Thread):
    """Polls this process's descendants (``/proc``) for their CPU time and peak RSS until stopped.

    Workers start from a forkserver, so they are not this process's children: ``RUSAGE_CHILDREN`` never sees
    them. Each descendant's last reading counts; a worker's CPU time after its last poll (at most
    :data:`POLL_SECONDS`) is missed. The forkserver itself is among them (its RSS is a worker's before its
    first task)."""

    POLL_SECONDS = 0.05

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[int, tuple[float, float]] = {}  # pid -> (CPU seconds, peak RSS MB)
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.poll()
            self._stop_event.wait(self.POLL_SECONDS)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()
        self.poll()

    def poll(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        parents: dict[int, int] = {}
        stats: dict[int, list[str]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            stats[int(entry.name)] = fields
        mine = {os.getpid()}
        grew = True
        while grew:
            found = {pid for pid, parent in parents.items() if parent in mine} - mine
            grew = bool(found)
            mine |= found
        for pid in mine - {os.getpid()}:
            cpu = (int(stats[pid][11]) + int(stats[pid][12])) / tick  # utime, stime
            rss = common.status_mb(pid, "VmHWM") or 0.0
            self.seen[pid] = (max(cpu, self.seen.get(pid, (0.0, 0.0))[0]), max(rss, self.seen.get(pid, (0.0, 0.0))[1]))

    @property
    def cpu_seconds(self) -> float:
        return sum(cpu for cpu, _ in self.seen.values())

    @property
    def peak_rss_mb(self) -> float:
        return max((rss for _, rss in self.seen.values()), default=0.0)


def run_one(config: dict[str, Any]) -> dict[str, Any]:
    from fce.ingest import ingest

    if config.get("method") in (TRAFILATURA, NOTHING):
        # Workers start from a forkserver, not from this process: they import the bench's methods themselves.
        import fce.ingest.engine

        fce.ingest.engine.WORKER_PRELOAD = (*fce.ingest.engine.WORKER_PRELOAD, "bench.ingest_methods")
    descendants = _Descendants()
    descendants.start()
    started = time.perf_counter()
    summary = ingest(config["inputs"], out_dir=config["out"], store=config["store"], workers=config["workers"],
                     detect_only=config.get("detect_only", False), method=config.get("method"), progress=False)
    seconds = time.perf_counter() - started
    descendants.stop()
    own = resource.getrusage(resource.RUSAGE_SELF)
    cpu = descendants.cpu_seconds + own.ru_utime + own.ru_stime
    return {
        "rows": summary.rows,
        "seconds": seconds,
        "pages_per_s": summary.rows / seconds,
        "per_core": summary.rows / seconds / summary.workers,
        "per_cpu_second": summary.rows / cpu,
        "workers": summary.workers,
        "learned": len(summary.learned),
        "counts": summary.counts,
        "phases": summary.phase_seconds,
        "stage_ms_per_page": {k: 1000 * v / max(summary.rows, 1) for k, v in summary.stage_seconds.items()},
        "stage_cpu_ms_per_page": {k: 1000 * v / max(summary.rows, 1) for k, v in summary.stage_cpu_seconds.items()},
        "worker_peak_rss_mb": descendants.peak_rss_mb,
        "driver_peak_rss_mb": common.peak_rss_mb(),
    }


def in_fresh_process(config: dict[str, Any]) -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-m", "bench.ingest_bench", "--one", json.dumps(config)],
                            capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"configuration {config['name']} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- the run ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--files", type=int, default=8, help="WARC files the pages are spread over")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4], help="input sizes for the memory run")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON to DIR/ingest.json")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(json.loads(args.one))))
        return 0
    if not common.data_root().is_dir():
        print(f"ingest bench: no evaluation data at {common.data_root()} (set FCE_BENCH_DATA); skipped")
        return 0
    try:
        import trafilatura  # noqa: F401
    except ImportError:
        print(f"ingest bench: trafilatura is not installed ({install_hint('peers')}); skipped")
        return 0
    with tempfile.TemporaryDirectory(prefix="fce-ingest-bench-") as tmp:
        work = Path(tmp)
        warcs = {}
        for copies in sorted(set([1, *args.copies])):
            warcs[copies] = build_warcs(work / f"warc-x{copies}", args.files, copies)
        paths, records, size = warcs[1]
        learnable = build_warcs(work / "warc-learnable", args.files, 1, min_site_pages=DEFAULT_MIN_PAGES)
        print(f"{records} records ({size / 1e6:.1f} MB of HTML) in {len(paths)} WARC.gz files; "
              f"{args.workers} workers on {os.cpu_count()} CPUs")
        store = f"sqlite:///{work / 'templates.db'}"
        base = {"inputs": [str(p) for p in paths], "store": store, "workers": args.workers}
        configs = [
            {**base, "name": "fce learn+detect", "out": str(work / "cold")},
            {**base, "name": "fce detect (warm)", "out": str(work / "warm"), "detect_only": True},
            {**base, "name": "trafilatura", "out": str(work / "traf"), "method": TRAFILATURA},
            {**base, "name": "pipeline floor (no extractor)", "out": str(work / "floor"), "method": NOTHING},
            {**base, "name": f"fce detect (warm), sites of >= {DEFAULT_MIN_PAGES} pages", "detect_only": True,
             "out": str(work / "warm-learnable"), "inputs": [str(p) for p in learnable[0]]},
            {**base, "name": f"trafilatura, sites of >= {DEFAULT_MIN_PAGES} pages", "method": TRAFILATURA,
             "out": str(work / "traf-learnable"), "inputs": [str(p) for p in learnable[0]]},
        ]
        for copies in args.copies:
            if copies != 1:
                configs.append({**base, "name": f"fce detect (warm) x{copies}", "out": str(work / f"warm{copies}"),
                                "detect_only": True, "inputs": [str(p) for p in warcs[copies][0]]})
        results = {}
        for config in configs:
            results[config["name"]] = in_fresh_process(config)
            print(f"  {config['name']}: done", file=sys.stderr)
    print_table(results)
    warm, traf = results["fce detect (warm)"], results["trafilatura"]
    print(f"\nfce warm / trafilatura: {warm['per_core'] / traf['per_core']:.1f}x pages/s per core, "
          f"{warm['per_cpu_second'] / traf['per_cpu_second']:.1f}x pages per CPU-second "
          f"(target: >= 200 pages/s per core and >= 4x)")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "ingest.json").write_text(json.dumps({"records": records, "html_bytes": size,
                                                          "files": args.files, "results": results}, indent=2))
    return 0


def print_table(results: dict[str, dict[str, Any]]) -> None:
    header = ("run", "rows", "seconds", "pages/s", "per core", "per CPU-s", "learned", "worker RSS MB",
              "driver RSS MB")
    rows = [header] + [
        (name, str(r["rows"]), f"{r['seconds']:.1f}", f"{r['pages_per_s']:.0f}", f"{r['per_core']:.0f}",
         f"{r['per_cpu_second']:.0f}", str(r["learned"]), f"{r['worker_peak_rss_mb']:.0f}",
         f"{r['driver_peak_rss_mb']:.0f}")
        for name, r in results.items()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print()
    for n, row in enumerate(rows):
        pairs = enumerate(zip(row, widths, strict=True))
        cells = (cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in pairs)
        print("  ".join(cells))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for name, r in results.items():
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in r["phases"].items())
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(r["counts"].items()))
        print(f"  {name}: {phases}; {statuses}")
    print_stages(results, "stage_cpu_ms_per_page", "CPU ms/page in detect tasks")
    print_stages(results, "stage_ms_per_page", "wall ms/page in detect tasks")


def print_stages(results: dict[str, dict[str, Any]], key: str, title: str) -> None:
    """The detect tasks' time per page and stage, in ms."""
    stages = list(next(iter(results.values()))[key])
    header = (title, *stages, "total")
    rows = [header] + [
        (name, *(f"{r[key].get(s, 0.0):.2f}" for s in stages), f"{sum(r[key].values()):.2f}")
        for name, r in results.items()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print()
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths,
                                                                                                    strict=True))))
        if n == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    sys.exit(main())
