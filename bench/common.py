"""Shared pieces of the benchmark: the data on disk, the extractors under test, timing and memory helpers, and the
worker functions that :mod:`bench.run` runs in subprocesses.

Everything that is timed runs in a worker process started with ``spawn``: a *fresh* one per speed component (so
its peak RSS is that component's alone), a small pool for the quality passes. Workers read the pages themselves
from the paths they are given (nothing large is pickled) and return numbers, never extracted texts.

An extractor here is a function ``(html: bytes, url: str | None) -> str``: from the page's bytes to its main
content, everything the caller would pay for (decoding and parsing included) inside the timed call.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import inspect
import logging
import math
import os
import random
import re
import resource
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_ROOT",
    "LEARN_PAGES",
    "PEERS",
    "QUALITY_DATASETS",
    "TEMPLATE_DATASETS",
    "PageSpec",
    "data_root",
    "fce_methods",
    "isolated",
    "load_specs",
    "make_extractor",
    "parser_with_blocks",
    "peak_rss_mb",
    "status_mb",
    "percentile",
    "pool",
    "select_quick",
    "split_learn_detect",
    "strip_wrapper",
]

#: Where the evaluation data lives (``<dataset>/<site>/<id>.html|.txt|.json``); ``FCE_BENCH_DATA`` overrides it.
DATA_ROOT = Path("/work/shared/data")

#: The datasets of the single-page methods, in report order.
QUALITY_DATASETS = ("scrapinghub", "l3s-gn1", "cleaneval", "msv-big9", "cleanportaleval")

#: The datasets of the template (several pages per site).
TEMPLATE_DATASETS = ("msv-big9", "cleanportaleval")

#: The FastCE paper learns from "between 20 to 30 web pages" (§IV); the benchmark learns on at most this many.
LEARN_PAGES = 30
#: Learning is timed at least this many times per site (the median is kept): a site's fit takes 20–50 ms, and on a
#: shared 2-core machine three runs left the learn ÷ ContentExtractor ratios moving by a third between runs.
LEARN_REPEATS = 5
#: …and on at least this many where the site has them ("≥ 20 learning pages where the site has them").
MIN_LEARN_PAGES = 20
#: At most this many folds per site (a site of n ≤ 30 pages would otherwise need n learns for leave-one-out).
MAX_FOLDS = 10

#: The peers, in report order; the ones not importable are skipped.
PEERS = ("trafilatura", "readability", "resiliparse", "justext", "boilerpy3")
_PEER_MODULES = {
    "trafilatura": "trafilatura",
    "readability": "readability",
    "resiliparse": "resiliparse",
    "justext": "justext",
    "boilerpy3": "boilerpy3",
}

#: CleanEval / CleanPortalEval pages are wrapped in ``<text id="URL" …>`` … ``</text>`` (data READMEs); WCEB strips
#: the wrapper before extraction, and so do we, for every extractor, outside the timed call.
_WRAPPER_OPEN = re.compile(rb"\A\s*<text\s+id=[^>]*>", re.IGNORECASE)
_WRAPPER_CLOSE = re.compile(rb"</text>\s*\Z", re.IGNORECASE)


#: The clock of every timing, chosen by ``--clock`` and read by the workers from the environment: ``wall``
#: (``time.perf_counter_ns``) or ``cpu`` (the thread's CPU time, ``time.thread_time_ns``: what a page costs when
#: other processes compete for the cores — on a shared machine, wall time mostly measures the waiting).
CLOCK_ENV = "FCE_BENCH_CLOCK"
CLOCKS = ("wall", "cpu")


def clock_ns() -> int:
    return time.thread_time_ns() if os.environ.get(CLOCK_ENV) == "cpu" else time.perf_counter_ns()


def data_root() -> Path:
    return Path(os.environ.get("FCE_BENCH_DATA", DATA_ROOT))


def strip_wrapper(html: bytes) -> bytes:
    """The page without the CleanEval ``<text id=…>`` wrapper (unchanged when there is none)."""
    match = _WRAPPER_OPEN.match(html)
    if match is None:
        return html
    return _WRAPPER_CLOSE.sub(b"", html[match.end():])


# ---------------------------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageSpec:
    """One evaluation page, by reference (what workers are sent)."""

    dataset: str
    site: str
    doc_id: str
    html_path: str
    url: str | None
    gold_path: str | None  # None when the gold is missing or empty: such pages are learned on, never scored

    @property
    def key(self) -> str:
        return f"{self.dataset}/{self.site}/{self.doc_id}"

    def read(self) -> bytes:
        return strip_wrapper(Path(self.html_path).read_bytes())

    def gold(self) -> str | None:
        return None if self.gold_path is None else Path(self.gold_path).read_text(encoding="utf-8")


def load_specs(dataset: str, root: Path | None = None) -> list[PageSpec]:
    """Every page of ``dataset``, sorted by (site, doc_id); [] when the dataset is absent."""
    from fce.evaluation.packages import GoldStatus, iter_documents

    path = (root or data_root()) / dataset
    if not path.is_dir():
        return []
    return [
        PageSpec(
            dataset=dataset,
            site=doc.site,
            doc_id=doc.doc_id,
            html_path=str(doc.html_path),
            url=doc.url,
            gold_path=str(doc.gold_path) if doc.status == GoldStatus.OK and doc.gold_path else None,
        )
        for doc in iter_documents(path)
    ]


def by_site(specs: Iterable[PageSpec]) -> dict[str, list[PageSpec]]:
    groups: dict[str, list[PageSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.site, []).append(spec)
    return groups


def select_quick(specs: Sequence[PageSpec], *, n_pages: int, seed: int) -> list[PageSpec]:
    """A seeded sample of ``n_pages`` pages (all of them when there are fewer), in the original order."""
    if len(specs) <= n_pages:
        return list(specs)
    chosen = set(random.Random(f"quick|{seed}").sample(range(len(specs)), n_pages))
    return [s for i, s in enumerate(specs) if i in chosen]


def largest_sites(specs: Sequence[PageSpec], n_sites: int) -> list[PageSpec]:
    """The pages of the ``n_sites`` sites with most pages (ties by name)."""
    groups = by_site(specs)
    keep = sorted(groups, key=lambda s: (-len(groups[s]), s))[:n_sites]
    return [s for s in specs if s.site in keep]


def shuffled(pages: Sequence[PageSpec], seed: int, salt: str) -> list[PageSpec]:
    """A seeded permutation (msv-big9 ids sort by capture year; a shuffle mixes the years into every fold)."""
    out = list(pages)
    random.Random(f"{salt}|{seed}").shuffle(out)
    return out


def split_learn_detect(pages: Sequence[PageSpec], seed: int) -> tuple[list[PageSpec], list[PageSpec]]:
    """The speed section's split of one site: :data:`LEARN_PAGES` pages to learn on, the rest to detect."""
    order = shuffled(pages, seed, f"speed|{pages[0].site}")
    return order[:LEARN_PAGES], order[LEARN_PAGES:]


