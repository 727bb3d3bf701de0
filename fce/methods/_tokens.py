"""The page as a sequence of tag and word tokens, shared by the token-stream methods (CCB, BTE, DSC).

Finn et al.'s BTE, Pinto et al.'s DSC (Gottron 2007, ``000_…`` §5.2–5.3) and Gottron's content code blurring
(``004_…`` §3.1) all read a document as a sequence of *tokens*: "each tag and each word correspond to a
token". :func:`token_stream` builds that sequence from the parsed tree in one iterative walk (no recursion:
real trees nest 255+ deep) and caches it on the page, so running several of these methods on one page
tokenises it once.

Reading of the papers where they are not explicit (they work on HTML source; we work on the parsed tree):

* every start tag and every end tag is a tag token, except that void elements (``<br>``, ``<img>``, …) have no
  end tag, as in the source;
* the subtree of a :data:`~fce.blocks.SKIPPED_TAGS` element (script, style, head, …) is two tag tokens, its
  start and end tags: its content is neither visible text nor markup, and a long inline script counted as text
  would make the methods take it for the main content;
* words are the whitespace-separated runs of visible text; a word is never split by a tag that does not break
  the line (``foo<b>bar</b>`` is one word, ``foobar``, as a browser shows it); a tag inside a word is placed
  after it;
* the character length of a tag (used by character-based CCB) is the length of its markup rebuilt from the
  tree, ``<tag k="v">`` or ``</tag>``; the character length of a word is its length plus one separating space.

:func:`segments` turns a selection of word tokens back into :class:`~fce.extraction.ExtractedBlock` values:
one per run of selected words that is interrupted neither by an unselected word nor by a line-breaking tag,
with the token index of its first word as ``index``.

:func:`element_lines` is the text of one element as lines, leaving out given subtrees — the renderer for the
DOM-based methods (``crunch``, ``textdist``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from lxml import etree

from fce.blocks import BLOCK_TAGS, INLINE_BLOCK_TAGS, SKIPPED_TAGS
from fce.extraction import ExtractedBlock
from fce.parse import Page

__all__ = [
    "BREAKING_TAGS",
    "VOID_TAGS",
    "TokenStream",
    "element_lines",
    "local_tag",
    "segments",
    "token_stream",
]

#: Tags that break the line (a browser starts a new line): they end the current word and the current segment.
#: The block tags of :mod:`fce.blocks` except ``<span>``, which a browser shows inline, plus ``<br>``.
BREAKING_TAGS = (BLOCK_TAGS - INLINE_BLOCK_TAGS) | frozenset({"br"})

#: HTML void elements: a start tag and no end tag in the source (HTML standard, §13.1.2).
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
     "wbr"}
)  # fmt: skip

_CACHE_KEY = "tokens"


def local_tag(tag: str) -> str:
    """``"{ns}P"`` → ``"p"``: the lower-case local name of an lxml tag."""
    if not tag.islower():
        tag = tag.lower()
    return tag.rsplit("}", 1)[1] if "}" in tag else tag


@dataclass(frozen=True, eq=False, slots=True)
class TokenStream:
    """The tokens of a page, column-wise (one entry per token, in document order).

    ``is_tag[k]`` tells a tag token from a word token; ``tag[k]`` is the tag name (``""`` for words; ``"/p"``
    for an end tag); ``word[k]`` the word (``""`` for tags); ``chars[k]`` its length in characters;
    ``breaks[k]`` whether the tag breaks the line.
    """

    is_tag: np.ndarray  # bool
    tag: tuple[str, ...]
    word: tuple[str, ...]
    chars: np.ndarray  # int64
    breaks: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.tag)

    @property
    def is_word(self) -> np.ndarray:
        return ~self.is_tag


class _Builder:
    """Accumulates tokens; holds back the tags met inside a word until the word is complete."""

    def __init__(self) -> None:
        self.is_tag: list[bool] = []
        self.tag: list[str] = []
        self.word: list[str] = []
        self.chars: list[int] = []
        self.breaks: list[bool] = []
        self.fragments: list[str] = []  # pieces of the word being read
        self.held: list[tuple[str, int, bool]] = []  # tags met inside that word

    def _emit_tag(self, name: str, chars: int, breaks: bool) -> None:
        self.is_tag.append(True)
        self.tag.append(name)
        self.word.append("")
        self.chars.append(chars)
        self.breaks.append(breaks)

    def flush(self) -> None:
        if self.fragments:
            word = "".join(self.fragments)
            self.is_tag.append(False)
            self.tag.append("")
            self.word.append(word)
            self.chars.append(len(word) + 1)  # the word and one separating space
            self.breaks.append(False)
            self.fragments = []
        for held in self.held:
            self._emit_tag(*held)
        self.held = []

    def add_tag(self, name: str, chars: int, *, closing: bool = False) -> None:
        breaks = name in BREAKING_TAGS
        if closing:
            name = "/" + name
        if breaks:
            self.flush()
        if self.fragments:
            self.held.append((name, chars, breaks))
        else:
            self._emit_tag(name, chars, breaks)

    def add_text(self, text: str | None) -> None:
        if not text:
            return
        if text[0].isspace():
            self.flush()
        for k, part in enumerate(text.split()):
            if k:
                self.flush()
            self.fragments.append(part)
        if text[-1].isspace():
            self.flush()

    def build(self) -> TokenStream:
        self.flush()
        return TokenStream(
            is_tag=np.array(self.is_tag, dtype=bool),
            tag=tuple(self.tag),
            word=tuple(self.word),
            chars=np.array(self.chars, dtype=np.int64),
            breaks=np.array(self.breaks, dtype=bool),
        )


def _start_tag_chars(name: str, el: Any) -> int:
    # <name k="v" …>: 2 for the brackets, per attribute a space, '=' and two quotes.
    return 2 + len(name) + sum(len(k) + len(v) + 4 for k, v in el.items())


def token_stream(page: Page) -> TokenStream:
    """The tokens of ``page`` in document order (built once per page and cached in ``page.cache``)."""
    stream = page.cache.get(_CACHE_KEY)
    if stream is None:
        stream = page.cache[_CACHE_KEY] = _tokenise(page.root)
    return stream


def _tokenise(root: Any) -> TokenStream:
    out = _Builder()
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        if not isinstance(el.tag, str):  # comments, processing instructions, entities: only their tail counts
            if event == "start":
                walker.skip_subtree()
            else:
                out.add_text(el.tail)
            continue
        name = local_tag(el.tag)
        if event == "start":
            out.add_tag(name, _start_tag_chars(name, el))
            if name in SKIPPED_TAGS:
                walker.skip_subtree()  # its end event still follows
            else:
                out.add_text(el.text)
        else:
            if name not in VOID_TAGS:
                out.add_tag(name, 3 + len(name), closing=True)
            if el is not root:
                out.add_text(el.tail)
    return out.build()


def segments(stream: TokenStream, keep: np.ndarray) -> list[ExtractedBlock]:
    """The selected words (``keep``: one bool per token; tags are ignored) as blocks of contiguous text.

    A block is a maximal run of selected words with no unselected word and no line-breaking tag between them.
    """
    is_word = stream.is_word
    keep = np.asarray(keep, dtype=bool) & is_word
    kept = np.flatnonzero(keep)
    if kept.size == 0:
        return []
    # Barriers: unselected words and line-breaking tags. Two consecutive kept words share a block iff no
    # barrier lies between them, i.e. the running count of barriers is equal at both.
    barrier_count = np.cumsum((is_word & ~keep) | stream.breaks)
    new_block = np.ones(kept.size, dtype=bool)
    new_block[1:] = barrier_count[kept[1:]] != barrier_count[kept[:-1]]
    starts = np.flatnonzero(new_block)
    ends = np.append(starts[1:], kept.size)
    words = stream.word
    return [
        ExtractedBlock(path="", text=" ".join(words[k] for k in kept[s:e]), index=int(kept[s]))
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
    ]


_WS = re.compile(r"\s+")


def element_lines(element: Any, drop: Collection[Any] = ()) -> Iterator[tuple[int, str]]:
    """The visible text of ``element`` as ``(position, line)`` pairs, leaving out the subtrees in ``drop``.

    Lines break at :data:`BREAKING_TAGS`; whitespace is collapsed; ``position`` counts the text pieces read
    before the line starts (monotone in document order, for :attr:`ExtractedBlock.index`).
    """
    line: list[str] = []
    start = pieces = 0

    def end_line() -> Iterator[tuple[int, str]]:
        nonlocal line, start
        text = _WS.sub(" ", "".join(line)).strip()
        if text:
            yield start, text
        line = []
        start = pieces

    walker = etree.iterwalk(element, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        name = local_tag(tag) if isinstance(tag, str) else ""
        if event == "start":
            if name in BREAKING_TAGS:  # a dropped block still separates the lines around it
                yield from end_line()
            if not name or name in SKIPPED_TAGS or el in drop:
                walker.skip_subtree()
                continue
            if el.text:
                line.append(el.text)
                pieces += 1
        else:
            if name in BREAKING_TAGS:
                yield from end_line()
            if el.tail and el is not element:
                line.append(el.tail)
                pieces += 1
    yield from end_line()
