"""Profile ``fce detect`` with a learned template.

    python -m bench.profile_detect [--dataset msv-big9] [--site SITE ...] [--mode MODE] [--repeat 5] [--fallback]
                                   [--no-parse] [--html FILE] [--stages]

Per site, learns a template on 30 pages (the speed section's split, :func:`bench.common.split_learn_detect`),
then runs detection over the site's other pages ``--repeat`` times under pyinstrument and prints the top of the
call tree and the functions with most self time. Learning is not profiled. By default a detection starts from the
page's bytes (parse included, as in the speed table) and uses the template alone; ``--fallback`` adds the default
fallback where the template does not fit; ``--no-parse`` profiles detection on pages parsed beforehand.
``--stages`` runs no profiler: it times each stage of a guided detection (the calls ``fce.pipeline.extract``
makes, one by one) by thread CPU time beside lxml's parse of the same page, and prints each stage's ratio to it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import median
from typing import Any

from bench import common


def self_times(root: Any) -> list[tuple[tuple[str, str], float, float]]:
    """Seconds of self time per function over the raw sample tree (pyinstrument's ``[self]`` leaves are
    attributed to their parent frame), largest first, with their share of the total."""
    totals: dict[tuple[str, str], float] = defaultdict(float)
    stack = [root]
    while stack:
        frame = stack.pop()
        stack.extend(frame.children)
        if frame.is_synthetic and frame.parent is not None:
            parent = frame.parent
            totals[(parent.function, f"{parent.file_path_short}:{parent.line_no}")] += frame.time
    grand = sum(totals.values()) or 1.0
    return [(k, v, v / grand) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_detect", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="msv-big9", help="a dataset with ≥ 31 pages per site")
    parser.add_argument("--site", nargs="*", default=None, help="sites to profile (default: all with > 30 pages)")
    parser.add_argument("--repeat", type=int, default=5, help="passes over the held-out pages")
    parser.add_argument("--fallback", action="store_true", help="use the default fallback where the fit is low")
    parser.add_argument("--mode", default=None, help="detection mode (default: fce's default mode)")
    parser.add_argument("--no-parse", action="store_true", help="parse the pages before profiling")
    parser.add_argument("--top", type=int, default=60, help="lines of the call tree to print")
    parser.add_argument("--flat", type=int, default=25, help="lines of the self-time listing to print")
    parser.add_argument("--interval", type=float, default=0.0002, help="pyinstrument sampling interval (s)")
    parser.add_argument("--data", type=Path, default=common.data_root())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--html", type=Path, default=None, help="also write pyinstrument's HTML report here")
    parser.add_argument("--stages", action="store_true",
                        help="no profiler: time each stage of a guided detection against the lxml floor")
    parser.add_argument("--tree", action="store_true",
                        help="parse every page into its lxml tree, then segment it (fce detect makes the block "
                             "tree while parsing where the template and fallback read only it: parse_page(blocks=…))")
    args = parser.parse_args(argv)

    Profiler: Any = None
    if not args.stages:
        try:
            from pyinstrument import Profiler
        except ImportError:
            print("pyinstrument is not installed (pip install pyinstrument); nothing profiled.")
            return 0
    specs = common.load_specs(args.dataset, args.data)
    if not specs:
        print(f"{args.dataset} not found under {args.data}: nothing profiled.")
        return 0

    from fce.layouts import SiteDetector
    from fce.learn import LayoutLearner
    from fce.parse import parse_page
    from fce.pipeline import DEFAULT_FALLBACK, extract

    groups = {s: p for s, p in common.by_site(specs).items() if len(p) > common.LEARN_PAGES}
    if args.site:
        missing = sorted(set(args.site) - set(groups))
        if missing:
            print(f"no site with > {common.LEARN_PAGES} pages called {', '.join(missing)} in {args.dataset}")
            return 2
        groups = {s: groups[s] for s in args.site}
    work = []  # (detector, bytes, url)
    for site, pages in groups.items():
        learn, held_out = common.split_learn_detect(pages, args.seed)
        # what `fce learn` stores and `fce detect` compiles: one template per layout, the layout chosen per page
        record = LayoutLearner(site).fit([parse_page(s.read(), url=s.url) for s in learn]).model_
        detector = SiteDetector(record, mode=args.mode) if args.mode else SiteDetector(record)
        work += [(detector, s.read(), s.url) for s in held_out]
    fallback = DEFAULT_FALLBACK if args.fallback else None
    n_bytes = sum(len(h) for _, h, _ in work)
    mode = getattr(work[0][0], "mode", None) if work else None
    print(f"{len(work)} pages of {len(groups)} site(s) of {args.dataset}, {n_bytes / 1e6:.1f} MB; mode {mode}; "
          f"{args.repeat} passes; {'with' if args.fallback else 'without'} fallback; "
          f"{'pages parsed beforehand' if args.no_parse else 'parse included'}")

    from fce.pipeline import blocks_for

    def parse(html: bytes, url: str | None, detector: Any) -> Any:
        """As fce detect parses (or into the tree, --tree)."""
        blocks = None if args.tree else blocks_for(detector, fallback)
        return parse_page(html, url=url) if blocks is None else parse_page(html, url=url, blocks=blocks)

    for detector, html, url in work[:3]:  # warm-up
        extract(parse(html, url, detector), detector, fallback=fallback)
    if args.stages:
        return stages(work, args.repeat, tree=args.tree)
    parse_ns = 0
    for _ in range(args.repeat):
        for detector, html, url in work:
            start = time.perf_counter_ns()
            parse(html, url, detector)
            parse_ns += time.perf_counter_ns() - start

    profiler = Profiler(interval=args.interval)
    start = time.perf_counter_ns()
    if args.no_parse:
        # fresh Page objects every pass: the block tree is cached on a page, and caching it is not what we profile
        passes = [[(d, parse(h, u, d)) for d, h, u in work] for _ in range(args.repeat)]
        start = time.perf_counter_ns()
        profiler.start()
        for parsed in passes:
            for detector, page in parsed:
                extract(page, detector, fallback=fallback)
    else:
        profiler.start()
        for _ in range(args.repeat):
            for detector, html, url in work:
                extract(parse(html, url, detector), detector, fallback=fallback)
    profiler.stop()
    elapsed = time.perf_counter_ns() - start
    n = len(work) * args.repeat
    print(f"detect: {elapsed / n / 1e6:.2f} ms/page under the profiler; parse_page alone: "
          f"{parse_ns / n / 1e6:.2f} ms/page (not profiled)\n")
    tree = profiler.output_text(unicode=True, color=False, show_all=False)
    lines = tree.splitlines()
    print("\n".join(lines[: args.top]))
    if len(lines) > args.top:
        print(f"… ({len(lines) - args.top} more lines)")
    print(f"\nSelf time by function (top {args.flat}; % of the profiled time):\n")
    session = profiler.last_session
    root = session.root_frame() if session is not None else None
    for (function, where), seconds, share in (self_times(root) if root is not None else [])[: args.flat]:
        print(f"{seconds:8.3f} s {share:6.1%}  {function}  {where}")
    if args.html:
        args.html.write_text(profiler.output_html(), encoding="utf-8")
        print(f"\nHTML report: {args.html}")
    return 0


#: The stages :func:`stages` times, in the order a guided detection runs them.
STAGES = ("lxml floor", "parse_page", "walk (segmentation)", "columns", "layout choice and fit",
          "match (mask, subtree sums, selection)", "extraction value", "freeing the page")


def stages(work: Sequence[tuple[Any, bytes, str | None]], repeat: int, tree: bool = False) -> int:
    """Each stage of ``fce.pipeline.extract`` with a template (the calls it makes, made one by one), timed by the
    thread's CPU time on every page beside lxml's parse of it; per stage the median over pages of the median of
    ``repeat`` passes, and of its ratio to the floor. The page is parsed as fce detect parses it (its block tree
    made while parsing, so the walk's stage is a look-up) or, with ``tree``, into its lxml tree first."""
    import lxml.html

    from fce.blocks import blocks_of
    from fce.extraction import Extraction
    from fce.parse import parse_page
    from fce.pipeline import blocks_for

    clock = time.thread_time_ns
    times: dict[str, list[list[int]]] = {name: [[] for _ in work] for name in STAGES}
    for _ in range(repeat):
        for k, (detector, html, url) in enumerate(work):
            site = detector
            marks = [clock()]
            lxml.html.document_fromstring(html)
            marks.append(clock())
            blocks = None if tree else blocks_for(site, None)
            page = parse_page(html, url=url) if blocks is None else parse_page(html, url=url, blocks=blocks)
            marks.append(clock())
            segmented = blocks_of(page, site.path_style)
            marks.append(clock())
            segmented.columns  # noqa: B018 (computed and cached on first read)
            marks.append(clock())
            choice = site.choose(segmented)
            marks.append(clock())
            match = site.detectors[choice.best].match(segmented, fit=choice.fit)
            marks.append(clock())
            Extraction.from_blocks(match.blocks, method="template", site=site.site, fit=choice.fit)
            marks.append(clock())
            del page, segmented, match
            marks.append(clock())
            for name, start, end in zip(STAGES, marks[:-1], marks[1:], strict=True):
                times[name][k].append(end - start)
    floor = [median(t) for t in times[STAGES[0]]]
    print("\n| stage | µs/page (median) | × floor |\n|:--|--:|--:|")
    total = 0.0
    for name in STAGES:
        per_page = [median(t) for t in times[name]]
        ratio = median([p / f for p, f in zip(per_page, floor, strict=True) if f > 0])
        total += ratio if name != STAGES[0] else 0.0
        print(f"| {name} | {median(per_page) / 1e3:.1f} | {ratio:.3f}× |")
    print(f"| (sum of the stages after the floor) | | {total:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