def folds(pages: Sequence[PageSpec], seed: int,
          max_folds: int = MAX_FOLDS) -> list[tuple[list[PageSpec], list[PageSpec]]]:
    """k-fold by page for the template quality: ``(learn, judge)`` pairs whose judge sets partition the site.

    The learning set is as large as possible up to :data:`LEARN_PAGES` (so ≥ :data:`MIN_LEARN_PAGES` wherever the
    site has MIN_LEARN_PAGES + 1 pages): k = ⌈n / (n − target)⌉ with target = min(30, n − 1), capped at
    :data:`MAX_FOLDS`; a fold's complement larger than 30 pages is cut to 30. A page is never both learned and
    judged within a fold. 40 pages → 4 folds of 30 + 10; 30 → 10 folds of 27 + 3; 15 → 10 folds of 13–14 + 1–2.
    """
    n = len(pages)
    if n < 2:
        return []
    target = min(LEARN_PAGES, n - 1)
    k = min(max_folds, n, math.ceil(n / (n - target)))
    order = shuffled(pages, seed, f"folds|{pages[0].site}")
    out = []
    for f in range(k):
        judge = order[f::k]
        learn = [p for i, p in enumerate(order) if i % k != f][:LEARN_PAGES]
        out.append((learn, judge))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Extractors
