"""fce.render: markdown and clean HTML of extracted blocks — structure on hand-made pages (read back with
markdown-it where it is installed), the same words as the plain text on random markup, digests on real pages."""

import hashlib
import html
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fce.blocks import blocks_of, disjoint_subtrees
from fce.extraction import ExtractedBlock
from fce.learn import TemplateLearner
from fce.methods.mainblock import select_main
from fce.parse import parse_page
from fce.pipeline import extract, structured
from fce.render import (
    Code,
    Heading,
    ListBlock,
    Paragraph,
    Span,
    Table,
    structure,
    text_html,
    text_markdown,
    to_html,
    to_markdown,
)
from fce.render.document import _TOKENS, _tokens, join_pieces
from fce.render.html import _escape_attribute, _escape_text
from fce.render.links import Links
from fce.render.markdown import _MAY_ESCAPE, _markdown_nodes, _may_escape
from tests._data import DATA

GOLDEN = Path(__file__).resolve().parent / "golden" / "markdown_digests.json"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "site"


def _whole(html, *, events=False, url=None):
    """The page's tree and its ``<body>`` as the one extracted block, every sub-block kept."""
    page = parse_page(html, url=url, blocks="qualified" if events else None)
    tree = blocks_of(page, "qualified")
    i = tree.columns.tags.index("body")
    return tree, [ExtractedBlock(tree.columns.paths[i], tree.render(i), i)], None


def _main(html):
    """The page's tree, ``mainblock``'s blocks and the blocks their text came from."""
    tree = blocks_of(parse_page(html), "qualified")
    covered = []
    return tree, select_main(tree, None, covered), covered


def _plain_words(blocks):
    return "\n".join(b.text for b in blocks if b.text).split()


markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py reads the markdown back")


def _parser():
    return markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _markdown_words(md):
    """The words a markdown reader finds in ``md`` (text, code; markup gone); an image or raw HTML fails (the
    text would have been read as markup)."""
    chunks = []
    for token in _parser().parse(md):
        if token.type in ("fence", "code_block"):
            chunks.append(token.content)
        for child in token.children or ():
            assert child.type not in ("image", "html_inline"), md
            if child.type in ("text", "code_inline"):
                chunks.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                chunks.append(" ")
        chunks.append(" ")
    return "".join(chunks).split()


_HTML_BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "thead", "tbody",
                          "tr", "th", "td", "caption", "pre", "blockquote", "hr", "br"})


def _html_words(fragment):
    """The words of an HTML fragment, block elements separating them."""
    root = etree.fromstring(f"<div>{fragment}</div>", etree.HTMLParser()).find(".//div")
    chunks = []

    def walk(el):
        if el.tag in _HTML_BLOCKS:
            chunks.append(" ")
        chunks.append(el.text or "")
        for child in el:
            walk(child)
            chunks.append(child.tail or "")
        if el.tag in _HTML_BLOCKS:
            chunks.append(" ")

    walk(root)
    return "".join(chunks).split()


def _shape(fragment):
    """An HTML fragment's structure: nested (tag, href, children) with text collapsed; what markdown readers may
    write either way is made one (a ``<p>`` around a list item's text, ``<s>`` for ``<del>``), and ``<sub>`` and
    ``<sup>``, which markdown has not, are their text."""
    root = etree.fromstring(f"<div>{fragment}</div>", etree.HTMLParser()).find(".//div")

    def shape(el):
        out = []

        def text(t):
            if t:
                if out and isinstance(out[-1], str):
                    out[-1] += t
                else:
                    out.append(t)

        text(el.text)
        for child in el:
            tag = {"s": "del"}.get(child.tag, child.tag)
            inner = shape(child)
            if (tag == "p" and el.tag == "li") or tag in ("sub", "sup"):
                for item in inner:
                    text(item) if isinstance(item, str) else out.append(item)
            else:
                out.append((tag, child.get("href"), inner))
            text(child.tail)
        return [" ".join(x.split()) if isinstance(x, str) else x for x in out if not isinstance(x, str) or x.split()]

    return shape(root)


# -- hand-made pages ---------------------------------------------------------------------------------------------------

