"""Which site a page belongs to: the key its templates are stored under, one rule for every command.

A page's site is the **registered domain** of its URL's host: the label just below the host's public suffix, per
the Public Suffix List *including its private section* (``news.bbc.co.uk`` and ``www.bbc.co.uk`` → ``bbc.co.uk``;
``alice.blogspot.com`` and ``bob.github.io`` are sites of their own, since ``blogspot.com`` and ``github.io`` are
private suffixes), plus :data:`PLATFORM_SUFFIXES`, hosting platforms the list lacks. A template is what the pages
of one site share, and the registered domain is the unit that owns them: a newsroom's sections on subdomains
(``money.cnn.com``, ``news.yahoo.com``) are layouts of one site (``fce.layouts`` learns several per site), and
``www.``, ``m.`` or ``amp.`` hosts are the same site by construction. Measured on the 2,744 evaluation pages
with a URL (``../shared/data``): of the 120 one-site folders of msv-big9, cleanportaleval, daniel-small and
dragnet-small, this rule splits 6 across several keys, the host without ``www.`` 8 (``money.cnn.com`` and
``news.yahoo.com`` pages sit in the ``cnn.com`` and ``yahoo.com`` folders); the 6 mix registered domains
(``vulture.com`` pages in the ``nymag.com`` folder), which no rule on the host joins. The price: in the
single-page sets, whose folders are hosts, 73 keys join several folders (``about.com``'s guides, the
``yourguide.com.au`` local papers) — one site with several layouts each. No evaluation URL starts with ``m.`` or
``amp.``.

Hosts with no public suffix (``localhost``, intranet names, ``*.test``) are their own site, without a leading
``www.``; IP addresses are their own site. The list is tldextract's bundled snapshot: no network access and no
cache file (a worker on a cluster must neither download the list nor race others writing a cache).

Every command uses these functions: ``fce learn`` and ``fce detect`` (:func:`normalize_site` for ``--site``,
:func:`site_of` for a page), ``fce ingest`` (``fce.ingest.domains``, :func:`site_from_name`), ``fce serve`` and
``fce sites``; so a template learned by one is found by all. A site name a user gives (``--site``, a request's
``site``, ``fce sites show``) is checked here, in :func:`normalize_site`: no control characters, no whitespace
inside, at most :data:`MAX_SITE_CHARS` characters; anything else is an :class:`~fce.errors.InputError`.
"""

from __future__ import annotations

import ipaddress
from functools import cache, lru_cache
from typing import Any
from urllib.parse import urlsplit

from fce.errors import InputError
from fce.parse import Page

__all__ = [
    "MAX_SITE_CHARS",
    "PLATFORM_SUFFIXES",
    "normalize_site",
    "printable_site",
    "site_from_host",
    "site_from_name",
    "site_from_url",
    "site_of",
    "stored_site_names",
]

#: Longest site name: a DNS name is at most 253 characters written out (255 octets on the wire, RFC 1035 2.3.4).
MAX_SITE_CHARS = 253

#: Hosting platforms that give each user's site its own subdomain, missing from the Public Suffix List's private
#: section (which has ``blogspot.com``, ``github.io``, ``wixsite.com``, ``netlify.app``, ...). Under these, as
#: under a public suffix, ``alice.substack.com`` is a site of its own; without them every publication of the
#: platform would share one template.
PLATFORM_SUFFIXES = ("substack.com", "wordpress.com", "tumblr.com", "medium.com", "livejournal.com",
                     "typepad.com", "ghost.io")

#: Distinct hosts whose site is remembered per process (a crawl file rarely holds more than a few thousand).
HOST_CACHE_SIZE = 65536

#: Characters of a site name shown in an error message; a longer one is cut there.
SHOWN_CHARS = 80

_HTTP_SCHEMES = ("http", "https")


@cache
def _extractor() -> Any:  # a tldextract.TLDExtract, built once per process
    # (imported on first use: tldextract imports requests, 80 ms that commands without a site never pay)
    import tldextract

    return tldextract.TLDExtract(
        cache_dir=None,  # no cache file: nothing written, nothing shared between processes
        suffix_list_urls=(),  # no download: the snapshot bundled with tldextract
        fallback_to_snapshot=True,
        include_psl_private_domains=True,
        extra_suffixes=PLATFORM_SUFFIXES,
    )


def site_from_host(host: str | None) -> str | None:
    """The site of a host name: ``News.BBC.co.uk.`` → ``bbc.co.uk``, ``alice.blogspot.com`` → itself,
    ``www.intranet`` → ``intranet``, ``[::1]`` → ``::1``. None for an empty host or one that no site name can be
    (control characters, whitespace, longer than :data:`MAX_SITE_CHARS`)."""
    if not host:
        return None
    return _site_of_host(host.strip().lower().rstrip("."))