# ---------------------------------------------------------------------------------------------------------------

Extractor = Callable[[bytes, "str | None"], str]


def peer_available(name: str) -> bool:
    return importlib.util.find_spec(_PEER_MODULES[name]) is not None


def fce_methods() -> list[str]:
    """Names of the registered single-page methods (the registry grows; the benchmark follows it)."""
    from fce.methods import available_methods

    return [m.name for m in available_methods()]


#: Elements after which a browser starts a new line: used to turn readability's HTML summary into text without
#: gluing the words of adjacent paragraphs (``text_content()`` would).
_BLOCKISH = frozenset(
    "p div br li ul ol table tr td th h1 h2 h3 h4 h5 h6 pre blockquote section article header footer dd dt dl "
    "figure figcaption hr".split()
)


def _html_text(html: str) -> str:
    import lxml.html

    if not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in _BLOCKISH:
            el.tail = "\n" + (el.tail or "")
    return str(root.text_content())


def make_extractor(name: str) -> Extractor:
    """The extractor called ``name``: ``lxml``, ``fce-parse``, ``fce:<method>`` or a peer of :data:`PEERS`.

    Set-up that a long-running user would do once (imports, stop lists, extractor objects) happens here, outside
    the timed calls. Raises ImportError for a peer that is not installed.
    """
    if name == "lxml":
        import lxml.html

        def floor(html: bytes, url: str | None) -> str:
            lxml.html.document_fromstring(html)
            return ""

        return floor
    if name == "fce-parse":
        from fce.parse import parse_page

        def parse_only(html: bytes, url: str | None) -> str:
            parse_page(html, url=url)
            return ""

        return parse_only
    if name.startswith("fce:"):
        from fce.methods import get_method
        from fce.parse import parse_page

        method = get_method(name[4:])
        blocks = getattr(method, "blocks", None)  # (as fce detect --method parses: see _detect_fn)
        parse = parser_with_blocks(parse_page)

        def run_method(html: bytes, url: str | None) -> str:
            return method(parse(html, url, blocks)).text

        return run_method
    if name == "trafilatura":
        import trafilatura

        def run_trafilatura(html: bytes, url: str | None) -> str:
            return trafilatura.extract(html, url=url) or ""

        return run_trafilatura
    if name == "readability":
        from readability import Document

        def run_readability(html: bytes, url: str | None) -> str:
            return _html_text(Document(html, url=url).summary(html_partial=True))

        return run_readability
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding

        def run_resiliparse(html: bytes, url: str | None) -> str:
            return str(extract_plain_text(bytes_to_str(html, detect_encoding(html) or "utf-8"), main_content=True))

        return run_resiliparse
    if name == "justext":
        import justext

        stoplist = justext.get_stoplist("English")  # one stop list for all pages, as the peers' benchmarks do

        def run_justext(html: bytes, url: str | None) -> str:
            return "\n".join(p.text for p in justext.justext(html, stoplist) if not p.is_boilerplate)

        return run_justext
    if name == "boilerpy3":
        from boilerpy3 import extractors

        from fce.parse import decode_html

        article = extractors.ArticleExtractor(raise_on_failure=False)

        def run_boilerpy3(html: bytes, url: str | None) -> str:
            # boilerpy3 takes text and has no decoder of its own; fce's (BOM, meta, detector) decodes for it.
            return str(article.get_content(decode_html(html)[0]) or "")

        return run_boilerpy3
    raise ValueError(f"unknown extractor {name!r}")


def available_extractors() -> list[str]:
    """The single-page extractors of the quality section: every fce method, then the installed peers."""
    return [f"fce:{m}" for m in fce_methods()] + [p for p in PEERS if peer_available(p)]


# ---------------------------------------------------------------------------------------------------------------
# Timing and memory
# ---------------------------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100), linear interpolation between closest ranks; nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50)