ARTICLE = b"""<html><body><div id=nav><a href=/>Home</a></div><article>
<h1>The <em>title</em> of it</h1>
<p>Some <b>bold</b> and <i>italic</i> text, <code>x = a*b</code> and a <a href="/rel?x=1">link <b>in</b> it</a>.</p>
<h2>Lists</h2>
<ul><li>one</li><li>two<ul><li>nested <strong>deep</strong></li><li>more</li></ul></li><li>three</li></ul>
<ol><li>first</li><li>second<ol><li>inner</li></ol></li></ol>
<h3>A table</h3>
<table><thead><tr><th>Name</th><th>Value</th></tr></thead>
<tbody><tr><td>a|b</td><td><code>c|d</code></td></tr><tr><td>x <em>y</em></td><td>z</td></tr></tbody></table>
<pre><code>def f(x):
    if x:
        return x * 2  # ```
</code></pre>
<blockquote><p>quoted <em>text</em></p><p>second</p></blockquote>
<p>line one<br>line two, <del>gone</del> and H<sub>2</sub>O</p>
</article></body></html>"""


def test_markdown_of_an_article():
    tree, blocks, covered = _whole(ARTICLE)
    md = to_markdown(tree, blocks, covered, links=True, url="https://example.org/a/b.html")
    assert md.startswith("[Home](https://example.org/)\n\n# The *title* of it\n\n")
    for expected in [
        "Some **bold** and *italic* text, `x = a*b` and a [link **in** it](https://example.org/rel?x=1).",
        "## Lists",
        "- one\n- two\n  - nested **deep**\n  - more\n- three",
        "1. first\n2. second\n   1. inner",
        "| Name | Value |\n| --- | --- |\n| a\\|b | `c\\|d` |\n| x *y* | z |",
        "````\ndef f(x):\n    if x:\n        return x * 2  # ```\n````",
        "> quoted *text*\n>\n> second",
        "line one\\\nline two, ~~gone~~ and H2O",
    ]:
        assert expected in md
    assert _markdown_words(md) == _plain_words(blocks)


def test_links_are_text_unless_asked():
    tree, blocks, covered = _whole(ARTICLE)
    md = to_markdown(tree, blocks, covered)
    assert "a link **in** it." in md and "](" not in md
    assert "<a href" not in to_html(tree, blocks, covered, links=False)


def test_without_links_a_link_is_its_text():
    # markdown without links reads a paragraph whose only marks are links as its plain text: the same markdown as
    # with the link spans read and not written; a cell's text is not escaped as if it began a line either way
    html = (b"<body><p>See <a href='/a'>the board</a>, <em>now</em>.</p><table><tr><th>Club</th><th>P</th></tr>"
            b"<tr><td><a href='/x'>5. Everton</a></td><td>22</td></tr><tr><td>6. Villa</td><td>21</td></tr></table>"
            b"<p># <a href='/b'>not</a> a heading</p></body>")
    tree, blocks, covered = _whole(html)
    read = structure(tree, blocks, covered)
    assert any(isinstance(part, Span) and part.kind == "link" for part in read[0].inline)
    assert not any(isinstance(part, Span) and part.kind == "link"
                   for part in structure(tree, blocks, covered, links=False)[0].inline)
    md = to_markdown(tree, blocks, covered)
    assert md == _markdown_nodes(read, Links(False, None))
    assert "| 5. Everton | 22 |\n| 6. Villa | 21 |" in md and "\\# not a heading" in md


def test_html_of_an_article():
    tree, blocks, covered = _whole(ARTICLE)
    out = to_html(tree, blocks, covered, url="https://example.org/a/b.html")
    for expected in [
        '<p><a href="https://example.org/">Home</a></p>',
        "<h1>The <em>title</em> of it</h1>",
        '<a href="https://example.org/rel?x=1">link <strong>in</strong> it</a>',
        "<ul>\n<li>one</li>\n<li>two\n<ul>\n<li>nested <strong>deep</strong></li>",
        "<thead>\n<tr><th>Name</th><th>Value</th></tr>\n</thead>",
        "<tr><td>a|b</td><td><code>c|d</code></td></tr>",
        "<pre><code>def f(x):\n    if x:\n        return x * 2  # ```</code></pre>",
        "<blockquote>\n<p>quoted <em>text</em></p>\n<p>second</p>\n</blockquote>",
        "<p>line one<br>line two, <del>gone</del> and H<sub>2</sub>O</p>",
    ]:
        assert expected in out
    assert _html_words(out) == _plain_words(blocks)


