"""Time what fce adds to a text extraction — the page's metadata, its content as markdown and as HTML, its
fingerprint — against lxml's parse of the same page (the "parse floor").

    python -m bench.output_bench                                   # every page of /work/shared/data
    python -m bench.output_bench --sample 4 --datasets readability l3s-gn1
    python -m bench.output_bench --outputs metadata                 # one output only

Per page, the page is parsed and extracted as ``fce detect`` does without a template (:func:`fce.parse.parse_page`
with the block tree made from the parse's events, :func:`fce.pipeline.extract`; not timed). Then, interleaved, the
best of ``--repeats`` runs of each output on top of that text extraction — ``page_metadata(page, result)`` (what
``--format json`` adds: the page's markup read by :func:`fce.metadata.extract_metadata`, and the language of the
text where the page declares none), ``structured(page,
result, "markdown")`` (``--format markdown``, links off, the default), ``structured(page, result, "html")`` and
``result.fingerprint`` (:mod:`fce.fingerprint`, in every JSON record and ingest row) —
and of ``lxml.etree.fromstring(utf8, HTMLParser)`` (the page decoded by :func:`fce.parse.decode_html` and encoded
to UTF-8 beforehand; a plain ``etree.HTMLParser``, faster than ``lxml.html.fromstring``'s element classes, so the
floor is the strict one). The figure is the per-page ratio output time / parse time: median, p95 and max over the
pages, per dataset and overall, and the ratio of the summed times. fce's budget is 0.1× for each output.

Best-of-N per page filters out the scheduler; everything runs in one process, one after the other, so the sides
share caches and CPU frequency. The data is read in place (``--data`` or ``FCE_BENCH_DATA``); without it the script
says so and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lxml import etree

from bench.common import data_root, percentile
from fce.evaluation.packages import iter_documents
from fce.parse import decode_html, parse_page
from fce.pipeline import extract, page_metadata, parse_blocks, structured

#: fce's budget: each output at most this fraction of the parse floor.
BUDGET = 0.1
#: What is timed, and how, given the page and its text extraction.
OUTPUTS: dict[str, Callable[[object, object], object]] = {
    "metadata": lambda page, result: page_metadata(page, result),  # type: ignore[arg-type]
    "markdown": lambda page, result: structured(page, result, "markdown"),  # type: ignore[arg-type]
    "html": lambda page, result: structured(page, result, "html"),  # type: ignore[arg-type]
    "fingerprint": lambda page, result: result.fingerprint,  # type: ignore[attr-defined]
}

Row = dict[str, float]  # output name (and "parse") → best ns


def _best(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter_ns()
        function()
        best = min(best, time.perf_counter_ns() - start)
    return best


def measure(root: Path, datasets: Sequence[str] | None, sample: int, repeats: int,
            outputs: Sequence[str]) -> dict[str, list[Row]]:
    """Per dataset, per page of every ``sample``-th: the best ns of the parse floor and of each output."""
    names = datasets or sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    parser = etree.HTMLParser(encoding="utf-8")
    times: dict[str, list[Row]] = {}
    for name in names:
        documents = list(iter_documents(root / name))[::max(1, sample)]
        rows = times.setdefault(name, [])
        for doc in documents:
            raw = doc.read_html()
            data = decode_html(raw)[0].encode("utf-8", "surrogatepass")
            page = parse_page(raw, url=doc.url, blocks=parse_blocks())
            result = extract(page, None)
            gc.collect()
            row = {"parse": _best(lambda: etree.fromstring(data, parser), repeats)}  # noqa: B023
            for output in outputs:
                row[output] = _best(lambda: OUTPUTS[output](page, result), repeats)  # noqa: B023
            rows.append(row)
    return times


def report(times: dict[str, list[Row]], outputs: Sequence[str]) -> str:
    """Per output, the table: pages, median / p95 / max per-page ratio, summed-time ratio, mean ms of each side."""
    lines = []
    for output in outputs:
        lines += [f"**{output}**", "", "| dataset | pages | median × parse | p95 × parse | max × parse | "
                  "Σ out / Σ parse | out ms | parse ms |", "|---|---|---|---|---|---|---|---|"]
        everything: list[Row] = []
        for name, rows in [*times.items(), ("all", [])]:
            rows = rows or everything
            if name != "all":
                everything.extend(rows)
            if not rows:
                continue
            ratios = [row[output] / row["parse"] for row in rows if row["parse"] > 0]
            total, parse_total = sum(r[output] for r in rows), sum(r["parse"] for r in rows)
            lines.append(f"| {name} | {len(rows)} | {statistics.median(ratios):.3f} | "
                         f"{percentile(ratios, 95):.3f} | {max(ratios):.3f} | {total / parse_total:.3f} | "
                         f"{total / len(rows) / 1e6:.3f} | {parse_total / len(rows) / 1e6:.3f} |")
        lines.append("")
    return "\n".join(lines)


def _verdict(ratio: float) -> str:
    return "within" if ratio <= BUDGET else "over"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.output_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=data_root(), help="the data root (<dataset>/<site>/<id>.html)")
    parser.add_argument("--datasets", nargs="*", default=None, help="datasets to time (default: all)")
    parser.add_argument("--sample", type=int, default=1, metavar="K", help="every K-th page of each dataset")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per page and side; the best counts")
    parser.add_argument("--outputs", nargs="+", choices=list(OUTPUTS), default=list(OUTPUTS),
                        help="what to time (default: all)")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no data at {args.data}: nothing to time")
        return 0
    times = measure(args.data, args.datasets, args.sample, args.repeats, args.outputs)
    print(report(times, args.outputs))
    for output in args.outputs:
        ratios = [r[output] / r["parse"] for rows in times.values() for r in rows if r["parse"] > 0]
        if ratios:
            median, p95 = statistics.median(ratios), percentile(ratios, 95)
            total = sum(r[output] for rows in times.values() for r in rows)
            parse_total = sum(r["parse"] for rows in times.values() for r in rows)
            print(f"{output} / parse floor: median {median:.3f}×, p95 {p95:.3f}×, Σ {total / parse_total:.3f}× "
                  f"(the {BUDGET}× budget: median {_verdict(median)}, p95 {_verdict(p95)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
