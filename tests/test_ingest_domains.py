"""fce.ingest.domains: registered domains from the bundled Public Suffix List, without network."""

from __future__ import annotations

import socket

import pytest

from fce.ingest.domains import registered_domain


@pytest.mark.parametrize(("url", "domain"), [
    ("https://www.example.com/a/b", "example.com"),
    ("http://News.BBC.co.uk:8080/x?y=1", "bbc.co.uk"),
    ("https://a.b.c.example.org./", "example.org"),
    ("https://alice.blogspot.com/post", "alice.blogspot.com"),  # a private suffix: each blog is a site
    ("https://user:pw@shop.example.de/", "example.de"),
    ("https://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com"),
    ("https://例え.jp/ページ", "例え.jp"),
    ("http://127.0.0.1:8000/", "127.0.0.1"),
    ("http://[::1]/", "::1"),
    ("http://localhost/x", "localhost"),
    ("http://co.uk/", "co.uk"),
    ("news.bbc.co.uk", "bbc.co.uk"),  # a bare host
    ("ftp://example.com/file", None),
    ("file:///etc/passwd", None),
    ("http://[unclosed/", None),
    ("", None),
    (None, None),
])
def test_registered_domain(url: str | None, domain: str | None) -> None:
    assert registered_domain(url) == domain


def test_no_network_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from fce.ingest import domains

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tldextract tried to connect")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    domains._extractor.cache_clear()
    domains._domain_of_host.cache_clear()
    assert registered_domain("https://www.theguardian.co.uk/") == "theguardian.co.uk"
