"""The evaluation harness: run extractors over test packages and score every page (the I/O around
:mod:`fce.evaluation.measures`).

:func:`evaluate` is the whole run; three modes, combinable in one call:

* **single-page methods** — any registered method (:func:`fce.methods.available_methods`) on every page;
* **peers** — other extractors as comparators (:mod:`fce.evaluation.peers`, optional packages);
* **template** (method name ``"template"``) — FastCE per site with k-fold by page (:func:`fold_plan`): for
  fold j a template is learned from pages outside fold j and the pages of fold j are extracted with the full
  pipeline (:func:`fce.pipeline.extract`, falling back to a single-page method when the template does not
  fit). No page is ever both learned from and scored in the same fold.

:func:`ce_vs_fastce` times ContentExtractor against FastCE detection per site: the FastCE paper's Table II.

**Pages.** Every document yields exactly one row per method (:class:`HarnessRow`), whatever happens:

* the page is read once; a CleanEval wrapper line ``<text id=… encoding=…>`` … ``</text>`` (see
  ``data/cleaneval/README.md``) is stripped before any extractor sees the bytes (:func:`strip_wrapper`), and
  its ``encoding`` is passed on as the declared charset, as an HTTP header would be (it names a real charset
  on 16 CleanEval pages where sniffing disagrees, and is right on 5 of the 6 where it changes the words);
* pages with missing or empty gold are extracted and timed but not scored: status ``missing_gold`` /
  ``empty_gold`` and no measures (an empty gold would score every extractor 0 or 1 by convention alone);
* a page an extractor fails on (any exception: fce's :class:`~fce.errors.InputError` for a page that is not
  HTML, a method's bug, a peer's crash) gets status ``error``, no measures, and the message in
  :attr:`HarnessRow.error`: an evaluation must report every document, and one extractor crashing on one page is
  a result, not a reason to abort a run over thousands. The console report counts them per method.

**Time** (``ms``) is wall-clock time per page, measured with :func:`time.perf_counter`: for fce's methods it
includes :func:`fce.parse_page` (decoding and parsing; every method parses the page afresh, so no method
profits from another's parse); peers decode and parse themselves inside the measured call. In template mode it
is ``parse_page`` + :func:`fce.pipeline.extract` (template matching, and the fallback method when it runs);
learning the template and compiling it into a :class:`~fce.detect.Detector` are not per-page costs: their time
is in :class:`FoldRecord`. Scoring is never timed. ``kb`` is the size of the bytes the extractors got (after
stripping the wrapper).

**Status in template mode** is ``<gold status>|<what extracted>``: ``ok|template`` when the template extracted
the page, ``ok|<fallback>:low-fit`` when the fallback ran (its name, then the pipeline's ``fallback_reason``:
``low-fit``, ``empty``, or ``no-template`` when learning failed). Sites with fewer than ``min_learn + 1``
pages cannot be cross-validated: their rows have status ``skipped`` and no measures, and the site is listed in
:attr:`EvalResult.skipped`.

**Block-level F (BF)**, template mode only, under the measure name ``block``. The page's text-bearing blocks
(:func:`fce.blocks.blocks_of`, blocks with own text, in document order) are labelled content or not by
:func:`fce.evaluation.gold_blocks.label_gold_blocks` against the gold text. The predicted content blocks are
the blocks the template extraction covered (``Extraction.info["covered"]``, from
:attr:`fce.detect.TemplateMatch.covered`: every block whose text went into the extraction, restricted to
text-bearing blocks); for a page the fallback extracted, which has no
template blocks, the same word alignment is applied to the extracted text (a block is predicted content when
most of its words align with the extraction).

**Determinism.** Documents are sorted (:func:`~fce.evaluation.packages.iter_documents`), folds are drawn by a
shuffle seeded with a hash of ``dataset/site``, rows come back sorted by ``(dataset, site, doc_id, method
order)`` whatever the number of workers: the same inputs give the same rows except for ``ms``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from os import PathLike
from types import SimpleNamespace
from typing import Any

import numpy as np

from fce.blocks import DEFAULT_PATH_STYLE, blocks_of, segment
from fce.content_extractor import COMPARISONS, PAIRWISE, ContentExtractor
from fce.detect import DEFAULT_MODE, Detector
from fce.errors import InputError, LearnError
from fce.evaluation.gold_blocks import label_gold_blocks
from fce.evaluation.measures import BLOCK, PRF, WORD, all_measures, block_f, mean, word_f
from fce.evaluation.packages import Document, GoldStatus, group_by_site, iter_documents
from fce.evaluation.peers import Peer, get_peer
from fce.evaluation.report import EvalRow, Summary, format_cell, kilobytes, render_rows, summarise
from fce.extraction import Extraction
from fce.kinds import PathStyle
from fce.layouts import SiteDetector
from fce.learn import MIN_PAGES, LayoutLearner, TemplateLearner
from fce.methods import MethodInfo, get_method
from fce.parse import Page, parse_page
from fce.pipeline import DEFAULT_FALLBACK, blocks_for, extract

__all__ = [
    "DEFAULT_FOLDS",
    "MAX_LEARN_PAGES",
    "MIN_LEARN_PAGES",
    "TEMPLATE_METHOD",
    "CeVsFastCe",
    "EvalResult",
    "Fold",
    "FoldRecord",
    "HarnessRow",
    "SkippedSite",
    "TimingRow",
    "ce_vs_fastce",
    "evaluate",
    "fold_plan",
    "render_table2",
    "render_timing",
    "strip_wrapper",
]

#: The method name of the template mode in rows and tables.
TEMPLATE_METHOD = "template"

#: Pages a template is learned from, at most: FastCE §IV uses "between 20 to 30 web pages at the preparation
#: phase". Learning pages beyond the cap are neither learned from nor scored in that fold.
MAX_LEARN_PAGES = 30

#: …and at least: a site needs ``MIN_LEARN_PAGES + 1`` pages to be cross-validated, and the number of folds grows
#: until every fold leaves this many to learn from. Four, so that the sites of 5–9 pages that most of a crawl's
#: domains are (daniel-small, dragnet-small) are evaluated, leave-one-out, as ``fce ingest`` learns them
#: (``fce.ingest.DEFAULT_MIN_PAGES`` = 5 sampled pages); sites with more pages still learn from up to
#: :data:`MAX_LEARN_PAGES`. The paper learns from 20–30 (``--min-learn 20``).
MIN_LEARN_PAGES = 4

#: Folds of the template mode's cross-validation, before raising it so that ``MIN_LEARN_PAGES`` remain to
#: learn from. Five: each page is scored once, with 80% of a 40-page site (capped at 30 pages) to learn from.
DEFAULT_FOLDS = 5

#: Table II times each side this many times and keeps the fastest run, as :mod:`timeit` advises (the slower
#: runs measure other processes and the first run's warm-up, not the algorithm).
TIMING_REPEATS = 3

#: Status of the rows of a site too small for the template mode.
SKIPPED = "skipped"
#: Status of a row whose extractor failed on the page.
ERROR = "error"

_WRAPPER_OPEN = re.compile(rb"\A\s*<text\b[^>]*>")
_WRAPPER_CLOSE = re.compile(rb"</text>\s*\Z")
_WRAPPER_ENCODING = re.compile(rb"""\bencoding\s*=\s*["']?([A-Za-z0-9._:-]+)""")


