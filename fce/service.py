"""The commands of ``fce`` as library functions: read sources → parse → learn or detect.

The CLI (:mod:`fce.cli`) is a thin layer over these; Python users call them the same way::

    from templates_store import open_store
    from fce.service import detect_sources, learn_sources, save_template

    result = learn_sources(["urls.txt"], site="example.com")
    with open_store("sqlite:///templates.db") as store:
        save_template(store, result.record)
        for row in detect_sources(["https://example.com/new-article"], store=store):
            print(row.to_dict())

Drift: :func:`site_rows` lists each stored site with its layouts, counters and stale flag
(:func:`fce.layouts.is_stale`); :func:`relearn_stale` replaces the layouts of the stale sites among the pages of
the current run (what ``fce ingest`` calls).
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, BinaryIO

from fce.blocks import DEFAULT_PATH_STYLE
from fce.detect import DEFAULT_MODE, MIN_FIT
from fce.errors import (
    EmptyPageError,
    FceError,
    FetchError,
    InputError,
    LearnError,
    NotHTMLError,
    PageTimeoutError,
    PageTooLargeError,
    SourceError,
    StoreFailure,
    TemplateError,
    TemplateNotFoundError,
    UnknownMethodError,
)
from fce.extraction import Extraction
from fce.fetch import FetchOptions
from fce.kinds import FallbackReason, OutputFormat
from fce.layouts import STALE_FIT_RATE, STALE_MIN_RECENT, is_stale
from fce.learn import RECOMMENDED_PAGES
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited
from fce.methods import get_method
from fce.parse import MAX_PAGE_BYTES, Page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, learn_site, parse_blocks, with_outputs
from fce.sites import normalize_site, site_of
from fce.sources import READ_BATCH, PageInput, expand_sources, read_sources
from fce.template import SiteTemplates, Template

if TYPE_CHECKING:
    from templates_store import SiteCounters, TemplateStore

__all__ = [
    "ERROR_STATUS",
    "DetectResult",
    "RELEARN_MIN_PAGES",
    "LearnResult",
    "RelearnOutcome",
    "detect_sources",
    "error_status",
    "learn_sources",
    "relearn_stale",
    "save_template",
    "site_rows",
]

#: A stale site is relearned from the current run only when the run holds at least this many of its pages: two
#: layouts of :data:`fce.layouts.MIN_LAYOUT_PAGES` (4) pages. On msv-big9, layouts relearned from 8 pages of 2017
#: per site score 0.955 word F1 on the other 2017 pages, level with the fallback alone (0.956), where the stale
#: 2005–2013 templates forced in the paper's rules mode score 0.000 (``bench/layouts_bench.py``).
RELEARN_MIN_PAGES = 8

#: The ``"status"`` of a failed page in ``fce detect --format json`` (most specific class wins).
ERROR_STATUS: dict[type[FceError], str] = {
    EmptyPageError: "empty",
    NotHTMLError: "not-html",
    PageTooLargeError: "too-large",
    InputError: "input",
    SourceError: "source",
    FetchError: "fetch",
    PageTimeoutError: "timeout",
    LearnError: "learn",
    TemplateNotFoundError: "no-template",
    TemplateError: "template",
    UnknownMethodError: "unknown-method",
    StoreFailure: "store",
    FceError: "error",
}


def error_status(exc: FceError) -> str:
    """The short kind of an error (``"not-html"``, ``"fetch"``, ...), from :data:`ERROR_STATUS`."""
    return next((ERROR_STATUS[cls] for cls in type(exc).__mro__ if cls in ERROR_STATUS),  # type: ignore[index]
                "error")


# --- learn --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnResult:
    """What :func:`learn_sources` did: the site's layouts, the sources used and skipped (with why), and warnings."""

    record: SiteTemplates
    used: tuple[str, ...]
    skipped: tuple[FceError, ...]
    seconds: float  # time spent learning (parsing and fetching excluded)
    warnings: tuple[str, ...]

    @property
    def template(self) -> Template:
        """The first (largest) layout's template."""
        return self.record.layouts[0]


