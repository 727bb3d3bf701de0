"""The site of a record: the key under which ``fce ingest`` groups, learns and stores templates.

It is the site every other command uses (:mod:`fce.sites`: the registered domain per the Public Suffix List with
its private section, tldextract's bundled snapshot, no network), so that a template learned by ``fce learn`` or
``fce serve`` is the one ingestion applies, and the other way round. ``news.bbc.co.uk`` and ``www.bbc.co.uk`` are
one site (``bbc.co.uk``); every blog on ``blogspot.com`` is a site of its own (``alice.blogspot.com``). Hosts
without a public suffix (``localhost``, intranet names) and IP addresses are their own site.
"""

from __future__ import annotations

from fce.sites import site_from_name

__all__ = ["registered_domain"]


def registered_domain(url: str | None) -> str | None:
    """``https://News.BBC.co.uk:8080/x`` → ``bbc.co.uk``: the site of an http(s) URL, or of a bare host
    (``news.bbc.co.uk``); None when it names none (:func:`fce.sites.site_from_name`)."""
    return site_from_name(url)
