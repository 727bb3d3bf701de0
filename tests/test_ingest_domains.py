"""fce.ingest.domains: ingestion groups records by the site every command uses (fce.sites), without network."""

from __future__ import annotations

import socket

import pytest

from fce.ingest.domains import registered_domain
from fce.sites import normalize_site, site_from_name


@pytest.mark.parametrize(("url", "domain"), [
    ("https://www.example.com/a/b", "example.com"),
    ("http://News.BBC.co.uk:8080/x?y=1", "bbc.co.uk"),
    ("https://a.b.c.example.org./", "example.org"),
    ("https://alice.blogspot.com/post", "alice.blogspot.com"),  # a private suffix: each blog is a site
    ("https://dave.substack.com/p/1", "dave.substack.com"),  # a platform the list lacks (fce.sites)
    ("https://user:pw@shop.example.de/", "example.de"),
    ("https://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com"),
    ("https://例え.jp/ページ", "例え.jp"),
    ("http://127.0.0.1:8000/", "127.0.0.1"),
    ("http://[::1]/", "::1"),
    ("http://localhost/x", "localhost"),
    ("http://www.intranet/x", "intranet"),
    ("http://co.uk/", "co.uk"),
    ("news.bbc.co.uk", "bbc.co.uk"),  # a bare host
    ("ftp://example.com/file", None),
    ("file:///etc/passwd", None),
    ("http://[unclosed/", None),
    ("https://a\x1b[31mb.example.com/", None),  # a host that cannot name a site: the record has none
    ("", None),
    (None, None),
])
def test_registered_domain(url: str | None, domain: str | None) -> None:
    assert registered_domain(url) == domain


@pytest.mark.parametrize("url", ["https://news.example.com/x", "https://www.alice.blogspot.com/",
                                 "http://[::1]:8080/", "http://www.intranet/", "https://例え.jp/"])
def test_ingest_keys_are_the_sites_of_the_other_commands(url: str) -> None:
    domain = registered_domain(url)
    assert domain == site_from_name(url) == normalize_site(url)  # fce learn --site URL stores it there
    assert registered_domain(domain) == domain  # a key is its own key (a page that names no URL)


def test_no_network_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from fce import sites

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tldextract tried to connect")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    sites._extractor.cache_clear()
    sites._site_of_host.cache_clear()
    assert registered_domain("https://www.theguardian.co.uk/") == "theguardian.co.uk"
