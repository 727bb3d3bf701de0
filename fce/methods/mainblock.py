"""``mainblock``: fce's own single-page method — score the block tree, keep the best-scoring container.

Not from the seed papers: the paper methods (density, CCB, BTE, DSC, LQF) stay below readability's word F1 on
modern pages (README, "Choosing the fallback"), so the default fallback is this method, built on the same block
tree the template path uses (parse once, segment once). It follows the scoring idea popularised by Arc90's
readability, restated here over blocks:

1. every non-inline block with at least :data:`MIN_PARAGRAPH_CHARS` characters of text (its own text plus its
   inline sub-blocks) is a paragraph; its score is 1 + its commas + one point per :data:`CHARS_PER_POINT`
   characters (at most :data:`MAX_LENGTH_POINTS`);
2. a paragraph's score is added to its parent block and half of it to its grandparent;
3. a container's score starts from its tag (:data:`TAG_WEIGHTS`) and its id/class names (content words +25,
   furniture words −25: the name lists of :mod:`fce.learn`), and is scaled by 1 − its link density;
4. the best container is extracted, with those of its siblings that score at least :data:`SIBLING_SHARE` of it;
   inside, sub-blocks that are link lists (link density above :data:`MAX_LINK_DENSITY`) or named as furniture
   are left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from fce.blocks import BlockTree, blocks_of
from fce.extraction import ExtractedBlock
from fce.learn import name_words
from fce.methods import register
from fce.parse import Page

__all__ = ["mainblock"]

#: A block with fewer characters is not a paragraph (readability uses 25).
MIN_PARAGRAPH_CHARS = 25
#: One point per this many characters of paragraph text…
CHARS_PER_POINT = 100
#: …up to this many points (readability: 3).
MAX_LENGTH_POINTS = 3
#: Share of a paragraph's score passed to its grandparent (readability: one half).
GRANDPARENT_SHARE = 0.5
#: Siblings of the best container scoring at least this share of it are extracted too (readability: 0.2).
SIBLING_SHARE = 0.2
#: Any sibling with at least this much text at most this link density is extracted too (readability: 80, 0.25).
SIBLING_MIN_CHARS = 80
SIBLING_MAX_LINK_DENSITY = 0.25
#: Sub-blocks of the extracted container whose text is mostly link text are link lists, left out.
MAX_LINK_DENSITY = 0.5
#: Score for telling id/class names (readability: 25).
NAME_WEIGHT = 25.0
#: How many levels above the chosen container an ``<h1>`` title is looked for.
HEADLINE_LEVELS = 3
#: Starting score of a container by tag (readability's initial scores).
TAG_WEIGHTS = {
    "div": 5.0, "article": 5.0, "main": 5.0, "section": 3.0, "pre": 3.0, "td": 3.0, "blockquote": 3.0,
    "address": -3.0, "ol": -3.0, "ul": -3.0, "dl": -3.0, "dd": -3.0, "dt": -3.0, "li": -3.0, "form": -3.0,
    "h1": -5.0, "h2": -5.0, "h3": -5.0, "h4": -5.0, "h5": -5.0, "h6": -5.0, "th": -5.0,
    "nav": -25.0, "aside": -25.0, "footer": -25.0, "header": -10.0,
}  # fmt: skip

_LAST_QUALIFIER = re.compile(r"\[([^\]]*)\]$")


@lru_cache(maxsize=65536)
def _name_weight(path: str) -> float:
    match = _LAST_QUALIFIER.search(path)
    if not match:
        return 0.0
    content, furniture = name_words(match.group(1))
    return NAME_WEIGHT * (content - furniture)


def _subtree_sums(tree: BlockTree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block: characters of text and of link text in its whole subtree; characters in itself + inline kids."""
    n = len(tree)
    chars = np.zeros(n)
    links = np.zeros(n)
    para = np.zeros(n)
    blocks = tree.blocks
    for b in blocks:
        chars[b.index] = len(b.text)
        links[b.index] = b.link_chars
        para[b.index] = len(b.text)
    for b in reversed(blocks):
        if b.parent >= 0:
            chars[b.parent] += chars[b.index]
            links[b.parent] += links[b.index]
            if b.inline:
                para[b.parent] += para[b.index]
    return chars, links, para


