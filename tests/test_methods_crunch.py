"""Crunch-style filter (``fce/methods/crunch.py``): each heuristic removes its noise, content stays."""

from __future__ import annotations

import pytest

from fce.methods import get_method
from fce.parse import parse_page

ARTICLE = " ".join(f"article{i}" for i in range(80))

PAGE = f"""<html><body>
<ul id="nav">{"".join(f'<li><a href="/s{i}">Section{i}</a></li>' for i in range(6))}</ul>
<ul><li>Home</li><li>News</li><li>Sport today</li></ul>
<div class="ad-slot">Sponsored message buy now</div>
<div><span>Advertisement</span>
  <a href="https://x.example/click"><img src="/b.gif" width="728" height="90"></a></div>
<form action="/search"><label>Search the site</label><input name="q"></form>
<div class="article has-ads">
  <p>{ARTICLE} with <a href="/ref">one reference link</a> inside.</p>
  <ul><li>First point of the article made here</li><li>Second point of the article made here</li>
      <li>Third point of the article made here</li></ul>
  <ul class="related">
    <li><a href="/r1">Related story one</a> teaser text of it</li>
    <li><a href="/r2">Related story two</a> teaser text of it</li>
    <li><a href="/r3">Related story three</a> teaser text of it</li>
  </ul>
  <p>Read <a href="/more">the full report on the topic</a> now</p>
</div>
</body></html>"""


@pytest.fixture(scope="module")
def text() -> str:
    return get_method("crunch")(parse_page(PAGE.encode())).text


@pytest.mark.parametrize(
    ("fragment", "kept", "rule"),
    [
        ("Section0", False, "link list / link ratio"),
        ("Home", False, "text list"),
        ("Sponsored", False, "ad-like id/class"),
        ("Advertisement", False, "frame of a banner-sized image"),
        ("Search the site", False, "small form"),
        ("Related story", False, "link list (every item has a link)"),
        ("full report", False, "block with a too high link ratio"),
        (ARTICLE, True, "article text, although its wrapper is named 'has-ads'"),
        ("one reference link", True, "an in-text link in a long paragraph"),
        ("First point of the article made here", True, "a list of sentences is no text list"),
    ],
)
def test_each_heuristic(text: str, fragment: str, kept: bool, rule: str) -> None:
    assert (fragment in text) is kept, rule


def test_output_lines_in_document_order(text: str) -> None:
    lines = text.split("\n")
    assert lines[0].startswith("article0")
    assert lines[1:] == [
        "First point of the article made here",
        "Second point of the article made here",
        "Third point of the article made here",
    ]