# ------------------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HarnessRow(EvalRow):
    """An :class:`~fce.evaluation.report.EvalRow` with what the harness knows besides the scores (not written
    to the per-page files, which keep Gottron's columns; the template mode's extractor is also in ``status``).

    * ``extractor`` — what produced the text: the method or peer; in template mode ``template`` or the fallback
      method's name;
    * ``fit`` — the template's fit score for the page (template mode), else ``None``;
    * ``fallback_reason`` — why the template mode used the fallback (``low-fit``, ``empty``, ``no-template``);
    * ``error`` — the message of the failure of a row with status ``error``;
    * ``page_type`` — the page's type in its package's meta (``<id>.json`` ``page_type``: wcxb-dev's article,
      forum, product, …), else ``None``.
    """

    extractor: str = ""
    fit: float | None = None
    fallback_reason: str | None = None
    error: str | None = None
    page_type: str | None = None


@dataclass(frozen=True, slots=True)
class Fold:
    """One fold of a site's cross-validation: the pages scored and the pages learned from (disjoint)."""

    index: int
    n_folds: int
    test: tuple[str, ...]
    learn: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FoldRecord:
    """What happened in one fold of the template mode.

    ``learned`` and ``scored`` are document ids (disjoint); ``learn_seconds`` is the time to learn the
    template (segmenting the learning pages included, parsing not) and compile it; ``error`` is the
    :class:`~fce.errors.LearnError` message when no template could be learned (the fold's pages then went to
    the fallback, reason ``no-template``).
    """

    dataset: str
    site: str
    fold: int
    n_folds: int
    learned: tuple[str, ...]
    scored: tuple[str, ...]
    learn_seconds: float
    n_content_paths: int
    n_noise_blocks: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SkippedSite:
    """A site the template mode (or Table II) did not evaluate, and why."""

    dataset: str
    site: str
    n_pages: int
    reason: str


@dataclass(frozen=True, slots=True)
class TimingRow:
    """Time of one method on one dataset: pages timed, total seconds, mean / median / 95th percentile
    milliseconds per page, seconds per kB, and for the template mode the mean seconds to learn a template."""

    dataset: str
    method: str
    pages: int
    seconds: float
    ms_mean: float
    ms_median: float
    ms_p95: float
    s_per_kb: float
    learn_seconds: float = math.nan