def learn_sources(
    sources: Sequence[str],
    *,
    site: str | None = None,
    max_bytes: int = MAX_PAGE_BYTES,
    fetch: FetchOptions = FetchOptions(),  # noqa: B008 -- frozen, so a shared default is safe
    progress: Callable[[str], None] | None = None,
    page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
    layouts: bool = True,
    **params: Any,
) -> LearnResult:
    """Read, fetch and parse the pages ``sources`` name and learn their site's layouts (one template per layout,
    :class:`fce.learn.LayoutLearner`; ``layouts=False``: one template from all pages).

    A source that does not exist raises :class:`SourceError` before anything is read or fetched; a page that
    cannot be fetched or parsed is skipped (listed in ``skipped`` and ``warnings``). ``site`` defaults to the
    one site the pages' URLs name (:func:`fce.sites.site_of`). ``params`` go to each layout's
    :class:`fce.learn.TemplateLearner`. Raises :class:`LearnError` when fewer than ``fce.learn.MIN_PAGES``
    pages are usable. ``page_timeout`` (seconds, ``None``: no limit) bounds the parse of each page, and learning
    to that much per page (:class:`PageTimeoutError`).
    """
    resolved = expand_sources(sources)
    for src in resolved:
        if src.error is not None:
            raise src.error
    pages: list[Page] = []
    skipped: list[FceError] = []
    blocks = params.get("path_style", DEFAULT_PATH_STYLE)  # learning reads the block trees (and the tree of a page
    # without a URL, for its site: parsed when asked for)
    for batch in read_sources(resolved, max_bytes=max_bytes, fetch=fetch, progress=progress):
        for item in batch:
            try:
                pages.append(run_limited(page_timeout, partial(item.parse, max_bytes=max_bytes, blocks=blocks),
                                         source=item.source))
            except FceError as exc:
                skipped.append(exc)
    name = normalize_site(site) if site else _common_site(pages)
    pages = _of_site(pages, name, skipped)
    warnings = [f"skipped {exc}" for exc in skipped]
    started = time.perf_counter()
    try:
        record = learn_site(pages, name, timeout=page_timeout, layouts=layouts, **params)
    except LearnError as exc:
        if not skipped:
            raise
        # the skipped pages are the likely reason: say so in the one message the user sees
        message = f"{exc}; {len(skipped)} page(s) could not be used, the first: {skipped[0]}"
        raise LearnError(message) from None
    seconds = time.perf_counter() - started
    if record.n_pages < RECOMMENDED_PAGES:
        warnings.append(f"learned {name} from {record.n_pages} page(s); "
                        f"{RECOMMENDED_PAGES}-30 pages of the site are recommended")
    learned = sum(t.n_pages for t in record.layouts)
    if learned < record.n_pages:
        warnings.append(f"{record.n_pages - learned} page(s) of {name} fit none of its "
                        f"{len(record.layouts)} layout(s) and were left out")
    used = tuple(p.source or p.url or "?" for p in pages)
    return LearnResult(record, used, tuple(skipped), seconds, tuple(warnings))


def _of_site(pages: list[Page], name: str, skipped: list[FceError]) -> list[Page]:
    """The pages of site ``name``: a page whose URL (or canonical link) names another site on the web is left out
    and added to ``skipped``. A sample of which no page is of the site is a :class:`LearnError` naming the site the
    pages are of (a list of another site's URLs given by mistake; nothing is learned or stored). A page served from
    an IP address or a host without a public suffix (``localhost``, an intranet mirror) is taken to be of the site
    named."""
    kept, others = [], []
    for page in pages:
        other = site_of(page)
        if other is not None and other != name and _public(other):
            others.append(other)
            skipped.append(InputError(f"a page of {other}, not of {name}", source=page.source or page.url))
        else:
            kept.append(page)
    if others and not kept:
        found = ", ".join(f"{s} ({n})" for s, n in Counter(others).most_common(3))
        raise LearnError(f"none of the {len(others)} page(s) is of {name}: they are of {found}", source=name)
    return kept


