"""The registered domain of a URL: the key under which ``fce ingest`` groups, learns and stores templates.

``news.bbc.co.uk`` and ``www.bbc.co.uk`` are one site for a crawl (``bbc.co.uk``), so ingestion groups pages by
the domain just below the public suffix, as tldextract computes it from the Public Suffix List. tldextract's
bundled snapshot of the list is used: no network access, no cache directory (a worker on a cluster must not
try to download the list, nor race other workers writing a cache file).

Private suffixes of the list (``blogspot.com``, ``github.io``) count as public suffixes here: every blog on
``blogspot.com`` has its own template, so ``alice.blogspot.com`` is a site of its own.

Hosts without a public suffix (``localhost``, intranet names) and IP addresses are their own domain.
"""

from __future__ import annotations

import ipaddress
from functools import cache, lru_cache
from urllib.parse import urlsplit

__all__ = ["registered_domain"]

#: Distinct hosts whose domain is remembered per process (a crawl file rarely holds more than a few thousand).
HOST_CACHE_SIZE = 65536


@cache
def _extractor():  # -> tldextract.TLDExtract, built once per process (~40 ms: it loads the snapshot)
    import tldextract

    return tldextract.TLDExtract(
        cache_dir=None,  # no cache file: nothing written, nothing shared between processes
        suffix_list_urls=(),  # no download: the snapshot bundled with tldextract
        fallback_to_snapshot=True,
        include_psl_private_domains=True,
    )


def registered_domain(url: str | None) -> str | None:
    """``https://News.BBC.co.uk:8080/x`` → ``bbc.co.uk``; ``None`` when ``url`` is not an http(s) URL with a host.

    A bare host (``news.bbc.co.uk``) is accepted too. IP addresses and hosts without a public suffix are
    returned as they are (lowercase).
    """
    if not url:
        return None
    if "://" in url:
        try:
            parts = urlsplit(url.strip())
            host = parts.hostname
        except ValueError:  # malformed netloc, such as an unclosed IPv6 bracket
            return None
        if parts.scheme.lower() not in ("http", "https") or not host:
            return None
    else:
        host = url.strip().split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0] or None
        if host is None:
            return None
    return _domain_of_host(host.lower().rstrip("."))


@lru_cache(maxsize=HOST_CACHE_SIZE)
def _domain_of_host(host: str) -> str | None:
    if not host:
        return None
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host.strip("[]")
    except ValueError:
        pass
    parts = _extractor()(host)
    if parts.domain and parts.suffix:
        return f"{parts.domain}.{parts.suffix}"
    return host  # localhost, an intranet name, or a bare public suffix such as co.uk
