"""The orchestrator: bytes → page → (layout's template | fallback method) → :class:`~fce.extraction.Extraction`.

:func:`extract` is the whole detection pipeline for one parsed page: segment it once, pick the site's layout that
fits it best (:class:`fce.layouts.SiteDetector`), apply that layout's template, or fall back. :class:`Extractor`
adds a template store, a per-site cache of compiled layouts, and the per-site counters of fits and fallbacks that
drift detection reads (:func:`fce.layouts.is_stale`), written to the store in batches.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from fce.blocks import DEFAULT_PATH_STYLE, BlockTree, blocks_of
from fce.detect import DEFAULT_MODE, MIN_FIT, Detector, TemplateMatch
from fce.errors import StoreFailure, TemplateError, TemplateNotFoundError
from fce.extraction import Check, Extraction
from fce.kinds import CheckRule, DetectionMode, FallbackReason, OutputFormat, Winner
from fce.language import identify_language
from fce.layouts import SiteDetector, site_of_detector
from fce.learn import LayoutLearner, TemplateLearner, duplicates_extra
from fce.limits import check_deadline, run_limited
from fce.metadata import Metadata, extract_metadata
from fce.methods import get_method
from fce.methods.mainblock import page_comments
from fce.parse import LINKED_DATA_KEY, Page
from fce.render import text_html, text_markdown, to_html, to_markdown
from fce.sites import normalize_site, site_of
from fce.template import SiteTemplates, Template

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["CHECK_AGREE_RANGE", "CHECK_AGREE_SHARE", "CHECK_MIN_CHARS", "CHECK_MIN_SHARE", "CHECK_RULES",
           "DEFAULT_FALLBACK", "OUTCOME_BATCH", "Extractor", "OutcomeBatch", "TemplateCache", "blocks_for", "extract",
           "learn_site", "learn_template", "outcome_of", "page_metadata", "parse_blocks", "structured",
           "with_comments", "with_outputs"]

#: The single-page method used when no template fits. Arias et al.'s text density (``density``, still available),
#: measured against every registered method, is far behind (word F1 on the first 100
#: scrapinghub pages: density 0.50, mainblock 0.94, readability 0.94), so the default is ``mainblock``
#: (README, "Choosing the fallback").
DEFAULT_FALLBACK = "mainblock"

#: The check of a template's extraction (guided mode) compares what the template kept with the page's own text on
#: the paths the template keeps (``LayoutChoice.kept_chars``: what the site model expects to find there), when
#: that expectation is at least :data:`CHECK_MIN_CHARS`. The fallback's extraction is used instead
#: (``fallback_reason`` ``"check"``) when the template kept less than this share of it (``kept-too-little``)…
CHECK_MIN_SHARE = 0.1
#: …or less than this share, where the fallback reads between these shares of it (``fallback-agrees``: the template
#: took another region of a page whose article the fallback finds where the site model expects that much text).
#: Measured k-fold on the four per-site sets (1,208 pages, --min-learn 3): the first rule alone fires on 5 pages
#: (2 better, 1 worse); with the second, on 8 (5 better by 0.72–0.78 word F1, 1 worse): msv-big9 0.9745 → 0.9787,
#: daniel-small 0.9014 → 0.9043 site-macro, the others unchanged. Without the range, comparing the template with
#: the fallback's length alone (below a share of 0.3) fires on 16 pages and loses on 15: where a template keeps much
#: less than the fallback, the fallback has mostly taken reader comments or a list of links (rp.pl, 2.2× the
#: expectation: 0.89 → 0.12).
CHECK_AGREE_SHARE = 0.3
CHECK_AGREE_RANGE = (0.5, 1.5)
#: The least expected text (characters) the check decides on: below it, a page is too short to judge.
CHECK_MIN_CHARS = 200
#: The rules a :class:`~fce.extraction.Check` names: ``kept-too-little``, ``fallback-agrees`` (the fallback won by
#: the rules above), ``kept-enough`` (the template won; the check's figures say whether the fallback would have
#: given more text), ``narrowed`` (the template won where guided detection kept nothing: :func:`narrowed`).
CHECK_RULES = tuple(CheckRule)

#: Compiled templates kept per Extractor (an LRU): a batch touching more sites than this recompiles.
TEMPLATE_CACHE_SIZE = 256

#: Detections an :class:`Extractor` counts before writing the counters to the store (one ``record`` per site):
#: with a 1–20 ms detection per page, 100 pages cost one store write per 0.1–2 s of work, not one per page.
OUTCOME_BATCH = 100
#: Counts a store refused are kept and written with the next batch; at most this many wait (about 1 MB), the
#: oldest lost beyond (a store gone for a whole run).
MAX_PENDING_OUTCOMES = 100_000
#: The last flush (:meth:`OutcomeBatch.flush` with ``final``) tries this many times more, the first after this many
#: seconds, doubling: a Redis failover or restart takes a second or two.
RECORD_RETRIES = 3
RECORD_RETRY_DELAY = 0.25

#: A site's template as :func:`extract` takes it: as learned (one :class:`Template` or a site's layouts,
#: :class:`SiteTemplates`) or compiled for detection (:class:`Detector`, :class:`SiteDetector`).
AnyTemplate = Template | Detector | SiteTemplates | SiteDetector


def extract(
    page: Page,
    template: AnyTemplate | None,
    *,
    site: str | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    min_fit: float = MIN_FIT,
    mode: str = DEFAULT_MODE,
    timeout: float | None = None,
    metadata: bool = False,
    output: str = OutputFormat.TEXT,
    links: bool = False,
    comments: bool = False,
) -> Extraction:
    """Extract the main content of ``page`` with the site's template(s); fall back to the method ``fallback``
    when there is no template, no layout's fit score reaches ``min_fit``, or the chosen template extracts nothing.
    With ``metadata``, the result carries the page's metadata too (:func:`page_metadata`); with ``output``
    ``"markdown"`` or ``"html"``, its content with its structure (:func:`structured`; ``links``: markdown links);
    with ``comments``, the text of the page's reader comments, which the content leaves out (:func:`with_comments`).

    ``template`` is one :class:`~fce.template.Template` (or its :class:`~fce.detect.Detector`), or a site's
    layouts (:class:`~fce.template.SiteTemplates` or its :class:`~fce.layouts.SiteDetector`): the layout that
    fits the page best is used. The extraction's ``fit`` is that layout's fit; ``info`` holds ``layout`` (its
    index, ``None`` after a fallback) and ``match`` (the page's match with the layout's profile).
    ``mode`` is the detection mode of :class:`~fce.detect.Detector` (``"guided"`` or the paper's ``"rules"``).
    ``fallback=None`` raises :class:`~fce.errors.TemplateNotFoundError` instead of falling back when there is no
    template, and returns the (possibly empty) template extraction otherwise. ``timeout``: seconds before
    :class:`~fce.errors.PageTimeoutError` (``None``: no limit; see :mod:`fce.limits`).

    Every guided extraction by a template is checked (:data:`CHECK_MIN_SHARE`): where it keeps too little of what
    the template expects on the page, the fallback's extraction is used (``fallback_reason`` ``"check"``). Where
    the fallback reads nothing but the page's block tree (``mainblock``, ``plain``: its extraction costs a
    selection, not a parse), its extraction is made too, so that the result's ``check`` says how much text it would
    have given — a template result with less text than the fallback's says so."""
    return run_limited(timeout, lambda: with_outputs(
        page, _extract(page, template, site=site, fallback=fallback, min_fit=min_fit, mode=mode),
        metadata=metadata, output=output, links=links, comments=comments), source=page.source or page.url)