def status_mb(pid: int | str, field: str) -> float | None:
    """A ``Vm…`` field of /proc/PID/status in MB (None off Linux, or when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        return None
    return None


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MB.

    Linux: ``VmHWM`` of /proc/self/status, the high-water mark of *this* address space. Not ``ru_maxrss``: that
    one survives ``execve``, so a spawned worker would report the RSS of the parent it was forked from. Elsewhere
    ``ru_maxrss`` (KiB on Linux, bytes on macOS).
    """
    hwm = status_mb("self", "VmHWM")
    if hwm is not None:
        return hwm
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / 1024 if sys.platform == "darwin" else peak / 1024


def rss_mb() -> float:
    """This process's resident set size now, in MB (the peak so far where the current value is unknown)."""
    now = status_mb("self", "VmRSS")
    return now if now is not None else peak_rss_mb()


def timed(fn: Callable[[], Any]) -> tuple[int, Any]:
    start = clock_ns()
    result = fn()
    return clock_ns() - start, result


def _quiet() -> None:
    """Worker set-up: peers print to stdout (boilerpy3) and log warnings (trafilatura); keep the report clean."""
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the worker


def isolated(fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)`` in a fresh spawned process and return its result (for a per-component peak RSS)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"), initializer=_quiet) as ex:
        return ex.submit(fn, *args).result()


def pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"), initializer=_quiet)


def _time_pages(fn: Callable[..., Any], items: Sequence[tuple[Any, ...]], *, repeats: int,
                warmup: int, paired: Callable[[Any], Any] | None = None,
                paired_times: list[int] | None = None) -> tuple[list[int], int, str | None]:
    """Per-item time (median of ``repeats`` passes, ns) of ``fn(*item)``; the number of items that raised and the
    first error.

    A warm-up over the first ``warmup`` items goes first (imports, regex compilation, lazy tables). An item that
    raises is timed all the same (the time to fail) and counted. ``paired``: a reference timed on ``item[0]`` right
    before every call of ``fn`` (the lxml floor), its per-item medians appended to ``paired_times`` — a ratio of the
    two is measured at the same moment, on the same core state, whatever else the machine is doing.
    """
    for item in items[:warmup]:
        with contextlib.suppress(Exception):
            fn(*item)
    per_item: list[list[int]] = [[] for _ in items]
    per_ref: list[list[int]] = [[] for _ in items]
    failed: set[int] = set()
    first_error: str | None = None
    for _ in range(repeats):
        gc.collect()
        for i, item in enumerate(items):
            if paired is not None:
                start = clock_ns()
                paired(item[0])
                per_ref[i].append(clock_ns() - start)
            start = clock_ns()
            try:
                fn(*item)
            except Exception as exc:  # noqa: BLE001 - a peer failing on a page is a result, counted below
                failed.add(i)
                first_error = first_error or f"{type(exc).__name__}: {exc}"[:200]
            per_item[i].append(clock_ns() - start)
    if paired is not None and paired_times is not None:
        paired_times.extend(int(median(ts)) for ts in per_ref)
    return [int(median(ts)) for ts in per_item], len(failed), first_error


# ---------------------------------------------------------------------------------------------------------------
# Workers (run in subprocesses; module-level so that they pickle by reference)
# ---------------------------------------------------------------------------------------------------------------


def _read_pages(specs: Sequence[PageSpec]) -> list[tuple[bytes, str | None]]:
    return [(s.read(), s.url) for s in specs]


def detection_modes() -> tuple[str, ...]:
    """fce's detection modes, the default first (``()`` for an fce without modes)."""
    import fce.detect

    modes = tuple(getattr(fce.detect, "DETECTION_MODES", ()))
    default = getattr(fce.detect, "DEFAULT_MODE", None)
    return tuple(sorted(modes, key=lambda m: m != default))


def detect_components() -> list[str]:
    """``fce-detect`` (template alone, default mode), ``fce-detect:<mode>`` for every other mode, and
    ``fce-detect+fallback`` (default mode, default fallback where the template does not fit: what the CLI does)."""
    return ["fce-detect"] + [f"fce-detect:{m}" for m in detection_modes()[1:]] + ["fce-detect+fallback"]


