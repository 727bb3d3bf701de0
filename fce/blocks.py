"""Segment a parsed page into the tree of blocks of the FastCE paper (§I–III).

A block is the part of a page between an opening block-level tag and its closing tag. Every block has

* its **traversal path** ``HTML.BODY.TABLE.TR.P``: the tags of the enclosing blocks from the root (§III);
* its **own text**: the text of the block with the text of its sub-blocks removed (the paper's Figure 3);
* its **position** in document order (``index``: blocks are numbered in the order their opening tags appear);
* its parts in document order (own text pieces interleaved with sub-block indices), so the text of a block *with*
  its sub-blocks can be rebuilt in the original order — the point of FastCE over ContentExtractor.

An *atomic* block has no sub-block. ``<head>``, scripts, styles and similar non-content carry no text, but are counted
(``n_scripts``, …) as ContentExtractor's feature vector asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from lxml import etree

from fce.parse import Page

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_PATH_STYLE",
    "PATH_STYLES",
    "INLINE_BLOCK_TAGS",
    "PAPER_BLOCK_TAGS",
    "SKIPPED_TAGS",
    "Block",
    "BlockTree",
    "blocks_of",
    "join_pieces",
    "segment",
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
SKIPPED_TAGS = frozenset(
    {"head", "script", "style", "noscript", "template", "svg", "math", "object", "embed", "select", "textarea",
     "button", "map", "canvas", "audio", "video", "title", "meta", "link", "base"}
)  # fmt: skip

#: Elements that break a line inside a block.
_LINE_BREAK_TAGS = frozenset({"br"})

_WS = re.compile(r"\s+")
#: Line breaks and tabs in source text become spaces (runs of spaces are collapsed when text is joined).
_WS_TABLE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})
_FORM_FIELD_TAGS = frozenset({"select", "textarea", "button"})
_MEDIA_TAGS = frozenset({"svg", "object", "embed", "canvas", "video", "audio"})
_DIGITS = re.compile(r"\d+")

#: How block paths are spelled. ``"paper"``: tag names only, ``HTML.BODY.TABLE.TR.P`` (FastCE §III).
#: ``"qualified"``: each tag followed by its ``id`` and ``class`` names with digits removed, e.g.
#: ``HTML.BODY.DIV[#main .story].P`` — the same traversal path, told apart where a page is built of nested DIVs
#: (paths of plain tags cannot separate the article's DIV from the sidebar's; README has the gain).
PATH_STYLES = ("paper", "qualified")
DEFAULT_PATH_STYLE = "qualified"

#: At most this many id/class names qualify a tag (long utility-class lists would make every path unique).
MAX_PATH_NAMES = 3

#: Class names that mark a transient state, not a role; left out of qualified paths.
STATE_CLASSES = frozenset({"active", "selected", "current", "first", "last", "odd", "even", "open", "closed",
                           "hidden", "show", "hide", "on", "off", "clearfix", "clear", "cf", "group"})


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
            if name and name not in STATE_CLASSES and len(names) < MAX_PATH_NAMES:
                names.append("." + name)
    return f"[{' '.join(names)}]" if names else ""


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


@dataclass(frozen=True, eq=False, slots=True)
class BlockTree:
    """All blocks of one page in document order; ``blocks[0]`` is the root (``HTML``)."""

    blocks: tuple[Block, ...]

    def __len__(self) -> int:
        return len(self.blocks)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.blocks)

    def __getitem__(self, index: int) -> Block:
        return self.blocks[index]

    def descendants(self, index: int) -> Iterable[Block]:
        """Sub-blocks of ``blocks[index]`` at any depth, in document order."""
        # Blocks are numbered in pre-order, so a block's descendants are the contiguous run that follows it.
        blocks = self.blocks
        depth = blocks[index].depth
        for j in range(index + 1, len(blocks)):
            if blocks[j].depth <= depth:
                break
            yield blocks[j]

    def subtree_end(self, index: int) -> int:
        """One past the last descendant of ``blocks[index]`` (pre-order numbering makes subtrees contiguous)."""
        blocks = self.blocks
        depth = blocks[index].depth
        j = index + 1
        while j < len(blocks) and blocks[j].depth > depth:
            j += 1
        return j

    def render(self, index: int, keep: Callable[[Block], bool] | None = None,
               visited: list[int] | None = None) -> str:
        """Text of ``blocks[index]`` with its sub-blocks, in document order; sub-blocks for which ``keep`` is
        false are left out (with their own sub-blocks). Lines are separated by ``\\n``. The indices of the blocks
        whose text went in are appended to ``visited`` when given."""
        return join_pieces(self.pieces(index, keep, visited))

    def pieces(self, index: int, keep: Callable[[Block], bool] | None = None,
               visited: list[int] | None = None) -> list[str]:
        out: list[str] = []
        stack: list[str | int] = [index]
        blocks = self.blocks
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            block = blocks[item]
            if item != index and keep is not None and not keep(block):
                continue
            if visited is not None:
                visited.append(item)
            sep = "" if block.tag in INLINE_BLOCK_TAGS else "\n"
            stack.append(sep)
            stack.extend(reversed(block.parts))
            stack.append(sep)
        return out


def join_pieces(pieces: Sequence[str]) -> str:
    """Join text pieces, collapse runs of spaces within lines, drop empty lines."""
    lines = "".join(pieces).split("\n")
    return "\n".join(filter(None, (_WS.sub(" ", line).strip() for line in lines)))


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


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


def segment_element(root: object, path_style: str = DEFAULT_PATH_STYLE) -> BlockTree:
    if path_style not in PATH_STYLES:
        raise ValueError(f"path_style must be one of {PATH_STYLES}, not {path_style!r}")
    qualified = path_style == "qualified"
    # Mutable per-block builders, frozen into Block values at the end. This loop runs once per element of every
    # page: it is written for speed (local names, no per-element function calls but for new blocks).
    paths: list[str] = ["HTML"]
    tags: list[str] = ["html"]
    parents: list[int] = [-1]
    depths: list[int] = [0]
    parts: list[list[str | int]] = [[]]
    counts: list[list[int]] = [[0, 0, 0, 0, 0, 0]]  # links, images, scripts, forms, iframes, link_chars
    children: list[list[int]] = [[]]
    qualifiers: dict[tuple[str | None, str | None], str] = {}
    block_tags = BLOCK_TAGS
    skipped = SKIPPED_TAGS
    translate = str.translate
    ws_table = _WS_TABLE

    current = 0
    cur_parts = parts[0]
    block_stack: list[int] = []  # for every open element: the block that was current when it opened
    link_depth = 0
    walker = etree.iterwalk(root, events=("start", "end"))
    skip_subtree = walker.skip_subtree
    first = True
    for event, el in walker:
        tag = el.tag
        if tag.__class__ is not str:  # comments and processing instructions (if the parser kept them)
            if event == "start":
                skip_subtree()
                block_stack.append(current)
            else:
                block_stack.pop()
                if el.tail:
                    cur_parts.append(translate(el.tail, ws_table))
            continue
        if event == "start":
            block_stack.append(current)
            if first:  # the document root is the HTML block opened above
                first = False
                if el.text:
                    cur_parts.append(translate(el.text, ws_table))
                continue
            if tag in block_tags:
                idx = len(paths)
                upper = tag.upper()
                if qualified:
                    key = (el.get("id"), el.get("class"))
                    qualifier = qualifiers.get(key)
                    if qualifier is None:
                        qualifier = qualifiers[key] = _qualifier(*key)
                    upper += qualifier
                paths.append(f"{paths[current]}.{upper}")
                tags.append(tag)
                parents.append(current)
                depths.append(depths[current] + 1)
                cur_parts.append(idx)
                children[current].append(idx)
                cur_parts = []
                parts.append(cur_parts)
                counts.append([0, 0, 0, 0, 1 if tag == "iframe" else 0, 0])
                children.append([])
                current = idx
            elif tag in skipped:
                if tag == "script":
                    counts[current][2] += 1
                elif tag in _FORM_FIELD_TAGS:
                    counts[current][3] += 1
                elif tag in _MEDIA_TAGS:
                    counts[current][1] += 1
                skip_subtree()
                continue
            elif tag == "a":
                counts[current][0] += 1
                link_depth += 1
            elif tag == "img":
                counts[current][1] += 1
            elif tag == "input":
                counts[current][3] += 1
            elif tag == "br":
                cur_parts.append("\n")
            text = el.text
            if text:
                text = translate(text, ws_table)
                cur_parts.append(text)
                if link_depth:
                    counts[current][5] += len(_norm(text))
        else:
            parent_block = block_stack.pop()
            if tag == "a" and link_depth:
                link_depth -= 1
            if parent_block != current:
                current = parent_block
                cur_parts = parts[current]
            text = el.tail
            if text and block_stack:
                text = translate(text, ws_table)
                cur_parts.append(text)
                if link_depth:
                    counts[current][5] += len(_norm(text))
    blocks = []
    new_block = Block._make
    for i, block_parts in enumerate(parts):
        own = [p for p in block_parts if p.__class__ is str]
        c = counts[i]
        blocks.append(
            new_block(
                (i, paths[i], tags[i], parents[i], depths[i], tuple(children[i]), tuple(block_parts),
                 _norm("".join(own)) if own else "", c[0], c[1], c[2], c[3], c[4], c[5])
            )
        )
    return BlockTree(tuple(blocks))
