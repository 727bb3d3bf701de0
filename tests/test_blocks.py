"""fce.blocks: block tree, traversal paths, own text (the paper's Figures 1–3), document order."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce.blocks import (
    BLOCK_TAGS,
    COUNT_FIELDS,
    PAPER_BLOCK_TAGS,
    Mark,
    blocks_of,
    disjoint_subtrees,
    segment,
    unqualified_root,
)
from fce.features import COUNT_FEATURES
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
    text = t.render(0, keep=lambda i: t[i].tag != "span")
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


def test_the_root_and_body_are_never_qualified():
    # their names say which section or kind of page it is (WordPress's body_class), not where a block sits
    page = (b'<html class="js"><body id="page_biznes" class="single category-x">'
            b'<div class="a"><p>x</p></div></body></html>')
    for blocks in (None, "qualified"):  # (the tree walk, and the walk over the parser's events)
        paths = blocks_of(parse_page(page, blocks=blocks)).columns.paths
        assert paths == ["HTML", "HTML.BODY", "HTML.BODY.DIV[.a]", "HTML.BODY.DIV[.a].P"]
    assert unqualified_root("HTML.BODY[#page_biznes .single].DIV[.a].P") == "HTML.BODY.DIV[.a].P"
    assert unqualified_root("HTML.BODY.DIV[.a]") == "HTML.BODY.DIV[.a]"


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


# -- the fast segmentation against the straightforward one (output must stay identical) ---------------------------

def _reference_segment(root, path_style):
    """The segmentation written the straightforward way (a block stack per element, a qualifier
    per block, own text collapsed by regex): the oracle the fast :func:`fce.blocks.segment_element` must match."""
    import re

    from lxml import etree

    from fce.blocks import SKIPPED_TAGS, Block, BlockTree, _qualifier, is_hidden

    ws = re.compile(r"\s+")
    table = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})

    def norm(text):
        return ws.sub(" ", text).strip()

    paths, tags, parents, depths, parts, children = ["HTML"], ["html"], [-1], [0], [[]], [[]]
    counts = [[0] * 6]
    current, stack, link_depth, first = 0, [], 0, True
    hidden = set()  # elements skipped as hidden (their end closes no link)
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):
            if event == "start":
                walker.skip_subtree()
                stack.append(current)
            else:
                stack.pop()
                if el.tail:
                    parts[current].append(el.tail.translate(table))
            continue
        if event == "start":
            stack.append(current)
            if first:
                first = False
                if el.text:
                    parts[current].append(el.text.translate(table))
                continue
            if tag not in ("html", "body") and is_hidden(el):
                walker.skip_subtree()
                hidden.add(el)
                continue
            if tag in BLOCK_TAGS:
                idx = len(paths)
                qualified = path_style == "qualified" and tag not in ("html", "body")
                step = tag.upper() + (_qualifier(el.get("id"), el.get("class")) if qualified else "")
                paths.append(f"{paths[current]}.{step}")
                tags.append(tag)
                parents.append(current)
                depths.append(depths[current] + 1)
                parts[current].append(idx)
                children[current].append(idx)
                parts.append([])
                counts.append([0, 0, 0, 0, 1 if tag == "iframe" else 0, 0])
                children.append([])
                current = idx
            elif tag in SKIPPED_TAGS:
                if tag == "script":
                    counts[current][2] += 1
                elif tag in ("select", "textarea", "button"):
                    counts[current][3] += 1
                elif tag in ("svg", "object", "embed", "canvas", "video", "audio"):
                    counts[current][1] += 1
                walker.skip_subtree()
                continue
            elif tag == "a" and el.get("href") is not None:
                counts[current][0] += 1
                link_depth += 1
            elif tag == "img":
                counts[current][1] += 1
            elif tag == "input":
                counts[current][3] += 1
            elif tag == "br":
                parts[current].append("\n")
            if el.text:
                parts[current].append(el.text.translate(table))
                if link_depth:
                    counts[current][5] += len(norm(el.text.translate(table)))
        else:
            parent_block = stack.pop()
            if tag == "a" and link_depth and el.get("href") is not None and el not in hidden:
                link_depth -= 1
            current = parent_block
            if el.tail and stack:
                parts[current].append(el.tail.translate(table))
                if link_depth:
                    counts[current][5] += len(norm(el.tail.translate(table)))
    blocks = []
    for i, block_parts in enumerate(parts):
        own = "".join(p for p in block_parts if isinstance(p, str))
        blocks.append(Block(i, paths[i], tags[i], parents[i], depths[i], tuple(children[i]), tuple(block_parts),
                            norm(own), *counts[i]))
    return BlockTree(tuple(blocks))


TRICKY_PAGES = [
    FIGURE_2,
    b"<html><body><p>a<!-- c -->b<a href=x>link <b>bold</b><!-- in a link -->tail\n\tmore</a> after</p></body></html>",
    b"<body><div id='main-3' class='story active x1'><a href=1>one<a href=2>two</a></a><br>line<br/>"
    b"<script>var x = '<p>';</script>after script<select><option>o</select><iframe src=f>in frame</iframe>"
    b"<img src=i><input name=q><svg><text>no</text></svg><span>s1<span>s2</span></span></div>root tail</body>",
    b"<html><head><title>t</title></head><body>\xc2\xa0nbsp\xe2\x80\x83em space\x0bvt <td>cell</td>"
    b"<li>item<ul><li>sub</li></ul>after sub</li><table><tr><td>x</td></tr></table></body></html>tail after html",
    b"<html><body><noframes><p>framed</p></noframes><frameset><frame src=a></frameset>"
    b"<h1 class='a b c d e'>Title</h1><pre>  keep\n  lines </pre><p>"
    + b"<div>" * 40 + b"deep" + b"</div>" * 40 + b"</p></body></html>",
]


@pytest.mark.parametrize("html", TRICKY_PAGES, ids=range(len(TRICKY_PAGES)))
def test_renders_of_disjoint_subtrees_are_their_renders_with_what_they_visited(html, impl):
    # fce.blocks.disjoint_subtrees: blocks none of which holds another, each rendered with a keep of its own, their
    # visited blocks together: each renders with those as it rendered (what an extraction's covered_exact says)
    t = tree(html, "qualified")
    ends = t.columns.ends
    keeps = (None, lambda k: k % 3 != 1, lambda k: t.columns.tags[k] != "span", lambda k: k % 2 == 0)
    for step in (1, 2, 3):
        roots, i = [], 1
        while i < len(t):  # every step-th block whose subtree no root before it holds
            if (i - 1) % step == 0:
                roots.append(i)
                i = ends[i]
            else:
                i += 1
        covered: list[int] = []
        texts = [t.render(r, keeps[n % len(keeps)], covered) for n, r in enumerate(roots)]
        assert disjoint_subtrees(t, roots)
        kept = frozenset(covered)
        assert [t.render(r, kept.__contains__) for r in roots] == texts
    assert not disjoint_subtrees(t, [0, 1]) and not disjoint_subtrees(t, [1, 1]) and disjoint_subtrees(t, [])


@pytest.fixture(params=["compiled", "python"])
def impl(request, monkeypatch):
    """Run a test with the compiled walk (``fce/_segment.pyx``) and with the pure-Python loop."""
    from fce import blocks

    if request.param == "python":
        monkeypatch.setattr(blocks, "_ACCEL", None)
    elif blocks._ACCEL is None:
        pytest.skip("the compiled segmentation is not built (test_the_compiled_walk_is_built says why)")
    return request.param


def test_the_compiled_walk_is_built():
    # the install builds fce/_segment.pyx (setup.py; optional where no C compiler exists). The suite insists on it
    # so that the compiled walk is what the tests exercise, unless the pure-Python loop was asked for.
    from fce import blocks
    from fce._accel import NO_ACCEL_ENV, switched_off

    if switched_off():
        assert not blocks.ACCELERATED
        return
    assert blocks.ACCELERATED, ("fce._segment is not built: reinstall with a C compiler (pip install -e .), or set "
                                f"{NO_ACCEL_ENV}=1 to test the pure-Python segmentation only")


@pytest.mark.parametrize("style", ["paper", "qualified"])
@pytest.mark.parametrize("html", TRICKY_PAGES, ids=range(len(TRICKY_PAGES)))
def test_segmentation_matches_the_reference(html, style, impl):
    page = parse_page(html)
    assert segment(page, style).blocks == _reference_segment(page.root, style).blocks


@pytest.mark.parametrize("layout", ["div", "table"])
def test_segmentation_matches_the_reference_on_generated_sites(layout, impl):
    from tests.sitegen import SiteStyle, generate_site

    for generated in generate_site("example.org", 4, seed=6, style=SiteStyle(layout=layout)):
        page = parse_page(generated.html)
        for style in ("paper", "qualified"):
            assert segment(page, style).blocks == _reference_segment(page.root, style).blocks


@pytest.fixture
def reconfigured(monkeypatch):
    """Patch fce.blocks with ``monkeypatch``, then call the fixture to hand the patched values to the compiled walk
    (fce.blocks configures it once, at import); its own configuration is given back afterwards."""
    from fce import blocks

    yield lambda: blocks._ACCEL is not None and blocks._configure(blocks._ACCEL)
    monkeypatch.undo()
    if blocks._ACCEL is not None:
        blocks._configure(blocks._ACCEL)


def test_step_cache_is_bounded(monkeypatch, reconfigured, impl):
    from fce import blocks

    monkeypatch.setattr(blocks, "STEP_CACHE_SIZE", 5)
    monkeypatch.setattr(blocks, "PATH_CACHE_SIZE", 5)
    monkeypatch.setattr(blocks, "_QUALIFIED_STEPS", {})
    reconfigured()
    html = b"<body>" + b"".join(b"<div class='c%s'><p id='x%s'>t</p></div>" % (bytes([97 + i]), bytes([97 + i]))
                                 for i in range(12)) + b"</body>"
    page = parse_page(html)
    assert segment(page, "qualified").blocks == _reference_segment(page.root, "qualified").blocks
    assert 0 < len(blocks._QUALIFIED_STEPS) <= 5
    if impl == "compiled":  # the compiled walk's cache of whole paths is bounded too
        entries, bound = blocks._ACCEL.path_cache_size()
        assert bound == 5 and 0 < entries <= 5


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@pytest.mark.parametrize("size", [1, 3, 50_000])
def test_cached_paths_are_the_paths(monkeypatch, reconfigured, size):
    # the compiled walk caches whole paths by (parent path, tag name, raw id, raw class): an absent attribute, an
    # empty one and the same name in the other attribute must stay apart; a page segmented again (every path from
    # the cache), in the other style in between, and with the cache cleared mid-page (size 1 and 3) gives the same
    from fce import blocks

    monkeypatch.setattr(blocks, "PATH_CACHE_SIZE", size)
    reconfigured()
    html = (b"<body><div id='main'><p>a</p></div><div class='main'><p>b</p></div><div id='' class=''><p>c</p></div>"
            b"<div><p>d</p></div><section id='main'><p class='main'>e</p></section>"
            b"<div id='x&amp;y' class='a b'><p>f</p></div><div id='main' class='main'><p id='main'>g</p></div>"
            b"<div class='story active'>h</div><div class='story'>i</div><div class='s1'>j</div></body>")
    page = parse_page(html)
    want = {style: _reference_segment(page.root, style).blocks for style in blocks.PATH_STYLES}
    for _ in range(3):
        for style in blocks.PATH_STYLES:
            assert segment(page, style).blocks == want[style]
    entries, bound = blocks._ACCEL.path_cache_size()
    assert bound == size and 0 < entries <= size
    paths = [b.path for b in want["qualified"]]
    assert "HTML.BODY.DIV[#main].P" in paths and "HTML.BODY.DIV[.main].P" in paths and "HTML.BODY.DIV.P" in paths


def test_long_and_wide_text_runs(impl):
    # text runs as the compiled walk reads them: whitespace-only runs shorter and longer than its table of ready
    # strings, runs without line breaks decoded as they are, runs with line breaks translated; own texts that
    # are one piece already collapsed, or several of 1-, 2- and 4-byte characters; a run too long for the scratch
    # buffer to be kept, then a short one
    html = ("<body><div>" + " " * 127 + "<p>" + " " * 128 + "</p>" + " " * 129 + "<p>" + " \n\t" * 50 + "</p>"
            "<p>" + "\n " * 20 + "</p>"
            "<p>plain ascii text</p><p>déjà vu</p><p>  two  spaces\n</p><p>a<b>b</b>c</p><p>\u4e2d\u6587 and é</p>"
            "<p>\U0001f600 x \u00a0 y</p><p>\u3000wide\u3000</p><p>x<br>y</p><p> </p><p>a<b> </b>b</p>"
            "<p>  <b>x</b>\n  y  <i>z</i>  </p><p>\n <b>one piece</b> </p><p>\n <b> two  spaces</b> </p>"
            + "z" * 300 + "<p>" + "huge\n" * 20_000 + "</p><p>small\tone</p></div></body>")
    page = parse_page(html.encode())
    for style in ("paper", "qualified"):
        assert segment(page, style).blocks == _reference_segment(page.root, style).blocks


@pytest.mark.parametrize("pieces", [
    ["  a \u00a0 b\u2003", "\n", "\u3000", "\n\n", "c\x1c\x1dd\x85e  "], ["\n"], [], ["x\u200by"], ["\t\x0b\x0c "],
])
def test_join_pieces_collapses_whitespace_like_the_regex(pieces, impl):
    import re

    from fce.blocks import join_pieces

    lines = "".join(pieces).split("\n")
    expected = "\n".join(filter(None, (re.sub(r"\s+", " ", line).strip() for line in lines)))
    assert join_pieces(pieces) == expected


@pytest.mark.parametrize("style", ["paper", "qualified"])
@pytest.mark.parametrize("html", TRICKY_PAGES[:3], ids=range(3))
def test_segmentation_matches_the_reference_with_comments_kept(html, style, impl):
    # parse_page drops comments and processing instructions; a tree from elsewhere may keep them
    from lxml import etree

    from fce.blocks import segment_element

    root = etree.fromstring(html, etree.HTMLParser(remove_comments=False, remove_pis=False))
    assert segment_element(root, style).blocks == _reference_segment(root, style).blocks


def test_an_anchor_without_href_is_not_a_link():
    # an unclosed <a name=...> wraps the rest of the page in libxml2's tree: its text must not count as link text
    t = tree(b"<body><a name=top><div><p>First paragraph of the article.</p>"
             b"<p>See <a href='/x'>this link</a> too.</p></div></body>")
    by_text = {b.text: b for b in t.blocks if b.text}
    first = by_text["First paragraph of the article."]
    assert first.link_chars == 0 and first.n_links == 0
    linked = by_text["See this link too."]
    assert linked.link_chars == len("this link") and linked.n_links == 1


# -- the compiled walk against the Python loop on arbitrary markup ----------------------------------------------------

_TAGS = ["div", "p", "span", "a", "b", "td", "li", "ul", "table", "tr", "script", "style", "br", "img", "input",
         "select", "svg", "iframe", "h1", "noscript", "em", "section", "fb:like", "x-widget", "pre", "title", "body",
         "i", "code", "sub", "del", "kbd"]
_TEXT = st.text(alphabet=st.sampled_from(list("ab yz,.\n\t\r\x0b\x0c\xa0\u2003\u3000\x1c\x85\u200b&<>é中\U0001f600")),
                max_size=12)


@st.composite
def _markup(draw, depth=0):
    out = [draw(_TEXT).replace("<", "&lt;")]
    for _ in range(draw(st.integers(0, 3 if depth < 4 else 0))):
        tag = draw(st.sampled_from(_TAGS))
        attrs = ""
        if draw(st.booleans()):
            ident = draw(st.sampled_from(["main", "a1-b", "", "x y", "Nav_2"]))
            attrs += f" id='{ident}'"
        if draw(st.booleans()):
            names = draw(st.sampled_from(["story active", "c1 c2 c3 c4", "", "a&amp;b", "x", "hidden", "x sr-only",
                                          "Skip-Link"]))
            attrs += f" class='{names}'"
        if tag == "a" and draw(st.booleans()):
            attrs += draw(st.sampled_from([" href=x", " href", " href=''", " name=top", " href='a&amp;b&#233;'",
                                           " href='&unknown;x'", " href='#main'", " href='#'"]))
        if draw(st.integers(0, 3)) == 0:
            attrs += draw(st.sampled_from([
                " style='display:none'", " style='color: red; DISPLAY :\tNone !important'", " style='display:block'",
                " style='visibility: hidden'", " style='x-display:none'", " hidden", " hidden=''",
                " aria-hidden=true", " aria-hidden='false'", " aria-hidden=true class='fallback-image x'",
                " style='display:&#10;none'"]))
        inner = draw(_markup(depth + 1))
        close = draw(st.sampled_from([f"</{tag}>", ""]))
        comment = draw(st.sampled_from(["", "<!-- c -->", "<?pi x?>"]))
        out.append(f"<{tag}{attrs}>{inner}{close}{comment}{draw(_TEXT)}")
    return "".join(out)


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@settings(max_examples=300, deadline=None)
@given(body=_markup(), keep_comments=st.booleans())
def test_the_compiled_walk_gives_the_python_loops_blocks(body, keep_comments):
    from lxml import etree

    from fce import blocks

    html = ("<html><head><title>t</title></head><body>" + body + "</body></html>").encode()
    # parse_page's parser, or one that keeps comments and processing instructions (parse_page itself would refuse
    # some of these pages as binary: the alphabet is rich in control characters)
    parser = etree.HTMLParser(remove_comments=not keep_comments, remove_pis=not keep_comments, default_doctype=False)
    root = etree.fromstring(html, parser)
    compiled = {style: blocks.segment_element(root, style) for style in blocks.PATH_STYLES}
    accel, blocks._ACCEL = blocks._ACCEL, None
    try:
        python = {style: blocks.segment_element(root, style) for style in blocks.PATH_STYLES}
    finally:
        blocks._ACCEL = accel
    for style in blocks.PATH_STYLES:
        assert compiled[style]._children is None
        assert_same_tree(compiled[style], python[style])


def assert_same_tree(compiled, python):
    """The compiled segmentation read every way a BlockTree can be read (columns, children, rendering with and
    without a ``keep``) gives what the Python one gives (its columns derived from its blocks)."""
    # (first: a fresh compiled tree makes each block's children alone, before its blocks make all of them)
    assert [compiled.child_indices(i) for i in range(len(python))] == [b.children for b in python.blocks]
    # (then the own texts and counts, before the blocks are built: read without them, then shared with them)
    texts = compiled.texts
    assert texts == python.texts == [b.text for b in python.blocks]
    for fields in (COUNT_FIELDS, COUNT_FEATURES, ("link_chars",), ()):
        rows = compiled.count_rows(fields)
        assert rows == python.count_rows(fields) == [tuple(getattr(b, f) for f in fields) for b in python.blocks]
    assert compiled.blocks == python.blocks
    assert all(b.text is t for b, t in zip(compiled.blocks, texts, strict=True))
    assert compiled.columns == python.columns
    assert compiled.children == python.children
    for i in range(len(python)):
        for keep in (None, lambda k: k % 3 != 1, lambda k: python[k].tag != "span"):
            got, want = [], []
            assert compiled.pieces(i, keep, got) == python.pieces(i, keep, want)
            assert got == want
            rendered, seen = compiled.render(i, keep, []), []
            assert rendered == python.render(i, keep, seen) == compiled.render(i, keep)
            assert seen == want
    assert_same_structure(compiled, python)


def assert_same_structure(compiled, python):
    """What structured output reads (marks, line breaks, sources inside <pre>, of a subtree whole or of some of its
    blocks; a block's parts and its render, by the functions the trees give) is the same on both trees."""
    blocks = python.blocks
    assert compiled.marks() == python.marks()
    assert all(type(m) is Mark for m in compiled.marks())
    assert compiled.preformatted() == python.preformatted()
    for i in range(0, len(python), max(1, len(python) // 7)):  # (a few subtrees: every one is quadratic)
        end = python.subtree_end(i)
        some = frozenset(range(i, len(python), 2))
        assert compiled.marks(i) == python.marks(i) == [m for m in python.marks() if i <= m.block < end]
        assert compiled.marks(i, some) == python.marks(i, some)
        assert (compiled.marks(i, some, links=False) == python.marks(i, some, links=False)
                == [m for m in python.marks(i, some) if m.kind != "link"])
        assert compiled.line_breaks(i) == python.line_breaks(i) == [b.index for b in blocks[i:end] if "\n" in b.parts]
        assert compiled.line_breaks(i, some) == python.line_breaks(i, some)
        assert compiled.preformatted(i) == python.preformatted(i)
    parts_of, parts_too = compiled.part_reader(), python.part_reader()
    for keep in (None, lambda k: k % 3 != 1):
        text_of, text_too = compiled.renderer(keep), python.renderer(keep)
        for i in range(len(python)):
            assert parts_of(i) == parts_too(i) == compiled.parts(i) == blocks[i].parts
            assert text_of(i) == text_too(i) == python.render(i, keep)
    for mark in python.marks():  # a mark falls between two parts of its block
        assert 0 <= mark.at <= len(blocks[mark.block].parts)


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.lists(st.one_of(_TEXT, st.text(max_size=8), st.integers(0, 9)), max_size=6), max_size=5))
def test_compiled_own_texts_collapse_whitespace_like_str_split(parts):
    from fce import blocks

    expected = [" ".join("".join(p for p in block if isinstance(p, str)).split()) for block in parts]
    assert blocks._ACCEL.own_texts(parts) == expected


@pytest.mark.parametrize("style", ["paper", "qualified"])
def test_attribute_values_split_over_entity_nodes(style, impl):
    # an XML tree that keeps entity references: the class value is two nodes, which lxml joins for the walk
    from lxml import etree

    from fce.blocks import segment_element

    xml = b'<!DOCTYPE div [<!ENTITY e "Story">]><div class="main &e;"><p id="a&e;">text <a href="&e;">x</a></p></div>'
    root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False))
    got = segment_element(root, style)
    assert got.blocks == _reference_segment(root, style).blocks
    if style == "qualified":
        assert got.blocks[1].path == "HTML.P[#astory]"