def is_detect(component: str) -> bool:
    return component.startswith("fce-detect")


def _mode_of(component: str) -> str | None:
    if ":" in component:
        return component.split(":", 1)[1]
    modes = detection_modes()
    return modes[0] if modes else None


def make_detector(template_json: str, component: str = "fce-detect") -> Any:
    """The compiled site record for ``component``'s detection mode, as ``fce detect`` compiles a stored one: the
    layouts ``fce learn`` stores (or a one-template record), the layout chosen per page."""
    from fce.layouts import SiteDetector
    from fce.template import SiteTemplates

    mode = _mode_of(component)
    record = SiteTemplates.from_json(template_json)
    return SiteDetector(record, mode=mode) if mode else SiteDetector(record)


def _detect_fn(component: str) -> Callable[[bytes, str | None, Any], str]:
    """``fce detect`` from bytes: parse, then the template alone or with the default fallback where the template
    does not fit (``fce-detect+fallback``, what the CLI does)."""
    from fce.parse import parse_page
    from fce.pipeline import DEFAULT_FALLBACK, extract

    fallback = DEFAULT_FALLBACK if component == "fce-detect+fallback" else None
    import fce.pipeline

    # as fce detect parses: the block tree made while parsing, where that is all the detection reads (an fce before
    # blocks_for, a --baseline, parses every page into its tree)
    blocks_for: Callable[..., str | None] | None = getattr(fce.pipeline, "blocks_for", None)
    parse = parser_with_blocks(parse_page)

    def detect(html: bytes, url: str | None, detector: Any) -> str:
        page = parse(html, url, None if blocks_for is None else blocks_for(detector, fallback))
        return extract(page, detector, fallback=fallback).text

    return detect


def speed_worker(component: str, specs: Sequence[PageSpec], templates: dict[str, str], repeats: int,
                 warmup: int) -> dict[str, Any]:
    """Time one component over ``specs`` in this (fresh) process; peak RSS before and after the timed work.

    Detection components get the templates learned by :func:`learn_worker` as JSON, compiled here (not timed).
    """
    pages = _read_pages(specs)
    items: list[tuple[Any, ...]]
    if is_detect(component):
        detectors = {site: make_detector(t, component) for site, t in templates.items()}
        fn: Callable[..., Any] = _detect_fn(component)
        items = [(h, u, detectors[s.site]) for (h, u), s in zip(pages, specs, strict=True)]
    else:
        fn = make_extractor(component)
        items = list(pages)
    for item in items[:warmup]:  # lazy imports and first-call set-up: neither timed nor in the RSS growth
        with contextlib.suppress(Exception):
            fn(*item)
    base = rss_mb()
    import lxml.html

    floor: list[int] = []  # the lxml floor timed right before the component on every page (ratios in one process)
    times, failed, first_error = _time_pages(fn, items, repeats=repeats, warmup=0,
                                             paired=lxml.html.document_fromstring, paired_times=floor)
    return {"times_ns": times, "bytes": [len(h) for h, _ in pages], "failed": failed, "first_error": first_error,
            "rss_base_mb": base, "rss_peak_mb": peak_rss_mb(), "floor_ns": floor}


def speed_worker_at(code_root: str, component: str, specs: Sequence[PageSpec], templates: dict[str, str],
                    repeats: int, warmup: int) -> dict[str, Any]:
    """:func:`speed_worker` with ``fce`` imported from ``code_root`` (another checkout: the "before" of a
    before/after run, ``--baseline``). Runs in a fresh process, where fce has not been imported yet."""
    if any(m == "fce" or m.startswith("fce.") for m in sys.modules):
        raise RuntimeError("fce was imported before the baseline code could be put first on sys.path")
    sys.path.insert(0, code_root)
    result = speed_worker(component, specs, templates, repeats, warmup)
    import fce

    result["fce_file"] = fce.__file__
    return result


