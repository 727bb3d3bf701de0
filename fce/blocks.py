"""Segment a parsed page into the tree of blocks of the FastCE paper (§I–III).

A block is the part of a page between an opening block-level tag and its closing tag. Every block has

* its **traversal path** ``HTML.BODY.TABLE.TR.P``: the tags of the enclosing blocks from the root (§III);
* its **own text**: the text of the block with the text of its sub-blocks removed (the paper's Figure 3);
* its **position** in document order (``index``: blocks are numbered in the order their opening tags appear);
* its parts in document order (own text pieces interleaved with sub-block indices), so the text of a block *with*
  its sub-blocks can be rebuilt in the original order — the point of FastCE over ContentExtractor;
* its **marks**: where the inline elements of :data:`MARK_TAGS` (emphasis, strong, code, links with their ``href``,
  …) start and end among its parts, and inside ``<pre>`` the source of its text pieces, line breaks kept — what a
  structured output (:mod:`fce.render`) reads.

An *atomic* block has no sub-block. ``<head>``, scripts, styles and similar non-content carry no text, but are counted
(``n_scripts``, …) as ContentExtractor's feature vector asks.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from functools import partial
from itertools import compress
from operator import attrgetter, itemgetter
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

from lxml import etree

from fce import kernels
from fce._accel import compiled
from fce.kinds import PathStyle
from fce.page import HEAD_TAGS, Page

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_PATH_STYLE",
    "PATH_STYLES",
    "INLINE_BLOCK_TAGS",
    "MARK_KINDS",
    "MARK_TAGS",
    "PAPER_BLOCK_TAGS",
    "PREFORMATTED_TAG",
    "SKIPPED_TAGS",
    "Block",
    "BlockTree",
    "Columns",
    "Mark",
    "blocks_of",
    "disjoint_subtrees",
    "join_pieces",
    "joiner",
    "segment",
    "subtree_sums",
    "text_on_paths",
    "tuple_maker",
]

#: The block-level tags the FastCE paper names (§I, after Debnath et al. [11]).
PAPER_BLOCK_TAGS = frozenset({"table", "tr", "hr", "ul", "p", "span", "div"})

#: The tags that delimit blocks in fce: the paper's seven, the document roots (paths start ``HTML.BODY``), and the
#: block-level containers of later HTML that play the same role (cells, list items, headings, HTML5 sections).
#: Without TD/LI/H1… a modern page collapses into a few huge DIV blocks whose own text mixes content and noise.
BLOCK_TAGS = PAPER_BLOCK_TAGS | frozenset(
    {
        "html", "body",
        "td", "th", "thead", "tbody", "tfoot", "caption",
        "ol", "li", "dl", "dt", "dd",
        "h1", "h2", "h3", "h4", "h5", "h6",
        "article", "section", "main", "header", "footer", "nav", "aside",
        "blockquote", "pre", "form", "fieldset", "figure", "figcaption", "address", "center",
        "iframe", "frameset", "frame", "details", "summary", "menu",
    }
)  # fmt: skip

#: Blocks whose text runs on inside the enclosing line (the paper's ``<span>`` inside a ``<p>``, Figure 1): their
#: text is joined to their neighbours as a browser renders it (the source's own spaces are kept, none added);
#: every other block boundary starts a new line. Text pieces have their whitespace collapsed while segmenting, so
#: the only line breaks are block boundaries and ``<br>``.
INLINE_BLOCK_TAGS = frozenset({"span"})

#: Elements whose text is never content. Their subtrees are skipped; the feature counters still see them.
#: ``<object>`` is not among them: a browser shows its children where it cannot show the object itself (every
#: Flash movie now), and old pages put a video's caption there (tv.msnbc.com: cleanportaleval +0.0015 page-mean
#: word F1 with mainblock; no other set moves).
SKIPPED_TAGS = frozenset(
    {"head", "script", "style", "noscript", "template", "svg", "math", "embed", "select", "textarea",
     "button", "map", "canvas", "audio", "video", "title", "meta", "link", "base"}
)  # fmt: skip

#: Inline styles that hide an element (Readability.js ``_isProbablyVisible``: ``display: none``, ``visibility:
#: hidden``), matched anywhere in the ``style`` attribute, ASCII case-insensitively, CSS whitespace around the colon
#: (the compiled walk, ``fce/_segment.pyx``, matches exactly the same).
HIDDEN_STYLE = re.compile(r"display[ \t\n\r\f]*:[ \t\n\r\f]*none|visibility[ \t\n\r\f]*:[ \t\n\r\f]*hidden",
                          re.IGNORECASE | re.ASCII)
#: ``aria-hidden="true"`` does not hide an element with this class (Readability.js: lazy-loaded image fallbacks).
ARIA_HIDDEN_EXCEPTION = "fallback-image"
#: Never treated as hidden: a page that hides its whole body until a script has run still has its content there.
_NEVER_HIDDEN = frozenset({"html", "body"})
#: A skip link — a link within the page (``href="#…"``) that its class hides from sight, one of these names
#: (Bootstrap's ``hidden``, ``sr-only`` and ``visually-hidden``, WordPress's ``screen-reader-text``, Drupal's
#: ``element-invisible``), or whose class or id holds :data:`SKIP_LINK_NAME_PART` — is a screen reader's shortcut
#: ("Skip to content", bbc.co.uk's "Continue reading the main story" before every box inside a story), not text of
#: the page: hidden. Measured (page mean or k-fold site-macro word F1): cleanportaleval +0.0010 with templates,
#: wcxb-dev +0.0001, readability −0.0001 (Readability.js, whose output is its gold, reads no style sheets:
#: nytimes.com's hidden "Continue reading" links are in it), the others ±0.
SKIP_LINK_CLASSES = frozenset({"hidden", "sr-only", "visually-hidden", "screen-reader-text", "element-invisible"})
SKIP_LINK_NAME_PART = "skip"
_SKIP_NAME = re.compile(re.escape(SKIP_LINK_NAME_PART), re.IGNORECASE | re.ASCII)
#: What separates the names of a class attribute (HTML's ASCII whitespace).
_CLASS_SPLIT = re.compile(r"[ \t\n\f\r]+")


def is_hidden(el: object) -> bool:
    """Whether a browser would not show ``el`` (Readability.js ``_isProbablyVisible``, negated): a ``hidden``
    attribute, ``aria-hidden="true"`` (except on :data:`ARIA_HIDDEN_EXCEPTION`), or an inline style of
    :data:`HIDDEN_STYLE`; or whether it is a skip link (:data:`SKIP_LINK_CLASSES`). Segmentation skips such an
    element and its subtree, as it skips scripts (its tail stays): its text is not on the page a reader sees
    (collapsed comments, tab panes, duplicated mobile menus)."""
    get = el.get  # type: ignore[attr-defined]
    if get("hidden") is not None:
        return True
    if get("aria-hidden") == "true" and ARIA_HIDDEN_EXCEPTION not in (get("class") or ""):
        return True
    style = get("style")
    if style is not None and HIDDEN_STYLE.search(style) is not None:
        return True
    return el.tag == "a" and is_skip_link(get("href"), get("id"), get("class"))  # type: ignore[attr-defined]


def is_skip_link(href: str | None, ident: str | None, classes: str | None) -> bool:
    """Whether a link with these ``href``, ``id`` and ``class`` values is a skip link (:data:`SKIP_LINK_CLASSES`)."""
    if href is None or len(href) < 2 or href[0] != "#":
        return False
    if classes is not None and not SKIP_LINK_CLASSES.isdisjoint(_CLASS_SPLIT.split(classes)):
        return True
    return any(name is not None and _SKIP_NAME.search(name) is not None for name in (ident, classes))


#: The kinds of inline formatting the segmentation records for structured output (:mod:`fce.render`: markdown,
#: clean HTML) as :class:`Mark` values: emphasis, strong emphasis, code, a link (with its ``href``), subscript,
#: superscript, deleted text.
MARK_KINDS = ("em", "strong", "code", "link", "sub", "sup", "del")

#: The inline elements that make marks, by kind: where each starts and ends among its block's parts. ``<a>`` makes
#: a link only with an ``href`` (``<a name=…>`` is an anchor; it counts as a link only then, too). ``tt`` is the
#: teletype of older pages, ``s``/``strike`` the strike-through that ``del`` replaced; ``u``, ``mark``, ``small``
#: and ``font`` are presentation without a meaning markdown has.
MARK_TAGS: Mapping[str, str] = MappingProxyType({
    "em": "em", "i": "em",
    "strong": "strong", "b": "strong",
    "code": "code", "kbd": "code", "samp": "code", "tt": "code",
    "a": "link",
    "sub": "sub", "sup": "sup",
    "del": "del", "s": "del", "strike": "del",
})  # fmt: skip
#: The tags of :data:`MARK_TAGS` the walk tells by their tag alone (not the link's, which needs its ``href``).
_FORMAT_MARKS = {tag: kind for tag, kind in MARK_TAGS.items() if kind != "link"}

#: The block whose text pieces' source is kept where it has line breaks or tabs (:meth:`BlockTree.preformatted`),
#: with its sub-blocks: a browser shows its whitespace as written.
PREFORMATTED_TAG = "pre"

#: Line breaks and tabs in source text become spaces (runs of spaces are collapsed when text is joined).
_WS_TABLE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})
_FORM_FIELD_TAGS = frozenset({"select", "textarea", "button"})
_MEDIA_TAGS = frozenset({"svg", "object", "embed", "canvas", "video", "audio"})
_DIGITS = re.compile(r"\d+")

#: How block paths are spelled. ``"paper"``: tag names only, ``HTML.BODY.TABLE.TR.P`` (FastCE §III).
#: ``"qualified"``: each tag (but :data:`UNQUALIFIED_TAGS`) followed by its ``id`` and ``class`` names with digits
#: removed, e.g.
#: ``HTML.BODY.DIV[#main .story].P`` — the same traversal path, told apart where a page is built of nested DIVs
#: (paths of plain tags cannot separate the article's DIV from the sidebar's; README has the gain).
PATH_STYLES = tuple(style.value for style in PathStyle)
DEFAULT_PATH_STYLE = PathStyle.QUALIFIED.value

#: At most this many id/class names qualify a tag (long utility-class lists would make every path unique).
MAX_PATH_NAMES = 3

#: Class names that mark a transient state, not a role; left out of qualified paths.
STATE_CLASSES = frozenset({"active", "selected", "current", "first", "last", "odd", "even", "open", "closed",
                           "hidden", "show", "hide", "on", "off", "clearfix", "clear", "cf", "group"})


#: Class names a CMS gives per page or per commenter, not per role (WordPress ``post_class``/``comment_class``:
#: ``category-news``, ``tag-x``, ``byuser``, ``bypostauthor``, ``alt`` on every other comment; ``thread-odd``,
#: ``grofile-…``, ``comment-author-…``): left out of qualified paths, or pages of one site with different
#: categories get different paths for the same block (dragnet-small site-macro word F1 +0.0017 with templates).
PAGE_CLASS_PREFIXES = ("category-", "tag-", "thread-", "grofile-", "comment-author-")
PAGE_CLASS_NAMES = frozenset({"alt", "byuser", "bypostauthor"})
_PAGE_CLASS = re.compile("|".join(map(re.escape, PAGE_CLASS_PREFIXES)) + "|(?:"
                         + "|".join(map(re.escape, sorted(PAGE_CLASS_NAMES))) + ")$")


def _qualifier(ident: str | None, classes: str | None) -> str:
    """``[#id .class …]`` for an element's ``id`` and ``class`` attributes (digits and state classes removed)."""
    names: list[str] = []
    if ident:
        ident = _DIGITS.sub("", ident).strip("-_ :").lower()
        if ident:
            names.append("#" + ident)
    if classes:
        for name in sorted(set(classes.split())):
            name = _DIGITS.sub("", name).strip("-_").lower()
            if name and name not in STATE_CLASSES and len(names) < MAX_PATH_NAMES and not _PAGE_CLASS.match(name):
                names.append("." + name)
    return f"[{' '.join(names)}]" if names else ""


#: Path steps of block tags (paper style) and of (tag, id, class) triples (qualified style), shared by every page
#: segmented in the process: a site's pages repeat the same few hundred triples, and building a step costs more
#: than the rest of a block's segmentation. :data:`STEP_CACHE_SIZE` bounds the cache (cleared when full).
_UPPER = {tag: tag.upper() for tag in BLOCK_TAGS}
_QUALIFIED_STEPS: dict[tuple[str, str | None, str | None], str] = {}
#: Distinct (tag, id, class) triples kept; a site has a few hundred, a crawl of many sites fills it in ~100 sites
#: (about 5 MB of strings).
STEP_CACHE_SIZE = 50_000


#: Tags never qualified: the id and class of the document's root and body name the page's type or section (WordPress's
#: ``body_class``: its author, categories, blog and slug; ``#page_biznes``), not a region of the page, and every
#: path of the page inherits them, so that a template learned on one section did not fit the site's others.
#: Measured, k-fold site-macro word F1 with templates: daniel-small +0.0022 (pages on low fit 64 → 35), msv-big9
#: +0.0002 (106 → 82), dragnet-small −0.0001 (26 → 5; wired.com), cleanportaleval ±0; with one template per
#: site (the paper's learner, whose one template the body's names had kept off cnn.com's other layouts), msv-big9
#: −0.0025, daniel-small +0.0021. A template stored with such paths is read with them unqualified
#: (:func:`unqualified_root`).
UNQUALIFIED_TAGS = frozenset({"html", "body"})
_QUALIFIED_ROOT = re.compile(r"^HTML(?:\[[^\]]*\])?(?:\.BODY\[[^\]]*\])?")


def unqualified_root(path: str) -> str:
    """``path`` with its ``HTML`` and ``BODY`` steps unqualified (:data:`UNQUALIFIED_TAGS`)."""
    match = _QUALIFIED_ROOT.match(path)
    if match is None or "[" not in match.group(0):
        return path
    return ("HTML.BODY" if ".BODY" in match.group(0) else "HTML") + path[match.end():]


def _qualified_step(key: tuple[str, str | None, str | None]) -> str:
    """``DIV[#main .story]`` for ``(tag, id, class)``, computed and cached."""
    if len(_QUALIFIED_STEPS) >= STEP_CACHE_SIZE:
        _QUALIFIED_STEPS.clear()
    tag = key[0]
    step = _UPPER[tag] if tag in UNQUALIFIED_TAGS else _UPPER[tag] + _qualifier(key[1], key[2])
    _QUALIFIED_STEPS[key] = step
    return step


class Block(NamedTuple):
    """One block of a page. ``parts`` interleaves own-text pieces (``str``) with sub-block indices (``int``).

    Immutable (a named tuple: a page has hundreds of blocks, and building frozen dataclasses cost a fifth of
    segmentation time)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the block's position
    path: str
    tag: str
    parent: int  # -1 for the root
    depth: int
    children: tuple[int, ...]
    parts: tuple[str | int, ...]
    text: str  # own text, whitespace collapsed
    n_links: int = 0
    n_images: int = 0
    n_scripts: int = 0
    n_forms: int = 0  # form fields: input, select, textarea, button
    n_iframes: int = 0
    link_chars: int = 0  # characters of own text inside <a>

    @property
    def is_atomic(self) -> bool:
        return not self.children

    @property
    def inline(self) -> bool:
        return self.tag in INLINE_BLOCK_TAGS


class Mark(NamedTuple):
    """Where an inline element of :data:`MARK_TAGS` starts (``opens``) or ends: in block ``block``, before its part
    ``parts[at]`` (``at == len(parts)``: after the last). A text piece never runs across an element's start or
    end, so a mark always falls between two parts; an element that holds sub-blocks opens in its block before the
    first and closes after the last. Marks come in document order, so they nest as the elements do."""

    block: int
    at: int
    kind: str  # of MARK_KINDS
    opens: bool
    href: str | None = None  # a link's, on the mark that opens it


_new_mark = partial(tuple.__new__, Mark)  # Mark(*row), made in C


#: The count fields of a :class:`Block`, in its order and in the order of the compiled walk's counts (what
#: :meth:`BlockTree.count_rows` reads).
COUNT_FIELDS = ("n_links", "n_images", "n_scripts", "n_forms", "n_iframes", "link_chars")
_FIRST_COUNT = Block._fields.index(COUNT_FIELDS[0])


class Columns(NamedTuple):
    """A block tree column-wise, indexed by block: a list per field of strings, an ``array('l')`` per field of
    integers (one buffer: compiled code reads it at C speed, and making and freeing an int object per block and
    field was a twentieth of a detection). What detection, ``mainblock`` and learning read, so that they need no
    :class:`Block` objects (building and freeing them was about half of segmentation's time). Read-only: they are
    the tree's own (paths and tags those of the compiled segmentation), not copies."""

    paths: list[str]
    tags: list[str]
    parents: array[int]  # -1 for the root
    depths: array[int]
    ends: array[int]  # one past the block's last descendant (pre-order numbering makes subtrees contiguous)
    text_lengths: array[int]  # len(block.text): characters of own text, whitespace collapsed
    commas: array[int]  # block.text.count(",")
    link_chars: array[int]


_BLOCK_FIELDS = tuple(attrgetter(name) for name in ("path", "tag", "parent", "depth"))


def _columns_of(blocks: Sequence[Block]) -> Columns:
    """The columns of a tree given as blocks (the pure-Python segmentation, hand-made trees)."""
    paths, tags, parents, depths = (list(map(get, blocks)) for get in _BLOCK_FIELDS)
    texts = [b.text for b in blocks]
    ends = list(range(1, len(blocks) + 1))
    for i in range(len(blocks) - 1, 0, -1):
        up = parents[i]
        if ends[i] > ends[up]:
            ends[up] = ends[i]
    return Columns(paths, tags, array("l", parents), array("l", depths), array("l", ends), array("l", map(len, texts)),
                   array("l", [t.count(",") for t in texts]), array("l", [b.link_chars for b in blocks]))


class BlockTree:
    """All blocks of one page in document order; ``blocks[0]`` is the root (``HTML``).

    Read it as :class:`Block` values (``blocks``, iteration, indexing) or column-wise (:attr:`columns`,
    :attr:`children`, :meth:`render`). The compiled segmentation fills the columns and the text pieces, and builds
    the :class:`Block` values only when something asks for them; a tree made from blocks derives its columns on
    first use. Immutable (what it computes on demand is cached, and never changes what it holds)."""

    __slots__ = ("_blocks", "_children", "_cols", "_marks", "_pre", "_seg")

    def __init__(self, blocks: Sequence[Block], marks: Sequence[Mark] = (),
                 preformatted: Mapping[tuple[int, int], str] | None = None) -> None:
        self._blocks: tuple[Block, ...] | None = tuple(blocks)
        self._seg: Any = None  # the compiled segmentation (fce._segment's builder), if made by it
        self._cols: Columns | None = None
        self._children: list[tuple[int, ...]] | None = None
        self._marks: tuple[Mark, ...] = tuple(marks)
        self._pre: dict[tuple[int, int], str] = dict(preformatted or {})

    @classmethod
    def _of_segmentation(cls, seg: object) -> BlockTree:
        """A tree over a compiled segmentation (``fce/_segment.pyx``)."""
        tree = cls.__new__(cls)
        tree._blocks, tree._seg, tree._cols, tree._children, tree._marks, tree._pre = None, seg, None, None, (), {}
        return tree

    @property
    def linked_data(self) -> list[str] | None:
        """The text of each ``<script>`` naming ``application/ld+json`` (at most 24), in document order, where the
        tree was made from the parser's events (which see them pass); None otherwise."""
        return None if self._seg is None else self._seg.linked_data  # type: ignore[no-any-return]

    @property
    def blocks(self) -> tuple[Block, ...]:
        blocks = self._blocks
        if blocks is None:
            blocks = self._blocks = self._seg.blocks()
        return blocks

    @property
    def columns(self) -> Columns:
        cols = self._cols
        if cols is None:
            cols = self._cols = (Columns(*self._seg.columns()) if self._seg is not None
                                 else _columns_of(self.blocks))
        return cols

    @property
    def children(self) -> list[tuple[int, ...]]:
        """Per block, the indices of its sub-blocks (``blocks[i].children``)."""
        kids = self._children
        if kids is None:
            if self._blocks is not None:
                kids = [b.children for b in self._blocks]
            else:
                kids = self._seg.children()
            self._children = kids
        return kids

    def child_indices(self, index: int) -> tuple[int, ...]:
        """The indices of block ``index``'s sub-blocks (``children[index]``), without making every block's tuple
        where they are not made yet (the guided selection reads a few blocks' children only)."""
        if self._children is not None:
            return self._children[index]
        if self._seg is not None:
            return self._seg.child_indices(index)  # type: ignore[no-any-return]
        return self.blocks[index].children

    def __reduce__(self) -> tuple[type[BlockTree], tuple[Any, ...]]:
        # pickled as its blocks, marks and sources (a compiled segmentation is not picklable)
        return BlockTree, (self.blocks, self.marks(), self.preformatted())

    def marks(self, index: int = 0, only: Container[int] | None = None, *, links: bool = True) -> list[Mark]:
        """The :class:`Mark` values of block ``index`` and its sub-blocks at any depth (with ``only``: of those
        sub-blocks in it), in document order (the root's: the page's); ``links=False``: without the links' (an
        output that writes none). Made when asked (the compiled walk keeps them as C structs, hrefs as bytes)."""
        if self._seg is not None:
            return self._seg.marks(index, only, links)  # type: ignore[no-any-return]
        if not 0 <= index < len(self):
            raise IndexError(index)
        end = self.subtree_end(index)
        return [m for m in self._marks
                if index <= m.block < end and (links or m.kind != "link")
                and (only is None or m.block == index or m.block in only)]

    def preformatted(self, index: int = 0) -> dict[tuple[int, int], str]:
        """For the text pieces inside a :data:`PREFORMATTED_TAG` block (in block ``index``'s subtree) whose source
        has line breaks or tabs (a piece has them as spaces), ``(block, part index) -> the source text``."""
        if self._seg is not None:
            return self._seg.preformatted(index)  # type: ignore[no-any-return]
        if not 0 <= index < len(self):
            raise IndexError(index)
        end = self.subtree_end(index)
        return {key: text for key, text in self._pre.items() if index <= key[0] < end}

    def parts(self, index: int) -> tuple[str | int, ...]:
        """The parts of block ``index`` (``blocks[index].parts``), without building the :class:`Block` values where
        they are not built (a structured output reads the parts of the few blocks it walks)."""
        if self._seg is not None:
            return self._seg.block_parts(index)  # type: ignore[no-any-return]
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.blocks[index].parts

    def line_breaks(self, index: int, only: Container[int] | None = None) -> list[int]:
        """The indices of block ``index`` and of those of its sub-blocks at any depth (with ``only``: of those in
        it) that have a line break (``<br>``: a ``"\\n"`` text piece) among their parts, in document order."""
        if self._seg is not None:
            return self._seg.line_breaks(index, only)  # type: ignore[no-any-return]
        if not 0 <= index < len(self):
            raise IndexError(index)
        end = self.subtree_end(index)
        return [b.index for b in self.blocks[index:end]
                if "\n" in b.parts and (only is None or b.index == index or b.index in only)]

    def __len__(self) -> int:
        if self._blocks is None:
            return len(self._seg)  # type: ignore[no-any-return]
        return len(self._blocks)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.blocks)

    def __getitem__(self, index: int) -> Block:
        return self.blocks[index]

    def descendants(self, index: int) -> Iterable[Block]:
        """Sub-blocks of ``blocks[index]`` at any depth, in document order."""
        return self.blocks[index + 1:self.subtree_end(index)]

    @property
    def texts(self) -> list[str]:
        """Per block its own text (``blocks[i].text``), without building the :class:`Block` values where the
        compiled segmentation made the tree (what learning reads: building and freeing the blocks was a tenth of
        it). Read-only, like :attr:`columns`."""
        if self._blocks is None:
            return self._seg.texts()  # type: ignore[no-any-return]
        return [b.text for b in self._blocks]

    def count_rows(self, fields: Sequence[str]) -> list[tuple[int, ...]]:
        """Per block the tuple of its counts named by ``fields`` (of :data:`COUNT_FIELDS`, in that order: e.g.
        :data:`fce.features.COUNT_FEATURES`), as :class:`Block` holds them; the blocks with all of them 0 share
        one tuple."""
        try:
            positions = tuple(COUNT_FIELDS.index(f) for f in fields)
        except ValueError:
            raise ValueError(f"count fields are among {COUNT_FIELDS}, not {tuple(fields)}") from None
        if self._blocks is None:
            return self._seg.count_rows(positions)  # type: ignore[no-any-return]
        get = itemgetter(*(_FIRST_COUNT + k for k in positions)) if positions else (lambda _: ())
        zeros = (0,) * len(positions)
        if len(positions) == 1:
            return [(v,) if v else zeros for v in map(get, self._blocks)]
        return [row if any(row) else zeros for row in map(get, self._blocks)]

    def subtree_end(self, index: int) -> int:
        """One past the last descendant of ``blocks[index]`` (pre-order numbering makes subtrees contiguous)."""
        return self.columns.ends[index]

    def render(self, index: int, keep: Callable[[int], bool] | None = None,
               visited: list[int] | None = None) -> str:
        """Text of ``blocks[index]`` with its sub-blocks, in document order; sub-blocks whose index ``keep``
        refuses are left out (with their own sub-blocks). Lines are separated by ``\\n``. The indices of the blocks
        whose text went in are appended to ``visited`` when given."""
        return join_pieces(self.pieces(index, keep, visited))

    def renderer(self, keep: Callable[[int], bool] | None = None) -> Callable[[int], str]:
        """:meth:`render` with ``keep`` (and no ``visited``) as a function of the block's index, for a caller that
        renders block after block (the structured output: each plain paragraph): where the compiled segmentation
        made the tree, its own, called with no method of this class in between."""
        if self._seg is not None and _ACCEL is not None:
            return partial(_ACCEL.render_block, self._seg, keep, INLINE_BLOCK_TAGS)
        return lambda index: self.render(index, keep)

    def part_reader(self) -> Callable[[int], tuple[str | int, ...]]:
        """:meth:`parts` as a function of the block's index, as :meth:`renderer` is one of :meth:`render`."""
        return self.parts if self._seg is None else self._seg.block_parts  # type: ignore[no-any-return]

    def pieces(self, index: int, keep: Callable[[int], bool] | None = None,
               visited: list[int] | None = None) -> list[str]:
        """The text pieces :meth:`render` joins."""
        if self._seg is not None:
            return self._seg.pieces(index, keep, visited, INLINE_BLOCK_TAGS)  # type: ignore[no-any-return]
        out: list[str] = []
        stack: list[str | int] = [index]
        blocks = self.blocks
        inline = INLINE_BLOCK_TAGS
        emit, pop, push, extend = out.append, stack.pop, stack.append, stack.extend
        while stack:
            item = pop()
            if item.__class__ is str:
                emit(item)  # type: ignore[arg-type]
                continue
            if item != index and keep is not None and not keep(item):  # type: ignore[arg-type]
                continue
            block = blocks[item]  # type: ignore[index]
            if visited is not None:
                visited.append(item)  # type: ignore[arg-type]
            sep = "" if block.tag in inline else "\n"
            push(sep)
            extend(reversed(block.parts))
            push(sep)
        return out


def disjoint_subtrees(tree: BlockTree, roots: Iterable[int]) -> bool:
    """Whether none of the blocks ``roots`` lies in the subtree of another (nor twice among them).

    Then a set ``covered`` that holds exactly the blocks that :meth:`BlockTree.render` visited for each of them
    (its ``visited``) renders each one as it was rendered: ``tree.render(r, covered.__contains__)`` is what
    ``tree.render(r, keep)`` gave, whatever ``keep`` each was rendered with. The blocks of ``r``'s subtree in
    ``covered`` are those that its own render visited (no other's reaches into it), and a render visits a
    sub-block exactly where it visited its parent and kept the sub-block. The structured output relies on it
    (:func:`fce.render.document.structure`, ``exact``): it then reads the extracted blocks without rendering
    each first to check that its ``covered`` gives the block's text."""
    ends = tree.columns.ends
    end = -1
    for root in sorted(roots):
        if root < end:
            return False
        end = ends[root]
    return True


def joiner() -> Callable[[Sequence[str]], str]:
    """:func:`join_pieces` as the function that does the work: the compiled one where it runs, called with no call
    of this module's in between (for a caller that joins run after run: the structured output)."""
    return join_pieces if _ACCEL is None else _ACCEL.join_pieces  # type: ignore[no-any-return]


def tuple_maker() -> Callable[[type, tuple[Any, ...]], Any]:
    """``tuple.__new__`` (``maker(cls, items)``: a ``cls`` of ``items``, for a subclass of tuple), made by the
    compiled walk where it runs (a third of the time: the structured output makes a named tuple for every node)."""
    return tuple.__new__ if _ACCEL is None else _ACCEL.new_tuple  # type: ignore[no-any-return]


def join_pieces(pieces: Sequence[str]) -> str:
    """Join text pieces, collapse runs of spaces within lines, drop empty lines."""
    if _ACCEL is not None:
        return _ACCEL.join_pieces(pieces)  # type: ignore[no-any-return]
    # " ".join(line.split()) collapses whitespace as re.sub(r"\s+", " ", line).strip() does, faster: str.split()
    # splits on exactly the characters of \s (str.isspace)
    lines = "".join(pieces).split("\n")
    return "\n".join(filter(None, [" ".join(line.split()) for line in lines]))


def text_on_paths(tree: BlockTree, paths: frozenset[str] | set[str]) -> tuple[int, int]:
    """Characters of own text on blocks whose path is in ``paths``, and of all blocks (a template's fit)."""
    cols = tree.columns
    lengths = cols.text_lengths
    return sum(compress(lengths, map(paths.__contains__, cols.paths))), sum(lengths)


def subtree_sums(tree: BlockTree, inline_tags: frozenset[str] = INLINE_BLOCK_TAGS,
                 ) -> tuple[array[int], array[int], array[int], array[int]]:
    """Per block of ``tree``: characters of text and of link text in its whole subtree; characters and commas of
    its paragraph (its own text plus its sub-blocks of ``inline_tags``), :func:`fce.kernels.subtree_sums`. Each is
    an ``array('l')``: one buffer, not a list of int objects (compiled code reads it at C speed, and most sums are
    larger than the ints CPython keeps ready)."""
    cols = tree.columns
    return kernels.subtree_sums(cols.parents, cols.tags, cols.text_lengths, cols.commas, cols.link_chars,
                                inline_tags)


def blocks_of(page: Page, path_style: str = DEFAULT_PATH_STYLE) -> BlockTree:
    """The block tree of ``page``, segmented on first use and cached on the page (segment once per page)."""
    key = f"blocks:{path_style}"
    tree = page.cache.get(key)
    if tree is None:
        tree = page.cache[key] = segment_element(page.root, path_style)
    return tree


def segment(page: Page, path_style: str = DEFAULT_PATH_STYLE) -> BlockTree:
    """Segment ``page`` into its block tree (iteratively: nesting depth is bounded only by the parser)."""
    return segment_element(page.root, path_style)


#: Whole paths the compiled walk keeps (``fce/_segment.pyx``: parent path and tag, id, class → path), shared by
#: every page segmented in the process and cleared when full. A site has about 1,200 (10,949 for the nine
#: msv-big9 sites' held-out pages); an entry costs ~400 bytes (the path, 156 characters on average over the five
#: data sets, its key and its hash-table slots), so the cache holds at most ~8 MB.
PATH_CACHE_SIZE = 20_000


def _configure(accelerator) -> None:  # type: ignore[no-untyped-def]
    """Give the compiled walk this module's tag sets, step cache, visibility test and :data:`PATH_CACHE_SIZE`, as
    they are now; empties its path cache."""
    accelerator.configure(BLOCK_TAGS, SKIPPED_TAGS, _FORM_FIELD_TAGS, _MEDIA_TAGS, _UPPER, _QUALIFIED_STEPS,
                          _qualified_step, Block, Mark, is_hidden, _NEVER_HIDDEN, PATH_CACHE_SIZE, HIDDEN_STYLE,
                          ARIA_HIDDEN_EXCEPTION, MARK_TAGS, MARK_KINDS, PREFORMATTED_TAG, SKIP_LINK_CLASSES,
                          SKIP_LINK_NAME_PART)
    if hasattr(accelerator, "configure_head_tags"):  # (the walk from parse events: what may stay in <head>)
        accelerator.configure_head_tags(HEAD_TAGS)


#: The compiled walk (``fce/_segment.pyx``), configured with this module's tag sets; None where not built or off.
_ACCEL: Any = compiled("_segment")
if _ACCEL is not None:
    _configure(_ACCEL)
#: Whether segmentation runs compiled (``fce methods`` and the benchmarks report it).
ACCELERATED = _ACCEL is not None


def sax_available() -> bool:
    """Whether :func:`sax_segmentation` runs here (the compiled walk is built, libxml2's functions were found and
    its version is one the walk from parse events was checked on)."""
    return bool(getattr(_ACCEL, "SAX_AVAILABLE", False))


#: What :func:`sax_segmentation` returns for a page with a start tag of more attributes than it allows (the
#: compiled walk's marker; without it, an object nothing returns).
LONG_TAG: object = object() if _ACCEL is None else _ACCEL.LONG_TAG


def sax_segmentation(data: bytes, qualified: bool, max_attributes: int) -> object | None:
    """The compiled walk made from libxml2's parse events of ``data`` (``fce/_segment.pyx``: ``segment_bytes``),
    or None (not compiled or not available here, or a page that needs its tree), or :data:`LONG_TAG` (a start tag
    of more than ``max_attributes`` attributes)."""
    if _ACCEL is None:
        return None
    return _ACCEL.segment_bytes(data, qualified, max_attributes)


def segment_element(root: object, path_style: str = DEFAULT_PATH_STYLE) -> BlockTree:
    if path_style not in PATH_STYLES:
        raise ValueError(f"path_style must be one of {PATH_STYLES}, not {path_style!r}")
    qualified = path_style == PathStyle.QUALIFIED
    if _ACCEL is not None and isinstance(root, etree._Element) and root.tag.__class__ is str:
        return BlockTree._of_segmentation(_ACCEL.segment(root, qualified))
    return _segment_python(root, qualified)


def block_elements(root: etree._Element) -> list[etree._Element]:
    """The element of every block of :func:`segment_element` of ``root``, by block index (the root first): the
    walk that defines the blocks, recording them (``fce show`` outlines each block's element)."""
    elements: list[etree._Element] = []
    _segment_loop(root, False, elements)  # (the builders are not frozen: no tree is wanted)
    return elements


def _segment_python(root: object, qualified: bool) -> BlockTree:
    """The segmentation in Python: the definition the compiled walk (``fce/_segment.pyx``) reproduces."""
    return _freeze(*_segment_loop(root, qualified))


#: The builders :func:`_segment_loop` fills, in the order :func:`_freeze` takes them.
_Builders: TypeAlias = tuple[list[str], list[str], list[int], list[int], list[list[str | int]], list[list[int]],
                             list[list[int]], list[tuple[int, int, str, bool, str | None]], dict[tuple[int, int], str]]


def _segment_loop(root: object, qualified: bool, elements: list[Any] | None = None) -> _Builders:
    """The segmentation loop: the blocks of ``root`` as builders (:func:`_freeze` makes them a tree).
    ``elements``: where to record each block's element (:func:`block_elements`)."""
    # Mutable per-block builders, frozen into Block values at the end. This loop runs once per element of every
    # page and is most of the cost of a detection (bench/README.md, "Profile"): it is written for speed — local
    # names, no function call per element but for new blocks, the block to return to at an element's end found
    # from the block tree (``parents``) instead of a stack pushed for every element.
    paths: list[str] = ["HTML"]
    tags: list[str] = ["html"]
    parents: list[int] = [-1]
    depths: list[int] = [0]
    parts: list[list[str | int]] = [[]]
    counts: list[list[int]] = [[0, 0, 0, 0, 0, 0]]  # links, images, scripts, forms, iframes, link_chars
    children: list[list[int]] = [[]]
    marks: list[tuple[int, int, str, bool, str | None]] = []  # Mark rows (made Marks at the end, in C)
    formats = _FORMAT_MARKS
    pre_tag = PREFORMATTED_TAG
    formatting: list[object] = []  # the elements of formats open, innermost last (their proxies: kept alive)
    in_pre = -1  # the outermost <pre> block open (-1: none)
    sources: dict[tuple[int, int], str] = {}  # BlockTree.preformatted
    steps = _QUALIFIED_STEPS
    upper = _UPPER
    block_tags = BLOCK_TAGS
    skipped = SKIPPED_TAGS
    translate = str.translate
    ws_table = _WS_TABLE

    current = 0
    cur_parts = parts[0]
    cur_counts = counts[0]
    link_depth = 0
    hidden_end = False
    walker = etree.iterwalk(root, events=("start", "end"))
    skip_subtree = walker.skip_subtree
    _, top = next(walker)  # the document root is the HTML block opened above
    if elements is not None:
        elements.append(top)
    if top.tag.__class__ is not str:  # a comment as the root (not from parse_page): its tail is all there is
        skip_subtree()
        if top.tail:
            cur_parts.append(translate(top.tail, ws_table))
        return paths, tags, parents, depths, parts, counts, children, marks, sources
    if top.text:
        cur_parts.append(translate(top.text, ws_table))
    for event, el in walker:
        tag = el.tag
        if event == "start":
            get = el.get
            if ((get("style") is not None or get("hidden") is not None or get("aria-hidden") is not None
                 or tag == "a")
                    and tag not in _NEVER_HIDDEN and is_hidden(el)):
                skip_subtree()  # not shown: neither text nor counts; its tail is kept
                hidden_end = True  # the next event is this element's end: it closes no block, no link
                continue
            if tag in block_tags:
                idx = len(paths)
                if qualified:
                    key = (tag, el.get("id"), el.get("class"))
                    step = steps.get(key)
                    if step is None:
                        step = _qualified_step(key)
                    paths.append(f"{paths[current]}.{step}")
                else:
                    paths.append(f"{paths[current]}.{upper[tag]}")
                tags.append(tag)
                parents.append(current)
                depths.append(depths[current] + 1)
                cur_parts.append(idx)
                children[current].append(idx)
                cur_parts = []
                parts.append(cur_parts)
                cur_counts = [0, 0, 0, 0, 1 if tag == "iframe" else 0, 0]
                counts.append(cur_counts)
                children.append([])
                current = idx
                if in_pre < 0 and tag == pre_tag:
                    in_pre = idx
                if elements is not None:
                    elements.append(el)
            elif tag in skipped:
                if tag == "script":
                    cur_counts[2] += 1
                elif tag in _FORM_FIELD_TAGS:
                    cur_counts[3] += 1
                elif tag in _MEDIA_TAGS:
                    cur_counts[1] += 1
                skip_subtree()
                continue
            elif tag == "a" and (href := el.get("href")) is not None:  # <a name=…> is an anchor, not a link
                cur_counts[0] += 1
                link_depth += 1
                marks.append((current, len(cur_parts), "link", True, href))
            elif tag == "img":
                cur_counts[1] += 1
            elif tag == "input":
                cur_counts[3] += 1
            elif tag == "br":
                cur_parts.append("\n")
            elif tag in formats:
                marks.append((current, len(cur_parts), formats[tag], True, None))
                formatting.append(el)
            elif tag.__class__ is not str:  # comments and processing instructions (if the parser kept them)
                skip_subtree()
                continue
            text = el.text
            if text:
                piece = translate(text, ws_table)
                if in_pre >= 0 and piece != text:
                    sources[current, len(cur_parts)] = text
                cur_parts.append(piece)
                if link_depth:
                    cur_counts[5] += len(" ".join(piece.split()))
        else:
            if hidden_end:
                hidden_end = False
            elif tag in block_tags:
                if not current:  # the end of the document root, the last event; its tail is not in the page
                    break
                if current == in_pre:
                    in_pre = -1
                current = parents[current]  # the block that was open when this one opened
                cur_parts = parts[current]
                cur_counts = counts[current]
            elif tag == "a" and link_depth and el.get("href") is not None:
                link_depth -= 1
                marks.append((current, len(cur_parts), "link", False, None))
            elif formatting and el is formatting[-1]:  # (no lookup at the end of every element)
                formatting.pop()
                marks.append((current, len(cur_parts), formats[tag], False, None))
            text = el.tail
            if text:
                piece = translate(text, ws_table)
                if in_pre >= 0 and piece != text:
                    sources[current, len(cur_parts)] = text
                cur_parts.append(piece)
                if link_depth and tag.__class__ is str:
                    cur_counts[5] += len(" ".join(piece.split()))
    return paths, tags, parents, depths, parts, counts, children, marks, sources


def _freeze(paths: list[str], tags: list[str], parents: list[int], depths: list[int],
            parts: list[list[str | int]], counts: list[list[int]], children: list[list[int]],
            marks: list[tuple[int, int, str, bool, str | None]], sources: dict[tuple[int, int], str]) -> BlockTree:
    """The builders of :func:`segment_element` as a :class:`BlockTree` of immutable blocks (built column-wise by
    ``map``/``zip``, so that the per-block work runs in C)."""
    # own text: the text pieces joined (an atomic block's parts are all text) with whitespace collapsed —
    # " ".join(s.split()) is re.sub(r"\s+", " ", s).strip(): str.split() splits on exactly the characters of \s
    is_text = str.__instancecheck__
    texts = [
        " ".join("".join(filter(is_text, block_parts) if kids else block_parts).split())  # type: ignore[arg-type]
        for block_parts, kids in zip(parts, children, strict=True)
    ]
    rows = zip(range(len(paths)), paths, tags, parents, depths, map(tuple, children), map(tuple, parts), texts,
               *zip(*counts, strict=True), strict=True)
    return BlockTree(tuple(map(partial(tuple.__new__, Block), rows)), list(map(_new_mark, marks)), sources)