def test_namespaced_elements_are_spelled_as_lxml_spells_them(impl):
    from lxml import etree

    from fce.blocks import segment_element

    root = etree.fromstring(b'<html xmlns:x="urn:x"><body><x:div>in x</x:div><div>plain</div></body></html>')
    got = segment_element(root, "qualified")
    assert got.blocks == _reference_segment(root, "qualified").blocks
    assert [b.tag for b in got.blocks] == ["html", "body", "div"]


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.one_of(_TEXT, st.text(max_size=8), st.sampled_from(["\n", "", " ", "\n\n"])), max_size=8))
def test_compiled_join_pieces_is_the_python_one(pieces):
    from fce import blocks

    lines = "".join(pieces).split("\n")
    assert blocks._ACCEL.join_pieces(pieces) == "\n".join(filter(None, [" ".join(line.split()) for line in lines]))


def test_tuple_maker_makes_what_tuple_new_makes():
    from fce import blocks

    make = blocks.tuple_maker()
    for cls, items in [(blocks.Mark, (3, 1, "em", True, None)), (blocks.Mark, (0, 0, "link", False, "/a")),
                       (tuple, ("a", 1))]:
        made = make(cls, items)
        assert type(made) is cls and made == tuple.__new__(cls, items)
    if blocks._ACCEL is not None:
        assert make is blocks._ACCEL.new_tuple
        with pytest.raises(TypeError):
            make(list, ("a",))