def test_the_events_walk_renders_as_the_tree_walk():
    url = "https://example.org/"
    assert (to_markdown(*_whole(ARTICLE, events=True), links=True, url=url)
            == to_markdown(*_whole(ARTICLE), links=True, url=url))


def test_without_the_compiled_walk_the_output_is_the_same(monkeypatch):
    from fce import blocks

    want = to_markdown(*_whole(ARTICLE), links=True), to_html(*_whole(ARTICLE))
    monkeypatch.setattr(blocks, "_ACCEL", None)
    assert (to_markdown(*_whole(ARTICLE), links=True), to_html(*_whole(ARTICLE))) == want


ROUND_TRIPS = [
    ARTICLE,
    b"<body><h2>Steps</h2><ol><li><p>Install it</p><pre>pip install fce</pre></li><li>Run <kbd>fce</kbd></li></ol>"
    b"<ul><li>a</li></ul><ul><li>b</li></ul><ol><li>c</li></ol><ol><li>d</li></ol></body>",
    b"<body><table><thead><tr><td>a</td><td>header</td></tr></thead><tr><td>1</td><td>2</td></tr></table>"
    b"<table><tr><th>Only</th><th>th</th></tr><tr><td><a href='https://x.test/'>l</a></td><td>*</td></tr></table>"
    b"</body>",
    b"<body><p><a href='https://x.test/'><b>Bold link</b> and <em>more</em></a></p><p>C# and 1. and #tag</p>"
    b"<h3>Item #</h3><p>- not a list</p><p>+ nor this</p><p>2) nor this</p><p>&lt;b&gt; not html</p>"
    b"<p>a_b *c* _d_ [e](f) `g` ~~h~~ \\ | &amp;amp; &amp;copy;</p><hr><p>after the rule</p></body>",
    b"<body><blockquote><ul><li>quoted list<ol><li>deeper</li></ol></li></ul><pre>  x\n\ty</pre></blockquote>"
    b"<p>Wow!<a href='https://x.test/'>image?</a></p><p><code>a`b</code> <code>`c</code></p></body>",
]


@pytest.mark.parametrize("html", ROUND_TRIPS, ids=range(len(ROUND_TRIPS)))
def test_markdown_reads_back_as_the_html(html):
    tree, blocks, covered = _whole(html)
    md = to_markdown(tree, blocks, covered, links=True)
    assert _shape(_parser().render(md)) == _shape(to_html(tree, blocks, covered))
    assert _markdown_words(md) == _plain_words(blocks)


def test_nested_lists_and_tables_in_the_document():
    tree, blocks, covered = _whole(ROUND_TRIPS[1])
    doc = structure(tree, blocks, covered)
    assert doc[0] == Heading(2, ("Steps",))
    steps = doc[1]
    assert isinstance(steps, ListBlock) and steps.ordered
    assert steps.items[0] == (Paragraph(("Install it",)), Code("pip install fce"))
    assert steps.items[1] == (Paragraph(("Run ", Span("code", ("fce",)))),)
    assert [type(n) for n in doc[2:]] == [ListBlock] * 4
    md = to_markdown(tree, blocks, covered)
    assert "- a\n\n* b\n\n1. c\n\n1) d" in md  # (the same bullet twice would make one list)


