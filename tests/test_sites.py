import pytest

from fce.parse import parse_page
from fce.sites import normalize_site, site_from_url, site_of


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("https://WWW.Example.com:8080/x", "example.com"), ("www.cnn.com", "cnn.com"), ("cnn.com/path", "cnn.com"),
     ("mysite", "mysite")],
)
def test_normalize_site(raw, expected):
    assert normalize_site(raw) == expected


def test_site_from_url_ignores_non_http():
    assert site_from_url("file:///tmp/x.html") is None and site_from_url("-") is None


@pytest.mark.parametrize(
    "head",
    ['<link rel="canonical" href="https://www.news.test/a">', '<meta property="og:url" content="http://news.test/">'],
)
def test_site_from_canonical_or_og_url(head):
    page = parse_page(f"<html><head>{head}</head><body><p>x</p></body></html>".encode())
    assert site_of(page) == "news.test"


def test_explicit_and_url_win():
    page = parse_page(b'<html><head><link rel="canonical" href="https://a.test/"></head><body>x</body></html>',
                      url="https://b.test/page")
    assert site_of(page) == "b.test"
    assert site_of(page, "C.test") == "c.test"