@pytest.mark.parametrize("style", ["paper", "qualified"])
@pytest.mark.parametrize("html", TRICKY_PAGES + [FIGURE_2], ids=range(len(TRICKY_PAGES) + 1))
def test_compiled_trees_read_as_the_python_ones(html, style):
    from fce import blocks

    if blocks._ACCEL is None:
        pytest.skip("the compiled walk is not built")
    page = parse_page(html)
    compiled = blocks.segment_element(page.root, style)
    python = blocks._segment_python(page.root, style == "qualified")
    assert compiled._seg is not None and python._seg is None  # the two kinds of tree
    assert_same_tree(compiled, python)
    assert blocks.subtree_sums(compiled) == blocks.subtree_sums(python)


def test_a_tree_builds_its_blocks_only_when_asked(impl):
    t = segment(parse_page(FIGURE_2), "qualified")
    if impl == "compiled":
        assert t._blocks is None
        assert t.render(0) and t.columns.text_lengths and t.children
        assert any(t.texts) and t.count_rows(COUNT_FEATURES)
        assert t._blocks is None  # read column-wise: no Block built
    assert [len(b.text) for b in t.blocks] == t.columns.text_lengths.tolist()
    assert t.blocks is t.blocks
    import pickle

    again = pickle.loads(pickle.dumps(t))
    assert again.blocks == t.blocks and again.columns == t.columns and again.render(0) == t.render(0)