def with_outputs(page: Page, result: Extraction, *, metadata: bool = False, output: str = OutputFormat.TEXT,
                 links: bool = False, comments: bool = False) -> Extraction:
    """``result`` with what was asked of it beyond its text: the page's metadata (:func:`page_metadata`), its
    content as ``output`` and its reader comments (:func:`structured`). Every caller runs it under the page's
    time limit together with the extraction (:func:`fce.limits.run_limited`): these read the page's markup
    again, and a hostile page can make them as slow as the extraction."""
    if metadata:
        result = replace(result, metadata=page_metadata(page, result))
    return structured(page, result, output, links=links, comments=comments)


def with_comments(page: Page, result: Extraction) -> Extraction:
    """``result`` with ``comments``: the text of the page's reader comments that its content does not hold
    (:func:`fce.methods.mainblock.page_comments`: blocks named as comments), whichever way it was extracted."""
    if result.info.get("noscript"):  # (its blocks are of the <noscript>'s tree: the page shows no comments)
        return replace(result, comments="")
    tree = blocks_of(page)
    covered = result.info.get("covered")
    if covered is None:  # a method that does not say: every block under what it output
        ends = tree.columns.ends
        covered = [i for block in result.blocks for i in range(block.index, ends[block.index])]
    return replace(result, comments=page_comments(tree, covered))


