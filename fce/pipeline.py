"""The orchestrator: bytes → page → (layout's template | fallback method) → :class:`~fce.extraction.Extraction`.

:func:`extract` is the whole detection pipeline for one parsed page: segment it once, pick the site's layout that
fits it best (:class:`fce.layouts.SiteDetector`), apply that layout's template, or fall back. :class:`Extractor`
adds a template store, a per-site cache of compiled layouts, and the per-site counters of fits and fallbacks that
drift detection reads (:func:`fce.layouts.is_stale`), written to the store in batches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from fce.blocks import DEFAULT_PATH_STYLE, blocks_of
from fce.detect import DEFAULT_MODE, MIN_FIT, Detector
from fce.errors import StoreFailure, TemplateNotFoundError
from fce.extraction import Extraction
from fce.layouts import SiteDetector
from fce.learn import LayoutLearner, TemplateLearner
from fce.limits import check_deadline, run_limited
from fce.methods import get_method
from fce.parse import Page
from fce.sites import normalize_site, site_of
from fce.template import SiteTemplates, Template

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["DEFAULT_FALLBACK", "OUTCOME_BATCH", "Extractor", "OutcomeBatch", "blocks_for", "extract", "learn_site",
           "learn_template", "parse_blocks"]

#: The single-page method used when no template fits. Issue #2 asked for Arias et al.'s text density (``density``,
#: still available); measured against every registered method it is far behind (word F1 on the first 100
#: scrapinghub pages: density 0.50, mainblock 0.94, readability 0.94), so the default is ``mainblock``
#: (README, "Choosing the fallback").
DEFAULT_FALLBACK = "mainblock"

#: Compiled templates kept per Extractor (an LRU): a batch touching more sites than this recompiles.
TEMPLATE_CACHE_SIZE = 256

#: Detections an :class:`Extractor` counts before writing the counters to the store (one ``record`` per site):
#: with a 1–20 ms detection per page, 100 pages cost one store write per 0.1–2 s of work, not one per page.
OUTCOME_BATCH = 100

Compiled = Template | Detector | SiteTemplates | SiteDetector


def extract(
    page: Page,
    template: Compiled | None,
    *,
    site: str | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    min_fit: float = MIN_FIT,
    mode: str = DEFAULT_MODE,
    timeout: float | None = None,
) -> Extraction:
    """Extract the main content of ``page`` with the site's template(s); fall back to the method ``fallback``
    when there is no template, no layout's fit score reaches ``min_fit``, or the chosen template extracts nothing.

    ``template`` is one :class:`~fce.template.Template` (or its :class:`~fce.detect.Detector`), or a site's
    layouts (:class:`~fce.template.SiteTemplates` or its :class:`~fce.layouts.SiteDetector`): the layout that
    fits the page best is used. The extraction's ``fit`` is that layout's fit; ``info`` holds ``layout`` (its
    index, ``None`` after a fallback) and ``match`` (the page's match with the layout's profile).
    ``mode`` is the detection mode of :class:`~fce.detect.Detector` (``"guided"`` or the paper's ``"rules"``).
    ``fallback=None`` raises :class:`~fce.errors.TemplateNotFoundError` instead of falling back when there is no
    template, and returns the (possibly empty) template extraction otherwise. ``timeout``: seconds before
    :class:`~fce.errors.PageTimeoutError` (``None``: no limit; see :mod:`fce.limits`)."""
    return run_limited(timeout, lambda: _extract(page, template, site=site, fallback=fallback, min_fit=min_fit,
                                                 mode=mode), source=page.source or page.url)


def blocks_for(template: Compiled | None, fallback: str | None = DEFAULT_FALLBACK) -> str | None:
    """The path style in which to segment a page while parsing it (``parse_page(data, blocks=…)``) for
    :func:`extract` with ``template`` and ``fallback``: the template's, when the fallback reads nothing of the page
    but a block tree of that style (:attr:`fce.methods.MethodInfo.blocks`: ``mainblock``, ``plain``) or there is
    none; without a template, the fallback's. None where the page's lxml tree will be read anyway (the page is then
    best parsed into it at once)."""
    style = None
    if template is not None:
        style = (template.path_style if isinstance(template, (Detector, SiteDetector))
                 else template.params.path_style if isinstance(template, Template)
                 else template.layouts[0].params.path_style)
    return _blocks_read(style, fallback)


def parse_blocks(fallback: str | None = DEFAULT_FALLBACK) -> str | None:
    """:func:`blocks_for` before the site's template is known: its style is taken to be the default
    (:data:`fce.blocks.DEFAULT_PATH_STYLE`, what ``fce learn`` learns with)."""
    return _blocks_read(DEFAULT_PATH_STYLE, fallback)


def _blocks_read(style: str | None, fallback: str | None) -> str | None:
    """The style of the block tree that a template of ``style`` (None: no template) and ``fallback`` read, when
    that tree is all they read; else None."""
    if fallback is None:
        return style
    needs = get_method(fallback).blocks
    return needs if needs is not None and (style is None or style == needs) else None


def compile_site(template: Compiled, *, mode: str = DEFAULT_MODE, min_fit: float = MIN_FIT) -> SiteDetector:
    """``template`` as a :class:`~fce.layouts.SiteDetector` (already one: returned as it is; a
    :class:`~fce.detect.Detector`: wrapped once, the wrapper reused)."""
    if isinstance(template, SiteDetector):
        return template
    if isinstance(template, Detector):
        return template.as_site(min_fit)
    return SiteDetector(template, mode=mode, min_fit=min_fit)


def _extract(page: Page, template: Compiled | None, *, site: str | None, fallback: str | None,
             min_fit: float, mode: str) -> Extraction:
    if template is None:
        if fallback is None:
            raise TemplateNotFoundError("no template for this site and no fallback allowed",
                                        source=site or page.source)
        return replace(get_method(fallback)(page), site=site, fallback_reason="no-template")
    detector = compile_site(template, mode=mode, min_fit=min_fit)
    tree = blocks_of(page, detector.path_style)
    choice = detector.choose(tree, min_fit=min_fit)
    site = site or detector.site
    index = choice.best  # the layout applied when it fits, or when no fallback is allowed
    match = (detector.detectors[index].match(tree, fit=choice.fit)  # choice.fit: the fit of layout `index`
             if choice.layout >= 0 or fallback is None else None)
    if fallback is not None:
        reason = "low-fit" if match is None else ("empty" if not match.blocks else None)
        if reason is not None:
            check_deadline()  # where no interrupt can be delivered, do not start the fallback past the limit
            result = get_method(fallback)(page)
            return replace(result, site=site, fit=choice.fit, fallback_reason=reason,
                           info={**result.info, "layout": None, "match": choice.match})
    assert match is not None
    return Extraction.from_blocks(match.blocks, method="template", site=site, fit=choice.fit,
                                  info={"covered": match.covered, "layout": index, "match": choice.match})


def learn_template(pages: Sequence[Page], site: str, *, timeout: float | None = None, **params: object) -> Template:
    """Learn one template for ``site`` from its pages (see :class:`fce.learn.TemplateLearner` for ``params``).
    ``timeout``: seconds per page; learning fails with :class:`~fce.errors.PageTimeoutError` after ``timeout`` ×
    the number of pages (``None``: no limit)."""
    name = normalize_site(site)
    learner = TemplateLearner(name, **params)  # type: ignore[arg-type]
    return run_limited(None if timeout is None else timeout * max(1, len(pages)), lambda: learner.fit(pages),
                       source=name, what=f"learning from {len(pages)} pages").template_


def learn_site(pages: Sequence[Page], site: str, *, timeout: float | None = None, layouts: bool = True,
               **params: object) -> SiteTemplates:
    """Learn the layouts of ``site`` from its pages (:class:`fce.learn.LayoutLearner`; ``params`` go to each
    layout's :class:`fce.learn.TemplateLearner`); ``layouts=False`` learns one template from all pages.
    ``timeout`` as for :func:`learn_template`."""
    if not layouts:
        return SiteTemplates.of(learn_template(pages, site, timeout=timeout, **params))
    name = normalize_site(site)
    path_style = params.pop("path_style", None)
    learner = LayoutLearner(name, template_params=params,
                            **({} if path_style is None else {"path_style": path_style}))  # type: ignore[arg-type]
    return run_limited(None if timeout is None else timeout * max(1, len(pages)), lambda: learner.fit(pages),
                       source=name, what=f"learning from {len(pages)} pages").model_


class OutcomeBatch:
    """Detections counted as fits or fallbacks per site and template version, written to a store in batches
    (``TemplateStore.record``, one call per site and version) every :data:`OUTCOME_BATCH` detections and on
    :meth:`flush`. Thread-safe. The counts are monitoring: a store that cannot take them (read-only, locked, gone)
    costs the counts only — ``dropped`` says how many, ``error`` why."""

    def __init__(self, store: TemplateStore | None, *, size: int | None = None) -> None:
        self.store = store
        self.size = OUTCOME_BATCH if size is None else size
        self._lock = threading.Lock()
        self._outcomes: dict[tuple[str, int], list[str]] = {}
        self._pending = 0
        self.dropped = 0
        self.error: StoreFailure | None = None

    def add(self, site: str, version: int, result: Extraction) -> None:
        """Count ``result``, an extraction of a page of ``site`` with its stored record of ``version``."""
        fitted = result.method == "template" and result.fallback_reason is None
        with self._lock:
            self._outcomes.setdefault((site, version), []).append("1" if fitted else "0")
            self._pending += 1
            full = self._pending >= self.size
        if full:
            self.flush()

    def flush(self) -> None:
        """Write the counted outcomes to the store."""
        from templates_store import StoreError

        with self._lock:
            outcomes, self._outcomes, self._pending = self._outcomes, {}, 0
        if self.store is None:
            return
        for (site, version), marks in sorted(outcomes.items()):
            try:
                self.store.record(site, "".join(marks), version=version)
            except StoreError as exc:  # counted, not raised (class docstring)
                self.dropped += len(marks)
                self.error = StoreFailure(str(exc))


class Extractor:
    """Detection over many pages with one store: one connection, one template load per site (LRU-cached).

    With ``record`` (the default), every detection of a site that has a stored record counts as a fit (a layout's
    template was used) or a fallback; the counts go to the store (``TemplateStore.record``) every
    :data:`OUTCOME_BATCH` detections and on :meth:`flush` (call it when done; a store opened read-only counts
    nothing). Counts are tagged with the version of the record that produced them, so a relearned site does not
    inherit its old template's counts. The counts are monitoring, detection is the product: a store that cannot
    take them (locked by a writer, gone) does not fail detection — the counts are dropped, ``dropped_outcomes``
    says how many and ``record_error`` why (reading templates from a failing store still raises).
    """

    def __init__(
        self,
        store: TemplateStore | None = None,
        *,
        fallback: str | None = DEFAULT_FALLBACK,
        min_fit: float = MIN_FIT,
        mode: str = DEFAULT_MODE,
        timeout: float | None = None,
        record: bool = True,
    ) -> None:
        self.store = store
        self.mode = mode
        self.fallback = fallback
        self.min_fit = min_fit
        self.timeout = timeout  # seconds per page for extract(); the store is read outside the limit
        self.record = record
        if fallback is not None:
            get_method(fallback)  # fail early on an unknown name
        self._cache: OrderedDict[str, tuple[SiteDetector, int] | None] = OrderedDict()
        self._outcomes = OutcomeBatch(store)

    def detector(self, site: str | None) -> SiteDetector | None:
        """The compiled layouts of ``site`` (None when it has none)."""
        entry = self._entry(site)
        return None if entry is None else entry[0]

    def _entry(self, site: str | None) -> tuple[SiteDetector, int] | None:
        if site is None or self.store is None:
            return None
        if site in self._cache:
            self._cache.move_to_end(site)
            return self._cache[site]
        self.prefetch([site])
        return self._cache.get(site)

    def prefetch(self, sites: Iterable[str | None]) -> None:
        """Load the templates of several sites at once (one round trip on Redis)."""
        from templates_store import StoreError

        wanted = sorted({s for s in sites if s and s not in self._cache})
        if not wanted or self.store is None:
            return
        try:
            found = self.store.get_many(wanted)
        except StoreError as exc:
            raise StoreFailure(str(exc)) from exc  # the cause says which (unreachable or corrupt)
        for site in wanted:
            stored = found.get(site)
            self._cache[site] = (
                (SiteDetector(SiteTemplates.from_json(stored.payload, site=site), mode=self.mode,
                              min_fit=self.min_fit), stored.version) if stored else None
            )
            if len(self._cache) > TEMPLATE_CACHE_SIZE:
                self._cache.popitem(last=False)

    def extract(self, page: Page, *, site: str | None = None) -> Extraction:
        site = site_of(page, site)
        entry = self._entry(site)
        result = extract(page, None if entry is None else entry[0], site=site, fallback=self.fallback,
                         min_fit=self.min_fit, timeout=self.timeout)
        self.count(site, result)
        return result

    def count(self, site: str | None, result: Extraction) -> None:
        """Count ``result`` (an extraction of a page of ``site`` made with this extractor's templates, by
        :meth:`extract` or by a caller that runs :func:`extract` itself) as a fit or a fallback of the site's
        stored record; nothing for a site without one, or with ``record=False``."""
        if not self.record or site is None:
            return
        entry = self._cache.get(site)
        if entry is not None:
            self._outcomes.add(site, entry[1], result)

    def flush(self) -> None:
        """Write the counted outcomes to the store (one ``record`` per site and template version)."""
        self._outcomes.flush()

    @property
    def dropped_outcomes(self) -> int:
        """Outcomes the store did not take (class docstring)."""
        return self._outcomes.dropped

    @property
    def record_error(self) -> StoreFailure | None:
        """Why the store did not take them."""
        return self._outcomes.error
