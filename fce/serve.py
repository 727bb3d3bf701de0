"""fce as an HTTP service (``fce serve``): extraction and learning over JSON, for ingestion systems.

    from fce.serve import create_app
    app = create_app("sqlite:///templates.db", token=...)   # an ASGI app (FastAPI); serve it with fce.serve.run

Endpoints (the OpenAPI schema is at ``/openapi.json``, its documentation at ``/docs``):

* ``POST /extract`` — ``{"html": "...", "site": "example.com"}`` or ``{"url": "https://..."}`` (optional
  ``method``, ``mode``, ``fallback``, ``min_fit``) as ``application/json``, or the page itself as ``text/html`` with
  the same fields as query parameters → the JSON record of ``fce detect --format json``
  (:meth:`fce.service.DetectResult.to_dict`). A site without a template falls back, as the CLI does.
* ``POST /learn`` — ``{"site": "example.com", "html": [...]}`` or ``"urls": [...]`` → learns the site's layouts
  (:func:`fce.pipeline.learn_site`) and stores them (:func:`fce.service.save_template`), answers what ``fce learn``
  prints. A write: it needs ``Authorization: Bearer <token>``, the token the server was given.
* ``GET /sites`` — the stored sites with their layouts and fit counters (:func:`fce.service.site_rows`);
  ``GET /healthz`` — the store answers.

The store is opened once per app. Extraction goes through :func:`fce.pipeline.extract` with compiled templates
cached per site and mode for :data:`TEMPLATE_TTL` seconds (a template learned through this server replaces the
cached one at once). Every template-based extraction counts as a fit or a fallback for the site's drift counters
(``fce sites``), written to the store every ``fce.pipeline.OUTCOME_BATCH`` requests and when the server stops.
Errors are JSON, ``{"error": "<one line>", "status": "<kind>", "code": <fce exit code or null>}``, with the HTTP
status of :data:`HTTP_STATUS`.

Facing a network:

* URLs are fetched by :mod:`fce.fetch` with :func:`fce.fetch.is_public_address` as the address policy (checked after
  DNS resolution, on every redirect, the connection pinned to the address checked): loopback, private and
  link-local hosts are refused with 403 unless ``allow_private_urls``. Only ``application/json`` bodies (and
  ``text/html`` for ``/extract``) are read, 415 otherwise, so that a web page cannot make a browser post a form here.
* Writes need the bearer token (compared in constant time); without a configured token they are refused (403).
* Heavy work runs in bounded pools (:class:`ServeLimits`: threads, page bytes processed at once, requests
  admitted); a full pool answers 503 with ``Retry-After`` at once. ``/healthz`` runs on none of them.
* Every request body is capped (:data:`DEFAULT_MAX_BODY`, 413) and must arrive within ``body_timeout`` (408); the
  request head within :data:`HEAD_TIMEOUT` (:class:`HardenedProtocol`); processing each page is bounded by
  :func:`fce.limits.run_limited` (504). An internal error is a JSON 500 that keeps the connection open.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import anyio
import pydantic_core
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from fce.blocks import DEFAULT_PATH_STYLE
from fce.detect import DEFAULT_MODE, MIN_FIT
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
from fce.fetch import DEFAULT_TIMEOUT, FetchOptions, FetchResult, RefusedURLError, fetch_many, is_public_address, is_url
from fce.learn import RECOMMENDED_PAGES
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited
from fce.methods import get_method
from fce.parse import MAX_PAGE_BYTES, Page, parse_page
from fce.pipeline import (
    DEFAULT_FALLBACK,
    OutcomeBatch,
    TemplateCache,
    extract,
    learn_site,
    parse_blocks,
    with_outputs,
)
from fce.service import DetectResult, error_status, save_template, site_rows
from fce.sites import normalize_site, site_of
from fce.version import __version__

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY",
    "DEFAULT_PORT",
    "HEAD_TIMEOUT",
    "HTTP_STATUS",
    "TEMPLATE_TTL",
    "TOKEN_ENV",
    "HardenedProtocol",
    "ServeLimits",
    "WorkLimits",
    "create_app",
    "run",
    "uvicorn_options",
]

R = TypeVar("R")

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


#: Pages one ``POST /learn`` may carry: the paper learns from 20–30 pages; a few more help no template.
MAX_LEARN_PAGES = 100

#: Environment variable holding the bearer token that writes (``POST /learn``) need (``fce serve --token``).
TOKEN_ENV = "FCE_SERVE_TOKEN"

#: Shortest token accepted: 16 characters of ``secrets.token_urlsafe()`` are 96 bits, beyond guessing over HTTP.
MIN_TOKEN_LENGTH = 16

#: Seconds a client has to send a request's head (request line and headers, a few hundred bytes) once it has
#: connected or started the request: Go's servers are commonly given 2–10 s (``ReadHeaderTimeout``); 10 s is
#: generous for a slow link and frees a slowloris connection quickly.
HEAD_TIMEOUT = 10.0

#: Largest request head (bytes): 64 KiB is what h11 (uvicorn's other HTTP parser) allows by default, four times
#: nginx's default; fce's API needs a few hundred bytes.
MAX_HEAD_BYTES = 64 * 1024

#: Seconds a client has to send a request's body once its head is in: 32 MiB (the largest body) at 0.5 MB/s,
#: nginx's default for its (per-read) ``client_body_timeout``.
DEFAULT_BODY_TIMEOUT = 60.0

#: Seconds an idle keep-alive connection stays open between requests (uvicorn's default, named here).
KEEP_ALIVE_TIMEOUT = 5

#: Seconds a client has to send the rest of a body the server answered without reading (413 by length, 415, 401,
#: 503, 408), which uvicorn reads and drops so that the connection stays usable: enough for the largest body at
#: the slowest rate :data:`DEFAULT_BODY_TIMEOUT` allows would be a minute; a client that was already refused gets
#: half of that, then the connection is closed.
DISCARD_TIMEOUT = 30.0

#: Seconds a client has to read a response after it was written: a response still unsent after this is dropped
#: with its connection, so that clients that stop reading cannot pile up answers in the server's memory (the
#: largest answer, for a 30 MB page, is about 15 MB: 250 KB/s).
DRAIN_TIMEOUT = 60.0

#: Open connections and running requests (uvicorn's ``limit_concurrency``) past which a request is answered 503 at
#: once: below the common limit of 1,024 open files per process, leaving room for the store, fetches and logs.
MAX_CONNECTIONS = 900

#: Threads for ``/healthz`` store pings, apart from all other work so that it answers under any load.
HEALTH_THREADS = 2


@dataclass(frozen=True)
class WorkLimits:
    """How much of one kind of work runs at once and how much is admitted (running or waiting its turn, its
    request body held in memory). A request beyond ``admitted`` / ``admitted_bytes`` is answered 503 with
    ``Retry-After: retry_after`` before its body is read; admitted ones run first come, first served, at most
    ``running`` at once and ``running_bytes`` of pages among them. A byte limit of None is no limit; a single
    request over a byte limit is still taken, alone."""

    running: int
    admitted: int
    retry_after: int
    running_bytes: int | None = None
    admitted_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.running < 1 or self.admitted < self.running or self.retry_after < 1:
            raise ValueError(f"need running >= 1, admitted >= running and retry_after >= 1: {self}")


@dataclass(frozen=True)
class ServeLimits:
    """The work pools of the server: extracting pages in hand, fetching URLs, learning.

    Defaults, measured on a 2-core machine with 30 MB pages (``python -m bench.serve_hardening``): extraction holds
    the GIL (parsing a 30 MB page is one C call of ~0.35 s), so a second extraction thread added no throughput
    (eight 30 MB pages in 5.2 s either way) but doubled the longest wait of ``/healthz`` (0.8 s instead of 0.3 s):
    one thread. A request takes ~10 times its page's size in memory at its peak (a 31 MB page sent as JSON: +310 MB;
    the body, the decoded string, the page's UTF-8 bytes, the block tree, the extraction, the answer) and its body
    alone while it waits, so the bodies admitted are capped at 256 MiB: eight 30 MB requests at once peak at
    0.6-0.7 GB. Fetching waits on the network (8 at once, ``fce.fetch.DEFAULT_CONCURRENCY``); a fetched page is
    then processed in the extraction pool. Learning takes up to 100 pages and 30 s per page, and fetches them: one
    at a time, two waiting."""

    extract: WorkLimits = field(default_factory=lambda: WorkLimits(
        running=1, admitted=64, admitted_bytes=256 * 1024 * 1024, retry_after=1))
    fetch: WorkLimits = field(default_factory=lambda: WorkLimits(running=8, admitted=32, retry_after=5))
    learn: WorkLimits = field(default_factory=lambda: WorkLimits(running=1, admitted=3, retry_after=30))


#: HTTP status of each error class (most specific class wins): the client's input (400, 413, 422), a URL the
#: address policy refuses (403), a missing template (404), what fce depends on (502 a URL that cannot be fetched,
#: 503 the store), the time limit (504).
HTTP_STATUS: dict[type[FceError], int] = {
    PageTooLargeError: 413,
    InputError: 400,
    SourceError: 400,
    UnknownMethodError: 400,
    LearnError: 422,
    TemplateNotFoundError: 404,
    RefusedURLError: 403,
    FetchError: 502,
    StoreFailure: 503,
    PageTimeoutError: 504,
    TemplateError: 500,
    FceError: 500,
}


def http_status(exc: FceError) -> int:
    return next((HTTP_STATUS[cls] for cls in type(exc).__mro__ if cls in HTTP_STATUS), 500)  # type: ignore[index]


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
    format: Literal["text", "markdown", "html"] = Field(
        "text", description="Also return the content with its structure: markdown (headings, lists, tables, code) "
                            "or clean semantic HTML, as the field of that name.")
    links: bool = Field(False, description="Keep links in markdown ([text](url)); html always keeps them.")
    comments: bool = Field(False, description="Also return the page's reader comments, which the content leaves "
                                              "out, as the field comments.")

    @model_validator(mode="after")
    def _one_page(self) -> ExtractRequest:
        if self.html is None and self.url is None:
            raise ValueError("give html or url")
        if self.url is not None and not is_url(self.url):
            raise ValueError("url must be an http(s) URL")
        return self


class BlockOut(BaseModel):
    path: str
    text: str
    index: int


class CheckOut(BaseModel):
    template_chars: int
    expected_chars: int
    fallback_chars: int | None
    winner: str = Field(description="template or fallback")
    rule: str = Field(description="kept-too-little or fallback-agrees (the fallback won), or kept-enough "
                                  "(fce.pipeline.CHECK_MIN_SHARE, CHECK_AGREE_SHARE, CHECK_AGREE_RANGE); "
                                  "narrowed: the template's content paths inside the fallback's region")


class ExtractResponse(BaseModel):
    """The record of ``fce detect --format json`` for one page."""

    source: str
    site: str | None
    method: str
    fit: float | None
    layout: int | None = Field(None, description="The site layout applied (None: the fallback ran).")
    match: float | None = Field(None, description="The page's match with the layout's profile.")
    fallback_reason: str | None
    check: CheckOut | None = Field(None, description="How the template's result compared with the site model's "
                                                     "expectation and with the fallback.")
    metadata: dict[str, Any] | None = Field(None, description="Title, authors, dates, language, site name, "
                                                              "description, canonical URL, … (fce.metadata).")
    fingerprint: str | None = Field(None, description="The text's 64-bit simhash, 16 hex digits: pages at most 3 "
                                                      "bits apart hold the same content (fce.fingerprint).")
    text: str
    markdown: str | None = Field(None, description="The content as markdown (format=markdown).")
    html: str | None = Field(None, description="The content as clean HTML (format=html).")
    comments: str | None = Field(None, description="The page's reader comments (comments=true).")
    page_type: str | None = Field(None, description="What kind of page the single-page method took it for: "
                                                    "article, documentation, listing, forum or page.")
    page_type_reason: str | None = Field(None, description="Why (fce.methods.mainblock.REASONS).")
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


class DuplicateOut(BaseModel):
    page: str = Field(description="The page left out of learning (its URL, or '#N', its place in the request).")
    copy_of: str = Field(description="The page it copies, which was learned from.")
    reason: str = Field(description="same-url, same-content or near-duplicate (fce.duplicates).")


class LearnResponse(BaseModel):
    site: str
    version: int
    pages_used: int
    skipped: list[str]
    duplicates: list[DuplicateOut] = Field(default_factory=list,
                                           description="Copies of another page of the sample, learned from once.")
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
        (401, "A write without the server's bearer token"),
        (403, "A write on a server without a token, or a URL whose host is not a public address"),
        (404, "No template for the site and no fallback"),
        (408, "The request body did not arrive in time"),
        (409, "Another writer stored a newer template for the site while this one was learned"),
        (413, "Request body or page over the size limit"),
        (415, "A body that is not application/json (or text/html for /extract)"),
        (422, "Invalid request, or too few usable pages to learn"),
        (500, "Stored template corrupt, or an internal error"),
        (502, "The URL could not be fetched"),
        (503, "The template store is unreachable, or the server is busy (see Retry-After)"),
        (504, "The page took longer than the time limit"),
    )
}
_RAISES: dict[int | str, dict[str, Any]] = {
    c: _ERRORS[c] for c in (400, 403, 404, 408, 413, 415, 422, 500, 502, 503, 504)}


# --- admission, request bodies, errors ----------------------------------------------------------------------


class _Answer(Exception):
    """An error answer the server decides itself (not an fce error): status, one-line message, kind, headers."""

    def __init__(self, status: int, message: str, kind: str, *, code: int | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.code, self.headers = status, kind, code, headers or {}


class _Gone(Exception):
    """The client closed the connection while its body was read: there is no one to answer."""


class _WorkPool:
    """Admission and turns for one kind of work (:class:`WorkLimits`), in the event loop: :meth:`admit` reserves a
    place or refuses with 503, :meth:`run` waits for a turn (first come, first served) and runs a function in a
    thread of the pool's own."""

    def __init__(self, kind: str, limits: WorkLimits) -> None:
        self.kind = kind
        self.limits = limits
        self.admitted = 0
        self._admitted_bytes = 0
        self._running = 0
        self._running_bytes = 0
        self._turns: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._threads: anyio.CapacityLimiter | None = None  # made in the event loop, on first use

    @contextmanager
    def admit(self, size: int, *, always: bool = False) -> Iterator[None]:
        """Hold a place for a request of ``size`` body bytes (``always``: one admitted elsewhere already, such as a
        page fetched for ``/extract``, which is not refused after the download)."""
        limits = self.limits
        if not always and self.admitted and (
                self.admitted >= limits.admitted
                or (limits.admitted_bytes is not None and self._admitted_bytes + size > limits.admitted_bytes)):
            raise _Answer(503, f"busy: {self.admitted} {self.kind} requests are running or waiting; retry in "
                               f"{limits.retry_after} s", "busy", headers={"Retry-After": str(limits.retry_after)})
        self.admitted += 1
        self._admitted_bytes += size
        try:
            yield
        finally:
            self.admitted -= 1
            self._admitted_bytes -= size

    async def run(self, size: int, fn: Callable[[], R]) -> R:
        """``fn()`` in a thread once a turn for ``size`` page bytes is free."""
        if self.limits.running_bytes is not None:
            size = min(size, self.limits.running_bytes)  # a page over the budget runs, alone
        await self._turn(size)
        try:
            if self._threads is None:
                self._threads = anyio.CapacityLimiter(self.limits.running)
            return await anyio.to_thread.run_sync(fn, limiter=self._threads)
        finally:
            self._done(size)

    def _fits(self, size: int) -> bool:
        budget = self.limits.running_bytes
        return self._running < self.limits.running and (
            budget is None or self._running == 0 or self._running_bytes + size <= budget)

    async def _turn(self, size: int) -> None:
        if not self._turns and self._fits(size):
            self._start(size)
            return
        turn = (size, asyncio.get_running_loop().create_future())
        self._turns.append(turn)
        try:
            await turn[1]
        except asyncio.CancelledError:  # the server stops: give the turn back, or leave the line
            if turn[1].done() and not turn[1].cancelled():
                self._done(size)
            elif turn in self._turns:
                self._turns.remove(turn)
                self._next()
            raise

    def _start(self, size: int) -> None:
        self._running += 1
        self._running_bytes += size

    def _done(self, size: int) -> None:
        self._running -= 1
        self._running_bytes -= size
        self._next()

    def _next(self) -> None:
        while self._turns and self._fits(self._turns[0][0]):
            size, future = self._turns.popleft()
            if not future.done():
                self._start(size)
                future.set_result(None)


