"""Text distribution descent (``fce/methods/textdist.py``): K, LV and known descent paths."""

from __future__ import annotations

import pytest

from fce.methods import get_method
from fce.methods.textdist import TEXTDIST_K_THRESHOLD, content_node, distribution_coefficient, linear_variance
from fce.parse import parse_page

#: The article's own example: the descent goes body → table → second tr → second td and stops there.
ARTICLE_EXAMPLE = b"""<html><head><title> My New Web Page </title></head><body>
<table>
<tr><td colspan="2"><h1> Welcome to My Web Page! </h1></td></tr>
<tr>
<td width="200">
<a>Menu item 1</a> <br>
<a>Menu item 2</a> <br>
<a>Menu item 3</a> <br>
</td>
<td id="maincontent">
This page illustrates how you can write proper HTML
using only a text editor, such as Windows Notepad. You can also
download a free text editor, such as Crimson Editor, which is
better than Notepad.

There is a small graphic after the period at the end of this sentence.
<img src="/images/mouse.gif" alt="Mousie" width="32" height="32" border="0"> The graphic is in a file.
The file is inside a folder named "images."

Link: <a href="http://www.yahoo.com/">Yahoo!</a> <br>
Another link: <a href="/tableexample.htm">Another Web page</a> <br>
Note the way the BR tag works in the two lines above.

<p>&gt; <a href="/index.htm">HTML examples index</a></p>
</td></tr></table></body></html>"""


def test_threshold_is_five_percent() -> None:
    assert TEXTDIST_K_THRESHOLD == 5.0


@pytest.mark.parametrize(
    ("lengths", "lv"),
    [([], 0.0), ([7], 0.0), ([5, 5, 5], 0.0), ([300, 100], 100.0), ([0, 0, 0, 40], 15.0)],
)
def test_linear_variance_is_the_mean_absolute_deviation(lengths: list[int], lv: float) -> None:
    assert linear_variance(lengths) == pytest.approx(lv)


def test_k_is_a_percentage_of_the_node_text() -> None:
    assert distribution_coefficient([300, 100], 400) == pytest.approx(25.0)
    assert distribution_coefficient([100] * 10, 1000) == 0.0
    assert distribution_coefficient([], 0) == 0.0
    # Scale-free: the same distribution gives the same K on a page ten times longer.
    assert distribution_coefficient([3000, 1000], 4000) == pytest.approx(25.0)


def test_the_articles_example() -> None:
    page = parse_page(ARTICLE_EXAMPLE)
    assert content_node(page).get("id") == "maincontent"
    text = get_method("textdist")(page).text
    assert text.startswith("This page illustrates how you can write proper HTML")
    assert "HTML examples index" in text
    assert "Menu item" not in text and "Welcome" not in text


def test_descent_stops_where_paragraphs_share_the_text() -> None:
    paragraphs = "".join(f"<p>{'word ' * 40}number {i}</p>" for i in range(6))
    html = f"""<html><body><div id="page">
      <div id="nav"><a href="/">Home</a> <a href="/a">About</a></div>
      <div id="main"><h1>The title</h1><div id="story">{paragraphs}</div></div>
      <script>var lots = "of text that is no content at all, longer than anything else on the page";</script>
      <div id="empty1"></div><div id="empty2"></div>
    </div></body></html>"""
    page = parse_page(html.encode())
    # body → div#page (its only subnode with text) → div#main (nav is tiny) → div#story (the title is tiny);
    # the six paragraphs hold the same amount of text: K = 0 < 5 %, stop.
    assert content_node(page).get("id") == "story"
    lines = get_method("textdist")(page).text.split("\n")
    assert len(lines) == 6 and lines[5].endswith("number 5")


def test_a_node_holding_most_text_itself_is_the_content() -> None:
    own = b"long own text " * 30
    html = b"<html><body><div id='c'>" + own + b"<p>short</p> <b>bold</b></div></body></html>"
    assert content_node(parse_page(html)).get("id") == "c"


def test_empty_body() -> None:
    page = parse_page(b"<html><body></body></html>")
    assert content_node(page).tag == "body"
    assert get_method("textdist").func(page) == []
