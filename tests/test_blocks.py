"""fce.blocks: block tree, traversal paths, own text (the paper's Figures 1–3), document order."""

import pytest

from fce.blocks import BLOCK_TAGS, PAPER_BLOCK_TAGS, blocks_of, segment
from fce.parse import parse_page

FIGURE_2 = b"""<html><body><table><tr><td><p> On Sept. 27, the US <span class="yshortcuts" id="lw_1">House of
Representatives</span> unanimously passed a resolution recognizing <span class="yshortcuts" id="lw_2">The Christian
Science Monitor</span> on its centennial.</p></td></tr></table></body></html>"""


def tree(html, style="paper"):
    return segment(parse_page(html), style)


def test_paper_tags_are_block_tags():
    assert PAPER_BLOCK_TAGS <= BLOCK_TAGS


def test_figure_3_own_text_and_paths():
    t = tree(FIGURE_2)
    by_path = {}
    for b in t:
        by_path.setdefault(b.path, []).append(b.text)
    assert by_path["HTML.BODY.TABLE.TR.TD.P"] == [
        "On Sept. 27, the US unanimously passed a resolution recognizing on its centennial."
    ]
    assert by_path["HTML.BODY.TABLE.TR.TD.P.SPAN"] == ["House of Representatives", "The Christian Science Monitor"]


def test_render_keeps_phrases_across_blocks_in_document_order():
    t = tree(FIGURE_2)
    assert "the US House of Representatives unanimously passed" in t.render(0)


def test_render_without_a_sub_block():
    t = tree(FIGURE_2)
    text = t.render(0, keep=lambda b: b.tag != "span")
    assert text == "On Sept. 27, the US unanimously passed a resolution recognizing on its centennial."


def test_indices_are_document_order_and_subtrees_contiguous():
    t = tree(b"<body><div><p>a</p><p>b</p></div><ul><li>c</li></ul></body>")
    assert [b.index for b in t] == list(range(len(t)))
    div = next(b for b in t if b.tag == "div")
    assert [d.tag for d in t.descendants(div.index)] == ["p", "p"]
    assert t.subtree_end(div.index) == div.index + 3
    assert all(t[c].parent == div.index for c in div.children)


def test_atomic_blocks():
    t = tree(b"<body><div><p>a</p></div></body>")
    assert [b.tag for b in t if b.is_atomic] == ["p"]


def test_scripts_styles_counted_not_text():
    t = tree(b"<body><div>x<script>var a=1;</script><style>p{}</style><a href=#>l</a><img src=i></div></body>")
    div = next(b for b in t if b.tag == "div")
    assert div.text == "xl"  # no whitespace in the source, none invented
    assert (div.n_scripts, div.n_links, div.n_images) == (1, 1, 1)
    assert div.link_chars == 1


def test_br_breaks_lines_and_source_newlines_do_not():
    t = tree(b"<body><p>one\ntwo<br>three</p></body>")
    assert t.render(0) == "one two\nthree"


def test_qualified_paths_strip_digits_and_states():
    t = tree(b'<body><div id="post-123" class="story active"><p>x</p></div></body>', "qualified")
    assert [b.path for b in t if b.tag == "p"] == ["HTML.BODY.DIV[#post .story].P"]


def test_blocks_of_caches_per_style():
    page = parse_page(b"<body><div class=a><p>x</p></div></body>")
    assert blocks_of(page, "paper") is blocks_of(page, "paper")
    assert blocks_of(page, "paper") is not blocks_of(page, "qualified")


def test_unknown_path_style():
    with pytest.raises(ValueError):
        tree(b"<p>x</p>", "css")


def test_comments_are_not_text():
    t = tree(b"<body><p>a<!-- hidden -->b</p></body>")
    assert t.render(0) == "ab"
