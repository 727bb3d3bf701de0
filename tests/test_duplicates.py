"""fce.duplicates: which pages of a learning sample are copies of another, and why."""

import pytest

from fce.blocks import blocks_of
from fce.duplicates import NEAR_DUPLICATE, SAME_CONTENT, SAME_URL, Duplicate, distinct_pages, normalize_url
from tests._handmade import SITE, Article, article_page, comments, page


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://www.Example.com/a/1/", "example.com/a/1"),
        ("http://example.com/a/1#comments", "example.com/a/1"),
        ("https://example.com/a/1?utm_source=x&utm_medium=y&fbclid=z", "example.com/a/1"),
        ("https://example.com/a?id=2&page=1", "example.com/a?id=2&page=1"),
        ("https://example.com/a?page=1&id=2", "example.com/a?id=2&page=1"),  # the query's order says nothing
        ("https://example.com/a?id=2", "example.com/a?id=2"),
        (None, None),
        ("", None),
    ],
)
def test_normalize_url(url, expected):
    assert normalize_url(url) == expected


def _trees(pages):  # type: ignore[no-untyped-def]
    return [blocks_of(p) for p in pages]


def _titles(pages):  # type: ignore[no-untyped-def]
    return [p.root.findtext(".//title") for p in pages]


def test_copies_are_found_by_url_content_and_prose():
    one, two, three = Article.make(1), Article.make(2), Article.make(3)
    pages = [
        article_page(one, talk=comments(10, 2)),
        article_page(two),
        article_page(one, talk=comments(11, 2), url=f"https://www.{SITE}/a/1/?utm_source=feed"),  # a later capture
        article_page(one, url=f"https://{SITE}/print/1"),  # the print view: other comments, same article
        article_page(two, url=f"https://{SITE}/a/2"),  # the very same page
        article_page(three),
    ]
    kept, dropped = distinct_pages(_trees(pages), [p.url for p in pages], _titles(pages))
    assert kept == [0, 1, 5]
    assert dropped == [Duplicate(2, 0, SAME_URL), Duplicate(3, 0, NEAR_DUPLICATE), Duplicate(4, 1, SAME_URL)]
    # without URLs, the same page is found by its content
    kept, dropped = distinct_pages(_trees(pages), None, _titles(pages))
    assert kept == [0, 1, 5] and [d.reason for d in dropped] == [NEAR_DUPLICATE, NEAR_DUPLICATE, SAME_CONTENT]


def test_pages_with_other_titles_are_never_near_duplicates():
    # two articles sharing most of their prose (a paywall's subscription text, the day's teasers) are not copies
    shared = tuple(Article.make(7).paragraphs)
    first = Article(1, "Harbor budget passes", (*shared, "A first article of its own."))
    second = Article(2, "Rail strike ends", (*shared, "A second article of its own."))
    pages = [article_page(first), article_page(second)]
    assert distinct_pages(_trees(pages), [p.url for p in pages], _titles(pages)) == ([0, 1], [])
    # without titles (bare block trees), prose alone never makes pages copies
    copies = [article_page(first), article_page(first, talk=comments(3, 2), url=f"https://{SITE}/print/1")]
    assert distinct_pages(_trees(copies), [p.url for p in copies]) == ([0, 1], [])
    assert distinct_pages(_trees(copies), [p.url for p in copies], _titles(copies))[0] == [0]


def test_pages_without_prose_are_compared_by_content_only():
    empty = "<html><head><title>Gallery</title></head><body><div><a href=/1>one</a></div></body></html>"
    other = "<html><head><title>Gallery</title></head><body><div><a href=/2>two</a></div></body></html>"
    pages = [page(empty, f"https://{SITE}/g/1"), page(other, f"https://{SITE}/g/2"), page(empty, None)]
    kept, dropped = distinct_pages(_trees(pages), [p.url for p in pages], _titles(pages))
    assert kept == [0, 1] and dropped == [Duplicate(2, 0, SAME_CONTENT)]