def test_integer_columns_are_long_arrays(impl):
    from array import array

    cols = segment(parse_page(FIGURE_2), "qualified").columns
    assert isinstance(cols.paths, list) and isinstance(cols.tags, list)
    for values in cols[2:]:
        assert isinstance(values, array) and values.typecode == "l" and len(values) == len(cols.paths)
    assert cols.parents[0] == -1 and cols.ends[0] == len(cols.paths)


def test_count_rows_share_the_zero_row_and_refuse_unknown_fields(impl):
    t = segment(parse_page(b"<html><body><p>a <a href=x>link</a></p><p>b</p><div><img src=i></div></body></html>"),
                "paper")
    rows = t.count_rows(("n_links", "n_images"))
    assert sorted(set(rows)) == [(0, 0), (0, 1), (1, 0)]
    zero = [r for r in rows if r == (0, 0)]
    assert len(zero) > 2 and all(r is zero[0] for r in zero)
    with pytest.raises(ValueError, match="count fields"):
        t.count_rows(("n_links", "text"))
    if impl == "compiled":
        with pytest.raises(ValueError, match="0-5"):
            t._seg.count_rows((6,))


def test_text_on_paths_sums_own_text(impl):
    from fce.blocks import BlockTree, text_on_paths

    t = tree(b"<body><div><p>four</p><h2>sixsix</h2></div><ul><li>xx</li></ul></body>")
    paths = {b.path for b in t if b.text in ("four", "xx")}
    assert text_on_paths(t, paths) == (6, 12)
    assert text_on_paths(t, frozenset()) == (0, 12)
    assert text_on_paths(BlockTree(()), paths) == (0, 0)