def _public(site: str) -> bool:
    """Whether ``site`` is a name on the web (with a dot, not an IP address), not a local or intranet host."""
    try:
        ipaddress.ip_address(site)
    except ValueError:
        return "." in site
    return False


def _common_site(pages: Sequence[Page]) -> str:
    sites = sorted({s for s in (site_of(p) for p in pages) if s})
    if len(sites) == 1:
        return sites[0]
    if not sites:
        raise LearnError("cannot tell the pages' site (no URL, canonical link or og:url); pass --site")
    shown = ", ".join(sites[:5]) + (", ..." if len(sites) > 5 else "")
    raise LearnError(f"the pages belong to {len(sites)} sites ({shown}); pass --site")


def save_template(store: TemplateStore, template: Template | SiteTemplates, *,
                  expected_version: int | None = None) -> int:
    """Store ``template`` (one template, or a site's layouts) under its site, replacing all that was stored for
    it in one atomic put; return the stored version. ``expected_version``: compare-and-set
    (:class:`~templates_store.VersionConflict`, a :class:`StoreFailure`, when another writer came first)."""
    from templates_store import StoreError

    record = template if isinstance(template, SiteTemplates) else SiteTemplates.of(template)
    site = normalize_site(record.site)  # a learner given a host stores under its site, as every command reads it
    if site != record.site:
        record = replace(record, site=site, layouts=tuple(replace(t, site=site) for t in record.layouts))
    try:
        return store.put(site, record.to_json(), expected_version=expected_version)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from exc  # the cause tells a version conflict from a failure


def site_rows(store: TemplateStore, sites: Sequence[str] | None = None, *, min_fit_rate: float = STALE_FIT_RATE,
              min_recent: int = STALE_MIN_RECENT) -> list[dict[str, Any]]:
    """One summary per stored site (of ``sites``, default all), sorted by site: ``site``, ``version``,
    ``learned_at``, ``n_pages``, ``content_paths`` (sorted, all layouts), ``layouts`` (per layout:
    ``n_pages``, ``content_paths``, ``noise_blocks``), the counters ``fits``, ``fallbacks``, ``overruled``,
    ``recent`` (detections in the recent window), ``recent_fit_rate`` and ``stale`` (:func:`fce.layouts.is_stale`). A
    record that cannot be read (another schema, corrupt) is listed with ``None`` for what could not be read, so
    that it can still be seen and deleted."""
    from templates_store import StoreError

    try:
        if sites is None:
            names = store.sites()
            records = store.get_many(names)
        else:  # a few named sites: one get each, so that an error names the site
            names = sorted(set(sites))
            records = {name: found for name in names if (found := store.get(name)) is not None}
            names = list(records)
        counters = store.counters(names)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    rows = []
    for name in names:
        stored = records.get(name)
        if stored is None:  # deleted or expired between the calls
            continue
        row: dict[str, Any] = {"site": name, "version": stored.version, "learned_at": None, "n_pages": None,
                               "content_paths": None, "layouts": None}
        count = counters.get(name)
        if count is not None and count.version != stored.version:
            count = None  # replaced between the calls: the new version has no counts yet
        rate = None if count is None else count.recent_fit_rate
        row.update(fits=0 if count is None else count.fits, fallbacks=0 if count is None else count.fallbacks,
                   overruled=0 if count is None else count.overruled,
                   recent=0 if count is None else count.recent_count,
                   recent_fit_rate=None if rate is None else round(rate, 4),
                   stale=is_stale(count, min_fit_rate=min_fit_rate, min_recent=min_recent))
        try:
            record = SiteTemplates.from_json(stored.payload, site=name)
        except TemplateError as exc:
            row["error"] = str(exc)
        else:
            row.update(learned_at=record.learned_at, n_pages=record.n_pages,
                       content_paths=sorted({p for t in record.layouts for p in t.content_paths}),
                       layouts=[{"n_pages": t.n_pages, "content_paths": len(t.content_paths),
                                 "noise_blocks": len(t.noise_blocks)} for t in record.layouts])
        rows.append(row)
    return rows