def parser_with_blocks(parse_page: Callable[..., Any]) -> Callable[[bytes, str | None, str | None], Any]:
    """``parse(html, url, blocks)`` over an fce's ``parse_page``: with its block tree of style ``blocks`` made
    while parsing (``parse_page(blocks=…)``, as the commands parse) where ``blocks`` is given and this fce has the
    option (a ``--baseline`` may not), else into the lxml tree."""
    with_blocks = "blocks" in inspect.signature(parse_page).parameters

    def parse(html: bytes, url: str | None, blocks: str | None) -> Any:
        if blocks is None or not with_blocks:
            return parse_page(html, url=url)
        return parse_page(html, url=url, blocks=blocks)

    return parse


#: What :func:`learn_worker` times.
LEARN_KINDS = ("learn", "ce", "ce-pairwise")


def learn_worker(kind: str, sites: dict[str, Sequence[PageSpec]], repeats: int) -> dict[str, Any]:
    """Time ``fce learn`` (``kind="learn"``) or ContentExtractor on each site's pages: ``"ce"`` compares the
    distinct blocks (identical ones merged: the first stage of learning), ``"ce-pairwise"`` every block with every
    block, one block at a time (the paper's statement; same labels).

    Per site: seconds from bytes (parse + fit) and for the fit alone (pages parsed beforehand; segmentation is
    part of the fit), each the median of ``repeats`` runs on freshly parsed pages; plus the learned templates.
    """
    from fce.content_extractor import MERGED, PAIRWISE, ContentExtractor
    from fce.learn import LayoutLearner
    from fce.parse import parse_page

    if kind not in LEARN_KINDS:
        raise ValueError(f"kind must be one of {LEARN_KINDS}, not {kind!r}")

    def fit(pages: Sequence[Any], site: str) -> Any:
        if kind == "learn":  # what `fce learn` runs: one template per layout
            return LayoutLearner(site).fit(pages)
        return ContentExtractor(comparison=PAIRWISE if kind == "ce-pairwise" else MERGED).fit(pages)

    # from bytes, each side parses as `fce learn` does: the block tree (of the style it reads) made while parsing
    # where this fce can (parse_page's ``blocks``); the fit alone starts from pages parsed into their trees, so that
    # it includes segmentation on both sides
    style = LayoutLearner().path_style if kind == "learn" else ContentExtractor().path_style
    parse = parser_with_blocks(parse_page)

    def read(raw: Sequence[tuple[bytes, str | None]]) -> list[Any]:
        return [parse(h, u, style) for h, u in raw]

    first = next(iter(sites.values()), [])
    if first:  # warm-up: the first fit in a process pays for lazy imports and first-call set-up
        fit([parse_page(h, url=u) for h, u in _read_pages(first)], "warm-up")
    base = rss_mb()
    out: dict[str, Any] = {"sites": {}, "templates": {}}
    for site, specs in sites.items():
        raw = _read_pages(specs)
        total, fit_only = [], []
        model: Any = None
        for _ in range(repeats):
            gc.collect()
            ns, model = timed(lambda: fit(read(raw), site))  # noqa: B023
            total.append(ns)
            parsed = [parse_page(h, url=u) for h, u in raw]
            ns, model = timed(lambda: fit(parsed, site))  # noqa: B023
            fit_only.append(ns)
        entry = {"n_pages": len(raw), "bytes": sum(len(h) for h, _ in raw),
                 "total_ns": int(median(total)), "fit_ns": int(median(fit_only))}
        if kind == "learn":
            record = model.model_
            out["templates"][site] = record.to_json()
            entry.update(layouts=len(record.layouts),
                         content_paths=sum(len(t.content_paths) for t in record.layouts),
                         noise_blocks=sum(len(t.noise_blocks) for t in record.layouts))
        else:
            entry.update(comparisons=int(model.n_comparisons_))
        out["sites"][site] = entry
    out.update(rss_base_mb=base, rss_peak_mb=peak_rss_mb())
    return out


def generated_site(n_pages: int, seed: int) -> list[Any]:
    from tests.sitegen import generate_site

    return generate_site("bench.example", n_pages, seed=seed)