@pytest.mark.parametrize("html", TRICKY_PAGES + [FIGURE_2 * 3], ids=range(len(TRICKY_PAGES) + 1))
def test_subtree_sums(html, impl):
    from fce.blocks import INLINE_BLOCK_TAGS, subtree_sums

    t = tree(html, "qualified")
    chars, links, para, commas = subtree_sums(t)
    for b in t:
        inside = [b, *t.descendants(b.index)]
        assert chars[b.index] == sum(len(d.text) for d in inside)
        assert links[b.index] == sum(d.link_chars for d in inside)
    for b in t:  # a paragraph: own text plus inline sub-blocks, at any depth through inline blocks
        inline_kids = [k for k in b.children if t[k].tag in INLINE_BLOCK_TAGS]
        assert para[b.index] == len(b.text) + sum(para[k] for k in inline_kids)
        assert commas[b.index] == b.text.count(",") + sum(commas[k] for k in inline_kids)


@pytest.mark.parametrize(("attrs", "hidden"), [
    ("", False), ("style='color:red'", False), ("style='display:none'", True), ("style='Display : NONE;'", True),
    ("style='visibility:hidden'", True), ("style='display:block'", False), ("hidden", True), ("hidden=''", True),
    ("aria-hidden='true'", True), ("aria-hidden='false'", False), ("aria-hidden='true' class='fallback-image'", False),
])
def test_hidden_elements_are_not_segmented(attrs, hidden, impl):
    t = tree(f"<body><div><p>Shown text.</p><div {attrs}><p>Maybe hidden.</p><img src=x></div>tail</div></body>"
             .encode(), "qualified")
    text = t.render(0)
    assert ("Maybe hidden." in text) == (not hidden)
    assert text.endswith("tail")  # a hidden element's tail is shown
    assert sum(b.n_images for b in t) == (0 if hidden else 1)


@pytest.mark.parametrize(("link", "hidden"), [
    ("<a class='hidden' href='#story_continues_1'>", True),  # bbc.co.uk's "Continue reading the main story"
    ("<a href='#content' class='x sr-only'>", True),
    ("<a href='#main' class='visually-hidden-focusable'>", False),  # not one of the names
    ("<a href='#content' id='Skip-To-Content'>", True),  # named as a skip link
    ("<a href='#c' class='skiplink'>", True),
    ("<a href='#' class='hidden'>", False),  # no target in the page
    ("<a href='/story' class='hidden'>", False),  # another page
    ("<a class='hidden'>", False),
    ("<a href='#c' class='hidden-xs'>", False),  # shown on larger screens
    ("<span class='hidden'>", False),  # not a link
])
def test_skip_links_are_not_segmented(link, hidden, impl):
    end = "</" + link[1:link.index(" ")] + ">"
    t = tree(f"<body><div>{link}Continue reading{end}<p>The story goes on.</p></div></body>".encode(), "qualified")
    assert ("Continue reading" in t.render(0)) == (not hidden)


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@settings(max_examples=200, deadline=None)
@given(links=st.lists(st.tuples(
    st.sampled_from([None, "", "#", "#a", "x#a", "#&amp;", "\u00e9#a"]),
    st.sampled_from([None, "", "skip", "SKIP-to", "sk ip", "main", "\u212askip", "xskipx"]),
    st.sampled_from([None, "", "hidden", "x hidden", "hidden\tx", "hidden-xs", "sr-only", "Hidden", "x\u00a0hidden",
                     "\vhidden", "screen-reader-text\n", "element-invisible visually-hidden", "SkIp"])),
    min_size=1, max_size=6))
def test_the_compiled_skip_link_test_is_is_hidden(links):
    # the compiled walks test skip links themselves (fce/_segment.pyx: _skip_link): on random hrefs, ids and classes
    # they hide exactly what fce.blocks.is_hidden hides, the walk over the tree and the walk over parse events alike
    from lxml import etree

    from fce import blocks
    from fce.parse import _parser

    anchors = []
    for i, (href, ident, classes) in enumerate(links):
        attrs = "".join(f' {name}="{value}"' for name, value in (("href", href), ("id", ident), ("class", classes))
                        if value is not None)
        anchors.append(f"<a{attrs}>text {i}</a> ")
    html = f"<html><body><p>{''.join(anchors)}</p></body></html>"
    root = etree.fromstring(html.encode(), parser=_parser())
    want = [blocks.is_hidden(el) for el in root.iter("a")]
    compiled = blocks.segment_element(root, "qualified")
    assert [f"text {i}" not in compiled.render(0) for i in range(len(links))] == want
    assert compiled.blocks == _reference_segment(root, "qualified").blocks
    if blocks.sax_available():  # the walk over parse events (parse_page(blocks=…): no lxml tree)
        assert blocks_of(parse_page(html.encode(), blocks="qualified"), "qualified").blocks == compiled.blocks


def test_a_hidden_body_is_still_segmented(impl):
    assert tree(b"<html><body style='display:none'><p>Shown once the script ran.</p></body></html>").render(0) == (
        "Shown once the script ran.")


_STYLE_BITS = ["display", "DiSpLaY", "visibility", "VISIBILITY", ":", " ", "\t", "\n", "\r", "\f", "\v", "none", "NONE",
               "hidden", "Hidden", ";", "-", "x", "é", "\u017f", "\u212a", "block", "&#10;", "&amp;"]