def _headline(tree: BlockTree, start: int, skip: Sequence[bool]) -> int | None:
    """The ``<h1>`` closest before block ``start`` within :data:`HEADLINE_LEVELS` ancestors of it, if the chosen
    container does not hold one: the article's title often sits outside the container of its paragraphs."""
    blocks = tree.blocks
    end = tree.subtree_end(start)
    if any(blocks[i].tag == "h1" for i in range(start, end)):
        return None
    ancestor = start
    for _ in range(HEADLINE_LEVELS):
        if blocks[ancestor].parent <= 0:
            break
        ancestor = blocks[ancestor].parent
    for i in range(start - 1, ancestor, -1):
        if blocks[i].tag == "h1" and blocks[i].text and not skip[i]:
            # a container inside the headline is already part of it: no second copy
            return None if start < tree.subtree_end(i) else i
    return None


@register(
    "mainblock",
    paper="fce's own (readability-style scoring over the FastCE block tree); see the module docstring",
    params={
        "min_paragraph_chars": MIN_PARAGRAPH_CHARS,
        "sibling_share": SIBLING_SHARE,
        "max_link_density": MAX_LINK_DENSITY,
    },
)
def mainblock(page: Page) -> list[ExtractedBlock]:
    """Best-scoring container of paragraphs (readability-style scores over the block tree)."""
    return select_main(blocks_of(page))


def select_main(tree: BlockTree, boilerplate: Sequence[bool] | None = None,
                covered: list[int] | None = None) -> list[ExtractedBlock]:
    """The scoring of :func:`mainblock` over a block tree. ``boilerplate`` marks blocks known not to be content
    (a site template's noise, :class:`fce.detect.Detector` in ``guided`` mode): they neither score as paragraphs
    nor appear in the output. The indices of the blocks whose text is output are appended to ``covered``."""
    blocks = tree.blocks
    skip = boilerplate if boilerplate is not None else [False] * len(blocks)
    if len(blocks) < 2:
        return []
    chars, links, para = _subtree_sums(tree)
    score = np.zeros(len(blocks))
    touched = np.zeros(len(blocks), dtype=bool)
    commas = [0] * len(blocks)
    for b in blocks:
        if b.text and not b.inline:
            commas[b.index] = b.text.count(",")
    for b in reversed(blocks):
        if b.inline and b.parent >= 0 and b.text:
            commas[b.parent] += b.text.count(",")
    for b in blocks:
        if b.inline or para[b.index] < MIN_PARAGRAPH_CHARS or b.parent < 0 or skip[b.index]:
            continue
        points = 1.0 + commas[b.index] + min(para[b.index] / CHARS_PER_POINT, MAX_LENGTH_POINTS)
        up = blocks[b.parent]
        for target, share in ((up, 1.0), (blocks[up.parent] if up.parent >= 0 else None,
                                               GRANDPARENT_SHARE)):
            if target is None:
                continue
            if not touched[target.index]:
                touched[target.index] = True
                score[target.index] = TAG_WEIGHTS.get(target.tag, 0.0) + _name_weight(target.path)
            score[target.index] += points * share
    if not touched.any():
        return []
    density = np.divide(links, chars, out=np.zeros_like(chars), where=chars > 0)
    final = np.where(touched, score * (1.0 - np.minimum(density, 1.0)), -np.inf)
    best = int(np.argmax(final))
    chosen = [best]
    parent = blocks[best].parent
    if parent >= 0:
        threshold = max(10.0, final[best] * SIBLING_SHARE)
        chosen = [c for c in blocks[parent].children if c == best or (touched[c] and final[c] >= threshold)
                  or (not blocks[c].inline and chars[c] > SIBLING_MIN_CHARS and density[c] < SIBLING_MAX_LINK_DENSITY)]

    def keep(block) -> bool:  # type: ignore[no-untyped-def]
        i = block.index
        if skip[i]:
            return False
        if block.inline:
            return True
        if density[i] > MAX_LINK_DENSITY and chars[i] > 0:
            return False
        return _name_weight(block.path) >= 0 or block.tag in ("p",)

    headline = _headline(tree, min(chosen), skip)
    if headline is not None:
        chosen = [headline, *chosen]
    out = []
    for idx in chosen:
        text = tree.render(idx, keep, covered)
        if text:
            out.append(ExtractedBlock(blocks[idx].path, text, idx))
    return out