@lru_cache(maxsize=HOST_CACHE_SIZE)
def _site_of_host(host: str) -> str | None:
    if not host or _flaw(host) is not None:
        return None
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        pass
    parts = _extractor()(host)
    if parts.suffix:
        if parts.domain and parts.domain != "www":
            return f"{parts.domain}.{parts.suffix}"
        return parts.suffix  # a bare suffix (co.uk), or a platform's own www.blogspot.com
    while host.startswith("www.") and len(host) > len("www."):  # localhost, an intranet name, *.test
        host = host[len("www."):]
    return host


def site_from_url(url: str | None) -> str | None:
    """The site of an http(s) URL (:func:`site_from_host` of its host), or None for anything else: file paths,
    ``-``, other schemes, a URL with no host or a host no site can have."""
    if not url or "://" not in url:
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:  # a malformed netloc, such as an unclosed IPv6 bracket
        return None
    if parts.scheme.lower() not in _HTTP_SCHEMES:
        return None
    return site_from_host(host)


def site_from_name(name: str | None) -> str | None:
    """The site of an http(s) URL or of a bare host (``news.bbc.co.uk``, ``user@host:8080/path``); None when it
    names none. What ``fce ingest`` groups records by."""
    if not name:
        return None
    if "://" in name:
        return site_from_url(name)
    return site_from_host(_bare_host(name.strip()))


def _bare_host(name: str) -> str:
    """The host of ``host[:port][/path]`` with an optional ``user@``; an IPv6 address with or without brackets."""
    host = name.split("/", 1)[0].rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    return host.split(":", 1)[0] if host.count(":") == 1 else host


def normalize_site(site: str) -> str:
    """The site a user names (``--site``, a request's ``site``, ``fce sites show``): a URL, a host or a bare
    name, as :func:`site_from_name` reads it (``https://WWW.Example.com:8080/x`` → ``example.com``; ``mysite`` →
    ``mysite``). Raises :class:`~fce.errors.InputError` naming it (escaped) for an empty name, a name with
    control characters or whitespace inside, one longer than :data:`MAX_SITE_CHARS`, or a URL of another scheme
    or without a host. Idempotent: a site is its own site."""
    name = site.strip()
    flaw = "empty" if not name else _flaw(name, check_length=False)  # (a URL may be longer than its site)
    if flaw is None:
        found = site_from_name(name)
        if found is not None:
            return found
        if "://" in name:
            flaw = "not an http(s) URL with a host that can name a site"
        else:
            flaw = _flaw(_bare_host(name).lower().rstrip(".")) or "no host name in it"
    raise InputError(f"not a usable site name ({flaw})", source=_shown(site) or '""')


def _flaw(name: str, *, check_length: bool = True) -> str | None:
    """What makes ``name`` unusable as a site name, or None."""
    if check_length and len(name) > MAX_SITE_CHARS:
        return f"longer than {MAX_SITE_CHARS} characters"
    if any(char.isspace() for char in name):  # (tabs and newlines included)
        return "whitespace"
    if not name.isprintable():  # control characters (ANSI escapes, NUL), format characters (bidi overrides)
        return "control characters"
    return None


def stored_site_names(site: str) -> tuple[str, ...]:
    """The keys a user-given site may be stored under, most likely first: its site (:func:`normalize_site`),
    then its host without ``www.``, the key of a record stored before sites were registered domains
    (``news.example.com``). Raises as :func:`normalize_site` does."""
    name = normalize_site(site)
    given = site.strip()
    try:
        host = (urlsplit(given).hostname or "") if "://" in given else _bare_host(given)
    except ValueError:
        return (name,)
    host = host.lower().rstrip(".")
    host = host[len("www."):] if host.startswith("www.") else host
    return (name,) if not host or host == name or _flaw(host) is not None else (name, host)


def printable_site(name: str) -> str:
    """``name`` safe to print on a terminal: characters that are not printable, whitespace and backslashes as
    Python escapes (``\\x1b``, ``\\u202e``, ``\\x20``). A valid site name is printed as it is."""
    return "".join(char if char.isprintable() and not char.isspace() and char != "\\" else _escape(char)
                   for char in name)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown(name: str) -> str:
    return printable_site(name[:SHOWN_CHARS]) + ("…" if len(name) > SHOWN_CHARS else "")


def site_of(page: Page, explicit: str | None = None) -> str | None:
    """The site of ``page``: ``explicit`` (``--site``; :func:`normalize_site`), else the site of its URL, of its
    ``<link rel=canonical>`` or of its ``og:url``."""
    if explicit:
        return normalize_site(explicit)
    site = site_from_url(page.url)
    if site:
        return site
    root = page.root
    for href in root.xpath(
        "//head/link[contains(concat(' ', normalize-space(translate(@rel, 'CANOICL', 'canoicl')), ' '),"
        " ' canonical ')]/@href | //head/meta[@property='og:url']/@content"
    ):
        site = site_from_url(str(href))
        if site:
            return site
    return None