_CSS_SPACE = st.lists(st.sampled_from([" ", "\t", "\n", "\r", "\f", "\v", "&#10;", "\u00a0"]), max_size=2).map("".join)
#: a declaration near one that hides (property, space, colon, space, value: each drawn to match or nearly), or junk
_STYLES = st.one_of(
    st.tuples(st.sampled_from(["", "x-", "color:red;", "é"]),
              st.sampled_from(["display", "DiSpLaY", "displa", "visibility", "VISIBILITY", "visibilit\u0131"]),
              _CSS_SPACE, st.sampled_from([":", "", "=", "::"]), _CSS_SPACE,
              st.sampled_from(["none", "NONE", "\u017fone", "hidden", "HiDdEn", "hidde", "block", "&amp;"]),
              st.sampled_from(["", ";", "!important", "x"])).map("".join),
    st.lists(st.sampled_from(_STYLE_BITS), max_size=10).map("".join))


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@settings(max_examples=200, deadline=None)
@given(styles=st.lists(_STYLES, min_size=1, max_size=6),
       aria=st.lists(st.sampled_from([None, "true", "TRUE", "false", "", "true "]), min_size=6, max_size=6),
       classes=st.lists(st.sampled_from([None, "", "fallback-image", "x fallback-images", "fallback"]), min_size=6,
                        max_size=6),
       keep_entities=st.booleans())
def test_the_compiled_visibility_test_is_is_hidden(styles, aria, classes, keep_entities):
    # the compiled walk tests visibility itself (fce/_segment.pyx: _hidden, _style_hides): on random styles, ARIA
    # values and classes it hides exactly what fce.blocks.is_hidden hides; with entity references kept (an XML
    # tree), values split over several nodes go to is_hidden
    from lxml import etree

    from fce import blocks
    from fce.parse import _parser

    divs = []
    for i, style in enumerate(styles):
        attrs = f' style="{style}"'
        if aria[i] is not None:
            attrs += f' aria-hidden="{aria[i]}"'
        if classes[i] is not None:
            attrs += f' class="{classes[i]}"'
        divs.append(f"<div{attrs}><p>text {i}</p></div>")
    body = "".join(divs).replace("&amp;", "&e;" if keep_entities else "&amp;")
    if keep_entities:  # (XML has no form feed nor vertical tab)
        body = body.replace("\f", "").replace("\v", "")
        root = etree.fromstring(f'<!DOCTYPE body [<!ENTITY e "none">]><body>{body}</body>'.encode(),
                                etree.XMLParser(resolve_entities=False))
    else:  # fce's parser, without parse_page's sniffing (which refuses a page this full of \v as binary)
        root = etree.fromstring(f"<body>{body}</body>".encode(), parser=_parser())
    want = [blocks.is_hidden(el) for el in root.iter("div")]
    compiled = blocks.segment_element(root, "qualified")
    assert [f"text {i}" not in compiled.render(0) for i in range(len(styles))] == want
    assert compiled.blocks == _reference_segment(root, "qualified").blocks


def test_another_hidden_style_goes_to_is_hidden(monkeypatch, reconfigured, impl):
    # the compiled walk tests visibility in C only for the pattern it implements; any other is asked of is_hidden
    import re

    from fce import blocks

    monkeypatch.setattr(blocks, "HIDDEN_STYLE", re.compile(r"color\s*:\s*red", re.IGNORECASE))
    reconfigured()
    html = b"<body><div style='COLOR: red'><p>red</p></div><div style='display:none'><p>none</p></div></body>"
    t = tree(html)
    assert t.render(0) == "none"
    assert t.blocks == _reference_segment(parse_page(html).root, "qualified").blocks


# -- the walk from the parser's events (parse_page(blocks=…): no lxml tree) -----------------------------------------

EVENT_PAGES = TRICKY_PAGES[:3] + [
    # hidden elements, a link with its text in several runs, an anchor, a line break, entities, an iframe
    b"<html><body><div id=a hidden>gone</div><p aria-hidden=true class='x fallback-image'>kept</p>"
    b"<p aria-hidden=true>gone</p><p style='COLOR:red; Display : none'>gone</p><p style='display:block'>shown</p>"
    b"<div class>empty class</div><div id=a id=b class=c class=d>dup attributes</div>"
    b"<a class='x hidden' href='#more'>skip link</a><a id=skip-nav href='#main'>skip link</a><a href='#n'>note</a>"
    b"<a href>l1 <b>bold</b> &amp; l2</a> <a name=top>anchor</a> x<br>y &nbsp;&#8212; z"
    b"<iframe src=f>frame</iframe><DIV CLASS=Upper>upper case</DIV></body></html>",
    # text outside the body and after the root, whitespace runs of every kind and length, CR LF, form feeds
    b"<!DOCTYPE html>lead text<html>root text<body>" + b" " * 300 + b"<p>a\r\nb\tc\x0cd e</p>" + b"\n" * 200
    + b"<p>" + b"\t " * 100 + b"x</p></body></html>after root<p>after</p>",
    # unclosed and implied elements, tables without their inner tags, an element left open at the end
    b"<title>t</title>text in head<p>one<p>two<li>three<td>four<table><td>cell<tr>row</table>"
    b"<div><span>open",
    # a NUL byte past the part parse_page sniffs (decoded first, the NUL replaced, then parsed as UTF-8)
    b"<html><body><p>" + b"x" * 20000 + b"</p><p>before\x00after</p><p>next</p></body></html>",
    # deep, but not as deep as libxml2's tree builder stops at (2,048 elements)
    b"<html><body>" + b"<div><span>x" * 990 + b"deep" + b"</span></div>" * 990 + b"</body></html>",
    # windows-1252, declared (decoded, then parsed as UTF-8); an XML declaration (removed before the parse)
    b"<html><head><meta charset=windows-1252></head><body><p>caf\xe9 \x93quoted\x94 \x80 5</p></body></html>",
    b"<?xml version='1.0' encoding='utf-8'?><html><body><p>after the declaration</p></body></html>",
    # namespace prefixes other than SVG's and MathML's (nothing renamed in the tree)
    b"<html xmlns:fb='http://ogp.me/ns/fb#'><body><fb:like href=x>like</fb:like><p>text</p></body></html>",
    # nested skipped elements and links inside them; a form field inside a link
    b"<body><a href=1>a<script>s</script>b<noscript><a href=2>in</a></noscript>c<input>d</a>e"
    b"<object><a href=3>o</a></object>f<video><p>v</p></video></body>",
]