def structured(page: Page, result: Extraction, output: str, *, links: bool = False,
               comments: bool = False) -> Extraction:
    """``result`` with its content as ``output`` (``"markdown"``: :func:`fce.render.to_markdown`, markdown links
    with ``links``; ``"html"``: :func:`fce.render.to_html`) rendered from the blocks it kept (``blocks``, and
    ``info["covered"]`` where the extraction recorded them; ``info["covered_exact"]``: it says that each block's
    text is the block's render with those, :func:`fce.blocks.disjoint_subtrees`) in the page's block tree; as it
    is for the other formats. With ``comments``, with the page's reader comments too (:func:`with_comments`)."""
    if comments:
        result = with_comments(page, result)
    if output not in (OutputFormat.MARKDOWN, OutputFormat.HTML):
        return result
    if result.info.get("noscript"):  # read from the page's <noscript>: its blocks are not the page tree's
        return _plain_structured(result, output)
    tree = blocks_of(page)  # (block indices are the same in every path style)
    covered = result.info.get("covered")
    exact = covered is not None and result.info.get("covered_exact") is True
    if output == OutputFormat.MARKDOWN:
        return result.with_content(markdown=to_markdown(tree, result.blocks, covered, links=links, url=page.url,
                                                        exact=exact))
    return result.with_content(html=to_html(tree, result.blocks, covered, url=page.url, exact=exact))


def _plain_structured(result: Extraction, output: str) -> Extraction:
    """``result``'s text as markdown or HTML paragraphs: where its blocks' structure is not in the page's tree."""
    if output == OutputFormat.MARKDOWN:
        return result.with_content(markdown=text_markdown(result.text))
    return result.with_content(html=text_html(result.text))


def page_metadata(page: Page, extraction: Extraction | None = None) -> Metadata:
    """The metadata of ``page`` (:func:`fce.metadata.extract_metadata` of its markup). Where the page says
    nothing of its title and ``extraction`` put a headline in front from its site's template (the site's learned
    headline path), that block is the title; where it says nothing of its language, the language is identified
    from ``extraction``'s text (:func:`fce.language.identify_language`). A page made from a tree has no markup
    to read: its metadata is what the extraction knows."""
    headline = text = None
    if extraction is not None:
        text = extraction.text
        if extraction.info.get("title") and extraction.blocks:
            headline = extraction.blocks[0].text.split("\n", 1)[0] or None
    markup = page.markup  # (its UTF-8 bytes, where parsed from bytes: decoded as far as they are read)
    if markup is None:
        return Metadata(title=headline, language=identify_language(text) if text else None)
    return extract_metadata(markup, url=page.url, linked_data=page.cache.get(LINKED_DATA_KEY), text=text,
                            headline=headline)


