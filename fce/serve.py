"""fce as an HTTP service (``fce serve``): extraction and learning over JSON, for ingestion systems.

    from fce.serve import create_app
    app = create_app("sqlite:///templates.db")       # an ASGI app (FastAPI); run it with uvicorn

Endpoints (the OpenAPI schema is at ``/openapi.json``, its documentation at ``/docs``):

* ``POST /extract`` — ``{"html": "...", "site": "example.com"}`` or ``{"url": "https://..."}`` (optional
  ``method``, ``mode``, ``fallback``, ``min_fit``) → the JSON record of ``fce detect --format json``
  (:meth:`fce.service.DetectResult.to_dict`). A site without a template falls back, as the CLI does.
* ``POST /learn`` — ``{"site": "example.com", "html": [...]}`` or ``"urls": [...]`` → learns the site's layouts
  (:func:`fce.pipeline.learn_site`) and stores them (:func:`fce.service.save_template`), answers what ``fce learn``
  prints.
* ``GET /sites`` — the stored sites with their layouts and fit counters (:func:`fce.service.site_rows`);
  ``GET /healthz`` — the store answers.

The store is opened once per app. Extraction goes through :func:`fce.pipeline.extract` with compiled templates
cached per site and mode for :data:`TEMPLATE_TTL` seconds (a template learned through this server replaces the
cached one at once). Every template-based extraction counts as a fit or a fallback for the site's drift counters
(``fce sites``), written to the store every ``fce.pipeline.OUTCOME_BATCH`` requests and when the server stops.
Every request body is capped (:data:`DEFAULT_MAX_BODY`, 413), processing each page is bounded by
:func:`fce.limits.run_limited` (504), URLs are fetched by :mod:`fce.fetch`. Errors are JSON,
``{"error": "<one line>", "status": "<kind>", "code": <fce exit code>}``, with the HTTP status of
:data:`HTTP_STATUS`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, cast

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from fce import __version__
from fce.blocks import DEFAULT_PATH_STYLE
from fce.detect import DEFAULT_MODE, DETECTION_MODES, MIN_FIT
from fce.errors import (
    FceError,
    FetchError,
    InputError,
    LearnError,
    PageTimeoutError,
    PageTooLargeError,
    SourceError,
    StoreFailure,
    TemplateError,
    TemplateNotFoundError,
    UnknownMethodError,
)
from fce.fetch import DEFAULT_TIMEOUT, FetchOptions, fetch_many, is_url
from fce.layouts import SiteDetector
from fce.learn import RECOMMENDED_PAGES
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited
from fce.methods import get_method
from fce.parse import MAX_PAGE_BYTES, Page, parse_page
from fce.pipeline import DEFAULT_FALLBACK, OutcomeBatch, extract, learn_site, parse_blocks
from fce.service import DetectResult, error_status, save_template, site_rows
from fce.sites import normalize_site, site_of
from fce.template import SiteTemplates

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["DEFAULT_HOST", "DEFAULT_MAX_BODY", "DEFAULT_PORT", "HTTP_STATUS", "TEMPLATE_TTL", "create_app"]

#: Loopback only unless told otherwise: the API fetches URLs it is given, so it must not face a network by accident.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080

#: Largest request body (bytes). A page may be up to 64 MiB on the command line (``fce.parse.MAX_PAGE_BYTES``);
#: over HTTP the pages of the five evaluation sets are at most 2.6 MB and 30 learning pages of msv-big9 at most
#: 9 MB, so 32 MiB leaves room for JSON escaping while bounding the memory one request can take.
DEFAULT_MAX_BODY = 32 * 1024 * 1024

#: Seconds a cached compiled template is used before the store is asked again, so that a template learned by
#: another process (``fce learn``, another server) is picked up within a minute; one store read per site and
#: minute is nothing next to the ~6 ms of a detection.
TEMPLATE_TTL = 60.0

#: Compiled templates kept per server (an LRU), as ``fce.pipeline.TEMPLATE_CACHE_SIZE`` for the CLI.
TEMPLATE_CACHE_SIZE = 256

#: Pages one ``POST /learn`` may carry: the paper learns from 20–30 pages; a few more help no template.
MAX_LEARN_PAGES = 100

#: HTTP status of each error class (most specific class wins): the client's input (400, 413, 422), a missing
#: template (404), what fce depends on (502 a URL that cannot be fetched, 503 the store), the time limit (504).
HTTP_STATUS: dict[type[FceError], int] = {
    PageTooLargeError: 413,
    InputError: 400,
    SourceError: 400,
    UnknownMethodError: 400,
    LearnError: 422,
    TemplateNotFoundError: 404,
    FetchError: 502,
    StoreFailure: 503,
    PageTimeoutError: 504,
    TemplateError: 500,
    FceError: 500,
}


def http_status(exc: FceError) -> int:
    for cls in type(exc).__mro__:
        if cls in HTTP_STATUS:
            return HTTP_STATUS[cls]  # type: ignore[index]
    return 500


# --- request and response bodies ----------------------------------------------------------------------------


class ExtractRequest(BaseModel):
    """One page, as its HTML or its URL (fetched by the server)."""

    model_config = ConfigDict(extra="forbid")

    html: str | None = Field(None, description="The page's HTML.")
    url: str | None = Field(None, description="http(s) URL to fetch; with html, the page's URL (selects the site).")
    site: str | None = Field(None, description="The page's site; default: from url, canonical link or og:url.")
    method: str | None = Field(None, description="Run only this single-page method (see `fce methods`).")
    mode: Literal["guided", "rules"] = Field(cast(Literal["guided", "rules"], DEFAULT_MODE),
                                             description="How the template is applied (fce.detect.DETECTION_MODES).")
    fallback: str | None = Field(DEFAULT_FALLBACK, description="Method for pages without a fitting template; "
                                                               "null: a site without a template is a 404.")
    min_fit: float = Field(MIN_FIT, ge=0.0, le=1.0, description="Fit below which the fallback runs.")

    @model_validator(mode="after")
    def _one_page(self) -> ExtractRequest:
        if self.html is None and self.url is None:
            raise ValueError("give html or url")
        if self.url is not None and not is_url(self.url):
            raise ValueError("url must be an http(s) URL")
        if self.method is not None and self.html is None and self.url is None:
            raise ValueError("give html or url")
        return self


class BlockOut(BaseModel):
    path: str
    text: str
    index: int


class ExtractResponse(BaseModel):
    """The record of ``fce detect --format json`` for one page."""

    source: str
    site: str | None
    method: str
    fit: float | None
    fallback_reason: str | None
    text: str
    blocks: list[BlockOut]


class LearnRequest(BaseModel):
    """20–30 pages of one site, as HTML or URLs."""

    model_config = ConfigDict(extra="forbid")

    site: str = Field(..., min_length=1, max_length=253, description="The site to learn (example.com).")
    html: list[str] = Field(default_factory=list, max_length=MAX_LEARN_PAGES, description="Pages' HTML.")
    urls: list[str] = Field(default_factory=list, max_length=MAX_LEARN_PAGES, description="Pages' URLs.")
    rules: Literal["paper", "recursive"] = Field("recursive", description="Detection rules stored with it.")
    one_layout: bool = Field(False, description="One template from all pages instead of one per layout.")

    @model_validator(mode="after")
    def _pages(self) -> LearnRequest:
        if not self.html and not self.urls:
            raise ValueError("give html or urls")
        if len(self.html) + len(self.urls) > MAX_LEARN_PAGES:
            raise ValueError(f"at most {MAX_LEARN_PAGES} pages")
        if any(not is_url(u) for u in self.urls):
            raise ValueError("urls must be http(s) URLs")
        if not normalize_site(self.site):
            raise ValueError("site is empty")
        return self


class LearnResponse(BaseModel):
    site: str
    version: int
    pages_used: int
    skipped: list[str]
    layouts: int
    content_paths: int
    noise_blocks: int
    seconds: float
    warnings: list[str]


class LayoutRow(BaseModel):
    n_pages: int
    content_paths: int
    noise_blocks: int


class SiteRow(BaseModel):
    site: str
    version: int
    learned_at: str | None
    n_pages: int | None
    content_paths: list[str] | None
    layouts: list[LayoutRow] | None = None
    fits: int = 0
    fallbacks: int = 0
    recent: int = 0
    recent_fit_rate: float | None = None
    stale: bool = False
    error: str | None = None


class Health(BaseModel):
    status: Literal["ok"]
    store: str
    version: str


class ErrorBody(BaseModel):
    """Every error response."""

    error: str
    status: str
    code: int | None = None


_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in (
        (400, "Unusable page (not HTML, empty) or unknown method"),
        (404, "No template for the site and no fallback"),
        (409, "Another writer stored a newer template for the site while this one was learned"),
        (413, "Request body or page over the size limit"),
        (422, "Invalid request, or too few usable pages to learn"),
        (500, "Stored template corrupt, or an internal error"),
        (502, "The URL could not be fetched"),
        (503, "The template store is unreachable"),
        (504, "The page took longer than the time limit"),
    )
}
_RAISES: dict[int | str, dict[str, Any]] = {c: _ERRORS[c] for c in (400, 404, 413, 422, 500, 502, 503, 504)}


# --- the app ------------------------------------------------------------------------------------------------


class _Templates:
    """Compiled site layouts per (site, mode), read from the store at most every :data:`TEMPLATE_TTL` seconds, and
    the drift counters of the detections made with them (as :class:`fce.pipeline.Extractor` keeps them)."""

    def __init__(self, store: TemplateStore, ttl: float = TEMPLATE_TTL) -> None:
        self.store = store
        self.ttl = ttl
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, str], tuple[float, SiteDetector | None, int]] = OrderedDict()
        #: the drift counts; a store that would not take them (read-only, locked, gone) never fails a request
        self.outcomes = OutcomeBatch(store)

    def get(self, site: str | None, mode: str) -> tuple[SiteDetector, int] | None:
        """The compiled layouts of ``site`` and the version of the stored record (None: no template)."""
        if not site:
            return None
        key = (site, mode)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and now - hit[0] < self.ttl:
                self._cache.move_to_end(key)
                return None if hit[1] is None else (hit[1], hit[2])
        from templates_store import StoreError

        try:
            record = self.store.get(site)
        except StoreError as exc:
            raise StoreFailure(str(exc)) from exc
        detector = (SiteDetector(SiteTemplates.from_json(record.payload, site=site), mode=mode)
                    if record else None)
        version = record.version if record else 0
        with self._lock:
            self._cache[key] = (now, detector, version)
            self._cache.move_to_end(key)
            while len(self._cache) > TEMPLATE_CACHE_SIZE:
                self._cache.popitem(last=False)
        return None if detector is None else (detector, version)

    def forget(self, site: str) -> None:
        with self._lock:
            for mode in DETECTION_MODES:
                self._cache.pop((site, mode), None)


class _BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 (JSON) before it is read: by its
    ``Content-Length`` up front, or, for a chunked body, as soon as the bytes received pass the limit.

    (FastAPI's own ``max_body_size`` answers a declared oversize body in plain text, whatever the app's
    handlers, so the API would have one error that is not JSON.)"""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", ()):
                if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                    await _error(413, f"request body is over the {self.limit}-byte limit", "too-large",
                                 PageTooLargeError.exit_code)(scope, receive, send)
                    return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # FastAPI re-raises an HTTPException met while reading the body
                    raise HTTPException(413, f"request body is over the {self.limit}-byte limit")
            return message

        await self.app(scope, counted, send)


