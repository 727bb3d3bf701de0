"""The commands of ``fce`` as library functions: read sources → parse → learn or detect.

The CLI (:mod:`fce.cli`) is a thin layer over these; Python users call them the same way::

    from templates_store import open_store
    from fce.service import detect_sources, learn_sources, save_template

    result = learn_sources(["urls.txt"], site="example.com")
    with open_store("sqlite:///templates.db") as store:
        save_template(store, result.template)
        for row in detect_sources(["https://example.com/new-article"], store=store):
            print(row.to_dict())
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, BinaryIO

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
from fce.learn import RECOMMENDED_PAGES
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited
from fce.methods import get_method
from fce.parse import MAX_PAGE_BYTES, Page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, learn_template
from fce.sites import normalize_site, site_of
from fce.sources import READ_BATCH, PageInput, expand_sources, read_sources
from fce.template import Template

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = [
    "ERROR_STATUS",
    "DetectResult",
    "LearnResult",
    "detect_sources",
    "error_status",
    "learn_sources",
    "save_template",
    "template_rows",
]

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
    for cls in type(exc).__mro__:
        if cls in ERROR_STATUS:
            return ERROR_STATUS[cls]  # type: ignore[index]
    return "error"


# --- learn --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnResult:
    """What :func:`learn_sources` did: the template, the sources used and skipped (with why), and warnings."""

    template: Template
    used: tuple[str, ...]
    skipped: tuple[FceError, ...]
    seconds: float  # time spent learning (parsing and fetching excluded)
    warnings: tuple[str, ...]


def learn_sources(
    sources: Sequence[str],
    *,
    site: str | None = None,
    max_bytes: int = MAX_PAGE_BYTES,
    fetch: FetchOptions = FetchOptions(),  # noqa: B008 -- frozen, so a shared default is safe
    progress: Callable[[str], None] | None = None,
    page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
    **params: Any,
) -> LearnResult:
    """Read, fetch and parse the pages ``sources`` name and learn their site's template.

    A source that does not exist raises :class:`SourceError` before anything is read or fetched; a page that
    cannot be fetched or parsed is skipped (listed in ``skipped`` and ``warnings``). ``site`` defaults to the
    one site the pages' URLs name (:func:`fce.sites.site_of`). ``params`` go to
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
    for batch in read_sources(resolved, max_bytes=max_bytes, fetch=fetch, progress=progress):
        for item in batch:
            try:
                pages.append(run_limited(page_timeout, partial(item.parse, max_bytes=max_bytes), source=item.source))
            except FceError as exc:
                skipped.append(exc)
    name = normalize_site(site) if site else _common_site(pages)
    warnings = [f"skipped {exc}" for exc in skipped]
    started = time.perf_counter()
    try:
        template = learn_template(pages, name, timeout=page_timeout, **params)
    except LearnError as exc:
        if not skipped:
            raise
        # the skipped pages are the likely reason: say so in the one message the user sees
        message = f"{exc}; {len(skipped)} page(s) could not be used, the first: {skipped[0]}"
        raise LearnError(message) from None
    seconds = time.perf_counter() - started
    if template.n_pages < RECOMMENDED_PAGES:
        warnings.append(f"learned {name} from {template.n_pages} page(s); "
                        f"{RECOMMENDED_PAGES}-30 pages of the site are recommended")
    used = tuple(p.source or p.url or "?" for p in pages)
    return LearnResult(template, used, tuple(skipped), seconds, tuple(warnings))


def _common_site(pages: Sequence[Page]) -> str:
    sites = sorted({s for s in (site_of(p) for p in pages) if s})
    if len(sites) == 1:
        return sites[0]
    if not sites:
        raise LearnError("cannot tell the pages' site (no URL, canonical link or og:url); pass --site")
    shown = ", ".join(sites[:5]) + (", ..." if len(sites) > 5 else "")
    raise LearnError(f"the pages belong to {len(sites)} sites ({shown}); pass --site")


def save_template(store: TemplateStore, template: Template) -> int:
    """Store ``template`` under its site (an atomic replace); return the stored version."""
    from templates_store import StoreError

    try:
        return store.put(template.site, template.to_json())
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None