def _check_rule(chars: int, expected: int, fallback_chars: int | None) -> CheckRule:
    """The rule that decides a guided template result that kept ``chars`` characters where the site model expects
    ``expected`` and the fallback reads ``fallback_chars`` (None: not run, as it reads more than the block tree)."""
    if expected < CHECK_MIN_CHARS:
        return CheckRule.KEPT_ENOUGH
    if chars < CHECK_MIN_SHARE * expected:
        return CheckRule.KEPT_TOO_LITTLE
    low, high = CHECK_AGREE_RANGE
    if (fallback_chars is not None and chars < CHECK_AGREE_SHARE * expected
            and low * expected <= fallback_chars <= high * expected):
        return CheckRule.FALLBACK_AGREES
    return CheckRule.KEPT_ENOUGH


def blocks_for(template: AnyTemplate | None, fallback: str | None = DEFAULT_FALLBACK) -> str | None:
    """The path style in which to segment a page while parsing it (``parse_page(data, blocks=…)``) for
    :func:`extract` with ``template`` and ``fallback``: the template's, when the fallback reads nothing of the page
    but a block tree of that style (:attr:`fce.methods.MethodInfo.blocks`: ``mainblock``, ``plain``) or there is
    none; without a template, the fallback's. None where the page's lxml tree will be read anyway (``parse_page``
    then walks the page in the default style all the same, its check of the tags, and builds the tree when read)."""
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


def compile_site(template: AnyTemplate, *, mode: str = DEFAULT_MODE, min_fit: float = MIN_FIT) -> SiteDetector:
    """``template`` as a :class:`~fce.layouts.SiteDetector` (already one: returned as it is; a
    :class:`~fce.detect.Detector`: wrapped once, the wrapper reused)."""
    if isinstance(template, SiteDetector):
        return template
    if isinstance(template, Detector):
        return site_of_detector(template, min_fit)
    return SiteDetector(template, mode=mode, min_fit=min_fit)


def _extract(page: Page, template: AnyTemplate | None, *, site: str | None, fallback: str | None,
             min_fit: float, mode: str) -> Extraction:
    if template is None:
        if fallback is None:
            raise TemplateNotFoundError("no template for this site and no fallback allowed",
                                        source=site or page.source)
        return replace(get_method(fallback)(page), site=site, fallback_reason=FallbackReason.NO_TEMPLATE)
    detector = compile_site(template, mode=mode, min_fit=min_fit)
    tree = blocks_of(page, detector.path_style)
    choice = detector.choose(tree, min_fit=min_fit)
    site = site or detector.site
    index = choice.best  # the layout applied when it fits, or when no fallback is allowed
    match = (detector.detectors[index].match(tree, fit=choice.fit)  # choice.fit: the fit of layout `index`
             if choice.layout >= 0 or fallback is None else None)
    check = None
    if fallback is not None:
        reason = (FallbackReason.LOW_FIT if match is None else (FallbackReason.EMPTY if not match.blocks else None))
        method = get_method(fallback)
        other = None
        if reason is None and detector.mode == DetectionMode.GUIDED:
            assert match is not None
            chars, expected = match.chars, choice.kept_chars
            if method.blocks is not None:  # (cheap: a selection over the same block tree)
                other = method(page)
            rule = _check_rule(chars, expected, None if other is None else len(other.text))
            if rule is not CheckRule.KEPT_ENOUGH:
                reason = FallbackReason.CHECK
            check = Check(chars, expected, None if other is None else len(other.text),
                          Winner.FALLBACK if reason else Winner.TEMPLATE, rule)
        if reason is not None:
            check_deadline()  # where no interrupt can be delivered, do not start the fallback past the limit
            result = other if other is not None else method(page)
            # (a fallback that reads the block tree: its covered blocks are indices of the template's tree)
            inner = (narrowed(detector.detectors[index], tree, choice.fit, result)
                     if reason is FallbackReason.EMPTY and detector.mode == DetectionMode.GUIDED
                     and method.blocks is not None else None)
            if inner is None:
                if check is not None:
                    check = replace(check, fallback_chars=len(result.text))
                return replace(result, site=site, fit=choice.fit, fallback_reason=reason,
                               info={**result.info, "layout": None, "match": choice.match}, check=check)
            match = inner
            check = Check(match.chars, choice.kept_chars, len(result.text), Winner.TEMPLATE, CheckRule.NARROWED)
    assert match is not None
    return Extraction.from_blocks(match.blocks, method="template", site=site, fit=choice.fit,
                                  info={"covered": match.covered, "covered_exact": match.exact, "layout": index,
                                        "match": choice.match,
                                        "title": match.title}, check=check)