def create_app(
    store: TemplateStore | str | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
    fetch: FetchOptions = FetchOptions(timeout=DEFAULT_TIMEOUT),  # noqa: B008 -- frozen, so a shared default is safe
    template_ttl: float = TEMPLATE_TTL,
) -> FastAPI:
    """The ASGI app of ``fce serve`` over ``store`` (a :class:`templates_store.TemplateStore`, a store URL, or
    ``None`` for ``$FCE_STORE`` / the default SQLite file; a store given as URL is opened here and closed when
    the app shuts down). ``page_timeout``: seconds of processing per page (``None``: no limit); learning gets
    that × the pages."""
    from templates_store import StoreError, VersionConflict, open_store

    owned = not hasattr(store, "get_many")
    target: TemplateStore = open_store(store) if owned else store  # type: ignore[arg-type,assignment]
    templates = _Templates(target, template_ttl)
    max_page = min(MAX_PAGE_BYTES, max_body)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        templates.outcomes.flush()
        if owned:
            target.close()

    api = FastAPI(
        title="fce",
        version=__version__,
        description="FastContentExtractor: per-site templates of where the main content sits, as a service.",
        lifespan=lifespan,
    )
    if max_body:
        api.add_middleware(_BodyLimit, limit=max_body)

    @api.exception_handler(FceError)
    async def _fce_error(_request: Request, exc: FceError) -> JSONResponse:
        return _error(http_status(exc), str(exc), error_status(exc), exc.exit_code)

    @api.exception_handler(StoreError)
    async def _store_error(_request: Request, exc: StoreError) -> JSONResponse:
        return _error(503, str(exc), "store", StoreFailure.exit_code)  # templates_store masks passwords

    @api.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        return _error(422, f"{where}: {first.get('msg', 'invalid request')}", "validation", 2)

    @api.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 413:
            return _error(413, str(exc.detail), "too-large", PageTooLargeError.exit_code)
        if exc.status_code == 409:
            return _error(409, str(exc.detail), "conflict", StoreFailure.exit_code)
        return _error(exc.status_code, str(exc.detail), "http", None)

    @api.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:
        # the traceback goes to the server's log, not to the client (it may quote a store URL or a path)
        logging.getLogger("fce.serve").error("internal error on %s %s", request.method, request.url.path,
                                             exc_info=exc)
        return _error(500, f"internal error: {type(exc).__name__} (see the server log)", "internal", 1)

    def _page(body: ExtractRequest) -> Page:
        # the block tree made while parsing, where that is what the method, or the template and fallback, read
        blocks = get_method(body.method).blocks if body.method is not None else parse_blocks(body.fallback)
        if body.html is not None:
            source = body.url or "html"
            data = body.html.encode("utf-8")
            return run_limited(page_timeout, partial(parse_page, data, url=body.url, source=source,
                                                     max_bytes=max_page, blocks=blocks), source=source)
        assert body.url is not None
        (result,) = fetch_many([body.url], concurrency=1, timeout=fetch.timeout, retries=fetch.retries,
                               max_bytes=max_page, user_agent=fetch.user_agent)
        if isinstance(result, FetchError):
            raise result
        return run_limited(page_timeout, partial(parse_page, result.data, url=result.final_url,
                                                 declared_charset=result.charset, source=body.url,
                                                 max_bytes=max_page, blocks=blocks), source=body.url)

    @api.post("/extract", response_model=ExtractResponse, responses=_RAISES,
              summary="Extract the main content of one page", openapi_extra=_json_body(ExtractRequest))
    async def post_extract(request: Request) -> Response:
        """The JSON record of ``fce detect --format json`` for the page."""
        # The body is parsed by pydantic's own JSON parser rather than FastAPI's ``json.loads`` then validation:
        # for a 70 KB page (HTML is full of quotes to unescape) 0.19 ms instead of 0.44 ms.
        try:
            body = ExtractRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        return await run_in_threadpool(_extract_one, body)

    def _extract_one(body: ExtractRequest) -> Response:
        started = time.perf_counter()
        if body.fallback is not None:
            get_method(body.fallback)  # an unknown name fails before the page is read
        page = _page(body)
        source = page.source or "html"
        if body.method is not None:
            runner = get_method(body.method)
            extraction = run_limited(page_timeout, partial(runner, page), source=source)
            extraction = replace(extraction, site=site_of(page, body.site))
        else:
            site = site_of(page, body.site)
            entry = templates.get(site, body.mode)
            extraction = extract(page, None if entry is None else entry[0], site=site, fallback=body.fallback,
                                 min_fit=body.min_fit, mode=body.mode, timeout=page_timeout)
            if entry is not None and site is not None:
                templates.outcomes.add(site, entry[1], extraction)
        # returned as a Response, so FastAPI does not validate and re-encode what to_dict() already made
        # (``response_model`` still documents it): on an example page 0.08 ms instead of 0.17 ms
        response = _json(DetectResult(source, extraction=extraction).to_dict())
        # the time spent on the page itself (reading or fetching it, parsing, extracting, encoding the answer), for
        # clients and bench/serve_bench.py to tell it from the HTTP overhead
        response.headers["Server-Timing"] = f"extract;dur={(time.perf_counter() - started) * 1000:.3f}"
        return response

    @api.post("/learn", response_model=LearnResponse, responses={**_RAISES, 409: _ERRORS[409]},
              summary="Learn a site's template from its pages and store it")
    def post_learn(body: LearnRequest) -> dict[str, Any]:
        site = normalize_site(body.site)
        pages: list[Page] = []
        skipped: list[FceError] = []
        for i, text in enumerate(body.html):
            try:
                pages.append(run_limited(page_timeout, partial(parse_page, text.encode("utf-8"),
                                                               source=f"html[{i}]", max_bytes=max_page,
                                                               blocks=DEFAULT_PATH_STYLE)))
            except InputError as exc:
                skipped.append(exc)
        if body.urls:
            for url, result in zip(body.urls, fetch_many(body.urls, concurrency=fetch.concurrency,
                                                         timeout=fetch.timeout, retries=fetch.retries,
                                                         max_bytes=max_page, user_agent=fetch.user_agent),
                                   strict=True):
                if isinstance(result, FetchError):
                    skipped.append(result)
                    continue
                try:
                    pages.append(run_limited(page_timeout, partial(
                        parse_page, result.data, url=result.final_url, declared_charset=result.charset,
                        source=url, max_bytes=max_page, blocks=DEFAULT_PATH_STYLE)))
                except InputError as exc:
                    skipped.append(exc)
        try:
            before = target.get(site)  # compare-and-set on this version: a newer relearn is never overwritten
        except StoreError as exc:
            raise StoreFailure(str(exc)) from exc
        started = time.perf_counter()
        try:
            record = learn_site(pages, site, timeout=page_timeout, layouts=not body.one_layout, rules=body.rules)
        except LearnError as exc:
            if not skipped:
                raise
            raise LearnError(f"{exc}; {len(skipped)} page(s) could not be used, the first: {skipped[0]}") from None
        seconds = time.perf_counter() - started
        try:
            version = save_template(target, record, expected_version=0 if before is None else before.version)
        except StoreFailure as exc:
            if isinstance(exc.__cause__, VersionConflict):
                raise HTTPException(409, f"{site}: another writer stored a new template meanwhile ({exc})") from None
            raise
        templates.forget(site)
        warnings = [f"skipped {exc}" for exc in skipped]
        if record.n_pages < RECOMMENDED_PAGES:  # as fce learn warns (fce.service.learn_sources)
            warnings.append(f"learned {site} from {record.n_pages} page(s); "
                            f"{RECOMMENDED_PAGES}-30 pages of the site are recommended")
        return {"site": site, "version": version, "pages_used": record.n_pages,
                "skipped": [str(e) for e in skipped], "layouts": len(record.layouts),
                "content_paths": len({p for t in record.layouts for p in t.content_paths}),
                "noise_blocks": sum(len(t.noise_blocks) for t in record.layouts), "seconds": round(seconds, 4),
                "warnings": warnings}

    @api.get("/sites", response_model=list[SiteRow], responses={503: _ERRORS[503]},
             summary="The stored templates")
    def get_sites() -> list[dict[str, Any]]:
        return site_rows(target)

    @api.get("/healthz", response_model=Health, responses={503: _ERRORS[503]}, summary="The store answers")
    def get_health() -> dict[str, Any]:
        try:
            target.ping()
        except StoreError as exc:
            raise StoreFailure(str(exc)) from None
        return {"status": "ok", "store": target.url, "version": __version__}

    return api