def test_tables_that_markdown_cannot_hold_are_their_cells():
    html = (b"<body><table><tr><td colspan=2>wide</td></tr><tr><td>a</td><td>b</td></tr></table>"
            b"<table><tr><td>layout</td></tr><tr><td>column</td></tr></table>"
            b"<table><tr><td><table><tr><td>n1</td><td>n2</td></tr><tr><td>n3</td><td>n4</td></tr></table></td>"
            b"<td>x</td></tr><tr><td>y</td><td>z</td></tr></table></body>")
    tree, blocks, covered = _whole(html)
    doc = structure(tree, blocks, covered)
    assert [type(n) for n in doc] == [Paragraph] * 5 + [Table] + [Paragraph] * 3
    assert doc[5] == Table(((("n1",), ("n2",)), (("n3",), ("n4",))), header=False)
    md = to_markdown(tree, blocks, covered)
    assert "| n1 | n2 |\n| --- | --- |\n| n3 | n4 |" in md
    assert _markdown_words(md) == _plain_words(blocks)


def test_a_header_row_from_th_or_thead():
    page = b"<body><table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td>b</td></tr></table></body>"
    doc = structure(*_whole(page))
    assert doc == (Table(((("h1",), ("h2",)), (("a",), ("b",))), header=True),)
    doc = structure(*_whole(page.replace(b"<th>", b"<td>").replace(b"</th>", b"</td>")))
    assert doc[0].header is False
    assert "<thead>" not in to_html(*_whole(page.replace(b"th>", b"td>")))


def _table(cells: list[list[str]], head: str = "") -> bytes:
    rows = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in cells)
    return f"<body><table>{head}{rows}</table></body>".encode()


def test_a_table_of_columns_of_text_is_layout_unless_it_has_a_data_table_s_marks():
    columns = [["<p>Posted on 11/18</p>", "<p>Thank you so much!</p><p>Use of the word: 3,171.</p>"],
               ["<p>Posted on 11/17</p>", "<p>A quick search reveals more.</p>"]]
    doc = structure(*_whole(_table(columns)))
    assert [type(n) for n in doc] == [Paragraph] * 5 and doc[2] == Paragraph(("Use of the word: 3,171.",))
    one_line = [[cell.replace("</p><p>", " ") for cell in row] for row in columns]
    assert isinstance(structure(*_whole(_table(one_line)))[0], Table)  # (one paragraph a cell: as before)
    marked = {
        "a header row": _table(columns, "<tr><th>Date</th><th>Post</th></tr>"),
        "a bold row": _table([["<b>Date</b>", "<b>Post</b>"], *columns]),
        "a caption": _table(columns, "<caption>Posts</caption>"),
        "ten rows": _table(columns * 5),
        "five columns": _table([[*row, "a", "b", "c"] for row in columns]),
    }
    for mark, page in marked.items():
        assert [type(n) for n in structure(*_whole(page))][-1:] == [Table], mark
    assert isinstance(structure(*_whole(_table([["", "<b>Post</b>"], *columns])))[0], Paragraph)  # one bold cell


def test_preformatted_text_keeps_its_lines_and_the_plain_text_does_not():
    html = (b"<body><pre>\n  first\n\n\tsecond <b>bold</b>\r\n  third  <span>in span</span><div>block</div>end\n"
            b"</pre></body>")
    for events in (False, True):
        tree, blocks, covered = _whole(html, events=events)
        assert blocks[0].text == "first second bold third in span\nblock\nend"
        assert structure(tree, blocks, covered) == (Code("  first\n\n\tsecond bold\n  third  in span\nblock\nend"),)


def test_marks_open_across_blocks_apply_inside_them():
    html = b"<body><a href='https://x.test/'><div><h3>Title</h3><p>teaser</p></div></a><b>x<div>y</div>z</b></body>"
    tree, blocks, covered = _whole(html)
    link = "https://x.test/"
    assert structure(tree, blocks, covered) == (
        Heading(3, (Span("link", ("Title",), link),)),
        Paragraph((Span("link", ("teaser",), link),)),
        Paragraph((Span("strong", ("x",)),)),
        Paragraph((Span("strong", ("y",)),)),
        Paragraph((Span("strong", ("z",)),)),
    )


def test_spaces_stay_outside_the_marks_and_empty_marks_go():
    html = b"<body><p>a<b> bold </b>b <em></em>c<i> </i>d <a href=x><img src=i></a>e<b><b>twice</b></b></p></body>"
    tree, blocks, covered = _whole(html)
    md = to_markdown(tree, blocks, covered, links=True)
    assert md == "a **bold** b c d e**twice**"