def narrowed(detector: Detector, tree: BlockTree, fit: float, fallback: Extraction) -> TemplateMatch | None:
    """Where guided detection kept nothing (no paragraph on the site's content paths scored: a post of one line
    under a video), the blocks on the template's content paths (:meth:`~fce.detect.Detector.match_on_paths`) when
    the ``fallback``'s extraction of the same tree holds every one of them among more: the fallback found no
    article either and took the page's whole region, and the site model says which part of it is the content.
    Where the fallback took other blocks (the content sits off the template's paths), None: the fallback's.
    Measured k-fold on the four per-site sets: dragnet-small 0.949 → 0.954 site-macro word F1 (two one-line posts,
    0.16 → 0.97 and 0.22 → 1.0); news.sina.com.hk's four pages whose text sits off the template's paths stay the
    fallback's (taking the template's there: 0.36–0.91 → 0.03–0.13); the other sets unchanged."""
    kept = fallback.info.get("covered")
    return detector.match_on_paths(tree, fit, inside=frozenset(kept)) if kept else None


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
    name = normalize_site(site)
    if not layouts:
        one = TemplateLearner(name, **params)  # type: ignore[arg-type]
        run_limited(None if timeout is None else timeout * max(1, len(pages)), lambda: one.fit(pages), source=name,
                    what=f"learning from {len(pages)} pages")
        return replace(SiteTemplates.of(one.template_), extra=duplicates_extra(pages, one.duplicates_))
    path_style = params.pop("path_style", None)
    learner = LayoutLearner(name, template_params=params,
                            **({} if path_style is None else {"path_style": path_style}))  # type: ignore[arg-type]
    return run_limited(None if timeout is None else timeout * max(1, len(pages)), lambda: learner.fit(pages),
                       source=name, what=f"learning from {len(pages)} pages").model_


def outcome_of(result: Extraction) -> str:
    """How the store counts ``result`` (``templates_store.FIT``, ``FALLBACK`` or ``OVERRULED``): a template's
    extraction, a fallback's, or a fallback's that the check of a fitting template's result chose."""
    from templates_store import FALLBACK, FIT, OVERRULED

    if result.fallback_reason == FallbackReason.CHECK:
        return OVERRULED
    return FIT if result.method == "template" and result.fallback_reason is None else FALLBACK