class _Guard:
    """The outermost middleware of the app.

    A body declared over ``limit`` bytes is answered 413 (JSON) before it is read. (FastAPI's own ``max_body_size``
    answers in plain text, whatever the app's handlers.) An exception no handler took becomes a JSON 500 here rather
    than in Starlette's ServerErrorMiddleware, which re-raises it to uvicorn, and uvicorn then closes the connection:
    a client's keep-alive connection survives a 500. A client gone while its body was read gets no answer."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.limit:
            for name, value in scope.get("headers", ()):
                if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                    await _error(413, f"request body is over the {self.limit}-byte limit", "too-large",
                                 PageTooLargeError.exit_code)(scope, receive, send)
                    return
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except _Gone:
            return
        except Exception as exc:
            if started:  # half an answer is out: only closing the connection can tell the client
                raise
            # the traceback goes to the server's log, not to the client (it may quote a store URL or a path)
            logging.getLogger("fce.serve").error("internal error on %s %s", scope.get("method"), scope.get("path"),
                                                 exc_info=exc)
            await _error(500, f"internal error: {type(exc).__name__} (see the server log)", "internal",
                         1)(scope, receive, send)


async def _read_body(request: Request, limit: int, timeout: float | None) -> bytes:
    """The request body, read once into one ``bytes``: 413 past ``limit`` bytes (a chunked body is counted as it
    arrives), 408 when it has not all arrived within ``timeout`` seconds (None: no limit)."""
    chunks: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise _Answer(413, f"request body is over the {limit}-byte limit", "too-large",
                                  code=PageTooLargeError.exit_code)
                chunks.append(chunk)
    except TimeoutError:
        raise _Answer(408, f"the request body did not arrive within {timeout:g} s", "request-timeout") from None
    except ClientDisconnect:
        raise _Gone from None
    return b"".join(chunks)


def _declared_size(request: Request, limit: int) -> int:
    """The body size the request declares (``Content-Length``), or ``limit`` for a chunked body."""
    value = request.headers.get("content-length", "")
    return int(value) if value.isdigit() else limit


def _content_type(request: Request, accepted: tuple[str, ...]) -> tuple[str, str | None]:
    """``(media type, charset)`` of the body, or 415 when the media type is not one of ``accepted``. A web page can
    make a browser post ``text/plain`` or a form here without asking (CORS), but not JSON nor HTML."""
    media, *params = request.headers.get("content-type", "").split(";")
    media = media.strip().lower()
    if media not in accepted:
        raise _Answer(415, f"the request body must be {' or '.join(accepted)}", "unsupported-media-type")
    charset = None
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip('"') or None
    return media, charset


def _query_options(request: Request) -> ExtractRequest:
    """The fields of :class:`ExtractRequest` given as query parameters with a ``text/html`` body (422 if invalid);
    ``fallback=`` (empty) is no fallback."""
    params: dict[str, Any] = dict(request.query_params)
    if "html" in params:
        raise _Answer(422, "html: the page is the body; it cannot be a query parameter", "validation", code=2)
    if params.get("fallback") == "":
        params["fallback"] = None
    try:
        return ExtractRequest.model_validate({**params, "html": ""})
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


# --- the app ------------------------------------------------------------------------------------------------


def create_app(
    store: TemplateStore | str | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
    fetch: FetchOptions = FetchOptions(timeout=DEFAULT_TIMEOUT),  # noqa: B008 -- frozen, so a shared default is safe
    template_ttl: float = TEMPLATE_TTL,
    token: str | None = None,
    allow_private_urls: bool = False,
    limits: ServeLimits = ServeLimits(),  # noqa: B008 -- frozen, so a shared default is safe
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
) -> FastAPI:
    """The ASGI app of ``fce serve`` over ``store`` (a :class:`templates_store.TemplateStore`, a store URL, or
    ``None`` for ``$FCE_STORE`` / the default SQLite file; a store given as URL is opened here and closed when
    the app shuts down). ``page_timeout``: seconds of processing per page (``None``: no limit); learning gets
    that × the pages. ``token``: the bearer token writes need (None: writes are refused). ``allow_private_urls``:
    fetch any host, not only public addresses (``fetch.allow_address`` otherwise, or
    :func:`fce.fetch.is_public_address`). ``limits``: the work pools; ``body_timeout``: seconds to receive a
    request body (None: no limit)."""
    from templates_store import StoreError, VersionConflict, open_store

    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise ValueError(f"the token must have at least {MIN_TOKEN_LENGTH} characters")
    # only a digest is kept: compared in constant time whatever the length of what a client sends
    token_digest = None if token is None else hashlib.sha256(token.encode()).digest()
    fetching = replace(fetch, allow_address=None if allow_private_urls else fetch.allow_address or is_public_address)
    owned = not hasattr(store, "get_many")
    target: TemplateStore = open_store(store) if owned else store  # type: ignore[arg-type,assignment]
    templates = TemplateCache(target, ttl=template_ttl)
    outcomes = OutcomeBatch(target)  # the drift counts; a store that will not take them never fails a request
    max_page = min(MAX_PAGE_BYTES, max_body)
    extract_pool = _WorkPool("extract", limits.extract)
    fetch_pool = _WorkPool("fetch", limits.fetch)
    learn_pool = _WorkPool("learn", limits.learn)
    health_threads = anyio.CapacityLimiter(HEALTH_THREADS)
    bearer = HTTPBearer(auto_error=False, description=f"The token given to fce serve (--token or ${TOKEN_ENV}).")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        outcomes.flush()
        if owned:
            target.close()

    api = FastAPI(
        title="fce",
        version=__version__,
        description="FastContentExtractor: per-site templates of where the main content sits, as a service.",
        lifespan=lifespan,
    )
    api.add_middleware(_Guard, limit=max_body)

    @api.exception_handler(_Answer)
    async def _answer(_request: Request, exc: _Answer) -> JSONResponse:
        return _error(exc.status, str(exc), exc.kind, exc.code, headers=exc.headers)

    @api.exception_handler(FceError)
    async def _fce_error(_request: Request, exc: FceError) -> JSONResponse:
        kind = "refused" if isinstance(exc, RefusedURLError) else error_status(exc)
        return _error(http_status(exc), str(exc), kind, exc.exit_code)

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
        if exc.status_code == 409:
            return _error(409, str(exc.detail), "conflict", StoreFailure.exit_code)
        return _error(exc.status_code, str(exc.detail), "http", None)

    def _authorize(credentials: HTTPAuthorizationCredentials | None) -> None:
        if token_digest is None:
            raise _Answer(403, f"writes are disabled: start fce serve with --token TOKEN (or ${TOKEN_ENV}) and send "
                               "it as Authorization: Bearer TOKEN", "forbidden")
        given = hashlib.sha256((credentials.credentials if credentials else "").encode()).digest()
        if not hmac.compare_digest(given, token_digest):
            raise _Answer(401, "a write needs the server's token: Authorization: Bearer TOKEN", "unauthorized",
                          headers={"WWW-Authenticate": "Bearer"})

    def _fetch(url: str) -> tuple[FetchResult, float]:
        """The page at ``url`` and the seconds its download took (refused, failed: raises the FetchError)."""
        started = time.perf_counter()
        (result,) = fetch_many([url], concurrency=1, timeout=fetching.timeout, retries=fetching.retries,
                               max_bytes=max_page, user_agent=fetching.user_agent,
                               allow_address=fetching.allow_address)
        if isinstance(result, FetchError):
            raise result
        return result, time.perf_counter() - started

    def _extract_page(body: ExtractRequest, data: bytes, charset: str | None, *, url: str | None = None,
                      spent: float = 0.0) -> Response:
        """The answer for one page in hand (its bytes), with the options of ``body``; ``url``: where it was
        fetched from (after redirects); ``spent``: seconds already spent on it (fetching it, encoding it)."""
        started = time.perf_counter()
        if body.fallback is not None:
            get_method(body.fallback)  # an unknown name fails before the page is read
        # the block tree made while parsing, where that is what the method, or the template and fallback, read
        blocks = get_method(body.method).blocks if body.method is not None else parse_blocks(body.fallback)
        source = body.url or "html"
        page = run_limited(page_timeout, partial(parse_page, data, url=url or body.url, declared_charset=charset,
                                                 source=source, max_bytes=max_page, blocks=blocks), source=source)
        if body.method is not None:
            runner = get_method(body.method)
            extraction = run_limited(page_timeout, lambda: with_outputs(
                page, replace(runner(page), site=site_of(page, body.site)), metadata=True, output=body.format,
                links=body.links, comments=body.comments), source=source)
        else:
            site = site_of(page, body.site)
            entry = templates.get(site, body.mode)
            extraction = extract(page, None if entry is None else entry[0], site=site, fallback=body.fallback,
                                 min_fit=body.min_fit, mode=body.mode, timeout=page_timeout, metadata=True,
                                 output=body.format, links=body.links, comments=body.comments)
            if entry is not None and site is not None:
                outcomes.add(site, entry[1], extraction)
        # returned as a Response, so FastAPI does not validate and re-encode what to_dict() already made
        # (``response_model`` still documents it): on an example page 0.08 ms instead of 0.17 ms
        response = _Json(DetectResult(source, extraction=extraction).to_dict())
        # the time spent on the page itself (fetching it, parsing, extracting, encoding the answer; not reading the
        # request nor waiting for a turn), for clients and bench/serve_bench.py to tell it from the HTTP overhead
        response.headers["Server-Timing"] = f"extract;dur={(spent + time.perf_counter() - started) * 1000:.3f}"
        return response

    def _extract_json(data: bytes) -> Response | ExtractRequest:
        """The answer for a JSON body with the page's HTML, or the request itself when it names a URL to fetch."""
        # The body is parsed by pydantic's own JSON parser rather than FastAPI's ``json.loads`` then validation:
        # for a 70 KB page (HTML is full of quotes to unescape) 0.19 ms instead of 0.44 ms.
        try:
            body = ExtractRequest.model_validate_json(data)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        if body.html is None:
            return body
        started = time.perf_counter()  # Server-Timing leaves reading the request out, as bench/serve_bench.py reads it
        # the page as UTF-8 bytes, said to be UTF-8 (a <meta charset> in it named the encoding of another copy);
        # the decoded string is dropped at once: one copy of the page, not two, while it is parsed
        page = body.html.encode("utf-8")
        body = body.model_copy(update={"html": None})
        return _extract_page(body, page, "utf-8", spent=time.perf_counter() - started)

    @api.post("/extract", response_model=ExtractResponse, responses=_RAISES,
              summary="Extract the main content of one page", openapi_extra=_extract_body())
    async def post_extract(request: Request) -> Response:
        """The JSON record of ``fce detect --format json`` for the page: sent as JSON (``html`` or a ``url`` to
        fetch), or as the page itself (``text/html``, the other fields as query parameters)."""
        media, charset = _content_type(request, ("application/json", "text/html"))
        if media == "text/html":
            options = _query_options(request)
        elif request.query_params:
            raise _Answer(422, "query parameters go with a text/html body; a JSON body carries its fields",
                          "validation", code=2)
        with extract_pool.admit(_declared_size(request, max_body)):
            data = await _read_body(request, max_body, body_timeout)
            if media == "text/html":
                return await extract_pool.run(len(data), partial(_extract_page, options, data, charset))
            outcome = await extract_pool.run(len(data), partial(_extract_json, data))
        if isinstance(outcome, Response):
            return outcome
        assert outcome.url is not None
        with fetch_pool.admit(0):
            result, spent = await fetch_pool.run(0, partial(_fetch, outcome.url))
        with extract_pool.admit(len(result.data), always=True):  # admitted with its request, before the download
            return await extract_pool.run(len(result.data), partial(
                _extract_page, outcome, result.data, result.charset, url=result.final_url, spent=spent))

    def _learn(data: bytes) -> dict[str, Any]:
        try:
            body = LearnRequest.model_validate_json(data)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        site = normalize_site(body.site)
        pages: list[Page] = []
        skipped: list[FceError] = []
        for i, text in enumerate(body.html):
            try:
                pages.append(run_limited(page_timeout, partial(parse_page, text.encode("utf-8"), source=f"html[{i}]",
                                                               declared_charset="utf-8", max_bytes=max_page,
                                                               blocks=DEFAULT_PATH_STYLE)))
            except InputError as exc:
                skipped.append(exc)
        fetched = 0

        def count(result: FetchResult | FetchError) -> None:  # the pages of one request, fetched or sent: max_body
            nonlocal fetched
            if isinstance(result, FetchResult):
                fetched += len(result.data)
                if fetched > max_body:
                    raise PageTooLargeError(f"the pages fetched are over the {max_body}-byte limit of a request",
                                            source=site)

        results = fetch_many(body.urls, concurrency=fetching.concurrency, timeout=fetching.timeout,
                             retries=fetching.retries, max_bytes=max_page, user_agent=fetching.user_agent,
                             progress=count, allow_address=fetching.allow_address)
        refused = [r for r in results if isinstance(r, RefusedURLError)]
        if refused:  # a request naming a URL the server may not fetch is refused, not learned without it
            raise refused[0]
        for url, result in zip(body.urls, results, strict=True):
            if isinstance(result, FetchError):
                skipped.append(result)
                continue
            try:
                pages.append(run_limited(page_timeout, partial(
                    parse_page, result.data, url=result.final_url, declared_charset=result.charset, source=url,
                    max_bytes=max_page, blocks=DEFAULT_PATH_STYLE)))
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
                "skipped": [str(e) for e in skipped], "duplicates": list(record.extra.get("duplicates", ())),
                "layouts": len(record.layouts),
                "content_paths": len({p for t in record.layouts for p in t.content_paths}),
                "noise_blocks": sum(len(t.noise_blocks) for t in record.layouts), "seconds": round(seconds, 4),
                "warnings": warnings}

    @api.post("/learn", response_model=LearnResponse, responses={**_RAISES, 401: _ERRORS[401], 409: _ERRORS[409]},
              summary="Learn a site's template from its pages and store it", openapi_extra=_json_body(LearnRequest))
    async def post_learn(request: Request,  # (Depends as a default: a local name in a string annotation is unresolved)
                         credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Any:  # noqa: B008
        """Learns the site from its pages (HTML or URLs to fetch) and stores the template; needs the token."""
        _authorize(credentials)
        _content_type(request, ("application/json",))
        with learn_pool.admit(_declared_size(request, max_body)):
            data = await _read_body(request, max_body, body_timeout)
            return await learn_pool.run(len(data), partial(_learn, data))

    @api.get("/sites", response_model=list[SiteRow], responses={503: _ERRORS[503]},
             summary="The stored templates")
    def get_sites() -> list[dict[str, Any]]:
        return site_rows(target)

    @api.get("/healthz", response_model=Health, responses={503: _ERRORS[503]}, summary="The store answers")
    async def get_health() -> dict[str, Any]:
        # in threads of its own: answers whatever the extraction and learning pools are doing
        try:
            await anyio.to_thread.run_sync(target.ping, limiter=health_threads)
        except StoreError as exc:
            raise StoreFailure(str(exc)) from None
        return {"status": "ok", "store": target.url, "version": __version__}

    return api


class _Json(JSONResponse):
    """JSON as ``fce detect --format json`` writes it (UTF-8, not ASCII-escaped, compact), made by pydantic's
    encoder: straight to UTF-8 bytes, with no intermediate string (for the 15 MB answer of a 30 MB page, 26 ms
    instead of 260 ms, and one copy of the answer in memory instead of up to three). The same bytes as
    ``json.dumps`` but for floats with an exponent (``0.00001`` for ``1e-05``), the same values."""

    def render(self, content: Any) -> bytes:
        return pydantic_core.to_json(content)


def _json_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI of a JSON request body an endpoint reads itself (``openapi_extra``)."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}


def _extract_body() -> dict[str, Any]:
    """OpenAPI of ``POST /extract``'s body (JSON, or the page as ``text/html``) and of its query parameters."""
    schema = ExtractRequest.model_json_schema()["properties"]
    params = [{"name": name, "in": "query", "required": False, "schema": schema[name],
               "description": f"With a text/html body: {schema[name].get('description', name)}"}
              for name in ("url", "site", "method", "mode", "fallback", "min_fit", "format", "links",
                                                  "comments")]
    content = {"application/json": {"schema": ExtractRequest.model_json_schema()},
               "text/html": {"schema": {"type": "string", "description": "The page itself."}}}
    return {"parameters": params, "requestBody": {"required": True, "content": content}}


def _error(status: int, message: str, kind: str, code: int | None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    return _Json({"error": " ".join(message.split()), "status": kind, "code": code}, status_code=status,
                 headers=headers)


# --- uvicorn --------------------------------------------------------------------------------------------------


def _raw_response(status: str, message: str, kind: str) -> bytes:
    body = json.dumps({"error": message, "status": kind, "code": None}).encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


_HEAD_TOO_SLOW = _raw_response("408 Request Timeout", f"the request head did not arrive within {HEAD_TIMEOUT:g} s",
                               "request-timeout")
_TOO_MANY_CONNECTIONS = _error(503, "busy: too many connections; retry in 1 s", "busy", None,
                               headers={"Retry-After": "1", "Connection": "close"})


class HardenedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools) with the limits it lacks to face slow or hostile clients (its
    ``timeout_keep_alive`` covers only idle connections between requests; a request may otherwise take forever):

    * the request head must arrive within :data:`HEAD_TIMEOUT` of the connection or of the request's first byte
      (else 408 and the connection is closed), and be at most :data:`MAX_HEAD_BYTES` (else uvicorn's 400);
    * the rest of a body the app answered without reading it (413, 415, 401, 503, ...), which uvicorn reads and
      drops to keep the connection, must arrive within :data:`DISCARD_TIMEOUT`;
    * a response the client has not read :data:`DRAIN_TIMEOUT` after it was written is dropped with its connection;
    * past uvicorn's ``limit_concurrency``, the 503 is fce's JSON with ``Retry-After``.

    The body's own deadline is the app's (``create_app(body_timeout=)``), which knows when it reads one."""

    _timer: asyncio.TimerHandle | None = None
    _drain_check: asyncio.TimerHandle | None = None
    _discarding = False
    _head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._set_timer(HEAD_TIMEOUT)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        if self._drain_check is not None:
            self._drain_check.cancel()
            self._drain_check = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        if self._timer is None:  # a later request on the connection: from its first byte
            self._set_timer(HEAD_TIMEOUT)

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._cancel_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self._discarding:
            self._discarding = False
            self._cancel_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle is not None and self.cycle.more_body and not self.transport.is_closing():
            self._discarding = True  # answered before the body was read: uvicorn now drops what still comes
            self._set_timer(DISCARD_TIMEOUT)
        if self._drain_check is not None:
            self._drain_check.cancel()
        self._drain_check = self.loop.call_later(DRAIN_TIMEOUT, self._check_drained)

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        super()._start_asgi_task(cycle, cast(Any, _TOO_MANY_CONNECTIONS) if app is service_unavailable else app)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:  # httptools stops; uvicorn answers 400 and closes the connection
            raise ValueError(f"request head over {MAX_HEAD_BYTES} bytes")

    def _set_timer(self, seconds: float) -> None:
        self._cancel_timer()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if not self._discarding and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(_HEAD_TOO_SLOW)  # no answer under way on the connection: this one is the answer
        self.transport.close()

    def _check_drained(self) -> None:
        self._drain_check = None
        if self.transport.get_write_buffer_size():
            self.transport.abort()


def uvicorn_options(*, max_connections: int = MAX_CONNECTIONS) -> dict[str, Any]:
    """uvicorn's settings for ``fce serve`` (:func:`run`, or ``uvicorn.Config(app, **uvicorn_options())``): the
    hardened protocol, no WebSocket, the keep-alive timeout and connection limit, no ``Server`` header."""
    return {"http": HardenedProtocol, "ws": "none", "timeout_keep_alive": KEEP_ALIVE_TIMEOUT,
            "limit_concurrency": max_connections, "server_header": False}


def run(app: Any, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workers: int = 1,
        log_level: str = "info", factory: bool = False) -> None:
    """Serve ``app`` with uvicorn (:func:`uvicorn_options`) until interrupted. ``workers`` > 1 needs ``app`` as an
    import string (uvicorn starts each worker process from it): see :func:`serve_workers`."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, workers=workers, log_level=log_level, factory=factory, **uvicorn_options())


#: Environment variable through which :func:`serve_workers` hands each worker process its settings.
WORKER_CONFIG_ENV = "FCE_SERVE_CONFIG"


def serve_workers(store_url: str | None, *, workers: int, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                  max_body: int = DEFAULT_MAX_BODY, page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
                  fetch_timeout: float = DEFAULT_TIMEOUT, log_level: str = "info", token: str | None = None,
                  allow_private_urls: bool = False) -> None:
    """Serve the API from ``workers`` processes on one port (uvicorn's supervisor): one per core, since extraction
    is CPU-bound and the GIL keeps one process on one core. Each worker opens the store at ``store_url`` itself
    (``None``: ``$FCE_STORE`` or the default SQLite file) and keeps its own template cache, drift counts (flushed
    at its shutdown) and work pools. An in-process ``memory://`` store cannot be shared: use SQLite or Redis."""
    if store_url is not None and store_url.startswith("memory:"):
        raise ValueError("a memory:// store lives in one process: give the workers a sqlite:/// or redis:// store")
    # (the token travels in the environment, as FCE_SERVE_TOKEN would: never on a command line others can read)
    os.environ[WORKER_CONFIG_ENV] = json.dumps({
        "store": store_url, "max_body": max_body, "page_timeout": page_timeout, "fetch_timeout": fetch_timeout,
        "token": token, "allow_private_urls": allow_private_urls})
    run("fce.serve:app_from_environment", host=host, port=port, workers=workers, log_level=log_level,
        factory=True)


def app_from_environment() -> FastAPI:
    """The app of one worker of :func:`serve_workers`, from the settings in :data:`WORKER_CONFIG_ENV`."""
    config = json.loads(os.environ[WORKER_CONFIG_ENV])
    return create_app(config["store"], max_body=config["max_body"], page_timeout=config["page_timeout"],
                      fetch=FetchOptions(timeout=config["fetch_timeout"]), token=config["token"],
                      allow_private_urls=config["allow_private_urls"])