def template_rows(store: TemplateStore) -> list[dict[str, Any]]:
    """One summary per stored template, sorted by site: ``site``, ``version``, ``learned_at``, ``n_pages`` and
    ``content_paths`` (sorted). A template that cannot be read (another schema, corrupt) is listed with
    ``None`` for what could not be read, so that it can still be seen and deleted."""
    from templates_store import StoreError

    try:
        names = store.sites()
        records = store.get_many(names)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    rows = []
    for name in names:
        record = records.get(name)
        if record is None:  # deleted or expired between the two calls
            continue
        row: dict[str, Any] = {"site": name, "version": record.version, "learned_at": None, "n_pages": None,
                               "content_paths": None}
        try:
            template = Template.from_json(record.payload, site=name)
        except TemplateError as exc:
            row["error"] = str(exc)
        else:
            row.update(learned_at=template.learned_at, n_pages=template.n_pages,
                       content_paths=sorted(template.content_paths))
        rows.append(row)
    return rows


# --- detect -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectResult:
    """One input of :func:`detect_sources`: its extraction, or the error that stopped it."""

    source: str
    extraction: Extraction | None = None
    error: FceError | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON record of ``fce detect --format json``."""
        if self.error is not None:
            return {"source": self.source, "error": str(self.error), "status": error_status(self.error)}
        assert self.extraction is not None
        data = self.extraction.to_dict()
        return {"source": self.source, **{k: data[k] for k in
                ("site", "method", "fit", "fallback_reason", "text", "blocks")}}


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
) -> Iterator[DetectResult]:
    """Extract the main content of every page ``sources`` name; one :class:`DetectResult` per page, in order.

    ``method`` runs that single-page method only (no store is used). Otherwise each page's site (``site``,
    else its URL, canonical link or og:url) selects its template from ``store``, falling back to ``fallback``
    (``None``: a page without a template is a :class:`TemplateNotFoundError` result). A page that cannot be
    read, fetched, parsed or matched is a result with ``error``. A store that fails mid-run ends the run: that
    page and every later one get a :class:`StoreFailure` result (no record is lost, the store is not tried again).
    Pages are read in batches of ``batch_size``; the templates of a batch's sites are loaded in one store
    round trip. Parsing and extracting each take at most ``page_timeout`` seconds per page (``None``: no limit;
    a page over it is a :class:`PageTimeoutError` result).

    Argument errors (an unknown method, ``-`` given twice) raise here, before anything is read.
    """
    runner = get_method(method) if method is not None else None
    extractor = None if runner is not None else Extractor(store, fallback=fallback, min_fit=min_fit, mode=mode,
                                                             timeout=page_timeout)
    resolved = expand_sources(sources, allow_stdin=True)
    batches = read_sources(resolved, max_bytes=max_bytes, fetch=fetch, stdin=stdin, progress=progress,
                           batch_size=batch_size)

    def results() -> Iterator[DetectResult]:
        done = 0
        try:
            for row in rows():
                yield row
                done += 1
        except StoreFailure as exc:  # the store went away mid-run: a row for this page and every one after it
            for src in resolved[done:]:
                yield DetectResult(src.source, error=exc)

    def rows() -> Iterator[DetectResult]:
        for batch in batches:
            parsed = [_parse(item, max_bytes, page_timeout) for item in batch]
            if extractor is not None:
                _prefetch(extractor, [site_of(p, site) for p in parsed if isinstance(p, Page)])
            for item, page in zip(batch, parsed, strict=True):
                if not isinstance(page, Page):
                    yield DetectResult(item.source, error=page)
                    continue
                try:
                    if runner is not None:
                        extraction = replace(run_limited(page_timeout, partial(runner, page), source=item.source),
                                             site=site_of(page, site))
                    else:
                        assert extractor is not None
                        extraction = extractor.extract(page, site=site)
                except (StoreFailure, UnknownMethodError):
                    raise  # not about this page: every other page would fail the same way
                except FceError as exc:
                    yield DetectResult(item.source, error=exc)
                    continue
                yield DetectResult(item.source, extraction=extraction)

    return results()


def _parse(item: PageInput, max_bytes: int, page_timeout: float | None) -> Page | FceError:
    try:
        return run_limited(page_timeout, partial(item.parse, max_bytes=max_bytes), source=item.source)
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
