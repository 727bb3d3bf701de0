"""HTTP fetching of pages: the only network I/O in fce.

:func:`fetch_many` downloads many URLs with a thread pool sharing one :class:`httpx.Client` (one connection
pool, keep-alive per host) and returns, in input order, a :class:`FetchResult` or a
:class:`~fce.errors.FetchError` per URL. It never raises for a URL that fails: one bad URL must not cost the
others.

Per URL: redirects are followed (at most :data:`MAX_REDIRECTS`); connect errors, timeouts, HTTP 429 and 5xx
are retried ``retries`` times with exponential backoff; any other 4xx fails at once (``HTTP 404 Not Found``);
the body is streamed and the download aborted once it passes ``max_bytes``. ``timeout`` bounds each attempt as
a whole (connect, every read and the whole body, so a server trickling bytes cannot hold a worker forever);
the worst case for one URL is ``(retries + 1) * timeout`` plus the backoff sleeps.

``allow_address`` is the address policy: ``None`` (the library's and the command line's default) fetches anything,
as the user's own machine and network are the user's to read; ``fce serve`` passes :func:`is_public_address` (unless
``--allow-private-urls``), so that a server fetching the URLs it is given cannot be made to read its own loopback,
its private network or a cloud metadata service. With a policy, the host is resolved once per connection, *every*
address it resolves to must pass, and the connection is made to the addresses checked, never resolved again, so a
DNS answer that changes between the check and the connection (DNS rebinding) cannot swap them. Each redirect to
another host opens a new connection, checked the same way. Environment proxies are not used then (through a proxy
the address cannot be checked). A refusal is a :class:`RefusedURLError`, not retried, with one message whatever
is listening at that address.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fce.errors import FetchError
from fce.parse import MAX_PAGE_BYTES
from fce.version import __version__

if TYPE_CHECKING:
    import httpcore
    import httpx

__all__ = [
    "BACKOFF_MAX",
    "BACKOFF_START",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "MAX_REDIRECTS",
    "USER_AGENT",
    "FetchOptions",
    "FetchResult",
    "RefusedURLError",
    "fetch_many",
    "is_public_address",
    "is_url",
]

#: Sent with every request. Names the tool and its version, as robots-aware site operators ask crawlers to.
USER_AGENT = f"fce/{__version__} (FastContentExtractor; +https://pypi.org/project/fastcontentextractor/)"

#: Parallel downloads. 8 keeps a single site from seeing more than a browser's usual 6–8 connections per host
#: while hiding most of the latency of a batch of 20–30 learning pages.
DEFAULT_CONCURRENCY = 8

#: Seconds per attempt (connect + response + body). Generous enough for slow news sites on a slow link; a page
#: that needs longer is rarely worth waiting for.
DEFAULT_TIMEOUT = 15.0

#: Extra attempts after a transient failure (connect error, timeout, 429, 5xx). Two rides over a server
#: restart or a dropped connection without tripling the wait for a host that is really down.
DEFAULT_RETRIES = 2

#: Redirects followed before giving up. Browsers allow ~20; real pages need 1–3 (http→https, www, a trailing
#: slash); 10 is what requests and httpx's own examples use and ends redirect loops quickly.
MAX_REDIRECTS = 10

#: Backoff before retry *n* (0-based) is ``BACKOFF_START * 2**n`` seconds, at most :data:`BACKOFF_MAX`; a
#: server's ``Retry-After`` is honoured up to the same cap.
BACKOFF_START = 0.5
BACKOFF_MAX = 8.0

#: Statuses worth retrying: rate limiting and server-side failures. Other 4xx will not change on a retry.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"

#: IPv6 prefixes that carry an IPv4 address in their low 32 bits and reach it (NAT64's well-known prefix, RFC 6052;
#: IPv4-compatible addresses, deprecated but still parsed): the IPv4 address inside must be public too.
_EMBEDS_IPV4 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("::/96"))


class RefusedURLError(FetchError):
    """A URL refused before any connection: its host's address fails the address policy (``allow_address``), or
    a redirect leads to a scheme other than http(s). Exit code 7, as every :class:`~fce.errors.FetchError`."""


@dataclass(frozen=True, slots=True)
class FetchResult:
    """A downloaded page: ``url`` as requested, ``final_url`` after redirects, the body bytes
    (content-encoding such as gzip already removed) and the charset the ``Content-Type`` header declares (None
    if it declares none), to be passed to :func:`fce.parse.parse_page` as ``declared_charset``."""

    url: str
    final_url: str
    data: bytes
    charset: str | None
    status: int
    content_type: str | None


@dataclass(frozen=True, slots=True)
class FetchOptions:
    """How :func:`fetch_many` downloads, grouped so that callers pass them through as one value."""

    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    user_agent: str = USER_AGENT
    #: the address policy (module docstring): None fetches anything, :func:`is_public_address` public hosts only
    allow_address: Callable[[str], bool] | None = None


def is_public_address(address: str) -> bool:
    """True for an address of the public internet: not loopback, private, link-local (cloud metadata services),
    shared (carrier-grade NAT), reserved, documentation or multicast, in IPv4 or IPv6, nor an IPv6 address that
    carries such an IPv4 address (IPv4-mapped, 6to4, NAT64). ``address`` is an IP address as text; anything else is
    not public."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0) is link-local anyway
    except ValueError:
        return False
    if ip.is_multicast or not ip.is_global:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and any(ip in net for net in _EMBEDS_IPV4):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(str(embedded))
    return True