def tree_parsed(html):
    """The page ``parse_page(html)`` gives, as a plain page of its lxml tree: its block trees are segmented from
    that tree (``parse_page`` itself makes the default style's from the parser's events where it can)."""
    from fce.parse import Page

    page = parse_page(html)
    return Page(root=page.root, url=page.url, encoding=page.encoding, source=page.source, size=page.size,
                meta=page.meta, markup=page.markup)


def _events_and_tree(html, style):
    """``parse_page(html, blocks=style)``, the page of its lxml tree (:func:`tree_parsed`), and whether the first
    made its blocks from the parser's events."""
    from fce.parse import _SegmentedPage

    page = parse_page(html, blocks=style)
    return page, tree_parsed(html), isinstance(page, _SegmentedPage)


needs_events = pytest.mark.skipif(not getattr(__import__("fce.blocks").blocks._ACCEL, "SAX_AVAILABLE", False),
                                  reason="the walk from parse events is not available here")


@needs_events
@pytest.mark.parametrize("style", ["paper", "qualified"])
@pytest.mark.parametrize("html", EVENT_PAGES, ids=range(len(EVENT_PAGES)))
def test_events_segment_as_the_tree_walk(html, style):
    page, parsed, from_events = _events_and_tree(html, style)
    assert from_events  # (parsed as they are, or decoded first: the tree is built from the same UTF-8 either way)
    assert page.cache[f"blocks:{style}"] is blocks_of(page, style)
    assert_same_tree(blocks_of(page, style), blocks_of(parsed, style))


@needs_events
@pytest.mark.parametrize("layout", ["div", "table"])
def test_events_segment_as_the_tree_walk_on_generated_sites(layout):
    from tests._sites import site_pages

    for gold, _ in site_pages("events.test", 12, 5, layout):
        for style in ("paper", "qualified"):
            page, parsed, from_events = _events_and_tree(gold.html, style)
            assert from_events
            assert_same_tree(blocks_of(page, style), blocks_of(parsed, style))


@needs_events
@pytest.mark.parametrize(("html", "why"), [
    (b"<html><frameset><frame src=a></frameset><noframes><p>framed</p></noframes></html>", "a noframes element"),
    (b"<html><head><title>t</title><mbox>the text of the page</mbox></head></html>", "a body left in head"),
    (b"<html><body>" + b"<div>" * 2100 + b"deep" + b"</div>" * 2100 + b"</body></html>", "too deep for libxml2"),
    (b"<html xmlns:svg='http://www.w3.org/2000/svg'><body><p>text</p><svg:svg><svg:text>x</svg:text></svg:svg>"
     b"</body></html>", "prefixed SVG, renamed in the tree"),
])
def test_pages_that_need_their_tree_are_given_back(html, why):
    # parse_page repairs these trees (or flattens the page): the walk from events leaves them to the tree path
    page, parsed, from_events = _events_and_tree(html, "qualified")
    assert not from_events, why
    assert_same_tree(blocks_of(page, "qualified"), blocks_of(parsed, "qualified"))


@needs_events
@settings(max_examples=300, deadline=None)
@given(body=_markup(), head=st.sampled_from(["<head><title>t</title></head>", "", "<head><meta charset=utf-8>"]))
def test_events_segment_any_markup_as_the_tree_walk(body, head):
    html = (f"<html>{head}<body>" + body + "</body></html>").encode()
    for style in ("paper", "qualified"):
        try:
            page, parsed, _ = _events_and_tree(html, style)
        except Exception as exc:  # parse_page refuses the page (binary, say): both ways
            with pytest.raises(type(exc)):
                parse_page(html)
            return
        assert_same_tree(blocks_of(page, style), blocks_of(parsed, style))


@needs_events
def test_a_page_segmented_from_events_parses_its_tree_when_asked():
    from lxml import etree

    html = EVENT_PAGES[4]
    page, parsed, from_events = _events_and_tree(html, "qualified")
    assert from_events
    root = page.root  # parsed now, on the path parse_page takes, and kept
    assert root is page.root and etree.tostring(root) == etree.tostring(parsed.root)
    assert page.body.tag == "body"
    assert_same_tree(blocks_of(page, "paper"), blocks_of(parsed, "paper"))  # another style: from the tree


@needs_events
def test_events_segment_in_threads():
    from concurrent.futures import ThreadPoolExecutor

    pages = EVENT_PAGES * 4
    want = [blocks_of(tree_parsed(h), "qualified").blocks for h in pages]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda h: blocks_of(parse_page(h, blocks="qualified"), "qualified").blocks, pages))
    assert got == want


@pytest.mark.parametrize("off", ["unchecked libxml2", "pure Python"])
def test_without_the_walk_from_events_the_block_tree_comes_from_the_lxml_tree(off, monkeypatch):
    from fce import blocks
    from fce.parse import Page

    if off == "pure Python":
        monkeypatch.setattr(blocks, "_ACCEL", None)
    elif blocks._ACCEL is None:
        pytest.skip("the compiled segmentation is not built")
    else:
        monkeypatch.setattr(blocks._ACCEL, "SAX_AVAILABLE", False)
    assert not blocks.sax_available()
    page = parse_page(FIGURE_2, blocks="qualified")
    assert type(page) is Page and "blocks:qualified" in page.cache  # made from the tree, at once
    assert blocks_of(page, "qualified").blocks == blocks_of(parse_page(FIGURE_2), "qualified").blocks


# -- marks: inline formatting for structured output -------------------------------------------------------------

MARKED = (b"<html><body><p>a <b>bold <i>both</i></b> <a href='/x?a=1&amp;b=2'>link <code>c</code></a>"
          b"<a name=top>anchor</a> <a href>empty</a>.</p><a href=y><div><p>inside</p></div></a>"
          b"<pre>  one\n\ttwo <b>three</b>\n</pre><p>x<sub>2</sub> <del>d</del><strong hidden>h</strong></p>"
          b"</body></html>")


def _marks_of(t):
    return [(m.block, t.blocks[m.block].tag, m.at, m.kind, m.opens, m.href) for m in t.marks()]