class OutcomeBatch:
    """Detections counted as fits, fallbacks or overruled templates per site and template version, written to a
    store in batches (``TemplateStore.record``, one call per site and version) every :data:`OUTCOME_BATCH`
    detections and on :meth:`flush`. Thread-safe. The counts are monitoring: a store that cannot take them (gone
    for a while, locked) keeps them pending, tried again at the next flush; :meth:`flush` with ``final`` tries
    :data:`RECORD_RETRIES` more times, a moment apart, and what still cannot be written is lost — ``dropped`` says
    how many, ``error`` why; so are counts beyond :data:`MAX_PENDING_OUTCOMES` kept waiting. (A store opened
    read-only counts nothing: ``record`` says so, which is no error and nothing to retry.)"""

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
        with self._lock:
            self._outcomes.setdefault((site, version), []).append(outcome_of(result))
            self._pending += 1
            full = self._pending >= self.size
        if full:
            self.flush()

    def flush(self, *, final: bool = False) -> None:
        """Write the counted outcomes to the store; with ``final``, retry what it refuses before giving it up."""
        for attempt in range(RECORD_RETRIES + 1 if final else 1):
            if attempt:
                time.sleep(RECORD_RETRY_DELAY * 2 ** (attempt - 1))
            if self._write() == 0:
                return
        if final:
            with self._lock:
                self.dropped += self._pending
                self._outcomes, self._pending = {}, 0

    def _write(self) -> int:
        """One attempt: every pending outcome written, or kept pending when the store fails; how many are."""
        from templates_store import StoreError

        with self._lock:
            outcomes, self._outcomes, self._pending = self._outcomes, {}, 0
        if self.store is None:
            return 0
        failed: dict[tuple[str, int], list[str]] = {}
        for (site, version), marks in sorted(outcomes.items()):
            try:
                self.store.record(site, "".join(marks), version=version)
            except StoreError as exc:  # kept for the next attempt (class docstring)
                failed[(site, version)] = marks
                self.error = StoreFailure(str(exc))
        with self._lock:
            for key, marks in failed.items():
                self._outcomes.setdefault(key, [])[:0] = marks  # before those counted meanwhile
                self._pending += len(marks)
            if self._pending > MAX_PENDING_OUTCOMES:  # a store gone for long: the oldest counts are lost
                excess = self._pending - MAX_PENDING_OUTCOMES
                self.dropped += excess
                for key in sorted(self._outcomes):
                    cut = min(excess, len(self._outcomes[key]))
                    del self._outcomes[key][:cut]
                    excess -= cut
                self._pending = MAX_PENDING_OUTCOMES
            return self._pending


class TemplateCache:
    """Compiled site layouts read from a store, per site and detection mode: one store read per site (and one
    round trip for many, :meth:`prefetch`), the least recently used dropped beyond ``size``, each read again after
    ``ttl`` seconds (None: kept until dropped). Thread-safe. Used by :class:`Extractor` (batches: no ``ttl``) and
    ``fce serve`` (a long-lived server: a site relearned by another process is seen within ``ttl``)."""

    def __init__(self, store: TemplateStore, *, min_fit: float = MIN_FIT, ttl: float | None = None,
                 size: int = TEMPLATE_CACHE_SIZE) -> None:
        self.store = store
        self.min_fit = min_fit
        self.ttl = ttl
        self.size = size
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, str], tuple[float, SiteDetector | None, int]] = OrderedDict()

    def get(self, site: str | None, mode: str = DEFAULT_MODE) -> tuple[SiteDetector, int] | None:
        """The compiled layouts of ``site`` and the version of its stored record; None where it has none.
        :class:`~fce.errors.StoreFailure` when the store fails, :class:`~fce.errors.TemplateError` when the stored
        record cannot be read (it is not kept: every page of the site gets the error)."""
        if not site:
            return None
        hit = self._hit(site, mode)
        if hit is None:
            self.prefetch([site], mode)
            hit = self._hit(site, mode)
        return None if hit is None or hit[1] is None else (hit[1], hit[2])

    def _hit(self, site: str, mode: str) -> tuple[float, SiteDetector | None, int] | None:
        key = (site, mode)
        with self._lock:
            hit = self._cache.get(key)
            if hit is None or (self.ttl is not None and time.monotonic() - hit[0] >= self.ttl):
                return None
            self._cache.move_to_end(key)
            return hit

    def prefetch(self, sites: Iterable[str | None], mode: str = DEFAULT_MODE) -> None:
        """Load the templates of several sites at once (one round trip on Redis). A corrupt record raises
        :class:`~fce.errors.TemplateError` after the others are kept."""
        from templates_store import StoreError

        wanted = sorted({s for s in sites if s and self._hit(s, mode) is None})
        if not wanted:
            return
        try:
            found = self.store.get_many(wanted)
        except StoreError as exc:
            raise StoreFailure(str(exc)) from exc  # the cause says which (unreachable or corrupt)
        now = time.monotonic()
        failure: TemplateError | None = None
        for site in wanted:
            stored = found.get(site)
            try:
                detector = (SiteDetector(SiteTemplates.from_json(stored.payload, site=site), mode=mode,
                                         min_fit=self.min_fit) if stored else None)
            except TemplateError as exc:
                failure = failure or exc
                continue
            with self._lock:
                self._cache[(site, mode)] = (now, detector, stored.version if stored else 0)
                self._cache.move_to_end((site, mode))
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        if failure is not None:
            raise failure

    def version(self, site: str, mode: str = DEFAULT_MODE) -> int | None:
        """The version of ``site``'s cached record (None: not cached, or the site has no template)."""
        hit = self._hit(site, mode)
        return None if hit is None or hit[1] is None else hit[2]

    def forget(self, site: str) -> None:
        """Drop ``site``'s layouts (a new template was stored for it)."""
        with self._lock:
            for key in [k for k in self._cache if k[0] == site]:
                del self._cache[key]


