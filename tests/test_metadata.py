"""Tests of :mod:`fce.metadata`: every source and precedence rule on hand-made pages, the normalisers (dates,
authors, titles, languages) as tables, hostile inputs, and a property: any text gives a Metadata, never an error."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fce import metadata
from fce.metadata import (
    BODY_SCAN_CHARS,
    Metadata,
    clean_title,
    extract_metadata,
    normalize_date,
    normalize_language,
    raw_title,
    split_authors,
)

#: Seconds a hostile page may take (the slowest below take a few milliseconds; a quadratic scan takes minutes).
HOSTILE_LIMIT = 2.0


def page(head: str = "", body: str = "", lang: str | None = None) -> str:
    """A small page around ``head`` and ``body`` markup."""
    html_tag = f'<html lang="{lang}">' if lang else "<html>"
    return f"<!DOCTYPE html>\n{html_tag}<head>{head}</head><body>{body}</body></html>"


def ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


ARTICLE_LD = {
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    "headline": "Harbour plan approved",
    "author": [{"@type": "Person", "name": "Jane Doe"}, {"@type": "Person", "name": "John Roe"}],
    "datePublished": "2024-05-02T09:30:00+02:00",
    "dateModified": "2024-05-03T10:00:00+02:00",
    "description": "The council approved the harbour plan.",
    "inLanguage": "en-GB",
    "keywords": "harbour, council",
    "articleSection": "Local",
    "image": {"@type": "ImageObject", "url": "https://example.com/harbour.jpg"},
    "publisher": {"@type": "NewsMediaOrganization", "name": "The Example Times"},
}


# --- the value type ------------------------------------------------------------------------------------------------


def test_metadata_is_frozen_and_empty_by_default() -> None:
    meta = Metadata()
    assert meta.title is None and meta.authors == () and meta.tags == ()
    with pytest.raises(AttributeError):
        meta.title = "x"  # type: ignore[misc]


def test_to_dict_keeps_only_values_and_lists_tuples() -> None:
    meta = Metadata(title="T", authors=("A", "B"), published="2024-05-02", tags=())
    assert meta.to_dict() == {"title": "T", "authors": ["A", "B"], "published": "2024-05-02"}
    assert json.loads(json.dumps(meta.to_dict())) == meta.to_dict()
    assert Metadata().to_dict() == {}


# --- JSON-LD -------------------------------------------------------------------------------------------------------


def test_json_ld_article_gives_every_field() -> None:
    meta = extract_metadata(page(ld(ARTICLE_LD)), url="https://example.com/news/harbour")
    assert meta.title == "Harbour plan approved"
    assert meta.authors == ("Jane Doe", "John Roe")
    assert meta.published == "2024-05-02T09:30:00+02:00"
    assert meta.modified == "2024-05-03T10:00:00+02:00"
    assert meta.description == "The council approved the harbour plan."
    assert meta.language == "en-GB"
    assert meta.tags == ("harbour", "council")
    assert meta.categories == ("Local",)
    assert meta.image == "https://example.com/harbour.jpg"
    assert meta.site_name == "The Example Times"
    assert meta.page_type == "NewsArticle"


def test_json_ld_graph_with_id_references() -> None:
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "@id": "https://example.com/#site", "name": "Example Site"},
        {"@type": "WebPage", "@id": "https://example.com/a#page", "name": "A page - Example Site"},
        {"@type": "Person", "@id": "https://example.com/#/person/1", "name": "Ann Author"},
        {"@type": ["Article", "BlogPosting"], "headline": "A headline", "author": {"@id": "https://example.com/#/person/1"},
         "datePublished": "2023-01-05", "isPartOf": {"@id": "https://example.com/a#page"}},
    ]}
    meta = extract_metadata(page(ld(graph)))
    assert meta.title == "A headline"
    assert meta.authors == ("Ann Author",)
    assert meta.published == "2023-01-05"
    assert meta.page_type == "Article"
    assert meta.site_name == "Example Site"  # no publisher: the WebSite's name


@pytest.mark.parametrize(("author", "expected"), [
    ("Jane Doe", ("Jane Doe",)),
    ({"@type": "Person", "name": "Jane Doe"}, ("Jane Doe",)),
    ([{"name": "Jane Doe"}, "John Roe"], ("Jane Doe", "John Roe")),
    ({"@type": "Person", "givenName": "Jane", "familyName": "Doe"}, ("Jane Doe",)),
    ({"@type": "Organization", "name": "BBC News"}, ("BBC News",)),
    ({"name": ["Jane Doe", "John Roe"]}, ("Jane Doe", "John Roe")),
    ("https://example.com/author/jane", ()),
])
def test_json_ld_author_shapes(author: object, expected: tuple[str, ...]) -> None:
    data = {"@context": "http://schema.org", "@type": "Article", "headline": "H", "author": author}
    assert extract_metadata(page(ld(data))).authors == expected


@pytest.mark.parametrize(("image", "expected"), [
    ("https://example.com/a.jpg", "https://example.com/a.jpg"),
    ({"@type": "ImageObject", "url": "https://example.com/b.jpg"}, "https://example.com/b.jpg"),
    (["https://example.com/c.jpg", "https://example.com/d.jpg"], "https://example.com/c.jpg"),
    ([{"url": "/e.jpg"}], "https://example.com/e.jpg"),
])
def test_json_ld_image_shapes(image: object, expected: str) -> None:
    data = {"@context": "https://schema.org", "@type": "Article", "headline": "H", "image": image}
    assert extract_metadata(page(ld(data)), url="https://example.com/x/y").image == expected


def test_json_ld_main_entity_prefers_an_article_to_a_page_and_reads_product_and_qa() -> None:
    both = [{"@context": "https://schema.org", "@type": "WebPage", "name": "Page"},
            {"@context": "https://schema.org", "@type": "BlogPosting", "headline": "Post"}]
    assert extract_metadata(page(ld(both[0]) + ld(both[1]))).page_type == "BlogPosting"
    product = {"@context": "https://schema.org", "@type": "Product", "name": "Blue kettle",
               "description": "A kettle.", "brand": {"@type": "Brand", "name": "Acme"}}
    meta = extract_metadata(page(ld(product)))
    assert (meta.page_type, meta.title, meta.description) == ("Product", "Blue kettle", "A kettle.")
    qa = {"@context": "https://schema.org", "@type": "QAPage",
          "mainEntity": {"@type": "Question", "name": "How do I boil water?"}}
    assert extract_metadata(page(ld(qa))).page_type == "Question"
    listing = {"@context": "https://schema.org", "@type": "ItemList", "name": "Best kettles"}
    assert extract_metadata(page(ld(listing))).page_type == "ItemList"


def test_json_ld_name_or_headline_whichever_is_closer_to_the_title() -> None:
    data = {"@context": "https://schema.org", "@type": "Article", "name": "New Zealand",
            "headline": "constitutional monarchy in Oceania"}
    meta = extract_metadata(page("<title>New Zealand - Wikipedia</title>" + ld(data)))
    assert meta.title == "New Zealand"


@pytest.mark.parametrize("script", [
    '<script type="application/ld+json">{"@type": "Article", "headline": "H",</script>',
    '<script type="application/ld+json">not json at all</script>',
    '<script type="application/ld+json"></script>',
    '<script type="application/ld+json">' + "[" * 5000 + "</script>",
    '<script type="application/ld+json">"just a string"</script>',
    '<script type="application/ld+json">{"@type": {"odd": 1}, "author": {"name": 3}, "image": [[[]]]}</script>',
    '<script type="application/ld+json">{"@type": "Article", "headline": "H"',
])
def test_malformed_json_ld_is_skipped(script: str) -> None:
    meta = extract_metadata(page("<title>Fallback title</title>" + script))
    assert meta.title == "Fallback title"


def test_json_ld_in_a_comment_or_cdata_or_with_a_trailing_comma() -> None:
    for body in ('<!-- {"@type": "Article", "headline": "Wrapped"} -->',
                 '//<![CDATA[\n{"@type": "Article", "headline": "Wrapped"}\n//]]>',
                 '{"@type": "Article", "headline": "Wrapped",}'):
        html = page(f'<script type="application/ld+json">{body}</script>')
        assert extract_metadata(html).title == "Wrapped"


def test_json_ld_commented_out_is_not_read_as_the_parse_does_not_see_it() -> None:
    from fce.parse import LINKED_DATA_KEY, parse_page

    script = '<script type="application/ld+json">{"@type": "Article", "headline": "%s"}</script>'
    html = page("<title>Page title</title>", "<!-- old: " + script % "Commented" + " -->" + script % "Live")
    assert extract_metadata(html).title == "Live"
    scripts = parse_page(html.encode(), blocks="qualified").cache.get(LINKED_DATA_KEY)
    if scripts is not None:  # (the parse's event walk, where compiled, keeps the scripts it saw: the live one)
        assert scripts == ['{"@type": "Article", "headline": "Live"}']
        assert extract_metadata(html, linked_data=scripts) == extract_metadata(html)
    only = page("<title>Page title</title>", "<!-- " + script % "Commented" + " -->")
    assert extract_metadata(only).title == "Page title"


def test_json_ld_in_the_body_is_read() -> None:
    html = page("<title>Old - Site</title>", "<p>text</p>" * 50 + ld(ARTICLE_LD))
    assert extract_metadata(html).authors == ("Jane Doe", "John Roe")


# --- Open Graph and meta names -----------------------------------------------------------------------------------


OG_HEAD = """
<meta property="og:title" content="Harbour plan approved">
<meta property="og:site_name" content="Example Times">
<meta property="og:description" content="Approved at last.">
<meta property="og:image" content="/img/harbour.jpg">
<meta property="og:url" content="https://example.com/harbour">
<meta property="og:type" content="article">
<meta property="article:published_time" content="2024-05-02T09:30:00Z">
<meta property="article:modified_time" content="2024-05-03T10:00:00Z">
<meta property="article:author" content="Jane Doe">
<meta property="article:section" content="Local">
<meta property="article:tag" content="harbour">
<meta property="article:tag" content="council">
"""


def test_open_graph_gives_every_field() -> None:
    meta = extract_metadata(page(OG_HEAD), url="https://example.com/harbour?utm=x")
    assert meta.title == "Harbour plan approved"
    assert meta.site_name == "Example Times"
    assert meta.description == "Approved at last."
    assert meta.image == "https://example.com/img/harbour.jpg"
    assert meta.canonical_url == "https://example.com/harbour"
    assert meta.page_type == "article"
    assert meta.published == "2024-05-02T09:30:00+00:00"
    assert meta.modified == "2024-05-03T10:00:00+00:00"
    assert meta.authors == ("Jane Doe",)
    assert meta.categories == ("Local",)
    assert meta.tags == ("harbour", "council")


@pytest.mark.parametrize(("head", "field", "expected"), [
    ('<meta name="author" content="Jane Doe">', "authors", ("Jane Doe",)),
    ('<meta name="DC.creator" content="Doe, Jane">', "authors", ("Jane Doe",)),
    ('<meta name="dcterms.creator" content="Roe, John">', "authors", ("John Roe",)),
    ('<meta name="citation_author" content="Kooman, F.">', "authors", ("F. Kooman",)),
    ('<meta name="parsely-author" content="Jane Doe">', "authors", ("Jane Doe",)),
    ('<meta name="sailthru.author" content="Jane Doe">', "authors", ("Jane Doe",)),
    ('<meta property="article:author" content="https://facebook.com/jane">', "authors", ()),
    ('<meta name="description" content="A page &amp; its summary.">', "description", "A page & its summary."),
    # encoded twice (a CMS escaping its own escapes): decoded twice, as Readability.js reads meta values
    ('<meta name="description" content="That&amp;#039;s AT&amp;amp;T &amp;#x1F62D;">', "description",
     "That's AT&T \U0001f62d"),
    ('<meta property="og:title" content="Fish &amp;amp; chips">', "title", "Fish & chips"),
    ('<meta name="keywords" content="a, b ,c">', "tags", ("a", "b", "c")),
    ('<meta name="news_keywords" content="x">', "tags", ("x",)),
    ('<meta name="parsely-tags" content="tag,tag-with-dashes">', "tags", ("tag", "tag-with-dashes")),
    ('<meta name="parsely-section" content="front-page">', "categories", ("front-page",)),
    ('<meta name="date" content="2021-03-04">', "published", "2021-03-04"),
    ('<meta name="pubdate" content="20210304">', "published", "2021-03-04"),
    ('<meta name="publishdate" content="2021-03-04 10:11:12">', "published", "2021-03-04T10:11:12"),
    ('<meta name="dc.date" content="04.03.2021">', "published", "2021-03-04"),
    ('<meta name="DC.date.issued" content="2021-03-04">', "published", "2021-03-04"),
    ('<meta name="dcterms.created" content="2021-03-04">', "published", "2021-03-04"),
    ('<meta name="parsely-pub-date" content="2024-04-20T04:20:00.000Z">', "published", "2024-04-20T04:20:00+00:00"),
    ('<meta name="sailthru.date" content="Tue, 20 Apr 2021 04:20:00 GMT">', "published",
     "2021-04-20T04:20:00+00:00"),
    ('<meta name="parsely-title" content="Parsely title">', "title", "Parsely title"),
    ('<meta name="twitter:title" content="Twitter title">', "title", "Twitter title"),
    ('<meta name="application-name" content="Example App">', "site_name", "Example App"),
    ('<meta name="twitter:site" content="@example">', "site_name", "example"),
    ('<meta http-equiv="content-language" content="de-de">', "language", "de-DE"),
    ('<meta property="og:locale" content="pt_BR">', "language", "pt-BR"),
    ('<meta name="twitter:image" content="https://cdn.example.com/t.png">', "image", "https://cdn.example.com/t.png"),
    ('<link rel="canonical" href="/canonical/path">', "canonical_url", "https://example.com/canonical/path"),
    ('<link href="https://example.com/c" rel="canonical">', "canonical_url", "https://example.com/c"),
])
def test_meta_sources(head: str, field: str, expected: object) -> None:
    meta = extract_metadata(page(head), url="https://example.com/page")
    assert getattr(meta, field) == expected


def test_meta_keys_are_case_insensitive_and_space_separated_lists() -> None:
    head = ('<META NAME="Description" CONTENT="Upper case">'
            '<meta property="x:title dc:title" content="Preferred title">'
            "<meta content='Content first' name='author'>"
            '<meta data-rh="true" property="og:type" content="website"/>')
    meta = extract_metadata(page(head))
    assert meta.description == "Upper case"
    assert meta.title == "Preferred title"
    assert meta.authors == ("Content first",)
    assert meta.page_type == "website"


def test_html_lang_and_base_href() -> None:
    html = page('<base href="https://cdn.example.org/base/"><meta property="og:image" content="pic.jpg">',
                lang="fr_fr")
    meta = extract_metadata(html, url="https://example.com/a/b")
    assert meta.language == "fr-FR"
    assert meta.image == "https://cdn.example.org/base/pic.jpg"


# --- precedence ----------------------------------------------------------------------------------------------------


def test_json_ld_outranks_open_graph_for_authors_and_dates() -> None:
    head = OG_HEAD + ld(ARTICLE_LD)
    meta = extract_metadata(page(head))
    assert meta.authors == ("Jane Doe", "John Roe")
    assert meta.published == "2024-05-02T09:30:00+02:00"
    assert meta.site_name == "The Example Times"
    assert meta.categories == ("Local",)
    assert meta.page_type == "NewsArticle"


def test_same_instant_prefers_the_local_time() -> None:
    data = {"@context": "https://schema.org", "@type": "Article", "headline": "H",
            "datePublished": "2017-02-24T01:18:13Z"}
    head = '<meta property="article:published_time" content="2017-02-23T17:18:13-08:00">' + ld(data)
    assert extract_metadata(page(head)).published == "2017-02-23T17:18:13-08:00"
    other = '<meta property="article:published_time" content="2017-02-20T17:18:13-08:00">' + ld(data)
    assert extract_metadata(page(other)).published == "2017-02-24T01:18:13+00:00"


def test_title_the_one_the_title_element_agrees_with() -> None:
    data = {"@context": "https://schema.org", "@type": "Article", "headline": "Vision Pro hands-on: a moment"}
    head = ("<title>Vision Pro hands-on: a moment - The Verge</title>"
            '<meta property="og:title" content="Vision Pro is a moment">' + ld(data))
    assert extract_metadata(page(head)).title == "Vision Pro hands-on: a moment"
    # og:title agreeing with <title> wins over a JSON-LD headline that does not
    head = ("<title>Seven secrets hotel owners keep from you | The Independent</title>"
            '<meta property="og:title" content="Seven secrets hotel owners keep from you">'
            + ld({"@context": "https://schema.org", "@type": "Article", "headline": "The seven secrets"}))
    assert extract_metadata(page(head)).title == "Seven secrets hotel owners keep from you"
    # no agreement: JSON-LD first
    head = ("<title>Something else entirely</title>"
            '<meta property="og:title" content="Social title">'
            + ld({"@context": "https://schema.org", "@type": "Article", "headline": "Structured title"}))
    assert extract_metadata(page(head)).title == "Structured title"


def test_title_keeps_og_title_as_written_and_cleans_only_the_title_element() -> None:
    assert extract_metadata(page('<meta property="og:title" content="How to cook | eHow">')).title == \
        "How to cook | eHow"
    assert extract_metadata(page("<title>How to cook rice well | eHow</title>"),
                            url="https://www.ehow.com/x").title == "How to cook rice well"


def test_dublin_core_before_open_graph() -> None:
    head = ('<meta property="og:title" content="OG title"><meta name="DC.title" content="DC title">'
            '<meta name="author" content="Meta Author"><meta name="dc.creator" content="Dc Creator">')
    meta = extract_metadata(page(head))
    assert (meta.title, meta.authors) == ("DC title", ("Dc Creator",))


def test_description_precedence_and_the_uncut_version() -> None:
    head = ('<meta property="og:description" content="Social text.">'
            '<meta name="description" content="Search text.">')
    assert extract_metadata(page(head)).description == "Search text."
    cut = ('<meta name="description" content="President tells the BBC his failure to pass ">'
           '<meta property="og:description" content="President tells the BBC his failure to pass the law.">')
    assert extract_metadata(page(cut)).description == "President tells the BBC his failure to pass the law."
    ellipsis = ('<meta name="description" content="A long story about harbours that…">'
                '<meta property="og:description" content="A long story about harbours that never ends.">')
    assert extract_metadata(page(ellipsis)).description == "A long story about harbours that never ends."


def test_description_falls_back_to_the_first_long_paragraph_after_the_headline() -> None:
    paragraph = "The council approved the new harbour plan on Monday after a debate that lasted three hours."
    body = f"<nav><p>Home</p></nav><h1>Harbour plan approved today</h1><p>By Jane</p><p>{paragraph}</p>"
    meta = extract_metadata(page("<title>Harbour plan approved today</title>", body))
    assert meta.description == paragraph
    for start_tag in ('<p class="lead" data-note="a > b">', "<P\nALIGN=left>"):  # its attributes are not text
        body = f"<h1>Harbour plan approved today</h1>{start_tag}{paragraph}</p>"
        html = page("<title>Harbour plan approved today</title>", body)
        assert extract_metadata(html).description == paragraph
        assert extract_metadata(html.encode(), linked_data=[]).description == paragraph


def test_url_date_is_the_last_resort() -> None:
    meta = extract_metadata(page("<title>x</title>"), url="https://example.com/2019/04/28/story.html")
    assert meta.published == "2019-04-28"
    assert extract_metadata(page("<title>x</title>"), url="https://example.com/story").published is None


# --- the body ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "expected"), [
    ('<h1>Harbour plan approved today</h1><div class="byline">By Jane Doe and John Roe</div>',
     ("Jane Doe", "John Roe")),
    ('<h1>Harbour plan approved today</h1><span class="author"><a rel="author" href="/j">Jane Doe</a></span>',
     ("Jane Doe",)),
    ('<h1>Harbour plan approved today</h1><p class="Byline">By Nathan Willis<br>March 25, 2015</p>',
     ("Nathan Willis",)),
    ('<h1>Harbour plan approved today</h1><div itemprop="author" itemscope>'
     '<span class="role">Reporter</span> <span itemprop="name">Jane Doe</span></div>', ("Jane Doe",)),
    ('<h1>Harbour plan approved today</h1><meta itemprop="author" content="Jane Doe">', ("Jane Doe",)),
    ('<h1>Harbour plan approved today</h1><p class="byline"><span class="by">by</span> '
     '<a class="byauthor">Lucas Nolan</a><span class="bydate">22 Dec 2016</span></p>', ("Lucas Nolan",)),
    ('<div class="author-login">Sign In | Sign Up</div><h1>Harbour plan approved today</h1>', ()),
])
def test_byline_markup(body: str, expected: tuple[str, ...]) -> None:
    assert extract_metadata(page("<title>Harbour plan approved today</title>", body)).authors == expected


def test_structured_authors_skip_the_body() -> None:
    body = '<h1>Harbour plan approved today</h1><div class="byline">By Someone Else</div>'
    meta = extract_metadata(page('<meta name="author" content="Jane Doe">', body))
    assert meta.authors == ("Jane Doe",)


@pytest.mark.parametrize(("body", "expected"), [
    ('<h1>Harbour plan approved</h1><time datetime="2015-07-10T09:53:00-04:00">July 10</time>',
     "2015-07-10T09:53:00-04:00"),
    ('<time class="updated" datetime="2016-01-01">x</time><time pubdate datetime="2015-07-10">y</time>',
     "2015-07-10"),
    ('<span itemprop="datePublished" content="2014-09-02T08:35:27-04:00">Sep 2</span>'
     '<time datetime="2020-01-01">Comment</time>', "2014-09-02T08:35:27-04:00"),
    ("<time>March 11, 2015 3:46 PM</time>", "2015-03-11T15:46:00"),
])
def test_body_dates(body: str, expected: str) -> None:
    assert extract_metadata(page("<title>Harbour plan approved</title>", body)).published == expected


def test_read_body_false_reads_only_the_head_and_json_ld() -> None:
    body = ('<h1>Harbour plan approved today</h1><div class="byline">By Jane Doe</div>'
            '<time datetime="2020-01-02">x</time><p>' + "a long paragraph of text " * 10 + "</p>" + ld(ARTICLE_LD))
    html = page("<title>Harbour plan approved today</title>", body)
    full, head_only = extract_metadata(html), extract_metadata(html.replace(ld(ARTICLE_LD), ""), read_body=False)
    assert full.authors == ("Jane Doe", "John Roe")  # JSON-LD, wherever it is, in both modes
    assert extract_metadata(html, read_body=False).authors == ("Jane Doe", "John Roe")
    assert (head_only.authors, head_only.published, head_only.description) == ((), None, None)


def test_the_body_window_is_bounded() -> None:
    far = "<p>filler text</p>" * (3 * BODY_SCAN_CHARS // 18)
    body = "<h1>Harbour plan approved today</h1>" + far + '<div class="byline">By Jane Doe</div>'
    assert extract_metadata(page("<title>Harbour plan approved today</title>", body)).authors == ()


def test_the_window_starts_at_the_headline_not_at_the_navigation() -> None:
    nav = '<a href="/h">Harbour plan approved today</a>' + "<p>menu entry</p>" * 300
    body = nav + '<h1 class="headline">Harbour plan approved today</h1><div class="byline">By Jane Doe</div>'
    html = page("<title>Harbour plan approved today</title>", body + "<p>x</p>" * 10000)
    assert extract_metadata(html).authors == ("Jane Doe",)


# --- normalisers -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [
    ("2015-07-24", "2015-07-24"),
    ("2015-07-24T05:36:09+01:00", "2015-07-24T05:36:09+01:00"),
    ("2015-07-24T05:36:09Z", "2015-07-24T05:36:09+00:00"),
    ("2015-03-27T13:07:55.096Z", "2015-03-27T13:07:55+00:00"),
    ("2021-11-01T10:52:50+0100", "2021-11-01T10:52:50+01:00"),
    ("2017-11-03 03:01:00.000000", "2017-11-03T03:01:00"),
    ("2015-07-24T05:36", "2015-07-24T05:36:00"),
    ("20150724", "2015-07-24"),
    ("2015/07/24", "2015-07-24"),
    ("2015.07.24", "2015-07-24"),
    ("2017-04-06 02:10:58 EDT", "2017-04-06T02:10:58-04:00"),
    ("Fri, 24 Jul 2015 05:36:09 GMT", "2015-07-24T05:36:09+00:00"),
    ("Fri, 24 Jul 2015 05:36:09 +0200", "2015-07-24T05:36:09+02:00"),
    ("July 24, 2015", "2015-07-24"),
    ("Jul. 24, 2015", "2015-07-24"),
    ("24 July 2015", "2015-07-24"),
    ("24th July, 2015", "2015-07-24"),
    ("2. Mai 2024", "2024-05-02"),
    ("2 mai 2024", "2024-05-02"),
    ("2 de mayo de 2024", "2024-05-02"),
    ("March 11, 2015 3:46 PM", "2015-03-11T15:46:00"),
    ("April 28, 2019 at 6:01 am", "2019-04-28T06:01:00"),
    ("12:30 AM, March 11, 2015", "2015-03-11"),
    ("24.07.2015", "2015-07-24"),
    ("07/24/2015", "2015-07-24"),
    ("24/07/2015", "2015-07-24"),
    ("1437716169", "2015-07-24T05:36:09+00:00"),
    ("1437716169000", "2015-07-24T05:36:09+00:00"),
    ("  2015-07-24  ", "2015-07-24"),
    ("2015-02-30", None),
    ("2015-13-01", None),
    ("0000-00-00", None),
    ("1800-01-01", None),
    ("2016-02-29", "2016-02-29"),
    ("2015-02-29", None),
    ("2015-07-24T25:00:00", "2015-07-24"),
    ("yesterday", None),
    ("", None),
    ("May", None),
])
def test_normalize_date(value: str, expected: str | None) -> None:
    assert normalize_date(value) == expected


def test_normalize_date_refuses_non_strings() -> None:
    assert normalize_date(None) is None  # type: ignore[arg-type]
    assert normalize_date(20150724) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "expected"), [
    ("Jane Doe", ("Jane Doe",)),
    ("By Jane Doe and John Roe", ("Jane Doe", "John Roe")),
    ("by Jane Doe, John Roe & Ann Poe", ("Jane Doe", "John Roe", "Ann Poe")),
    ("Jane Doe; John Roe", ("Jane Doe", "John Roe")),
    ("Written by Rob Ewaschuk Edited by Betsy Beyer", ("Rob Ewaschuk", "Betsy Beyer")),
    ("Martin Untersinger (avec Damien Leloup et Morgane Tual)", ("Martin Untersinger", "Damien Leloup",
                                                                 "Morgane Tual")),
    ("Bruno (Henrique Zecchin) Rodrigues", ("Bruno (Henrique Zecchin) Rodrigues",)),
    ("Par Sébastien Farcis", ("Sébastien Farcis",)),
    ("Von Anna Müller und Max Mustermann", ("Anna Müller", "Max Mustermann")),
    ("Tech Industry by Steven Musil January 18, 2017 11:00 PM PST @stevenmusil", ("Steven Musil",)),
    ("By GILLIAN MOHNEY March 11, 2015 3:46 PM", ("Gillian Mohney",)),
    ("Lucas Nolan22 Dec 2016651", ("Lucas Nolan",)),
    ("Jane Doe, Staff Writer", ("Jane Doe",)),
    ("Ben Silverman Games Editor", ("Ben Silverman",)),
    ("By Brenda Goodman, MA", ("Brenda Goodman",)),
    ("Staff", ()),
    ("Admin", ()),
    ("jane@example.com", ()),
    ("https://example.com/author/jane", ()),
    ("@janedoe", ()),
    ("Jane Doe (jane@example.com)", ("Jane Doe",)),
    ("CC7567", ()),
    ("Jane Doe and jane doe", ("Jane Doe",)),
    ("This is a whole sentence that somebody put in the author field of the page", ()),
    ("IAB", ("IAB",)),
    ("", ()),
])
def test_split_authors(value: str, expected: tuple[str, ...]) -> None:
    assert split_authors(value) == expected


def test_split_authors_of_several_values() -> None:
    assert split_authors(["Jane Doe", "By John Roe", "Jane Doe"]) == ("Jane Doe", "John Roe")


@pytest.mark.parametrize(("title", "site", "host", "expected"), [
    ("Headline of the day - Site Name", "Site Name", None, "Headline of the day"),
    ("Site Name | Headline of the day", "Site Name", None, "Headline of the day"),
    ("Obama admits gun laws frustrate him - BBC News", None, "www.bbc.co.uk", "Obama admits gun laws frustrate him"),
    ("Mozilla - Wikipedia", None, "en.wikipedia.org", "Mozilla"),
    ("Una solución mapuche - 07.12.2017 - LA NACION", None, "www.lanacion.com.ar", "Una solución mapuche"),
    ("Lorem ipsum dolor sit amet – My website", None, None, "Lorem ipsum dolor sit amet"),
    ("Google - Site Reliability Engineering", None, None, "Google - Site Reliability Engineering"),
    ("Evolve: Shared Mutable History — evolve extension for Mercurial", None, None,
     "Evolve: Shared Mutable History — evolve extension for Mercurial"),
    ("A title without separators", "Site", None, "A title without separators"),
    ("Daring Fireball: Colophon", None, None, "Daring Fireball: Colophon"),
    ("  spaced   out  title  ", None, None, "spaced out title"),
    ("News » World » A long headline about things", "News", None, "World » A long headline about things"),
])
def test_clean_title(title: str, site: str | None, host: str | None, expected: str) -> None:
    assert clean_title(title, site, host) == expected


#: The separator pattern as written for any white space: the oracle of the one fce reads normalised titles with.
ANY_SPACE_SEPARATOR = re.compile(r"\s+[|\-–—·•»~/]\s+|\s+::\s+|\s*\|\s*")


@given(st.lists(st.sampled_from(["a", "Site", " ", "  ", "\t", "\n", "\u00a0", "\x1c", "|", "-", "–", "—", "·",
                                 "•", "»", "~", "/", ":", "::", "_", "07.12.2017"]), max_size=16))
@settings(max_examples=1000, deadline=None)
def test_titles_split_where_the_separator_pattern_splits_them(pieces: list[str]) -> None:
    # clean_title reads a title whose white space it made single spaces, with a pattern written for that
    title = " ".join("".join(pieces).split())
    assert metadata._TITLE_SEPARATOR.split(title) == ANY_SPACE_SEPARATOR.split(title)


def test_tags_are_found_in_any_case_in_the_text_and_in_the_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # the head's tags are found by their name in either case (fce/_scan.pyx compiled, else a caseless search)
    head = ('<TITLE>Shouted headline of the day - Site</TITLE><META NAME="Description" CONTENT="A page in capitals">'
            '<Meta Property="og:site_name" Content="Site"><meta name="author" content="Jane Doe"><header>x</header>')
    html = (f'<!DOCTYPE html><HTML LANG="de"><HEAD>{head}</Head><BODY><H1>Shouted headline</H1>'
            f'<P>{"A first paragraph long enough to be an excerpt. " * 3}</P></BODY></HTML>')
    expected = Metadata(title="Shouted headline of the day", authors=("Jane Doe",), language="de", site_name="Site",
                        description="A page in capitals")
    assert extract_metadata(html) == expected
    assert extract_metadata(html.encode(), linked_data=[]) == expected
    assert raw_title(html, len(html)) == "Shouted headline of the day - Site"
    no_head = "<p>No head, no body: the head is the page's first characters</p><META name=author content='Jo Roe'>"
    assert extract_metadata(no_head).authors == extract_metadata(no_head.encode()).authors == ("Jo Roe",)
    monkeypatch.setitem(metadata._SYNTAX[bytes], "ifind", metadata._search_caseless)  # the fallback's search
    assert extract_metadata(html.encode(), linked_data=[]) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("en", "en"), ("EN", "en"), ("en-us", "en-US"), ("en_US", "en-US"), ("pt-br", "pt-BR"),
    ("zh-hans-cn", "zh-Hans-CN"), ("es-419", "es-419"), ("x-default", None), ("*", None), ("", None),
    ("english", None), (None, None), ("de-DE-1996", "de-DE-1996"),
])
def test_normalize_language(value: str | None, expected: str | None) -> None:
    assert normalize_language(value) == expected


# --- hostile input -------------------------------------------------------------------------------------------------


HOSTILE = {
    "unclosed metas": "<meta a<meta a " * 100_000,
    "unclosed quote then metas": '<meta name="' + "<meta a=b " * 100_000,
    "unclosed titles": "<title" * 200_000,
    "title never ends": "<title>" + "x" * 1_000_000,
    "open quotes": '<meta content="' * 100_000,
    "deep json": '<script type="application/ld+json">' + "[" * 100_000 + "</script>",
    "many json scripts": '<script type="application/ld+json">{"@type":"Article","headline":"x"}</script>' * 20_000,
    "unclosed json scripts": '<script type="application/ld+json">' * 100_000,
    "open tags": "<a " * 300_000,
    "author classes": "<html><head></head><body><h1>Some title here ok</h1>" + '<div class="author">' * 50_000,
    "open time tags": "<body>" + '<time datetime="' * 100_000,
    "NUL bytes": "\x00" * 1_000_000,
    "binary junk": bytes(range(256)).decode("latin-1") * 4000,
    "huge attribute": '<meta name="description" content="' + "a" * 5_000_000 + '">',
    "spaces in a tag": "<meta " + " " * 1_000_000 + "name=x content=y>",
    "unclosed comments": "<body><h1>Title words here</h1><p>" + "<!--" * 100_000,
    "10 MB page": "<html><head><title>x</title></head><body>" + "<p>hello world, again</p>" * 400_000,
    "surrogates": "<title>\ud800 a \udfff</title>",
    "byline spaces": '<body><div class="byline">' + " " * 100_000 + "x</div>",
    "many keys, no content": "<html><head><meta " + "name=a " * 100_000 + "></head>",
}


@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_is_bounded_and_never_raises(name: str, as_bytes: bool) -> None:
    html: str | bytes = HOSTILE[name].encode("utf-8", "surrogatepass") if as_bytes else HOSTILE[name]
    start = time.perf_counter()
    meta = extract_metadata(html, url="https://example.com/x")
    assert isinstance(meta, Metadata)
    assert time.perf_counter() - start < HOSTILE_LIMIT


@pytest.mark.parametrize("url", [None, "", "not a url", "http://[::1", "javascript:alert(1)", "//host/x", 42])
def test_odd_urls_never_raise(url: object) -> None:
    html = page('<meta property="og:image" content="/a.jpg"><link rel="canonical" href="b">')
    assert isinstance(extract_metadata(html, url=url), Metadata)  # type: ignore[arg-type]


def test_bytes_are_read_as_utf8() -> None:
    meta = extract_metadata(page("<title>Caf\u00e9 life in the city</title>").encode())
    assert meta.title == "Café life in the city"


def test_bytes_with_the_linked_data_known_give_what_the_text_gives() -> None:
    # the head alone is decoded, the rest where the body window is read (a byline and a date from the body)
    body = ("<nav><p>Home</p></nav><h1>Caf\u00e9 society returns</h1><p class='byline'>By Jos\u00e9 Ram\u00edrez</p>"
            "<time datetime='2021-03-04'>4 March</time><p>" + "Na\u00efve caf\u00e9 regulars came back. " * 4 + "</p>")
    # the head is read in the bytes too: its keys and values are decoded as they are taken
    head = ('<base href="https://example.org/caf\u00e9/"><link rel="canonical" href="story?x=1&amp;y=\u00e9">'
            '<meta property="og:title" content="Caf\u00e9 cr\u00e8me &amp; more">'
            '<meta content="Jos\u00e9 Ram\u00edrez" name="author"><meta name="DC.subject" content="caf\u00e9s">'
            '<meta name="description" content="Les caf\u00e9s rouvrent \u2014 enfin"><title>Caf\u00e9 | Site</title>')
    for html in (page("<title>Caf\u00e9 society returns</title>", body), page("<title>x</title>"), "<p>no head</p>",
                 page(head, body, lang="fr-CA")):
        for scripts in ([], ['{"@type": "NewsArticle", "headline": "Caf\u00e9"}']):
            text = extract_metadata(html, url="https://example.com/a", linked_data=scripts)
            assert extract_metadata(html.encode(), url="https://example.com/a", linked_data=scripts) == text
    meta = extract_metadata(page("<title>Caf\u00e9 society returns</title>", body).encode(), linked_data=[])
    assert meta.authors == ("José Ramírez",) and meta.published == "2021-03-04"
    meta = extract_metadata(page(head, body, lang="fr-CA").encode(), linked_data=[])
    assert (meta.title, meta.authors, meta.language, meta.categories) == (
        "Café crème & more", ("José Ramírez",), "fr-CA", ("cafés",))
    assert meta.canonical_url == "https://example.org/café/story?x=1&y=é"  # against <base>, entities decoded
    assert meta.description == "Les cafés rouvrent — enfin"


def test_bytes_give_the_same_metadata_with_the_linked_data_found_or_known() -> None:
    # the page's bytes are read as bytes whether the parse found its JSON-LD (parse_page(blocks=…)) or not: the
    # body window has the same bounds either way (in bytes, wider or narrower than in characters where the
    # page is not ASCII)
    from fce.parse import parse_page
    from fce.pipeline import page_metadata

    ld = '<script type="application/ld+json">{"@type": "NewsArticle", "author": {"name": "Jo Doe"}}</script>'
    filler = "<div>" + "\u8b70\u6703\u4eca\u5929\u8a0e\u8ad6\u3002" * 140 + "</div>"  # 2,048 characters in, not bytes
    lead = "<p>" + "\u5e02\u8b70\u6703\u6628\u5929\u901a\u904e\u4e86\u65b0\u7684\u9810\u7b97\u6848\u3002" * 12
    for head, scripts in (("<title>\u9810\u7b97\u6848</title>", []),
                          ("<title>\u9810\u7b97\u6848</title>" + ld, [ld[ld.index(">") + 1:-len("</script>")]])):
        html = page(head, filler + lead + "</p>").encode()
        meta = extract_metadata(html)
        assert meta == extract_metadata(html, linked_data=scripts)
        assert page_metadata(parse_page(html)) == page_metadata(parse_page(html, blocks="qualified")) == meta
    found = extract_metadata(page("<title>t</title>" + ld, "<p>x</p>").encode())
    assert found.authors == ("Jo Doe",)  # the JSON-LD is read from the bytes


_TAGS = st.sampled_from(["<meta ", "<meta name=", '"', "'", "content=", "<title>", "</title>", "<link rel=",
                         "canonical", "href=", '<script type="application/ld+json">', "</script>", "{", "}", "[",
                         "]", '"@type":"Article"', '"author":', "<time datetime=", "<h1>", "<p>", "</p>",
                         'class="byline"', "itemprop=author", "</head>", "<body>", "By ", "&amp;", ">", "<", " "])


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_TAGS, st.text(max_size=20)), max_size=60).map("".join),
       st.one_of(st.none(), st.text(max_size=30)))
def test_any_text_gives_metadata(html: str, url: str | None) -> None:
    meta = extract_metadata(html, url=url)
    # read from its bytes, the same (sizes are counted in bytes there: the same as characters in ASCII)
    ascii_html = html.encode("ascii", "ignore")
    assert (extract_metadata(ascii_html, url=url, linked_data=[])
            == extract_metadata(ascii_html.decode(), url=url, linked_data=[]))
    assert isinstance(meta, Metadata)
    assert all(isinstance(name, str) and name for name in meta.authors)
    assert meta.published is None or normalize_date(meta.published) == meta.published


@pytest.mark.parametrize("value", ["a@" * 30_000, "@a" * 30_000, "a@b.c " * 10_000])
def test_an_author_of_many_at_signs_is_read_in_linear_time(value: str) -> None:
    started = time.perf_counter()
    extract_metadata(f'<html><head><meta name="author" content="{value}"></head><body></body></html>')
    assert time.perf_counter() - started < 3  # (the e-mail pattern backtracked: 13 s for the first)


def test_e_mail_addresses_are_not_authors() -> None:
    assert split_authors(["Jane Doe jane.doe@news.example.org", "John Roe (john@x.co.uk)"]) == ("Jane Doe",
                                                                                               "John Roe")


def test_the_raw_title_is_found_in_linear_time() -> None:
    assert raw_title('<html><head><title lang="en">A &amp; B</title>', 1 << 20) == "A & B"
    for head in ("<title" * 50_000, "<title" * 50_000 + ">", "<title>" * 50_000):
        started = time.perf_counter()
        assert raw_title("<html><head>" + head, 1 << 20) is None
        assert time.perf_counter() - started < 5  # (quadratic, the first took minutes)