def test_emphasis_that_would_not_parse_is_left_out():
    html = b'<body><p>x <b>"a"</b>b and <i>c</i><b>d</b> and <code>e</code></p><p><i>a</i><i>b</i></p></body>'
    tree, blocks, covered = _whole(html)
    md = to_markdown(tree, blocks, covered)
    assert md == 'x "a"b and *c*d and `e`\n\n*a*b'
    assert _markdown_words(md) == _plain_words(blocks)


def test_hrefs_resolved_and_unsafe_ones_dropped():
    html = (b"<body><p><a href='../up (1).html'>rel</a> <a href='javascript:alert(1)'>js</a> "
            b"<a href='mailto:a@b.test'>mail</a> <a href='#top'>frag</a></p></body>")
    tree, blocks, covered = _whole(html)
    md = to_markdown(tree, blocks, covered, links=True, url="https://x.test/a/b/c.html")
    assert md == ("[rel](https://x.test/a/up%20%281%29.html) js [mail](mailto:a@b.test) "
                  "[frag](https://x.test/a/b/c.html#top)")
    out = to_html(tree, blocks, covered)
    assert '<a href="../up (1).html">rel</a> js <a href="mailto:a@b.test">mail</a> <a href="#top">frag</a>' in out


def test_only_covered_blocks_contribute():
    html = (b"<html><body><div id=nav><a href=/a>A</a> <a href=/b>B</a></div><div id=main>"
            + b"".join(b"<p>Paragraph %d, with words, commas, and text enough to score.</p>" % i for i in range(6))
            + b"<div class=share><a href=/s>Share this</a></div></div><div id=footer>Footer</div></body></html>")
    tree, blocks, covered = _main(html)
    md = to_markdown(tree, blocks, covered)
    assert "Paragraph 0" in md and "Footer" not in md and "[A]" not in md
    assert _markdown_words(md) == _plain_words(blocks)
    assert _html_words(to_html(tree, blocks, covered)) == _plain_words(blocks)


def test_a_block_the_tree_does_not_render_is_its_text():
    tree, _, _ = _whole(ARTICLE)
    blocks = [ExtractedBlock("HTML.BODY.P", "written *by* a method\nsecond line", -1)]
    assert to_markdown(tree, blocks) == "written \\*by\\* a method\n\nsecond line"
    assert to_html(tree, blocks) == "<p>written *by* a method</p>\n<p>second line</p>"


def test_covered_that_does_not_give_the_text_falls_back_to_the_whole_block():
    # (a caller's covered that misses blocks the text came from: the block with all its sub-blocks, where that is
    # its text; else its text alone)
    tree, blocks, _ = _whole(b"<body><div><p>one <em>two</em></p><p>three</p></div></body>")
    assert to_markdown(tree, blocks, covered=[]) == "one *two*\n\nthree"
    other = [ExtractedBlock(blocks[0].path, "one two", blocks[0].index)]  # (a text the tree does not render)
    assert to_markdown(tree, other, covered=[]) == "one two"


def test_nothing_extracted_is_empty():
    tree, _, _ = _whole(ARTICLE)
    assert to_markdown(tree, []) == "" and to_html(tree, []) == ""


# -- any markup: the words never change -------------------------------------------------------------------------------

_TAGS = ["div", "p", "span", "a", "b", "i", "em", "strong", "code", "kbd", "sub", "del", "td", "th", "tr", "table",
         "thead", "li", "ul", "ol", "pre", "h1", "h3", "blockquote", "br", "hr", "img", "script", "dl", "dd"]
_TEXT = st.text(alphabet=st.sampled_from(list("ab 1.)#*_`~[]()<>!&|\\-+=:;\"'\n\t\xa0\u3000é中")), max_size=10)


