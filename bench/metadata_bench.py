"""Time :func:`fce.metadata.extract_metadata` against lxml's parse of the same page (the "parse floor").

    python -m bench.metadata_bench                      # every page of /work/shared/data
    python -m bench.metadata_bench --sample 4 --repeats 5 --datasets readability l3s-gn1
    python -m bench.metadata_bench --no-body            # extract_metadata(..., read_body=False)

Per page, the page is decoded once (:func:`fce.parse.decode_html`, not timed); then, interleaved, the best of
``--repeats`` runs of ``extract_metadata(text, url=url)`` and of ``lxml.etree.fromstring(utf8, HTMLParser)``
(the text encoded to UTF-8 beforehand, as :func:`fce.parse.parse_page` hands it to libxml2; a plain
``etree.HTMLParser``, which is faster than ``lxml.html.fromstring``'s element classes, so the floor is the strict
one). The figure is the per-page ratio metadata time / parse time: median, p95 and max over the pages, per
dataset and overall, and the ratio of the summed times. fce's budget is 0.1× (median and p95).

Best-of-N per page filters out the scheduler; both functions run in the same process, one after the other, so
they share caches and CPU frequency. The data is read in place (``--data`` or ``FCE_BENCH_DATA``); without it the
script says so and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lxml import etree

from fce.evaluation.packages import iter_documents
from fce.metadata import extract_metadata
from fce.parse import decode_html

#: The evaluation data (``<dataset>/<site>/<id>.html``), as in :mod:`bench.common`.
DATA_ROOT = Path(os.environ.get("FCE_BENCH_DATA", "/work/shared/data"))
#: fce's budget: metadata at most this fraction of the parse floor (median and p95 of the per-page ratio).
BUDGET = 0.1


def _best(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter_ns()
        function()
        best = min(best, time.perf_counter_ns() - start)
    return best


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(root: Path, datasets: Sequence[str] | None, sample: int, repeats: int,
            read_body: bool = True) -> dict[str, list[tuple[float, float]]]:
    """Per dataset, (metadata ns, parse ns) of every ``sample``-th page."""
    names = datasets or sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    parser = etree.HTMLParser(encoding="utf-8")
    times: dict[str, list[tuple[float, float]]] = {}
    for name in names:
        documents = list(iter_documents(root / name))[::max(1, sample)]
        rows = times.setdefault(name, [])
        for doc in documents:
            text, _ = decode_html(doc.read_html())
            data = text.encode("utf-8", "surrogatepass")
            url = doc.url
            gc.collect()
            meta_ns = _best(lambda: extract_metadata(text, url=url, read_body=read_body),  # noqa: B023
                            repeats)
            parse_ns = _best(lambda: etree.fromstring(data, parser), repeats)  # noqa: B023
            rows.append((meta_ns, parse_ns))
    return times


def report(times: dict[str, list[tuple[float, float]]]) -> str:
    """The table: pages, median / p95 / max per-page ratio, summed-time ratio, mean ms of each side."""
    lines = ["| dataset | pages | median × parse | p95 × parse | max × parse | Σ meta / Σ parse | meta ms | parse ms |",
             "|---|---|---|---|---|---|---|---|"]
    everything: list[tuple[float, float]] = []
    for name, rows in [*times.items(), ("all", [])]:
        rows = rows or everything
        if name != "all":
            everything.extend(rows)
        if not rows:
            continue
        ratios = [meta / parse for meta, parse in rows if parse > 0]
        meta_total, parse_total = sum(m for m, _ in rows), sum(p for _, p in rows)
        lines.append(f"| {name} | {len(rows)} | {statistics.median(ratios):.3f} | {_percentile(ratios, 0.95):.3f} | "
                     f"{max(ratios):.3f} | {meta_total / parse_total:.3f} | {meta_total / len(rows) / 1e6:.3f} | "
                     f"{parse_total / len(rows) / 1e6:.3f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.metadata_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA_ROOT, help="the data root (<dataset>/<site>/<id>.html)")
    parser.add_argument("--datasets", nargs="*", default=None, help="datasets to time (default: all)")
    parser.add_argument("--sample", type=int, default=1, metavar="K", help="every K-th page of each dataset")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per page and side; the best counts")
    parser.add_argument("--no-body", action="store_true", help="time extract_metadata(..., read_body=False)")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no data at {args.data}: nothing to time")
        return 0
    times = measure(args.data, args.datasets, args.sample, args.repeats, read_body=not args.no_body)
    print(report(times))
    ratios = [m / p for rows in times.values() for m, p in rows if p > 0]
    if ratios:
        median, p95 = statistics.median(ratios), _percentile(ratios, 0.95)
        verdict = "within" if max(median, p95) <= BUDGET else "over"
        print(f"\nmetadata / parse floor: median {median:.3f}×, p95 {p95:.3f}× ({verdict} the {BUDGET}× budget)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
