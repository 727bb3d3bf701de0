"""Properties every registered single-page method must have, checked over ``available_methods()``."""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from fce.blocks import SKIPPED_TAGS
from fce.methods import MethodInfo, available_methods
from fce.methods._tokens import segments, token_stream
from fce.parse import Page, parse_page

METHODS = available_methods()
IDS = [m.name for m in METHODS]

#: Seconds one method may take on the 2 MB page (they take well under a second to a few seconds).
LARGE_PAGE_SECONDS = 15.0


def visible_words(page: Page) -> list[str]:
    """The words a reader sees: all text but that of scripts, styles, the head, … (tails kept); every tag
    boundary separates words (the test pages never put a tag inside a word)."""
    root = copy.deepcopy(page.root)
    etree.strip_elements(root, *SKIPPED_TAGS, with_tail=False)
    return " ".join(root.itertext()).split()


def is_subsequence(sub: list[str], seq: list[str]) -> bool:
    it = iter(seq)
    return all(word in it for word in sub)


def output_words(method: MethodInfo, page: Page) -> list[str]:
    return method(page).text.split()


# Random pages. Every tag is surrounded by spaces, so that "a word" means the same to every method (whether a
# tag inside a word splits it is a per-method reading tested in each method's own tests).
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "news", "home", "the", "of", "article", "menu"])
TEXT = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
TAGS = st.sampled_from(
    ["div", "p", "span", "a", "b", "ul", "li", "table", "tr", "td", "h1", "section", "nav", "form", "em"]
)


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def render(tag: str, attrs: str, inner: list[str]) -> str:
        return f"<{tag}{attrs}> {' '.join(inner)} </{tag}>"

    attrs = st.sampled_from(["", ' class="ad"', ' href="/x"', ' id="main"', ' class="content"'])
    return st.builds(render, TAGS, attrs, st.lists(children, max_size=5))


NODES = st.recursive(
    st.one_of(TEXT, st.just("<br>"), st.just('<img src="b.gif" width="728" height="90">'),
              st.just("<script> var scriptword = 1; </script>")),
    _element,
    max_leaves=40,
)  # fmt: skip
PAGES = st.lists(NODES, max_size=6).map(lambda nodes: f"<html><body> {' '.join(nodes)} </body></html>")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAGES)
def test_output_words_are_a_subsequence_of_the_visible_words(html: str) -> None:
    page = parse_page(html.encode())
    words = visible_words(page)
    for method in METHODS:
        out = output_words(method, page)
        assert is_subsequence(out, words), (method.name, out, words)


ARTICLE_PAGE = (
    "<html><head><title>Title words</title><style>p { color: red }</style></head><body>"
    '<ul class="nav">' + "".join(f'<li><a href="/{i}">Menu {i}</a></li>' for i in range(10)) + "</ul>"
    "<div id='story'><h1>A headline for the story</h1>"
    + "".join(f"<p>Paragraph {k} " + "words of the article " * 20 + f"<a href='/r{k}'>a link</a> end.</p>"
              for k in range(5))
    + "<script>var hidden = 'script text';</script></div>"
    "<div class='footer'>Copyright <a href='/c'>Company</a> 2024</div></body></html>"
)  # fmt: skip


@pytest.mark.parametrize("method", METHODS, ids=IDS)
def test_article_page(method: MethodInfo) -> None:
    page = parse_page(ARTICLE_PAGE.encode())
    out = output_words(method, page)
    assert is_subsequence(out, visible_words(page))
    assert "hidden" not in out and "Title" not in out
    blocks = method.func(page)
    assert out, "every method finds something on an article page"
    for block in blocks:  # non-empty, whitespace-collapsed lines
        assert all(line and line == " ".join(line.split()) for line in block.text.split("\n"))
    assert [b.index for b in blocks] == sorted(b.index for b in blocks)


@pytest.mark.parametrize(
    "html",
    [
        "<html><body></body></html>",
        "<html><head><script>var a = 1;</script></head><body><script>alert('x')</script>"
        "<style>p { margin: 0 }</style><noscript>enable</noscript></body></html>",
        "<html><body><div><span></span></div><img src='x.png'><br>"
        "<table><tr><td></td></tr></table></body></html>",
        "<html><head><title>Only a title</title></head><body>   </body></html>",
    ],
    ids=["empty-body", "only-scripts", "only-markup", "only-title"],
)
@pytest.mark.parametrize("method", METHODS, ids=IDS)
def test_text_free_page_gives_empty_output(method: MethodInfo, html: str) -> None:
    assert list(method.func(parse_page(html.encode()))) == []


@pytest.mark.parametrize("method", METHODS, ids=IDS)
def test_deterministic(method: MethodInfo) -> None:
    first = method(parse_page(ARTICLE_PAGE.encode()))
    page = parse_page(ARTICLE_PAGE.encode())
    assert method(page) == first
    assert method(page) == first  # and again on the same page (cached views must not change the result)


def _large_page(size: int = 2 * 1024 * 1024) -> bytes:
    nav = "<ul>" + "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(20)) + "</ul>"
    filler = "Lorem ipsum dolor sit amet. " * 8
    story = "".join(f'<p>Sentence {k} of the story, with <a href="/ref/{k}">a reference</a> and more words '
                    f"to read through. {filler}</p>" for k in range(10))  # fmt: skip
    unit = f"<div class='nav'>{nav}</div><div class='story'>{story}</div>"
    return f"<html><body>{unit * (size // len(unit) + 1)}</body></html>".encode()


@pytest.fixture(scope="module")
def large_page() -> Page:
    return parse_page(_large_page())


@pytest.mark.slow  # ~10 s for all methods together, most of it CCB and ACCB
@pytest.mark.parametrize("method", METHODS, ids=IDS)
def test_two_megabyte_page_in_reasonable_time(method: MethodInfo, large_page: Page) -> None:
    start = time.process_time()
    method(large_page)
    assert time.process_time() - start < LARGE_PAGE_SECONDS


# The token stream shared by CCB, BTE and DSC (fce/methods/_tokens.py).


def test_token_stream_keeps_words_whole_and_skips_invisible_text() -> None:
    page = parse_page(b"<html><head><title>T</title></head><body><p>foo<b>bar</b> baz<br>qux</p>"
                      b"<script>var hidden;</script><div>one</div></body></html>")  # fmt: skip
    stream = token_stream(page)
    tokens = [t or w for t, w in zip(stream.tag, stream.word, strict=True)]
    assert tokens == ["html", "head", "/head", "body", "p", "foobar", "b", "/b", "baz", "br", "qux", "/p",
                      "script", "/script", "div", "one", "/div", "/body", "/html"]  # fmt: skip
    assert token_stream(page) is stream  # built once per page
    # <br> and block tags break lines, inline tags do not; the void <br> has no end tag.
    everything = np.ones(len(stream), dtype=bool)
    assert [b.text for b in segments(stream, everything)] == ["foobar baz", "qux", "one"]


def test_token_character_lengths_follow_the_markup() -> None:
    stream = token_stream(parse_page(b'<html><body><a href="/x">link</a></body></html>'))
    names = [t or w for t, w in zip(stream.tag, stream.word, strict=True)]
    lengths = dict(zip(names, stream.chars.tolist(), strict=True))
    assert lengths["a"] == len('<a href="/x">') and lengths["/a"] == len("</a>") and lengths["link"] == 5