@st.composite
def _markup(draw, depth=0):
    out = [draw(_TEXT).replace("<", "&lt;").replace("&", "&amp;")]
    for _ in range(draw(st.integers(0, 3 if depth < 4 else 0))):
        tag = draw(st.sampled_from(_TAGS))
        attrs = draw(st.sampled_from(["", " href=x", " href='/a b'", " href='javascript:x'", " href"])) \
            if tag == "a" else ""
        inner = draw(_markup(depth + 1))
        close = draw(st.sampled_from([f"</{tag}>", ""]))
        out.append(f"<{tag}{attrs}>{inner}{close}{draw(_TEXT).replace('<', '&lt;').replace('&', '&amp;')}")
    return "".join(out)


@settings(max_examples=400, deadline=None)
@given(body=_markup(), links=st.booleans())
def test_the_words_are_those_of_the_plain_text(body, links):
    html = ("<html><body>" + body + "</body></html>").encode()
    for tree, blocks, covered in (_whole(html), _main(html)):
        want = _plain_words(blocks)
        md = to_markdown(tree, blocks, covered, links=links, url="https://x.test/p")
        assert _markdown_words(md) == want, md
        assert _html_words(to_html(tree, blocks, covered, links=links)) == want


@settings(max_examples=300, deadline=None)
@given(body=_markup())
def test_a_cover_said_to_be_exact_reads_as_the_checked_one(body):
    # what mainblock says of its covered blocks (fce.blocks.disjoint_subtrees over the blocks it rendered) holds,
    # and the document read on its word is the one read after rendering each block to check
    tree = blocks_of(parse_page(("<html><body>" + body + "</body></html>").encode()), "qualified")
    covered: list[int] = []
    rendered: list[int] = []
    blocks = select_main(tree, None, covered, rendered)
    if not disjoint_subtrees(tree, rendered):
        return
    kept = frozenset(covered)
    assert [tree.render(b.index, kept.__contains__) for b in blocks] == [b.text for b in blocks]
    for links in (False, True):
        assert (structure(tree, blocks, covered, links=links, exact=True)
                == structure(tree, blocks, covered, links=links))


@pytest.mark.parametrize("mode", ["guided", "rules"])
def test_an_extraction_says_whether_its_cover_is_exact(mode):
    # guided detection and mainblock render disjoint subtrees and say so (the structured output then reads them
    # without the check); the paper's rules drop some blocks' own text, so their cover is checked
    learn = sorted((EXAMPLE / "learn").glob("*.html"))
    template = TemplateLearner("news.example.com").fit([parse_page(p.read_bytes()) for p in learn]).template_
    for path in sorted((EXAMPLE / "new").glob("*.html")) + learn[:3]:
        page = parse_page(path.read_bytes(), url="https://news.example.com/a/b.html")
        for result in (extract(page, template, mode=mode, fallback=None), extract(page, None)):
            exact = result.info["covered_exact"]
            assert exact is (mode == "guided" or result.method == "mainblock")
            tree, covered = blocks_of(page), result.info["covered"]
            for links in (False, True):
                assert structured(page, result, "markdown", links=links).markdown == to_markdown(
                    tree, result.blocks, covered, links=links, url=page.url)
            assert structured(page, result, "html").html == to_html(tree, result.blocks, covered, url=page.url)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab <>&\"'`*[]|~_\\#\n\xa0é中😀")), max_size=100))
def test_the_writers_escape_as_the_library_does(text):
    # (compiled: the markdown's scan for what it escapes is a loop of its own below MAY_ESCAPE_LOOP_CHARS, searches
    # for each character above; the HTML escapes called from C)
    assert _may_escape(text) is (_MAY_ESCAPE.search(text) is not None)
    assert _escape_text(text) == html.escape(text, quote=False) and _escape_attribute(text) == html.escape(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(["a", " ", "\t", "\n", "\x85", "\u3000", "é", "中", "\ud800", "\ud801"]),
                    max_size=40))
def test_a_run_is_read_token_by_token_as_the_pattern_splits_it(text):
    # (compiled: a loop over the characters, and each token's whitespace collapsed by join_pieces)
    tokens = _tokens(text)
    assert tokens == _TOKENS.split(text)
    for token in tokens:
        if "\n" not in token:
            assert join_pieces([token]) == " ".join(token.split())