class _Json(JSONResponse):
    """JSON as ``fce detect --format json`` writes it (UTF-8, not ASCII-escaped)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _json(content: Any, status: int = 200) -> Response:
    return _Json(content, status_code=status)


def _json_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI of a JSON request body an endpoint reads itself (``openapi_extra``)."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}


def _error(status: int, message: str, kind: str, code: int | None) -> JSONResponse:
    return _Json({"error": " ".join(message.split()), "status": kind, "code": code}, status_code=status)


def run(app: Any, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workers: int = 1,
        log_level: str = "info", factory: bool = False) -> None:
    """Serve ``app`` with uvicorn until interrupted. ``workers`` > 1 needs ``app`` as an import string (uvicorn
    starts each worker process from it): see :func:`serve_workers`."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, workers=workers, log_level=log_level, server_header=False, factory=factory)


#: Environment variable through which :func:`serve_workers` hands each worker process its settings.
WORKER_CONFIG_ENV = "FCE_SERVE_CONFIG"


def serve_workers(store_url: str | None, *, workers: int, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                  max_body: int = DEFAULT_MAX_BODY, page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
                  fetch_timeout: float = DEFAULT_TIMEOUT, log_level: str = "info") -> None:
    """Serve the API from ``workers`` processes on one port (uvicorn's supervisor): one per core, since extraction
    is CPU-bound and the GIL keeps one process on one core. Each worker opens the store at ``store_url`` itself
    (``None``: ``$FCE_STORE`` or the default SQLite file) and keeps its own template cache and drift counts
    (flushed at its shutdown). An in-process ``memory://`` store cannot be shared: use SQLite or Redis."""
    if store_url is not None and store_url.startswith("memory:"):
        raise ValueError("a memory:// store lives in one process: give the workers a sqlite:/// or redis:// store")
    os.environ[WORKER_CONFIG_ENV] = json.dumps({
        "store": store_url, "max_body": max_body, "page_timeout": page_timeout, "fetch_timeout": fetch_timeout})
    run("fce.serve:app_from_environment", host=host, port=port, workers=workers, log_level=log_level,
        factory=True)


def app_from_environment() -> FastAPI:
    """The app of one worker of :func:`serve_workers`, from the settings in :data:`WORKER_CONFIG_ENV`."""
    config = json.loads(os.environ[WORKER_CONFIG_ENV])
    return create_app(config["store"], max_body=config["max_body"], page_timeout=config["page_timeout"],
                      fetch=FetchOptions(timeout=config["fetch_timeout"]))