@dataclass(frozen=True)
class EvalResult:
    """Everything :func:`evaluate` produced.

    * ``rows`` — one :class:`HarnessRow` per document and method, sorted (module docstring);
    * ``folds`` — one :class:`FoldRecord` per fold of the template mode;
    * ``skipped`` — the sites the template mode could not cross-validate;
    * ``methods`` — the method names in the order asked (fce methods, then peers, then ``template``);
    * ``wall_seconds`` — the wall-clock time of the whole run.
    """

    rows: list[HarnessRow]
    folds: list[FoldRecord] = field(default_factory=list)
    skipped: list[SkippedSite] = field(default_factory=list)
    methods: tuple[str, ...] = ()
    wall_seconds: float = math.nan

    def summary(self, measure: str = WORD, *, by_site: bool = False) -> list[Summary]:
        """Summaries per ``(dataset, method)`` (or per site) under ``measure``
        (:func:`fce.evaluation.report.summarise`), methods in the order asked."""
        order = {m: i for i, m in enumerate(self.methods)}
        summaries = summarise(self.rows, measure=measure, by_site=by_site)
        return sorted(summaries, key=lambda s: (s.dataset, s.site or "", order.get(s.method, len(order)), s.method))

    @property
    def summaries(self) -> list[Summary]:
        """Per-dataset summaries under the word measure (FastCE's WF, Gottron's word sequence)."""
        return self.summary(WORD)

    @property
    def timing(self) -> list[TimingRow]:
        """The time table: one :class:`TimingRow` per ``(dataset, method)``."""
        groups: dict[tuple[str, str], list[HarnessRow]] = {}
        for row in self.rows:
            if math.isfinite(row.ms):
                groups.setdefault((row.dataset, row.method), []).append(row)
        learn: dict[str, list[float]] = {}
        for f in self.folds:
            learn.setdefault(f.dataset, []).append(f.learn_seconds)
        order = {m: i for i, m in enumerate(self.methods)}
        out = []
        for (dataset, method), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99))):
            ms = sorted(row.ms for row in rows)
            total_kb = math.fsum(row.kb for row in rows if math.isfinite(row.kb))
            seconds = math.fsum(ms) / 1000
            out.append(
                TimingRow(
                    dataset=dataset,
                    method=method,
                    pages=len(ms),
                    seconds=seconds,
                    ms_mean=mean(ms),
                    ms_median=_quantile(ms, 0.5),
                    ms_p95=_quantile(ms, 0.95),
                    s_per_kb=seconds / total_kb if total_kb > 0 else math.nan,
                    learn_seconds=mean(learn.get(dataset, [])) if method == TEMPLATE_METHOD else math.nan,
                )
            )
        return out

    def extractors(self) -> Counter[str]:
        """Template mode: how many scored-or-not pages each extractor handled (``template``,
        ``mainblock:low-fit`` …); skipped and failed pages are not counted."""
        return Counter(
            row.extractor + (f":{row.fallback_reason}" if row.fallback_reason else "")
            for row in self.rows
            if row.method == TEMPLATE_METHOD and row.extractor
        )


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, linear between closest ranks (numpy's default); ``nan`` if empty."""
    if not sorted_values:
        return math.nan
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


# ------------------------------------------------------------------------------------------------------------
# Pure helpers
# ------------------------------------------------------------------------------------------------------------


def strip_wrapper(data: bytes) -> tuple[bytes, str | None]:
    """Remove CleanEval's wrapper ``<text id="URL" title=… encoding=…>`` … ``</text>`` from a page.

    Returns the page bytes and the wrapper's ``encoding`` (``None`` without a wrapper; labels that name no
    charset, such as CleanEval's ``unset``, are left for :func:`fce.parse.decode_html` to ignore). Pages
    without the wrapper come back unchanged. Recognised by its shape (a ``<text`` tag opening the file), not
    by the dataset's name, so CleanEval pages copied elsewhere are handled too.
    """
    match = _WRAPPER_OPEN.match(data)
    if match is None:
        return data, None
    enc = _WRAPPER_ENCODING.search(match.group(0))
    body = data[match.end() :]
    close = _WRAPPER_CLOSE.search(body)
    if close is not None:
        body = body[: close.start()]
    return body, enc.group(1).decode("ascii") if enc else None


def _seed(key: str) -> int:
    """A seed from a string, stable across runs and Python versions (unlike ``hash``)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def fold_plan(
    ids: Sequence[str],
    *,
    key: str,
    folds: int = DEFAULT_FOLDS,
    min_learn: int = MIN_LEARN_PAGES,
    max_learn: int = MAX_LEARN_PAGES,
) -> list[Fold]:
    """The folds of one site's cross-validation; ``[]`` for a site of fewer than ``min_learn + 1`` pages.

    The ids are sorted, then shuffled with a generator seeded by ``key`` (the harness passes
    ``dataset/site``), and cut into ``k`` contiguous folds whose sizes differ by at most one. ``k`` is
    ``folds``, raised (up to leave-one-out) until every fold leaves at least ``min_learn`` pages outside it.
    Fold j learns from the pages outside it, in shuffled order, at most ``max_learn`` of them. Every id is in
    exactly one ``test``; no ``learn`` meets its fold's ``test``.
    """
    if folds < 2:
        raise ValueError(f"folds must be at least 2, not {folds}")
    if min_learn < MIN_PAGES:
        raise ValueError(f"min_learn must be at least {MIN_PAGES} (fce.learn.MIN_PAGES), not {min_learn}")
    if max_learn < min_learn:
        raise ValueError(f"max_learn ({max_learn}) must be at least min_learn ({min_learn})")
    if len(set(ids)) != len(ids):
        raise ValueError("document ids of a site must be unique")
    n = len(ids)
    if n < min_learn + 1:
        return []
    order = sorted(ids)
    random.Random(_seed(key)).shuffle(order)
    k = min(folds, n)
    while n - math.ceil(n / k) < min_learn:
        k += 1  # terminates: at k = n each fold holds one page and n - 1 >= min_learn remain
    base, extra = divmod(n, k)
    plan = []
    start = 0
    for j in range(k):
        size = base + (1 if j < extra else 0)
        test = order[start : start + size]
        start += size
        held = set(test)
        learn = [i for i in order if i not in held][:max_learn]
        plan.append(Fold(index=j, n_folds=k, test=tuple(test), learn=tuple(learn)))
    return plan


def _block_prf(page: Page, extraction: Extraction, detector: Detector | SiteDetector | None, gold: str) -> PRF:
    """BF of one template-mode extraction (module docstring)."""
    tree = blocks_of(page, detector.path_style if detector is not None else DEFAULT_PATH_STYLE)
    text_ids = [b.index for b in tree.blocks if b.text]
    texts = [tree[i].text for i in text_ids]
    gold_ids = {i for i, is_content in zip(text_ids, label_gold_blocks(texts, gold), strict=True) if is_content}
    if extraction.method == TEMPLATE_METHOD and "covered" in extraction.info:
        predicted = set(extraction.info["covered"]) & set(text_ids)
    else:
        predicted = {i for i, hit in zip(text_ids, label_gold_blocks(texts, extraction.text), strict=True) if hit}
    return block_f(predicted, gold_ids)


# ------------------------------------------------------------------------------------------------------------
# One page
# ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Input:
    """A document read for extraction: the bytes extractors get, the declared charset, the gold if scored."""

    body: bytes
    charset: str | None
    gold: str | None
    kb: float


def _read(doc: Document) -> _Input:
    body, charset = strip_wrapper(doc.read_html())
    gold = doc.read_gold() if doc.status is GoldStatus.OK else None
    return _Input(body, charset, gold, kilobytes(len(body)))


def _parse(doc: Document, inp: _Input, blocks: str | None) -> Page:
    """The page parsed as the commands parse it for what reads it (``blocks``: the block tree made while parsing,
    in that path style; see :func:`fce.pipeline.blocks_for`), so that the times are theirs."""
    return parse_page(inp.body, url=doc.url, declared_charset=inp.charset, source=str(doc.html_path), blocks=blocks)


def _row(
    doc: Document,
    method: str,
    fold: int | None,
    measures: dict[str, PRF],
    ms: float,
    kb: float,
    status: str,
    **info: Any,
) -> HarnessRow:
    return HarnessRow(
        dataset=doc.dataset,
        site=doc.site,
        doc_id=doc.doc_id,
        method=method,
        fold=fold,
        measures=measures,
        ms=ms,
        kb=kb,
        status=status,
        page_type=doc.meta.get("page_type") if isinstance(doc.meta.get("page_type"), str) else None,
        **info,
    )


def _error_message(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:500]


def _run_method(method: MethodInfo, doc: Document, inp: _Input) -> str:
    return method(_parse(doc, inp, method.blocks)).text


def _run_peer(peer: Peer, doc: Document, inp: _Input) -> str:
    return peer(inp.body, inp.charset)


def _extractors(methods: Sequence[str], peers: Sequence[str]) -> list[tuple[str, Callable[[Document, _Input], str]]]:
    """``(name, run)`` for each single-page method, then each peer; ``run`` is what the harness times."""
    return [*((name, functools.partial(_run_method, get_method(name))) for name in methods),
            *((name, functools.partial(_run_peer, get_peer(name))) for name in peers)]


def _eval_single(doc: Document, methods: Sequence[str], peers: Sequence[str]) -> list[HarnessRow]:
    """Rows of one document for each single-page method, then each peer."""
    inp = _read(doc)
    rows = []
    for name, run in _extractors(methods, peers):
        start = time.perf_counter()
        try:
            text = run(doc, inp)
        except Exception as exc:  # one extractor failing on one page is a result (module docstring)
            ms = (time.perf_counter() - start) * 1000
            rows.append(_row(doc, name, None, {}, ms, inp.kb, ERROR, extractor=name, error=_error_message(exc)))
            continue
        ms = (time.perf_counter() - start) * 1000
        measures = all_measures(text, inp.gold) if inp.gold is not None else {}
        rows.append(_row(doc, name, None, measures, ms, inp.kb, str(doc.status), extractor=name))
    return rows


# ------------------------------------------------------------------------------------------------------------
# Template mode, one site
# ------------------------------------------------------------------------------------------------------------


def _learn(site: str, pages: Sequence[Page], mode: str = DEFAULT_MODE, *, layouts: bool = False,
           ) -> tuple[Detector | SiteDetector | None, float, str | None]:
    """The compiled template of ``site`` learned from ``pages`` (``layouts``: one template per layout,
    :class:`fce.learn.LayoutLearner`, what ``fce learn`` does), the seconds it took, and why it failed."""
    start = time.perf_counter()
    try:
        detector: Detector | SiteDetector = (SiteDetector(LayoutLearner(site).fit(pages).model_, mode=mode) if layouts
                                             else Detector(TemplateLearner(site).fit(pages).template_, mode=mode))
    except LearnError as exc:
        return None, time.perf_counter() - start, str(exc)
    return detector, time.perf_counter() - start, None


def _by_id(docs: Sequence[Document]) -> dict[str, Document]:
    """A site's documents by id: the ``doc_id`` (the file stem), or the file path where two stems collide
    (a site gathered from several directories)."""
    if len({d.doc_id for d in docs}) == len(docs):
        return {d.doc_id: d for d in docs}
    return {str(d.html_path): d for d in docs}


def _eval_template_site(
    docs: Sequence[Document], *, folds: int, min_learn: int, max_learn: int, fallback: str, mode: str = DEFAULT_MODE,
    layouts: bool = True,
) -> tuple[list[HarnessRow], list[FoldRecord], list[SkippedSite]]:
    """Rows of every page of one site in template mode, the fold records, and the site if it was skipped."""
    dataset, site = docs[0].dataset, docs[0].site
    by_id = _by_id(docs)
    plan = fold_plan(list(by_id), key=f"{dataset}/{site}", folds=folds, min_learn=min_learn, max_learn=max_learn)
    if not plan:
        reason = f"{len(docs)} page(s); the template mode needs at least {min_learn + 1}"
        skipped = [_row(d, TEMPLATE_METHOD, None, {}, math.nan, math.nan, SKIPPED) for d in docs]
        return skipped, [], [SkippedSite(dataset, site, len(docs), reason)]
    inputs = {doc_id: _read(doc) for doc_id, doc in by_id.items()}
    # Pages for learning are parsed once per site and shared by the folds (learning time is not a per-page
    # cost); pages to detect are parsed again inside the timed call, so their block trees are never cached
    # beforehand.
    learn_pages: dict[str, Page | None] = {}
    for doc_id, inp in inputs.items():
        try:
            learn_pages[doc_id] = _parse(by_id[doc_id], inp, DEFAULT_PATH_STYLE)  # (as fce learn)
        except InputError:
            learn_pages[doc_id] = None
    rows: list[HarnessRow] = []
    records: list[FoldRecord] = []
    for fold in plan:
        pages = [p for p in (learn_pages[i] for i in fold.learn) if p is not None]
        detector: Detector | SiteDetector | None
        detector, learn_s, learn_error = _learn(site, pages, mode, layouts=layouts)
        learned = ([d.template for d in detector.detectors] if isinstance(detector, SiteDetector)
                   else [detector.template] if detector is not None else [])
        records.append(
            FoldRecord(
                dataset=dataset, site=site, fold=fold.index, n_folds=fold.n_folds, learned=fold.learn,
                scored=fold.test, learn_seconds=learn_s,
                n_content_paths=len({p for t in learned for p in t.content_paths}),
                n_noise_blocks=sum(len(t.noise_blocks) for t in learned), error=learn_error,
            )
        )  # fmt: skip
        for doc_id in fold.test:
            rows.append(_detect_one(by_id[doc_id], inputs[doc_id], detector, fold.index, site, fallback))
    return rows, records, []


def _detect_one(
    doc: Document, inp: _Input, detector: Detector | SiteDetector | None, fold: int, site: str, fallback: str
) -> HarnessRow:
    start = time.perf_counter()
    try:
        page = _parse(doc, inp, blocks_for(detector, fallback))
        extraction = extract(page, detector, site=site, fallback=fallback)
    except Exception as exc:  # one page failing is a result (module docstring)
        ms = (time.perf_counter() - start) * 1000
        return _row(doc, TEMPLATE_METHOD, fold, {}, ms, inp.kb, ERROR, error=_error_message(exc))
    ms = (time.perf_counter() - start) * 1000
    used = extraction.method + (f":{extraction.fallback_reason}" if extraction.fallback_reason else "")
    measures: dict[str, PRF] = {}
    if inp.gold is not None:
        measures = all_measures(extraction.text, inp.gold)
        measures[BLOCK] = _block_prf(page, extraction, detector, inp.gold)
    return _row(
        doc,
        TEMPLATE_METHOD,
        fold,
        measures,
        ms,
        inp.kb,
        f"{doc.status}|{used}",
        extractor=extraction.method,
        fit=extraction.fit,
        fallback_reason=extraction.fallback_reason,
    )


# ------------------------------------------------------------------------------------------------------------
# The run
# ------------------------------------------------------------------------------------------------------------

_Task = tuple[str, tuple[Any, ...]]
_TaskResult = tuple[list[HarnessRow], list[FoldRecord], list[SkippedSite]]

#: Documents per task of the single-page mode in a process pool: large enough to amortise pickling, small
#: enough to balance two workers over a dataset of a few hundred pages. Not tuned.
_CHUNK = 16


def _run_task(task: _Task) -> _TaskResult:
    kind, args = task
    if kind == "single":
        docs, methods, peers = args
        return [row for doc in docs for row in _eval_single(doc, methods, peers)], [], []
    docs, folds, min_learn, max_learn, fallback, mode, layouts = args
    return _eval_template_site(docs, folds=folds, min_learn=min_learn, max_learn=max_learn, fallback=fallback,
                               mode=mode, layouts=layouts)


def _progress_bar(total: int, enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=" page",
        file=sys.stderr,
        disable=not enabled or None,
        leave=False,
        dynamic_ncols=True,
    )


def _task_size(task: _Task, runs_per_doc: int) -> int:
    kind, args = task
    return len(args[0]) * (runs_per_doc if kind == "single" else 1)


def evaluate(
    paths: Iterable[str | PathLike[str]] | str | PathLike[str],
    *,
    methods: Sequence[str] = (DEFAULT_FALLBACK,),
    template: bool = False,
    folds: int = DEFAULT_FOLDS,
    peers: Sequence[str] = (),
    progress: bool = True,
    workers: int = 1,
    min_learn: int = MIN_LEARN_PAGES,
    max_learn: int = MAX_LEARN_PAGES,
    fallback: str = DEFAULT_FALLBACK,
    mode: str = DEFAULT_MODE,
    layouts: bool = True,
) -> EvalResult:
    """Evaluate ``methods`` (single-page), ``peers`` and, with ``template=True``, FastCE's template mode on
    every document under ``paths`` (test packages, dataset or data root:
    :func:`~fce.evaluation.packages.iter_documents`).

    ``folds``, ``min_learn``, ``max_learn`` shape the template mode's cross-validation (:func:`fold_plan`);
    ``fallback`` is the method the pipeline falls back to there, ``mode`` the detection mode
    (:data:`fce.detect.DETECTION_MODES`), ``layouts`` whether each fold learns one template per layout of the site
    (:class:`fce.learn.LayoutLearner`, what ``fce learn`` stores) or one template from all pages (the paper).
    ``workers > 1`` runs sites (template mode) and chunks of documents (the rest) in a process pool; the rows are
    the same, only the timings differ.
    ``progress`` draws a progress bar on stderr.

    Raises :class:`~fce.errors.UnknownMethodError` for an unknown method or peer (before any page is read),
    :class:`~fce.evaluation.peers.PeerUnavailableError` for a peer whose package is missing,
    :class:`~fce.errors.SourceError` for a path that does not exist, ``ValueError`` for bad fold parameters.
    """
    started = time.perf_counter()
    methods = list(dict.fromkeys(methods))
    peers = list(dict.fromkeys(peers))
    for name in methods:
        get_method(name)
    for name in peers:
        get_peer(name)
    if template:
        get_method(fallback)
        # validate the parameters before reading any page
        fold_plan([], key="", folds=folds, min_learn=min_learn, max_learn=max_learn)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    docs = list(iter_documents(paths))
    order = [*methods, *peers, *([TEMPLATE_METHOD] if template else [])]
    tasks: list[_Task] = []
    if template:
        # Largest sites first, so that a pool is not left waiting on one big site at the end.
        for site_docs in sorted(group_by_site(docs).values(), key=len, reverse=True):
            tasks.append(("template", (site_docs, folds, min_learn, max_learn, fallback, mode, layouts)))
    runs_per_doc = len(methods) + len(peers)
    if runs_per_doc:
        step = _CHUNK if workers > 1 else 1
        for i in range(0, len(docs), step):
            tasks.append(("single", (docs[i : i + step], methods, peers)))
    total = sum(_task_size(t, runs_per_doc) for t in tasks)
    rows: list[HarnessRow] = []
    records: list[FoldRecord] = []
    skipped: list[SkippedSite] = []
    with _progress_bar(total, progress, "fce eval") as bar:

        def collect(task: _Task, result: _TaskResult) -> None:
            rows.extend(result[0])
            records.extend(result[1])
            skipped.extend(result[2])
            bar.update(_task_size(task, runs_per_doc))

        if workers == 1:
            for task in tasks:
                collect(task, _run_task(task))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                pending: dict[Future[_TaskResult], _Task] = {pool.submit(_run_task, t): t for t in tasks}
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        collect(pending.pop(future), future.result())
    rank = {m: i for i, m in enumerate(order)}
    rows.sort(key=lambda r: (r.dataset, r.site, r.doc_id, rank[r.method]))
    records.sort(key=lambda f: (f.dataset, f.site, f.fold))
    skipped.sort(key=lambda s: (s.dataset, s.site))
    return EvalResult(
        rows=rows,
        folds=records,
        skipped=skipped,
        methods=tuple(order),
        wall_seconds=time.perf_counter() - started,
    )


def render_timing(timing: Sequence[TimingRow]) -> str:
    """The time table as fixed-width text (``-`` for ``nan``)."""
    header = ["dataset", "method", "pages", "total s", "ms mean", "ms median", "ms p95", "s/kB", "learn s"]
    body = [
        [t.dataset, t.method, str(t.pages), f"{t.seconds:.1f}", f"{t.ms_mean:.1f}", f"{t.ms_median:.1f}",
         f"{t.ms_p95:.1f}", format_cell(t.s_per_kb, ".2e"), format_cell(t.learn_seconds, ".2f")]
        for t in timing
    ]  # fmt: skip
    return render_rows(header, body)


# ------------------------------------------------------------------------------------------------------------
# Table II: ContentExtractor against FastCE
# ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CeVsFastCe:
    """One line of the FastCE paper's Table II (execution time of CE and FastCE), for one site.

    How each number is counted (:func:`ce_vs_fastce` runs both on the same parsed pages):

    * ``n_pages`` — the site's pages; ``n_learn`` — pages the template was learned from (:func:`fold_plan`'s
      fold 0 learning set: at most 30, at least ``min_learn``); ``n_detect`` — the other pages, detected by
      FastCE. CE runs over all ``n_pages`` (it needs the site's pages as input: it is a batch method).
    * ``ce_comparison`` — how CE compared blocks (:data:`fce.content_extractor.COMPARISONS`): ``"pairwise"``,
      every block with every block of every page, one at a time (the paper's CE, the default), or ``"merged"``,
      identical blocks merged first (learning's first stage). Both give the same labels.
    * ``ce_num_block_temp`` — NumBlockTemp of CE: the blocks each block is compared against: the text-bearing
      blocks of all the site's pages (``"pairwise"``), or the distinct ones (``"merged"``: distinct by own text
      and feature counts). ``ce_noise_blocks`` — of those, the ones CE judged noise (recurring on enough pages):
      the closest analogue of FastCE's stored noise blocks.
    * ``ce_num_block`` — NumBlock of CE: text-bearing blocks per page (blocks with own text, the paper's
      atomic blocks with sub-blocks cut out, Figure 3), mean over the pages.
    * ``ce_ms_per_page`` — PerTime of CE: segmenting every page into blocks plus ContentExtractor's comparison
      of all blocks, divided by ``n_pages``.
    * ``ce_segment_ms`` — the part of ``ce_ms_per_page`` spent segmenting pages into blocks (the rest is the
      comparison of blocks).
    * ``fastce_num_block_temp`` — NumBlockTemp of FastCE: noise blocks in the learned template.
    * ``fastce_num_block`` — NumBlock of FastCE: blocks generated by the content paths, i.e. detection's
      candidates (top-most blocks on a path of P), mean over the detected pages.
    * ``fastce_ms_per_page`` — PerTime of FastCE: segmenting a page plus matching the template (candidates,
      rules, comparison with the noise blocks), mean over the detected pages. Learning is the preparation
      phase and not included (``learn_seconds``), nor is compiling the template once. ``fastce_segment_ms`` —
      the part spent segmenting (FastCE segments with the template's path style, by default ``qualified``,
      which spells class and id names into paths and costs more than CE's plain tag paths).
    * ``improvement`` — ``ce_ms_per_page / fastce_ms_per_page`` in percent, as the paper's last column
      (1.914 ms / 0.964 ms → 198.55%).
    * ``ce_wf``, ``fastce_wf`` — mean word F1 (WF, Table IV) over the detected pages with gold: CE's content
      text against FastCE's template extraction (no fallback).

    Parsing (:func:`fce.parse_page`) is timed by neither: both need the same parsed page, and the paper's
    PerTime counts "the time taken to extract blocks and to compare". Both sides run :data:`TIMING_REPEATS`
    times with the garbage collector off, alternating, and each keeps its fastest run.
    """

    dataset: str
    site: str
    n_pages: int
    n_learn: int
    n_detect: int
    ce_comparison: str
    ce_num_block_temp: int
    ce_noise_blocks: int
    ce_num_block: float
    ce_ms_per_page: float
    ce_segment_ms: float
    fastce_num_block_temp: int
    fastce_num_block: float
    fastce_ms_per_page: float
    fastce_segment_ms: float
    learn_seconds: float
    ce_wf: float
    fastce_wf: float

    @property
    def improvement(self) -> float:
        """CE PerTime over FastCE PerTime, in percent."""
        if not self.fastce_ms_per_page > 0:
            return math.nan
        return 100 * self.ce_ms_per_page / self.fastce_ms_per_page


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """The garbage collector off, as :mod:`timeit` does: a collection triggered by one side's allocations would
    otherwise be charged to whichever side happens to run then."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _table2_site(docs: Sequence[Document], *, min_learn: int, max_learn: int, folds: int,
                 comparison: str) -> CeVsFastCe | SkippedSite:
    dataset, site = docs[0].dataset, docs[0].site
    by_id = _by_id(docs)
    plan = fold_plan(
        list(by_id),
        key=f"{dataset}/{site}",
        folds=folds,
        min_learn=min_learn,
        max_learn=max_learn,
    )
    if not plan:
        return SkippedSite(dataset, site, len(docs), f"{len(docs)} page(s); at least {min_learn + 1} needed")
    pages: dict[str, Page] = {}
    golds: dict[str, str | None] = {}
    for doc_id, doc in by_id.items():
        inp = _read(doc)
        try:
            pages[doc_id] = _parse(doc, inp, None)  # (into the lxml tree: what each side reads of it is timed)
        except InputError:
            continue
        golds[doc_id] = inp.gold
    ids = [doc_id for doc_id in by_id if doc_id in pages]
    learn_ids = [i for i in plan[0].learn if i in pages]
    held = set(learn_ids)
    detect_ids = [i for i in ids if i not in held]
    # FastCE's preparation phase (not part of PerTime).
    detector, learn_s, error = _learn(site, [pages[i] for i in learn_ids])
    if not isinstance(detector, Detector) or not detect_ids:  # (None: learning failed)
        return SkippedSite(dataset, site, len(docs), error or "no page left to detect")
    ce_runs: list[tuple[float, float]] = []  # (segment, total) seconds of each repeat
    fastce_runs: list[tuple[float, float]] = []
    with _no_gc():
        for _ in range(TIMING_REPEATS):
            # CE: segment every page and compare all blocks, timed together.
            start = time.perf_counter()
            trees = [segment(pages[i], "paper") for i in ids]
            segmented = time.perf_counter()
            ce = ContentExtractor(path_style=PathStyle.PAPER, comparison=comparison).fit(trees)
            ce_runs.append((segmented - start, time.perf_counter() - start))
            # FastCE: segment and match each page to detect.
            seg_s = total_s = 0.0
            matches = []
            for doc_id in detect_ids:
                start = time.perf_counter()
                tree = segment(pages[doc_id], detector.path_style)
                segmented = time.perf_counter()
                matches.append(detector.match(tree))
                seg_s += segmented - start
                total_s += time.perf_counter() - start
            fastce_runs.append((seg_s, total_s))
    ce_segment_seconds, ce_seconds = min(ce_runs, key=lambda run: run[1])
    fastce_segment_seconds, fastce_seconds = min(fastce_runs, key=lambda run: run[1])
    position = {doc_id: k for k, doc_id in enumerate(ids)}
    ce_wf: list[float] = []
    fastce_wf: list[float] = []
    for doc_id, match in zip(detect_ids, matches, strict=True):
        gold = golds[doc_id]
        if gold is not None:
            fastce_wf.append(word_f("\n".join(b.text for b in match.blocks), gold).f1)
            ce_wf.append(word_f(ce.content_text(position[doc_id]), gold).f1)
    if comparison == PAIRWISE:  # every text-bearing block of every page (the only ones with occurrences)
        occurrences = np.concatenate([occ[occ > 0] for occ in ce.occurrences_])
    else:
        occurrences = ce.distinct_occurrences_
    return CeVsFastCe(
        dataset=dataset,
        site=site,
        n_pages=len(docs),
        n_learn=len(learn_ids),
        n_detect=len(detect_ids),
        ce_comparison=comparison,
        ce_num_block_temp=len(occurrences),
        ce_noise_blocks=int((occurrences >= ce.threshold_).sum()),
        ce_num_block=mean(sum(1 for b in t.blocks if b.text) for t in trees),
        ce_ms_per_page=ce_seconds * 1000 / len(ids),
        ce_segment_ms=ce_segment_seconds * 1000 / len(ids),
        fastce_num_block_temp=len(detector.template.noise_blocks),
        fastce_num_block=mean(m.n_candidates for m in matches),
        fastce_ms_per_page=fastce_seconds * 1000 / len(detect_ids),
        fastce_segment_ms=fastce_segment_seconds * 1000 / len(detect_ids),
        learn_seconds=learn_s,
        ce_wf=mean(ce_wf),
        fastce_wf=mean(fastce_wf),
    )


def ce_vs_fastce(
    paths: Iterable[str | PathLike[str]] | str | PathLike[str],
    *,
    min_learn: int = MIN_LEARN_PAGES,
    max_learn: int = MAX_LEARN_PAGES,
    folds: int = DEFAULT_FOLDS,
    progress: bool = True,
    comparison: str = PAIRWISE,
) -> tuple[list[CeVsFastCe], list[SkippedSite]]:
    """The FastCE paper's Table II for every site under ``paths`` with at least ``min_learn + 1`` pages:
    NumBlockTemp, NumBlock and PerTime of ContentExtractor and of FastCE, and the improvement
    (:class:`CeVsFastCe` says how each is counted). ContentExtractor compares as ``comparison`` says (the paper's
    all pairs by default). Returns the lines and the sites skipped. Runs in this process, one site after the
    other, so the timings are comparable."""
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {COMPARISONS}, not {comparison!r}")
    groups = list(group_by_site(iter_documents(paths)).values())
    lines: list[CeVsFastCe] = []
    skipped: list[SkippedSite] = []
    with _progress_bar(sum(len(g) for g in groups), progress, "CE vs FastCE") as bar:
        for site_docs in groups:
            result = _table2_site(site_docs, min_learn=min_learn, max_learn=max_learn, folds=folds,
                                  comparison=comparison)
            (lines if isinstance(result, CeVsFastCe) else skipped).append(result)  # type: ignore[arg-type]
            bar.update(len(site_docs))
    return lines, skipped


def render_table2(lines: Sequence[CeVsFastCe]) -> str:
    """Table II as fixed-width text: per site NBT / NB / PerTime (ms) of CE and of FastCE and the improvement,
    as in the paper; then CE's noise blocks, the PerTime of each without segmentation (the comparison alone),
    and the WF of both. A last line gives the means over sites."""
    header = ["dataset", "site", "pages", "learn", "CE NBT/NB/PerTime", "FastCE NBT/NB/PerTime",
    "improvement",
              "CE noise", "compare ms CE/FastCE", "WF CE/FastCE"]  # fmt: skip

    def cells(x: Any, name: tuple[str, str]) -> list[str]:
        return [
            *name, f"{x.n_pages:.0f}", f"{x.n_learn:.0f}",
            f"{x.ce_num_block_temp:.0f} / {x.ce_num_block:.0f} / {x.ce_ms_per_page:.3f}",
            f"{x.fastce_num_block_temp:.0f} / {x.fastce_num_block:.0f} / {x.fastce_ms_per_page:.3f}",
            format_cell(x.improvement, ".1f") + "%", f"{x.ce_noise_blocks:.0f}",
            f"{x.ce_ms_per_page - x.ce_segment_ms:.3f} / {x.fastce_ms_per_page - x.fastce_segment_ms:.3f}",
            f"{format_cell(x.ce_wf, '.3f')} / {format_cell(x.fastce_wf, '.3f')}",
        ]  # fmt: skip

    body = [cells(x, (x.dataset, x.site)) for x in lines]
    if len(lines) > 1:
        means = {name: mean(getattr(x, name) for x in lines) for name in CeVsFastCe.__dataclass_fields__
                 if name not in ("dataset", "site", "ce_comparison")}  # fmt: skip
        means["improvement"] = mean(x.improvement for x in lines)
        body.append(cells(SimpleNamespace(**means), ("mean", f"{len(lines)} sites")))
    return render_rows(header, body)