class Extractor:
    """Detection over many pages with one store: one connection, one template load per site (LRU-cached,
    :class:`TemplateCache`).

    With ``record`` (the default), every detection of a site that has a stored record counts as a fit (a layout's
    template was used), a fallback or an overruled template; the counts go to the store (``TemplateStore.record``)
    every :data:`OUTCOME_BATCH` detections and on :meth:`flush` (call it when done; a store opened read-only counts
    nothing). Counts are tagged with the version of the record that produced them, so a relearned site does not
    inherit its old template's counts. The counts are monitoring, detection is the product: a store that cannot
    take them (locked by a writer, gone) does not fail detection — they are kept and retried, then dropped
    (:class:`OutcomeBatch`): ``dropped_outcomes`` says how many and ``record_error`` why (reading templates from a
    failing store still raises).
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
        self._templates = None if store is None else TemplateCache(store, min_fit=min_fit)
        self._outcomes = OutcomeBatch(store)

    def detector(self, site: str | None) -> SiteDetector | None:
        """The compiled layouts of ``site`` (None when it has none)."""
        entry = self._entry(site)
        return None if entry is None else entry[0]

    def _entry(self, site: str | None) -> tuple[SiteDetector, int] | None:
        return None if self._templates is None else self._templates.get(site, self.mode)

    def prefetch(self, sites: Iterable[str | None]) -> None:
        """Load the templates of several sites at once (one round trip on Redis)."""
        if self._templates is not None:
            self._templates.prefetch(sites, self.mode)

    def extract(self, page: Page, *, site: str | None = None, metadata: bool = False,
                output: str = OutputFormat.TEXT, links: bool = False, comments: bool = False) -> Extraction:
        """:func:`extract` with the site's stored template (``site``, else the page's own, :func:`site_of`)."""
        site = site_of(page, site)
        entry = self._entry(site)
        result = extract(page, None if entry is None else entry[0], site=site, fallback=self.fallback,
                         min_fit=self.min_fit, timeout=self.timeout, metadata=metadata, output=output, links=links,
                         comments=comments)
        self.count(site, result)
        return result

    def count(self, site: str | None, result: Extraction) -> None:
        """Count ``result`` (an extraction of a page of ``site`` made with this extractor's templates, by
        :meth:`extract` or by a caller that runs :func:`extract` itself) as a fit or a fallback of the site's
        stored record; nothing for a site without one, or with ``record=False``."""
        if not self.record or site is None or self._templates is None:
            return
        version = self._templates.version(site, self.mode)
        if version is not None:
            self._outcomes.add(site, version, result)

    def flush(self, *, final: bool = True) -> None:
        """Write the counted outcomes to the store (one ``record`` per site and template version); ``final``
        (the default: a run's end) retries what the store refuses before giving it up (:class:`OutcomeBatch`)."""
        self._outcomes.flush(final=final)

    @property
    def dropped_outcomes(self) -> int:
        """Outcomes the store did not take (class docstring)."""
        return self._outcomes.dropped

    @property
    def record_error(self) -> StoreFailure | None:
        """Why the store did not take them."""
        return self._outcomes.error