def is_url(text: str) -> bool:
    """True for an ``http://`` or ``https://`` URL (what fce fetches); False for paths and anything else."""
    return text[:8].lower().startswith(("http://", "https://"))


def fetch_many(
    urls: Sequence[str],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    max_bytes: int = MAX_PAGE_BYTES,
    user_agent: str = USER_AGENT,
    progress: Callable[[FetchResult | FetchError], None] | None = None,
    allow_address: Callable[[str], bool] | None = None,
) -> list[FetchResult | FetchError]:
    """Fetch ``urls`` concurrently; one :class:`FetchResult` or :class:`~fce.errors.FetchError` per URL, in
    input order. ``progress`` is called (in the calling thread) once per URL as it completes. ``allow_address``:
    the address policy (module docstring; ``None``: any host); a host it refuses is a :class:`RefusedURLError`."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, not {concurrency}")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0, not {timeout}")
    if retries < 0:
        raise ValueError(f"retries must be >= 0, not {retries}")
    results: list[FetchResult | FetchError | None] = [None] * len(urls)
    if not urls:
        return []
    import httpx  # (here: importing it took ~90 ms of every command line, most of which fetch nothing)

    workers = min(concurrency, len(urls))
    limits = httpx.Limits(max_connections=workers, max_keepalive_connections=workers)
    with (
        httpx.Client(
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            timeout=httpx.Timeout(timeout),
            headers={"User-Agent": user_agent, "Accept": _ACCEPT},
            limits=limits,
            transport=None if allow_address is None else _checked_transport(limits, allow_address),
        ) as client,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fce-fetch") as pool,
    ):
        futures = {
            pool.submit(_fetch, client, url, timeout=timeout, retries=retries, max_bytes=max_bytes): i
            for i, url in enumerate(urls)
        }
        try:
            for future in as_completed(futures):
                result = future.result()  # _fetch returns its errors; anything raised here is a bug
                results[futures[future]] = result
                if progress is not None:
                    progress(result)
        except BaseException:  # Ctrl-C or a failing progress callback: do not start the queued downloads
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [r for r in results if r is not None]


def _fetch(client: httpx.Client, url: str, *, timeout: float, retries: int,
           max_bytes: int) -> FetchResult | FetchError:
    import httpx

    if not is_url(url):
        return FetchError("not an http(s) URL", source=url)
    try:
        urlsplit(url)
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL) as exc:
        return FetchError(f"invalid URL ({exc})", source=url)
    attempt = 0
    while True:
        try:
            return _attempt(client, url, timeout=timeout, max_bytes=max_bytes)
        except _Retry as retry:
            error, wait = retry.error, retry.retry_after
        except FetchError as error_:
            return error_
        if attempt >= retries:
            return error
        time.sleep(min(BACKOFF_MAX, max(wait or 0.0, BACKOFF_START * 2**attempt)))
        attempt += 1


class _Retry(Exception):
    """A transient failure: retried while attempts remain, else reported as ``error``."""

    def __init__(self, error: FetchError, retry_after: float | None = None) -> None:
        self.error = error
        self.retry_after = retry_after


def _attempt(client: httpx.Client, url: str, *, timeout: float, max_bytes: int) -> FetchResult:
    import httpx

    deadline = time.monotonic() + timeout
    try:
        with client.stream("GET", url) as response:
            status = response.status_code
            if status >= 400:
                error = FetchError(f"HTTP {status} {response.reason_phrase}".rstrip(), source=url)
                if status in RETRY_STATUSES:
                    raise _Retry(error, _retry_after(response.headers.get("retry-after")))
                raise error
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"body of {declared} bytes is over the {max_bytes}-byte limit", source=url)
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError(f"body is over the {max_bytes}-byte limit", source=url)
                if time.monotonic() > deadline:
                    raise _Retry(FetchError(f"timed out after {timeout:g} s (body too slow)", source=url))
                chunks.append(chunk)
            return FetchResult(
                url=url,
                final_url=str(response.url),
                data=b"".join(chunks),
                charset=response.charset_encoding,
                status=status,
                content_type=response.headers.get("content-type"),
            )
    except _NotAllowed:
        raise RefusedURLError(_REFUSED, source=url) from None
    except httpx.UnsupportedProtocol:  # the first URL was checked: a redirect to file:, ftp:, ...
        raise RefusedURLError("redirected to a URL that is not http(s)", source=url) from None
    except httpx.TooManyRedirects:
        raise FetchError(f"more than {MAX_REDIRECTS} redirects", source=url) from None
    except httpx.TimeoutException:
        raise _Retry(FetchError(f"timed out after {timeout:g} s", source=url)) from None
    except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
        raise _Retry(FetchError(f"connection failed ({_reason(exc)})", source=url)) from None
    except httpx.HTTPError as exc:  # unsupported scheme in a redirect, a proxy error, a decoding error, ...
        raise FetchError(f"{type(exc).__name__}: {_reason(exc)}", source=url) from None


#: The one message of a refused address: the same whether something listens there or not, and whatever the
#: spelling of the host, so that the answer tells nothing about the private network.
_REFUSED = "refused: the host is not a public internet address (see fce serve --allow-private-urls)"


class _NotAllowed(Exception):
    """Raised by :class:`_CheckedBackend` before connecting; becomes a :class:`RefusedURLError`."""


class _CheckedBackend:
    """An httpcore network backend (``connect_tcp``, ``connect_unix_socket``, ``sleep``) that resolves the host
    itself, refuses it unless every address passes ``allow_address``, and connects to the addresses it checked, in
    order (as ``socket.create_connection`` would), so that nothing resolves the name again after the check."""

    def __init__(self, allow_address: Callable[[str], bool]) -> None:
        import httpcore

        self._allow = allow_address
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        import httpcore

        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve the host ({exc})") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses or not all(self._allow(a) for a in addresses):
            raise _NotAllowed
        failure: Exception | None = None
        for address in addresses:
            try:
                return self._backend.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                 socket_options=socket_options)
            except httpcore.ConnectError as exc:  # the next address, as a browser and create_connection do
                failure = exc
        assert failure is not None
        raise failure

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        raise _NotAllowed

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _checked_transport(limits: httpx.Limits, allow_address: Callable[[str], bool]) -> httpx.HTTPTransport:
    """httpx's transport with its connection pool on :class:`_CheckedBackend`. (httpx has no parameter for the
    network backend, so the pool it made is replaced by the same pool on ours; the assertion keeps a future httpx
    that renames the attribute from silently bypassing the check, and the tests fetch ``localhost`` through it.)"""
    import httpcore
    import httpx

    transport = httpx.HTTPTransport(limits=limits)
    assert isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool), "httpx's transport changed"
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        # duck-typed (httpcore is imported lazily, so the class cannot subclass its NetworkBackend)
        network_backend=_CheckedBackend(allow_address),  # type: ignore[arg-type]
    )
    return transport


def _reason(exc: Exception) -> str:
    """The innermost message of an httpx error (httpcore wraps the socket error), on one line."""
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