@dataclass(frozen=True)
class RelearnOutcome:
    """What :func:`relearn_stale` did for one site: ``status`` is ``"relearned"`` (``version`` is the new one),
    ``"fresh"`` (not stale), ``"no-template"`` (nothing stored: learning new sites is the caller's business),
    ``"too-few"`` (stale, but fewer than ``min_pages`` usable pages in the run, or learning failed), or
    ``"conflict"`` (another writer replaced the record meanwhile; left to it)."""

    site: str
    status: str
    version: int | None = None
    counters: SiteCounters | None = None
    message: str = ""


def relearn_stale(
    store: TemplateStore,
    pages: Mapping[str, Sequence[Page]],
    *,
    min_pages: int = RELEARN_MIN_PAGES,
    min_fit_rate: float = STALE_FIT_RATE,
    min_recent: int = STALE_MIN_RECENT,
    layouts: bool = True,
    timeout: float | None = None,
    **params: Any,
) -> list[RelearnOutcome]:
    """Relearn the stale sites among ``pages`` (site → pages of the current run, e.g. what ``fce ingest`` read)
    from those pages, one outcome per site, sorted by site.

    A site is stale when its stored counters say so (:func:`fce.layouts.is_stale` with ``min_fit_rate`` and
    ``min_recent``). Its new layouts (``layouts``, ``params``: as :func:`learn_sources`) replace the stored
    record in one compare-and-set put on the version the counters belong to, so a record that someone else
    replaced in between is left alone. ``timeout``: seconds per page of learning. Store errors raise
    :class:`StoreFailure`."""
    from templates_store import StoreError, VersionConflict

    names = sorted({normalize_site(site) for site in pages})
    by_name: dict[str, list[Page]] = {}
    for site, site_pages in pages.items():
        by_name.setdefault(normalize_site(site), []).extend(site_pages)
    try:
        counters = store.counters(names)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    outcomes = []
    for name in names:
        count = counters.get(name)
        if count is None:
            outcomes.append(RelearnOutcome(name, "no-template"))
            continue
        if not is_stale(count, min_fit_rate=min_fit_rate, min_recent=min_recent):
            outcomes.append(RelearnOutcome(name, "fresh", count.version, count))
            continue
        site_pages = by_name[name]
        if len(site_pages) < min_pages:
            outcomes.append(RelearnOutcome(name, "too-few", count.version, count,
                                           f"{len(site_pages)} page(s) in this run; {min_pages} needed"))
            continue
        try:
            record = learn_site(site_pages, name, timeout=timeout, layouts=layouts, **params)
        except (LearnError, PageTimeoutError) as exc:
            outcomes.append(RelearnOutcome(name, "too-few", count.version, count, str(exc)))
            continue
        try:
            version = store.put(name, record.to_json(), expected_version=count.version)
        except VersionConflict as exc:
            outcomes.append(RelearnOutcome(name, "conflict", exc.actual, count, str(exc)))
            continue
        except StoreError as exc:
            raise StoreFailure(str(exc)) from None
        outcomes.append(RelearnOutcome(name, "relearned", version, count))
    return outcomes