def test_links_split_the_url_only_for_a_relative_href():
    links = Links(True, "https://x.test/a/b.html")
    assert links.href("https://y.test/") == "https://y.test/" and not links.split
    assert links.href("/c") == "https://x.test/c" and links.href("d") == "https://x.test/a/d" and links.split
    broken = Links(True, "http://[::1/a")  # (an unclosed IPv6 bracket: urlsplit refuses it)
    assert broken.href("https://y.test/") == "https://y.test/" and broken.href("/c") == "/c"
    assert Links(False, "https://x.test/").href("/c") is None


# -- real pages: digests of the markdown ---------------------------------------------------------------------

#: Pages of the evaluation data (paths from its root): documentation with code and tables, forums and articles with
#: quotes and lists, news articles. Their whole ``<body>`` is rendered (navigation, footers and all: more markup
#: than the extracted blocks, and a digest that does not move when an extraction method's choices do).
GOLDEN_PAGES = [
    "wcxb-dev/docs.python.org/dev-2859.html",
    "wcxb-dev/developer.mozilla.org/dev-0672.html",
    "wcxb-dev/nginx.org/dev-0684.html",
    "wcxb-dev/docs.docker.com/dev-2868.html",
    "wcxb-dev/docs.rs/dev-4398.html",
    "wcxb-dev/blog.guillaume-gomez.fr/dev-0494.html",
    "wcxb-dev/developer.android.com/dev-1442.html",
    "wcxb-dev/freedoniagroup.com/dev-0220.html",
    "wcxb-dev/gardenwith.me/dev-0397.html",
    "wcxb-dev/almosttimely.substack.com/dev-4444.html",
    "wcxb-dev/bogleheads.org/dev-0538.html",
    "wcxb-dev/dictionary.com/dev-0318.html",
    "scrapinghub/9to5mac.com/ad826691a8a2f9c4ce50cf0b885af933c4b5119c1f6235cd7df1dfb83f255bcc.html",
    "scrapinghub/appleinsider.com/65bf3048b500bbd84928d9122f99617ca898216b91add1d8b2ac09c670484a5c.html",
    "scrapinghub/ascom.com/5ae11e580afc12d3ba1a12944281e6a7a5dded5c98b4efcf24aedcb28f0d5b22.html",
    "l3s-gn1/abc.net.au/02841370-c748-4afe-93c7-1c40436f37b6.html",
    "l3s-gn1/al.com/8c392c86-f101-468e-b9b9-f9aaccd8a533.html",
    "l3s-gn1/abcnews.go.com/ab4e0f91-db21-474d-8817-fb9ed36ce4ff.html",
    "cleaneval/aamc.org/final-207.html",
    "cleaneval/216.31.193.173/dev-2.html",
    "readability/aclu.org/aclu.html",
    "readability/bbc.com/bbc-1.html",
]


def _golden_digests():
    return json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}


@pytest.mark.skipif(DATA is None, reason="the evaluation data is not here")
@pytest.mark.parametrize("relative", GOLDEN_PAGES)
def test_golden_markdown_digests(relative):
    assert DATA is not None
    path = DATA / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in the evaluation data here")
    url = json.loads(path.with_suffix(".json").read_text(encoding="utf-8")).get("url")
    tree, blocks, covered = _whole(path.read_bytes(), url=url)
    md = to_markdown(tree, blocks, covered, links=True, url=url)
    assert _markdown_words(md) == _plain_words(blocks)
    digest = hashlib.sha256(md.encode("utf-8")).hexdigest()
    digests = _golden_digests()
    if os.environ.get("FCE_UPDATE_GOLDEN"):
        digests[relative] = digest
        GOLDEN.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert relative in digests, f"no digest for {relative}; run with FCE_UPDATE_GOLDEN=1 and review the output"
    assert digest == digests[relative], f"{relative}: the markdown changed; FCE_UPDATE_GOLDEN=1 to accept it"


def test_plain_text_as_paragraphs():
    assert text_markdown("# not a heading\n\n  a *b*  c\n1. x") == "\\# not a heading\n\na \\*b\\* c\n\n1\\. x"
    assert text_html("<x> & y\nz") == "<p>&lt;x&gt; &amp; y</p>\n<p>z</p>"
    assert text_markdown("") == text_html(" \n ") == ""