def test_marks_of_inline_elements(impl):
    t = tree(MARKED, "qualified")
    p = next(b.index for b in t.blocks if b.tag == "p")
    assert t.blocks[p].parts == ("a ", "bold ", "both", " ", "link ", "c", "anchor", " ", "empty", ".")
    div = next(b.index for b in t.blocks if b.tag == "div")
    assert _marks_of(t)[:10] == [
        (p, "p", 1, "strong", True, None), (p, "p", 2, "em", True, None), (p, "p", 3, "em", False, None),
        (p, "p", 3, "strong", False, None), (p, "p", 4, "link", True, "/x?a=1&b=2"), (p, "p", 5, "code", True, None),
        (p, "p", 6, "code", False, None), (p, "p", 6, "link", False, None),  # (no mark for <a name>)
        (p, "p", 8, "link", True, ""), (p, "p", 9, "link", False, None),
    ]
    # a link around a block opens in the block that holds it, before the sub-block, and closes after it
    body = t.blocks[div].parent
    assert ((body, "body", t.blocks[body].parts.index(div), "link", True, "y") in _marks_of(t)
            and (body, "body", t.blocks[body].parts.index(div) + 1, "link", False, None) in _marks_of(t))
    last = [m for m in _marks_of(t) if m[0] == len(t) - 1]
    assert [(m[3], m[4]) for m in last] == [("sub", True), ("sub", False), ("del", True), ("del", False)]  # (hidden)


def test_the_source_of_preformatted_text(impl):
    t = tree(MARKED, "qualified")
    pre = next(b for b in t.blocks if b.tag == "pre")
    assert pre.parts == ("  one  two ", "three", " ")
    assert t.preformatted() == {(pre.index, 0): "  one\n\ttwo ", (pre.index, 2): "\n"}
    assert t.preformatted(pre.index) == t.preformatted() and t.preformatted(1 + pre.index) == {}


@needs_events
def test_events_make_the_marks_of_the_tree_walk():
    page, parsed, from_events = _events_and_tree(MARKED, "qualified")
    assert from_events
    assert_same_structure(blocks_of(page, "qualified"), blocks_of(parsed, "qualified"))
    assert blocks_of(page, "qualified").marks() == blocks_of(parsed, "qualified").marks() != []


def test_marks_survive_pickling(impl):
    import pickle

    t = tree(MARKED, "qualified")
    again = pickle.loads(pickle.dumps(t))
    assert again.marks() == t.marks() and again.preformatted() == t.preformatted()


def test_a_hand_made_tree_has_no_marks():
    from fce.blocks import Block, BlockTree

    t = BlockTree([Block(0, "HTML", "html", -1, 0, (), ("x",), "x")])
    assert t.marks() == [] and t.preformatted() == {} and t.parts(0) == ("x",) and t.line_breaks(0) == []


@pytest.mark.skipif(not __import__("fce.blocks").blocks.ACCELERATED, reason="the compiled walk is not built")
@pytest.mark.parametrize("marks", [{"div": "em", "a": "link"}, {"b": "bold", "a": "link"}, {"b": "strong"}])
def test_the_compiled_walk_refuses_a_mark_table_it_cannot_keep(monkeypatch, reconfigured, marks):
    from fce import blocks

    monkeypatch.setattr(blocks, "MARK_TAGS", marks)
    with pytest.raises(ValueError):
        reconfigured()


def test_the_mark_table_is_the_one_the_walks_read(monkeypatch, reconfigured, impl):
    from fce import blocks

    monkeypatch.setattr(blocks, "MARK_TAGS", {"a": "link", "u": "em"})
    monkeypatch.setattr(blocks, "_FORMAT_MARKS", {"u": "em"})
    reconfigured()
    t = tree(b"<body><p><u>under</u> <b>bold</b></p></body>", "qualified")
    assert [(m.kind, m.opens) for m in t.marks()] == [("em", True), ("em", False)]


@needs_events
def test_the_events_keep_the_json_ld_scripts():
    # what fce.metadata reads instead of searching the page's text: every <script> naming application/ld+json, in
    # document order, wherever it is (the head, a hidden element), and not one in a comment or of another type
    from fce.parse import LINKED_DATA_KEY

    html = (b"<html><head><script type='application/ld+json'>{\"@type\": \"A\"}</script>"
            b"<script type='text/javascript'>var x = '<script type=\"application/ld+json\">';</script></head><body>"
            b"<!-- <script type='application/ld+json'>{}</script> --><p>Text of the page, long enough.</p>"
            b"<div hidden><script type=\"application/ld+json; charset=utf-8\">[1, \"\xc3\xa9\"]</script></div>"
            b"<script type='application/ld+json'></script></body></html>")
    page = parse_page(html, blocks="qualified")
    assert blocks_of(page, "qualified").linked_data == page.cache[LINKED_DATA_KEY] == [
        '{"@type": "A"}', '[1, "é"]', ""]
    assert blocks_of(tree_parsed(html), "qualified").linked_data is None  # the tree walk: not seen
    many = b"<html><body><p>x</p>" + b"<script type='application/ld+json'>{}</script>" * 30 + b"</body></html>"
    assert len(blocks_of(parse_page(many, blocks="paper"), "paper").linked_data) == 24


# --- block_elements: the element of every block -------------------------------------------------------------


def _element_tags(page):
    from fce.blocks import block_elements

    return [el.tag for el in block_elements(page.root)]


@pytest.mark.parametrize("layout", ["div", "table"])
def test_block_elements_follow_segmentation(layout):
    from tests._sites import site_pages

    for _, page in site_pages("map.test", n=6, layout=layout):
        assert _element_tags(page) == [b.tag for b in blocks_of(page).blocks]


def test_block_elements_skip_what_segmentation_skips():
    html = ("<html><body><!-- c --><div>a<svg><div>in svg</div></svg><template><p>t</p></template>"
            "<noscript><p>n</p></noscript><table><tr><td>x</td></tr></table><?pi x?><span>s</span>"
            "<div hidden><p>h</p></div><div style='display:none'><p>d</p></div><ul aria-hidden=true><li>m</li></ul>"
            "<a href='#main' class='skip-link'><span>Skip</span></a><p>shown</p></div></body></html>")
    page = parse_page(html)
    assert _element_tags(page) == [b.tag for b in blocks_of(page).blocks] == ["html", "body", "div", "table",
                                                                              "tr", "td", "span", "p"]


@settings(max_examples=200, deadline=None)
@given(body=_markup())
def test_block_elements_are_the_blocks_of_any_markup(body):
    from lxml import etree

    from fce.blocks import block_elements, segment_element

    # (parsed as the compiled walk's test does: parse_page refuses some of these pages as binary)
    root = etree.fromstring(f"<html><body>{body}</body></html>".encode(), etree.HTMLParser(default_doctype=False))
    assert [el.tag for el in block_elements(root)] == [b.tag for b in segment_element(root).blocks]
