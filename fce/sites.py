"""Which site a page belongs to: the key its template is stored under."""

from __future__ import annotations

from urllib.parse import urlsplit

from fce.parse import Page

__all__ = ["normalize_site", "site_from_url", "site_of"]


def normalize_site(site: str) -> str:
    """``https://WWW.Example.com:8080/x`` or ``www.example.com`` → ``example.com`` (lowercase host, no ``www.``,
    no port). A bare name without dots (``mysite``) is kept as given, lowercased."""
    site = site.strip()
    host = site_from_url(site) if "://" in site else site.split("/", 1)[0]
    host = (host or site).lower().rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    return host


def site_from_url(url: str | None) -> str | None:
    """The normalised host of an http(s) URL, or None for anything else (file paths, ``-``)."""
    if not url or "://" not in url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def site_of(page: Page, explicit: str | None = None) -> str | None:
    """The site of ``page``: ``explicit`` (``--site``), else its URL, ``<link rel=canonical>`` or ``og:url``."""
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