# --- detect -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectResult:
    """One input of :func:`detect_sources`: its extraction, or the error that stopped it. ``problem`` is an error
    that made the extraction fall back (a corrupt template, a store gone): the page has its extraction, and the
    caller may warn."""

    source: str
    extraction: Extraction | None = None
    error: FceError | None = None
    problem: FceError | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON record of ``fce detect --format json``."""
        if self.error is not None:
            return {"source": self.source, "error": str(self.error), "status": error_status(self.error)}
        assert self.extraction is not None
        data = self.extraction.to_dict()
        info = self.extraction.info
        match = info.get("match")
        return {"source": self.source, **{k: data[k] for k in ("site", "method", "fit")},
                "layout": info.get("layout"), "match": None if match is None else round(match, 4),
                **{k: data[k] for k in ("fallback_reason", "check", "page_type", "page_type_reason", "metadata",
                                        "fingerprint", "text")},
                **{k: data[k] for k in ("comments", "markdown", "html") if k in data}, "blocks": data["blocks"]}


#: ``fallback_reason`` of a page extracted by the fallback because its site's stored template could not be read, or
#: because the store could not be reached (:func:`detect_sources` without ``strict``).
TEMPLATE_ERROR, STORE_ERROR = FallbackReason.TEMPLATE_ERROR, FallbackReason.STORE_ERROR


def detect_sources(
    sources: Sequence[str],
    *,
    store: TemplateStore | None = None,
    site: str | None = None,
    method: str | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    min_fit: float = MIN_FIT,
    mode: str = DEFAULT_MODE,
    max_bytes: int = MAX_PAGE_BYTES,
    fetch: FetchOptions = FetchOptions(),  # noqa: B008 -- frozen, so a shared default is safe
    stdin: BinaryIO | None = None,
    progress: Callable[[str], None] | None = None,
    batch_size: int = READ_BATCH,
    page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
    record: bool = True,
    strict: bool = False,
    metadata: bool = False,
    output: str = OutputFormat.TEXT,
    links: bool = False,
    comments: bool = False,
) -> Iterator[DetectResult]:
    """Extract the main content of every page ``sources`` name; one :class:`DetectResult` per page, in order.

    ``method`` runs that single-page method only (no store is used). Otherwise each page's site (``site``,
    else its URL, canonical link or og:url) selects its template from ``store``, falling back to ``fallback``
    (``None``: a page without a template is a :class:`TemplateNotFoundError` result). A page that cannot be
    read, fetched, parsed or matched is a result with ``error``. Pages are read in batches of ``batch_size``; the
    templates of a batch's sites are loaded in one store round trip. Each detection of a site with a stored record
    counts as a fit, a fallback or an overruled template in the store (:class:`fce.pipeline.Extractor`,
    ``record``; the last counts are written when the iterator is exhausted). Parsing and extracting each take at
    most ``page_timeout`` seconds per page (``None``: no limit; a page over it is a :class:`PageTimeoutError`
    result).

    The store is monitoring and a cache of templates, detection is the product: a site whose stored template is
    corrupt (:class:`TemplateError`) has its pages extracted by the fallback, ``fallback_reason``
    :data:`TEMPLATE_ERROR`; a store that cannot be reached (:class:`StoreFailure`), at the start or mid-run, has
    that page and every later one extracted by the fallback, ``fallback_reason`` :data:`STORE_ERROR`, the store
    not tried again; either result carries the error as ``problem``. With ``strict`` (or no fallback), those pages
    are results with the error instead.

    Argument errors (an unknown method, ``-`` given twice) raise here, before anything is read.
    """
    runner = get_method(method) if method is not None else None
    extractor = None if runner is not None else Extractor(store, fallback=fallback, min_fit=min_fit, mode=mode,
                                                             timeout=page_timeout, record=record)
    rescue = get_method(fallback) if fallback is not None and not strict and runner is None else None
    # the block tree made while parsing, when that is what the method, or the template and fallback, read (a
    # template of another path style, or a fallback that reads the lxml tree, parses the tree when it is asked for)
    blocks = runner.blocks if runner is not None else parse_blocks(fallback)
    resolved = expand_sources(sources, allow_stdin=True)
    batches = read_sources(resolved, max_bytes=max_bytes, fetch=fetch, stdin=stdin, progress=progress,
                           batch_size=batch_size)
    store_down: list[StoreFailure] = []  # the store's failure, once it failed (not tried again)

    def rescued(page: Page, reason: str, problem: FceError, source: str) -> DetectResult:
        """The page extracted by the fallback, for ``reason``; a result with the error where that fails too."""
        assert rescue is not None
        try:
            extraction = run_limited(page_timeout, partial(by_method, page, rescue, reason), source=source)
        except FceError as exc:
            return DetectResult(source, error=exc)
        return DetectResult(source, extraction, problem=problem)

    def by_method(page: Page, method: Callable[[Page], Extraction] | None = runner,
                  reason: str | None = None) -> Extraction:
        """``method``'s extraction of ``page``, with what was asked beyond its text (under the page's limit)."""
        assert method is not None
        return with_outputs(page, replace(method(page), site=site_of(page, site), fallback_reason=reason),
                            metadata=metadata, output=output, links=links, comments=comments)

    def results() -> Iterator[DetectResult]:
        done = 0
        try:
            for row in rows():
                yield row
                done += 1
        except StoreFailure as exc:  # (strict) the store went away mid-run: a row for this page and every later one
            for src in resolved[done:]:
                yield DetectResult(src.source, error=exc)
            return
        if extractor is not None and not store_down:
            extractor.flush()  # the fit/fallback counts of the last pages

    def rows() -> Iterator[DetectResult]:
        for batch in batches:
            parsed = [_parse(item, max_bytes, page_timeout, blocks) for item in batch]
            if extractor is not None and not store_down:
                try:
                    _prefetch(extractor, [site_of(p, site) for p in parsed if isinstance(p, Page)])
                except StoreFailure as exc:
                    if rescue is None:
                        raise
                    store_down.append(exc)
            for item, page in zip(batch, parsed, strict=True):
                if not isinstance(page, Page):
                    yield DetectResult(item.source, error=page)
                    continue
                try:
                    if runner is not None:
                        extraction = run_limited(page_timeout, partial(by_method, page), source=item.source)
                    elif store_down:
                        yield rescued(page, STORE_ERROR, store_down[0], item.source)
                        continue
                    else:
                        assert extractor is not None
                        extraction = extractor.extract(page, site=site, metadata=metadata, output=output,
                                                       links=links, comments=comments)
                except StoreFailure as exc:
                    if rescue is None:
                        raise  # not about this page: every other page would fail the same way
                    store_down.append(exc)
                    yield rescued(page, STORE_ERROR, exc, item.source)
                    continue
                except TemplateError as exc:
                    yield (DetectResult(item.source, error=exc) if rescue is None
                           else rescued(page, TEMPLATE_ERROR, exc, item.source))
                    continue
                except UnknownMethodError:
                    raise
                except FceError as exc:
                    yield DetectResult(item.source, error=exc)
                    continue
                yield DetectResult(item.source, extraction=extraction)

    return results()


def _parse(item: PageInput, max_bytes: int, page_timeout: float | None,
           blocks: str | None = None) -> Page | FceError:
    try:
        return run_limited(page_timeout, partial(item.parse, max_bytes=max_bytes, blocks=blocks), source=item.source)
    except FceError as exc:
        return exc


def _prefetch(extractor: Extractor, sites: list[str | None]) -> None:
    """Load the templates of ``sites`` in one round trip. A corrupt template fails only its own site's pages:
    on a :class:`TemplateError` the sites are loaded one by one, and a site that still fails is left out of
    the cache, so extracting its pages raises the error again, per page."""
    try:
        extractor.prefetch(sites)
    except TemplateError:
        for one in sorted({s for s in sites if s}):
            try:
                extractor.prefetch([one])
            except TemplateError:
                pass  # reported per page by Extractor.extract