def learn_scaling_worker(kind: str, n_pages: int, seed: int, repeats: int) -> dict[str, Any]:
    """Learn (or ContentExtractor) time on ``n_pages`` pages of a generated site: fit only, median of runs."""
    from fce.content_extractor import ContentExtractor
    from fce.learn import LayoutLearner
    from fce.parse import parse_page

    raw = [(p.html, p.url) for p in generated_site(n_pages, seed)]
    warm = LayoutLearner("warm-up") if kind == "learn" else ContentExtractor()
    warm.fit([parse_page(h, url=u) for h, u in raw[:5]])  # first-call set-up is not part of the scaling
    base = rss_mb()
    runs = []
    for _ in range(repeats):
        pages = [parse_page(h, url=u) for h, u in raw]
        gc.collect()
        model: Any = LayoutLearner("bench.example") if kind == "learn" else ContentExtractor()
        ns, _ = timed(lambda: model.fit(pages))  # noqa: B023
        runs.append(ns)
    return {"n_pages": n_pages, "bytes": sum(len(h) for h, _ in raw), "fit_ns": int(median(runs)),
            "rss_base_mb": base, "rss_peak_mb": peak_rss_mb()}


def big_page(target_bytes: int, seed: int) -> bytes:
    """A generated article page grown (or cut) to about ``target_bytes`` by repeating its article paragraphs.

    The page's skeleton (header, navigation, sidebar, footer) is kept once; the plain ``<p>`` paragraphs of the
    article are repeated in order until the page reaches the target size. A page of the generated site learned on
    in :func:`detect_scaling_worker`, but not one of its learning pages.
    """
    html = generated_site(LEARN_PAGES + 1, seed)[-1].html.decode("utf-8")
    start, end = html.index("<article"), html.index("</article>")
    paragraphs = [m.group(0) for m in re.finditer(r"<p>.*?</p>\n", html[start:end], re.DOTALL)]
    if not paragraphs:
        raise RuntimeError("the generated page has no plain article paragraphs")
    first = html.index(paragraphs[0], start)
    last = html.index(paragraphs[-1], start) + len(paragraphs[-1])
    head, tail = html[:first], html[last:]
    body: list[str] = []
    size = len(head) + len(tail)
    i = 0
    while size < target_bytes or not body:
        piece = paragraphs[i % len(paragraphs)]
        body.append(piece)
        size += len(piece)
        i += 1
    return (head + "".join(body) + tail).encode("utf-8")


def detect_scaling_worker(component: str, target_bytes: int, seed: int, template: str,
                          min_seconds: float) -> dict[str, Any]:
    """Time one component on one big page (repeated until ``min_seconds`` have passed, at least 3 times for pages
    under 5 MB, at least once above); the median run."""
    html = big_page(target_bytes, seed)
    if is_detect(component):
        detector = make_detector(template, component)
        detect = _detect_fn(component)

        def run_detect(data: bytes, url: str | None) -> str:
            return detect(data, url, detector)

        fn: Extractor = run_detect
    else:
        fn = make_extractor(component)
    with contextlib.suppress(Exception):  # warm-up on a small page: lazy imports are not the page's memory
        fn(big_page(10_000, seed), None)
    base = rss_mb()
    runs: list[int] = []
    at_least = 3 if len(html) < 5_000_000 else 1
    budget_end = time.perf_counter() + min_seconds
    chars = 0
    while len(runs) < at_least or time.perf_counter() < budget_end:
        gc.collect()
        ns, text = timed(lambda: fn(html, None))
        runs.append(ns)
        chars = len(text)
        if len(runs) >= 200:
            break
    return {"bytes": len(html), "ns": int(median(runs)), "runs": len(runs), "chars": chars,
            "rss_base_mb": base, "rss_peak_mb": peak_rss_mb()}


def _score(text: str, gold: str) -> tuple[float, float, float]:
    from fce.evaluation.measures import word_f

    prf = word_f(text, gold)
    return prf.precision, prf.recall, prf.f1


def quality_worker(extractor: str, specs: Sequence[PageSpec]) -> list[dict[str, Any]]:
    """Run one single-page extractor over ``specs`` (pages with gold) and score each page (word-level F1)."""
    fn = make_extractor(extractor)
    rows = []
    for spec in specs:
        gold = spec.gold()
        if gold is None:
            continue
        html = spec.read()
        error = None
        start = clock_ns()
        try:
            text = fn(html, spec.url)
        except Exception as exc:  # noqa: BLE001 - a failure on one page is a result (empty output), counted
            text, error = "", f"{type(exc).__name__}: {exc}"[:200]
        ns = clock_ns() - start
        p, r, f = _score(text, gold)
        rows.append({"key": spec.key, "dataset": spec.dataset, "site": spec.site, "extractor": extractor,
                     "bytes": len(html), "ns": ns, "p": p, "r": r, "f": f, "error": error})
    return rows


def template_worker(site_specs: Sequence[PageSpec], seed: int, peers: Sequence[str],
                    max_folds: int = MAX_FOLDS) -> list[dict[str, Any]]:
    """Template quality on one site: k-fold by page (:func:`folds`); every judged page through the
    template alone in each detection mode, the template with the default fallback (what ``fce detect`` does), the
    fallback method alone and ``peers`` (trafilatura)."""
    from fce.detect import Detector
    from fce.errors import FceError
    from fce.learn import TemplateLearner
    from fce.parse import parse_page
    from fce.pipeline import DEFAULT_FALLBACK, extract

    others = {name: make_extractor(name) for name in [f"fce:{DEFAULT_FALLBACK}", *peers]}
    modes = detection_modes() or (None,)
    # variant -> (detection mode, fallback): the template alone in every mode, then what `fce detect` does
    variants: dict[str, tuple[str | None, str | None]] = {"template": (modes[0], None)}
    variants.update({f"template:{m}": (m, None) for m in modes[1:]})
    variants["fce-detect"] = (modes[0], DEFAULT_FALLBACK)
    rows: list[dict[str, Any]] = []
    for fold, (learn, judge) in enumerate(folds(site_specs, seed, max_folds)):
        learn_pages = [parse_page(s.read(), url=s.url) for s in learn]
        start = clock_ns()
        detectors: dict[str, Any] = {}
        learn_error: str | None = None
        try:
            template = TemplateLearner(learn[0].site).fit(learn_pages).template_
        except FceError as exc:
            learn_error = f"{type(exc).__name__}: {exc}"[:200]
        learn_ns = clock_ns() - start
        if learn_error is None:
            for variant, (mode, _) in variants.items():
                detectors[variant] = Detector(template, mode=mode) if mode else Detector(template)
        for spec in judge:
            gold = spec.gold()
            if gold is None:
                continue
            html = spec.read()
            base = {"key": spec.key, "dataset": spec.dataset, "site": spec.site, "fold": fold,
                    "n_learn": len(learn), "learn_ns": learn_ns, "learn_error": learn_error, "bytes": len(html)}
            for variant, (_, fallback) in variants.items():
                detector = detectors.get(variant)
                start = clock_ns()
                try:
                    page = parse_page(html, url=spec.url)
                    ex = extract(page, detector, fallback=fallback) if detector is not None else None
                    text = ex.text if ex is not None else ""
                    fit, method = (ex.fit, ex.method) if ex is not None else (None, "none")
                    error = None
                except FceError as exc:
                    text, fit, method, error = "", None, "error", f"{type(exc).__name__}: {exc}"[:200]
                ns = clock_ns() - start
                p, r, f = _score(text, gold)
                rows.append({**base, "variant": variant, "ns": ns, "p": p, "r": r, "f": f, "fit": fit,
                             "method": method, "error": error})
            for name, fn in others.items():
                start = clock_ns()
                try:
                    text, error = fn(html, spec.url), None
                except Exception as exc:  # noqa: BLE001 - counted, as in quality_worker
                    text, error = "", f"{type(exc).__name__}: {exc}"[:200]
                ns = clock_ns() - start
                p, r, f = _score(text, gold)
                rows.append({**base, "variant": name, "ns": ns, "p": p, "r": r, "f": f, "fit": None,
                             "method": name, "error": error})
    return rows
